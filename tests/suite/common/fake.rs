//! A scripted loopback HTTP server for the wire-level cases a real API server will not produce
//! on demand: a 410 inside a watch stream, a reset connection, an event split mid-JSON, a
//! malformed line. Plain HTTP/1.1 on 127.0.0.1; every request is recorded for assertions.
//! Also used by benches/tail_throughput.rs to serve one recorded stream to tail and kubectl.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One step of a streamed (chunked) response.
#[derive(Debug, Clone)]
pub enum Step {
    /// A chunk of bytes, sent as one HTTP chunk.
    Chunk(String),
    /// The same chunk sent this many times: a long line streamed without being held whole.
    Repeat(String, usize),
    Sleep(Duration),
    /// Drop the connection without ending the chunked body: what a cut connection looks like.
    Reset,
}

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    Json(u16, String),
    /// A body with its own content type (aggregated discovery needs its media type).
    Typed(u16, &'static str, String),
    /// A binary body with its content type (the protobuf encoding).
    Bytes(u16, &'static str, Vec<u8>),
    /// A 200 chunked stream; ends cleanly after the last step unless a step is `Reset`.
    Stream(Vec<Step>),
    /// A plain-text body with extra headers (`Name: value` lines), as a proxy or the API
    /// server's flow control answers.
    Text(u16, Vec<String>, String),
}

type Handler = dyn Fn(&str, usize) -> Reply + Send + Sync;

/// The server: `handler(path_and_query, n)` answers the n-th request (0-based) for that path
/// (query excluded from the count key).
pub struct FakeServer {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
    /// The `Authorization` headers received, in order.
    pub authorizations: Arc<Mutex<Vec<String>>>,
}

impl FakeServer {
    pub fn start(handler: impl Fn(&str, usize) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let authorizations = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let recorded = requests.clone();
        let recorded_authorizations = authorizations.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let handler = handler.clone();
                let recorded = recorded.clone();
                let authorizations = recorded_authorizations.clone();
                std::thread::spawn(move || serve(conn, &*handler, &recorded, &authorizations));
            }
        });
        FakeServer {
            url,
            requests,
            authorizations,
        }
    }

    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(
    conn: TcpStream,
    handler: &Handler,
    recorded: &Mutex<Vec<String>>,
    authorizations: &Mutex<Vec<String>>,
) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut conn = conn;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("authorization") {
                    authorizations
                        .lock()
                        .unwrap()
                        .push(value.trim().to_string());
                }
            }
        }
        let target = request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("/")
            .to_string();
        let path = target.split('?').next().unwrap_or("").to_string();
        let is_watch = target.contains("watch=true");
        let n = {
            let mut r = recorded.lock().unwrap();
            let n = r
                .iter()
                .filter(|t| {
                    t.split('?').next() == Some(path.as_str())
                        && t.contains("watch=true") == is_watch
                })
                .count();
            r.push(target.clone());
            n
        };
        let reply = match handler(&target, n) {
            Reply::Json(code, body) => Reply::Bytes(code, "application/json", body.into_bytes()),
            Reply::Typed(code, content_type, body) => {
                Reply::Bytes(code, content_type, body.into_bytes())
            }
            other => other,
        };
        match reply {
            Reply::Json(..) | Reply::Typed(..) => unreachable!(),
            Reply::Bytes(code, content_type, body) => {
                let head = format!(
                    "HTTP/1.1 {code} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                if conn.write_all(head.as_bytes()).is_err() || conn.write_all(&body).is_err() {
                    return;
                }
            }
            Reply::Text(code, headers, body) => {
                let head = format!(
                    "HTTP/1.1 {code} X\r\nContent-Type: text/plain; charset=utf-8\r\n{}Content-Length: {}\r\n\r\n",
                    headers.iter().map(|h| format!("{h}\r\n")).collect::<String>(),
                    body.len()
                );
                if conn.write_all(head.as_bytes()).is_err()
                    || conn.write_all(body.as_bytes()).is_err()
                {
                    return;
                }
            }
            Reply::Stream(steps) => {
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
                if conn.write_all(head.as_bytes()).is_err() {
                    return;
                }
                for step in steps {
                    match step {
                        Step::Chunk(data) => {
                            let chunk = format!("{:x}\r\n{data}\r\n", data.len());
                            if conn.write_all(chunk.as_bytes()).is_err() {
                                return;
                            }
                            let _ = conn.flush();
                        }
                        Step::Repeat(data, times) => {
                            let chunk = format!("{:x}\r\n{data}\r\n", data.len());
                            for _ in 0..times {
                                if conn.write_all(chunk.as_bytes()).is_err() {
                                    return;
                                }
                            }
                            let _ = conn.flush();
                        }
                        Step::Sleep(d) => std::thread::sleep(d),
                        Step::Reset => {
                            let _ = conn.shutdown(std::net::Shutdown::Both);
                            return;
                        }
                    }
                }
                if conn.write_all(b"0\r\n\r\n").is_err() {
                    return;
                }
            }
        }
    }
}

