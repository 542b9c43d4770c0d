//! Serving: every connection (TLS with ALPN h2 or http/1.1, or plain HTTP/1.1) and every request
//! on it forwarded to the cluster with the user's credentials, the response streamed back as it
//! comes (a watch event by event), whatever its status.

use super::engine::{Connection, Engine};
use super::fault::{Kind, Verb};
use super::frames::expired_event;
use super::relay::relay;
use super::request::ApiRequest;
use super::silence::Silenceable;
use crate::cluster::{Cluster, Encoding};
use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::convert::Infallible;
use std::sync::Arc;
use tokio::net::TcpListener;

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub type ProxyBody = UnsyncBoxBody<Bytes, BoxError>;

/// The largest request body forwarded (kube-apiserver refuses more than 3 MiB for most writes).
const MAX_REQUEST_BYTES: usize = 64 << 20;

/// Headers of one hop that are not forwarded (RFC 9110 section 7.6.1), and what the proxy sets
/// itself (the host, the credentials, the encodings its client decodes: see [`forward`]).
const NOT_FORWARDED: [&str; 11] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "authorization",
    "accept-encoding",
];

/// Accepts connections on `listener` until it fails, each served on a task of its own: with TLS
/// when `tls` is given (HTTP/2 or HTTP/1.1 as the client's ALPN chose), else plain HTTP/1.1.
/// While a `refuse` lasts the listener is closed (a client's connect is refused) and every
/// connection is closed; it is opened again on the same address after.
pub async fn serve(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    cluster: Cluster,
    engine: Arc<Engine>,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let mut moments = engine.subscribe();
    let mut listener = listener;
    loop {
        let (tcp, peer) = tokio::select! {
            accepted = listener.accept() => accepted?,
            moment = moments.recv() => {
                if let Ok(m) = moment {
                    if let Kind::Refuse { .. } = engine.kind(m.fault) {
                        drop(listener);
                        tokio::time::sleep_until(m.until).await;
                        listener = TcpListener::bind(address).await?;
                        engine.notice(m.fault, None, "accepting connections again".into(), false);
                    }
                }
                continue;
            }
        };
        let _ = tcp.set_nodelay(true);
        let connection = engine.connection(peer);
        let (acceptor, cluster, engine) = (acceptor.clone(), cluster.clone(), engine.clone());
        tokio::spawn(async move {
            let mut closed = connection.closed.subscribe();
            let io = Silenceable::new(tcp, connection.silent_until.subscribe());
            let served =
                serve_connection(io, acceptor, cluster, engine.clone(), connection.clone());
            tokio::select! {
                () = served => {}
                _ = closed.wait_for(|c| *c) => {}
            }
            engine.forget(&connection);
        });
    }
}

/// One connection's requests, each forwarded.
async fn serve_connection(
    io: Silenceable<tokio::net::TcpStream>,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
    cluster: Cluster,
    engine: Arc<Engine>,
    connection: Arc<Connection>,
) {
    let service = hyper::service::service_fn(move |request| {
        let (cluster, engine, connection) = (cluster.clone(), engine.clone(), connection.clone());
        async move { Ok::<_, Infallible>(handle(&cluster, &engine, &connection, request).await) }
    });
    let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
    match acceptor {
        Some(acceptor) => {
            if let Ok(tls) = acceptor.accept(io).await {
                let _ = builder.serve_connection(TokioIo::new(tls), service).await;
            }
        }
        None => {
            let _ = builder.serve_connection(TokioIo::new(io), service).await;
        }
    }
}

