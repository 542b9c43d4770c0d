//! A connection opened in phases, each within its own limit, as client-go's transport opens
//! them: the dial (TCP, directly or through a proxy) within 30 s, then the TLS handshake within
//! 10 s. A phase that runs out fails with a [`PhaseTimeout`] naming the endpoint, the phase and
//! the limit; what is under way is kept in [`Progress`], so that a limit of the whole run
//! (`--for`, `--timeout`, a request's own) can say what it was waiting for when it ended it.

use super::{BoxError, Dial, Stream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a dial may take (client-go's `net.Dialer{Timeout: 30s}`).
pub const DIAL_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the TLS handshake may take once connected (client-go's `TLSHandshakeTimeout`).
pub const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A step of a connection or a request, each with a limit of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// An exec plugin run again for the credential a request carries (its token renewed),
    /// before the request is sent.
    Credential,
    /// TCP connect (through a proxy: until the tunnel is open).
    Dial,
    /// From connected until the TLS session is up.
    TlsHandshake,
    /// From sending a request until its response's status and headers came.
    ResponseHeaders,
    /// From the headers until the whole body came (not a watch's: it lasts).
    Body,
}

impl Phase {
    /// What did not come, at `endpoint` (an address for a connection, a URL for a request).
    pub fn missing(self, endpoint: &str) -> String {
        match self {
            Phase::Credential => format!("no credential from {endpoint}"),
            Phase::Dial => format!("no TCP connection to {endpoint}"),
            Phase::TlsHandshake => format!("no TLS handshake from {endpoint}"),
            Phase::ResponseHeaders => format!("{endpoint}: no response headers"),
            Phase::Body => format!("{endpoint}: the response body did not end"),
        }
    }

    /// Whether the phase comes before a request is sent (opening a connection, or the
    /// credential it carries), not after.
    pub fn is_connecting(self) -> bool {
        matches!(self, Phase::Credential | Phase::Dial | Phase::TlsHandshake)
    }
}

/// A phase that did not end within `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseTimeout {
    pub phase: Phase,
    pub endpoint: String,
    pub after: Duration,
}

impl std::fmt::Display for PhaseTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} within {}",
            self.phase.missing(&self.endpoint),
            crate::format::wait(self.after)
        )
    }
}

impl std::error::Error for PhaseTimeout {}

impl PhaseTimeout {
    /// The `PhaseTimeout` in an error's chain, if one ended it.
    pub fn find<'a>(err: &'a (dyn std::error::Error + 'static)) -> Option<&'a PhaseTimeout> {
        let mut current = Some(err);
        while let Some(e) = current {
            if let Some(found) = e.downcast_ref::<PhaseTimeout>() {
                return Some(found);
            }
            // An I/O error's `source` skips the error it carries: look at that one too.
            let carried = e
                .downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref());
            if let Some(found) = carried.and_then(|c| c.downcast_ref::<PhaseTimeout>()) {
                return Some(found);
            }
            current = e.source();
        }
        None
    }
}

/// What one cluster's connections and requests are waiting for now, shared by the connector
/// and the requests; read when a limit ends a wait, to say what did not come.
#[derive(Clone, Default)]
pub struct Progress(Arc<Mutex<Waits>>);

#[derive(Default)]
struct Waits {
    next: u64,
    open: Vec<(u64, Phase, String, Instant)>,
}

/// One wait under way; it ends when dropped (done, failed or abandoned alike).
pub struct Waiting {
    progress: Progress,
    id: u64,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Ok(mut waits) = self.progress.0.lock() {
            waits.open.retain(|(id, ..)| *id != self.id);
        }
    }
}

impl Progress {
    /// Starts waiting for `phase` at `endpoint`.
    pub fn begin(&self, phase: Phase, endpoint: &str) -> Waiting {
        let mut waits = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let id = waits.next;
        waits.next += 1;
        waits
            .open
            .push((id, phase, endpoint.to_string(), Instant::now()));
        Waiting {
            progress: self.clone(),
            id,
        }
    }

    /// The longest wait under way, a connection's before a request's (a request waits for its
    /// connection), with how long it has lasted.
    pub fn longest(&self) -> Option<PhaseTimeout> {
        let waits = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let oldest = |connecting: bool| {
            waits
                .open
                .iter()
                .filter(|(_, phase, ..)| phase.is_connecting() == connecting)
                .min_by_key(|(.., since)| *since)
        };
        let (_, phase, endpoint, since) = oldest(true).or_else(|| oldest(false))?;
        Some(PhaseTimeout {
            phase: *phase,
            endpoint: endpoint.clone(),
            after: since.elapsed(),
        })
    }
}

/// `host:port` of `uri`, the port implied by its scheme when it names none.
pub fn endpoint(uri: &http::Uri) -> String {
    let host = uri.host().unwrap_or_default();
    let port = uri.port_u16().unwrap_or(match uri.scheme_str() {
        Some("http") => 80,
        _ => 443,
    });
    format!("{host}:{port}")
}

