//! `bench` against the real control plane: the scratch namespace is created and removed (also on
//! Ctrl-C), every write bench made is matched with its watch event, the export is valid JSON;
//! `--no-churn` measures an existing namespace without creating anything.

use crate::common;
use crate::common::bench::{assert_namespace_removed, assert_scratch_removed, scratch_namespace};
use crate::common::{
    admin, assert_one_line_error, assert_promtool_accepts, run, server_and_ca, Spawned,
    TestNamespace,
};
use std::time::Duration;

/// Sends SIGINT to the running bench and asserts exit 130 with its scratch namespace `ns`
/// deleted.
async fn interrupt_and_expect_cleanup(bench: &mut Spawned, ns: &str) {
    signal_and_expect_cleanup(bench, ns, "-INT", 130).await;
}

/// Sends `signal` (`-INT`, `-TERM`) to the running bench and asserts exit `code` with its
/// scratch namespace `ns` deleted.
async fn signal_and_expect_cleanup(bench: &mut Spawned, ns: &str, signal: &str, code: i32) {
    let status = std::process::Command::new("kill")
        .args([signal, &bench.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(bench.wait(Duration::from_secs(30)), Some(code));
    assert!(
        bench
            .seen
            .iter()
            .any(|l| l == &format!("bench: deleted namespace {ns}")),
        "{:?}",
        bench.seen
    );
    assert_namespace_removed(ns).await;
}

#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn a_live_run_measures_every_write_and_removes_its_namespace() {
    admin().await;
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("live.json");
    let prom = dir.path().join("live.prom");
    let out = tokio::task::spawn_blocking({
        let json = json.clone();
        let prom = prom.clone();
        move || {
            run(&[
                "bench",
                "--export-prometheus",
                prom.to_str().unwrap(),
                "--objects",
                "20",
                "--rate",
                "40/s",
                "--for",
                "3s",
                "--warmup",
                "1s",
                "--handler-time",
                "1ms",
                "--export-json",
                json.to_str().unwrap(),
                "--fail-if",
                "writesWithoutEvent > 0",
            ])
        }
    })
    .await
    .unwrap();
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let ns = scratch_namespace(&out.stderr);
    // Before any write, it said where the writes go.
    let (server, _) = server_and_ca();
    let first = out
        .stderr
        .lines()
        .position(|l| l.starts_with("bench: writing to context \"admin\""));
    let created = out
        .stderr
        .lines()
        .position(|l| l.starts_with("bench: created namespace"));
    assert!(first.is_some() && first < created, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "(server {server}, user \"admin\"): creating namespace {ns}"
        )),
        "{}",
        out.stderr
    );
    assert_scratch_removed(&out.stderr).await;

    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schemaVersion"], 2);
    assert_eq!(doc["source"]["kind"], "live");
    assert_eq!(doc["source"]["namespace"], ns.as_str());
    // ConfigMaps are a built-in type: read in protobuf, and the table says so.
    assert_eq!(doc["source"]["encoding"], "protobuf");
    assert!(
        out.stdout.contains("40 writes/s, read in protobuf;"),
        "{}",
        out.stdout
    );
    let writes = doc["counters"]["writes"].as_u64().unwrap();
    // 3 s at 40/s after the warm-up: about 120 writes, creates, updates and deletes (more when
    // a slow machine made the generator late during the warm-up: it never skips a write).
    assert!((90..=160).contains(&writes), "{}", doc["counters"]);
    assert_eq!(doc["counters"]["writesWithoutEvent"], 0);
    assert_eq!(doc["metrics"]["watchLatency"]["count"], writes);
    // Nothing cut the watch and no history expired: the watch stayed open throughout.
    assert_eq!(doc["counters"]["relists"], 0, "{}", doc["counters"]);
    assert_eq!(doc["counters"]["reconnects"], 0, "{}", doc["counters"]);
    let prometheus = std::fs::read_to_string(&prom).unwrap();
    assert_promtool_accepts(&prom);
    for line in [
        "informer_watch_reconnects_total 0",
        "informer_relists_total 0",
    ] {
        assert!(prometheus.lines().any(|l| l == line), "{prometheus}");
    }
    assert!(
        out.stdout
            .contains("watch since the initial sync: 0 reconnects, 0 relists"),
        "{}",
        out.stdout
    );
    let g = &doc["generator"];
    assert!(
        g["updates"].as_u64().unwrap() > 0 && g["deletes"].as_u64().unwrap() > 0,
        "{g}"
    );
    assert!(doc["metrics"]["watchLatency"]["p50"].as_f64().unwrap() > 0.0);
    // What the load and the whole process cost is measured too.
    let generator_cpu = g["cpuSeconds"].as_f64().unwrap();
    let process_cpu = doc["processCpuSeconds"].as_f64().unwrap();
    assert!(
        generator_cpu > 0.0 && process_cpu >= generator_cpu - 0.02,
        "{doc}"
    );
    assert!(out.stdout.contains("watchLatency"), "{}", out.stdout);
    assert!(out
        .stdout
        .contains("PASS writesWithoutEvent = 0 (fails if > 0)"));
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn an_interrupted_live_run_still_removes_its_namespace() {
    admin().await;
    let mut bench = Spawned::start(&["bench", "--objects", "10", "--rate", "20", "--for", "5m"]);
    bench.wait_for("the clock starts now");
    let ns = scratch_namespace(&bench.seen.join("\n"));
    interrupt_and_expect_cleanup(&mut bench, &ns).await;
}

