//! Which JSON parser should drive kubectl-informer's one-pass object reader (`Kept`)? Decodes the
//! objects of watch-event corpora with each parser, checks that they agree with serde_json, and
//! times them (README.md).
//!
//! `json-parsers prepare LIST.json OUT.jsonl`: a LIST's items as watch-event lines.
//! `json-parsers widgets CONFIGMAPS.json OUT.jsonl`: synthetic Widget events (benches/scale.rs's
//! shape) with the metadata of a ConfigMap LIST's items.
//! `json-parsers [--rounds N] [CORPUS.jsonl...]`: the checks and the timings (default: every
//! `*.jsonl` in /work/json-parsers-target/corpus).

use kubectl_informer::informer::object::{Kept, RawObject};
use serde::de::{DeserializeSeed, IgnoredAny};
use serde_json::value::RawValue;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// What a parser may reuse from one object to the next.
#[derive(Default)]
struct Scratch {
    copy: Vec<u8>,
    buffers: Option<simd_json::Buffers>,
}

/// Decodes one object's bytes: `Some` for the parsers that drive `Kept` (or the old path), `None`
/// for those that only validate.
type Decode = fn(&[u8], &mut Scratch) -> Result<Option<RawObject>, String>;

fn serde_json_kept(b: &[u8], _: &mut Scratch) -> Result<Option<RawObject>, String> {
    let mut de = serde_json::Deserializer::from_slice(b);
    let object = Kept(None).deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(Some(object))
}

fn sonic_rs_kept(b: &[u8], _: &mut Scratch) -> Result<Option<RawObject>, String> {
    let mut de = sonic_rs::Deserializer::from_slice(b);
    let object = Kept(None).deserialize(&mut de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(Some(object))
}

/// simd-json rewrites its input: a fresh copy, and fresh buffers (its `from_slice`).
fn simd_json_kept(b: &[u8], _: &mut Scratch) -> Result<Option<RawObject>, String> {
    let mut copy = b.to_vec();
    let mut de = simd_json::Deserializer::from_slice(&mut copy).map_err(|e| e.to_string())?;
    let object = Kept(None).deserialize(&mut de).map_err(|e| e.to_string())?;
    Ok(Some(object))
}

/// simd-json as a long-lived reader would use it: the copy and its buffers reused.
fn simd_json_kept_reused(b: &[u8], s: &mut Scratch) -> Result<Option<RawObject>, String> {
    s.copy.clear();
    s.copy.extend_from_slice(b);
    let buffers = s
        .buffers
        .get_or_insert_with(|| simd_json::Buffers::new(64 * 1024));
    let mut de = simd_json::Deserializer::from_slice_with_buffers(&mut s.copy, buffers)
        .map_err(|e| e.to_string())?;
    let object = Kept(None).deserialize(&mut de).map_err(|e| e.to_string())?;
    Ok(Some(object))
}

/// The crate's former "keep whole" path: the text validated and copied, then parsed again for
/// the identity.
fn raw_value_then_parse(b: &[u8], _: &mut Scratch) -> Result<Option<RawObject>, String> {
    let raw: Box<RawValue> = serde_json::from_slice(b).map_err(|e| e.to_string())?;
    RawObject::parse(raw, None)
        .map(Some)
        .map_err(|e| e.to_string())
}

fn serde_json_ignored(b: &[u8], _: &mut Scratch) -> Result<Option<RawObject>, String> {
    serde_json::from_slice::<IgnoredAny>(b).map_err(|e| e.to_string())?;
    Ok(None)
}

fn sonic_rs_ignored(b: &[u8], _: &mut Scratch) -> Result<Option<RawObject>, String> {
    sonic_rs::from_slice::<IgnoredAny>(b).map_err(|e| e.to_string())?;
    Ok(None)
}

fn sonic_rs_lazy(b: &[u8], _: &mut Scratch) -> Result<Option<RawObject>, String> {
    sonic_rs::from_slice::<sonic_rs::LazyValue>(b).map_err(|e| e.to_string())?;
    Ok(None)
}

fn simd_json_tape_reused(b: &[u8], s: &mut Scratch) -> Result<Option<RawObject>, String> {
    s.copy.clear();
    s.copy.extend_from_slice(b);
    let buffers = s
        .buffers
        .get_or_insert_with(|| simd_json::Buffers::new(64 * 1024));
    simd_json::to_tape_with_buffers(&mut s.copy, buffers).map_err(|e| e.to_string())?;
    Ok(None)
}

/// Every parser measured; the first is the reference the others are checked against.
const PARSERS: &[(&str, Decode)] = &[
    ("serde_json → Kept (now)", serde_json_kept),
    ("sonic-rs → Kept", sonic_rs_kept),
    ("simd-json → Kept (copy + from_slice)", simd_json_kept),
    (
        "simd-json → Kept (reused copy + buffers)",
        simd_json_kept_reused,
    ),
    (
        "old: serde_json RawValue + RawObject::parse",
        raw_value_then_parse,
    ),
    ("validate only: serde_json IgnoredAny", serde_json_ignored),
    ("validate only: sonic-rs IgnoredAny", sonic_rs_ignored),
    ("validate only: sonic-rs LazyValue", sonic_rs_lazy),
    (
        "validate only: simd-json tape (reused)",
        simd_json_tape_reused,
    ),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("prepare") {
        let [_, list, out] = &args[..] else {
            panic!("usage: json-parsers prepare LIST.json OUT.jsonl");
        };
        return prepare(list, out);
    }
    if args.first().map(String::as_str) == Some("widgets") {
        let [_, list, out] = &args[..] else {
            panic!("usage: json-parsers widgets CONFIGMAPS.json OUT.jsonl");
        };
        return widgets(list, out);
    }
    let (mut rounds, mut files) = (5, Vec::new());
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--rounds N")
            }
            _ => files.push(arg),
        }
    }
    if files.is_empty() {
        let dir = "/work/json-parsers-target/corpus";
        files = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.unwrap().path().display().to_string())
            .filter(|p| p.ends_with(".jsonl"))
            .collect();
        files.sort();
    }
    edge_cases();
    for file in &files {
        let objects = objects_of(file);
        check(file, &objects);
        measure(file, &objects, rounds);
    }
}

