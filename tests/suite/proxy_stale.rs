//! `proxy --fault stale`: a client served as by an API server whose watch cache lags. First
//! tail, whose LIST and watch-list through the proxy get the state of the proxy's start (it knows
//! no older one) and then each change the lag after it happened. Then the stale-state bug planted
//! in the test operator (controller-runtime): restarted by a crash onto a lagging view of its
//! parents, it deletes a child whose parent its cache does not have yet.

use crate::common::*;
use serde_json::Value;
use std::time::Duration;

/// tail's events (ADDED, MODIFIED, DELETED, BOOKMARK) as `TYPE name` (`BOOKMARK` alone), with
/// `(initial)` for the initial state.
fn events(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] != "NOTICE")
        .map(|v| {
            let mut out = v["type"].as_str().unwrap().to_string();
            if let Some(name) = v["name"].as_str() {
                out.push(' ');
                out.push_str(name);
            }
            if v["origin"] == "initial" {
                out.push_str(" (initial)");
            }
            out
        })
        .collect()
}

/// tail through the proxy (`initial`: list or watch-list) until b's ADDED, within 120 s.
fn tail_until_b(kubeconfig: &str, ns: &str, initial: &str) -> Vec<String> {
    let mut tail = Streaming::start(&[
        "tail",
        "configmaps",
        "-n",
        ns,
        "--kubeconfig",
        kubeconfig,
        "--initial",
        initial,
        "-o",
        "json",
    ]);
    tail.wait_for("b's ADDED", Duration::from_secs(120), |l| {
        l.contains("\"type\":\"ADDED\"") && l.contains("\"name\":\"b\"")
    });
    events(&tail.seen)
}

