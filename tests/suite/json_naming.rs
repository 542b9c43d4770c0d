//! Every JSON document the commands write follows one naming rule. Every key of ours
//! (not those of the Kubernetes objects that records embed, which stay as the server sent them)
//! is camelCase, `^[a-z][a-zA-Z0-9]*$`, as the Kubernetes API's; every document carries
//! `schemaVersion` (tail's JSON Lines in its first line, the `start` notice); "all namespaces" is
//! null. The documents come from real runs against the test control plane; the notices a run
//! cannot provoke on demand (a failed LIST, an expired RV...) from the writer itself.
//!
//! Each of those documents, and each line, also matches its JSON Schema (`schemas/`),
//! and the schemas are strict: a key added to an object of ours, or one the writer always writes
//! removed, breaks them.

use crate::common;
use crate::common::schema::{assert_matches_schema, schema_errors};
use crate::common::*;
use kubectl_informer::cluster::resource_version::ResourceVersion;
use kubectl_informer::informer::object::RawObject;
use kubectl_informer::informer::patch::{DiffFields, ObjectDiff};
use kubectl_informer::informer::transition::{
    BackOn, CloseReason, EventType, FallbackReason, ReflectorEvent, RestartReason, WatchFailure,
};
use kubectl_informer::react::{Covers, Fate, Reaction, Resolved, Signal, Write};
use kubectl_informer::recording::{
    BookmarkEvent, EventPrinter, JsonPrinter, Missing, Notice, ObjectEvent, Origin, ReactionEvent,
    StartNotice, Transition,
};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The schema of each document, at its current version (`schemas/`).
const RECORDING: &str = "recording.v2.schema.json";
const DIFF_REPORT: &str = "diff-report.v2.schema.json";
const BENCH_REPORT: &str = "bench-report.v2.schema.json";
const CONFORM_REPORT: &str = "conform-report.v1.schema.json";

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

