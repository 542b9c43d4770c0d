//! `proxy --workload ... --state ... --save-state | --compare-state`: the end state a workload
//! leaves, taken, normalized and compared with fault-free runs of the same workload. On the test
//! control plane with the test operator's children controller: two fault-free runs are the
//! baselines (in namespaces of their own: the namespace is out of the state, also inside
//! kubectl's last-applied annotation, so they agree on every field); a crash between the operator's two
//! writes with its intermediate-state bug is one extra child, exit 1; the same crash on the
//! fixed operator, and a third fault-free run, compare the same, exit 0. Then the stale-state
//! bug: the operator restarted onto a view of its parents 45 s behind deletes a child, which
//! the verdict shows as a delete the baselines do not have; the operator that asks the API
//! server before it deletes compares the same. A reaction that does not come within the
//! workload's wait (the operator's parents held past it) fails the workload: a difference of
//! its own, even though the end state, taken once the hold is over, is the baselines'.

use crate::common::schema::assert_matches_schema;
use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The workload: each parent made, then (within `wait`, e.g. `120s`) the operator's record of
/// its child, its last write for it; so the end state is taken once the operator is done,
/// whatever the machine's speed.
fn workload(dir: &Path, parents: &[&str], wait: &str) -> String {
    let kubectl = tool("kubectl").display().to_string();
    let mut script = String::from("set -e\n");
    for parent in parents {
        script += &format!(
            r#""{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE" apply -f - <<'END'
apiVersion: v1
kind: ConfigMap
metadata:
  name: {parent}
  labels: {{informer.test/watch: "true", informer.test/parent: "true"}}
data: {{k: v}}
END
"{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE" wait configmap/{parent} --timeout={wait} --for=jsonpath='{{.metadata.annotations.informer\.test/child}}'
"#
        );
    }
    let path = dir.join(format!("workload-{}.sh", parents.join("-")));
    std::fs::write(&path, script).unwrap();
    format!("sh {}", path.display())
}

/// One run in a namespace of its own: the children operator (with its `bug` flag, e.g.
/// `--bug-intermediate-state=true`) behind `faults`, the workload `work`, then `state_flags`
/// (--save-state or --compare-state).
async fn run_in_namespace(
    prefix: &str,
    (work, bug): (&str, &str),
    faults: &[&str],
    state_flags: &[&str],
) -> Output {
    let ns = TestNamespace::new(prefix).await;
    let operator = tool("test-operator").display().to_string();
    let namespace = format!("--namespace={}", ns.name);
    let mut args = vec!["proxy", "-p", "0", "-o", "json", "-n", &ns.name];
    args.extend(faults.iter().flat_map(|f| ["--fault", *f]));
    args.extend([
        "--workload",
        work,
        "--settle",
        "1s",
        "--state",
        "secrets,configmaps",
    ]);
    args.extend(state_flags);
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
    let mut cmd = informer();
    cmd.args(&args);
    tokio::task::spawn_blocking(move || run_with_limit(cmd, Duration::from_secs(240)))
        .await
        .unwrap()
}

