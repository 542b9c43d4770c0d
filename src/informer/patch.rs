//! What changed from one version of an object to the next, for `tail --diff`: both versions as
//! JSON values, without the bookkeeping every write changes (unless all fields are asked for),
//! and the RFC 6902 JSON Patch from one to the other.

use super::object::RawObject;
use serde_json::Value;

/// The fields every write (or every spec change) moves on their own, left out of a diff unless
/// `--diff-all`: the RV, the server-side-apply bookkeeping, and the generation (whose cause,
/// the spec change, shows).
pub const NOISE: [&str; 3] = ["resourceVersion", "managedFields", "generation"];

/// Which fields a diff compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFields {
    /// All but the `metadata` fields in [`NOISE`].
    Content,
    /// Every field, the objects as the server sent them.
    All,
}

/// Two versions of one object, as a diff compares them.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectDiff {
    pub old_resource_version: String,
    pub new_resource_version: String,
    /// The previous version (noise left out with [`DiffFields::Content`]).
    pub old: Value,
    /// The new version, likewise.
    pub new: Value,
    /// The versions are Secrets with their values redacted: a value may have changed unseen.
    pub redacted: bool,
}

impl ObjectDiff {
    /// `old` and `new` as a diff compares them, already redacted when they are Secrets whose
    /// values must not show (`redacted` says so).
    pub fn between(
        old: &RawObject,
        new: &RawObject,
        fields: DiffFields,
        redacted: bool,
    ) -> serde_json::Result<Self> {
        let value = |o: &RawObject| -> serde_json::Result<Value> {
            let json = o.json().ok_or_else(|| {
                serde::de::Error::custom("an object received in protobuf has no JSON to compare")
            })?;
            let mut v: Value = serde_json::from_str(json)?;
            if fields == DiffFields::Content {
                strip_noise(&mut v);
            }
            Ok(v)
        };
        Ok(ObjectDiff {
            old_resource_version: old.resource_version().to_string(),
            new_resource_version: new.resource_version().to_string(),
            old: value(old)?,
            new: value(new)?,
            redacted,
        })
    }

    /// Whether nothing compared changed (only noise did, or a redacted value).
    pub fn is_empty(&self) -> bool {
        self.old == self.new
    }

    /// The RFC 6902 JSON Patch that turns `old` into `new`.
    pub fn patch(&self) -> json_patch::Patch {
        json_patch::diff(&self.old, &self.new)
    }
}

/// Removes the [`NOISE`] fields from an object's `metadata`.
pub fn strip_noise(object: &mut Value) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in NOISE {
            metadata.remove(field);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(v: Value) -> RawObject {
        let raw = serde_json::value::RawValue::from_string(v.to_string()).unwrap();
        RawObject::parse(raw, None).unwrap()
    }

    /// A ConfigMap at `rv`, its managedFields written then, kubectl's last-applied annotation
    /// `applied`.
    fn configmap(rv: &str, generation: i64, applied: &str, data: Value) -> RawObject {
        object(json!({
            "kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {
                "name": "x", "namespace": "ns", "resourceVersion": rv, "generation": generation,
                "managedFields": [{"manager": "kubectl", "time": rv}],
                "annotations": {"kubectl.kubernetes.io/last-applied-configuration": applied},
            },
            "data": data,
        }))
    }

    #[test]
    fn noise_is_left_out_but_the_rest_of_metadata_stays() {
        let old = configmap("12", 1, "12", json!({"a": "1"}));
        let new = configmap("15", 2, "15", json!({"a": "1"}));
        let d = ObjectDiff::between(&old, &new, DiffFields::Content, false).unwrap();
        assert_eq!(
            (
                d.old_resource_version.as_str(),
                d.new_resource_version.as_str()
            ),
            ("12", "15")
        );
        let metadata = d.new["metadata"].as_object().unwrap();
        for noise in NOISE {
            assert!(!metadata.contains_key(noise), "{noise} in {metadata:?}");
        }
        assert_eq!(metadata["name"], "x");
        // kubectl's last-applied-configuration is content: it stays, and it changed.
        assert!(!d.is_empty());
        assert_eq!(
            serde_json::to_value(d.patch()).unwrap(),
            json!([{
                "op": "replace",
                "path": "/metadata/annotations/kubectl.kubernetes.io~1last-applied-configuration",
                "value": "15",
            }])
        );
    }

    #[test]
    fn a_change_of_noise_alone_is_empty_and_its_patch_too_unless_all_fields_are_compared() {
        let old = configmap("12", 1, "{}", json!({"a": "1"}));
        let new = configmap("15", 2, "{}", json!({"a": "1"}));
        let d = ObjectDiff::between(&old, &new, DiffFields::Content, false).unwrap();
        assert!(d.is_empty());
        assert!(d.patch().0.is_empty());
        let all = ObjectDiff::between(&old, &new, DiffFields::All, false).unwrap();
        assert!(!all.is_empty());
        let mut patched = all.old.clone();
        json_patch::patch(&mut patched, &all.patch()).unwrap();
        assert_eq!(
            patched,
            serde_json::from_str::<Value>(new.json().unwrap()).unwrap()
        );
    }

    #[test]
    fn the_patch_turns_the_old_version_into_the_new_one() {
        let old = configmap(
            "12",
            1,
            "{}",
            json!({"keep": "k", "change": "1", "remove": "r"}),
        );
        let new = configmap(
            "15",
            1,
            "{}",
            json!({"keep": "k", "change": "2", "add": "a"}),
        );
        let d = ObjectDiff::between(&old, &new, DiffFields::Content, false).unwrap();
        let patch = d.patch();
        let mut patched = d.old.clone();
        json_patch::patch(&mut patched, &patch).unwrap();
        assert_eq!(patched, d.new);
        let paths: Vec<String> = serde_json::to_value(&patch)
            .unwrap()
            .as_array()
            .unwrap()
            .iter()
            .map(|op| op["path"].as_str().unwrap().to_string())
            .filter(|p| p.starts_with("/data"))
            .collect();
        let mut paths = paths;
        paths.sort();
        assert_eq!(paths, ["/data/add", "/data/change", "/data/remove"]);
    }

    #[test]
    fn redacted_secrets_show_the_marker_change_never_the_value() {
        let secret = |rv: &str, password: &str| {
            object(json!({
                "kind": "Secret", "apiVersion": "v1",
                "metadata": {"name": "s", "resourceVersion": rv},
                "data": {"password": password},
            }))
        };
        // "hunter2" and "hunter3" (7 bytes each), then "longer-secret" (13 bytes).
        let (v1, v2, v3) = ("aHVudGVyMg==", "aHVudGVyMw==", "bG9uZ2VyLXNlY3JldA==");
        let redacted = |rv, v| secret(rv, v).redacted().unwrap();
        let diff = |(rv1, from), (rv2, to), fields| {
            ObjectDiff::between(&redacted(rv1, from), &redacted(rv2, to), fields, true).unwrap()
        };
        let same_length = diff(("1", v1), ("2", v2), DiffFields::Content);
        assert!(same_length.is_empty() && same_length.redacted);
        let longer = diff(("2", v2), ("3", v3), DiffFields::All);
        let patch = serde_json::to_string(&longer.patch()).unwrap();
        assert!(patch.contains("<redacted: 13 bytes>"), "{patch}");
        for secret in [v1, v2, v3, "hunter", "longer-secret"] {
            assert!(!patch.contains(secret), "{patch}");
            assert!(!format!("{longer:?}").contains(secret));
        }
    }
}
