//! Writes the recording: one JSON object per line (`tail -o json`, `--record`), the `start`
//! notice that heads it, a write's reaction (`tail --react`), and a whole cache as a snapshot
//! (`diff --save-cache`).

use super::{
    BookmarkEvent, EventPrinter, LineType, Missing, Notice, NoticeKind, ObjectEvent, Origin,
    ReactionEvent, StartNotice, Transition, SCHEMA_VERSION,
};
use crate::format::rfc3339_millis;
use crate::informer::listwatch::ListWatch;
use crate::informer::object::split_key;
use crate::informer::store::Store;
use crate::informer::transition::{EventType, ReflectorEvent};
use crate::output::transition;
use crate::react::{Covers, Fate};
use serde::ser::{Error as _, SerializeMap};
use serde::Serialize;
use serde_json::value::RawValue;
use std::io::Write;
use std::time::SystemTime;

/// Writes every record, notices included, as one JSON object per line.
pub struct JsonPrinter<W: Write> {
    out: W,
}

impl<W: Write> JsonPrinter<W> {
    pub fn new(out: W) -> Self {
        JsonPrinter { out }
    }

    fn line(&mut self, value: &impl Serialize) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.out, value)?;
        self.out.write_all(b"\n")
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ObjectLine<'a> {
    #[serde(rename = "type")]
    event_type: LineType,
    resource_version: &'a str,
    resource: &'a str,
    kind: &'a str,
    api_version: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    uid: &'a str,
    time: String,
    origin: Origin,
    /// With `tail --follow-owned`: the owners it is followed through, the named object first.
    #[serde(skip_serializing_if = "Option::is_none")]
    owner_chain: Option<&'a [String]>,
    /// With `--diff`, on MODIFIED: the JSON Patch from the previous version to this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    patch: Option<json_patch::Patch>,
    object: &'a RawValue,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BookmarkLine<'a> {
    #[serde(rename = "type")]
    event_type: LineType,
    resource_version: &'a str,
    resource: &'a str,
    initial_events_end: bool,
    time: String,
}

#[derive(Serialize)]
struct StartLine<'a> {
    #[serde(rename = "type")]
    event_type: LineType,
    time: String,
    notice: NoticeKind,
    #[serde(flatten)]
    start: &'a StartNotice,
}

#[derive(Serialize)]
struct NotFoundLine<'a> {
    #[serde(rename = "type")]
    event_type: LineType,
    time: String,
    resource: &'a str,
    notice: NoticeKind,
    missing: &'static str,
    namespace: Option<&'a str>,
    name: Option<&'a str>,
}

/// A REACTION line: the written object, the write (its generation, resourceVersion and the
/// arrival of the event that showed it), what became of it, and the event that showed the
/// reaction (null when none did).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReactionLine<'a> {
    #[serde(rename = "type")]
    event_type: LineType,
    time: String,
    resource: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    uid: &'a str,
    generation: i64,
    write_resource_version: String,
    write_time: String,
    react: String,
    reaction_timeout_seconds: f64,
    outcome: Outcome,
    latency_seconds: Option<f64>,
    superseded_by: Option<i64>,
    reaction_resource: Option<&'a str>,
    reaction_name: Option<&'a str>,
    reaction_resource_version: Option<String>,
    observed_generation: Option<i64>,
}

/// A REACTION line's `outcome`.
#[derive(Serialize)]
#[serde(rename_all = "kebab-case")]
enum Outcome {
    Reacted,
    Superseded,
    TimedOut,
    Deleted,
}

