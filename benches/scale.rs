//! Scale: N ConfigMaps of about 1 KB in one namespace of the local control plane, and P Pods of
//! about 4 KB in another (created on the first run, reused after). Measures, each as its own
//! process:
//! - `kubectl-informer diff` (wall time, the LIST-plus-compare time, peak RSS), in protobuf and
//!   in JSON, against `kubectl get -o json` of the same ConfigMaps;
//! - the initial sync and the resident memory of a synced informer cache, for each kind: ours
//!   (the library's SharedInformer) in protobuf and in JSON, against a plain client-go shared
//!   informer in both (benches/peer/client-go-informer, built with `go build`) and a kube-rs
//!   reflector Store (benches/peer/kube-rs-reflector, built with `cargo build --release`);
//! - the peak resident memory of ours during a relist of the whole cache, against its steady RSS.
//!
//!   tests/controlplane/controlplane.sh up
//!   cargo bench --bench scale -- [OBJECTS] [--pods P] [--widgets W] [--chunk N]
//!   # defaults: 100000 objects, as many Pods and Widgets, pages of --chunk-size's default
//!
//! Needs GNU time at /usr/bin/time, kubectl and Go on PATH. Figures go to BENCHMARKS.md.
//!
//! Compression (`--compression loopback,MBIT,...`): the initial sync of our child informer with
//! responses gzipped and not, in protobuf and JSON, by watch-list and by LIST, from the server
//! directly (`loopback`) and through a link paced at MBIT Mbit/s (scale/link.rs).
//!
//! JSON (`--json [ROUNDS]`, default 5): the initial sync of each kind in JSON, ours against
//! client-go and against the floor (the JSON read and not decoded), alternated rounds.
//!
//! CBOR (`--cbor [N]`, default 10000): N custom objects (a CRD the bench creates) synced in CBOR
//! and in JSON; the server needs KUBECTL_INFORMER_FEATURE_GATES=CBORServingAndStorage=true.
//!
//! Without a control plane, up to a million objects (a 5,000-node cluster's Pods), our side
//! only (see scale/generated.rs):
//!
//!   cargo bench --bench scale -- --generated [N,N,...]   # default 10000,100000,1000000
//!
//! For each N: the child informer synced in protobuf from a loopback server that generates the
//! N Pods page by page, then relisting them; and `kubectl-informer bench --from-file` replaying
//! a generated recording of the same N Pods in JSON.

#[path = "scale/generated.rs"]
mod generated;
#[path = "scale/link.rs"]
mod link;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kube::api::{Api, ApiResource, DynamicObject, ListParams, PostParams};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NAMESPACE: &str = "bench-scale";
const POD_NAMESPACE: &str = "bench-scale-pods";
const WIDGET_SCALE_NAMESPACE: &str = "bench-scale-widgets";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn kubeconfig() -> PathBuf {
    std::env::var_os("KUBECONFIG")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/controlplane/run/kubeconfig"))
}

fn rss_kib() -> u64 {
    status_kib("VmRSS:")
}

