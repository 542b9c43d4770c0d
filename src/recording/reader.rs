//! Reads a recording (tail's JSON Lines, or a `diff --save-cache` snapshot): line by line (what
//! `bench --from-file` replays), or back into a Store, where the last event per key wins, DELETED
//! removes, and bookmarks and list-complete notices set the RV.

use super::{LineType, NoticeKind, OLDEST_READ_VERSION, SCHEMA_VERSION};
use crate::informer::object::RawObject;
use crate::informer::store::Store;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::io::BufRead;
use std::time::SystemTime;

/// What a recording held.
#[derive(Debug, Default)]
pub struct Recording {
    /// The `resource` of each `start` notice, once each, in order: one for a recording of one
    /// resource, none without a `start` notice (see [`one_resource`]).
    pub resources: Vec<String>,
    /// What its `start` notice says was recorded, when it has one.
    pub scope: Option<Scope>,
    /// Whether it holds a complete LIST (a `list-complete` line): a whole cache, not only the
    /// changes after some RV.
    pub listed: bool,
    /// The cache as of the recording's end.
    pub store: Store,
    /// Object events read.
    pub events: usize,
}

/// The namespace, selectors and form a recording was made with (its `start` notice).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// `None`: all namespaces (or a cluster-scoped resource).
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub metadata_only: bool,
}

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: LineType,
    #[serde(default)]
    notice: Option<NoticeKind>,
    #[serde(default)]
    resource: Option<String>,
    #[serde(default, rename = "resourceVersion")]
    resource_version: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    time: Option<String>,
    #[serde(default)]
    object: Option<Box<RawValue>>,
    #[serde(default, rename = "labelSelector")]
    label_selector: Option<String>,
    #[serde(default, rename = "fieldSelector")]
    field_selector: Option<String>,
    #[serde(default, rename = "metadataOnly")]
    metadata_only: bool,
    /// `start`: the schema version the recording was written in.
    #[serde(default, rename = "schemaVersion")]
    schema_version: Option<u64>,
    /// `list-complete`: how many objects the LIST had.
    #[serde(default)]
    objects: Option<u64>,
}

/// One line of a recording that matters to a reader.
#[derive(Debug)]
pub enum RecordLine {
    /// The `start` notice: the resource recorded, and how.
    Start {
        resource: Option<String>,
        scope: Scope,
    },
    /// A bookmark or the end of a LIST: the cache is synced to this RV.
    Synced {
        resource_version: String,
        /// For the end of a LIST: how many objects it had.
        list_complete: Option<u64>,
    },
    /// ADDED or MODIFIED.
    Upsert {
        object: RawObject,
        modified: bool,
        time: Option<SystemTime>,
    },
    Deleted {
        namespace: Option<String>,
        name: String,
        resource_version: Option<String>,
        /// The object's last state, when the line has it.
        object: Option<RawObject>,
        time: Option<SystemTime>,
    },
    /// Anything else (other notices).
    Other,
}

/// Parses line `number` (1-based, for messages) of a recording.
pub fn parse_line(line: &str, number: usize) -> Result<RecordLine, String> {
    let parsed: Line = serde_json::from_str(line)
        .map_err(|e| format!("line {number} is not a recording line ({e})"))?;
    let time = parsed
        .time
        .as_deref()
        .and_then(|t| humantime::parse_rfc3339_weak(t).ok());
    let object = |raw: Box<RawValue>| {
        RawObject::parse(raw, None)
            .map_err(|e| format!("line {number}: the object cannot be read ({e})"))
    };
    Ok(match (parsed.kind, parsed.notice) {
        (LineType::Notice, Some(NoticeKind::Start)) => start(parsed, number)?,
        (LineType::Bookmark, _) | (LineType::Notice, Some(NoticeKind::ListComplete)) => {
            match parsed.resource_version {
                Some(resource_version) => RecordLine::Synced {
                    resource_version,
                    list_complete: (parsed.kind == LineType::Notice)
                        .then_some(parsed.objects.unwrap_or(0)),
                },
                None => RecordLine::Other,
            }
        }
        (kind @ (LineType::Added | LineType::Modified), _) => {
            let raw = parsed
                .object
                .ok_or_else(|| format!("line {number}: an object event without an object"))?;
            RecordLine::Upsert {
                object: object(raw)?,
                modified: kind == LineType::Modified,
                time,
            }
        }
        (LineType::Deleted, _) => {
            let name = parsed
                .name
                .ok_or_else(|| format!("line {number}: a DELETED event without a name"))?;
            RecordLine::Deleted {
                namespace: parsed.namespace,
                name,
                resource_version: parsed.resource_version,
                object: parsed.object.map(object).transpose()?,
                time,
            }
        }
        // The reader needs nothing from the other notices, nor from a write's reaction (`tail
        // --react`), nor from a line it does not know.
        (
            LineType::Notice,
            None
            | Some(
                NoticeKind::NotFound
                | NoticeKind::Fallback
                | NoticeKind::ListRestarted
                | NoticeKind::WatchOpened
                | NoticeKind::WatchClosed
                | NoticeKind::WatchFailed
                | NoticeKind::ListFailed
                | NoticeKind::Expired
                | NoticeKind::WentBack
                | NoticeKind::Unknown,
            ),
        )
        | (LineType::Reaction | LineType::Unknown, _) => RecordLine::Other,
    })
}

