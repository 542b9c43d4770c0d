//! The connection to one cluster: kube's HTTP client plus the names that errors refer to, and
//! the raw requests every command is made of (discovery, LIST pages, WATCH streams).

mod body;
mod classify;
mod discover;
mod forward;
#[cfg(test)]
mod tests;

use super::credentials::Signer;
use super::kubeconfig::{self, KubeconfigSelection};
use super::transport::{Phase, PhaseTimeout, Progress, Transport};
use super::{ClusterError, Encoding};
use crate::verbosity::Verbosity;
use futures::{AsyncBufRead, StreamExt, TryStreamExt};
use http_body_util::BodyExt;
use std::time::Duration;

pub use body::Sink;
use body::{collect, content_type, pour, protobuf_status, MAX_RESPONSE_BYTES};
pub use classify::innermost;
pub use forward::PodConnection;

/// The `-v` level from which every request is logged: kubectl's `-v=6`.
pub const REQUEST_LEVEL: u8 = 6;

/// What a request does, for error messages: `list configmaps in namespace "x"`.
#[derive(Debug, Clone)]
pub struct Operation {
    pub verb: &'static str,
    pub resource: String,
    pub namespace: Option<String>,
    /// Of a namespaced resource in every namespace (`-A`), not a cluster-scoped one.
    pub all_namespaces: bool,
}

impl Operation {
    pub fn new(verb: &'static str, resource: impl Into<String>, namespace: Option<&str>) -> Self {
        Operation {
            verb,
            resource: resource.into(),
            namespace: namespace.map(str::to_string),
            all_namespaces: false,
        }
    }

    /// The same operation in every namespace (`-A`), as `kubectl auth can-i ... -A` checks it.
    pub fn in_all_namespaces(mut self) -> Self {
        self.all_namespaces = true;
        self
    }

    fn describe(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {} in namespace \"{ns}\"", self.verb, self.resource),
            None => format!("{} {}", self.verb, self.resource),
        }
    }
}

/// A connected cluster.
#[derive(Clone)]
pub struct Cluster {
    client: kube::Client,
    /// An exec plugin's token, renewed before a request's limits start (see [`Cluster::headers`]).
    signer: Option<Signer>,
    /// The API server URL.
    pub server: String,
    /// The kubeconfig context in use.
    pub context: String,
    /// The kubeconfig user name (never a credential).
    pub user: String,
    /// The context's namespace, else `default`.
    pub default_namespace: String,
    transport: Transport,
    /// What its connections and requests are waiting for (to say it when a limit ends a wait).
    progress: Progress,
    /// Where the server's address came from, for errors that ask to check it: `--server`, or
    /// the kubeconfig's context.
    origin: String,
    /// Whether a watch-list asks for a gzipped stream (see [`Cluster::stream`]).
    gzip_watch_lists: bool,
    /// From [`REQUEST_LEVEL`] on, every request is logged on stderr.
    verbose: Verbosity,
    /// What it was connected with, to connect again (`connect_again`).
    selection: KubeconfigSelection,
}

impl Cluster {
    /// Loads the kubeconfig and builds a client; no request is made yet.
    pub async fn connect(
        selection: &KubeconfigSelection,
        transport: Transport,
    ) -> Result<Self, ClusterError> {
        let loaded = kubeconfig::load(selection).await?;
        Cluster::built(loaded, selection, transport, false)
    }

    /// A connection to another endpoint of the same user (a controller's metrics URL): the
    /// kubeconfig's credentials (none over plain `http://`) and TLS trust, requests sent to
    /// `origin` instead of the API server, through the proxy the environment names for `origin` (a kubeconfig's `proxy-url`
    /// is the API server's, and its `tls-server-name` the API server's name).
    pub async fn connect_to(&self, origin: &http::Uri) -> Result<Cluster, ClusterError> {
        let mut loaded = kubeconfig::load(&self.selection).await?;
        loaded.config.cluster_url = origin.clone();
        loaded.config.tls_server_name = None;
        if origin.scheme_str() == Some("http") {
            // No credential crosses a connection in the clear.
            loaded.config.auth_info = Default::default();
        }
        loaded.proxy =
            super::outbound_proxy::choose(origin, "", None, &|name| std::env::var(name).ok())
                .map_err(|reason| ClusterError::KubeconfigUnusable {
                    source_desc: format!("context \"{}\"", loaded.context),
                    reason,
                })?;
        let mut cluster = Cluster::built(loaded, &self.selection, self.transport, false)?
            .with_verbosity(self.verbose.0);
        cluster.origin = "the URL given".to_string();
        Ok(cluster)
    }

