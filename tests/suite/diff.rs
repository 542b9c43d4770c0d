//! `diff` against the real control plane: zero drift under concurrent writes, the four classes
//! from a saved cache, and its errors.

use crate::common::*;
use std::time::Duration;

fn report(out: &Output) -> serde_json::Value {
    serde_json::from_str(out.stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("not a JSON report ({e}): {}\n{}", out.stdout, out.stderr))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_healthy_informer_has_no_drift_on_thousands_of_objects_under_concurrent_writes() {
    let ns = TestNamespace::new("nodrift").await;
    let mut creators = Vec::new();
    for w in 0..8 {
        let api = ns.configmaps();
        creators.push(tokio::spawn(async move {
            for i in 0..250 {
                let cm: k8s_openapi::api::core::v1::ConfigMap =
                    serde_json::from_value(serde_json::json!({
                        "metadata": {"name": format!("cm-{w}-{i}")}, "data": {"k": "v"}
                    }))
                    .unwrap();
                api.create(&kube::api::PostParams::default(), &cm)
                    .await
                    .unwrap();
            }
        }));
    }
    for c in creators {
        c.await.unwrap();
    }
    // Writers keep going while diff lists and compares.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let api = ns.configmaps();
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut i = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let name = format!("cm-{}-{}", i % 8, i % 250);
                let patch = serde_json::json!({"data": {"k": i.to_string()}});
                let _ = api
                    .patch(
                        &name,
                        &kube::api::PatchParams::default(),
                        &kube::api::Patch::Merge(&patch),
                    )
                    .await;
                i += 1;
            }
            i
        })
    };
    let out = tokio::task::spawn_blocking({
        let ns = ns.name.clone();
        move || {
            run(&[
                "diff",
                "cm",
                "-n",
                &ns,
                "-o",
                "json",
                "--chunk-size",
                "300",
                "--settle",
                "2s",
            ])
        }
    })
    .await
    .unwrap();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let writes = writer.await.unwrap();
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let r = report(&out);
    assert_eq!(r["compared"], 2000);
    assert_eq!(r["method"], "exact");
    assert_eq!(r["objects"].as_array().unwrap().len(), 0);
    assert!(writes > 10, "writes happened during the diff: {writes}");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_saved_cache_then_a_create_a_delete_an_update_and_a_recreate_give_one_of_each_class() {
    let ns = TestNamespace::new("classes").await;
    saved_cache_then_changes_give_one_of_each_class(&ns, &kubeconfig_path()).await;
}

