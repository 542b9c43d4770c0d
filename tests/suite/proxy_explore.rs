//! `proxy --explore`: faults chosen from the controller's own trace, without hints, on the test
//! control plane with the test operator's children controller. The fixed operator: every run
//! of the plan leaves the baselines' end state (no false alarm). Its stale-state bug: the restart
//! onto a stale view of ConfigMaps (its parents) differs, a delete the baselines do not have.
//! Its intermediate-state bug: the crash right after its create of a child differs. Its
//! unobserved-state bug, under a workload that takes a parent down in phases: the coalesce of
//! its parents differs, a child left behind. Each exploration makes its namespaces from the
//! prefix given with -n and deletes them after.

use crate::common::*;
use std::time::Duration;

/// The workload: two parents, each made once the one before has its child recorded (the
/// operator's last write for it), within 120 s each.
fn workload(dir: &std::path::Path) -> String {
    let kubectl = tool("kubectl").display().to_string();
    let script = format!(
        r#"set -e
for p in parent later; do
"{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE" apply -f - <<END
apiVersion: v1
kind: ConfigMap
metadata:
  name: $p
  labels: {{informer.test/watch: "true", informer.test/parent: "true"}}
data: {{k: v}}
END
"{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE" wait configmap/$p --timeout=120s --for=jsonpath='{{.metadata.annotations.informer\.test/child}}'
done
"#
    );
    let path = dir.join("workload.sh");
    std::fs::write(&path, script).unwrap();
    format!("sh {}", path.display())
}

