//! `bench --react` against the real controllers of the test control plane
//! (kube-controller-manager, kwok): a Deployment controller's reactions measured by
//! observedGeneration and by the ReplicaSets it writes; a CRD with no controller reacts to
//! nothing, and bench invents nothing; a paused kube-controller-manager shows as a slower
//! reaction; bad input ends the run in one line with nothing left behind.
//!
//! The tests of this file run one at a time: one of them pauses kube-controller-manager.

use crate::common;
use crate::common::bench::assert_scratch_removed;
use crate::common::controllers::require_controllers;
use crate::common::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A Deployment manifest whose Pods kwok runs.
const DEPLOYMENT: &str = "
apiVersion: apps/v1
kind: Deployment
metadata:
  name: replaced
spec:
  replicas: 1
  selector: {matchLabels: {app: bench}}
  template:
    metadata: {labels: {app: bench}}
    spec:
      containers: [{name: app, image: registry.invalid/app:1}]
";

fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs `bench ARGS --export-json FILE` (off the runtime) and returns its output and report.
async fn bench(args: &[&str]) -> (Output, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.extend(["--export-json".into(), json.display().to_string()]);
    let out = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = all.iter().map(String::as_str).collect();
        run_with_limit(
            {
                let mut cmd = informer();
                cmd.args(&args);
                cmd
            },
            Duration::from_secs(240),
        )
    })
    .await
    .unwrap();
    let doc = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (out, doc)
}

