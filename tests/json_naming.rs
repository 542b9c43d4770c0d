//! Issue 18: every JSON document the commands write follows one naming rule. Every key of ours
//! (not those of the Kubernetes objects that records embed, which stay as the server sent them)
//! is camelCase, `^[a-z][a-zA-Z0-9]*$`, as the Kubernetes API's; every document carries
//! `schemaVersion` (tail's JSON Lines in its first line, the `start` notice); "all namespaces" is
//! null. The documents come from real runs against the test control plane; the notices a run
//! cannot provoke on demand (a failed LIST, an expired RV...) from the writer itself.

mod common;

use common::*;
use kubectl_informer::informer::object::RawObject;
use kubectl_informer::informer::patch::{DiffFields, ObjectDiff};
use kubectl_informer::informer::transition::{CloseReason, EventType, ReflectorEvent};
use kubectl_informer::recording::{
    BookmarkEvent, EventPrinter, JsonPrinter, Notice, ObjectEvent, Origin, StartNotice, Transition,
};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// `^[a-z][a-zA-Z0-9]*$`.
fn follows_the_rule(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

/// The keys of `value` that break the rule, by their path (`/metrics/queue_duration`); the
/// values at the paths `embedded` names are Kubernetes objects and not looked into.
fn bad_keys(value: &Value, path: &str, embedded: &dyn Fn(&str) -> bool, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let at = format!("{path}/{key}");
                if !follows_the_rule(key) {
                    out.push(at.clone());
                }
                if !embedded(&at) {
                    bad_keys(v, &at, embedded, out);
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                bad_keys(v, &format!("{path}/{i}"), embedded, out);
            }
        }
        _ => {}
    }
}

/// Fails naming every key of `doc` that breaks the rule.
fn assert_keys_follow_the_rule(what: &str, doc: &Value, embedded: &dyn Fn(&str) -> bool) {
    let mut bad = Vec::new();
    bad_keys(doc, "", embedded, &mut bad);
    assert!(
        bad.is_empty(),
        "{what}: keys not camelCase: {bad:?} in {doc}"
    );
}

/// A record's `object` is the Kubernetes object as the server sent it; the `value` of each
/// operation of its `patch` (`tail --diff`) is a part of one.
fn record_object(path: &str) -> bool {
    path == "/object"
        || path
            .strip_prefix("/patch/")
            .and_then(|op| op.split_once('/'))
            .is_some_and(|(index, key)| index.parse::<usize>().is_ok() && key == "value")
}

/// A JSON document (diff's, bench's): keys by the rule, and `schemaVersion` at the top.
fn assert_document(what: &str, doc: &Value, version: u64) {
    assert_keys_follow_the_rule(what, doc, &|_| false);
    assert_eq!(doc["schemaVersion"], version, "{what}: {doc}");
}

/// tail's JSON Lines: each line's keys by the rule, the first line the `start` notice with
/// `schemaVersion`; returns the lines.
fn assert_json_lines(what: &str, text: &str) -> Vec<Value> {
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: {e}: {l}")))
        .collect();
    for line in &lines {
        assert_keys_follow_the_rule(what, line, &record_object);
    }
    let first = lines.first().unwrap_or_else(|| panic!("{what}: no lines"));
    assert_eq!(first["notice"], "start", "{what}: {first}");
    assert_eq!(first["schemaVersion"], 2, "{what}: {first}");
    lines
}

