//! `tail deploy,rs,pods`: several resources in one stream, one reflector each, merged
//! in arrival order, on the test control plane with its controllers. A rollout seen this way
//! rebuilds every resource's state, also with the connection cut every few seconds; text names
//! each object's kind as kubectl does; JSON names each line's resource; the stop conditions and
//! `--stats` span the resources; RVs per resource are refused; recordings of several resources
//! are refused by `bench --from-file` and `diff --cache-file`.

use crate::common::controllers::*;
use crate::common::*;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use serde_json::Value;
use std::time::{Duration, Instant};

const RESOURCES: [&str; 3] = ["deployments.apps", "replicasets.apps", "pods"];

/// Each resource's state rebuilt from the stream equals a fresh LIST of it, name for name, RV
/// for RV. Controllers may still write after the last awaited state: compared until equal,
/// within a limit, taking in what the stream received meanwhile.
async fn assert_rebuilds_each_resource(ns: &TestNamespace, tail: &mut Streaming) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let fresh = [
            listed(&Api::<Deployment>::namespaced(ns.client.clone(), &ns.name)).await,
            listed(&Api::<ReplicaSet>::namespaced(ns.client.clone(), &ns.name)).await,
            listed(&Api::<Pod>::namespaced(ns.client.clone(), &ns.name)).await,
        ];
        let rebuilt = RESOURCES.map(|r| rebuilt(&latest_of(&tail.seen, r)));
        if fresh == rebuilt {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the stream's state never matched fresh LISTs: {rebuilt:?} vs {fresh:?}"
        );
        tail.drain_for(Duration::from_millis(500));
    }
}

/// Every line names its resource, each resource's start notice comes once, and each
/// resource's watch events come in increasing RV order (so none is repeated: a reconnect
/// resumes after the last RV, a relist's findings are marked `relist`).
fn assert_each_resource_in_order(lines: &[String]) {
    let parsed: Vec<Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for line in &parsed {
        assert!(
            RESOURCES.contains(&line["resource"].as_str().unwrap_or_default()),
            "a line without its resource: {line}"
        );
        if line["origin"].is_string() {
            assert!(
                line["kind"].is_string() && line["apiVersion"].is_string(),
                "{line}"
            );
        }
    }
    for resource in RESOURCES {
        let starts = parsed
            .iter()
            .filter(|l| l["notice"] == "start" && l["resource"] == resource)
            .count();
        assert_eq!(starts, 1, "{resource}: start notices");
        let rvs: Vec<u64> = watched(lines, resource).iter().map(|(_, rv)| *rv).collect();
        assert!(!rvs.is_empty(), "{resource}: no watch events");
        assert!(
            rvs.windows(2).all(|w| w[0] < w[1]),
            "{resource}: watch events out of RV order: {rvs:?}"
        );
    }
}