impl<'a> ReactionLine<'a> {
    fn of(e: &'a ReactionEvent<'a>) -> Self {
        let write = &e.resolved.write;
        let (namespace, name) = split_key(&write.key);
        let (outcome, latency, superseded_by) = match &e.resolved.fate {
            Fate::Reacted { took, .. } => (Outcome::Reacted, Some(took.as_secs_f64()), None),
            Fate::Superseded { newer, .. } => (Outcome::Superseded, None, Some(*newer)),
            Fate::TimedOut => (Outcome::TimedOut, None, None),
            Fate::Deleted => (Outcome::Deleted, None, None),
        };
        let signal = e.resolved.fate.signal();
        ReactionLine {
            event_type: LineType::Reaction,
            time: rfc3339_millis(e.at),
            resource: &e.watch.resource,
            namespace: Some(namespace).filter(|ns| !ns.is_empty()),
            name,
            uid: e.uid,
            generation: write.generation,
            write_resource_version: write.resource_version.to_string(),
            write_time: rfc3339_millis(write.sent),
            react: e.reaction.to_string(),
            reaction_timeout_seconds: e.timeout.as_secs_f64(),
            outcome,
            latency_seconds: latency,
            superseded_by,
            reaction_resource: e.shown_by.map(|w| w.resource.as_str()),
            reaction_name: signal.map(|s| s.owned.as_deref().unwrap_or(name)),
            reaction_resource_version: signal.map(|s| s.resource_version.to_string()),
            observed_generation: signal.and_then(|s| match s.covers {
                Covers::Generation(g) => Some(g),
                Covers::OlderThan(_) => None,
            }),
        }
    }
}

/// A transition's notice line: `type`, `time`, `resource`, `notice` (its kebab-case name), then
/// its fields in camelCase, waits in seconds.
struct TransitionLine<'a> {
    time: String,
    resource: &'a str,
    transition: Transition<'a>,
}

impl Serialize for TransitionLine<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut m = serializer.serialize_map(None)?;
        m.serialize_entry("type", &LineType::Notice)?;
        m.serialize_entry("time", &self.time)?;
        m.serialize_entry("resource", self.resource)?;
        match self.transition.event() {
            ReflectorEvent::ListComplete {
                resource_version,
                objects,
                pages,
                relist,
            } => {
                m.serialize_entry("notice", &NoticeKind::ListComplete)?;
                m.serialize_entry("resourceVersion", resource_version)?;
                m.serialize_entry("objects", objects)?;
                m.serialize_entry("pages", pages)?;
                m.serialize_entry("relist", relist)?;
            }
            ReflectorEvent::Fallback { reason } => {
                m.serialize_entry("notice", &NoticeKind::Fallback)?;
                m.serialize_entry("reason", &transition::fallback_reason(reason))?;
            }
            ReflectorEvent::ListRestarted { reason, objects } => {
                m.serialize_entry("notice", &NoticeKind::ListRestarted)?;
                m.serialize_entry("reason", &transition::restart_reason(reason))?;
                m.serialize_entry("objects", objects)?;
            }
            ReflectorEvent::WatchOpened { resource_version } => {
                m.serialize_entry("notice", &NoticeKind::WatchOpened)?;
                m.serialize_entry("resourceVersion", resource_version)?;
            }
            ReflectorEvent::WatchClosed {
                resource_version,
                reason,
                retry_in,
            } => {
                m.serialize_entry("notice", &NoticeKind::WatchClosed)?;
                m.serialize_entry("resourceVersion", resource_version)?;
                m.serialize_entry("reason", &reason.to_string())?;
                m.serialize_entry("retryInSeconds", &retry_in.map(|d| d.as_secs_f64()))?;
            }
            ReflectorEvent::WatchFailed {
                resource_version,
                error,
                retry_in,
            } => {
                m.serialize_entry("notice", &NoticeKind::WatchFailed)?;
                m.serialize_entry("resourceVersion", resource_version)?;
                m.serialize_entry("error", &transition::watch_failure(resource_version, error))?;
                m.serialize_entry("retryInSeconds", &retry_in.as_secs_f64())?;
            }
            ReflectorEvent::ListFailed { error, retry_in } => {
                m.serialize_entry("notice", &NoticeKind::ListFailed)?;
                m.serialize_entry("error", error)?;
                m.serialize_entry("retryInSeconds", &retry_in.as_secs_f64())?;
            }
            ReflectorEvent::Expired {
                resource_version,
                message,
                oldest_resource_version,
            } => {
                m.serialize_entry("notice", &NoticeKind::Expired)?;
                m.serialize_entry("resourceVersion", resource_version)?;
                m.serialize_entry("message", message)?;
                m.serialize_entry("oldestResourceVersion", oldest_resource_version)?;
            }
            ReflectorEvent::WentBack { newest, served, on } => {
                went_back(&mut m, newest, served, on)?
            }
            ReflectorEvent::Listed { .. }
            | ReflectorEvent::Watched { .. }
            | ReflectorEvent::Bookmark { .. } => {
                return Err(S::Error::custom(
                    "an object event or bookmark is not a notice",
                ))
            }
        }
        m.end()
    }
}