/// One request: answered by a fault, or forwarded (later, for a slow list), its watch stream
/// passed through the faults that act on it.
async fn handle(
    cluster: &Cluster,
    engine: &Arc<Engine>,
    connection: &Arc<Connection>,
    request: hyper::Request<Incoming>,
) -> hyper::Response<ProxyBody> {
    if let Some(refusal) = refused(engine, &request) {
        return refusal;
    }
    let user_agent = request.headers().get(http::header::USER_AGENT);
    let api = ApiRequest::new(
        request.method(),
        request.uri().path(),
        request.uri().query(),
    )
    .with_user_agent(user_agent.and_then(|v| v.to_str().ok()));
    if engine.is_empty() {
        let response = forward(cluster, request, api.verb == Verb::Watch).await;
        engine.seen(&api, response.status());
        return response;
    }
    let plan = engine.plan(&api);
    if let Some((fault, code, retry_after)) = plan.error {
        let wait = retry_after.map_or(String::new(), |s| format!(" with Retry-After: {s}"));
        engine.notice(fault, Some(&api), format!("answered {code}{wait}"), true);
        let mut response = status(code, reason(code), &format!("fault {}", engine.text(fault)));
        if let Some(seconds) = retry_after {
            response
                .headers_mut()
                .insert(http::header::RETRY_AFTER, seconds.into());
        }
        return response;
    }
    if let Some((fault, by)) = plan.slow {
        engine.notice(
            fault,
            Some(&api),
            format!("answered {} later", crate::format::duration(by)),
            true,
        );
        tokio::time::sleep(by).await;
    }
    let response = forwarded(cluster, engine, &api, &plan, request).await;
    engine.seen(&api, response.status());
    if !plan.crash.is_empty() && response.status().is_success() {
        return committed(engine, &plan.crash, &api, response).await;
    }
    if api.verb != Verb::Watch || response.status() != http::StatusCode::OK {
        return response;
    }
    let encoding = Encoding::of_content_type(
        response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or(""),
    );
    if let Some(fault) = plan.gone {
        return gone(engine, fault, &api, encoding, response);
    }
    let guard = engine.watch_opened(&api, connection);
    let (parts, body) = response.into_parts();
    let body = match plan.stream.is_empty() {
        // The guard goes with the body, dropped when the watch ends.
        true => body
            .map_frame(move |frame| {
                let _open = &guard;
                frame
            })
            .boxed_unsync(),
        false => relay(engine.clone(), api, plan.stream, encoding, body, guard),
    };
    hyper::Response::from_parts(parts, body)
}

/// The answer to a request the proxy does not forward: from a foreign host (403), or one that
/// asks to upgrade its connection (400, and a notice).
fn refused<B>(engine: &Engine, request: &hyper::Request<B>) -> Option<hyper::Response<ProxyBody>> {
    if let Some(host) = foreign_host(request) {
        return Some(status(
            403,
            "Forbidden",
            &format!(
                "host \"{host}\" refused: the proxy answers only to localhost, 127.0.0.1 and [::1], as kubectl proxy does by default, so that no web page can reach your cluster with your credentials (DNS rebinding)"
            ),
        ));
    }
    if is_upgrade(request) {
        let why = "kubectl informer proxy does not forward upgraded connections (exec, attach, \
                   port-forward, cp): run that command against the API server itself, without \
                   the proxy's kubeconfig";
        engine.refused(
            format!("{} {}", request.method(), request.uri().path()),
            why.to_string(),
        );
        return Some(status(400, "BadRequest", why));
    }
    None
}

/// The request forwarded: served stale when the plan says so, else as it came.
async fn forwarded(
    cluster: &Cluster,
    engine: &Engine,
    api: &ApiRequest,
    plan: &super::engine::Plan,
    request: hyper::Request<Incoming>,
) -> hyper::Response<ProxyBody> {
    match &plan.stale {
        Some((fault, rewrite, lag)) => {
            super::stale::forward_stale(cluster, engine, api, (*fault, rewrite, lag), request).await
        }
        None => forward(cluster, request, api.verb == Verb::Watch).await,
    }
}

/// A write the server has committed, counted by the `crash` faults it is in the scope of; when
/// one kills the controller, that happens before the answer is passed on (to a client that is
/// gone). The answer, a single object, is read whole so that the notice can name it.
async fn committed(
    engine: &Arc<Engine>,
    crash: &[usize],
    api: &ApiRequest,
    response: hyper::Response<ProxyBody>,
) -> hyper::Response<ProxyBody> {
    let (parts, body) = response.into_parts();
    let bytes = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return status(502, "ServiceUnavailable", &format!("response body: {e}")),
    };
    let content_type = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let what = match crate::cluster::encoding::object_name(content_type, &bytes) {
        Some((name, Some(rv))) => format!(": {name} rv {rv}"),
        Some((name, None)) => format!(": {name}"),
        None => String::new(),
    };
    engine.committed(crash, api, &what).await;
    hyper::Response::from_parts(parts, whole(bytes))
}

/// Whether `request` asks to upgrade its connection (SPDY or WebSocket, as kubectl's exec,
/// attach and port-forward do): HTTP/1.1's `Upgrade`, or HTTP/2's extended CONNECT.
fn is_upgrade<B>(request: &hyper::Request<B>) -> bool {
    request.headers().contains_key(http::header::UPGRADE)
        || request.method() == http::Method::CONNECT
}

/// The host a request names (HTTP/2's `:authority`, HTTP/1.1's `Host`) when it is not a
/// loopback name: a page in a browser whose name was made to resolve to 127.0.0.1 names its own.
fn foreign_host<B>(request: &hyper::Request<B>) -> Option<String> {
    let named = request.uri().host().map(str::to_string).or_else(|| {
        let header = request.headers().get(http::header::HOST)?.to_str().ok()?;
        let host = match header.strip_prefix('[') {
            Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or_default()),
            None => header.split(':').next().unwrap_or_default().to_string(),
        };
        Some(host)
    })?;
    let loopback = ["localhost", "127.0.0.1", "[::1]", "::1"];
    (!loopback.contains(&named.to_ascii_lowercase().as_str())).then_some(named)
}

