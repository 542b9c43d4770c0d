//! Where a controller's metrics are served, and reading them:
//! - `KIND/NAME[:PORT][/PATH]` (a Deployment, StatefulSet, DaemonSet, ReplicaSet, Service or
//!   Pod) through a port-forward, as `kubectl port-forward` reaches it: the leading replica's
//!   port (see [`super::leader`]), HTTPS or HTTP, with a bearer token (see [`super::forwarded`]);
//! - `pod/NAME[:PORT][/PATH]` or `svc/NAME:PORT[/PATH]` through the API server's proxy
//!   (`--via proxy`), as `kubectl get --raw /api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics`
//!   reaches them;
//! - an `http(s)://` URL reached with the kubeconfig's credentials and TLS trust.

use super::controller::Controller;
use super::forwarded::ForwardError;
use super::replicas::Replicas;
use super::text::{self, ParseError};
use super::workload::{Kind, Port, WorkloadError};
use crate::cluster::{Cluster, ClusterError, Operation, Sink};

pub use super::replicas::{Moved, Reached};

/// What a scrape asks for: the text format first (what client-go's components serve), then
/// OpenMetrics, then anything (to say what it was).
pub(super) const ACCEPT: &str =
    "text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1";

/// The path a metrics server serves by default.
const DEFAULT_PATH: &str = "/metrics";

/// A metrics endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The pods a workload, a service or a pod names, reached by port-forward.
    Pods {
        kind: Kind,
        name: String,
        port: Option<Port>,
        path: String,
    },
    /// A pod's or a service's port, through the API server's proxy.
    Proxied {
        /// `pods` or `services`.
        resource: &'static str,
        name: String,
        port: Option<String>,
        path: String,
    },
    /// A URL.
    Url(http::Uri),
}

impl Target {
    /// Reads `KIND/NAME[:PORT][/PATH]` (KIND as kubectl names a Deployment, StatefulSet,
    /// DaemonSet, ReplicaSet, Service or Pod: `deploy/`, `sts/`, `ds/`, `rs/`, `svc/`, `pod/`...)
    /// or an `http://` or `https://` URL (its path `/metrics` when it has none).
    pub fn parse(text: &str) -> Result<Target, String> {
        const EXPECTED: &str = "expected KIND/NAME[:PORT][/PATH] (KIND deploy, sts, ds, rs, svc \
                                or pod) or an http(s):// URL";
        if text.starts_with("http://") || text.starts_with("https://") {
            return url(text).map(Target::Url);
        }
        let Some((kind_text, rest)) = text.split_once('/') else {
            return Err(EXPECTED.to_string());
        };
        let Some(kind) = Kind::parse(kind_text) else {
            return Err(format!(
                "{kind_text:?} is not a kind of workload: {EXPECTED}"
            ));
        };
        let (name_port, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, DEFAULT_PATH),
        };
        let (name, port) = match name_port.split_once(':') {
            Some((name, port)) => (name, Some(Port::parse(port)?)),
            None => (name_port, None),
        };
        if !crate::cluster::selector::is_dns_subdomain(name) {
            return Err(format!(
                "{kind_text}/{name}: an object's name is lowercase letters, digits, '-' and '.'"
            ));
        }
        Ok(Target::Pods {
            kind,
            name: name.to_string(),
            port,
            path: path.to_string(),
        })
    }

    /// The same pod or service reached through the API server's proxy (`--via proxy`).
    pub fn through_proxy(self) -> Result<Target, String> {
        let Target::Pods {
            kind,
            name,
            port,
            path,
        } = self
        else {
            return Ok(self);
        };
        let resource = match kind {
            Kind::Pod => "pods",
            Kind::Service => "services",
            other => {
                return Err(format!(
                    "the API server's proxy reaches a pod or a service, not {}/{name}: name \
                     one of its pods, or leave --via at port-forward",
                    other.short()
                ))
            }
        };
        if resource == "services" && port.is_none() {
            return Err(format!(
                "svc/{name} needs a port (svc/{name}:PORT): a service's metrics are on one of \
                 its ports"
            ));
        }
        Ok(Target::Proxied {
            resource,
            name,
            port: port.map(|p| p.to_string()),
            path,
        })
    }
}

