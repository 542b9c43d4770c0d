//! `tail -o jsonpath=`, `-o custom-columns=` (and their files), `--output-watch-events`, `-L`
//! and `--show-labels` print what the real kubectl prints with the same flags: kubectl's `get
//! -w` watches beside tail, and both streams must hold the same lines, event for event, tabs
//! aligned by the same tabwriter; a bad template is refused in kubectl's words.

use crate::common::*;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// The objects the tests watch: `a1` labelled and annotated, `b2` bare, two keys of data.
async fn objects(ns: &TestNamespace) {
    let configmaps = ns.configmaps();
    let post = kube::api::PostParams::default();
    for (name, labels) in [
        (
            "a1",
            serde_json::json!({"app": "web", "tier.example.com/x": "1"}),
        ),
        ("b2", serde_json::json!({})),
    ] {
        let cm =
            serde_json::from_value::<k8s_openapi::api::core::v1::ConfigMap>(serde_json::json!({
                "metadata": {"name": name, "labels": labels,
                             "annotations": {"a.b/c": "dotted <&>"}},
                "data": {"k": "v", "k2": "two words"},
            }))
            .unwrap();
        configmaps.create(&post, &cm).await.unwrap();
    }
}

/// What changes once both watch: `a1` updated, `b2` deleted, `c3` and the last, `zz`, made.
async fn changes(ns: &TestNamespace) {
    ns.update_configmap("a1", "changed").await;
    ns.delete_configmap("b2").await;
    ns.create_configmap("c3", &[("app", "db")]).await;
    ns.create_configmap("zz", &[("app", "end")]).await;
}

/// Each `-o` form with its flags, as kubectl takes them and as tail does (the same).
fn forms(file: &std::path::Path) -> Vec<Vec<String>> {
    let columns = format!("custom-columns-file={}", file.display());
    [
        &[r#"jsonpath={.metadata.name}{"\t"}{.metadata.resourceVersion}{"\t"}{.metadata.labels}{"\t"}{.metadata.annotations.a\.b/c}{"\n"}"#][..],
        &[r#"jsonpath={.metadata.name}:{..app}|{.metadata.managedFields[?(@.operation=="Update")].operation}|{.data['k']}|{.nope}|{.metadata.annotations.*}{"\n"}"#],
        &["custom-columns=NAME:.metadata.name,RV:{.metadata.resourceVersion},DATA:.data,APP:metadata.labels.app,MISSING:.nope"],
        &[columns.as_str()],
        &["custom-columns=TYPE:.type,NAME:.object.metadata.name,GEN:.object.metadata.generation", "--output-watch-events"],
        &[r#"jsonpath={.type}{"\t"}{.object.metadata.name}{"\t"}{.object.data.k}{"\n"}"#, "--output-watch-events"],
        &["jsonpath-as-json={.metadata.name}{.data}"],
    ]
    .iter()
    .map(|args| args.iter().map(|a| a.to_string()).collect())
    .collect()
}

#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn templates_print_what_kubectl_get_w_prints_for_the_same_events() {
    let ns = TestNamespace::new("kubectl-templates").await;
    objects(&ns).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("columns.txt");
    std::fs::write(
        &file,
        "NAME  RV  LABELS\n.metadata.name {.metadata.resourceVersion} metadata.labels\n",
    )
    .unwrap();
    let mut pairs = Vec::new();
    for form in forms(&file) {
        let (output, flags) = form.split_first().unwrap();
        let mut cmd = kubectl();
        cmd.args(["get", "cm", "-n", &ns.name, "-w", "-o", output])
            .args(flags);
        let mut tail = vec!["tail", "cm", "-n", &ns.name, "-o", output];
        tail.extend(flags.iter().map(String::as_str));
        pairs.push((
            form.join(" "),
            Streaming::spawn(cmd),
            Streaming::start(&tail),
        ));
    }
    // Each has printed the objects that exist before anything changes.
    for (form, theirs, ours) in &mut pairs {
        theirs.wait_for(&format!("kubectl's b2 ({form})"), LIMIT, |l| {
            l.contains("b2")
        });
        ours.wait_for(&format!("tail's b2 ({form})"), LIMIT, |l| l.contains("b2"));
    }
    changes(&ns).await;
    for (form, theirs, ours) in &mut pairs {
        theirs.wait_for(&format!("kubectl's zz ({form})"), LIMIT, |l| {
            l.contains("zz")
        });
        ours.wait_for(&format!("tail's zz ({form})"), LIMIT, |l| l.contains("zz"));
        assert_eq!(ours.seen, theirs.seen, "{form}");
        assert!(ours.seen.len() >= 6, "{form}: {:#?}", ours.seen);
    }
}

/// (Go walks a map's `*` in a random order: each wildcard here is over one key.)
///
/// kubectl's `get -w` runs a template's `range` on its first object only (client-go's
/// JSONPath keeps its place in the template between objects, and the second fails with "not
/// in range, nothing to end"); tail runs it on each, as kubectl's `get NAME` does on one.
#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn range_runs_on_every_object_as_kubectl_runs_it_on_one() {
    let ns = TestNamespace::new("kubectl-range").await;
    objects(&ns).await;
    let template = r#"jsonpath={.metadata.name}{range .metadata.managedFields[*]}[{.manager} {.operation}]{end}{range .metadata.annotations.*}<{@}>{end}{"\n"}"#;
    let mut want = String::new();
    for name in ["a1", "b2"] {
        let theirs = kubectl()
            .args(["get", "cm", name, "-n", &ns.name, "-o", template])
            .output()
            .unwrap();
        assert!(theirs.status.success(), "{theirs:?}");
        want.push_str(&String::from_utf8(theirs.stdout).unwrap());
    }
    let ours = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--max-events",
        "2",
        "-o",
        template,
    ]);
    assert_eq!(ours.code, Some(0), "{}", ours.stderr);
    assert_eq!(ours.stdout, want);
}

