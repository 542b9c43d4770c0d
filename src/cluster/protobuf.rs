//! The Kubernetes protobuf encoding of built-in types, read without their schemas: the envelope
//! (`k8s\0` and a `runtime.Unknown`), a LIST's `ListMeta` and items, a watch's length-prefixed
//! `WatchEvent` frames, a `Status`, and the `ObjectMeta` every built-in object carries as its
//! field 1. Nothing else of an object is read: the pipeline needs its identity, and compares two
//! versions by their bytes, which the server's encoder writes the same way for the same object
//! (fields in number order, map entries sorted by key).

use std::ops::Range;

/// The media type of the encoding (a watch answers with `;stream=watch` appended).
pub const MEDIA_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// The annotation on the BOOKMARK that ends a watch-list's initial events (KEP-3157).
pub const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// What precedes every enveloped message.
pub const MAGIC: &[u8; 4] = b"k8s\0";

/// Why bytes are not what the encoding says they should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DecodeError(String);

impl DecodeError {
    fn new(what: impl Into<String>) -> Self {
        DecodeError(what.into())
    }
}

impl From<&str> for DecodeError {
    fn from(what: &str) -> Self {
        DecodeError::new(what)
    }
}

type Result<T> = std::result::Result<T, DecodeError>;

/// One field's value as the wire spells it.
#[derive(Debug, Clone, Copy)]
enum Value<'a> {
    Varint(u64),
    /// Length-delimited (strings, bytes, messages, map entries), with its offset in the message.
    Bytes(&'a [u8], usize),
    Fixed,
}

/// The fields of one message, in wire order.
struct Fields<'a> {
    buf: &'a [u8],
    at: usize,
}

fn fields(buf: &[u8]) -> Fields<'_> {
    Fields { buf, at: 0 }
}

impl Fields<'_> {
    fn varint(&mut self) -> Result<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.buf.get(self.at) else {
                return Err(DecodeError::new(
                    "a varint runs past the end of its message",
                ));
            };
            self.at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::new("a varint longer than 10 bytes"))
    }

    fn skip(&mut self, len: usize) -> Result<Range<usize>> {
        let start = self.at;
        let end = start
            .checked_add(len)
            .filter(|end| *end <= self.buf.len())
            .ok_or_else(|| DecodeError::new("a field runs past the end of its message"))?;
        self.at = end;
        Ok(start..end)
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u64, Value<'a>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.buf.len() {
            return None;
        }
        let field = (|| {
            let key = self.varint()?;
            let value = match key & 7 {
                0 => Value::Varint(self.varint()?),
                1 => {
                    self.skip(8)?;
                    Value::Fixed
                }
                2 => {
                    let len = usize::try_from(self.varint()?)
                        .map_err(|_| DecodeError::new("a length past the address space"))?;
                    let range = self.skip(len)?;
                    Value::Bytes(&self.buf[range.clone()], range.start)
                }
                5 => {
                    self.skip(4)?;
                    Value::Fixed
                }
                wire => return Err(DecodeError::new(format!("wire type {wire} is not read"))),
            };
            Ok((key >> 3, value))
        })();
        if field.is_err() {
            self.at = self.buf.len();
        }
        Some(field)
    }
}

fn text(bytes: &[u8], what: &str) -> Result<String> {
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| DecodeError::new(format!("{what} is not UTF-8")))
}

/// An enveloped message: the type it says it is, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope<'a> {
    pub api_version: String,
    pub kind: String,
    pub raw: &'a [u8],
}