/// Reads `--metrics-token-from`'s `sa/NAME` (also `serviceaccount/` and `serviceaccounts/`)
/// into the service account's name.
pub fn service_account(text: &str) -> Result<String, String> {
    let name = match text.split_once('/') {
        Some(("sa" | "serviceaccount" | "serviceaccounts", name)) => name,
        _ => return Err("expected sa/NAME, a service account in the target's namespace".into()),
    };
    if !crate::cluster::selector::is_dns_subdomain(name) {
        return Err(format!(
            "sa/{name}: a service account's name is lowercase letters, digits, '-' and '.'"
        ));
    }
    Ok(name.to_string())
}

/// A target as typed, fit to be shown: a URL's user name and password replaced.
pub fn shown(text: &str) -> String {
    match text.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            match rest[..authority_end].rfind('@') {
                Some(at) => format!("{scheme}://REDACTED@{}", &rest[at + 1..]),
                None => text.to_string(),
            }
        }
        None => text.to_string(),
    }
}

/// A URL with its path `/metrics` when it has none; refused with a user name or password in
/// it (credentials come from the kubeconfig, and would be printed in messages).
fn url(text: &str) -> Result<http::Uri, String> {
    let uri: http::Uri = text.parse().map_err(|e| format!("not a URL: {e}"))?;
    let authority = uri.authority().ok_or("the URL has no host")?;
    if authority.as_str().contains('@') {
        return Err(
            "the URL holds credentials: leave them out (the kubeconfig's, or --token, are sent)"
                .to_string(),
        );
    }
    let path = match uri.path_and_query().map(|p| p.as_str()) {
        None | Some("/") | Some("") => DEFAULT_PATH,
        Some(p) => p,
    };
    http::Uri::builder()
        .scheme(uri.scheme_str().unwrap_or("https"))
        .authority(authority.as_str())
        .path_and_query(path)
        .build()
        .map_err(|e| format!("not a URL: {e}"))
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Pods {
                kind,
                name,
                port,
                path,
            } => write_named(
                f,
                kind.short(),
                name,
                port.as_ref().map(|p| p.to_string()),
                path,
            ),
            Target::Proxied {
                resource,
                name,
                port,
                path,
            } => {
                let kind = if *resource == "pods" { "pod" } else { "svc" };
                write_named(f, kind, name, port.clone(), path)
            }
            Target::Url(uri) => write!(f, "{uri}"),
        }
    }
}

/// `KIND/NAME[:PORT][PATH]`, the path left out when it is the default.
fn write_named(
    f: &mut std::fmt::Formatter<'_>,
    kind: &str,
    name: &str,
    port: Option<String>,
    path: &str,
) -> std::fmt::Result {
    write!(f, "{kind}/{name}")?;
    if let Some(port) = port {
        write!(f, ":{port}")?;
    }
    if path != DEFAULT_PATH {
        write!(f, "{path}")?;
    }
    Ok(())
}

/// Why a scrape gave no controller metrics.
#[derive(Debug, thiserror::Error)]
pub enum ScrapeError {
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    #[error("{target} answered {content_type}, not metrics: name the path the metrics are served at (/metrics unless given)")]
    NotMetrics {
        target: String,
        content_type: String,
    },
    #[error("{target} did not answer in the Prometheus text format: {source}")]
    Unreadable {
        target: String,
        #[source]
        source: ParseError,
    },
    /// A URL target that could not be reached (a proxied one is the API server's to reach).
    #[error("cannot scrape {target}: {reason}: check that the controller is running and serves its metrics at that address")]
    Unreachable { target: String, reason: String },
    #[error("TLS handshake with {target} failed: {reason}: the controller's serving certificate must be signed by the kubeconfig cluster's certificate authority; pass --certificate-authority (or --insecure-skip-tls-verify)")]
    Tls { target: String, reason: String },
    #[error("{target} serves metrics, but none of a controller's (no workqueue_, informer_, rest_client_ or controller_runtime_ family): point it at a client-go or controller-runtime process")]
    NotAController { target: String },
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error("cannot read {target} (pod/{pod} port {port}): {source}")]
    Forward {
        target: String,
        pod: String,
        port: u16,
        #[source]
        source: Box<ForwardError>,
    },
    /// The pod's metrics filter refused the token (401) or its identity (403).
    #[error("{0}")]
    Refused(String),
    #[error("{target} answered {status}: {body}")]
    Status {
        target: String,
        status: http::StatusCode,
        body: String,
    },
}

