//! The body of a watch read one event at a time, whichever its encoding (JSON lines, protobuf
//! frames, CBOR items, cut by the cluster's [`Framer`]) or a scripted source.

use super::{decode_framed, StreamError, WatchEvent};
use crate::cluster::{Encoding, FrameError, Framer};
use crate::informer::object::Keep;
use futures::{AsyncBufRead, AsyncBufReadExt, Stream, StreamExt};
use std::pin::Pin;

/// The longest watch event (one JSON line, protobuf frame or CBOR item) a [`WatchStream`] takes:
/// 64 MiB. Real objects are far smaller (etcd refuses a write over 1.5 MiB by default), so only a
/// broken or hostile peer sends more; a longer event is refused by size as it arrives, holding
/// at most this much of it.
pub const MAX_EVENT_BYTES: usize = 64 << 20;

/// The body of a watch, read one event at a time; or, from a scripted source, events already
/// decoded.
pub struct WatchStream {
    source: Body,
}

enum Body {
    Wire(Wire),
    Events(Pin<Box<dyn Stream<Item = Result<WatchEvent, StreamError>> + Send>>),
}

/// A watch body as it arrives: cut into events, each decoded.
struct Wire {
    reader: Pin<Box<dyn AsyncBufRead + Send>>,
    framer: Framer,
    /// The framer's, at hand while it lends the event it cut.
    encoding: Encoding,
    /// What the reader failed with when `has_event` looked: `next` returns it.
    failed: Option<std::io::Error>,
    /// What is kept of each JSON event's object.
    keep: Keep,
}

impl Wire {
    async fn next(&mut self) -> Result<Option<WatchEvent>, StreamError> {
        if let Some(e) = self.failed.take() {
            return Err(StreamError::Io(io_reason(&e)));
        }
        loop {
            let available = self
                .reader
                .fill_buf()
                .await
                .map_err(|e| StreamError::Io(io_reason(&e)))?;
            if available.is_empty() {
                return match self.framer.end() {
                    Ok(()) => Ok(None),
                    Err(refusal) => Err(self.refused(refusal)),
                };
            }
            let (taken, cut) = self.framer.feed(available);
            self.reader.as_mut().consume(taken);
            match cut {
                None => {}
                Some(Ok(event)) => return decode_framed(event, self.encoding, self.keep).map(Some),
                Some(Err(refusal)) => return Err(self.refused(refusal)),
            }
        }
    }

    fn refused(&self, refusal: FrameError) -> StreamError {
        match refusal {
            FrameError::TooLarge => StreamError::TooLarge {
                limit: self.framer.limit(),
            },
            FrameError::Malformed(reason) => StreamError::malformed(reason, self.framer.held()),
            // The stream ended in the middle of an event: the connection was cut.
            FrameError::Cut => {
                StreamError::Io("the stream ended in the middle of an event".to_string())
            }
        }
    }

    /// Whether a whole event has already arrived in the reader's buffer: what `next` returns
    /// without waiting. Polls the reader once without a task to wake: what it did not have is
    /// asked for again, with the task's waker, by the next read. An error is kept in `failed`
    /// (a reader returns its error once) for that read to report.
    fn has_event(&mut self) -> bool {
        if self.failed.is_some() {
            return false;
        }
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match self.reader.as_mut().poll_fill_buf(&mut cx) {
            std::task::Poll::Ready(Ok(available)) => self.framer.holds_event(available),
            std::task::Poll::Ready(Err(e)) => {
                self.failed = Some(e);
                false
            }
            std::task::Poll::Pending => false,
        }
    }
}

impl WatchStream {
    /// A watch body in JSON; lines over [`MAX_EVENT_BYTES`] are refused.
    pub fn new(reader: Pin<Box<dyn AsyncBufRead + Send>>) -> Self {
        Self::with_limit(reader, MAX_EVENT_BYTES)
    }

    /// A watch body in JSON whose lines over `limit` bytes (newline excluded) are refused with
    /// [`StreamError::TooLarge`], holding at most `limit + 1` bytes of one; the stream then goes
    /// on after that line.
    pub fn with_limit(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        Self::encoded(reader, Encoding::Json, limit)
    }

    /// A watch body in `encoding`, whose events over `limit` bytes are refused with
    /// [`StreamError::TooLarge`]: a JSON line or a protobuf frame is skipped and the stream goes
    /// on; a CBOR sequence has nothing to go on from, and stays refused.
    pub fn encoded(
        reader: Pin<Box<dyn AsyncBufRead + Send>>,
        encoding: Encoding,
        limit: usize,
    ) -> Self {
        WatchStream {
            source: Body::Wire(Wire {
                reader,
                framer: Framer::new(encoding, limit),
                encoding,
                failed: None,
                keep: Keep::Whole,
            }),
        }
    }

    /// The stream with JSON objects kept as `keep` says (whole unless told).
    pub fn keeping(mut self, keep: Keep) -> Self {
        if let Body::Wire(wire) = &mut self.source {
            wire.keep = keep;
        }
        self
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
            Body::Wire(wire) => wire.has_event(),
            Body::Events(_) => false,
        }
    }

    /// The next event; `Ok(None)` when the server closed the stream cleanly. After an error
    /// other than `Io` the stream can go on with the next event (in JSON or protobuf: a CBOR
    /// sequence's refusal stands).
    pub async fn next(&mut self) -> Result<Option<WatchEvent>, StreamError> {
        match &mut self.source {
            Body::Wire(wire) => wire.next().await,
            Body::Events(events) => events.next().await.transpose(),
        }
    }

    /// The bytes the stream holds for the event it reads: what a hostile event costs.
    #[doc(hidden)]
    pub fn buffer_capacity(&self) -> usize {
        match &self.source {
            Body::Wire(wire) => wire.framer.capacity(),
            Body::Events(_) => 0,
        }
    }
}

fn io_reason(e: &std::io::Error) -> String {
    crate::cluster::innermost(e)
}
