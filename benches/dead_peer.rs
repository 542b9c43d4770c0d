//! How long a watch takes to notice a dead peer: `kubectl informer tail` against
//! `kubectl get -w`, side by side through one loopback proxy in front of the local control
//! plane that freezes every open connection at once (no FIN, no RST: a dead NAT entry, a hung
//! load balancer, a frozen API server).
//!
//!     tests/controlplane/controlplane.sh up
//!     cargo bench --bench dead_peer -- [RUNS] [HEALTH_CHECK]
//!
//! Both watch the same quiet namespace; one ConfigMap is written and seen by both, so that both
//! received their last byte at the same moment; then the proxy freezes. For each program the
//! bench prints the seconds from the freeze to its reaction: tail's `watch-closed` notice and
//! its `watch-opened` on a new connection; kubectl's exit (client-go's HTTP/2 health check
//! fails the watch and `get -w` ends). Needs kubectl on PATH; figures go to BENCHMARKS.md.

#[path = "../tests/suite/common/mod.rs"]
mod common;

use common::FreezingProxy;
use std::io::BufRead;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(15 * 60);

/// A program's stdout lines with the moment each arrived; `None` when it exited.
fn lines(child: &mut Child) -> Receiver<(Instant, Option<String>)> {
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send((Instant::now(), Some(line)));
        }
        let _ = tx.send((Instant::now(), None));
    });
    rx
}

/// Waits for a line with `needle` (or for the end with `None`); returns when it came.
fn until(rx: &Receiver<(Instant, Option<String>)>, needle: Option<&str>, what: &str) -> Instant {
    let deadline = Instant::now() + LIMIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((at, Some(line))) if needle.is_some_and(|n| line.contains(n)) => return at,
            Ok((at, None)) if needle.is_none() => return at,
            Ok((_, None)) => panic!("the program ended before {what}"),
            Ok(_) => {}
            Err(_) => panic!("no {what} within {LIMIT:?}"),
        }
    }
}

fn kubectl(args: &[&str]) -> String {
    let out = Command::new("kubectl")
        .args(args)
        .output()
        .expect("kubectl on PATH");
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let runs: usize = args
        .first()
        .map_or(3, |a| a.parse().expect("RUNS is a number"));
    let health_check = args.get(1).map_or("30s", String::as_str).to_string();
    let admin = common::kubeconfig_path();
    let admin = admin.to_str().unwrap();
    let informer = env!("CARGO_BIN_EXE_kubectl-informer");
    let kubectl_version = kubectl(&["version", "--client", "-o", "json"]);
    let kubectl_version: serde_json::Value = serde_json::from_str(&kubectl_version).unwrap();
    println!(
        "kubectl {}; kubectl-informer --health-check {health_check}",
        kubectl_version["clientVersion"]["gitVersion"]
            .as_str()
            .unwrap_or("?")
    );
    println!("| run | tail watch-closed s | tail watch-opened s | kubectl get -w exit s |");
    println!("|---|---|---|---|");
    for run in 1..=runs {
        let ns = format!("dead-peer-{}-{run}", std::process::id());
        kubectl(&["--kubeconfig", admin, "create", "namespace", &ns]);
        kubectl(&[
            "--kubeconfig",
            admin,
            "-n",
            &ns,
            "create",
            "configmap",
            "first",
        ]);
        let dir = tempfile::tempdir().unwrap();
        let (proxy, kc) = FreezingProxy::for_test_server(dir.path());
        let kc = kc.to_str().unwrap().to_string();

        let mut tail = Command::new(informer)
            .args([
                "tail",
                "configmaps",
                "-n",
                &ns,
                "-o",
                "json",
                "--no-bookmarks",
            ])
            .args(["--health-check", &health_check, "--kubeconfig", &kc])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut get = Command::new("kubectl")
            .args([
                "get",
                "configmaps",
                "-n",
                &ns,
                "-w",
                "-o",
                "name",
                "--kubeconfig",
                &kc,
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let tail_lines = lines(&mut tail);
        let get_lines = lines(&mut get);
        until(
            &tail_lines,
            Some("\"notice\":\"watch-opened\""),
            "tail's watch",
        );
        until(&get_lines, Some("configmap/first"), "kubectl's first line");

        // The last bytes both receive before the freeze.
        kubectl(&[
            "--kubeconfig",
            admin,
            "-n",
            &ns,
            "create",
            "configmap",
            "last",
        ]);
        until(&tail_lines, Some("\"name\":\"last\""), "tail's event");
        until(&get_lines, Some("configmap/last"), "kubectl's event");

        proxy.freeze();
        let frozen = Instant::now();
        let closed = until(
            &tail_lines,
            Some("\"notice\":\"watch-closed\""),
            "watch-closed",
        );
        let reopened = until(
            &tail_lines,
            Some("\"notice\":\"watch-opened\""),
            "watch-opened",
        );
        let exited = until(&get_lines, None, "kubectl's exit");
        let secs = |at: Instant| format!("{:.1}", at.duration_since(frozen).as_secs_f64());
        println!(
            "| {run} | {} | {} | {} |",
            secs(closed),
            secs(reopened),
            secs(exited)
        );

        let _ = tail.kill();
        let _ = get.kill();
        let _ = tail.wait();
        let _ = get.wait();
        drop(proxy);
        kubectl(&[
            "--kubeconfig",
            admin,
            "delete",
            "namespace",
            &ns,
            "--wait=false",
        ]);
    }
}