/// A watch resumed where one ended, answered as kube-apiserver answers a resourceVersion its
/// history no longer holds: the stream's one event is a 410 Expired ERROR (a CBOR stream, whose
/// events this does not write, gets the status 410 itself).
fn gone(
    engine: &Engine,
    fault: usize,
    api: &ApiRequest,
    encoding: Encoding,
    response: hyper::Response<ProxyBody>,
) -> hyper::Response<ProxyBody> {
    let rv = api.resource_version.as_deref().unwrap_or_default();
    let (parts, _) = response.into_parts();
    match expired_event(encoding, rv) {
        Some(event) => {
            engine.notice(
                fault,
                Some(api),
                "answered 410 Gone (an ERROR event)".into(),
                true,
            );
            hyper::Response::from_parts(parts, whole(event))
        }
        None => {
            engine.notice(fault, Some(api), "answered 410 Gone".into(), true);
            status(410, "Expired", &format!("too old resource version: {rv}"))
        }
    }
}

/// The reason kube-apiserver gives with a status.
fn reason(code: u16) -> &'static str {
    match code {
        400 => "BadRequest",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "NotFound",
        409 => "Conflict",
        410 => "Expired",
        422 => "Invalid",
        429 => "TooManyRequests",
        500 => "InternalError",
        503 => "ServiceUnavailable",
        504 => "Timeout",
        _ => "Unknown",
    }
}

/// One request, forwarded; a failure to reach the cluster is a 502 with a `Status` saying why.
///
/// The upstream client asks for gzip and undoes it, as Go's transport does for kubectl proxy
/// (a LIST comes faster so, even on loopback), except for a watch (`watch`), asked unencoded:
/// kube-apiserver gzips a watch-list's stream when asked, which would hide its events from the
/// faults, and the upstream client cannot undo a stream gzipped event by event. (A plain watch
/// is never gzipped.)
pub(super) async fn forward<B>(
    cluster: &Cluster,
    request: hyper::Request<B>,
    watch: bool,
) -> hyper::Response<ProxyBody>
where
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_REQUEST_BYTES).collect().await {
        Ok(collected) => collected.to_bytes().to_vec(),
        Err(e) => return status(413, "RequestEntityTooLarge", &format!("request body: {e}")),
    };
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let mut upstream = http::Request::builder()
        .method(parts.method)
        .uri(path_and_query);
    for (name, value) in &parts.headers {
        if !NOT_FORWARDED.contains(&name.as_str()) {
            upstream = upstream.header(name, value);
        }
    }
    if watch {
        upstream = upstream.header(http::header::ACCEPT_ENCODING, "identity");
    }
    let upstream = match upstream.body(body) {
        Ok(r) => r,
        Err(e) => return status(400, "BadRequest", &e.to_string()),
    };
    match cluster.forward(upstream).await {
        Ok(response) => response.map(|b| {
            Coalesced::new(b.map_err(|e| Box::new(e) as BoxError).boxed_unsync()).boxed_unsync()
        }),
        // The API server did not answer in time (a dial, a TLS handshake or response headers
        // that did not come): a gateway timeout, as kube-apiserver's own proxy says one.
        Err(e @ crate::cluster::ClusterError::NoAnswer { .. }) => {
            status(504, "Timeout", &e.to_string())
        }
        Err(e) => status(502, "ServiceUnavailable", &e.to_string()),
    }
}

/// How many bytes [`Coalesced`] joins into one frame at most.
const COALESCE_BYTES: usize = 64 << 10;

/// A body whose data frames that are ready together are sent as one, up to [`COALESCE_BYTES`]:
/// the gzip decoder hands a LIST on in 4 KiB pieces, each of which would otherwise be a chunk
/// (HTTP/1.1) or a frame of its own, eight times as many writes and reads as kubectl proxy's 32
/// KiB. Nothing waits for more: what is ready is sent, so a watch's event goes out as it came.
struct Coalesced {
    inner: ProxyBody,
    held: bytes::BytesMut,
    /// What ended the gathering (trailers, an error, the end), to be given after `held`.
    next: Option<Option<Result<http_body::Frame<Bytes>, BoxError>>>,
}

impl Coalesced {
    fn new(inner: ProxyBody) -> Self {
        Coalesced {
            inner,
            held: bytes::BytesMut::new(),
            next: None,
        }
    }
}

