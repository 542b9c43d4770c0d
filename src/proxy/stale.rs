//! `stale`: requests served as an API server whose watch cache lags `by` behind would serve them.
//!
//! The proxy reads the cluster's newest resourceVersion every [`SAMPLE_EVERY`] (a one-item LIST
//! of namespaces, answered at etcd's current revision), and keeps when it read which: a
//! [`Timeline`]. A resourceVersion is etcd's revision, one counter for every resource, so the
//! one read `by` ago names the whole cluster's state then. A request in scope is then served
//! from that revision ([`rewrite`]):
//! - a LIST's first page (resourceVersion unset, "0" or not older than N): exactly at it
//!   (`resourceVersionMatch=Exact`), which kube-apiserver answers from etcd's history;
//! - a watch-list, or a watch from "0": its initial events are that LIST's objects, then (for a
//!   watch-list) the initial-events-end bookmark, then the watch from that revision;
//! - a watch resumed from a newer resourceVersion, or from none: from that revision, so that
//!   what happened since comes again.
//!
//! etcd forgets revisions older than its last compaction (kube-apiserver compacts every 5
//! minutes by default), after which the server answers an exact LIST 410 Expired: that is the
//! limit of `by`. The proxy cannot know a revision from before its start: while it has run
//! less than `by`, it serves the one it read at its start, and says so.

use super::engine::Engine;
use super::fault::Verb;
use super::request::ApiRequest;
use super::serve::{forward, BoxError, ProxyBody};
use crate::cluster::resource_version::compare;
use crate::cluster::{Cluster, ClusterError, Encoding, Operation};
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use std::cmp::Ordering;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// How often the cluster's newest resourceVersion is read.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(1);

/// What a stale request is served instead: the state `then`, read `age` ago, where the newest
/// the proxy knows is `now`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lag {
    pub then: String,
    pub now: String,
    pub age: Duration,
    /// Whether `then` is only the oldest the proxy knows (it has run less than `by`).
    pub oldest_known: bool,
}

/// The cluster's resourceVersion over time, as read every [`SAMPLE_EVERY`].
pub struct Timeline {
    samples: Mutex<VecDeque<(Instant, String)>>,
    /// How far back a sample is kept (the longest `by`, and a sample more).
    keep: Duration,
}

impl Timeline {
    pub fn new(longest: Duration) -> Self {
        Timeline {
            samples: Mutex::new(VecDeque::new()),
            keep: longest + 2 * SAMPLE_EVERY,
        }
    }

    fn samples(&self) -> std::sync::MutexGuard<'_, VecDeque<(Instant, String)>> {
        self.samples.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cluster had `rv` at `at`. Samples older than needed go, but never the last that is.
    pub fn record(&self, at: Instant, rv: String) {
        let mut samples = self.samples();
        samples.push_back((at, rv));
        while samples.len() > 1 && samples[1].0 + self.keep <= at {
            samples.pop_front();
        }
    }

    /// The server no longer has `rv`: the samples up to it go (the oldest kept is then newer).
    pub fn compacted(&self, rv: &str) {
        let mut samples = self.samples();
        let gone = |sample: &str| compare(sample, rv).ok() != Some(Ordering::Greater);
        while samples.len() > 1 && samples.front().is_some_and(|(_, s)| gone(s)) {
            samples.pop_front();
        }
    }

    /// When an event at `rv` is sent under a lag of `by`: `by` after the first read that had
    /// reached it; at once for one the oldest read kept had reached (it happened longer ago than
    /// that); `by` from now for one newer than every read.
    pub fn due(&self, rv: &str, by: Duration, now: Instant) -> Instant {
        let samples = self.samples();
        let reached = |sample: &str| compare(sample, rv).ok() != Some(Ordering::Less);
        match samples.iter().position(|(_, s)| reached(s)) {
            Some(0) => now,
            Some(i) => (samples[i].0 + by).max(now),
            None => now + by,
        }
    }

    /// The state `by` before `now`: the newest sample read at or before then, else the oldest.
    pub fn lag(&self, now: Instant, by: Duration) -> Option<Lag> {
        let samples = self.samples();
        let newest = samples.back()?;
        let then = now
            .checked_sub(by)
            .and_then(|cutoff| samples.iter().rev().find(|(at, _)| *at <= cutoff));
        let oldest_known = then.is_none();
        let then = then.or(samples.front())?;
        Some(Lag {
            then: then.1.clone(),
            now: newest.1.clone(),
            age: now.saturating_duration_since(then.0),
            oldest_known,
        })
    }
}

