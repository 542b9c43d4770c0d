//! The Store/Indexer: the informer's cache, keyed by `namespace/name`, with the last synced
//! resourceVersion, a namespace index and label indexes. Objects are kept as the server's JSON
//! (shared, not decoded) with positions of their identity in it, and the cache is a table of
//! namespaces each holding a table of objects by name: no key is stored twice, and the
//! namespace index is the cache's own layout.

use super::object::{split_key, RawObject};
use std::borrow::Borrow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};

/// An object in its namespace's table, found by its name (which it holds: no key is kept).
#[derive(Debug, Clone)]
struct ByName(RawObject);

impl Hash for ByName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.name().hash(state)
    }
}

impl PartialEq for ByName {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name()
    }
}

impl Eq for ByName {}

impl Borrow<str> for ByName {
    fn borrow(&self) -> &str {
        self.0.name()
    }
}

/// Objects by namespace ("" for cluster-scoped ones), then by name. Cloning it shares the
/// objects: a frozen view costs a pointer per object.
#[derive(Debug, Clone, Default)]
pub struct Objects {
    namespaces: HashMap<Box<str>, HashSet<ByName>>,
    len: usize,
}

impl Objects {
    /// The object under `key` (`namespace/name`, or `name` when cluster-scoped).
    pub fn get(&self, key: &str) -> Option<&RawObject> {
        let (namespace, name) = split_key(key);
        self.get_in(namespace, name)
    }

    /// The object named `name` in `namespace` ("" for cluster-scoped ones). Unlike a key, this
    /// finds any name, even one holding a `/` (which a server never accepts, but a recording
    /// may hold).
    pub fn get_in(&self, namespace: &str, name: &str) -> Option<&RawObject> {
        self.namespaces.get(namespace)?.get(name).map(|o| &o.0)
    }

    /// The stored object with `object`'s namespace and name.
    pub fn get_object(&self, object: &RawObject) -> Option<&RawObject> {
        self.get_in(object.namespace().unwrap_or(""), object.name())
    }

