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

use std::borrow::Cow;
use std::hash::{DefaultHasher, Hasher};
use std::ops::Range;

use super::protobuf::INITIAL_EVENTS_END;
pub use super::protobuf::{ListMeta, Status};

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

/// The head of a data item: its major type, additional information and argument (a value, a
/// length, a count or a tag number), and how many bytes the head takes.
#[derive(Debug, Clone, Copy)]
struct Head {
    major: u8,
    info: u8,
    arg: u64,
    len: usize,
}

impl Head {
    fn indefinite(&self) -> bool {
        self.info == 31
    }

    fn is_break(&self) -> bool {
        self.major == 7 && self.info == 31
    }
}

/// The head at the start of `bytes`; `None` while it has not all arrived.
fn head(bytes: &[u8]) -> Result<Option<Head>> {
    let Some(&first) = bytes.first() else {
        return Ok(None);
    };
    let (major, info) = (first >> 5, first & 0x1f);
    let (arg, len) = match info {
        0..=23 => (u64::from(info), 1),
        24..=27 => {
            let size = 1usize << (info - 24);
            let Some(argument) = bytes.get(1..1 + size) else {
                return Ok(None);
            };
            let arg = argument
                .iter()
                .fold(0u64, |arg, byte| arg << 8 | u64::from(*byte));
            (arg, 1 + size)
        }
        31 if matches!(major, 2..=5 | 7) => (0, 1),
        31 => return Err(format!("major type {major} has no indefinite length").into()),
        _ => return Err(format!("additional information {info} is reserved").into()),
    };
    if major == 7 && info == 24 && arg < 32 {
        return Err("a simple value below 32 in two bytes".into());
    }
    Ok(Some(Head {
        major,
        info,
        arg,
        len,
    }))
}

/// What an item being read still waits for.
enum Frame {
    /// This many more items (an array's elements, a map's keys and values, a tag's content).
    Count(u64),
    /// Items until a break; for a map, whether a key waits for its value.
    Indefinite { map: bool, odd: bool },
    /// Chunks of an indefinite-length string of this major type, until a break.
    Chunks(u8),
}

/// The length in bytes of the first whole data item of `bytes` (tags included); `Ok(None)` while
/// `bytes` holds only the beginning of one (more must arrive); an error when what is there cannot
/// begin a well-formed item, or nests deeper than [`MAX_DEPTH`]. Read without recursion, and
/// with nothing allocated but one frame per level.
pub fn item_len(bytes: &[u8]) -> Result<Option<usize>> {
    let mut frames: Vec<Frame> = Vec::new();
    let mut at = 0;
    // A tag's head was read and its content has not begun.
    let mut tagged = false;
    loop {
        let Some(h) = head(bytes.get(at..).unwrap_or_default())? else {
            return Ok(None);
        };
        at += h.len;
        if let Some(Frame::Chunks(major)) = frames.last() {
            if !h.is_break() && (h.major != *major || h.indefinite()) {
                return Err(
                    "a chunk of an indefinite-length string is not a definite string of its type"
                        .into(),
                );
            }
        }
        if h.is_break() && tagged {
            return Err("a tag without content".into());
        }
        tagged = h.major == 6;
        let complete = match h.major {
            7 if h.is_break() => match frames.pop() {
                Some(Frame::Chunks(_)) => true,
                Some(Frame::Indefinite { odd: false, .. }) => true,
                Some(Frame::Indefinite { odd: true, .. }) => {
                    return Err("a map ends between a key and its value".into())
                }
                _ => return Err("a break outside an indefinite-length item".into()),
            },
            0 | 1 | 7 => true,
            2 | 3 if h.indefinite() => {
                push(&mut frames, Frame::Chunks(h.major))?;
                false
            }
            2 | 3 => {
                let end = usize::try_from(h.arg)
                    .ok()
                    .and_then(|len| at.checked_add(len))
                    .filter(|end| isize::try_from(*end).is_ok())
                    .ok_or("a string longer than memory can hold")?;
                if end > bytes.len() {
                    return Ok(None);
                }
                at = end;
                true
            }
            4 | 5 if h.indefinite() => {
                let map = h.major == 5;
                push(&mut frames, Frame::Indefinite { map, odd: false })?;
                false
            }
            4 | 5 => {
                let count = if h.major == 5 {
                    h.arg
                        .checked_mul(2)
                        .ok_or("a map longer than memory can hold")?
                } else {
                    h.arg
                };
                if count > 0 {
                    push(&mut frames, Frame::Count(count))?;
                }
                count == 0
            }
            // The self-described tag needs no frame: a chain of them nests nothing.
            _ if h.arg == SELF_DESCRIBED => false,
            _ => {
                push(&mut frames, Frame::Count(1))?;
                false
            }
        };
        if complete {
            loop {
                match frames.last_mut() {
                    None => return Ok(Some(at)),
                    Some(Frame::Count(left)) => {
                        *left -= 1;
                        if *left > 0 {
                            break;
                        }
                        frames.pop();
                    }
                    Some(Frame::Indefinite { map, odd }) => {
                        *odd = *map && !*odd;
                        break;
                    }
                    Some(Frame::Chunks(_)) => break,
                }
            }
        }
    }
}