/// What a set of lines holds: `ADDED`, `BOOKMARK`, `NOTICE watch-opened`, ...
fn kinds(lines: &[Value]) -> Vec<String> {
    let mut kinds: Vec<String> = lines
        .iter()
        .map(|l| match l["notice"].as_str() {
            Some(notice) => format!("NOTICE {notice}"),
            None => l["type"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

#[test]
fn the_rule_itself_tells_camel_case_from_the_rest() {
    for good in ["schemaVersion", "p999", "queueDuration", "a"] {
        assert!(follows_the_rule(good), "{good}");
    }
    for bad in [
        "queue_duration",
        "SchemaVersion",
        "p99.9",
        "9p",
        "",
        "list-complete",
    ] {
        assert!(!follows_the_rule(bad), "{bad}");
    }
    let doc = serde_json::json!({
        "ok": {"notOk_": 1},
        "object": {"Weird_Key": 1},
        "patch": [{"op": "add", "path": "/a", "value": {"Weird_Key": 1}, "bad_Op": 1}],
    });
    let mut bad = Vec::new();
    bad_keys(&doc, "", &record_object, &mut bad);
    assert_eq!(bad, ["/ok/notOk_", "/patch/0/bad_Op"]);
    // bench's report of schema version 1 broke it.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench-report-v1.json");
    let old: Value = serde_json::from_str(&std::fs::read_to_string(fixture).unwrap()).unwrap();
    let mut bad = Vec::new();
    bad_keys(&old, "", &|_| false, &mut bad);
    assert!(
        bad.contains(&"/metrics/queue_duration".to_string()),
        "{bad:?}"
    );
    assert!(old.get("schemaVersion").is_none());
}

#[tokio::test]
async fn tail_records_and_notices_follow_the_naming_rule() {
    let ns = TestNamespace::new("naming-tail").await;
    ns.create_configmap("a", &[]).await;
    ns.create_configmap("b", &[]).await;
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--server-timeout",
        "3s",
        "--no-reconnect",
        "--diff",
    ]);
    tail.wait_for_notice("watch-opened");
    ns.create_configmap("c", &[]).await;
    ns.update_configmap("a", "v1").await;
    ns.delete_configmap("b").await;
    let out = tail.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines = assert_json_lines("tail -o json", &out.stdout);
    assert_eq!(lines[0]["namespace"], ns.name.as_str());
    let modified = lines.iter().find(|l| l["type"] == "MODIFIED");
    assert!(
        modified.is_some_and(|m| m["patch"].is_array()),
        "--diff: a MODIFIED with its patch in {}",
        out.stdout
    );
    let seen = kinds(&lines);
    for kind in [
        "ADDED",
        "MODIFIED",
        "DELETED",
        "NOTICE start",
        "NOTICE list-complete",
        "NOTICE watch-opened",
        "NOTICE watch-closed",
    ] {
        assert!(seen.iter().any(|k| k == kind), "no {kind} in {seen:?}");
    }

    // A watch-list over all namespaces: its bookmark, and null for all namespaces.
    let out = run(&[
        "tail",
        "ns",
        "--initial",
        "watch-list",
        "-o",
        "json",
        "--server-timeout",
        "1s",
        "--no-reconnect",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines = assert_json_lines("tail --initial watch-list -o json", &out.stdout);
    assert!(lines[0]["namespace"].is_null(), "{}", lines[0]);
    let bookmark = lines.iter().find(|l| l["type"] == "BOOKMARK");
    assert!(
        bookmark.is_some_and(|b| b["initialEventsEnd"] == true),
        "{}",
        out.stdout
    );

    // The same records written as a saved cache (`diff --save-cache`).
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.jsonl");
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--save-cache",
        cache.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_json_lines(
        "diff --save-cache",
        &std::fs::read_to_string(&cache).unwrap(),
    );
}

/// Every kind of line the recording writer can write, notices a run cannot provoke on demand
/// included. A new kind of reflector event does not compile here until it is added.
#[test]
fn every_line_the_recording_writer_can_write_follows_the_naming_rule() {
    let events = [
        ReflectorEvent::ListComplete {
            resource_version: "9".into(),
            objects: 3,
            pages: 1,
            relist: false,
        },
        ReflectorEvent::Fallback {
            reason: "refused".into(),
        },
        ReflectorEvent::ListRestarted {
            reason: "expired continue".into(),
            objects: 2,
        },
        ReflectorEvent::WatchOpened {
            resource_version: "9".into(),
        },
        ReflectorEvent::WatchClosed {
            resource_version: "9".into(),
            reason: CloseReason::ErrorEvent {
                code: 410,
                message: "too old".into(),
            },
            retry_in: Some(Duration::from_millis(800)),
        },
        ReflectorEvent::WatchFailed {
            resource_version: "9".into(),
            error: "refused".into(),
            retry_in: Duration::from_secs(1),
        },
        ReflectorEvent::ListFailed {
            error: "429".into(),
            retry_in: Duration::from_secs(1),
        },
        ReflectorEvent::Expired {
            resource_version: "5".into(),
            message: "too old resource version: 5 (90)".into(),
            oldest_resource_version: Some("90".into()),
        },
    ];
    // Each notice variant above, once; the others are records of their own (below).
    fn covered(e: &ReflectorEvent) -> &'static str {
        match e {
            ReflectorEvent::ListComplete { .. } => "list-complete",
            ReflectorEvent::Fallback { .. } => "fallback",
            ReflectorEvent::ListRestarted { .. } => "list-restarted",
            ReflectorEvent::WatchOpened { .. } => "watch-opened",
            ReflectorEvent::WatchClosed { .. } => "watch-closed",
            ReflectorEvent::WatchFailed { .. } => "watch-failed",
            ReflectorEvent::ListFailed { .. } => "list-failed",
            ReflectorEvent::Expired { .. } => "expired",
            ReflectorEvent::Listed { .. }
            | ReflectorEvent::Watched { .. }
            | ReflectorEvent::Bookmark { .. } => "a record",
        }
    }
    let raw = serde_json::value::RawValue::from_string(
        r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"7","annotations":{"snake_case/key":"v"}}}"#
            .into(),
    )
    .unwrap();
    let object = RawObject::parse(raw, None).unwrap();
    let at = SystemTime::UNIX_EPOCH;
    let watch = StartNotice {
        schema_version: 2,
        resource: "configmaps".into(),
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        namespace: Some("n".into()),
        label_selector: None,
        field_selector: None,
        metadata_only: false,
        server: "https://127.0.0.1:6443".into(),
    };
    // `tail --diff`: a MODIFIED's patch, which adds an annotation of the object's own naming.
    let previous = RawObject::parse(
        serde_json::value::RawValue::from_string(
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"n","uid":"u","resourceVersion":"6"}}"#
                .into(),
        )
        .unwrap(),
        None,
    )
    .unwrap();
    let diff = ObjectDiff::between(&previous, &object, DiffFields::All, false).unwrap();
    let mut buf = Vec::new();
    let mut p = JsonPrinter::new(&mut buf);
    for event_type in [EventType::Added, EventType::Modified, EventType::Deleted] {
        p.object(&ObjectEvent {
            watch: &watch,
            event_type,
            origin: Origin::Relist,
            object: &object,
            received_at: at,
            changes: None,
            owners: None,
            diff: (event_type == EventType::Modified).then_some(&diff),
        })
        .unwrap();
    }
    p.bookmark(&BookmarkEvent {
        watch: &watch,
        resource_version: "8",
        initial_events_end: true,
        received_at: at,
    })
    .unwrap();
    for event in &events {
        let transition = Transition::of(event).expect("a notice");
        p.notice(
            Notice::Transition {
                watch: &watch,
                transition,
            },
            at,
        )
        .unwrap();
    }
    p.flush().unwrap();
    let text = String::from_utf8(buf).unwrap();
    let mut notices = Vec::new();
    for line in text.lines() {
        let line: Value = serde_json::from_str(line).unwrap();
        assert_keys_follow_the_rule("a recording line", &line, &record_object);
        notices.extend(line["notice"].as_str().map(str::to_string));
    }
    let expected: Vec<&str> = events.iter().map(covered).collect();
    assert_eq!(notices, expected);
    assert!(
        text.contains("snake_case/key"),
        "the object is left as it is"
    );
    assert!(
        text.contains(
            r#"{"op":"add","path":"/metadata/annotations","value":{"snake_case/key":"v"}}"#
        ),
        "{text}"
    );
}

