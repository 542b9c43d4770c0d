//! `proxy --fault coalesce`: a watch through the proxy gets an object's events within the window
//! as one, the newest, typed as a relist would show the change, in resourceVersion order. The
//! client is tail (its `watch-opened` notice says when the writes can start); the writes are
//! made on the test control plane directly, all well within the window (a few requests against
//! a window of 30 s).

use crate::common::*;
use serde_json::Value;
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_coalesced_watch_sees_each_objects_newest_state_once_and_never_one_added_and_deleted() {
    let ns = TestNamespace::new("coalesce").await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("proxy.kubeconfig");
    let kubeconfig = kubeconfig.display().to_string();
    let mut proxy = Streaming::start(&[
        "proxy",
        "-p",
        "0",
        "-o",
        "json",
        "--write-kubeconfig",
        &kubeconfig,
        "--fault",
        "coalesce:window=30s,resource=configmaps",
    ]);
    proxy.wait_for("the serving line", Duration::from_secs(60), |l| {
        l.contains("\"type\":\"serving\"")
    });
    let mut tail = Streaming::start(&[
        "tail",
        "configmaps",
        "-n",
        &ns.name,
        "--kubeconfig",
        &kubeconfig,
        "-o",
        "json",
    ]);
    tail.wait_for_notice_within("watch-opened", Duration::from_secs(60));
    ns.create_configmap("a", &[]).await;
    for value in ["2", "3"] {
        ns.update_configmap("a", value).await;
    }
    ns.create_configmap("b", &[]).await;
    ns.delete_configmap("b").await;
    ns.create_configmap("c", &[]).await;
    ns.update_configmap("c", "c2").await;
    // c's window opened after a's: its one event is the last to come.
    let last = tail.wait_for("c's event", Duration::from_secs(120), |l| {
        l.contains("\"name\":\"c\"")
    });
    let events: Vec<Value> = tail
        .seen
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| matches!(v["type"].as_str(), Some("ADDED" | "MODIFIED" | "DELETED")))
        .collect();
    let seen: Vec<(String, String)> = events
        .iter()
        .map(|v| {
            (
                v["type"].as_str().unwrap().to_string(),
                v["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("ADDED".to_string(), "a".to_string()),
            ("ADDED".into(), "c".into())
        ],
        "{last}"
    );
    assert_eq!(events[0]["object"]["data"]["k"], "3", "a's newest state");
    assert_eq!(events[1]["object"]["data"]["k"], "c2", "c's newest state");
    let rv = |v: &Value| {
        v["resourceVersion"]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .unwrap()
    };
    assert!(rv(&events[0]) < rv(&events[1]), "resourceVersion order");
    drop(tail);
    let out = proxy.terminate(Duration::from_secs(60));
    assert_eq!(out.code, Some(143), "stderr: {}", out.stderr);
    let details: Vec<String> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "fault")
        .map(|v| v["detail"].as_str().unwrap().to_string())
        .collect();
    let a = format!(
        "3 events of {}/a within 30s sent as one ADDED at rv",
        ns.name
    );
    let b = format!(
        "2 events of {}/b within 30s (added, then deleted) not sent",
        ns.name
    );
    let c = format!(
        "2 events of {}/c within 30s sent as one ADDED at rv",
        ns.name
    );
    for expected in [a, b, c] {
        assert!(
            details.iter().any(|d| d.starts_with(&expected)),
            "{expected}: {details:?}"
        );
    }
}
