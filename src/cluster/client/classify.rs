//! Errors classified: a kube error or a refused body made into the one-line error the user
//! sees (unauthorized, forbidden, an API status, a timeout, TLS, unreachable), and the names
//! and causes read out of them.

use super::body::{Refused, MAX_RESPONSE_BYTES};
use super::{Cluster, Operation};
use crate::cluster::error::Forbidden;
use crate::cluster::transport::PhaseTimeout;
use crate::cluster::ClusterError;
use std::time::Duration;

impl Cluster {
    /// The error a refused body becomes.
    pub(super) fn refused(&self, refused: Refused, op: &Operation) -> ClusterError {
        match refused {
            Refused::Stalled(after) => ClusterError::Stalled {
                what: op.describe(),
                server: self.server.clone(),
                after,
            },
            Refused::TooLarge => ClusterError::Transport {
                what: op.describe(),
                reason: format!(
                    "the response grew past {} GiB and was refused by size: page the LIST \
                     (--chunk-size) or narrow it with a selector",
                    MAX_RESPONSE_BYTES >> 30
                ),
            },
            Refused::Undecodable(reason) => ClusterError::Decode {
                what: op.describe(),
                reason,
            },
        }
    }

    /// Turns a kube error into the one-line error the user sees.
    pub fn classify(&self, err: kube::Error, op: &Operation) -> ClusterError {
        match err {
            kube::Error::Api(status) => {
                let code = status.code;
                let message = status.message.clone();
                match code {
                    401 => {
                        let (credential, remedy) = match &self.selection.overrides.token {
                            Some(_) => ("the token passed with --token", "pass a valid one"),
                            None => (
                                "the token or client certificate of that user in your kubeconfig",
                                "log in again",
                            ),
                        };
                        ClusterError::Unauthorized {
                            server: self.server.clone(),
                            user: self.user.clone(),
                            credential: credential.to_string(),
                            remedy: remedy.to_string(),
                        }
                    }
                    // Not every 403 is RBAC's: the API server's proxy refuses some addresses,
                    // an admission webhook may deny; those say so in their own words.
                    403 if !is_rbac_denial(&message) => ClusterError::Api {
                        what: op.describe(),
                        code,
                        reason: "Forbidden".to_string(),
                        message,
                        retry_after: None,
                    },
                    403 => {
                        let (scope, can_i_scope) = match &op.namespace {
                            Some(ns) => (format!(" in namespace \"{ns}\""), format!(" -n {ns}")),
                            None if op.all_namespaces => {
                                (" in all namespaces".to_string(), " -A".to_string())
                            }
                            None => (String::new(), String::new()),
                        };
                        let can_i_scope = can_i_scope + &self.selection.kubectl_flags();
                        let can_i_resource = can_i_resource(&op.resource);
                        ClusterError::Forbidden(Box::new(Forbidden {
                            // The verb the server checked: a WebSocket's upgrade (a GET) needs
                            // `get` on pods/portforward before `create`.
                            verb: server_verb(&message).unwrap_or_else(|| op.verb.to_string()),
                            resource: op.resource.clone(),
                            can_i_resource,
                            scope,
                            can_i_scope,
                            user: server_user(&message).unwrap_or_else(|| self.user.clone()),
                            message,
                        }))
                    }
                    _ => ClusterError::Api {
                        what: op.describe(),
                        code,
                        reason: if status.reason.is_empty() {
                            "Error".to_string()
                        } else {
                            status.reason.clone()
                        },
                        message,
                        retry_after: status
                            .details
                            .as_ref()
                            .map(|d| d.retry_after_seconds)
                            .filter(|s| *s > 0)
                            .map(|s| Duration::from_secs(u64::from(s))),
                    },
                }
            }
            kube::Error::SerdeError(e) => ClusterError::Decode {
                what: op.describe(),
                reason: e.to_string(),
            },
            other => self.transport_error(&other, op),
        }
    }

