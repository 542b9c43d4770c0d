//! What `kubectl informer proxy` (no `--fault`: every request forwarded with the user's
//! credentials) costs a client beside `kubectl proxy`, both started by the bench against the
//! local control plane, and the API server reached directly as the floor. The paths:
//!
//! - direct: HTTPS with HTTP/2 to kube-apiserver (the admin token);
//! - ours h2: HTTPS with HTTP/2 to `kubectl informer proxy -p 0 --write-kubeconfig`, its CA
//!   read from the kubeconfig it wrote;
//! - ours h1: HTTPS with HTTP/1.1 to the same process as ours h2 (ALPN http/1.1), which tells
//!   TLS's share from HTTP/2's (its CPU is counted under ours h2);
//! - ours plain: HTTP/1.1 to `kubectl informer proxy -p 0 --plain-http`;
//! - kubectl proxy: HTTP/1.1 to `kubectl proxy --port=0` (its default filter).
//!
//! Each client sends no `Accept-Encoding` (as curl does): the direct path gets the bytes
//! unencoded; both proxies ask the server for gzip themselves and undo it (kubectl proxy's Go
//! transport, and ours but for watches, which it asks unencoded).
//!
//! 1. Watch delivery: a JSON watch of the ConfigMaps of a scratch namespace (`?watch=1&
//!    resourceVersion=RV`, read as chunked lines) through one proxied path and, at the same
//!    time, directly; then EVENTS ConfigMaps are created directly against the API server, at
//!    RATE a second and then as fast as 32 requests in flight allow. For each event: when its
//!    create was acknowledged and when each watcher received it. Per path: events/s (first to
//!    last event), delivery latency (acknowledged → received, which can be negative: the
//!    server may send the event before the create's answer) p50 / p99, and what the proxy
//!    adds: the same event's arrival through the proxy minus its arrival at the direct watch,
//!    p50 / p99 / max. The proxied paths take turns, their order rotated every round.
//! 2. LIST of OBJECTS ConfigMaps (about 100 bytes of data each, created with 64 requests in
//!    flight): the wall time of one unpaginated LIST and of a paginated one (limit=500 and
//!    `continue`, as client-go's pager does), and of a watch-list (`sendInitialEvents=true`,
//!    to the initial-events-end bookmark): through each path, one at a time, order rotated,
//!    ROUNDS rounds, the median and each round's.
//!
//! Each proxy's CPU seconds (utime + stime from /proc/PID/stat) in each phase and its peak RSS
//! (VmHWM from /proc/PID/status) are reported at the end. The scratch namespaces are deleted at
//! the end; the proxies are killed.
//!
//!     tests/controlplane/controlplane.sh up
//!     cargo bench --bench proxy_cost -- [OBJECTS] [EVENTS] [RATE] [ROUNDS]
//!
//! Defaults: 100000 objects, 2000 events, 200 a second, 3 rounds; a quick run:
//! `cargo bench --bench proxy_cost -- 10000 1000 200 2`. Needs the local control plane and
//! kubectl built by `tests/tools/tools.sh build` (`$KUBECTL_INFORMER_TOOLS/kubectl`).

#[path = "../tests/suite/common/mod.rs"]
mod common;

use bytes::Bytes;
use futures::StreamExt;
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use kube::client::ConfigExt;
use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

type Http = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// One way to the API server.
struct Path {
    label: &'static str,
    /// scheme://host:port
    base: String,
    client: Http,
    /// `Authorization` sent (the direct path only: the proxies add the user's own).
    auth: Option<String>,
    /// The proxy process, when there is one.
    pid: Option<u32>,
}

impl Path {
    fn request(
        &self,
        method: &str,
        path_and_query: &str,
        body: Bytes,
    ) -> hyper::Request<Full<Bytes>> {
        let mut builder = hyper::Request::builder()
            .method(method)
            .uri(format!("{}{path_and_query}", self.base))
            .header("accept", "application/json");
        if !body.is_empty() {
            builder = builder.header("content-type", "application/json");
        }
        if let Some(auth) = &self.auth {
            builder = builder.header("authorization", auth);
        }
        builder.body(Full::new(body)).unwrap()
    }

