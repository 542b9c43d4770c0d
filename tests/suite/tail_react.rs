//! `tail --react` against the real controllers of the test control plane
//! (kube-controller-manager's Deployment controller, kwok's nodes): every write others make to
//! a Deployment gets exactly one REACTION line, reacted to or superseded by a newer write's
//! reaction, with `observed-generation` and with `owned:replicasets`; a paused Deployment still
//! reports observedGeneration but makes no ReplicaSet, so `owned:replicasets` says none came
//! within the timeout; text puts each reaction under the event that showed it; and tail counts
//! the same writes and reactions as `bench --react` on the same writes.

use crate::common::controllers::*;
use crate::common::schema::assert_matches_schema;
use crate::common::*;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

const RECORDING: &str = "recording.v2.schema.json";

/// How long each wait for the controllers may take.
const LIMIT: Duration = Duration::from_secs(120);

/// Starts `tail ARGS -o json` and waits until its (first) watch is open.
fn tail_json(args: &[&str]) -> Streaming {
    let mut all = vec!["tail"];
    all.extend_from_slice(args);
    all.extend(["-o", "json"]);
    let mut tail = Streaming::start(&all);
    tail.wait_for_notice_within("watch-opened", Duration::from_secs(60));
    tail
}

/// The REACTION lines of a `-o json` stream, parsed.
fn reactions(lines: &[String]) -> Vec<Value> {
    parse_json_lines(lines)
        .into_iter()
        .filter(|l| l["type"] == "REACTION")
        .collect()
}

/// The generations the REACTION lines of `lines` are about, for the objects of namespace `ns`.
fn reacted_generations(lines: &[String], ns: &str) -> Vec<i64> {
    reactions(lines)
        .iter()
        .filter(|r| r["namespace"] == ns)
        .map(|r| r["generation"].as_i64().unwrap())
        .collect()
}

/// Reads the stream until every generation of `generations` has its REACTION line, in `ns`.
fn until_reactions_to(tail: &mut Streaming, ns: &str, generations: &[i64]) {
    let all_there = |lines: &[String]| {
        let seen = reacted_generations(lines, ns);
        generations.iter().all(|g| seen.contains(g))
    };
    if all_there(&tail.seen) {
        return;
    }
    let lines = std::cell::RefCell::new(tail.seen.clone());
    let what = format!("a REACTION line for each of generations {generations:?}");
    tail.wait_for(&what, LIMIT, |l| {
        lines.borrow_mut().push(l.to_string());
        all_there(&lines.borrow())
    });
}

/// Whether the Deployment `web` of a stream's state is rolled out: its controller observed
/// its generation, and its replicas are all updated and available, none of an older template
/// left.
fn rolled_out(state: &BTreeMap<String, Value>) -> bool {
    state.get("web").is_some_and(|d| {
        let count = |v: &Value| v.as_i64().unwrap_or(0);
        let wanted = count(&d["spec"]["replicas"]);
        let status = &d["status"];
        status["observedGeneration"] == d["metadata"]["generation"]
            && ["replicas", "updatedReplicas", "availableReplicas"]
                .iter()
                .all(|key| count(&status[*key]) == wanted)
            && count(&status["terminatingReplicas"]) == 0
    })
}

/// Patches Deployment `name` with `patch` (a merge patch) and returns the generation it got.
async fn write(ns: &TestNamespace, name: &str, patch: Value) -> i64 {
    Api::<Deployment>::namespaced(ns.client.clone(), &ns.name)
        .patch(name, &PatchParams::default(), &Patch::Merge(patch))
        .await
        .expect("patch the deployment")
        .metadata
        .generation
        .unwrap()
}

/// A change of the pod template: a rollout, a new ReplicaSet.
fn new_template(rev: usize) -> Value {
    json!({"spec": {"template": {"metadata": {"annotations": {"rev": rev.to_string()}}}}})
}