/// How long a scrape may take before it is a gap: the interval between scrapes, at least a
/// second (a scrape of kube-controller-manager is about 4,000 lines).
pub fn patience(interval: std::time::Duration) -> std::time::Duration {
    interval.max(std::time::Duration::from_secs(1))
}

/// Why a scrape that timed out is a gap.
pub fn no_answer(within: std::time::Duration) -> String {
    format!("no answer within {}", crate::format::wait(within))
}

/// One replica in a round of [`Scraper::scrape_each`]: where it was reached, whether it leads
/// (`None` when no Lease names one of the replicas), and what its scrape said.
pub struct ReplicaScrape {
    pub reached: Reached,
    pub leads: Option<bool>,
    pub scrape: Result<Controller, ScrapeError>,
}

/// A connection to one metrics endpoint.
pub struct Scraper {
    how: How,
    target: String,
}

enum How {
    /// Requests to the API server (its proxy) or to a URL.
    Api(Box<Direct>),
    /// A replica's port, through a port-forward.
    Forwarded(Box<Replicas>),
}

/// GETs of a path of the API server (its proxy) or of a URL.
struct Direct {
    cluster: Cluster,
    path_and_query: String,
    op: Operation,
    /// Whether requests go to the target itself (a URL), not to the API server.
    direct: bool,
}

impl Scraper {
    /// Prepares scraping `target` (in `namespace` unless a URL) with `cluster`'s user; a
    /// port-forwarded target with a token of the service account `token_from` (in `namespace`)
    /// when given, else the user's own. A port-forwarded target's replicas and leader are found
    /// now; no metrics are read yet.
    pub async fn new(
        target: &Target,
        cluster: &Cluster,
        namespace: &str,
        token_from: Option<&str>,
    ) -> Result<Scraper, ScrapeError> {
        let how = match target {
            Target::Pods {
                kind,
                name,
                port,
                path,
            } => {
                let found = Replicas::find(
                    cluster,
                    namespace,
                    *kind,
                    name,
                    port.as_ref(),
                    path,
                    token_from,
                )
                .await?;
                How::Forwarded(Box::new(found))
            }
            Target::Proxied {
                resource,
                name,
                port,
                path,
            } => {
                let port = port.as_deref().map(|p| format!(":{p}")).unwrap_or_default();
                How::Api(Box::new(Direct {
                    cluster: cluster.clone(),
                    path_and_query: format!(
                        "/api/v1/namespaces/{namespace}/{resource}/{name}{port}/proxy{path}"
                    ),
                    op: Operation::new("get", format!("{resource}/proxy"), Some(namespace)),
                    direct: false,
                }))
            }
            Target::Url(uri) => {
                let origin = http::Uri::builder()
                    .scheme(uri.scheme_str().unwrap_or("https"))
                    .authority(uri.authority().map(|a| a.as_str()).unwrap_or_default())
                    .path_and_query("/")
                    .build()
                    .map_err(|e| ClusterError::Transport {
                        what: format!("scrape {uri}"),
                        reason: e.to_string(),
                    })?;
                let path = uri.path_and_query().map_or(DEFAULT_PATH, |p| p.as_str());
                // The controller asks the API server whether the user may `get` the path (a
                // non-resource URL), so errors name it as `kubectl auth can-i get /metrics` does.
                How::Api(Box::new(Direct {
                    cluster: cluster.connect_to(&origin).await?,
                    path_and_query: path.to_string(),
                    op: Operation::new("get", uri.path(), None),
                    direct: true,
                }))
            }
        };
        Ok(Scraper {
            how,
            target: target.to_string(),
        })
    }

    /// The connection the scrapes go over (to the target itself, or to the API server).
    pub fn cluster(&self) -> &Cluster {
        match &self.how {
            How::Api(direct) => &direct.cluster,
            How::Forwarded(replicas) => replicas.upgrades(),
        }
    }

