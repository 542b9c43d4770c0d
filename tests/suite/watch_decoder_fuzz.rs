//! Hostile bytes on a watch stream never crash or wedge the decoder. Property tests
//! feed mutated, arbitrary and structurally hostile JSON lines through `WatchStream` in random
//! chunks and check each outcome against decoding the same lines one by one, and each line's
//! outcome against decoders that are not ours (serde_json, k8s-openapi's ObjectMeta); each kind of
//! hostility also has a stream of its own in `tests/fixtures/hostile-watch/` with its expected
//! outcome below; and a 100 MB line is refused by size without being read into memory. The
//! framer that cuts every watch body (JSON lines, protobuf frames, CBOR items, for the reflector
//! and the proxy alike) cuts arbitrary bytes alike in any chunking, and gives back the frames and
//! items it was sent.
//!
//! No cluster. The property budget is a fixed number of cases; failures found are kept in
//! `watch_decoder_fuzz.proptest-regressions` beside this file and replayed first.

use futures::io::{AsyncBufRead, AsyncRead};
use futures::TryStreamExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kubectl_informer::cluster::{Encoding, FrameError, Framer};
use kubectl_informer::informer::listwatch::{
    decode_event, decode_event_kept, StreamError, WatchEvent, WatchStream, MAX_EVENT_BYTES,
};
use kubectl_informer::informer::object::RawObject;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::FileFailurePersistence;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

// ---------------------------------------------------------------------------------------------
// Reading a stream and checking what it gave

/// A watch body that yields `data` in the chunks `cuts` split it into, with lines over `limit`
/// refused.
fn chunked(data: &[u8], cuts: &[usize], limit: usize) -> WatchStream {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    at.push(0);
    at.push(data.len());
    at.sort_unstable();
    at.dedup();
    let chunks: Vec<std::io::Result<Vec<u8>>> = at
        .windows(2)
        .map(|w| Ok(data[w[0]..w[1]].to_vec()))
        .collect();
    let reader = futures::stream::iter(chunks).into_async_read();
    WatchStream::with_limit(Box::pin(reader), limit)
}

/// One outcome of `next()`, as text to compare: an event with its whole JSON, or an error with
/// its message.
fn outcome(result: &Result<Option<WatchEvent>, StreamError>) -> String {
    match result {
        Ok(None) => "end".to_string(),
        Ok(Some(event)) => event_text(event),
        Err(StreamError::Io(reason)) => format!("cut: {reason}"),
        Err(e @ StreamError::Malformed { .. }) => format!("malformed: {e}"),
        Err(e @ StreamError::TooLarge { .. }) => format!("too-large: {e}"),
    }
}

fn event_text(event: &WatchEvent) -> String {
    match event {
        WatchEvent::Added(o) => format!("ADDED {:?} {}", o, o.json().unwrap()),
        WatchEvent::Modified(o) => format!("MODIFIED {:?} {}", o, o.json().unwrap()),
        WatchEvent::Deleted(o) => format!("DELETED {:?} {}", o, o.json().unwrap()),
        WatchEvent::Bookmark {
            resource_version,
            initial_events_end,
        } => format!("BOOKMARK {resource_version} {initial_events_end}"),
        WatchEvent::Error(s) => format!("ERROR {} {} {}", s.code, s.reason, s.message),
    }
}

/// Reads `stream` to its end (a clean end or a cut), checking each outcome; fails if it takes
/// more calls than the body has bytes: every call that does not end the stream consumes a line.
fn drain(mut stream: WatchStream, bytes: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..bytes + 2 {
        let result = futures::executor::block_on(stream.next());
        check(&result);
        out.push(outcome(&result));
        if matches!(result, Ok(None) | Err(StreamError::Io(_))) {
            return out;
        }
    }
    panic!(
        "the stream of {bytes} bytes did not end after {} calls: {out:?}",
        bytes + 2
    );
}

/// What every outcome must be: an error is one short line with no control character (so no
/// raw byte of the stream reaches a terminal); an object event names its object and
/// resourceVersion as any JSON parser reads them from its JSON, which is an object.
fn check(result: &Result<Option<WatchEvent>, StreamError>) {
    match result {
        Err(e) => {
            let text = e.to_string();
            assert!(
                !text.chars().any(char::is_control),
                "an error with a control character: {text:?}"
            );
            assert!(
                text.chars().count() <= 400,
                "an error of {} characters: {text}",
                text.chars().count()
            );
        }
        Ok(Some(WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o))) => {
            assert!(
                o.json().unwrap().starts_with('{'),
                "not an object: {}",
                o.json().unwrap()
            );
            assert!(!o.name().is_empty() && !o.resource_version().is_empty());
            // Deeper than serde_json's recursion limit, the general parser gives up; the
            // decoder keeps the JSON verbatim without walking it.
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(o.json().unwrap()) {
                let at = |p: &str| v.pointer(p).and_then(|s| s.as_str()).unwrap_or("");
                assert_eq!(o.name(), at("/metadata/name"));
                assert_eq!(o.namespace().unwrap_or(""), at("/metadata/namespace"));
                assert_eq!(o.resource_version(), at("/metadata/resourceVersion"));
                assert_eq!(o.kind(), at("/kind"));
                assert_eq!(o.uid(), at("/metadata/uid"));
            }
        }
        Ok(Some(WatchEvent::Bookmark {
            resource_version, ..
        })) => assert!(!resource_version.is_empty()),
        Ok(Some(WatchEvent::Error(_)) | None) => {}
    }
}