    /// Classifies an I/O or connection failure into unreachable, TLS, or a plain transport error.
    pub fn transport_error(
        &self,
        err: &(dyn std::error::Error + 'static),
        op: &Operation,
    ) -> ClusterError {
        if let Some(waited) = PhaseTimeout::find(err) {
            return self.no_answer(waited.clone(), op.describe(), None);
        }
        if let Some(reason) = self.transport.explain_request(err) {
            return ClusterError::Transport {
                what: op.describe(),
                reason,
            };
        }
        let reason = innermost(err);
        let lower = reason.to_ascii_lowercase();
        let io_kind = io_error_kind(err);
        if lower.contains("deadline has elapsed") || io_kind == Some(std::io::ErrorKind::TimedOut) {
            ClusterError::Timeout {
                what: op.describe(),
                server: self.server.clone(),
                after: self
                    .transport
                    .request_timeout
                    .unwrap_or(crate::cluster::transport::DIAL_TIMEOUT),
            }
        } else if lower.contains("certificate")
            || lower.contains("tls")
            || lower.contains("handshake")
            || lower.contains("unknownissuer")
        {
            ClusterError::Tls {
                server: self.server.clone(),
                context: self.context.clone(),
                reason: certificate_names(&reason),
            }
        } else if matches!(
            io_kind,
            Some(
                std::io::ErrorKind::ConnectionRefused
                    | std::io::ErrorKind::AddrNotAvailable
                    | std::io::ErrorKind::HostUnreachable
                    | std::io::ErrorKind::NetworkUnreachable
            )
        ) || lower.contains("dns")
            || lower.contains("failed to lookup")
            || lower.contains("connect")
        {
            ClusterError::Unreachable {
                server: self.server.clone(),
                origin: self.origin.clone(),
                reason,
            }
        } else {
            ClusterError::Transport {
                what: op.describe(),
                reason,
            }
        }
    }
}

/// rustls's words for a certificate not valid for the name asked, which list the names in
/// Rust's debug form (`[IpAddress(127.0.0.1), DnsName("localhost")]`), said as kubectl (Go's
/// x509) says it: `certificate is valid for 127.0.0.1, localhost, not "example"`. Any other
/// reason is kept.
pub(super) fn certificate_names(reason: &str) -> String {
    let Some(listed) = reason
        .split_once("certificate is only valid for ")
        .map(|(_, rest)| rest)
    else {
        return reason.to_string();
    };
    let expected = reason
        .split_once("not valid for name ")
        .and_then(|(_, rest)| rest.split(';').next())
        .map(|name| name.trim().trim_matches('"').to_string());
    let names: Vec<String> = listed
        .trim()
        .replace(" or ", ", ")
        .split(", ")
        .map(|name| {
            let inner = name
                .split_once('(')
                .map_or(name, |(_, rest)| rest.trim_end_matches(')'));
            inner.trim_matches('"').to_string()
        })
        .filter(|name| !name.is_empty())
        .collect();
    match expected {
        Some(expected) => format!(
            "the server's certificate is valid for {}, not {expected} (the name in the server \
             address, or tls-server-name)",
            names.join(", ")
        ),
        None => format!("the server's certificate is valid for {}", names.join(", ")),
    }
}

/// Whether a 403's message is RBAC's (or another authorizer's) denial of a user: `configmaps
/// is forbidden: User "x" cannot list resource "configmaps" ...`.
fn is_rbac_denial(message: &str) -> bool {
    server_user(message).is_some() && message.contains(" cannot ")
}

/// The user a 403 message names: `... User "nobody" cannot list ...`.
pub(super) fn server_user(message: &str) -> Option<String> {
    let start = message.find("User \"")? + "User \"".len();
    let len = message[start..].find('"')?;
    Some(message[start..start + len].to_string())
}

/// A resource as `kubectl auth can-i` takes it: a subresource (`pods/portforward`) as
/// `pods --subresource=portforward`; a non-resource URL (`/metrics`) as it is.
pub(super) fn can_i_resource(resource: &str) -> String {
    match resource.split_once('/') {
        Some((plural, sub)) if !plural.is_empty() => format!("{plural} --subresource={sub}"),
        _ => resource.to_string(),
    }
}

/// The verb an RBAC denial names: `User "u" cannot get resource "pods/portforward" ...`.
pub(super) fn server_verb(message: &str) -> Option<String> {
    let start = message.find(" cannot ")? + " cannot ".len();
    let (verb, rest) = message[start..].split_once(' ')?;
    (rest.starts_with("resource ") && verb.bytes().all(|b| b.is_ascii_lowercase()))
        .then(|| verb.to_string())
}

fn io_error_kind(err: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut current = Some(err);
    while let Some(e) = current {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        current = e.source();
    }
    None
}

/// The innermost cause of an error: the part that says what is actually wrong.
pub fn innermost(err: &dyn std::error::Error) -> String {
    let mut current = err;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

#[cfg(test)]
mod tests {
    use super::{certificate_names, is_rbac_denial};

    #[test]
    fn only_an_authorizers_403_is_called_an_rbac_denial() {
        assert!(is_rbac_denial(
            "configmaps is forbidden: User \"nobody\" cannot list resource \"configmaps\" in API \
             group \"\" at the cluster scope"
        ));
        assert!(!is_rbac_denial("address not allowed"));
        assert!(!is_rbac_denial(
            "admission webhook \"deny.example.com\" denied the request: no"
        ));
    }

    #[test]
    fn a_certificate_for_other_names_is_said_as_kubectl_says_it() {
        let rustls = "invalid peer certificate: certificate not valid for name \"127.0.0.2\"; \
                      certificate is only valid for IpAddress(127.0.0.1) or DnsName(\"localhost\")";
        assert_eq!(
            certificate_names(rustls),
            "the server's certificate is valid for 127.0.0.1, localhost, not 127.0.0.2 (the name \
             in the server address, or tls-server-name)"
        );
        let one =
            "certificate not valid for name \"a\"; certificate is only valid for DnsName(\"b\")";
        assert!(
            certificate_names(one).starts_with("the server's certificate is valid for b, not a")
        );
        assert_eq!(certificate_names("UnknownIssuer"), "UnknownIssuer");
    }
}
