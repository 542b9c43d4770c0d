//! `bench --from-file` through the binary: table, exports, gates, baseline, exit codes, and bad
//! input refused with one line before anything runs. No cluster needed.

use crate::common;
use crate::common::{assert_one_line_error, assert_promtool_accepts, promtool_refusal, run};
use std::path::Path;

/// A recording of `n` updates of 20 ConfigMaps, 1 ms apart.
fn write_recording(dir: &Path, n: usize) -> String {
    write_recording_spaced(dir, n, 1)
}

/// A recording of `n` updates of 20 ConfigMaps, `spacing_ms` apart (at most a minute in all).
fn write_recording_spaced(dir: &Path, n: usize, spacing_ms: usize) -> String {
    assert!(n * spacing_ms < 60_000);
    let mut text = String::from(
        "{\"type\":\"NOTICE\",\"notice\":\"start\",\"resource\":\"configmaps\",\"time\":\"2026-01-01T00:00:00.000Z\"}\n",
    );
    for i in 0..n {
        let name = format!("cm-{}", i % 20);
        text.push_str(&format!(
            "{{\"type\":\"MODIFIED\",\"resourceVersion\":\"{rv}\",\"namespace\":\"ns\",\"name\":\"{name}\",\"time\":\"2026-01-01T00:00:{s:02}.{ms:03}Z\",\"object\":{{\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"ns\",\"resourceVersion\":\"{rv}\"}},\"data\":{{\"v\":\"{i}\"}}}}}}\n",
            rv = 10 + i,
            s = i * spacing_ms / 1000,
            ms = i * spacing_ms % 1000
        ));
    }
    let path = dir.join("rec.jsonl");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
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
        "queueDuration.p99 > 10s",
        "--export-json",
        json.to_str().unwrap(),
        "--export-markdown",
        md.to_str().unwrap(),
        "--export-prometheus",
        prom.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    for row in [
        "deliveryLag",
        "handlerTime",
        "queueDuration",
        "workDuration",
    ] {
        assert!(out.stdout.contains(row), "{}", out.stdout);
    }
    assert!(!out.stdout.contains("watchLatency"), "replays have none");
    assert!(
        out.stdout.contains(" p999 ") && !out.stdout.contains("p99.9"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("events: 500 in"), "{}", out.stdout);
    assert!(out.stdout.contains("PASS queueDuration.p99 = "));
    assert!(out.stdout.contains(" (fails if > 10s)\n"), "{}", out.stdout);
    assert!(out.stderr.is_empty(), "{}", out.stderr);

    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schemaVersion"], 2);
    assert_eq!(doc["source"]["kind"], "file");
    assert_eq!(doc["config"]["handlers"], 2);
    assert_eq!(doc["config"]["workTime"], "100us");
    assert_eq!(doc["counters"]["events"], 500);
    assert_eq!(doc["metrics"]["queueDuration"]["unit"], "seconds");
    assert!(doc["metrics"]["queueDuration"]["count"].as_u64().unwrap() > 0);
    assert!(doc["metrics"]["watchLatency"].is_null());
    assert!(
        doc["counters"]["relists"].is_null() && doc["counters"]["reconnects"].is_null(),
        "a replay has no watch: {}",
        doc["counters"]
    );
    assert_eq!(doc["listeners"].as_array().unwrap().len(), 2);
    assert_eq!(doc["listeners"][1]["handled"], 500);
    assert_eq!(doc["gates"][0]["failed"], false);

    let markdown = std::fs::read_to_string(&md).unwrap();
    assert!(markdown.contains("| METRIC | p50 | p90 | p99 | p999 | max | mean | count |"));
    assert!(markdown.contains("| queueDuration |"), "{markdown}");
    assert!(
        markdown.contains("✅ PASS queueDuration.p99 = ")
            && markdown.contains(" (fails if > 10s)\n"),
        "{markdown}"
    );

    let prometheus = std::fs::read_to_string(&prom).unwrap();
    assert_promtool_accepts(&prom);
    // ... which refuses what is not the exposition format (it can fail).
    let broken = dir.path().join("broken.prom");
    std::fs::write(
        &broken,
        prometheus.replace(
            "# TYPE workqueue_depth gauge",
            "# TYPE workqueue_depth nonsense",
        ),
    )
    .unwrap();
    let refusal = promtool_refusal(&broken).expect("promtool accepted a broken TYPE line");
    assert!(refusal.contains("nonsense"), "{refusal}");
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
        out.stdout.contains("FAIL events = 100 (fails if >= 100)\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("PASS retries = 0 (fails if > 0)\n"),
        "{}",
        out.stdout
    );
    // A gate in the deprecated snake_case of report schema version 1 still works, with a warning.
    assert!(
        out.stdout
            .contains(
                "FAIL watch_latency.p99: not measured in this run (fails if > 1s, or when not measured)"
            ),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains(
            "bench: --fail-if 'watch_latency.p99 > 1s': watch_latency is a deprecated name \
             (report schema version 1); write watchLatency"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn a_baseline_of_report_schema_version_1_is_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 200);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bench-report-v1.json");
    let out = run(&[
        "bench",
        "--from-file",
        &rec,
        "--baseline",
        fixture.to_str().unwrap(),
        "--tolerance",
        "100000",
        "--work-time",
        "100us",
        "--handlers",
        "2",
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("of 16 figures regressed"),
        "each of the four latencies' p50, p90, p99, mean: {}",
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
        let v = doc["metrics"]["workDuration"][stat].as_f64().unwrap();
        doc["metrics"]["workDuration"][stat] = serde_json::json!(v / 10.0);
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
        out.stdout.contains("REGRESSED workDuration.p50"),
        "{}",
        out.stdout
    );
    assert!(out
        .stdout
        .contains("baseline was run with other settings: workers: 4 → 1"));

    // A rerun against its own earlier figures passes (the tolerance is wide: this checks the
    // plumbing and the exit code; tests/suite/bench_model.rs checks tolerance on exact figures).
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
fn output_json_prints_the_report_document_and_nothing_else_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 100);
    let json = dir.path().join("bench.json");
    let out = run(&[
        "bench",
        "--from-file",
        &rec,
        "-o",
        "json",
        "--fail-if",
        "events >= 100",
        "--export-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(1), "the gate fails: {}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {}", out.stdout));
    assert_eq!(doc["schemaVersion"], 2);
    assert_eq!(doc["gates"][0]["failed"], true);
    assert_eq!(
        out.stdout,
        std::fs::read_to_string(&json).unwrap(),
        "-o json is the --export-json document"
    );
    let text = run(&["bench", "--from-file", &rec, "-o", "text"]);
    assert!(text.stdout.contains("│ METRIC"), "{}", text.stdout);
}

/// The table, then the JSON document, as `--export-json /dev/stdout` appends it.
fn assert_table_then_document(stdout: &str) {
    let start = stdout
        .find("\n{\n")
        .unwrap_or_else(|| panic!("no JSON document after the table: {stdout}"));
    assert!(stdout[..start].contains("│ METRIC"), "{stdout}");
    let doc: serde_json::Value = serde_json::from_str(&stdout[start..])
        .unwrap_or_else(|e| panic!("not one JSON document after the table ({e}): {stdout}"));
    assert_eq!(doc["schemaVersion"], 2);
}

/// `--export-json /dev/stdout` writes to the stream: a write by rename (as for a regular file)
/// would replace the device or the pipe's target instead.
#[test]
fn an_export_to_dev_stdout_goes_after_the_table_on_a_pipe_and_in_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 100);
    let args = ["bench", "--from-file", &rec, "--export-json", "/dev/stdout"];
    let out = run(&args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_table_then_document(&out.stdout);

    // stdout redirected to a file: the document is appended through stdout, not written over
    // the table from the file's start.
    let file = dir.path().join("stdout.txt");
    let mut cmd = common::informer();
    cmd.args(args)
        .stdout(std::fs::File::create(&file).unwrap())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let limit = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > limit {
            let _ = child.kill();
            panic!("bench did not finish within 60 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    assert_table_then_document(&std::fs::read_to_string(&file).unwrap());
}

#[cfg(unix)]
#[test]
fn an_export_to_a_fifo_is_written_into_and_a_users_partial_file_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 100);
    let fifo = dir.path().join("bench.json");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo (coreutils) runs")
        .success());
    let partial = dir.path().join("bench.partial");
    std::fs::write(&partial, "the user's").unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = fifo.clone();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::read_to_string(reader));
    });
    let out = run(&[
        "bench",
        "--from-file",
        &rec,
        "--export-json",
        fifo.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let read = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("the FIFO's reader got the document")
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&read).unwrap();
    assert_eq!(doc["counters"]["events"], 100);
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(std::fs::read_to_string(&partial).unwrap(), "the user's");
}

