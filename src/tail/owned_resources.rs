//! `tail --follow-owned` without `--owned-kinds`: which resources an owner's objects own
//! objects in. Those the owner's kind is known to own (the ownerReferences the built-in
//! controllers set), and those found owned, transitively, by any object of the owner's kind
//! among the objects of one metadata-only LIST of every listable and watchable resource in its
//! scope.

use crate::cluster::{ApiResource, Cluster, ClusterError};
use crate::informer::listwatch::{ListOptions, ListWatch, DEFAULT_CHUNK_SIZE};
use crate::informer::object::{Encoding, Keep};
use crate::verbosity::Verbosity;
use futures::{StreamExt, TryStreamExt};
use std::collections::{HashMap, HashSet};

/// LISTs in flight at once while looking for owned objects.
const CONCURRENT_LISTS: usize = 4;

/// The object `--follow-owned` follows, as finding what it owns needs it: its resource, and
/// the namespace it is watched in (none: cluster-scoped, or `-A`).
#[derive(Debug, Clone, Copy)]
pub struct Owner<'a> {
    pub resource: &'a ApiResource,
    pub namespace: Option<&'a str>,
}

impl Owner<'_> {
    /// Where objects it owns can be: its namespace (ownerReferences do not cross namespaces),
    /// or anywhere for a cluster-scoped owner or `-A`.
    pub fn scope(&self, resource: &ApiResource) -> Option<String> {
        if resource.namespaced && self.resource.namespaced {
            self.namespace.map(str::to_string)
        } else {
            None
        }
    }
}

/// The resources to watch for objects `owner`'s objects own: the known ones and those found
/// by LIST, in that order, each once, without the owner's own resource unless its objects own
/// others of their kind. Where it looked is said at `-v=1`.
pub async fn discover(
    cluster: &Cluster,
    owner: Owner<'_>,
    resources: &[ApiResource],
    verbosity: Verbosity,
) -> Result<Vec<ApiResource>, ClusterError> {
    let candidates: Vec<&ApiResource> = resources
        .iter()
        .filter(|r| r.preferred && r.supports("list") && r.supports("watch"))
        .filter(|r| r.namespaced || !owner.resource.namespaced)
        .collect();
    let listed: Vec<Vec<Listed>> = futures::stream::iter(candidates.iter().enumerate())
        .map(|(index, resource)| list(cluster, owner, index, resource, verbosity))
        .buffer_unordered(CONCURRENT_LISTS)
        .try_collect()
        .await?;
    let found = owned_by_kind(
        listed.into_iter().flatten(),
        candidates
            .iter()
            .position(|r| *r == owner.resource)
            .unwrap_or(usize::MAX),
    );
    let mut chosen: Vec<ApiResource> = Vec::new();
    let known = known_closure(&owner.resource.qualified_name());
    let by_name = |name: &str| candidates.iter().find(|r| r.qualified_name() == name);
    for resource in known
        .iter()
        .filter_map(|name| by_name(name))
        .chain(found.iter().map(|&i| &candidates[i]))
    {
        if !chosen.contains(resource) {
            chosen.push((*resource).clone());
        }
    }
    verbosity.say(1, || {
        let names: Vec<String> = chosen.iter().map(ApiResource::qualified_name).collect();
        format!(
            "--follow-owned: looking for owned objects in {} (known owned: {}; found by LIST: {})",
            if names.is_empty() {
                "no other resource".to_string()
            } else {
                names.join(", ")
            },
            known.join(", "),
            found
                .iter()
                .map(|&i| candidates[i].qualified_name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    Ok(chosen)
}

/// Every object of `resource` in `owner`'s scope (metadata only, page by page). A resource the
/// server or RBAC refuses to list is left out (said at `-v=1`); a connection error is not.
async fn list(
    cluster: &Cluster,
    owner: Owner<'_>,
    index: usize,
    resource: &ApiResource,
    verbosity: Verbosity,
) -> Result<Vec<Listed>, ClusterError> {
    let lw = ListWatch {
        cluster: cluster.clone(),
        resource: resource.clone(),
        namespace: owner.scope(resource),
        label_selector: None,
        field_selector: None,
        metadata_only: true,
        encoding: Encoding::Json,
        keep: Keep::Whole,
    };
    let mut opts = ListOptions {
        limit: Some(DEFAULT_CHUNK_SIZE),
        ..ListOptions::default()
    };
    let mut objects = Vec::new();
    loop {
        let page = match lw.list_page(&opts).await {
            Ok(page) => page,
            Err(e) if e.status_code().is_some() => {
                verbosity.say(1, || {
                    format!(
                        "--follow-owned: not looking in {}: {e}",
                        resource.qualified_name()
                    )
                });
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        objects.extend(page.items.iter().map(|o| Listed {
            resource: index,
            uid: o.uid().to_string(),
            owners: o.owner_references().into_iter().map(|r| r.uid).collect(),
        }));
        match page.continue_token {
            Some(token) => opts.continue_token = Some(token),
            None => return Ok(objects),
        }
    }
}

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
struct Listed {
    resource: usize,
    uid: String,
    owners: Vec<String>,
}

/// The resources (by index) of the objects owned, transitively, by an object of resource
/// `owner`, in the order first reached.
fn owned_by_kind(objects: impl IntoIterator<Item = Listed>, owner: usize) -> Vec<usize> {
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
fn known_closure(owner: &str) -> Vec<&'static str> {
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
