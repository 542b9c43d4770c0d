//! `conform` against the real control plane: every check on configmaps, a CRD, pods and
//! podtemplates (served from etcd, so a compacted RV answers 410); the API server without
//! watch-list; read-only as a user with few rights; and through the bending proxy, whose every
//! bend fails exactly the checks it breaks.

use crate::common;
use crate::common::bench::assert_scratch_removed_of;
use crate::common::bending::{Bend, BendingProxy};
use crate::common::controllers::require_controllers;
use crate::common::*;
use std::collections::BTreeMap;
use std::time::Duration;

/// Conform's longest run: a proxy that holds every event back 10 s makes several checks wait.
const LIMIT: Duration = Duration::from_secs(300);

pub(crate) fn conform(args: &[&str], kubeconfig: Option<&std::path::Path>) -> Output {
    let mut cmd = informer();
    cmd.arg("conform").args(args);
    if let Some(path) = kubeconfig {
        cmd.env("KUBECONFIG", path);
    }
    run_with_limit(cmd, LIMIT)
}

/// Each check's status by name, from a `-o json` report (which must have all twelve, in order).
pub(crate) fn statuses(out: &Output) -> BTreeMap<String, String> {
    let report: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}):\n{}\n{}", out.stdout, out.stderr));
    assert_eq!(report["schemaVersion"], 1);
    let checks = report["checks"].as_array().expect("checks");
    let numbers: Vec<u64> = checks
        .iter()
        .map(|c| c["number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (1..=12).collect::<Vec<u64>>(), "{}", out.stdout);
    for c in checks {
        assert!(
            !c["detail"].as_str().unwrap().is_empty(),
            "a check without a detail: {c}"
        );
        if c["status"] == "fail" {
            assert!(
                !c["evidence"].as_array().unwrap().is_empty(),
                "a FAIL without evidence: {c}"
            );
        }
    }
    let count = |status: &str| checks.iter().filter(|c| c["status"] == status).count();
    assert_eq!(report["passed"], count("pass"));
    assert_eq!(report["failed"], count("fail"));
    assert_eq!(report["skipped"], count("skip"));
    checks
        .iter()
        .map(|c| {
            let status = c["status"].as_str().unwrap().to_string();
            (c["name"].as_str().unwrap().to_string(), status)
        })
        .collect()
}

pub(crate) fn detail(out: &Output, name: &str) -> String {
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .map(|c| c["detail"].as_str().unwrap().to_string())
        .unwrap()
}

/// The checks with `status`.
fn with(statuses: &BTreeMap<String, String>, status: &str) -> Vec<String> {
    statuses
        .iter()
        .filter(|(_, s)| *s == status)
        .map(|(n, _)| n.clone())
        .collect()
}

/// Asserts every check passed, but watch-expired, which passes only where RV 1 is out of the
/// server's history: a resource in the watch cache keeps its whole history until the cache
/// drops an event, and then conform says it could not find an old enough RV.
pub(crate) fn assert_all_pass(out: &Output) {
    let statuses = statuses(out);
    let not_passed: Vec<String> = statuses
        .iter()
        .filter(|(name, s)| *s != "pass" && !(name.as_str() == "watch-expired" && *s == "skip"))
        .map(|(n, s)| format!("{n} {s}"))
        .collect();
    assert!(not_passed.is_empty(), "{not_passed:?}\n{}", out.stdout);
    if statuses["watch-expired"] == "skip" {
        assert!(
            detail(out, "watch-expired").contains("still in the server's history"),
            "{}",
            out.stdout
        );
    }
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn every_check_passes_on_configmaps_in_a_scratch_namespace_it_removes() {
    admin().await;
    let out = conform(&["configmaps", "-o", "json"], None);
    assert_all_pass(&out);
    assert_scratch_removed_of("conform", &out.stderr).await;
}

/// Someone whose rights end at their own namespace runs every check there: conform's objects
/// carry the run's label, which its LISTs and watches select, so the namespace's own objects
/// change nothing; at the end conform's are gone and the others untouched.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn every_check_passes_in_a_namespace_of_ones_own_and_only_conforms_objects_are_written() {
    let ns = TestNamespace::new("conform-own").await;
    let mut theirs = Vec::new();
    for name in ["theirs-1", "theirs-2"] {
        theirs.push((name.to_string(), ns.create_configmap(name, &[]).await));
    }
    ns.grant_nobody_and_wait(
        "conform-cm",
        &["configmaps"],
        &["create", "patch", "delete", "list", "watch"],
    )
    .await;
    let out = conform(
        &[
            "configmaps",
            "-n",
            &ns.name,
            "--context",
            "nobody",
            "-o",
            "json",
        ],
        None,
    );
    assert_all_pass(&out);
    assert_pages_described_as_they_came(&out);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["namespace"], ns.name.as_str());
    assert_eq!(report["scratchNamespace"], false);
    assert_eq!(report["readOnly"], false);
    assert!(
        out.stderr
            .contains("labelled kubectl-informer/run=conform-")
            && out.stderr.contains("deleted "),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("creating namespace"), "{}", out.stderr);
    // kube-controller-manager publishes kube-root-ca.crt in every namespace: not conform's.
    assert_eq!(
        ns.configmap_versions()
            .await
            .into_iter()
            .filter(|(name, _)| name != "kube-root-ca.crt")
            .collect::<Vec<_>>(),
        theirs,
        "conform's objects are gone and the namespace's own are as they were"
    );
}