/// Opens an envelope: the magic, then a `runtime.Unknown` (typeMeta 1, raw 2, contentEncoding 3).
pub fn envelope(bytes: &[u8]) -> Result<Envelope<'_>> {
    let unknown = bytes.strip_prefix(MAGIC.as_slice()).ok_or_else(|| {
        DecodeError::new("the body does not start with the protobuf magic k8s\\0")
    })?;
    let mut out = Envelope {
        api_version: String::new(),
        kind: String::new(),
        raw: &[],
    };
    for field in fields(unknown) {
        match field? {
            (1, Value::Bytes(type_meta, _)) => {
                for field in fields(type_meta) {
                    match field? {
                        (1, Value::Bytes(v, _)) => out.api_version = text(v, "apiVersion")?,
                        (2, Value::Bytes(v, _)) => out.kind = text(v, "kind")?,
                        _ => {}
                    }
                }
            }
            (2, Value::Bytes(raw, _)) => out.raw = raw,
            (3, Value::Bytes(encoding, _)) if !encoding.is_empty() => {
                return Err(DecodeError::new(format!(
                    "content encoding {} is not read",
                    String::from_utf8_lossy(encoding)
                )))
            }
            _ => {}
        }
    }
    Ok(out)
}

/// A LIST response's `ListMeta` (read from protobuf here, and from CBOR by `cbor::list`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ListMeta {
    pub resource_version: String,
    pub continue_token: Option<String>,
    pub remaining_item_count: Option<i64>,
}

/// A LIST response read as it arrives: each item is handed over as soon as its bytes are in,
/// so that what is held is one item and one piece of the body, never the whole page. The body is
/// an envelope whose `raw` is a `...List` message: `metadata` (1) and `items` (2), as every
/// built-in list has them.
#[derive(Debug, Default)]
pub struct ListReader {
    /// Bytes received and not yet read.
    pending: Vec<u8>,
    state: ListState,
    /// The `ListMeta`, once read.
    pub meta: ListMeta,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum ListState {
    /// Before the magic.
    #[default]
    Magic,
    /// Among the envelope's fields.
    Envelope,
    /// Inside the envelope's `raw` (the list message), this many bytes of it still to read.
    Raw(usize),
}

/// A field's key and length-or-value at `at` of `buf`, and the bytes the header takes; `None`
/// while they have not all arrived.
fn header(buf: &[u8]) -> Result<Option<(u64, u64, u64, usize)>> {
    let mut fields = fields(buf);
    let key = match fields.varint() {
        Ok(key) => key,
        Err(_) if buf.len() < 10 => return Ok(None),
        Err(e) => return Err(e),
    };
    let value = match key & 7 {
        0 | 2 => match fields.varint() {
            Ok(v) => v,
            Err(_) if buf.len() < fields.at + 10 => return Ok(None),
            Err(e) => return Err(e),
        },
        1 => 8,
        5 => 4,
        wire => return Err(DecodeError::new(format!("wire type {wire} is not read"))),
    };
    Ok(Some((key >> 3, key & 7, value, fields.at)))
}

impl ListReader {
    /// Takes the next piece of the body; calls `item` with each whole item it completes.
    pub fn push(
        &mut self,
        piece: &[u8],
        item: &mut dyn FnMut(&[u8]) -> std::result::Result<(), String>,
    ) -> std::result::Result<(), String> {
        self.pending.extend_from_slice(piece);
        let mut at = 0;
        let result = self.read(&mut at, item);
        self.pending.drain(..at);
        result
    }