    /// What is scraped, as the user named it.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The line that says a scrape (of the replica `pod`, when said) gave nothing, the
    /// `gaps`-th: `why`.
    pub fn gap_line(&self, pod: Option<&str>, gaps: u64, why: &str) -> String {
        let pod = pod.map(|p| format!(" (pod/{p})")).unwrap_or_default();
        format!(
            "scrape of {}{pod} failed ({}): {why}",
            self.target,
            crate::format::count(gaps, "gap")
        )
    }

    /// Which replica and port a port-forwarded target reached, and how (after a scrape).
    pub async fn reached(&self) -> Option<Reached> {
        let How::Forwarded(replicas) = &self.how else {
            return None;
        };
        Some(replicas.reached().await)
    }

    /// One scrape, read into what it says about the controller.
    pub async fn scrape(&self) -> Result<Controller, ScrapeError> {
        let (content_type, bytes) = match &self.how {
            How::Api(d) => {
                let body = (d.cluster)
                    .get_into(&d.path_and_query, ACCEPT, &d.op, Collected::new)
                    .await
                    .map_err(|e| self.explain(e, d.direct))?;
                (body.content_type, bytes::Bytes::from(body.bytes))
            }
            How::Forwarded(replicas) => replicas.scrape(&self.target).await?,
        };
        self.read(&content_type, &bytes)
    }

    /// Every running replica of a port-forwarded target, each scraped at once, with the one
    /// that leads (`top --all-replicas`): the replicas are listed again at each call, so that
    /// one started since shows and one gone no longer does. `None` for a URL or a proxied
    /// target, which has no replicas to tell apart. Each replica's scrape has `within`: one
    /// that does not answer is that replica's failure.
    pub async fn scrape_each(
        &self,
        within: std::time::Duration,
    ) -> Option<Result<Vec<ReplicaScrape>, ScrapeError>> {
        let How::Forwarded(replicas) = &self.how else {
            return None;
        };
        let each = match replicas.scrape_each(&self.target, within).await {
            Ok(each) => each,
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(each
            .into_iter()
            .map(|r| ReplicaScrape {
                scrape: r.answer.and_then(|(media, bytes)| {
                    self.read_of(
                        &format!("{} (pod/{})", self.target, r.reached.pod),
                        &media,
                        &bytes,
                    )
                }),
                reached: r.reached,
                leads: r.leads,
            })
            .collect()))
    }

    /// Whether the leader moved to another replica since the last look (one LIST of the
    /// namespace's Leases), or, after a failed scrape (`after_failure`), whether the replica
    /// scraped is gone: if so, the scraping moves and says from where to where. A URL or a
    /// proxied target never moves.
    pub async fn follow(&self, after_failure: bool) -> Result<Option<Moved>, ScrapeError> {
        match &self.how {
            How::Forwarded(replicas) => replicas.follow(after_failure).await,
            How::Api(_) => Ok(None),
        }
    }

    fn read(&self, content_type: &str, bytes: &[u8]) -> Result<Controller, ScrapeError> {
        self.read_of(&self.target, content_type, bytes)
    }

    /// The controller in a scrape of `target` (as errors name it).
    fn read_of(
        &self,
        target: &str,
        content_type: &str,
        bytes: &[u8],
    ) -> Result<Controller, ScrapeError> {
        let media = content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if !(media.is_empty() || media == "text/plain" || media == "application/openmetrics-text") {
            return Err(ScrapeError::NotMetrics {
                target: target.to_string(),
                content_type: media,
            });
        }
        let text = String::from_utf8_lossy(bytes);
        let exposition = text::parse(&text).map_err(|source| ScrapeError::Unreadable {
            target: target.to_string(),
            source,
        })?;
        Controller::read(&exposition).ok_or_else(|| ScrapeError::NotAController {
            target: target.to_string(),
        })
    }

    /// A connection error in the controller's terms when the target is reached directly (the
    /// cluster's errors speak of the API server and the kubeconfig's server address).
    fn explain(&self, e: ClusterError, direct: bool) -> ScrapeError {
        let target = self.target.clone();
        match e {
            ClusterError::Unreachable { reason, .. } if direct => {
                ScrapeError::Unreachable { target, reason }
            }
            ClusterError::Tls { reason, .. } if direct => ScrapeError::Tls { target, reason },
            other => ScrapeError::Cluster(other),
        }
    }
}