    async fn send(
        &self,
        method: &str,
        path_and_query: &str,
        body: Bytes,
    ) -> hyper::Response<hyper::body::Incoming> {
        let request = self.request(method, path_and_query, body);
        self.client
            .request(request)
            .await
            .unwrap_or_else(|e| panic!("{} {method} {path_and_query}: {e:?}", self.label))
    }

    /// The whole body of a GET, or a panic naming the status.
    async fn get(&self, path_and_query: &str) -> Bytes {
        let response = self.send("GET", path_and_query, Bytes::new()).await;
        let status = response.status();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert!(
            status.is_success(),
            "{} GET {path_and_query}: {status} {}",
            self.label,
            String::from_utf8_lossy(&body[..body.len().min(300)])
        );
        body
    }
}

/// A client over TLS with `tls` (HTTP/2 only when `h2`, else HTTP/1.1), or plain HTTP/1.1 for
/// http:// URLs; TCP_NODELAY on, as Go's (kubectl's, client-go's) connections have it.
fn client(tls: rustls::ClientConfig, h2: bool) -> Http {
    let mut tcp = HttpConnector::new();
    tcp.enforce_http(false);
    tcp.set_nodelay(true);
    let builder = hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http();
    let connector = match h2 {
        true => builder.enable_http2().wrap_connector(tcp),
        false => builder.enable_http1().wrap_connector(tcp),
    };
    let mut client = Client::builder(TokioExecutor::new());
    client.http2_only(h2);
    client.build(connector)
}

/// The TLS settings of the admin context of the kubeconfig at `path` (its CA, its client cert).
async fn tls_of(path: &std::path::Path) -> rustls::ClientConfig {
    let kubeconfig = kube::config::Kubeconfig::read_from(path).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(
        kubeconfig,
        &kube::config::KubeConfigOptions::default(),
    )
    .await
    .expect("usable kubeconfig");
    config.rustls_client_config().expect("TLS settings")
}

/// A proxy process started by the bench, killed when dropped.
struct Proxy {
    child: Child,
    port: u16,
    /// Kept open: the proxy may write to its stdout later.
    _stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Proxy {
    /// Starts `program args` and reads the port from its first stdout line (`Starting to serve
    /// on [scheme://]127.0.0.1:PORT ...`).
    fn start(program: &std::path::Path, args: &[&str]) -> Self {
        let mut child = Command::new(program)
            .args(args)
            .env("KUBECONFIG", common::kubeconfig_path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", program.display()));
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let port = first
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .unwrap_or_else(|| panic!("{}: no port in {first:?}", program.display()));
        Proxy {
            child,
            port,
            _stdout: stdout,
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CPU seconds (user + system) of process `pid` so far.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    // After the command's ")": state is field 3, utime 14, stime 15.
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<f64>().ok()))
        .sum();
    ticks / clock_ticks()
}

fn clock_ticks() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// A line of /proc/PID/status in MiB (VmHWM, VmRSS).
fn status_mib(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kib| kib.parse::<f64>().ok())
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

/// The name of the object of a JSON watch event line, and whether it is the initial-events-end
/// bookmark: the first `"name":"` of a line is the object's (kube-apiserver writes `kind`,
/// `apiVersion`, then `metadata` with `name` first).
fn event_name(line: &[u8]) -> Option<&[u8]> {
    const NEEDLE: &[u8] = b"\"name\":\"";
    let start = line.windows(NEEDLE.len()).position(|w| w == NEEDLE)? + NEEDLE.len();
    let len = line[start..].iter().position(|&b| b == b'"')?;
    Some(&line[start..start + len])
}

/// Reads a watch stream until `done` says so or `limit` passes, calling `each` with every
/// complete line and the instant its last byte arrived; returns the bytes read.
async fn read_watch(
    response: hyper::Response<hyper::body::Incoming>,
    limit: Duration,
    mut each: impl FnMut(&[u8], Instant) -> bool,
) -> usize {
    let mut body = response.into_body();
    let mut pending: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut bytes = 0;
    let deadline = Instant::now() + limit;
    loop {
        let frame = match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(Ok(frame))) => frame,
            _ => return bytes,
        };
        let now = Instant::now();
        let Ok(data) = frame.into_data() else {
            continue;
        };
        bytes += data.len();
        pending.extend_from_slice(&data);
        let mut consumed = 0;
        while let Some(end) = pending[consumed..].iter().position(|&b| b == b'\n') {
            let line = &pending[consumed..consumed + end];
            consumed += end + 1;
            if each(line, now) {
                return bytes;
            }
        }
        pending.drain(..consumed);
    }
}