fn tail_json(ns: &TestNamespace, kubeconfig: Option<&str>) -> Streaming {
    let mut args = vec!["tail", "deploy,rs,pods", "-n", &ns.name, "-o", "json"];
    if let Some(kc) = kubeconfig {
        args.extend(["--kubeconfig", kc]);
    }
    let mut tail = Streaming::start(&args);
    for _ in RESOURCES {
        tail.wait_for_notice("watch-opened");
    }
    tail
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn tail_of_deploy_rs_pods_across_a_rollout_rebuilds_each_resources_state() {
    require_controllers();
    let ns = TestNamespace::new("multi-rollout").await;
    let mut tail = tail_json(&ns, None);
    roll_out(&ns, &mut tail, &|| {}).await;
    assert_rebuilds_each_resource(&ns, &mut tail).await;
    assert_each_resource_in_order(&tail.seen);
    tail.stop_reading_stdout();
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn tail_of_deploy_rs_pods_with_the_connection_cut_every_few_seconds_still_rebuilds_them() {
    require_controllers();
    let ns = TestNamespace::new("multi-cut").await;
    let dir = tempfile::tempdir().unwrap();
    let (proxy, proxied) = CuttingProxy::for_test_server(dir.path());
    let mut tail = tail_json(&ns, Some(proxied.to_str().unwrap()));
    // Cut every 15 lines (about every 10 events, the rest the notices a cut makes): every few
    // seconds of a rollout, driven by its progress rather than by a timer of the test's own.
    let lines = std::cell::Cell::new(0);
    let cuts = std::cell::Cell::new(0);
    let cut_now_and_then = || {
        lines.set(lines.get() + 1);
        if lines.get() % 15 == 0 {
            proxy.cut();
            cuts.set(cuts.get() + 1);
        }
    };
    roll_out(&ns, &mut tail, &cut_now_and_then).await;
    proxy.cut();
    assert_rebuilds_each_resource(&ns, &mut tail).await;
    assert!(cuts.get() >= 3, "only {} cuts", cuts.get());
    for resource in RESOURCES {
        let reopened = of(&tail.seen, resource)
            .iter()
            .filter(|l| l.contains("\"notice\":\"watch-opened\""))
            .count();
        assert!(
            reopened >= 3,
            "{resource}: the cuts were not seen: {:?}",
            tail.seen
        );
    }
    assert_each_resource_in_order(&tail.seen);
    tail.stop_reading_stdout();
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn text_names_each_objects_kind_as_kubectl_does_and_each_notice_its_resource() {
    require_controllers();
    let ns = TestNamespace::new("multi-text").await;
    let mut tail = Merged::start(&["tail", "deploy,rs,pods", "-n", &ns.name]);
    let limit = Duration::from_secs(60);
    for resource in RESOURCES {
        let opened = format!("NOTICE    {resource}: watch opened from RV ");
        let started = format!("NOTICE    tailing {resource} in namespace \"{}\"", ns.name);
        if !tail.seen.iter().any(|(_, l)| l.contains(&opened)) {
            tail.wait_for(Stream::Err, &opened, limit, |l| l.contains(&opened));
        }
        assert!(
            tail.seen.iter().any(|(_, l)| l.contains(&started)),
            "{}",
            tail.transcript()
        );
    }
    create_deployment(&ns, "web", 1).await;
    // In arrival order, which is not the order of the resources: wait until each has shown.
    let needles = ["deployment.apps/web", "replicaset.apps/web-", "pod/web-"]
        .map(|kind| format!("  {}  {kind}", ns.name));
    let seen = std::cell::RefCell::new(Vec::<String>::new());
    tail.wait_for(Stream::Out, "a line of each kind", limit, |l| {
        seen.borrow_mut().push(l.to_string());
        needles
            .iter()
            .all(|n| seen.borrow().iter().any(|l| l.contains(n)))
    });
    assert_eq!(tail.interrupt(Duration::from_secs(30)), Some(130));
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn max_events_counts_across_resources_and_stats_has_a_line_for_each_and_the_total() {
    let ns = TestNamespace::new("multi-max").await;
    for name in ["a", "b"] {
        ns.create_configmap(name, &[]).await;
        ns.create_secret(name, "k", "v").await;
    }
    let out = run(&[
        "tail",
        "cm,secrets",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--max-events",
        "3",
        "--stats",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.object_events().len(), 3, "{}", out.stdout);
    let summary: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("summary"))
        .collect();
    assert_eq!(summary.len(), 3, "{}", out.stderr);
    assert!(
        summary[0].starts_with("summary configmaps: "),
        "{summary:?}"
    );
    assert!(summary[1].starts_with("summary secrets: "), "{summary:?}");
    assert!(
        summary[2].starts_with("summary: total of 2 resources: 3 events (ADDED 3, "),
        "{summary:?}"
    );
    // Secret values stay redacted in a stream of several resources.
    let secrets: Vec<Value> = out
        .object_events()
        .into_iter()
        .filter(|e| e["resource"] == "secrets")
        .collect();
    assert!(!secrets.is_empty(), "{}", out.stdout);
    for secret in secrets {
        assert_eq!(
            secret["object"]["data"]["k"], "<redacted: 1 bytes>",
            "{secret}"
        );
    }

    // --timeout: what did not come in time, with the newest RV of each resource.
    let out = run(&[
        "tail",
        "cm,secrets",
        "-n",
        &ns.name,
        "--max-events",
        "10",
        "--timeout",
        "2s",
    ]);
    assert_timed_out(
        &out,
        &[
            "10 object events arrived (4 did)",
            "the newest resourceVersions seen were configmaps ",
            ", secrets ",
        ],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn with_no_reconnect_the_run_ends_when_every_resources_watch_has_ended() {
    let ns = TestNamespace::new("multi-once").await;
    let out = run(&[
        "tail",
        "cm,secrets",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--no-reconnect",
        "--server-timeout",
        "1s",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    for resource in ["configmaps", "secrets"] {
        let closed = out
            .json_lines()
            .into_iter()
            .filter(|l| l["notice"] == "watch-closed" && l["resource"] == resource)
            .count();
        assert_eq!(closed, 1, "{resource}: {}", out.stdout);
    }
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_recording_of_several_resources_is_refused_by_bench_and_diff_naming_them() {
    let ns = TestNamespace::new("multi-record").await;
    ns.create_configmap("a", &[]).await;
    ns.create_secret("a", "k", "v").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("both.jsonl");
    let file = file.to_str().unwrap();
    // One object each: the two events printed are one of each, so both resources are recorded.
    let out = run(&[
        "tail",
        "cm,secrets",
        "-n",
        &ns.name,
        "--record",
        file,
        "--max-events",
        "2",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let recorded = std::fs::read_to_string(file).unwrap();
    let starts: Vec<Value> = recorded
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["notice"] == "start")
        .collect();
    assert_eq!(starts.len(), 2, "{recorded}");
    let needles = [
        "holds 2 resources (",
        "configmaps",
        "secrets",
        "record one resource per file",
    ];
    let bench = run(&["bench", "--from-file", file]);
    assert_one_line_error(&bench, &needles);
    assert!(bench.stderr.contains("--from-file"), "{}", bench.stderr);
    let diff = run(&["diff", "cm", "-n", &ns.name, "--cache-file", file]);
    assert_one_line_error(&diff, &needles);
    assert!(diff.stderr.contains("--cache-file"), "{}", diff.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn several_resources_refuse_a_name_and_one_resource_named_twice() {
    let ns = TestNamespace::new("multi-refused").await;
    for (args, needles) in [
        (
            vec!["deploy,rs", "web"],
            vec!["a name (web) cannot be given with several resources (deploy,rs)"],
        ),
        (
            vec!["po,deploy,pods"],
            vec!["po and pods name the same resource (pods): name each resource once"],
        ),
        (vec!["deploy,,pods"], vec!["invalid resource list"]),
        (vec!["deploy,nosuchthing"], vec!["nosuchthing"]),
    ] {
        let mut argv = vec!["tail"];
        argv.extend(&args);
        argv.extend(["-n", &ns.name]);
        let out = run(&argv);
        assert_one_line_error(&out, &needles);
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    }
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_resource_the_user_may_not_list_ends_the_run_with_an_error_naming_it() {
    let ns = TestNamespace::new("multi-denied").await;
    ns.grant_nobody("tail-cm", &["configmaps"], &["list", "watch"])
        .await;
    // RBAC caches are eventually consistent: until ConfigMaps are allowed, either may fail.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = run(&[
            "tail",
            "cm,secrets",
            "-n",
            &ns.name,
            "--context",
            "nobody",
            "--for",
            "30s",
        ]);
        if out.stderr.contains("configmaps: ") && Instant::now() < deadline {
            continue;
        }
        assert_one_line_error(&out, &["error: secrets: ", "cannot list secrets"]);
        break;
    }
}