/// The label columns' headers and cells, by a header's offsets (the columns of the initial
/// objects and of later events stay as wide, their values being as wide).
fn label_cells(lines: &[String], headers: &[&str]) -> Vec<Vec<String>> {
    let header = &lines[0];
    let at: Vec<usize> = headers
        .iter()
        .map(|h| {
            header
                .find(&format!(" {h}"))
                .unwrap_or_else(|| panic!("{h} in {header}"))
                + 1
        })
        .collect();
    lines[1..]
        .iter()
        .map(|line| {
            at.iter()
                .enumerate()
                .map(|(i, &from)| {
                    let to = at.get(i + 1).copied().unwrap_or(line.len());
                    let cell = line.get(from..to.min(line.len())).unwrap_or("");
                    // The last column runs to tail's origin mark or changes.
                    cell.trim().split("  ").next().unwrap_or("").to_string()
                })
                .collect()
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn label_columns_and_show_labels_are_kubectls() {
    let ns = TestNamespace::new("kubectl-labels").await;
    objects(&ns).await;
    let flags = ["-L", "app,tier.example.com/x", "--show-labels"];
    let mut cmd = kubectl();
    cmd.args(["get", "cm", "-n", &ns.name, "-w"]).args(flags);
    let mut theirs = Streaming::spawn(cmd);
    let mut tail = vec!["tail", "cm", "-n", &ns.name];
    tail.extend(flags);
    let mut ours = Streaming::start(&tail);
    theirs.wait_for("kubectl's b2", LIMIT, |l| l.contains("b2"));
    ours.wait_for("tail's b2", LIMIT, |l| l.contains("b2"));
    changes(&ns).await;
    theirs.wait_for("kubectl's zz", LIMIT, |l| l.starts_with("zz "));
    ours.wait_for("tail's zz", LIMIT, |l| l.contains("/zz "));
    let headers = ["APP", "X", "LABELS"];
    assert!(
        theirs.seen[0].ends_with("APP   X     LABELS"),
        "{}",
        theirs.seen[0]
    );
    assert!(ours.seen[0].ends_with("APP  X  LABELS"), "{}", ours.seen[0]);
    let want = label_cells(&theirs.seen, &headers);
    assert_eq!(label_cells(&ours.seen, &headers), want);
    assert_eq!(want.len(), 6, "{want:?}");
    assert_eq!(want[1], ["", "", "<none>"]);
}

#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn a_template_that_fails_on_an_object_is_kubectls_error_in_one_line() {
    let ns = TestNamespace::new("kubectl-missing").await;
    objects(&ns).await;
    let flags = [
        "-o",
        "jsonpath={.nope}",
        "--allow-missing-template-keys=false",
    ];
    let mut cmd = kubectl();
    cmd.args(["get", "cm", "-n", &ns.name, "-w"]).args(flags);
    let theirs = run_with_limit(cmd, LIMIT);
    let reason =
        r#"error executing jsonpath "{.nope}": Error executing template: nope is not found"#;
    assert!(theirs.stderr.contains(reason), "{}", theirs.stderr);
    let mut tail = vec!["tail", "cm", "-n", &ns.name];
    tail.extend(flags);
    let ours = run(&tail);
    assert_one_line_error(
        &ours,
        &[&format!(
            "unable to output configmap {}/a1: {reason}",
            ns.name
        )],
    );
    // An index out of bounds fails whatever missing keys may do, in both.
    let flags = ["-o", "jsonpath={.metadata.managedFields[7]}"];
    let mut cmd = kubectl();
    cmd.args(["get", "cm", "-n", &ns.name, "-w"]).args(flags);
    let theirs = run_with_limit(cmd, LIMIT);
    let reason = "Error executing template: array index out of bounds: index 7, length 1";
    assert!(theirs.stderr.contains(reason), "{}", theirs.stderr);
    let mut tail = vec!["tail", "cm", "-n", &ns.name];
    tail.extend(flags);
    assert_one_line_error(&run(&tail), &[reason]);
}

/// kubectl reads its template once it has the objects (it needs a server); tail before it
/// asks for them, and says what kubectl says.
#[test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
fn bad_templates_are_refused_as_kubectl_refuses_them() {
    for output in [
        "jsonpath={.metadata.name",
        "jsonpath={.a[?(@.b==1}",
        r#"jsonpath={"\q"}"#,
        "jsonpath={.a[x]}",
        "jsonpath=",
        "custom-columns=NAME",
        "custom-columns=NAME:{.a}{.b}",
        "custom-columns=N:.a[0",
    ] {
        let mut cmd = kubectl();
        cmd.args(["get", "svc", "-n", "default", "-w", "-o", output]);
        let theirs = run_with_limit(cmd, LIMIT);
        let line = theirs
            .stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("{output}: {}", theirs.stderr));
        // kubectl finds a column's bad path only once it prints: its reason, without the path.
        let said = line
            .trim_start_matches("error: ")
            .trim_start_matches("unable to output the provided object: ");
        let ours = run(&["tail", "svc", "-n", "default", "-o", output]);
        assert_one_line_error(&ours, &[said]);
    }
}

#[test]
fn template_flags_go_only_with_the_forms_they_mean_something_with() {
    for (args, needles) in [
        (
            &["tail", "cm", "-o", "jsonpath={.a"][..],
            &["error parsing jsonpath {.a, unclosed action"][..],
        ),
        (
            &["tail", "cm", "-o", "json", "--show-labels"][..],
            &["--show-labels option cannot be used with json printer"][..],
        ),
        (
            &["tail", "cm", "-o", "custom-columns=N:.a", "-L", "app"][..],
            &["--label-columns option cannot be used with custom-columns printer"][..],
        ),
        (
            &["tail", "cm", "--output-watch-events"][..],
            &["--output-watch-events is for -o jsonpath and -o custom-columns"][..],
        ),
        (
            &["tail", "cm", "--no-headers"][..],
            &["--no-headers: -o text"][..],
        ),
        (
            &[
                "tail",
                "cm",
                "-o",
                "yaml",
                "--allow-missing-template-keys=false",
            ][..],
            &["--allow-missing-template-keys is for -o jsonpath"][..],
        ),
        (
            &["tail", "cm", "-o", "jsonpath-file=/nonexistent/t"][..],
            &["-o jsonpath-file=/nonexistent/t: cannot read the template"][..],
        ),
        (
            &["tail", "cm", "-o", "custom-columns=A:.a", "--diff"][..],
            &["--diff with -o custom-columns"][..],
        ),
    ] {
        assert_one_line_error(&run(args), needles);
    }
}
