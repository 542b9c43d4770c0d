//! How far behind the server each of a controller's informers is: the server's side is our own
//! watch of the same resource (metadata only, from the current resourceVersion on, no LIST of
//! the objects), which notes each event's resourceVersion and when it arrived; the controller's
//! side is the store resourceVersion its metrics report. An informer is behind by the events it
//! has not reached: in resourceVersions, the newest event's minus its store's; in seconds, how long
//! ago the oldest of them arrived here.

use super::controller::InformerKey;
use crate::cluster::{ApiResource, Cluster, Operation};
use crate::informer::listwatch::ListWatch;
use crate::informer::object::Encoding;
use crate::informer::reflector::{Reflector, ReflectorConfig, Start};
use crate::informer::transition::ReflectorEvent;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// client-go reports a store's resourceVersion as its last 15 digits (a float holds them
/// exactly).
const REPORTED_DIGITS: u64 = 1_000_000_000_000_000;

/// The events kept per resource that a controller's store has not reached yet; older ones are
/// dropped first (the lag in seconds is then a lower bound).
const MAX_PENDING: usize = 100_000;

/// An informer's lag behind the server.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lag {
    /// The newest event's resourceVersion minus the store's; 0 when the store has every event.
    pub resource_versions: u64,
    /// How long ago the oldest event the store has not reached arrived here.
    pub seconds: f64,
}

/// What our watch of one resource has seen.
#[derive(Debug, Default)]
struct Arrivals {
    /// Events not known to be in the controller's store yet: (resourceVersion, arrival).
    pending: VecDeque<(u64, Instant)>,
    newest: Option<u64>,
}

impl Arrivals {
    fn arrived(&mut self, resource_version: u64, at: Instant) {
        self.newest = Some(
            self.newest
                .map_or(resource_version, |n| n.max(resource_version)),
        );
        if self.pending.len() == MAX_PENDING {
            self.pending.pop_front();
        }
        self.pending.push_back((resource_version, at));
    }

    /// The lag of a store at `store` now, forgetting the events it has reached.
    fn lag(&mut self, store: u64, now: Instant) -> Lag {
        let reached = |rv: u64| rv % REPORTED_DIGITS <= store;
        while self.pending.front().is_some_and(|(rv, _)| reached(*rv)) {
            self.pending.pop_front();
        }
        // Events arrive in resourceVersion order; one out of order is dropped by the next check.
        self.pending.retain(|(rv, _)| !reached(*rv));
        match (self.newest, self.pending.front()) {
            (Some(newest), Some((_, oldest))) => Lag {
                resource_versions: (newest % REPORTED_DIGITS).saturating_sub(store),
                seconds: now.saturating_duration_since(*oldest).as_secs_f64(),
            },
            _ => Lag {
                resource_versions: 0,
                seconds: 0.0,
            },
        }
    }
}

/// The resource an informer's labels name: client-go makes `resource` from the kind (lower case,
/// `s` added), so it is matched against each served resource's kind, not its plural.
pub fn resource_of<'a>(key: &InformerKey, served: &'a [ApiResource]) -> Option<&'a ApiResource> {
    served.iter().find(|r| {
        r.group == key.group
            && r.version == key.version
            && !r.plural.contains('/')
            && format!("{}s", r.kind.to_lowercase()) == key.resource
    })
}

/// Our watches of the resources a controller's informers hold.
pub struct ServerSide {
    arrivals: BTreeMap<(String, String, String), Arc<Mutex<Arrivals>>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for ServerSide {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Why the server's side of an informer could not be followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFollowed {
    pub informer: String,
    pub reason: String,
}

impl ServerSide {
    /// Starts a watch of each informer's resource (across all namespaces) from its current
    /// resourceVersion. Informers whose resource is not served, or not watchable, or whose
    /// current resourceVersion cannot be read, are returned with the reason.
    pub async fn follow<'a>(
        cluster: &Cluster,
        served: &[ApiResource],
        informers: impl Iterator<Item = &'a InformerKey>,
    ) -> (ServerSide, Vec<NotFollowed>) {
        let mut side = ServerSide {
            arrivals: BTreeMap::new(),
            tasks: Vec::new(),
        };
        let mut not_followed = Vec::new();
        for key in informers {
            let id = (key.group.clone(), key.version.clone(), key.resource.clone());
            if side.arrivals.contains_key(&id) {
                continue;
            }
            let named = format!("{} {}/{}", key.resource, key.group, key.version);
            let Some(resource) = resource_of(key, served) else {
                not_followed.push(NotFollowed {
                    informer: named,
                    reason: "the server serves no resource of that kind".into(),
                });
                continue;
            };
            match current_resource_version(cluster, resource).await {
                Ok(rv) => {
                    let arrivals = Arc::new(Mutex::new(Arrivals::default()));
                    side.tasks.push(tokio::spawn(watch(
                        cluster.clone(),
                        resource.clone(),
                        rv,
                        arrivals.clone(),
                    )));
                    side.arrivals.insert(id, arrivals);
                }
                Err(reason) => not_followed.push(NotFollowed {
                    informer: named,
                    reason,
                }),
            }
        }
        (side, not_followed)
    }

