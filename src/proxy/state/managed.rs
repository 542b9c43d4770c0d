//! The part of an object a field manager owns, from its `metadata.managedFields`: the union of
//! the `FieldsV1` sets of the entries of the managers named, and the object cut down to them.
//!
//! `FieldsV1` (k8s.io/apimachinery's `metav1.FieldsV1`, structured-merge-diff's set encoding) is
//! a tree: `f:NAME` a field of a map or struct, `k:{"name":"web"}` the item of an associative
//! list with those key fields, `v:VALUE` an item of a set, `i:N` the item at an index of an
//! atomic-free list, `.` the element itself. An empty node owns the whole value below it.

use serde_json::{Map, Value};

/// The union of the field sets of `object`'s `managedFields` entries whose manager is one of
/// `managers` (any operation, any subresource); `None` when no entry is theirs.
pub fn owned_by(object: &Value, managers: &[String]) -> Option<Map<String, Value>> {
    let entries = object["metadata"]["managedFields"].as_array()?;
    let mut union: Option<Map<String, Value>> = None;
    for entry in entries {
        let ours = entry["manager"]
            .as_str()
            .is_some_and(|m| managers.iter().any(|n| n == m));
        if !ours {
            continue;
        }
        let set = entry["fieldsV1"].as_object().cloned().unwrap_or_default();
        match union.as_mut() {
            None => union = Some(set),
            Some(union) => merge(union, set),
        }
    }
    union
}

/// `into` with `set`'s fields added.
fn merge(into: &mut Map<String, Value>, set: Map<String, Value>) {
    for (key, node) in set {
        match (into.get_mut(&key), node) {
            (Some(Value::Object(mine)), Value::Object(theirs)) => merge(mine, theirs),
            (Some(_), _) => {}
            (None, node) => {
                into.insert(key, node);
            }
        }
    }
}

/// `value` cut down to the fields of `set`: what a manager owns of it.
pub fn project(value: &Value, set: &Map<String, Value>) -> Value {
    let children = set.keys().any(|k| k != ".");
    if !children {
        // An empty node (or the element alone, `.`): a leaf owned whole, or an element whose
        // presence is owned and none of its fields.
        return match (set.is_empty(), value) {
            (true, _) => value.clone(),
            (false, Value::Object(_)) => Value::Object(Map::new()),
            (false, Value::Array(_)) => Value::Array(Vec::new()),
            (false, leaf) => leaf.clone(),
        };
    }
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, node) in set {
                let Some(field) = key.strip_prefix("f:") else {
                    continue;
                };
                if let (Some(v), Some(node)) = (map.get(field), node.as_object()) {
                    out.insert(field.to_string(), project(v, node));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let node = set.iter().find_map(|(key, node)| {
                    item_matches(key, i, item).then_some(node.as_object()?)
                });
                if let Some(node) = node {
                    out.push(project(item, node));
                }
            }
            Value::Array(out)
        }
        leaf => leaf.clone(),
    }
}

/// Whether the set's key `key` (`k:{...}`, `v:...`, `i:N`) names `item`, the list's `index`th.
fn item_matches(key: &str, index: usize, item: &Value) -> bool {
    if let Some(fields) = key.strip_prefix("k:") {
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(fields) else {
            return false;
        };
        return fields.iter().all(|(k, v)| item.get(k) == Some(v));
    }
    if let Some(value) = key.strip_prefix("v:") {
        return serde_json::from_str::<Value>(value).is_ok_and(|v| &v == item);
    }
    if let Some(i) = key.strip_prefix("i:") {
        return i.parse::<usize>() == Ok(index);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A Pod as kube-controller-manager's ReplicationController controller makes it, then the
    /// scheduler binds (no managed fields: the binding does not go through the field manager)
    /// and kwok reports its status.
    fn pod() -> Value {
        json!({
            "metadata": {"name": "web-x2z4k", "labels": {"app": "web", "team": "t"},
                "ownerReferences": [{"uid": "u1", "name": "web"}],
                "managedFields": [
                    {"manager": "kube-controller-manager", "operation": "Update",
                     "fieldsV1": {"f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {}},
                        "f:ownerReferences": {".": {}, "k:{\"uid\":\"u1\"}": {}}},
                        "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {}, "f:name": {}}}}}},
                    {"manager": "kwok", "operation": "Update", "subresource": "status",
                     "fieldsV1": {"f:status": {"f:hostIP": {}, "f:phase": {}}}},
                    {"manager": "kubectl-label", "operation": "Update",
                     "fieldsV1": {"f:metadata": {"f:labels": {"f:team": {}}}}}
                ]},
            "spec": {"nodeName": "kwok-node-2",
                "containers": [{"name": "web", "image": "web:1", "imagePullPolicy": "Always"},
                               {"name": "side", "image": "side:1"}]},
            "status": {"hostIP": "10.0.0.2", "phase": "Running"}
        })
    }

    #[test]
    fn a_managers_part_of_an_object_leaves_out_what_other_actors_wrote() {
        let pod = pod();
        let set = owned_by(&pod, &["kube-controller-manager".into()]).unwrap();
        assert_eq!(
            project(&pod, &set),
            json!({
                "metadata": {"labels": {"app": "web"},
                    "ownerReferences": [{"uid": "u1", "name": "web"}]},
                "spec": {"containers": [{"name": "web", "image": "web:1"}]}
            }),
            "no nodeName (the scheduler's), no status (kwok's), no label of kubectl's, \
             no container another wrote, no field of it the controller did not set"
        );
        assert_eq!(owned_by(&pod, &["test-operator".into()]), None);
    }

    #[test]
    fn the_sets_of_several_entries_of_the_managers_are_joined() {
        let pod = pod();
        let set = owned_by(&pod, &["kwok".into(), "kubectl-label".into()]).unwrap();
        assert_eq!(
            project(&pod, &set),
            json!({"metadata": {"labels": {"team": "t"}},
                "status": {"hostIP": "10.0.0.2", "phase": "Running"}})
        );
    }

    #[test]
    fn set_items_and_indexed_items_are_matched_by_value_and_index() {
        let object =
            json!({"metadata": {"finalizers": ["a/x", "b/y"]}, "args": ["--one", "--two"]});
        let set = json!({"f:metadata": {"f:finalizers": {"v:\"b/y\"": {}}}, "f:args": {"i:1": {}}});
        assert_eq!(
            project(&object, set.as_object().unwrap()),
            json!({"metadata": {"finalizers": ["b/y"]}, "args": ["--two"]})
        );
    }
}
