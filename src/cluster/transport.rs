//! The HTTP stack under kube's client, built here rather than by kube so that a dead peer is
//! noticed the way client-go notices it.
//!
//! kube's own stack speaks HTTP/1.1 only and has no health check: a watch whose peer vanished
//! without a FIN or RST (a dead NAT entry, a hung load balancer, a frozen API server) reads
//! nothing until the watch's own `timeoutSeconds`, 5 to 10 minutes. client-go speaks HTTP/2 to
//! the API server and sends a PING on a connection that has received nothing for 30 s
//! (`ReadIdleTimeout`), closing it when the PONG does not come within 15 s (`PingTimeout`);
//! every stream on it then fails and the informer resumes on a new connection. This stack does
//! the same: ALPN offers `h2` then `http/1.1`, and hyper's HTTP/2 keep-alive sends the PINGs.
//! A quiet watch is not cut: the server's PONG is traffic, the watch itself can stay silent.
//!
//! A connection the server keeps on HTTP/1.1 (a plain-HTTP server, a proxy that strips ALPN) has
//! no PING; TCP keep-alive probes after the same idle time, every 5 s, 3 times, notice a host
//! that vanished (not a peer process that is alive but stuck: its kernel answers the probes).
//!
//! Under TLS, the connection is dialled directly or through the proxy `outbound_proxy::choose` picked:
//! an HTTP CONNECT tunnel (to the proxy over TCP or TLS) or SOCKS5; the API server's TLS and
//! HTTP/2 run inside it as on a direct connection.
//!
//! Every phase of a connection has a limit, as client-go's transport has them (see `connect`):
//! the dial 30 s, the TLS handshake 10 s, a request's response headers `--request-timeout` or
//! [`DEFAULT_RESPONSE_HEADERS`], a response body that stops moving the health check's window.
//!
//! kube's layers are reused for the base URI, the TLS settings (client certificates included)
//! and the impersonation headers; the `Authorization` header comes from `credentials`, which
//! uses kube's layer where it is safe.

mod connect;

pub use connect::{Phase, PhaseTimeout, Progress, DIAL_TIMEOUT, TLS_HANDSHAKE_TIMEOUT};

use super::credentials::{self, Signer};
use super::outbound_proxy::{Proxy, ProxyScheme};
use hyper_util::client::legacy::connect::proxy::{SocksV5, Tunnel};
use kube::client::ConfigExt;
use std::sync::Arc;
use std::time::Duration;

/// How long the PONG may take before the connection is presumed dead (client-go's
/// `PingTimeout`, also the TCP keep-alive's probes: 3 at 5 s).
pub const PING_TIMEOUT: Duration = Duration::from_secs(15);
/// The default of `--health-check`: client-go's `ReadIdleTimeout`.
pub const DEFAULT_HEALTH_CHECK: Duration = Duration::from_secs(30);
/// How long a request's response headers may take when `--request-timeout` is not given: a
/// request the API server has taken is answered within its own 60 s request timeout (a LIST
/// of any size starts its body by then).
pub const DEFAULT_RESPONSE_HEADERS: Duration = Duration::from_secs(60);
const KEEPALIVE_PROBE_INTERVAL: Duration = Duration::from_secs(5);
const KEEPALIVE_PROBES: u32 = 3;

/// How the connections to a cluster are made and watched over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transport {
    /// Limit of each non-watch request, whole (`--request-timeout`); `None`: no limit.
    pub request_timeout: Option<Duration>,
    /// Limit of a request's wait for its response headers, a watch's too: `--request-timeout`
    /// when given, else [`DEFAULT_RESPONSE_HEADERS`]; `None` after `--request-timeout 0`.
    pub response_headers: Option<Duration>,
    /// Idle time after which a connection is checked (`--health-check`); `None`: never.
    pub health_check: Option<Duration>,
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            request_timeout: None,
            response_headers: Some(DEFAULT_RESPONSE_HEADERS),
            health_check: Some(DEFAULT_HEALTH_CHECK),
        }
    }
}

