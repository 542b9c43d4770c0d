//! An object read from its JSON in one pass and kept as its identity, its labels and a digest of
//! its content that does not depend on key order: what `diff` and `bench` keep of a custom
//! resource (served only in JSON), as they keep a protobuf object.
//!
//! The digest is of the JSON *value*: map entries in any order, any escaping of a string and
//! whitespace give the same digest; an integer and a float are different values (as
//! `serde_json::Value` compares them). The same object is encoded with different key orders by
//! the API server's watch cache and by its path from etcd, so the bytes cannot be digested (the
//! protobuf encoder writes fields in number order and map entries sorted, and its bytes are).
//! The top-level `kind` and `apiVersion` are left out: a LIST's items carry neither.

use super::{Encoding, RawObject, Str, INITIAL_EVENTS_END};
use serde::de::{DeserializeSeed, Error, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::hash::{BuildHasher, Hasher};

/// The hash every digest is built from: foldhash's quality variant (64 bits, good avalanche,
/// fast on the short strings JSON objects are made of), with a fixed seed so that one value has
/// one digest in every process.
const HASH: foldhash::quality::FixedState = foldhash::quality::FixedState::with_seed(0x6b75_6265);

/// A distinct first word for each kind of value, so that no two kinds hash alike.
const NULL: u64 = 1;
const BOOL: u64 = 2;
const INTEGER: u64 = 3;
const FLOAT: u64 = 4;
const STRING: u64 = 5;
const ARRAY: u64 = 6;
const ENTRY: u64 = 7;
const MAP: u64 = 8;

fn words(tag: u64, a: u64, b: u64) -> u64 {
    let mut h = HASH.build_hasher();
    h.write_u64(tag);
    h.write_u64(a);
    h.write_u64(b);
    h.finish()
}

fn string(s: &str) -> u64 {
    let mut h = HASH.build_hasher();
    h.write_u64(STRING);
    h.write(s.as_bytes());
    h.write_u64(s.len() as u64);
    h.finish()
}

fn integer(v: i128) -> u64 {
    words(INTEGER, v as u64, (v >> 64) as u64)
}

fn float(v: f64) -> u64 {
    // -0.0 == 0.0, as serde_json::Value compares them.
    let v = if v == 0.0 { 0.0 } else { v };
    words(FLOAT, v.to_bits(), 0)
}

/// The entries of a map, in any order: a sum of each entry's hash.
#[derive(Default)]
struct Entries {
    sum: u64,
    count: u64,
}

impl Entries {
    fn add(&mut self, key: u64, value: u64) {
        self.sum = self.sum.wrapping_add(words(ENTRY, key, value));
        self.count += 1;
    }

    fn finish(&self) -> u64 {
        words(MAP, self.sum, self.count)
    }
}

/// The digest of any JSON value.
#[derive(Clone, Copy)]
pub(super) struct Digest;

impl<'de> DeserializeSeed<'de> for Digest {
    type Value = u64;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Digest {
    type Value = u64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: Error>(self) -> Result<u64, E> {
        Ok(words(NULL, 0, 0))
    }
    fn visit_none<E: Error>(self) -> Result<u64, E> {
        self.visit_unit()
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<u64, E> {
        Ok(words(BOOL, u64::from(v), 0))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<u64, E> {
        Ok(integer(v.into()))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<u64, E> {
        Ok(integer(v.into()))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<u64, E> {
        Ok(float(v))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<u64, E> {
        Ok(string(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u64, A::Error> {
        // Each element's hash folded into the ones before it: the order counts.
        let (mut acc, mut count) = (words(ARRAY, 0, 0), 0u64);
        while let Some(element) = seq.next_element_seed(Digest)? {
            acc = words(ARRAY, acc, element);
            count += 1;
        }
        Ok(words(ARRAY, acc, count))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let mut entries = Entries::default();
        while let Some(key) = map.next_key::<Str>()? {
            let value = map.next_value_seed(Digest)?;
            entries.add(string(&key.0), value);
        }
        Ok(entries.finish())
    }
}

/// A string or null (`None`), and its digest.
struct OptionalStr;

impl<'de> DeserializeSeed<'de> for OptionalStr {
    type Value = (Option<Cow<'de, str>>, u64);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for OptionalStr {
    type Value = (Option<Cow<'de, str>>, u64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok((None, Digest.visit_unit()?))
    }
    fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok((Some(Cow::Borrowed(v)), string(v)))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok((Some(Cow::Owned(v.to_owned())), string(v)))
    }
}

/// `metadata.generation`: an integer or null, and its digest.
struct Generation;

impl<'de> Visitor<'de> for Generation {
    type Value = (Option<i64>, u64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("i64")
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok((None, Digest.visit_unit()?))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok((Some(v), Digest.visit_i64(v)?))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
        let v = i64::try_from(v)
            .map_err(|_| E::invalid_value(serde::de::Unexpected::Unsigned(v), &self))?;
        self.visit_i64(v)
    }
}

impl<'de> DeserializeSeed<'de> for Generation {
    type Value = (Option<i64>, u64);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// `metadata.labels`: their digest, and their JSON text (`{"k":"v",...}`, the entries in the
/// order they came) for label lookups; no text unless they are a map of strings.
struct Labels;

impl<'de> DeserializeSeed<'de> for Labels {
    type Value = (Vec<u8>, u64);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Labels {
    type Value = (Vec<u8>, u64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of labels")
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok((Vec::new(), Digest.visit_unit()?))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut text, mut strings) = (b"{".to_vec(), true);
        let mut entries = Entries::default();
        while let Some(Str(key)) = map.next_key::<Str>()? {
            let (value, digest) = map.next_value_seed(AnyOrStr)?;
            entries.add(string(&key), digest);
            match value {
                Some(value) if strings => {
                    if text.len() > 1 {
                        text.push(b',');
                    }
                    serde_json::to_writer(&mut text, &key).map_err(A::Error::custom)?;
                    text.push(b':');
                    serde_json::to_writer(&mut text, &value).map_err(A::Error::custom)?;
                }
                _ => strings = false,
            }
        }
        text.push(b'}');
        Ok((if strings { text } else { Vec::new() }, entries.finish()))
    }
    // Anything else is digested and has no labels to look up.
    fn visit_bool<E: Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok((Vec::new(), Digest.visit_bool(v)?))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok((Vec::new(), Digest.visit_i64(v)?))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok((Vec::new(), Digest.visit_u64(v)?))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok((Vec::new(), Digest.visit_f64(v)?))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok((Vec::new(), Digest.visit_str(v)?))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Ok((Vec::new(), Digest.visit_seq(seq)?))
    }
}

/// A value's digest, and the value itself when it is a string.
struct AnyOrStr;

impl<'de> DeserializeSeed<'de> for AnyOrStr {
    type Value = (Option<Cow<'de, str>>, u64);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for AnyOrStr {
    type Value = (Option<Cow<'de, str>>, u64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E: Error>(self, v: &'de str) -> Result<Self::Value, E> {
        OptionalStr.visit_borrowed_str(v)
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Self::Value, E> {
        OptionalStr.visit_str(v)
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok((None, Digest.visit_unit()?))
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok((None, Digest.visit_bool(v)?))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok((None, Digest.visit_i64(v)?))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok((None, Digest.visit_u64(v)?))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok((None, Digest.visit_f64(v)?))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Ok((None, Digest.visit_seq(seq)?))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Ok((None, Digest.visit_map(map)?))
    }
}

/// `metadata.annotations`: their digest, and whether `k8s.io/initial-events-end` is "true".
struct Annotations;

impl<'de> DeserializeSeed<'de> for Annotations {
    type Value = (bool, u64);
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Annotations {
    type Value = (bool, u64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of annotations")
    }
    fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
        Ok((false, Digest.visit_unit()?))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut found, mut entries) = (false, Entries::default());
        while let Some(Str(key)) = map.next_key::<Str>()? {
            let digest = if key == INITIAL_EVENTS_END {
                // A string, not null: as the whole object's reader takes it.
                let value = map.next_value::<Str>()?.0;
                found = value == "true";
                string(&value)
            } else {
                map.next_value_seed(Digest)?
            };
            entries.add(string(&key), digest);
        }
        Ok((found, entries.finish()))
    }
}

/// What the pipeline reads of an object, with the digest of the whole.
#[derive(Default)]
pub(super) struct Read<'de> {
    kind: Option<Cow<'de, str>>,
    api_version: Option<Cow<'de, str>>,
    name: Option<Cow<'de, str>>,
    namespace: Option<Cow<'de, str>>,
    uid: Option<Cow<'de, str>>,
    resource_version: Option<Cow<'de, str>>,
    generation: Option<i64>,
    labels: Vec<u8>,
    initial_events_end: bool,
    digest: u64,
    /// Which of [`FIELDS`] came, a bit each.
    seen: u16,
}

/// The fields read for the identity, each of which may come once (as serde's derive refuses a
/// duplicate, even after a null).
const FIELDS: [&str; 10] = [
    "kind",
    "apiVersion",
    "metadata",
    "name",
    "namespace",
    "uid",
    "resourceVersion",
    "generation",
    "labels",
    "annotations",
];

impl Read<'_> {
    /// Notes that `field` (one of [`FIELDS`]) came; an error if it already had.
    fn first<E: Error>(&mut self, field: &'static str) -> Result<(), E> {
        let bit = 1 << FIELDS.iter().position(|f| *f == field).unwrap_or(0);
        if self.seen & bit != 0 {
            return Err(E::duplicate_field(field));
        }
        self.seen |= bit;
        Ok(())
    }
}

/// `metadata`: an object (or null), its identity read and its entries digested into `read`.
struct Metadata<'r, 'de>(&'r mut Read<'de>);

impl<'de> DeserializeSeed<'de> for Metadata<'_, 'de> {
    type Value = u64;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Metadata<'_, 'de> {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("metadata as an object")
    }
    fn visit_unit<E: Error>(self) -> Result<u64, E> {
        Digest.visit_unit()
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let read = self.0;
        let mut entries = Entries::default();
        while let Some(Str(key)) = map.next_key::<Str>()? {
            let digest = match key.as_ref() {
                "name" | "namespace" | "uid" | "resourceVersion" => {
                    let (field, slot) = match key.as_ref() {
                        "name" => ("name", &mut read.name),
                        "namespace" => ("namespace", &mut read.namespace),
                        "uid" => ("uid", &mut read.uid),
                        _ => ("resourceVersion", &mut read.resource_version),
                    };
                    let (value, digest) = map.next_value_seed(OptionalStr)?;
                    *slot = value;
                    read.first(field)?;
                    digest
                }
                "generation" => {
                    read.first("generation")?;
                    let (value, digest) = map.next_value_seed(Generation)?;
                    read.generation = value;
                    digest
                }
                "labels" => {
                    read.first("labels")?;
                    let (text, digest) = map.next_value_seed(Labels)?;
                    read.labels = text;
                    digest
                }
                "annotations" => {
                    read.first("annotations")?;
                    let (found, digest) = map.next_value_seed(Annotations)?;
                    read.initial_events_end = found;
                    digest
                }
                _ => map.next_value_seed(Digest)?,
            };
            entries.add(string(&key), digest);
        }
        Ok(entries.finish())
    }
}

/// An object: its identity read and its content digested.
pub(super) struct Object;

impl<'de> DeserializeSeed<'de> for Object {
    type Value = Read<'de>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Read<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Object {
    type Value = Read<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Read<'de>, A::Error> {
        let mut read = Read::default();
        let mut entries = Entries::default();
        while let Some(Str(key)) = map.next_key::<Str>()? {
            match key.as_ref() {
                // Not digested: a LIST's items leave them out.
                "kind" => {
                    read.first("kind")?;
                    read.kind = map.next_value_seed(OptionalStr)?.0;
                }
                "apiVersion" => {
                    read.first("apiVersion")?;
                    read.api_version = map.next_value_seed(OptionalStr)?.0;
                }
                "metadata" => {
                    read.first("metadata")?;
                    let digest = map.next_value_seed(Metadata(&mut read))?;
                    entries.add(string(&key), digest);
                }
                _ => {
                    let digest = map.next_value_seed(Digest)?;
                    entries.add(string(&key), digest);
                }
            }
        }
        read.digest = entries.finish();
        Ok(read)
    }
}

impl Read<'_> {
    /// The object kept as a digest; kind and apiVersion from `kind_hint` where it has no kind.
    pub(super) fn kept(self, kind_hint: Option<(&str, &str)>) -> Result<RawObject, &'static str> {
        RawObject::kept_hinted(
            (
                self.kind.as_deref().unwrap_or_default(),
                self.api_version.as_deref().unwrap_or_default(),
            ),
            kind_hint,
            [
                self.name.as_deref().unwrap_or_default(),
                self.namespace.as_deref().unwrap_or_default(),
                self.uid.as_deref().unwrap_or_default(),
                self.resource_version.as_deref().unwrap_or_default(),
            ],
            self.labels.into_boxed_slice(),
            (self.digest, Encoding::Json),
            self.generation,
            self.initial_events_end,
        )
    }
}

/// The digest of an object's JSON text (see the module's doc), or `None` if it is not an object.
pub(super) fn of_text(json: &str) -> Option<u64> {
    let mut de = serde_json::Deserializer::from_str(json);
    Object.deserialize(&mut de).ok().map(|read| read.digest)
}

/// An object read from JSON and kept as a digest (see the module's doc); kind and apiVersion
/// from the hint where the object has no kind (a LIST's items).
#[derive(Clone, Copy)]
pub struct Kept<'h>(pub Option<(&'h str, &'h str)>);

impl<'de> DeserializeSeed<'de> for Kept<'_> {
    type Value = RawObject;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<RawObject, D::Error> {
        Object
            .deserialize(d)?
            .kept(self.0)
            .map_err(D::Error::custom)
    }
}

impl RawObject {
    /// An object read from its JSON text and kept as a digest (see [`Kept`]).
    pub fn read_kept(json: &str, kind_hint: Option<(&str, &str)>) -> serde_json::Result<Self> {
        let mut de = serde_json::Deserializer::from_str(json);
        let object = Kept(kind_hint).deserialize(&mut de)?;
        de.end()?;
        Ok(object)
    }
}