/// A start line: what is watched; a schema version this reader does not take is refused.
fn start(parsed: Line, number: usize) -> Result<RecordLine, String> {
    if let Some(v) = parsed
        .schema_version
        .filter(|v| !(u64::from(OLDEST_READ_VERSION)..=u64::from(SCHEMA_VERSION)).contains(v))
    {
        return Err(format!(
            "line {number}: a recording of schema version {v}, which this \
             kubectl-informer does not read ({OLDEST_READ_VERSION} to \
             {SCHEMA_VERSION}): record it again with this version's `tail -o json`"
        ));
    }
    Ok(RecordLine::Start {
        resource: parsed.resource,
        scope: Scope {
            namespace: parsed.namespace,
            label_selector: parsed.label_selector,
            field_selector: parsed.field_selector,
            metadata_only: parsed.metadata_only,
        },
    })
}

/// The lines of a recording, parsed, each with its number (1-based); blank lines are skipped.
/// An unreadable line is an error naming its number.
pub fn lines(input: impl BufRead) -> impl Iterator<Item = Result<(usize, RecordLine), String>> {
    input
        .lines()
        .enumerate()
        .filter_map(|(n, line)| match line {
            Ok(line) if line.trim().is_empty() => None,
            Ok(line) => Some(parse_line(&line, n + 1).map(|parsed| (n + 1, parsed))),
            Err(e) => Some(Err(format!("cannot read line {}: {e}", n + 1))),
        })
}

/// Adds `resource` (a `start` notice's) to the resources a recording holds, once.
pub fn note_resource(resources: &mut Vec<String>, resource: Option<String>) {
    if let Some(r) = resource.filter(|r| !resources.contains(r)) {
        resources.push(r);
    }
}

/// The one resource a recording holds (`None` when it has no `start` notice). A recording of
/// several resources (`tail deploy,rs,pods --record FILE`) is refused: replaying or comparing
/// it means one resource, and an object's key is only unique within its resource.
pub fn one_resource(resources: &[String]) -> Result<Option<&str>, String> {
    match resources {
        [] => Ok(None),
        [one] => Ok(Some(one)),
        several => Err(format!(
            "holds {} resources ({}): record one resource per file (`tail RESOURCE --record \
             FILE`) to replay or compare it",
            several.len(),
            several.join(", ")
        )),
    }
}

