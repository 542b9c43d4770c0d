//! Throughput of tail's decode-and-print path against `kubectl get -w -o json`, on the same
//! recorded stream served by a loopback server: N MODIFIED events of K ConfigMaps of about 1 KB.
//!
//!     cargo bench --bench tail_throughput -- [EVENTS] [OBJECTS]
//!
//! With a third argument of 3 (and optionally a fourth, the number of rounds, 3 by default), the
//! same N events and K objects are split over three resources (configmaps, services,
//! endpoints) and `tail cm,svc,ep` is measured against `tail cm` on the whole stream, the two
//! alternated round after round, with `kubectl get cm,svc,ep -w -o json` as the peer:
//!
//!     cargo bench --bench tail_throughput -- [EVENTS] [OBJECTS] 3 [ROUNDS]
//!
//! Needs GNU time at /usr/bin/time (Debian package `time`) for peak memory, and kubectl on PATH
//! for the comparison. Prints one table row per run; figures go to BENCHMARKS.md.

#[path = "../tests/suite/common/fake.rs"]
mod fake;

use fake::{core_discovery_of, empty_discovery, FakeServer, Reply, Step};
use std::process::{Command, Stdio};
use std::time::Instant;

/// A resource the fake server serves: (plural, kind, short name).
type Served = (&'static str, &'static str, &'static str);

const CONFIGMAPS: Served = ("configmaps", "ConfigMap", "cm");
const THREE: [Served; 3] = [
    CONFIGMAPS,
    ("services", "Service", "svc"),
    ("endpoints", "Endpoints", "ep"),
];

/// The recorded stream: `events` MODIFIED events cycling over `objects` objects, event `i` of
/// resource `i % resources.len()` with RV 1000 + i; one watch stream per resource.
fn streams(events: usize, objects: usize, resources: &[Served]) -> Vec<Vec<Step>> {
    let payload = "x".repeat(900);
    let n = resources.len();
    let per_resource = objects.div_ceil(n).max(1);
    let mut steps = vec![Vec::new(); n];
    let mut chunks = vec![String::with_capacity(1 << 16); n];
    for i in 0..events {
        let (r, k) = (i % n, (i / n) % per_resource);
        let kind = resources[r].1;
        let prefix = match kind {
            "ConfigMap" => "cm".to_string(),
            other => other.to_ascii_lowercase(),
        };
        let line = serde_json::json!({"type": "MODIFIED", "object": {
            "kind": kind, "apiVersion": "v1",
            "metadata": {"name": format!("{prefix}-{k}"), "namespace": "ns",
                "uid": format!("uid-{prefix}-{k}"),
                "resourceVersion": (1000 + i).to_string(), "labels": {"app": "bench"}},
            "data": {"payload": payload, "n": i.to_string()}
        }});
        let chunk = &mut chunks[r];
        chunk.push_str(&line.to_string());
        chunk.push('\n');
        if chunk.len() > 60_000 {
            steps[r].push(Step::Chunk(std::mem::take(chunk)));
        }
    }
    for (r, chunk) in chunks.into_iter().enumerate() {
        if !chunk.is_empty() {
            steps[r].push(Step::Chunk(chunk));
        }
    }
    steps
}

/// Serves `resources` in namespace `ns`: an empty LIST at RV 999, then each one's stream.
fn serve(resources: &[Served], streams: Vec<Vec<Step>>) -> FakeServer {
    let discovery: Vec<(&str, &str, &[&str])> = resources
        .iter()
        .map(|r| (r.0, r.1, std::slice::from_ref(&r.2)))
        .collect();
    let discovery = core_discovery_of(&discovery);
    let served: Vec<(String, &str, Vec<Step>)> = resources
        .iter()
        .zip(streams)
        .map(|(r, steps)| (format!("/api/v1/namespaces/ns/{}", r.0), r.1, steps))
        .collect();
    FakeServer::start(move |target, _| {
        let path = target.split('?').next().unwrap_or("");
        match path {
            "/api" => discovery.clone(),
            "/apis" => empty_discovery(),
            _ => match served.iter().find(|(p, ..)| p == path) {
                Some((_, _, steps)) if target.contains("watch=true") => {
                    Reply::Stream(steps.clone())
                }
                Some((_, kind, _)) => Reply::Json(
                    200,
                    format!(
                        r#"{{"kind":"{kind}List","apiVersion":"v1","metadata":{{"resourceVersion":"999"}},"items":[]}}"#
                    ),
                ),
                None => Reply::Json(
                    404,
                    r#"{"kind":"Status","code":404,"reason":"NotFound","message":"not found"}"#
                        .into(),
                ),
            },
        }
    })
}

fn bytes(streams: &[Vec<Step>]) -> usize {
    streams
        .iter()
        .flatten()
        .map(|s| match s {
            Step::Chunk(c) => c.len(),
            _ => 0,
        })
        .sum()
}

/// What GNU time measured of one run.
#[derive(Clone, Copy)]
struct Run {
    /// Wall seconds from the start to the end of the run.
    secs: f64,
    /// CPU seconds, user and system: less disturbed than wall time by what else the machine runs.
    cpu: f64,
    /// Peak RSS in KiB.
    rss: u64,
}

/// Runs `program args` under GNU time with stdout to /dev/null, or the first line of what it
/// said on failure.
fn measure(program: &str, args: &[&str], kubeconfig: &str) -> Result<Run, String> {
    let mut runs = measure_together(&[(program, args.to_vec())], kubeconfig)?;
    Ok(runs.remove(0))
}

/// Runs the `programs` at once, each under GNU time with stdout to /dev/null; each run's wall
/// time counts from the common start.
fn measure_together(programs: &[(&str, Vec<&str>)], kubeconfig: &str) -> Result<Vec<Run>, String> {
    let started = Instant::now();
    let children = programs
        .iter()
        .map(|(program, args)| {
            Command::new("/usr/bin/time")
                .args(["-f", "%U %S %M"])
                .arg(program)
                .args(args)
                .env("KUBECONFIG", kubeconfig)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| format!("{program}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut results = Vec::new();
    for child in children {
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        let secs = started.elapsed().as_secs_f64();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            eprintln!("failed: {stderr}");
            return Err(stderr.lines().next().unwrap_or_default().to_string());
        }
        let figures: Vec<f64> = stderr
            .lines()
            .last()
            .map(|l| {
                l.split_whitespace()
                    .filter_map(|f| f.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        let [user, system, rss] = figures[..] else {
            return Err(format!("no CPU times and peak RSS from GNU time: {stderr}"));
        };
        results.push(Run {
            secs,
            cpu: user + system,
            rss: rss as u64,
        });
    }
    Ok(results)
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let events: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let objects: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let resources: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
    let rounds: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(3);
    let dir = std::env::temp_dir().join(format!("tail-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    match resources {
        1 => one_resource(events, objects, &dir),
        3 => three_resources(events, objects, rounds, &dir),
        other => eprintln!("RESOURCES is 1 or 3, not {other}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A fake server of `resources` and a kubeconfig for it, in a directory of its own under `dir`.
fn start(
    events: usize,
    objects: usize,
    resources: &[Served],
    dir: &std::path::Path,
) -> (FakeServer, String, usize) {
    let streams = streams(events, objects, resources);
    let size = bytes(&streams);
    let server = serve(resources, streams);
    let dir = dir.join(resources.len().to_string());
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = fake::kubeconfig(&dir, &server.url);
    (server, kubeconfig.to_str().unwrap().to_string(), size)
}

/// The original mode: tail -o json, tail -o text and kubectl, once each, on one resource.
fn one_resource(events: usize, objects: usize, dir: &std::path::Path) {
    let (_server, kubeconfig, size) = start(events, objects, &[CONFIGMAPS], dir);
    let tail = env!("CARGO_BIN_EXE_kubectl-informer");

    println!(
        "stream: {events} MODIFIED events of {objects} ConfigMaps, {:.1} MB",
        size as f64 / 1e6
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
        match measure(program, &args, &kubeconfig) {
            Ok(run) => println!(
                "| {label} | {:.2} | {:.0} | {:.1} |",
                run.secs,
                events as f64 / run.secs,
                run.rss as f64 / 1024.0
            ),
            Err(_) => println!("| {label} | failed or not installed | | |"),
        }
    }
}

/// One command of the comparison, as run on one resource and on three.
struct Compared {
    label: &'static str,
    one: Vec<Run>,
    three: Vec<Run>,
}

/// `tail cm` on the whole stream against `tail cm,svc,ep` on the same events split in three,
/// alternated for `rounds` rounds, with kubectl as the peer: wall and CPU µs per event of each.
fn three_resources(events: usize, objects: usize, rounds: usize, dir: &std::path::Path) {
    let (_one, one_kubeconfig, one_size) = start(events, objects, &[CONFIGMAPS], dir);
    let (_three, three_kubeconfig, three_size) = start(events, objects, &THREE, dir);
    let tail = env!("CARGO_BIN_EXE_kubectl-informer");
    println!(
        "stream: {events} MODIFIED events of {objects} objects of about 1 KB: of configmaps \
         ({:.1} MB), and split over configmaps, services and endpoints ({:.1} MB); {rounds} rounds",
        one_size as f64 / 1e6,
        three_size as f64 / 1e6
    );
    println!(
        "| round | command | resources | wall s | wall µs/event | CPU µs/event | peak RSS MiB |"
    );
    println!("|---|---|---|---|---|---|---|");
    let us = |secs: f64| secs * 1e6 / events as f64;
    let row = |round: usize, label: &str, resources: usize, run: Run| {
        println!(
            "| {round} | {label} | {resources} | {:.2} | {:.2} | {:.2} | {:.1} |",
            run.secs,
            us(run.secs),
            us(run.cpu),
            run.rss as f64 / 1024.0
        )
    };
    let mut compared: Vec<Compared> = ["tail -o json", "tail -o text", "kubectl get -w -o json"]
        .into_iter()
        .map(|label| Compared {
            label,
            one: Vec::new(),
            three: Vec::new(),
        })
        .collect();
    let mut kubectl_three: Option<String> = None;
    let mut kubectl_apart = Vec::new();
    for round in 1..=rounds {
        // Which goes first alternates, so neither always follows the other.
        let order: [usize; 2] = if round % 2 == 1 { [1, 3] } else { [3, 1] };
        for (c, output) in [(0, "json"), (1, "text")] {
            for resources in order {
                let (names, kubeconfig) = match resources {
                    1 => ("cm", &one_kubeconfig),
                    _ => ("cm,svc,ep", &three_kubeconfig),
                };
                let args = ["tail", names, "-n", "ns", "-o", output, "--no-reconnect"];
                let label = format!("tail {names} -o {output}");
                match measure(tail, &args, kubeconfig) {
                    Ok(run) => {
                        row(round, &label, resources, run);
                        match resources {
                            1 => compared[c].one.push(run),
                            _ => compared[c].three.push(run),
                        }
                    }
                    Err(e) => println!("| {round} | {label} | failed: {e} | | | | |"),
                }
            }
        }
        let get = |names| vec!["get", names, "-n", "ns", "-w", "-o", "json"];
        match measure("kubectl", &get("configmaps"), &one_kubeconfig) {
            Ok(run) => {
                row(round, "kubectl get configmaps -w -o json", 1, run);
                compared[2].one.push(run);
            }
            Err(e) => println!("| {round} | kubectl get configmaps -w | failed: {e} | | | | |"),
        }
        let all = "configmaps,services,endpoints";
        match measure("kubectl", &get(all), &three_kubeconfig) {
            Ok(run) => {
                row(round, &format!("kubectl get {all} -w -o json"), 3, run);
                compared[2].three.push(run);
            }
            Err(e) => {
                println!("| {round} | kubectl get {all} -w -o json | refused: {e} | | | | |");
                kubectl_three = Some(e);
            }
        }
        // What a kubectl user does instead: one `get -w` per resource, at once.
        let apart: Vec<(&str, Vec<&str>)> = THREE.iter().map(|r| ("kubectl", get(r.0))).collect();
        match measure_together(&apart, &three_kubeconfig) {
            Ok(runs) => {
                let together = Run {
                    secs: runs.iter().map(|r| r.secs).fold(0.0, f64::max),
                    cpu: runs.iter().map(|r| r.cpu).sum(),
                    rss: runs.iter().map(|r| r.rss).sum(),
                };
                let label = "3 x kubectl get -w -o json at once (CPU and RSS summed)";
                row(round, label, 3, together);
                kubectl_apart.push(together);
            }
            Err(e) => println!("| {round} | 3 x kubectl get -w -o json | failed: {e} | | | | |"),
        }
    }
    println!();
    println!("µs per event, median of the rounds (each round's in brackets):");
    println!("| command | figure | 1 resource | 3 resources | 3 / 1 |");
    println!("|---|---|---|---|---|");
    let print = |label: &str, one: &[Run], three: &[Run]| {
        for figure in ["wall", "CPU"] {
            let of = |r: &Run| us(if figure == "wall" { r.secs } else { r.cpu });
            let one: Vec<f64> = one.iter().map(of).collect();
            let three: Vec<f64> = three.iter().map(of).collect();
            println!(
                "| {label} | {figure} | {:.2} ({}) | {:.2} ({}) | {:.3} |",
                median(&one),
                list(&one),
                median(&three),
                list(&three),
                median(&three) / median(&one)
            );
        }
    };
    for c in compared
        .iter()
        .filter(|c| !c.one.is_empty() && !c.three.is_empty())
    {
        print(c.label, &c.one, &c.three);
    }
    if !kubectl_apart.is_empty() && !compared[2].one.is_empty() {
        print(
            "3 x kubectl get -w at once",
            &compared[2].one,
            &kubectl_apart,
        );
    }
    if let Some(e) = kubectl_three {
        println!();
        println!("kubectl get configmaps,services,endpoints -w -o json: {e}");
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    match sorted.len() % 2 {
        1 => sorted[mid],
        _ => (sorted[mid - 1] + sorted[mid]) / 2.0,
    }
}

fn list(values: &[f64]) -> String {
    let each: Vec<String> = values.iter().map(|v| format!("{v:.2}")).collect();
    each.join(", ")
}
