//! A proxy that bends the watch protocol on purpose, as broken proxies and aggregated API
//! servers do: plain HTTP on loopback in front of the test control plane (reached with the
//! admin client, TLS and credentials included), forwarding every request and changing the
//! answers in one way: dropping the initial-events-end BOOKMARK, dropping every BOOKMARK,
//! holding every piece of a watch stream back, answering every LIST with the RV of the first, or
//! losing the watch events of some objects. The bends that rewrite JSON speak only JSON: where the
//! client offers protobuf they ask the server for JSON, as a proxy that edits bodies must (and so
//! stand for a server that does not offer protobuf); the others forward what the client accepts.

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the proxy bends the answers.
#[derive(Debug, Clone, Copy)]
pub enum Bend {
    /// Drops the BOOKMARK annotated `k8s.io/initial-events-end` (a watch-list never ends).
    StripInitialEventsEnd,
    /// Drops every BOOKMARK.
    StripBookmarks,
    /// Forwards each piece of a watch stream this long after it came (a buffering proxy).
    Delay(Duration),
    /// Answers every LIST with the resourceVersion of the first LIST it forwarded (a stale
    /// cache in front of the server).
    StaleListRv,
    /// Drops the ADDED, MODIFIED and DELETED events of objects whose name starts with this, in
    /// JSON lines and in protobuf frames alike (an informer then misses them: drift).
    DropEventsOf(&'static str),
}

impl Bend {
    /// Whether the bend edits JSON bodies, so asks the server for JSON only.
    fn json_only(self) -> bool {
        matches!(
            self,
            Bend::StripInitialEventsEnd | Bend::StripBookmarks | Bend::StaleListRv
        )
    }
}

type ProxyBody = http_body_util::combinators::UnsyncBoxBody<Bytes, Infallible>;

/// The running proxy; it stops with the test process.
pub struct BendingProxy {
    pub url: String,
}

impl BendingProxy {
    /// Starts a proxy to the test control plane that bends its answers as `bend` says.
    pub fn start(bend: Bend) -> Self {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let client = super::admin().await;
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                tx.send(listener.local_addr().unwrap()).unwrap();
                let first_list_rv: Arc<Mutex<Option<String>>> = Arc::default();
                loop {
                    let Ok((conn, _)) = listener.accept().await else {
                        continue;
                    };
                    let (client, first_list_rv) = (client.clone(), first_list_rv.clone());
                    tokio::spawn(async move {
                        let service = hyper::service::service_fn(move |req| {
                            forward(req, client.clone(), bend, first_list_rv.clone())
                        });
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(hyper_util::rt::TokioIo::new(conn), service)
                            .await;
                    });
                }
            });
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the bending proxy starts");
        BendingProxy {
            url: format!("http://{addr}"),
        }
    }

    /// A kubeconfig for the proxy (plain HTTP; the proxy has the credentials).
    pub fn kubeconfig(&self, dir: &Path) -> PathBuf {
        super::write_kubeconfig(dir, &self.url, "the-proxy-authenticates", None)
    }
}