/// The decoder against decoders that are not ours: serde_json reading the whole line, and
/// k8s-openapi's ObjectMeta its metadata. Where serde_json finds no JSON (short of its recursion
/// limit, which the decoder does not have), the decoder must refuse the line; where it finds an
/// object event or a bookmark with a name and a resourceVersion, of an object the API could have
/// sent, the decoder must give that event, of that object, at that RV. (Lines between, valid
/// JSON that is no watch event, are the decoder's own rules, checked by `check`.)
fn agrees_with_serde_json(line: &[u8], ours: &Result<Option<WatchEvent>, StreamError>) {
    let shown = String::from_utf8_lossy(line);
    let value = match serde_json::from_slice::<serde_json::Value>(line) {
        Ok(value) => value,
        // Where JSON readers differ by design: serde_json's recursion limit (the decoder keeps
        // what it does not read verbatim, at any depth), a lone UTF-16 surrogate escape (Go's
        // encoding/json reads it as U+FFFD) and a number beyond f64 (kept as written), in a
        // field the decoder does not read.
        Err(e)
            if ["recursion limit", "escape", "number out of range"]
                .iter()
                .any(|m| e.to_string().contains(m)) =>
        {
            return
        }
        Err(e) => {
            assert!(
                ours.is_err(),
                "serde_json: {e}; the decoder: {ours:?}; line: {shown}"
            );
            return;
        }
    };
    // A key twice in one object: JSON leaves the meaning open (serde_json and Go take the last,
    // the decoder refuses the line, so that a relist, not a guess, says what is there).
    if has_duplicate_keys(line) {
        return;
    }
    let text = |v: &serde_json::Value, p: &str| {
        v.pointer(p)
            .and_then(|s| s.as_str())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let (Some(kind), Some(rv)) = (
        text(&value, "/type"),
        text(&value, "/object/metadata/resourceVersion"),
    ) else {
        return;
    };
    // An object the API could have sent: its metadata reads as k8s-openapi's ObjectMeta and its
    // kind and apiVersion are strings (a client refuses a `kind` that is a list, or annotations
    // that are a number, as client-go's decoding does).
    let typed = value
        .pointer("/object/metadata")
        .is_some_and(|m| serde_json::from_value::<ObjectMeta>(m.clone()).is_ok())
        && ["/object/kind", "/object/apiVersion"]
            .iter()
            .all(|p| value.pointer(p).is_none_or(|v| v.is_string()));
    if !typed {
        return;
    }
    match (kind.as_str(), ours) {
        (
            "BOOKMARK",
            Ok(Some(WatchEvent::Bookmark {
                resource_version, ..
            })),
        ) => {
            assert_eq!(*resource_version, rv, "{shown}")
        }
        ("BOOKMARK", other) => panic!("a bookmark at {rv}, the decoder: {other:?}; line: {shown}"),
        ("ADDED" | "MODIFIED" | "DELETED", result) => {
            let Some(name) = text(&value, "/object/metadata/name") else {
                return;
            };
            let object = match result {
                Ok(Some(WatchEvent::Added(o))) if kind == "ADDED" => o,
                Ok(Some(WatchEvent::Modified(o))) if kind == "MODIFIED" => o,
                Ok(Some(WatchEvent::Deleted(o))) if kind == "DELETED" => o,
                other => panic!("{kind} of {name} at {rv}, the decoder: {other:?}; line: {shown}"),
            };
            assert_eq!(
                (object.name(), object.resource_version()),
                (name.as_str(), rv.as_str()),
                "{shown}"
            );
        }
        _ => {}
    }
}

/// Whether some object of the JSON `line` has a key twice, as a reader that keeps every key
/// sees it.
fn has_duplicate_keys(line: &[u8]) -> bool {
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    struct Duplicates(bool);
    impl<'de> Deserialize<'de> for Duplicates {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Duplicates;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("JSON")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Duplicates, A::Error> {
                    let mut keys = std::collections::HashSet::new();
                    let mut found = false;
                    while let Some(key) = map.next_key::<String>()? {
                        found |= !keys.insert(key);
                        found |= map.next_value::<Duplicates>()?.0;
                    }
                    Ok(Duplicates(found))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Duplicates, A::Error> {
                    let mut found = false;
                    while let Some(item) = seq.next_element::<Duplicates>()? {
                        found |= item.0;
                    }
                    Ok(Duplicates(found))
                }
                fn visit_bool<E>(self, _: bool) -> Result<Duplicates, E> {
                    Ok(Duplicates(false))
                }
                fn visit_i64<E>(self, _: i64) -> Result<Duplicates, E> {
                    Ok(Duplicates(false))
                }
                fn visit_u64<E>(self, _: u64) -> Result<Duplicates, E> {
                    Ok(Duplicates(false))
                }
                fn visit_f64<E>(self, _: f64) -> Result<Duplicates, E> {
                    Ok(Duplicates(false))
                }
                fn visit_str<E>(self, _: &str) -> Result<Duplicates, E> {
                    Ok(Duplicates(false))
                }
                fn visit_unit<E>(self) -> Result<Duplicates, E> {
                    Ok(Duplicates(false))
                }
            }
            d.deserialize_any(V)
        }
    }
    serde_json::from_slice::<Duplicates>(line).is_ok_and(|d| d.0)
}