/// The verdict line of a run, checked against the schema.
fn verdict(out: &Output) -> Value {
    let line = out
        .json_lines()
        .into_iter()
        .find(|v| v["type"] == "verdict")
        .unwrap_or_else(|| panic!("no verdict line: {}\n{}", out.stdout, out.stderr));
    assert_matches_schema("proxy-line.v1.schema.json", "the verdict line", &line);
    line
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn the_end_state_verdict_shows_the_extra_child_of_a_crash_and_nothing_without_the_bug() {
    let dir = tempfile::tempdir().unwrap();
    let base = |n: u32| dir.path().join(format!("baseline-{n}.json"));
    let (b1, b2) = (base(1).display().to_string(), base(2).display().to_string());
    let work = workload(dir.path(), &["parent"], "120s");
    let (bug, fixed) = (
        (work.as_str(), "--bug-intermediate-state=true"),
        (work.as_str(), "--bug-intermediate-state=false"),
    );
    let (save1, save2) = (["--save-state", b1.as_str()], ["--save-state", b2.as_str()]);
    let (one, two) = tokio::join!(
        run_in_namespace("verdict-base", bug, &[], &save1),
        run_in_namespace("verdict-base", bug, &[], &save2),
    );
    for out in [&one, &two] {
        assert_eq!(out.code, Some(0), "{}", out.stderr);
    }
    let saved: Value = serde_json::from_slice(&std::fs::read(base(1)).unwrap()).unwrap();
    assert_eq!(
        saved["objects"]["secrets parent-child-*"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        saved["objects"]["configmaps parent"][0]["metadata"]["annotations"]["informer.test/child"],
        "parent-child-*"
    );
    let compare = [
        "--compare-state",
        b1.as_str(),
        "--compare-state",
        b2.as_str(),
    ];
    let crash = ["crash:after=create,resource=secrets"];
    let (buggy, fixed, faultless) = tokio::join!(
        run_in_namespace("verdict-bug", bug, &crash, &compare),
        run_in_namespace("verdict-fixed", fixed, &crash, &compare),
        run_in_namespace("verdict-none", bug, &[], &compare),
    );
    // The bug under the crash: a second child, one row, exit 1.
    assert_eq!(buggy.code, Some(1), "{}", buggy.stderr);
    let found = verdict(&buggy);
    assert_eq!(
        found["differences"],
        serde_json::json!([
            {"resource": "secrets", "name": "parent-child-*", "difference": "extra", "count": 1},
            {"resource": "secrets", "name": "", "difference": "creates", "baselineCount": 1, "runCount": 2},
        ])
    );
    assert_eq!(found["baselines"], 2);
    assert_eq!(
        (
            found["unstableObjects"].as_u64(),
            found["unstableFields"].as_u64()
        ),
        (Some(0), Some(0)),
        "{found}"
    );
    // The fixed operator under the same crash, and the bug without it: the same end state.
    for (run, out) in [("fixed", &fixed), ("no fault", &faultless)] {
        assert_eq!(out.code, Some(0), "{run}: {}", out.stderr);
        assert_eq!(verdict(out)["differences"], serde_json::json!([]), "{run}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn the_verdict_shows_the_delete_a_stale_view_caused_and_nothing_on_the_operator_that_asks() {
    let dir = tempfile::tempdir().unwrap();
    // A second parent, recorded once the restarted operator's lagging view has reached it (and
    // so everything before it).
    let work = workload(dir.path(), &["parent", "later"], "120s");
    let (bug, fixed) = (
        (work.as_str(), "--bug-stale-state=true"),
        (work.as_str(), "--bug-stale-state=false"),
    );
    let base = |n: u32| {
        dir.path()
            .join(format!("baseline-{n}.json"))
            .display()
            .to_string()
    };
    let (b1, b2) = (base(1), base(2));
    let (save1, save2) = (["--save-state", b1.as_str()], ["--save-state", b2.as_str()]);
    let (one, two) = tokio::join!(
        run_in_namespace("verdict-stale-base", bug, &[], &save1),
        run_in_namespace("verdict-stale-base", bug, &[], &save2),
    );
    for out in [&one, &two] {
        assert_eq!(out.code, Some(0), "{}", out.stderr);
    }
    let compare = [
        "--compare-state",
        b1.as_str(),
        "--compare-state",
        b2.as_str(),
    ];
    let faults = [
        "crash:after=patch,resource=configmaps",
        "stale:by=45s,on=restart,resource=configmaps",
    ];
    let (buggy, asks) = tokio::join!(
        run_in_namespace("verdict-stale-bug", bug, &faults, &compare),
        run_in_namespace("verdict-stale-fixed", fixed, &faults, &compare),
    );
    // The child deleted (and, when the lagging view showed the parent before its record, made
    // again): a delete the baselines do not have, whatever else the end state shows.
    assert_eq!(buggy.code, Some(1), "{}", buggy.stderr);
    let differences = verdict(&buggy)["differences"].clone();
    let deletes = serde_json::json!({"resource": "secrets", "name": "", "difference": "deletes", "baselineCount": 0, "runCount": 1});
    assert!(
        differences.as_array().unwrap().contains(&deletes),
        "{differences}"
    );
    assert_eq!(asks.code, Some(0), "{}", asks.stderr);
    assert_eq!(verdict(&asks)["differences"], serde_json::json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and the test operator (tests/tools/tools.sh build): cargo test -- --ignored"]
async fn a_reaction_that_never_comes_fails_the_workload_and_the_verdict_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // The workload waits 20 s for the record; the operator's parents, held 90 s by a coalesce
    // (which passes a watch-list's initial events and bookmark, so its cache syncs and it runs
    // on), do not reach it within that. The end state is taken once the window has passed after
    // the workload and the operator has been quiet: it made the child late.
    let work = workload(dir.path(), &["parent"], "20s");
    let path = dir.path().join("baseline.json");
    let b1 = path.display().to_string();
    let operator = (work.as_str(), "--bug-stale-state=false");
    let base = run_in_namespace("verdict-react-base", operator, &[], &["--save-state", &b1]).await;
    assert_eq!(base.code, Some(0), "{}", base.stderr);
    let compare = ["--compare-state", b1.as_str()];
    let held = ["coalesce:window=90s,resource=configmaps"];
    let failing = ("false", "--bug-stale-state=false");
    let unsaved = dir.path().join("unsaved.json").display().to_string();
    let save = ["--save-state", unsaved.as_str()];
    let (late, baseline_fails) = tokio::join!(
        run_in_namespace("verdict-react", operator, &held, &compare),
        run_in_namespace("verdict-react-fail", failing, &[], &save),
    );
    assert_eq!(late.code, Some(1), "{}", late.stderr);
    let differences = verdict(&late)["differences"].clone();
    assert_eq!(
        differences[0],
        serde_json::json!({"resource": "", "name": "", "difference": "workload", "status": "exit status: 1"}),
        "{differences}"
    );
    // The operator was told of the parent once the window passed, and made its child then:
    // the end state is the baselines'; the workload's failure is the one difference.
    assert_eq!(differences.as_array().unwrap().len(), 1, "{differences}");
    let verdict_line = verdict(&late);
    assert!(
        verdict_line["settledAfterMs"].as_u64().unwrap() >= 90_000,
        "{verdict_line}"
    );
    // A baseline's workload that fails is an error (the last line: the operator's own output
    // comes before it), and saves nothing.
    assert_eq!(baseline_fails.code, Some(2), "{}", baseline_fails.stderr);
    let last = baseline_fails.stderr.lines().last().unwrap_or("");
    assert!(
        last.starts_with(
            r#"error: the workload "false" ended with exit status: 1: no end state is saved"#
        ),
        "{}",
        baseline_fails.stderr
    );
    assert!(!Path::new(&unsaved).exists());
}

#[test]
fn the_state_flags_without_a_workload_or_resources_and_a_workload_that_keeps_nothing_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = crate::proxy_controller::unanswered_kubeconfig(dir.path());
    for (args, expected) in [
        (
            vec!["--state", "secrets"],
            "--state, --save-state and --compare-state take the end state a workload leaves",
        ),
        (
            vec!["--workload", "true", "--save-state", "x.json"],
            "--save-state and --compare-state need the resources whose end state they keep",
        ),
        (
            vec!["--workload", "true"],
            "--workload leaves an end state to save or compare: name its resources with --state",
        ),
        (
            vec!["--workload", "true", "--state", "secrets"],
            "give --save-state FILE (a fault-free baseline) or --compare-state FILE",
        ),
    ] {
        let mut all = vec!["proxy", "--kubeconfig", &kubeconfig, "-p", "0"];
        all.extend(args);
        assert_one_line_error(&run(&all), &[expected]);
    }
}