/// A `/proc/self/status` figure in KiB (`VmRSS:`, `VmHWM:`).
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// Child mode: a SharedInformer on RESOURCE in NAMESPACE, LIST and WATCH in ENCODING with pages
/// of CHUNK (`--child-informer RESOURCE NAMESPACE ENCODING CHUNK`); prints RSS before and after
/// sync, then relists.
async fn child_informer(child: &[String]) {
    use kubectl_informer::cluster::{resolve, Cluster, KubeconfigSelection, Transport};
    use kubectl_informer::informer::listwatch::ListWatch;
    use kubectl_informer::informer::object::{Encoding, Keep};
    use kubectl_informer::informer::reflector::{ReflectorConfig, Start};
    use kubectl_informer::informer::shared::SharedInformer;
    // After the four: `identity` (no gzip), `server=URL` (through the throttled link) and
    // `norelist` (the sync only: a relist over a slow link would outlast a short compaction
    // interval).
    let (child, extra) = child.split_at(child.len().min(4));
    let selection = KubeconfigSelection {
        path: Some(kubeconfig()),
        overrides: kubectl_informer::cluster::Overrides {
            disable_compression: extra.iter().any(|e| e == "identity"),
            server: extra
                .iter()
                .find_map(|e| e.strip_prefix("server=").map(str::to_string)),
            ..Default::default()
        },
        ..Default::default()
    };
    // `gzip` or `identity`: the watch-list too (by default it is not gzipped from a loopback
    // server, which the link is); neither: the defaults.
    let mut cluster = Cluster::connect(&selection, Transport::default())
        .await
        .expect("connect");
    if extra.iter().any(|e| e == "gzip" || e == "identity") {
        cluster = cluster.with_watch_list_gzip(!selection.overrides.disable_compression);
    }
    let resources = cluster.discover().await.expect("discovery");
    let [resource, namespace, encoding, chunk] = child else {
        panic!("--child-informer RESOURCE NAMESPACE ENCODING CHUNK [gzip|identity]")
    };
    // CHUNK `watch-list`: the initial state by one WATCH with sendInitialEvents (KEP-3157).
    let (start, chunk) = match chunk.as_str() {
        "watch-list" => (
            Start::WatchList,
            kubectl_informer::informer::listwatch::DEFAULT_CHUNK_SIZE,
        ),
        n => (
            Start::List,
            n.parse().expect("CHUNK: a page size or watch-list"),
        ),
    };
    let resource = resolve(resource, &resources).expect("resource").clone();
    // `json-bytes`: the floor, the watch-list's JSON lines read and not decoded.
    if encoding == "json-bytes" {
        return json_bytes_floor(&cluster, &resource, namespace).await;
    }
    // `json`: objects kept as identity and digest, as diff and bench keep them; `json-whole`:
    // kept as their text, as tail keeps them.
    let (encoding, keep) = match encoding.as_str() {
        "json" => (Encoding::Json, Keep::Digest),
        "json-whole" => (Encoding::Json, Keep::Whole),
        "protobuf" => (Encoding::Protobuf, Keep::Digest),
        "cbor" => (Encoding::Cbor, Keep::Digest),
        other => panic!("ENCODING {other}: json, json-whole, json-bytes, protobuf or cbor"),
    };
    let before = rss_kib();
    let lw = ListWatch {
        cluster,
        resource,
        namespace: Some(namespace.clone()),
        label_selector: None,
        field_selector: None,
        metadata_only: false,
        encoding,
        keep,
    };
    let relist_lw = lw.clone();
    let started = Instant::now();
    let mut running = SharedInformer::new(lw, ReflectorConfig::informer(start, chunk)).run();
    running.synced().await.expect("sync");
    let sync_seconds = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let objects = running.read(|store| store.len());
    let steady = rss_kib();
    if extra.iter().any(|e| e == "norelist") {
        println!(
            "{{\"objects\":{objects},\"rssBeforeKiB\":{before},\"rssAfterKiB\":{steady},\"syncSeconds\":{sync_seconds:.3},\"relistSeconds\":null}}"
        );
        return;
    }

    // A relist, as the reflector does after a 410: LIST pages whose objects go into the FIFO as
    // Replaced deltas while the informer loop applies them, then ReplaceDone. The peak resident
    // memory from here on (VmHWM, reset to the current RSS first) against the steady RSS.
    use kubectl_informer::informer::fifo::{Delta, DeltaType, FifoItem};
    use kubectl_informer::informer::listwatch::ListOptions;
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let relist_started = Instant::now();
    // On a runtime worker, as the reflector's task is: the allocator's per-thread arenas then
    // behave as in a real relist (decoded on the main thread, the new objects would fill another
    // arena while the old ones are freed into the workers').
    let fifo = running.fifo().clone();
    let max_fifo = tokio::spawn(async move {
        let mut opts = ListOptions {
            limit: Some(chunk),
            continue_token: None,
            at: Default::default(),
        };
        let mut max_fifo = 0;
        loop {
            let page = relist_lw.list_page(&opts).await.expect("relist page");
            for object in page.items {
                fifo.push(FifoItem::Delta(Delta {
                    delta_type: DeltaType::Replaced,
                    object,
                    received_at: tokio::time::Instant::now(),
                    final_state_unknown: false,
                }));
            }
            max_fifo = max_fifo.max(fifo.len());
            match page.continue_token {
                Some(token) => opts.continue_token = Some(token),
                None => {
                    fifo.push(FifoItem::ReplaceDone {
                        resource_version: page.resource_version,
                    });
                    return max_fifo;
                }
            }
        }
    })
    .await
    .expect("relist task");
    while running.queued() > 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let relist_seconds = relist_started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(1)).await;
    println!(
        "{{\"objects\":{objects},\"rssBeforeKiB\":{before},\"rssAfterKiB\":{steady},\"syncSeconds\":{sync_seconds:.3},\"relistSeconds\":{relist_seconds:.3},\"relistPeakKiB\":{},\"afterRelistKiB\":{},\"relistMaxFifo\":{max_fifo}}}",
        status_kib("VmHWM:"),
        rss_kib()
    );
}

/// The floor of a JSON sync: the watch-list of `resource` in `namespace` asked in JSON, its
/// lines found and not decoded, until the line that carries the initial-events-end annotation.
/// What no client reading JSON can beat: the server's pace in encoding and sending it.
async fn json_bytes_floor(
    cluster: &kubectl_informer::cluster::Cluster,
    resource: &kubectl_informer::cluster::ApiResource,
    namespace: &str,
) {
    use futures::AsyncBufReadExt;
    let path = format!(
        "{}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=",
        resource.collection_path(Some(namespace))
    );
    let op = kubectl_informer::cluster::Operation::new(
        "watch",
        resource.qualified_name(),
        Some(namespace),
    );
    let before = rss_kib();
    let started = Instant::now();
    let (_, mut reader) = cluster
        .stream(&path, "application/json", true, &op)
        .await
        .expect("watch-list");
    let (mut lines, mut line) = (0u64, Vec::new());
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line).await.expect("read");
        assert!(n > 0, "the watch-list ended before its initial events did");
        if memchr::memmem::find(&line, b"\"k8s.io/initial-events-end\"").is_some() {
            break;
        }
        lines += 1;
    }
    println!(
        "{{\"objects\":{lines},\"rssBeforeKiB\":{before},\"rssAfterKiB\":{},\"syncSeconds\":{:.3},\"relistSeconds\":null}}",
        rss_kib(),
        started.elapsed().as_secs_f64()
    );
}

