//! Resource names resolved through the real server's discovery, as kubectl accepts them,
//! including CRDs created by the test.

mod common;

use common::*;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, PostParams};
use std::time::{Duration, Instant};

/// Runs `tail NAME --max-events 1 -v` in a namespace holding one ConfigMap-like object and returns
/// what `-v` said the name resolved to.
fn resolved(args: &[&str]) -> (Output, String) {
    // --timeout bounds the wait for the one event; a test that expects none stops at its own
    // --for instead (exit 0).
    let mut all = vec!["tail", "--max-events", "1", "-v=1", "--timeout", "20s"];
    all.extend_from_slice(args);
    let out = run(&all);
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains("resolved"))
        .unwrap_or_default()
        .to_string();
    (out, line)
}

#[tokio::test]
async fn builtin_names_resolve_by_plural_singular_kind_short_and_group() {
    let ns = TestNamespace::new("names").await;
    ns.create_configmap("one", &[]).await;
    // `configmaps.v1.` is resource.version.group with the empty (core) group, as kubectl takes it.
    for name in [
        "configmaps",
        "configmap",
        "ConfigMap",
        "cm",
        "CM",
        "configmaps.v1.",
    ] {
        let (out, line) = resolved(&[name, "-n", &ns.name]);
        assert_eq!(out.code, Some(0), "{name}: {}", out.stderr);
        assert!(
            line.contains("to configmaps (v1, kind ConfigMap"),
            "{name}: {line}"
        );
        assert!(
            out.stdout.contains(&format!("{}/one", ns.name)),
            "{}",
            out.stdout
        );
    }
    for name in [
        "deployments.apps",
        "deployment.v1.apps",
        "deploy",
        "Deployment",
    ] {
        let (out, line) = resolved(&[name, "-n", &ns.name, "--for", "1s"]);
        assert_eq!(out.code, Some(0), "{name}: {}", out.stderr);
        assert!(
            line.contains("to deployments.apps (apps/v1"),
            "{name}: {line}"
        );
    }
}

#[tokio::test]
async fn core_group_wins_over_events_k8s_io_like_kubectl() {
    let ns = TestNamespace::new("events").await;
    let (out, line) = resolved(&["events", "-n", &ns.name, "--for", "1s"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(line.contains("to events (v1, kind Event"), "{line}");
    let (out, line) = resolved(&["events.events.k8s.io", "-n", &ns.name, "--for", "1s"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        line.contains("to events.events.k8s.io (events.k8s.io/v1"),
        "{line}"
    );
}

#[tokio::test]
async fn cluster_scoped_resources_ignore_the_namespace_flag() {
    let ns = TestNamespace::new("scope").await;
    let (out, line) = resolved(&["namespaces", "-n", &ns.name]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(line.contains("cluster-scoped"), "{line}");
    let first = out.stdout.lines().next().unwrap_or_default();
    assert!(
        !first.contains('/'),
        "cluster-scoped keys have no namespace: {first}"
    );
}

#[tokio::test]
async fn unknown_resource_suggests_the_closest_names() {
    admin().await;
    let out = run(&["tail", "configmapz"]);
    assert_one_line_error(
        &out,
        &["unknown resource \"configmapz\"", "did you mean configmaps"],
    );
    let out = run(&["tail", "deployments.nosuchgroup"]);
    assert_one_line_error(&out, &["unknown resource \"deployments.nosuchgroup\""]);
}

#[tokio::test]
async fn resources_that_cannot_be_watched_say_which_verb_is_missing() {
    admin().await;
    // TokenReviews are create-only.
    let out = run(&["tail", "tokenreviews"]);
    assert_one_line_error(
        &out,
        &[
            "tokenreviews.authentication.k8s.io cannot be watched",
            "list and watch",
        ],
    );
}

/// Creates a namespaced CRD `<plural>.<group>` with `short` as short name; waits until the
/// server's discovery serves it.
async fn create_crd(
    client: &kube::Client,
    group: &str,
    plural: &str,
    kind: &str,
    short: &str,
) -> String {
    let name = format!("{plural}.{group}");
    let crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "shortNames": [short]},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
            }]
        }
    }))
    .unwrap();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &crd)
        .await
        .expect("create CRD");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let groups = client.list_api_groups_aggregated().await.unwrap();
        let served = groups.items.iter().any(|g| {
            g.metadata.as_ref().and_then(|m| m.name.as_deref()) == Some(group)
                && g.versions.iter().any(|v| {
                    v.resources
                        .iter()
                        .any(|r| r.resource.as_deref() == Some(plural))
                })
        });
        if served {
            return name;
        }
        assert!(
            Instant::now() < deadline,
            "CRD {name} not in discovery after 30s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn delete_crd(client: &kube::Client, name: &str) {
    let _ = Api::<CustomResourceDefinition>::all(client.clone())
        .delete(name, &DeleteParams::default())
        .await;
}

#[tokio::test]
async fn crds_resolve_by_short_name_and_an_ambiguous_short_name_lists_both() {
    let ns = TestNamespace::new("crd").await;
    let suffix = unique("g").replace('-', "");
    let group_a = format!("a{suffix}.informer.test");
    let group_b = format!("b{suffix}.informer.test");
    let short = format!("wd{suffix}");
    let crd_a = create_crd(&ns.client, &group_a, "widgets", "Widget", &short).await;
    let crd_b = create_crd(&ns.client, &group_b, "widgets", "Widget", &short).await;
    let gadget_short = format!("gd{suffix}");
    let crd_c = create_crd(&ns.client, &group_b, "gadgets", "Gadget", &gadget_short).await;

    // One object of the CRD, so that tail has something to show.
    let gadgets = kube::api::Api::<kube::api::DynamicObject>::namespaced_with(
        ns.client.clone(),
        &ns.name,
        &kube::api::ApiResource {
            group: group_b.clone(),
            version: "v1".into(),
            api_version: format!("{group_b}/v1"),
            kind: "Gadget".into(),
            plural: "gadgets".into(),
        },
    );
    let obj: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": format!("{group_b}/v1"), "kind": "Gadget", "metadata": {"name": "g1"}
    }))
    .unwrap();
    gadgets.create(&PostParams::default(), &obj).await.unwrap();

    let (out, line) = resolved(&[&gadget_short, "-n", &ns.name, "-o", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        line.contains(&format!("to gadgets.{group_b} ({group_b}/v1, kind Gadget")),
        "{line}"
    );
    let events = out.object_events();
    assert_eq!(events[0]["kind"], "Gadget");
    assert_eq!(events[0]["name"], "g1");

    let out = run(&["tail", &short, "-n", &ns.name]);
    assert_one_line_error(
        &out,
        &[
            "is ambiguous",
            &format!("widgets.{group_a}"),
            &format!("widgets.{group_b}"),
        ],
    );
    let (out, line) = resolved(&[&format!("widgets.{group_a}"), "-n", &ns.name, "--for", "1s"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(line.contains(&format!("widgets.{group_a}")), "{line}");

    for crd in [crd_a, crd_b, crd_c] {
        delete_crd(&ns.client, &crd).await;
    }
}
