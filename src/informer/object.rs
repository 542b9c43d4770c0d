//! Objects as the server sent them (raw JSON, kept verbatim) with the metadata the pipeline reads.

use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The annotation on the BOOKMARK that ends a watch-list's initial events (KEP-3157).
pub const INITIAL_EVENTS_END: &str = "k8s.io/initial-events-end";

/// An object exactly as the server sent it, with its parsed identity; both shared, so a clone
/// (one per listener, per delta) costs two reference counts.
#[derive(Debug, Clone)]
pub struct RawObject {
    /// The JSON text of the object, unchanged.
    pub json: Arc<RawValue>,
    pub meta: Arc<ObjectHead>,
}

/// The parts of an object the pipeline needs: type, identity and version.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ObjectHead {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub metadata: Metadata,
}

/// `metadata`, reduced to what identifies and versions an object.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: Option<String>,
    #[serde(default)]
    pub uid: String,
    #[serde(default)]
    pub resource_version: String,
    #[serde(default)]
    pub generation: Option<i64>,
    /// `metadata.labels`, as a compact list (a map node per object would cost more than
    /// the labels themselves).
    #[serde(default, deserialize_with = "compact_labels")]
    pub labels: Labels,
    /// Whether the annotation `k8s.io/initial-events-end` is "true" (other annotations are not
    /// kept: they can be large, and the JSON has them).
    #[serde(
        default,
        rename = "annotations",
        deserialize_with = "initial_events_end"
    )]
    pub initial_events_end: bool,
}

/// Labels of one object, in the order the server sent them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels(Box<[(Box<str>, Box<str>)]>);

impl Labels {
    /// The value of label `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| &**k == key).map(|(_, v)| &**v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (&**k, &**v))
    }
}

fn compact_labels<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Labels, D::Error> {
    let map: Option<BTreeMap<String, String>> = serde::Deserialize::deserialize(d)?;
    Ok(Labels(
        map.unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str()))
            .collect(),
    ))
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
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == INITIAL_EVENTS_END {
                    found = map.next_value::<std::borrow::Cow<'de, str>>()? == "true";
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }
    d.deserialize_any(Visitor)
}

impl RawObject {
    /// Parses the identity of `json`; kind and apiVersion are filled from `kind_hint` when the
    /// server left them out (items of a LIST response carry neither).
    pub fn parse(json: Box<RawValue>, kind_hint: Option<(&str, &str)>) -> serde_json::Result<Self> {
        let mut meta: ObjectHead = serde_json::from_str(json.get())?;
        let json = match kind_hint {
            Some((kind, api_version)) if meta.kind.is_empty() => {
                meta.kind = kind.to_string();
                meta.api_version = api_version.to_string();
                with_type_meta(&json, kind, api_version)?
            }
            _ => json,
        };
        Ok(RawObject {
            json: Arc::from(json),
            meta: Arc::new(meta),
        })
    }

    /// `namespace/name`, or `name` for cluster-scoped objects: the cache key client-go uses.
    pub fn key(&self) -> String {
        object_key(
            self.meta.metadata.namespace.as_deref(),
            &self.meta.metadata.name,
        )
    }

    pub fn resource_version(&self) -> &str {
        &self.meta.metadata.resource_version
    }
}

/// kubectl apply keeps the whole applied manifest here, Secret data included.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The marker that replaces a secret value of `bytes` bytes.
pub fn redaction_marker(bytes: usize) -> String {
    format!("<redacted: {bytes} bytes>")
}

/// The decoded length of base64 text, without decoding it.
fn base64_len(text: &str) -> usize {
    let text = text.trim_end();
    let padding = text.bytes().rev().take_while(|b| *b == b'=').count();
    (text.len() / 4 * 3).saturating_sub(padding)
}

