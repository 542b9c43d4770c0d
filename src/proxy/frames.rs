//! A watch body cut into its events by the cluster's framer, whatever the encoding the server
//! chose, so that faults hold, delay or drop whole events; what each event is; and the one event
//! the proxy writes itself, a 410 ERROR, in each encoding.

use crate::cluster::{protobuf, Encoding, Framer};
use crate::informer::listwatch::{decode_framed, WatchEvent};
use crate::informer::object::Keep;
use bytes::Bytes;

/// What a fault needs to know of one event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventInfo {
    pub bookmark: bool,
    pub initial_events_end: bool,
    /// The object's resourceVersion (a bookmark's too); `None` for an ERROR or what did not
    /// decode.
    pub resource_version: Option<String>,
    /// For an object's event: what happened to it, and its key (`NAMESPACE/NAME`, or `NAME`).
    pub change: Option<(Change, String)>,
}

/// What an object's event says happened to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Modified,
    Deleted,
}

impl Change {
    /// The event's type, as the wire writes it.
    pub fn name(self) -> &'static str {
        match self {
            Change::Added => "ADDED",
            Change::Modified => "MODIFIED",
            Change::Deleted => "DELETED",
        }
    }
}

/// Cuts a body into whole events as its chunks come, every byte of it passed on as it came
/// (blank lines too) and none refused by size: the client's own limit judges an event.
pub struct Splitter {
    framer: Framer,
}

impl Splitter {
    pub fn new(encoding: Encoding) -> Self {
        Splitter {
            framer: Framer::new(encoding, usize::MAX).with_blank_lines(),
        }
    }

    /// Takes `chunk` and returns the events it completed, each whole (a line with its newline,
    /// a frame with its length). A CBOR sequence the framer cannot cut is not passed on past
    /// where it went wrong.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Bytes> {
        let mut out = Vec::new();
        self.framer.cut(chunk, |cut| {
            if let Ok(event) = cut {
                out.push(Bytes::copy_from_slice(event));
            }
        });
        out
    }

    /// What `event` (as [`Splitter::push`] returned it) is; an event that does not decode is
    /// described as nothing in particular, and passed on as it came.
    pub fn info(&self, event: &[u8]) -> EventInfo {
        match decode_framed(event, self.framer.encoding(), Keep::Whole) {
            Ok(WatchEvent::Bookmark {
                resource_version,
                initial_events_end,
            }) => EventInfo {
                bookmark: true,
                initial_events_end,
                resource_version: Some(resource_version),
                change: None,
            },
            Ok(WatchEvent::Added(object)) => EventInfo {
                resource_version: Some(object.resource_version().to_string()),
                change: Some((Change::Added, object.key())),
                ..EventInfo::default()
            },
            Ok(WatchEvent::Modified(object)) => EventInfo {
                resource_version: Some(object.resource_version().to_string()),
                change: Some((Change::Modified, object.key())),
                ..EventInfo::default()
            },
            Ok(WatchEvent::Deleted(object)) => EventInfo {
                resource_version: Some(object.resource_version().to_string()),
                change: Some((Change::Deleted, object.key())),
                ..EventInfo::default()
            },
            Ok(WatchEvent::Error(_)) | Err(_) => EventInfo::default(),
        }
    }
}

/// `event` (as [`Splitter::push`] returned it) with its type made `change`, the same object: what
/// a coalesced watch sends in place of several events. `None` for CBOR, whose events this does
/// not write, and for what does not decode.
pub fn retyped(encoding: Encoding, event: &[u8], change: Change) -> Option<Bytes> {
    match encoding {
        Encoding::Json => {
            #[derive(serde::Deserialize)]
            struct Line<'a> {
                #[serde(borrow)]
                object: &'a serde_json::value::RawValue,
            }
            let line: Line = serde_json::from_slice(event).ok()?;
            Some(Bytes::from(format!(
                "{{\"type\":\"{}\",\"object\":{}}}\n",
                change.name(),
                line.object.get()
            )))
        }
        Encoding::Protobuf => {
            let message = protobuf::watch_event(event.get(4..)?).ok()?;
            Some(Bytes::from(protobuf::encode::frame(
                change.name(),
                message.object,
            )))
        }
        Encoding::Cbor => None,
    }
}

