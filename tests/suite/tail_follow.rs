//! `tail --follow-owned`: a named object and, transitively, what it owns, in one
//! stream, on the test control plane with its controllers. A Deployment rollout shows the
//! Deployment, its ReplicaSets and their Pods as they come and go, and nothing of another
//! Deployment; text indents owned objects under their owner; a CRD's hand-made children join,
//! leave when orphaned, and go with their DELETED; `--owned-kinds` narrows the resources; bad
//! combinations are refused in one line.

use crate::common;
use crate::common::controllers::*;
use crate::common::*;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The object events of a `-o json` stream, parsed.
fn events(lines: &[String]) -> Vec<Value> {
    parse_json_lines(lines)
        .into_iter()
        .filter(|l| matches!(l["type"].as_str(), Some("ADDED" | "MODIFIED" | "DELETED")))
        .collect()
}

/// The lines of a `-o json` stream that `pick` picks, and every notice, each shortened to what
/// tells the story (type, origin, name, resourceVersion, replicas, phase): for a failure's
/// message.
fn story(lines: &[String], pick: impl Fn(&Value) -> bool) -> String {
    parse_json_lines(lines)
        .into_iter()
        .filter(|l| l["type"] == "NOTICE" || pick(l))
        .map(|l| {
            let o = &l["object"];
            format!(
                "{} {} {} {} rv={} replicas={}/{} phase={}",
                l["type"],
                l["origin"],
                l["notice"],
                l["name"],
                o["metadata"]["resourceVersion"],
                o["spec"]["replicas"],
                o["status"]["replicas"],
                o["status"]["phase"]
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// [`story`] of the ReplicaSets.
fn replica_set_story(lines: &[String]) -> String {
    story(lines, |l| l["resource"] == "replicasets.apps")
}

/// Starts `tail ARGS -o json` and waits until each of `resources` has its watch open.
fn follow_json(args: &[&str], resources: usize) -> Streaming {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let mut tail = Streaming::start(&all);
    for _ in 0..resources {
        tail.wait_for_notice_within("watch-opened", Duration::from_secs(60));
    }
    tail
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_rollout_followed_from_its_deployment_shows_the_whole_chain_and_nothing_of_another() {
    require_controllers();
    let ns = TestNamespace::new("follow").await;
    // Another Deployment in the namespace: its objects must never appear.
    create_deployment(&ns, "db", 1).await;
    let mut tail = follow_json(&["tail", "deploy/web", "-n", &ns.name, "--follow-owned"], 3);
    roll_out(&ns, &mut tail, &|| {}).await;
    // The stream's state of web's objects equals fresh LISTs of them (name for name, RV for
    // RV), taking in what the controllers still wrote.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let web = ListParams::default().labels("app=web");
        let pods = Api::<Pod>::namespaced(ns.client.clone(), &ns.name);
        let fresh_pods: std::collections::BTreeMap<String, String> = pods
            .list(&web)
            .await
            .unwrap()
            .items
            .into_iter()
            .map(|p| {
                (
                    p.metadata.name.unwrap(),
                    p.metadata.resource_version.unwrap(),
                )
            })
            .collect();
        if rebuilt(&latest_of(&tail.seen, "pods")) == fresh_pods {
            break;
        }
        assert!(Instant::now() < deadline, "pods never matched a LIST");
        tail.drain_for(Duration::from_millis(500));
    }
    let events = events(&tail.seen);
    for e in &events {
        let name = e["name"].as_str().unwrap();
        assert!(
            name == "web" || name.starts_with("web-"),
            "an object not owned by web: {e}"
        );
    }
    let of = |resource: &str, kind: &str| -> Vec<&Value> {
        events
            .iter()
            .filter(|e| e["resource"] == resource && e["type"] == kind)
            .collect()
    };
    assert!(
        of("deployments.apps", "MODIFIED")
            .iter()
            .any(|e| e["object"]["metadata"]["generation"] == 2),
        "no MODIFIED of the Deployment at generation 2"
    );
    for e in events
        .iter()
        .filter(|e| e["resource"] == "deployments.apps")
    {
        assert_eq!(e["ownerChain"], json!([]), "{e}");
    }
    let image = |e: &Value, at: &str| e["object"].pointer(at).cloned();
    let rs_image = "/spec/template/spec/containers/0/image";
    let new_rs: Vec<&Value> = of("replicasets.apps", "ADDED")
        .into_iter()
        .filter(|e| image(e, rs_image) == Some(json!("registry.invalid/app:2")))
        .collect();
    assert_eq!(new_rs.len(), 1, "the new ReplicaSet's ADDED");
    assert_eq!(new_rs[0]["ownerChain"], json!(["deployment.apps/web"]));
    let new_rs_name = new_rs[0]["name"].as_str().unwrap();
    assert!(
        of("replicasets.apps", "MODIFIED")
            .iter()
            .any(|e| { e["name"] != new_rs_name && e["object"]["spec"]["replicas"] == 0 }),
        "the old ReplicaSet scaled to 0; the ReplicaSets' events and every notice:\n{}",
        replica_set_story(&tail.seen)
    );
    let pod_image = "/spec/containers/0/image";
    let new_pods: Vec<&Value> = of("pods", "ADDED")
        .into_iter()
        .filter(|e| image(e, pod_image) == Some(json!("registry.invalid/app:2")))
        .collect();
    assert_eq!(new_pods.len(), 3, "each new Pod's ADDED");
    for pod in &new_pods {
        assert_eq!(
            pod["ownerChain"],
            json!([
                "deployment.apps/web",
                format!("replicaset.apps/{new_rs_name}")
            ])
        );
        // Usually a MODIFIED; but a Pod whose event overtook its new ReplicaSet's joins the
        // stream with its state when the ReplicaSet does, which on a loaded machine can be
        // Ready already.
        assert!(
            events
                .iter()
                .filter(|e| e["resource"] == "pods" && e["type"] != "DELETED")
                .any(|e| e["name"] == pod["name"] && running_and_ready_on_a_kwok_node(&e["object"])),
            "no event of {} showing it Ready; its events and every notice:\n{}",
            pod["name"],
            story(&tail.seen, |l| l["name"] == pod["name"])
        );
    }
    let old_pods_deleted = of("pods", "DELETED")
        .into_iter()
        .filter(|e| image(e, pod_image) == Some(json!("registry.invalid/app:1")))
        .inspect(|e| {
            assert_eq!(e["ownerChain"].as_array().map(Vec::len), Some(2), "{e}");
        })
        .count();
    assert_eq!(old_pods_deleted, 3, "the old Pods' DELETED");
    // Each resource's watch events in increasing RV order, none repeated.
    for resource in ["deployments.apps", "replicasets.apps", "pods"] {
        let rvs: Vec<u64> = watched(&tail.seen, resource)
            .iter()
            .map(|(_, rv)| *rv)
            .collect();
        assert!(
            rvs.windows(2).all(|w| w[0] < w[1]),
            "{resource}: watch events out of RV order: {rvs:?}"
        );
    }
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn text_indents_owned_objects_under_their_owner_and_names_it() {
    require_controllers();
    let ns = TestNamespace::new("follow-text").await;
    create_deployment(&ns, "web", 2).await;
    let mut tail = Streaming::start(&[
        "tail",
        "deployments",
        "web",
        "-n",
        &ns.name,
        "--follow-owned",
    ]);
    let pod = tail.wait_for("a Pod's line", Duration::from_secs(120), |l| {
        l.contains("      pod/web-")
    });
    let rs = tail
        .seen
        .iter()
        .find(|l| l.contains("    replicaset.apps/web-"))
        .cloned()
        .unwrap_or_else(|| panic!("no ReplicaSet line before the Pod's: {:?}", tail.seen));
    assert!(
        rs.contains(&format!("{}    replicaset.apps/web-", ns.name))
            && rs.contains("  <- deployment.apps/web"),
        "{rs}"
    );
    let rs_name = rs
        .split_whitespace()
        .find_map(|w| w.strip_prefix("replicaset.apps/"))
        .unwrap();
    assert!(
        pod.contains(&format!("  <- replicaset.apps/{rs_name}")),
        "{pod}"
    );
    assert!(
        tail.seen
            .iter()
            .any(|l| l.contains(&format!("{}  deployment.apps/web", ns.name))),
        "{:?}",
        tail.seen
    );
}

/// A CRD `widgets` owner, with children the test makes by hand: ConfigMaps owned by a Widget,
/// a Secret owned by one of those ConfigMaps (a grandchild).
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_crd_owner_s_hand_made_children_join_leave_when_orphaned_and_go_when_deleted() {
    let ns = TestNamespace::new("follow-crd").await;
    let suffix = unique("f").replace('-', "");
    let group = format!("f{suffix}.informer.test");
    let crd_name = common::crd::create(
        &ns.client,
        &group,
        "widgets",
        "Widget",
        &format!("wf{suffix}"),
    )
    .await;
    let widgets = common::crd::custom(&group, "widgets", "Widget");
    let create_widget = |name: &'static str| {
        common::crd::create_object(
            &ns.client,
            &ns.name,
            &widgets,
            json!({"metadata": {"name": name}}),
        )
    };
    let w1 = create_widget("w1").await;
    let w2 = create_widget("w2").await;
    let owned_by = |api_version: &str, kind: &str, name: &str, uid: &str| json!([{"apiVersion": api_version, "kind": kind, "name": name, "uid": uid}]);
    let widget_ref = |w: &kube::api::DynamicObject| {
        owned_by(
            &format!("{group}/v1"),
            "Widget",
            w.metadata.name.as_deref().unwrap(),
            w.metadata.uid.as_deref().unwrap(),
        )
    };
    let cms = ns.configmaps();
    let secrets = Api::<Secret>::namespaced(ns.client.clone(), &ns.name);
    let create_cm = |name: &str, owners: Value| {
        let cm: ConfigMap = serde_json::from_value(json!({
            "metadata": {"name": name, "ownerReferences": owners}, "data": {"k": "1"}
        }))
        .unwrap();
        let cms = cms.clone();
        async move { cms.create(&PostParams::default(), &cm).await.unwrap() }
    };
    let create_secret = |name: &str, owners: Value| {
        let s: Secret = serde_json::from_value(json!({
            "metadata": {"name": name, "ownerReferences": owners}, "stringData": {"k": "1"}
        }))
        .unwrap();
        let secrets = secrets.clone();
        async move { secrets.create(&PostParams::default(), &s).await.unwrap() }
    };
    let c1 = create_cm("c1", widget_ref(&w1)).await;
    create_secret(
        "s1",
        owned_by("v1", "ConfigMap", "c1", c1.metadata.uid.as_deref().unwrap()),
    )
    .await;
    create_cm("c2", widget_ref(&w2)).await;
    create_cm("unowned", json!([])).await;

    // Without --owned-kinds: configmaps and secrets are found by LIST (owned by a Widget, and
    // by a ConfigMap a Widget owns).
    let qualified = format!("widgets.{group}");
    let mut tail = follow_json(
        &[
            "tail",
            &format!("{qualified}/w1"),
            "-n",
            &ns.name,
            "--follow-owned",
        ],
        3,
    );
    let added = |tail: &mut Streaming, resource: &'static str, name: &'static str| {
        tail.wait_for(
            &format!("{resource} {name}"),
            Duration::from_secs(60),
            |l| {
                serde_json::from_str::<Value>(l).is_ok_and(|e| {
                    e["resource"] == resource && e["name"] == name && e["type"] != "BOOKMARK"
                })
            },
        )
    };
    for (resource, name) in [("configmaps", "c1"), ("secrets", "s1")] {
        if !tail
            .seen
            .iter()
            .any(|l| l.contains(&format!("\"name\":\"{name}\"")))
        {
            added(&mut tail, resource, name);
        }
    }
    let patch = |v: Value| Patch::Merge(v);
    // A child made after the start joins with its first event.
    create_cm("c3", widget_ref(&w1)).await;
    let c3 = added(&mut tail, "configmaps", "c3");
    assert!(
        c3.contains(&format!("\"ownerChain\":[\"widget.{group}/w1\"]")),
        "{c3}"
    );
    // c1 orphaned: its MODIFIED without the reference is its last line, and s1 leaves with it.
    cms.patch(
        "c1",
        &PatchParams::default(),
        &patch(json!({"metadata": {"ownerReferences": null}})),
    )
    .await
    .unwrap();
    cms.patch(
        "c1",
        &PatchParams::default(),
        &patch(json!({"data": {"k": "after-orphaned"}})),
    )
    .await
    .unwrap();
    secrets
        .patch(
            "s1",
            &PatchParams::default(),
            &patch(json!({"stringData": {"k": "after"}})),
        )
        .await
        .unwrap();
    cms.patch(
        "c2",
        &PatchParams::default(),
        &patch(json!({"data": {"k": "2"}})),
    )
    .await
    .unwrap();
    cms.delete("c3", &DeleteParams::default()).await.unwrap();
    // Markers, one per resource: each watch delivers in RV order, so once a marker is seen
    // everything written before it on that resource has been through tail.
    create_cm("marker", widget_ref(&w1)).await;
    create_secret("marker", widget_ref(&w1)).await;
    added(&mut tail, "configmaps", "marker");
    if !tail
        .seen
        .iter()
        .any(|l| l.contains("\"resource\":\"secrets\"") && l.contains("\"name\":\"marker\""))
    {
        added(&mut tail, "secrets", "marker");
    }
    let events = events(&tail.seen);
    let lines_of =
        |name: &str| -> Vec<&Value> { events.iter().filter(|e| e["name"] == name).collect() };
    for name in ["c2", "unowned", "w2"] {
        assert!(
            lines_of(name).is_empty(),
            "{name} is not followed: {:?}",
            lines_of(name)
        );
    }
    let c1 = lines_of("c1");
    let last = c1.last().unwrap();
    assert_eq!(last["type"], "MODIFIED", "{c1:?}");
    assert_eq!(last["ownerChain"], json!([]), "{last}");
    assert!(
        last["object"]["metadata"]["ownerReferences"].is_null(),
        "{last}"
    );
    assert!(
        c1.iter()
            .all(|e| e["object"]["data"]["k"] != "after-orphaned"),
        "c1 printed after it left: {c1:?}"
    );
    let s1 = lines_of("s1");
    assert_eq!(
        s1.len(),
        1,
        "s1 only as listed, not after its owner left: {s1:?}"
    );
    assert_eq!(
        s1[0]["ownerChain"],
        json!([format!("widget.{group}/w1"), "configmap/c1"])
    );
    let c3 = lines_of("c3");
    assert_eq!(
        c3.iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["ADDED", "DELETED"],
        "{c3:?}"
    );
    drop(tail);
    common::crd::delete(&ns.client, &crd_name).await;
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn owned_kinds_narrows_the_resources_watched() {
    require_controllers();
    let ns = TestNamespace::new("follow-kinds").await;
    create_deployment(&ns, "web", 1).await;
    // Until the rollout is over the deployment controller keeps updating the Deployment's
    // status, and those events could take both of the --max-events 2 before the ReplicaSet's.
    // Rolled out, the two events are the Deployment and its ReplicaSet, whatever the timing.
    let deployments = Api::<Deployment>::namespaced(ns.client.clone(), &ns.name);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let d = deployments.get("web").await.unwrap();
        let status = d.status.clone().unwrap_or_default();
        if status.observed_generation == d.metadata.generation
            && status.available_replicas == Some(1)
            && status.updated_replicas == Some(1)
            && status.replicas == Some(1)
            && status.conditions.iter().flatten().any(|c| {
                c.type_.as_deref() == Some("Progressing")
                    && c.reason.as_deref() == Some("NewReplicaSetAvailable")
            })
        {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "deployment web not rolled out within 120 s: {status:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let out = run(&[
        "tail",
        "deploy/web",
        "-n",
        &ns.name,
        "--follow-owned",
        "--owned-kinds",
        "rs",
        "-o",
        "json",
        "--max-events",
        "2",
        "--timeout",
        "60s",
        "--stats",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let resources: Vec<String> = out
        .object_events()
        .iter()
        .map(|e| e["resource"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(resources.len(), 2, "{}", out.stdout);
    assert!(
        resources.contains(&"replicasets.apps".to_string()),
        "{resources:?}"
    );
    assert!(
        out.stderr.contains("summary: total of 2 resources"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("summary pods"), "{}", out.stderr);
    let deploy = Api::<Deployment>::namespaced(ns.client.clone(), &ns.name)
        .get("web")
        .await
        .unwrap();
    assert!(deploy.metadata.uid.is_some());
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn follow_owned_refuses_what_it_cannot_follow_in_one_line() {
    for (args, needle) in [
        (
            vec!["tail", "deploy", "--follow-owned"],
            "--follow-owned follows one object",
        ),
        (
            vec!["tail", "deploy,rs", "web", "--follow-owned"],
            "--follow-owned follows one object",
        ),
        (
            vec!["tail", "deploy/web", "-l", "app=web", "--follow-owned"],
            "-l/--selector cannot be used with --follow-owned",
        ),
        (
            vec!["tail", "deploy/web", "--follow-owned", "--until-rv", "9"],
            "--until-rv cannot be used with --follow-owned",
        ),
        (
            vec!["tail", "deploy/web", "web"],
            "deploy/web already names an object",
        ),
        (vec!["tail", "/web"], "TYPE/NAME names one object"),
        (
            vec![
                "tail",
                "deploy/web",
                "--follow-owned",
                "--owned-kinds",
                "rs,,pods",
            ],
            "--owned-kinds: invalid resource list",
        ),
    ] {
        let out = run(&args);
        assert_one_line_error(&out, &[needle]);
    }
    let out = run(&["tail", "deploy/web", "--owned-kinds", "rs"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("--follow-owned"), "{}", out.stderr);
    // Resolved against discovery, as any resource name.
    admin().await;
    let out = run(&[
        "tail",
        "deploy/web",
        "--follow-owned",
        "--owned-kinds",
        "rs,nosuchthings",
    ]);
    assert_one_line_error(&out, &["unknown resource \"nosuchthings\""]);
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_job_created_after_the_start_is_followed_with_its_pods_to_completion() {
    require_controllers();
    let ns = TestNamespace::new("follow-job").await;
    // The named Job does not exist yet: it joins with its ADDED, its Pods with theirs (jobs are
    // known to own pods).
    let mut tail = follow_json(
        &["tail", "jobs.batch", "j", "-n", &ns.name, "--follow-owned"],
        2,
    );
    let job: k8s_openapi::api::batch::v1::Job = serde_json::from_value(json!({
        "metadata": {"name": "j"},
        "spec": {"template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "registry.invalid/job:1"}]
        }}}
    }))
    .unwrap();
    Api::<k8s_openapi::api::batch::v1::Job>::namespaced(ns.client.clone(), &ns.name)
        .create(&PostParams::default(), &job)
        .await
        .unwrap();
    until_state_of(&mut tail, "jobs.batch", "the Job succeeded", &|| {}, |s| {
        s.get("j").is_some_and(|j| j["status"]["succeeded"] == 1)
    });
    let events = events(&tail.seen);
    let pods: Vec<&Value> = events.iter().filter(|e| e["resource"] == "pods").collect();
    assert!(!pods.is_empty(), "no Pod of the Job: {:?}", tail.seen);
    for pod in &pods {
        assert_eq!(pod["ownerChain"], json!(["job.batch/j"]), "{pod}");
    }
    assert_eq!(pods[0]["type"], "ADDED", "{}", pods[0]);
}
