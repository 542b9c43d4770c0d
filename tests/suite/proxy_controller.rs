//! `proxy ... -- CMD`: the proxy runs the controller itself, on its own kubeconfig, and `crash`
//! faults kill it. First what needs no API server (the proxy serves without asking it anything
//! when no fault names a resource): the command's environment, its exit, a command that cannot
//! start, timed crashes that kill its whole process group and start it again, its stop. Then a
//! crash between two writes of the test operator (controller-runtime) on the test control
//! plane: right after the server committed its create of a child, before it saw the answer.

use crate::common::*;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// A kubeconfig whose server no test needs to answer: the proxy connects to nobody until a
/// client's request comes.
pub(crate) fn unanswered_kubeconfig(dir: &Path) -> String {
    crate::common::fake::kubeconfig(dir, "https://127.0.0.1:1")
        .display()
        .to_string()
}

#[test]
fn the_controller_runs_on_the_proxys_kubeconfig_and_its_exit_stops_the_proxy_with_1() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = unanswered_kubeconfig(dir.path());
    let script = "echo \"controller: KUBECONFIG=$KUBECONFIG\"; grep 'server:' \"$KUBECONFIG\"; \
                  echo to-stderr >&2; exit 3";
    let out = run(&[
        "proxy",
        "--kubeconfig",
        &kubeconfig,
        "-p",
        "0",
        "--",
        "sh",
        "-c",
        script,
    ]);
    assert_eq!(out.code, Some(1), "stderr: {}", out.stderr);
    // The serving line names the proxy's address; the controller's kubeconfig leads there.
    let url = out
        .stdout
        .lines()
        .next()
        .and_then(|l| {
            l.split_whitespace()
                .find(|w| w.starts_with("https://127.0.0.1:"))
        })
        .unwrap_or_else(|| panic!("no serving line: {}", out.stdout))
        .to_string();
    assert!(
        out.stderr.contains(&format!("server: {url}")),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("to-stderr"), "{}", out.stderr);
    assert!(
        out.stderr.contains("exited by itself with code 3"),
        "{}",
        out.stderr
    );
    // The exit names the pid the start did (a child waited for has none left to read).
    let pid_in = |word: &str| {
        out.stderr
            .lines()
            .find(|l| l.contains(word))
            .and_then(|l| l.split("(pid ").nth(1))
            .and_then(|rest| rest.split([',', ')']).next())
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no pid after {word}: {}", out.stderr))
    };
    assert_eq!(pid_in("exited by itself"), pid_in("started"));
    assert_ne!(pid_in("exited by itself"), "0");
    // The kubeconfig made for the run is gone with it.
    let path = out
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("controller: KUBECONFIG="))
        .unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(path.ends_with(".kubeconfig"), "{path}");
    assert!(!Path::new(path).exists(), "{path} left behind");
}

#[test]
fn a_controller_that_cannot_start_and_a_crash_without_one_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = unanswered_kubeconfig(dir.path());
    let out = run(&[
        "proxy",
        "--kubeconfig",
        &kubeconfig,
        "-p",
        "0",
        "--",
        "/nonexistent/manager",
        "--leader-elect=false",
    ]);
    assert_one_line_error(
        &out,
        &[
            "cannot start the controller /nonexistent/manager",
            "check the command after --",
        ],
    );
    let out = run(&[
        "proxy",
        "--kubeconfig",
        &kubeconfig,
        "-p",
        "0",
        "--fault",
        "crash:every=5s",
    ]);
    assert_one_line_error(
        &out,
        &["--fault crash:every=5s", "put its command after --"],
    );
    let out = run(&["proxy", "--fault", "crash:after=list"]);
    assert_one_line_error(&out, &["\"list\" is not a write"]);
}

/// The pids a line of the controller's output names: `sleep PID` lines.
fn sleeps(stderr: &str) -> Vec<i32> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("sleep "))
        .filter_map(|pid| pid.trim().parse().ok())
        .collect()
}