/// The ERROR event kube-apiserver sends when a watch starts from a resourceVersion its history
/// no longer holds: a `Status` 410 Expired, in `encoding` (`None` for CBOR, which this does not
/// write: the answer is then the HTTP status itself).
pub fn expired_event(encoding: Encoding, resource_version: &str) -> Option<Bytes> {
    let message = format!(
        "too old resource version: {resource_version} (kubectl-informer proxy, fault gone)"
    );
    match encoding {
        Encoding::Json => {
            let event = serde_json::json!({
                "type": "ERROR",
                "object": {
                    "kind": "Status", "apiVersion": "v1", "metadata": {},
                    "status": "Failure", "message": message, "reason": "Expired", "code": 410,
                },
            });
            Some(Bytes::from(format!("{event}\n")))
        }
        Encoding::Protobuf => {
            use protobuf::encode;
            let mut status = Vec::new();
            encode::bytes(&mut status, 1, &[]);
            encode::bytes(&mut status, 2, b"Failure");
            encode::bytes(&mut status, 3, message.as_bytes());
            encode::bytes(&mut status, 4, b"Expired");
            encode::number(&mut status, 6, 410);
            let object = encode::envelope("v1", "Status", &status);
            Some(Bytes::from(encode::frame("ERROR", &object)))
        }
        Encoding::Cbor => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::listwatch::ApiStatus;

    #[test]
    fn each_event_says_its_resource_version_and_whether_it_is_a_bookmark() {
        let lines = b"{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"7\"}}}\n{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"9\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n";
        let mut splitter = Splitter::new(Encoding::Json);
        let events = splitter.push(lines);
        assert_eq!(events.len(), 2);
        assert_eq!(
            splitter.info(&events[0]).resource_version.as_deref(),
            Some("7")
        );
        let bookmark = splitter.info(&events[1]);
        assert!(bookmark.bookmark && bookmark.initial_events_end);
        assert_eq!(splitter.info(b"{\n"), EventInfo::default());

        let object = protobuf::encode::envelope(
            "v1",
            "ConfigMap",
            &protobuf::encode::object("a", "ns", "u1", "8", &[], &[]),
        );
        let mut frames = protobuf::encode::frame("ADDED", &object);
        let expired = expired_event(Encoding::Protobuf, "3").unwrap();
        frames.extend_from_slice(&expired);
        let mut splitter = Splitter::new(Encoding::Protobuf);
        let events = splitter.push(&frames);
        assert_eq!(events.len(), 2);
        assert_eq!(
            splitter.info(&events[0]).resource_version.as_deref(),
            Some("8")
        );
        assert_eq!(splitter.info(&events[1]), EventInfo::default());
        let decoded = decode_framed(&events[1], Encoding::Protobuf, Keep::Whole).unwrap();
        assert!(
            matches!(&decoded, WatchEvent::Error(ApiStatus { code: 410, reason, .. }) if reason == "Expired"),
            "{decoded:?}"
        );
    }

    #[test]
    fn an_event_retyped_keeps_its_object_in_json_and_protobuf() {
        let line = b"{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"7\"}}}\n";
        let splitter = Splitter::new(Encoding::Json);
        let modified = retyped(Encoding::Json, line, Change::Modified).unwrap();
        let info = splitter.info(&modified);
        assert_eq!(info.change, Some((Change::Modified, "ns/a".to_string())));
        assert_eq!(info.resource_version.as_deref(), Some("7"));
        let object = protobuf::encode::envelope(
            "v1",
            "ConfigMap",
            &protobuf::encode::object("a", "ns", "u1", "8", &[], &[]),
        );
        let frame = protobuf::encode::frame("DELETED", &object);
        let splitter = Splitter::new(Encoding::Protobuf);
        assert_eq!(
            splitter.info(&frame).change,
            Some((Change::Deleted, "ns/a".to_string()))
        );
        let added = retyped(Encoding::Protobuf, &frame, Change::Added).unwrap();
        assert_eq!(&added[..], &protobuf::encode::frame("ADDED", &object)[..]);
        assert_eq!(retyped(Encoding::Cbor, &frame, Change::Added), None);
    }

    #[test]
    fn the_expired_event_in_json_is_what_a_reflector_reads_as_410() {
        let line = expired_event(Encoding::Json, "12").unwrap();
        let decoded = decode_framed(&line, Encoding::Json, Keep::Whole).unwrap();
        assert!(
            matches!(&decoded, WatchEvent::Error(ApiStatus { code: 410, message, .. }) if message.starts_with("too old resource version: 12")),
            "{decoded:?}"
        );
        assert_eq!(expired_event(Encoding::Cbor, "12"), None);
    }
}
