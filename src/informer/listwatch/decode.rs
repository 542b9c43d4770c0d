//! Watch events and what they are decoded from: the `WatchEvent` and `Status` types, a watch
//! stream's errors, and the JSON of a watch event or a LIST body as the server sends it.

use crate::informer::object::{RawObject, Str};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A decoded watch event.
#[derive(Debug, Clone)]
pub enum WatchEvent {
    Added(RawObject),
    Modified(RawObject),
    Deleted(RawObject),
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    /// An ERROR event: a `Status` inside the 200 stream (410 Expired, most often).
    Error(ApiStatus),
}

impl From<crate::cluster::protobuf::Status> for ApiStatus {
    /// A Status read from protobuf or CBOR.
    fn from(status: crate::cluster::protobuf::Status) -> Self {
        ApiStatus {
            code: status.code,
            reason: status.reason,
            message: status.message,
        }
    }
}

/// The fields of a `metav1.Status` that matter to a reflector.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct ApiStatus {
    #[serde(default)]
    pub code: u16,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
}

/// How much of an undecodable line, and of the decoder's reason, an error quotes.
const SNIPPET_CHARS: usize = 120;
pub(super) const REASON_CHARS: usize = 200;

/// Why reading a watch stream failed. Each message is one line, however hostile the bytes.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StreamError {
    #[error("the connection failed while reading the watch: {0}")]
    Io(String),
    #[error("the server sent an event that cannot be decoded ({reason}): {snippet}")]
    Malformed { reason: String, snippet: String },
    /// An event longer than the stream's limit ([`MAX_EVENT_BYTES`]), refused before it was read
    /// whole.
    ///
    /// [`MAX_EVENT_BYTES`]: super::MAX_EVENT_BYTES
    #[error("a watch event of more than {} was refused by size", size(*limit))]
    TooLarge { limit: usize },
}

impl StreamError {
    /// A decoder's refusal of `line`, both quoted short, on one line, with control characters
    /// escaped and invalid UTF-8 replaced.
    pub(super) fn malformed(reason: impl std::fmt::Display, line: &[u8]) -> Self {
        let snippet = &line[..line.len().min(SNIPPET_CHARS * 4)];
        StreamError::Malformed {
            reason: crate::format::one_line(&reason.to_string(), REASON_CHARS),
            snippet: crate::format::one_line(
                String::from_utf8_lossy(snippet).trim(),
                SNIPPET_CHARS,
            ),
        }
    }
}

/// A byte count as the limit is documented: `64 MiB`, or `300 bytes`.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

#[derive(Deserialize)]
struct WireEvent<'a> {
    /// Borrowed unless the server escaped a character of it.
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireList<'a> {
    #[serde(default)]
    pub(super) metadata: WireListMeta,
    /// `null` in an empty `PartialObjectMetadataList` (`--metadata-only`), as the API server
    /// sends it.
    #[serde(default, borrow)]
    pub(super) items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct WireListMeta {
    #[serde(default)]
    pub(super) resource_version: String,
    #[serde(default, rename = "continue")]
    pub(super) continue_token: Option<String>,
    #[serde(default)]
    pub(super) remaining_item_count: Option<i64>,
}

/// [`decode_event`] for an informer that keeps objects as digests ([`Keep::Digest`]): the line
/// read once, each object's identity taken and its content digested on the way; the object's
/// text is not kept. It takes and refuses what `decode_event` does, but for numbers beyond a
/// 64-bit float and lone UTF-16 surrogate escapes, which this refuses (it reads every value to
/// digest it), and for serde_json's nesting limit of 128, which this counts from the event
/// rather than from the object: Go's encoder writes none of these.
///
/// [`Keep::Digest`]: crate::informer::object::Keep::Digest
pub fn decode_event_kept(line: &[u8]) -> Result<WatchEvent, StreamError> {
    use serde::de::DeserializeSeed;
    let malformed = |reason: &dyn std::fmt::Display| StreamError::malformed(reason, line);
    let mut de = serde_json::Deserializer::from_slice(line);
    let event = KeptEvent.deserialize(&mut de).map_err(|e| malformed(&e))?;
    de.end().map_err(|e| malformed(&e))?;
    let (kind, object) = event;
    let status_raw = match &object {
        KeptObject::Raw(raw) => Some(*raw),
        KeptObject::Kept(_) => None,
    };
    checked_event(
        &kind,
        || match object {
            KeptObject::Kept(object) => Ok(object),
            KeptObject::Raw(raw) => {
                RawObject::read_kept(raw.get(), None).map_err(|e| e.to_string())
            }
        },
        || match status_raw {
            Some(raw) => status(raw).map_err(|e| e.to_string()),
            None => Err("an ERROR event whose object is not a Status".into()),
        },
        &malformed,
    )
}

/// An event's object as [`decode_event_kept`] read it: kept as a digest when its type came
/// first (as the server writes it) and is not ERROR; otherwise its text, read after.
enum KeptObject<'a> {
    Kept(RawObject),
    Raw(&'a RawValue),
}

/// A watch event's `type` and its object, for [`decode_event_kept`].
struct KeptEvent;