/// Dials, then speaks TLS for an `https://` URI, each phase within its limit.
#[derive(Clone)]
pub(super) struct Connector {
    pub(super) dial: Dial,
    /// The TLS settings, offering `h2` then `http/1.1` (ALPN).
    pub(super) tls: Arc<rustls::ClientConfig>,
    /// The name the server's certificate must be valid for, when not the URI's host
    /// (`tls-server-name`).
    pub(super) server_name: Option<rustls_pki_types::ServerName<'static>>,
    pub(super) progress: Progress,
    pub(super) limits: (Duration, Duration),
}

/// What a connection is: TCP, or TLS over it.
pub(super) type Connection = hyper_rustls::MaybeHttpsStream<Stream>;

impl tower::Service<http::Uri> for Connector {
    type Response = Connection;
    type Error = BoxError;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Connection, BoxError>> + Send>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), BoxError>> {
        self.dial.poll_ready(cx)
    }

    fn call(&mut self, dst: http::Uri) -> Self::Future {
        let endpoint = endpoint(&dst);
        let tls = match dst.scheme_str() {
            Some("https") => {
                let name = match self.server_name.clone() {
                    Some(name) => Ok(name),
                    None => server_name(&dst),
                };
                Some((name, self.tls.clone()))
            }
            Some("http") => None,
            other => {
                let scheme = other.unwrap_or_default().to_string();
                return Box::pin(async move {
                    Err(format!("unsupported scheme \"{scheme}\" in {dst}").into())
                });
            }
        };
        let (progress, (dial_limit, tls_limit)) = (self.progress.clone(), self.limits);
        let dialing = self.dial.call(dst);
        Box::pin(async move {
            let waiting = progress.begin(Phase::Dial, &endpoint);
            let timeout = |phase, after| PhaseTimeout {
                phase,
                endpoint: endpoint.clone(),
                after,
            };
            let stream = tokio::time::timeout(dial_limit, dialing)
                .await
                .map_err(|_| timeout(Phase::Dial, dial_limit))??;
            drop(waiting);
            let Some((name, config)) = tls else {
                return Ok(Connection::Http(stream));
            };
            let _waiting = progress.begin(Phase::TlsHandshake, &endpoint);
            let handshake = tokio_rustls::TlsConnector::from(config)
                .connect(name?, hyper_util::rt::TokioIo::new(stream));
            let session = tokio::time::timeout(tls_limit, handshake)
                .await
                .map_err(|_| timeout(Phase::TlsHandshake, tls_limit))?
                .map_err(std::io::Error::other)?;
            Ok(Connection::Https(hyper_util::rt::TokioIo::new(session)))
        })
    }
}

/// The name a server's certificate must be valid for: the URI's host, an IPv6 address without
/// its brackets.
fn server_name(uri: &http::Uri) -> Result<rustls_pki_types::ServerName<'static>, BoxError> {
    let host = uri.host().unwrap_or_default();
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    rustls_pki_types::ServerName::try_from(host.to_string())
        .map_err(|e| format!("\"{host}\" is not a server name: {e}").into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_wait_is_a_connections_before_a_requests() {
        let progress = Progress::default();
        assert_eq!(progress.longest(), None);
        let request = progress.begin(Phase::ResponseHeaders, "https://10.0.0.1:6443/api");
        assert_eq!(
            progress.longest().map(|w| w.phase),
            Some(Phase::ResponseHeaders)
        );
        let tls = progress.begin(Phase::TlsHandshake, "10.0.0.1:6443");
        let longest = progress.longest().unwrap();
        assert_eq!(
            (longest.phase, longest.endpoint.as_str()),
            (Phase::TlsHandshake, "10.0.0.1:6443")
        );
        drop(tls);
        drop(request);
        assert_eq!(progress.longest(), None);
    }

    #[test]
    fn a_phase_that_ran_out_says_where_and_how_long() {
        let tls = PhaseTimeout {
            phase: Phase::TlsHandshake,
            endpoint: "127.0.0.1:18999".into(),
            after: TLS_HANDSHAKE_TIMEOUT,
        };
        assert_eq!(
            tls.to_string(),
            "no TLS handshake from 127.0.0.1:18999 within 10s"
        );
        let headers = PhaseTimeout {
            phase: Phase::ResponseHeaders,
            endpoint: "https://127.0.0.1:18999/metrics".into(),
            after: Duration::from_secs(10),
        };
        assert_eq!(
            headers.to_string(),
            "https://127.0.0.1:18999/metrics: no response headers within 10s"
        );
        let wrapped = std::io::Error::other(tls.clone());
        assert_eq!(PhaseTimeout::find(&wrapped), Some(&tls));
        assert_eq!(endpoint(&"https://[::1]/x".parse().unwrap()), "[::1]:443");
        assert_eq!(endpoint(&"http://h:8080".parse().unwrap()), "h:8080");
    }
}