/// What a stream of `data` must give, decoding its lines one by one: whitespace lines skipped,
/// a line over `limit` refused by size, a last line without its newline a cut.
fn expected(data: &[u8], limit: usize) -> Vec<String> {
    let mut out = Vec::new();
    for line in data.split_inclusive(|b| *b == b'\n') {
        let whole = line.ends_with(b"\n");
        let length = line.len() - usize::from(whole);
        if length > limit {
            out.push(outcome(&Err(StreamError::TooLarge { limit })));
        } else if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        } else if whole {
            let result = decode_event(line).map(Some);
            check(&result);
            agrees_with_serde_json(line, &result);
            out.push(outcome(&result));
            continue;
        }
        if !whole {
            out.push(outcome(&Err(StreamError::Io(
                "the stream ended in the middle of an event".into(),
            ))));
            return out;
        }
    }
    out.push("end".to_string());
    out
}

// ---------------------------------------------------------------------------------------------
// Strategies

fn identifier() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z0-9]([-a-z0-9.]{0,20}[a-z0-9])?",
        1 => "\\PC{1,12}",
        1 => "[\"\\\\/\u{0}-\u{1f}a-z]{1,8}",
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![3 => "[ -~]{0,40}", 1 => "\\PC{0,20}", 1 => "[\u{0}-\u{7f}]{0,20}"]
}

/// A watch event as a real server could send it.
fn valid_event() -> impl Strategy<Value = serde_json::Value> {
    let metadata = (
        identifier(),
        proptest::option::of(identifier()),
        "[0-9a-f-]{0,36}",
        1u64..u64::MAX,
        proptest::option::of(any::<i64>()),
        proptest::collection::btree_map(identifier(), text(), 0..4),
        proptest::collection::btree_map(identifier(), text(), 0..3),
    )
        .prop_map(
            |(name, namespace, uid, rv, generation, labels, annotations)| {
                let mut m = serde_json::json!({
                    "name": name, "uid": uid, "resourceVersion": rv.to_string(),
                    "labels": labels, "annotations": annotations,
                    "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:data": {"f:k": {}}}}],
                });
                if let Some(ns) = namespace {
                    m["namespace"] = ns.into();
                }
                if let Some(g) = generation {
                    m["generation"] = g.into();
                }
                m
            },
        );
    let object = (
        metadata,
        proptest::collection::btree_map(identifier(), text(), 0..4),
    )
        .prop_map(|(metadata, data)| {
            serde_json::json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": metadata, "data": data})
        });
    prop_oneof![
        4 => (prop::sample::select(vec!["ADDED", "MODIFIED", "DELETED"]), object)
            .prop_map(|(t, o)| serde_json::json!({"type": t, "object": o})),
        1 => (1u64..u64::MAX, any::<bool>()).prop_map(|(rv, end)| {
            let mut m = serde_json::json!({"resourceVersion": rv.to_string()});
            if end {
                m["annotations"] = serde_json::json!({"k8s.io/initial-events-end": "true"});
            }
            serde_json::json!({"type": "BOOKMARK", "object": {"kind": "ConfigMap", "apiVersion": "v1", "metadata": m}})
        }),
        1 => (any::<u16>(), text(), text()).prop_map(|(code, reason, message)| {
            serde_json::json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1",
                "status": "Failure", "code": code, "reason": reason, "message": message}})
        }),
    ]
}

/// A JSON value (or not quite one) where a string, a number or an object belongs.
fn hostile_value() -> impl Strategy<Value = Vec<u8>> {
    let fixed: Vec<&[u8]> = vec![
        b"5",
        b"-0",
        b"1e400",
        b"-1e400",
        b"99999999999999999999999999",
        b"1.5",
        b"\"\"",
        b"\"x\"",
        b"[]",
        b"[1,\"a\",null]",
        b"{}",
        b"{\"name\":\"a\"}",
        b"null",
        b"true",
        b"\"\xff\xfe\"",
        b"\"\xc3\x28\"",
        b"\"\xed\xa0\x80\"",
        b"\"a\x00b\"",
        b"\"\\u0000\"",
        b"\"\\ud800\"",
        b"\"\\uZZZZ\"",
        b"\"\x1b[31m\"",
        b"\"\\n\\r\"",
        b"\"ADDED\"",
        b"\"BOOKMARK\"",
        b"\"ERROR\"",
        b"\"Status\"",
        b"\"true\"",
        b"\"",
        b"{",
        b"]",
    ];
    prop_oneof![
        4 => prop::sample::select(fixed).prop_map(<[u8]>::to_vec),
        1 => (1usize..3000).prop_map(|n| [vec![b'['; n], vec![b']'; n]].concat()),
        1 => (1usize..3000).prop_map(|n| [b"{\"a\":".repeat(n), b"1".to_vec(), vec![b'}'; n]].concat()),
        1 => (1usize..3000).prop_map(|n| vec![b'['; n]),
        1 => (0usize..5000).prop_map(|n| [b"\"".to_vec(), vec![b'x'; n], b"\"".to_vec()].concat()),
        1 => proptest::collection::vec(any::<u8>(), 0..24),
        // An array where a struct belongs, its elements plausible fields in order.
        2 => proptest::collection::vec(
            prop::sample::select(vec![
                "\"a\"",
                "\"ns\"",
                "\"1\"",
                "null",
                "5",
                r#"{"name":"a","resourceVersion":"1"}"#,
            ]),
            0..5,
        )
        .prop_map(|items| format!("[{}]", items.join(",")).into_bytes()),
    ]
}

