//! What scraping a controller's metrics costs our process: `kubectl informer top` against
//! kube-controller-manager's /metrics on the local control plane (about 4,000 lines, 235
//! families), every second for a minute, its CPU time (user + system, from GNU time) set beside
//! the same scrapes made by curl, which fetches the text and reads nothing of it: the floor of
//! the HTTP and TLS work.
//!
//!     tests/controlplane/controlplane.sh up
//!     cargo bench --bench scrape_cost -- [SECONDS]
//!
//! Then whether scraping beside `bench` moves bench's own figures: `bench` runs of the same
//! load (100 ConfigMap writes a second for 20 s, a handler of exp:1ms, a worker of 1ms)
//! alternated with and without `--metrics-from` the same kube-controller-manager, ROUNDS of
//! each (default 3), their latencies and CPU time side by side.
//!
//!     cargo bench --bench scrape_cost -- [SECONDS] [ROUNDS]
//!
//! Needs curl and GNU time at /usr/bin/time; figures go to BENCHMARKS.md.

#[path = "../tests/suite/common/mod.rs"]
mod common;

use std::process::{Command, Stdio};

/// Runs `program` under GNU time; returns its CPU seconds (user + system) and peak RSS in KiB.
fn cpu_and_rss(program: &str, args: &[&str]) -> (f64, u64) {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%U %S %M", program])
        .args(args)
        .env("KUBECONFIG", common::kubeconfig_path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run /usr/bin/time (Debian package time)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().unwrap_or_default();
    let f: Vec<&str> = last.split_whitespace().collect();
    assert!(out.status.success() && f.len() == 3, "{program}: {stderr}");
    (
        f[0].parse::<f64>().unwrap() + f[1].parse::<f64>().unwrap(),
        f[2].parse().unwrap(),
    )
}

fn main() {
    let numbers: Vec<u64> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .filter_map(|a| a.parse().ok())
        .collect();
    let seconds = numbers.first().copied().unwrap_or(60);
    let rounds = numbers.get(1).copied().unwrap_or(3);
    let port = std::fs::read_to_string(common::run_dir().join("kube-controller-manager.port"))
        .expect("the local control plane with kube-controller-manager: tests/controlplane/controlplane.sh up");
    let url = format!("https://127.0.0.1:{}/metrics", port.trim());
    let lines = Command::new("curl")
        .args(["-sf", "--cacert"])
        .arg(common::run_dir().join("pki/ca.crt"))
        .args([
            "-H",
            &format!("Authorization: Bearer {}", common::token("admin")),
            &url,
        ])
        .output()
        .expect("curl");
    let text = String::from_utf8_lossy(&lines.stdout);
    println!(
        "kube-controller-manager's /metrics: {} lines, {} bytes; {seconds} scrapes, 1 s apart",
        text.lines().count(),
        text.len()
    );

    let duration = format!("{seconds}s");
    let (top_cpu, top_rss) = cpu_and_rss(
        env!("CARGO_BIN_EXE_kubectl-informer"),
        &[
            "top",
            &url,
            "--interval",
            "1s",
            "--for",
            &duration,
            "-o",
            "json",
        ],
    );
    // The same number of scrapes, 1 s apart, by one curl process each (its start-up included).
    let script = format!(
        "for i in $(seq {seconds}); do curl -sf --cacert {ca} -H 'Authorization: Bearer {token}' {url} >/dev/null; sleep 1; done",
        ca = common::run_dir().join("pki/ca.crt").display(),
        token = common::token("admin"),
    );
    let (curl_cpu, _) = cpu_and_rss("bash", &["-c", &script]);
    println!("| program | CPU s in {seconds} s | share of one core | peak RSS MiB |");
    println!("|---|---|---|---|");
    println!(
        "| kubectl informer top (parse, intervals, JSON lines) | {top_cpu:.2} | {:.2}% | {:.1} |",
        100.0 * top_cpu / seconds as f64,
        top_rss as f64 / 1024.0
    );
    println!(
        "| curl, one process per scrape (fetch only) | {curl_cpu:.2} | {:.2}% | - |",
        100.0 * curl_cpu / seconds as f64
    );
    beside_bench(&url, rounds);
}

/// One bench run's report, with `--metrics-from url` or without.
fn bench_report(metrics_from: Option<&str>) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-informer"));
    cmd.args([
        "bench",
        "--objects",
        "100",
        "--rate",
        "100",
        "--warmup",
        "2s",
        "--for",
        "20s",
        "--handler-time",
        "exp:1ms",
        "--work-time",
        "1ms",
        "-o",
        "json",
    ])
    .env("KUBECONFIG", common::kubeconfig_path())
    .stderr(Stdio::null());
    if let Some(url) = metrics_from {
        cmd.args(["--metrics-from", url]);
    }
    let out = cmd.output().expect("run bench");
    assert!(out.status.success(), "bench failed: {out:?}");
    serde_json::from_slice(&out.stdout).expect("bench's JSON report")
}

/// bench's own figures with and without scraping beside them, alternated.
fn beside_bench(url: &str, rounds: u64) {
    println!("\nbench, 100 writes/s for 20 s, {rounds} rounds alternated:");
    println!(
        "| round | --metrics-from | watchLatency p50 / p99 | deliveryLag p50 / p99 | \
         queueDuration p99 | CPU s in the window | scrapes / gaps |"
    );
    println!("|---|---|---|---|---|---|---|");
    let ms = |v: &serde_json::Value| format!("{:.2} ms", v.as_f64().unwrap_or(f64::NAN) * 1e3);
    for round in 1..=rounds {
        for with in [false, true] {
            let doc = bench_report(with.then_some(url));
            let m = &doc["metrics"];
            let scraped = match &doc["controller"] {
                serde_json::Value::Null => "-".to_string(),
                c => format!("{} / {}", c["scrapes"], c["gaps"]),
            };
            println!(
                "| {round} | {} | {} / {} | {} / {} | {} | {:.2} | {scraped} |",
                if with { "yes" } else { "no" },
                ms(&m["watchLatency"]["p50"]),
                ms(&m["watchLatency"]["p99"]),
                ms(&m["deliveryLag"]["p50"]),
                ms(&m["deliveryLag"]["p99"]),
                ms(&m["queueDuration"]["p99"]),
                doc["processCpuSeconds"].as_f64().unwrap_or(f64::NAN),
            );
        }
    }
}