/// The resourceVersion of a LIST of the namespace's ConfigMaps.
async fn list_rv(path: &Path, namespace: &str) -> String {
    #[derive(serde::Deserialize)]
    struct List {
        metadata: Meta,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "resourceVersion")]
        resource_version: String,
    }
    let body = path
        .get(&format!(
            "/api/v1/namespaces/{namespace}/configmaps?limit=1"
        ))
        .await;
    let list: List = serde_json::from_slice(&body).unwrap();
    list.metadata.resource_version
}

fn configmap(name: &str) -> Bytes {
    Bytes::from(
        serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name},
            "data": {"value": "x".repeat(90)},
        })
        .to_string(),
    )
}

/// Creates ConfigMap `name`; returns when the server acknowledged it.
async fn create(path: &Path, namespace: &str, name: &str) -> Instant {
    let response = path
        .send(
            "POST",
            &format!("/api/v1/namespaces/{namespace}/configmaps"),
            configmap(name),
        )
        .await;
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    let acked = Instant::now();
    assert!(
        status.as_u16() == 201,
        "create {name}: {status} {}",
        String::from_utf8_lossy(&body)
    );
    acked
}

/// Percentile `p` (0..=1) of sorted `values`, by nearest rank.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

fn median(values: &[f64]) -> f64 {
    let s = sorted(values.to_vec());
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// What one watcher saw of one batch: per event, when it arrived.
type Arrivals = Vec<Option<Instant>>;

/// Watches `namespace` from `rv` through `path` until it received the `events` objects named
/// `{prefix}-{i}`, or 120 s passed; `ready` is sent once `{prefix}-warm` arrived.
async fn watch_batch(
    path: Arc<Path>,
    namespace: String,
    rv: String,
    prefix: String,
    events: usize,
    ready: tokio::sync::oneshot::Sender<()>,
) -> Arrivals {
    let response = path
        .send(
            "GET",
            &format!("/api/v1/namespaces/{namespace}/configmaps?watch=1&resourceVersion={rv}"),
            Bytes::new(),
        )
        .await;
    assert!(
        response.status().is_success(),
        "{} watch: {}",
        path.label,
        response.status()
    );
    let mut arrivals: Arrivals = vec![None; events];
    let mut seen = 0;
    let mut ready = Some(ready);
    let warm = format!("{prefix}-warm");
    let numbered = format!("{prefix}-");
    read_watch(response, Duration::from_secs(120), |line, now| {
        let Some(name) = event_name(line) else {
            return false;
        };
        if name == warm.as_bytes() {
            if let Some(ready) = ready.take() {
                let _ = ready.send(());
            }
        } else if let Some(i) = name
            .strip_prefix(numbered.as_bytes())
            .and_then(|n| std::str::from_utf8(n).ok())
            .and_then(|n| n.parse::<usize>().ok())
        {
            if i < events && arrivals[i].is_none() {
                arrivals[i] = Some(now);
                seen += 1;
            }
        }
        seen == events
    })
    .await;
    arrivals
}

/// How the batch is written: `Some(rate)` a second, or `None`: as fast as 32 in flight allow.
#[derive(Clone, Copy)]
enum Pace {
    Steady(u32),
    Fast,
}

/// One batch: `path`'s watch and the direct one, EVENTS creates at `pace`.
struct Batch {
    acks: Vec<Instant>,
    direct: Arrivals,
    proxied: Arrivals,
}

async fn run_batch(
    direct: &Arc<Path>,
    writer: &Arc<Path>,
    path: &Arc<Path>,
    namespace: &str,
    prefix: &str,
    events: usize,
    pace: Pace,
) -> Batch {
    let rv = list_rv(writer, namespace).await;
    let (direct_ready, direct_warm) = tokio::sync::oneshot::channel();
    let (proxied_ready, proxied_warm) = tokio::sync::oneshot::channel();
    let spawn = |p: &Arc<Path>, ready| {
        tokio::spawn(watch_batch(
            p.clone(),
            namespace.to_string(),
            rv.clone(),
            prefix.to_string(),
            events,
            ready,
        ))
    };
    let direct_watch = spawn(direct, direct_ready);
    let proxied_watch = spawn(path, proxied_ready);
    create(writer, namespace, &format!("{prefix}-warm")).await;
    let warm = async {
        let _ = direct_warm.await;
        let _ = proxied_warm.await;
    };
    tokio::time::timeout(Duration::from_secs(30), warm)
        .await
        .unwrap_or_else(|_| panic!("{}: the warm-up event did not arrive", path.label));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let names: Vec<String> = (0..events).map(|i| format!("{prefix}-{i}")).collect();
    let acks: Vec<Instant> = match pace {
        Pace::Steady(rate) => {
            let interval = Duration::from_secs_f64(1.0 / rate as f64);
            let tasks: Vec<_> = names
                .into_iter()
                .enumerate()
                .map(|(i, name)| {
                    let (writer, namespace) = (writer.clone(), namespace.to_string());
                    tokio::spawn(async move {
                        tokio::time::sleep_until(started + interval * i as u32).await;
                        create(&writer, &namespace, &name).await
                    })
                })
                .collect();
            let mut acks = Vec::with_capacity(events);
            for task in tasks {
                acks.push(task.await.unwrap());
            }
            acks
        }
        Pace::Fast => {
            futures::stream::iter(names)
                .map(|name| {
                    let (writer, namespace) = (writer.clone(), namespace.to_string());
                    async move { create(&writer, &namespace, &name).await }
                })
                .buffered(32)
                .collect()
                .await
        }
    };
    Batch {
        acks,
        direct: direct_watch.await.unwrap(),
        proxied: proxied_watch.await.unwrap(),
    }
}

/// Figures of one watcher over the batches of one path and pace.
#[derive(Default)]
struct Delivery {
    /// Acknowledged → received, ms.
    latency: Vec<f64>,
    /// Received through the proxy − received directly, ms (the same event).
    added: Vec<f64>,
    /// Events per second of each batch (first to last arrival).
    rates: Vec<f64>,
    missing: usize,
}

impl Delivery {
    fn add(&mut self, batch: &Batch, arrivals: &Arrivals, paired: bool) {
        let mut first: Option<Instant> = None;
        let mut last: Option<Instant> = None;
        for (i, arrival) in arrivals.iter().enumerate() {
            let Some(at) = arrival else {
                self.missing += 1;
                continue;
            };
            first = Some(first.map_or(*at, |f| f.min(*at)));
            last = Some(last.map_or(*at, |l| l.max(*at)));
            self.latency.push(signed_ms(*at, batch.acks[i]));
            if paired {
                if let Some(direct) = batch.direct[i] {
                    self.added.push(signed_ms(*at, direct));
                }
            }
        }
        if let (Some(first), Some(last)) = (first, last) {
            let seconds = (last - first).as_secs_f64();
            self.rates
                .push((arrivals.len() - 1) as f64 / seconds.max(1e-9));
        }
    }
}

/// `a - b` in milliseconds, negative when `a` came first.
fn signed_ms(a: Instant, b: Instant) -> f64 {
    if a >= b {
        (a - b).as_secs_f64() * 1e3
    } else {
        -((b - a).as_secs_f64() * 1e3)
    }
}

/// CPU seconds of each proxy in one phase (indexed like `paths`).
struct Phase {
    name: String,
    cpu: Vec<f64>,
}

fn cpu_now(paths: &[Arc<Path>]) -> Vec<f64> {
    paths
        .iter()
        .map(|p| p.pid.map_or(0.0, cpu_seconds))
        .collect()
}

fn phase_since(name: &str, paths: &[Arc<Path>], before: &[f64]) -> Phase {
    let cpu = cpu_now(paths)
        .iter()
        .zip(before)
        .map(|(after, before)| after - before)
        .collect();
    Phase {
        name: name.to_string(),
        cpu,
    }
}

/// The watch batches: every proxied path with the direct one, at `pace`, `rounds` times each.
async fn watch_phase(
    paths: &[Arc<Path>],
    writer: &Arc<Path>,
    namespace: &str,
    events: usize,
    rounds: usize,
    pace: Pace,
    tag: &str,
) {
    let direct = &paths[0];
    let proxied = &paths[1..];
    let mut delivery: Vec<Delivery> = (0..paths.len()).map(|_| Delivery::default()).collect();
    for round in 0..rounds {
        for k in 0..proxied.len() {
            let which = (k + round) % proxied.len();
            let which = if round % 2 == 1 {
                proxied.len() - 1 - which
            } else {
                which
            };
            let path = &proxied[which];
            let prefix = format!("{tag}{round}-{which}");
            let batch = run_batch(direct, writer, path, namespace, &prefix, events, pace).await;
            delivery[0].add(&batch, &batch.direct, false);
            delivery[which + 1].add(&batch, &batch.proxied, true);
            let added = sorted(delivery[which + 1].added.clone());
            eprintln!(
                "  {tag} round {} {}: added p99 so far {:.3} ms",
                round + 1,
                path.label,
                percentile(&added, 0.99)
            );
        }
    }
    let pace_text = match pace {
        Pace::Steady(rate) => format!("{rate} creates/s"),
        Pace::Fast => "as fast as 32 creates in flight allow".to_string(),
    };
    println!(
        "\nWatch delivery, {events} events a batch at {pace_text}, {rounds} batches a proxied path \
         (the direct watch runs beside every batch):\n"
    );
    println!(
        "| path | events/s (median of batches) | ack → received p50 / p99 ms | \
         added vs direct (same event) p50 / p99 / max ms | p99 minus direct's p99 ms | missing |"
    );
    println!("|---|---|---|---|---|---|");
    let direct_p99 = percentile(&sorted(delivery[0].latency.clone()), 0.99);
    for (path, d) in paths.iter().zip(&delivery) {
        let latency = sorted(d.latency.clone());
        let added = sorted(d.added.clone());
        let p99 = percentile(&latency, 0.99);
        let added_text = match added.is_empty() {
            true => "-".to_string(),
            false => format!(
                "{:.3} / {:.3} / {:.3}",
                percentile(&added, 0.5),
                percentile(&added, 0.99),
                added.last().unwrap()
            ),
        };
        let minus = match d.added.is_empty() {
            true => "-".to_string(),
            false => format!("{:+.3}", p99 - direct_p99),
        };
        println!(
            "| {} | {:.0} | {:.3} / {:.3} | {added_text} | {minus} | {} |",
            path.label,
            median(&d.rates),
            percentile(&latency, 0.5),
            p99,
            d.missing
        );
    }
}

/// Creates `count` ConfigMaps `o-{i}` with 64 requests in flight.
async fn populate(writer: &Arc<Path>, namespace: &str, count: usize) {
    let started = std::time::Instant::now();
    futures::stream::iter(0..count)
        .map(|i| {
            let (writer, namespace) = (writer.clone(), namespace.to_string());
            async move {
                create(&writer, &namespace, &format!("o-{i}")).await;
            }
        })
        .buffer_unordered(64)
        .collect::<Vec<()>>()
        .await;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "created {count} ConfigMaps in {seconds:.1} s ({:.0}/s)",
        count as f64 / seconds
    );
}

