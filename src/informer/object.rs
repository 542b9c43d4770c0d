//! Objects as the server sent them, with the metadata the pipeline reads: the JSON kept
//! verbatim, or (read in protobuf, or compacted) only the identity, labels and a digest.

mod digest;
mod key;
mod parse;
mod redact;
#[cfg(test)]
mod tests;
mod wire;

use crate::cluster::{cbor, protobuf};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

pub use crate::cluster::protobuf::INITIAL_EVENTS_END;
pub use digest::Kept;
pub use key::{object_key, split_key, OwnerReference};
pub(crate) use parse::Str;
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

// The encoding an object arrived in: the one its response's `Content-Type` names.
pub use crate::cluster::Encoding;

/// What an informer keeps of an object that arrives in JSON (one in protobuf or CBOR is always
/// kept as a digest).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Its JSON text, for what prints, records or reads its fields (`tail`, `diff
    /// --show-fields`, `bench --react`, owner references).
    Whole,
    /// Its identity, labels and a digest of its JSON value (see [`Kept`]), as an object read in
    /// protobuf: what `diff` and `bench` need otherwise.
    Digest,
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

impl RawObject {
    /// An object kept as a digest (see [`Body::Digest`]): `identity` (kind, apiVersion, name,
    /// namespace, uid, resourceVersion) copied, `labels` as they came, the digest of the bytes
    /// and the encoding they were in.
    /// [`RawObject::kept`] of an object whose own kind and apiVersion are `own` (empty when it
    /// leaves them out, as a LIST's items do), `hint`'s then, and whose other identity strings
    /// are `rest` (name, namespace, uid, resourceVersion); refused past 2 GiB of them.
    fn kept_hinted(
        own: (&str, &str),
        hint: Option<(&str, &str)>,
        rest: [&str; 4],
        labels: Box<[u8]>,
        digest: (u64, Encoding),
        generation: Option<i64>,
        initial_events_end: bool,
    ) -> Result<RawObject, &'static str> {
        let (kind, api_version) = match hint {
            Some(hint) if own.0.is_empty() => hint,
            _ => own,
        };
        let [name, namespace, uid, resource_version] = rest;
        let identity = [kind, api_version, name, namespace, uid, resource_version];
        if identity.iter().map(|t| t.len()).sum::<usize>() + labels.len() > u32::MAX as usize / 2 {
            return Err("identity larger than 2 GiB");
        }
        Ok(RawObject::kept(
            identity,
            labels,
            digest,
            generation.unwrap_or(NO_GENERATION),
            initial_events_end,
        ))
    }

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

    /// The object without its JSON text: its identity, generation, labels and a digest of its
    /// JSON value (see `digest`'s module doc), as an object read in protobuf is kept (see [`Body::Digest`]); for what never
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
            // The text parsed as an object when it was kept, so it has a digest.
            (
                digest::of_text(json.get()).unwrap_or_default(),
                Encoding::Json,
            ),
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

    /// Whether `self` and `other` are the same content: the same JSON value (map entries in
    /// any order: the same object may be serialized by the watch cache and by etcd's path), or
    /// the same digest of their protobuf bytes (the server's encoder writes fields in number
    /// order and map entries sorted, so the same object is the same bytes), of their CBOR value
    /// or of their JSON value (see `digest`'s module doc). Objects that arrived in different
    /// encodings are never compared: `None`.
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
            (
                Body::Json(json),
                Body::Digest {
                    digest, encoding, ..
                },
            )
            | (
                Body::Digest {
                    digest, encoding, ..
                },
                Body::Json(json),
            ) if *encoding == Encoding::Json => Some(digest::of_text(json.get()) == Some(*digest)),
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
