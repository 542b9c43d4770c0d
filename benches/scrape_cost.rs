//! What scraping a controller's metrics costs our process: `kubectl informer top` against
//! kube-controller-manager's /metrics on the local control plane (about 4,000 lines, 235
//! families), every second for a minute, its CPU time (user + system, from GNU time) set beside
//! the same scrapes made by curl, which fetches the text and reads nothing of it: the floor of
//! the HTTP and TLS work.
//!
//!     tests/controlplane/controlplane.sh up
//!     cargo bench --bench scrape_cost -- [SECONDS]
//!
//! Needs curl and GNU time at /usr/bin/time; figures go to BENCHMARKS.md.

#[path = "../tests/common/mod.rs"]
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
    let seconds: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(60);
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
}