/// Where in an event a hostile value goes.
const PATHS: &[&str] = &[
    "/type",
    "/object",
    "/object/kind",
    "/object/apiVersion",
    "/object/metadata",
    "/object/metadata/name",
    "/object/metadata/namespace",
    "/object/metadata/uid",
    "/object/metadata/resourceVersion",
    "/object/metadata/generation",
    "/object/metadata/labels",
    "/object/metadata/annotations",
    "/object/metadata/annotations/k8s.io~1initial-events-end",
    "/object/metadata/managedFields",
    "/object/data",
    "/object/code",
    "/object/reason",
    "/object/message",
];

/// A placeholder the hostile bytes replace once the event is serialized.
const SLOT: &str = "\u{1}slot\u{1}";

/// A line-level change to an event's bytes.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(Index, u8),
    Truncate(Index),
    Insert(Index, Vec<u8>),
    Delete(Index, usize),
    Duplicate(Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let inserted = prop_oneof![
        prop::sample::select(vec![
            b"\n".to_vec(),
            b"\r\n".to_vec(),
            b"\0".to_vec(),
            b"\xff".to_vec(),
            b"{".to_vec(),
            b"}".to_vec(),
            b"[".to_vec(),
            b"\"".to_vec(),
            b",".to_vec(),
            b"\\".to_vec(),
            b"\x1b".to_vec(),
        ]),
        proptest::collection::vec(any::<u8>(), 1..8),
    ];
    prop_oneof![
        (any::<Index>(), 1u8..=255).prop_map(|(i, x)| Mutation::Flip(i, x)),
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), inserted).prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<Index>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<Index>(), 1usize..64).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
    ]
}

fn mutate(mut line: Vec<u8>, m: &Mutation) -> Vec<u8> {
    if line.is_empty() {
        return line;
    }
    match m {
        Mutation::Flip(i, x) => {
            let at = i.index(line.len());
            line[at] ^= x;
        }
        Mutation::Truncate(i) => line.truncate(i.index(line.len())),
        Mutation::Insert(i, bytes) => {
            let at = i.index(line.len() + 1);
            line.splice(at..at, bytes.iter().copied());
        }
        Mutation::Delete(i, n) => {
            let at = i.index(line.len());
            line.drain(at..(at + n).min(line.len()));
        }
        Mutation::Duplicate(i, n) => {
            let at = i.index(line.len());
            let copy = line[at..(at + n).min(line.len())].to_vec();
            line.splice(at..at, copy);
        }
    }
    line
}

/// One line of a hostile stream (no newline of its own unless a mutation put one in).
fn hostile_line() -> impl Strategy<Value = Vec<u8>> {
    let swapped = (valid_event(), prop::sample::select(PATHS), hostile_value()).prop_map(
        |(mut event, path, value)| {
            let (parent, key) = path.rsplit_once('/').unwrap_or(("", path));
            let key = key.replace("~1", "/");
            if let Some(serde_json::Value::Object(map)) = event.pointer_mut(parent) {
                map.insert(key, SLOT.into());
            }
            let text = serde_json::to_vec(&event).unwrap();
            let slot = serde_json::to_vec(SLOT).unwrap();
            match text.windows(slot.len()).position(|w| w == slot.as_slice()) {
                Some(at) => [&text[..at], &value[..], &text[at + slot.len()..]].concat(),
                None => text,
            }
        },
    );
    prop_oneof![
        2 => valid_event().prop_map(|e| serde_json::to_vec(&e).unwrap()),
        3 => (valid_event(), proptest::collection::vec(mutation(), 1..4)).prop_map(|(e, ms)| {
            ms.iter().fold(serde_json::to_vec(&e).unwrap(), mutate)
        }),
        4 => swapped,
        1 => proptest::collection::vec(any::<u8>(), 0..200),
        1 => prop::sample::select(vec![
            Vec::new(),
            b"   ".to_vec(),
            b"\t\r".to_vec(),
            b"\0".to_vec(),
        ]),
    ]
}

/// A stream: lines, their line ends, where the chunks are cut, the size limit.
fn stream() -> impl Strategy<Value = (Vec<u8>, Vec<usize>, usize)> {
    (
        proptest::collection::vec((hostile_line(), any::<bool>()), 0..8),
        any::<bool>(),
        proptest::collection::vec(any::<usize>(), 0..12),
        prop::sample::select(vec![16usize, 200, 1000, MAX_EVENT_BYTES]),
    )
        .prop_map(|(lines, newline_at_end, cuts, limit)| {
            let mut data = Vec::new();
            for (i, (line, crlf)) in lines.iter().enumerate() {
                data.extend_from_slice(line);
                if i + 1 < lines.len() || newline_at_end {
                    data.extend_from_slice(if *crlf { b"\r\n" } else { b"\n" });
                }
            }
            (data, cuts, limit)
        })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        // Kept beside this file. proptest's default (SourceParallel) climbs to the directory
        // holding a main.rs, this one, and writes tests/proptest-regressions/NAME.txt instead.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        // A failure is shrunk for at most this long (ms), so that even a failing run ends.
        max_shrink_time: 20_000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(600))]

    #[test]
    fn a_hostile_stream_gives_what_its_lines_give_one_by_one_and_always_ends(
        (data, cuts, limit) in stream()
    ) {
        let got = drain(chunked(&data, &cuts, limit), data.len());
        prop_assert_eq!(got, expected(&data, limit));
    }

    #[test]
    fn arbitrary_bytes_give_events_or_one_line_errors_and_always_end(
        data in proptest::collection::vec(any::<u8>(), 0..4096),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        limit in prop::sample::select(vec![64usize, 1024, MAX_EVENT_BYTES]),
    ) {
        let got = drain(chunked(&data, &cuts, limit), data.len());
        prop_assert_eq!(got, expected(&data, limit));
    }

    #[test]
    fn a_valid_event_split_anywhere_decodes_as_it_does_whole(
        event in valid_event(),
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        let mut line = serde_json::to_vec(&event).unwrap();
        line.push(b'\n');
        let whole = decode_event(&line);
        prop_assert!(whole.is_ok(), "{:?}", whole);
        let got = drain(chunked(&line, &cuts, MAX_EVENT_BYTES), line.len());
        prop_assert_eq!(got, vec![outcome(&whole.map(Some)), "end".to_string()]);
    }
}