/// `proxy -o json` with `fault`, its kubeconfig written to `kubeconfig`, once it serves.
fn serving(kubeconfig: &str, fault: &str) -> Streaming {
    let mut proxy = Streaming::start(&[
        "proxy",
        "-p",
        "0",
        "-o",
        "json",
        "--write-kubeconfig",
        kubeconfig,
        "--fault",
        fault,
    ]);
    proxy.wait_for("the serving line", Duration::from_secs(60), |l| {
        l.contains("\"type\":\"serving\"")
    });
    proxy
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_stale_list_and_watch_list_show_the_state_of_the_proxys_start_then_each_change_late() {
    let ns = TestNamespace::new("stale").await;
    ns.create_configmap("a", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("proxy.kubeconfig").display().to_string();
    // 60 s: the tails below start well within it, so the state they are served is the one the
    // proxy read at its start (it knows none older): a there, b not yet.
    let proxy = serving(&kubeconfig, "stale:by=60s,resource=configmaps");
    ns.delete_configmap("a").await;
    ns.create_configmap("b", &[]).await;
    let (listed, watch_listed) = std::thread::scope(|s| {
        let listed = s.spawn(|| tail_until_b(&kubeconfig, &ns.name, "list"));
        let watch_listed = s.spawn(|| tail_until_b(&kubeconfig, &ns.name, "watch-list"));
        (listed.join().unwrap(), watch_listed.join().unwrap())
    });
    // a, deleted before either tail started, is in the state served; its delete and b's create
    // come after, in order, as the lagging cache reaches them.
    assert_eq!(listed, ["ADDED a (initial)", "DELETED a", "ADDED b"]);
    assert_eq!(
        watch_listed,
        ["ADDED a (initial)", "BOOKMARK", "DELETED a", "ADDED b"]
    );
    let out = proxy.terminate(Duration::from_secs(60));
    assert_eq!(out.code, Some(143), "stderr: {}", out.stderr);
    let details: Vec<(String, String)> = out
        .json_lines()
        .into_iter()
        .filter(|v| v["type"] == "fault" && v["fault"] == "stale")
        .map(|v| {
            let request = v["request"].as_str().unwrap_or_default().to_string();
            (request, v["detail"].as_str().unwrap().to_string())
        })
        .collect();
    let list = format!("list configmaps -n {}", ns.name);
    assert!(
        details.iter().any(|(r, d)| r == &list
            && d.starts_with("served at rv ")
            && d.contains("(the state at the proxy's start, ")
            && d.contains("instead of the newest read, rv ")),
        "{details:?}"
    );
    let watch_list = format!("watch configmaps -n {} with initial events", ns.name);
    assert!(
        details.iter().any(|(r, d)| r == &watch_list
            && d.starts_with("initial events: the 1 object of rv ")
            && d.contains("then the watch from rv")),
        "{details:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_stale_view_with_a_period_catches_up_when_the_period_ends_not_the_lag_after() {
    let ns = TestNamespace::new("stale-for").await;
    ns.create_configmap("a", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("proxy.kubeconfig").display().to_string();
    // A lag of 10 minutes, for the proxy's first 40 s: the tail below starts within them and is
    // served the state of the proxy's start; the events it is held from go out when the period
    // ends, not 10 minutes after they happened (b's ADDED is waited for 120 s at most).
    let proxy = serving(&kubeconfig, "stale:by=10m,for=40s,resource=configmaps");
    ns.delete_configmap("a").await;
    ns.create_configmap("b", &[]).await;
    let listed = tail_until_b(&kubeconfig, &ns.name, "list");
    assert_eq!(listed, ["ADDED a (initial)", "DELETED a", "ADDED b"]);
    let out = proxy.terminate(Duration::from_secs(60));
    let list = format!("list configmaps -n {}", ns.name);
    assert!(
        out.json_lines().iter().any(|v| v["type"] == "fault"
            && v["fault"] == "stale"
            && v["request"] == list.as_str()),
        "the tail's LIST was not served stale: {}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn a_stale_list_whose_revision_was_compacted_is_served_as_asked_never_410() {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::{Api, ListParams, VersionMatch};
    let ns = TestNamespace::new("compacted").await;
    ns.create_configmap("a", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("proxy.kubeconfig").display().to_string();
    let proxy = serving(&kubeconfig, "stale:by=10m,resource=configmaps");
    // The proxy serves the state of its start (it knows none older): wait, within 120 s, until
    // the test plane's etcd (compacting every 10 s) no longer has it. The revision read now is
    // newer than the proxy's start, so once it is gone the proxy's is too.
    let configmaps: Api<ConfigMap> = Api::namespaced(ns.client.clone(), &ns.name);
    let now = configmaps.list(&ListParams::default()).await.unwrap();
    let rv = now.metadata.resource_version.unwrap();
    ns.create_configmap("b", &[]).await;
    let at = ListParams::default().at(&rv).matching(VersionMatch::Exact);
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    while configmaps.list(&at).await.is_ok() {
        assert!(
            std::time::Instant::now() < deadline,
            "rv {rv} not compacted within 120 s"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    // A LIST through the proxy: served as asked (the newest state, b in it), not 410.
    let mut cmd = kubectl();
    cmd.env("KUBECONFIG", &kubeconfig)
        .args(["get", "configmaps", "-n", &ns.name, "-o", "name"]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("configmap/b"), "{}", out.stdout);
    let out = proxy.terminate(Duration::from_secs(60));
    let compacted = out
        .json_lines()
        .into_iter()
        .filter(|v| v["type"] == "fault" && v["fault"] == "stale")
        .filter_map(|v| v["detail"].as_str().map(str::to_string))
        .find(|d| d.contains("is no longer in the server's history"));
    assert!(
        compacted
            .as_deref()
            .is_some_and(|d| d.contains("not passed on")),
        "{}",
        out.stdout
    );
}

/// One run of the restart workload: the children operator (`--bug-stale-state=bug`) behind
/// `faults`; a parent, its child recorded; the operator's restart, when a crash is among the
/// faults; then a later parent, whose child is recorded once the operator's view has reached it
/// (and so everything before it). Returns the child the first parent recorded, its children at
/// the end, and the proxy's lines.
async fn children_after_restart(
    prefix: &str,
    bug: bool,
    faults: &[&str],
) -> (String, Vec<String>, Vec<Value>) {
    use crate::proxy_controller::{children_of, children_operator, create_parent, until_recorded};
    let ns = TestNamespace::new(prefix).await;
    let configmaps = ns.configmaps();
    let flags: Vec<&str> = faults.iter().flat_map(|f| ["--fault", f]).collect();
    let bug = format!("--bug-stale-state={bug}");
    let mut proxy = children_operator(&ns.name, &bug, &flags);
    proxy.wait_for("the operator's start", Duration::from_secs(60), |l| {
        l.contains("\"event\":\"started\"")
    });
    create_parent(&configmaps, "parent").await;
    let first = until_recorded(&configmaps, "parent").await;
    if faults.iter().any(|f| f.starts_with("crash")) {
        proxy.wait_for("the operator's restart", Duration::from_secs(60), |l| {
            l.contains("\"event\":\"started\"") && l.contains("started again")
        });
    }
    create_parent(&configmaps, "later").await;
    until_recorded(&configmaps, "later").await;
    let children = children_of(&ns, "parent").await;
    let out = proxy.terminate(Duration::from_secs(60));
    assert_eq!(out.code, Some(143), "stderr: {}", out.stderr);
    let lines = out.json_lines();
    (first, children, lines)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn a_restart_onto_a_stale_view_deletes_a_child_only_when_the_operator_trusts_its_cache() {
    // The crash after the parent's record; the restarted operator's view of ConfigMaps (its
    // parents) 45 s behind, so that the parent, made just before, is not in it for 45 s.
    let crash = "crash:after=patch,resource=configmaps";
    let stale = "stale:by=45s,on=restart,resource=configmaps";
    let (both, crash_alone) = ([crash, stale], [crash]);
    let (buggy, crash_only, faultless, fixed) = tokio::join!(
        children_after_restart("stale-bug", true, &both),
        children_after_restart("stale-crash", true, &crash_alone),
        children_after_restart("stale-none", true, &[]),
        children_after_restart("stale-fixed", false, &both),
    );
    // The child the parent recorded is deleted: its owner was not in the cache. (The lagging view
    // then shows the parent as it was before it recorded that child, and the operator may make
    // another: a new child, the old one's data gone.)
    let (first, children, lines) = buggy;
    assert!(!children.contains(&first), "{first} in {children:?}");
    assert!(children.len() <= 1, "{children:?}");
    let stale_notices: Vec<&str> = lines
        .iter()
        .filter(|v| v["type"] == "fault" && v["fault"] == "stale")
        .filter_map(|v| v["detail"].as_str())
        .collect();
    assert!(
        stale_notices
            .iter()
            .any(|d| d.starts_with("initial events: the ")),
        "{lines:?}"
    );
    // The restart alone, no fault, and the operator that asks the API server: the child stays.
    for (run, (first, children, _)) in [
        ("crash only", crash_only),
        ("no fault", faultless),
        ("fixed", fixed),
    ] {
        assert_eq!(children, [first], "{run}");
    }
}
