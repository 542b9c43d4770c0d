//! The traffic real controllers make, seen through tail and diff on the test control plane with
//! kube-controller-manager, kube-scheduler and kwok nodes: a Deployment's ReplicaSet and Pods,
//! scheduled and made Ready; garbage collection of owned objects; a namespace that finishes
//! deleting. A control plane started bare (`KUBECTL_INFORMER_CONTROLLERS=0`) fails these tests
//! with the command that starts the controllers.

mod common;

use common::*;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// Fails unless the test control plane runs its controllers, naming the command that starts them.
fn require_controllers() {
    let mode = kubeconfig_path().parent().unwrap().join("mode");
    let mode = std::fs::read_to_string(&mode).unwrap_or_default();
    assert!(
        mode.starts_with("controllers"),
        "the test control plane runs without controllers ({}: {:?}); start it with them: \
         `tests/controlplane/controlplane.sh down && {START_COMMAND}` (without \
         KUBECTL_INFORMER_CONTROLLERS=0)",
        kubeconfig_path().parent().unwrap().join("mode").display(),
        mode.trim()
    );
}

async fn create_deployment(ns: &TestNamespace, name: &str, replicas: i32) -> Deployment {
    let deploy: Deployment = serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "app", "image": "registry.invalid/app:1"}]}
            }
        }
    }))
    .unwrap();
    Api::<Deployment>::namespaced(ns.client.clone(), &ns.name)
        .create(&PostParams::default(), &deploy)
        .await
        .expect("create deployment")
}

/// The latest version of each object of a `tail -o json` stream, by name.
fn latest(lines: &[String]) -> BTreeMap<String, Value> {
    let mut objects = BTreeMap::new();
    for line in lines {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        match event["type"].as_str() {
            Some("ADDED" | "MODIFIED") => {
                objects.insert(
                    event["name"].as_str().unwrap_or_default().to_string(),
                    event["object"].clone(),
                );
            }
            Some("DELETED") => {
                objects.remove(event["name"].as_str().unwrap_or_default());
            }
            _ => {}
        }
    }
    objects
}

fn running_and_ready_on_a_kwok_node(pod: &Value) -> bool {
    pod["spec"]["nodeName"]
        .as_str()
        .is_some_and(|n| n.starts_with("kwok-node-"))
        && pod["status"]["phase"] == "Running"
        && pod["status"]["conditions"].as_array().is_some_and(|c| {
            c.iter()
                .any(|c| c["type"] == "Ready" && c["status"] == "True")
        })
        && pod["status"]["podIP"]
            .as_str()
            .is_some_and(|ip| ip.starts_with("10.244."))
}

#[tokio::test]
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
    pods.close_stdout();

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
    tail.close_stdout();
}

#[tokio::test]
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
    tail.wait_for("the namespace DELETED", Duration::from_secs(120), |l| {
        l.contains("\"type\":\"DELETED\"")
    });
    let out = run(&["tail", "cm", "-n", &name, "-o", "json", "--for", "1s"]);
    assert_eq!(out.object_events().len(), 0, "{}", out.stdout);
    tail.close_stdout();
}

#[tokio::test]
async fn bench_measures_the_traffic_a_scaling_deployment_makes() {
    require_controllers();
    let ns = TestNamespace::new("bench-ctrl").await;
    create_deployment(&ns, "scaled", 1).await;
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut bench = Spawned::start(&[
        "bench",
        "pods",
        "-n",
        &ns.name,
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
    bench.wait_for("measuring their own traffic");
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
    assert_eq!(doc["source"]["namespace"], ns.name.as_str());
}
