//! The replicas a `KIND/NAME` metrics target names (see [`super::workload`]), the one scraped
//! (the leader, by its Lease: [`super::leader`]) and how it is read (through a port-forward:
//! [`super::forwarded`]); and following the leader when it moves.

use super::forwarded::{Credential, ForwardError, PodScrape, Scheme};
use super::leader::{self, Leader};
use super::target::{ScrapeError, ACCEPT};
use super::workload::{self, Kind, PodPort, Port};
use crate::cluster::Cluster;

/// The replicas a `KIND/NAME` target names, and the one scraped.
pub(super) struct Replicas {
    /// For the workload, its pods and their Leases.
    cluster: Cluster,
    /// For the port-forwards.
    upgrades: Cluster,
    namespace: String,
    kind: Kind,
    name: String,
    port: Option<Port>,
    path: String,
    credential: Credential,
    current: tokio::sync::Mutex<Current>,
    /// Every replica's connection, by pod, when each is scraped (`top --all-replicas`).
    each: tokio::sync::Mutex<std::collections::BTreeMap<String, std::sync::Arc<PodScrape>>>,
}

/// The replica scraped, and why.
struct Current {
    pod: PodPort,
    scrape: std::sync::Arc<PodScrape>,
    leader: Option<Leader>,
    replicas: usize,
}

/// How a scrape's target was reached, to say once: which pod, which port, over what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    pub pod: String,
    pub port: u16,
    /// How the port was chosen (`port 8443`, `the container port named "https"`).
    pub chosen_by: String,
    pub scheme: Option<Scheme>,
    /// The Lease that names the pod, when there are several replicas and one leads.
    pub leader: Option<String>,
    pub replicas: usize,
}

/// One replica of a round of [`Replicas::scrape_each`]: where it was reached, whether it leads
/// (`None` when no Lease names one of the replicas), and its answer (media type and body).
pub(super) struct Replica {
    pub reached: Reached,
    pub leads: Option<bool>,
    pub answer: Result<(String, bytes::Bytes), ScrapeError>,
}

/// A move of the scraping from one replica to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub from: String,
    pub to: Reached,
}

impl Replicas {
    /// Finds the replicas of `kind/name` in `namespace` and the one to scrape; a token of the
    /// service account `token_from` when given, else the user's own.
    pub(super) async fn find(
        cluster: &Cluster,
        namespace: &str,
        kind: Kind,
        name: &str,
        port: Option<&Port>,
        path: &str,
        token_from: Option<&str>,
    ) -> Result<Replicas, ScrapeError> {
        let upgrades = cluster.for_upgrades().await?;
        let credential = match token_from {
            Some(account) => Credential::service_account(namespace, account),
            None => Credential::User {
                bearer: cluster.bearer().await?,
                name: cluster.user.clone(),
            },
        };
        let (pod, leader, replicas) = choose(cluster, namespace, kind, name, port).await?;
        let scrape = PodScrape::new(upgrades.clone(), namespace, &pod.pod, pod.port, path);
        Ok(Replicas {
            cluster: cluster.clone(),
            upgrades,
            namespace: namespace.to_string(),
            kind,
            name: name.to_string(),
            port: port.cloned(),
            path: path.to_string(),
            credential,
            current: tokio::sync::Mutex::new(Current {
                pod,
                scrape: std::sync::Arc::new(scrape),
                leader,
                replicas,
            }),
            each: Default::default(),
        })
    }

    /// The connection the port-forwards go over.
    pub(super) fn upgrades(&self) -> &Cluster {
        &self.upgrades
    }

    /// Which replica and port are scraped, and how.
    pub(super) async fn reached(&self) -> Reached {
        self.current.lock().await.reached().await
    }
}

/// The running replicas of `kind/name` (sorted by name), and the one a Lease of the namespace
/// names as its holder when several run (one LIST of the Leases, only then).
async fn running(
    cluster: &Cluster,
    namespace: &str,
    kind: Kind,
    name: &str,
    port: Option<&Port>,
) -> Result<(Vec<PodPort>, Option<Leader>), ScrapeError> {
    let pods = workload::pods(cluster, namespace, kind, name, port).await?;
    if pods.len() == 1 {
        return Ok((pods, None));
    }
    let names: Vec<String> = pods.iter().map(|p| p.pod.clone()).collect();
    let leader = leader::leader_of(&leader::leases(cluster, namespace).await?, &names);
    Ok((pods, leader))
}

