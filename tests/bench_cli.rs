//! `bench --from-file` through the binary: table, exports, gates, baseline, exit codes, and bad
//! input refused with one line before anything runs. No cluster needed.

mod common;

use common::{assert_one_line_error, run};
use std::path::Path;

/// A recording of `n` updates of 20 ConfigMaps, 1 ms apart.
fn write_recording(dir: &Path, n: usize) -> String {
    let mut text = String::from(
        "{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"configmaps\",\"time\":\"2026-01-01T00:00:00.000Z\"}\n",
    );
    for i in 0..n {
        let name = format!("cm-{}", i % 20);
        text.push_str(&format!(
            "{{\"type\":\"MODIFIED\",\"resourceVersion\":\"{rv}\",\"namespace\":\"ns\",\"name\":\"{name}\",\"time\":\"2026-01-01T00:00:00.{ms:03}Z\",\"object\":{{\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"ns\",\"resourceVersion\":\"{rv}\"}},\"data\":{{\"v\":\"{i}\"}}}}}}\n",
            rv = 10 + i,
            ms = i % 1000
        ));
    }
    let path = dir.join("rec.jsonl");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_replay_prints_the_table_and_writes_every_export() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 500);
    let json = dir.path().join("bench.json");
    let md = dir.path().join("bench.md");
    let prom = dir.path().join("bench.prom");
    let out = run(&[
        "bench",
        "--from-file",
        &rec,
        "--handlers",
        "2",
        "--work-time",
        "100us",
        "--fail-if",
        "queue_duration.p99 > 10s",
        "--export-json",
        json.to_str().unwrap(),
        "--export-markdown",
        md.to_str().unwrap(),
        "--export-prometheus",
        prom.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    for row in [
        "delivery_lag",
        "handler_time",
        "queue_duration",
        "work_duration",
    ] {
        assert!(out.stdout.contains(row), "{}", out.stdout);
    }
    assert!(!out.stdout.contains("watch_latency"), "replays have none");
    assert!(out.stdout.contains("events: 500 in"), "{}", out.stdout);
    assert!(out
        .stdout
        .contains("PASS queue_duration.p99 > 10s (measured"));

    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["source"]["kind"], "file");
    assert_eq!(doc["config"]["handlers"], 2);
    assert_eq!(doc["config"]["work_time"], "100us");
    assert_eq!(doc["counters"]["events"], 500);
    assert_eq!(doc["metrics"]["queue_duration"]["unit"], "seconds");
    assert!(doc["metrics"]["queue_duration"]["count"].as_u64().unwrap() > 0);
    assert!(doc["metrics"]["watch_latency"].is_null());
    assert!(
        doc["counters"]["relists"].is_null() && doc["counters"]["reconnects"].is_null(),
        "a replay has no watch: {}",
        doc["counters"]
    );
    assert_eq!(doc["listeners"].as_array().unwrap().len(), 2);
    assert_eq!(doc["listeners"][1]["handled"], 500);
    assert_eq!(doc["gates"][0]["failed"], false);

    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("| METRIC | p50 | p90 | p99 | p99.9 | max | mean | count |"));
    assert!(markdown.contains("| queue_duration |"), "{markdown}");
    assert!(
        markdown.contains("✅ pass `queue_duration.p99 > 10s`"),
        "{markdown}"
    );

    let prometheus = std::fs::read_to_string(&prom).unwrap();
    assert!(prometheus.contains("# TYPE workqueue_queue_duration_seconds histogram"));
    assert!(prometheus.contains("workqueue_adds_total{name=\"bench\"}"));
    assert!(prometheus.contains("informer_delivery_lag_seconds_count{listener=\"handler-1\"} 500"));
    assert!(
        !prometheus.contains("informer_relists_total"),
        "a replay has no watch to count"
    );
}

#[test]
fn a_failing_gate_exits_1_and_prints_the_measured_value() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 100);
    let out = run(&[
        "bench",
        "--from-file",
        &rec,
        "--fail-if",
        "events >= 100",
        "--fail-if",
        "retries > 0",
        "--fail-if",
        "watch_latency.p99 > 1s",
    ]);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("FAIL events >= 100 (measured 100)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("PASS retries > 0 (measured 0)"),
        "{}",
        out.stdout
    );
}

