//! Where a controller's metrics are served, and reading them: `pod/NAME[:PORT][/PATH]` or
//! `svc/NAME:PORT[/PATH]` through the API server's proxy with the user's credentials (as
//! `kubectl get --raw /api/v1/namespaces/NS/pods/NAME:PORT/proxy/metrics` reaches them, no
//! port-forward), or an `http(s)://` URL reached with the kubeconfig's credentials and TLS trust.

use super::controller::Controller;
use super::text::{self, ParseError};
use crate::cluster::{Cluster, ClusterError, Operation, Sink};

/// What a scrape asks for: the text format first (what client-go's components serve), then
/// OpenMetrics, then anything (to say what it was).
const ACCEPT: &str =
    "text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1";

/// The path a metrics server serves by default.
const DEFAULT_PATH: &str = "/metrics";

/// A metrics endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
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
    /// Reads `pod/NAME[:PORT][/PATH]`, `svc/NAME:PORT[/PATH]` (`pods/`, `po/`, `service/` and
    /// `services/` too) or an `http://` or `https://` URL (its path `/metrics` when it has none).
    pub fn parse(text: &str) -> Result<Target, String> {
        const EXPECTED: &str =
            "expected pod/NAME[:PORT][/PATH], svc/NAME:PORT[/PATH] or an http(s):// URL";
        if text.starts_with("http://") || text.starts_with("https://") {
            return url(text).map(Target::Url);
        }
        let Some((kind, rest)) = text.split_once('/') else {
            return Err(EXPECTED.to_string());
        };
        let resource = match kind {
            "pod" | "pods" | "po" => "pods",
            "svc" | "service" | "services" => "services",
            _ => return Err(format!("{kind:?} is not pod or svc: {EXPECTED}")),
        };
        let (name_port, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, DEFAULT_PATH),
        };
        let (name, port) = match name_port.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (name_port, None),
        };
        if !crate::cluster::selector::is_dns_subdomain(name) {
            return Err(format!(
                "{kind}/{name}: an object's name is lowercase letters, digits, '-' and '.'"
            ));
        }
        if let Some(port) = port {
            let valid = !port.is_empty()
                && port.len() <= 15
                && port.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if !valid {
                return Err(format!("port {port:?} is neither a number nor a port name"));
            }
        }
        if resource == "services" && port.is_none() {
            return Err(format!(
                "svc/{name} needs a port (svc/{name}:PORT): a service's metrics are on one of its ports"
            ));
        }
        Ok(Target::Proxied {
            resource,
            name: name.to_string(),
            port: port.map(str::to_string),
            path: path.to_string(),
        })
    }
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
            Target::Proxied {
                resource,
                name,
                port,
                path,
            } => {
                let kind = if *resource == "pods" { "pod" } else { "svc" };
                write!(f, "{kind}/{name}")?;
                if let Some(port) = port {
                    write!(f, ":{port}")?;
                }
                if path != DEFAULT_PATH {
                    write!(f, "{path}")?;
                }
                Ok(())
            }
            Target::Url(uri) => write!(f, "{uri}"),
        }
    }
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

/// A connection to one metrics endpoint.
pub struct Scraper {
    cluster: Cluster,
    path_and_query: String,
    op: Operation,
    target: String,
    /// Whether requests go to the target itself (a URL), not to the API server.
    direct: bool,
}

impl Scraper {
    /// Prepares scraping `target` (a pod or a service in `namespace`) with `cluster`'s user; no
    /// request is made yet.
    pub async fn new(
        target: &Target,
        cluster: &Cluster,
        namespace: &str,
    ) -> Result<Scraper, ClusterError> {
        let (cluster, path_and_query, op) = match target {
            Target::Proxied {
                resource,
                name,
                port,
                path,
            } => {
                let port = port.as_deref().map(|p| format!(":{p}")).unwrap_or_default();
                (
                    cluster.clone(),
                    format!("/api/v1/namespaces/{namespace}/{resource}/{name}{port}/proxy{path}"),
                    Operation::new("get", format!("{resource}/proxy"), Some(namespace)),
                )
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
                (
                    cluster.connect_to(&origin).await?,
                    path.to_string(),
                    Operation::new("get", uri.path(), None),
                )
            }
        };
        Ok(Scraper {
            cluster,
            path_and_query,
            op,
            target: target.to_string(),
            direct: matches!(target, Target::Url(_)),
        })
    }

    /// The connection the scrapes go over (to the target itself, or to the API server).
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// What is scraped, as the user named it.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The line that says a scrape gave nothing, the `gaps`-th: `why`.
    pub fn gap_line(&self, gaps: u64, why: &str) -> String {
        format!(
            "scrape of {} failed ({}): {why}",
            self.target,
            crate::format::count(gaps, "gap")
        )
    }

    /// One scrape, read into what it says about the controller.
    pub async fn scrape(&self) -> Result<Controller, ScrapeError> {
        let body = self
            .cluster
            .get_into(&self.path_and_query, ACCEPT, &self.op, Collected::new)
            .await
            .map_err(|e| self.explain(e))?;
        let media = body
            .content_type
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        if !(media.is_empty() || media == "text/plain" || media == "application/openmetrics-text") {
            return Err(ScrapeError::NotMetrics {
                target: self.target.clone(),
                content_type: media,
            });
        }
        let text = String::from_utf8_lossy(&body.bytes);
        let exposition = text::parse(&text).map_err(|source| ScrapeError::Unreadable {
            target: self.target.clone(),
            source,
        })?;
        Controller::read(&exposition).ok_or_else(|| ScrapeError::NotAController {
            target: self.target.clone(),
        })
    }
}

impl Scraper {
    /// A connection error in the controller's terms when the target is reached directly (the
    /// cluster's errors speak of the API server and the kubeconfig's server address).
    fn explain(&self, e: ClusterError) -> ScrapeError {
        let target = self.target.clone();
        match e {
            ClusterError::Unreachable { reason, .. } if self.direct => {
                ScrapeError::Unreachable { target, reason }
            }
            ClusterError::Tls { reason, .. } if self.direct => ScrapeError::Tls { target, reason },
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
        let proxied = |resource, name: &str, port: Option<&str>, path: &str| Target::Proxied {
            resource,
            name: name.into(),
            port: port.map(Into::into),
            path: path.into(),
        };
        assert_eq!(
            Target::parse("pod/kcm").unwrap(),
            proxied("pods", "kcm", None, "/metrics")
        );
        assert_eq!(
            Target::parse("po/kcm:10257").unwrap(),
            proxied("pods", "kcm", Some("10257"), "/metrics")
        );
        assert_eq!(
            Target::parse("svc/manager:https/custom/path").unwrap(),
            proxied("services", "manager", Some("https"), "/custom/path")
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
    fn a_url_is_shown_without_its_credentials() {
        assert_eq!(shown("https://u:p@h:1/m@x"), "https://REDACTED@h:1/m@x");
        assert_eq!(shown("pod/x:80"), "pod/x:80");
        assert_eq!(shown("http://h/metrics"), "http://h/metrics");
    }

    #[test]
    fn what_is_not_a_target_is_refused_with_the_reason() {
        for (text, reason) in [
            ("kcm", "expected pod/NAME"),
            ("deploy/kcm", "\"deploy\" is not pod or svc"),
            ("svc/manager", "needs a port"),
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
