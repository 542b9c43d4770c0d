//! The protobuf encoding against the real control plane: diff and bench read kube-apiserver's
//! built-in types in protobuf and custom resources (which the server offers only in JSON) in
//! JSON, say so at -v=1, and give the same verdicts and counts as when asked for JSON.

use crate::common;
use crate::common::bending::{Bend, BendingProxy};
use crate::common::*;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams};
use serde_json::{json, Value};
use std::time::Duration;

/// The kinds compared: a built-in and a custom resource, side by side.
async fn subjects(client: &kube::Client) -> Vec<(String, ApiResource)> {
    let group = format!("{}.encoding.example.com", unique("g"));
    let crd = common::crd::create(client, &group, "widgets", "Widget", "wdg").await;
    vec![
        (
            "configmaps".to_string(),
            ApiResource::erase::<ConfigMap>(&()),
        ),
        (crd, common::crd::custom(&group, "widgets", "Widget")),
    ]
}

async fn create(client: &kube::Client, ns: &str, resource: &ApiResource, name: &str) {
    common::crd::create_object(
        client,
        ns,
        resource,
        json!({"metadata": {"name": name}, "data": {"v": "0"}}),
    )
    .await;
}

fn api(client: &kube::Client, ns: &str, resource: &ApiResource) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), ns, resource)
}

/// The -v=1 line that says which encoding the server answered `verb` in.
fn answered(stderr: &str, verb: &str) -> String {
    let prefix = format!("kubectl-informer: {verb} ");
    let said = ": the server answered in ";
    stderr
        .lines()
        .filter(|l| l.starts_with(&prefix))
        .find_map(|l| l.split_once(said).map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no `{prefix}...{said}` in:\n{stderr}"))
        .split(' ')
        .next()
        .unwrap()
        .to_string()
}

/// Runs a diff watchdog behind a proxy that loses the watch events of `lost-*` objects, makes
/// one of each kind of drift once it has compared, and returns its report with all three, and
/// its stderr.
async fn drift_behind_a_lossy_proxy(
    client: &kube::Client,
    proxy: &BendingProxy,
    resource: &(String, ApiResource),
    encoding: &str,
) -> (Value, String) {
    let ns = TestNamespace::new("encoding").await;
    for name in ["keep-1", "keep-2", "lost-stale", "lost-ghost"] {
        create(client, &ns.name, &resource.1, name).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = proxy.kubeconfig(dir.path());
    let mut diff = Streaming::start(&[
        "diff",
        &resource.0,
        "-n",
        &ns.name,
        "--every",
        "1s",
        // A LIST, so that the proxy's losses are of watch events after the sync only (a
        // watch-list's initial objects are watch events too).
        "--initial",
        "list",
        "-o",
        "json",
        "-v=1",
        "--encoding",
        encoding,
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
    ]);
    diff.wait_for("a first comparison", Duration::from_secs(60), |l| {
        l.contains("\"compared\":4")
    });
    let objects = api(client, &ns.name, &resource.1);
    objects
        .patch(
            "lost-stale",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"v": "1"}})),
        )
        .await
        .unwrap();
    objects
        .delete("lost-ghost", &DeleteParams::default())
        .await
        .unwrap();
    create(client, &ns.name, &resource.1, "lost-missing").await;
    // diff compares at the cache's RV: a write whose event does arrive moves it past the losses.
    objects
        .patch(
            "keep-1",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"v": "1"}})),
        )
        .await
        .unwrap();
    let line = diff.wait_for("all three drifts", Duration::from_secs(60), |l| {
        serde_json::from_str::<Value>(l).is_ok_and(|r| {
            r["drift"]["missing"] == 1 && r["drift"]["ghost"] == 1 && r["drift"]["stale"] == 1
        })
    });
    std::process::Command::new("kill")
        .args(["-INT", &diff.pid().to_string()])
        .status()
        .unwrap();
    let out = diff.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(130), "{}\n{}", out.stdout, out.stderr);
    (serde_json::from_str(&line).unwrap(), out.stderr)
}