/// Reads a recording into a Store; an unreadable line is an error naming its number.
pub fn read(input: impl BufRead) -> Result<Recording, String> {
    let mut rec = Recording::default();
    let mut first_list: Option<u64> = None;
    for line in lines(input) {
        match line?.1 {
            RecordLine::Start { resource, scope } => {
                note_resource(&mut rec.resources, resource);
                rec.scope = Some(scope);
            }
            RecordLine::Synced {
                resource_version,
                list_complete,
            } => {
                // The first LIST is whole when its objects were recorded, not only counted
                // (`tail --initial none` prints the end of a LIST it does not show).
                if let (Some(objects), None) = (list_complete, first_list) {
                    first_list = Some(objects);
                    rec.listed = objects as usize <= rec.events;
                }
                rec.store.set_resource_version(&resource_version)
            }
            RecordLine::Upsert { object, .. } => {
                rec.store.set_resource_version(object.resource_version());
                rec.store.upsert(object);
                rec.events += 1;
            }
            RecordLine::Deleted {
                namespace,
                name,
                resource_version,
                ..
            } => {
                rec.store
                    .remove_in(namespace.as_deref().unwrap_or(""), &name);
                if let Some(rv) = resource_version {
                    rec.store.set_resource_version(&rv);
                }
                rec.events += 1;
            }
            RecordLine::Other => {}
        }
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (The MODIFIED carries the `patch` of `tail --diff`, which reading ignores.)
    #[test]
    fn last_event_per_key_wins_and_deleted_removes() {
        let text = r#"{"type":"NOTICE","notice":"start","resource":"configmaps"}
{"type":"ADDED","resourceVersion":"1","namespace":"n","name":"a","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}}
{"type":"ADDED","resourceVersion":"2","namespace":"n","name":"b","object":{"metadata":{"name":"b","namespace":"n","resourceVersion":"2"}}}
{"type":"NOTICE","notice":"list-complete","resourceVersion":"2"}
{"type":"MODIFIED","resourceVersion":"3","namespace":"n","name":"a","patch":[{"op":"add","path":"/data","value":{"k":"v"}}],"object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"3"}}}
{"type":"DELETED","resourceVersion":"4","namespace":"n","name":"b","object":{"metadata":{"name":"b","namespace":"n","resourceVersion":"4"}}}
{"type":"BOOKMARK","resourceVersion":"9","initialEventsEnd":false}
"#;
        let rec = read(text.as_bytes()).unwrap();
        assert_eq!(rec.resources, ["configmaps"]);
        assert_eq!(rec.events, 4);
        assert_eq!(rec.store.keys(), vec!["n/a"]);
        assert_eq!(rec.store.get("n/a").unwrap().resource_version(), "3");
        assert_eq!(rec.store.resource_version(), "9");
    }

    #[test]
    fn a_recording_of_schema_version_1_is_read() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/recording-v1.jsonl"
        );
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.starts_with(r#"{"type":"NOTICE","time":"#), "{text}");
        assert!(text
            .lines()
            .next()
            .unwrap()
            .contains(r#""schemaVersion":1,"#));
        let rec = read(text.as_bytes()).unwrap();
        assert_eq!(rec.resources, ["configmaps"]);
        assert!(rec.listed);
        assert_eq!(rec.scope.unwrap().namespace.as_deref(), Some("fixture-v1"));
        assert_eq!(
            rec.store.keys(),
            vec!["fixture-v1/app-1", "fixture-v1/app-3", "fixture-v1/app-4"]
        );
        assert_eq!(rec.store.resource_version(), "266");
        assert_eq!(rec.events, 6);
    }

    #[test]
    fn a_recording_of_an_unknown_schema_version_is_refused_with_what_to_do() {
        for v in [0, SCHEMA_VERSION + 1] {
            let text =
                format!("{{\"type\":\"NOTICE\",\"notice\":\"start\",\"schemaVersion\":{v}}}\n");
            let err = read(text.as_bytes()).unwrap_err();
            assert!(
                err.starts_with(&format!("line 1: a recording of schema version {v}")),
                "{err}"
            );
            assert!(err.contains("record it again"), "{err}");
        }
        let current = format!(
            "{{\"type\":\"NOTICE\",\"notice\":\"start\",\"schemaVersion\":{SCHEMA_VERSION}}}\n"
        );
        assert!(read(current.as_bytes()).is_ok());
    }

    #[test]
    fn a_recording_of_several_resources_names_them_and_one_resource_is_read() {
        let start = |r: &str| {
            format!("{{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"{r}\"}}\n")
        };
        let text = [start("pods"), start("pods"), start("deployments.apps")].concat();
        let rec = read(text.as_bytes()).unwrap();
        assert_eq!(rec.resources, ["pods", "deployments.apps"]);
        assert_eq!(
            one_resource(&rec.resources).unwrap_err(),
            "holds 2 resources (pods, deployments.apps): record one resource per file (`tail \
             RESOURCE --record FILE`) to replay or compare it"
        );
        assert_eq!(one_resource(&rec.resources[..1]), Ok(Some("pods")));
        assert_eq!(one_resource(&[]), Ok(None));
    }

    #[test]
    fn lines_and_notices_of_kinds_a_newer_writer_adds_are_skipped() {
        for line in [
            r#"{"type":"NOTICE","notice":"resync","resourceVersion":"5"}"#,
            r#"{"type":"ERROR","resourceVersion":"5"}"#,
            r#"{"type":"NOTICE","resourceVersion":"5"}"#,
        ] {
            assert!(
                matches!(parse_line(line, 1), Ok(RecordLine::Other)),
                "{line}"
            );
        }
        // What the writer writes, the reader reads back as the same kind.
        for kind in [
            NoticeKind::Start,
            NoticeKind::ListComplete,
            NoticeKind::Expired,
            NoticeKind::WentBack,
        ] {
            let text = serde_json::to_string(&kind).unwrap();
            assert_eq!(serde_json::from_str::<NoticeKind>(&text).unwrap(), kind);
        }
    }

    #[test]
    fn a_bad_line_is_named() {
        let err = read("{\"type\":\"ADDED\"}\nnot json\n".as_bytes()).unwrap_err();
        assert!(err.contains("line 1"), "{err}");
        let err = read("not json\n".as_bytes()).unwrap_err();
        assert!(err.contains("line 1 is not a recording line"), "{err}");
    }
}