/// Users keep recordings: one of recording schema version 1 (made by the build before version 2)
/// still replays.
#[test]
fn a_recording_of_schema_version_1_still_replays() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recording-v1.jsonl");
    let out = run(&["bench", "--from-file", fixture.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("events: 6 in"), "{}", out.stdout);
}

#[test]
fn bad_input_is_one_line_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let rec = write_recording(dir.path(), 10);
    let not_json = dir.path().join("notes.txt");
    std::fs::write(&not_json, "hello\n").unwrap();
    let future = dir.path().join("future.json");
    std::fs::write(&future, "{\"schemaVersion\":3}\n").unwrap();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec![
                "--from-file",
                "/nonexistent",
                "--fail-if",
                "queueDuration.p99 50ms",
            ],
            vec!["--fail-if '", "no comparison"],
        ),
        (
            vec!["--from-file", &rec, "--fail-if", "queueDuration.p99 > 50"],
            vec!["a duration needs a unit, e.g. 50s or 50ms"],
        ),
        (
            vec!["--from-file", &rec, "--fail-if", "queueDuration.p99 > 1m30"],
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
            vec!["unknown metric \"lag\"", "queueDuration"],
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
            vec!["--from-file", &rec, "--baseline", future.to_str().unwrap()],
            vec!["--baseline", "schema version 2 or 1", "regenerate"],
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
        (vec!["-A"], vec!["-A with load", "--no-churn"]),
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
            vec!["before the warm-up of 1h was over", "shorten --warmup"],
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

/// The data lines of each Mermaid chart in a Markdown export, by their first word (`line`,
/// `bar`, `x-axis`), chart by chart.
fn mermaid_charts(markdown: &str) -> Vec<Vec<(String, String)>> {
    markdown
        .split("```mermaid\n")
        .skip(1)
        .map(|chart| {
            let body = chart.split("```").next().unwrap();
            body.lines()
                .skip(1)
                .filter_map(|l| l.trim().split_once(' '))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// `[1, 2, 3]` as numbers.
fn numbers(list: &str) -> Vec<f64> {
    list.trim_matches(|c| c == '[' || c == ']')
        .split(", ")
        .map(|n| {
            n.parse()
                .unwrap_or_else(|_| panic!("not a number: {n} in {list}"))
        })
        .collect()
}

/// The value of attribute `name` in each element of `html` that has it.
fn attributes(html: &str, name: &str) -> Vec<String> {
    let key = format!(" {name}=\"");
    html.split(&key)
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_string())
        .collect()
}

/// Milliseconds to three significant digits, as the charts write them.
fn ms(seconds: f64) -> f64 {
    let ms = seconds * 1e3;
    let scale = 10f64.powi(2 - ms.log10().floor() as i32);
    (ms * scale).round() / scale
}

#[test]
fn the_charts_draw_the_runs_samples_and_percentiles() {
    let dir = tempfile::tempdir().unwrap();
    // 1,500 events in 3 s for one handler of 5 ms: a backlog builds up, then the workers' queue.
    let rec = write_recording_spaced(dir.path(), 1500, 2);
    let [json, md, html] = ["bench.json", "bench.md", "bench.html"].map(|f| dir.path().join(f));
    let out = run(&[
        "bench",
        "--from-file",
        &rec,
        "--handler-time",
        "5ms",
        "--workers",
        "1",
        "--work-time",
        "2ms",
        "--warmup",
        "0s",
        "--export-json",
        json.to_str().unwrap(),
        "--export-markdown",
        md.to_str().unwrap(),
        "--export-html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let column = |name: &str| -> Vec<f64> {
        report["timeline"][name]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (seconds, backlog, depth) = (column("seconds"), column("backlog"), column("depth"));

    // The timeline is the run's samples (every 100 ms of the window and one at its end), as
    // many as the gauges took, whose peaks are the gauges' maxima.
    let window = report["windowSeconds"].as_f64().unwrap();
    for gauge in ["backlog", "depth"] {
        assert_eq!(
            seconds.len() as u64,
            report["metrics"][gauge]["samples"].as_u64().unwrap(),
            "{gauge}"
        );
    }
    // (The sample taken when the source ended may fall in the same millisecond as the last.)
    assert!(seconds.windows(2).all(|w| w[0] <= w[1]), "{seconds:?}");
    assert!(*seconds.last().unwrap() <= window + 0.001);
    assert_eq!(backlog.len(), seconds.len());
    assert_eq!(depth.len(), seconds.len());
    let peak = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    assert_eq!(
        peak(&backlog),
        report["metrics"]["backlog"]["max"].as_f64().unwrap()
    );
    assert_eq!(
        peak(&depth),
        report["metrics"]["depth"]["max"].as_f64().unwrap()
    );
    assert!(
        peak(&backlog) >= 50.0,
        "the handler fell behind: {backlog:?}"
    );

    // Markdown: the backlog and depth charts draw every sample, over the window; the latency
    // chart each stage's p99 (bars) and p50 (line).
    let charts = mermaid_charts(&std::fs::read_to_string(&md).unwrap());
    assert_eq!(charts.len(), 3, "{charts:?}");
    for (chart, column) in charts.iter().zip([&backlog, &depth]) {
        let get = |k: &str| chart.iter().find(|(key, _)| key == k).unwrap().1.clone();
        assert_eq!(&numbers(&get("line")), column);
        let end = seconds.last().unwrap();
        assert!(
            get("x-axis").ends_with(&format!("0 --> {end}")),
            "{chart:?}"
        );
    }
    let stages = [
        "deliveryLag",
        "handlerTime",
        "queueDuration",
        "workDuration",
    ];
    let of = |stat: &str| -> Vec<f64> {
        stages
            .iter()
            .map(|s| ms(report["metrics"][s][stat].as_f64().unwrap()))
            .collect()
    };
    let latency = &charts[2];
    let get = |k: &str| latency.iter().find(|(key, _)| key == k).unwrap().1.clone();
    assert_eq!(
        get("x-axis"),
        "[\"deliveryLag\", \"handlerTime\", \"queueDuration\", \"workDuration\"]"
    );
    assert_eq!(numbers(&get("bar")), of("p99"));
    assert_eq!(numbers(&get("line")), of("p50"));

    // HTML: the same samples, each drawn at its time (x grows with it) and value (y falls as it
    // grows), and each stage's four percentiles as bars; nothing fetched from elsewhere.
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    for external in ["<script", "src=", "href=", "@import", "url("] {
        assert!(
            !page.contains(external),
            "the page is self-contained: {external}"
        );
    }
    let parse = |list: &str| -> Vec<f64> { list.split(' ').map(|v| v.parse().unwrap()).collect() };
    let drawn_seconds = attributes(&page, "data-seconds");
    let drawn_values = attributes(&page, "data-values");
    let points = attributes(&page, "points");
    assert_eq!(drawn_seconds.len(), 2);
    for (i, column) in [&backlog, &depth].into_iter().enumerate() {
        assert_eq!(parse(&drawn_seconds[i]), seconds);
        assert_eq!(&parse(&drawn_values[i]), column);
        let xy: Vec<(f64, f64)> = points[i]
            .split(' ')
            .map(|p| {
                let (x, y) = p.split_once(',').unwrap();
                (x.parse().unwrap(), y.parse().unwrap())
            })
            .collect();
        assert_eq!(xy.len(), column.len());
        for (a, b) in xy
            .iter()
            .zip(column.iter())
            .zip(xy.iter().zip(column.iter()).skip(1))
        {
            let ((p, v), (q, w)) = (a, b);
            assert!(q.0 >= p.0, "x follows time");
            // y falls as the value grows (two values may round to one pixel's tenth).
            match v.partial_cmp(w).unwrap() {
                std::cmp::Ordering::Less => assert!(q.1 <= p.1, "{v} < {w}: {} {}", p.1, q.1),
                std::cmp::Ordering::Greater => assert!(q.1 >= p.1, "{v} > {w}: {} {}", p.1, q.1),
                std::cmp::Ordering::Equal => assert_eq!(q.1, p.1),
            }
        }
    }
    let latencies = attributes(&page, "data-latency");
    let percentiles = attributes(&page, "data-percentile");
    let drawn_ms = attributes(&page, "data-ms");
    assert_eq!(latencies.len(), 16);
    for ((stage, p), drawn) in latencies.iter().zip(&percentiles).zip(&drawn_ms) {
        let expected = ms(report["metrics"][stage.as_str()][p.as_str()]
            .as_f64()
            .unwrap());
        assert_eq!(drawn.parse::<f64>().unwrap(), expected, "{stage} {p}");
    }
}