    fn read(
        &mut self,
        at: &mut usize,
        item: &mut dyn FnMut(&[u8]) -> std::result::Result<(), String>,
    ) -> std::result::Result<(), String> {
        loop {
            let buf = &self.pending[*at..];
            match self.state {
                ListState::Magic => {
                    if buf.len() < MAGIC.len() {
                        return Ok(());
                    }
                    if &buf[..MAGIC.len()] != MAGIC.as_slice() {
                        return Err("the body does not start with the protobuf magic k8s\\0".into());
                    }
                    *at += MAGIC.len();
                    self.state = ListState::Envelope;
                }
                ListState::Envelope | ListState::Raw(_) => {
                    if let ListState::Raw(0) = self.state {
                        self.state = ListState::Envelope;
                        continue;
                    }
                    let Some((field, wire, value, header_len)) =
                        header(buf).map_err(|e| e.to_string())?
                    else {
                        return Ok(());
                    };
                    let body_len = if wire == 2 || wire == 1 || wire == 5 {
                        usize::try_from(value).map_err(|_| "a length past the address space")?
                    } else {
                        0
                    };
                    let whole = header_len.saturating_add(body_len);
                    if let ListState::Raw(left) = self.state {
                        if whole > left {
                            return Err("an item runs past the end of its list".into());
                        }
                    } else if field == 2 && wire == 2 {
                        // The list message itself: read field by field, not whole.
                        *at += header_len;
                        self.state = ListState::Raw(body_len);
                        continue;
                    }
                    if buf.len() < whole {
                        return Ok(());
                    }
                    let bytes = &buf[header_len..whole];
                    match (self.state, field, wire) {
                        (ListState::Raw(_), 1, 2) => {
                            list_meta(bytes, &mut self.meta).map_err(|e| e.to_string())?
                        }
                        (ListState::Raw(_), 2, 2) => item(bytes)?,
                        (ListState::Envelope, 3, 2) if !bytes.is_empty() => {
                            return Err(format!(
                                "content encoding {} is not read",
                                String::from_utf8_lossy(bytes)
                            ))
                        }
                        _ => {}
                    }
                    *at += whole;
                    if let ListState::Raw(left) = &mut self.state {
                        *left -= whole;
                    }
                }
            }
        }
    }

    /// The end of the body: refused unless it ended between the envelope's fields.
    pub fn finish(&self) -> std::result::Result<(), String> {
        if self.state == ListState::Envelope && self.pending.is_empty() {
            Ok(())
        } else {
            Err("the LIST response ended in the middle of a message".into())
        }
    }
}

/// Reads a `ListMeta` (resourceVersion 2, continue 3, remainingItemCount 4) into `out`.
fn list_meta(meta: &[u8], out: &mut ListMeta) -> Result<()> {
    for field in fields(meta) {
        match field? {
            (2, Value::Bytes(v, _)) => out.resource_version = text(v, "resourceVersion")?,
            (3, Value::Bytes(v, _)) if !v.is_empty() => {
                out.continue_token = Some(text(v, "continue")?)
            }
            (4, Value::Varint(v)) => out.remaining_item_count = Some(v as i64),
            _ => {}
        }
    }
    Ok(())
}

/// One frame of a watch: the event's type and its object, still enveloped.
#[derive(Debug)]
pub struct Event<'a> {
    pub event_type: String,
    pub object: &'a [u8],
}

