//! `kubectl informer bench --from-file --speed max` against a client-go shared informer fed the
//! same recording (benches/peer/client-go-informer/pipeline): N update events of 1,000
//! ConfigMaps, 4 event handlers that enqueue the key, 1 worker, no simulated work; each decodes
//! the recording before its clock starts and stops it when every handler and the worker are done.
//! Alternated, median of the rounds.
//!
//!   cargo bench --bench replay_peer -- [EVENTS] [ROUNDS]   # default 200000 5
//!
//! Needs Go on PATH (the peer is built with `go build`). Figures go to BENCHMARKS.md.

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn write_recording(path: &PathBuf, events: usize) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, "{{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"configmaps\",\"time\":\"2026-01-01T00:00:00.000Z\"}}").unwrap();
    for i in 0..events {
        let name = format!("cm-{}", i % 1000);
        let rv = 1000 + i;
        writeln!(
            out,
            "{{\"type\":\"MODIFIED\",\"resourceVersion\":\"{rv}\",\"namespace\":\"ns\",\"name\":\"{name}\",\"time\":\"2026-01-01T00:00:01.000Z\",\"object\":{{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"ns\",\"uid\":\"u{}\",\"resourceVersion\":\"{rv}\"}},\"data\":{{\"v\":\"{i}\"}}}}}}",
            i % 1000
        )
        .unwrap();
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("replay_peer: a benchmark; run it with `cargo bench --bench replay_peer`");
        return;
    }
    let numbers: Vec<usize> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    let events = numbers.first().copied().unwrap_or(200_000);
    let rounds = numbers.get(1).copied().unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("events.jsonl");
    write_recording(&recording, events);

    let peer = root().join("target/peer-client-go-pipeline");
    let status = Command::new("go")
        .args(["build", "-o"])
        .arg(&peer)
        .arg("./pipeline")
        .current_dir(root().join("benches/peer/client-go-informer"))
        .status()
        .expect("go build of the client-go peer");
    assert!(status.success(), "go build of the client-go peer failed");
    let informer = PathBuf::from(env!("CARGO_BIN_EXE_kubectl-informer"));

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let json = dir.path().join("bench.json");
        let out = Command::new(&informer)
            .args(["bench", "--from-file"])
            .arg(&recording)
            .args(["--handlers", "4", "--workers", "1", "--export-json"])
            .arg(&json)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let seconds =
            doc["window_seconds"].as_f64().unwrap() + doc["drain_seconds"].as_f64().unwrap();
        ours.push(events as f64 / seconds);

        let out = Command::new(&peer)
            .arg(&recording)
            .args(["4", "1"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        theirs.push(doc["eventsPerSecond"].as_f64().unwrap());
    }
    println!("{events} events of 1,000 ConfigMaps, 4 handlers, 1 worker, no work; median of {rounds} rounds");
    println!("| pipeline | events/s (median) | rounds |");
    println!("|---|---|---|");
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "| kubectl-informer bench --speed max | {:.0} | {} |",
        median(ours.clone()),
        fmt(&ours)
    );
    println!(
        "| client-go informer + workqueue | {:.0} | {} |",
        median(theirs.clone()),
        fmt(&theirs)
    );
}
