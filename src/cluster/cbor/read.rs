//! Reading an item's bytes: heads, where an item ends ([`item_len`]), and the strings,
//! integers, arrays and maps in an item, each found by where it starts. Tags 55799 are skipped
//! wherever they stand.

use super::{DecodeError, Result, MAX_DEPTH, SELF_DESCRIBED};
use std::borrow::Cow;
use std::ops::Range;

/// The head of a data item: its major type, additional information and argument (a value, a
/// length, a count or a tag number), and how many bytes the head takes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Head {
    pub(super) major: u8,
    pub(super) info: u8,
    pub(super) arg: u64,
    pub(super) len: usize,
}

impl Head {
    pub(super) fn indefinite(&self) -> bool {
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
        check_place(&frames, &h, tagged)?;
        tagged = h.major == 6;
        let complete = match h.major {
            7 if h.is_break() => close_indefinite(&mut frames)?,
            0 | 1 | 7 => true,
            2 | 3 if h.indefinite() => {
                push(&mut frames, Frame::Chunks(h.major))?;
                false
            }
            2 | 3 => {
                let Some(end) = string_end(bytes, at, &h)? else {
                    return Ok(None);
                };
                at = end;
                true
            }
            4 | 5 if h.indefinite() => {
                let map = h.major == 5;
                push(&mut frames, Frame::Indefinite { map, odd: false })?;
                false
            }
            4 | 5 => open_definite(&mut frames, &h)?,
            // The self-described tag needs no frame: a chain of them nests nothing.
            _ if h.arg == SELF_DESCRIBED => false,
            _ => {
                push(&mut frames, Frame::Count(1))?;
                false
            }
        };
        if complete && count_complete(&mut frames) {
            return Ok(Some(at));
        }
    }
}

/// Refuses a head that cannot stand where it is: inside an indefinite-length string, anything
/// but a definite string of its type or the break; right after a tag, a break.
#[inline]
fn check_place(frames: &[Frame], h: &Head, tagged: bool) -> Result<()> {
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
    Ok(())
}

/// Ends the indefinite-length item a break closes; `true`, as that item is now complete.
#[inline]
fn close_indefinite(frames: &mut Vec<Frame>) -> Result<bool> {
    match frames.pop() {
        Some(Frame::Chunks(_)) => Ok(true),
        Some(Frame::Indefinite { odd: false, .. }) => Ok(true),
        Some(Frame::Indefinite { odd: true, .. }) => {
            Err("a map ends between a key and its value".into())
        }
        _ => Err("a break outside an indefinite-length item".into()),
    }
}

/// Where the definite-length string whose content starts at `at` ends; `None` while its
/// content has not all arrived.
#[inline]
fn string_end(bytes: &[u8], at: usize, h: &Head) -> Result<Option<usize>> {
    let end = usize::try_from(h.arg)
        .ok()
        .and_then(|len| at.checked_add(len))
        .filter(|end| isize::try_from(*end).is_ok())
        .ok_or("a string longer than memory can hold")?;
    Ok((end <= bytes.len()).then_some(end))
}

/// Opens a definite-length array or map: a level that waits for its elements (a map's keys and
/// values); `true` when it has none, and so is already complete.
#[inline]
fn open_definite(frames: &mut Vec<Frame>, h: &Head) -> Result<bool> {
    let count = if h.major == 5 {
        h.arg
            .checked_mul(2)
            .ok_or("a map longer than memory can hold")?
    } else {
        h.arg
    };
    if count > 0 {
        push(frames, Frame::Count(count))?;
    }
    Ok(count == 0)
}

