//! The traffic real controllers make, seen through tail and diff on the test control plane with
//! kube-controller-manager, kube-scheduler and kwok nodes: a Deployment's ReplicaSet and Pods,
//! scheduled and made Ready; garbage collection of owned objects; a namespace that finishes
//! deleting. A control plane started bare (`KUBECTL_INFORMER_CONTROLLERS=0`) fails these tests
//! with the command that starts the controllers.

use crate::common::controllers::*;
use crate::common::*;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_deployment_becomes_a_replicaset_and_pods_that_are_scheduled_and_made_ready() {
    require_controllers();
    let ns = TestNamespace::new("rollout").await;
    let mut pods = Streaming::start(&["tail", "pods", "-n", &ns.name, "-o", "json"]);
    pods.wait_for_notice("watch-opened");
    let deploy = create_deployment(&ns, "web", 3).await;

    // The ReplicaSet controller creates the Pods, the scheduler binds them, kwok runs them.
    let seen = std::cell::RefCell::new(Vec::<String>::new());
    pods.wait_for(
        "3 Pods Running and Ready on kwok nodes",
        Duration::from_secs(120),
        |l| {
            seen.borrow_mut().push(l.to_string());
            latest(&seen.borrow())
                .values()
                .filter(|p| running_and_ready_on_a_kwok_node(p))
                .count()
                == 3
        },
    );
    let objects = latest(&seen.borrow());
    for pod in objects.values() {
        assert_eq!(
            pod["metadata"]["ownerReferences"][0]["kind"], "ReplicaSet",
            "{pod}"
        );
    }
    // Each Pod went through its steps as separate events: created, bound, then run by kwok.
    let events: Vec<Value> = seen
        .borrow()
        .iter()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|e: &Value| e["type"] == "ADDED" || e["type"] == "MODIFIED")
        .collect();
    assert!(events.len() >= 6, "{events:?}");
    pods.stop_reading_stdout();

    // The ReplicaSet is owned by the Deployment, and its status says the Pods are ready.
    let out = run(&[
        "tail",
        "rs",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--max-events",
        "1",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let rs = &out.object_events()[0]["object"];
    assert_eq!(
        rs["metadata"]["ownerReferences"][0]["uid"],
        deploy.metadata.uid.unwrap().as_str()
    );

    // While the controllers keep writing, the informer cache of each resource has no drift.
    for resource in ["deployments", "replicasets", "pods"] {
        let out = run(&["diff", resource, "-n", &ns.name, "--settle", "2s"]);
        assert_eq!(
            out.code,
            Some(0),
            "{resource}: {}\n{}",
            out.stdout,
            out.stderr
        );
    }
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn the_garbage_collector_deletes_what_a_deleted_owner_owned() {
    require_controllers();
    let ns = TestNamespace::new("gc").await;
    let owner: ConfigMap = serde_json::from_value(json!({"metadata": {"name": "owner"}})).unwrap();
    let owner_uid = ns
        .configmaps()
        .create(&PostParams::default(), &owner)
        .await
        .unwrap()
        .metadata
        .uid
        .unwrap();
    let child: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "child", "ownerReferences": [{
            "apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": owner_uid
        }]}
    }))
    .unwrap();
    ns.configmaps()
        .create(&PostParams::default(), &child)
        .await
        .unwrap();
    let mut tail = Streaming::start(&["tail", "cm", "-n", &ns.name, "-o", "json"]);
    tail.wait_for_notice("watch-opened");
    ns.configmaps()
        .delete("owner", &DeleteParams::background())
        .await
        .unwrap();
    let line = tail.wait_for(
        "the child DELETED by the garbage collector",
        Duration::from_secs(90),
        |l| l.contains("\"type\":\"DELETED\"") && l.contains("\"name\":\"child\""),
    );
    assert!(line.contains(&owner_uid), "{line}");
    tail.stop_reading_stdout();
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_deleted_namespace_finishes_deleting_its_content() {
    require_controllers();
    let client = admin().await;
    let name = unique("ns-gone");
    let ns: Namespace = serde_json::from_value(json!({"metadata": {"name": name}})).unwrap();
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    let cms = Api::<ConfigMap>::namespaced(client.clone(), &name);
    for i in 0..3 {
        let cm: ConfigMap =
            serde_json::from_value(json!({"metadata": {"name": format!("cm-{i}")}})).unwrap();
        cms.create(&PostParams::default(), &cm).await.unwrap();
    }
    let mut tail = Streaming::start(&["tail", "namespaces", &name, "-o", "json"]);
    tail.wait_for_notice("watch-opened");
    Api::<Namespace>::all(client)
        .delete(&name, &DeleteParams::default())
        .await
        .unwrap();
    // The namespace controller empties it and removes its finalizer: Terminating, then gone.
    tail.wait_for(
        "the namespace MODIFIED to Terminating",
        Duration::from_secs(60),
        |l| l.contains("\"type\":\"MODIFIED\"") && l.contains("\"phase\":\"Terminating\""),
    );
    tail.wait_for("the namespace DELETED", Duration::from_secs(120), |l| {
        l.contains("\"type\":\"DELETED\"")
    });
    let out = run(&["tail", "cm", "-n", &name, "-o", "json", "--for", "1s"]);
    assert_eq!(out.object_events().len(), 0, "{}", out.stdout);
    tail.stop_reading_stdout();
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn bench_pods_all_namespaces_measures_the_traffic_a_scaling_deployment_makes() {
    require_controllers();
    let ns = TestNamespace::new("bench-ctrl").await;
    create_deployment(&ns, "scaled", 1).await;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut bench = Spawned::start(&[
        "bench",
        "pods",
        "-A",
        "--no-churn",
        "--for",
        "20s",
        "--handler-time",
        "1ms",
        "--export-json",
        report.to_str().unwrap(),
    ]);
    // Scaled up once bench measures: the ReplicaSet controller creates Pods, the scheduler binds
    // them, kwok runs them; each step is an event bench's informer receives in its window.
    bench.wait_for("measuring the traffic others make");
    let deployments = Api::<Deployment>::namespaced(ns.client.clone(), &ns.name);
    deployments
        .patch(
            "scaled",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(json!({"spec": {"replicas": 6}})),
        )
        .await
        .unwrap();
    let code = bench.wait(Duration::from_secs(90));
    assert_eq!(code, Some(0), "{:?}", bench.seen);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // At least the 5 new Pods' creates; their binds and status updates come as more events.
    let events = doc["counters"]["events"].as_u64().unwrap();
    assert!(events >= 5, "{doc}");
    assert!(doc["source"]["namespace"].is_null(), "{doc}");
    for metric in [
        "deliveryLag",
        "handlerTime",
        "queueDuration",
        "workDuration",
    ] {
        assert!(
            doc["metrics"][metric]["count"].as_u64().unwrap() > 0,
            "{metric}: {doc}"
        );
    }
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_rollout_seen_by_tail_rebuilds_the_servers_state_and_diff_finds_no_drift() {
    require_controllers();
    let ns = TestNamespace::new("rollout-steps").await;
    let tail = |resource: &str| {
        let mut t = Streaming::start(&["tail", resource, "-n", &ns.name, "-o", "json"]);
        t.wait_for_notice("watch-opened");
        t
    };
    let (mut deploys, mut sets, mut pods) =
        (tail("deployments"), tail("replicasets"), tail("pods"));
    let api = Api::<Deployment>::namespaced(ns.client.clone(), &ns.name);
    let patch = |body: Value| {
        let api = api.clone();
        async move {
            api.patch(
                "web",
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(body),
            )
            .await
            .unwrap()
        }
    };
    let limit = Duration::from_secs(120);
    create_deployment(&ns, "web", 5).await;
    until_state(&mut pods, "5 Pods Ready", limit, |s| {
        ready_pods(s, "registry.invalid/app:1") == 5
    });
    patch(json!({"spec": {"replicas": 10}})).await;
    until_state(&mut pods, "10 Pods Ready", limit, |s| {
        ready_pods(s, "registry.invalid/app:1") == 10
    });
    // A rollout: a second ReplicaSet takes over, the first is scaled to 0.
    let image = "registry.invalid/app:2";
    patch(
        json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": image}]}}}}),
    )
    .await;
    // During the rollout, while the controllers write, an informer's cache compared at one
    // resourceVersion has no drift.
    let out = run(&["diff", "pods", "-n", &ns.name, "--settle", "2s"]);
    assert_eq!(
        out.code,
        Some(0),
        "during the rollout: {}\n{}",
        out.stdout,
        out.stderr
    );
    until_state(&mut deploys, "the rollout complete", limit, |s| {
        s.get("web").is_some_and(|d| {
            d["status"]["observedGeneration"] == d["metadata"]["generation"]
                && d["status"]["updatedReplicas"] == 10
                && d["status"]["availableReplicas"] == 10
                && d["status"]["replicas"] == 10
        })
    });
    until_state(&mut sets, "two ReplicaSets, the old one at 0", limit, |s| {
        s.len() == 2
            && s.values()
                .filter(|rs| rs["status"]["replicas"] == 0)
                .count()
                == 1
    });
    let out = run(&["diff", "pods", "-n", &ns.name, "--settle", "2s"]);
    assert_eq!(
        out.code,
        Some(0),
        "after the rollout: {}\n{}",
        out.stdout,
        out.stderr
    );
    patch(json!({"spec": {"replicas": 0}})).await;
    until_state(&mut pods, "no Pods left", limit, |s| s.is_empty());
    until_state(&mut deploys, "the scale-down observed", limit, |s| {
        s.get("web").is_some_and(|d| {
            d["status"]["observedGeneration"] == d["metadata"]["generation"]
                && d["status"]["replicas"].as_u64().unwrap_or(0) == 0
        })
    });

    // What each tail's events rebuilt is what a fresh LIST says, object for object, RV for RV.
    // (Controllers may still write after the last awaited state: compare until equal, within
    // a limit.)
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    loop {
        let fresh = (
            listed(&api).await,
            listed(&Api::<k8s_openapi::api::apps::v1::ReplicaSet>::namespaced(
                ns.client.clone(),
                &ns.name,
            ))
            .await,
            listed(&Api::<k8s_openapi::api::core::v1::Pod>::namespaced(
                ns.client.clone(),
                &ns.name,
            ))
            .await,
        );
        let from_tails = (
            rebuilt(&latest(&deploys.seen)),
            rebuilt(&latest(&sets.seen)),
            rebuilt(&latest(&pods.seen)),
        );
        if fresh == from_tails {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the tails' state never matched a fresh LIST: {from_tails:?} vs {fresh:?}"
        );
        // Take in what the tails received meanwhile (each line is at most a short wait away).
        for t in [&mut deploys, &mut sets, &mut pods] {
            t.drain_for(Duration::from_millis(500));
        }
    }

    // Foreground deletion: the ReplicaSets go (DELETED in their tail) before the Deployment.
    api.delete("web", &DeleteParams::foreground())
        .await
        .unwrap();
    until_state(&mut sets, "the ReplicaSets DELETED", limit, |s| {
        s.is_empty()
    });
    until_state(&mut deploys, "the Deployment DELETED", limit, |s| {
        s.is_empty()
    });
    for t in [deploys, sets, pods] {
        let mut t = t;
        t.stop_reading_stdout();
    }
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn bench_measures_the_node_leases_kwok_renews_with_no_writes_of_ours() {
    require_controllers();
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let out = run_with_limit(
        {
            let mut cmd = informer();
            cmd.args([
                "bench",
                "leases",
                "-A",
                "--no-churn",
                "--for",
                "20s",
                "--export-json",
                report.to_str().unwrap(),
            ]);
            cmd
        },
        Duration::from_secs(90),
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // Each kwok node renews its Lease every 10 s (a quarter of its 40 s).
    assert!(doc["counters"]["events"].as_u64().unwrap() > 0, "{doc}");
    assert!(doc["source"]["namespace"].is_null(), "{doc}");
    for metric in [
        "deliveryLag",
        "handlerTime",
        "queueDuration",
        "workDuration",
    ] {
        let m = &doc["metrics"][metric];
        assert!(m["count"].as_u64().unwrap() > 0, "{metric}: {doc}");
        for stat in ["p50", "p90", "p99", "p999", "max", "mean"] {
            assert!(m[stat].is_number(), "{metric}.{stat}: {doc}");
        }
    }
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_watch_cut_during_a_cascading_delete_still_ends_with_the_servers_state() {
    require_controllers();
    let ns = TestNamespace::new("cut-cascade").await;
    let dir = tempfile::tempdir().unwrap();
    let (proxy, proxied) = CuttingProxy::for_test_server(dir.path());
    let proxied = proxied.to_str().unwrap();
    let tail = |resource: &str| {
        let mut t = Streaming::start(&[
            "tail",
            resource,
            "-n",
            &ns.name,
            "-o",
            "json",
            "--kubeconfig",
            proxied,
        ]);
        t.wait_for_notice("watch-opened");
        t
    };
    let (mut sets, mut pods) = (tail("replicasets"), tail("pods"));
    create_deployment(&ns, "web", 4).await;
    let limit = Duration::from_secs(120);
    until_state(&mut pods, "4 Pods Ready", limit, |s| {
        ready_pods(s, "registry.invalid/app:1") == 4
    });
    until_state(&mut sets, "the ReplicaSet", limit, |s| s.len() == 1);

    // The network goes down; the Deployment is deleted in the foreground meanwhile: the garbage
    // collector deletes the ReplicaSet, whose Pods kwok finishes deleting, while tail sees none
    // of it. Back on the network, each tail resumes (or relists after a 410) and ends with the
    // server's state: nothing.
    proxy.outage();
    let api = Api::<Deployment>::namespaced(ns.client.clone(), &ns.name);
    api.delete("web", &DeleteParams::foreground())
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + limit;
    while api.get_opt("web").await.unwrap().is_some() {
        assert!(
            std::time::Instant::now() < deadline,
            "the cascade did not finish within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    proxy.restore();
    until_state(&mut sets, "the ReplicaSet gone after the cut", limit, |s| {
        s.is_empty()
    });
    until_state(&mut pods, "the Pods gone after the cut", limit, |s| {
        s.is_empty()
    });
    for t in [&sets, &pods] {
        assert!(
            t.seen
                .iter()
                .any(|l| l.contains("\"notice\":\"watch-closed\"")
                    || l.contains("\"notice\":\"watch-failed\"")),
            "the cut was not seen: {:?}",
            t.seen
        );
    }
    sets.stop_reading_stdout();
    pods.stop_reading_stdout();
}