/// Every line about a write is a fate tail knows, with the fields that fate has: a reaction's
/// latency non-negative and within the timeout, its event newer than the write's; a superseded
/// write's newer write reacted to in a line of its own.
fn assert_each_write_reacted_to_or_superseded(lines: &[Value], timeout: f64) {
    let rv = |l: &Value, key: &str| l[key].as_str().unwrap().parse::<u64>().unwrap();
    for l in lines {
        assert_matches_schema(RECORDING, "a REACTION line", l);
        match l["outcome"].as_str().unwrap() {
            "reacted" => {
                let latency = l["latencySeconds"].as_f64().unwrap();
                assert!((0.0..timeout).contains(&latency), "{l}");
                assert!(
                    rv(l, "reactionResourceVersion") > rv(l, "writeResourceVersion"),
                    "{l}"
                );
            }
            "superseded" => {
                let newer = l["supersededBy"].as_i64().unwrap();
                assert!(newer > l["generation"].as_i64().unwrap(), "{l}");
                assert!(
                    lines.iter().any(|r| r["generation"] == newer
                        && r["namespace"] == l["namespace"]
                        && r["name"] == l["name"]
                        && r["outcome"] == "reacted"),
                    "superseded by a write with no reaction: {l}"
                );
            }
            other => panic!("{other}: every write gets its reaction here: {l}"),
        }
    }
}