/// Check 2's detail says how many objects each page of its LIST really held, as its evidence
/// shows them (`GET ...limit=1... -> RV 9, 0 items`): in a namespace of others' objects, the
/// server may end the label-selected LIST with an empty page.
fn assert_pages_described_as_they_came(out: &Output) {
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let check = &report["checks"][1];
    assert_eq!(check["name"], "list-pagination");
    let sizes: Vec<usize> = check["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|line| {
            let (_, answer) = line.as_str()?.split_once(" -> ")?;
            let items = answer.split(", ").nth(1)?;
            items.split(' ').next()?.parse().ok()
        })
        .collect();
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.starts_with(&format!(
            "{} pages of a LIST with limit=1 held ",
            sizes.len()
        )),
        "{sizes:?}: {detail}"
    );
    let uniform = sizes.iter().all(|n| *n == sizes[0]);
    let empty_last = sizes.last() == Some(&0) && sizes[..sizes.len() - 1].iter().all(|n| *n == 1);
    let said = if uniform {
        format!("held {} object", sizes[0])
    } else if empty_last {
        "held 1 object each but the last, which was empty".to_string()
    } else {
        let each: Vec<String> = sizes.iter().map(usize::to_string).collect();
        let (last, rest) = each.split_last().unwrap();
        format!("held {} and {last} objects", rest.join(", "))
    };
    assert!(detail.contains(&said), "{sizes:?}: {detail}");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn text_output_has_a_line_per_check_and_a_summary() {
    admin().await;
    let out = conform(&["cm"], None);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("conform configmaps (v1) at "),
        "{}",
        out.stdout
    );
    assert!(lines[0].contains("scratch namespace kubectl-informer-conform-"));
    for (number, check) in [(" 1", "list-consistent"), ("12", "list-never-back")] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("{number}  PASS  {check} "))),
            "{}",
            out.stdout
        );
    }
    assert!(
        lines[0].contains("context \"admin\", user \"admin\", scratch namespace"),
        "{}",
        lines[0]
    );
    // A skip here can only be one the server cannot be held to, which the summary names.
    let summary = lines.last().unwrap();
    assert!(
        summary.contains(" passed, 0 failed, ")
            && (summary.ends_with(" 0 skipped") || summary.contains("not applicable here: ")),
        "{summary}"
    );
    assert_scratch_removed_of("conform", &out.stderr).await;
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_crd_passes_with_objects_made_from_its_template() {
    let client = admin().await;
    let group = format!("{}.conform.example.com", unique("g"));
    let crd = common::crd::create(&client, &group, "gadgets", "Gadget", "gdg").await;
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("gadget.yaml");
    std::fs::write(
        &template,
        format!(
            "apiVersion: {group}/v1\nkind: Gadget\nmetadata:\n  name: ignored\nspec:\n  size: 3\n"
        ),
    )
    .unwrap();
    let out = conform(
        &[&crd, "--template", template.to_str().unwrap(), "-o", "json"],
        None,
    );
    assert_all_pass(&out);
    common::crd::delete(&client, &crd).await;
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn pods_pass_on_the_cluster_with_controllers() {
    require_controllers();
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("pod.yaml");
    std::fs::write(
        &template,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: app\n    image: registry.example/app:1\n",
    )
    .unwrap();
    let out = conform(
        &[
            "pods",
            "--template",
            template.to_str().unwrap(),
            "-o",
            "json",
        ],
        None,
    );
    assert_all_pass(&out);
    assert_scratch_removed_of("conform", &out.stderr).await;
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn podtemplates_served_from_etcd_answer_410_for_a_compacted_rv_and_send_no_bookmarks() {
    // The test API server keeps no watch cache of podtemplates and compacts etcd every 10 s:
    // RV 1 is long gone, and a watch served by etcd itself carries no BOOKMARKs.
    admin().await;
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("podtemplate.json");
    std::fs::write(
        &template,
        r#"{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"x"},"template":{"spec":{"containers":[{"name":"app","image":"registry.example/app:1"}]}}}"#,
    )
    .unwrap();
    let out = conform(
        &[
            "podtemplates",
            "--template",
            template.to_str().unwrap(),
            "-o",
            "json",
        ],
        None,
    );
    let statuses = statuses(&out);
    assert_eq!(
        with(&statuses, "fail"),
        ["watch-bookmarks"],
        "{}",
        out.stdout
    );
    assert_eq!(with(&statuses, "pass").len(), 11, "{}", out.stdout);
    assert!(
        detail(&out, "watch-expired").contains("410"),
        "{}",
        out.stdout
    );
    assert!(
        detail(&out, "watch-bookmarks").contains("no BOOKMARK before the watch ended"),
        "{}",
        out.stdout
    );
    assert_eq!(out.code, Some(1));
    assert_scratch_removed_of("conform", &out.stderr).await;
}

/// Runs conform on configmaps through a proxy that bends the answers as `bend` says, and
/// asserts that exactly the `failing` checks FAIL (exit 1), each with its evidence and a detail
/// that says what it saw (the needle paired with its name).
fn assert_bend_fails(bend: Bend, extra: &[&str], failing: &[(&str, &str)]) {
    let proxy = BendingProxy::start(bend);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = proxy.kubeconfig(dir.path());
    let mut args = vec!["configmaps", "-o", "json"];
    args.extend_from_slice(extra);
    let out = conform(&args, Some(&kubeconfig));
    let statuses = statuses(&out);
    let names: Vec<&str> = failing.iter().map(|(name, _)| *name).collect();
    assert_eq!(with(&statuses, "fail"), names, "{}", out.stdout);
    for (name, needle) in failing {
        let why = detail(&out, name);
        assert!(why.contains(needle), "{name}: {why}");
    }
    let others: Vec<String> = statuses
        .iter()
        .filter(|(name, s)| {
            !names.contains(&name.as_str()) && *s != "pass" && name.as_str() != "watch-expired"
        })
        .map(|(n, s)| format!("{n} {s}"))
        .collect();
    assert!(others.is_empty(), "{others:?}\n{}", out.stdout);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_proxy_that_drops_the_initial_events_end_bookmark_fails_watch_list_only() {
    admin().await;
    let never = "no k8s.io/initial-events-end BOOKMARK: client-go's informer never syncs";
    assert_bend_fails(Bend::StripInitialEventsEnd, &[], &[("watch-list", never)]);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_proxy_that_drops_every_bookmark_fails_bookmarks_and_watch_list() {
    admin().await;
    assert_bend_fails(
        Bend::StripBookmarks,
        &[],
        &[
            ("watch-bookmarks", "no BOOKMARK before the watch ended"),
            ("watch-list", "no k8s.io/initial-events-end BOOKMARK"),
        ],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_proxy_that_holds_the_stream_back_10s_fails_watch_unbuffered() {
    admin().await;
    // The initial events come 10 s late too: a longer --initial-events-timeout tells that
    // apart from a watch-list that never ends.
    assert_bend_fails(
        Bend::Delay(Duration::from_secs(10)),
        &["--initial-events-timeout", "40s"],
        &[("watch-unbuffered", "buffers the watch stream")],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_proxy_that_answers_lists_with_an_old_rv_fails_the_list_rv_checks() {
    admin().await;
    assert_bend_fails(
        Bend::StaleListRv,
        &[],
        &[
            (
                "list-consistent",
                "older than the write made just before it",
            ),
            ("list-exact-rv", "is not the state at RV"),
            // Each LIST at the first one's RV, after writes with greater ones: back in time.
            (
                "list-never-back",
                "the server went back in time, as an API server whose watch cache lags",
            ),
        ],
    );
}

/// The report of a `-o json` run.
fn report_of(out: &Output) -> serde_json::Value {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not a JSON report ({e}):\n{}\n{}", out.stdout, out.stderr))
}

/// A user who may list but not watch checks nothing of the watch contract: every watch check
/// is SKIP saying the watch was forbidden to whom, and the run exits 2 "nothing checked", with
/// or without --allow-skips. The header names the user conform acted as, not the context's.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn read_only_as_a_user_who_may_only_list_checks_nothing_and_exits_2() {
    let ns = TestNamespace::new("conform-ro").await;
    ns.grant_nobody_and_wait("list-cm", &["configmaps"], &["list"])
        .await;
    for name in ["a", "b", "c"] {
        ns.create_configmap(name, &[]).await;
    }
    let as_lister = ["cm", "-n", &ns.name, "--read-only", "--as", "nobody"];
    let out = conform(&[&as_lister[..], &["-o", "json"]].concat(), None);
    let statuses = statuses(&out);
    assert_one_line_error(
        &out,
        &[
            "nothing checked: no watch check ran",
            "watch forbidden for user \"nobody\"",
        ],
    );
    let report = report_of(&out);
    assert_eq!(
        report["outcome"]["result"], "nothing-checked",
        "{}",
        out.stdout
    );
    assert_eq!(report["outcome"]["exitCode"], 2);
    assert_eq!(
        report["identity"],
        serde_json::json!({"user": "nobody", "groups": [], "impersonated": true})
    );
    // Listing is all it may do: the LIST checks pass, every WATCH is refused.
    assert_eq!(
        with(&statuses, "pass"),
        ["list-exact-rv", "list-never-back", "list-pagination"],
        "{}",
        out.stdout
    );
    let skip = |name: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .map(|c| c["skip"].clone())
            .unwrap()
    };
    for name in [
        "watch-bookmarks",
        "watch-expired",
        "watch-list",
        "watch-metadata",
        "watch-rv-order",
        "watch-timeout",
    ] {
        let why = detail(&out, name);
        assert!(
            why.starts_with("watch forbidden for user \"nobody\": configmaps in namespace"),
            "{name}: {why}"
        );
        assert_eq!(skip(name), "forbidden", "{name}");
    }
    for name in ["list-consistent", "watch-from-list", "watch-unbuffered"] {
        assert_eq!(
            detail(&out, name),
            "needs a write, and --read-only writes nothing"
        );
        assert_eq!(skip(name), "read-only", "{name}");
    }
    // --allow-skips does not make a check of nothing a pass; the text header names who acted.
    let out = conform(&[&as_lister[..], &["--allow-skips"]].concat(), None);
    assert_one_line_error(&out, &["nothing checked: no watch check ran"]);
    let header = out.stdout.lines().next().unwrap_or_default();
    assert!(
        header.contains("context \"admin\", acting as \"nobody\", namespace"),
        "{header}"
    );
    assert!(!header.contains("user \"admin\""), "{header}");
    // Nothing was created: the namespace holds the three ConfigMaps only.
    assert_eq!(ns.configmap_versions().await.len(), 3);
    let out = conform(
        &[
            "secrets",
            "-n",
            &ns.name,
            "--read-only",
            "--context",
            "nobody",
        ],
        None,
    );
    assert_one_line_error(&out, &["cannot list secrets", "forbidden"]);
}

/// Reading only, as a user who may list and watch, the checks that need a write are SKIP: the
/// run exits 2 saying which and why, unless --allow-skips says they are expected (exit 0).
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn skipped_checks_fail_a_read_only_run_unless_skips_are_allowed() {
    let ns = TestNamespace::new("conform-skips").await;
    ns.grant_nobody_and_wait("read-cm", &["configmaps"], &["list", "watch"])
        .await;
    for name in ["a", "b", "c"] {
        ns.create_configmap(name, &[]).await;
    }
    let args = [
        "cm",
        "-n",
        &ns.name,
        "--read-only",
        "--context",
        "nobody",
        "-o",
        "json",
    ];
    let out = conform(&args, None);
    let statuses = statuses(&out);
    assert!(with(&statuses, "fail").is_empty(), "{}", out.stdout);
    assert_one_line_error(
        &out,
        &[
            "not every check ran",
            "needs a write, and --read-only writes nothing (checks 1, 4, 10",
            "--allow-skips",
        ],
    );
    let report = report_of(&out);
    assert_eq!(report["outcome"]["result"], "skipped");
    assert_eq!(report["outcome"]["exitCode"], 2);
    assert_eq!(
        report["identity"],
        serde_json::json!({"user": "nobody", "groups": [], "impersonated": false})
    );
    let out = conform(&[&args[..], &["--allow-skips"]].concat(), None);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let report = report_of(&out);
    assert_eq!(report["outcome"]["result"], "passed");
    assert_eq!(report["allowSkips"], true);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn what_conform_cannot_write_is_refused_in_one_line_naming_who_writes() {
    admin().await;
    let dir = tempfile::tempdir().unwrap();
    let cm = dir.path().join("cm.yaml");
    std::fs::write(
        &cm,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
    )
    .unwrap();
    for (args, needles) in [
        (&["pods"][..], &["--template FILE", "--read-only"][..]),
        (
            &["cm", "-n", "no-such-namespace-for-conform"],
            &[
                "namespace \"no-such-namespace-for-conform\" does not exist",
                "scratch namespace",
            ],
        ),
        (&["cm", "-A"], &["-A without --read-only"]),
        (
            &["pods", "--template", cm.to_str().unwrap()],
            &["--template is a v1 ConfigMap", "pods"],
        ),
        (
            &["namespaces", "--template", cm.to_str().unwrap()],
            &["--template is a v1 ConfigMap"],
        ),
        (&["cm", "--delivery-limit", "0"], &["--delivery-limit 0"]),
    ] {
        let out = conform(args, None);
        assert_one_line_error(&out, needles);
    }
    // Impersonated: the line before the first write names who the requests act as, and the
    // write the server forbids points to the checks that need none.
    let out = conform(&["cm", "--as", "system:serviceaccount:x:y"], None);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    let last = out.stderr.lines().last().unwrap_or_default();
    for needle in [
        "error: cannot create namespaces as user \"system:serviceaccount:x:y\"",
        "or add --read-only to run only the checks of cm that read",
    ] {
        assert!(last.contains(needle), "{needle}: {}", out.stderr);
    }
    assert!(
        out.stderr
            .contains("user \"admin\" acting as \"system:serviceaccount:x:y\")"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn tail_and_diff_behind_a_proxy_that_drops_the_end_bookmark_fall_back_instead_of_hanging() {
    // Where conform finds the end bookmark missing, our own informer must not hang: client-go's
    // informer never syncs behind this proxy; tail and diff say why and fall back to a LIST.
    let ns = TestNamespace::new("conform-hang").await;
    for name in ["a", "b"] {
        ns.create_configmap(name, &[]).await;
    }
    let proxy = BendingProxy::start(Bend::StripInitialEventsEnd);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = proxy.kubeconfig(dir.path());
    let kc = kubeconfig.to_str().unwrap();
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--initial",
        "watch-list",
        "--initial-events-timeout",
        "2s",
        "-o",
        "json",
        "--kubeconfig",
        kc,
    ]);
    let fallback = tail.wait_for_notice("fallback");
    let reason = fallback["reason"].as_str().unwrap();
    assert!(
        reason.contains("no k8s.io/initial-events-end bookmark within 2s"),
        "{fallback}"
    );
    let listed = tail.wait_for_notice("list-complete");
    assert_eq!(listed["relist"], true, "{listed}");
    // From then on a plain watch: a write shows.
    ns.create_configmap("c", &[]).await;
    tail.wait_for("the ADDED of c", Duration::from_secs(30), |l| {
        l.contains("\"type\":\"ADDED\"")
            && l.contains("\"name\":\"c\"")
            && l.contains("\"origin\":\"watch\"")
    });
    let initial: Vec<String> = parse_json_lines(&tail.seen)
        .into_iter()
        .filter(|l| l["type"] == "ADDED" && l["origin"] == "initial")
        .map(|l| l["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        initial.contains(&"a".to_string()) && initial.contains(&"b".to_string()),
        "{initial:?}"
    );
    tail.stop_reading_stdout();
    let out = conform_diff(&ns.name, kc);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("k8s.io/initial-events-end"),
        "{}",
        out.stderr
    );
    // diff asks for protobuf; this proxy, which edits JSON, answers in JSON, and diff reads it.
    assert!(
        out.stderr
            .contains("list configmaps: the server answered in JSON (application/json)"),
        "{}",
        out.stderr
    );
}

/// diff with a watch-list behind `kubeconfig`, within conform's limit.
fn conform_diff(namespace: &str, kubeconfig: &str) -> Output {
    let mut cmd = informer();
    cmd.args([
        "diff",
        "cm",
        "-n",
        namespace,
        "--initial",
        "watch-list",
        "--initial-events-timeout",
        "2s",
        "-v=1",
        "--kubeconfig",
        kubeconfig,
    ]);
    run_with_limit(cmd, LIMIT)
}
