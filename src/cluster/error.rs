//! Errors that involve the cluster, each turned into one line: what failed, why, what to do.

use std::path::PathBuf;
use std::time::Duration;

/// A failure reaching or using the cluster. Messages are lowercase fragments, never carry
/// credentials, and end with what the user can do about it.
#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    #[error("kubeconfig {path} does not exist: pass an existing file with --kubeconfig")]
    KubeconfigMissing { path: PathBuf },
    #[error(
        "cannot read kubeconfig {path}: {reason}: fix the file or pass another with --kubeconfig"
    )]
    KubeconfigInvalid { path: String, reason: String },
    #[error(
        "no kubeconfig found ({searched}) and not running in a pod: \
         pass --kubeconfig or set KUBECONFIG"
    )]
    NoKubeconfig { searched: String },
    #[error("{what} \"{name}\" not found in kubeconfig {source_desc}: {hint}")]
    NotInKubeconfig {
        what: &'static str,
        name: String,
        source_desc: String,
        hint: String,
    },
    #[error("kubeconfig {source_desc} is unusable: {reason}")]
    KubeconfigUnusable { source_desc: String, reason: String },
    #[error(
        "in-cluster configuration failed: {reason}: pass --kubeconfig to use a kubeconfig instead"
    )]
    InCluster { reason: String },
    #[error(
        "cannot connect to {server}: {reason}: check that the API server is running and \
         reachable, and its address ({origin})"
    )]
    Unreachable {
        server: String,
        /// Where the address came from: `--server`, or the kubeconfig's context.
        origin: String,
        reason: String,
    },
    #[error(
        "{what} timed out after {} waiting for {server}: check that the API server is \
         running and healthy, or raise --request-timeout",
        crate::format::wait(*after)
    )]
    Timeout {
        what: String,
        server: String,
        after: Duration,
    },
    /// A phase of a connection or a request that did not end within its limit (see
    /// `transport::Phase`), or that a limit of the whole run (`ended_by`: `--for 4s`) ended;
    /// `origin` says where the address came from.
    #[error("{}", no_answer_line(what, waited, origin, ended_by.as_deref()))]
    NoAnswer {
        what: String,
        waited: crate::cluster::transport::PhaseTimeout,
        origin: String,
        ended_by: Option<String>,
    },
    #[error(
        "{what}: {server} stopped sending the response for {} (the --health-check window): \
         the connection or the server is stuck",
        crate::format::wait(*after)
    )]
    Stalled {
        what: String,
        server: String,
        after: Duration,
    },
    #[error(
        "TLS handshake with {server} failed: {reason}: check certificate-authority(-data) of \
         the cluster in your kubeconfig (context \"{context}\") or pass \
         --certificate-authority"
    )]
    Tls {
        server: String,
        context: String,
        reason: String,
    },
    #[error(
        "{server} rejected the credentials of user \"{user}\" (401 Unauthorized): {credential} \
         is wrong or expired; {remedy}"
    )]
    Unauthorized {
        server: String,
        user: String,
        /// Which credential was sent: `--token`'s, or the kubeconfig user's.
        credential: String,
        remedy: String,
    },
    #[error("{0}")]
    Forbidden(Box<Forbidden>),
    #[error("unknown resource \"{name}\": the server has no resource type of that name{hint}")]
    UnknownResource { name: String, hint: String },
    #[error(
        "resource name \"{name}\" is ambiguous: it matches {}; name one of them in full",
        candidates.join(", ")
    )]
    AmbiguousResource {
        name: String,
        candidates: Vec<String>,
    },
    #[error("{resource} cannot be watched: the server does not allow {missing} on it")]
    NotWatchable { resource: String, missing: String },
    #[error("{first} and {second} name the same resource ({resource}): name each resource once")]
    NamedTwice {
        first: String,
        second: String,
        resource: String,
    },
    #[error("{what} failed: the server answered {code} {reason}: {message}")]
    Api {
        what: String,
        code: u16,
        reason: String,
        message: String,
        /// The server's `details.retryAfterSeconds` (429 Too Many Requests, some 5xx).
        retry_after: Option<std::time::Duration>,
    },
    #[error("{what} failed: {reason}")]
    Transport { what: String, reason: String },
    #[error("{what} failed: the server sent something that is not valid JSON: {reason}")]
    Decode { what: String, reason: String },
    #[error(
        "discovery of API resources ({server}{path}) failed: the server sent {found}: check that \
         the server in your kubeconfig is a Kubernetes API server (`kubectl get --raw {path}` \
         shows what it sends)"
    )]
    NotDiscovery {
        server: String,
        path: String,
        found: String,
    },
}