/// Sends SIGINT and returns what tail printed (its summary on stderr with `--stats`).
fn interrupt(tail: Streaming) -> Output {
    std::process::Command::new("kill")
        .args(["-INT", &tail.pid().to_string()])
        .status()
        .unwrap();
    tail.finish(Duration::from_secs(30))
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn every_write_to_a_deployment_is_reacted_to_once_or_superseded_by_a_newer_one() {
    require_controllers();
    let ns = TestNamespace::new("react").await;
    create_deployment(&ns, "web", 1).await;
    let mut tail = tail_json(&[
        "deploy",
        "-n",
        &ns.name,
        "--react",
        "observed-generation",
        "--reaction-timeout",
        "60s",
        "--stats",
    ]);
    until_state(&mut tail, "web rolled out", LIMIT, rolled_out);
    // Writes in pairs sent together (the controller may coalesce each pair: one reaction, the
    // older write superseded), each pair once the last one's reaction came.
    let mut generations = Vec::new();
    for pair in 0..4 {
        let (a, b) = tokio::join!(
            write(&ns, "web", new_template(2 * pair)),
            write(&ns, "web", json!({"spec": {"minReadySeconds": pair + 1}}))
        );
        generations.extend([a, b]);
        until_reactions_to(&mut tail, &ns.name, &generations);
    }
    generations.sort();
    let mut seen = reacted_generations(&tail.seen, &ns.name);
    seen.sort();
    assert_eq!(seen, generations, "one REACTION line per write, none else");
    let lines = reactions(&tail.seen);
    assert_each_write_reacted_to_or_superseded(&lines, 60.0);
    for l in &lines {
        // observed-generation: the Deployment's own status showed each reaction.
        assert_eq!(l["reactionResource"], "deployments.apps", "{l}");
        assert_eq!(l["reactionName"], "web", "{l}");
        assert!(
            l["observedGeneration"].as_i64() >= l["generation"].as_i64(),
            "{l}"
        );
        assert_eq!(l["react"], "observed-generation", "{l}");
    }
    let reacted = lines.iter().filter(|l| l["outcome"] == "reacted").count();
    let out = interrupt(tail);
    assert_eq!(out.code, Some(130), "{}", out.stderr);
    let summary = format!(
        "summary: --react observed-generation: 8 writes: {reacted} reacted, {} superseded \
         (coalesced with a newer write), 0 without a reaction within 1m, 0 deleted before one, \
         0 still waiting; reaction latency p50 ",
        8 - reacted
    );
    assert!(out.stderr.contains(&summary), "{summary}\n{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_rollout_s_reaction_is_a_replica_set_and_a_paused_deployment_makes_none_in_time() {
    require_controllers();
    let ns = TestNamespace::new("reactrs").await;
    // No replicas: a rollout makes a ReplicaSet and nothing else writes one after it (no Pods
    // whose changes the ReplicaSets' status follows), so a write with no ReplicaSet made for
    // it has none.
    create_deployment(&ns, "web", 0).await;
    let watch = |react: &str| {
        tail_json(&[
            "deploy",
            "-n",
            &ns.name,
            "--react",
            react,
            "--reaction-timeout",
            "5s",
        ])
    };
    let mut owned = watch("owned:replicasets");
    let mut observed = watch("observed-generation");
    until_state(&mut owned, "web rolled out", LIMIT, rolled_out);
    let rollout = write(&ns, "web", new_template(1)).await;
    until_reactions_to(&mut owned, &ns.name, &[rollout]);
    let line = reactions(&owned.seen).pop().unwrap();
    assert_eq!(line["outcome"], "reacted", "{line}");
    assert_eq!(line["reactionResource"], "replicasets.apps", "{line}");
    assert!(
        line["reactionName"]
            .as_str()
            .is_some_and(|n| n.starts_with("web-")),
        "{line}"
    );
    assert!(line["observedGeneration"].is_null(), "{line}");
    assert_each_write_reacted_to_or_superseded(&[line], 5.0);
    until_state(&mut owned, "web rolled out again", LIMIT, rolled_out);

    // Paused, the controller still reports the generation it saw, and makes no ReplicaSet.
    let paused = write(&ns, "web", json!({"spec": {"paused": true}})).await;
    let template = write(&ns, "web", new_template(2)).await;
    until_reactions_to(&mut owned, &ns.name, &[paused, template]);
    until_reactions_to(&mut observed, &ns.name, &[paused, template]);
    let fate = |lines: &[String], generation: i64| {
        reactions(lines)
            .into_iter()
            .find(|l| l["generation"] == generation)
            .unwrap()
    };
    let none = fate(&owned.seen, template);
    assert_matches_schema(RECORDING, "a REACTION line", &none);
    assert_eq!(none["outcome"], "timed-out", "{none}");
    assert!(none["latencySeconds"].is_null(), "{none}");
    assert_eq!(none["reactionTimeoutSeconds"], 5.0, "{none}");
    let waited = |l: &Value| {
        let time = |key: &str| humantime::parse_rfc3339(l[key].as_str().unwrap()).unwrap();
        time("time").duration_since(time("writeTime")).unwrap()
    };
    assert_eq!(waited(&none), Duration::from_secs(5), "{none}");
    let reported = fate(&observed.seen, template);
    assert_eq!(reported["outcome"], "reacted", "{reported}");
    assert_eq!(reported["observedGeneration"], template, "{reported}");
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn in_text_each_reaction_follows_the_event_that_showed_it() {
    require_controllers();
    let ns = TestNamespace::new("reacttext").await;
    create_deployment(&ns, "web", 1).await;
    let mut tail = Streaming::start(&[
        "tail",
        "deploy",
        "-n",
        &ns.name,
        "--react",
        "observed-generation",
        "--stats",
    ]);
    // The first LIST's object: the watch opens from its RV, so what comes after is seen.
    tail.wait_for("the Deployment listed", LIMIT, |l| l.contains("(initial)"));
    let generation = write(&ns, "web", new_template(1)).await;
    let said = format!("↳ generation {generation}: reacted in ");
    let line = tail.wait_for("the reaction line", LIMIT, |l| l.contains(&said));
    let key = format!("{}/web", ns.name);
    assert!(
        line.contains("  REACTION  ")
            && line.contains(&format!("  {key}  ↳ generation {generation}: reacted in "))
            && line.ends_with(&format!("(status.observedGeneration {generation})")),
        "{line}"
    );
    // Right under the MODIFIED whose status showed it, at its RV.
    let before = &tail.seen[tail.seen.len() - 2];
    let rv = |l: &str| l.split_whitespace().nth(2).unwrap().to_string();
    assert!(
        before.contains("  MODIFIED  ") && before.contains("status.observedGeneration"),
        "{before}\n{line}"
    );
    assert_eq!(rv(before), rv(&line), "{before}\n{line}");
    let out = interrupt(tail);
    assert!(
        out.stderr
            .contains("summary: --react observed-generation: 1 write: 1 reacted, 0 superseded"),
        "{}",
        out.stderr
    );
}

/// A Deployment manifest whose Pods kwok runs, for bench's writes.
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

/// Runs `bench ARGS --export-json FILE` (off the runtime) and returns its output and report.
async fn bench(args: Vec<String>) -> (Output, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json: PathBuf = dir.path().join("report.json");
    let mut all = args;
    all.extend(["--export-json".into(), json.display().to_string()]);
    let out = tokio::task::spawn_blocking(move || {
        let mut cmd = informer();
        cmd.args(&all);
        run_with_limit(cmd, Duration::from_secs(240))
    })
    .await
    .unwrap();
    let doc = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (out, doc)
}

#[tokio::test]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn tail_shows_a_reaction_per_write_that_matches_what_bench_measures_on_the_same_writes() {
    require_controllers();
    let mut tail = tail_json(&[
        "deploy",
        "-A",
        "--react",
        "observed-generation",
        "--reaction-timeout",
        "60s",
    ]);
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("deploy.yaml");
    std::fs::write(&template, DEPLOYMENT).unwrap();
    let objects = 5;
    let (out, doc) = bench(
        [
            "bench",
            "deployments",
            "--template",
            template.to_str().unwrap(),
            "--react",
            "observed-generation",
            "--reaction-timeout",
            "60s",
            "--objects",
            &objects.to_string(),
            "--rate",
            "5",
            "--for",
            "6s",
        ]
        .map(str::to_string)
        .to_vec(),
    )
    .await;
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    // bench's scratch namespace, deleted at its end: once tail has seen its Deployments go,
    // every write to them has its REACTION line (a reaction, or none before the deletion).
    let ns = doc["source"]["namespace"].as_str().unwrap().to_string();
    let deleted = |lines: &[String]| {
        parse_json_lines(lines)
            .iter()
            .filter(|l| l["type"] == "DELETED" && l["namespace"] == ns.as_str())
            .count()
    };
    if deleted(&tail.seen) < objects {
        let lines = std::cell::RefCell::new(tail.seen.clone());
        tail.wait_for("bench's Deployments deleted", LIMIT, |l| {
            lines.borrow_mut().push(l.to_string());
            deleted(&lines.borrow()) == objects
        });
    }
    let c = &doc["counters"];
    let bench_writes = c["writes"].as_u64().unwrap();
    let bench_reacted = doc["metrics"]["reactionLatency"]["count"].as_u64().unwrap();
    let bench_superseded = c["superseded"].as_u64().unwrap();
    assert!(bench_writes > 0, "{doc}");
    assert_eq!(c["writesWithoutReaction"], 0, "{doc}");

    let lines: Vec<Value> = reactions(&tail.seen)
        .into_iter()
        .filter(|l| l["namespace"] == ns.as_str())
        .collect();
    let count = |outcome: &str| lines.iter().filter(|l| l["outcome"] == outcome).count() as u64;
    let said = format!(
        "bench: {bench_writes} writes, {bench_reacted} reacted, {bench_superseded} superseded; \
         tail: {lines:#?}"
    );
    assert_eq!(lines.len() as u64, bench_writes, "{said}");
    assert_eq!(count("reacted"), bench_reacted, "{said}");
    assert_eq!(count("superseded"), bench_superseded, "{said}");
    assert_each_write_reacted_to_or_superseded(&lines, 60.0);
}