/// Whether process `pid` is gone (or a zombie nobody has reaped yet).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn timed_crashes_kill_the_controllers_process_group_and_start_it_again_and_sigterm_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = unanswered_kubeconfig(dir.path());
    // A shell whose real work is a child process: a crash must kill both.
    let script = "sleep 1000 & echo \"sleep $!\"; wait";
    let mut proxy = Streaming::start(&[
        "proxy",
        "--kubeconfig",
        &kubeconfig,
        "-p",
        "0",
        "-o",
        "json",
        "--seed",
        "1",
        "--fault",
        "crash:every=5s",
        "--",
        "sh",
        "-c",
        script,
    ]);
    let started = |line: &str| {
        let v: Value = serde_json::from_str(line).unwrap();
        v["type"] == "controller" && v["event"] == "started"
    };
    let first = proxy.wait_for("the controller's start", Duration::from_secs(30), started);
    let first: Value = serde_json::from_str(&first).unwrap();
    assert!(
        first["detail"]
            .as_str()
            .unwrap()
            .starts_with("started sh -c sleep 1000"),
        "{first}"
    );
    let again = |line: &str| started(line) && line.contains("restart 2)");
    proxy.wait_for("a second restart", Duration::from_secs(120), again);
    let killed: Vec<Value> = proxy
        .seen
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "fault" && v["fault"] == "crash")
        .collect();
    assert_eq!(killed.len(), 2, "{:?}", proxy.seen);
    for k in &killed {
        assert!(
            k["detail"]
                .as_str()
                .unwrap()
                .contains("killed with SIGKILL"),
            "{k}"
        );
    }
    let out = proxy.terminate(Duration::from_secs(60));
    assert_eq!(out.code, Some(143), "stderr: {}", out.stderr);
    let lines: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for line in &lines {
        crate::common::schema::assert_matches_schema(
            "proxy-line.v1.schema.json",
            "proxy -o json",
            line,
        );
    }
    let stopped = lines
        .iter()
        .find(|v| v["type"] == "controller" && v["event"] == "stopped")
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(
        stopped["detail"]
            .as_str()
            .unwrap()
            .contains("signal 15 (SIGTERM)"),
        "{stopped}"
    );
    // The output of every run is kept, and no sleep outlived its shell: each run's was killed
    // with it, the last one's with its SIGTERM.
    let pids = sleeps(&out.stderr);
    assert!(pids.len() >= 2, "{}", out.stderr);
    for pid in pids {
        assert!(gone(pid), "sleep {pid} outlived its controller");
    }
}

/// The test operator's children controller in `ns` with its `bug` flag (e.g.
/// `--bug-intermediate-state=true`), through a proxy with `proxy_flags` (faults, `-v=1`); the
/// proxy's JSON lines are read as they come.
pub(crate) fn children_operator(ns: &str, bug: &str, proxy_flags: &[&str]) -> Streaming {
    let operator = tool("test-operator").display().to_string();
    let namespace = format!("--namespace={ns}");
    let mut args = vec!["proxy", "-p", "0", "-o", "json", "--seed", "1"];
    args.extend(proxy_flags);
    args.extend([
        "--",
        &operator,
        "--controllers=children",
        &namespace,
        bug,
        "--leader-elect=false",
        "--metrics-bind-address=0",
        "--health-probe-bind-address=0",
    ]);
    Streaming::start(&args)
}

/// A parent for the children controller.
pub(crate) async fn create_parent(configmaps: &Api<ConfigMap>, name: &str) {
    let parent: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": {
            "informer.test/watch": "true", "informer.test/parent": "true"}},
        "data": {"k": "v"},
    }))
    .unwrap();
    configmaps
        .create(&PostParams::default(), &parent)
        .await
        .unwrap();
}

