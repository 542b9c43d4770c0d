//! What the tests with real controllers share: a Deployment to roll out, the state a
//! `tail -o json` stream rebuilds (of one resource or, by `resource`, of several), and a fresh
//! LIST to compare it with.

use super::{controllers_running, Streaming, TestNamespace, START_COMMAND};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// Fails unless the test control plane runs its controllers, naming the command that starts them.
pub fn require_controllers() {
    assert!(
        controllers_running(),
        "the test control plane runs without controllers; start it with them: \
         `tests/controlplane/controlplane.sh down && {START_COMMAND}` (without \
         KUBECTL_INFORMER_CONTROLLERS=0)"
    );
}

/// Reads `tail`'s lines until the latest state they describe (by name) satisfies `pred`.
pub fn until_state(
    tail: &mut Streaming,
    what: &str,
    limit: Duration,
    pred: impl Fn(&BTreeMap<String, Value>) -> bool,
) {
    if pred(&latest(&tail.seen)) {
        return;
    }
    let lines = std::cell::RefCell::new(tail.seen.clone());
    tail.wait_for(what, limit, |l| {
        lines.borrow_mut().push(l.to_string());
        pred(&latest(&lines.borrow()))
    });
}

/// name → resourceVersion of a fresh LIST.
pub async fn listed<K>(api: &Api<K>) -> BTreeMap<String, String>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|o| {
            let meta = o.meta().clone();
            (meta.name.unwrap(), meta.resource_version.unwrap())
        })
        .collect()
}

/// name → resourceVersion of what a tail's events rebuilt.
pub fn rebuilt(state: &BTreeMap<String, Value>) -> BTreeMap<String, String> {
    state
        .iter()
        .map(|(name, o)| {
            (
                name.clone(),
                o["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect()
}

pub fn ready_pods(state: &BTreeMap<String, Value>, image: &str) -> usize {
    state
        .values()
        .filter(|p| running_and_ready_on_a_kwok_node(p))
        .filter(|p| p["spec"]["containers"][0]["image"] == image)
        .filter(|p| p["metadata"]["deletionTimestamp"].is_null())
        .count()
}

pub async fn create_deployment(ns: &TestNamespace, name: &str, replicas: i32) -> Deployment {
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

/// `kubectl set image deploy/NAME CONTAINER=IMAGE` in `ns`, as a user changes one leaf of the
/// pod template's list of containers.
pub fn set_image(ns: &TestNamespace, deployment: &str, container_image: &str) {
    let mut set = super::kubectl();
    let target = format!("deploy/{deployment}");
    set.args(["set", "image", "-n", &ns.name, &target, container_image]);
    let done = set.output().unwrap();
    assert!(done.status.success(), "{done:?}");
}

/// The latest version of each object of a `tail -o json` stream, by name.
pub fn latest(lines: &[String]) -> BTreeMap<String, Value> {
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

pub fn running_and_ready_on_a_kwok_node(pod: &Value) -> bool {
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

/// The lines of a `tail -o json` stream about `resource`.
pub fn of(lines: &[String], resource: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v["resource"] == resource))
        .cloned()
        .collect()
}

/// The latest version of each object of `resource` in a stream of several, by name.
pub fn latest_of(lines: &[String], resource: &str) -> BTreeMap<String, Value> {
    latest(&of(lines, resource))
}

/// Waits until the stream's state of `resource` satisfies `pred`, calling `each_line` (e.g. to
/// cut the connection) with every line that arrives meanwhile.
pub fn until_state_of(
    tail: &mut Streaming,
    resource: &str,
    what: &str,
    each_line: &dyn Fn(),
    pred: impl Fn(&BTreeMap<String, Value>) -> bool,
) {
    if pred(&latest_of(&tail.seen, resource)) {
        return;
    }
    let lines = std::cell::RefCell::new(tail.seen.clone());
    tail.wait_for(what, Duration::from_secs(120), |l| {
        each_line();
        lines.borrow_mut().push(l.to_string());
        pred(&latest_of(&lines.borrow(), resource))
    });
}

/// Creates Deployment `web` with 3 replicas, waits until its Pods are Ready, rolls it out to a
/// new image and waits until the rollout is complete, all as `tail` (a `tail deploy,rs,pods -o
/// json` stream) shows it; `each_line` is called with every line.
pub async fn roll_out(ns: &TestNamespace, tail: &mut Streaming, each_line: &dyn Fn()) {
    create_deployment(ns, "web", 3).await;
    until_state_of(tail, "pods", "3 Pods Ready", each_line, |s| {
        ready_pods(s, "registry.invalid/app:1") == 3
    });
    let image = "registry.invalid/app:2";
    Api::<Deployment>::namespaced(ns.client.clone(), &ns.name)
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"template": {"spec": {
                "containers": [{"name": "app", "image": image}]
            }}}})),
        )
        .await
        .unwrap();
    until_state_of(
        tail,
        "deployments.apps",
        "the rollout complete",
        each_line,
        |s| {
            s.get("web").is_some_and(|d| {
                d["status"]["observedGeneration"] == d["metadata"]["generation"]
                    && d["status"]["updatedReplicas"] == 3
                    && d["status"]["availableReplicas"] == 3
                    && d["status"]["replicas"] == 3
            })
        },
    );
    until_state_of(
        tail,
        "replicasets.apps",
        "the old ReplicaSet at 0",
        each_line,
        |s| s.len() == 2 && s.values().any(|rs| rs["status"]["replicas"] == 0),
    );
    until_state_of(
        tail,
        "pods",
        "3 new Pods Ready, the old gone",
        each_line,
        |s| s.len() == 3 && ready_pods(s, image) == 3,
    );
}

/// The object events of `resource` that came from its watch, as (name, RV).
pub fn watched(lines: &[String], resource: &str) -> Vec<(String, u64)> {
    of(lines, resource)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["origin"] == "watch")
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["resourceVersion"].as_str().unwrap().parse().unwrap(),
            )
        })
        .collect()
}