impl<'de> serde::de::DeserializeSeed<'de> for KeptEvent {
    type Value = (Cow<'de, str>, KeptObject<'de>);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeptEvent {
    type Value = (Cow<'de, str>, KeptObject<'de>);
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("struct WireEvent")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let (mut kind, mut object): (Option<Cow<str>>, Option<KeptObject>) = (None, None);
        while let Some(Str(key)) = map.next_key::<Str>()? {
            match key.as_ref() {
                "type" if kind.is_some() => return Err(A::Error::duplicate_field("type")),
                "type" => kind = Some(map.next_value::<Str>()?.0),
                "object" if object.is_some() => return Err(A::Error::duplicate_field("object")),
                "object" => {
                    object = Some(match kind.as_deref() {
                        Some(kind) if kind != "ERROR" => KeptObject::Kept(
                            map.next_value_seed(crate::informer::object::Kept(None))?,
                        ),
                        _ => KeptObject::Raw(map.next_value()?),
                    })
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        let kind = kind.ok_or_else(|| A::Error::missing_field("type"))?;
        let object = object.ok_or_else(|| A::Error::missing_field("object"))?;
        Ok((kind, object))
    }
}

/// A LIST body in JSON read once, its items kept as digests ([`Keep::Digest`]) with kind and
/// apiVersion from the hint (items carry neither).
///
/// [`Keep::Digest`]: crate::informer::object::Keep::Digest
pub(super) struct KeptList<'h>(pub(super) Option<(&'h str, &'h str)>);

impl<'de> serde::de::DeserializeSeed<'de> for KeptList<'_> {
    type Value = (WireListMeta, Vec<RawObject>);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeptList<'_> {
    type Value = (WireListMeta, Vec<RawObject>);
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("struct WireList")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        use serde::de::Error;
        let (mut meta, mut items) = (None, None);
        while let Some(Str(key)) = map.next_key::<Str>()? {
            match key.as_ref() {
                "metadata" if meta.is_some() => return Err(A::Error::duplicate_field("metadata")),
                "metadata" => meta = Some(map.next_value()?),
                "items" if items.is_some() => return Err(A::Error::duplicate_field("items")),
                "items" => items = Some(map.next_value_seed(KeptItems(self.0))?),
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok((
            meta.unwrap_or_default(),
            items.flatten().unwrap_or_default(),
        ))
    }
}

/// A LIST's `items` (or `null`, as an empty `PartialObjectMetadataList` has them), kept.
struct KeptItems<'h>(Option<(&'h str, &'h str)>);

impl<'de> serde::de::DeserializeSeed<'de> for KeptItems<'_> {
    type Value = Option<Vec<RawObject>>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeptItems<'_> {
    type Value = Option<Vec<RawObject>>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a sequence")
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(crate::informer::object::Kept(self.0))? {
            items.push(item);
        }
        Ok(Some(items))
    }
}

/// Decodes one line of a watch stream. Whatever the bytes, the answer is an event or a
/// [`StreamError::Malformed`] of one short line; an object event must name its object and its
/// resourceVersion (the reflector resumes from it), a BOOKMARK must carry a resourceVersion, and
/// an ERROR's object must be a Status.
pub fn decode_event(line: &[u8]) -> Result<WatchEvent, StreamError> {
    let malformed = |reason: &dyn std::fmt::Display| StreamError::malformed(reason, line);
    let wire: WireEvent = serde_json::from_slice(line).map_err(|e| malformed(&e))?;
    checked_event(
        &wire.kind,
        || RawObject::parse_borrowed(wire.object, None).map_err(|e| e.to_string()),
        || status(wire.object).map_err(|e| e.to_string()),
        &malformed,
    )
}

/// The event of type `kind`, its object (or, for ERROR, its Status) decoded by the functions
/// given: an object event must name its object and its resourceVersion (the reflector resumes
/// from it), a BOOKMARK must carry a resourceVersion.
pub(super) fn checked_event(
    kind: &str,
    decode_object: impl FnOnce() -> Result<RawObject, String>,
    decode_status: impl FnOnce() -> Result<ApiStatus, String>,
    malformed: &dyn Fn(&dyn std::fmt::Display) -> StreamError,
) -> Result<WatchEvent, StreamError> {
    let object = || {
        let object = decode_object().map_err(|e| malformed(&e))?;
        if object.resource_version().is_empty() {
            return Err(malformed(&format_args!(
                "a {kind} event whose object has no metadata.resourceVersion"
            )));
        }
        Ok(object)
    };
    let named = |object: RawObject| {
        if object.name().is_empty() {
            return Err(malformed(&format_args!(
                "a {kind} event whose object has no metadata.name"
            )));
        }
        Ok(object)
    };
    Ok(match kind {
        "ADDED" => WatchEvent::Added(named(object()?)?),
        "MODIFIED" => WatchEvent::Modified(named(object()?)?),
        "DELETED" => WatchEvent::Deleted(named(object()?)?),
        "BOOKMARK" => {
            let obj = object()?;
            WatchEvent::Bookmark {
                initial_events_end: obj.initial_events_end(),
                resource_version: obj.resource_version().to_string(),
            }
        }
        "ERROR" => WatchEvent::Error(decode_status().map_err(|e| malformed(&e))?),
        other => {
            return Err(malformed(&format_args!(
                "unknown event type \"{}\"",
                crate::format::one_line(other, 40)
            )))
        }
    })
}

/// The Status of an ERROR event: a JSON object, of kind Status if it names one.
fn status(object: &RawValue) -> serde_json::Result<ApiStatus> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(default, borrow)]
        kind: Option<Cow<'a, str>>,
    }
    use serde::de::Error;
    if !object.get().starts_with('{') {
        return Err(serde_json::Error::custom(
            "an ERROR event whose object is not a Status",
        ));
    }
    match serde_json::from_str::<Head>(object.get())?.kind.as_deref() {
        None | Some("Status") => serde_json::from_str(object.get()),
        Some(kind) => Err(serde_json::Error::custom(format_args!(
            "an ERROR event whose object is a {}, not a Status",
            crate::format::one_line(kind, 40)
        ))),
    }
}
