//! An object's identity read from its JSON: borrowed from the text where no escape is in the
//! way, and kind and apiVersion spliced in front when the server left them out.

use super::{Body, Inner, RawObject, Span, INITIAL_EVENTS_END, NO_GENERATION};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::Arc;

/// A string borrowed from the JSON unless escapes had to be undone. (serde borrows a
/// `Cow<str>` field only when it is the field's whole type; inside an `Option` it would always
/// copy, so the `Cow` sits in this newtype.)
#[derive(Deserialize)]
pub(crate) struct Str<'a>(#[serde(borrow)] pub(crate) Cow<'a, str>);

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
