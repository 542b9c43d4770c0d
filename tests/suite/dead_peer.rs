//! A dead peer noticed as client-go notices it: through a proxy that freezes its open connections
//! (no FIN, no RST), tail's watch is closed by the HTTP/2 health check and resumed on a new
//! connection, with every event written meanwhile and none twice; a quiet watch whose PINGs are
//! answered is never cut; a LIST body that stops half-way is abandoned and retried.

use crate::common::controllers::{latest, rebuilt};
use crate::common::fake::{self, FakeServer, Reply, Step};
use crate::common::*;
use serde_json::Value;
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_frozen_connection_is_closed_by_the_health_check_and_the_watch_resumes_without_loss() {
    let ns = TestNamespace::new("freeze").await;
    ns.create_configmap("before", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let (proxy, kc) = FreezingProxy::for_test_server(dir.path());
    let kc = kc.to_str().unwrap().to_string();
    // 20 s without a frame, then 15 s for the PONG: at most 35 s from the last byte.
    let mut tail = Streaming::start(&[
        "tail",
        "configmaps",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--kubeconfig",
        &kc,
        "--health-check",
        "20s",
    ]);
    tail.wait_for_notice("watch-opened");
    let rv = ns.create_configmap("flowing", &[]).await;
    tail.wait_for(
        "the event of configmap flowing",
        Duration::from_secs(30),
        |l| l.contains(&format!("\"resourceVersion\":\"{rv}\"")),
    );
    assert_eq!(
        proxy.connections(),
        1,
        "one connection carries discovery, LIST and WATCH (HTTP/2)"
    );

    proxy.freeze();
    let frozen_at = Instant::now();
    // Written while tail's connection is frozen: tail must get every one after it resumes.
    for i in 0..5 {
        ns.create_configmap(&format!("during-{i}"), &[]).await;
    }
    ns.update_configmap("before", "changed").await;
    ns.delete_configmap("flowing").await;

    let closed = tail.wait_for_notice_within("watch-closed", Duration::from_secs(45));
    let detected = frozen_at.elapsed();
    let reason = closed["reason"].as_str().unwrap();
    assert!(
        reason.contains("health check"),
        "the notice says why: {closed}"
    );
    assert_eq!(
        closed["retryInSeconds"].as_f64(),
        Some(0.0),
        "resumed at once: {closed}"
    );
    eprintln!("frozen connection noticed after {detected:?}: {reason}");

    tail.wait_for_notice_within("watch-opened", Duration::from_secs(60));
    assert!(
        proxy.connections() >= 2,
        "the watch resumed on a new connection"
    );
    let expected = ns.configmap_versions().await;
    let lines = std::cell::RefCell::new(tail.seen.clone());
    tail.wait_for(
        "the state of the server rebuilt from tail's events",
        Duration::from_secs(60),
        |l| {
            lines.borrow_mut().push(l.to_string());
            rebuilt(&latest(&lines.borrow())) == expected
        },
    );
    // Nothing repeated anywhere in the run.
    assert_nothing_repeated(&parse_json_lines(&tail.seen));
    let relisted = tail
        .seen
        .iter()
        .any(|l| l.contains("\"notice\":\"expired\""));
    assert!(
        !relisted,
        "a resume from the last RV, not a relist:\n{}",
        tail.seen.join("\n")
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_quiet_watch_whose_health_checks_are_answered_is_never_cut() {
    let ns = TestNamespace::new("quiet").await;
    let dir = tempfile::tempdir().unwrap();
    let (proxy, kc) = FreezingProxy::for_test_server(dir.path());
    let kc = kc.to_str().unwrap().to_string();
    // No events and no bookmarks: only the health check's PINGs and PONGs cross the connection.
    let mut tail = Streaming::start(&[
        "tail",
        "configmaps",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--kubeconfig",
        &kc,
        "--no-bookmarks",
        "--health-check",
        "1s",
    ]);
    tail.wait_for_notice("watch-opened");
    let quiet_from = proxy.bytes_from_server();
    // Each answered PING is a TLS record of a 17-byte frame plus TLS 1.3's 22 bytes: 170 bytes
    // from the server are at least four answered checks (nothing else is sent on a quiet watch).
    let deadline = Instant::now() + Duration::from_secs(120);
    while proxy.bytes_from_server() < quiet_from + 10 * 17 {
        assert!(
            Instant::now() < deadline,
            "no health-check answers within 120 s ({} bytes from the server)",
            proxy.bytes_from_server() - quiet_from
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let rv = ns.create_configmap("after-quiet", &[]).await;
    tail.wait_for(
        "the event after the quiet time",
        Duration::from_secs(30),
        |l| l.contains(&format!("\"resourceVersion\":\"{rv}\"")),
    );
    assert!(
        !tail
            .seen
            .iter()
            .any(|l| l.contains("\"notice\":\"watch-closed\"")),
        "a quiet watch was cut:\n{}",
        tail.seen.join("\n")
    );
    assert_eq!(proxy.connections(), 1, "the same connection throughout");
}

/// A relist whose LIST sends half a page and stops: abandoned after the health check's window,
/// reported as `list-failed`, and retried with backoff; the retry completes the relist.
#[test]
fn a_list_that_stops_half_way_is_abandoned_and_retried() {
    let item = |name: &str, rv| fake::configmap(name, &format!("uid-{name}"), rv);
    let half_page = {
        let Reply::Json(_, whole) = fake::list(5, vec![item("a", 3), item("b", 4)]) else {
            unreachable!()
        };
        whole[..whole.len() / 2].to_string()
    };
    let server = FakeServer::start(move |path, n| {
        if path.starts_with("/api/v1/namespaces/ns/configmaps") && path.contains("watch=true") {
            return match n {
                0 => Reply::Stream(vec![fake::expired_event(5)]),
                _ => Reply::Stream(vec![
                    fake::event("ADDED", "c", "uid-c", 9),
                    Step::Sleep(Duration::from_secs(600)),
                ]),
            };
        }
        if path.starts_with("/api/v1/namespaces/ns/configmaps") {
            return match n {
                0 => fake::list(5, vec![item("a", 3), item("b", 4)]),
                1 => Reply::Stream(vec![
                    Step::Chunk(half_page.clone()),
                    Step::Sleep(Duration::from_secs(600)),
                ]),
                _ => fake::list(8, vec![item("a", 3), item("b", 7)]),
            };
        }
        if path == "/api" {
            return fake::core_discovery();
        }
        fake::empty_discovery()
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = fake::kubeconfig(dir.path(), &server.url);
    let out = run_with_limit(
        {
            let mut cmd = informer();
            cmd.args([
                "tail",
                "configmaps",
                "-n",
                "ns",
                "-o",
                "json",
                "--health-check",
                "1s",
                "--max-events",
                "4",
                "--kubeconfig",
            ])
            .arg(&kc);
            cmd
        },
        Duration::from_secs(120),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let failed = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "list-failed")
        .unwrap_or_else(|| panic!("no list-failed notice:\n{}", out.stdout));
    let error = failed["error"].as_str().unwrap();
    assert!(
        error.contains("stopped sending the response for 16s"),
        "the notice says the LIST stalled: {failed}"
    );
    assert!(failed["retryInSeconds"].as_f64().unwrap() > 0.0, "{failed}");
    let events: Vec<(String, String)> = out
        .object_events()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("ADDED", "a"),
            ("ADDED", "b"),
            ("MODIFIED", "b"),
            ("ADDED", "c")
        ]
        .map(|(t, n)| (t.to_string(), n.to_string())),
        "{}",
        out.stdout
    );
    let lists = server
        .requests()
        .iter()
        .filter(|r| r.contains("/configmaps") && !r.contains("watch=true"))
        .count();
    assert_eq!(lists, 3, "first LIST, the stalled relist, its retry");
}

/// `--request-timeout` bounds a stalled LIST before the health check's window does.
#[test]
fn request_timeout_still_bounds_a_stalled_list() {
    let server = FakeServer::start(move |path, _| {
        if path.starts_with("/api/v1/namespaces/ns/configmaps") {
            return Reply::Stream(vec![
                Step::Chunk("{\"kind\":\"ConfigMapList\",\"items\":[".to_string()),
                Step::Sleep(Duration::from_secs(600)),
            ]);
        }
        if path == "/api" {
            return fake::core_discovery();
        }
        fake::empty_discovery()
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = fake::kubeconfig(dir.path(), &server.url);
    let mut cmd = informer();
    cmd.args([
        "tail",
        "configmaps",
        "-n",
        "ns",
        "--request-timeout",
        "2s",
        "--kubeconfig",
    ])
    .arg(&kc);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_one_line_error(&out, &["list configmaps", "timed out after 2s"]);
}

/// The TCP keep-alive a connection kept on HTTP/1.1 relies on, as the kernel reports it
/// (`ss -o`, iproute2): on with the health check's idle time, off with `--health-check 0`.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn tcp_keepalive_follows_the_health_check() {
    let ns = TestNamespace::new("keepalive").await;
    let kc = kubeconfig_path();
    let kc = kc.to_str().unwrap();
    for (health_check, want) in [("20s", true), ("0", false)] {
        let mut tail = Streaming::start(&[
            "tail",
            "configmaps",
            "-n",
            &ns.name,
            "-o",
            "json",
            "--kubeconfig",
            kc,
            "--health-check",
            health_check,
        ]);
        tail.wait_for_notice("watch-opened");
        let ss = std::process::Command::new("ss")
            .args(["-tnpo", "state", "established"])
            .output()
            .expect("ss (Debian package iproute2) lists the sockets");
        let ss = String::from_utf8_lossy(&ss.stdout);
        let ours: Vec<&str> = ss
            .lines()
            .filter(|l| l.contains(&format!("pid={},", tail.pid())))
            .collect();
        assert!(!ours.is_empty(), "no socket of tail in:\n{ss}");
        for socket in ours {
            let timer = socket.split("timer:(").nth(1).unwrap_or("");
            if want {
                let secs: u64 = timer
                    .strip_prefix("keepalive,")
                    .and_then(|t| t.split("sec").next())
                    .and_then(|t| t.parse().ok())
                    .unwrap_or_else(|| panic!("--health-check {health_check}: {socket}"));
                assert!(secs <= 20, "--health-check {health_check}: {socket}");
            } else {
                assert!(
                    !timer.starts_with("keepalive"),
                    "--health-check 0: {socket}"
                );
            }
        }
    }
}

/// diff's watchdog through the same frozen proxy: its informer's watch and the LIST of the
/// comparison under way fail by the health check; it goes on, and once resumed on new
/// connections it compares the objects written during the freeze with no drift.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn diff_every_goes_on_through_a_frozen_connection_and_finds_no_drift() {
    let ns = TestNamespace::new("freeze-diff").await;
    ns.create_configmap("before", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let (proxy, kc) = FreezingProxy::for_test_server(dir.path());
    let kc = kc.to_str().unwrap().to_string();
    let mut diff = Merged::start(&[
        "diff",
        "configmaps",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--every",
        "2s",
        "--kubeconfig",
        &kc,
        "--health-check",
        "20s",
    ]);
    diff.wait_for(
        Stream::Out,
        "a first comparison",
        Duration::from_secs(60),
        |l| l.contains("\"compared\":1"),
    );
    proxy.freeze();
    for i in 0..3 {
        ns.create_configmap(&format!("during-{i}"), &[]).await;
    }
    // Up to 35 s for the health check, then the catch-up wait of an exact comparison whose RV
    // was compacted meanwhile: the cache reaches the server's newest RV with the next bookmark,
    // which the API server sends about once a minute.
    // The comparison in flight on the frozen connection fails with it, in the health check's
    // words, and the watchdog goes on.
    diff.wait_for(
        Stream::Err,
        "the failed comparison naming the health check",
        Duration::from_secs(60),
        |l| l.contains("the comparison failed") && l.contains("the health check got no answer"),
    );
    let report = diff.wait_for(
        Stream::Out,
        "a comparison of the 4 objects after the freeze",
        Duration::from_secs(180),
        |l| l.contains("\"compared\":4"),
    );
    let report: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(
        report["drift"],
        serde_json::json!({"missing":0,"ghost":0,"stale":0,"recreated":0,"content":0}),
        "{report}"
    );
    assert!(proxy.connections() >= 2, "resumed on a new connection");
}
