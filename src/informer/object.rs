//! Objects as the server sent them, with the metadata the pipeline reads: the JSON kept
//! verbatim, or (read in protobuf, or compacted) only the identity, labels and a digest.

mod redact;
#[cfg(test)]
mod tests;

use crate::cluster::{cbor, protobuf};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

pub use crate::cluster::protobuf::INITIAL_EVENTS_END;
pub use redact::redaction_marker;

/// An object exactly as the server sent it, with its parsed identity. The identity is kept as
/// positions in the JSON text rather than as copies, so an object costs one allocation for its
/// text and one for this handle's target; a clone (one per listener, per delta, per index)
/// costs a reference count.
#[derive(Clone)]
pub struct RawObject(Arc<Inner>);

struct Inner {
    /// The object as the server encoded it.
    body: Body,
    /// The unescaped text of any identity string the JSON spells with escapes (none, for
    /// objects a real server validated), and a protobuf object's kind and apiVersion; spans
    /// past the body's end point here.
    extra: Box<str>,
    kind: Span,
    api_version: Span,
    name: Span,
    namespace: Span,
    uid: Span,
    resource_version: Span,
    /// The JSON text of `metadata.labels` (empty when there are none), parsed when asked.
    labels: Span,
    /// `metadata.generation`, `NO_GENERATION` when absent (8 bytes, not 16, per object).
    generation: i64,
    /// Whether the annotation `k8s.io/initial-events-end` is "true" (other annotations are not
    /// kept apart: the JSON has them).
    initial_events_end: bool,
}

/// The object's bytes in the encoding the server answered with.
enum Body {
    Json(Box<RawValue>),
    /// An object kept as its identity (in `Inner::extra`), its labels (for label indexes: the
    /// protobuf map entries or the JSON text, as they came) and a 64-bit digest of its bytes
    /// (for comparing two versions at the same resourceVersion), not as the object: one that
    /// came in the Kubernetes protobuf encoding, which nothing here can print, or one made
    /// [`RawObject::compact`] because nothing will print it.
    Digest {
        digest: u64,
        labels: Box<[u8]>,
        encoding: Encoding,
    },
}

/// The encoding an object arrived in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Json,
    Protobuf,
    /// CBOR (RFC 8949), which kube-apiserver serves with its `CBORServingAndStorage` gate on.
    Cbor,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Json => "JSON",
            Encoding::Protobuf => "protobuf",
            Encoding::Cbor => "CBOR",
        }
    }

    /// As `--encoding` spells it, and the JSON reports.
    pub fn value(self) -> &'static str {
        match self {
            Encoding::Json => "json",
            Encoding::Protobuf => "protobuf",
            Encoding::Cbor => "cbor",
        }
    }
}

/// `Inner::generation` of an object without one (the server never sets a negative one).
const NO_GENERATION: i64 = i64::MIN;

/// A range of the JSON, or past its end, of `Inner::extra`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Span {
    start: u32,
    len: u32,
}

impl Inner {
    fn get(&self, span: Span) -> &str {
        let (start, len) = (span.start as usize, span.len as usize);
        match &self.body {
            Body::Json(json) => match start.checked_sub(json.get().len()) {
                Some(at) => &self.extra[at..at + len],
                None => &json.get()[start..start + len],
            },
            Body::Digest { .. } => &self.extra[start..start + len],
        }
    }

    /// The body's bytes under `span` (the labels' JSON text, or their protobuf entries).
    fn bytes(&self, span: Span) -> &[u8] {
        let (start, len) = (span.start as usize, span.len as usize);
        let body = match &self.body {
            Body::Json(json) => json.get().as_bytes(),
            Body::Digest { labels, .. } => labels,
        };
        body.get(start..start + len).unwrap_or_default()
    }
}

impl std::fmt::Debug for RawObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawObject")
            .field("kind", &self.kind())
            .field("key", &self.key())
            .field("resourceVersion", &self.resource_version())
            .finish_non_exhaustive()
    }
}

/// A string borrowed from the JSON unless escapes had to be undone. (serde borrows a
/// `Cow<str>` field only when it is the field's whole type; inside an `Option` it would always
/// copy, so the `Cow` sits in this newtype.)
#[derive(Deserialize)]
struct Str<'a>(#[serde(borrow)] Cow<'a, str>);