/// The replica of `kind/name` to scrape: the leader when several run and a Lease names one,
/// else the first by name; with the leader found and how many replicas run.
async fn choose(
    cluster: &Cluster,
    namespace: &str,
    kind: Kind,
    name: &str,
    port: Option<&Port>,
) -> Result<(PodPort, Option<Leader>, usize), ScrapeError> {
    let (pods, leader) = running(cluster, namespace, kind, name, port).await?;
    let chosen = leader
        .as_ref()
        .and_then(|l| pods.iter().find(|p| p.pod == l.pod))
        .unwrap_or(&pods[0])
        .clone();
    Ok((chosen, leader, pods.len()))
}

impl Current {
    async fn reached(&self) -> Reached {
        Reached {
            pod: self.pod.pod.clone(),
            port: self.pod.port,
            chosen_by: self.pod.chosen_by.clone(),
            scheme: self.scrape.scheme().await,
            leader: self.leader.as_ref().map(|l| l.lease.clone()),
            replicas: self.replicas,
        }
    }
}

impl Replicas {
    pub(super) async fn scrape(&self, target: &str) -> Result<(String, bytes::Bytes), ScrapeError> {
        let (scrape, pod) = {
            let current = self.current.lock().await;
            (current.scrape.clone(), current.pod.clone())
        };
        self.scrape_pod(target, &pod, &scrape).await
    }

    /// Every running replica, each scraped (at once, on a connection of its own kept from one
    /// call to the next, each `within` its limit: one that does not answer is that replica's
    /// failure, not the others'), with the one that leads.
    pub(super) async fn scrape_each(
        &self,
        target: &str,
        within: std::time::Duration,
    ) -> Result<Vec<Replica>, ScrapeError> {
        let (pods, leader) = running(
            &self.cluster,
            &self.namespace,
            self.kind,
            &self.name,
            self.port.as_ref(),
        )
        .await?;
        let scrapes = {
            let mut each = self.each.lock().await;
            each.retain(|pod, _| pods.iter().any(|p| &p.pod == pod));
            pods.iter()
                .map(|p| {
                    let scrape = each.entry(p.pod.clone()).or_insert_with(|| self.connect(p));
                    // A pod of the same name again (a StatefulSet's) may have another port.
                    if scrape.port != p.port {
                        *scrape = self.connect(p);
                    }
                    scrape.clone()
                })
                .collect::<Vec<_>>()
        };
        let replicas = pods.len();
        let answers = futures::future::join_all(pods.iter().zip(&scrapes).map(|(pod, scrape)| {
            let scraped = tokio::time::timeout(within, self.scrape_pod(target, pod, scrape));
            async move {
                scraped.await.unwrap_or_else(|_| {
                    Err(ScrapeError::Forward {
                        target: target.to_string(),
                        pod: pod.pod.clone(),
                        port: pod.port,
                        source: Box::new(ForwardError::Port(super::target::no_answer(within))),
                    })
                })
            }
        }))
        .await;
        let mut each = Vec::with_capacity(replicas);
        for ((pod, scrape), answer) in pods.into_iter().zip(scrapes).zip(answers) {
            let leads = leader.as_ref().map(|l| l.pod == pod.pod);
            each.push(Replica {
                reached: Reached {
                    scheme: scrape.scheme().await,
                    leader: leader
                        .as_ref()
                        .filter(|l| l.pod == pod.pod)
                        .map(|l| l.lease.clone()),
                    pod: pod.pod,
                    port: pod.port,
                    chosen_by: pod.chosen_by,
                    replicas,
                },
                leads,
                answer,
            });
        }
        Ok(each)
    }

