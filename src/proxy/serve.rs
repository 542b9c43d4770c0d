//! Serving: every connection (TLS with ALPN h2 or http/1.1, or plain HTTP/1.1) and every request
//! on it forwarded to the cluster with the user's credentials, the response streamed back as it
//! comes (a watch event by event), whatever its status.

use crate::cluster::Cluster;
use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::convert::Infallible;
use std::sync::Arc;
use tokio::net::TcpListener;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type ProxyBody = UnsyncBoxBody<Bytes, BoxError>;

/// The largest request body forwarded (kube-apiserver refuses more than 3 MiB for most writes).
const MAX_REQUEST_BYTES: usize = 64 << 20;

/// Headers of one hop that are not forwarded (RFC 9110 section 7.6.1), and what the upstream
/// client sets itself (the host, the credentials, the encodings it decodes).
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
pub async fn serve(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    cluster: Cluster,
) -> std::io::Result<()> {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    loop {
        let (tcp, _) = listener.accept().await?;
        let _ = tcp.set_nodelay(true);
        let (acceptor, cluster) = (acceptor.clone(), cluster.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let cluster = cluster.clone();
                async move { Ok::<_, Infallible>(forward(&cluster, request).await) }
            });
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            match acceptor {
                Some(acceptor) => {
                    if let Ok(tls) = acceptor.accept(tcp).await {
                        let _ = builder.serve_connection(TokioIo::new(tls), service).await;
                    }
                }
                None => {
                    let _ = builder.serve_connection(TokioIo::new(tcp), service).await;
                }
            }
        });
    }
}

/// One request, forwarded; a failure to reach the cluster is a 502 with a `Status` saying why.
async fn forward(
    cluster: &Cluster,
    request: hyper::Request<Incoming>,
) -> hyper::Response<ProxyBody> {
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
    let upstream = match upstream.body(body) {
        Ok(r) => r,
        Err(e) => return status(400, "BadRequest", &e.to_string()),
    };
    match cluster.forward(upstream).await {
        Ok(response) => response.map(|b| b.map_err(|e| Box::new(e) as BoxError).boxed_unsync()),
        Err(e) => status(502, "ServiceUnavailable", &e.to_string()),
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
        .body(
            Full::new(Bytes::from(body.to_string()))
                .map_err(|never| match never {})
                .boxed_unsync(),
        )
        .unwrap_or_default()
}