/// The parts of an object the pipeline reads, borrowed from its JSON where no escape is in
/// the way.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeadRef<'a> {
    #[serde(default, borrow)]
    kind: Option<Str<'a>>,
    #[serde(default, borrow)]
    api_version: Option<Str<'a>>,
    #[serde(default, borrow, deserialize_with = "metadata")]
    metadata: Option<MetaRef<'a>>,
}

/// `metadata` only as a JSON object (or null): serde's derive would also take an array, its
/// elements read as the fields in order.
fn metadata<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<MetaRef<'de>>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Option<MetaRef<'de>>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("metadata as an object")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            MetaRef::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Some)
        }
    }
    d.deserialize_any(Visitor)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MetaRef<'a> {
    #[serde(default, borrow)]
    name: Option<Str<'a>>,
    #[serde(default, borrow)]
    namespace: Option<Str<'a>>,
    #[serde(default, borrow)]
    uid: Option<Str<'a>>,
    #[serde(default, borrow)]
    resource_version: Option<Str<'a>>,
    #[serde(default)]
    generation: Option<i64>,
    #[serde(default, borrow)]
    labels: Option<&'a RawValue>,
    #[serde(
        default,
        rename = "annotations",
        deserialize_with = "initial_events_end"
    )]
    initial_events_end: bool,
}

/// Reads only `k8s.io/initial-events-end` out of `metadata.annotations`.
fn initial_events_end<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of annotations")
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut found = false;
            while let Some(Str(key)) = map.next_key::<Str<'de>>()? {
                if key == INITIAL_EVENTS_END {
                    found = map.next_value::<Str<'de>>()?.0 == "true";
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    d.deserialize_any(Visitor)
}

/// The JSON an object is parsed from.
enum Source<'a> {
    Owned(Box<RawValue>),
    Borrowed(&'a RawValue),
}

/// Turns borrowed strings into spans of the text, and owned ones (unescaped) into spans of
/// what follows the JSON.
struct Spanner<'t> {
    /// The JSON as parsed.
    parsed: &'t str,
    /// Where `parsed[from..]` lands in the final JSON: `to`.
    from: usize,
    to: usize,
    json_len: usize,
    extra: String,
}

impl Spanner<'_> {
    fn span(&mut self, value: Option<&str>) -> Span {
        let Some(value) = value else {
            return Span::default();
        };
        let base = self.parsed.as_ptr() as usize;
        let at = (value.as_ptr() as usize).wrapping_sub(base);
        if at >= self.from && at + value.len() <= self.parsed.len() {
            Span {
                start: (at - self.from + self.to) as u32,
                len: value.len() as u32,
            }
        } else {
            self.owned(value)
        }
    }

    /// A span of `value` copied after the JSON.
    fn owned(&mut self, value: &str) -> Span {
        let start = self.json_len + self.extra.len();
        self.extra.push_str(value);
        Span {
            start: start as u32,
            len: value.len() as u32,
        }
    }

    fn cow(&mut self, value: &Option<Str<'_>>) -> Span {
        match value {
            Some(Str(Cow::Borrowed(s))) => self.span(Some(s)),
            Some(Str(Cow::Owned(s))) => self.owned(s),
            None => Span::default(),
        }
    }
}

/// Where a binary decoder (protobuf, CBOR) found an object's identity strings (UTF-8, as the
/// decoder checked) and its labels, as ranges of the object's bytes.
struct Found<'a> {
    object: &'a [u8],
    /// `None` where the encoding does not carry them in the object (protobuf's envelope does).
    kind: Option<&'a Option<std::ops::Range<usize>>>,
    api_version: Option<&'a Option<std::ops::Range<usize>>>,
    name: &'a Option<std::ops::Range<usize>>,
    namespace: &'a Option<std::ops::Range<usize>>,
    uid: &'a Option<std::ops::Range<usize>>,
    resource_version: &'a Option<std::ops::Range<usize>>,
    labels: &'a Option<std::ops::Range<usize>>,
}