impl Transport {
    /// The longest a response body may stop moving before the request is abandoned: a body
    /// that has started is sent without pause by the API server, so silence for a health check
    /// and its answer means the peer or the server's handler is stuck. Without a health check,
    /// its default's window: a body that stops is never waited for without end.
    pub fn stall_limit(&self) -> Duration {
        self.health_check.unwrap_or(DEFAULT_HEALTH_CHECK) + PING_TIMEOUT
    }

    /// Why a stream failed, in the user's terms. When the health check closes a connection,
    /// its streams fail only with "broken pipe"; one that had then received nothing for the
    /// health check's idle time was closed by it (a peer that closes the connection itself
    /// gives a reset or an end of file instead).
    pub fn explain(&self, err: &(dyn std::error::Error + 'static), silent_for: Duration) -> String {
        let reason = super::innermost(err);
        let silent = silent_for >= self.health_check.unwrap_or(Duration::MAX);
        if closed_by_health_check(err) || (reason.contains("broken pipe") && silent) {
            format!(
                "the health check got no answer: nothing received for {}, no reply to an HTTP/2 \
                 PING within {}",
                crate::format::wait(Duration::from_secs(silent_for.as_secs())),
                crate::format::wait(PING_TIMEOUT),
            )
        } else if reason.contains("close_notify") {
            // rustls's words, with a link to its manual, for a TCP close without TLS's own end.
            "the server closed the connection without ending the watch (its process ended, or \
             the connection was cut)"
                .to_string()
        } else {
            reason
        }
    }

    /// Why a request (not a stream) failed, when the health check closed its connection.
    pub fn explain_request(&self, err: &(dyn std::error::Error + 'static)) -> Option<String> {
        let idle = self.health_check?;
        closed_by_health_check(err).then(|| {
            format!(
                "the health check got no answer: no reply to an HTTP/2 PING within {} after {} \
                 without a frame",
                crate::format::wait(PING_TIMEOUT),
                crate::format::wait(idle),
            )
        })
    }

    /// kube's client over this transport's HTTP stack, through `proxy` when one is chosen
    /// (see `outbound_proxy::choose`), what its connections are waiting for, and the
    /// [`Signer`] of an exec plugin's token, to sign each request with before its limits start;
    /// the error is the reason the configuration cannot be used. `http1_only`: ALPN offers HTTP/1.1 alone, for
    /// requests upgraded to another protocol (a WebSocket).
    pub fn client(
        &self,
        config: &kube::Config,
        proxy: Option<&Proxy>,
        http1_only: bool,
    ) -> Result<(kube::Client, Progress, Option<Signer>), String> {
        let reason = |e: kube::Error| super::innermost(&e);
        let config = &credentials::with_exec_decided(config)?;
        let mut tcp = hyper_util::client::legacy::connect::HttpConnector::new();
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        if let Some(idle) = self.health_check {
            tcp.set_keepalive(Some(idle));
            tcp.set_keepalive_interval(Some(KEEPALIVE_PROBE_INTERVAL));
            tcp.set_keepalive_retries(Some(KEEPALIVE_PROBES));
        }
        // Both may run the kubeconfig's exec plugin (kube runs it to completion, blocking).
        let limit = self.response_headers;
        let (mut tls, (auth, signer)) =
            credentials::within_plugin_limit(config, limit, move |c| {
                Ok((
                    c.rustls_client_config().map_err(reason)?,
                    credentials::client_auth(c, limit)?,
                ))
            })?;
        let dial = match proxy {
            None => Dial::Direct(tcp),
            Some(proxy) => Dial::through(proxy, tcp, tls.clone())?,
        };
        let server_name = match &config.tls_server_name {
            Some(name) => Some(
                rustls_pki_types::ServerName::try_from(name.clone())
                    .map_err(|e| format!("tls-server-name \"{name}\" is not a server name: {e}"))?,
            ),
            None => None,
        };
        tls.alpn_protocols = match http1_only {
            true => vec![b"http/1.1".to_vec()],
            false => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
        };
        let progress = Progress::default();
        let https = connect::Connector {
            dial,
            tls: Arc::new(tls),
            server_name,
            progress: progress.clone(),
            limits: (DIAL_TIMEOUT, TLS_HANDSHAKE_TIMEOUT),
        };

        let mut builder =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new());
        builder.timer(hyper_util::rt::TokioTimer::new());
        builder.pool_timer(hyper_util::rt::TokioTimer::new());
        if let Some(idle) = self.health_check {
            builder
                .http2_keep_alive_interval(idle)
                .http2_keep_alive_timeout(PING_TIMEOUT)
                .http2_keep_alive_while_idle(true);
        }
        let http = builder.build::<_, kube::client::Body>(https);
        let decompression = tower_http::decompression::DecompressionLayer::new()
            .no_br()
            .no_deflate()
            .no_zstd()
            .gzip(!config.disable_compression);
        let service = tower::ServiceBuilder::new()
            .layer(config.base_uri_layer())
            .layer(decompression)
            .option_layer(auth)
            .layer(config.extra_headers_layer().map_err(reason)?)
            .map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { Box::new(e) })
            .service(http);
        Ok((
            kube::Client::new(service, config.default_namespace.clone()),
            progress,
            signer,
        ))
    }
}