/// One unpaginated LIST: seconds and bytes.
async fn list_whole(path: &Path, namespace: &str) -> (f64, usize) {
    let started = Instant::now();
    let body = path
        .get(&format!("/api/v1/namespaces/{namespace}/configmaps"))
        .await;
    (started.elapsed().as_secs_f64(), body.len())
}

/// A LIST by pages of 500, as client-go's pager asks: seconds and items.
async fn list_paged(path: &Path, namespace: &str) -> (f64, usize) {
    #[derive(serde::Deserialize)]
    struct Page {
        metadata: PageMeta,
        items: Vec<serde::de::IgnoredAny>,
    }
    #[derive(serde::Deserialize)]
    struct PageMeta {
        #[serde(rename = "continue", default)]
        next: Option<String>,
    }
    let started = Instant::now();
    let mut items = 0;
    let mut next: Option<String> = None;
    loop {
        let query = match &next {
            None => "limit=500".to_string(),
            Some(token) => format!(
                "limit=500&continue={}",
                form_urlencoded::byte_serialize(token.as_bytes()).collect::<String>()
            ),
        };
        let body = path
            .get(&format!(
                "/api/v1/namespaces/{namespace}/configmaps?{query}"
            ))
            .await;
        let page: Page = serde_json::from_slice(&body).unwrap();
        items += page.items.len();
        match page.metadata.next.filter(|t| !t.is_empty()) {
            Some(token) => next = Some(token),
            None => break,
        }
    }
    (started.elapsed().as_secs_f64(), items)
}

