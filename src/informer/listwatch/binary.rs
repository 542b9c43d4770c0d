//! Watch events in the binary encodings, checked as a JSON line is: a protobuf frame's
//! `metav1.WatchEvent`, whose object is enveloped, and a CBOR item's; and an event as the
//! framer cut it, decoded in whichever encoding it came.

use super::{checked_event, decode_event, decode_event_kept, ApiStatus, StreamError, WatchEvent};
use crate::cluster::{cbor, protobuf, Encoding};
use crate::informer::object::{Keep, RawObject};

/// Decodes one event as [`crate::cluster::Framer`] cut it from a body in `encoding` (a line
/// with its newline, a frame with its length, an item), a JSON object kept as `keep` says.
pub fn decode_framed(
    event: &[u8],
    encoding: Encoding,
    keep: Keep,
) -> Result<WatchEvent, StreamError> {
    match (encoding, keep) {
        (Encoding::Json, Keep::Digest) => decode_event_kept(event),
        (Encoding::Json, Keep::Whole) => decode_event(event),
        (Encoding::Protobuf, _) => decode_frame(event.get(4..).unwrap_or_default()),
        (Encoding::Cbor, _) => decode_item(event),
    }
}

/// Decodes the message of one frame of a protobuf watch (without its length).
fn decode_frame(frame: &[u8]) -> Result<WatchEvent, StreamError> {
    let malformed = |reason: &dyn std::fmt::Display| StreamError::malformed(reason, frame);
    let event = protobuf::watch_event(frame).map_err(|e| malformed(&e))?;
    let envelope = protobuf::envelope(event.object).map_err(|e| malformed(&e))?;
    checked_event(
        &event.event_type,
        || {
            RawObject::from_protobuf(envelope.raw, (&envelope.kind, &envelope.api_version))
                .map_err(|e| e.to_string())
        },
        || {
            if envelope.kind != "Status" {
                return Err(format!(
                    "an ERROR event whose object is a {}, not a Status",
                    envelope.kind
                ));
            }
            protobuf::status(envelope.raw)
                .map(ApiStatus::from)
                .map_err(|e| e.to_string())
        },
        &malformed,
    )
}

