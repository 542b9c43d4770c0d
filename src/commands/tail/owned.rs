//! `tail --follow-owned` without `--owned-kinds`: which resources owned objects are looked for
//! in. Those the owner's kind is known to own, and those a LIST finds owned, transitively, by any
//! object of the owner's kind in its scope (`tail::ownership` decides both): one metadata-only
//! LIST of every listable and watchable resource there.

use super::super::{GlobalConfig, Resolved};
use crate::cluster::{ApiResource, Cluster};
use crate::error::Result;
use crate::informer::listwatch::{ListOptions, ListWatch, DEFAULT_CHUNK_SIZE};
use crate::informer::object::Encoding;
use crate::tail::ownership::{known_closure, owned_by_kind, Listed};
use futures::{StreamExt, TryStreamExt};

/// LISTs in flight at once while looking for owned objects.
const CONCURRENT_LISTS: usize = 4;

/// The resources to watch for objects `owner`'s objects own: the known ones and those found
/// by LIST, in that order, each once, without the owner's own resource unless its objects own
/// others of their kind.
pub(super) async fn discover(
    global: &GlobalConfig,
    cluster: &Cluster,
    owner: &Resolved,
    resources: &[ApiResource],
) -> Result<Vec<ApiResource>> {
    let candidates: Vec<&ApiResource> = resources
        .iter()
        .filter(|r| r.preferred && r.supports("list") && r.supports("watch"))
        .filter(|r| r.namespaced || !owner.resource.namespaced)
        .collect();
    let listed: Vec<Vec<Listed>> = futures::stream::iter(candidates.iter().enumerate())
        .map(|(index, resource)| list(global, cluster, owner, index, resource))
        .buffer_unordered(CONCURRENT_LISTS)
        .try_collect()
        .await?;
    let found = owned_by_kind(
        listed.into_iter().flatten(),
        candidates
            .iter()
            .position(|r| **r == owner.resource)
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
    global.log(1, || {
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
    global: &GlobalConfig,
    cluster: &Cluster,
    owner: &Resolved,
    index: usize,
    resource: &ApiResource,
) -> Result<Vec<Listed>> {
    let lw = ListWatch {
        cluster: cluster.clone(),
        resource: resource.clone(),
        namespace: scope(owner, resource),
        label_selector: None,
        field_selector: None,
        metadata_only: true,
        encoding: Encoding::Json,
        keep: crate::informer::object::Keep::Whole,
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
                global.log(1, || {
                    format!(
                        "--follow-owned: not looking in {}: {e}",
                        resource.qualified_name()
                    )
                });
                return Ok(Vec::new());
            }
            Err(e) => return Err(e.into()),
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

/// Where objects `owner` owns can be: its namespace (ownerReferences do not cross namespaces),
/// or anywhere for a cluster-scoped owner or `-A`.
pub(super) fn scope(owner: &Resolved, resource: &ApiResource) -> Option<String> {
    if resource.namespaced && owner.resource.namespaced {
        owner.namespace.clone()
    } else {
        None
    }
}