    /// The client of `loaded`; `http1_only` for one whose requests can be upgraded.
    fn built(
        loaded: kubeconfig::LoadedConfig,
        selection: &KubeconfigSelection,
        transport: Transport,
        http1_only: bool,
    ) -> Result<Self, ClusterError> {
        let config = loaded.config;
        let server = config
            .cluster_url
            .to_string()
            .trim_end_matches('/')
            .to_string();
        let default_namespace = config.default_namespace.clone();
        // No retry layer: the reflector decides itself when to retry (kube's would hide 429s).
        let (client, progress, signer) = transport
            .client(&config, loaded.proxy.as_ref(), http1_only)
            .map_err(|reason| ClusterError::KubeconfigUnusable {
                source_desc: format!("context \"{}\"", loaded.context),
                reason,
            })?;
        // Bytes that cross no network cost less than compressing them does (BENCHMARKS.md,
        // "Compression").
        let near = loaded.proxy.is_none()
            && super::outbound_proxy::is_loopback(config.cluster_url.host().unwrap_or_default());
        let origin = match &selection.overrides.server {
            Some(_) => "--server".to_string(),
            None => format!(
                "the server of context \"{}\" in your kubeconfig",
                loaded.context
            ),
        };
        Ok(Cluster {
            client,
            signer,
            progress,
            origin,
            server,
            gzip_watch_lists: !config.disable_compression && !near,
            context: loaded.context,
            user: loaded.user,
            default_namespace,
            transport,
            verbose: Verbosity::default(),
            selection: selection.clone(),
        })
    }

    /// A new connection to the same cluster as the same user, whose HTTP work runs on the
    /// calling runtime (kube's client drives its connections on the runtime that built it).
    pub async fn connect_again(&self) -> Result<Cluster, ClusterError> {
        Ok(Cluster::connect(&self.selection, self.transport)
            .await?
            .with_verbosity(self.verbose.0))
    }

    /// Whether a watch-list asks for a gzipped stream, whatever the default (see
    /// [`Cluster::stream`]); `false` also where compression is disabled.
    pub fn with_watch_list_gzip(mut self, gzip: bool) -> Self {
        self.gzip_watch_lists = gzip;
        self
    }

    /// Logs every request on stderr from `-v=6` on, as kubectl does.
    /// Who the requests act as, for the lines said before writes: `user "admin"`, or with
    /// `--as` `user "admin" acting as "system:serviceaccount:x:y"` (and `--as-group`'s groups).
    pub fn acting(&self) -> String {
        let overrides = &self.selection.overrides;
        let mut text = format!("user \"{}\"", self.user);
        if let Some(other) = &overrides.impersonate {
            text.push_str(&format!(" acting as \"{other}\""));
            if !overrides.impersonate_groups.is_empty() {
                let groups: Vec<String> = (overrides.impersonate_groups.iter())
                    .map(|g| format!("\"{g}\""))
                    .collect();
                text.push_str(&format!(" in groups {}", groups.join(", ")));
            }
        }
        text
    }

    pub fn with_verbosity(mut self, verbose: u8) -> Self {
        self.verbose = Verbosity(verbose);
        self
    }

    /// The log level asked for with `-v`, and where its lines go.
    pub fn verbosity(&self) -> Verbosity {
        self.verbose
    }