/// A phase that did not end in time, and what to do about it: when a limit of the run ended it
/// (`ended_by`), that limit may be what is too short, unless the connection itself never opened.
fn no_answer_line(
    what: &str,
    waited: &crate::cluster::transport::PhaseTimeout,
    origin: &str,
    ended_by: Option<&str>,
) -> String {
    use crate::cluster::transport::Phase;
    match ended_by {
        None => format!("{what}: {waited}: {}", no_answer_hint(waited, origin)),
        Some(limit) => {
            let hint = match waited.phase {
                Phase::Dial | Phase::TlsHandshake => no_answer_hint(waited, origin),
                Phase::Credential => format!(
                    "give a longer {}, or {}",
                    limit.split(' ').next().unwrap_or(limit),
                    no_answer_hint(waited, origin)
                ),
                Phase::ResponseHeaders | Phase::Body => format!(
                    "give a longer {}, or check that the server is healthy",
                    limit.split(' ').next().unwrap_or(limit)
                ),
            };
            format!("{limit} ended the run while {what} was waiting: {waited}: {hint}")
        }
    }
}

/// What to do about a phase that did not end in time.
fn no_answer_hint(waited: &crate::cluster::transport::PhaseTimeout, origin: &str) -> String {
    use crate::cluster::transport::Phase;
    match waited.phase {
        Phase::Credential => "run the plugin by hand to see what it waits for".to_string(),
        Phase::Dial => format!(
            "nothing accepted a connection there: check that the server is running and its \
             address ({origin})"
        ),
        Phase::TlsHandshake => format!(
            "something accepted the connection but did not answer TLS (a hung process, a dead \
             load-balancer backend, or a port that is not the server's): check the address \
             ({origin})"
        ),
        Phase::ResponseHeaders => "the server took the request and did not answer it: check \
             that it is healthy, or give --request-timeout a longer limit"
            .to_string(),
        Phase::Body => "the server or the connection stopped half-way through the response: \
             check that the server is healthy"
            .to_string(),
    }
}

/// A 403: which verb on which resource was denied, to whom, and how to check the grant.
#[derive(Debug, thiserror::Error)]
#[error(
    "cannot {verb} {resource}{scope} as user \"{user}\": forbidden by the server ({message}): \
     ask a cluster admin for an RBAC role that grants {verb} on {resource} \
     (check with `kubectl auth can-i {verb} {can_i_resource}{can_i_scope}`)"
)]
pub struct Forbidden {
    pub verb: String,
    pub resource: String,
    /// The resource as `kubectl auth can-i` takes it: a subresource as `--subresource`.
    pub can_i_resource: String,
    pub scope: String,
    pub can_i_scope: String,
    pub user: String,
    pub message: String,
}

impl ClusterError {
    /// How long the server asked the client to wait before retrying, if it did.
    pub fn retry_after(&self) -> Option<std::time::Duration> {
        match self {
            ClusterError::Api { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// The HTTP status of an API error, if this is one.
    pub fn status_code(&self) -> Option<u16> {
        match self {
            ClusterError::Api { code, .. } => Some(*code),
            ClusterError::Unauthorized { .. } => Some(401),
            ClusterError::Forbidden(_) => Some(403),
            _ => None,
        }
    }
}