/// The verdict of a report: each drifting object's class and name, and the counts.
fn verdict(report: &Value) -> (Value, Vec<(String, String)>) {
    let objects = report["objects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["class"].as_str().unwrap().to_string(),
                o["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (report["drift"].clone(), objects)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn diff_finds_the_same_drift_in_protobuf_and_in_json_on_a_built_in_and_a_crd() {
    let client = admin().await;
    let subjects = subjects(&client).await;
    let proxy = BendingProxy::start(Bend::DropEventsOf("lost-"));
    let mut verdicts = Vec::new();
    for subject in &subjects {
        for encoding in ["protobuf", "json"] {
            let (report, stderr) =
                drift_behind_a_lossy_proxy(&client, &proxy, subject, encoding).await;
            // Built-in types come in protobuf when asked; a custom resource always in JSON.
            let expected = match (subject.0.as_str(), encoding) {
                ("configmaps", "protobuf") => "protobuf",
                _ => "JSON",
            };
            for verb in ["list", "watch"] {
                assert_eq!(
                    answered(&stderr, verb),
                    expected,
                    "{} --encoding {encoding}:\n{stderr}",
                    subject.0
                );
            }
            verdicts.push((subject.0.clone(), encoding, verdict(&report)));
        }
    }
    let expected = (
        json!({"missing": 1, "ghost": 1, "stale": 1, "recreated": 0, "content": 0}),
        vec![
            ("missing".to_string(), "lost-missing".to_string()),
            ("ghost".to_string(), "lost-ghost".to_string()),
            ("stale".to_string(), "lost-stale".to_string()),
        ],
    );
    for (subject, encoding, verdict) in &verdicts {
        let (mut counts, mut objects) = verdict.clone();
        objects.sort();
        let mut wanted = expected.1.clone();
        wanted.sort();
        counts
            .as_object_mut()
            .unwrap()
            .retain(|_, v| v != &json!(null));
        assert_eq!(
            (&counts, &objects),
            (&expected.0, &wanted),
            "{subject} --encoding {encoding}"
        );
    }
    common::crd::delete(&client, &subjects[1].0).await;
}

/// A `bench --no-churn` of `resource` in a namespace that holds five objects, each updated four
/// times once the informer holds them: the report.
async fn bench_of_twenty_updates(
    client: &kube::Client,
    resource: &(String, ApiResource),
    encoding: &str,
) -> (Value, String) {
    let ns = TestNamespace::new("encoding-bench").await;
    for i in 0..5 {
        create(client, &ns.name, &resource.1, &format!("c{i}")).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let json_path = dir.path().join("bench.json");
    let mut bench = Spawned::start(&[
        "bench",
        &resource.0,
        "-n",
        &ns.name,
        "--no-churn",
        // The window opens when bench says so; the 20 patches follow, and must all be in it:
        // on a machine loaded with two busy loops beside the suite, a window of 4 s once closed
        // before the last patch's event arrived.
        "--for",
        "20s",
        "--workers",
        "2",
        "-v=1",
        "--encoding",
        encoding,
        "--export-json",
        json_path.to_str().unwrap(),
    ]);
    bench.wait_for("the informer holds 5 objects");
    let objects = api(client, &ns.name, &resource.1);
    for round in 1..=4 {
        for i in 0..5 {
            objects
                .patch(
                    &format!("c{i}"),
                    &PatchParams::default(),
                    &Patch::Merge(json!({"data": {"v": round.to_string()}})),
                )
                .await
                .unwrap();
        }
    }
    let code = tokio::task::block_in_place(|| bench.wait(Duration::from_secs(60)));
    assert_eq!(code, Some(0), "{:?}", bench.seen);
    let doc = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    (doc, bench.seen.join("\n"))
}

/// What of a bench report does not depend on timing: the events of the window, retries,
/// reconnects and relists.
fn counts(doc: &Value) -> Value {
    let c = &doc["counters"];
    json!({
        "events": c["events"],
        "retries": c["retries"],
        "reconnects": c["reconnects"],
        "relists": c["relists"],
    })
}

/// The handlers and the queue count the events the window counts: those that arrived in it
/// (not the initial objects, received before it opened, however late they were handled).
fn assert_deliveries(doc: &Value, what: &str) {
    let events = doc["counters"]["events"].as_u64().unwrap();
    let c = &doc["counters"];
    let m = &doc["metrics"];
    for (name, seen) in [
        (
            "queued",
            c["adds"].as_u64().unwrap() + c["deduplicated"].as_u64().unwrap(),
        ),
        ("deliveryLag", m["deliveryLag"]["count"].as_u64().unwrap()),
        ("handlerTime", m["handlerTime"]["count"].as_u64().unwrap()),
    ] {
        assert_eq!(seen, events, "{what}: {name} {seen} for {events} events");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn bench_counts_the_same_in_protobuf_and_in_json_on_a_built_in_and_a_crd() {
    let client = admin().await;
    let subjects = subjects(&client).await;
    for subject in &subjects {
        let (protobuf, protobuf_log) = bench_of_twenty_updates(&client, subject, "protobuf").await;
        let (json, json_log) = bench_of_twenty_updates(&client, subject, "json").await;
        assert_eq!(
            protobuf["counters"]["events"], 20,
            "{}",
            protobuf["counters"]
        );
        assert_eq!(
            counts(&protobuf),
            counts(&json),
            "{}: protobuf against JSON",
            subject.0
        );
        assert_deliveries(&protobuf, &format!("{} in protobuf", subject.0));
        assert_deliveries(&json, &format!("{} in JSON", subject.0));
        let (protobuf_said, json_said) = (
            answered(&protobuf_log, "watch"),
            answered(&json_log, "watch"),
        );
        let expected = if subject.0 == "configmaps" {
            "protobuf"
        } else {
            "JSON"
        };
        assert_eq!(
            (protobuf_said.as_str(), json_said.as_str()),
            (expected, "JSON"),
            "{}",
            subject.0
        );
        // The report says what the wire said, in --encoding's spelling.
        assert_eq!(
            (&protobuf["source"]["encoding"], &json["source"]["encoding"]),
            (&Value::from(expected.to_lowercase()), &Value::from("json")),
            "{}: source.encoding",
            subject.0
        );
    }
    common::crd::delete(&client, &subjects[1].0).await;
}

#[test]
fn protobuf_is_refused_where_objects_are_shown_or_recorded() {
    for (args, flag) in [
        (&["diff", "cm", "--show-fields"][..], "--show-fields"),
        (
            &["diff", "cm", "--save-cache", "/nonexistent/x.jsonl"][..],
            "--save-cache",
        ),
        (
            &[
                "bench",
                "cm",
                "-n",
                "x",
                "--no-churn",
                "--react",
                "observed-generation",
            ][..],
            "--react",
        ),
    ] {
        let mut all = args.to_vec();
        all.extend(["--encoding", "protobuf"]);
        let out = run(&all);
        assert_one_line_error(&out, &["--encoding protobuf with", flag, "drop --encoding"]);
    }
}