/// What the pipeline reads of an object: the same whether it was kept whole or as a digest.
fn identity(o: &RawObject) -> String {
    format!(
        "{} {} {:?} {} {} {:?} {:?} {:?} {}",
        o.kind(),
        o.api_version(),
        o.key(),
        o.uid(),
        o.resource_version(),
        o.generation(),
        o.label("app"),
        o.label("tier"),
        o.initial_events_end()
    )
}

/// A line's outcome from `decode_event` against `decode_event_kept`: the same event, object
/// identity and labels, content the same by digest, or both refused. The kept reader also
/// refuses a number beyond a 64-bit float and a lone UTF-16 surrogate escape (`"\ud800"`), as it
/// reads every value to digest it, and counts serde_json's nesting limit (128) from the event
/// rather than from the object; Go's encoder writes none of these.
fn kept_agrees(line: &[u8]) -> Result<(), TestCaseError> {
    let (whole, kept) = (decode_event(line), decode_event_kept(line));
    let objects = |e: &WatchEvent| match e {
        WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => Some(o.clone()),
        _ => None,
    };
    match (&whole, &kept) {
        (Ok(w), Ok(k)) => {
            prop_assert_eq!(std::mem::discriminant(w), std::mem::discriminant(k));
            match (objects(w), objects(k)) {
                (Some(w), Some(k)) => {
                    prop_assert_eq!(identity(&w), identity(&k));
                    prop_assert_eq!(k.json(), None);
                    prop_assert_eq!(w.same_content(&k), Some(true));
                }
                _ => prop_assert_eq!(format!("{w:?}"), format!("{k:?}")),
            }
        }
        (Err(_), Err(_)) => {}
        (Ok(_), Err(StreamError::Malformed { reason, .. }))
            if [
                "out of range",
                "recursion limit",
                "surrogate",
                "end of hex escape",
            ]
            .iter()
            .any(|r| reason.contains(r)) => {}
        _ => prop_assert!(
            false,
            "whole {whole:?}, kept {kept:?}: {}",
            String::from_utf8_lossy(line)
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(1500))]

    #[test]
    fn a_line_read_kept_gives_what_it_gives_read_whole(line in hostile_line()) {
        kept_agrees(&line)?;
    }
}