/// A watch-list (`sendInitialEvents=true`) to its initial-events-end bookmark: seconds and
/// ADDED events, or None when the server refused it.
async fn watch_list(path: &Path, namespace: &str) -> Option<(f64, usize)> {
    let started = Instant::now();
    let response = path
        .send(
            "GET",
            &format!(
                "/api/v1/namespaces/{namespace}/configmaps?watch=1&sendInitialEvents=true\
                 &resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
            ),
            Bytes::new(),
        )
        .await;
    if !response.status().is_success() {
        eprintln!("{} watch-list: {}", path.label, response.status());
        return None;
    }
    let mut added = 0;
    let mut ended = false;
    read_watch(response, Duration::from_secs(300), |line, _| {
        if line.starts_with(b"{\"type\":\"ADDED\"") {
            added += 1;
        } else if line.starts_with(b"{\"type\":\"BOOKMARK\"")
            && line.windows(18).any(|w| w == b"initial-events-end")
        {
            ended = true;
        }
        ended
    })
    .await;
    ended.then(|| (started.elapsed().as_secs_f64(), added))
}

async fn list_phase(paths: &[Arc<Path>], namespace: &str, objects: usize, rounds: usize) {
    let n = paths.len();
    let mut whole: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut paged: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut streamed: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut sizes = vec![0; n];
    for round in 0..rounds {
        for k in 0..n {
            let i = match round % 2 {
                0 => (k + round) % n,
                _ => n - 1 - (k + round) % n,
            };
            let path = &paths[i];
            let (seconds, bytes) = list_whole(path, namespace).await;
            whole[i].push(seconds);
            sizes[i] = bytes;
            let (seconds, items) = list_paged(path, namespace).await;
            assert!(
                items >= objects,
                "{}: paginated LIST of {items}",
                path.label
            );
            paged[i].push(seconds);
            if let Some((seconds, added)) = watch_list(path, namespace).await {
                assert!(added >= objects, "{}: watch-list of {added}", path.label);
                streamed[i].push(seconds);
            }
            eprintln!(
                "  list round {} {}: whole {:.3} s, paged {:.3} s",
                round + 1,
                path.label,
                whole[i].last().unwrap(),
                paged[i].last().unwrap()
            );
        }
    }
    println!(
        "\nLIST of {objects} ConfigMaps, {rounds} rounds, order rotated; \
         seconds, median (each round):\n"
    );
    println!(
        "| path | unpaginated LIST | MB received | paginated, limit=500 | \
         watch-list to initial-events-end |"
    );
    println!("|---|---|---|---|---|");
    let cell = |v: &[f64]| match v.is_empty() {
        true => "refused".to_string(),
        false => format!(
            "{:.3} ({})",
            median(v),
            v.iter()
                .map(|s| format!("{s:.3}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    for i in 0..n {
        println!(
            "| {} | {} | {:.1} | {} | {} |",
            paths[i].label,
            cell(&whole[i]),
            sizes[i] as f64 / 1e6,
            cell(&paged[i]),
            cell(&streamed[i])
        );
    }
}

async fn namespace(writer: &Path, prefix: &str) -> String {
    let name = common::unique(prefix);
    let body =
        serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    let response = writer
        .send("POST", "/api/v1/namespaces", Bytes::from(body.to_string()))
        .await;
    assert_eq!(response.status().as_u16(), 201, "create namespace {name}");
    name
}

async fn delete_namespace(writer: &Path, name: &str) {
    let response = writer
        .send(
            "DELETE",
            &format!("/api/v1/namespaces/{name}"),
            Bytes::new(),
        )
        .await;
    eprintln!("deleted namespace {name}: {}", response.status());
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let numbers: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .filter_map(|a| a.parse().ok())
        .collect();
    let objects = numbers.first().copied().unwrap_or(100_000);
    let events = numbers.get(1).copied().unwrap_or(2_000);
    let rate = numbers.get(2).copied().unwrap_or(200) as u32;
    let rounds = numbers.get(3).copied().unwrap_or(3);

    let _ = rustls::crypto::ring::default_provider().install_default();
    let admin = common::kubeconfig_path();
    let server = {
        let kubeconfig = kube::config::Kubeconfig::read_from(&admin).unwrap_or_else(|e| {
            panic!(
                "no control plane ({e}): start it with `{}`",
                common::START_COMMAND
            )
        });
        kubeconfig.clusters[0]
            .cluster
            .as_ref()
            .and_then(|c| c.server.clone())
            .unwrap()
    };
    let bearer = Some(format!("Bearer {}", common::token("admin")));
    let admin_tls = tls_of(&admin).await;

    let dir = tempfile::tempdir().unwrap();
    let informer = std::path::Path::new(env!("CARGO_BIN_EXE_kubectl-informer"));
    let ours_kubeconfig = dir.path().join("ours.kubeconfig");
    let ours_h2 = Proxy::start(
        informer,
        &[
            "proxy",
            "-p",
            "0",
            "--write-kubeconfig",
            ours_kubeconfig.to_str().unwrap(),
        ],
    );
    let ours_plain = Proxy::start(informer, &["proxy", "-p", "0", "--plain-http"]);
    let kubectl = Proxy::start(&common::tool("kubectl"), &["proxy", "--port=0"]);
    let ours_tls = tls_of(&ours_kubeconfig).await;

    let direct = Arc::new(Path {
        label: "direct (HTTPS, HTTP/2)",
        base: server.clone(),
        client: client(admin_tls.clone(), true),
        auth: bearer.clone(),
        pid: None,
    });
    // The writes go on a connection of their own.
    let writer = Arc::new(Path {
        label: "writer",
        base: server.clone(),
        client: client(admin_tls.clone(), true),
        auth: bearer,
        pid: None,
    });
    let paths: Vec<Arc<Path>> = vec![
        direct.clone(),
        Arc::new(Path {
            label: "ours (HTTPS, HTTP/2)",
            base: format!("https://127.0.0.1:{}", ours_h2.port),
            client: client(ours_tls, true),
            auth: None,
            pid: Some(ours_h2.child.id()),
        }),
        Arc::new(Path {
            label: "ours (HTTPS, HTTP/1.1)",
            base: format!("https://127.0.0.1:{}", ours_h2.port),
            client: client(tls_of(&ours_kubeconfig).await, false),
            auth: None,
            pid: None,
        }),
        Arc::new(Path {
            label: "ours --plain-http (HTTP/1.1)",
            base: format!("http://127.0.0.1:{}", ours_plain.port),
            client: client(admin_tls.clone(), false),
            auth: None,
            pid: Some(ours_plain.child.id()),
        }),
        Arc::new(Path {
            label: "kubectl proxy (HTTP/1.1)",
            base: format!("http://127.0.0.1:{}", kubectl.port),
            client: client(admin_tls, false),
            auth: None,
            pid: Some(kubectl.child.id()),
        }),
    ];
    for path in &paths {
        let version = path.get("/version").await;
        let version: serde_json::Value = serde_json::from_slice(&version).unwrap();
        eprintln!(
            "{}: {} answers {}",
            path.label, path.base, version["gitVersion"]
        );
    }
    println!(
        "kubectl informer proxy vs kubectl proxy ({}), server {server}: {objects} objects, \
         {events} events a batch, {rate}/s, {rounds} rounds",
        String::from_utf8_lossy(
            &Command::new(common::tool("kubectl"))
                .args(["version", "--client", "-o", "json"])
                .output()
                .map(|o| o.stdout)
                .unwrap_or_default()
        )
        .split("\"gitVersion\": \"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap_or("?")
    );

    let mut phases = Vec::new();
    let watch_ns = namespace(&writer, "proxy-cost-watch").await;
    let before = cpu_now(&paths);
    watch_phase(
        &paths,
        &writer,
        &watch_ns,
        events,
        rounds,
        Pace::Steady(rate),
        "s",
    )
    .await;
    phases.push(phase_since(&format!("watch, {rate}/s"), &paths, &before));
    let before = cpu_now(&paths);
    watch_phase(&paths, &writer, &watch_ns, events, rounds, Pace::Fast, "f").await;
    phases.push(phase_since("watch, fast", &paths, &before));
    delete_namespace(&writer, &watch_ns).await;

    let list_ns = namespace(&writer, "proxy-cost-list").await;
    populate(&writer, &list_ns, objects).await;
    let before = cpu_now(&paths);
    list_phase(&paths, &list_ns, objects, rounds).await;
    phases.push(phase_since("LIST", &paths, &before));
    delete_namespace(&writer, &list_ns).await;

    println!("\nEach proxy's CPU seconds (user + system) by phase, and its memory at the end:\n");
    let header: Vec<String> = phases.iter().map(|p| p.name.clone()).collect();
    println!(
        "| proxy | {} | whole run | peak RSS (VmHWM) MiB | RSS at the end MiB |",
        header.join(" | ")
    );
    println!("|---|{}---|---|---|", "---|".repeat(phases.len()));
    for (i, path) in paths.iter().enumerate() {
        let Some(pid) = path.pid else {
            continue;
        };
        let cells: Vec<String> = phases.iter().map(|p| format!("{:.2}", p.cpu[i])).collect();
        println!(
            "| {} | {} | {:.2} | {:.1} | {:.1} |",
            path.label,
            cells.join(" | "),
            cpu_seconds(pid),
            status_mib(pid, "VmHWM:"),
            status_mib(pid, "VmRSS:")
        );
    }
    drop((ours_h2, ours_plain, kubectl));
}
