//! The CBOR encoding (RFC 8949) kube-apiserver serves custom resources in when its gate
//! `CBORServingAndStorage` is on (KEP-4222), read without schemas: where a data item ends (a
//! watch is an RFC 8742 sequence of them, with no framing), a LIST's `ListMeta` and items, a
//! `WatchEvent`, a `Status`, an object's identity, and a digest of an item's value.
//!
//! What the server's encoder does that shapes this reader: every top-level item, and every
//! object embedded in a watch event, is enclosed in the self-described tag 55799 (skipped
//! wherever it stands); Go strings, map keys included, are byte strings, not text strings (the two
//! are read alike); and map entries come in a random order each time (`SortFastShuffle`), so two
//! encodings of one object differ in their bytes and are compared by [`digest`].
//!
//! Every function takes any bytes: what is not well-formed, or nests deeper than [`MAX_DEPTH`],
//! is an error, and no length read from the input is allocated before its bytes are there.

mod hash;
mod objects;
mod read;

pub use super::protobuf::{ListMeta, Status};
pub use hash::digest;
pub use objects::{label, list, meta, status, watch_event, Event, List, Meta};
pub use read::item_len;

/// The media type of one data item (a LIST's body, or what a client asks a watch for).
pub const MEDIA_TYPE: &str = "application/cbor";

/// The media type of a watch's response: a sequence of data items (RFC 8742).
pub const SEQUENCE_MEDIA_TYPE: &str = "application/cbor-seq";

/// The tag "self-described CBOR" (RFC 8949 section 3.4.6), which changes nothing of what it
/// encloses; its head is the bytes `d9 d9 f7`.
const SELF_DESCRIBED: u64 = 55799;

/// How deep arrays, maps, chunked strings and tags may nest: serde_json's limit, which the
/// JSON path of this crate has.
pub const MAX_DEPTH: usize = 128;

/// Why bytes are not what the encoding says they should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(String);

impl From<&str> for DecodeError {
    fn from(what: &str) -> Self {
        DecodeError(what.to_string())
    }
}

impl From<String> for DecodeError {
    fn from(what: String) -> Self {
        DecodeError(what)
    }
}

/// The result of reading CBOR.
pub type Result<T> = std::result::Result<T, DecodeError>;

#[cfg(test)]
pub(crate) mod tests;