#[test]
fn a_changed_object_read_kept_is_not_the_same_content() {
    let line = |image: &str, order: bool| {
        let spec = if order {
            format!(r#"{{"replicas":2,"image":"{image}"}}"#)
        } else {
            format!(r#"{{"image":"{image}","replicas":2}}"#)
        };
        format!(
            r#"{{"type":"MODIFIED","object":{{"kind":"Widget","apiVersion":"x/v1","metadata":{{"name":"w","resourceVersion":"9"}},"spec":{spec}}}}}"#
        )
    };
    let object = |text: String| match decode_event_kept(text.as_bytes()).unwrap() {
        WatchEvent::Modified(o) => o,
        other => panic!("{other:?}"),
    };
    let a = object(line("v1", true));
    assert_eq!(a.same_content(&object(line("v1", false))), Some(true));
    assert_eq!(a.same_content(&object(line("v2", false))), Some(false));
}

// ---------------------------------------------------------------------------------------------
// The framer, in every encoding

/// What a framer cut from a body: each event or refusal, then how the body ended.
type Framed = (Vec<Result<Vec<u8>, FrameError>>, Result<(), FrameError>);

/// What `framer` cuts from `data` fed in the chunks `cuts` split it into.
fn framed(mut framer: Framer, data: &[u8], cuts: &[usize]) -> Framed {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    at.extend([0, data.len()]);
    at.sort_unstable();
    at.dedup();
    let mut out = Vec::new();
    for w in at.windows(2) {
        framer.cut(&data[w[0]..w[1]], |cut| out.push(cut.map(<[u8]>::to_vec)));
    }
    (out, framer.end())
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop::sample::select(vec![Encoding::Json, Encoding::Protobuf, Encoding::Cbor])
}

/// A CBOR data item as an encoder other than the server's writes it.
fn cbor_value() -> impl Strategy<Value = ciborium::Value> {
    use ciborium::Value;
    let leaf = prop_oneof![
        any::<i64>().prop_map(|i| Value::Integer(i.into())),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes),
        ".{0,20}".prop_map(Value::Text),
        any::<bool>().prop_map(Value::Bool),
        Just(Value::Null),
        any::<f64>().prop_map(Value::Float),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            proptest::collection::vec((inner.clone(), inner.clone()), 0..6).prop_map(Value::Map),
            (any::<u64>(), inner).prop_map(|(tag, v)| Value::Tag(tag, Box::new(v))),
        ]
    })
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn the_framer_cuts_arbitrary_bytes_alike_however_they_are_chunked(
        data in proptest::collection::vec(any::<u8>(), 0..2048),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        encoding in encoding(),
        limit in prop::sample::select(vec![16usize, 300, MAX_EVENT_BYTES]),
    ) {
        let whole = framed(Framer::new(encoding, limit), &data, &[]);
        prop_assert_eq!(framed(Framer::new(encoding, limit), &data, &cuts), whole);
        // A relay's framer: what it cut is the body's bytes as they came, from the start.
        let relay = || Framer::new(encoding, usize::MAX).with_blank_lines();
        let (events, _) = framed(relay(), &data, &cuts);
        prop_assert_eq!(&events, &framed(relay(), &data, &[]).0);
        let passed: Vec<u8> = events.into_iter().map_while(Result::ok).flatten().collect();
        prop_assert!(data.starts_with(&passed));
    }

    #[test]
    fn protobuf_frames_are_cut_as_they_were_sent_or_refused_by_their_length(
        sizes in proptest::collection::vec(0usize..400, 0..8),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        limit in prop::sample::select(vec![0usize, 16, 300, MAX_EVENT_BYTES]),
    ) {
        let frames: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(i, &len)| {
                let mut frame = (len as u32).to_be_bytes().to_vec();
                frame.extend(std::iter::repeat_n(i as u8, len));
                frame
            })
            .collect();
        let want: Vec<Result<Vec<u8>, FrameError>> = frames
            .iter()
            .map(|f| if f.len() - 4 > limit { Err(FrameError::TooLarge) } else { Ok(f.clone()) })
            .collect();
        let got = framed(Framer::new(Encoding::Protobuf, limit), &frames.concat(), &cuts);
        prop_assert_eq!(got, (want, Ok(())));
    }

    #[test]
    fn cbor_items_are_cut_as_they_were_encoded_until_one_is_over_the_limit(
        values in proptest::collection::vec(cbor_value(), 0..6),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        limit in prop::sample::select(vec![8usize, 64, MAX_EVENT_BYTES]),
    ) {
        let items: Vec<Vec<u8>> = values
            .iter()
            .map(|v| {
                let mut item = Vec::new();
                ciborium::ser::into_writer(v, &mut item).unwrap();
                item
            })
            .collect();
        let fit = items.iter().take_while(|i| i.len() <= limit).count();
        let mut want: Vec<Result<Vec<u8>, FrameError>> =
            items[..fit].iter().cloned().map(Ok).collect();
        let mut end = Ok(());
        if fit < items.len() {
            want.push(Err(FrameError::TooLarge));
            end = Err(FrameError::TooLarge);
        }
        let got = framed(Framer::new(Encoding::Cbor, limit), &items.concat(), &cuts);
        prop_assert_eq!(got, (want, end));
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus: one hostile stream per file, each with what it must give

/// What a fixture's stream gave, short: `ADDED ns/a@1`, `BOOKMARK 42`, `ERROR 500 reason`,
/// `malformed`, `too-large`, `cut`, `end`.
fn short(result: &Result<Option<WatchEvent>, StreamError>) -> String {
    match result {
        Ok(None) => "end".to_string(),
        Ok(Some(WatchEvent::Added(o))) => format!("ADDED {}@{}", o.key(), o.resource_version()),
        Ok(Some(WatchEvent::Modified(o))) => {
            format!("MODIFIED {}@{}", o.key(), o.resource_version())
        }
        Ok(Some(WatchEvent::Deleted(o))) => format!("DELETED {}@{}", o.key(), o.resource_version()),
        Ok(Some(WatchEvent::Bookmark {
            resource_version,
            initial_events_end,
        })) => format!(
            "BOOKMARK {resource_version}{}",
            if *initial_events_end { " end" } else { "" }
        ),
        Ok(Some(WatchEvent::Error(s))) => format!("ERROR {} {}", s.code, s.reason),
        Err(StreamError::Io(_)) => "cut".to_string(),
        Err(StreamError::Malformed { .. }) => "malformed".to_string(),
        Err(StreamError::TooLarge { .. }) => "too-large".to_string(),
    }
}

/// Each file of `tests/fixtures/hostile-watch/`, the line limit it is read with, and what it
/// gives in order. A bug found by the properties above goes here as a file of its own.
const CORPUS: &[(&str, usize, &[&str])] = &[
    (
        "invalid-utf8-in-a-string.jsonl",
        MAX_EVENT_BYTES,
        &["malformed", "malformed", "ADDED ns/ok@100", "end"],
    ),
    (
        "invalid-utf8-in-the-type.jsonl",
        MAX_EVENT_BYTES,
        &["malformed", "malformed", "ADDED ns/ok@100", "end"],
    ),
    (
        "invalid-utf8-outside-strings.jsonl",
        MAX_EVENT_BYTES,
        &["malformed", "malformed", "ADDED ns/ok@100", "end"],
    ),
    (
        "numbers-where-strings-belong.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/ok@100",
            "end",
        ],
    ),
    // Regression: `[]` and an array of the fields in order were taken for an object.
    (
        "object-not-an-object.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/ok@100",
            "end",
        ],
    ),
    // Regression: metadata as an array was read field by field (`["a","ns","uid","1"]`).
    (
        "metadata-not-an-object.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/ok@100",
            "end",
        ],
    ),
    // Labels are kept as text and read when asked: any JSON there is the object's business.
    (
        "labels-not-a-map.jsonl",
        MAX_EVENT_BYTES,
        &["ADDED ns/l1@2", "ADDED ns/l2@3", "ADDED ns/l3@4", "end"],
    ),
    // Regression: an object event without name or resourceVersion was taken, and the reflector
    // then resumed its watch from resourceVersion "".
    (
        "missing-fields.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/ok@100",
            "end",
        ],
    ),
    // Regression: an ERROR whose object is a ConfigMap was an error 0, and an array of three
    // was taken as 410 Expired.
    (
        "error-event-not-a-status.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "ERROR 500 InternalError",
            "ERROR 410 Expired",
            "end",
        ],
    ),
    // Regression: a BOOKMARK without a resourceVersion moved the reflector's RV to "".
    (
        "bookmark-without-metadata.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "BOOKMARK 42",
            "BOOKMARK 43 end",
            "end",
        ],
    ),
    // Out of range where the decoder reads a number; kept verbatim where it does not.
    (
        "huge-numbers.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "ADDED big@99999999999999999999999999999999",
            "ADDED ns/n@5",
            "end",
        ],
    ),
    (
        "nul-bytes.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/escaped-nul@7",
            "end",
        ],
    ),
    (
        "crlf-line-ends.jsonl",
        MAX_EVENT_BYTES,
        &["ADDED ns/a@1", "MODIFIED ns/a@2", "end"],
    ),
    (
        "empty-and-whitespace-lines.jsonl",
        MAX_EVENT_BYTES,
        &["ADDED ns/a@1", "DELETED ns/a@2", "end"],
    ),
    (
        "ends-mid-line.jsonl",
        MAX_EVENT_BYTES,
        &["ADDED ns/a@1", "cut"],
    ),
    (
        "ends-without-a-newline.jsonl",
        MAX_EVENT_BYTES,
        &["ADDED ns/a@1", "cut"],
    ),
    // Nesting far past serde_json's recursion limit inside an object is kept verbatim: the
    // decoder reads the identity and skips the rest without recursing.
    (
        "deep-nesting-inside-the-object.jsonl",
        MAX_EVENT_BYTES,
        &["ADDED ns/deep@1", "ADDED deep2@2", "ADDED deep3@3", "end"],
    ),
    (
        "deep-nesting-where-strings-belong.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/ok@100",
            "end",
        ],
    ),
    // Regression: an escaped character in the type (`"ADD\u0045D"`) was refused.
    (
        "escaped-strings.jsonl",
        MAX_EVENT_BYTES,
        &["ADDED ns/a@1", "malformed", "malformed", "end"],
    ),
    // Regression: the error quoted a 3000-character type or number whole.
    (
        "long-strings-in-errors.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/ok@100",
            "end",
        ],
    ),
    // Regression: the snippet quoted escape sequences and a bell raw, to the terminal.
    (
        "terminal-escapes.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/ok@100",
            "end",
        ],
    ),
    (
        "duplicate-and-unknown-fields.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "ADDED u@9",
            "malformed",
            "malformed",
            "end",
        ],
    ),
    (
        "trailing-garbage.jsonl",
        MAX_EVENT_BYTES,
        &[
            "malformed",
            "malformed",
            "malformed",
            "ADDED ns/spaced@101",
            "end",
        ],
    ),
    // Read with a limit of 500 bytes: the long line is refused by size and the stream goes on.
    (
        "over-limit-line.jsonl",
        500,
        &["ADDED ns/before@1", "too-large", "ADDED ns/after@3", "end"],
    ),
    (
        "over-limit-line-cut.jsonl",
        500,
        &["ADDED ns/before@1", "too-large", "cut"],
    ),
];

