//! Resource names resolved through the real server's discovery, as kubectl accepts them,
//! including CRDs created by the test.

use crate::common::*;

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
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn crds_resolve_by_short_name_and_an_ambiguous_short_name_lists_both() {
    let ns = TestNamespace::new("crd").await;
    let suffix = unique("g").replace('-', "");
    let group_a = format!("a{suffix}.informer.test");
    let group_b = format!("b{suffix}.informer.test");
    let short = format!("wd{suffix}");
    let crd_a = crd::create(&ns.client, &group_a, "widgets", "Widget", &short).await;
    let crd_b = crd::create(&ns.client, &group_b, "widgets", "Widget", &short).await;
    let gadget_short = format!("gd{suffix}");
    let crd_c = crd::create(&ns.client, &group_b, "gadgets", "Gadget", &gadget_short).await;

    // One object of the CRD, so that tail has something to show.
    crd::create_object(
        &ns.client,
        &ns.name,
        &crd::custom(&group_b, "gadgets", "Gadget"),
        serde_json::json!({"metadata": {"name": "g1"}}),
    )
    .await;

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
        crd::delete(&ns.client, &crd).await;
    }
}