/// A `went-back` notice's fields.
fn went_back<M: serde::ser::SerializeMap>(
    m: &mut M,
    newest: &str,
    served: &str,
    on: &crate::informer::transition::BackOn,
) -> Result<(), M::Error> {
    use crate::informer::transition::BackOn;
    m.serialize_entry("notice", &NoticeKind::WentBack)?;
    m.serialize_entry("resourceVersion", served)?;
    m.serialize_entry("newestResourceVersion", newest)?;
    let (request, from) = match on {
        BackOn::List => ("list", None),
        BackOn::Watch { from } => ("watch", Some(from)),
    };
    m.serialize_entry("request", request)?;
    m.serialize_entry("fromResourceVersion", &from)
}

impl<W: Write> EventPrinter for JsonPrinter<W> {
    fn object(&mut self, e: &ObjectEvent<'_>) -> std::io::Result<()> {
        let o = e.object;
        // Always present: an object without them (never one from the API server) gets the
        // watch's.
        fn or_watch<'s>(own: &'s str, watch: &'s str) -> &'s str {
            if own.is_empty() {
                watch
            } else {
                own
            }
        }
        self.line(&ObjectLine {
            event_type: e.event_type.into(),
            resource_version: o.resource_version(),
            resource: &e.watch.resource,
            kind: or_watch(o.kind(), &e.watch.kind),
            api_version: or_watch(o.api_version(), &e.watch.api_version),
            namespace: o.namespace(),
            name: o.name(),
            uid: o.uid(),
            time: rfc3339_millis(e.received_at),
            origin: e.origin,
            owner_chain: e.owners,
            patch: e.diff.map(|d| d.patch()),
            object: o.raw().ok_or_else(|| {
                std::io::Error::other("an object received in protobuf cannot be recorded as JSON")
            })?,
        })
    }

    fn bookmark(&mut self, e: &BookmarkEvent<'_>) -> std::io::Result<()> {
        self.line(&BookmarkLine {
            event_type: LineType::Bookmark,
            resource_version: e.resource_version,
            resource: &e.watch.resource,
            initial_events_end: e.initial_events_end,
            time: rfc3339_millis(e.received_at),
        })
    }

    fn notice(&mut self, notice: Notice<'_>, at: SystemTime) -> std::io::Result<()> {
        let time = rfc3339_millis(at);
        match notice {
            Notice::Start(start) => self.line(&StartLine {
                event_type: LineType::Notice,
                time,
                notice: NoticeKind::Start,
                start,
            }),
            Notice::Transition { watch, transition } => self.line(&TransitionLine {
                time,
                resource: &watch.resource,
                transition,
            }),
            Notice::NotFound { watch, missing } => self.line(&NotFoundLine {
                event_type: LineType::Notice,
                time,
                resource: &watch.resource,
                notice: NoticeKind::NotFound,
                missing: match missing {
                    Missing::Namespace => "namespace",
                    Missing::Object { .. } => "object",
                },
                namespace: watch.namespace.as_deref(),
                name: match missing {
                    Missing::Namespace => None,
                    Missing::Object { name } => Some(name),
                },
            }),
        }
    }

