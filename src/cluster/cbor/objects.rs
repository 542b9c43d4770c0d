//! The Kubernetes types read out of items: a watch event, a LIST (its `ListMeta` and items), a
//! `Status`, an object's identity ([`Meta`]) and the value of one of its labels.

use super::read::{
    elements, end, entries, identity, integer, is_null, lossy, map, string, text, whole,
};
use super::{ListMeta, Result, Status};
use crate::cluster::protobuf::INITIAL_EVENTS_END;
use std::ops::Range;

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
    ///
    /// [`digest`]: super::digest
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
