//! A watch body cut into its events however its chunks fall: JSON lines, protobuf frames (a
//! 4-byte big-endian length, then a `WatchEvent` message of that many bytes) or CBOR data items
//! one after the other (RFC 8742: each says its own length, read by [`cbor::item_len`]). Each
//! event is held whole, never more than a limit of one. The reflector's watch stream reads its
//! events through it; the proxy's relay cuts with it the events its faults act on.

use super::{cbor, Encoding};

/// A buffer grown past this by one big event is not kept for the next ones: real objects stay
/// under etcd's 1.5 MiB request limit, so only an outsized event pays for a new buffer.
const KEEP_CAPACITY: usize = 2 << 20;

/// Cuts a watch body into whole events, fed the bytes as they come.
pub struct Framer {
    encoding: Encoding,
    limit: usize,
    /// Whether a JSON line that is blank is an event (for a relay, which passes every byte on)
    /// or skipped (for a reader, which has nothing to decode in it).
    blank_lines: bool,
    /// The event being cut, or the one [`Framer::feed`] returned last (until the next feed).
    held: Vec<u8>,
    /// Whether `held` is the event returned last, not one being cut.
    returned: bool,
    skip: Skip,
}

/// What the bytes that come next are for, other than an event.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Skip {
    Nothing,
    /// The rest of a JSON line refused by size.
    Line,
    /// What is left of a protobuf frame refused by size.
    Bytes(u64),
    /// A CBOR sequence was refused: nothing in it marks where the next item begins, so the
    /// refusal stands for the rest of the body.
    Refused(FrameError),
}

/// Why an event was not cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// It passed the limit, and was refused as soon as it did.
    TooLarge,
    /// Its bytes cannot begin an event (a CBOR head that is none); [`Framer::held`] has them.
    Malformed(String),
    /// The body ended inside it.
    Cut,
}

/// What one step of cutting found.
enum Step {
    More,
    Event,
    Refused(FrameError),
}

impl Framer {
    /// A framer for a body in `encoding`, which refuses an event of more than `limit` bytes (a
    /// line's newline and a frame's length not counted), holding at most `limit + 1` bytes of
    /// it. A JSON line that is blank is skipped.
    pub fn new(encoding: Encoding, limit: usize) -> Self {
        Framer {
            encoding,
            limit,
            blank_lines: false,
            held: Vec::new(),
            returned: false,
            skip: Skip::Nothing,
        }
    }