/// A Pod as a Deployment's controller would create it, about 4 KB of JSON once the server has
/// defaulted it: two containers with environment, probes, resources and mounts. Its scheduler
/// does not exist, so it stays Pending and untouched by the control plane's controllers.
fn pod(i: usize) -> serde_json::Value {
    let env: Vec<_> = (0..8)
        .map(|k| serde_json::json!({"name": format!("SETTING_{k}"), "value": format!("value-{k}-{i}")}))
        .collect();
    serde_json::json!({
        "metadata": {
            "name": format!("pod-{i:06}"),
            "labels": {"app": "bench", "tier": "backend", "pod-template-hash": "7d9f8c6b5f",
                       "app.kubernetes.io/version": "1.2.3"},
            "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9090",
                            "kubectl.kubernetes.io/restartedAt": "2026-11-24T10:00:00Z"}
        },
        "spec": {
            "schedulerName": "bench-none",
            "containers": [{
                "name": "app",
                "image": "registry.example/bench/app:1.2.3",
                "args": ["--port=8080", "--metrics-port=9090", "--log-level=info"],
                "ports": [{"name": "http", "containerPort": 8080}, {"name": "metrics", "containerPort": 9090}],
                "env": env,
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                              "limits": {"cpu": "500m", "memory": "256Mi"}},
                "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5},
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}]
            }, {
                "name": "proxy",
                "image": "registry.example/bench/proxy:0.9.1",
                "args": ["--upstream=127.0.0.1:8080"],
                "ports": [{"name": "proxy", "containerPort": 15001}],
                "resources": {"requests": {"cpu": "50m", "memory": "64Mi"}}
            }],
            "volumes": [{"name": "config", "configMap": {"name": "app-config"}}]
        }
    })
}

/// The objects of one kind the benchmark lists: `configmaps` in NAMESPACE, `pods` in
/// POD_NAMESPACE, custom `widgets` in WIDGET_SCALE_NAMESPACE.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    ConfigMaps,
    Pods,
    Widgets,
}

impl Kind {
    fn resource(self) -> &'static str {
        match self {
            Kind::ConfigMaps => "configmaps",
            Kind::Pods => "pods",
            Kind::Widgets => WIDGETS,
        }
    }

    fn namespace(self) -> &'static str {
        match self {
            Kind::ConfigMaps => NAMESPACE,
            Kind::Pods => POD_NAMESPACE,
            Kind::Widgets => WIDGET_SCALE_NAMESPACE,
        }
    }
}

/// kube's client for the control plane of `kubeconfig()`, to create the objects.
async fn admin_client() -> kube::Client {
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(kubeconfig()).expect("kubeconfig of the control plane"),
        &Default::default(),
    )
    .await
    .unwrap();
    kube::Client::try_from(config).unwrap()
}

