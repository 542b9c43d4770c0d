//! The Store/Indexer: the informer's cache, keyed by `namespace/name`, with the last synced
//! resourceVersion, a namespace index and label indexes. Objects are kept as the server's JSON
//! (shared, not decoded) plus their parsed identity, which is what makes the cache compact.

use super::object::RawObject;
use crate::output::json::JsonPrinter;
use crate::output::{EventPrinter, Notice, ObjectEvent, Origin};
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::time::SystemTime;

/// An index over a label: label value → keys of the objects that carry it.
#[derive(Debug, Clone)]
struct LabelIndex {
    label: String,
    values: HashMap<String, BTreeSet<String>>,
}

/// The cache.
#[derive(Debug, Default)]
pub struct Store {
    objects: HashMap<String, RawObject>,
    resource_version: String,
    by_namespace: HashMap<String, BTreeSet<String>>,
    label_indexes: HashMap<String, LabelIndex>,
}

impl Store {
    pub fn new() -> Self {
        Store::default()
    }

    /// Adds an index named `name` over the value of `label`, covering objects already stored.
    pub fn add_label_index(&mut self, name: &str, label: &str) {
        let mut index = LabelIndex {
            label: label.to_string(),
            values: HashMap::new(),
        };
        for (key, obj) in &self.objects {
            if let Some(v) = obj.meta.metadata.labels.get(label) {
                index
                    .values
                    .entry(v.to_string())
                    .or_default()
                    .insert(key.clone());
            }
        }
        self.label_indexes.insert(name.to_string(), index);
    }

    /// Adds or replaces the object under its key; returns the previous version.
    pub fn upsert(&mut self, object: RawObject) -> Option<RawObject> {
        let key = object.key();
        let old = self.objects.insert(key.clone(), object);
        let new = &self.objects[&key];
        match &old {
            // An update that moves no index entry (the common case) touches no index.
            Some(old) if old.meta.metadata.labels == new.meta.metadata.labels => {}
            Some(old) => {
                let old = old.clone();
                self.unindex(&key, &old);
                let new = &self.objects[&key];
                index(&mut self.by_namespace, &mut self.label_indexes, &key, new);
            }
            None => index(&mut self.by_namespace, &mut self.label_indexes, &key, new),
        }
        old
    }

    /// Removes the object under `key`; returns it.
    pub fn remove(&mut self, key: &str) -> Option<RawObject> {
        let old = self.objects.remove(key)?;
        self.unindex(key, &old);
        Some(old)
    }

    fn unindex(&mut self, key: &str, old: &RawObject) {
        let ns = old.meta.metadata.namespace.clone().unwrap_or_default();
        if let Some(keys) = self.by_namespace.get_mut(&ns) {
            keys.remove(key);
            if keys.is_empty() {
                self.by_namespace.remove(&ns);
            }
        }
        for index in self.label_indexes.values_mut() {
            if let Some(v) = old.meta.metadata.labels.get(&index.label) {
                if let Some(keys) = index.values.get_mut(v) {
                    keys.remove(key);
                    if keys.is_empty() {
                        index.values.remove(v);
                    }
                }
            }
        }
    }

    pub fn get(&self, key: &str) -> Option<&RawObject> {
        self.objects.get(key)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.objects.contains_key(key)
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// A copy of the contents (objects are shared, not copied): the cache frozen at its RV.
    pub fn frozen(&self) -> (String, HashMap<String, RawObject>) {
        (self.resource_version.clone(), self.objects.clone())
    }

    /// Every key, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.objects.keys().cloned().collect();
        keys.sort();
        keys
    }

    /// Every object, in key order.
    pub fn list(&self) -> Vec<&RawObject> {
        let mut objects: Vec<&RawObject> = self.objects.values().collect();
        objects.sort_by_key(|o| o.key());
        objects
    }