/// Ctrl-C in the measured window cuts it: the figures up to then are printed (text and JSON
/// say the window was cut), the load is removed, and the exit code is still 130.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn ctrl_c_in_the_window_prints_the_figures_measured_up_to_then() {
    use crate::common::{Merged, Stream};
    admin().await;
    for form in ["json", "text"] {
        let mut bench = Merged::start(&[
            "bench",
            "--objects",
            "10",
            "--rate",
            "20",
            "--for",
            "5m",
            "-o",
            form,
        ]);
        bench.wait_for(Stream::Err, "the clock", Duration::from_secs(120), |l| {
            l.contains("the clock starts now")
        });
        assert_eq!(bench.interrupt(Duration::from_secs(60)), Some(130));
        let out: Vec<&str> = (bench.seen.iter())
            .filter(|(s, _)| *s == Stream::Out)
            .map(|(_, l)| l.as_str())
            .collect();
        let err = bench.transcript();
        assert!(err.contains("bench: deleted namespace"), "{err}");
        match form {
            "json" => {
                let report: serde_json::Value =
                    serde_json::from_str(&out.join("\n")).unwrap_or_else(|e| panic!("{e}: {err}"));
                assert_eq!(report["cut"], true, "{report}");
                let window = report["windowSeconds"].as_f64().unwrap();
                assert!(window < 300.0, "{window}");
            }
            _ => {
                assert!(
                    out.iter()
                        .any(|l| l.starts_with("stopped early: the window was cut at ")),
                    "{err}"
                );
                assert!(out.iter().any(|l| l.contains("watchLatency")), "{err}");
            }
        }
    }
    // During the warm-up nothing is measured yet: the run ends as interrupted, no figures.
    let mut bench = Merged::start(&[
        "bench",
        "--objects",
        "10",
        "--rate",
        "20",
        "--warmup",
        "5m",
        "--for",
        "5m",
    ]);
    bench.wait_for(Stream::Err, "the clock", Duration::from_secs(120), |l| {
        l.contains("the clock starts now")
    });
    assert_eq!(bench.interrupt(Duration::from_secs(60)), Some(130));
    assert!(
        !bench.seen.iter().any(|(s, _)| *s == Stream::Out),
        "{}",
        bench.transcript()
    );
    assert!(
        !bench.transcript().contains("error:"),
        "{}",
        bench.transcript()
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_sigterm_ends_a_live_run_as_ctrl_c_does_with_exit_143() {
    admin().await;
    // What `timeout`, CI runners and Kubernetes send: the namespace goes as on Ctrl-C.
    let mut bench = Spawned::start(&["bench", "--objects", "10", "--rate", "20", "--for", "5m"]);
    bench.wait_for("the clock starts now");
    let ns = scratch_namespace(&bench.seen.join("\n"));
    signal_and_expect_cleanup(&mut bench, &ns, "-TERM", 143).await;
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn ctrl_c_during_the_set_up_still_removes_the_namespace() {
    admin().await;
    // Interrupted while the generator creates its objects, before the clock starts.
    let mut bench = Spawned::start(&["bench", "--objects", "3000", "--rate", "20", "--for", "5m"]);
    bench.wait_for("bench: created namespace");
    let ns = scratch_namespace(&bench.seen.join("\n"));
    interrupt_and_expect_cleanup(&mut bench, &ns).await;
    assert!(
        !bench
            .seen
            .iter()
            .any(|l| l.contains("the clock starts now")),
        "interrupted before the clock started: {:?}",
        bench.seen
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn no_churn_measures_an_existing_namespace_and_creates_nothing() {
    let ns = TestNamespace::new("bench-nochurn").await;
    for i in 0..5 {
        ns.create_configmap(&format!("c{i}"), &[]).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("nochurn.json");
    let mut bench = Spawned::start(&[
        "bench",
        "cm",
        "-n",
        &ns.name,
        "--no-churn",
        // --for's older name, kept as an alias.
        "--duration",
        "4s",
        "--export-json",
        json.to_str().unwrap(),
    ]);
    bench.wait_for("the informer holds 5 objects");
    for round in 0..4 {
        for i in 0..5 {
            ns.update_configmap(&format!("c{i}"), &format!("v{}", round + 1))
                .await;
        }
    }
    let code = tokio::task::block_in_place(|| bench.wait(Duration::from_secs(60)));
    assert_eq!(code, Some(0), "{:?}", bench.seen);
    assert!(!bench.seen.iter().any(|l| l.contains("created namespace")));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["source"]["namespace"], ns.name.as_str());
    assert_eq!(doc["source"]["churn"], false);
    assert_eq!(doc["config"]["duration"], "4s", "{}", doc["config"]);
    assert_eq!(doc["counters"]["events"], 20, "{}", doc["counters"]);
    assert!(doc["metrics"]["watchLatency"].is_null());
    assert!(doc["counters"]["writes"].is_null());
}

/// Someone whose rights end at their own namespace makes the load there: `nobody`, granted
/// only configmaps in one namespace, runs a live bench in it; bench's objects carry the run's
/// label, its informer sees only them, every write is accounted, and at the end they are gone
/// while the namespace's own ConfigMap was never touched and no namespace was created.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn load_in_a_namespace_of_ones_own_touches_only_benchs_objects_and_removes_them() {
    let ns = TestNamespace::new("bench-own").await;
    let theirs_rv = ns.create_configmap("theirs", &[("app", "web")]).await;
    ns.grant_nobody_and_wait(
        "bench-cm",
        &["configmaps"],
        &["create", "patch", "delete", "list", "watch"],
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("own.json");
    let out = run(&[
        "bench",
        "-n",
        &ns.name,
        "--context",
        "nobody",
        "--objects",
        "20",
        "--rate",
        "20",
        "--for",
        "3s",
        "--export-json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stderr.contains("creating namespace"), "{}", out.stderr);
    let run_label = out
        .stderr
        .split("labelled ")
        .nth(1)
        .and_then(|rest| rest.split([' ', ',']).next())
        .unwrap_or_else(|| panic!("no run label named: {}", out.stderr));
    assert!(
        run_label.starts_with("kubectl-informer/run=bench-"),
        "{run_label}"
    );
    let removal = format!("labelled {run_label} in namespace {}", ns.name);
    assert!(
        out.stderr
            .lines()
            .any(|l| l.starts_with("bench: deleted ") && l.ends_with(&removal)),
        "{}",
        out.stderr
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["source"]["namespace"], ns.name.as_str());
    assert_eq!(doc["source"]["churn"], true);
    assert_eq!(
        doc["counters"]["writesWithoutEvent"], 0,
        "{}",
        doc["counters"]
    );
    // The informer saw bench's objects only: the 20 creates first, then the window's writes;
    // "theirs" never came as an event.
    let writes = doc["counters"]["writes"].as_u64().unwrap();
    assert!(writes > 0, "{}", doc["counters"]);
    // kube-controller-manager publishes kube-root-ca.crt in every namespace: not bench's.
    let versions = ns.configmap_versions().await;
    assert_eq!(
        versions
            .into_iter()
            .filter(|(name, _)| name != "kube-root-ca.crt")
            .collect::<Vec<_>>(),
        vec![("theirs".to_string(), theirs_rv)],
        "bench's objects are gone and the namespace's own is as it was"
    );
}

/// A SIGTERM in the middle of a run in a namespace of one's own still removes bench's objects
/// (exit 143), and only them.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_sigterm_during_a_run_in_ones_own_namespace_still_removes_benchs_objects() {
    let ns = TestNamespace::new("bench-own-term").await;
    ns.create_configmap("theirs", &[]).await;
    let mut bench = Spawned::start(&[
        "bench",
        "-n",
        &ns.name,
        "--objects",
        "10",
        "--rate",
        "10",
        "--for",
        "5m",
    ]);
    bench.wait_for("the clock starts now");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &bench.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let code = tokio::task::block_in_place(|| bench.wait(Duration::from_secs(60)));
    assert_eq!(code, Some(143), "{:?}", bench.seen);
    assert!(
        bench.seen.iter().any(|l| l.starts_with("bench: deleted ")
            && l.contains("labelled kubectl-informer/run=bench-")),
        "{:?}",
        bench.seen
    );
    let left: Vec<String> = ns
        .configmap_versions()
        .await
        .into_keys()
        .filter(|name| name != "kube-root-ca.crt")
        .collect();
    assert_eq!(left, ["theirs"]);
}

/// A typo in -n must not measure nothing and pass its gates: a namespace that does not exist
/// exits 2 before the run, unless --allow-empty says it may be created during it.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn no_churn_in_a_namespace_that_does_not_exist_exits_2_unless_allowed() {
    let missing = common::unique("no-such-ns");
    // With load too: bench writes only in a namespace that exists, or in its own scratch one.
    let out = run(&["bench", "-n", &missing, "--for", "1s"]);
    assert_one_line_error(
        &out,
        &[
            &format!("namespace \"{missing}\" does not exist"),
            "scratch namespace",
        ],
    );
    let out = run(&["bench", "cm", "-n", &missing, "--no-churn", "--for", "1s"]);
    assert_one_line_error(
        &out,
        &[
            "nothing to measure",
            &format!("namespace \"{missing}\" does not exist"),
            "--allow-empty",
        ],
    );
    let out = run(&[
        "bench",
        "cm",
        "-n",
        &missing,
        "--no-churn",
        "--for",
        "1s",
        "--allow-empty",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["source"]["namespace"], missing.as_str());
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn load_is_made_only_for_configmaps_and_only_where_allowed_saying_who_writes() {
    admin().await;
    let out = tokio::task::spawn_blocking(|| run(&["bench", "pods", "--for", "2s"]))
        .await
        .unwrap();
    assert_one_line_error(&out, &["pods only with --template FILE", "--no-churn"]);
    let out = tokio::task::spawn_blocking(|| run(&["bench", "--context", "nobody", "--for", "2s"]))
        .await
        .unwrap();
    assert_one_line_error(&out, &["create namespaces", "forbidden"]);
    // Impersonated: the line before the first write names who the requests act as.
    let out = tokio::task::spawn_blocking(|| {
        run(&[
            "bench",
            "--as",
            "system:serviceaccount:x:y",
            "--as-group",
            "system:authenticated",
            "--for",
            "2s",
        ])
    })
    .await
    .unwrap();
    assert_one_line_error(
        &out,
        &["create namespaces as user \"system:serviceaccount:x:y\""],
    );
    assert!(
        out.stderr.contains(
            "user \"admin\" acting as \"system:serviceaccount:x:y\" in groups \"system:authenticated\")"
        ),
        "{}",
        out.stderr
    );
}

/// A user with no rights in the namespace it names: the informer's LIST is refused before the
/// load's first write, so bench created nothing, says nothing of writing or deleting, and the
/// refusal is all it prints.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_run_refused_before_its_first_write_says_only_the_refusal() {
    let ns = TestNamespace::new("bench-refused").await;
    let name = ns.name.clone();
    let out = tokio::task::spawn_blocking(move || {
        run(&["bench", "--context", "nobody", "-n", &name, "--for", "2s"])
    })
    .await
    .unwrap();
    assert_one_line_error(&out, &["forbidden", "as user \"nobody\""]);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
}