    /// A connection to `pod`'s port, made at its first scrape.
    fn connect(&self, pod: &PodPort) -> std::sync::Arc<PodScrape> {
        std::sync::Arc::new(PodScrape::new(
            self.upgrades.clone(),
            &self.namespace,
            &pod.pod,
            pod.port,
            &self.path,
        ))
    }

    /// One scrape of `pod`'s port through `scrape`: the answer's media type and body.
    async fn scrape_pod(
        &self,
        target: &str,
        pod: &PodPort,
        scrape: &PodScrape,
    ) -> Result<(String, bytes::Bytes), ScrapeError> {
        let answer = scrape
            .get(ACCEPT, &self.credential)
            .await
            .map_err(|source| match source {
                ForwardError::Cluster(e) => ScrapeError::Cluster(e),
                source => ScrapeError::Forward {
                    target: target.to_string(),
                    pod: pod.pod.clone(),
                    port: pod.port,
                    source: Box::new(source),
                },
            })?;
        match answer.status.as_u16() {
            200..=299 => Ok((answer.content_type, answer.body)),
            code @ (401 | 403) => Err(ScrapeError::Refused(
                self.refusal(target, &pod.pod, code).await,
            )),
            _ => Err(ScrapeError::Status {
                target: format!("{target} (pod/{})", pod.pod),
                status: answer.status,
                body: crate::format::one_line(&String::from_utf8_lossy(&answer.body), 200),
            }),
        }
    }

    /// A 401 or 403 of the pod's metrics filter, explained: whose token, and what it needs.
    async fn refusal(&self, target: &str, pod: &str, code: u16) -> String {
        let identity = match &self.credential {
            Credential::User { bearer: None, name } => {
                return format!(
                    "{target} (pod/{pod}) wants a bearer token (401 Unauthorized), and the \
                     kubeconfig user \"{name}\" has none (a client certificate is not sent to a \
                     pod): pass --metrics-token-from sa/NAME, a service account allowed to get \
                     /metrics"
                )
            }
            Credential::User { .. } => match self.cluster.user_name().await {
                Ok(name) => format!("user \"{name}\""),
                Err(_) => self.credential.identity(),
            },
            Credential::ServiceAccount { .. } => self.credential.identity(),
        };
        match code {
            401 => format!(
                "{target} (pod/{pod}) refused the token of {identity} (401 Unauthorized): the \
                 metrics filter could not check it with the API server (a TokenReview); use \
                 --metrics-token-from sa/NAME"
            ),
            _ => format!(
                "{identity} may not read the metrics of {target} (pod/{pod}; 403 Forbidden): it \
                 needs get on the non-resource URL /metrics, a ClusterRole with \
                 nonResourceURLs: [\"/metrics\"] and verbs: [\"get\"] (kubebuilder's scaffold \
                 ships one as metrics-reader) bound to it"
            ),
        }
    }

    pub(super) async fn follow(&self, after_failure: bool) -> Result<Option<Moved>, ScrapeError> {
        let mut current = self.current.lock().await;
        // The Leases while a leader is known; the workload and its pods again when the leader
        // changed or the replica failed.
        if current.leader.is_none() && !after_failure {
            return Ok(None);
        }
        if let (Some(leader), false) = (&current.leader, after_failure) {
            let leases = leader::leases(&self.cluster, &self.namespace).await?;
            let holder = leases
                .iter()
                .find(|l| l.metadata.name.as_deref() == Some(leader.lease.as_str()))
                .and_then(|l| l.spec.as_ref()?.holder_identity.clone());
            if holder.is_some_and(|h| leader::holds(&h, &current.pod.pod)) {
                return Ok(None);
            }
        }
        let (pod, leader, replicas) = choose(
            &self.cluster,
            &self.namespace,
            self.kind,
            &self.name,
            self.port.as_ref(),
        )
        .await?;
        if pod.pod == current.pod.pod {
            current.leader = leader;
            current.replicas = replicas;
            return Ok(None);
        }
        let from = std::mem::replace(&mut current.pod, pod);
        current.scrape = self.connect(&current.pod);
        current.leader = leader;
        current.replicas = replicas;
        Ok(Some(Moved {
            from: from.pod,
            to: current.reached().await,
        }))
    }
}