/// Adds a level to what [`item_len`] waits for, unless there are [`MAX_DEPTH`] already.
fn push(frames: &mut Vec<Frame>, frame: Frame) -> Result<()> {
    if frames.len() >= MAX_DEPTH {
        return Err(too_deep());
    }
    frames.push(frame);
    Ok(())
}

fn too_deep() -> DecodeError {
    format!("items nest deeper than {MAX_DEPTH} levels").into()
}

/// Checks that `bytes` are exactly one well-formed item.
fn whole(bytes: &[u8]) -> Result<()> {
    match item_len(bytes)? {
        Some(len) if len == bytes.len() => Ok(()),
        Some(_) => Err("bytes follow the data item".into()),
        None if bytes.is_empty() => Err("no data item".into()),
        None => Err("the data item is cut short".into()),
    }
}

/// The head at `at` of a whole item.
fn head_at(bytes: &[u8], at: usize) -> Result<Head> {
    head(bytes.get(at..).unwrap_or_default())?.ok_or_else(|| "a data item is cut short".into())
}

/// Where the item that starts at `at` ends.
fn end(bytes: &[u8], at: usize) -> Result<usize> {
    match item_len(bytes.get(at..).unwrap_or_default())? {
        Some(len) => Ok(at + len),
        None => Err("a data item is cut short".into()),
    }
}

/// `at` past any self-described tags.
fn untag(bytes: &[u8], mut at: usize) -> Result<usize> {
    loop {
        let h = head_at(bytes, at)?;
        if h.major != 6 || h.arg != SELF_DESCRIBED {
            return Ok(at);
        }
        at += h.len;
    }
}

/// The content of the definite-length string whose head `h` is at `at`.
fn definite(bytes: &[u8], at: usize, h: Head) -> Result<Range<usize>> {
    let start = at + h.len;
    usize::try_from(h.arg)
        .ok()
        .and_then(|len| start.checked_add(len))
        .filter(|end| *end <= bytes.len())
        .map(|end| start..end)
        .ok_or_else(|| "a string runs past the end of its item".into())
}

/// A string item's content, and where it lies when it is one piece (not chunked).
struct Str<'a> {
    bytes: Cow<'a, [u8]>,
    range: Option<Range<usize>>,
}