/// How a request in scope is served stale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rewrite {
    /// A LIST's first page, exactly at `rv`.
    List { rv: String },
    /// A watch from `rv` instead of the one it named (`from`, or none).
    Resume { rv: String, from: Option<String> },
    /// Initial events (a watch-list's, with its bookmark, or a watch from "0"'s) of the state
    /// at `rv`, then the watch from there.
    Initial { rv: String, bookmark: bool },
    /// A watch from a resourceVersion the lagging state has: as asked (each event then goes
    /// out `by` after it happened, as every watch served stale).
    Watch,
}

/// How `api` is served `lag` behind; `None` when it asks for what a lagging cache serves as
/// asked (an exact resourceVersion, a later page, what is not a LIST or a watch).
pub fn rewrite(api: &ApiRequest, lag: &Lag) -> Option<Rewrite> {
    let older = |a: &str, b: &str| compare(a, b).ok() == Some(Ordering::Less);
    let asked = api.resource_version.as_deref();
    // "Not older than N": the stalest state it allows.
    let floor = match asked {
        Some(rv) if rv != "0" && older(&lag.then, rv) => rv.to_string(),
        _ => lag.then.clone(),
    };
    let exact = api.resource_version_match.as_deref() == Some("Exact");
    match (api.verb, asked) {
        (Verb::List, _) if !api.continued && !exact => Some(Rewrite::List { rv: floor }),
        (Verb::Watch, _) if api.send_initial_events => Some(Rewrite::Initial {
            rv: floor,
            bookmark: true,
        }),
        (Verb::Watch, Some("0")) => Some(Rewrite::Initial {
            rv: lag.then.clone(),
            bookmark: false,
        }),
        (Verb::Watch, None) => Some(Rewrite::Resume {
            rv: lag.then.clone(),
            from: None,
        }),
        (Verb::Watch, Some(rv)) if older(&lag.then, rv) => Some(Rewrite::Resume {
            rv: lag.then.clone(),
            from: Some(rv.to_string()),
        }),
        (Verb::Watch, _) => Some(Rewrite::Watch),
        _ => None,
    }
}

/// The query `query` with `drop`'s parameters out and `set`'s added.
fn query(query: Option<&str>, drop: &[&str], set: &[(&str, &str)]) -> String {
    let mut out = form_urlencoded::Serializer::new(String::new());
    for (key, value) in form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if !drop.contains(&key.as_ref()) && !set.iter().any(|(k, _)| *k == key) {
            out.append_pair(&key, &value);
        }
    }
    for (key, value) in set {
        out.append_pair(key, value);
    }
    out.finish()
}