    /// The framer with blank JSON lines cut as events, so that the events are every byte of
    /// the body.
    pub fn with_blank_lines(mut self) -> Self {
        self.blank_lines = true;
        self
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The bytes held of the event being cut (those refused as malformed, after a refusal).
    pub fn held(&self) -> &[u8] {
        if self.returned {
            &[]
        } else {
            &self.held
        }
    }

    /// The bytes held, whatever their use: what a hostile event costs.
    pub fn capacity(&self) -> usize {
        self.held.capacity()
    }

    /// Takes bytes from the front of `bytes` until an event is whole, refused, or all are taken:
    /// returns how many it took, and the event, as it came (a line with its newline, a frame
    /// with its length), or why none was cut. After a refusal of a JSON line or a protobuf frame
    /// its bytes are skipped and the next event is cut; a CBOR refusal stands.
    pub fn feed(&mut self, bytes: &[u8]) -> (usize, Option<Result<&[u8], FrameError>>) {
        if let Skip::Refused(refusal) = &self.skip {
            return (0, Some(Err(refusal.clone())));
        }
        if self.returned {
            self.returned = false;
            self.clear();
        }
        let mut taken = 0;
        while taken < bytes.len() {
            let rest = &bytes[taken..];
            let (n, step) = match self.encoding {
                Encoding::Json => self.line(rest),
                Encoding::Protobuf => self.frame(rest),
                Encoding::Cbor => self.item(rest),
            };
            taken += n;
            match step {
                Step::More => {}
                Step::Event => {
                    self.returned = true;
                    return (taken, Some(Ok(&self.held)));
                }
                Step::Refused(refusal) => return (taken, Some(Err(refusal))),
            }
        }
        (taken, None)
    }

    /// Feeds all of `chunk`, handing `each` every event it completes and every refusal, once
    /// (after a refusal that stands, nothing more is taken).
    pub fn cut(&mut self, chunk: &[u8], mut each: impl FnMut(Result<&[u8], FrameError>)) {
        let mut rest = chunk;
        while !rest.is_empty() {
            let (taken, cut) = self.feed(rest);
            if taken == 0 {
                return;
            }
            if let Some(cut) = cut {
                each(cut);
            }
            rest = &rest[taken..];
        }
    }

    /// Whether the body, ending now, ended between events.
    pub fn end(&self) -> Result<(), FrameError> {
        if let Skip::Refused(refusal) = &self.skip {
            return Err(refusal.clone());
        }
        let held = self.held();
        let inside = match self.encoding {
            Encoding::Json => self.skip == Skip::Line || !is_blank(held),
            Encoding::Protobuf | Encoding::Cbor => self.skip != Skip::Nothing || !held.is_empty(),
        };
        match inside {
            true => Err(FrameError::Cut),
            false => Ok(()),
        }
    }

    /// Whether the bytes held and `available` make a whole event, which a feed of `available`
    /// returns (a blank line skipped, if it is).
    pub fn holds_event(&self, available: &[u8]) -> bool {
        if self.skip != Skip::Nothing {
            return false;
        }
        let held = self.held();
        match self.encoding {
            Encoding::Json => {
                let mut blank = is_blank(held);
                let mut start = 0;
                for newline in memchr::memchr_iter(b'\n', available) {
                    if self.blank_lines || !(blank && is_blank(&available[start..newline])) {
                        return true;
                    }
                    (blank, start) = (true, newline + 1);
                }
                false
            }
            Encoding::Protobuf => {
                let mut header = [0u8; 4];
                let have = held.len().min(4);
                header[..have].copy_from_slice(&held[..have]);
                let Some(rest) = available.get(..4 - have) else {
                    return false;
                };
                header[have..].copy_from_slice(rest);
                let len = 4 + u32::from_be_bytes(header) as usize;
                held.len() + available.len() >= len
            }
            Encoding::Cbor if held.is_empty() => matches!(cbor::item_len(available), Ok(Some(_))),
            Encoding::Cbor => {
                let joined = [held, available].concat();
                matches!(cbor::item_len(&joined), Ok(Some(_)))
            }
        }
    }

    /// Empties `held`, letting go of a buffer one big event grew.
    fn clear(&mut self) {
        self.held.clear();
        if self.held.capacity() > KEEP_CAPACITY {
            self.held = Vec::new();
        }
    }

    /// Appends `piece` to `held`, growing it by doubling, as `extend` would, but never past the
    /// limit.
    fn hold(&mut self, piece: &[u8]) {
        let wanted = self.held.len() + piece.len();
        if wanted > self.held.capacity() {
            let doubled = (self.held.capacity() * 2).min(self.limit.saturating_add(1));
            self.held
                .reserve_exact(wanted.max(doubled) - self.held.len());
        }
        self.held.extend_from_slice(piece);
    }

    fn line(&mut self, bytes: &[u8]) -> (usize, Step) {
        let newline = memchr::memchr(b'\n', bytes);
        let take = newline.map_or(bytes.len(), |at| at + 1);
        if self.skip == Skip::Line {
            if newline.is_some() {
                self.skip = Skip::Nothing;
            }
            return (take, Step::More);
        }
        // The line's length without its newline, were this piece added.
        let length = self.held.len() + take - usize::from(newline.is_some());
        if length > self.limit {
            self.clear();
            if newline.is_none() {
                self.skip = Skip::Line;
            }
            return (take, Step::Refused(FrameError::TooLarge));
        }
        self.hold(&bytes[..take]);
        if newline.is_none() {
            return (take, Step::More);
        }
        if !self.blank_lines && is_blank(&self.held) {
            self.clear();
            return (take, Step::More);
        }
        (take, Step::Event)
    }

    fn frame(&mut self, bytes: &[u8]) -> (usize, Step) {
        if let Skip::Bytes(left) = self.skip {
            let take = bytes.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            self.skip = match left - take as u64 {
                0 => Skip::Nothing,
                left => Skip::Bytes(left),
            };
            return (take, Step::More);
        }
        let mut taken = 0;
        if self.held.len() < 4 {
            taken = bytes.len().min(4 - self.held.len());
            self.held.extend_from_slice(&bytes[..taken]);
            if self.held.len() < 4 {
                return (taken, Step::More);
            }
            let len = frame_len(&self.held);
            if len > self.limit {
                self.clear();
                self.skip = Skip::Bytes(len as u64);
                return (taken, Step::Refused(FrameError::TooLarge));
            }
            self.held.reserve_exact(len);
        }
        let whole = 4 + frame_len(&self.held);
        let take = (bytes.len() - taken).min(whole - self.held.len());
        self.held.extend_from_slice(&bytes[taken..taken + take]);
        let step = match self.held.len() == whole {
            true => Step::Event,
            false => Step::More,
        };
        (taken + take, step)
    }

    fn item(&mut self, bytes: &[u8]) -> (usize, Step) {
        let before = self.held.len();
        let take = bytes.len().min(self.limit.saturating_add(1) - before);
        // An item that begins in these bytes is read where it lies, and only its own bytes
        // are copied; one begun in an earlier piece is read from what is held.
        let found = if before == 0 {
            cbor::item_len(&bytes[..take])
        } else {
            self.hold(&bytes[..take]);
            cbor::item_len(&self.held)
        };
        let refused = match found {
            Ok(Some(len)) if len <= self.limit => {
                match before {
                    0 => self.hold(&bytes[..len]),
                    _ => self.held.truncate(len),
                }
                return (len - before, Step::Event);
            }
            Ok(None) if before + take <= self.limit => {
                if before == 0 {
                    self.hold(&bytes[..take]);
                }
                return (take, Step::More);
            }
            Ok(_) => {
                self.clear();
                FrameError::TooLarge
            }
            Err(e) => {
                if before == 0 {
                    self.hold(&bytes[..take]);
                }
                FrameError::Malformed(e.to_string())
            }
        };
        self.skip = Skip::Refused(refused.clone());
        (take, Step::Refused(refused))
    }
}

/// The length a protobuf frame's 4-byte header says its message has.
fn frame_len(held: &[u8]) -> usize {
    u32::from_be_bytes([held[0], held[1], held[2], held[3]]) as usize
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests;