impl Found<'_> {
    fn text(&self, range: &Option<std::ops::Range<usize>>) -> &str {
        range
            .clone()
            .and_then(|r| std::str::from_utf8(&self.object[r]).ok())
            .unwrap_or_default()
    }

    /// The object kept as a digest (see [`Body::Digest`]): its identity and labels copied;
    /// kind and apiVersion from `type_meta` where the object has no kind.
    fn kept(
        &self,
        type_meta: Option<(&str, &str)>,
        digest: (u64, Encoding),
        generation: Option<i64>,
        initial_events_end: bool,
    ) -> Result<RawObject, &'static str> {
        let own = (
            self.kind.map_or("", |k| self.text(k)),
            self.api_version.map_or("", |v| self.text(v)),
        );
        let (kind, api_version) = match type_meta {
            Some(type_meta) if own.0.is_empty() => type_meta,
            _ => own,
        };
        let identity = [
            kind,
            api_version,
            self.text(self.name),
            self.text(self.namespace),
            self.text(self.uid),
            self.text(self.resource_version),
        ];
        if identity.iter().map(|t| t.len()).sum::<usize>() > u32::MAX as usize / 2 {
            return Err("identity larger than 2 GiB");
        }
        let labels: Box<[u8]> = self
            .labels
            .clone()
            .map_or(Box::default(), |r| self.object[r].into());
        Ok(RawObject::kept(
            identity,
            labels,
            digest,
            generation.unwrap_or(NO_GENERATION),
            initial_events_end,
        ))
    }
}

impl RawObject {
    /// Parses the identity of `json`; kind and apiVersion are filled from `kind_hint` when the
    /// server left them out (items of a LIST response carry neither).
    pub fn parse(json: Box<RawValue>, kind_hint: Option<(&str, &str)>) -> serde_json::Result<Self> {
        Self::build(Source::Owned(json), kind_hint)
    }

    /// `parse` for JSON borrowed from a larger text (a LIST page): copied once, into the
    /// object, with its kind spliced in if `kind_hint` is needed.
    pub fn parse_borrowed(
        json: &RawValue,
        kind_hint: Option<(&str, &str)>,
    ) -> serde_json::Result<Self> {
        Self::build(Source::Borrowed(json), kind_hint)
    }

    fn build(source: Source<'_>, kind_hint: Option<(&str, &str)>) -> serde_json::Result<Self> {
        let parsed = match &source {
            Source::Owned(json) => json.get(),
            Source::Borrowed(json) => json.get(),
        };
        if parsed.len() > u32::MAX as usize / 2 {
            return Err(serde::de::Error::custom("object larger than 2 GiB"));
        }
        // serde's derive would also take an array, its elements read as the fields in order.
        if !parsed.trim_start().starts_with('{') {
            return Err(serde::de::Error::custom("the object is not a JSON object"));
        }
        let head: HeadRef = serde_json::from_str(parsed)?;
        let meta = head.metadata;
        let hinted = match kind_hint {
            Some(hint) if head.kind.as_ref().is_none_or(|k| k.0.is_empty()) => Some(hint),
            _ => None,
        };
        let (json, from, to) = match hinted {
            Some((kind, api_version)) => with_type_meta(parsed, kind, api_version)?,
            None => (String::new(), 0, 0),
        };
        let mut spanner = Spanner {
            parsed,
            from,
            to,
            json_len: if hinted.is_some() {
                json.len()
            } else {
                parsed.len()
            },
            extra: String::new(),
        };
        let (kind, api_version) = match hinted {
            // Spliced in front as `{"kind":"K","apiVersion":"V"`: spans of the splice unless
            // JSON had to escape them.
            Some((kind, api_version)) if !needs_escape(kind) && !needs_escape(api_version) => (
                Span {
                    start: KIND_AT as u32,
                    len: kind.len() as u32,
                },
                Span {
                    start: (KIND_AT + kind.len() + API_VERSION_GAP) as u32,
                    len: api_version.len() as u32,
                },
            ),
            Some((kind, api_version)) => (spanner.owned(kind), spanner.owned(api_version)),
            None => (spanner.cow(&head.kind), spanner.cow(&head.api_version)),
        };
        let mut inner = Inner {
            body: Body::Json(Box::default()),
            extra: Box::default(),
            kind,
            api_version,
            name: Span::default(),
            namespace: Span::default(),
            uid: Span::default(),
            resource_version: Span::default(),
            labels: Span::default(),
            generation: NO_GENERATION,
            initial_events_end: false,
        };
        if let Some(meta) = &meta {
            inner.name = spanner.cow(&meta.name);
            inner.namespace = spanner.cow(&meta.namespace);
            inner.uid = spanner.cow(&meta.uid);
            inner.resource_version = spanner.cow(&meta.resource_version);
            inner.labels = spanner.span(meta.labels.map(RawValue::get).filter(|l| *l != "null"));
            inner.generation = meta.generation.unwrap_or(NO_GENERATION);
            inner.initial_events_end = meta.initial_events_end;
        }
        inner.extra = std::mem::take(&mut spanner.extra).into_boxed_str();
        inner.body = Body::Json(match (hinted, source) {
            (Some(_), _) => RawValue::from_string(json)?,
            (None, Source::Owned(json)) => json,
            (None, Source::Borrowed(json)) => json.to_owned(),
        });
        Ok(RawObject(Arc::new(inner)))
    }

