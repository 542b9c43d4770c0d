//! The body of a watch read one event at a time, whichever its encoding (JSON lines, protobuf
//! frames, CBOR items) or a scripted source, and the buffering its readers share.

use super::lines::{Lines, Read};
use super::{decode_event, decode_event_kept, frames, items, StreamError, WatchEvent};
use crate::informer::object::Keep;
use futures::{AsyncBufRead, Stream, StreamExt};
use std::pin::Pin;

/// The longest watch event (one JSON line) a [`WatchStream`] takes: 64 MiB. Real objects are far
/// smaller (etcd refuses a write over 1.5 MiB by default), so only a broken or hostile peer sends
/// more; a longer line is refused by size as it arrives, holding at most this much of it.
pub const MAX_EVENT_BYTES: usize = 64 << 20;

/// The body of a watch: newline-delimited JSON events, read one at a time; or, from a scripted
/// source, events already decoded.
pub struct WatchStream {
    source: Body,
}

enum Body {
    Lines(Lines),
    Frames(frames::Frames),
    Items(items::Items),
    Events(Pin<Box<dyn Stream<Item = Result<WatchEvent, StreamError>> + Send>>),
}

/// A line buffer grown past this by one big event is not kept for the next ones: real objects
/// stay under etcd's 1.5 MiB request limit, so only an outsized event pays for a new buffer.
pub(super) const KEEP_CAPACITY: usize = 2 << 20;

/// Whether the bytes `reader` already holds make a whole item by `complete`: what the next
/// read returns without waiting. Polls the reader once without a task to wake: what it did not
/// have is asked for again, with the task's waker, by the next read. An error is kept in
/// `failed` (a reader returns its error once) for that read to report.
pub(super) fn buffered_holds(
    reader: &mut Pin<Box<dyn AsyncBufRead + Send>>,
    failed: &mut Option<std::io::Error>,
    complete: impl Fn(&[u8]) -> bool,
) -> bool {
    if failed.is_some() {
        return false;
    }
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match reader.as_mut().poll_fill_buf(&mut cx) {
        std::task::Poll::Ready(Ok(available)) => complete(available),
        std::task::Poll::Ready(Err(e)) => {
            *failed = Some(e);
            false
        }
        std::task::Poll::Pending => false,
    }
}

impl WatchStream {
    /// A watch body; lines over [`MAX_EVENT_BYTES`] are refused.
    pub fn new(reader: Pin<Box<dyn AsyncBufRead + Send>>) -> Self {
        Self::with_limit(reader, MAX_EVENT_BYTES)
    }

    /// A watch body whose lines over `limit` bytes (newline excluded) are refused with
    /// [`StreamError::TooLarge`], holding at most `limit + 1` bytes of one; the stream then goes
    /// on after that line.
    pub fn with_limit(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        WatchStream {
            source: Body::Lines(Lines {
                reader,
                line: Vec::with_capacity(4096.min(limit.saturating_add(1))),
                limit,
                skipping: false,
                failed: None,
                keep: Keep::Whole,
            }),
        }
    }

    /// The stream with JSON objects kept as `keep` says (whole unless told).
    pub fn keeping(mut self, keep: Keep) -> Self {
        if let Body::Lines(lines) = &mut self.source {
            lines.keep = keep;
        }
        self
    }

    /// A watch body in the protobuf encoding: length-prefixed `WatchEvent` frames, those over
    /// `limit` bytes refused with [`StreamError::TooLarge`] (and skipped unread).
    pub fn frames(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        WatchStream {
            source: Body::Frames(frames::Frames::new(reader, limit)),
        }
    }

    /// A watch body in CBOR: a sequence of data items, one a `WatchEvent` (RFC 8742), those
    /// over `limit` bytes refused with [`StreamError::TooLarge`].
    pub fn items(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        WatchStream {
            source: Body::Items(items::Items::new(reader, limit)),
        }
    }

    /// A watch whose events are already decoded (a scripted source); the stream's end is the
    /// server's clean close.
    pub fn from_events(
        events: impl Stream<Item = Result<WatchEvent, StreamError>> + Send + 'static,
    ) -> Self {
        WatchStream {
            source: Body::Events(Box::pin(events)),
        }
    }

    /// Whether the next event has arrived whole, so that `next` returns it without waiting
    /// (a scripted source says no: its events come one by one).
    pub fn has_event(&mut self) -> bool {
        match &mut self.source {
            Body::Lines(lines) => lines.has_line(),
            Body::Frames(frames) => frames.has_frame(),
            Body::Items(items) => items.has_item(),
            Body::Events(_) => false,
        }
    }

    /// The next event; `Ok(None)` when the server closed the stream cleanly. After an error
    /// other than `Io` the stream can go on with the next line.
    pub async fn next(&mut self) -> Result<Option<WatchEvent>, StreamError> {
        let lines = match &mut self.source {
            Body::Lines(lines) => lines,
            Body::Frames(frames) => return frames.next().await,
            Body::Items(items) => return items.next().await,
            Body::Events(events) => return events.next().await.transpose(),
        };
        loop {
            match lines.read().await? {
                Read::End => return Ok(None),
                // The stream ended in the middle of an event: the connection was cut.
                Read::Cut => {
                    return Err(StreamError::Io(
                        "the stream ended in the middle of an event".to_string(),
                    ))
                }
                Read::TooLarge => return Err(StreamError::TooLarge { limit: lines.limit }),
                Read::Line if lines.line.iter().all(u8::is_ascii_whitespace) => continue,
                Read::Line if lines.keep == Keep::Digest => {
                    return decode_event_kept(&lines.line).map(Some)
                }
                Read::Line => return decode_event(&lines.line).map(Some),
            }
        }
    }

    /// The bytes the stream holds for the line it reads: what a hostile line costs.
    #[doc(hidden)]
    pub fn buffer_capacity(&self) -> usize {
        match &self.source {
            Body::Lines(lines) => lines.line.capacity(),
            Body::Frames(frames) => frames.capacity(),
            Body::Items(items) => items.capacity(),
            Body::Events(_) => 0,
        }
    }
}

pub(super) fn io_reason(e: &std::io::Error) -> String {
    crate::cluster::innermost(e)
}