    /// kubectl's `-v=6` line: `GET https://server/path 200 OK in 4 milliseconds`; for a watch,
    /// the time is until the response headers.
    fn log_response(
        &self,
        method: &http::Method,
        path_and_query: &str,
        outcome: &str,
        started: std::time::Instant,
    ) {
        self.verbose.say(REQUEST_LEVEL, || {
            format!(
                "{method} {}{path_and_query} {outcome} in {} milliseconds",
                self.server,
                started.elapsed().as_millis()
            )
        });
    }

    /// GET `path_and_query` and return the body, within the request timeout.
    pub async fn get(
        &self,
        path_and_query: &str,
        accept: &str,
        op: &Operation,
    ) -> Result<Vec<u8>, ClusterError> {
        self.request(
            http::Method::GET,
            path_and_query,
            accept,
            None,
            Vec::new(),
            op,
        )
        .await
    }

    /// A write (POST, PUT, PATCH, DELETE) with a JSON body of `content_type`; returns the
    /// response body. Bounded by the request timeout.
    pub async fn send(
        &self,
        method: http::Method,
        path_and_query: &str,
        content_type: &str,
        body: Vec<u8>,
        op: &Operation,
    ) -> Result<Vec<u8>, ClusterError> {
        self.request(
            method,
            path_and_query,
            "application/json",
            Some(content_type),
            body,
            op,
        )
        .await
    }

    /// One request, its body returned, within the request timeout.
    async fn request(
        &self,
        method: http::Method,
        path_and_query: &str,
        accept: &str,
        content_type: Option<&str>,
        body: Vec<u8>,
        op: &Operation,
    ) -> Result<Vec<u8>, ClusterError> {
        let mut builder = http::Request::builder()
            .method(method)
            .uri(path_and_query)
            .header(http::header::ACCEPT, accept);
        if let Some(content_type) = content_type {
            builder = builder.header(http::header::CONTENT_TYPE, content_type);
        }
        let request = builder.body(body).map_err(|e| ClusterError::Transport {
            what: op.describe(),
            reason: e.to_string(),
        })?;
        let url = self.url(&request.uri().to_string());
        let response = self.checked(request, op).await?;
        self.body(response.into_body(), &url, op).await
    }

    /// A response body, whole, within the request timeout; abandoned when it stops moving for
    /// the health check's window (a LIST half sent by a stuck server or through a frozen
    /// proxy), which a health check on the connection would not notice while the peer answers.
    async fn body(
        &self,
        body: kube::client::Body,
        url: &str,
        op: &Operation,
    ) -> Result<Vec<u8>, ClusterError> {
        let stall_limit = Some(self.transport.stall_limit());
        let _waiting = self.progress.begin(Phase::Body, url);
        self.bounded(op, collect(body, stall_limit, MAX_RESPONSE_BYTES))
            .await?
            .map_err(|refused| self.refused(refused, op))
    }

    /// A GET whose body goes to the sink `make` builds from the response's media type, piece
    /// by piece, within the limits of [`Cluster::get`]: for a body read as it arrives.
    pub async fn get_into<S: Sink>(
        &self,
        path_and_query: &str,
        accept: &str,
        op: &Operation,
        make: impl FnOnce(&str) -> S,
    ) -> Result<S, ClusterError> {
        let response = self
            .checked(get_request(path_and_query, accept, op)?, op)
            .await?;
        let mut sink = make(&content_type(&response));
        let stall_limit = Some(self.transport.stall_limit());
        let _waiting = self.progress.begin(Phase::Body, &self.url(path_and_query));
        let poured = pour(
            response.into_body(),
            stall_limit,
            MAX_RESPONSE_BYTES,
            |piece| sink.push(piece),
        );
        self.bounded(op, poured)
            .await?
            .map_err(|refused| self.refused(refused, op))?;
        Ok(sink)
    }

    /// Sends `request` as it is (any method, path, headers and body; the user's credentials
    /// added) and returns the server's response whatever its status, its body unread: what a
    /// proxy passes on. Its response headers are waited for within their limit; its body is
    /// not bounded: a watch lasts.
    pub async fn forward(
        &self,
        request: http::Request<Vec<u8>>,
    ) -> Result<http::Response<kube::client::Body>, ClusterError> {
        let op = Operation::new("proxy", request.uri().path().to_string(), None);
        self.headers(request, &op).await
    }