    /// The lag of `key`'s informer whose store is at `store` (as its metrics report it); `None`
    /// when its resource is not followed.
    pub fn lag(&self, key: &InformerKey, store: f64, now: Instant) -> Option<Lag> {
        let id = (key.group.clone(), key.version.clone(), key.resource.clone());
        let arrivals = self.arrivals.get(&id)?;
        let mut arrivals = arrivals.lock().unwrap_or_else(|e| e.into_inner());
        Some(arrivals.lag(store.max(0.0) as u64, now))
    }
}

/// The resource's current resourceVersion: a LIST of one object's metadata.
async fn current_resource_version(
    cluster: &Cluster,
    resource: &ApiResource,
) -> Result<String, String> {
    let op = Operation::new("list", resource.qualified_name(), None);
    let body = cluster
        .get(
            &format!("{}?limit=1", resource.collection_path(None)),
            "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
            &op,
        )
        .await
        .map_err(|e| e.to_string())?;
    let list: serde_json::Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    list["metadata"]["resourceVersion"]
        .as_str()
        .filter(|rv| !rv.is_empty())
        .map(str::to_string)
        .ok_or_else(|| "the LIST had no resourceVersion".to_string())
}

/// Watches `resource` from `rv` on (relisting its metadata if that is too old), noting each
/// event's resourceVersion and arrival; ends with the watch.
async fn watch(
    cluster: Cluster,
    resource: ApiResource,
    rv: String,
    arrivals: Arc<Mutex<Arrivals>>,
) {
    let lw = ListWatch {
        cluster,
        resource,
        namespace: None,
        label_selector: None,
        field_selector: None,
        metadata_only: true,
        encoding: Encoding::Json,
        keep: crate::informer::object::Keep::Digest,
    };
    let mut config = ReflectorConfig::informer(Start::FromResourceVersion(rv), 500);
    config.relist_if_replay_expired = true;
    let mut reflector = Reflector::new(lw, config);
    while let Ok(Some(event)) = reflector.next().await {
        if let ReflectorEvent::Watched { object, .. } = event {
            if let Ok(rv) = object.resource_version().parse::<u64>() {
                arrivals
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .arrived(rv, Instant::now());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn a_store_is_behind_by_the_events_it_has_not_reached() {
        let mut a = Arrivals::default();
        let start = Instant::now();
        a.arrived(100, start);
        tokio::time::advance(Duration::from_secs(2)).await;
        a.arrived(105, Instant::now());
        tokio::time::advance(Duration::from_secs(1)).await;
        let now = Instant::now();
        assert_eq!(
            a.lag(99, now),
            Lag {
                resource_versions: 6,
                seconds: 3.0
            }
        );
        assert_eq!(
            a.lag(100, now),
            Lag {
                resource_versions: 5,
                seconds: 1.0
            }
        );
        // A store past the newest event (a bookmark took it there) is not behind.
        assert_eq!(
            a.lag(120, now),
            Lag {
                resource_versions: 0,
                seconds: 0.0
            }
        );
        assert!(a.pending.is_empty());
    }

    #[test]
    fn an_informers_resource_label_is_matched_by_kind() {
        let resource = |group: &str, plural: &str, kind: &str| ApiResource {
            group: group.into(),
            version: "v1".into(),
            plural: plural.into(),
            singular: String::new(),
            kind: kind.into(),
            short_names: vec![],
            namespaced: true,
            verbs: vec![],
            preferred: true,
        };
        let served = [
            resource("", "endpoints", "Endpoints"),
            resource("", "pods", "Pod"),
            resource("", "pods/status", "Pod"),
            resource("networking.k8s.io", "networkpolicies", "NetworkPolicy"),
        ];
        let key = |group: &str, label: &str| InformerKey {
            name: "kube-controller-manager".into(),
            group: group.into(),
            version: "v1".into(),
            resource: label.into(),
        };
        assert_eq!(
            resource_of(&key("", "endpointss"), &served).unwrap().plural,
            "endpoints"
        );
        assert_eq!(
            resource_of(&key("", "pods"), &served).unwrap().plural,
            "pods"
        );
        assert_eq!(
            resource_of(&key("networking.k8s.io", "networkpolicys"), &served)
                .unwrap()
                .plural,
            "networkpolicies"
        );
        assert!(resource_of(&key("apps", "pods"), &served).is_none());
    }
}