    /// Keys of the objects in `namespace` ("" for cluster-scoped ones).
    pub fn keys_in_namespace(&self, namespace: &str) -> Vec<String> {
        self.by_namespace
            .get(namespace)
            .map(|k| k.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Keys of the objects whose indexed label has `value`; `None` when no such index exists.
    pub fn by_index(&self, index: &str, value: &str) -> Option<Vec<String>> {
        let index = self.label_indexes.get(index)?;
        Some(
            index
                .values
                .get(value)
                .map(|k| k.iter().cloned().collect())
                .unwrap_or_default(),
        )
    }

    /// The resourceVersion the cache is synced to.
    pub fn resource_version(&self) -> &str {
        &self.resource_version
    }

    pub fn set_resource_version(&mut self, rv: &str) {
        self.resource_version = rv.to_string();
    }

    /// Writes the cache as JSON Lines in tail's recording format: `start`, one `ADDED` per
    /// object, then `list-complete` at the synced RV. `diff --cache-file` reads it back.
    pub fn snapshot(&self, start: &Notice, out: impl Write) -> std::io::Result<()> {
        let mut printer = JsonPrinter::new(out);
        let now = SystemTime::now();
        printer.notice(start, now)?;
        for object in self.list() {
            printer.object(&ObjectEvent {
                event_type: "ADDED",
                origin: Origin::Initial,
                object,
                received_at: now,
                changes: None,
            })?;
        }
        printer.notice(
            &Notice::ListComplete {
                resource_version: self.resource_version.clone(),
                objects: self.len(),
                pages: 0,
                relist: false,
            },
            now,
        )?;
        printer.flush()
    }
}

fn index(
    by_namespace: &mut HashMap<String, BTreeSet<String>>,
    label_indexes: &mut HashMap<String, LabelIndex>,
    key: &str,
    object: &RawObject,
) {
    let ns = object.meta.metadata.namespace.clone().unwrap_or_default();
    by_namespace.entry(ns).or_default().insert(key.to_string());
    for index in label_indexes.values_mut() {
        if let Some(v) = object.meta.metadata.labels.get(&index.label) {
            index
                .values
                .entry(v.to_string())
                .or_default()
                .insert(key.to_string());
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// A ConfigMap for tests: `ns/name` at `rv` with `labels`.
    pub(crate) fn cm(ns: &str, name: &str, rv: u64, labels: &[(&str, &str)]) -> RawObject {
        let labels: serde_json::Map<String, serde_json::Value> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
            .collect();
        let json = serde_json::json!({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {
            "name": name, "namespace": ns, "uid": format!("uid-{name}"),
            "resourceVersion": rv.to_string(), "labels": labels}});
        RawObject::parse(RawValue::from_string(json.to_string()).unwrap(), None).unwrap()
    }

    #[test]
    fn upsert_replaces_and_returns_the_old_version() {
        let mut s = Store::new();
        assert!(s.upsert(cm("a", "x", 1, &[])).is_none());
        let old = s.upsert(cm("a", "x", 2, &[])).unwrap();
        assert_eq!(old.resource_version(), "1");
        assert_eq!(s.get("a/x").unwrap().resource_version(), "2");
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn namespace_index_follows_adds_and_removes() {
        let mut s = Store::new();
        s.upsert(cm("a", "x", 1, &[]));
        s.upsert(cm("a", "y", 2, &[]));
        s.upsert(cm("b", "x", 3, &[]));
        assert_eq!(s.keys_in_namespace("a"), vec!["a/x", "a/y"]);
        s.remove("a/x");
        assert_eq!(s.keys_in_namespace("a"), vec!["a/y"]);
        s.remove("a/y");
        assert!(s.keys_in_namespace("a").is_empty());
        assert_eq!(s.keys(), vec!["b/x"]);
    }

    #[test]
    fn label_index_tracks_label_changes_and_covers_existing_objects() {
        let mut s = Store::new();
        s.upsert(cm("a", "x", 1, &[("app", "web")]));
        s.add_label_index("by-app", "app");
        s.upsert(cm("a", "y", 2, &[("app", "web")]));
        assert_eq!(s.by_index("by-app", "web").unwrap(), vec!["a/x", "a/y"]);
        s.upsert(cm("a", "x", 3, &[("app", "db")]));
        assert_eq!(s.by_index("by-app", "web").unwrap(), vec!["a/y"]);
        assert_eq!(s.by_index("by-app", "db").unwrap(), vec!["a/x"]);
        s.remove("a/y");
        assert!(s.by_index("by-app", "web").unwrap().is_empty());
        assert!(s.by_index("nope", "web").is_none());
    }

    #[test]
    fn snapshot_is_a_recording_with_the_synced_rv() {
        let mut s = Store::new();
        s.upsert(cm("a", "y", 2, &[]));
        s.upsert(cm("a", "x", 1, &[]));
        s.set_resource_version("9");
        let start = Notice::WatchOpened {
            resource_version: "9".into(),
        };
        let mut out = Vec::new();
        s.snapshot(&start, &mut out).unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[1]["name"], "x");
        assert_eq!(lines[2]["name"], "y");
        assert_eq!(lines[3]["notice"], "list-complete");
        assert_eq!(lines[3]["resourceVersion"], "9");
    }
}