/// A LIST response (`kubectl get --raw`) as the watch events the API server sends for its items:
/// `{"type":"ADDED","object":{...}}` per line, kind and apiVersion put in front of an item
/// without them (as the server encodes a built-in object); the item's bytes otherwise untouched.
fn prepare(list: &str, out: &str) {
    #[derive(serde::Deserialize)]
    struct List<'a> {
        kind: String,
        #[serde(rename = "apiVersion")]
        api_version: String,
        #[serde(borrow)]
        items: Vec<&'a RawValue>,
    }
    let text = std::fs::read(list).unwrap_or_else(|e| panic!("{list}: {e}"));
    let list: List = serde_json::from_slice(&text).expect("a LIST");
    let kind = list
        .kind
        .strip_suffix("List")
        .expect("a kind ending in List");
    let mut lines = String::new();
    for item in &list.items {
        let item = item.get();
        lines.push_str(r#"{"type":"ADDED","object":"#);
        if item.starts_with(r#"{"kind":"#) || item.starts_with(r#"{"apiVersion":"#) {
            lines.push_str(item);
        } else {
            let fields = item.strip_prefix('{').expect("an object");
            let type_meta = serde_json::json!({"kind": kind, "apiVersion": list.api_version});
            let type_meta = serde_json::to_string(&type_meta).unwrap();
            lines.push_str(&type_meta[..type_meta.len() - 1]); // no closing brace
            lines.push(',');
            lines.push_str(fields);
        }
        lines.push_str("}\n");
    }
    std::fs::write(out, lines).unwrap_or_else(|e| panic!("{out}: {e}"));
    eprintln!("{out}: {} events", list.items.len());
}