/// Counts an item that just completed in the levels that wait for it, closing each level it
/// completes in turn; `true` when it was the outermost item, whose end is the answer.
#[inline]
fn count_complete(frames: &mut Vec<Frame>) -> bool {
    loop {
        match frames.last_mut() {
            None => return true,
            Some(Frame::Count(left)) => {
                *left -= 1;
                if *left > 0 {
                    return false;
                }
                frames.pop();
            }
            Some(Frame::Indefinite { map, odd }) => {
                *odd = *map && !*odd;
                return false;
            }
            Some(Frame::Chunks(_)) => return false,
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

pub(super) fn too_deep() -> DecodeError {
    format!("items nest deeper than {MAX_DEPTH} levels").into()
}

/// Checks that `bytes` are exactly one well-formed item.
pub(super) fn whole(bytes: &[u8]) -> Result<()> {
    match item_len(bytes)? {
        Some(len) if len == bytes.len() => Ok(()),
        Some(_) => Err("bytes follow the data item".into()),
        None if bytes.is_empty() => Err("no data item".into()),
        None => Err("the data item is cut short".into()),
    }
}

/// The head at `at` of a whole item.
pub(super) fn head_at(bytes: &[u8], at: usize) -> Result<Head> {
    head(bytes.get(at..).unwrap_or_default())?.ok_or_else(|| "a data item is cut short".into())
}

/// Where the item that starts at `at` ends.
pub(super) fn end(bytes: &[u8], at: usize) -> Result<usize> {
    match item_len(bytes.get(at..).unwrap_or_default())? {
        Some(len) => Ok(at + len),
        None => Err("a data item is cut short".into()),
    }
}

/// `at` past any self-described tags.
pub(super) fn untag(bytes: &[u8], mut at: usize) -> Result<usize> {
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
pub(super) struct Str<'a> {
    pub(super) bytes: Cow<'a, [u8]>,
    pub(super) range: Option<Range<usize>>,
}

/// The string at `at` (text or bytes alike), with where it ends; `None` if it is no string.
pub(super) fn string(bytes: &[u8], at: usize) -> Result<Option<(Str<'_>, usize)>> {
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
pub(super) fn more(bytes: &[u8], at: usize, left: Option<u64>) -> bool {
    match left {
        Some(left) => left > 0,
        // Past the end is "more": reading it fails, rather than the item ending quietly.
        None => bytes.get(at) != Some(&0xff),
    }
}

/// Whether the item at `at` is null (or undefined, which Go reads as null).
pub(super) fn is_null(bytes: &[u8], at: usize) -> Result<bool> {
    let at = untag(bytes, at)?;
    Ok(matches!(bytes.get(at), Some(0xf6 | 0xf7)))
}

/// The integer at `at`; `None` if it is no integer.
pub(super) fn integer(bytes: &[u8], at: usize) -> Result<Option<i128>> {
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
pub(super) fn elements(bytes: &[u8], at: usize) -> Result<Option<Vec<Range<usize>>>> {
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
pub(super) type Entry<'a> = (Cow<'a, [u8]>, usize);

/// The entries of the map at `at` whose keys are strings: each key's content and where its
/// value starts; `None` if it is no map. Keys repeated (as text or as bytes) are an error, as
/// they are to the server's decoder.
pub(super) fn entries(bytes: &[u8], at: usize) -> Result<Option<Vec<Entry<'_>>>> {
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
pub(super) fn map<'a>(bytes: &'a [u8], at: usize, what: &str) -> Result<Vec<Entry<'a>>> {
    entries(bytes, at)?.ok_or_else(|| format!("{what} is not a map").into())
}

/// The string at `at` as text; `None` if null; an error if it is not a string or not UTF-8.
pub(super) fn text(bytes: &[u8], at: usize, what: &str) -> Result<Option<String>> {
    if is_null(bytes, at)? {
        return Ok(None);
    }
    let (content, _) = string(bytes, at)?.ok_or_else(|| format!("{what} is not a string"))?;
    String::from_utf8(content.bytes.into_owned())
        .map(Some)
        .map_err(|_| format!("{what} is not UTF-8").into())
}

/// The string at `at` as text, lossily; `None` if it is no string.
pub(super) fn lossy(bytes: &[u8], at: usize) -> Result<Option<String>> {
    Ok(string(bytes, at)?.map(|(content, _)| String::from_utf8_lossy(&content.bytes).into_owned()))
}

/// Where the content of the string at `at` lies; `None` if null; an error if it is not a
/// string, is chunked (it has no one range) or is not UTF-8.
pub(super) fn identity(bytes: &[u8], at: usize, what: &str) -> Result<Option<Range<usize>>> {
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