impl RawObject {
    /// This object with each value of `data` and `stringData` (and kubectl's
    /// last-applied-configuration, which repeats them) replaced by a marker with its length in
    /// bytes; keys stay, so users still see which keys changed.
    pub fn redacted(&self) -> serde_json::Result<RawObject> {
        use serde_json::Value;
        let mut value: Value = serde_json::from_str(self.json.get())?;
        for (field, decoded_len) in [
            ("data", base64_len as fn(&str) -> usize),
            ("stringData", str::len),
        ] {
            if let Some(map) = value.get_mut(field).and_then(Value::as_object_mut) {
                for v in map.values_mut() {
                    let len = v.as_str().map(decoded_len).unwrap_or(0);
                    *v = Value::String(redaction_marker(len));
                }
            }
        }
        if let Some(v) = value.pointer_mut(&format!(
            "/metadata/annotations/{}",
            LAST_APPLIED.replace('/', "~1")
        )) {
            *v = Value::String(redaction_marker(v.as_str().map(str::len).unwrap_or(0)));
        }
        let json = RawValue::from_string(serde_json::to_string(&value)?)?;
        Ok(RawObject {
            json: Arc::from(json),
            meta: self.meta.clone(),
        })
    }
}

/// client-go's `MetaNamespaceKeyFunc`.
pub fn object_key(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_string(),
    }
}

/// Inserts `kind` and `apiVersion` at the front of an object's JSON, as watch events carry them.
fn with_type_meta(
    json: &RawValue,
    kind: &str,
    api_version: &str,
) -> serde_json::Result<Box<RawValue>> {
    let text = json.get().trim_start();
    let rest = text.strip_prefix('{').unwrap_or(text).trim_start();
    let sep = if rest.starts_with('}') { "" } else { "," };
    let spliced = format!(
        "{{\"kind\":{},\"apiVersion\":{}{sep}{rest}",
        serde_json::to_string(kind)?,
        serde_json::to_string(api_version)?
    );
    RawValue::from_string(spliced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_items_get_kind_and_api_version_spliced_in() {
        let raw = RawValue::from_string(
            r#"{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7","uid":"u"}}"#.into(),
        )
        .unwrap();
        let obj = RawObject::parse(raw, Some(("ConfigMap", "v1"))).unwrap();
        assert_eq!(obj.meta.kind, "ConfigMap");
        assert_eq!(obj.key(), "ns/a");
        let v: serde_json::Value = serde_json::from_str(obj.json.get()).unwrap();
        assert_eq!(v["kind"], "ConfigMap");
        assert_eq!(v["apiVersion"], "v1");
        assert_eq!(v["metadata"]["resourceVersion"], "7");
    }

    #[test]
    fn objects_that_carry_their_kind_are_left_verbatim() {
        let text = r#"{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"}}"#;
        let obj = RawObject::parse(
            RawValue::from_string(text.into()).unwrap(),
            Some(("X", "y")),
        )
        .unwrap();
        assert_eq!(obj.json.get(), text);
        assert_eq!(obj.key(), "n1");
    }

    #[test]
    fn secret_values_and_last_applied_are_redacted_but_keys_stay() {
        let text = r#"{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"data\":{\"password\":\"aHVudGVyMg==\"}}","other":"x"}},"data":{"password":"aHVudGVyMg=="},"stringData":{"token":"hunter2"}}"#;
        let obj = RawObject::parse(RawValue::from_string(text.into()).unwrap(), None).unwrap();
        let red = obj.redacted().unwrap();
        let out = red.json.get();
        assert!(
            !out.contains("aHVudGVyMg") && !out.contains("hunter2"),
            "{out}"
        );
        let v: serde_json::Value = serde_json::from_str(out).unwrap();
        assert_eq!(v["data"]["password"], "<redacted: 7 bytes>");
        assert_eq!(v["stringData"]["token"], "<redacted: 7 bytes>");
        let last =
            &v["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"];
        assert!(last.as_str().unwrap().starts_with("<redacted: "), "{last}");
        assert_eq!(v["metadata"]["annotations"]["other"], "x");
        assert_eq!(red.key(), "s");
    }

    #[test]
    fn empty_object_splice_stays_valid_json() {
        let obj = RawObject::parse(
            RawValue::from_string("{}".into()).unwrap(),
            Some(("K", "v1")),
        )
        .unwrap();
        assert_eq!(obj.json.get(), r#"{"kind":"K","apiVersion":"v1"}"#);
    }
}