/// Creates the namespace and whatever objects of the N are missing.
async fn ensure_objects(kind: Kind, n: usize) {
    if kind == Kind::Widgets {
        return ensure_widgets(WIDGET_SCALE_NAMESPACE, n).await;
    }
    let client = admin_client().await;
    let ns: Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": kind.namespace()}}))
            .unwrap();
    let _ = Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await;
    let api: Api<DynamicObject> = Api::namespaced_with(
        client,
        kind.namespace(),
        &ApiResource::erase::<ConfigMap>(&()),
    );
    let api = match kind {
        Kind::ConfigMaps | Kind::Widgets => api,
        Kind::Pods => Api::namespaced_with(
            api.into_client(),
            kind.namespace(),
            &ApiResource::erase::<Pod>(&()),
        ),
    };
    let existing = api
        .list_metadata(&ListParams::default().limit(1))
        .await
        .map(|l| l.metadata.remaining_item_count.unwrap_or(0) as usize + l.items.len())
        .unwrap_or(0);
    if existing >= n {
        return;
    }
    eprintln!(
        "creating {} {} in {} (once)",
        n - existing,
        kind.resource(),
        kind.namespace()
    );
    let payload = "x".repeat(900);
    let workers = 32;
    let mut tasks = Vec::new();
    for w in 0..workers {
        let api = api.clone();
        let payload = payload.clone();
        tasks.push(tokio::spawn(async move {
            for i in (w..n).step_by(workers) {
                let value = match kind {
                    Kind::ConfigMaps => serde_json::json!({
                        "apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": format!("cm-{i:06}"), "labels": {"app": "bench"}},
                        "data": {"payload": payload}
                    }),
                    Kind::Pods => {
                        let mut pod = pod(i);
                        pod["apiVersion"] = "v1".into();
                        pod["kind"] = "Pod".into();
                        pod
                    }
                    Kind::Widgets => widget(i),
                };
                let object: DynamicObject = serde_json::from_value(value).unwrap();
                // Already there from an earlier partial run: fine.
                let _ = api.create(&PostParams::default(), &object).await;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

/// Runs a command under GNU time, stdout captured; (wall seconds, peak RSS KiB, stdout).
fn timed(program: &Path, args: &[&str]) -> (f64, u64, String) {
    let started = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .env("KUBECONFIG", kubeconfig())
        .stderr(Stdio::piped())
        .output()
        .expect("run under /usr/bin/time");
    let secs = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or(0);
    (secs, rss, String::from_utf8_lossy(&out.stdout).to_string())
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--child-informer") {
        // As the binary does, before the runtime's threads start.
        kubectl_informer::memory::use_one_malloc_arena();
    }
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(bench_main(args));
}

async fn bench_main(args: Vec<String>) {
    if let Some(at) = args.iter().position(|a| a == "--child-informer") {
        child_informer(&args[at + 1..]).await;
        return;
    }
    if !args.iter().any(|a| a == "--bench") {
        println!("scale: a benchmark; run it with `cargo bench --bench scale`");
        return;
    }
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|at| args.get(at + 1))
            .map(|v| v.parse::<u32>().expect("a number"))
    };
    let chunk =
        value("--chunk").unwrap_or(kubectl_informer::informer::listwatch::DEFAULT_CHUNK_SIZE);
    let n: usize = args
        .iter()
        .skip(1)
        .take_while(|a| !["--chunk", "--pods", "--widgets"].contains(&a.as_str()))
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let pods = value("--pods").map_or(n, |p| p as usize);
    let widgets = value("--widgets").map_or(n, |w| w as usize);
    if let Some(at) = args.iter().position(|a| a == "--cbor") {
        let n = args
            .get(at + 1)
            .and_then(|a| a.parse().ok())
            .unwrap_or(10_000);
        ensure_widgets(WIDGET_NAMESPACE, n).await;
        cbor_runs(n, chunk);
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "--generated") {
        let sizes = args
            .get(at + 1)
            .filter(|a| !a.starts_with("--"))
            .map_or("10000,100000,1000000", |a| a.as_str());
        let sizes: Vec<usize> = sizes
            .split(',')
            .map(|n| n.parse().expect("--generated N,N,...: numbers of objects"))
            .collect();
        generated_runs(&sizes, chunk);
        return;
    }
    ensure_objects(Kind::ConfigMaps, n).await;
    if pods > 0 {
        ensure_objects(Kind::Pods, pods).await;
    }
    if widgets > 0 {
        ensure_objects(Kind::Widgets, widgets).await;
    }
    if let Some(at) = args.iter().position(|a| a == "--json") {
        let rounds = args.get(at + 1).and_then(|a| a.parse().ok()).unwrap_or(5);
        let peer = build_client_go_peer();
        json_runs(
            &[
                (Kind::ConfigMaps, n),
                (Kind::Pods, pods),
                (Kind::Widgets, widgets),
            ],
            rounds,
            &peer,
        );
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "--compression") {
        // `--compression [MBIT,...]`: links of that many Mbit/s, `loopback` for none.
        let links: Vec<Option<f64>> = args
            .get(at + 1)
            .filter(|a| !a.starts_with("--"))
            .map_or("loopback", |a| a.as_str())
            .split(',')
            .map(|l| match l {
                "loopback" => None,
                mbit => Some(
                    mbit.parse::<f64>()
                        .expect("--compression loopback,MBIT,...")
                        * 1e6,
                ),
            })
            .collect();
        compression_runs(n, pods, chunk, &links);
        return;
    }
    let informer = PathBuf::from(env!("CARGO_BIN_EXE_kubectl-informer"));

    println!("{n} ConfigMaps of ~1 KB in namespace {NAMESPACE}, {pods} Pods of ~4 KB in {POD_NAMESPACE}, {widgets} Widgets of ~1.5 KB in {WIDGET_SCALE_NAMESPACE}; LIST pages of {chunk}\n");
    println!("| command | wall s | LIST+compare s | peak RSS MiB |");
    println!("|---|---|---|---|");
    let chunk_arg = chunk.to_string();
    for encoding in ["protobuf", "json"] {
        let (wall, rss, out) = timed(
            &informer,
            &[
                "diff",
                "cm",
                "-n",
                NAMESPACE,
                "-o",
                "json",
                "--encoding",
                encoding,
                "--chunk-size",
                &chunk_arg,
            ],
        );
        let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_default();
        println!(
            "| kubectl-informer diff --encoding {encoding} | {wall:.2} | {:.2} | {:.1} |",
            report["durationSeconds"].as_f64().unwrap_or(f64::NAN),
            mib(rss)
        );
    }
    let (wall, rss, out) = timed(
        Path::new("kubectl"),
        &["get", "configmaps", "-n", NAMESPACE, "-o", "json"],
    );
    println!(
        "| kubectl get -o json ({} MB of JSON) | {wall:.2} | {wall:.2} | {:.1} |",
        out.len() / 1_000_000,
        mib(rss)
    );

    let peer = build_client_go_peer();
    let kube_rs_target = root().join("target/peer-kube-rs-reflector");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(root().join("benches/peer/kube-rs-reflector/Cargo.toml"))
        .arg("--target-dir")
        .arg(&kube_rs_target)
        .status()
        .expect("cargo build of the kube-rs peer");
    assert!(status.success(), "cargo build of the kube-rs peer failed");
    let kube_rs = kube_rs_target.join("release/kube-rs-reflector-peer");
    println!(
        "\n| informer | objects | sync s | RSS before MiB | RSS synced MiB | KiB per object |"
    );
    println!("|---|---|---|---|---|---|");
    let mut relists = Vec::new();
    let kinds: Vec<Kind> = [
        (Kind::ConfigMaps, n),
        (Kind::Pods, pods),
        (Kind::Widgets, widgets),
    ]
    .into_iter()
    .filter(|(_, count)| *count > 0)
    .map(|(kind, _)| kind)
    .collect();
    for kind in kinds {
        let ours = |encoding: &str, start: &str| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--child-informer",
                    kind.resource(),
                    kind.namespace(),
                    encoding,
                    start,
                ])
                .env("KUBECONFIG", kubeconfig())
                .output()
                .unwrap()
        };
        let theirs = |mode: &str| {
            Command::new(&peer)
                .args([kind.resource(), kind.namespace(), mode])
                .env("KUBECONFIG", kubeconfig())
                .output()
                .unwrap()
        };
        let name = kind.resource();
        // The first row of each kind is the one relisted after.
        let runs = if kind == Kind::Widgets {
            // Served only in JSON: what diff and bench keep (identity and digest), what tail
            // keeps (the text), client-go decoding into unstructured maps or typed structs.
            vec![
                (
                    format!(
                        "kubectl-informer, JSON, watch-list (diff's and bench's default), {name}"
                    ),
                    ours("json", "watch-list"),
                ),
                (
                    format!("kubectl-informer, JSON, LIST pages of {chunk}, {name}"),
                    ours("json", &chunk_arg),
                ),
                (
                    format!(
                        "kubectl-informer, JSON kept whole (as tail keeps it), watch-list, {name}"
                    ),
                    ours("json-whole", "watch-list"),
                ),
                (
                    format!("floor: the watch-list's JSON lines read, not decoded, {name}"),
                    ours("json-bytes", "watch-list"),
                ),
                (
                    format!("client-go, JSON, typed structs, watch-list, {name}"),
                    theirs("typed"),
                ),
                (
                    format!("client-go, JSON, unstructured (dynamic informer), watch-list, {name}"),
                    theirs("unstructured"),
                ),
            ]
        } else {
            vec![
                (
                    format!("kubectl-informer, protobuf, watch-list (diff's and bench's default), {name}"),
                    ours("protobuf", "watch-list"),
                ),
                (
                    format!("kubectl-informer, protobuf, LIST pages of {chunk}, {name}"),
                    ours("protobuf", &chunk_arg),
                ),
                (
                    format!("kubectl-informer, JSON, watch-list, {name}"),
                    ours("json", "watch-list"),
                ),
                (
                    format!("kubectl-informer, JSON kept whole (as tail keeps it), watch-list, {name}"),
                    ours("json-whole", "watch-list"),
                ),
                (
                    format!("floor: the watch-list's JSON lines read, not decoded, {name}"),
                    ours("json-bytes", "watch-list"),
                ),
                (
                    format!("client-go, protobuf, watch-list, {name}"),
                    theirs("protobuf"),
                ),
                (format!("client-go, JSON, watch-list, {name}"), theirs("json")),
                (
                    format!("kube-rs reflector, JSON, {name}"),
                    Command::new(&kube_rs)
                        .args([name, kind.namespace()])
                        .env("KUBECONFIG", kubeconfig())
                        .output()
                        .unwrap(),
                ),
            ]
        };
        for (i, (label, out)) in runs.into_iter().enumerate() {
            let line = String::from_utf8_lossy(&out.stdout);
            let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap_or_else(|e| {
                panic!(
                    "{label}: {e}: {line} {}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
            let objects = v["objects"].as_u64().unwrap_or(0);
            let before = v["rssBeforeKiB"].as_u64().unwrap_or(0);
            let after = v["rssAfterKiB"].as_u64().unwrap_or(0);
            println!(
                "| {label} | {objects} | {:.2} | {:.1} | {:.1} | {:.2} |",
                v["syncSeconds"].as_f64().unwrap_or(f64::NAN),
                mib(before),
                mib(after),
                (after.saturating_sub(before)) as f64 / objects.max(1) as f64
            );
            if i == 0 {
                relists.push((kind.resource(), v));
            }
        }
    }
    println!("\n| relist of the synced cache (in the encoding of the first row above; after a watch-list) | s | steady RSS MiB | peak RSS MiB | peak / steady | RSS after MiB | FIFO max |");
    println!("|---|---|---|---|---|---|---|");
    for (resource, relist) in relists {
        let steady = relist["rssAfterKiB"].as_u64().unwrap_or(0);
        let peak = relist["relistPeakKiB"].as_u64().unwrap_or(0);
        println!(
            "| {resource} | {:.2} | {:.1} | {:.1} | {:.2} | {:.1} | {} |",
            relist["relistSeconds"].as_f64().unwrap_or(f64::NAN),
            mib(steady),
            mib(peak),
            peak as f64 / steady.max(1) as f64,
            mib(relist["afterRelistKiB"].as_u64().unwrap_or(0)),
            relist["relistMaxFifo"]
        );
    }
}

/// Builds benches/peer/client-go-informer with `go build`; its path.
fn build_client_go_peer() -> PathBuf {
    let peer = root().join("target/peer-client-go-informer");
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&peer)
        .arg(".")
        .current_dir(root().join("benches/peer/client-go-informer"))
        .status()
        .expect("go build of the client-go peer");
    assert!(status.success(), "go build of the client-go peer failed");
    peer
}

/// Runs this bench as `--child-informer ARGS` on the cluster of `kubeconfig`; its JSON line.
fn child(args: &[&str], kubeconfig: &Path) -> serde_json::Value {
    let out = Command::new(std::env::current_exe().unwrap())
        .arg("--child-informer")
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .output()
        .unwrap();
    let line = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(line.trim()).unwrap_or_else(|e| {
        panic!(
            "child {args:?}: {e}: {line} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// "watch-list", or "LIST pages of N" for a page size.
fn start_label(start: &str) -> String {
    if start == "watch-list" {
        start.to_string()
    } else {
        format!("LIST pages of {start}")
    }
}

/// The custom resource of `--cbor`: `widgets.bench.informer.test`, namespaced, any fields.
const WIDGETS: &str = "widgets.bench.informer.test";
const WIDGET_NAMESPACE: &str = "bench-cbor";

/// A custom object of about 1.5 KB of JSON, shaped as controllers' objects are: a spec with
/// nested settings and a list, a status with conditions.
fn widget(i: usize) -> serde_json::Value {
    let settings: serde_json::Map<String, serde_json::Value> = (0..10)
        .map(|k| (format!("setting{k:02}"), format!("value-{i}-{k}").into()))
        .collect();
    serde_json::json!({
        "apiVersion": "bench.informer.test/v1",
        "kind": "Widget",
        "metadata": {
            "name": format!("widget-{i:06}"),
            "labels": {"app": "bench", "shard": (i % 16).to_string()},
            "annotations": {"bench.informer.test/owner": format!("team-{}", i % 7)}
        },
        "spec": {
            "replicas": i % 5 + 1,
            "image": format!("registry.example.com/widgets/widget:v1.{}.{}", i % 9, i % 31),
            "settings": settings,
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"},
                      {"name": "metrics", "port": 9090, "protocol": "TCP"}],
            "weight": 0.5 + (i % 10) as f64 / 10.0,
            "paused": i.is_multiple_of(3)
        },
        "status": {
            "observedGeneration": 1,
            "readyReplicas": i % 5 + 1,
            "conditions": [
                {"type": "Ready", "status": "True", "reason": "AllReplicasReady",
                 "lastTransitionTime": "2026-11-25T12:00:00Z", "message": "every replica is ready"},
                {"type": "Progressing", "status": "False", "reason": "Complete",
                 "lastTransitionTime": "2026-11-25T12:00:00Z", "message": "rollout complete"}
            ]
        }
    })
}

/// The Widget CRD's structural schema: a spec of a few typed and nested fields, a status with
/// conditions, as controller-gen writes one. (No status subresource: a create then keeps the
/// status it is given, so that the objects have one without a second write each.)
fn widget_schema() -> serde_json::Value {
    let string = || serde_json::json!({"type": "string"});
    let integer = || serde_json::json!({"type": "integer"});
    serde_json::json!({
        "type": "object",
        "properties": {
            "spec": {"type": "object", "properties": {
                "replicas": integer(),
                "image": string(),
                "settings": {"type": "object", "additionalProperties": string()},
                "ports": {"type": "array", "items": {"type": "object", "properties": {
                    "name": string(), "port": integer(), "protocol": string()}}},
                "weight": {"type": "number"},
                "paused": {"type": "boolean"}
            }},
            "status": {"type": "object", "properties": {
                "observedGeneration": integer(),
                "readyReplicas": integer(),
                "conditions": {"type": "array", "items": {"type": "object", "properties": {
                    "type": string(), "status": string(), "reason": string(),
                    "lastTransitionTime": {"type": "string", "format": "date-time"},
                    "message": string()}}}
            }}
        }
    })
}

/// Creates the Widget CRD and whatever of the N widgets are missing in `namespace`.
async fn ensure_widgets(namespace: &str, n: usize) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let client = admin_client().await;
    let crd: CustomResourceDefinition = serde_json::from_value(serde_json::json!({
        "metadata": {"name": WIDGETS},
        "spec": {
            "group": "bench.informer.test",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": widget_schema()}}]
        }
    }))
    .unwrap();
    let _ = Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &crd)
        .await;
    let ns: Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": namespace}})).unwrap();
    let _ = Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await;
    let resource = ApiResource {
        group: "bench.informer.test".into(),
        version: "v1".into(),
        api_version: "bench.informer.test/v1".into(),
        kind: "Widget".into(),
        plural: "widgets".into(),
    };
    let api: Api<DynamicObject> = Api::namespaced_with(client, namespace, &resource);
    // The CRD's storage comes up a moment after its creation.
    let existing = loop {
        match api.list_metadata(&ListParams::default().limit(1)).await {
            Ok(l) => break l.metadata.remaining_item_count.unwrap_or(0) as usize + l.items.len(),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    };
    if existing >= n {
        return;
    }
    eprintln!("creating {} widgets in {namespace} (once)", n - existing);
    let workers = 32;
    let mut tasks = Vec::new();
    for w in 0..workers {
        let api = api.clone();
        tasks.push(tokio::spawn(async move {
            for i in (w..n).step_by(workers) {
                let object: DynamicObject = serde_json::from_value(widget(i)).unwrap();
                // Already there from an earlier partial run: fine.
                let _ = api.create(&PostParams::default(), &object).await;
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

/// Figures of `--cbor`: the initial sync and the synced cache's memory of our child informer on
/// the N widgets, read in CBOR and in JSON, by watch-list and by LIST pages (compression as by
/// default: a gzipped LIST, a plain watch-list from the loopback server); five rounds, the
/// configurations alternated within each. The server must serve CBOR
/// (KUBECTL_INFORMER_FEATURE_GATES=CBORServingAndStorage=true for controlplane.sh): a child
/// that asks for CBOR and is answered in JSON would measure JSON twice, so the first round
/// checks with `-v=1`'s line of the binary's diff.
fn cbor_runs(n: usize, chunk: u32) {
    const ROUNDS: usize = 5;
    let informer = PathBuf::from(env!("CARGO_BIN_EXE_kubectl-informer"));
    let out = Command::new(&informer)
        .args([
            "-v=1",
            "diff",
            WIDGETS,
            "-n",
            WIDGET_NAMESPACE,
            "--encoding",
            "cbor",
        ])
        .env("KUBECONFIG", kubeconfig())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the server answered in CBOR"),
        "the server does not serve CBOR: start it with \
         KUBECTL_INFORMER_FEATURE_GATES=CBORServingAndStorage=true; {stderr}"
    );
    let chunk_arg = chunk.to_string();
    let configs: Vec<(&str, &str)> = ["cbor", "json"]
        .into_iter()
        .flat_map(|e| ["watch-list", chunk_arg.as_str()].map(move |s| (e, s)))
        .collect();
    let mut figures = vec![(Vec::new(), Vec::new()); configs.len()];
    for _ in 0..ROUNDS {
        for (i, (encoding, start)) in configs.iter().enumerate() {
            let v = child(&[WIDGETS, WIDGET_NAMESPACE, encoding, start], &kubeconfig());
            assert_eq!(v["objects"].as_u64(), Some(n as u64), "{v}");
            figures[i]
                .0
                .push(v["syncSeconds"].as_f64().unwrap_or(f64::NAN));
            let kib =
                v["rssAfterKiB"].as_u64().unwrap_or(0) - v["rssBeforeKiB"].as_u64().unwrap_or(0);
            figures[i].1.push(kib as f64 / n as f64);
        }
    }
    println!("| {n} widgets | initial state | sync s (median of {ROUNDS}) | min | max | KiB per object (median) |");
    println!("|---|---|---|---|---|---|");
    for ((encoding, start), (mut sync, mut kib)) in configs.into_iter().zip(figures) {
        sync.sort_by(f64::total_cmp);
        kib.sort_by(f64::total_cmp);
        let start = start_label(start);
        println!(
            "| {encoding} | {start} | {:.2} | {:.2} | {:.2} | {:.2} |",
            sync[ROUNDS / 2],
            sync[0],
            sync[ROUNDS - 1],
            kib[ROUNDS / 2]
        );
    }
}

/// Figures of `--json [ROUNDS]` (default 5): the initial sync by watch-list of each kind in JSON,
/// ours (kept as digests, as diff and bench keep objects; kept whole, as tail does), the floor
/// (the JSON lines read, not decoded) and client-go (in JSON and in protobuf for the built-in
/// kinds; typed and unstructured for the custom one), the configurations alternated within
/// each round so that the host's drift spreads evenly; medians, with the min and max.
fn json_runs(kinds: &[(Kind, usize)], rounds: usize, peer: &Path) {
    println!("| kind | informer (watch-list unless said) | sync s (median of {rounds}) | min | max | KiB per object (median) |");
    println!("|---|---|---|---|---|---|");
    for &(kind, n) in kinds {
        let mut configs: Vec<(&str, &str, &str)> = vec![
            ("ours", "json", "watch-list"),
            ("ours", "json", "5000"),
            ("ours", "json-whole", "watch-list"),
            ("ours", "json-bytes", "watch-list"),
        ];
        if kind == Kind::Widgets {
            configs.extend([
                ("client-go", "typed", "watch-list"),
                ("client-go", "unstructured", "watch-list"),
            ]);
        } else {
            configs.extend([
                ("ours", "protobuf", "watch-list"),
                ("client-go", "json", "watch-list"),
                ("client-go", "protobuf", "watch-list"),
            ]);
        }
        let mut figures = vec![(Vec::new(), Vec::new()); configs.len()];
        for _ in 0..rounds {
            for (i, (who, mode, start)) in configs.iter().enumerate() {
                let v = if *who == "ours" {
                    child(
                        &[kind.resource(), kind.namespace(), mode, start, "norelist"],
                        &kubeconfig(),
                    )
                } else {
                    let out = Command::new(peer)
                        .args([kind.resource(), kind.namespace(), mode])
                        .env("KUBECONFIG", kubeconfig())
                        .output()
                        .unwrap();
                    let line = String::from_utf8_lossy(&out.stdout);
                    serde_json::from_str(line.trim()).unwrap_or_else(|e| {
                        panic!(
                            "client-go {mode}: {e}: {line} {}",
                            String::from_utf8_lossy(&out.stderr)
                        )
                    })
                };
                assert_eq!(v["objects"].as_u64(), Some(n as u64), "{who} {mode}: {v}");
                figures[i]
                    .0
                    .push(v["syncSeconds"].as_f64().unwrap_or(f64::NAN));
                let kib = v["rssAfterKiB"].as_u64().unwrap_or(0) as f64
                    - v["rssBeforeKiB"].as_u64().unwrap_or(0) as f64;
                figures[i].1.push(kib / n as f64);
            }
        }
        for ((who, mode, start), (mut sync, mut kib)) in configs.into_iter().zip(figures) {
            sync.sort_by(f64::total_cmp);
            kib.sort_by(f64::total_cmp);
            let label = match (who, mode) {
                ("ours", "json") if start != "watch-list" => {
                    "kubectl-informer, JSON (diff's and bench's keeping), LIST pages of 5000"
                }
                ("ours", "json") => "kubectl-informer, JSON (diff's and bench's keeping)",
                ("ours", "json-whole") => "kubectl-informer, JSON kept whole (tail's)",
                ("ours", "json-bytes") => "floor: JSON lines read, not decoded",
                ("ours", _) => "kubectl-informer, protobuf",
                ("client-go", "json") => "client-go, JSON",
                ("client-go", "protobuf") => "client-go, protobuf",
                ("client-go", "typed") => "client-go, JSON, typed structs",
                _ => "client-go, JSON, unstructured",
            };
            println!(
                "| {} | {label} | {:.2} | {:.2} | {:.2} | {:.2} |",
                kind.resource(),
                sync[rounds / 2],
                sync[0],
                sync[rounds - 1],
                kib[rounds / 2]
            );
        }
    }
}

/// Figures of `--compression`: the initial sync (and the relist after it) of our child informer
/// with responses gzipped (`Accept-Encoding: gzip`, what kubectl and client-go send) and not
/// (`--disable-compression`), in protobuf and JSON, by watch-list and by LIST pages; five rounds,
/// the configurations alternated within each round so that the host's drift spreads evenly.
fn compression_runs(n: usize, pods: usize, chunk: u32, links: &[Option<f64>]) {
    const ROUNDS: usize = 5;
    let chunk_arg = chunk.to_string();
    let kinds: &[(Kind, usize)] = &[(Kind::ConfigMaps, n), (Kind::Pods, pods)];
    let parsed = kube::config::Kubeconfig::read_from(kubeconfig()).expect("kubeconfig");
    let server = parsed.clusters[0]
        .cluster
        .as_ref()
        .and_then(|c| c.server.clone())
        .expect("the kubeconfig's server");
    let upstream: std::net::SocketAddr = server
        .trim_start_matches("https://")
        .parse()
        .expect("the server as https://IP:PORT");
    println!("| link | objects | encoding | initial state | response | sync s (median of {ROUNDS}) | min | max | relist s (median) |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for link in links {
        let (link_name, via) = match link {
            None => ("loopback".to_string(), None),
            Some(rate) => (
                format!("{} Mbit/s", rate / 1e6),
                Some(format!("server=https://{}", link::start(upstream, *rate))),
            ),
        };
        for &(kind, count) in kinds.iter().filter(|(_, count)| *count > 0) {
            let configs: Vec<(&str, &str, &str)> = ["protobuf", "json"]
                .into_iter()
                .flat_map(|e| ["watch-list", chunk_arg.as_str()].map(move |s| (e, s)))
                .flat_map(|(e, s)| ["gzip", "identity"].map(move |c| (e, s, c)))
                .collect();
            let mut figures = vec![(Vec::new(), Vec::new()); configs.len()];
            for _ in 0..ROUNDS {
                for (i, (encoding, start, compression)) in configs.iter().enumerate() {
                    let mut args = vec![
                        kind.resource(),
                        kind.namespace(),
                        encoding,
                        start,
                        compression,
                    ];
                    if let Some(via) = &via {
                        args.extend([via.as_str(), "norelist"]);
                    }
                    let v = child(&args, &kubeconfig());
                    figures[i]
                        .0
                        .push(v["syncSeconds"].as_f64().unwrap_or(f64::NAN));
                    figures[i]
                        .1
                        .push(v["relistSeconds"].as_f64().unwrap_or(f64::NAN));
                }
            }
            for ((encoding, start, compression), (mut sync, mut relist)) in
                configs.into_iter().zip(figures)
            {
                sync.sort_by(f64::total_cmp);
                relist.sort_by(f64::total_cmp);
                let start = if start == "watch-list" {
                    "watch-list".to_string()
                } else {
                    format!("LIST pages of {start}")
                };
                println!(
                "| {link_name} | {count} {} | {encoding} | {start} | {compression} | {:.2} | {:.2} | {:.2} | {:.2} |",
                kind.resource(),
                sync[ROUNDS / 2],
                sync[0],
                sync[ROUNDS - 1],
                relist[ROUNDS / 2],
            );
            }
        }
    }
}

/// Figures of `--generated`: per size, the child informer against the generated server and
/// `bench --from-file` on the generated recording.
fn generated_runs(sizes: &[usize], chunk: u32) {
    let dir = root().join("target/scale-generated");
    let (protobuf, json) = generated::sizes(0);
    println!(
        "Generated running Pods in {}: {protobuf} bytes each in protobuf, {json} in JSON; LIST pages of {chunk}\n",
        generated::NAMESPACE
    );
    println!("| objects | sync s | µs per object | RSS before MiB | RSS synced MiB | KiB per object | KiB per added object | relist s | relist peak / steady | FIFO max |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    // (objects, synced RSS KiB) of the size before: KiB per object added since, which leaves
    // out what does not grow with the objects.
    let mut previous: Option<(usize, f64)> = None;
    for &n in sizes {
        let (server, kubeconfig) = generated::serve(n, &dir.join(n.to_string()));
        let v = child(
            &["pods", generated::NAMESPACE, "protobuf", &chunk.to_string()],
            &kubeconfig,
        );
        assert_eq!(
            v["objects"].as_u64(),
            Some(n as u64),
            "the informer synced every Pod"
        );
        let number = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        let (before, after) = (number("rssBeforeKiB"), number("rssAfterKiB"));
        println!(
            "| {n} | {:.2} | {:.2} | {:.1} | {:.1} | {:.3} | {} | {:.2} | {:.2} | {} |",
            number("syncSeconds"),
            number("syncSeconds") * 1e6 / n as f64,
            before / 1024.0,
            after / 1024.0,
            (after - before) / n as f64,
            added(previous, n, after),
            number("relistSeconds"),
            number("relistPeakKiB") / after,
            v["relistMaxFifo"]
        );
        drop(server);
        previous = Some((n, after));
    }
    let informer = PathBuf::from(env!("CARGO_BIN_EXE_kubectl-informer"));
    println!("\n`kubectl-informer bench --from-file REC --work-time 0 -o json`, REC: N ADDED Pods in JSON\n");
    println!("| objects | recording MB | wall s | window s | events/s | peak RSS MiB | KiB per object (peak / N) | KiB per added object |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut previous = None;
    for &n in sizes {
        let path = dir.join(format!("pods-{n}.jsonl"));
        let size = generated::recording(n, &path);
        let (wall, rss, out) = timed(
            &informer,
            &[
                "bench",
                "--from-file",
                path.to_str().unwrap(),
                "--work-time",
                "0",
                "-o",
                "json",
            ],
        );
        let report: serde_json::Value = serde_json::from_str(out.trim())
            .unwrap_or_else(|e| panic!("bench --from-file: {e}: {out}"));
        assert_eq!(report["counters"]["events"].as_u64(), Some(n as u64));
        println!(
            "| {n} | {:.0} | {wall:.2} | {:.2} | {:.0} | {:.1} | {:.3} | {} |",
            size as f64 / 1e6,
            report["windowSeconds"].as_f64().unwrap_or(f64::NAN),
            report["counters"]["eventsPerSecond"]
                .as_f64()
                .unwrap_or(f64::NAN),
            mib(rss),
            rss as f64 / n as f64,
            added(previous, n, rss as f64)
        );
        previous = Some((n, rss as f64));
    }
}

/// KiB per object between the size before (`previous`: objects, KiB) and `n` objects at `kib`.
fn added(previous: Option<(usize, f64)>, n: usize, kib: f64) -> String {
    match previous {
        Some((m, before)) if n > m => format!("{:.3}", (kib - before) / (n - m) as f64),
        _ => "-".into(),
    }
}