/// `diff --save-cache` of four ConfigMaps in `ns` (on the server of `kubeconfig`), then a create,
/// a delete, an update and a recreate: `diff --cache-file` finds one of each class (also run on
/// each supported minor by tests/suite/minors.rs).
pub(crate) async fn saved_cache_then_changes_give_one_of_each_class(
    ns: &TestNamespace,
    kubeconfig: &std::path::Path,
) {
    let kubeconfig = kubeconfig.to_str().unwrap();
    let diff = |extra: &[&str]| {
        let mut args = vec![
            "diff",
            "cm",
            "-n",
            ns.name.as_str(),
            "--kubeconfig",
            kubeconfig,
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    for name in ["deleted", "updated", "recreated", "same"] {
        ns.create_configmap(name, &[]).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cache.jsonl");
    let file = file.to_str().unwrap();
    let out = diff(&["--save-cache", file]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.starts_with("no drift: 4 objects compared"),
        "{}",
        out.stdout
    );

    ns.create_configmap("created", &[]).await;
    ns.delete_configmap("deleted").await;
    ns.update_configmap("updated", "changed").await;
    ns.delete_configmap("recreated").await;
    ns.create_configmap("recreated", &[]).await;

    let out = diff(&["--cache-file", file, "-o", "json", "--show-fields"]);
    assert_eq!(out.code, Some(1), "drift is exit 1: {}", out.stderr);
    let r = report(&out);
    assert_eq!(r["method"], "cache-file");
    let classes: Vec<(String, String)> = r["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["class"].as_str().unwrap().to_string(),
                d["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        classes,
        vec![
            s("missing", "created"),
            s("ghost", "deleted"),
            s("stale", "updated"),
            s("recreated", "recreated")
        ]
    );
    assert_eq!(r["drift"]["missing"], 1);
    assert_eq!(r["drift"]["content"], 0);
    let stale = &r["objects"][2];
    assert_eq!(stale["fields"], "data.k v0→changed");

    let out = diff(&["--cache-file", file]);
    assert_eq!(out.code, Some(1));
    assert!(out.stdout.contains("│ ghost"), "a table: {}", out.stdout);
    assert!(
        out.stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("drift: 1 missing, 1 ghost, 1 stale, 1 recreated, 0 content in 5 objects"),
        "{}",
        out.stdout
    );
}

/// Users keep recordings: one of recording schema version 1 (tests/fixtures/recording-v1.jsonl,
/// made by the build before version 2, in namespace `fixture-v1`) is still a saved cache.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_recording_of_schema_version_1_is_still_a_saved_cache() {
    let ns = TestNamespace::new("oldrec").await;
    ns.create_configmap("app-1", &[]).await;
    ns.create_configmap("new", &[]).await;
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/recording-v1.jsonl"
    );
    let text = std::fs::read_to_string(fixture).unwrap();
    assert!(text.contains(r#""notice":"start","schemaVersion":1,"#));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("v1.jsonl");
    std::fs::write(&file, text.replace("fixture-v1", &ns.name)).unwrap();
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--cache-file",
        file.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(1), "drift is exit 1: {}", out.stderr);
    let r = report(&out);
    assert_eq!(r["schemaVersion"], 2);
    assert_eq!(r["cacheResourceVersion"], "266");
    let classes: Vec<String> = r["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["class"].as_str().unwrap(),
                d["name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        classes,
        [
            "missing new",
            "ghost app-3",
            "ghost app-4",
            "recreated app-1"
        ],
        "{}",
        out.stdout
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn diff_errors_are_one_line_with_exit_2() {
    let ns = TestNamespace::new("differr").await;
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.jsonl");
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--cache-file",
        missing.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["--cache-file", "no such file"]);

    let existing = dir.path().join("exists.jsonl");
    std::fs::write(&existing, "keep me").unwrap();
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--save-cache",
        existing.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["the file exists"]);
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");

    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--cache-file",
        existing.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["is not a recording", "line 1"]);

    let secrets = dir.path().join("secrets.jsonl");
    std::fs::write(
        &secrets,
        "{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"secrets\"}\n",
    )
    .unwrap();
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--cache-file",
        secrets.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["records secrets, not configmaps"]);

    // Made in another namespace, with a selector: every object outside the overlap would show
    // as drift, so it is refused, naming both.
    let elsewhere = dir.path().join("elsewhere.jsonl");
    std::fs::write(
        &elsewhere,
        "{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"configmaps\",\"namespace\":\"elsewhere\",\"labelSelector\":\"app=web\",\"metadataOnly\":false}\n",
    )
    .unwrap();
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--cache-file",
        elsewhere.to_str().unwrap(),
    ]);
    assert_one_line_error(
        &out,
        &[
            &format!("namespace \"elsewhere\" (this run: \"{}\")", ns.name),
            "label selector \"app=web\" (this run: none)",
        ],
    );
    let metadata = dir.path().join("metadata.jsonl");
    std::fs::write(
        &metadata,
        format!("{{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"configmaps\",\"namespace\":\"{}\",\"metadataOnly\":true}}\n", ns.name),
    )
    .unwrap();
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--cache-file",
        metadata.to_str().unwrap(),
    ]);
    assert_one_line_error(&out, &["recorded with --metadata-only"]);

    // A watch-list (the default) is refused with the watch's 403, once: no fallback to a LIST
    // whose WATCH would be refused the same way.
    let out = run(&["diff", "cm", "-n", &ns.name, "--context", "nobody"]);
    assert_one_line_error(&out, &["cannot watch configmaps", "as user \"nobody\""]);
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--context",
        "nobody",
        "--initial",
        "list",
    ]);
    assert_one_line_error(&out, &["cannot list configmaps", "as user \"nobody\""]);
}