    /// An object message of the protobuf encoding (a LIST item, or a watch event's object out
    /// of its envelope) whose kind and apiVersion are `type_meta`: its identity and labels are
    /// copied, and its bytes digested (see [`Body::Digest`]).
    pub fn from_protobuf(
        object: &[u8],
        type_meta: (&str, &str),
    ) -> Result<Self, protobuf::DecodeError> {
        let meta = protobuf::meta(object)?;
        let found = Found {
            object,
            kind: None,
            api_version: None,
            name: &meta.name,
            namespace: &meta.namespace,
            uid: &meta.uid,
            resource_version: &meta.resource_version,
            labels: &meta.labels,
        };
        found
            .kept(
                Some(type_meta),
                (digest(object), Encoding::Protobuf),
                meta.generation,
                meta.initial_events_end,
            )
            .map_err(protobuf::DecodeError::from)
    }

    /// A CBOR object (a LIST item, or a watch event's object): its identity and labels copied,
    /// and a digest of its value that does not depend on its map order (see [`cbor::digest`]:
    /// the server shuffles map keys when it encodes CBOR). Kind and apiVersion come from
    /// `kind_hint` when the object leaves them out.
    pub fn from_cbor(
        object: &[u8],
        kind_hint: Option<(&str, &str)>,
    ) -> Result<Self, cbor::DecodeError> {
        let meta = cbor::meta(object)?;
        let found = Found {
            object,
            kind: Some(&meta.kind),
            api_version: Some(&meta.api_version),
            name: &meta.name,
            namespace: &meta.namespace,
            uid: &meta.uid,
            resource_version: &meta.resource_version,
            labels: &meta.labels,
        };
        found
            .kept(
                kind_hint,
                (cbor::digest(object)?, Encoding::Cbor),
                meta.generation,
                meta.initial_events_end,
            )
            .map_err(cbor::DecodeError::from)
    }

    /// An object kept as a digest (see [`Body::Digest`]): `identity` (kind, apiVersion, name,
    /// namespace, uid, resourceVersion) copied, `labels` as they came, the digest of the bytes
    /// and the encoding they were in.
    fn kept(
        identity: [&str; 6],
        labels: Box<[u8]>,
        (digest, encoding): (u64, Encoding),
        generation: i64,
        initial_events_end: bool,
    ) -> RawObject {
        let mut extra = String::with_capacity(identity.iter().map(|t| t.len()).sum());
        let [kind, api_version, name, namespace, uid, resource_version] = identity.map(|text| {
            let start = extra.len();
            extra.push_str(text);
            Span {
                start: start as u32,
                len: text.len() as u32,
            }
        });
        let labels_span = Span {
            start: 0,
            len: labels.len() as u32,
        };
        RawObject(Arc::new(Inner {
            labels: labels_span,
            body: Body::Digest {
                digest,
                labels,
                encoding,
            },
            extra: extra.into_boxed_str(),
            kind,
            api_version,
            name,
            namespace,
            uid,
            resource_version,
            generation,
            initial_events_end,
        }))
    }