/// The string at `at` (text or bytes alike), with where it ends; `None` if it is no string.
fn string(bytes: &[u8], at: usize) -> Result<Option<(Str<'_>, usize)>> {
    let at = untag(bytes, at)?;
    let h = head_at(bytes, at)?;
    if h.major != 2 && h.major != 3 {
        return Ok(None);
    }
    if !h.indefinite() {
        let range = definite(bytes, at, h)?;
        let end = range.end;
        let content = Str {
            bytes: Cow::Borrowed(&bytes[range.clone()]),
            range: Some(range),
        };
        return Ok(Some((content, end)));
    }
    let mut content = Vec::new();
    let mut at = at + h.len;
    loop {
        let chunk = head_at(bytes, at)?;
        if chunk.is_break() {
            let content = Str {
                bytes: Cow::Owned(content),
                range: None,
            };
            return Ok(Some((content, at + 1)));
        }
        if chunk.major != h.major || chunk.indefinite() {
            return Err("a chunk of an indefinite-length string is not a definite string".into());
        }
        let range = definite(bytes, at, chunk)?;
        at = range.end;
        content.extend_from_slice(&bytes[range]);
    }
}

/// Whether an array or a map has another element at `at`: `left` of a definite length, or
/// until a break for an indefinite one (`left` is `None`).
fn more(bytes: &[u8], at: usize, left: Option<u64>) -> bool {
    match left {
        Some(left) => left > 0,
        // Past the end is "more": reading it fails, rather than the item ending quietly.
        None => bytes.get(at) != Some(&0xff),
    }
}

/// Whether the item at `at` is null (or undefined, which Go reads as null).
fn is_null(bytes: &[u8], at: usize) -> Result<bool> {
    let at = untag(bytes, at)?;
    Ok(matches!(bytes.get(at), Some(0xf6 | 0xf7)))
}

/// The integer at `at`; `None` if it is no integer.
fn integer(bytes: &[u8], at: usize) -> Result<Option<i128>> {
    let at = untag(bytes, at)?;
    let h = head_at(bytes, at)?;
    Ok(match h.major {
        0 => Some(i128::from(h.arg)),
        1 => Some(-1 - i128::from(h.arg)),
        _ => None,
    })
}

/// The elements of the array at `at` (each item's range, tags included); `None` if it is no
/// array.
fn elements(bytes: &[u8], at: usize) -> Result<Option<Vec<Range<usize>>>> {
    let at = untag(bytes, at)?;
    let h = head_at(bytes, at)?;
    if h.major != 4 {
        return Ok(None);
    }
    let mut at = at + h.len;
    let mut out = Vec::new();
    let mut left = (!h.indefinite()).then_some(h.arg);
    while more(bytes, at, left) {
        let item_end = end(bytes, at)?;
        out.push(at..item_end);
        at = item_end;
        left = left.map(|left| left - 1);
    }
    Ok(Some(out))
}

/// A map entry whose key is a string: the key's content, and where its value starts.
type Entry<'a> = (Cow<'a, [u8]>, usize);

/// The entries of the map at `at` whose keys are strings: each key's content and where its
/// value starts; `None` if it is no map. Keys repeated (as text or as bytes) are an error, as
/// they are to the server's decoder.
fn entries(bytes: &[u8], at: usize) -> Result<Option<Vec<Entry<'_>>>> {
    let at = untag(bytes, at)?;
    let h = head_at(bytes, at)?;
    if h.major != 5 {
        return Ok(None);
    }
    let mut at = at + h.len;
    let mut out = Vec::new();
    let mut left = (!h.indefinite()).then_some(h.arg);
    while more(bytes, at, left) {
        let value = end(bytes, at)?;
        if let Some((key, _)) = string(bytes, at)? {
            out.push((key.bytes, value));
        }
        at = end(bytes, value)?;
        left = left.map(|left| left - 1);
    }
    let mut keys: Vec<&[u8]> = out.iter().map(|(key, _)| &**key).collect();
    keys.sort_unstable();
    if keys.windows(2).any(|pair| pair[0] == pair[1]) {
        return Err("a map repeats a key".into());
    }
    Ok(Some(out))
}

/// The string entries of the map at `at`, or an error naming `what` if it is no map.
fn map<'a>(bytes: &'a [u8], at: usize, what: &str) -> Result<Vec<Entry<'a>>> {
    entries(bytes, at)?.ok_or_else(|| format!("{what} is not a map").into())
}