/// The take-down workload: a parent, once its child is recorded the phase Terminating, 5 s for
/// the operator to act on it (what a script that cannot wait forever does: it goes on), then
/// Gone, acted on within 120 s. Without faults the operator acts on Terminating within the 5 s;
/// with its parents coalesced over 10 s it is told of Gone alone.
fn take_down(dir: &std::path::Path) -> String {
    let kubectl = tool("kubectl").display().to_string();
    let k = format!(r#""{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE""#);
    let observed = r"--for=jsonpath='{.metadata.annotations.informer\.test/observed-phase}'";
    let script = format!(
        r#"set -e
{k} apply -f - <<END
apiVersion: v1
kind: ConfigMap
metadata:
  name: parent
  labels: {{informer.test/watch: "true", informer.test/parent: "true"}}
data: {{k: v}}
END
{k} wait configmap/parent --timeout=120s --for=jsonpath='{{.metadata.annotations.informer\.test/child}}'
{k} annotate configmap/parent informer.test/phase=Terminating
{k} wait configmap/parent --timeout=5s {observed}=Terminating || true
{k} annotate --overwrite configmap/parent informer.test/phase=Gone
{k} wait configmap/parent --timeout=120s {observed}=Gone
"#
    );
    let path = dir.join("take-down.sh");
    std::fs::write(&path, script).unwrap();
    format!("sh {}", path.display())
}

/// One exploration of the operator with `bug` (e.g. `--bug-stale-state=true`), its namespaces
/// named after `prefix`, its output `-o text` or `json`.
async fn explore(prefix: &str, work: &str, bug: &str, output: &str) -> Output {
    let operator = tool("test-operator").display().to_string();
    let prefix = unique(prefix);
    let mut cmd = informer();
    cmd.args([
        "proxy",
        "-o",
        output,
        "-n",
        &prefix,
        "--explore",
        "--workload",
        work,
        "--settle",
        "1s",
        "--state",
        "secrets,configmaps",
        "--",
        &operator,
        "--controllers=children",
        "--namespace={namespace}",
        bug,
        "--leader-elect=false",
        "--metrics-bind-address=0",
        "--health-probe-bind-address=0",
    ]);
    tokio::task::spawn_blocking(move || run_with_limit(cmd, Duration::from_secs(900)))
        .await
        .unwrap()
}

/// Each exploration planned `runs` runs after its two baselines, side by side (the operator is
/// confined to its namespace), and said each baseline and each run as it ended.
fn assert_planned(outs: &[&Output], runs: usize) {
    let planned = format!("2 fault-free runs, then {runs} runs from their trace (");
    for out in outs {
        assert!(
            out.stdout.contains(&planned) && !out.stdout.contains("one at a time"),
            "{}\n{}",
            out.stdout,
            out.stderr
        );
        for line in (1..=2)
            .map(|n| format!("baseline {n}/2 -> saved ("))
            .chain((1..=runs).map(|n| format!("run {n}/{runs} ")))
        {
            assert!(
                out.stderr.lines().any(|l| l.starts_with(&line)),
                "no line {line:?} as it ended: {}",
                out.stderr
            );
        }
    }
}

/// The JSON lines of an exploration of the fixed operator: a line per baseline and per run, each
/// as its schema says, then the report: `runs` runs, none differing.
fn assert_json_none_differs(out: &Output, runs: usize) {
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let lines = out.json_lines();
    for line in &lines {
        crate::common::schema::assert_matches_schema(
            "proxy-line.v1.schema.json",
            "an exploration line",
            line,
        );
    }
    let of = |kind: &str| lines.iter().filter(|l| l["type"] == kind).count();
    assert_eq!((of("baseline"), of("run")), (2, runs), "{}", out.stdout);
    assert!(lines
        .iter()
        .filter(|l| l["type"] == "run")
        .all(|l| l["endState"] == "same"));
    let report = lines.last().unwrap();
    assert_eq!(report["type"], "exploration", "{report}");
    assert_eq!(report["differing"], serde_json::json!([]), "{report}");
    assert!(report["parallel"].as_u64().unwrap() >= 2, "{report}");
}

/// No run of the exploration left another end state: exit 0, no run to repeat.
fn assert_none_differs(out: &Output) {
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("; 0 with another end state")
            && !out.stdout.contains(" again, in a new namespace"),
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn exploration_finds_each_planted_bug_from_the_trace_and_nothing_in_the_fixed_operator() {
    let dir = tempfile::tempdir().unwrap();
    let work = workload(dir.path());
    let (fixed, stale, intermediate) = tokio::join!(
        explore("explore-fixed", &work, "--bug-stale-state=false", "json"),
        explore("explore-stale", &work, "--bug-stale-state=true", "text"),
        explore(
            "explore-crash",
            &work,
            "--bug-intermediate-state=true",
            "text"
        ),
    );
    // The plan from the trace: a crash after each of the two kinds of write (create secrets,
    // patch configmaps), a restart onto a stale view of each of the two resources watched, and
    // a coalesce on each: six runs.
    assert_planned(&[&stale, &intermediate], 6);
    assert_json_none_differs(&fixed, 6);
    // Each bug: its run differs, and the line that repeats it names its faults.
    assert_eq!(stale.code, Some(1), "{}\n{}", stale.stdout, stale.stderr);
    assert!(
        stale.stdout.contains("secrets deletes: 0 -> 1"),
        "{}",
        stale.stdout
    );
    assert!(
        stale.stdout.lines().any(|l| l.contains(" again, in a new namespace NAMESPACE: ")
            && l.contains("--fault crash:after=patch,resource=configmaps --fault stale:by=45s,on=restart,for=45s,resource=configmaps --workload")),
        "{}",
        stale.stdout
    );
    assert_eq!(
        intermediate.code,
        Some(1),
        "{}\n{}",
        intermediate.stdout,
        intermediate.stderr
    );
    assert!(
        intermediate
            .stdout
            .lines()
            .any(|l| l.contains(" again, in a new namespace NAMESPACE: ")
                && l.contains("--fault crash:after=create,resource=secrets --workload")),
        "{}",
        intermediate.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn exploration_finds_the_unobserved_state_bug_through_coalesced_parents_and_nothing_in_the_fixed_operator(
) {
    let dir = tempfile::tempdir().unwrap();
    let work = take_down(dir.path());
    let (fixed, unobserved) = tokio::join!(
        explore(
            "explore-down",
            &work,
            "--bug-unobserved-state=false",
            "text"
        ),
        explore(
            "explore-unobserved",
            &work,
            "--bug-unobserved-state=true",
            "text"
        ),
    );
    // Three kinds of write now (create secrets, patch configmaps, delete secrets): three
    // crashes, two restarts onto a stale view, two coalesces.
    assert_planned(&[&fixed, &unobserved], 7);
    assert_none_differs(&fixed);
    // The child left behind: found by the coalesce of its parents (and by any run in which the
    // workload wrote Gone while a restarted operator had not seen Terminating yet).
    assert_eq!(
        unobserved.code,
        Some(1),
        "{}\n{}",
        unobserved.stdout,
        unobserved.stderr
    );
    assert!(
        unobserved
            .stdout
            .lines()
            .any(|l| l.contains(" again, in a new namespace NAMESPACE: ")
                && l.contains("--fault coalesce:window=10s,resource=configmaps --workload")),
        "{}",
        unobserved.stdout
    );
    assert!(
        unobserved.stdout.contains("secrets deletes: 1 -> 0"),
        "{}",
        unobserved.stdout
    );
}

#[test]
fn explore_without_its_workload_or_with_faults_of_its_own_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = crate::proxy_controller::unanswered_kubeconfig(dir.path());
    for (args, expected) in [
        (
            vec!["--explore", "--", "true"],
            "--explore needs the workload whose end state it compares",
        ),
        (
            vec![
                "--explore",
                "--workload",
                "true",
                "--state",
                "secrets",
                "--fault",
                "gone",
                "--",
                "true",
            ],
            "--explore chooses the faults itself",
        ),
        (
            vec!["--explore", "--workload", "true", "--state", "secrets"],
            "--explore runs the controller itself",
        ),
        (
            vec![
                "--token",
                "s3cret-value",
                "--explore",
                "--workload",
                "true",
                "--state",
                "secrets",
                "--",
                "true",
            ],
            "puts no --token on a command line",
        ),
    ] {
        let mut all = vec!["proxy", "--kubeconfig", &kubeconfig, "-p", "0"];
        all.extend(args);
        let out = run(&all);
        assert_one_line_error(&out, &[expected]);
        assert!(!out.stderr.contains("s3cret-value"), "{}", out.stderr);
    }
}