pub const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

/// Aggregated discovery for `/api` serving only `configmaps` in `v1`.
pub fn core_discovery() -> Reply {
    core_discovery_of(&[("configmaps", "ConfigMap", &["cm"])])
}

/// Aggregated discovery for `/api` serving `resources` in `v1`, each as (plural, kind, short
/// names), namespaced, with list, watch and get.
pub fn core_discovery_of(resources: &[(&str, &str, &[&str])]) -> Reply {
    let resources: Vec<serde_json::Value> = resources
        .iter()
        .map(|(plural, kind, short)| {
            serde_json::json!({
                "resource": plural, "responseKind": {"group": "", "version": "v1", "kind": kind},
                "scope": "Namespaced", "singularResource": kind.to_ascii_lowercase(),
                "shortNames": short, "verbs": ["list", "watch", "get"]
            })
        })
        .collect();
    let body = serde_json::json!({
        "kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
        "items": [{"metadata": {"name": ""}, "versions": [{"version": "v1", "resources": resources}]}]
    })
    .to_string();
    Reply::Typed(200, AGGREGATED, body)
}

pub fn empty_discovery() -> Reply {
    let body =
        r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[]}"#;
    Reply::Typed(200, AGGREGATED, body.to_string())
}

/// An object with only metadata, in namespace `ns`, as JSON: a ConfigMap, or a LIST's item of
/// any kind (a LIST gives its items their kind).
pub fn configmap(name: &str, uid: &str, rv: u64) -> serde_json::Value {
    serde_json::json!({"metadata": {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": rv.to_string()}})
}

/// A LIST response of ConfigMaps `items` at `rv`.
pub fn list(rv: u64, items: Vec<serde_json::Value>) -> Reply {
    list_of("ConfigMap", rv, items)
}

/// A LIST response of `items` of core/v1 `kind` at `rv`.
pub fn list_of(kind: &str, rv: u64, items: Vec<serde_json::Value>) -> Reply {
    Reply::Json(
        200,
        serde_json::json!({"kind": format!("{kind}List"), "apiVersion": "v1", "metadata": {"resourceVersion": rv.to_string()}, "items": items})
            .to_string(),
    )
}

/// One watch event line of a ConfigMap.
pub fn event(kind: &str, name: &str, uid: &str, rv: u64) -> Step {
    event_of("ConfigMap", kind, name, uid, rv)
}

/// One watch event line of an object of core/v1 `object_kind` in namespace `ns`.
pub fn event_of(object_kind: &str, kind: &str, name: &str, uid: &str, rv: u64) -> Step {
    let mut object = configmap(name, uid, rv);
    object["kind"] = object_kind.into();
    object["apiVersion"] = "v1".into();
    Step::Chunk(format!(
        "{}\n",
        serde_json::json!({"type": kind, "object": object})
    ))
}

/// An ERROR event carrying 410 Expired, as the apiserver sends it inside a 200 stream.
/// The API server's answer to a LIST whose continue token has expired (history compacted).
pub fn continue_expired() -> Reply {
    Reply::Json(
        410,
        r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"The provided continue parameter is too old to display a consistent list result.","reason":"Expired","code":410}"#.into(),
    )
}

pub fn expired_event(rv: u64) -> Step {
    Step::Chunk(format!(
        "{}\n",
        serde_json::json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "metadata": {},
            "status": "Failure", "message": format!("too old resource version: {rv} ({})", rv + 100),
            "reason": "Expired", "code": 410}})
    ))
}

/// A kubeconfig pointing at the fake server (plain HTTP, a dummy token).
pub fn kubeconfig(dir: &std::path::Path, url: &str) -> std::path::PathBuf {
    let path = dir.join("fake-kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster: {{server: '{url}'}}\nusers:\n- name: u\n  user: {{token: fake-token}}\ncontexts:\n- name: fake\n  context: {{cluster: fake, user: u, namespace: ns}}\ncurrent-context: fake\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}
