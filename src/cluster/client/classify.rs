//! Errors classified: a kube error or a refused body made into the one-line error the user
//! sees (unauthorized, forbidden, an API status, a timeout, TLS, unreachable), and the names
//! and causes read out of them.

use super::body::{Refused, MAX_RESPONSE_BYTES};
use super::{Cluster, Operation, DEFAULT_CONNECT_TIMEOUT};
use crate::cluster::error::Forbidden;
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
                    401 => ClusterError::Unauthorized {
                        server: self.server.clone(),
                        user: self.user.clone(),
                    },
                    403 => {
                        let (scope, can_i_scope) = match &op.namespace {
                            Some(ns) => (format!(" in namespace \"{ns}\""), format!(" -n {ns}")),
                            None => (String::new(), String::new()),
                        };
                        let can_i_scope = can_i_scope + &self.selection.kubectl_flags();
                        ClusterError::Forbidden(Box::new(Forbidden {
                            verb: op.verb.to_string(),
                            resource: op.resource.clone(),
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
                    .unwrap_or(DEFAULT_CONNECT_TIMEOUT),
            }
        } else if lower.contains("certificate")
            || lower.contains("tls")
            || lower.contains("handshake")
            || lower.contains("unknownissuer")
        {
            ClusterError::Tls {
                server: self.server.clone(),
                context: self.context.clone(),
                reason,
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
                context: self.context.clone(),
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

/// The user a 403 message names: `... User "nobody" cannot list ...`.
pub(super) fn server_user(message: &str) -> Option<String> {
    let start = message.find("User \"")? + "User \"".len();
    let len = message[start..].find('"')?;
    Some(message[start..start + len].to_string())
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