    /// Sends `request` and waits for its response's headers, within
    /// [`Transport::response_headers`]: a limit that ends the wait says which phase did not
    /// end (the connection's dial or TLS handshake, or the server's answer). An exec plugin's
    /// token is renewed before that limit starts, within the plugin's own (see [`Signer`]).
    async fn headers(
        &self,
        mut request: http::Request<Vec<u8>>,
        op: &Operation,
    ) -> Result<http::Response<kube::client::Body>, ClusterError> {
        if let Some(signer) = &self.signer {
            let _renewing = self.progress.begin(Phase::Credential, signer.plugin());
            let signed = signer.sign(&mut request).await;
            signed.map_err(|reason| self.unusable(reason))?;
        }
        let url = self.url(&request.uri().to_string());
        let waiting = self.progress.begin(Phase::ResponseHeaders, &url);
        let sent = self.client.send(request.map(kube::client::Body::from));
        // Kept while the end is said: a connection it is opening is what the message reads.
        tokio::pin!(sent);
        let response = match self.transport.response_headers {
            Some(limit) => match tokio::time::timeout(limit, &mut sent).await {
                Ok(response) => response,
                Err(_) => {
                    drop(waiting);
                    return Err(self.headers_not_in_time(limit, url, op));
                }
            },
            None => sent.await,
        };
        response.map_err(|e| self.classify(e, op))
    }

    /// The user's credentials could not be used (an exec plugin's renewal failed or did not end
    /// in time), said as when the client was built.
    fn unusable(&self, reason: String) -> ClusterError {
        ClusterError::KubeconfigUnusable {
            source_desc: format!("context \"{}\"", self.context),
            reason,
        }
    }

    /// The URL of a request's path on this server, without its query: what a wait that did not
    /// end names.
    fn url(&self, path_and_query: &str) -> String {
        let path = path_and_query.split('?').next().unwrap_or_default();
        format!("{}{path}", self.server)
    }

    /// A request whose response headers `limit` ended: the phase of its connection it was in
    /// when the connection was still being made, else the wait for the headers.
    fn headers_not_in_time(&self, limit: Duration, url: String, op: &Operation) -> ClusterError {
        let waited = (self.progress.longest())
            .filter(|w| w.phase.is_connecting())
            .map(|w| PhaseTimeout { after: limit, ..w })
            .unwrap_or(PhaseTimeout {
                phase: Phase::ResponseHeaders,
                endpoint: url,
                after: limit,
            });
        self.no_answer(waited, op.describe(), None)
    }

    /// What the cluster's connections or requests are waiting for now, and for how long: what
    /// a limit of the whole run ended, if it ended a wait.
    pub fn waiting_for(&self) -> Option<PhaseTimeout> {
        self.progress.longest()
    }

    /// A phase of `what` that did not end in time, in the user's terms; `ended_by` the limit of
    /// the run that ended it (`--for 4s`), if not the phase's own.
    pub fn no_answer(
        &self,
        waited: PhaseTimeout,
        what: String,
        ended_by: Option<String>,
    ) -> ClusterError {
        ClusterError::NoAnswer {
            what,
            waited,
            origin: self.origin.clone(),
            ended_by,
        }
    }