    /// Adds or replaces the object under its key; returns the previous version.
    pub fn insert(&mut self, object: RawObject) -> Option<RawObject> {
        let namespace = object.namespace().unwrap_or("");
        let table = match self.namespaces.get_mut(namespace) {
            Some(table) => table,
            None => self.namespaces.entry(namespace.into()).or_default(),
        };
        let old = table.replace(ByName(object)).map(|o| o.0);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// Removes the object under `key`; returns it.
    pub fn remove(&mut self, key: &str) -> Option<RawObject> {
        let (namespace, name) = split_key(key);
        self.remove_in(namespace, name)
    }

    /// Removes the stored object with `object`'s namespace and name; returns it.
    pub fn remove_object(&mut self, object: &RawObject) -> Option<RawObject> {
        self.remove_in(object.namespace().unwrap_or(""), object.name())
    }

    /// Removes the object named `name` in `namespace` ("" for cluster-scoped ones).
    pub fn remove_in(&mut self, namespace: &str, name: &str) -> Option<RawObject> {
        let table = self.namespaces.get_mut(namespace)?;
        let old = table.take(name)?.0;
        if table.is_empty() {
            self.namespaces.remove(namespace);
        }
        self.len -= 1;
        Some(old)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every object, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &RawObject> {
        self.namespaces.values().flatten().map(|o| &o.0)
    }

    /// The objects in `namespace` ("" for cluster-scoped ones), in no particular order.
    pub fn in_namespace(&self, namespace: &str) -> impl Iterator<Item = &RawObject> {
        self.namespaces
            .get(namespace)
            .into_iter()
            .flatten()
            .map(|o| &o.0)
    }
}

/// An index over a label: label value → keys of the objects that carry it.
#[derive(Debug, Clone)]
struct LabelIndex {
    label: String,
    values: HashMap<String, BTreeSet<String>>,
}

impl LabelIndex {
    fn add(&mut self, object: &RawObject) {
        if let Some(v) = object.label(&self.label) {
            self.values.entry(v).or_default().insert(object.key());
        }
    }

    fn remove(&mut self, object: &RawObject) {
        if let Some(v) = object.label(&self.label) {
            if let Some(keys) = self.values.get_mut(&v) {
                keys.remove(&object.key());
                if keys.is_empty() {
                    self.values.remove(&v);
                }
            }
        }
    }
}

/// The cache.
#[derive(Debug, Default)]
pub struct Store {
    objects: Objects,
    resource_version: String,
    label_indexes: HashMap<String, LabelIndex>,
    /// A relist is part-way through replacing the contents: they are at no single RV.
    replacing: bool,
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
        for object in self.objects.iter() {
            index.add(object);
        }
        self.label_indexes.insert(name.to_string(), index);
    }

    /// Adds or replaces the object under its key; returns the previous version.
    pub fn upsert(&mut self, object: RawObject) -> Option<RawObject> {
        let old = self.objects.insert(object.clone());
        for index in self.label_indexes.values_mut() {
            match &old {
                // An update that moves no index entry (the common case) touches no index.
                Some(old) if old.same_labels(&object) => {}
                Some(old) => {
                    index.remove(old);
                    index.add(&object);
                }
                None => index.add(&object),
            }
        }
        old
    }

    /// Removes the object under `key`; returns it.
    pub fn remove(&mut self, key: &str) -> Option<RawObject> {
        let (namespace, name) = split_key(key);
        self.remove_in(namespace, name)
    }

    /// Removes the object named `name` in `namespace` ("" for cluster-scoped ones); returns it.
    pub fn remove_in(&mut self, namespace: &str, name: &str) -> Option<RawObject> {
        let old = self.objects.remove_in(namespace, name)?;
        for index in self.label_indexes.values_mut() {
            index.remove(&old);
        }
        Some(old)
    }

    /// Removes the stored object with `object`'s namespace and name; returns it.
    pub fn remove_object(&mut self, object: &RawObject) -> Option<RawObject> {
        self.remove_in(object.namespace().unwrap_or(""), object.name())
    }

    /// Removes `object` if the store still holds that very version (not one stored since);
    /// returns whether it did.
    pub fn remove_if_current(&mut self, object: &RawObject) -> bool {
        match self.objects.get_object(object) {
            Some(stored) if stored.ptr_eq(object) => self.remove_object(object).is_some(),
            _ => false,
        }
    }

    pub fn get(&self, key: &str) -> Option<&RawObject> {
        self.objects.get(key)
    }

    /// The object named `name` in `namespace` ("" for cluster-scoped ones).
    pub fn get_in(&self, namespace: &str, name: &str) -> Option<&RawObject> {
        self.objects.get_in(namespace, name)
    }

    /// The stored object with `object`'s namespace and name.
    pub fn get_object(&self, object: &RawObject) -> Option<&RawObject> {
        self.objects.get_object(object)
    }

    pub fn contains(&self, key: &str) -> bool {
        self.objects.get(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Marks the contents as part-way through a relist's replacement, or no longer.
    pub fn set_replacing(&mut self, replacing: bool) {
        self.replacing = replacing;
    }

    /// Whether a relist is part-way through replacing the contents: some objects are newer than
    /// the store's RV, and some it will delete are still there.
    pub fn is_replacing(&self) -> bool {
        self.replacing
    }

    /// A copy of the contents (objects are shared, not copied): the cache frozen at its RV.
    pub fn frozen(&self) -> (String, Objects) {
        (self.resource_version.clone(), self.objects.clone())
    }

    /// Every object, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &RawObject> {
        self.objects.iter()
    }

    /// Every key, sorted.
    pub fn keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self.objects.iter().map(RawObject::key).collect();
        keys.sort();
        keys
    }

    /// Every object, in key order.
    pub fn list(&self) -> Vec<&RawObject> {
        let mut objects: Vec<&RawObject> = self.objects.iter().collect();
        objects.sort_by_cached_key(|o| o.key());
        objects
    }

    /// Keys of the objects in `namespace` ("" for cluster-scoped ones), sorted.
    pub fn keys_in_namespace(&self, namespace: &str) -> Vec<String> {
        let mut keys: Vec<String> = self
            .objects
            .in_namespace(namespace)
            .map(RawObject::key)
            .collect();
        keys.sort();
        keys
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
    fn cluster_scoped_and_namespaced_objects_share_a_name_without_clashing() {
        let node = RawObject::parse(
            RawValue::from_string(
                r#"{"kind":"Node","metadata":{"name":"x","resourceVersion":"5"}}"#.into(),
            )
            .unwrap(),
            None,
        )
        .unwrap();
        let mut s = Store::new();
        s.upsert(cm("a", "x", 1, &[]));
        s.upsert(node);
        assert_eq!(s.get("x").unwrap().resource_version(), "5");
        assert_eq!(s.get("a/x").unwrap().resource_version(), "1");
        assert_eq!(s.keys(), vec!["a/x", "x"]);
        assert_eq!(s.keys_in_namespace(""), vec!["x"]);
        assert!(s.remove("a").is_none() && s.remove("b/x").is_none());
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn a_cluster_scoped_name_with_a_slash_is_found_and_removed_by_its_object() {
        // A server refuses such names; a hand-written recording may hold one.
        let odd = RawObject::parse(
            RawValue::from_string(
                r#"{"kind":"Node","metadata":{"name":"a/b","resourceVersion":"5"}}"#.into(),
            )
            .unwrap(),
            None,
        )
        .unwrap();
        let mut s = Store::new();
        s.upsert(odd.clone());
        s.upsert(cm("a", "b", 1, &[]));
        assert_eq!(s.get_in("", "a/b").unwrap().resource_version(), "5");
        assert_eq!(s.get("a/b").unwrap().resource_version(), "1");
        assert!(s.remove_if_current(&odd));
        assert!(!s.remove_if_current(&odd));
        assert_eq!(s.keys(), vec!["a/b"]);
        assert!(
            !s.remove_if_current(&cm("a", "b", 1, &[])),
            "another version stays"
        );
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn the_cache_holds_the_new_version_itself_and_a_frozen_view_keeps_the_old() {
        let mut s = Store::new();
        s.upsert(cm("a", "x", 1, &[]));
        let (rv, frozen) = s.frozen();
        assert_eq!(rv, "");
        let new = cm("a", "x", 2, &[]);
        s.upsert(new.clone());
        s.upsert(cm("a", "y", 3, &[]));
        assert!(s.get("a/x").unwrap().ptr_eq(&new));
        assert_eq!(frozen.get("a/x").unwrap().resource_version(), "1");
        assert_eq!(frozen.len(), 1);
        assert_eq!(s.len(), 2);
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
}