/// Reads a `metav1.WatchEvent` (type 1; object 2, a `RawExtension` whose raw is field 1).
pub fn watch_event(frame: &[u8]) -> Result<Event<'_>> {
    let mut out = Event {
        event_type: String::new(),
        object: &[],
    };
    for field in fields(frame) {
        match field? {
            (1, Value::Bytes(v, _)) => out.event_type = text(v, "the event's type")?,
            (2, Value::Bytes(extension, _)) => {
                for field in fields(extension) {
                    if let (1, Value::Bytes(raw, _)) = field? {
                        out.object = raw;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The fields of a `metav1.Status` a client reads (from protobuf here, and from CBOR by
/// `cbor::status`).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Status {
    pub status: String,
    pub message: String,
    pub reason: String,
    pub code: u16,
}

/// Reads a `metav1.Status` (status 2, message 3, reason 4, code 6).
pub fn status(raw: &[u8]) -> Result<Status> {
    let mut out = Status::default();
    for field in fields(raw) {
        match field? {
            (2, Value::Bytes(v, _)) => out.status = String::from_utf8_lossy(v).into_owned(),
            (3, Value::Bytes(v, _)) => out.message = String::from_utf8_lossy(v).into_owned(),
            (4, Value::Bytes(v, _)) => out.reason = String::from_utf8_lossy(v).into_owned(),
            (6, Value::Varint(v)) => out.code = u16::try_from(v).unwrap_or(0),
            _ => {}
        }
    }
    Ok(out)
}

/// Where an object's identity sits in its bytes (ranges of the object message), read from its
/// `ObjectMeta` (field 1): name 1, namespace 3, uid 5, resourceVersion 6, generation 7,
/// labels 11, annotations 12.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Meta {
    pub name: Option<Range<usize>>,
    pub namespace: Option<Range<usize>>,
    pub uid: Option<Range<usize>>,
    pub resource_version: Option<Range<usize>>,
    pub generation: Option<i64>,
    /// From the first label entry to the end of the last (the encoder writes them together,
    /// sorted by key), so two objects' labels compare as bytes.
    pub labels: Option<Range<usize>>,
    /// Whether the annotation `k8s.io/initial-events-end` is "true".
    pub initial_events_end: bool,
}

/// Reads the identity of an object message. Strings are checked to be UTF-8.
pub fn meta(object: &[u8]) -> Result<Meta> {
    let mut out = Meta::default();
    let Some((meta, base)) = object_meta(object)? else {
        return Ok(out);
    };
    let string = |v: &[u8], at: usize, what: &str| -> Result<Option<Range<usize>>> {
        std::str::from_utf8(v).map_err(|_| DecodeError::new(format!("{what} is not UTF-8")))?;
        Ok(Some(base + at..base + at + v.len()))
    };
    for field in fields(meta) {
        match field? {
            (1, Value::Bytes(v, at)) => out.name = string(v, at, "metadata.name")?,
            (3, Value::Bytes(v, at)) => out.namespace = string(v, at, "metadata.namespace")?,
            (5, Value::Bytes(v, at)) => out.uid = string(v, at, "metadata.uid")?,
            (6, Value::Bytes(v, at)) => {
                out.resource_version = string(v, at, "metadata.resourceVersion")?
            }
            (7, Value::Varint(v)) => out.generation = Some(v as i64),
            (11, Value::Bytes(v, at)) => {
                // The entry's tag and length precede it: the range starts at the tag.
                let entry_end = base + at + v.len();
                let tag_start = base + at - 1 - varint_len(v.len() as u64);
                out.labels = Some(match out.labels.take() {
                    Some(range) => range.start..entry_end,
                    None => tag_start..entry_end,
                });
            }
            (12, Value::Bytes(v, _)) => {
                let (key, value) = entry(v)?;
                if key == INITIAL_EVENTS_END.as_bytes() {
                    out.initial_events_end = value == b"true";
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The object's `ObjectMeta` bytes and their offset in the object.
fn object_meta(object: &[u8]) -> Result<Option<(&[u8], usize)>> {
    for field in fields(object) {
        if let (1, Value::Bytes(meta, at)) = field? {
            return Ok(Some((meta, at)));
        }
    }
    Ok(None)
}

fn varint_len(mut value: u64) -> usize {
    let mut len = 1;
    while value >= 0x80 {
        value >>= 7;
        len += 1;
    }
    len
}

/// A `map<string, string>` entry: key 1, value 2.
fn entry(bytes: &[u8]) -> Result<(&[u8], &[u8])> {
    let (mut key, mut value): (&[u8], &[u8]) = (&[], &[]);
    for field in fields(bytes) {
        match field? {
            (1, Value::Bytes(v, _)) => key = v,
            (2, Value::Bytes(v, _)) => value = v,
            _ => {}
        }
    }
    Ok((key, value))
}

/// The value of label `key` in the labels range `labels` of `object` (see [`Meta::labels`]).
pub fn label(labels: &[u8], key: &str) -> Option<String> {
    fields(labels).find_map(|field| match field {
        Ok((11, Value::Bytes(v, _))) => match entry(v) {
            Ok((k, value)) if k == key.as_bytes() => {
                Some(String::from_utf8_lossy(value).into_owned())
            }
            _ => None,
        },
        _ => None,
    })
}

pub mod encode;

#[cfg(test)]
mod tests {
    use super::*;

    /// `kubectl create cm pb-a --from-literal=k=v` as kube-apiserver v1.34.10 answered a LIST
    /// of it with `Accept: application/vnd.kubernetes.protobuf` (216 bytes, as sent).
    const LIST: &[u8] = b"k8s\x00\x0a\x13\x0a\x02v1\x12\x0dConfigMapList\x12\xb8\x01\x0a\x09\x0a\x00\x12\x03293\x1a\x00\x12\xaa\x01\x0a\x9f\x01\x0a\x04pb-a\x12\x00\x1a\x07default\x22\x00*$1b9605fa-5f44-4c3c-9918-871f5f8f57ce2\x032938\x00B\x08\x08\xca\xf4\x97\xd8\x06\x10\x00\x8a\x01R\x0a\x0ekubectl-create\x12\x06Update\x1a\x02v1\x22\x08\x08\xca\xf4\x97\xd8\x06\x10\x002\x08FieldsV1:\x1e\x0a\x1c{\x22f:data\x22:{\x22.\x22:{},\x22f:k\x22:{}}}B\x00\x12\x06\x0a\x01k\x12\x01v\x1a\x00\x22\x00";

    #[test]
    fn a_list_from_the_api_server_is_read_with_its_items_identity() {
        let env = envelope(LIST).unwrap();
        assert_eq!(
            (env.api_version.as_str(), env.kind.as_str()),
            ("v1", "ConfigMapList")
        );
        let mut reader = ListReader::default();
        let mut items = Vec::new();
        reader
            .push(LIST, &mut |item| {
                items.push(item.to_vec());
                Ok(())
            })
            .unwrap();
        reader.finish().unwrap();
        assert_eq!(reader.meta.resource_version, "293");
        assert_eq!(reader.meta.continue_token, None);
        assert_eq!(items.len(), 1);
        let item = &items[0][..];
        let meta = meta(item).unwrap();
        let get = |r: Option<Range<usize>>| std::str::from_utf8(&item[r.unwrap()]).unwrap();
        assert_eq!(get(meta.name.clone()), "pb-a");
        assert_eq!(get(meta.namespace.clone()), "default");
        assert_eq!(
            get(meta.uid.clone()),
            "1b9605fa-5f44-4c3c-9918-871f5f8f57ce"
        );
        assert_eq!(get(meta.resource_version.clone()), "293");
        assert_eq!(meta.generation, Some(0));
        assert_eq!(meta.labels, None);
    }

    #[test]
    fn a_list_read_as_it_arrives_gives_its_items_wherever_it_is_cut() {
        let items: Vec<Vec<u8>> = (0..3)
            .map(|i| encode::object(&format!("o{i}"), "ns", "u", "7", &[("a", "b")], b""))
            .collect();
        let body = encode::list("v1", "ConfigMapList", "42", "next", &items);
        for cut in 0..=body.len() {
            let mut reader = ListReader::default();
            let mut got = Vec::new();
            for piece in [&body[..cut], &body[cut..]] {
                reader
                    .push(piece, &mut |item| {
                        got.push(item.to_vec());
                        Ok(())
                    })
                    .unwrap();
            }
            reader.finish().unwrap();
            assert_eq!(got, items, "cut at {cut}");
            assert_eq!(reader.meta.resource_version, "42");
            assert_eq!(reader.meta.continue_token.as_deref(), Some("next"));
        }
        let mut reader = ListReader::default();
        reader
            .push(&body[..body.len() - 1], &mut |_| Ok(()))
            .unwrap();
        assert!(reader.finish().unwrap_err().contains("middle"));
        let mut reader = ListReader::default();
        let err = reader
            .push(b"{\"kind\":\"Status\"}", &mut |_| Ok(()))
            .unwrap_err();
        assert!(err.contains("magic"), "{err}");
        // The real server's LIST, one byte at a time.
        let mut reader = ListReader::default();
        let mut names = Vec::new();
        for byte in LIST {
            reader
                .push(std::slice::from_ref(byte), &mut |item| {
                    let m = meta(item).map_err(|e| e.to_string())?;
                    names.push(String::from_utf8(item[m.name.unwrap()].to_vec()).unwrap());
                    Ok(())
                })
                .unwrap();
        }
        reader.finish().unwrap();
        assert_eq!(
            (names, reader.meta.resource_version.as_str()),
            (vec!["pb-a".to_string()], "293")
        );
    }

    #[test]
    fn labels_and_the_initial_events_end_are_read() {
        let mut owner = Vec::new();
        encode::bytes(&mut owner, 1, b"ReplicaSet");
        encode::bytes(&mut owner, 3, b"web-1");
        encode::bytes(&mut owner, 4, b"u-rs");
        encode::bytes(&mut owner, 5, b"apps/v1");
        encode::number(&mut owner, 6, 1);
        let mut annotation = Vec::new();
        encode::bytes(&mut annotation, 1, b"k8s.io/initial-events-end");
        encode::bytes(&mut annotation, 2, b"true");
        let mut meta_bytes = Vec::new();
        encode::bytes(&mut meta_bytes, 1, b"web-1-x");
        encode::bytes(&mut meta_bytes, 6, b"42");
        for (k, v) in [("app", "web"), ("tier", "front")] {
            let mut entry = Vec::new();
            encode::bytes(&mut entry, 1, k.as_bytes());
            encode::bytes(&mut entry, 2, v.as_bytes());
            encode::bytes(&mut meta_bytes, 11, &entry);
        }
        encode::bytes(&mut meta_bytes, 12, &annotation);
        encode::bytes(&mut meta_bytes, 13, &owner);
        let mut object = Vec::new();
        encode::bytes(&mut object, 1, &meta_bytes);
        let m = meta(&object).unwrap();
        assert!(m.initial_events_end);
        let labels = &object[m.labels.unwrap()];
        assert_eq!(label(labels, "tier").as_deref(), Some("front"));
        assert_eq!(label(labels, "app").as_deref(), Some("web"));
        assert_eq!(label(labels, "zone"), None);
    }

    #[test]
    fn a_watch_frame_and_a_status_are_read() {
        let mut status_bytes = Vec::new();
        encode::bytes(&mut status_bytes, 2, b"Failure");
        encode::bytes(&mut status_bytes, 3, b"too old resource version: 1 (300)");
        encode::bytes(&mut status_bytes, 4, b"Expired");
        encode::number(&mut status_bytes, 6, 410);
        let frame = encode::frame("ERROR", &encode::envelope("v1", "Status", &status_bytes));
        assert_eq!(
            u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize,
            frame.len() - 4
        );
        let event = watch_event(&frame[4..]).unwrap();
        assert_eq!(event.event_type, "ERROR");
        let env = envelope(event.object).unwrap();
        assert_eq!(env.kind, "Status");
        assert_eq!(
            status(env.raw).unwrap(),
            Status {
                status: "Failure".into(),
                message: "too old resource version: 1 (300)".into(),
                reason: "Expired".into(),
                code: 410,
            }
        );
    }

    #[test]
    fn truncated_or_foreign_bytes_are_refused_with_a_reason() {
        assert!(envelope(b"{\"kind\":\"Status\"}")
            .unwrap_err()
            .0
            .contains("magic"));
        for cut in 5..LIST.len() - 1 {
            // Every cut either fails or yields fewer fields; none panics.
            let _ = envelope(&LIST[..cut]);
            let mut reader = ListReader::default();
            let _ = reader
                .push(&LIST[..cut], &mut |item| {
                    meta(item).map(|_| ()).map_err(|e| e.0)
                })
                .and_then(|()| reader.finish());
        }
        let cut = &LIST[..LIST.len() - 3];
        assert!(envelope(cut).is_err());
        assert!(meta(&[0x0a, 0x05, b'a'])
            .unwrap_err()
            .0
            .contains("past the end"));
        assert!(meta(&[0x0b]).unwrap_err().0.contains("wire type 3"));
        let mut bad_name = Vec::new();
        encode::bytes(&mut bad_name, 1, &[0xff, 0xfe]);
        let mut object = Vec::new();
        encode::bytes(&mut object, 1, &bad_name);
        assert!(meta(&object)
            .unwrap_err()
            .0
            .contains("metadata.name is not UTF-8"));
    }
}