/// Waits (within 120 s) until the parent records its child, the controller's last write for it.
pub(crate) async fn until_recorded(configmaps: &Api<ConfigMap>, name: &str) -> String {
    let recorded = |cm: &ConfigMap| {
        cm.metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get("informer.test/child").cloned())
    };
    let wait = async {
        loop {
            let now = configmaps.get(name).await.unwrap();
            if let Some(child) = recorded(&now) {
                return child;
            }
            let params = WatchParams::default()
                .fields(&format!("metadata.name={name}"))
                .timeout(60);
            let rv = now.metadata.resource_version.unwrap_or_default();
            let mut events = configmaps.watch(&params, &rv).await.unwrap().boxed();
            while let Some(event) = events.try_next().await.unwrap() {
                if let WatchEvent::Modified(cm) = event {
                    if let Some(child) = recorded(&cm) {
                        return child;
                    }
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(120), wait)
        .await
        .unwrap_or_else(|_| panic!("{name} did not record a child within 120 s"))
}

/// The names of the parent's children (Secrets).
pub(crate) async fn children_of(ns: &TestNamespace, parent: &str) -> Vec<String> {
    let params = ListParams::default().labels(&format!("informer.test/child-of={parent}"));
    let secrets: Api<Secret> = Api::namespaced(ns.client.clone(), &ns.name);
    let mut names: Vec<String> = secrets
        .list(&params)
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|c| c.metadata.name)
        .collect();
    names.sort();
    names
}

/// One run: the operator (bug on or off) behind `faults`, one parent; the parent's children
/// once it has recorded one, and the proxy's JSON lines; and the namespace's name.
async fn children_after(
    prefix: &str,
    bug: bool,
    faults: &[&str],
) -> (String, Vec<String>, Vec<Value>) {
    let ns = TestNamespace::new(prefix).await;
    let configmaps = ns.configmaps();
    let flags: Vec<&str> = faults.iter().flat_map(|f| ["--fault", f]).collect();
    let bug = format!("--bug-intermediate-state={bug}");
    let mut proxy = children_operator(&ns.name, &bug, &flags);
    proxy.wait_for("the operator's start", Duration::from_secs(60), |l| {
        l.contains("\"event\":\"started\"")
    });
    create_parent(&configmaps, "parent").await;
    let recorded = until_recorded(&configmaps, "parent").await;
    let children = children_of(&ns, "parent").await;
    assert!(children.contains(&recorded), "{recorded} in {children:?}");
    let out = proxy.terminate(Duration::from_secs(60));
    assert_eq!(out.code, Some(143), "stderr: {}", out.stderr);
    let lines = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (ns.name.clone(), children, lines)
}

fn crashes(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|v| v["type"] == "fault" && v["fault"] == "crash")
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn a_crash_between_create_and_record_leaves_two_children_only_when_the_operator_does_not_adopt(
) {
    let crash = ["crash:after=create,resource=secrets"];
    let (buggy, faultless, fixed) = tokio::join!(
        children_after("crash-bug", true, &crash),
        children_after("crash-none", true, &[]),
        children_after("crash-fixed", false, &crash),
    );
    // The planted bug, under the crash: the create was committed, the operator killed before it
    // saw the answer; started again, its parent has no child recorded, and it creates another.
    let (ns, children, lines) = buggy;
    assert_eq!(children.len(), 2, "{children:?}");
    let applied = crashes(&lines);
    assert_eq!(applied.len(), 1, "{lines:?}");
    let detail = applied[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("committed by the server (write 1 in scope: parent-child-"),
        "{detail}"
    );
    assert!(detail.contains("killed with SIGKILL before it saw the answer"));
    assert_eq!(
        applied[0]["request"].as_str().unwrap(),
        format!("create secrets -n {ns}")
    );
    assert!(
        lines.iter().any(|v| v["event"] == "started"
            && v["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("started again") && d.contains("restart 1)"))),
        "{lines:?}"
    );
    // The same bug without the crash: one child (no false alarm).
    let (_, children, lines) = faultless;
    assert_eq!(children.len(), 1, "{children:?}");
    assert!(crashes(&lines).is_empty());
    // The same crash on the operator that adopts what its parent owns: one child.
    let (_, children, lines) = fixed;
    assert_eq!(children.len(), 1, "{children:?}");
    assert_eq!(crashes(&lines).len(), 1, "{lines:?}");
}

/// Sets the parent's phase; returns the resourceVersion of the write.
async fn set_phase(configmaps: &Api<ConfigMap>, phase: &str) -> String {
    let patch = serde_json::json!({"metadata": {"annotations": {"informer.test/phase": phase}}});
    configmaps
        .patch(
            "parent",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(&patch),
        )
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap()
}

/// Waits (within 120 s) until the operator has acted on `phase`, or (with `held`) until the proxy
/// says it holds the write at `rv`: the workload goes on once its write has reached the operator,
/// or is held on the way there.
async fn until_observed_or_held(
    configmaps: &Api<ConfigMap>,
    proxy: &mut Streaming,
    phase: &str,
    held: Option<&str>,
) {
    if let Some(rv) = held {
        let needle = format!("/parent at rv {rv}: it goes out");
        proxy.wait_for(
            "the proxy holding the write",
            Duration::from_secs(120),
            |l| l.contains(&needle),
        );
        return;
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let parent = configmaps.get("parent").await.unwrap();
        let observed = parent
            .metadata
            .annotations
            .and_then(|a| a.get("informer.test/observed-phase").cloned());
        if observed.as_deref() == Some(phase) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the operator did not act on {phase} within 120 s"
        );
        // The operator's ack is a write of its own; its event is awaited, not polled for.
        let params = WatchParams::default()
            .fields("metadata.name=parent")
            .timeout(10);
        let rv = parent.metadata.resource_version.unwrap_or_default();
        let mut events = configmaps.watch(&params, &rv).await.unwrap().boxed();
        let _ = events.try_next().await;
    }
}

/// One run of the take-down workload: a parent with its child, then the phases Terminating and
/// Gone, each written once the one before has reached the operator (or is held by the proxy's
/// coalesce); the parent's children once the operator has acted on Gone.
async fn children_after_take_down(prefix: &str, bug: bool, coalesce: bool) -> Vec<String> {
    let ns = TestNamespace::new(prefix).await;
    let configmaps = ns.configmaps();
    create_parent(&configmaps, "parent").await;
    let bug = format!("--bug-unobserved-state={bug}");
    let mut flags = vec!["-v=1"];
    if coalesce {
        flags.extend(["--fault", "coalesce:window=60s,resource=configmaps"]);
    }
    let mut proxy = children_operator(&ns.name, &bug, &flags);
    until_recorded(&configmaps, "parent").await;
    assert_eq!(children_of(&ns, "parent").await.len(), 1);
    let rv = set_phase(&configmaps, "Terminating").await;
    let held = coalesce.then_some(rv.as_str());
    until_observed_or_held(&configmaps, &mut proxy, "Terminating", held).await;
    set_phase(&configmaps, "Gone").await;
    until_observed_or_held(&configmaps, &mut proxy, "Gone", None).await;
    let children = children_of(&ns, "parent").await;
    let out = proxy.terminate(Duration::from_secs(60));
    assert_eq!(out.code, Some(143), "stderr: {}", out.stderr);
    children
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn a_coalesced_phase_leaves_a_child_only_when_the_operator_must_see_that_phase() {
    let (buggy, faultless, fixed) = tokio::join!(
        children_after_take_down("unobserved-bug", true, true),
        children_after_take_down("unobserved-none", true, false),
        children_after_take_down("unobserved-fixed", false, true),
    );
    // Told of Gone without having seen Terminating, the operator with the planted bug never
    // cleans up; the same bug without the fault, and the fixed operator under it, do.
    assert_eq!(buggy.len(), 1, "{buggy:?}");
    assert!(faultless.is_empty(), "{faultless:?}");
    assert!(fixed.is_empty(), "{fixed:?}");
}
