//! Replay from a resourceVersion, watch-list, --until-rv, and resuming through a connection that
//! is cut while writes continue, against the real control plane.

use crate::common::*;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn events(out: &Output) -> Vec<(String, String, String)> {
    out.object_events()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
                e["resourceVersion"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn from_rv_replays_exactly_the_writes_after_it_without_a_list() {
    let ns = TestNamespace::new("replay").await;
    let rv0 = ns.create_configmap("a", &[]).await;
    let rv1 = ns.update_configmap("a", "v1").await;
    let rv2 = ns.create_configmap("b", &[]).await;
    ns.delete_configmap("a").await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--from-rv",
        &rv0,
        "--max-events",
        "3",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let got = events(&out);
    let s = |x: &str| x.to_string();
    assert_eq!(got[0], (s("MODIFIED"), s("a"), rv1));
    assert_eq!(got[1], (s("ADDED"), s("b"), rv2));
    assert_eq!((got[2].0.as_str(), got[2].1.as_str()), ("DELETED", "a"));
    assert!(
        !out.json_lines()
            .iter()
            .any(|l| l["notice"] == "list-complete"),
        "no LIST in a replay: {}",
        out.stdout
    );
}

/// PodTemplates are served from etcd, not the watch cache, in the test control plane
/// (`--watch-cache-sizes=podtemplates#0`), so an old RV expires with etcd's compaction (every
/// 10 s there) instead of when the watch cache happens to drop events.
fn wait_for_expiry(ns: &str, extra: &[&str]) -> Output {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let mut args = vec![
            "tail",
            "podtemplates",
            "-n",
            ns,
            "--from-rv",
            "2",
            "-o",
            "json",
            "--for",
            "2s",
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        let expired = out.code == Some(2) || out.stdout.contains("\"notice\":\"expired\"");
        if expired || Instant::now() > deadline {
            return out;
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn an_rv_older_than_the_history_is_one_clear_error_with_exit_2() {
    let ns = TestNamespace::new("expired").await;
    let out = wait_for_expiry(&ns.name, &[]);
    assert_one_line_error(
        &out,
        &[
            "cannot replay podtemplates from resourceVersion 2",
            "the server said \"",
            "too old",
            "drop --from-rv to start from the current state",
            "--on-expired relist",
        ],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn on_expired_relist_relists_says_so_and_goes_on() {
    let ns = TestNamespace::new("expiredrelist").await;
    let out = wait_for_expiry(&ns.name, &["--on-expired", "relist"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines = out.json_lines();
    assert!(
        lines.iter().any(|l| l["notice"] == "expired"),
        "{}",
        out.stdout
    );
    assert!(
        lines
            .iter()
            .any(|l| l["notice"] == "list-complete" && l["relist"] == true),
        "{}",
        out.stdout
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn watch_list_marks_initial_events_and_shows_the_initial_events_end_bookmark() {
    let ns = TestNamespace::new("watchlist").await;
    ns.create_configmap("one", &[]).await;
    ns.create_configmap("two", &[]).await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--initial",
        "watch-list",
        "--for",
        "2s",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines = out.json_lines();
    let initial: Vec<_> = lines.iter().filter(|l| l["origin"] == "initial").collect();
    assert_eq!(initial.len(), 2, "{}", out.stdout);
    let end = lines
        .iter()
        .position(|l| l["type"] == "BOOKMARK" && l["initialEventsEnd"] == true)
        .expect("initial-events-end bookmark");
    let last_initial = lines
        .iter()
        .rposition(|l| l["origin"] == "initial")
        .unwrap();
    assert!(end > last_initial);
    assert!(
        !lines.iter().any(|l| l["notice"] == "fallback"),
        "{}",
        out.stdout
    );
    let watch = lines
        .iter()
        .find(|l| l["notice"] == "watch-opened")
        .unwrap();
    assert_eq!(
        watch["resourceVersion"], "",
        "a watch-list is a consistent read"
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn until_rv_stops_at_the_first_event_at_or_past_it() {
    let ns = TestNamespace::new("until").await;
    let rv0 = ns.create_configmap("a", &[]).await;
    let rv1 = ns.update_configmap("a", "1").await;
    ns.update_configmap("a", "2").await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--from-rv",
        &rv0,
        "--until-rv",
        &rv1,
        "--timeout",
        "20s",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let got = events(&out);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].2, rv1);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_connection_cut_again_and_again_loses_and_repeats_nothing() {
    let ns = TestNamespace::new("cut").await;
    let dir = tempfile::tempdir().unwrap();
    let (proxy, kc) = CuttingProxy::for_test_server(dir.path());
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--for",
        "60s",
    ]);
    tail.wait_for_notice("watch-opened");
    // Every write and the RV the API returned for it.
    let mut writes: BTreeMap<String, String> = BTreeMap::new();
    for round in 0..4 {
        for i in 0..10 {
            let name = format!("cm-{round}-{i}");
            let rv = ns.create_configmap(&name, &[]).await;
            writes.insert(rv, name.clone());
            let rv = ns.update_configmap(&name, "x").await;
            writes.insert(rv, name);
        }
        proxy.cut();
    }
    let last_rv: u64 = writes
        .keys()
        .map(|k| k.parse::<u64>().unwrap())
        .max()
        .unwrap();
    tail.wait_for("the last write", Duration::from_secs(40), |l| {
        l.contains(&format!("\"resourceVersion\":\"{last_rv}\"")) && !l.contains("BOOKMARK")
    });
    let seen: Vec<serde_json::Value> = tail
        .seen
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut got: BTreeMap<String, usize> = BTreeMap::new();
    for e in seen
        .iter()
        .filter(|e| e["type"] == "ADDED" || e["type"] == "MODIFIED")
    {
        *got.entry(e["resourceVersion"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let missing: Vec<_> = writes.keys().filter(|rv| !got.contains_key(*rv)).collect();
    let repeated: Vec<_> = got.iter().filter(|(_, n)| **n > 1).collect();
    assert!(missing.is_empty(), "writes never shown: {missing:?}");
    assert!(repeated.is_empty(), "events shown twice: {repeated:?}");
    let closes = seen
        .iter()
        .filter(|e| e["notice"] == "watch-closed")
        .count();
    assert!(closes >= 1, "the proxy cut the watch at least once");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn after_an_outage_longer_than_the_history_the_relist_reports_what_was_deleted() {
    use k8s_openapi::api::core::v1::PodTemplate;
    use kube::api::{Api, DeleteParams, PostParams};
    let ns = TestNamespace::new("outage").await;
    let templates: Api<PodTemplate> = Api::namespaced(ns.client.clone(), &ns.name);
    for name in ["stays", "goes"] {
        let pt: PodTemplate = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}
        }))
        .unwrap();
        templates.create(&PostParams::default(), &pt).await.unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let (proxy, kc) = CuttingProxy::for_test_server(dir.path());
    // PodTemplate watches are served by etcd in the test control plane, so history expires with
    // etcd's compaction (every 10 s) while tail cannot reach the server.
    let mut tail = Streaming::start(&[
        "tail",
        "podtemplates",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--for",
        "300s",
    ]);
    tail.wait_for_notice("watch-opened");
    proxy.outage();
    // No newer than anything tail saw: once it has expired, tail's resume RV has too.
    let before_rv = templates
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    templates
        .delete("goes", &DeleteParams::default())
        .await
        .unwrap();
    // Writes elsewhere move etcd's revision on, until compaction passes the RV tail resumes from.
    let other = TestNamespace::new("outage-churn").await;
    write_until_expired(&templates, &before_rv, &other).await;
    proxy.restore();
    // The reflector may still sleep out its backoff (up to 51.2 s after six failed attempts), and
    // relists one more backoff period (up to 60 s) after the 410, as client-go does.
    tail.wait_for_notice_within("expired", Duration::from_secs(120));
    let deleted = tail.wait_for(
        "the DELETED found by the relist",
        Duration::from_secs(120),
        |l| l.contains("\"DELETED\""),
    );
    let deleted: serde_json::Value = serde_json::from_str(&deleted).unwrap();
    assert_eq!(deleted["name"], "goes");
    assert_eq!(deleted["origin"], "relist");
    tail.wait_for_notice("list-complete");
    let shown: Vec<&String> = tail
        .seen
        .iter()
        .filter(|l| l.contains("\"stays\"") && l.contains("\"relist\""))
        .collect();
    assert!(
        shown.is_empty(),
        "an unchanged object is not repeated by the relist: {shown:?}"
    );
}

/// One resourceVersion is one point in time for every resource kube-apiserver stores itself
/// (one etcd revision orders them all), so a replay of several resources from it shows exactly
/// the writes after it, of each; `--until-rv` ends once every resource reached it. A user who
/// cannot read the APIServices that say so is refused in one line.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_replay_across_resources_shows_the_writes_after_one_rv_of_each_until_every_one_reached_the_end(
) {
    let ns = TestNamespace::new("replay-across").await;
    let from = ns.create_configmap("a", &[]).await;
    ns.create_secret("s", "k", "v").await;
    let until = ns.create_configmap("b", &[]).await;
    // Past --until-rv: the event that brings secrets to it.
    ns.create_secret("t", "k", "v").await;
    let out = run(&[
        "tail",
        "configmaps,secrets",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--from-rv",
        &from,
        "--until-rv",
        &until,
        "--timeout",
        "120s",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let mut got: Vec<(String, String)> = out
        .object_events()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or_default().to_string(),
                e["name"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    got.sort();
    let s = |k: &str, n: &str| (k.to_string(), n.to_string());
    assert_eq!(
        got,
        vec![s("ConfigMap", "b"), s("Secret", "s"), s("Secret", "t")],
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("replaying configmaps, secrets from one resourceVersion"),
        "{}",
        out.stderr
    );

    let out = run(&[
        "tail",
        "configmaps,secrets",
        "-n",
        &ns.name,
        "--context",
        "nobody",
        "--from-rv",
        &from,
    ]);
    assert_one_line_error(
        &out,
        &[
            "cannot tell whether configmaps shares kube-apiserver's resourceVersions",
            "replay each resource on its own",
        ],
    );
}