/// The string at `at` as text; `None` if null; an error if it is not a string or not UTF-8.
fn text(bytes: &[u8], at: usize, what: &str) -> Result<Option<String>> {
    if is_null(bytes, at)? {
        return Ok(None);
    }
    let (content, _) = string(bytes, at)?.ok_or_else(|| format!("{what} is not a string"))?;
    String::from_utf8(content.bytes.into_owned())
        .map(Some)
        .map_err(|_| format!("{what} is not UTF-8").into())
}

/// The string at `at` as text, lossily; `None` if it is no string.
fn lossy(bytes: &[u8], at: usize) -> Result<Option<String>> {
    Ok(string(bytes, at)?.map(|(content, _)| String::from_utf8_lossy(&content.bytes).into_owned()))
}

/// Where the content of the string at `at` lies; `None` if null; an error if it is not a
/// string, is chunked (it has no one range) or is not UTF-8.
fn identity(bytes: &[u8], at: usize, what: &str) -> Result<Option<Range<usize>>> {
    if is_null(bytes, at)? {
        return Ok(None);
    }
    let (content, _) = string(bytes, at)?.ok_or_else(|| format!("{what} is not a string"))?;
    let range = content
        .range
        .ok_or_else(|| format!("{what} is an indefinite-length string"))?;
    std::str::from_utf8(&content.bytes).map_err(|_| format!("{what} is not UTF-8"))?;
    Ok(Some(range))
}

/// One event of a watch: its type, and the bytes of its object (one item, tag included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event<'a> {
    pub event_type: String,
    pub object: &'a [u8],
}

/// Reads one item of a watch's sequence, a `metav1.WatchEvent` map: `type` and `object`.
pub fn watch_event(item: &[u8]) -> Result<Event<'_>> {
    whole(item)?;
    let (mut event_type, mut object) = (None, None);
    for (key, at) in map(item, 0, "the watch event")? {
        match &*key {
            b"type" => event_type = text(item, at, "the watch event's type")?,
            b"object" => object = Some(&item[at..end(item, at)?]),
            _ => {}
        }
    }
    Ok(Event {
        event_type: event_type.ok_or("the watch event has no type")?,
        object: object.ok_or("the watch event has no object")?,
    })
}

/// A LIST response: its `ListMeta`, and each item's bytes (one whole item each).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct List<'a> {
    pub meta: ListMeta,
    pub items: Vec<&'a [u8]>,
}