#[test]
fn every_hostile_stream_of_the_corpus_gives_what_it_must_in_any_chunking() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile-watch");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let listed: Vec<String> = {
        let mut l: Vec<String> = CORPUS.iter().map(|(f, ..)| f.to_string()).collect();
        l.sort();
        l
    };
    assert_eq!(
        files, listed,
        "every fixture is listed with its outcome, and only those"
    );
    for (file, limit, want) in CORPUS {
        let data = std::fs::read(dir.join(file)).unwrap();
        // Whole, byte by byte, and in chunks of 7.
        let cuttings: [Vec<usize>; 3] = [
            vec![],
            (1..data.len()).collect(),
            (1..data.len()).step_by(7).collect(),
        ];
        for cuts in cuttings {
            let mut stream = chunked(&data, &cuts, *limit);
            let mut got = Vec::new();
            for _ in 0..data.len() + 2 {
                let result = futures::executor::block_on(stream.next());
                check(&result);
                got.push(short(&result));
                if matches!(result, Ok(None) | Err(StreamError::Io(_))) {
                    break;
                }
            }
            assert_eq!(got, *want, "{file} in {} chunks", cuts.len() + 1);
            assert_eq!(
                drain(chunked(&data, &cuts, *limit), data.len()),
                expected(&data, *limit),
                "{file}"
            );
        }
    }
}