    /// The object without its JSON text: its identity, generation, labels and a digest of the
    /// text, as an object read in protobuf is kept (see [`Body::Digest`]); for what never
    /// prints, indexes by anything but labels or reads owner references (`bench`'s replay). An
    /// object already kept so is returned as it is.
    pub fn compact(&self) -> RawObject {
        let Body::Json(json) = &self.0.body else {
            return self.clone();
        };
        let inner = &self.0;
        RawObject::kept(
            [
                inner.kind,
                inner.api_version,
                inner.name,
                inner.namespace,
                inner.uid,
                inner.resource_version,
            ]
            .map(|span| inner.get(span)),
            inner.bytes(inner.labels).into(),
            (digest(json.get().as_bytes()), Encoding::Json),
            inner.generation,
            inner.initial_events_end,
        )
    }

    /// The JSON text of the object, as the server sent it; `None` for an object kept as a
    /// digest (it arrived in protobuf, or was made [`RawObject::compact`]).
    pub fn json(&self) -> Option<&str> {
        match &self.0.body {
            Body::Json(json) => Some(json.get()),
            Body::Digest { .. } => None,
        }
    }

    /// The JSON, to embed verbatim in serialized output; `None` as for [`RawObject::json`].
    pub fn raw(&self) -> Option<&RawValue> {
        match &self.0.body {
            Body::Json(json) => Some(json),
            Body::Digest { .. } => None,
        }
    }

    /// The encoding the object arrived in.
    pub fn encoding(&self) -> Encoding {
        match &self.0.body {
            Body::Json(_) => Encoding::Json,
            Body::Digest { encoding, .. } => *encoding,
        }
    }

    /// Whether `self` and `other` are the same content: the same JSON ignoring key order (the
    /// same object may be serialized by the watch cache and by etcd's path), or the same
    /// digest of their protobuf bytes (the server's encoder writes fields in number order and
    /// map entries sorted, so the same object is the same bytes), or of two compacted JSON
    /// texts (the same bytes). Objects in different encodings, or a JSON object against a
    /// compacted one, are never compared: `None`.
    pub fn same_content(&self, other: &RawObject) -> Option<bool> {
        match (&self.0.body, &other.0.body) {
            (Body::Json(a), Body::Json(b)) => Some(
                a.get() == b.get()
                    || serde_json::from_str::<serde_json::Value>(a.get()).ok()
                        == serde_json::from_str::<serde_json::Value>(b.get()).ok(),
            ),
            (
                Body::Digest {
                    digest: a,
                    encoding: x,
                    ..
                },
                Body::Digest {
                    digest: b,
                    encoding: y,
                    ..
                },
            ) if x == y => Some(a == b),
            _ => None,
        }
    }

    pub fn kind(&self) -> &str {
        self.0.get(self.0.kind)
    }

    pub fn api_version(&self) -> &str {
        self.0.get(self.0.api_version)
    }

    pub fn name(&self) -> &str {
        self.0.get(self.0.name)
    }

    /// `metadata.namespace`; `None` for cluster-scoped objects.
    pub fn namespace(&self) -> Option<&str> {
        Some(self.0.get(self.0.namespace)).filter(|ns| !ns.is_empty())
    }

    pub fn uid(&self) -> &str {
        self.0.get(self.0.uid)
    }

    pub fn resource_version(&self) -> &str {
        self.0.get(self.0.resource_version)
    }

    pub fn generation(&self) -> Option<i64> {
        Some(self.0.generation).filter(|g| *g != NO_GENERATION)
    }

    /// Whether this is the BOOKMARK that ends a watch-list's initial events.
    pub fn initial_events_end(&self) -> bool {
        self.0.initial_events_end
    }

