//! JSON Lines: one record per line, the recording format that other commands read back.

use super::{rfc3339_millis, BookmarkEvent, EventPrinter, Notice, ObjectEvent, Origin};
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
    event_type: &'a str,
    resource_version: &'a str,
    kind: &'a str,
    namespace: Option<&'a str>,
    name: &'a str,
    uid: &'a str,
    time: String,
    origin: Origin,
    object: &'a RawValue,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BookmarkLine<'a> {
    #[serde(rename = "type")]
    event_type: &'static str,
    resource_version: &'a str,
    initial_events_end: bool,
    time: String,
}

#[derive(Serialize)]
struct NoticeLine<'a> {
    #[serde(rename = "type")]
    event_type: &'static str,
    time: String,
    #[serde(flatten)]
    notice: &'a Notice,
}

impl<W: Write> EventPrinter for JsonPrinter<W> {
    fn object(&mut self, e: &ObjectEvent<'_>) -> std::io::Result<()> {
        let o = e.object;
        self.line(&ObjectLine {
            event_type: e.event_type,
            resource_version: o.resource_version(),
            kind: o.kind(),
            namespace: o.namespace(),
            name: o.name(),
            uid: o.uid(),
            time: rfc3339_millis(e.received_at),
            origin: e.origin,
            object: o.raw(),
        })
    }

    fn bookmark(&mut self, e: &BookmarkEvent<'_>) -> std::io::Result<()> {
        self.line(&BookmarkLine {
            event_type: "BOOKMARK",
            resource_version: e.resource_version,
            initial_events_end: e.initial_events_end,
            time: rfc3339_millis(e.received_at),
        })
    }

    fn notice(&mut self, notice: &Notice, at: SystemTime) -> std::io::Result<()> {
        self.line(&NoticeLine {
            event_type: "NOTICE",
            time: rfc3339_millis(at),
            notice,
        })
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::object::RawObject;

    #[test]
    fn object_bookmark_and_notice_lines_follow_the_schema() {
        let raw = RawValue::from_string(
            r#"{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"12"}}"#.into(),
        )
        .unwrap();
        let object = RawObject::parse(raw, None).unwrap();
        let at = SystemTime::UNIX_EPOCH;
        let mut buf = Vec::new();
        let mut p = JsonPrinter::new(&mut buf);
        p.object(&ObjectEvent {
            event_type: "ADDED",
            origin: Origin::Initial,
            object: &object,
            received_at: at,
            changes: None,
        })
        .unwrap();
        p.bookmark(&BookmarkEvent {
            resource_version: "13",
            initial_events_end: true,
            received_at: at,
        })
        .unwrap();
        p.notice(
            &Notice::Expired {
                resource_version: "5".into(),
                message: "too old".into(),
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
        assert_eq!(lines[0]["time"], "1970-01-01T00:00:00.000Z");
        assert_eq!(lines[0]["object"]["metadata"]["name"], "a");
        assert_eq!(lines[1]["type"], "BOOKMARK");
        assert_eq!(lines[1]["initialEventsEnd"], true);
        assert_eq!(lines[2]["type"], "NOTICE");
        assert_eq!(lines[2]["notice"], "expired");
        assert_eq!(lines[2]["resourceVersion"], "5");
    }
}
