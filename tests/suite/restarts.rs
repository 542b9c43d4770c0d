//! The API server or etcd restarting under a running tail, diff --every and bench. Each
//! test runs its own etcd + kube-apiserver pair (`controlplane.sh pair`, the shared servers are
//! never touched) while a writer creates, updates and deletes ConfigMaps, and kills, stops or
//! restarts one of them. Afterwards tail's events, applied in order, rebuild exactly what a fresh
//! LIST returns (nothing lost), no event comes twice (nothing repeated), and the notices say what
//! happened.

use crate::common::controllers::{latest, rebuilt};
use crate::common::*;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(120);

/// Creates, updates and deletes ConfigMaps in a namespace until stopped, about 10 writes a second
/// over a few names, going on through errors (every write fails while the server is down, and
/// hangs until its 5 s timeout while it is stopped).
struct Writer {
    stop: Arc<AtomicBool>,
    ok: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<()>,
}

impl Writer {
    async fn start(kubeconfig: &Path, namespace: &str) -> Self {
        let kc = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
        let mut config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
            .await
            .unwrap();
        config.connect_timeout = Some(Duration::from_secs(2));
        config.read_timeout = Some(Duration::from_secs(5));
        config.write_timeout = Some(Duration::from_secs(5));
        let api: Api<ConfigMap> =
            Api::namespaced(kube::Client::try_from(config).unwrap(), namespace);
        let (stop, ok, failed) = (Arc::default(), Arc::default(), Arc::default());
        let task = {
            let (stop, ok, failed): (Arc<AtomicBool>, Arc<AtomicU64>, Arc<AtomicU64>) =
                (Arc::clone(&stop), Arc::clone(&ok), Arc::clone(&failed));
            tokio::spawn(async move {
                let mut i: u64 = 0;
                while !stop.load(Ordering::SeqCst) {
                    // Each name goes create, update, delete in turn, the names out of step, so
                    // that about two thirds of them exist at any time.
                    let k = i % 6;
                    let name = format!("w-{k}");
                    let done = match (i / 6 + k) % 3 {
                        0 => {
                            let cm: ConfigMap = serde_json::from_value(json!({
                                "metadata": {"name": name}, "data": {"i": i.to_string()}
                            }))
                            .unwrap();
                            api.create(&PostParams::default(), &cm).await.map(drop)
                        }
                        1 => {
                            let patch = json!({"data": {"i": i.to_string()}});
                            api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                                .await
                                .map(drop)
                        }
                        _ => api.delete(&name, &DeleteParams::default()).await.map(drop),
                    };
                    match done {
                        Ok(()) => ok.fetch_add(1, Ordering::SeqCst),
                        Err(_) => failed.fetch_add(1, Ordering::SeqCst),
                    };
                    i += 1;
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            })
        };
        Writer {
            stop,
            ok,
            failed,
            task,
        }
    }

    fn ok(&self) -> u64 {
        self.ok.load(Ordering::SeqCst)
    }

    fn failed(&self) -> u64 {
        self.failed.load(Ordering::SeqCst)
    }

    /// Waits until `n` more writes than now have succeeded (within `limit`).
    async fn until_more_succeed(&self, n: u64, limit: Duration) {
        let want = self.ok() + n;
        let deadline = Instant::now() + limit;
        while self.ok() < want {
            assert!(
                Instant::now() < deadline,
                "the writer made {} of {want} writes within {limit:?} ({} failed)",
                self.ok(),
                self.failed()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until `n` more writes than now have failed (within `limit`).
    async fn until_more_fail(&self, n: u64, limit: Duration) {
        let want = self.failed() + n;
        let deadline = Instant::now() + limit;
        while self.failed() < want {
            assert!(
                Instant::now() < deadline,
                "{} of {want} failed writes within {limit:?}",
                self.failed()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        self.task.await.unwrap();
    }
}

fn notice(l: &Value) -> &str {
    l["notice"].as_str().unwrap_or_default()
}

/// The server's writes were all seen: waits (within `LIMIT`) until tail's events rebuild what a
/// fresh LIST returns, then checks that nothing was repeated.
async fn assert_tail_rebuilds_the_server(tail: &mut Streaming, ns: &TestNamespace) -> Vec<Value> {
    let want = ns.configmap_versions().await;
    let lines = std::cell::RefCell::new(tail.seen.clone());
    if rebuilt(&latest(&lines.borrow())) != want {
        tail.wait_for(
            "the server's state rebuilt from tail's events",
            LIMIT,
            |l| {
                lines.borrow_mut().push(l.to_string());
                rebuilt(&latest(&lines.borrow())) == want
            },
        );
    }
    let lines = parse_json_lines(&lines.into_inner());
    assert_nothing_repeated(&lines);
    lines
}

/// What a test does to its servers while tail watches and the writer writes.
enum Disruption {
    /// SIGKILL to the API server, then the same command again.
    KillApiServer,
    /// SIGTERM to the API server, its exit, then the same command again.
    RestartApiServer,
    /// SIGSTOP to the API server for 60 s, then SIGCONT.
    StopApiServer,
    /// SIGKILL to etcd under the running API server, then the same command again.
    KillEtcd,
}

fn start_tail(pair: &PrivatePair, ns: &TestNamespace) -> Streaming {
    let mut tail = Streaming::start(&[
        "tail",
        "configmaps",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--kubeconfig",
        pair.kubeconfig(),
    ]);
    tail.wait_for_notice_within("watch-opened", Duration::from_secs(60));
    tail
}

/// Object events tail has printed so far.
fn object_events(tail: &Streaming) -> usize {
    parse_json_lines(&tail.seen)
        .iter()
        .filter(|l| l["type"] != "NOTICE" && l["type"] != "BOOKMARK")
        .count()
}

/// Runs `disruption` under tail and the writer; returns tail's lines and the index of the first
/// line printed after the disruption began.
async fn tail_across(disruption: Disruption) -> (Vec<Value>, usize) {
    let mut pair = PrivatePair::start().await;
    let ns =
        TestNamespace::with_client("restart", client_at(&pair.kubeconfig, "admin").await).await;
    let mut tail = start_tail(&pair, &ns);
    let writer = Writer::start(&pair.kubeconfig, &ns.name).await;
    let before = object_events(&tail);
    while object_events(&tail) < before + 10 {
        tail.wait_for("an object event", Duration::from_secs(60), |l| {
            !l.contains("\"type\":\"NOTICE\"") && !l.contains("\"type\":\"BOOKMARK\"")
        });
    }
    let from = tail.seen.len();
    match disruption {
        Disruption::KillApiServer => {
            pair.kill_apiserver();
            // Restarted once tail has been refused: the refusal is part of what it must report.
            tail.wait_for("a refused connection", LIMIT, |l| {
                l.to_lowercase().contains("connection refused")
            });
            pair.start_apiserver();
        }
        Disruption::RestartApiServer => {
            // kube-apiserver refuses new connections at once but keeps the watches it serves
            // open for up to its 60 s shutdown timeout before it exits.
            let status = pair.stop_apiserver(LIMIT);
            assert!(
                status.success(),
                "kube-apiserver's exit on SIGTERM: {status}"
            );
            tail.wait_for("a refused connection", LIMIT, |l| {
                l.to_lowercase().contains("connection refused")
            });
            pair.start_apiserver();
        }
        Disruption::StopApiServer => {
            pair.signal_apiserver("STOP");
            writer.until_more_fail(3, LIMIT).await;
            // The scenario itself: a server that answers nothing for a minute.
            tokio::time::sleep(Duration::from_secs(60)).await;
            pair.signal_apiserver("CONT");
        }
        Disruption::KillEtcd => {
            pair.kill_etcd();
            writer.until_more_fail(3, LIMIT).await;
            pair.start_etcd();
        }
    }
    pair.wait_ready(LIMIT).await;
    writer.until_more_succeed(30, LIMIT).await;
    writer.stop().await;
    let lines = assert_tail_rebuilds_the_server(&mut tail, &ns).await;
    tail.stop_reading_stdout();
    // And an informer of diff's, built after it all, finds the server as tail does: no drift.
    let diff = run(&[
        "diff",
        "configmaps",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--kubeconfig",
        pair.kubeconfig(),
    ]);
    assert_eq!(
        diff.code,
        Some(0),
        "diff after the disruption:\n{}{}",
        diff.stdout,
        diff.stderr
    );
    (lines, from)
}

/// The notices printed after a disruption, for the failure message and the test's log.
fn notices(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["type"] == "NOTICE")
        .map(|l| l.to_string())
        .collect()
}

/// The index of the first line at or after `from` that is the notice `name` and satisfies `pred`.
fn find(lines: &[Value], from: usize, name: &str, pred: impl Fn(&Value) -> bool) -> Option<usize> {
    (from..lines.len()).find(|&i| notice(&lines[i]) == name && pred(&lines[i]))
}

/// After an API server went away: the watch closed, reopening it was refused (the notice says
/// so), and once the server was back tail either resumed from the RV it had, or was told 410 (the
/// new server's watch cache starts after that RV), relisted and watched from the relist.
fn assert_resumed_after_refusals(lines: &[Value], from: usize) {
    let all = notices(&lines[from..]).join("\n");
    let closed = find(lines, from, "watch-closed", |_| true)
        .unwrap_or_else(|| panic!("no watch-closed notice: {all}"));
    let closed_rv = lines[closed]["resourceVersion"].as_str().unwrap();
    let refused = find(lines, closed, "watch-failed", |l| {
        l["error"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("connection refused")
    })
    .unwrap_or_else(|| panic!("no watch-failed notice naming the refused connection: {all}"));
    assert_eq!(lines[refused]["resourceVersion"], closed_rv, "{all}");
    assert_resumed_or_relisted(lines, refused, closed_rv);
}

/// After `at`, the watch opened again: from `closed_rv`, or, when the server no longer had it
/// (410), after a relist, from the relist's RV.
fn assert_resumed_or_relisted(lines: &[Value], at: usize, closed_rv: &str) {
    let all = notices(&lines[at..]).join("\n");
    let back = find(lines, at, "watch-opened", |_| true)
        .unwrap_or_else(|| panic!("the watch never opened again: {all}"));
    match find(lines, at, "expired", |_| true).filter(|&e| e < back) {
        // The new server's watch cache starts after the RV tail had: 410, then a relist.
        Some(expired) => {
            let l = &lines[expired];
            assert_eq!(l["resourceVersion"], closed_rv, "{all}");
            assert!(
                l["message"]
                    .as_str()
                    .unwrap()
                    .contains("too old resource version"),
                "{all}"
            );
            assert!(l["oldestResourceVersion"].is_string(), "{all}");
            let relisted = find(lines, expired, "list-complete", |l| l["relist"] == true)
                .unwrap_or_else(|| panic!("no relist after the 410: {all}"));
            let reopened = find(lines, relisted, "watch-opened", |_| true)
                .unwrap_or_else(|| panic!("no watch after the relist: {all}"));
            assert_eq!(
                lines[reopened]["resourceVersion"], lines[relisted]["resourceVersion"],
                "{all}"
            );
        }
        // The new server could serve the RV tail had: resumed from it.
        None => assert_eq!(lines[back]["resourceVersion"], closed_rv, "{all}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane's binaries (tests/controlplane/controlplane.sh build); starts API servers of its own: cargo test -- --ignored"]
async fn tail_loses_and_repeats_nothing_when_the_api_server_is_killed_and_started_again() {
    let (lines, from) = tail_across(Disruption::KillApiServer).await;
    eprintln!("{}", notices(&lines[from..]).join("\n"));
    assert_resumed_after_refusals(&lines, from);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane's binaries (tests/controlplane/controlplane.sh build); starts API servers of its own: cargo test -- --ignored"]
async fn tail_loses_and_repeats_nothing_when_the_api_server_restarts_cleanly() {
    let (lines, from) = tail_across(Disruption::RestartApiServer).await;
    eprintln!("{}", notices(&lines[from..]).join("\n"));
    assert_resumed_after_refusals(&lines, from);
}

/// A server that answers nothing (SIGSTOP) keeps its TCP connection open: only the health
/// check can tell, and tail must say so (a `watch-closed` naming it) and resume once the server
/// answers again; a tail that only waited the minute out would not pass.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane's binaries (tests/controlplane/controlplane.sh build); starts API servers of its own: cargo test -- --ignored"]
async fn tail_loses_and_repeats_nothing_when_the_api_server_is_stopped_for_a_minute() {
    let (lines, from) = tail_across(Disruption::StopApiServer).await;
    let all = notices(&lines[from..]).join("\n");
    eprintln!("{all}");
    let closed = find(lines.as_slice(), from, "watch-closed", |l| {
        l["reason"]
            .as_str()
            .unwrap()
            .contains("the health check got no answer")
    })
    .unwrap_or_else(|| panic!("no watch-closed notice naming the health check: {all}"));
    let closed_rv = lines[closed]["resourceVersion"].as_str().unwrap();
    assert_resumed_or_relisted(&lines, closed, closed_rv);
}

/// With etcd killed under it, kube-apiserver keeps its watches open (events stop, then its watch
/// cache catches up with etcd again), so a tail may see no trouble at all; whatever watch it
/// lost, it must have opened again, and the state it printed is the server's (checked above).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane's binaries (tests/controlplane/controlplane.sh build); starts API servers of its own: cargo test -- --ignored"]
async fn tail_loses_and_repeats_nothing_when_etcd_is_killed_and_started_again() {
    let (lines, from) = tail_across(Disruption::KillEtcd).await;
    let all = notices(&lines[from..]).join("\n");
    eprintln!("{all}");
    let mut at = from;
    while let Some(closed) = find(&lines, at, "watch-closed", |_| true) {
        let closed_rv = lines[closed]["resourceVersion"].as_str().unwrap();
        assert_resumed_or_relisted(&lines, closed, closed_rv);
        at = closed + 1;
    }
}

/// The reports of a `diff -o json` run so far.
fn reports(diff: &Merged) -> Vec<Value> {
    diff.seen
        .iter()
        .filter(|(from, _)| *from == Stream::Out)
        .map(|(_, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn no_drift(report: &Value) -> bool {
    report["drift"]
        .as_object()
        .unwrap()
        .values()
        .all(|n| n == 0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up), and starts API servers of its own: cargo test -- --ignored"]
async fn diff_every_says_why_comparisons_fail_while_the_api_server_restarts_and_finds_no_drift_after(
) {
    let mut pair = PrivatePair::start().await;
    let ns = TestNamespace::with_client("restart-diff", client_at(&pair.kubeconfig, "admin").await)
        .await;
    let writer = Writer::start(&pair.kubeconfig, &ns.name).await;
    writer.until_more_succeed(10, LIMIT).await;
    let mut diff = Merged::start(&[
        "diff",
        "configmaps",
        "-n",
        &ns.name,
        "--every",
        "2s",
        "-o",
        "json",
        "--kubeconfig",
        pair.kubeconfig(),
    ]);
    diff.wait_for(Stream::Out, "a first report", LIMIT, |_| true);

    pair.kill_apiserver();
    let failed = diff.wait_for(Stream::Err, "a failed comparison", LIMIT, |l| {
        l.starts_with("diff: the comparison failed")
    });
    assert!(
        failed.to_lowercase().contains("connection refused"),
        "{failed}"
    );
    assert!(failed.ends_with("comparing again in 2s"), "{failed}");
    pair.start_apiserver();
    pair.wait_ready(LIMIT).await;
    writer.until_more_succeed(20, LIMIT).await;
    writer.stop().await;
    // A report of the server's final state: the writes are over, the informer has them all.
    let want = ns.configmap_versions().await.len() as u64;
    let after = reports(&diff).len();
    diff.wait_for(Stream::Out, "a report after the restart", LIMIT, |l| {
        serde_json::from_str::<Value>(l).unwrap()["compared"] == want
    });
    let code = diff.interrupt(Duration::from_secs(30));
    let transcript = diff.transcript();
    eprintln!("{transcript}");
    assert_eq!(code, Some(130), "{transcript}");
    let reports = reports(&diff);
    assert!(reports.len() > after, "{transcript}");
    for report in &reports {
        assert!(no_drift(report), "drift reported: {report}\n{transcript}");
    }
    let watchdog = &reports.last().unwrap()["watchdog"];
    assert_eq!(
        watchdog["comparisons"],
        reports.len() as u64,
        "{transcript}"
    );
    assert!(!transcript.contains("panicked"), "{transcript}");
    // What happened to the informer's watch is said too: lost, refused, back.
    for said in ["diff: watch closed at RV", "Connection refused"] {
        assert!(
            transcript.contains(said),
            "{said:?} not said:\n{transcript}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane's binaries (tests/controlplane/controlplane.sh build); starts API servers of its own: cargo test -- --ignored"]
async fn bench_live_completes_across_an_api_server_restart() {
    let mut pair = PrivatePair::start().await;
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("report.json");
    let mut bench = Spawned::start(&[
        "bench",
        "configmaps",
        "--objects",
        "20",
        "--rate",
        "20",
        "--for",
        "40s",
        "--export-json",
        export.to_str().unwrap(),
        "--kubeconfig",
        pair.kubeconfig(),
    ]);
    bench.wait_for("the clock starts now");
    pair.kill_apiserver();
    pair.start_apiserver();
    pair.wait_ready(LIMIT).await;
    let code = bench.wait(LIMIT);
    let stderr = bench.seen.join("\n");
    eprintln!("{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    // The writes made while the server was away failed and were counted; the watch came back.
    assert!(
        report["generator"]["errors"].as_u64().unwrap() > 0,
        "{report}"
    );
    let counters = &report["counters"];
    assert!(counters["reconnects"].as_u64().unwrap() >= 1, "{counters}");
    assert!(counters["writes"].as_u64().unwrap() > 0, "{counters}");
    // The scratch namespace is being deleted on the restarted server too (the pair runs no
    // namespace controller to finish it).
    let scratch = stderr
        .lines()
        .find_map(|l| l.strip_prefix("bench: created namespace "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no created-namespace notice: {stderr}"))
        .to_string();
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> =
        Api::all(client_at(&pair.kubeconfig, "admin").await);
    match namespaces.get_opt(&scratch).await.unwrap() {
        None => {}
        Some(ns) => assert!(
            ns.metadata.deletion_timestamp.is_some(),
            "{scratch} left behind"
        ),
    }
}