/// The request of `parts` again, with `query` (none: no query), and `body`.
fn again(
    parts: &http::request::Parts,
    path: &str,
    query: Option<&str>,
    body: &Bytes,
) -> hyper::Request<http_body_util::Full<Bytes>> {
    let uri = match query {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    let mut request = hyper::Request::new(http_body_util::Full::new(body.clone()));
    *request.method_mut() = parts.method.clone();
    *request.headers_mut() = parts.headers.clone();
    *request.version_mut() = parts.version;
    if let Ok(uri) = uri.parse() {
        *request.uri_mut() = uri;
    }
    request
}

/// `request` with its query replaced.
fn with_query(request: &mut hyper::Request<Incoming>, path: &str, query: &str) {
    if let Ok(uri) = format!("{path}?{query}").parse() {
        *request.uri_mut() = uri;
    }
}

/// How a notice names the state served.
fn served(lag: &Lag, rv: &str) -> String {
    let age = crate::format::human(lag.age);
    match (rv == lag.then, lag.oldest_known) {
        (true, false) => format!("rv {rv} (the state of {age} ago)"),
        (true, true) => {
            format!("rv {rv} (the state at the proxy's start, {age} ago: it knows none older)")
        }
        (false, _) => format!("rv {rv} (the oldest the request allows)"),
    }
}

/// Forwards `request` served stale as `rewrite` says, saying so as `fault`'s notice.
pub async fn forward_stale(
    cluster: &Cluster,
    engine: &Engine,
    api: &ApiRequest,
    (fault, rewrite, lag): (usize, &Rewrite, &Lag),
    mut request: hyper::Request<Incoming>,
) -> hyper::Response<ProxyBody> {
    let path = request.uri().path().to_string();
    let original = request.uri().query().map(str::to_string);
    match rewrite {
        Rewrite::List { rv } => {
            let drop = ["resourceVersion", "resourceVersionMatch"];
            let set = [
                ("resourceVersion", rv.as_str()),
                ("resourceVersionMatch", "Exact"),
            ];
            let (parts, body) = request.into_parts();
            // A LIST carries no body worth keeping apart; it is read so that the request can be
            // sent twice.
            let body = body
                .collect()
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            let stale = query(original.as_deref(), &drop, &set);
            let detail = format!(
                "served at {} instead of the newest read, rv {}",
                served(lag, rv),
                lag.now
            );
            engine.notice(fault, Some(api), detail, true);
            let response = forward(cluster, again(&parts, &path, Some(&stale), &body), false).await;
            if response.status() != http::StatusCode::GONE {
                return response;
            }
            // The client asked for no old state: a lagging watch cache serves it the state it
            // has, never 410. The revision is gone from etcd's history (compacted): the client
            // is served as it asked, and later requests newer revisions.
            let detail = format!("rv {rv} is no longer in the server's history (its answer: 410 Expired, not passed on): the lag is longer than the server keeps revisions (etcd's compaction, every 5 minutes by default); served as asked, and newer revisions from now on");
            engine.notice(fault, Some(api), detail, false);
            engine.compacted(rv);
            forward(
                cluster,
                again(&parts, &path, original.as_deref(), &body),
                false,
            )
            .await
        }
        Rewrite::Resume { rv, from } => {
            let set = [("resourceVersion", rv.as_str())];
            with_query(&mut request, &path, &query(original.as_deref(), &[], &set));
            let instead = from
                .as_ref()
                .map_or("the newest".to_string(), |f| format!("rv {f}"));
            let detail = format!("watched from {} instead of {instead}", served(lag, rv));
            engine.notice(fault, Some(api), detail, true);
            forward(cluster, request, true).await
        }
        Rewrite::Initial { rv, bookmark } => {
            initial(cluster, engine, api, (fault, rv, *bookmark, lag), request).await
        }
        Rewrite::Watch => forward(cluster, request, true).await,
    }
}

/// A watch-list (or a watch from "0") whose initial events are the state at `rv`: read with an
/// exact LIST, written as ADDED events in JSON (which every client that accepts JSON decodes,
/// whatever it asked for first), then the bookmark, then the watch from `rv`. A client that
/// accepts no JSON, or a state that cannot be read, gets the watch as it asked, and a notice.
async fn initial(
    cluster: &Cluster,
    engine: &Engine,
    api: &ApiRequest,
    (fault, rv, bookmark, lag): (usize, &str, bool, &Lag),
    mut request: hyper::Request<Incoming>,
) -> hyper::Response<ProxyBody> {
    let accept = request
        .headers()
        .get(http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    if !Encoding::Json.accepted_by(&accept) {
        let detail = format!("not served stale: the client accepts no JSON (Accept: {accept}), the only encoding the proxy writes initial events in");
        engine.notice(fault, Some(api), detail, false);
        return forward(cluster, request, true).await;
    }
    let path = api.key.split('?').next().unwrap_or_default().to_string();
    let original = request.uri().query().map(str::to_string);
    let selectors: Vec<(String, String)> =
        form_urlencoded::parse(original.as_deref().unwrap_or("").as_bytes())
            .filter(|(k, _)| k == "labelSelector" || k == "fieldSelector")
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
    let list = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&selectors)
        .append_pair("resourceVersion", rv)
        .append_pair("resourceVersionMatch", "Exact")
        .finish();
    let op = Operation::new("list", api.describe(), None);
    let events = match cluster
        .get(&format!("{path}?{list}"), Encoding::Json.accept(), &op)
        .await
        .map_err(|e| e.to_string())
        .and_then(|body| added_events(&body, rv, bookmark))
    {
        Ok(events) => events,
        Err(e) => {
            let detail = format!("not served stale: the state at rv {rv} could not be read ({e}); the watch goes to the server as asked");
            engine.notice(fault, Some(api), detail, false);
            return forward(cluster, request, true).await;
        }
    };
    let drop = [
        "sendInitialEvents",
        "resourceVersionMatch",
        "resourceVersion",
    ];
    let set = [("resourceVersion", rv)];
    let watch_path = request.uri().path().to_string();
    with_query(
        &mut request,
        &watch_path,
        &query(original.as_deref(), &drop, &set),
    );
    request.headers_mut().insert(
        http::header::ACCEPT,
        http::HeaderValue::from_static(Encoding::Json.accept()),
    );
    let response = forward(cluster, request, true).await;
    if response.status() != http::StatusCode::OK {
        return response;
    }
    let detail = format!(
        "initial events: the {} of {} instead of the newest read, rv {}; then the watch from rv {rv}",
        crate::format::count(events.count as u64, "object"),
        served(lag, rv),
        lag.now
    );
    engine.notice(fault, Some(api), detail, true);
    let (mut parts, body) = response.into_parts();
    parts.headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(Encoding::Json.accept()),
    );
    let body = Prefixed {
        prefix: Some(events.bytes),
        inner: body,
    };
    hyper::Response::from_parts(parts, body.boxed_unsync())
}

