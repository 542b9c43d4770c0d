//! A watch body in JSON: newline-delimited events, each line held whole but never more than a
//! limit.

use super::{buffered_holds, io_reason, StreamError, KEEP_CAPACITY};
use futures::{AsyncBufRead, AsyncBufReadExt};
use std::pin::Pin;

/// The lines of a watch body, each held whole but never more than `limit` bytes of one.
pub(super) struct Lines {
    pub(super) reader: Pin<Box<dyn AsyncBufRead + Send>>,
    pub(super) line: Vec<u8>,
    pub(super) limit: usize,
    /// The rest of a line refused by size is still to be skipped.
    pub(super) skipping: bool,
    /// What the reader failed with when `has_line` looked: `read` returns it.
    pub(super) failed: Option<std::io::Error>,
    /// What is kept of each event's object.
    pub(super) keep: crate::informer::object::Keep,
}

/// What reading one line found.
pub(super) enum Read {
    /// A whole line, newline included, is in `Lines::line`.
    Line,
    /// The stream ended cleanly, between lines.
    End,
    /// The stream ended inside a line.
    Cut,
    /// The line passed the limit; what was read of it is dropped.
    TooLarge,
}

impl Lines {
    pub(super) async fn read(&mut self) -> Result<Read, StreamError> {
        self.line.clear();
        if self.line.capacity() > KEEP_CAPACITY {
            self.line = Vec::with_capacity(4096);
        }
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
                let cut = self.skipping || !self.line.iter().all(u8::is_ascii_whitespace);
                self.skipping = false;
                return Ok(if cut { Read::Cut } else { Read::End });
            }
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |at| at + 1);
            if self.skipping {
                self.skipping = newline.is_none();
                self.reader.consume_unpin(take);
                continue;
            }
            // The line's length without its newline, were this piece added.
            let length = self.line.len() + take - usize::from(newline.is_some());
            if length > self.limit {
                self.line.clear();
                self.skipping = newline.is_none();
                self.reader.consume_unpin(take);
                return Ok(Read::TooLarge);
            }
            // Grow by doubling, as `extend` would, but never past the limit.
            let wanted = self.line.len() + take;
            if wanted > self.line.capacity() {
                let target = wanted
                    .max(self.line.capacity() * 2)
                    .min(self.limit.saturating_add(1));
                self.line.reserve_exact(target - self.line.len());
            }
            self.line.extend_from_slice(&available[..take]);
            self.reader.consume_unpin(take);
            if newline.is_some() {
                return Ok(Read::Line);
            }
        }
    }
}

impl Lines {
    /// Whether a whole line that is not blank has already arrived: what `read` returns without
    /// waiting (see [`buffered_holds`]).
    pub(super) fn has_line(&mut self) -> bool {
        !self.skipping
            && buffered_holds(&mut self.reader, &mut self.failed, |available| {
                memchr::memchr(b'\n', available)
                    .is_some_and(|at| !available[..at].iter().all(u8::is_ascii_whitespace))
            })
    }
}
