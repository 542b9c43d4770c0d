//! CBOR (KEP-4222) on a real kube-apiserver: with its alpha gate `CBORServingAndStorage` on, the
//! server answers LISTs of a custom resource in `application/cbor` and watches in
//! `application/cbor-seq`, strings as byte strings and map keys in a new random order at each
//! encoding. `--encoding cbor` reads both: diff syncs by watch-list and by LIST and finds no
//! drift between the cache and a fresh LIST of the same objects (whose bytes differ by key
//! order), and sees one made on purpose; bench's own writes arrive through a CBOR watch. The
//! server is a private etcd + kube-apiserver pair (`controlplane.sh pair`) with the gate on:
//! the shared one keeps the defaults users have.

use crate::common::*;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::json;

const OBJECTS: usize = 40;

/// A custom object with enough fields (nested maps, lists, numbers, a float, booleans, text
/// beyond ASCII) that two encodings of it almost surely differ in key order.
fn widget(i: usize) -> serde_json::Value {
    let fields: serde_json::Map<String, serde_json::Value> = (0..12)
        .map(|f| (format!("field{f:02}"), json!(format!("value {i}-{f} ✓"))))
        .collect();
    json!({
        "metadata": {"name": format!("widget-{i:03}"), "labels": {"app": "cbor", "n": i.to_string()}},
        "spec": {
            "fields": fields,
            "replicas": i,
            "ratio": 0.25 + i as f64,
            "enabled": i.is_multiple_of(2),
            "ports": [{"name": "http", "port": 8080}, {"name": "metrics", "port": 9090}],
        }
    })
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up), and starts API servers of its own: cargo test -- --ignored"]
async fn a_crd_served_in_cbor_is_listed_watched_and_compared_without_false_drift() {
    let pair = PrivatePair::start_with_feature_gates(&["CBORServingAndStorage=true"]).await;
    let client = admin_at(&pair.kubeconfig).await;
    let ns = TestNamespace::with_client("cbor", client.clone()).await;
    let group = format!("{}.informer.test", unique("c").replace('-', ""));
    let crd = crd::create(&client, &group, "widgets", "Widget", "wdg").await;
    let resource = crd::custom(&group, "widgets", "Widget");
    for i in 0..OBJECTS {
        crd::create_object(&client, &ns.name, &resource, widget(i)).await;
    }

    // The server does serve CBOR here (what the rest of the test relies on).
    let request = http::Request::get(format!("/apis/{group}/v1/namespaces/{}/widgets", ns.name))
        .header(http::header::ACCEPT, "application/cbor")
        .body(kube::client::Body::empty())
        .unwrap();
    let response = client.send(request).await.unwrap();
    assert_eq!(
        response.headers()[http::header::CONTENT_TYPE],
        "application/cbor",
        "the test server must serve CBOR (CBORServingAndStorage)"
    );

    let kubeconfig = pair.kubeconfig();
    let qualified = format!("widgets.{group}");
    for initial in ["watch-list", "list"] {
        let out = run(&[
            "--kubeconfig",
            kubeconfig,
            "-v=1",
            "diff",
            &qualified,
            "-n",
            &ns.name,
            "--encoding",
            "cbor",
            "--initial",
            initial,
            "-o",
            "json",
        ]);
        assert_eq!(
            out.code,
            Some(0),
            "diff --initial {initial}: {}",
            out.stderr
        );
        let report: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
        assert_eq!(report["compared"], OBJECTS, "{}", out.stdout);
        assert_eq!(report["objects"], json!([]), "no drift: {}", out.stdout);
        // The sync's request (a WATCH with sendInitialEvents, or a LIST) and the comparison's
        // LIST were both answered in CBOR.
        let verb = if initial == "list" { "list" } else { "watch" };
        assert!(
            out.stderr
                .contains(&format!("{verb} {qualified}: the server answered in CBOR")),
            "{}",
            out.stderr
        );
        assert!(
            out.stderr
                .contains(&format!("list {qualified}: the server answered in CBOR")),
            "{}",
            out.stderr
        );
    }

    // A cache saved before a change differs from the server after it: CBOR digests see it.
    let dir = tempfile::tempdir().unwrap();
    let saved = dir.path().join("cache.jsonl");
    let out = run(&[
        "--kubeconfig",
        kubeconfig,
        "diff",
        &qualified,
        "-n",
        &ns.name,
        "--save-cache",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    Api::<DynamicObject>::namespaced_with(client.clone(), &ns.name, &resource)
        .patch(
            "widget-007",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 700}})),
        )
        .await
        .unwrap();
    let out = run(&[
        "--kubeconfig",
        kubeconfig,
        "diff",
        &qualified,
        "-n",
        &ns.name,
        "--cache-file",
        saved.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stdout.contains("widget-007"), "{}", out.stdout);

    // bench's writes to the custom objects come back as events of a CBOR watch.
    let template = dir.path().join("widget.yaml");
    std::fs::write(
        &template,
        format!(
            "apiVersion: {group}/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  replicas: 1\n"
        ),
    )
    .unwrap();
    let out = run(&[
        "--kubeconfig",
        kubeconfig,
        "bench",
        &qualified,
        "--template",
        template.to_str().unwrap(),
        "--objects",
        "5",
        "--rate",
        "50",
        "--duration",
        "3s",
        "--encoding",
        "cbor",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(report["source"]["encoding"], "cbor", "{}", out.stdout);
    let generator = &report["generator"];
    assert!(
        generator["updates"].as_u64().unwrap_or(0) > 0,
        "{}",
        out.stdout
    );
    assert_eq!(generator["errors"], 0, "{}", out.stdout);
    assert_eq!(
        report["counters"]["writesWithoutEvent"], 0,
        "{}",
        out.stdout
    );
    crd::delete(&client, &crd).await;
}
