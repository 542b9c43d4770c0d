//! Throughput of tail's decode-and-print path against `kubectl get -w -o json`, on the same
//! recorded stream served by a loopback server: N MODIFIED events of K ConfigMaps of about 1 KB.
//!
//!     cargo bench --bench tail_throughput -- [EVENTS] [OBJECTS]
//!
//! Needs GNU time at /usr/bin/time (Debian package `time`) for peak memory, and kubectl on PATH
//! for the comparison. Prints one table row per run; figures go to BENCHMARKS.md.

#[path = "../tests/common/fake.rs"]
mod fake;

use fake::{core_discovery, empty_discovery, FakeServer, Reply, Step};
use std::process::Command;
use std::time::Instant;

/// The recorded stream: `events` MODIFIED events cycling over `objects` ConfigMaps.
fn stream(events: usize, objects: usize) -> Vec<Step> {
    let payload = "x".repeat(900);
    let mut steps = Vec::new();
    let mut chunk = String::with_capacity(1 << 16);
    for i in 0..events {
        let name = format!("cm-{}", i % objects);
        let line = serde_json::json!({"type": "MODIFIED", "object": {
            "kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": "ns", "uid": format!("uid-{}", i % objects),
                "resourceVersion": (1000 + i).to_string(), "labels": {"app": "bench"}},
            "data": {"payload": payload, "n": i.to_string()}
        }});
        chunk.push_str(&line.to_string());
        chunk.push('\n');
        if chunk.len() > 60_000 {
            steps.push(Step::Chunk(std::mem::take(&mut chunk)));
        }
    }
    if !chunk.is_empty() {
        steps.push(Step::Chunk(chunk));
    }
    steps
}

fn serve(steps: Vec<Step>) -> FakeServer {
    FakeServer::start(move |target, _| {
        let path = target.split('?').next().unwrap_or("");
        match path {
            "/api" => core_discovery(),
            "/apis" => empty_discovery(),
            "/api/v1/namespaces/ns/configmaps" if target.contains("watch=true") => {
                Reply::Stream(steps.clone())
            }
            "/api/v1/namespaces/ns/configmaps" => Reply::Json(
                200,
                r#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"999"},"items":[]}"#.into(),
            ),
            _ => Reply::Json(404, r#"{"kind":"Status","code":404,"reason":"NotFound","message":"not found"}"#.into()),
        }
    })
}

/// Runs `program args` under GNU time with stdout to /dev/null: (seconds, peak RSS in KiB).
fn measure(program: &str, args: &[&str], kubeconfig: &str) -> Option<(f64, u64)> {
    let started = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .env("KUBECONFIG", kubeconfig)
        .stdout(std::process::Stdio::null())
        .output()
        .ok()?;
    let secs = started.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rss = stderr.lines().last()?.trim().parse().ok()?;
    if !out.status.success() {
        eprintln!("{program} failed: {stderr}");
        return None;
    }
    Some((secs, rss))
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let events: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let objects: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let steps = stream(events, objects);
    let bytes: usize = steps
        .iter()
        .map(|s| match s {
            Step::Chunk(c) => c.len(),
            _ => 0,
        })
        .sum();
    let server = serve(steps);
    let dir = std::env::temp_dir().join(format!("tail-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = fake::kubeconfig(&dir, &server.url);
    let kubeconfig = kubeconfig.to_str().unwrap();
    let tail = env!("CARGO_BIN_EXE_kubectl-informer");

    println!(
        "stream: {events} MODIFIED events of {objects} ConfigMaps, {:.1} MB",
        bytes as f64 / 1e6
    );
    println!("| command | wall s | events/s | peak RSS MiB |");
    println!("|---|---|---|---|");
    let runs: Vec<(&str, &str, Vec<&str>)> = vec![
        (
            "kubectl-informer tail -o json",
            tail,
            vec!["tail", "cm", "-n", "ns", "-o", "json", "--no-reconnect"],
        ),
        (
            "kubectl-informer tail -o text",
            tail,
            vec!["tail", "cm", "-n", "ns", "--no-reconnect"],
        ),
        (
            "kubectl get -w -o json",
            "kubectl",
            vec!["get", "configmaps", "-n", "ns", "-w", "-o", "json"],
        ),
    ];
    for (label, program, args) in runs {
        match measure(program, &args, kubeconfig) {
            Some((secs, rss)) => println!(
                "| {label} | {secs:.2} | {:.0} | {:.1} |",
                events as f64 / secs,
                rss as f64 / 1024.0
            ),
            None => println!("| {label} | failed or not installed | | |"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
