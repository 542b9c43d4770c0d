//! Discovery: every resource type the server serves, from aggregated discovery where `/api`
//! and `/apis` both serve it, else one request per group version, as client-go does.

use super::{Cluster, Operation};
use crate::cluster::discovery::{self, GroupVersion, Root};
use crate::cluster::resolve::ApiResource;
use crate::cluster::ClusterError;
use futures::StreamExt;

/// Legacy discovery's requests in flight at once (client-go sends them all at once).
const LEGACY_DISCOVERY_CONCURRENCY: usize = 8;

impl Cluster {
    /// All resource types the server serves, in discovery (priority) order, every version.
    /// Aggregated discovery (v2, else v2beta1) when `/api` and `/apis` both serve it; else
    /// legacy discovery, one more request per group version, as client-go falls back.
    pub async fn discover(&self) -> Result<Vec<ApiResource>, ClusterError> {
        let core = match self.discovery_root("/api").await {
            // An aggregated API server may serve only `/apis`; client-go takes the 404 as an
            // empty document, which leaves the choice of discovery to `/apis`.
            Err(e) if e.status_code() == Some(404) => Root::Aggregated(Vec::new()),
            other => other?,
        };
        let groups = self.discovery_root("/apis").await?;
        match (core, groups) {
            (Root::Aggregated(mut resources), Root::Aggregated(more)) => {
                resources.extend(more);
                Ok(resources)
            }
            (core, groups) => {
                let mut group_versions = core.group_versions();
                group_versions.extend(groups.group_versions());
                self.discover_legacy(&group_versions).await
            }
        }
    }

    /// `/api` or `/apis`, asking for aggregated discovery first.
    async fn discovery_root(&self, path: &str) -> Result<Root, ClusterError> {
        let op = Operation::new("discover", "API resources", None);
        let body = self.get(path, discovery::ACCEPT, &op).await?;
        Root::parse(&body).map_err(|found| ClusterError::NotDiscovery {
            server: self.server.clone(),
            path: path.to_string(),
            found,
        })
    }

    /// Each group version's `APIResourceList`, a few at a time, in the given order. Like
    /// client-go, a group version that fails (an aggregated API whose backend is down answers
    /// 503) is left out; only when every one fails is it an error.
    async fn discover_legacy(
        &self,
        group_versions: &[GroupVersion],
    ) -> Result<Vec<ApiResource>, ClusterError> {
        let fetches = group_versions.iter().map(|gv| async move {
            let path = gv.path();
            let op = Operation::new("discover", format!("API resources of {}", gv.name()), None);
            let body = self.get(&path, "application/json", &op).await?;
            discovery::parse_resource_list(gv, &body).map_err(|found| ClusterError::NotDiscovery {
                server: self.server.clone(),
                path,
                found,
            })
        });
        let results: Vec<Result<Vec<ApiResource>, ClusterError>> = futures::stream::iter(fetches)
            .buffered(LEGACY_DISCOVERY_CONCURRENCY)
            .collect()
            .await;
        let mut resources = Vec::new();
        let mut first_error = None;
        for (gv, result) in group_versions.iter().zip(results) {
            match result {
                Ok(list) => resources.extend(list),
                Err(e) => {
                    self.verbose
                        .say(1, || format!("skipped {} in discovery: {e}", gv.name()));
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) if resources.is_empty() => Err(e),
            _ => Ok(resources),
        }
    }
}