/// A typo in -n or -l must not turn a drift check into a pass: nothing compared exits 2 and
/// names the scope that holds nothing, unless --allow-empty says an empty scope is expected.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn nothing_to_compare_exits_2_naming_the_scope_unless_an_empty_scope_is_allowed() {
    let missing = unique("no-such-ns");
    let out = run(&["diff", "deployments", "-n", &missing]);
    assert_one_line_error(
        &out,
        &[
            "nothing to compare",
            &format!("namespace \"{missing}\" does not exist"),
            "--allow-empty",
        ],
    );
    assert_eq!(out.stdout, "", "no verdict on stdout");

    let ns = TestNamespace::new("diffempty").await;
    ns.create_configmap("web-1", &[("app", "web")]).await;
    let out = run(&["diff", "cm", "-n", &ns.name, "-l", "app=wbe"]);
    assert_one_line_error(
        &out,
        &[&format!(
            "no configmaps in namespace \"{}\" with label selector \"app=wbe\"",
            ns.name
        )],
    );
    // A watchdog checks its first comparison.
    let out = run(&[
        "diff", "cm", "-n", &ns.name, "-l", "app=wbe", "--every", "1s", "--for", "1m",
    ]);
    assert_one_line_error(&out, &["nothing to compare", "app=wbe"]);
    // The same scope with a match compares, and an empty one passes when allowed.
    let out = run(&["diff", "cm", "-n", &ns.name, "-l", "app=web"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.starts_with("no drift: 1 object compared"),
        "{}",
        out.stdout
    );
    let out = run(&["diff", "deployments", "-n", &missing, "--allow-empty"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.starts_with("no drift: 0 objects compared"),
        "{}",
        out.stdout
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn ctrl_c_during_an_every_watchdog_exits_130() {
    let ns = TestNamespace::new("diffint").await;
    let mut diff = Streaming::start(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--every",
        "1s",
        "--allow-empty",
    ]);
    // Interrupted once the watchdog has compared at least once, not after a guessed time.
    let verdict = diff.wait_for("the first comparison", Duration::from_secs(60), |l| {
        l.contains("no drift: 0 objects compared")
    });
    // Each of a watchdog's verdicts says when it was reached: `HH:MM:SS.mmm  no drift: ...`.
    let (time, rest) = verdict.split_once("  ").unwrap_or_default();
    assert!(
        rest.starts_with("no drift")
            && time.len() == 12
            && time
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':' || c == '.'),
        "{verdict}"
    );
    std::process::Command::new("kill")
        .args(["-INT", &diff.pid().to_string()])
        .status()
        .unwrap();
    let out = diff.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(130), "{}\n{}", out.stdout, out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn sigterm_during_an_every_watchdog_exits_143_and_a_gone_reader_ends_it_at_once() {
    let ns = TestNamespace::new("diffterm").await;
    let mut diff = Streaming::start(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--every",
        "1s",
        "--allow-empty",
    ]);
    diff.wait_for("the first comparison", Duration::from_secs(60), |l| {
        l.contains("no drift: 0 objects compared")
    });
    std::process::Command::new("kill")
        .args(["-TERM", &diff.pid().to_string()])
        .status()
        .unwrap();
    let out = diff.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(143), "{}\n{}", out.stdout, out.stderr);

    // Comparing every 10 minutes: the reader going away after the first report ends the
    // watchdog then, not at the next comparison's write.
    let out = close_stdout_after(
        &[
            "diff",
            "cm",
            "-n",
            &ns.name,
            "--every",
            "10m",
            "--allow-empty",
        ],
        |line| line.contains("no drift: 0 objects compared"),
        Duration::from_secs(30),
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_saved_cache_of_secrets_holds_no_values_and_still_compares() {
    let ns = TestNamespace::new("savesecret").await;
    ns.create_secret("s", "password", "hunter2-plaintext").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("secrets.jsonl");
    let out = run(&[
        "diff",
        "secrets",
        "-n",
        &ns.name,
        "--save-cache",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let saved = std::fs::read_to_string(&file).unwrap();
    // "hunter2-plaintext" in base64, as the server stores it in data.
    assert!(
        !saved.contains("aHVudGVyMi1wbGFpbnRleHQ=") && !saved.contains("hunter2"),
        "{saved}"
    );
    assert!(saved.contains("<redacted: 17 bytes>"), "{saved}");
    let out = run(&[
        "diff",
        "secrets",
        "-n",
        &ns.name,
        "--cache-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
}

/// diff's `--timeout` bounds the one comparison (sync, settle, compare): 124 when it
/// runs out first, with the informer stopped as on any other end.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_timeout_too_short_for_the_comparison_exits_124_and_a_long_one_changes_nothing() {
    let ns = TestNamespace::new("difftimeout").await;
    for i in 0..100 {
        ns.create_configmap(&format!("c{i}"), &[]).await;
    }
    // A LIST of one object per page: 100 round trips to sync, far more than 20 ms.
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--initial",
        "list",
        "--chunk-size",
        "1",
        "--timeout",
        "20ms",
    ]);
    // The limit counts from the start of the run: it ends discovery or the sync, whichever
    // it finds under way, and says which.
    assert_timed_out(&out, &["--timeout 20ms"]);
    let line = out.stderr.lines().last().unwrap();
    assert!(
        line.contains(
            "reached before the comparison finished: diff was waiting for the \
                       informer's cache to sync"
        ) || line.contains("ended the run while discovery of the API resources was waiting"),
        "{line}"
    );
    assert_eq!(out.stdout, "", "no report");
    let out = run(&["diff", "cm", "-n", &ns.name, "--timeout", "50s"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("no drift: 100 objects compared"),
        "{}",
        out.stdout
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn every_with_for_runs_the_watchdog_that_long_and_exits_0() {
    let ns = TestNamespace::new("difffor").await;
    ns.create_configmap("a", &[]).await;
    let started = std::time::Instant::now();
    let out = run(&[
        "diff", "cm", "-n", &ns.name, "--every", "1s", "--for", "2500ms",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let reports = out
        .stdout
        .lines()
        .filter(|l| l.contains("  no drift: 1 object compared"))
        .count();
    assert!(reports >= 2, "compared every second: {}", out.stdout);
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "--for ended the watchdog"
    );
}

#[test]
fn timeout_with_every_for_without_it_and_several_resources_are_refused_in_one_line() {
    for (args, needles) in [
        (
            vec!["diff", "cm", "--every", "1m", "--timeout", "1h"],
            vec![
                "--timeout 1h with --every",
                "which is now --for",
                "use --for 1h",
            ],
        ),
        (
            vec!["diff", "cm", "--for", "1h"],
            vec!["--for 1h without --every", "--timeout 1h"],
        ),
        (
            vec!["diff", "cm", "--settle", "1m", "--timeout", "30s"],
            vec!["--timeout 30s is not longer than --settle 1m"],
        ),
        (
            vec!["diff", "cm", "--settle", "5"],
            vec!["--settle 5: a duration needs a unit, e.g. 5s or 5ms"],
        ),
        (
            vec!["diff", "cm,deploy"],
            vec![
                "diff compares one resource at a time (got cm,deploy)",
                "run diff cm, then diff deploy",
            ],
        ),
    ] {
        assert_one_line_error(&run(&args), &needles);
    }
}