/// Reads a LIST response, which must be exactly one item: a map of `metadata` (a `ListMeta`:
/// `resourceVersion`, `continue`, `remainingItemCount`) and `items` (an array, or null when
/// empty); its `kind` and `apiVersion` are not read.
pub fn list(body: &[u8]) -> Result<List<'_>> {
    whole(body)?;
    let mut out = List::default();
    for (key, at) in map(body, 0, "the list")? {
        match &*key {
            b"metadata" if is_null(body, at)? => {}
            b"metadata" => out.meta = list_meta(body, at)?,
            b"items" if is_null(body, at)? => {}
            b"items" => {
                let items = elements(body, at)?.ok_or("the list's items are not an array")?;
                out.items = items.into_iter().map(|item| &body[item]).collect();
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Reads the `ListMeta` map at `at`.
fn list_meta(body: &[u8], at: usize) -> Result<ListMeta> {
    let mut out = ListMeta::default();
    for (key, at) in map(body, at, "the list's metadata")? {
        match &*key {
            b"resourceVersion" => {
                out.resource_version =
                    text(body, at, "metadata.resourceVersion")?.unwrap_or_default()
            }
            b"continue" => {
                out.continue_token =
                    text(body, at, "metadata.continue")?.filter(|token| !token.is_empty())
            }
            b"remainingItemCount" if is_null(body, at)? => {}
            b"remainingItemCount" => {
                let count =
                    integer(body, at)?.ok_or("metadata.remainingItemCount is not an integer")?;
                out.remaining_item_count = Some(
                    i64::try_from(count).map_err(|_| "metadata.remainingItemCount is too large")?,
                );
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Reads a `metav1.Status` map (an ERROR event's object). A `kind` other than `Status` is an
/// error; fields of other types than a `Status` gives them are left empty.
pub fn status(object: &[u8]) -> Result<Status> {
    whole(object)?;
    let mut out = Status::default();
    for (key, at) in map(object, 0, "the status")? {
        match &*key {
            b"kind" if is_null(object, at)? => {}
            b"kind" if lossy(object, at)?.as_deref() != Some("Status") => {
                return Err("the object's kind is not Status".into())
            }
            b"status" => out.status = lossy(object, at)?.unwrap_or_default(),
            b"message" => out.message = lossy(object, at)?.unwrap_or_default(),
            b"reason" => out.reason = lossy(object, at)?.unwrap_or_default(),
            b"code" => {
                out.code = integer(object, at)?
                    .and_then(|code| u16::try_from(code).ok())
                    .unwrap_or(0)
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Where an object's identity sits in its bytes: each range indexes the object and covers a
/// string's content (`kind`, `apiVersion`, `metadata.name`, ...), checked to be UTF-8.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Meta {
    pub kind: Option<Range<usize>>,
    pub api_version: Option<Range<usize>>,
    pub name: Option<Range<usize>>,
    pub namespace: Option<Range<usize>>,
    pub uid: Option<Range<usize>>,
    pub resource_version: Option<Range<usize>>,
    pub generation: Option<i64>,
    /// The whole `metadata.labels` map item (its entries in the encoder's order, which varies:
    /// compare two objects' labels with [`digest`], read one with [`label`]).
    pub labels: Option<Range<usize>>,
    /// Whether the annotation `k8s.io/initial-events-end` is "true".
    pub initial_events_end: bool,
}

/// Reads the identity of an object, which must be exactly one item, a map. Its `metadata`, if
/// there, must be a map; without one, all is `None`. A field null is as if absent.
pub fn meta(object: &[u8]) -> Result<Meta> {
    whole(object)?;
    let mut out = Meta::default();
    for (key, at) in map(object, 0, "the object")? {
        match &*key {
            b"kind" => out.kind = identity(object, at, "kind")?,
            b"apiVersion" => out.api_version = identity(object, at, "apiVersion")?,
            b"metadata" => object_meta(object, at, &mut out)?,
            _ => {}
        }
    }
    Ok(out)
}

/// Reads the `ObjectMeta` map at `at` of `object` into `out`.
fn object_meta(object: &[u8], at: usize, out: &mut Meta) -> Result<()> {
    for (key, at) in map(object, at, "metadata")? {
        match &*key {
            b"name" => out.name = identity(object, at, "metadata.name")?,
            b"namespace" => out.namespace = identity(object, at, "metadata.namespace")?,
            b"uid" => out.uid = identity(object, at, "metadata.uid")?,
            b"resourceVersion" => {
                out.resource_version = identity(object, at, "metadata.resourceVersion")?
            }
            b"generation" if is_null(object, at)? => {}
            b"generation" => {
                let generation =
                    integer(object, at)?.ok_or("metadata.generation is not an integer")?;
                out.generation = Some(
                    i64::try_from(generation).map_err(|_| "metadata.generation is too large")?,
                );
            }
            b"labels" if is_null(object, at)? => {}
            b"labels" => {
                map(object, at, "metadata.labels")?;
                out.labels = Some(at..end(object, at)?);
            }
            b"annotations" if is_null(object, at)? => {}
            b"annotations" => {
                for (key, value) in map(object, at, "metadata.annotations")? {
                    if *key == *INITIAL_EVENTS_END.as_bytes() {
                        out.initial_events_end = string(object, value)?
                            .is_some_and(|(content, _)| *content.bytes == *b"true");
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The value of label `key` in a labels map item (the bytes of [`Meta::labels`]); `None` when
/// it is not there, is not a string, or `labels` is not a map.
pub fn label(labels: &[u8], key: &str) -> Option<String> {
    whole(labels).ok()?;
    let entries = entries(labels, 0).ok()??;
    let (_, at) = entries.into_iter().find(|(k, _)| **k == *key.as_bytes())?;
    lossy(labels, at).ok()?
}

/// A digest of the item's value that does not depend on how it was encoded: map entries in any
/// order, integers of any width, a text or a byte string of the same bytes, a float of any width
/// for the same value, self-described tags or none, definite or indefinite lengths all give the
/// same digest; different values give different ones (with the odds of a 64-bit hash). Integers
/// and floats are different values, as are other tags and their content alone; NaNs are one
/// value. `item` must be exactly one item.
pub fn digest(item: &[u8]) -> Result<u64> {
    whole(item)?;
    Ok(value_digest(item, 0, 0)?.0)
}

/// The digest of the item at `at`, nested `depth` levels deep, and where it ends.
fn value_digest(bytes: &[u8], at: usize, depth: usize) -> Result<(u64, usize)> {
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let at = untag(bytes, at)?;
    let h = head_at(bytes, at)?;
    let mut hasher = DefaultHasher::new();
    let mut end = at + h.len;
    // Each kind of value writes a distinct first byte, and what follows has a fixed length or
    // ends with one, so that no two values write the same bytes.
    match h.major {
        0 | 1 => {
            let value = integer(bytes, at)?.unwrap_or_default();
            hasher.write_u8(b'i');
            hasher.write_i128(value);
        }
        2 | 3 => {
            let (content, string_end) = string(bytes, at)?.ok_or("a string cannot be read")?;
            hasher.write_u8(b's');
            hasher.write(&content.bytes);
            hasher.write_u64(content.bytes.len() as u64);
            end = string_end;
        }
        4 | 5 => {
            let mut digests = Vec::new();
            let mut left = (!h.indefinite()).then_some(h.arg);
            while more(bytes, end, left) {
                let (element, element_end) = value_digest(bytes, end, depth + 1)?;
                end = element_end;
                if h.major == 5 {
                    let (value, value_end) = value_digest(bytes, end, depth + 1)?;
                    end = value_end;
                    let mut entry = DefaultHasher::new();
                    entry.write_u8(b'e');
                    entry.write_u64(element);
                    entry.write_u64(value);
                    digests.push(entry.finish());
                } else {
                    digests.push(element);
                }
                left = left.map(|left| left - 1);
            }
            if h.indefinite() {
                end += 1;
            }
            if h.major == 5 {
                // The entries' order is the encoder's whim: hash them sorted.
                digests.sort_unstable();
            }
            hasher.write_u8(if h.major == 5 { b'm' } else { b'a' });
            for digest in &digests {
                hasher.write_u64(*digest);
            }
            hasher.write_u64(digests.len() as u64);
        }
        6 => {
            let (content, content_end) = value_digest(bytes, end, depth + 1)?;
            hasher.write_u8(b't');
            hasher.write_u64(h.arg);
            hasher.write_u64(content);
            end = content_end;
        }
        _ => match h.info {
            25..=27 => {
                let value = match h.info {
                    25 => f16_to_f64(h.arg as u16),
                    26 => f64::from(f32::from_bits(h.arg as u32)),
                    _ => f64::from_bits(h.arg),
                };
                let value = if value.is_nan() { f64::NAN } else { value };
                hasher.write_u8(b'f');
                hasher.write_u64(value.to_bits());
            }
            31 => return Err("a break outside an indefinite-length item".into()),
            _ => {
                hasher.write_u8(b'v');
                hasher.write_u64(h.arg);
            }
        },
    }
    Ok((hasher.finish(), end))
}

/// An IEEE 754 half-precision float's value.
fn f16_to_f64(half: u16) -> f64 {
    let sign = if half & 0x8000 == 0 { 1.0 } else { -1.0 };
    let exponent = i32::from((half >> 10) & 0x1f);
    let mantissa = f64::from(half & 0x3ff);
    sign * match exponent {
        0 => mantissa * 2f64.powi(-24),
        31 if mantissa == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (mantissa + 1024.0) * 2f64.powi(exponent - 25),
    }
}

#[cfg(test)]
pub(crate) mod tests;