/// A response body, whole, and its media type.
struct Collected {
    content_type: String,
    bytes: Vec<u8>,
}

impl Collected {
    fn new(content_type: &str) -> Self {
        Collected {
            content_type: content_type.to_string(),
            bytes: Vec::new(),
        }
    }
}

impl Sink for Collected {
    fn push(&mut self, piece: &[u8]) -> Result<(), String> {
        self.bytes.extend_from_slice(piece);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_read_as_kubectl_names_them() {
        let pods = |kind, name: &str, port: Option<Port>, path: &str| Target::Pods {
            kind,
            name: name.into(),
            port,
            path: path.into(),
        };
        assert_eq!(
            Target::parse("deploy/my-operator").unwrap(),
            pods(Kind::Deployment, "my-operator", None, "/metrics")
        );
        assert_eq!(
            Target::parse("statefulsets/db:metrics/custom/path").unwrap(),
            pods(
                Kind::StatefulSet,
                "db",
                Some(Port::Name("metrics".into())),
                "/custom/path"
            )
        );
        assert_eq!(
            Target::parse("po/kcm:10257").unwrap(),
            pods(Kind::Pod, "kcm", Some(Port::Number(10257)), "/metrics")
        );
        assert_eq!(
            Target::parse("svc/manager:8080").unwrap().to_string(),
            "svc/manager:8080"
        );
        assert_eq!(
            Target::parse("https://127.0.0.1:10257").unwrap(),
            Target::Url("https://127.0.0.1:10257/metrics".parse().unwrap())
        );
        assert_eq!(
            Target::parse("http://10.0.0.1:8080/m?x=1")
                .unwrap()
                .to_string(),
            "http://10.0.0.1:8080/m?x=1"
        );
    }

    #[test]
    fn the_api_servers_proxy_reaches_a_pod_or_a_services_port() {
        let proxied = |text: &str| Target::parse(text).unwrap().through_proxy();
        assert_eq!(
            proxied("svc/manager:https/custom/path").unwrap(),
            Target::Proxied {
                resource: "services",
                name: "manager".into(),
                port: Some("https".into()),
                path: "/custom/path".into()
            }
        );
        assert_eq!(
            proxied("pod/kcm").unwrap().to_string(),
            "pod/kcm",
            "a pod's port may be left to the server"
        );
        assert!(proxied("svc/manager").unwrap_err().contains("needs a port"));
        assert!(proxied("deploy/op")
            .unwrap_err()
            .contains("a pod or a service"));
    }

    #[test]
    fn a_token_comes_from_a_service_account() {
        assert_eq!(
            service_account("sa/metrics-reader").unwrap(),
            "metrics-reader"
        );
        assert_eq!(service_account("serviceaccount/r").unwrap(), "r");
        assert!(service_account("metrics-reader").is_err());
        assert!(service_account("secret/x").is_err());
        assert!(service_account("sa/Bad_Name")
            .unwrap_err()
            .contains("sa/Bad_Name"));
    }

    #[test]
    fn a_url_is_shown_without_its_credentials() {
        assert_eq!(shown("https://u:p@h:1/m@x"), "https://REDACTED@h:1/m@x");
        assert_eq!(shown("pod/x:80"), "pod/x:80");
        assert_eq!(shown("http://h/metrics"), "http://h/metrics");
    }

    #[test]
    fn what_is_not_a_target_is_refused_with_the_reason() {
        for (text, reason) in [
            ("kcm", "expected KIND/NAME"),
            ("job/kcm", "\"job\" is not a kind of workload"),
            ("deploy/op:70000", "not between 1 and 65535"),
            ("pod/Bad_Name:80", "pod/Bad_Name"),
            ("pod/kcm:", "port \"\""),
            ("https://user:secret@host/metrics", "holds credentials"),
            ("https://token@host/metrics", "holds credentials"),
        ] {
            let err = Target::parse(text).unwrap_err();
            assert!(err.contains(reason), "{text}: {err}");
            assert!(!err.contains("secret"), "{err}");
        }
    }
}
