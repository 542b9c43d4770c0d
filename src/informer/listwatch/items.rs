//! A watch body in CBOR (`application/cbor-seq`, RFC 8742): `WatchEvent` data items one after
//! the other, with no framing; each item says its own length, read by [`cbor::item_len`].

use super::{
    buffered_holds, checked_event, io_reason, ApiStatus, StreamError, WatchEvent, KEEP_CAPACITY,
};
use crate::cluster::cbor;
use crate::informer::object::RawObject;
use futures::{AsyncBufRead, AsyncBufReadExt};
use std::pin::Pin;

/// The items of a watch body, each held whole but never more than `limit` bytes of one.
pub(super) struct Items {
    reader: Pin<Box<dyn AsyncBufRead + Send>>,
    /// The bytes read and not yet decoded: the start of the next item, or more.
    held: Vec<u8>,
    limit: usize,
    /// What the reader failed with when `has_item` looked: `next` returns it.
    failed: Option<std::io::Error>,
}

impl Items {
    pub(super) fn new(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        Items {
            reader,
            held: Vec::new(),
            limit,
            failed: None,
        }
    }

    pub(super) fn capacity(&self) -> usize {
        self.held.capacity()
    }

    /// The next event; `Ok(None)` at a clean end between items. After an error the watch is
    /// closed by the reflector (it relists): nothing here resynchronizes a CBOR sequence.
    pub(super) async fn next(&mut self) -> Result<Option<WatchEvent>, StreamError> {
        if self.held.is_empty() && self.held.capacity() > KEEP_CAPACITY {
            self.held = Vec::new();
        }
        loop {
            if let Some(len) = self.whole()? {
                let event = decode_item(&self.held[..len]);
                self.held.drain(..len);
                return event.map(Some);
            }
            if self.held.len() > self.limit {
                return Err(StreamError::TooLarge { limit: self.limit });
            }
            if let Some(e) = self.failed.take() {
                return Err(StreamError::Io(io_reason(&e)));
            }
            let available = self
                .reader
                .fill_buf()
                .await
                .map_err(|e| StreamError::Io(io_reason(&e)))?;
            if available.is_empty() {
                return if self.held.is_empty() {
                    Ok(None)
                } else {
                    Err(StreamError::Io(
                        "the stream ended in the middle of an event".to_string(),
                    ))
                };
            }
            let take = available.len().min(self.limit + 1 - self.held.len());
            self.held.extend_from_slice(&available[..take]);
            self.reader.as_mut().consume(take);
        }
    }

    /// The length of the whole item at the front of `held`, if it is all there.
    fn whole(&self) -> Result<Option<usize>, StreamError> {
        if self.held.is_empty() {
            return Ok(None);
        }
        match cbor::item_len(&self.held) {
            Ok(Some(len)) if len <= self.limit => Ok(Some(len)),
            Ok(Some(_)) => Err(StreamError::TooLarge { limit: self.limit }),
            Ok(None) => Ok(None),
            Err(e) => Err(StreamError::malformed(&e, &self.held)),
        }
    }

    /// Whether a whole item has already arrived: what `next` returns without waiting (see
    /// [`buffered_holds`]).
    pub(super) fn has_item(&mut self) -> bool {
        if matches!(self.whole(), Ok(Some(_))) {
            return true;
        }
        let held = &self.held;
        buffered_holds(&mut self.reader, &mut self.failed, |available| {
            let mut joined = Vec::with_capacity(held.len() + available.len());
            joined.extend_from_slice(held);
            joined.extend_from_slice(available);
            matches!(cbor::item_len(&joined), Ok(Some(_)))
        })
    }
}

/// Decodes one item of a CBOR watch, checked as [`super::decode_event`] checks a line.
pub fn decode_item(item: &[u8]) -> Result<WatchEvent, StreamError> {
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
    use crate::informer::listwatch::WatchStream;

    fn stream(chunks: Vec<Vec<u8>>, limit: usize) -> WatchStream {
        use futures::TryStreamExt;
        let reader = futures::stream::iter(chunks.into_iter().map(Ok::<_, std::io::Error>))
            .into_async_read();
        WatchStream::items(Box::pin(reader), limit)
    }

    /// kube-apiserver's own encodings (apimachinery v0.37.2): an ADDED Widget, the BOOKMARK that
    /// ends the initial events, and a 410.
    fn body() -> Vec<u8> {
        [ADDED, BOOKMARK, ERROR]
            .iter()
            .flat_map(|h| hex(h))
            .collect()
    }

    #[tokio::test]
    async fn items_split_anywhere_are_reassembled_and_a_cut_is_reported() {
        let body = body();
        for split in 1..body.len() {
            let chunks = vec![body[..split].to_vec(), body[split..].to_vec()];
            let mut s = stream(chunks, 1 << 20);
            match s.next().await.unwrap() {
                Some(WatchEvent::Added(o)) => {
                    assert_eq!((o.name(), o.resource_version()), ("w-9", "77"));
                    assert_eq!((o.kind(), o.api_version()), ("Widget", "example.com/v1"));
                    assert_eq!(o.label("tier").as_deref(), Some("front"));
                }
                other => panic!("split at {split}: {other:?}"),
            }
            match s.next().await.unwrap() {
                Some(WatchEvent::Bookmark {
                    resource_version,
                    initial_events_end,
                }) => assert_eq!(
                    (resource_version.as_str(), initial_events_end),
                    ("1300", true)
                ),
                other => panic!("split at {split}: {other:?}"),
            }
            match s.next().await.unwrap() {
                Some(WatchEvent::Error(status)) => {
                    assert_eq!((status.code, status.reason.as_str()), (410, "Expired"))
                }
                other => panic!("split at {split}: {other:?}"),
            }
            assert!(s.next().await.unwrap().is_none());
        }
        let mut s = stream(vec![body[..body.len() - 1].to_vec()], 1 << 20);
        s.next().await.unwrap();
        s.next().await.unwrap();
        assert!(matches!(s.next().await, Err(StreamError::Io(m)) if m.contains("middle")));
    }

    #[tokio::test]
    async fn an_item_over_the_limit_is_refused_holding_no_more_than_the_limit() {
        let added = hex(ADDED);
        let mut s = stream(vec![body()], added.len() - 1);
        assert!(matches!(s.next().await, Err(StreamError::TooLarge { .. })));
        assert!(s.buffer_capacity() <= 2 * added.len());
    }

    #[tokio::test]
    async fn bytes_that_cannot_begin_an_item_are_malformed() {
        // 0xff (a break) cannot begin a data item.
        let mut s = stream(vec![vec![0xff, 0x00]], 1 << 20);
        assert!(matches!(s.next().await, Err(StreamError::Malformed { .. })));
        // A well-formed item that is not a watch event.
        let mut s = stream(vec![vec![0x01]], 1 << 20);
        assert!(matches!(s.next().await, Err(StreamError::Malformed { .. })));
    }
}