type Tcp = hyper_util::client::legacy::connect::HttpConnector;
type TcpStream = hyper_util::rt::TokioIo<tokio::net::TcpStream>;
/// What every way of dialing yields: a TCP stream, or a TLS stream to an `https://` proxy
/// carrying the tunnel.
type Stream = hyper_rustls::MaybeHttpsStream<TcpStream>;
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// How a connection to the API server is opened, before its own TLS: directly, through an HTTP
/// CONNECT tunnel (the proxy reached over TCP or TLS), or through SOCKS5.
#[derive(Clone)]
enum Dial {
    Direct(Tcp),
    Tunnel(Tunnel<hyper_rustls::HttpsConnector<Tcp>>, Arc<str>),
    Socks(SocksV5<Tcp>, Arc<str>),
}

impl Dial {
    fn through(proxy: &Proxy, tcp: Tcp, tls: rustls::ClientConfig) -> Result<Dial, String> {
        Ok(match proxy.scheme {
            ProxyScheme::Http | ProxyScheme::Https => {
                // TLS to an https:// proxy is verified as client-go's is: with the cluster's TLS
                // settings, over HTTP/1.1 (CONNECT is an HTTP/1.1 request here).
                let to_proxy = hyper_rustls::HttpsConnectorBuilder::new()
                    .with_tls_config(tls)
                    .https_or_http()
                    .enable_http1()
                    .wrap_connector(tcp);
                let mut tunnel = Tunnel::new(proxy.uri.clone(), to_proxy);
                if let Some((user, pass)) = &proxy.credentials {
                    tunnel = tunnel.with_auth(basic_auth(user, pass).map_err(|_| {
                        format!(
                            "the user name or password of {} cannot be sent in a header",
                            proxy
                        )
                    })?);
                }
                Dial::Tunnel(tunnel, proxy.to_string().into())
            }
            ProxyScheme::Socks5 => {
                let mut socks = SocksV5::new(proxy.uri.clone(), tcp).local_dns(false);
                if let Some((user, pass)) = &proxy.credentials {
                    socks = socks.with_auth(user.clone(), pass.clone());
                }
                Dial::Socks(socks, proxy.to_string().into())
            }
        })
    }
}

impl tower::Service<http::Uri> for Dial {
    type Response = Stream;
    type Error = BoxError;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<Stream, BoxError>> + Send>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), BoxError>> {
        match self {
            Dial::Direct(tcp) => tcp.poll_ready(cx).map_err(Into::into),
            Dial::Tunnel(tunnel, _) => tunnel.poll_ready(cx).map_err(Into::into),
            Dial::Socks(socks, _) => socks.poll_ready(cx).map_err(Into::into),
        }
    }

    fn call(&mut self, dst: http::Uri) -> Self::Future {
        match self {
            Dial::Direct(tcp) => {
                let connecting = tcp.call(dst);
                Box::pin(async move { Ok(Stream::Http(connecting.await?)) })
            }
            Dial::Tunnel(tunnel, proxy) => {
                let (connecting, proxy) = (tunnel.call(dst), proxy.clone());
                Box::pin(async move { connecting.await.map_err(|e| through_proxy(&proxy, &e)) })
            }
            Dial::Socks(socks, proxy) => {
                let (connecting, proxy) = (socks.call(dst), proxy.clone());
                Box::pin(async move {
                    let stream = connecting.await.map_err(|e| through_proxy(&proxy, &e))?;
                    Ok(Stream::Http(stream))
                })
            }
        }
    }
}

