//! Which resources an owner's objects own objects in: those the owner's kind is known to own
//! (the ownerReferences the built-in controllers set), and those found owned, transitively, by
//! any object of the owner's kind among objects a LIST returned.

use std::collections::{HashMap, HashSet};

/// What the built-in controllers own, by qualified resource name (kube-controller-manager sets
/// these ownerReferences): a Deployment its ReplicaSets, a ReplicaSet its Pods, ...
const KNOWN: &[(&str, &[&str])] = &[
    ("deployments.apps", &["replicasets.apps"]),
    ("replicasets.apps", &["pods"]),
    ("replicationcontrollers", &["pods"]),
    ("statefulsets.apps", &["pods", "controllerrevisions.apps"]),
    ("daemonsets.apps", &["pods", "controllerrevisions.apps"]),
    ("jobs.batch", &["pods"]),
    ("cronjobs.batch", &["jobs.batch"]),
    ("services", &["endpointslices.discovery.k8s.io"]),
];

/// One object found by the LIST: the index of its resource, its uid, its owners' uids.
pub struct Listed {
    pub resource: usize,
    pub uid: String,
    pub owners: Vec<String>,
}

/// The resources (by index) of the objects owned, transitively, by an object of resource
/// `owner`, in the order first reached.
pub fn owned_by_kind(objects: impl IntoIterator<Item = Listed>, owner: usize) -> Vec<usize> {
    let objects: Vec<Listed> = objects.into_iter().collect();
    let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, o) in objects.iter().enumerate() {
        for parent in &o.owners {
            children.entry(parent.as_str()).or_default().push(i);
        }
    }
    let mut queue: std::collections::VecDeque<usize> = objects
        .iter()
        .enumerate()
        .filter(|(_, o)| o.resource == owner)
        .map(|(i, _)| i)
        .collect();
    let mut seen: HashSet<usize> = queue.iter().copied().collect();
    let mut found = Vec::new();
    while let Some(i) = queue.pop_front() {
        for &child in children.get(objects[i].uid.as_str()).into_iter().flatten() {
            if !found.contains(&objects[child].resource) {
                found.push(objects[child].resource);
            }
            if seen.insert(child) {
                queue.push_back(child);
            }
        }
    }
    found
}

/// The resources `owner` is known to own, transitively (deployments: replicasets, pods).
pub fn known_closure(owner: &str) -> Vec<&'static str> {
    let mut found: Vec<&'static str> = Vec::new();
    let mut queue = vec![owner.to_string()];
    while let Some(at) = queue.pop() {
        for (_, owned) in KNOWN.iter().filter(|(o, _)| *o == at) {
            for name in owned.iter() {
                if !found.contains(name) && *name != owner {
                    found.push(name);
                    queue.push(name.to_string());
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_ownership_is_followed_down_the_chain() {
        assert_eq!(
            known_closure("deployments.apps"),
            ["replicasets.apps", "pods"]
        );
        assert_eq!(known_closure("cronjobs.batch"), ["jobs.batch", "pods"]);
        assert_eq!(
            known_closure("statefulsets.apps"),
            ["pods", "controllerrevisions.apps"]
        );
        assert!(known_closure("configmaps").is_empty());
        assert!(known_closure("widgets.example.com").is_empty());
    }

    #[test]
    fn a_list_finds_the_resources_owned_transitively_by_any_object_of_the_owner_s_kind() {
        let o = |resource, uid: &str, owners: &[&str]| Listed {
            resource,
            uid: uid.into(),
            owners: owners.iter().map(|s| s.to_string()).collect(),
        };
        // 0 widgets, 1 gadgets, 2 configmaps, 3 secrets.
        let objects = vec![
            o(2, "cm-of-gadget", &["g1"]),
            o(0, "w1", &[]),
            o(1, "g1", &["w1"]),
            o(0, "w2", &["w1"]),
            o(3, "unowned", &[]),
            o(3, "owned-by-another", &["x"]),
        ];
        assert_eq!(owned_by_kind(objects, 0), [1, 0, 2]);
        let cycle = vec![o(1, "a", &["b"]), o(1, "b", &["a"])];
        assert_eq!(owned_by_kind(cycle, 1), [1]);
        assert!(owned_by_kind(Vec::new(), 0).is_empty());
    }
}