/// Widgets as benches/scale.rs makes them (`fn widget`), as the API server would send them: the
/// metadata (uid, resourceVersion, creationTimestamp, managedFields) of the ConfigMap at the same
/// index, generation 1, and every map's keys sorted (a custom resource is encoded from a Go map),
/// an integral float written as an integer (as the server decodes it).
fn widgets(list: &str, out: &str) {
    use serde_json::{json, Value};
    fn sorted(v: Value) -> Value {
        match v {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.into_iter().collect();
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
            other => other,
        }
    }
    let text = std::fs::read(list).unwrap_or_else(|e| panic!("{list}: {e}"));
    let list: Value = serde_json::from_slice(&text).expect("a LIST");
    let mut lines = String::new();
    for (i, cm) in list["items"].as_array().expect("items").iter().enumerate() {
        let meta = &cm["metadata"];
        let time = &meta["managedFields"][0]["time"];
        let settings: serde_json::Map<String, Value> = (0..10)
            .map(|k| (format!("setting{k:02}"), format!("value-{i}-{k}").into()))
            .collect();
        let weight = 0.5 + (i % 10) as f64 / 10.0;
        let weight = if weight.fract() == 0.0 {
            json!(weight as i64)
        } else {
            json!(weight)
        };
        let field_set = |names: &[&str]| -> Value {
            names
                .iter()
                .map(|n| (format!("f:{n}"), json!({})))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        let widget = json!({
            "apiVersion": "bench.informer.test/v1",
            "kind": "Widget",
            "metadata": {
                "name": format!("widget-{i:06}"),
                "namespace": "bench-scale-widgets",
                "uid": meta["uid"],
                "resourceVersion": meta["resourceVersion"],
                "generation": 1,
                "creationTimestamp": meta["creationTimestamp"],
                "labels": {"app": "bench", "shard": (i % 16).to_string()},
                "annotations": {"bench.informer.test/owner": format!("team-{}", i % 7)},
                "managedFields": [{
                    "apiVersion": "bench.informer.test/v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {
                            "f:annotations": {".": {}, "f:bench.informer.test/owner": {}},
                            "f:labels": {".": {}, "f:app": {}, "f:shard": {}}
                        },
                        "f:spec": field_set(&["image", "paused", "ports", "replicas", "settings", "weight"]),
                        "f:status": field_set(&["conditions", "observedGeneration", "readyReplicas"])
                    },
                    "manager": "unknown",
                    "operation": "Update",
                    "time": time
                }]
            },
            "spec": {
                "replicas": i % 5 + 1,
                "image": format!("registry.example.com/widgets/widget:v1.{}.{}", i % 9, i % 31),
                "settings": settings,
                "ports": [{"name": "http", "port": 8080, "protocol": "TCP"},
                          {"name": "metrics", "port": 9090, "protocol": "TCP"}],
                "weight": weight,
                "paused": i.is_multiple_of(3)
            },
            "status": {
                "observedGeneration": 1,
                "readyReplicas": i % 5 + 1,
                "conditions": [
                    {"type": "Ready", "status": "True", "reason": "AllReplicasReady",
                     "lastTransitionTime": "2026-11-25T12:00:00Z", "message": "every replica is ready"},
                    {"type": "Progressing", "status": "False", "reason": "Complete",
                     "lastTransitionTime": "2026-11-25T12:00:00Z", "message": "rollout complete"}
                ]
            }
        });
        let event = json!({"type": "ADDED", "object": sorted(widget)});
        lines.push_str(&serde_json::to_string(&event).unwrap());
        lines.push('\n');
    }
    std::fs::write(out, lines).unwrap_or_else(|e| panic!("{out}: {e}"));
}