    /// The value of label `key`.
    pub fn label(&self, key: &str) -> Option<String> {
        let text = match self.0.body {
            Body::Digest {
                encoding: Encoding::Protobuf,
                ..
            } => return protobuf::label(self.0.bytes(self.0.labels), key),
            Body::Digest {
                encoding: Encoding::Cbor,
                ..
            } => return cbor::label(self.0.bytes(self.0.labels), key),
            Body::Digest { .. } => std::str::from_utf8(self.0.bytes(self.0.labels)).ok()?,
            Body::Json(_) => self.0.get(self.0.labels),
        };
        if text.is_empty() {
            return None;
        }
        let labels: std::collections::HashMap<Cow<str>, Cow<str>> =
            serde_json::from_str(text).ok()?;
        labels.get(key).map(|v| v.to_string())
    }

    /// Whether `self` and `other` carry the same `metadata.labels` text.
    pub fn same_labels(&self, other: &RawObject) -> bool {
        self.0.bytes(self.0.labels) == other.0.bytes(other.0.labels)
    }

    /// `metadata.ownerReferences`, parsed when asked (only `tail --follow-owned` and `bench
    /// --react owned:` read them, in JSON); none when absent or malformed, and none for an
    /// object read in protobuf, which keeps only its identity.
    pub fn owner_references(&self) -> Vec<OwnerReference> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Head {
            #[serde(default)]
            metadata: Option<Meta>,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Meta {
            #[serde(default)]
            owner_references: Option<Vec<OwnerReference>>,
        }
        let Some(json) = self.json() else {
            return Vec::new();
        };
        serde_json::from_str::<Head>(json)
            .ok()
            .and_then(|h| h.metadata?.owner_references)
            .unwrap_or_default()
    }

    /// `namespace/name`, or `name` for cluster-scoped objects: the cache key client-go uses.
    pub fn key(&self) -> String {
        object_key(self.namespace(), self.name())
    }

    /// How many bytes of identity had to be kept apart from the JSON (unescaped copies).
    #[cfg(test)]
    fn extra_len(&self) -> usize {
        self.0.extra.len()
    }

    /// Whether `self` and `other` are the same allocation (the same version, shared).
    pub fn ptr_eq(&self, other: &RawObject) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// One entry of `metadata.ownerReferences`: the object that owns this one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    pub uid: String,
    /// Whether the owner is the managing controller (at most one owner is).
    #[serde(default)]
    pub controller: Option<bool>,
}

/// A 64-bit digest of `bytes`: SipHash-1-3 (std's hasher). diff compares the digests of two
/// versions of one object only when uid and resourceVersion already match (content drift, a
/// server's bug), so a false "same" has a chance of 2^-64 per such pair; nobody chooses the
/// bytes to collide (they are the server's encoding of objects it validated), so a
/// cryptographic hash would buy nothing but time.
fn digest(bytes: &[u8]) -> u64 {
    use std::hash::{DefaultHasher, Hasher};
    let mut hasher = DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// client-go's `MetaNamespaceKeyFunc`.
pub fn object_key(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_string(),
    }
}

/// client-go's `SplitMetaNamespaceKey`: `namespace/name` or `name` (names hold no `/`).
pub fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}

/// Where the kind's value starts in `{"kind":"K",...`, and what lies between it and the
/// apiVersion's value: `","apiVersion":"`.
const KIND_AT: usize = r#"{"kind":""#.len();
const API_VERSION_GAP: usize = r#"","apiVersion":""#.len();

/// Whether JSON spells `s` with escapes.
fn needs_escape(s: &str) -> bool {
    s.chars().any(|c| c == '"' || c == '\\' || c.is_control())
}

/// Inserts `kind` and `apiVersion` at the front of an object's JSON, as watch events carry them.
/// Returns the new text and where the rest of the old one moved: `json[from..]` is at `to`.
fn with_type_meta(
    json: &str,
    kind: &str,
    api_version: &str,
) -> serde_json::Result<(String, usize, usize)> {
    let text = json.trim_start();
    let open = json.len() - text.len();
    let after_brace = text.strip_prefix('{').map(|_| open + 1).unwrap_or(open);
    let rest = json[after_brace..].trim_start();
    let from = json.len() - rest.len();
    let sep = if rest.starts_with('}') { "" } else { "," };
    let prefix = format!(
        "{{\"kind\":{},\"apiVersion\":{}{sep}",
        serde_json::to_string(kind)?,
        serde_json::to_string(api_version)?
    );
    let to = prefix.len();
    Ok((prefix + rest, from, to))
}