/// Every write of the window is a reaction measured, a superseded one, or one without.
fn assert_every_write_accounted(doc: &Value) {
    let c = &doc["counters"];
    let writes = c["writes"].as_u64().unwrap();
    let reacted = doc["metrics"]["reactionLatency"]["count"].as_u64().unwrap();
    let superseded = c["superseded"].as_u64().unwrap();
    let without = c["writesWithoutReaction"].as_u64().unwrap();
    assert!(writes > 0, "{c}");
    assert_eq!(reacted + superseded + without, writes, "{doc}");
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_deployment_controller_reacts_to_every_write_and_a_gate_below_its_p50_fails() {
    let _one = ONE_AT_A_TIME.lock().await;
    require_controllers();
    let dir = tempfile::tempdir().unwrap();
    let template = write_file(dir.path(), "deploy.yaml", DEPLOYMENT);
    let template = template.to_str().unwrap();
    let (out, doc) = bench(&[
        "bench",
        "--template",
        template,
        "--react",
        "observed-generation",
        "--objects",
        "10",
        "--rate",
        "5",
        "--for",
        "8s",
        "--fail-if",
        "writesWithoutReaction > 0",
    ])
    .await;
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(doc["source"]["resource"], "deployments.apps");
    assert_eq!(doc["config"]["react"], "observed-generation");
    assert_eq!(doc["counters"]["writesWithoutReaction"], 0, "{doc}");
    assert_every_write_accounted(&doc);
    let r = &doc["metrics"]["reactionLatency"];
    let (p50, p99) = (r["p50"].as_f64().unwrap(), r["p99"].as_f64().unwrap());
    assert!(0.0 < p50 && p50 < p99, "{r}");
    assert!(out.stdout.contains("reactionLatency"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("PASS writesWithoutReaction = 0 (fails if > 0)"),
        "{}",
        out.stdout
    );
    assert_scratch_removed(&out.stderr).await;

    // A gate below the measured p50 (no reaction takes a microsecond) fails, naming the value.
    let (out, doc) = bench(&[
        "bench",
        "deploy",
        "--template",
        template,
        "--react",
        "observed-generation",
        "--objects",
        "5",
        "--rate",
        "5",
        "--for",
        "3s",
        "--fail-if",
        "reaction_latency.p50 > 1us",
    ])
    .await;
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let p50 = doc["metrics"]["reactionLatency"]["p50"].as_f64().unwrap();
    assert!(
        out.stdout
            .lines()
            .any(|l| l.starts_with("FAIL reaction_latency.p50 = ")
                && l.ends_with(" (fails if > 1us)")),
        "{}",
        out.stdout
    );
    assert!(p50 > 1e-6, "{doc}");
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers, and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn each_write_s_reaction_is_a_replicaset_the_deployment_controller_writes() {
    let _one = ONE_AT_A_TIME.lock().await;
    require_controllers();
    let dir = tempfile::tempdir().unwrap();
    let template = write_file(dir.path(), "deploy.yaml", DEPLOYMENT);
    // The default mutation is an annotation of the pod template: each write a new ReplicaSet.
    let (out, doc) = bench(&[
        "bench",
        "--template",
        template.to_str().unwrap(),
        "--react",
        "owned:rs",
        "--objects",
        "10",
        "--rate",
        "5",
        "--for",
        "6s",
        "--export-prometheus",
        dir.path().join("m.prom").to_str().unwrap(),
    ])
    .await;
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(doc["counters"]["writesWithoutReaction"], 0, "{doc}");
    assert_every_write_accounted(&doc);
    assert!(
        doc["metrics"]["reactionLatency"]["count"].as_u64().unwrap() > 0,
        "{doc}"
    );
    let prom = std::fs::read_to_string(dir.path().join("m.prom")).unwrap();
    assert_promtool_accepts(&dir.path().join("m.prom"));
    assert!(
        prom.contains("# TYPE informer_bench_reaction_latency_seconds histogram"),
        "{prom}"
    );
    assert!(
        prom.contains("informer_bench_reaction_latency_seconds_count{name=\"bench\"}"),
        "{prom}"
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_crd_without_a_controller_reacts_to_nothing_and_bench_invents_no_reaction() {
    let _one = ONE_AT_A_TIME.lock().await;
    let client = admin().await;
    let suffix = unique("r").replace('-', "");
    let group = format!("r{suffix}.informer.test");
    // A CRD whose status can carry observedGeneration, with no controller to set it.
    let crd = common::crd::create_with(
        &client,
        &group,
        "gadgets",
        "Gadget",
        &format!("gr{suffix}"),
        json!({
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {"rev": {"type": "string"}}},
                "status": {"type": "object", "properties": {"observedGeneration": {"type": "integer"}}}
            }}}
        }),
    )
    .await;
    let dir = tempfile::tempdir().unwrap();
    let template = write_file(
        dir.path(),
        "gadget.json",
        &json!({"apiVersion": format!("{group}/v1"), "kind": "Gadget", "spec": {"rev": "0"}})
            .to_string(),
    );
    let (out, doc) = bench(&[
        "bench",
        "--template",
        template.to_str().unwrap(),
        "--mutate",
        "spec.rev=counter",
        "--react",
        "observed-generation",
        "--reaction-timeout",
        "2s",
        "--objects",
        "3",
        "--rate",
        "5",
        "--for",
        "2s",
        "--fail-if",
        "writesWithoutReaction > 0",
    ])
    .await;
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let writes = doc["counters"]["writes"].as_u64().unwrap();
    assert!(writes > 0, "{doc}");
    assert_eq!(doc["counters"]["writesWithoutReaction"], writes, "{doc}");
    assert_eq!(doc["metrics"]["reactionLatency"]["count"], 0, "{doc}");
    assert!(doc["metrics"]["reactionLatency"]["p50"].is_null(), "{doc}");
    assert!(
        out.stdout.contains(&format!(
            "FAIL writesWithoutReaction = {writes} (fails if > 0)"
        )),
        "{}",
        out.stdout
    );
    common::crd::delete(&client, &crd).await;
}

/// SIGSTOP of the control plane's kube-controller-manager, undone (SIGCONT) when dropped,
/// whatever happens to the test.
struct Paused(String);

impl Paused {
    fn controller_manager() -> Paused {
        let pid_file = kubeconfig_path().with_file_name("kube-controller-manager.pid");
        let pid = std::fs::read_to_string(&pid_file)
            .unwrap_or_else(|e| panic!("{}: {e}", pid_file.display()))
            .trim()
            .to_string();
        signal(&pid, "-STOP");
        Paused(pid)
    }
}

impl Drop for Paused {
    fn drop(&mut self) {
        signal(&self.0, "-CONT");
    }
}

/// Starts `bench ARGS`, stops kube-controller-manager for 10 s once the clock starts (the run
/// goes on; its gates are judged after), and returns bench's exit code and what it said.
async fn paused_for_ten_seconds(args: &[&str]) -> (Option<i32>, Spawned) {
    let mut run = Spawned::start(args);
    run.wait_for("the clock starts now");
    {
        let _pause = Paused::controller_manager();
        tokio::time::sleep(Duration::from_secs(10)).await;
    }
    tokio::task::spawn_blocking(move || (run.wait(Duration::from_secs(120)), run))
        .await
        .unwrap()
}

fn signal(pid: &str, sig: &str) {
    let status = std::process::Command::new("kill")
        .args([sig, pid])
        .status()
        .unwrap();
    assert!(status.success(), "kill {sig} {pid}");
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_paused_controller_manager_shows_as_a_slower_reaction() {
    let _one = ONE_AT_A_TIME.lock().await;
    require_controllers();
    let dir = tempfile::tempdir().unwrap();
    // No Pods: a write's rollout is only a new ReplicaSet, so the controller keeps up with the
    // load (kube-controller-manager writes at most 20/s, its default --kube-api-qps).
    let template = write_file(
        dir.path(),
        "deploy.yaml",
        &DEPLOYMENT.replace("replicas: 1", "replicas: 0"),
    );
    let template = template.to_str().unwrap().to_string();
    // Many objects and few writes: a write rarely has a newer one on its object during the
    // pause, so each waits for the controller itself (coalesced writes are not timed).
    let args = |run_for: &str| {
        vec![
            "bench".to_string(),
            "--template".into(),
            template.clone(),
            "--react".into(),
            "observed-generation".into(),
            "--objects".into(),
            "40".into(),
            "--rate".into(),
            "3".into(),
            "--for".into(),
            run_for.into(),
            "--fail-if".into(),
            "reactionLatency.p99 > 5s".into(),
        ]
    };
    let plain: Vec<String> = args("5s");
    let (out, doc) = bench(&plain.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(doc["metrics"]["reactionLatency"]["count"].as_u64().unwrap() > 0);

    let report = dir.path().join("paused.json");
    let mut paused: Vec<String> = args("16s");
    paused.extend(["--export-json".into(), report.display().to_string()]);
    let (code, run) =
        paused_for_ten_seconds(&paused.iter().map(String::as_str).collect::<Vec<_>>()).await;
    assert_eq!(code, Some(1), "{:?}", run.seen);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let gate = &doc["gates"][0];
    assert_eq!(gate["expr"], "reactionLatency.p99 > 5s", "{doc}");
    assert_eq!(gate["failed"], true, "{doc}");
    assert!(
        doc["metrics"]["reactionLatency"]["p99"].as_f64().unwrap() > 5.0,
        "{doc}"
    );
}

/// kube-controller-manager's own metrics, as `--metrics-from` reaches them: its secure port,
/// with the kubeconfig's credentials.
fn controller_manager_metrics() -> String {
    let port_file = kubeconfig_path().with_file_name("kube-controller-manager.port");
    let port = std::fs::read_to_string(&port_file)
        .unwrap_or_else(|e| panic!("{}: {e}", port_file.display()));
    format!("https://127.0.0.1:{}/metrics", port.trim())
}

/// One of the report's controller queues, by name.
fn queue<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["controller"]["queues"]
        .as_array()
        .unwrap_or_else(|| panic!("no controller queues: {doc}"))
        .iter()
        .find(|q| q["name"] == name)
        .unwrap_or_else(|| panic!("no queue {name}: {doc}"))
}

/// The lower edge of the bucket a queue's percentile lies in: it is above this.
fn above(q: &Value, stat: &str) -> f64 {
    q["queueDuration"][stat]["above"]
        .as_f64()
        .unwrap_or_else(|| panic!("no queueDuration.{stat}: {q}"))
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers, and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn writes_beyond_the_controllers_client_qps_fill_its_deployment_queue_and_throttle_it_and_a_gate_on_them_fails(
) {
    let _one = ONE_AT_A_TIME.lock().await;
    require_controllers();
    let dir = tempfile::tempdir().unwrap();
    let template = write_file(dir.path(), "deploy.yaml", DEPLOYMENT);
    let metrics = controller_manager_metrics();
    let gates = [
        "controller.queueDuration.p50{name=deployment} > 1s",
        "controller.depth.max{name=deployment} > 20",
    ];
    // The warm-up lets the controller work through the creation of the objects first.
    let run = |rate: &'static str, exports: &[&str]| {
        let (template, metrics) = (template.display().to_string(), metrics.clone());
        let exports: Vec<String> = exports.iter().map(|e| e.to_string()).collect();
        async move {
            let mut args = vec![
                "bench",
                "--template",
                &template,
                "--react",
                "owned:replicasets",
                "--objects",
                "30",
                "--rate",
                rate,
                "--warmup",
                "3s",
                "--for",
                "8s",
                "--metrics-from",
                &metrics,
            ];
            for g in gates {
                args.extend(["--fail-if", g]);
            }
            args.extend(exports.iter().map(String::as_str));
            bench(&args).await
        }
    };
    // One write a second: kube-controller-manager keeps up (each rollout is a handful of its
    // requests, and its client allows 20 a second).
    let (out, calm) = run("1", &[]).await;
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(&format!("controller {metrics}: ")),
        "{}",
        out.stdout
    );
    for g in gates {
        let line = out
            .stdout
            .lines()
            .find(|l| l.contains(g.split(' ').next().unwrap()));
        assert!(
            line.is_some_and(|l| l.starts_with("PASS ")),
            "{g}: {}",
            out.stdout
        );
    }
    // Ten a second, each a ReplicaSet and a Pod to make: more than its client may send. Its
    // exports carry the controller's section.
    let (prom, markdown) = (dir.path().join("busy.prom"), dir.path().join("busy.md"));
    let exports = [
        "--export-prometheus",
        prom.to_str().unwrap(),
        "--export-markdown",
        markdown.to_str().unwrap(),
    ];
    let (out, busy) = run("10", &exports).await;
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let failed: Vec<_> = busy["gates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["failed"] == true)
        .collect();
    assert_eq!(failed.len(), 2, "{}", busy["gates"]);
    assert!(
        out.stdout
            .contains("FAIL controller.depth.max{name=deployment} = "),
        "{}",
        out.stdout
    );
    // The deployment queue is where the writes wait (its controller's updates are throttled):
    // deeper, and its p99 past 1 s. The replicaset queue gets more work, but how deep it gets
    // depends on how fast the throttled deployment controller hands it on (4 to 61 here).
    let (c, b) = (queue(&calm, "deployment"), queue(&busy, "deployment"));
    assert!(
        b["depth"]["max"].as_f64().unwrap() > c["depth"]["max"].as_f64().unwrap().max(10.0),
        "calm {c}\nbusy {b}"
    );
    assert!(above(b, "p99") >= 1.0, "queue p99 above 1s: {b}");
    assert!(above(b, "p99") >= above(c, "p99"), "calm {c}\nbusy {b}");
    let adds = |doc: &Value| queue(doc, "replicaset")["adds"].as_f64().unwrap();
    assert!(adds(&busy) > adds(&calm), "calm {calm}\nbusy {busy}");
    let waited = |doc: &Value| doc["controller"]["throttling"]["mean"].as_f64().unwrap();
    assert!(
        waited(&busy) > 0.1 && waited(&busy) > waited(&calm),
        "rate-limiter waits: calm {}, busy {}",
        calm["controller"]["throttling"],
        busy["controller"]["throttling"]
    );
    // The informers of what bench writes are followed: their lag is measured at each scrape.
    let informer = |resource: &str| {
        busy["controller"]["informers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["resource"] == resource && i["group"] == "apps")
            .cloned()
            .unwrap_or_else(|| panic!("no {resource} informer: {busy}"))
    };
    for resource in ["deployments", "replicasets"] {
        let lag = &informer(resource)["lag"];
        assert!(lag["samples"].as_u64().unwrap() >= 3, "{resource}: {lag}");
    }
    assert_eq!(busy["controller"]["gaps"], 0, "{}", busy["controller"]);
    assert_promtool_accepts(&prom);
    let prom = std::fs::read_to_string(&prom).unwrap();
    assert!(
        prom.contains("kubectl_informer_controller_workqueue_depth_max{name=\"deployment\"}"),
        "{prom}"
    );
    let markdown = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        markdown.contains("| deployment |") && markdown.contains("xychart-beta"),
        "{markdown}"
    );
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_stopped_controller_manager_shows_as_gaps_in_its_scrapes_and_the_run_goes_on() {
    let _one = ONE_AT_A_TIME.lock().await;
    require_controllers();
    let dir = tempfile::tempdir().unwrap();
    let template = write_file(
        dir.path(),
        "deploy.yaml",
        &DEPLOYMENT.replace("replicas: 1", "replicas: 0"),
    );
    let report = dir.path().join("report.json");
    let metrics = controller_manager_metrics();
    let args = [
        "bench",
        "--template",
        template.to_str().unwrap(),
        "--react",
        "observed-generation",
        "--objects",
        "20",
        "--rate",
        "2",
        "--for",
        "20s",
        "--metrics-from",
        &metrics,
        "--fail-if",
        "controller.gaps > 30",
        "--export-json",
        report.to_str().unwrap(),
    ];
    let (code, run) = paused_for_ten_seconds(&args).await;
    // Gaps are counted, not a failure of the run: its gate passes.
    assert_eq!(code, Some(0), "{:?}", run.seen);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let c = &doc["controller"];
    let gaps = c["gaps"].as_u64().unwrap();
    assert!(gaps >= 3, "a 10 s pause, a scrape a second: {c}");
    assert!(c["scrapes"].as_u64().unwrap() > gaps + 3, "{c}");
    let said: Vec<_> = run
        .seen
        .iter()
        .filter(|l| l.contains(&format!("scrape of {metrics} failed")))
        .collect();
    assert_eq!(said.len() as u64, gaps, "each gap is said: {:?}", run.seen);
    assert!(said[0].contains("no answer within 1s"), "{said:?}");
    // The good scrapes' times (since the window opened) show the hole: 5 s at least between
    // two of them, or before the first.
    let times: Vec<f64> = std::iter::once(0.0)
        .chain(
            c["timeline"]["seconds"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_f64().unwrap()),
        )
        .collect();
    assert!(times.windows(2).any(|w| w[1] - w[0] >= 5.0), "{times:?}");
    // The deployment informer's lag was measured after the resume too.
    let deployments = c["informers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["resource"] == "deployments")
        .unwrap_or_else(|| panic!("{c}"));
    let lag = &deployments["lag"];
    assert!(
        lag["samples"].as_u64().unwrap() + gaps >= c["scrapes"].as_u64().unwrap(),
        "{lag}"
    );
    assert_eq!(doc["gates"][0]["failed"], false, "{}", doc["gates"]);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn bad_input_ends_the_run_in_one_line_and_leaves_nothing_behind() {
    let _one = ONE_AT_A_TIME.lock().await;
    admin().await;
    let dir = tempfile::tempdir().unwrap();
    let deploy = write_file(dir.path(), "deploy.yaml", DEPLOYMENT);
    let deploy = deploy.to_str().unwrap();
    let no_selector = write_file(
        dir.path(),
        "invalid.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      \
         containers: [{name: app, image: x}]\n",
    );
    let cm = write_file(dir.path(), "cm.yaml", "apiVersion: v1\nkind: ConfigMap\n");
    let short = ["--objects", "2", "--rate", "2", "--for", "2s"];
    // Refused before anything is created: no namespace notice at all.
    for (args, needles) in [
        (
            vec!["--template", deploy, "--react", "owned:nosuch"],
            vec!["--react owned:nosuch", "unknown resource \"nosuch\""],
        ),
        (
            vec![
                "--template",
                cm.to_str().unwrap(),
                "--react",
                "observed-generation",
            ],
            vec!["configmaps has no status.observedGeneration in its schema"],
        ),
        (
            vec!["--template", deploy, "--mutate", "spec.replicas.x=counter"],
            vec!["spec.replicas in the template is not a mapping"],
        ),
        (
            vec!["--template", deploy, "--react", "condition:"],
            vec!["--react condition:: a condition needs a TYPE"],
        ),
        (
            vec!["pods", "--template", deploy],
            vec!["--template is a apps/v1 Deployment and bench watches pods"],
        ),
        (
            vec!["--template", deploy, "--metrics-from", "pod/nosuch"],
            vec!["pod/nosuch in namespace", "not found"],
        ),
        (
            vec!["--template", deploy, "--metrics-from", "job/x"],
            vec!["--metrics-from \"job/x\"", "is not a kind of workload"],
        ),
        (
            vec![
                "--template",
                deploy,
                "--fail-if",
                "controller.depth.max > 5",
            ],
            vec!["reads the controller's metrics: add --metrics-from TARGET"],
        ),
    ] {
        let mut all = vec!["bench"];
        all.extend(args);
        all.extend(short);
        let (out, _) = bench(&all).await;
        assert_one_line_error(&out, &needles);
        assert!(!out.stderr.contains("creating namespace"), "{}", out.stderr);
    }
    for (args, needle) in [
        (
            vec![
                "bench",
                "deploy",
                "--react",
                "observed-generation",
                "--for",
                "2s",
            ],
            "needs writes a controller reacts to: --template FILE",
        ),
        (
            vec![
                "bench",
                "deploy",
                "-n",
                "default",
                "--no-churn",
                "--react",
                "owned:rs",
            ],
            "--react owned:rs with --no-churn",
        ),
    ] {
        let (out, _) = bench(&args).await;
        assert_one_line_error(&out, &[needle]);
    }
    // Refused by the server, or by what it did with a write: the scratch namespace goes.
    for (args, needles) in [
        (
            vec!["--template", no_selector.to_str().unwrap()],
            vec![
                "create deployments.apps",
                "422",
                "spec.selector: Required value",
            ],
        ),
        (
            vec!["--template", deploy, "--mutate", "spec.nosuch=counter"],
            vec!["--mutate spec.nosuch: the server did not keep the value"],
        ),
        (
            vec![
                "--template",
                deploy,
                "--mutate",
                "metadata.labels.x=counter",
                "--react",
                "observed-generation",
            ],
            vec![
                "left metadata.generation at 1",
                "mutate a field of the spec",
            ],
        ),
    ] {
        let mut all = vec!["bench"];
        all.extend(args);
        all.extend(short);
        let (out, _) = bench(&all).await;
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        let errors: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| l.starts_with("error: "))
            .collect();
        assert_eq!(errors.len(), 1, "{}", out.stderr);
        for needle in needles {
            assert!(errors[0].contains(needle), "{needle}: {}", errors[0]);
        }
        assert_scratch_removed(&out.stderr).await;
    }
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn without_load_it_times_the_controller_s_reactions_to_someone_else_s_writes() {
    let _one = ONE_AT_A_TIME.lock().await;
    require_controllers();
    let ns = TestNamespace::new("react-nochurn").await;
    for name in ["a", "b", "c"] {
        common::controllers::create_deployment(&ns, name, 0).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let mut run = Spawned::start(&[
        "bench",
        "deploy",
        "-n",
        &ns.name,
        "--no-churn",
        "--react",
        "observed-generation",
        "--for",
        "6s",
        "--export-json",
        report.to_str().unwrap(),
    ]);
    run.wait_for("measuring the traffic others make");
    // Someone else's spec changes (a CI step applying manifests): two per Deployment.
    let deployments = kube::Api::<k8s_openapi::api::apps::v1::Deployment>::namespaced(
        ns.client.clone(),
        &ns.name,
    );
    for rev in ["1", "2"] {
        for name in ["a", "b", "c"] {
            let patch = json!({"spec": {"template": {"metadata": {"annotations": {"rev": rev}}}}});
            deployments
                .patch(
                    name,
                    &kube::api::PatchParams::default(),
                    &kube::api::Patch::Merge(patch),
                )
                .await
                .unwrap();
        }
    }
    let (code, run) =
        tokio::task::spawn_blocking(move || (run.wait(Duration::from_secs(120)), run))
            .await
            .unwrap();
    assert_eq!(code, Some(0), "{:?}", run.seen);
    assert!(
        !run.seen.iter().any(|l| l.contains("creating namespace")),
        "{:?}",
        run.seen
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    // Without load, `writes` is what bench saw of others' writes (generations going up): the six
    // patches above, each reacted to or covered by a later one's reaction (which is how `writes`
    // is counted here, so the sum alone proves nothing).
    assert_eq!(doc["counters"]["writes"], 6, "{doc}");
    assert_eq!(doc["counters"]["writesWithoutReaction"], 0, "{doc}");
    let reacted = doc["metrics"]["reactionLatency"]["count"].as_u64().unwrap();
    assert!(reacted >= 3, "one reaction per Deployment at least: {doc}");
    assert_eq!(
        reacted + doc["counters"]["superseded"].as_u64().unwrap(),
        6,
        "{doc}"
    );
    // What bench says the controller did, the API says too: every Deployment's last generation
    // observed.
    for name in ["a", "b", "c"] {
        let d = deployments.get(name).await.unwrap();
        assert_eq!(d.metadata.generation, Some(3), "{name}");
        assert_eq!(
            d.status.and_then(|s| s.observed_generation),
            Some(3),
            "{name}: bench counted no write without a reaction"
        );
    }
}