#[test]
fn decoder_errors_name_the_reason_in_one_escaped_line() {
    let cases: &[(&[u8], &str)] = &[
        (
            br#"{"type":"ADDED","object":[]}"#,
            "the object is not a JSON object",
        ),
        (
            br#"{"type":"ADDED","object":{"metadata":["a","ns"]}}"#,
            "metadata as an object",
        ),
        (
            br#"{"type":"ADDED","object":{"metadata":{"name":"a"}}}"#,
            "a ADDED event whose object has no metadata.resourceVersion",
        ),
        (
            br#"{"type":"DELETED","object":{"metadata":{"resourceVersion":"3"}}}"#,
            "a DELETED event whose object has no metadata.name",
        ),
        (
            br#"{"type":"BOOKMARK","object":{"kind":"Pod"}}"#,
            "a BOOKMARK event whose object has no metadata.resourceVersion",
        ),
        (
            br#"{"type":"ERROR","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}"#,
            "an ERROR event whose object is a ConfigMap, not a Status",
        ),
        (
            br#"{"type":"ERROR","object":[410,"Expired","x"]}"#,
            "an ERROR event whose object is not a Status",
        ),
        (b"\x1b[31mred\x07\r", r"\u{1b}[31mred\u{7}"),
    ];
    for (line, needle) in cases {
        let err = decode_event(line).unwrap_err();
        let text = err.to_string();
        assert!(text.contains(needle), "{needle:?} not in {text:?}");
        assert!(!text.chars().any(char::is_control), "{text:?}");
    }
    let long = format!(r#"{{"type":"{}","object":{{}}}}"#, "X".repeat(100_000));
    let text = decode_event(long.as_bytes()).unwrap_err().to_string();
    assert!(
        text.len() < 1000 && text.contains("unknown event type"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------------
// A 100 MB line

/// A watch body made up as it is read: `head`, then `fill` bytes of `x`, then `tail`; counts
/// the bytes consumed. Nothing of it is ever held beyond one 64 KiB chunk.
struct Generated {
    head: Vec<u8>,
    fill: usize,
    tail: Vec<u8>,
    at: usize,
    chunk: Vec<u8>,
    consumed: Arc<AtomicUsize>,
}

impl Generated {
    fn available(&self) -> &[u8] {
        let (head, fill) = (self.head.len(), self.head.len() + self.fill);
        if self.at < head {
            &self.head[self.at..]
        } else if self.at < fill {
            &self.chunk[..(fill - self.at).min(self.chunk.len())]
        } else {
            &self.tail[(self.at - fill).min(self.tail.len())..]
        }
    }
}

impl AsyncRead for Generated {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        let n = self.available().len().min(buf.len());
        buf[..n].copy_from_slice(&self.available()[..n]);
        self.at += n;
        self.consumed.fetch_add(n, Ordering::Relaxed);
        Poll::Ready(Ok(n))
    }
}

impl AsyncBufRead for Generated {
    fn poll_fill_buf(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        Poll::Ready(Ok(self.get_mut().available()))
    }

    fn consume(mut self: Pin<&mut Self>, amt: usize) {
        self.at += amt;
        self.consumed.fetch_add(amt, Ordering::Relaxed);
    }
}

#[test]
fn a_100_mb_line_is_refused_by_size_without_being_read_whole_and_the_stream_goes_on() {
    const CHUNK: usize = 64 << 10;
    let fill = 100_000_000;
    let consumed = Arc::new(AtomicUsize::new(0));
    let after = br#"{"type":"ADDED","object":{"metadata":{"name":"after","namespace":"ns","resourceVersion":"9"}}}"#;
    let reader = Generated {
        head: br#"{"type":"ADDED","object":{"metadata":{"name":"huge","resourceVersion":"8"},"data":{"k":""#
            .to_vec(),
        fill,
        tail: [&b"\"}}}\n"[..], after, b"\n"].concat(),
        at: 0,
        chunk: vec![b'x'; CHUNK],
        consumed: consumed.clone(),
    };
    let total = reader.head.len() + fill + reader.tail.len();
    let mut stream = WatchStream::new(Box::pin(reader));
    let err = futures::executor::block_on(stream.next()).unwrap_err();
    assert!(matches!(err, StreamError::TooLarge { limit } if limit == MAX_EVENT_BYTES));
    assert_eq!(
        err.to_string(),
        "a watch event of more than 64 MiB was refused by size"
    );
    // Reading stopped at the limit: at most one chunk past it, and never more held than the
    // limit and its newline.
    let read = consumed.load(Ordering::Relaxed);
    assert!(
        (MAX_EVENT_BYTES..=MAX_EVENT_BYTES + CHUNK).contains(&read),
        "read {read} bytes"
    );
    assert!(
        stream.buffer_capacity() <= MAX_EVENT_BYTES + 1,
        "held {} bytes",
        stream.buffer_capacity()
    );
    // The rest of the line is skipped unread into memory; the next event comes through, and
    // the big buffer is not kept for it.
    match futures::executor::block_on(stream.next()) {
        Ok(Some(WatchEvent::Added(o))) => assert_eq!(o.key(), "ns/after"),
        other => panic!("unexpected {other:?}"),
    }
    assert!(
        stream.buffer_capacity() <= 1 << 20,
        "{}",
        stream.buffer_capacity()
    );
    assert_eq!(consumed.load(Ordering::Relaxed), total);
    assert!(matches!(
        futures::executor::block_on(stream.next()),
        Ok(None)
    ));
}

#[test]
fn a_line_of_exactly_the_limit_is_taken_and_one_byte_more_is_refused() {
    let line = br#"{"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"}}}"#;
    let data = [&line[..], b"\n"].concat();
    let at_limit = drain(chunked(&data, &[3, 30], line.len()), data.len());
    assert!(at_limit[0].starts_with("ADDED"), "{at_limit:?}");
    let over = drain(chunked(&data, &[3, 30], line.len() - 1), data.len());
    assert_eq!(
        over,
        vec![
            format!(
                "too-large: a watch event of more than {} bytes was refused by size",
                line.len() - 1
            ),
            "end".to_string()
        ]
    );
}