/// The object of each event line, sliced out once.
fn objects_of(file: &str) -> Vec<Box<[u8]>> {
    #[derive(serde::Deserialize)]
    struct Event<'a> {
        #[serde(borrow)]
        object: &'a RawValue,
    }
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    text.lines()
        .map(|line| {
            let event: Event = serde_json::from_str(line).expect("a watch event");
            event.object.get().as_bytes().into()
        })
        .collect()
}

/// The identity every parser must agree on.
fn identity(
    o: &RawObject,
) -> (
    String,
    String,
    String,
    Option<String>,
    String,
    String,
    Option<i64>,
) {
    (
        o.kind().into(),
        o.api_version().into(),
        o.name().into(),
        o.namespace().map(Into::into),
        o.uid().into(),
        o.resource_version().into(),
        o.generation(),
    )
}

/// Whether `other` is what serde_json read: the same identity, labels and content.
fn agrees(reference: &RawObject, other: &RawObject) -> Result<(), String> {
    if identity(reference) != identity(other) {
        return Err(format!(
            "identity {:?} ≠ {:?}",
            identity(other),
            identity(reference)
        ));
    }
    if !reference.same_labels(other) {
        return Err("labels differ".into());
    }
    match reference.same_content(other) {
        Some(true) => Ok(()),
        different => Err(format!("same_content = {different:?}")),
    }
}

/// Every parser on every object, compared with serde_json's reading.
fn check(file: &str, objects: &[Box<[u8]>]) {
    let mut scratch = Scratch::default();
    let bytes: usize = objects.iter().map(|o| o.len()).sum();
    println!(
        "\n## {file}\n\n{} objects, {} bytes of objects ({:.0} bytes per object)\n",
        objects.len(),
        bytes,
        bytes as f64 / objects.len() as f64
    );
    let mut disagreements = vec![0usize; PARSERS.len()];
    for object in objects {
        let reference = PARSERS[0].1(object, &mut scratch)
            .expect("serde_json reads every object")
            .unwrap();
        for (i, (name, decode)) in PARSERS.iter().enumerate().skip(1) {
            let verdict = match decode(object, &mut scratch) {
                Ok(Some(other)) => agrees(&reference, &other),
                Ok(None) => Ok(()),
                Err(e) => Err(format!("error: {e}")),
            };
            if let Err(e) = verdict {
                disagreements[i] += 1;
                if disagreements[i] <= 3 {
                    println!("DISAGREEMENT {name} on {}: {e}", reference.key());
                }
            }
        }
    }
    for (i, (name, _)) in PARSERS.iter().enumerate().skip(1) {
        println!(
            "check: {name}: {} of {} objects disagree with serde_json",
            disagreements[i],
            objects.len()
        );
    }
}

