//! `proxy --workload ... --state ... --save-state | --compare-state`: the end state a workload
//! leaves, taken, normalized and compared with fault-free runs of the same workload. On the test
//! control plane with the test operator's children controller: two fault-free runs are the
//! baselines (in namespaces of their own: the namespace is out of the state, also inside
//! kubectl's last-applied annotation, so they agree on every field); a crash between the operator's two
//! writes with its intermediate-state bug is one extra child, exit 1; the same crash on the
//! fixed operator, and a third fault-free run, compare the same, exit 0.

use crate::common::schema::assert_matches_schema;
use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// The workload: a parent, then (within 120 s) the operator's record of its child, its last
/// write; so the end state is taken once the operator is done, whatever the machine's speed.
fn workload(dir: &Path) -> String {
    let kubectl = tool("kubectl").display().to_string();
    let script = format!(
        r#"set -e
"{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE" apply -f - <<'END'
apiVersion: v1
kind: ConfigMap
metadata:
  name: parent
  labels: {{informer.test/watch: "true", informer.test/parent: "true"}}
data: {{k: v}}
END
"{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE" wait configmap/parent --timeout=120s --for=jsonpath='{{.metadata.annotations.informer\.test/child}}'
"#
    );
    let path = dir.join("workload.sh");
    std::fs::write(&path, script).unwrap();
    format!("sh {}", path.display())
}

/// One run in a namespace of its own: the children operator (`bug`: with its intermediate-state
/// bug) behind `faults`, the workload, then `state_flags` (--save-state or --compare-state).
async fn run_in_namespace(
    prefix: &str,
    dir: &Path,
    bug: bool,
    faults: &[&str],
    state_flags: &[&str],
) -> Output {
    let ns = TestNamespace::new(prefix).await;
    let operator = tool("test-operator").display().to_string();
    let work = workload(dir);
    let namespace = format!("--namespace={}", ns.name);
    let bug = format!("--bug-intermediate-state={bug}");
    let mut args = vec!["proxy", "-p", "0", "-o", "json", "-n", &ns.name];
    args.extend(faults.iter().flat_map(|f| ["--fault", *f]));
    args.extend([
        "--workload",
        &work,
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
        &bug,
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
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
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
    let (save1, save2) = (["--save-state", b1.as_str()], ["--save-state", b2.as_str()]);
    let (one, two) = tokio::join!(
        run_in_namespace("verdict-base", dir.path(), true, &[], &save1),
        run_in_namespace("verdict-base", dir.path(), true, &[], &save2),
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
        run_in_namespace("verdict-bug", dir.path(), true, &crash, &compare),
        run_in_namespace("verdict-fixed", dir.path(), false, &crash, &compare),
        run_in_namespace("verdict-none", dir.path(), true, &[], &compare),
    );
    // The bug under the crash: a second child, one row, exit 1.
    assert_eq!(buggy.code, Some(1), "{}", buggy.stderr);
    let found = verdict(&buggy);
    assert_eq!(
        found["differences"],
        serde_json::json!([{"resource": "secrets", "name": "parent-child-*", "difference": "extra", "count": 1}])
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

#[test]
fn the_state_flags_without_a_workload_or_resources_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = crate::common::fake::kubeconfig(dir.path(), "https://127.0.0.1:1")
        .display()
        .to_string();
    for (args, expected) in [
        (
            vec!["--state", "secrets"],
            "--state, --save-state and --compare-state take the end state a workload leaves",
        ),
        (
            vec!["--workload", "true", "--save-state", "x.json"],
            "--save-state and --compare-state need the resources whose end state they keep",
        ),
    ] {
        let mut all = vec!["proxy", "--kubeconfig", &kubeconfig, "-p", "0"];
        all.extend(args);
        let out = run(&all);
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        assert!(out.stderr.contains(expected), "{}", out.stderr);
        assert_eq!(out.stderr.trim().lines().count(), 1, "{}", out.stderr);
    }
}
