//! A watch body cut into its events, whatever the encoding the server chose (JSON lines,
//! protobuf length-prefixed frames, a CBOR sequence), so that faults hold, delay or drop whole
//! events; and the one event the proxy writes itself, a 410 ERROR, in each of them.

use crate::cluster::{cbor, protobuf, Encoding};
use crate::informer::listwatch::{decode_event, decode_frame, decode_item, WatchEvent};
use bytes::{Buf, Bytes, BytesMut};

/// What a fault needs to know of one event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventInfo {
    pub bookmark: bool,
    pub initial_events_end: bool,
    /// The object's resourceVersion (a bookmark's too); `None` for an ERROR or what did not
    /// decode.
    pub resource_version: Option<String>,
}

/// Cuts a body into whole events as its chunks come.
pub struct Splitter {
    encoding: Encoding,
    held: BytesMut,
}

impl Splitter {
    pub fn new(encoding: Encoding) -> Self {
        Splitter {
            encoding,
            held: BytesMut::new(),
        }
    }

    /// Takes `chunk` and returns the events it completed, each whole (a line with its newline,
    /// a frame with its length).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<Bytes> {
        self.held.extend_from_slice(chunk);
        let mut out = Vec::new();
        while let Some(len) = self.next_len() {
            out.push(self.held.split_to(len).freeze());
        }
        out
    }

    /// Bytes of an event not yet complete.
    #[cfg(test)]
    fn pending(&self) -> usize {
        self.held.len()
    }

    fn next_len(&self) -> Option<usize> {
        let held = &self.held[..];
        match self.encoding {
            Encoding::Json => held.iter().position(|b| *b == b'\n').map(|at| at + 1),
            Encoding::Protobuf => {
                let mut prefix = held.get(..4)?;
                let len = 4 + prefix.get_u32() as usize;
                (held.len() >= len).then_some(len)
            }
            Encoding::Cbor => cbor::item_len(held).ok().flatten(),
        }
    }

    /// What `event` (as [`Splitter::push`] returned it) is; an event that does not decode is
    /// described as nothing in particular, and passed on as it came.
    pub fn info(&self, event: &[u8]) -> EventInfo {
        let decoded = match self.encoding {
            Encoding::Json => decode_event(event.trim_ascii_end()),
            Encoding::Protobuf => decode_frame(event.get(4..).unwrap_or_default()),
            Encoding::Cbor => decode_item(event),
        };
        match decoded {
            Ok(WatchEvent::Bookmark {
                resource_version,
                initial_events_end,
            }) => EventInfo {
                bookmark: true,
                initial_events_end,
                resource_version: Some(resource_version),
            },
            Ok(
                WatchEvent::Added(object)
                | WatchEvent::Modified(object)
                | WatchEvent::Deleted(object),
            ) => EventInfo {
                resource_version: Some(object.resource_version().to_string()),
                ..EventInfo::default()
            },
            Ok(WatchEvent::Error(_)) | Err(_) => EventInfo::default(),
        }
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
    fn json_lines_and_protobuf_frames_are_cut_whole_however_the_chunks_fall() {
        let lines = b"{\"type\":\"ADDED\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"7\"}}}\n{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"9\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n";
        let mut splitter =
            Splitter::new(Encoding::of_content_type("application/json;stream=watch"));
        let mut events = Vec::new();
        for chunk in lines.chunks(7) {
            events.extend(splitter.push(chunk));
        }
        assert_eq!(events.len(), 2);
        assert_eq!(splitter.pending(), 0);
        assert_eq!(
            events.concat(),
            lines.to_vec(),
            "the bytes pass on as they came"
        );
        assert_eq!(
            splitter.info(&events[0]).resource_version.as_deref(),
            Some("7")
        );
        let bookmark = splitter.info(&events[1]);
        assert!(bookmark.bookmark && bookmark.initial_events_end);

        let object = protobuf::encode::envelope(
            "v1",
            "ConfigMap",
            &protobuf::encode::object("a", "ns", "u1", "8", &[], &[]),
        );
        let mut frames = protobuf::encode::frame("ADDED", &object);
        let expired = expired_event(Encoding::Protobuf, "3").unwrap();
        frames.extend_from_slice(&expired);
        let mut splitter = Splitter::new(Encoding::of_content_type(
            "application/vnd.kubernetes.protobuf;stream=watch",
        ));
        let mut events = Vec::new();
        for chunk in frames.chunks(5) {
            events.extend(splitter.push(chunk));
        }
        assert_eq!(events.len(), 2);
        assert_eq!(
            splitter.info(&events[0]).resource_version.as_deref(),
            Some("8")
        );
        let decoded = decode_frame(&events[1][4..]).unwrap();
        assert!(
            matches!(&decoded, WatchEvent::Error(ApiStatus { code: 410, reason, .. }) if reason == "Expired"),
            "{decoded:?}"
        );
    }

    #[test]
    fn the_expired_event_in_json_is_what_a_reflector_reads_as_410() {
        let line = expired_event(Encoding::Json, "12").unwrap();
        let decoded = decode_event(line.trim_ascii_end()).unwrap();
        assert!(
            matches!(&decoded, WatchEvent::Error(ApiStatus { code: 410, message, .. }) if message.starts_with("too old resource version: 12")),
            "{decoded:?}"
        );
        assert_eq!(expired_event(Encoding::Cbor, "12"), None);
    }
}