/// The report of `bench --from-file` on the fixture recording, `-o json`.
fn replay_report() -> Value {
    let recording = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recording-v1.jsonl");
    let out = run(&[
        "bench",
        "--from-file",
        recording.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap()
}

/// A JSON document (diff's, bench's, conform's): keys by the rule, `schemaVersion` at the top,
/// and the document matches `schema`.
fn assert_document(what: &str, doc: &Value, version: u64, schema: &str) {
    assert_keys_follow_the_rule(what, doc, &|_| false);
    assert_eq!(doc["schemaVersion"], version, "{what}: {doc}");
    assert_matches_schema(schema, what, doc);
}

/// tail's JSON Lines: each line's keys by the rule and the line matches the recording's schema,
/// the first line the `start` notice with `schemaVersion`; returns the lines.
fn assert_json_lines(what: &str, text: &str) -> Vec<Value> {
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: {e}: {l}")))
        .collect();
    for (n, line) in lines.iter().enumerate() {
        assert_keys_follow_the_rule(what, line, &record_object);
        assert_matches_schema(RECORDING, &format!("{what}, line {}", n + 1), line);
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
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
/// included (and the nulls and optional keys each can have): the lines, and the notice each
/// notice line is. A new kind of reflector event does not compile here until it is added.
fn every_line_the_writer_can_write() -> (String, Vec<&'static str>) {
    let events = [
        ReflectorEvent::ListComplete {
            resource_version: "9".into(),
            objects: 3,
            pages: 1,
            relist: false,
        },
        ReflectorEvent::Fallback {
            reason: FallbackReason::Refused("refused".into()),
        },
        ReflectorEvent::ListRestarted {
            reason: RestartReason::ContinueExpired("expired continue".into()),
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
        // tail ends: no retry.
        ReflectorEvent::WatchClosed {
            resource_version: "9".into(),
            reason: CloseReason::ServerClosed,
            retry_in: None,
        },
        ReflectorEvent::WatchFailed {
            resource_version: "9".into(),
            error: WatchFailure::Error("refused".into()),
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
        // A message that does not say where the history starts.
        ReflectorEvent::Expired {
            resource_version: "5".into(),
            message: "expired".into(),
            oldest_resource_version: None,
        },
        ReflectorEvent::WentBack {
            newest: "30".into(),
            served: "20".into(),
            on: BackOn::List,
        },
        ReflectorEvent::WentBack {
            newest: "30".into(),
            served: "15".into(),
            on: BackOn::Watch { from: "30".into() },
        },
    ];
    // Each notice variant above, at least once; the others are records of their own (below).
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
            ReflectorEvent::WentBack { .. } => "went-back",
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
    // `tail --follow-owned`: the owners an object is followed through.
    let owners = [
        "deployment.apps/web".to_string(),
        "replicaset.apps/web-7d9".to_string(),
    ];
    let mut buf = Vec::new();
    let mut p = JsonPrinter::new(&mut buf);
    p.notice(Notice::Start(&watch), at).unwrap();
    for event_type in [EventType::Added, EventType::Modified, EventType::Deleted] {
        p.object(&ObjectEvent {
            watch: &watch,
            event_type,
            origin: Origin::Relist,
            object: &object,
            received_at: at,
            changes: None,
            owners: (event_type == EventType::Added).then_some(&owners[..]),
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
    // Not a transition of the reflector: what tail found missing after an empty first LIST.
    for missing in [Missing::Namespace, Missing::Object { name: "web" }] {
        p.notice(
            Notice::NotFound {
                watch: &watch,
                missing,
            },
            at,
        )
        .unwrap();
    }
    // `tail --react`: what became of a write, each outcome (and a reaction an owned object
    // showed).
    let owned_watch = StartNotice {
        resource: "replicasets.apps".into(),
        api_version: "apps/v1".into(),
        kind: "ReplicaSet".into(),
        ..watch.clone()
    };
    for (fate, shown_by) in reaction_fates() {
        let resolved = Resolved {
            write: Write {
                key: "n/a".into(),
                sent: at,
                generation: 3,
                resource_version: ResourceVersion::parse("7").unwrap(),
            },
            fate,
        };
        let shown_by = match shown_by {
            Some(true) => Some(&owned_watch),
            Some(false) => Some(&watch),
            None => None,
        };
        p.reaction(&ReactionEvent {
            watch: &watch,
            shown_by,
            reaction: &Reaction::ObservedGeneration,
            timeout: Duration::from_secs(30),
            uid: "u",
            resolved: &resolved,
            at,
        })
        .unwrap();
    }
    p.flush().unwrap();
    let notices = std::iter::once("start")
        .chain(events.iter().map(covered))
        .chain(["not-found", "not-found"])
        .collect();
    (String::from_utf8(buf).unwrap(), notices)
}

/// Each fate a write can have (`tail --react`), with whether an owned object's event showed the
/// reaction (`None`: none did). A new fate does not compile here until it is added.
fn reaction_fates() -> Vec<(Fate, Option<bool>)> {
    let signal = |covers, owned: Option<&str>| Signal {
        key: "n/a".into(),
        at: SystemTime::UNIX_EPOCH,
        covers,
        resource_version: ResourceVersion::parse("9").unwrap(),
        owned: owned.map(str::to_string),
    };
    let fates = vec![
        (
            Fate::Reacted {
                signal: signal(Covers::Generation(3), None),
                took: Duration::from_millis(84),
            },
            Some(false),
        ),
        (
            Fate::Reacted {
                signal: signal(
                    Covers::OlderThan(ResourceVersion::parse("9").unwrap()),
                    Some("a-7d9"),
                ),
                took: Duration::from_millis(84),
            },
            Some(true),
        ),
        (
            Fate::Superseded {
                signal: signal(Covers::Generation(4), None),
                newer: 4,
            },
            Some(false),
        ),
        (Fate::TimedOut, None),
        (Fate::Deleted, None),
    ];
    for (fate, _) in &fates {
        match fate {
            Fate::Reacted { .. } | Fate::Superseded { .. } | Fate::TimedOut | Fate::Deleted => {}
        }
    }
    fates
}

#[test]
fn every_line_the_recording_writer_can_write_follows_the_naming_rule() {
    let (text, expected) = every_line_the_writer_can_write();
    let mut notices = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line: Value = serde_json::from_str(line).unwrap();
        assert_keys_follow_the_rule("a recording line", &line, &record_object);
        assert_matches_schema(RECORDING, &format!("the writer's line {}", n + 1), &line);
        notices.extend(line["notice"].as_str().map(str::to_string));
    }
    assert_eq!(notices, expected);
    let outcomes: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "REACTION")
        .map(|l| l["outcome"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        outcomes,
        ["reacted", "reacted", "superseded", "timed-out", "deleted"]
    );
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

/// Keys written only sometimes, as docs/json.md says: `tail --follow-owned`'s and `--diff`'s,
/// diff's with `--cache-file`, `--show-fields` and `--every`, bench's with `--react`.
const OPTIONAL: [&str; 10] = [
    "ownerChain",
    "patch",
    "cacheResourceVersion",
    "fields",
    "watchdog",
    "reactionLatency",
    "react",
    "reactionTimeout",
    "writesWithoutReaction",
    "superseded",
];

/// The paths of the objects in `value` at `path` and under it: `ours`, and the Kubernetes
/// objects (`embedded`), not looked into.
fn objects(
    value: &Value,
    path: &str,
    embedded: &dyn Fn(&str) -> bool,
    ours: &mut Vec<String>,
    theirs: &mut Vec<String>,
) {
    if embedded(path) {
        if value.is_object() {
            theirs.push(path.to_string());
        }
        return;
    }
    match value {
        Value::Object(map) => {
            ours.push(path.to_string());
            for (key, v) in map {
                objects(v, &format!("{path}/{key}"), embedded, ours, theirs);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                objects(v, &format!("{path}/{i}"), embedded, ours, theirs);
            }
        }
        _ => {}
    }
}

/// Every change of one key that `schema` should reject in `doc` and does not: a key added to an
/// object of ours, a key the writer always writes removed from one; and every change it should
/// accept and does not: a key added to a Kubernetes object (`embedded`), which stays open.
fn strictness_holes(schema: &str, doc: &Value, embedded: &dyn Fn(&str) -> bool) -> Vec<String> {
    type Object = serde_json::Map<String, Value>;
    let errors_with = |path: &str, change: &dyn Fn(&mut Object)| {
        let mut changed = doc.clone();
        change(
            changed
                .pointer_mut(path)
                .and_then(Value::as_object_mut)
                .unwrap(),
        );
        schema_errors(schema, &changed)
    };
    let add = |object: &mut Object| {
        object.insert("notInTheSchema".into(), Value::Bool(true));
    };
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    objects(doc, "", embedded, &mut ours, &mut theirs);
    let mut holes = Vec::new();
    for path in ours {
        let at = if path.is_empty() { "/" } else { &path };
        let errors = errors_with(&path, &add);
        if !errors.iter().any(|e| e.starts_with(&format!("{at}: "))) {
            holes.push(format!("{at}: a key added is accepted ({errors:?})"));
        }
        let object = doc.pointer(&path).and_then(Value::as_object).unwrap();
        for key in object.keys().filter(|k| !OPTIONAL.contains(&k.as_str())) {
            if errors_with(&path, &|object| {
                object.remove(key);
            })
            .is_empty()
            {
                holes.push(format!("{at}: {key} removed is accepted"));
            }
        }
    }
    for path in theirs {
        let errors = errors_with(&path, &add);
        if !errors.is_empty() {
            holes.push(format!(
                "{path}: a Kubernetes object with a key added is rejected: {errors:?}"
            ));
        }
    }
    holes
}

/// The schemas are strict, shown on real outputs: every line the recording writer can
/// write, and a bench report of a replay (which needs no cluster: a recording is its source).
#[test]
fn a_key_added_to_or_removed_from_a_real_document_breaks_its_schema() {
    let (text, _) = every_line_the_writer_can_write();
    for (n, line) in text.lines().enumerate() {
        let line: Value = serde_json::from_str(line).unwrap();
        assert_matches_schema(RECORDING, &format!("the writer's line {}", n + 1), &line);
        let holes = strictness_holes(RECORDING, &line, &record_object);
        assert!(
            holes.is_empty(),
            "the writer's line {}: {holes:#?}\nin {line}",
            n + 1
        );
    }

    let report = replay_report();
    assert_matches_schema(BENCH_REPORT, "bench --from-file -o json", &report);
    let holes = strictness_holes(BENCH_REPORT, &report, &|_| false);
    assert!(
        holes.is_empty(),
        "bench --from-file -o json: {holes:#?}\nin {report}"
    );

    // What a reader of the failure sees: the key, at the path of its object.
    let names = |errors: &[String], path: &str, key: &str| {
        errors
            .iter()
            .any(|e| e.starts_with(&format!("{path}: ")) && e.contains(key))
    };
    let mut added = report.clone();
    added["counters"]["eventsPerMinute"] = 1.into();
    let errors = schema_errors(BENCH_REPORT, &added);
    assert!(
        names(&errors, "/counters", "'eventsPerMinute'"),
        "{errors:?}"
    );
    let mut removed = report;
    let queue = removed["metrics"]["queueDuration"].as_object_mut().unwrap();
    queue.remove("p99");
    let errors = schema_errors(BENCH_REPORT, &removed);
    assert!(
        names(&errors, "/metrics/queueDuration", "\"p99\""),
        "{errors:?}"
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
    assert_document("diff --cache-file -o json", &doc, 2, DIFF_REPORT);
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
        assert_document("diff --every -o json", doc, 2, DIFF_REPORT);
        assert!(doc["watchdog"].is_object(), "{doc}");
    }

    // All namespaces: null.
    let out = run(&["diff", "cm", "-A", "-o", "json"]);
    assert!(matches!(out.code, Some(0 | 1)), "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_document("diff cm -A -o json", &doc, 2, DIFF_REPORT);
    assert!(doc["namespace"].is_null(), "{doc}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
        assert_document(what, doc, 2, BENCH_REPORT);
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

    // All namespaces (--no-churn -A): null; with kube-controller-manager's own metrics, whose
    // section has queue names as data, not keys.
    common::controllers::require_controllers();
    let port =
        std::fs::read_to_string(kubeconfig_path().with_file_name("kube-controller-manager.port"))
            .unwrap();
    let metrics = format!("https://127.0.0.1:{}/metrics", port.trim());
    let out = tokio::task::spawn_blocking(move || {
        run(&[
            "bench",
            "--no-churn",
            "-A",
            "--duration",
            "2s",
            "--metrics-from",
            &metrics,
            "--fail-if",
            "controller.gaps > 1000",
            "-o",
            "json",
        ])
    })
    .await
    .unwrap();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_document(
        "bench --no-churn -A --metrics-from -o json",
        &doc,
        2,
        BENCH_REPORT,
    );
    assert!(doc["source"]["namespace"].is_null(), "{}", doc["source"]);
    let controller = &doc["controller"];
    assert!(
        !controller["queues"].as_array().unwrap().is_empty()
            && !controller["informers"].as_array().unwrap().is_empty(),
        "{controller}"
    );

    // A replay.
    let doc = replay_report();
    assert_document("bench --from-file -o json", &doc, 2, BENCH_REPORT);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
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
    assert_document("conform -o json", &doc, 1, CONFORM_REPORT);
    assert_eq!(doc["checks"].as_array().unwrap().len(), 12, "{doc}");
    assert!(doc["checks"][5]["waitedSeconds"].is_f64(), "{doc}");
}