/// `rounds` rounds, each decoding every object with every parser (the order rotated each round);
/// the median, min and max per parser.
fn measure(file: &str, objects: &[Box<[u8]>], rounds: usize) {
    let mut scratch = Scratch::default();
    let bytes: usize = objects.iter().map(|o| o.len()).sum();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); PARSERS.len()];
    for round in 0..rounds {
        for k in 0..PARSERS.len() {
            let i = (k + round) % PARSERS.len();
            let decode = PARSERS[i].1;
            let start = Instant::now();
            for object in objects {
                black_box(decode(black_box(object), &mut scratch).unwrap());
            }
            times[i].push(start.elapsed());
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("\n{file}: {rounds} rounds, load average {}\n", load.trim());
    println!("| parser | ns/object median | min | max | MB/s (median) |");
    println!("|---|---:|---:|---:|---:|");
    let per_object = |d: Duration| d.as_nanos() as f64 / objects.len() as f64;
    for (i, (name, _)) in PARSERS.iter().enumerate() {
        let t = &mut times[i];
        t.sort();
        let median = t[t.len() / 2];
        println!(
            "| {name} | {:.0} | {:.0} | {:.0} | {:.0} |",
            per_object(median),
            per_object(t[0]),
            per_object(t[t.len() - 1]),
            bytes as f64 / median.as_secs_f64() / 1e6,
        );
    }
}

/// Inputs every parser must reject, and unusual ones every parser must read as serde_json does.
fn edge_cases() {
    let invalid: &[(&str, &[u8])] = &[
        ("truncated", br#"{"metadata":{"name":"a"}"#),
        ("trailing bytes", br#"{"metadata":{}} x"#),
        ("two values", br#"{"metadata":{}} {}"#),
        ("trailing comma", br#"{"a":1,}"#),
        ("invalid UTF-8 in a string", b"{\"a\":\"\xff\"}"),
        ("invalid UTF-8 in a key", b"{\"\xc3\x28\":1}"),
        ("overlong UTF-8", b"{\"a\":\"\xc0\xaf\"}"),
        ("bad escape", br#"{"a":"\q"}"#),
        ("control character in a string", b"{\"a\":\"\x01\"}"),
        ("lone surrogate escape", br#"{"a":"\ud800"}"#),
        ("leading zero", br#"{"a":01}"#),
        ("bare minus", br#"{"a":-}"#),
        ("dot without digits", br#"{"a":1.}"#),
        ("bad literal", br#"{"a":tru}"#),
        ("single quotes", br#"{'a':1}"#),
        ("not an object", br#"[1]"#),
        ("duplicate metadata", br#"{"metadata":{},"metadata":{}}"#),
        ("empty", b""),
    ];
    let valid: &[(&str, &[u8])] = &[
        ("escaped name", br#"{"metadata":{"name":"a\u0062\/c"}}"#),
        (
            "surrogate pair",
            br#"{"metadata":{"name":"\ud83d\ude00"},"x":"\u00e9"}"#,
        ),
        ("u64 max", br#"{"a":18446744073709551615}"#),
        ("i64 min", br#"{"a":-9223372036854775808}"#),
        ("beyond u64", br#"{"a":18446744073709551616}"#),
        // A float64 of 2^64 as Go's encoding/json writes it (a custom resource's big number).
        ("Go float beyond u64", br#"{"a":18446744073709552000}"#),
        (
            "floats",
            br#"{"a":[0.1,1e2,1E-2,-0.0,2.5e+3,1.7976931348623157e308,5e-324]}"#,
        ),
        (
            "long float",
            br#"{"a":0.30000000000000004440892098500626161694526672363281}"#,
        ),
        ("whitespace", b" {\t\"metadata\" :\r\n{ } } \n"),
        ("null metadata", br#"{"metadata":null,"kind":"K"}"#),
        (
            "deep",
            br#"{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{"b":1}]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#,
        ),
    ];
    let kept = || PARSERS.iter().take(4);
    println!("## Edge cases\n");
    for (what, input) in invalid {
        for (name, decode) in kept() {
            if let Ok(o) = decode(input, &mut Scratch::default()) {
                println!("ACCEPTED invalid input ({what}) by {name}: {o:?}");
            }
        }
    }
    for (what, input) in valid {
        let reference = serde_json_kept(input, &mut Scratch::default());
        for (name, decode) in kept().skip(1) {
            let verdict = match (&reference, decode(input, &mut Scratch::default())) {
                (Ok(Some(a)), Ok(Some(b))) => agrees(a, &b),
                (Err(_), Err(_)) => Ok(()), // both reject (serde_json: a number out of range)
                (a, b) => Err(format!(
                    "serde_json {:?}, this {b:?}",
                    a.as_ref().map(|_| ())
                )),
            };
            if let Err(e) = verdict {
                println!("DIFFERS from serde_json ({what}) in {name}: {e}");
            }
        }
    }
    println!(
        "edge cases: {} invalid and {} valid inputs tried",
        invalid.len(),
        valid.len()
    );
}