#[test]
fn the_baseline_accepts_itself_and_flags_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 200);
    let base = dir.path().join("base.json");
    let args = ["bench", "--from-file", &rec, "--work-time", "2ms"];
    let first = run(&[&args[..], &["--export-json", base.to_str().unwrap()]].concat());
    assert_eq!(first.code, Some(0), "{}", first.stderr);

    // A baseline whose latencies were a tenth of today's: every figure regressed.
    let mut doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    for stat in ["p50", "p90", "p99", "mean"] {
        let v = doc["metrics"]["work_duration"][stat].as_f64().unwrap();
        doc["metrics"]["work_duration"][stat] = serde_json::json!(v / 10.0);
    }
    doc["config"]["workers"] = serde_json::json!(4);
    let fast = dir.path().join("fast.json");
    std::fs::write(&fast, doc.to_string()).unwrap();
    let out = run(&[
        &args[..],
        &["--baseline", fast.to_str().unwrap(), "--tolerance", "10"],
    ]
    .concat());
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("REGRESSED work_duration.p50"),
        "{}",
        out.stdout
    );
    assert!(out
        .stdout
        .contains("baseline was run with other settings: workers: 4 → 1"));

    // A rerun against its own earlier figures passes (the tolerance is wide: this checks the
    // plumbing and the exit code; tests/bench_model.rs checks tolerance on exact figures).
    let out = run(&[
        &args[..],
        &[
            "--baseline",
            base.to_str().unwrap(),
            "--tolerance",
            "100000",
        ],
    ]
    .concat());
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("0 of "), "{}", out.stdout);
}

#[test]
fn bad_input_is_one_line_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 10);
    let not_json = dir.path().join("notes.txt");
    std::fs::write(&not_json, "hello\n").unwrap();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec![
                "--from-file",
                "/nonexistent",
                "--fail-if",
                "queue_duration.p99 50ms",
            ],
            vec!["invalid --fail-if", "no comparison"],
        ),
        (
            vec!["--from-file", &rec, "--fail-if", "queue_duration.p99 > 50"],
            vec!["a duration needs a unit, e.g. 50s or 50ms"],
        ),
        (
            vec![
                "--from-file",
                &rec,
                "--fail-if",
                "queue_duration.p99 > 1m30",
            ],
            vec!["\"30\" in \"1m30\" has no unit"],
        ),
        (
            vec!["--from-file", &rec, "--warmup", "2"],
            vec!["--warmup 2: a duration needs a unit, e.g. 2s or 2ms"],
        ),
        (
            vec!["--from-file", &rec, "--handler-time", "exp:2"],
            vec!["--handler-time exp:2: a duration needs a unit"],
        ),
        (
            vec!["--from-file", &rec, "--resync", "500ms"],
            vec!["--resync 500ms", "minimum resync period"],
        ),
        (
            vec!["--duration", "1"],
            vec!["--for 1: a duration needs a unit"],
        ),
        (
            vec!["--for", "0"],
            vec!["--for 0: a live run needs a length"],
        ),
        (
            vec!["--from-file", &rec, "--fail-if", "lag.p99 > 5ms"],
            vec!["unknown metric \"lag\"", "queue_duration"],
        ),
        (vec!["--from-file", "/nonexistent"], vec!["no such file"]),
        (
            vec!["--from-file", not_json.to_str().unwrap()],
            vec!["not a recording", "line 1"],
        ),
        (
            vec!["--from-file", &rec, "--speed", "fast"],
            vec!["--speed", "10x"],
        ),
        (
            vec!["--from-file", &rec, "--handler-time", "uniform:5ms"],
            vec!["--handler-time", "1ms..5ms"],
        ),
        (
            vec!["--from-file", &rec, "--workers", "0"],
            vec!["--workers"],
        ),
        (
            vec!["--from-file", &rec, "--error-rate", "120"],
            vec!["--error-rate"],
        ),
        (
            vec![
                "--from-file",
                &rec,
                "--baseline",
                not_json.to_str().unwrap(),
            ],
            vec!["--baseline", "not JSON", "--export-json"],
        ),
        (
            vec![
                "--from-file",
                &rec,
                "--export-json",
                "/nonexistent/dir/x.json",
            ],
            vec!["--export-json", "does not exist"],
        ),
        (
            vec!["-n", "default"],
            vec!["--no-churn", "scratch namespace"],
        ),
        (vec!["--rate", "lots"], vec!["--rate", "100/s"]),
        (
            vec!["cm", "--from-file", &rec],
            vec!["RESOURCE with --from-file"],
        ),
        (
            vec!["-A", "--from-file", &rec],
            vec!["-n/-A with --from-file"],
        ),
        (vec!["--rate", "1e-20"], vec!["--rate", "0.01"]),
        (
            vec!["--from-file", &rec, "--speed", "1e-30x"],
            vec!["--speed"],
        ),
        (
            vec!["--from-file", &rec, "--handlers", "200", "--workers", "100"],
            vec!["at most 256"],
        ),
        (
            vec!["--from-file", &rec, "--warmup", "1h"],
            vec!["--warmup"],
        ),
        (
            vec!["--from-file", &rec, "--resync", "100ms"],
            vec!["--resync 100ms", "minimum resync period, 1s"],
        ),
    ];
    for (args, needles) in cases {
        let out = run(&[&["bench"][..], &args].concat());
        assert_one_line_error(&out, &needles);
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    }
    // Nothing the user had is lost.
    assert_eq!(std::fs::read_to_string(&rec).unwrap().lines().count(), 11);
}