    fn reaction(&mut self, e: &ReactionEvent<'_>) -> std::io::Result<()> {
        self.line(&ReactionLine::of(e))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The `start` notice that heads a recording of `lw`.
pub fn start_notice(lw: &ListWatch) -> StartNotice {
    StartNotice {
        schema_version: SCHEMA_VERSION,
        resource: lw.resource.qualified_name(),
        api_version: lw.resource.api_version(),
        kind: lw.resource.kind.clone(),
        namespace: lw.namespace.clone(),
        label_selector: lw.label_selector.clone(),
        field_selector: lw.field_selector.clone(),
        metadata_only: lw.metadata_only,
        server: lw.cluster.server.clone(),
    }
}

/// Writes `store` as a recording: `start`, one `ADDED` per object, then `list-complete` at the
/// synced RV. `diff --cache-file` reads it back. With `redact` (Secrets), values are replaced by
/// their length, as tail records them.
pub fn snapshot(
    store: &Store,
    start: &StartNotice,
    redact: bool,
    out: impl Write,
) -> std::io::Result<()> {
    let mut printer = JsonPrinter::new(out);
    let now = SystemTime::now();
    printer.notice(Notice::Start(start), now)?;
    for object in store.list() {
        let redacted;
        let object = if redact {
            redacted = object.redacted().map_err(std::io::Error::other)?;
            &redacted
        } else {
            object
        };
        printer.object(&ObjectEvent {
            watch: start,
            event_type: EventType::Added,
            origin: Origin::Initial,
            object,
            received_at: now,
            changes: None,
            owners: None,
            diff: None,
        })?;
    }
    let complete = ReflectorEvent::ListComplete {
        resource_version: store.resource_version().to_string(),
        objects: store.len(),
        pages: 0,
        relist: false,
    };
    if let Some(transition) = Transition::of(&complete) {
        printer.notice(
            Notice::Transition {
                watch: start,
                transition,
            },
            now,
        )?;
    }
    printer.flush()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::informer::object::RawObject;

    /// The start of a watch of ConfigMaps in all namespaces.
    pub(crate) fn configmaps() -> StartNotice {
        StartNotice {
            schema_version: SCHEMA_VERSION,
            resource: "configmaps".into(),
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: None,
            label_selector: None,
            field_selector: None,
            metadata_only: false,
            server: "https://127.0.0.1:6443".into(),
        }
    }

    #[test]
    fn object_bookmark_and_notice_lines_follow_the_schema() {
        let raw = RawValue::from_string(
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"12"}}"#.into(),
        )
        .unwrap();
        let object = RawObject::parse(raw, None).unwrap();
        let at = SystemTime::UNIX_EPOCH;
        let watch = configmaps();
        let mut buf = Vec::new();
        let mut p = JsonPrinter::new(&mut buf);
        p.object(&ObjectEvent {
            watch: &watch,
            event_type: EventType::Added,
            origin: Origin::Initial,
            object: &object,
            received_at: at,
            changes: None,
            owners: None,
            diff: None,
        })
        .unwrap();
        p.bookmark(&BookmarkEvent {
            watch: &watch,
            resource_version: "13",
            initial_events_end: true,
            received_at: at,
        })
        .unwrap();
        let expired = ReflectorEvent::Expired {
            resource_version: "5".into(),
            message: "too old resource version: 5 (9)".into(),
            oldest_resource_version: Some("9".into()),
        };
        let transition = Transition::of(&expired).unwrap();
        p.notice(
            Notice::Transition {
                watch: &watch,
                transition,
            },
            at,
        )
        .unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(buf)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["type"], "ADDED");
        assert_eq!(lines[0]["resourceVersion"], "12");
        assert_eq!(lines[0]["namespace"], "ns");
        assert_eq!(lines[0]["uid"], "u1");
        assert_eq!(lines[0]["origin"], "initial");
        assert_eq!(lines[0]["resource"], "configmaps");
        assert_eq!(lines[0]["apiVersion"], "v1");
        assert_eq!(lines[0]["time"], "1970-01-01T00:00:00.000Z");
        assert_eq!(lines[0]["object"]["metadata"]["name"], "a");
        assert_eq!(lines[1]["type"], "BOOKMARK");
        assert_eq!(lines[1]["initialEventsEnd"], true);
        assert_eq!(lines[1]["resource"], "configmaps");
        assert_eq!(lines[2]["type"], "NOTICE");
        assert_eq!(lines[2]["notice"], "expired");
        assert_eq!(lines[2]["resourceVersion"], "5");
        assert_eq!(lines[2]["oldestResourceVersion"], "9");
        assert_eq!(lines[2]["resource"], "configmaps");
    }

    #[test]
    fn snapshot_is_a_recording_with_the_synced_rv() {
        use crate::informer::store::tests::cm;
        let mut s = Store::new();
        s.upsert(cm("a", "y", 2, &[]));
        s.upsert(cm("a", "x", 1, &[]));
        s.set_resource_version("9");
        let start = configmaps();
        let mut out = Vec::new();
        snapshot(&s, &start, false, &mut out).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1]["name"], "x");
        assert_eq!(lines[2]["name"], "y");
        assert_eq!(lines[3]["notice"], "list-complete");
        assert_eq!(lines[3]["resourceVersion"], "9");
    }
}