/// A proxy's failure in the user's terms, naming the proxy (hyper-util's words are terse, and
/// its innermost cause alone would read as if the API server were unreachable).
fn through_proxy(proxy: &str, e: &(dyn std::error::Error + 'static)) -> BoxError {
    let outer = e.to_string();
    let inner = super::innermost(e);
    let what = if outer.contains("proxy authorization required") {
        "it asks for credentials (407 Proxy Authentication Required): put them in the proxy URL \
         as http://USER:PASSWORD@HOST:PORT"
            .to_string()
    } else if outer.contains("unsuccessful") {
        "it refused to open a tunnel to the API server (its answer to CONNECT was not 200)"
            .to_string()
    } else if outer.contains("underlying connection") {
        format!("cannot connect to it: {inner}")
    } else if inner != outer {
        format!("{outer}: {inner}")
    } else {
        outer
    };
    format!("through {proxy}: {what}").into()
}

fn basic_auth(
    user: &str,
    pass: &str,
) -> Result<http::HeaderValue, http::header::InvalidHeaderValue> {
    use base64::Engine as _;
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pass}"));
    let mut value = http::HeaderValue::try_from(format!("Basic {encoded}"))?;
    value.set_sensitive(true);
    Ok(value)
}

/// Whether hyper closed the connection because a PING went unanswered: its error chain holds
/// "keep-alive timed out" (whose own cause reads only "operation timed out").
fn closed_by_health_check(err: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(err);
    while let Some(e) = current {
        if e.to_string().contains("keep-alive timed out") {
            return true;
        }
        current = e.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explain(transport: Transport, reason: &str, silent_secs: u64) -> String {
        let err = std::io::Error::other(reason.to_string());
        transport.explain(&err, Duration::from_secs(silent_secs))
    }

    #[test]
    fn a_stream_failure_is_said_in_the_users_terms() {
        let default = Transport::default();
        let broken = "stream closed because of a broken pipe";
        assert_eq!(
            explain(default, broken, 45),
            "the health check got no answer: nothing received for 45s, no reply to an HTTP/2 \
             PING within 15s"
        );
        // Not silent for the health check's idle time: something else broke the pipe.
        assert_eq!(explain(default, broken, 3), broken);
        let off = Transport {
            health_check: None,
            ..default
        };
        assert_eq!(explain(off, broken, 600), broken);
        assert!(explain(
            default,
            "peer closed connection without sending TLS close_notify: https://docs.rs/rustls",
            1
        )
        .starts_with("the server closed the connection without ending the watch"));
        assert_eq!(default.stall_limit(), Duration::from_secs(45));
        // hyper's chain: "http2 error" > "keep-alive timed out" > "operation timed out".
        #[derive(Debug)]
        struct Layer(&'static str, Option<Box<Layer>>);
        impl std::fmt::Display for Layer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0)
            }
        }
        impl std::error::Error for Layer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                self.1.as_deref().map(|l| l as _)
            }
        }
        let inner = Layer("operation timed out", None);
        let keepalive = Layer("keep-alive timed out", Some(Box::new(inner)));
        let hyper = Layer("http2 error", Some(Box::new(keepalive)));
        assert_eq!(
            default.explain_request(&hyper).as_deref(),
            Some("the health check got no answer: no reply to an HTTP/2 PING within 15s after 30s without a frame")
        );
        assert!(default
            .explain(&hyper, Duration::ZERO)
            .starts_with("the health check"));
        assert_eq!(off.explain_request(&hyper), None);
        assert_eq!(
            default.explain_request(&Layer("connection reset", None)),
            None
        );
        assert_eq!(off.stall_limit(), Duration::from_secs(45));
    }
}
