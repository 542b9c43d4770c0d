//! Scale: N ConfigMaps of about 1 KB in one namespace of the local control plane (created on the
//! first run, reused after). Measures, each as its own process:
//! - `kubectl-informer diff` (wall time, the LIST-plus-compare time, peak RSS) against
//!   `kubectl get -o json` of the same objects;
//! - resident memory of a synced informer cache: ours (the library's SharedInformer) against a
//!   plain client-go shared informer (benches/peer/client-go-informer, built with `go build`);
//! - the peak resident memory of ours during a relist of the whole cache, against its steady RSS.
//!
//!   tests/controlplane/controlplane.sh up
//!   cargo bench --bench scale -- [OBJECTS]   # default 100000
//!
//! Needs GNU time at /usr/bin/time, kubectl and Go on PATH. Figures go to BENCHMARKS.md.

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ListParams, PostParams};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NAMESPACE: &str = "bench-scale";

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

/// Child mode: a SharedInformer on ConfigMaps in NAMESPACE; prints RSS before and after sync.
async fn child_informer() {
    use kubectl_informer::cluster::{resolve, Cluster, KubeconfigSelection, Transport};
    use kubectl_informer::informer::listwatch::ListWatch;
    use kubectl_informer::informer::reflector::{ReflectorConfig, Start};
    use kubectl_informer::informer::shared::SharedInformer;
    let selection = KubeconfigSelection {
        path: Some(kubeconfig()),
        ..Default::default()
    };
    let cluster = Cluster::connect(&selection, Transport::default())
        .await
        .expect("connect");
    let resources = cluster.discover().await.expect("discovery");
    let resource = resolve("configmaps", &resources)
        .expect("configmaps")
        .clone();
    let before = rss_kib();
    let lw = ListWatch {
        cluster,
        resource,
        namespace: Some(NAMESPACE.to_string()),
        label_selector: None,
        field_selector: None,
        metadata_only: false,
    };
    let relist_lw = lw.clone();
    let started = Instant::now();
    let mut running = SharedInformer::new(lw, ReflectorConfig::informer(Start::List, 500)).run();
    running.synced().await.expect("sync");
    let sync_seconds = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let objects = running.read(|store| store.len());
    let steady = rss_kib();

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
            limit: Some(500),
            continue_token: None,
            resource_version: None,
            version_match: None,
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

/// Creates the namespace and whatever ConfigMaps of the N are missing.
async fn ensure_objects(n: usize) {
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(kubeconfig()).expect("kubeconfig of the control plane"),
        &Default::default(),
    )
    .await
    .unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let ns: Namespace =
        serde_json::from_value(serde_json::json!({"metadata": {"name": NAMESPACE}})).unwrap();
    let _ = Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await;
    let api: Api<ConfigMap> = Api::namespaced(client, NAMESPACE);
    let existing = api
        .list_metadata(&ListParams::default().limit(1))
        .await
        .map(|l| l.metadata.remaining_item_count.unwrap_or(0) as usize + l.items.len())
        .unwrap_or(0);
    if existing >= n {
        return;
    }
    eprintln!("creating {} ConfigMaps in {NAMESPACE} (once)", n - existing);
    let payload = "x".repeat(900);
    let workers = 32;
    let mut tasks = Vec::new();
    for w in 0..workers {
        let api = api.clone();
        let payload = payload.clone();
        tasks.push(tokio::spawn(async move {
            for i in (w..n).step_by(workers) {
                let cm: ConfigMap = serde_json::from_value(serde_json::json!({
                    "metadata": {"name": format!("cm-{i:06}"), "labels": {"app": "bench"}},
                    "data": {"payload": payload}
                }))
                .unwrap();
                // Already there from an earlier partial run: fine.
                let _ = api.create(&PostParams::default(), &cm).await;
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
    if args.iter().any(|a| a == "--child-informer") {
        child_informer().await;
        return;
    }
    if !args.iter().any(|a| a == "--bench") {
        println!("scale: a benchmark; run it with `cargo bench --bench scale`");
        return;
    }
    let n: usize = args
        .iter()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    ensure_objects(n).await;
    let informer = PathBuf::from(env!("CARGO_BIN_EXE_kubectl-informer"));

    println!("{n} ConfigMaps of ~1 KB in namespace {NAMESPACE}\n");
    println!("| command | wall s | LIST+compare s | peak RSS MiB |");
    println!("|---|---|---|---|");
    let (wall, rss, out) = timed(&informer, &["diff", "cm", "-n", NAMESPACE, "-o", "json"]);
    let report: serde_json::Value = serde_json::from_str(out.trim()).unwrap_or_default();
    println!(
        "| kubectl-informer diff | {wall:.2} | {:.2} | {:.1} |",
        report["durationSeconds"].as_f64().unwrap_or(f64::NAN),
        mib(rss)
    );
    let (wall, rss, out) = timed(
        Path::new("kubectl"),
        &["get", "configmaps", "-n", NAMESPACE, "-o", "json"],
    );
    println!(
        "| kubectl get -o json ({} MB of JSON) | {wall:.2} | {wall:.2} | {:.1} |",
        out.len() / 1_000_000,
        mib(rss)
    );

    let peer = root().join("target/peer-client-go-informer");
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&peer)
        .arg(".")
        .current_dir(root().join("benches/peer/client-go-informer"))
        .status()
        .expect("go build of the client-go peer");
    assert!(status.success(), "go build of the client-go peer failed");
    println!(
        "\n| informer | objects | sync s | RSS before MiB | RSS synced MiB | KiB per object |"
    );
    println!("|---|---|---|---|---|---|");
    let ours = Command::new(std::env::current_exe().unwrap())
        .arg("--child-informer")
        .env("KUBECONFIG", kubeconfig())
        .output()
        .unwrap();
    let theirs = Command::new(&peer)
        .arg(NAMESPACE)
        .env("KUBECONFIG", kubeconfig())
        .output()
        .unwrap();
    let relist: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&ours.stdout).trim()).unwrap_or_default();
    for (label, out) in [
        ("kubectl-informer SharedInformer", ours),
        ("client-go SharedInformer", theirs),
    ] {
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
    }
    let steady = relist["rssAfterKiB"].as_u64().unwrap_or(0);
    let peak = relist["relistPeakKiB"].as_u64().unwrap_or(0);
    println!("\n| relist of the synced cache | s | steady RSS MiB | peak RSS MiB | peak / steady | RSS after MiB | FIFO max |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| kubectl-informer SharedInformer | {:.2} | {:.1} | {:.1} | {:.2} | {:.1} | {} |",
        relist["relistSeconds"].as_f64().unwrap_or(f64::NAN),
        mib(steady),
        mib(peak),
        peak as f64 / steady.max(1) as f64,
        mib(relist["afterRelistKiB"].as_u64().unwrap_or(0)),
        relist["relistMaxFifo"]
    );
}