/// A LIST's objects as a watch's ADDED events, one JSON line each, and the initial-events-end
/// bookmark at `rv` when `bookmark`.
struct Events {
    bytes: Bytes,
    count: usize,
}

fn added_events(list: &[u8], rv: &str, bookmark: bool) -> Result<Events, String> {
    let list: serde_json::Value =
        serde_json::from_slice(list).map_err(|e| format!("the LIST is not JSON: {e}"))?;
    let kind = list["kind"]
        .as_str()
        .and_then(|k| k.strip_suffix("List"))
        .ok_or("the LIST names no kind")?
        .to_string();
    let api_version = list["apiVersion"].as_str().unwrap_or("v1").to_string();
    let items = list["items"].as_array().cloned().unwrap_or_default();
    let mut bytes = Vec::new();
    let mut line = |event: serde_json::Value| {
        bytes.extend_from_slice(event.to_string().as_bytes());
        bytes.push(b'\n');
    };
    let count = items.len();
    for mut item in items {
        if let Some(object) = item.as_object_mut() {
            object.entry("kind").or_insert(kind.clone().into());
            object
                .entry("apiVersion")
                .or_insert(api_version.clone().into());
        }
        line(serde_json::json!({"type": "ADDED", "object": item}));
    }
    if bookmark {
        line(serde_json::json!({"type": "BOOKMARK", "object": {
            "kind": kind, "apiVersion": api_version,
            "metadata": {"resourceVersion": rv, "annotations": {"k8s.io/initial-events-end": "true"}},
        }}));
    }
    Ok(Events {
        bytes: Bytes::from(bytes),
        count,
    })
}

/// A body that sends `prefix` first.
struct Prefixed {
    prefix: Option<Bytes>,
    inner: ProxyBody,
}

impl http_body::Body for Prefixed {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        match this.prefix.take() {
            Some(prefix) => std::task::Poll::Ready(Some(Ok(http_body::Frame::data(prefix)))),
            None => std::pin::Pin::new(&mut this.inner).poll_frame(cx),
        }
    }
}

/// The cluster's newest resourceVersion: a one-item LIST's, which kube-apiserver answers at
/// etcd's current revision.
pub async fn newest(cluster: &Cluster) -> Result<String, ClusterError> {
    let op = Operation::new("list", "namespaces", None);
    let body = cluster
        .get("/api/v1/namespaces?limit=1", Encoding::Json.accept(), &op)
        .await?;
    let list: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    list["metadata"]["resourceVersion"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| ClusterError::Transport {
            what: "the LIST of namespaces".into(),
            reason: "the LIST's answer has no metadata.resourceVersion".into(),
        })
}

/// Reads the newest resourceVersion into `timeline` every [`SAMPLE_EVERY`] until the process
/// ends; a read that fails says so once (as `fault`'s notice) until one succeeds again.
pub fn sample(cluster: Cluster, engine: Arc<Engine>, timeline: Arc<Timeline>, fault: usize) {
    tokio::spawn(async move {
        let mut failing = false;
        let mut tick = tokio::time::interval(SAMPLE_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            match newest(&cluster).await {
                Ok(rv) => {
                    timeline.record(Instant::now(), rv);
                    failing = false;
                }
                Err(e) if !failing => {
                    failing = true;
                    let detail = format!("the cluster's newest resourceVersion could not be read ({e}): stale requests are served from the last one read");
                    engine.notice(fault, None, detail, false);
                }
                Err(_) => {}
            }
        }
    });
}

#[cfg(test)]
#[path = "stale/tests.rs"]
mod tests;
