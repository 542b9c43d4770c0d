//! A watch body in the protobuf encoding: each event a 4-byte big-endian length and a
//! `metav1.WatchEvent` of that many bytes, whose object is enveloped.

use super::{
    buffered_holds, checked_event, io_reason, ApiStatus, StreamError, WatchEvent, KEEP_CAPACITY,
};
use crate::cluster::protobuf;
use crate::informer::object::RawObject;
use futures::{AsyncBufRead, AsyncBufReadExt};
use std::pin::Pin;

/// The frames of a watch body, each held whole but never more than `limit` bytes of one.
pub(super) struct Frames {
    reader: Pin<Box<dyn AsyncBufRead + Send>>,
    frame: Vec<u8>,
    limit: usize,
    /// Bytes of a frame refused by size, still to be skipped.
    skipping: u64,
    /// What the reader failed with when `has_frame` looked: `next` returns it.
    failed: Option<std::io::Error>,
}

impl Frames {
    pub(super) fn new(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        Frames {
            reader,
            frame: Vec::new(),
            limit,
            skipping: 0,
            failed: None,
        }
    }

    pub(super) fn capacity(&self) -> usize {
        self.frame.capacity()
    }

    /// The next event; `Ok(None)` at a clean end between frames.
    pub(super) async fn next(&mut self) -> Result<Option<WatchEvent>, StreamError> {
        self.frame.clear();
        if self.frame.capacity() > KEEP_CAPACITY {
            self.frame = Vec::new();
        }
        if let Some(e) = self.failed.take() {
            return Err(StreamError::Io(io_reason(&e)));
        }
        let mut header = [0u8; 4];
        let mut have = 0;
        while have < header.len() {
            let available = fill(&mut self.reader).await?;
            if available.is_empty() {
                return if have == 0 && self.skipping == 0 {
                    Ok(None)
                } else {
                    Err(cut())
                };
            }
            if self.skipping > 0 {
                let take = available
                    .len()
                    .min(self.skipping.try_into().unwrap_or(usize::MAX));
                self.reader.as_mut().consume(take);
                self.skipping -= take as u64;
                continue;
            }
            let take = available.len().min(header.len() - have);
            header[have..have + take].copy_from_slice(&available[..take]);
            self.reader.as_mut().consume(take);
            have += take;
        }
        let len = u32::from_be_bytes(header) as usize;
        if len > self.limit {
            self.skipping = len as u64;
            return Err(StreamError::TooLarge { limit: self.limit });
        }
        self.frame.reserve_exact(len);
        while self.frame.len() < len {
            let available = fill(&mut self.reader).await?;
            if available.is_empty() {
                return Err(cut());
            }
            let take = available.len().min(len - self.frame.len());
            self.frame.extend_from_slice(&available[..take]);
            self.reader.as_mut().consume(take);
        }
        decode_frame(&self.frame).map(Some)
    }

    /// Whether a whole frame has already arrived in the reader's buffer: what `next` returns
    /// without waiting (see [`buffered_holds`]).
    pub(super) fn has_frame(&mut self) -> bool {
        self.skipping == 0
            && buffered_holds(&mut self.reader, &mut self.failed, |available| {
                available
                    .get(..4)
                    .map(|h| u32::from_be_bytes([h[0], h[1], h[2], h[3]]) as usize)
                    .is_some_and(|len| available.len() >= 4 + len)
            })
    }
}

async fn fill(reader: &mut Pin<Box<dyn AsyncBufRead + Send>>) -> Result<&[u8], StreamError> {
    reader
        .fill_buf()
        .await
        .map_err(|e| StreamError::Io(io_reason(&e)))
}

fn cut() -> StreamError {
    StreamError::Io("the stream ended in the middle of an event".to_string())
}

/// Decodes one frame of a protobuf watch, checked as [`super::decode_event`] checks a line.
pub fn decode_frame(frame: &[u8]) -> Result<WatchEvent, StreamError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::protobuf::encode;
    use crate::informer::listwatch::WatchStream;

    fn object_frame(event_type: &str, name: &str, rv: &str) -> Vec<u8> {
        let object = encode::object(name, "ns", "u-1", rv, &[("app", "web")], &[]);
        encode::frame(event_type, &encode::envelope("v1", "ConfigMap", &object))
    }

    fn stream(chunks: Vec<Vec<u8>>, limit: usize) -> WatchStream {
        use futures::TryStreamExt;
        let reader = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>))
            .into_async_read();
        WatchStream::frames(Box::pin(reader), limit)
    }

    #[tokio::test]
    async fn frames_split_anywhere_are_reassembled_and_a_cut_is_reported() {
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
        for split in 1..body.len() {
            let chunks = vec![body[..split].to_vec(), body[split..].to_vec()];
            let mut s = stream(chunks, 1 << 20);
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
        let mut s = stream(vec![body[..body.len() - 1].to_vec()], 1 << 20);
        s.next().await.unwrap();
        s.next().await.unwrap();
        assert!(matches!(s.next().await, Err(StreamError::Io(m)) if m.contains("middle")));
    }

    #[tokio::test]
    async fn a_frame_over_the_limit_is_skipped_unread_and_the_stream_goes_on() {
        let big = object_frame("ADDED", &"x".repeat(300), "10");
        let mut body = big.clone();
        body.extend(object_frame("ADDED", "small", "11"));
        let mut s = stream(vec![body], 200);
        assert!(matches!(
            s.next().await,
            Err(StreamError::TooLarge { limit: 200 })
        ));
        assert!(s.buffer_capacity() <= 200);
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
        match decode_frame(&frame[4..]).unwrap() {
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
}