async fn forward(
    req: hyper::Request<Incoming>,
    client: kube::Client,
    bend: Bend,
    first_list_rv: Arc<Mutex<Option<String>>>,
) -> Result<hyper::Response<ProxyBody>, Infallible> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let target = parts
        .uri
        .path_and_query()
        .map(|p| p.to_string())
        .unwrap_or_default();
    let mut up = http::Request::builder()
        .method(parts.method.clone())
        .uri(&target);
    for name in [http::header::ACCEPT, http::header::CONTENT_TYPE] {
        if let Some(value) = parts.headers.get(&name) {
            let offers_protobuf = value
                .as_bytes()
                .windows(b"protobuf".len())
                .any(|w| w == b"protobuf");
            if name == http::header::ACCEPT && bend.json_only() && offers_protobuf {
                up = up.header(name, "application/json");
            } else {
                up = up.header(name, value);
            }
        }
    }
    let request = up.body(kube::client::Body::from(body.to_vec())).unwrap();
    let response = match client.send(request).await {
        Ok(response) => response,
        Err(e) => {
            return Ok(hyper::Response::builder()
                .status(502)
                .body(full(Bytes::from(e.to_string())))
                .unwrap())
        }
    };
    let (parts_up, body_up) = response.into_parts();
    let mut answer = hyper::Response::builder().status(parts_up.status);
    if let Some(value) = parts_up.headers.get(http::header::CONTENT_TYPE) {
        answer = answer.header(http::header::CONTENT_TYPE, value);
    }
    let is_watch = target.contains("watch=true");
    let protobuf = parts_up
        .headers
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| {
            v.as_bytes()
                .starts_with(b"application/vnd.kubernetes.protobuf")
        });
    let is_list = parts.method == http::Method::GET && !is_watch && parts_up.status.is_success();
    let body = match bend {
        Bend::StaleListRv if is_list => {
            let bytes = body_up
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            full(stale_list(bytes, &first_list_rv))
        }
        Bend::StripInitialEventsEnd | Bend::StripBookmarks if is_watch => {
            let strip_all = matches!(bend, Bend::StripBookmarks);
            let mut line = Vec::new();
            let frames = body_up.into_data_stream().map(move |piece| {
                let mut kept = Vec::new();
                for byte in piece.unwrap_or_default() {
                    line.push(byte);
                    if byte == b'\n' {
                        if !dropped(&line, strip_all) {
                            kept.extend_from_slice(&line);
                        }
                        line.clear();
                    }
                }
                Ok::<_, Infallible>(Frame::data(Bytes::from(kept)))
            });
            BodyExt::boxed_unsync(StreamBody::new(frames))
        }
        Bend::DropEventsOf(prefix) if is_watch => {
            let mut pending = Vec::new();
            let frames = body_up.into_data_stream().map(move |piece| {
                pending.extend_from_slice(&piece.unwrap_or_default());
                let mut kept = Vec::new();
                loop {
                    let event_len = if protobuf {
                        match pending.get(..4) {
                            Some(h) => 4 + u32::from_be_bytes(h.try_into().unwrap()) as usize,
                            None => break,
                        }
                    } else {
                        match pending.iter().position(|b| *b == b'\n') {
                            Some(at) => at + 1,
                            None => break,
                        }
                    };
                    if pending.len() < event_len {
                        break;
                    }
                    let event: Vec<u8> = pending.drain(..event_len).collect();
                    if !lost(&event, protobuf, prefix) {
                        kept.extend_from_slice(&event);
                    }
                }
                Ok::<_, Infallible>(Frame::data(Bytes::from(kept)))
            });
            BodyExt::boxed_unsync(StreamBody::new(frames))
        }
        Bend::Delay(delay) if is_watch => {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            tokio::spawn(async move {
                let mut pieces = body_up.into_data_stream();
                while let Some(Ok(piece)) = pieces.next().await {
                    if tx
                        .send((tokio::time::Instant::now() + delay, piece))
                        .is_err()
                    {
                        return;
                    }
                }
            });
            let frames = futures::stream::unfold(rx, |mut rx| async move {
                let (due, piece) = rx.recv().await?;
                tokio::time::sleep_until(due).await;
                Some((Ok::<_, Infallible>(Frame::data(piece)), rx))
            });
            BodyExt::boxed_unsync(StreamBody::new(frames))
        }
        _ => {
            let frames = body_up
                .into_data_stream()
                .map(|piece| Ok::<_, Infallible>(Frame::data(piece.unwrap_or_default())));
            BodyExt::boxed_unsync(StreamBody::new(frames))
        }
    };
    Ok(answer.body(body).unwrap())
}

use futures::StreamExt;

fn full(bytes: Bytes) -> ProxyBody {
    http_body_util::Full::new(bytes).boxed_unsync()
}

/// Whether a watch line is dropped: a BOOKMARK (every one, or the initial-events-end one).
fn dropped(line: &[u8], strip_all: bool) -> bool {
    let Ok(event) = serde_json::from_slice::<serde_json::Value>(line) else {
        return false;
    };
    if event["type"] != "BOOKMARK" {
        return false;
    }
    strip_all || event["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true"
}

/// Whether a watch event (a JSON line, or a protobuf frame with its length) is one of an object
/// named `prefix...` that the proxy loses.
fn lost(event: &[u8], protobuf: bool, prefix: &str) -> bool {
    use kubectl_informer::cluster::protobuf as pb;
    let (event_type, name) = if protobuf {
        let Ok(e) = pb::watch_event(&event[4..]) else {
            return false;
        };
        let Ok(envelope) = pb::envelope(e.object) else {
            return false;
        };
        let name = pb::meta(envelope.raw)
            .ok()
            .and_then(|m| m.name)
            .map(|r| String::from_utf8_lossy(&envelope.raw[r]).into_owned());
        (e.event_type, name.unwrap_or_default())
    } else {
        let Ok(e) = serde_json::from_slice::<serde_json::Value>(event) else {
            return false;
        };
        (
            e["type"].as_str().unwrap_or_default().to_string(),
            e["object"]["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        )
    };
    matches!(event_type.as_str(), "ADDED" | "MODIFIED" | "DELETED") && name.starts_with(prefix)
}

/// A LIST answer with the first LIST's resourceVersion in place of its own.
fn stale_list(bytes: Bytes, first: &Mutex<Option<String>>) -> Bytes {
    let Ok(mut list) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return bytes;
    };
    let Some(rv) = list["metadata"]["resourceVersion"]
        .as_str()
        .map(str::to_string)
    else {
        return bytes;
    };
    let stale = first.lock().unwrap().get_or_insert(rv).clone();
    list["metadata"]["resourceVersion"] = stale.into();
    Bytes::from(list.to_string())
}