/// Decodes one item of a CBOR watch.
fn decode_item(item: &[u8]) -> Result<WatchEvent, StreamError> {
    let malformed = |reason: &dyn std::fmt::Display| StreamError::malformed(reason, item);
    let event = cbor::watch_event(item).map_err(|e| malformed(&e))?;
    checked_event(
        &event.event_type,
        || RawObject::from_cbor(event.object, None).map_err(|e| e.to_string()),
        || {
            cbor::status(event.object)
                .map(ApiStatus::from)
                .map_err(|e| e.to_string())
        },
        &malformed,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::cbor::tests::{hex, ADDED, BOOKMARK, ERROR};
    use crate::cluster::protobuf::encode;
    use crate::informer::listwatch::{WatchStream, MAX_EVENT_BYTES};

    fn object_frame(event_type: &str, name: &str, rv: &str) -> Vec<u8> {
        let object = encode::object(name, "ns", "u-1", rv, &[("app", "web")], &[]);
        encode::frame(event_type, &encode::envelope("v1", "ConfigMap", &object))
    }

    /// A watch of `body` in `encoding`, in two chunks: all but its last 5 bytes, then those.
    fn stream(body: &[u8], encoding: Encoding) -> WatchStream {
        use futures::TryStreamExt;
        let (head, tail) = body.split_at(body.len().saturating_sub(5));
        let chunks = [head.to_vec(), tail.to_vec()].map(Ok::<_, std::io::Error>);
        let reader = futures::stream::iter(chunks).into_async_read();
        WatchStream::encoded(Box::pin(reader), encoding, MAX_EVENT_BYTES)
    }

    #[tokio::test]
    async fn a_protobuf_watch_gives_its_events() {
        let mut body = object_frame("ADDED", "a", "10");
        body.extend(object_frame("MODIFIED", "a", "11"));
        let mut bookmark = Vec::new();
        encode::bytes(&mut bookmark, 6, b"12");
        let mut meta = Vec::new();
        encode::bytes(&mut meta, 1, &bookmark);
        body.extend(encode::frame(
            "BOOKMARK",
            &encode::envelope("v1", "ConfigMap", &meta),
        ));
        let mut s = stream(&body, Encoding::Protobuf);
        match s.next().await.unwrap() {
            Some(WatchEvent::Added(o)) => {
                assert_eq!((o.name(), o.resource_version()), ("a", "10"));
                assert_eq!((o.kind(), o.api_version()), ("ConfigMap", "v1"));
                assert_eq!(o.label("app").as_deref(), Some("web"));
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            s.next().await.unwrap(),
            Some(WatchEvent::Modified(_))
        ));
        match s.next().await.unwrap() {
            Some(WatchEvent::Bookmark {
                resource_version, ..
            }) => assert_eq!(resource_version, "12"),
            other => panic!("{other:?}"),
        }
        assert!(s.next().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_frame_over_the_limit_is_refused_and_the_stream_goes_on() {
        use futures::TryStreamExt;
        let big = object_frame("ADDED", &"x".repeat(300), "10");
        let body = [big, object_frame("ADDED", "small", "11")].concat();
        let reader = futures::stream::iter([Ok::<_, std::io::Error>(body)]).into_async_read();
        let mut s = WatchStream::encoded(Box::pin(reader), Encoding::Protobuf, 200);
        assert!(matches!(
            s.next().await,
            Err(StreamError::TooLarge { limit: 200 })
        ));
        match s.next().await.unwrap() {
            Some(WatchEvent::Added(o)) => assert_eq!(o.name(), "small"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_error_frame_carries_its_status_and_a_nameless_object_is_malformed() {
        let mut status = Vec::new();
        encode::bytes(&mut status, 3, b"too old resource version: 5 (90)");
        encode::bytes(&mut status, 4, b"Expired");
        encode::number(&mut status, 6, 410);
        let frame = encode::frame("ERROR", &encode::envelope("v1", "Status", &status));
        match decode_framed(&frame, Encoding::Protobuf, Keep::Whole).unwrap() {
            WatchEvent::Error(s) => assert_eq!((s.code, s.reason.as_str()), (410, "Expired")),
            other => panic!("{other:?}"),
        }
        let nameless = object_frame("ADDED", "", "10");
        let err = decode_frame(&nameless[4..]).unwrap_err().to_string();
        assert!(err.contains("no metadata.name"), "{err}");
        let unknown = object_frame("SQUASHED", "a", "10");
        let err = decode_frame(&unknown[4..]).unwrap_err().to_string();
        assert!(err.contains("unknown event type"), "{err}");
    }

    /// kube-apiserver's own encodings (apimachinery v0.37.2): an ADDED Widget, the BOOKMARK that
    /// ends the initial events, and a 410.
    #[tokio::test]
    async fn a_cbor_watch_gives_its_events() {
        let body: Vec<u8> = [ADDED, BOOKMARK, ERROR]
            .iter()
            .flat_map(|h| hex(h))
            .collect();
        let mut s = stream(&body, Encoding::Cbor);
        match s.next().await.unwrap() {
            Some(WatchEvent::Added(o)) => {
                assert_eq!((o.name(), o.resource_version()), ("w-9", "77"));
                assert_eq!((o.kind(), o.api_version()), ("Widget", "example.com/v1"));
                assert_eq!(o.label("tier").as_deref(), Some("front"));
            }
            other => panic!("{other:?}"),
        }
        match s.next().await.unwrap() {
            Some(WatchEvent::Bookmark {
                resource_version,
                initial_events_end,
            }) => assert_eq!(
                (resource_version.as_str(), initial_events_end),
                ("1300", true)
            ),
            other => panic!("{other:?}"),
        }
        match s.next().await.unwrap() {
            Some(WatchEvent::Error(status)) => {
                assert_eq!((status.code, status.reason.as_str()), (410, "Expired"))
            }
            other => panic!("{other:?}"),
        }
        assert!(s.next().await.unwrap().is_none());
    }

    #[tokio::test]
    async fn bytes_that_cannot_begin_an_item_or_are_no_watch_event_are_malformed() {
        // 0xff (a break) cannot begin a data item.
        let mut s = stream(&[0xff, 0x00], Encoding::Cbor);
        assert!(matches!(s.next().await, Err(StreamError::Malformed { .. })));
        // A well-formed item that is not a watch event.
        let mut s = stream(&[0x01], Encoding::Cbor);
        assert!(matches!(s.next().await, Err(StreamError::Malformed { .. })));
    }
}