impl http_body::Body for Coalesced {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, BoxError>>> {
        use std::task::Poll;
        let this = self.get_mut();
        if let Some(next) = this.next.take() {
            return Poll::Ready(next);
        }
        let held = |held: &mut bytes::BytesMut| http_body::Frame::data(held.split().freeze());
        loop {
            match std::pin::Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) if this.held.is_empty() && data.len() >= COALESCE_BYTES => {
                        return Poll::Ready(Some(Ok(http_body::Frame::data(data))));
                    }
                    Ok(data) => {
                        this.held.extend_from_slice(&data);
                        if this.held.len() >= COALESCE_BYTES {
                            return Poll::Ready(Some(Ok(held(&mut this.held))));
                        }
                    }
                    Err(trailers) if this.held.is_empty() => {
                        return Poll::Ready(Some(Ok(trailers)))
                    }
                    Err(trailers) => {
                        this.next = Some(Some(Ok(trailers)));
                        return Poll::Ready(Some(Ok(held(&mut this.held))));
                    }
                },
                Poll::Ready(end @ (Some(Err(_)) | None)) => {
                    if this.held.is_empty() {
                        return Poll::Ready(end);
                    }
                    this.next = Some(end);
                    return Poll::Ready(Some(Ok(held(&mut this.held))));
                }
                Poll::Pending if this.held.is_empty() => return Poll::Pending,
                Poll::Pending => return Poll::Ready(Some(Ok(held(&mut this.held)))),
            }
        }
    }
}

/// A Kubernetes `Status` answer, as the API server words one.
fn status(code: u16, reason: &str, message: &str) -> hyper::Response<ProxyBody> {
    let body = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {},
        "status": "Failure", "message": format!("kubectl-informer proxy: {message}"),
        "reason": reason, "code": code,
    });
    hyper::Response::builder()
        .status(code)
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(whole(Bytes::from(body.to_string())))
        .unwrap_or_default()
}

/// A body of `bytes`, all there.
fn whole(bytes: Bytes) -> ProxyBody {
    Full::new(bytes)
        .map_err(|never| match never {})
        .boxed_unsync()
}

#[cfg(test)]
mod tests {
    use super::{foreign_host, BoxError, Coalesced, COALESCE_BYTES};
    use crate::proxy::relay::received;
    use bytes::Bytes;
    use http_body::Frame;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn pieces_ready_together_go_as_one_frame_and_nothing_waits_for_more() {
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<Frame<Bytes>, BoxError>>(64);
        let mut body = Coalesced::new(received(rx));
        let piece = Bytes::from(vec![b'x'; 4096]);
        for _ in 0..20 {
            tx.try_send(Ok(Frame::data(piece.clone()))).unwrap();
        }
        // 80 KiB ready: one frame of 64 KiB, then the 16 KiB left, without waiting for more.
        let first = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(first.len(), COALESCE_BYTES);
        let second = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(second.len(), 20 * 4096 - COALESCE_BYTES);
        // One event alone goes out alone.
        tx.try_send(Ok(Frame::data(Bytes::from_static(
            b"{\"type\":\"ADDED\"}\n",
        ))))
        .unwrap();
        let event = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(&event[..], b"{\"type\":\"ADDED\"}\n");
        // What is held comes before an error, and the error after it.
        tx.try_send(Ok(Frame::data(piece.clone()))).unwrap();
        tx.try_send(Err("reset".into())).unwrap();
        let held = body.frame().await.unwrap().unwrap().into_data().unwrap();
        assert_eq!(held.len(), 4096);
        assert!(body.frame().await.unwrap().is_err());
    }

    fn request(uri: &str, host: Option<&str>) -> hyper::Request<()> {
        let mut builder = hyper::Request::builder().uri(uri);
        if let Some(host) = host {
            builder = builder.header(http::header::HOST, host);
        }
        builder.body(()).unwrap()
    }

    #[test]
    fn only_loopback_names_are_answered_as_kubectl_proxy_answers_them_by_default() {
        for (uri, host) in [
            ("/api/v1/pods", Some("127.0.0.1:8001")),
            ("/api/v1/pods", Some("localhost:8001")),
            ("/api/v1/pods", Some("LOCALHOST")),
            ("/api/v1/pods", Some("[::1]:8001")),
            ("https://127.0.0.1:8001/api/v1/pods", None),
            ("https://[::1]:8001/api/v1/pods", None),
            ("/api/v1/pods", None),
        ] {
            assert_eq!(foreign_host(&request(uri, host)), None, "{uri} {host:?}");
        }
        assert_eq!(
            foreign_host(&request("/api/v1/secrets", Some("evil.example:8001"))).as_deref(),
            Some("evil.example")
        );
        assert_eq!(
            foreign_host(&request("https://evil.example:8001/api", None)).as_deref(),
            Some("evil.example")
        );
        assert_eq!(
            foreign_host(&request("/api", Some("192.168.1.5"))).as_deref(),
            Some("192.168.1.5")
        );
    }
}