    /// Sends `request` and returns the response once its status is a success. An error status
    /// becomes the server's `Status` (or its plain-text body), with the `Retry-After` header when
    /// the Status has none: API Priority and Fairness and max-in-flight answer 429 in plain
    /// text, saying how long to wait only in the header.
    async fn checked(
        &self,
        request: http::Request<Vec<u8>>,
        op: &Operation,
    ) -> Result<http::Response<kube::client::Body>, ClusterError> {
        let started = std::time::Instant::now();
        let method = request.method().clone();
        let path_and_query = request.uri().to_string();
        let response = self
            .headers(request, op)
            .await
            .inspect_err(|_| self.log_response(&method, &path_and_query, "failed", started))?;
        let code = response.status();
        self.log_response(&method, &path_and_query, &code.to_string(), started);
        if !(code.is_client_error() || code.is_server_error()) {
            return Ok(response);
        }
        let header_retry_after = response
            .headers()
            .get(http::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .filter(|s| *s > 0)
            .map(Duration::from_secs);
        let protobuf = Encoding::of_content_type(&content_type(&response)) == Encoding::Protobuf;
        let body = self
            .body(response.into_body(), &self.url(&path_and_query), op)
            .await?;
        let text = String::from_utf8_lossy(&body);
        let decoded = if protobuf {
            protobuf_status(&body)
        } else {
            serde_json::from_str::<kube::core::Status>(&text).ok()
        };
        let status = decoded.unwrap_or_else(|| {
            // A proxy's HTML or plain-text page: one line, and not the whole page.
            kube::core::Status::failure(&crate::format::one_line(&text, 200), "")
                .with_code(code.as_u16())
        });
        let mut err = self.classify(kube::Error::Api(status.boxed()), op);
        if let ClusterError::Api { retry_after, .. } = &mut err {
            *retry_after = retry_after.or(header_retry_after);
        }
        Err(err)
    }

    /// Open a streaming GET (a watch): returns once the server answered with a success status.
    /// Opening is bounded by the response headers' limit; the stream itself is not (the health
    /// check watches over it).
    ///
    /// Responses are gzipped where the server offers it (every request says `Accept-Encoding:
    /// gzip`, as kubectl's do, unless `disable-compression`), except a watch: the server never
    /// compresses a plain one, and compresses a watch-list (`initial_events`, from 1.37) only
    /// when asked, which is asked here unless the server is on this host. Measured on 1.37
    /// (BENCHMARKS.md, "Compression"): on loopback a gzipped watch-list syncs 100,000
    /// ConfigMaps 2.5 times slower than a plain one (the server flushes, so compresses, event
    /// by event), while a gzipped LIST is faster; over a network link, gzip wins both.
    pub async fn stream(
        &self,
        path_and_query: &str,
        accept: &str,
        initial_events: bool,
        op: &Operation,
    ) -> Result<(String, impl AsyncBufRead + Unpin + Send + use<>), ClusterError> {
        let mut request = get_request(path_and_query, accept, op)?;
        if !(initial_events && self.gzip_watch_lists) {
            request.headers_mut().insert(
                http::header::ACCEPT_ENCODING,
                http::HeaderValue::from_static("identity"),
            );
        }
        let response = self.checked(request, op).await?;
        let content_type = content_type(&response);
        let transport = self.transport;
        let mut last_frame = std::time::Instant::now();
        let reader = response
            .into_body()
            .into_data_stream()
            .map(move |frame| match frame {
                Ok(data) => {
                    last_frame = std::time::Instant::now();
                    Ok(data)
                }
                Err(e) => Err(std::io::Error::other(
                    transport.explain(&e, last_frame.elapsed()),
                )),
            })
            .into_async_read();
        Ok((content_type, Box::pin(reader)))
    }

    async fn bounded<T>(
        &self,
        op: &Operation,
        fut: impl std::future::Future<Output = Result<T, kube::Error>>,
    ) -> Result<T, ClusterError> {
        let result = match self.transport.request_timeout {
            Some(limit) => match tokio::time::timeout(limit, fut).await {
                Ok(r) => r,
                Err(_) => {
                    return Err(ClusterError::Timeout {
                        what: op.describe(),
                        server: self.server.clone(),
                        after: limit,
                    })
                }
            },
            None => fut.await,
        };
        result.map_err(|e| self.classify(e, op))
    }
}

/// A GET of `path_and_query` that accepts `accept`.
fn get_request(
    path_and_query: &str,
    accept: &str,
    op: &Operation,
) -> Result<http::Request<Vec<u8>>, ClusterError> {
    http::Request::get(path_and_query)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())
        .map_err(|e| ClusterError::Transport {
            what: op.describe(),
            reason: e.to_string(),
        })
}
