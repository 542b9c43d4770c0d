//! Objects read in a binary encoding, protobuf or CBOR: kept as their identity, their labels
//! and a digest, not as their bytes.

use super::{digest, Encoding, RawObject};
use crate::cluster::{cbor, protobuf};

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
    ///
    /// [`Body::Digest`]: super::Body::Digest
    fn kept(
        &self,
        type_meta: Option<(&str, &str)>,
        digest: (u64, Encoding),
        generation: Option<i64>,
        initial_events_end: bool,
    ) -> Result<RawObject, &'static str> {
        let labels: Box<[u8]> = self
            .labels
            .clone()
            .map_or(Box::default(), |r| self.object[r].into());
        RawObject::kept_hinted(
            (
                self.kind.map_or("", |k| self.text(k)),
                self.api_version.map_or("", |v| self.text(v)),
            ),
            type_meta,
            [
                self.text(self.name),
                self.text(self.namespace),
                self.text(self.uid),
                self.text(self.resource_version),
            ],
            labels,
            digest,
            generation,
            initial_events_end,
        )
    }
}

impl RawObject {
    /// An object message of the protobuf encoding (a LIST item, or a watch event's object out
    /// of its envelope) whose kind and apiVersion are `type_meta`: its identity and labels are
    /// copied, and its bytes digested (see [`Body::Digest`]).
    ///
    /// [`Body::Digest`]: super::Body::Digest
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
}
