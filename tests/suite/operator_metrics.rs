//! `top` and `bench --metrics-from` on an operator deployed as kubebuilder scaffolds one: the
//! test operator (tests/operator: a controller-runtime v0.25 manager whose metrics are served
//! over HTTPS behind TokenReview and SubjectAccessReview, with leader election) as a Deployment of
//! two replicas on the test control plane. Each Pod runs on a kwok node; kwok's PortForward
//! object leads the Pod's port 8443 to a test-operator process on the host
//! (tests/operator/run.sh), so `pods/portforward` through the API server reaches it as it would
//! reach a real Pod. Every run here goes that way: found by the Deployment's name, the leader by
//! its Lease, the port by its name `https`.

use crate::common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The Lease the test operator elects its leader on.
const LEASE: &str = "test-operator.informer.test";

fn operator_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/operator/run.sh")
}

/// The test operator's Deployment `name` in its own namespace, a process for each of its two
/// Pods (stopped on drop).
struct Operator {
    ns: TestNamespace,
    name: String,
    dir: tempfile::TempDir,
}

impl Operator {
    async fn start(prefix: &str, flags: &[&str]) -> Operator {
        // Both are built by tests/tools/tools.sh; say so if they are not.
        tool("test-operator");
        tool("kubectl");
        let ns = TestNamespace::new(prefix).await;
        let name = "my-operator".to_string();
        let manifest = Command::new(operator_script())
            .args(["manifest", &name])
            .output()
            .expect("run tests/operator/run.sh manifest");
        assert!(manifest.status.success(), "{manifest:?}");
        let applied = run_with_stdin(
            kubectl().args(["apply", "-n", &ns.name, "-f", "-"]),
            &manifest.stdout,
        );
        assert!(applied.status.success(), "kubectl apply: {applied:?}");
        let dir = tempfile::tempdir().unwrap();
        let up = Command::new(operator_script())
            .env("KUBECONFIG", kubeconfig_path())
            .args(["up", dir.path().to_str().unwrap(), &ns.name, &name, "--"])
            .args(flags)
            .output()
            .expect("run tests/operator/run.sh up");
        let operator = Operator { ns, name, dir };
        assert!(
            up.status.success(),
            "tests/operator/run.sh up failed: {}",
            String::from_utf8_lossy(&up.stderr)
        );
        operator
    }

    /// The Pod whose process holds the Lease, waited for (within 60 s) until one does.
    fn leader(&self) -> String {
        self.holder_other_than(None)
    }