#[tokio::test]
async fn diff_reports_follow_the_naming_rule() {
    let ns = TestNamespace::new("naming-diff").await;
    ns.create_configmap("a", &[]).await;
    ns.create_configmap("b", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.jsonl");
    let save = ["diff", "cm", "-n", &ns.name, "--save-cache"];
    let out = run(&[&save[..], &[cache.to_str().unwrap()]].concat());
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    ns.update_configmap("a", "changed").await;
    ns.delete_configmap("b").await;
    ns.create_configmap("c", &[]).await;
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--cache-file",
        cache.to_str().unwrap(),
        "--show-fields",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(1), "drift: {}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_document("diff --cache-file -o json", &doc, 2);
    assert_eq!(doc["objects"].as_array().unwrap().len(), 3, "{doc}");

    // The watchdog's documents, one per line.
    let out = run(&[
        "diff", "cm", "-n", &ns.name, "--every", "1s", "--for", "2500ms", "-o", "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let docs: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!docs.is_empty(), "{}", out.stderr);
    for doc in &docs {
        assert_document("diff --every -o json", doc, 2);
        assert!(doc["watchdog"].is_object(), "{doc}");
    }

    // All namespaces: null.
    let out = run(&["diff", "cm", "-A", "-o", "json"]);
    assert!(matches!(out.code, Some(0 | 1)), "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_document("diff cm -A -o json", &doc, 2);
    assert!(doc["namespace"].is_null(), "{doc}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bench_reports_follow_the_naming_rule() {
    admin().await;
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let baseline =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench-report-v1-live.json");
    let (json_arg, baseline_arg) = (json.display().to_string(), baseline.display().to_string());
    let out = tokio::task::spawn_blocking(move || {
        run(&[
            "bench",
            "--objects",
            "10",
            "--rate",
            "20",
            "--duration",
            "2s",
            "--fail-if",
            "queueDuration.p99 > 10s",
            "--fail-if",
            "writes_without_event > 1000",
            "--baseline",
            &baseline_arg,
            "--tolerance",
            "100000",
            "--export-json",
            &json_arg,
            "-o",
            "json",
        ])
    })
    .await
    .unwrap();
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let stdout: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one document ({e}): {}", out.stdout));
    let export: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for (what, doc) in [("bench -o json", &stdout), ("bench --export-json", &export)] {
        assert_document(what, doc, 2);
        for part in ["generator", "baseline"] {
            assert!(doc[part].is_object(), "{what}: {part} is there: {doc}");
        }
        assert!(doc["metrics"]["watchLatency"].is_object(), "{doc}");
        assert_eq!(doc["gates"].as_array().unwrap().len(), 2);
        assert!(!doc["baseline"]["comparisons"]
            .as_array()
            .unwrap()
            .is_empty());
    }

    // All namespaces (--no-churn -A): null.
    let out = tokio::task::spawn_blocking(|| {
        run(&[
            "bench",
            "--no-churn",
            "-A",
            "--duration",
            "1s",
            "-o",
            "json",
        ])
    })
    .await
    .unwrap();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_document("bench --no-churn -A -o json", &doc, 2);
    assert!(doc["source"]["namespace"].is_null(), "{}", doc["source"]);

    // A replay.
    let recording = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recording-v1.jsonl");
    let out = run(&[
        "bench",
        "--from-file",
        recording.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_document("bench --from-file -o json", &doc, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn conform_reports_follow_the_naming_rule() {
    admin().await;
    let out = tokio::task::spawn_blocking(|| {
        let mut cmd = informer();
        cmd.args(["conform", "configmaps", "-o", "json"]);
        run_with_limit(cmd, Duration::from_secs(180))
    })
    .await
    .unwrap();
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one document ({e}): {}", out.stdout));
    assert_document("conform -o json", &doc, 1);
    assert_eq!(doc["checks"].as_array().unwrap().len(), 11, "{doc}");
    assert!(doc["checks"][5]["waitedSeconds"].is_f64(), "{doc}");
}