    /// The Pod that holds the Lease, once it is not `not` (within 60 s).
    fn holder_other_than(&self, not: Option<&str>) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = kubectl()
                .args(["get", "lease", LEASE, "-n", &self.ns.name])
                .args(["-o", "jsonpath={.spec.holderIdentity}"])
                .output()
                .unwrap();
            let holder = String::from_utf8_lossy(&out.stdout).to_string();
            if let Some((pod, _)) = holder.split_once('_') {
                if Some(pod) != not {
                    return pod.to_string();
                }
            }
            assert!(
                Instant::now() < deadline,
                "no new holder of Lease {LEASE} within 60 s (last: {holder:?})"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn pods(&self) -> Vec<String> {
        let mut pods: Vec<String> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .filter_map(|e| {
                let name = e.unwrap().file_name().into_string().unwrap();
                name.strip_suffix(".pid").map(str::to_string)
            })
            .collect();
        pods.sort();
        pods
    }

    /// Stops the process of `pod` as its kubelet would (SIGTERM): the manager gives up its Lease.
    fn stop(&self, pod: &str) {
        self.signal(pod, "TERM");
    }

    /// Sends the process of `pod` the signal `name` (`STOP` freezes it: its port still takes
    /// connections, it answers nothing).
    fn signal(&self, pod: &str, name: &str) {
        let pid = std::fs::read_to_string(self.dir.path().join(format!("{pod}.pid"))).unwrap();
        let status = Command::new("kill")
            .args([&format!("-{name}"), pid.trim()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    fn target(&self) -> String {
        format!("deploy/{}", self.name)
    }

    /// The replica that is not `pod`.
    fn other_than(&self, pod: &str) -> String {
        (self.pods().into_iter())
            .find(|p| p != pod)
            .expect("two replicas")
    }

    /// `top` of the Deployment with `flags`, JSON lines every second for up to 150 s, read as
    /// they come.
    fn top(&self, flags: &[&str]) -> Streaming {
        let mut cmd = informer();
        cmd.args(["top", &self.target(), "-n", &self.ns.name])
            .args(flags)
            .args(["-o", "json", "--interval", "1s", "--for", "150s"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        Streaming::spawn(cmd)
    }

    /// Labelled ConfigMaps, which the operator's `configmap` controller reconciles.
    async fn give_work(&self, count: usize) {
        for i in 0..count {
            self.ns
                .create_configmap(&format!("work-{i}"), &[("informer.test/watch", "true")])
                .await;
        }
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = Command::new(operator_script())
            .args(["down", self.dir.path().to_str().unwrap()])
            .status();
    }
}

fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// bench's template: a ConfigMap the operator's `configmap` controller reconciles.
fn configmap_template(dir: &tempfile::TempDir) -> PathBuf {
    let template = dir.path().join("cm.yaml");
    std::fs::write(
        &template,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    informer.test/watch: \"true\"\ndata:\n  a: b\n",
    )
    .unwrap();
    template
}

/// Ends a streaming `top` with SIGTERM, as a CI job's timeout would: it prints its summary and
/// exits 143 (checked).
fn terminate(top: Streaming) -> Output {
    let status = Command::new("kill")
        .args(["-TERM", &top.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = top.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(143), "{}", out.stderr);
    out
}

fn named<'a>(line: &'a Value, list: &str, key: &str, name: &str) -> Option<&'a Value> {
    line[list].as_array()?.iter().find(|q| q[key] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane with controllers and kwok, and the built tools (tests/controlplane/controlplane.sh up; tests/tools/tools.sh build): cargo test -- --ignored"]
async fn top_of_a_deployment_reads_its_leaders_secure_metrics_by_port_forward() {
    let operator = Operator::start("op-top", &["--reconcile-delay=100ms"]).await;
    operator.give_work(5).await;
    let leader = operator.leader();
    let target = operator.target();
    let mut cmd = informer();
    cmd.args(["top", &target, "-n", &operator.ns.name, "--all"])
        .args(["-o", "json", "--interval", "1s", "--for", "2500ms"]);
    let out = run_with_limit(cmd, Duration::from_secs(90));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // Which replica, which port, over what: said once.
    let said = format!(
        "kubectl-informer: {target}: scraping pod/{leader}, the leader of 2 replicas (Lease \
         {LEASE}), port 8443 (the container port named \"https\") by port-forward, over HTTPS"
    );
    assert!(out.stderr.contains(&said), "{}", out.stderr);
    let lines = out.json_lines();
    let summary = lines.last().unwrap();
    assert_eq!(summary["kind"], "summary", "{summary}");
    assert_eq!(summary["pod"], leader.as_str(), "{summary}");
    assert_eq!(summary["gaps"], 0, "{summary}");
    // The leader runs the controller: its queue and its reconciler are there.
    assert!(
        named(summary, "queues", "name", "configmap").is_some(),
        "{summary}"
    );
    let reconciler = named(summary, "reconcilers", "controller", "configmap").unwrap();
    assert!(reconciler["activeWorkers"].is_number(), "{reconciler}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane with controllers and kwok, and the built tools (tests/controlplane/controlplane.sh up; tests/tools/tools.sh build): cargo test -- --ignored"]
async fn bench_metrics_from_a_deployment_fails_its_overload_gate() {
    // One worker at half a second per reconcile: 10 objects written 10 times a second back up.
    let operator = Operator::start(
        "op-bench",
        &["--reconcile-delay=500ms", "--max-concurrent-reconciles=1"],
    )
    .await;
    operator.leader();
    let dir = tempfile::tempdir().unwrap();
    let template = configmap_template(&dir);
    let mut cmd = informer();
    cmd.args(["bench", "configmaps", "-n", &operator.ns.name])
        .args(["--template", template.to_str().unwrap()])
        .args(["--objects", "10", "--rate", "10", "--for", "5s"])
        .args(["--metrics-from", &operator.target()])
        .args(["--fail-if", "controller.depth.max{name=configmap} > 3"])
        .args(["-o", "json"]);
    let out = run_with_limit(cmd, Duration::from_secs(120));
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["gates"][0]["failed"], true, "{}", report["gates"]);
    let controller = &report["controller"];
    assert_eq!(controller["target"], operator.target().as_str());
    let queue = named(controller, "queues", "name", "configmap").unwrap();
    assert!(queue["depth"]["max"].as_f64() > Some(3.0), "{queue}");
    assert!(
        out.stderr.contains("by port-forward, over HTTPS"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane with controllers and kwok, and the built tools (tests/controlplane/controlplane.sh up; tests/tools/tools.sh build): cargo test -- --ignored"]
async fn bench_follows_a_leader_that_moves_in_its_window_and_adds_both_replicas_work() {
    let operator = Operator::start("op-bench-move", &[]).await;
    let first = operator.leader();
    let other = operator.other_than(&first);
    let dir = tempfile::tempdir().unwrap();
    let template = configmap_template(&dir);
    let mut cmd = informer();
    cmd.args(["bench", "configmaps", "-n", &operator.ns.name])
        .args(["--template", template.to_str().unwrap()])
        .args(["--objects", "5", "--rate", "5", "--for", "40s"])
        .args(["--metrics-from", &operator.target(), "-o", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut bench = cmd.spawn().unwrap();
    let stderr = bench.stderr.take().unwrap();
    let (tx, said) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        use std::io::BufRead;
        let mut all = String::new();
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            all.push_str(&line);
            all.push('\n');
            let _ = tx.send(line);
        }
        all
    });
    // The leader stops as the window opens: nearly all the window's work is the new leader's.
    let opened = said
        .iter()
        .find(|l| l.contains("the clock starts now"))
        .expect("bench opens its window");
    assert!(!opened.is_empty());
    operator.stop(&first);
    let out = bench.wait_with_output().unwrap();
    let stderr = reader.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let moved = format!(
        "pod/{first} no longer leads or runs: scraping pod/{other} from now on; the window's \
         controller figures add each replica's growth over its own scrapes"
    );
    assert!(stderr.contains(&moved), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let writes = report["generator"]["creates"].as_f64().unwrap()
        + report["generator"]["updates"].as_f64().unwrap();
    // Each write is reconciled, and so is the operator's own patch of it (a reconcile that finds
    // the digest written): about two reconciles a write. The first leader had about a second
    // of the window; without its successor's work the count would be a few.
    let reconciler = named(
        &report["controller"],
        "reconcilers",
        "controller",
        "configmap",
    )
    .expect("the configmap reconciler");
    let reconciles = reconciler["reconciles"].as_f64().unwrap();
    assert!(
        reconciles >= writes / 4.0,
        "{reconciles} reconciles for {writes} writes: {}",
        report["controller"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane with controllers and kwok, and the built tools (tests/controlplane/controlplane.sh up; tests/tools/tools.sh build): cargo test -- --ignored"]
async fn a_token_without_rights_on_metrics_is_told_the_clusterrole_it_needs_in_one_line() {
    let operator = Operator::start("op-rbac", &[]).await;
    operator.leader();
    let ns = &operator.ns.name;
    let target = operator.target();
    // `nobody` may find the pods and the leader, but not forward to them: the API server's 403
    // names the verb and subresource.
    grant(ns, "finder", &FINDING).await;
    let mut cmd = informer();
    cmd.args(["--context", "nobody", "top", &target, "-n", ns]);
    let out = run_with_limit(cmd, Duration::from_secs(90));
    assert_one_line_error(
        &out,
        &[
            "cannot get pods/portforward in namespace",
            "as user \"nobody\"",
            "kubectl auth can-i get pods --subresource=portforward",
        ],
    );

    // Allowed to forward (a WebSocket's upgrade is a GET, and the API server checks `create`
    // too), its token is refused by the pod's metrics filter (no /metrics).
    grant(
        ns,
        "forwarder",
        &[
            ("", "pods/portforward", "get"),
            ("", "pods/portforward", "create"),
        ],
    )
    .await;
    let mut cmd = informer();
    cmd.args(["--context", "nobody", "top", &target, "-n", ns]);
    let out = run_with_limit(cmd, Duration::from_secs(90));
    assert_one_line_error(
        &out,
        &[
            "user \"nobody\" may not read the metrics of",
            "nonResourceURLs: [\"/metrics\"] and verbs: [\"get\"]",
        ],
    );

    // A service account's token, asked for with --metrics-token-from: refused the same way
    // without a binding, accepted with one.
    for account in ["stranger", "reader"] {
        let made = kubectl()
            .args(["create", "serviceaccount", account, "-n", ns])
            .output()
            .unwrap();
        assert!(made.status.success(), "{made:?}");
    }
    let mut cmd = informer();
    cmd.args([
        "top",
        &target,
        "-n",
        ns,
        "--metrics-token-from",
        "sa/stranger",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(90));
    assert_one_line_error(
        &out,
        &[&format!(
            "system:serviceaccount:{ns}:stranger may not read the metrics of"
        )],
    );
    let reader = ClusterGrant::metrics_reader(ns, "reader");
    let deadline = Instant::now() + Duration::from_secs(60);
    let out = loop {
        let mut cmd = informer();
        cmd.args([
            "top",
            &target,
            "-n",
            ns,
            "--metrics-token-from",
            "sa/reader",
        ])
        .args(["-o", "json", "--interval", "1s", "--for", "1s"]);
        let out = run_with_limit(cmd, Duration::from_secs(90));
        // RBAC's caches apply a binding a moment after it is made.
        if out.code == Some(0) || !out.stderr.contains("403") {
            break out;
        }
        assert!(Instant::now() < deadline, "{}", out.stderr);
        std::thread::sleep(Duration::from_millis(500));
    };
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        !out.stderr.contains("eyJ"),
        "a token was printed: {}",
        out.stderr
    );
    drop(reader);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane with controllers and kwok, and the built tools (tests/controlplane/controlplane.sh up; tests/tools/tools.sh build): cargo test -- --ignored"]
async fn when_the_leader_stops_top_follows_the_lease_to_the_new_one() {
    let operator = Operator::start("op-lead", &[]).await;
    let first = operator.leader();
    let other = operator.other_than(&first);
    let mut top = operator.top(&[]);
    let pod_is = |pod: String| {
        move |line: &str| {
            serde_json::from_str::<Value>(line).is_ok_and(|l| l["pod"] == pod.as_str())
        }
    };
    top.wait_for(
        "an interval of the first leader",
        Duration::from_secs(60),
        pod_is(first.clone()),
    );
    operator.stop(&first);
    assert_eq!(operator.holder_other_than(Some(&first)), other);
    top.wait_for(
        "an interval of the new leader",
        Duration::from_secs(90),
        pod_is(other.clone()),
    );
    let out = terminate(top);
    assert!(
        out.stderr.contains(&format!(
            "pod/{first} no longer leads or runs: the leader is now pod/{other} (Lease {LEASE})"
        )),
        "{}",
        out.stderr
    );
    let summary = out.json_lines().pop().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["pod"], other.as_str(), "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane with controllers and kwok, and the built tools (tests/controlplane/controlplane.sh up; tests/tools/tools.sh build): cargo test -- --ignored"]
async fn top_all_replicas_shows_the_leader_at_work_the_follower_waiting_then_the_new_leader() {
    let operator = Operator::start("op-each", &["--reconcile-delay=50ms"]).await;
    let first = operator.leader();
    let other = operator.other_than(&first);
    let mut top = operator.top(&["--all-replicas"]);
    let line_of = |kind: &'static str, pod: String, leads: bool| {
        move |line: &str| {
            serde_json::from_str::<Value>(line).is_ok_and(|l| {
                l["kind"] == kind && l["pod"] == pod.as_str() && l["leader"] == leads
            })
        }
    };
    // The follower's controllers wait for the Lease: it serves metrics, none of a controller's.
    top.wait_for(
        "a standby line of the follower",
        Duration::from_secs(60),
        line_of("standby", other.clone(), false),
    );
    operator.give_work(5).await;
    let leader_reconciled = {
        let first = first.clone();
        move |line: &str| {
            let Ok(l) = serde_json::from_str::<Value>(line) else {
                return false;
            };
            l["kind"] == "interval"
                && l["pod"] == first.as_str()
                && l["leader"] == true
                && named(&l, "reconcilers", "controller", "configmap")
                    .is_some_and(|r| r["reconcilesPerSecond"].as_f64() > Some(0.0))
        }
    };
    top.wait_for(
        "an interval in which the leader reconciled",
        Duration::from_secs(60),
        leader_reconciled,
    );
    // Until the leader stops, the follower shows no interval of its own.
    let follower_intervals = (top.seen.iter())
        .filter(|l| line_of("interval", other.clone(), false)(l))
        .count();
    assert_eq!(follower_intervals, 0, "{}", top.seen.join("\n"));
    // A follower that answers nothing is its own gap: the leader's intervals go on.
    operator.signal(&other, "STOP");
    for i in 0..3 {
        top.wait_for(
            &format!("leader interval {} with the follower frozen", i + 1),
            Duration::from_secs(60),
            line_of("interval", first.clone(), true),
        );
    }
    operator.signal(&other, "CONT");
    operator.stop(&first);
    assert_eq!(operator.holder_other_than(Some(&first)), other);
    top.wait_for(
        "an interval of the new leader",
        Duration::from_secs(90),
        line_of("interval", other.clone(), true),
    );
    let out = terminate(top);
    let said = format!("the leader is now pod/{other} (was pod/{first}), by Lease {LEASE}");
    assert!(out.stderr.contains(&said), "{}", out.stderr);
    let frozen = format!("scrape of deploy/my-operator (pod/{other}) failed (1 gap): ");
    assert!(out.stderr.contains(&frozen), "{}", out.stderr);
    let lines = out.json_lines();
    for line in &lines {
        let errors = crate::common::schema::schema_errors("top-line.v1.schema.json", line);
        assert!(errors.is_empty(), "{errors:?} in {line}");
    }
    // A summary for each: the new leader's first, then the stopped one's, with its gaps.
    let summaries: Vec<Value> = (lines.into_iter())
        .filter(|l| l["kind"] == "summary")
        .collect();
    assert_eq!(summaries.len(), 2, "{}", out.stdout);
    assert_eq!(summaries[0]["pod"], other.as_str(), "{}", summaries[0]);
    assert_eq!(summaries[0]["leader"], true, "{}", summaries[0]);
    assert_eq!(summaries[1]["pod"], first.as_str(), "{}", summaries[1]);
    assert_eq!(summaries[1]["leader"], false, "{}", summaries[1]);
    assert!(summaries[1]["gaps"].as_u64() > Some(0), "{}", summaries[1]);
}

/// What finding an operator's leader takes: its Deployment, its Pods, the namespace's Leases.
const FINDING: [(&str, &str, &str); 3] = [
    ("apps", "deployments", "get"),
    ("", "pods", "list"),
    ("coordination.k8s.io", "leases", "list"),
];

/// Grants `nobody` each (group, resource, verb) in `ns` (a Role and RoleBinding `name`), and
/// waits until `kubectl auth can-i` says so (within 30 s).
async fn grant(ns: &str, name: &str, rules: &[(&str, &str, &str)]) {
    let rules: Vec<Value> = rules
        .iter()
        .map(|(group, resource, verb)| {
            serde_json::json!({"apiGroups": [group], "resources": [resource], "verbs": [verb]})
        })
        .collect();
    let role = serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": name, "namespace": ns}, "rules": rules});
    let binding = serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding", "metadata": {"name": name, "namespace": ns},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "nobody"}]});
    for object in [role, binding] {
        let applied = run_with_stdin(
            kubectl().args(["apply", "-f", "-"]),
            object.to_string().as_bytes(),
        );
        assert!(applied.status.success(), "{applied:?}");
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    for rule in &rules {
        let resource = rule["resources"][0].as_str().unwrap();
        let group = rule["apiGroups"][0].as_str().unwrap();
        // `kubectl auth can-i` takes a subresource as a flag.
        let (plural, sub) = resource.split_once('/').unwrap_or((resource, ""));
        let qualified = match group {
            "" => plural.to_string(),
            group => format!("{plural}.{group}"),
        };
        let verb = rule["verbs"][0].as_str().unwrap();
        loop {
            let mut can_i = kubectl();
            can_i.args([
                "auth",
                "can-i",
                verb,
                &qualified,
                "-n",
                ns,
                "--context",
                "nobody",
            ]);
            if !sub.is_empty() {
                can_i.arg(format!("--subresource={sub}"));
            }
            let answer = can_i.output().unwrap();
            if answer.status.success() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "nobody may still not {verb} {resource} in {ns} after 30 s"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// A ClusterRole allowing `get` on `/metrics` bound to a service account, both deleted on drop
/// (they are cluster-scoped: the test namespace's deletion does not take them).
struct ClusterGrant {
    name: String,
}

impl ClusterGrant {
    fn metrics_reader(ns: &str, account: &str) -> ClusterGrant {
        let name = format!("{ns}-metrics-reader");
        let role = kubectl()
            .args(["create", "clusterrole", &name, "--verb=get"])
            .arg("--non-resource-url=/metrics")
            .output()
            .unwrap();
        assert!(role.status.success(), "{role:?}");
        let grant = ClusterGrant { name };
        let binding = kubectl()
            .args(["create", "clusterrolebinding", &grant.name])
            .arg(format!("--clusterrole={}", grant.name))
            .arg(format!("--serviceaccount={ns}:{account}"))
            .output()
            .unwrap();
        assert!(binding.status.success(), "{binding:?}");
        grant
    }
}

impl Drop for ClusterGrant {
    fn drop(&mut self) {
        for kind in ["clusterrolebinding", "clusterrole"] {
            let _ = kubectl()
                .args(["delete", kind, &self.name, "--ignore-not-found"])
                .output();
        }
    }
}
