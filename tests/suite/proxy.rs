//! `proxy` on the test control plane. Requests reach the API server with the proxy's
//! credentials (the client's own are dropped), over TLS signed by the proxy's own CA, and a
//! watch streams each event as it comes. Then the faults, in front of a real controller: a
//! kube-controller-manager of the test's own, started on the kubeconfig the proxy writes and
//! running only the ReplicationController controller (the test plane's runs every other one),
//! while `bench --react observed-generation` writes ReplicationControllers through the API
//! server directly and times the controller's reaction to each write.

use crate::common::*;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, PostParams, WatchEvent, WatchParams};
use kubectl_informer::cluster::{Cluster, KubeconfigSelection, Transport};
use kubectl_informer::proxy::{engine::Engine, serve::serve, tls::Authority};
use serde_json::Value;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The tests that run a ReplicationController controller, one at a time: two at once would
/// each react to the other's writes.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Starts the proxy on a loopback port in front of the test control plane; a client of it
/// (its kubeconfig: the proxy's CA, a token the proxy does not pass on).
async fn proxied() -> (kube::Client, tokio::task::JoinHandle<std::io::Result<()>>) {
    let selection = KubeconfigSelection {
        path: Some(kubeconfig_path()),
        ..Default::default()
    };
    let cluster = Cluster::connect(&selection, Transport::default())
        .await
        .unwrap();
    let authority = Authority::new().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let no_faults = Arc::new(Engine::new(
        Vec::new(),
        1,
        tokio::sync::mpsc::unbounded_channel().0,
    ));
    let server = tokio::spawn(serve(
        listener,
        Some(authority.server.clone()),
        cluster,
        no_faults,
    ));
    let dir = tempfile::tempdir().unwrap();
    let path = write_kubeconfig(
        dir.path(),
        &format!("https://127.0.0.1:{port}"),
        "not-a-valid-token",
        Some(&authority.ca_pem),
    );
    let kubeconfig = kube::config::Kubeconfig::read_from(&path).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .unwrap();
    (kube::Client::try_from(config).unwrap(), server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn requests_and_watches_go_through_with_the_proxys_credentials() {
    let ns = TestNamespace::new("proxy").await;
    let (client, server) = proxied().await;
    // The client's own token is not valid: the answer comes with the proxy's.
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let listed = namespaces.list(&Default::default()).await.unwrap();
    assert!(listed
        .items
        .iter()
        .any(|n| n.metadata.name.as_deref() == Some(&ns.name)));

    let configmaps: Api<ConfigMap> = Api::namespaced(client, &ns.name);
    let rv = configmaps
        .list(&Default::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap();
    let mut events = configmaps
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();
    let cm: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "through-the-proxy"}
    }))
    .unwrap();
    configmaps
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
    let added = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(event) = events.try_next().await.unwrap() {
            if let WatchEvent::Added(cm) = event {
                return cm;
            }
        }
        panic!("the watch ended");
    })
    .await
    .expect("the ADDED event within 60 s");
    assert_eq!(added.metadata.name.as_deref(), Some("through-the-proxy"));
    server.abort();
}

/// `kubectl informer proxy -o json` in the background with `faults`, its JSON lines read as
/// they come; killed when dropped.
struct FaultProxy {
    child: Child,
    lines: std::sync::mpsc::Receiver<Value>,
    seen: Vec<Value>,
    kubeconfig: PathBuf,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl FaultProxy {
    /// Starts it and waits (60 s at most) for its first line, written once its kubeconfig is.
    fn start(dir: &Path, faults: &[&str]) -> FaultProxy {
        let kubeconfig = dir.join("proxy.kubeconfig");
        let mut cmd = informer();
        cmd.args([
            "proxy",
            "-p",
            "0",
            "-o",
            "json",
            "--seed",
            "1",
            "--write-kubeconfig",
        ])
        .arg(&kubeconfig);
        for fault in faults {
            cmd.args(["--fault", fault]);
        }
        let mut child = cmd.spawn().expect("spawn kubectl-informer proxy");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                let value = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("proxy -o json wrote a line that is not JSON ({e}): {line}")
                });
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
            s
        });
        let mut proxy = FaultProxy {
            child,
            lines,
            seen: Vec::new(),
            kubeconfig,
            stderr: Some(stderr),
        };
        proxy.wait_for("its serving line", Duration::from_secs(60), |l| {
            l["type"] == "serving"
        });
        proxy
    }

    /// Waits up to `limit` for a line that `matches`; fails saying what was awaited.
    fn wait_for(&mut self, what: &str, limit: Duration, matches: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(line) = self.seen.iter().find(|l| matches(l)) {
                return line.clone();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.take(line),
                Err(_) => {
                    let _ = self.child.kill();
                    panic!(
                        "no {what} from the proxy within {limit:?}; its lines: {:#?}",
                        self.seen
                    );
                }
            }
        }
    }

    /// Keeps `line`, checked against the schema of the proxy's lines.
    fn take(&mut self, line: Value) {
        schema::assert_matches_schema(
            "proxy-line.v1.schema.json",
            "a line of proxy -o json",
            &line,
        );
        self.seen.push(line);
    }

    /// The fault lines so far of `kind` whose request names `resource`.
    fn applied(&mut self, kind: &str, resource: &str) -> Vec<Value> {
        while let Ok(line) = self.lines.try_recv() {
            self.take(line);
        }
        self.seen
            .iter()
            .filter(|l| l["type"] == "fault" && l["fault"] == kind)
            .filter(|l| l["request"].as_str().is_some_and(|r| r.contains(resource)))
            .cloned()
            .collect()
    }

    /// Stops it as Ctrl-C would (SIGINT) and returns its last JSON line, the summary, and its
    /// stderr.
    fn stop(mut self) -> (Value, String) {
        let pid = self.child.id().to_string();
        let status = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(30);
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.code();
            }
            assert!(
                Instant::now() < deadline,
                "the proxy did not stop within 30 s of SIGINT"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(code, Some(130), "Ctrl-C's exit code");
        while let Ok(line) = self.lines.recv() {
            self.take(line);
        }
        let summary = self.seen.last().cloned().unwrap_or(Value::Null);
        let stderr = self.stderr.take().map(|t| t.join().unwrap_or_default());
        (summary, stderr.unwrap_or_default())
    }
}

/// A kube-controller-manager of the test's own on `kubeconfig`, running only the
/// ReplicationController controller, logging to `log`; killed when dropped.
struct ControllerManager {
    child: Child,
    log: PathBuf,
}

impl ControllerManager {
    fn start(kubeconfig: &Path, log: &Path) -> ControllerManager {
        let bin = controlplane_bin("kube-controller-manager");
        let child = Command::new(&bin)
            .arg(format!("--kubeconfig={}", kubeconfig.display()))
            .args([
                "--secure-port=0",
                "--leader-elect=false",
                "--controllers=replicationcontroller",
                "-v=2",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        ControllerManager {
            child,
            log: log.to_path_buf(),
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Stops it as a supervisor would (SIGTERM, which flushes its log) and returns its log.
    fn stop(mut self) -> String {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        self.log()
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ControllerManager {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `bench` on ReplicationControllers with `--react observed-generation` (off the
/// runtime) and returns its output and report.
async fn bench_replication_controllers(dir: &Path, extra: &[&str]) -> (Output, Value) {
    let template =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replication-controller.yaml");
    let report = dir.join("report.json");
    let mut args: Vec<String> = [
        "bench",
        "--template",
        template.to_str().unwrap(),
        "--react",
        "observed-generation",
        "--export-json",
        report.to_str().unwrap(),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(extra.iter().map(|a| a.to_string()));
    let out = tokio::task::spawn_blocking(move || {
        let mut cmd = informer();
        cmd.args(&args);
        run_with_limit(cmd, Duration::from_secs(240))
    })
    .await
    .unwrap();
    let doc = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (out, doc)
}

fn count(doc: &Value, pointer: &str) -> u64 {
    doc.pointer(pointer)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("{pointer} in {doc:#}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_controller_behind_severed_watches_and_410_on_every_resume_still_reacts_to_every_write() {
    let _one = ONE_AT_A_TIME.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = FaultProxy::start(
        dir.path(),
        &[
            "sever:every=3s,how=end,resource=replicationcontrollers",
            "gone:resource=replicationcontrollers",
        ],
    );
    let kcm = ControllerManager::start(&proxy.kubeconfig, &dir.path().join("kcm.log"));
    // The controller's watch is open once a sever finds it.
    proxy.wait_for(
        "a sever of the controller's watch",
        Duration::from_secs(120),
        |l| {
            l["fault"] == "sever"
                && l["request"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("watch replicationcontrollers"))
        },
    );
    let (out, doc) = bench_replication_controllers(
        dir.path(),
        &[
            "--objects",
            "10",
            "--rate",
            "2",
            "--warmup",
            "2s",
            "--for",
            "20s",
            "--reaction-timeout",
            "30s",
            "--fail-if",
            "writesWithoutReaction > 0",
        ],
    )
    .await;
    assert_eq!(
        out.code,
        Some(0),
        "{}\n{}\n{}",
        out.stdout,
        out.stderr,
        kcm.log()
    );
    assert_eq!(count(&doc, "/counters/writesWithoutReaction"), 0, "{doc:#}");
    let reacted = count(&doc, "/metrics/reactionLatency/count");
    assert!(reacted > 0, "{doc:#}");
    // Each sever ended the watch cleanly; the controller resumed from its last resourceVersion,
    // was answered 410, and relisted (a watch-list, whose initial events are not a resume).
    let severed = proxy.applied("sever", "watch replicationcontrollers");
    let gone = proxy.applied("gone", "watch replicationcontrollers");
    // (Every 3 s over the run's 25 s or so; some severs find no watch open, while the
    // controller waits out its backoff before relisting.)
    assert!(severed.len() >= 3, "severs: {severed:#?}");
    assert!(gone.len() >= 2, "410s: {gone:#?}");
    assert!(
        gone.iter()
            .all(|g| g["request"].as_str().unwrap().contains(" from rv ")
                && g["detail"] == "answered 410 Gone (an ERROR event)"),
        "{gone:#?}"
    );
    assert!(
        severed.iter().any(|s| s["request"]
            .as_str()
            .unwrap()
            .contains("with initial events")),
        "after a 410 the controller relists with a watch-list: {severed:#?}"
    );
    drop(kcm);
    let (summary, stderr) = proxy.stop();
    assert_eq!(summary["type"], "summary", "{summary}");
    let applied: Vec<u64> = summary["faults"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["applied"].as_u64().unwrap())
        .collect();
    assert!(
        applied[0] as usize >= severed.len() && applied[1] as usize >= gone.len(),
        "{summary}"
    );
    assert!(stderr.contains("Faults applied in"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn without_the_initial_events_end_bookmark_the_controller_never_syncs_and_reacts_to_nothing()
{
    let _one = ONE_AT_A_TIME.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = FaultProxy::start(
        dir.path(),
        &["drop-initial-events-end:resource=replicationcontrollers"],
    );
    let kcm = ControllerManager::start(&proxy.kubeconfig, &dir.path().join("kcm.log"));
    proxy.wait_for(
        "the initial-events-end bookmark dropped",
        Duration::from_secs(120),
        |l| {
            l["fault"] == "drop-initial-events-end"
                && l["detail"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("dropped the initial-events-end BOOKMARK"))
        },
    );
    let (out, doc) = bench_replication_controllers(
        dir.path(),
        &[
            "--objects",
            "3",
            "--rate",
            "1",
            "--warmup",
            "1s",
            "--for",
            "5s",
            "--reaction-timeout",
            "15s",
            "--fail-if",
            "writesWithoutReaction > 0",
        ],
    )
    .await;
    // client-go has no timeout for that bookmark and no fallback to LIST: its store never
    // syncs, so the controller, waiting for its caches, reacts to none of the writes.
    assert_eq!(
        out.code,
        Some(1),
        "the gate fails\n{}\n{}\n{}\n{:#?}",
        out.stdout,
        out.stderr,
        kcm.log(),
        proxy.seen
    );
    assert!(
        count(&doc, "/counters/writesWithoutReaction") >= 3,
        "{doc:#}"
    );
    assert_eq!(count(&doc, "/metrics/reactionLatency/count"), 0, "{doc:#}");
    // Its reflector says, every 10 s without an event, that it still waits for the bookmark:
    // once bench is done, within 20 s.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !kcm.log().contains("required bookmark event") && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let log = kcm.stop();
    assert!(
        log.contains("Warning: event bookmark expired") && log.contains("required bookmark event"),
        "the controller's log says what it waits for, within 60 s:\n{log}"
    );
    proxy.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_dead_connection_is_given_up_by_the_controllers_http2_health_check_and_its_reactions_wait_until_then(
) {
    let _one = ONE_AT_A_TIME.lock().await;
    let dir = tempfile::tempdir().unwrap();
    // The silence comes 25 s after the proxy started, in the middle of bench's window: by then
    // the controller has synced and reacted to bench's creations (which bench waits for before
    // its clock starts), and bench writes once a second for 30 s.
    let proxy = FaultProxy::start(
        dir.path(),
        &["silence:at=25s,for=100s,resource=replicationcontrollers"],
    );
    let kcm = ControllerManager::start(&proxy.kubeconfig, &dir.path().join("kcm.log"));
    let bench = bench_replication_controllers(
        dir.path(),
        &[
            "--objects",
            "5",
            "--rate",
            "1",
            "--warmup",
            "1s",
            "--for",
            "30s",
            "--reaction-timeout",
            "90s",
        ],
    );
    let given_up = tokio::task::spawn_blocking(move || {
        let mut proxy = proxy;
        let silenced = proxy.wait_for("the silence", Duration::from_secs(60), |l| {
            l["fault"] == "silence"
        });
        let detail = silenced["detail"].as_str().unwrap_or_default();
        assert!(
            detail.contains("silent for 1m40s") && detail.contains("watch replicationcontrollers"),
            "the connection carrying the controller's watch goes silent: {:#?}",
            proxy.seen
        );
        let line = proxy.wait_for(
            "the controller's new connection",
            Duration::from_secs(100),
            |l| {
                l["fault"] == "silence"
                    && l["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("has given up on it"))
            },
        );
        (line, proxy)
    });
    let (out, doc) = bench.await;
    let (line, proxy) = given_up.await.unwrap();
    let detail = line["detail"].as_str().unwrap();
    // "... 44.9s into the silence of connection #1 ...": client-go's health check sends a PING
    // after 30 s without a frame read and gives up 15 s later, so the new connection comes 15 s
    // (the last frame read just before the silence began... at least the PING's 15 s) to 45 s in.
    let seconds: f64 = detail
        .split(" into the silence")
        .next()
        .and_then(|s| s.rsplit(", ").next())
        .and_then(|s| s.trim_end_matches('s').parse().ok())
        .unwrap_or_else(|| panic!("no time in: {detail}"));
    assert!((15.0..100.0).contains(&seconds), "{detail}");
    assert_eq!(
        out.code,
        Some(0),
        "{}\n{}\n{}",
        out.stdout,
        out.stderr,
        kcm.log()
    );
    assert_eq!(count(&doc, "/counters/writesWithoutReaction"), 0, "{doc:#}");
    // The writes made while the connection was dead waited for the new one: at least the 15 s
    // of the health check's PING, for the first of them. (On a machine so loaded that bench's
    // clock started only after the silence began, the wait is in its creates' reactions, which
    // it waits for before its clock starts: "reacted to the 5 objects created within 46.1s".)
    let max = doc["metrics"]["reactionLatency"]["max"]
        .as_f64()
        .unwrap_or(0.0);
    let creates: f64 = out
        .stderr
        .split("objects created within ")
        .nth(1)
        .and_then(|s| s.split('s').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    assert!(
        max >= 15.0 || creates >= 15.0,
        "reaction max {max} s, creates' reactions within {creates} s:\n{}\n{doc:#}",
        out.stderr
    );
    drop(kcm);
    proxy.stop();
}

#[test]
fn bad_faults_are_one_line_and_exit_2() {
    for (fault, needle) in [
        ("explode", "unknown fault \"explode\""),
        ("sever:every=-5s", "a duration cannot be negative"),
        ("gone:share=150%", "a share is above 0% and at most 100%"),
        ("silence:at=1s", "silence needs for=D"),
    ] {
        let out = run(&["proxy", "--fault", fault]);
        assert_one_line_error(&out, &[&format!("--fault {fault}: "), needle]);
    }
}

#[test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
fn a_fault_on_a_resource_the_server_does_not_have_is_one_line_and_exit_2() {
    let out = run(&["proxy", "--fault", "gone:resource=nosuchthings"]);
    assert_one_line_error(
        &out,
        &["--fault gone:resource=nosuchthings: ", "nosuchthings"],
    );
}

/// kubectl with `kubeconfig`, its output piped.
fn kubectl_at(kubeconfig: &Path) -> Command {
    let mut cmd = kubectl();
    cmd.env("KUBECONFIG", kubeconfig);
    cmd
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn kubectl_meets_the_errors_and_slow_lists_and_a_watch_outlives_a_restart_of_the_proxy() {
    let ns = TestNamespace::new("proxy-faults").await;
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = FaultProxy::start(
        dir.path(),
        &[
            "error:status=503,verb=get,resource=namespaces",
            "slow-list:by=2s,resource=configmaps",
            "refuse:at=12s,for=3s",
        ],
    );
    let kubeconfig = proxy.kubeconfig.clone();
    // A tail through the proxy, before the restart.
    let mut tail = Streaming::start(&[
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "tail",
        "configmaps",
        "-n",
        &ns.name,
        "-o",
        "json",
    ]);
    tail.wait_for_notice_within("watch-opened", Duration::from_secs(60));

    // A GET answered 503 with no Retry-After: kubectl says the server's message.
    let out = kubectl_at(&kubeconfig)
        .args(["get", "namespace", &ns.name])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("ServiceUnavailable") || stderr.contains("503"),
        "{stderr}"
    );
    assert!(stderr.contains("fault error:status=503"), "{stderr}");
    // Lists of other resources are not in its scope.
    let out = kubectl_at(&kubeconfig)
        .args(["get", "namespaces"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A LIST of ConfigMaps is answered 2 s late, at least.
    let asked = Instant::now();
    let out = kubectl_at(&kubeconfig)
        .args(["get", "configmaps", "-n", &ns.name])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(asked.elapsed() >= Duration::from_secs(2));
    let slow = proxy.applied("slow-list", "list configmaps");
    assert!(
        slow.iter().any(|l| l["detail"] == "answered 2s later"),
        "{slow:#?}"
    );
    let error = proxy.applied("error", "get namespaces");
    assert_eq!(error[0]["detail"], "answered 503", "{error:#?}");

    // The restart: every connection closed, the tail's with them; new ones refused for 3 s.
    let restart = proxy.wait_for("the restart", Duration::from_secs(60), |l| {
        l["fault"] == "refuse" && l["detail"].as_str().is_some_and(|d| d.contains("closed"))
    });
    assert!(
        restart["detail"]
            .as_str()
            .unwrap()
            .ends_with("new connections refused for 3s"),
        "{restart}"
    );
    proxy.wait_for("the end of the restart", Duration::from_secs(60), |l| {
        l["fault"] == "refuse" && l["detail"] == "accepting connections again"
    });
    let closed = tail.wait_for_notice("watch-closed");
    assert!(closed["retryInSeconds"].is_number(), "{closed}");
    // The tail comes back through the proxy and sees what is written after.
    ns.create_configmap("after-the-restart", &[]).await;
    tail.wait_for(
        "the ConfigMap written after the restart",
        Duration::from_secs(90),
        |l| l.contains("\"ADDED\"") && l.contains("after-the-restart"),
    );
    drop(tail);
    proxy.stop();
}

#[test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
fn conform_through_a_proxy_that_drops_bookmarks_fails_the_two_bookmark_checks_only() {
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = FaultProxy::start(dir.path(), &["drop-bookmarks:resource=configmaps"]);
    let mut cmd = informer();
    cmd.arg("--kubeconfig")
        .arg(&proxy.kubeconfig)
        .args(["conform", "configmaps", "-o", "json"]);
    let out = run_with_limit(cmd, Duration::from_secs(240));
    assert_eq!(
        out.code,
        Some(1),
        "a check fails\n{}\n{}",
        out.stdout,
        out.stderr
    );
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let failed: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "fail")
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["watch-bookmarks", "watch-list"], "{report:#}");
    let dropped = proxy.applied("drop-bookmarks", "watch configmaps");
    assert!(
        dropped.iter().any(|d| d["detail"]
            .as_str()
            .is_some_and(|t| t.starts_with("dropped the initial-events-end BOOKMARK"))),
        "{dropped:#?}"
    );
    proxy.stop();
}

/// The workload of the end-state tests on the ReplicationController controller: an RC of 3
/// Pods, waited for until the controller reports all 3 ready (kwok makes them so), then another
/// actor's write to each Pod the controller made: an annotation whose value is new on every run.
/// The scheduler's choice of node for each Pod is another actor's write too.
fn replicas_workload(dir: &Path) -> String {
    let kubectl = tool("kubectl").display().to_string();
    let script = format!(
        r#"set -e
k() {{ "{kubectl}" -n "$KUBECTL_INFORMER_NAMESPACE" "$@"; }}
k apply -f - <<'END'
apiVersion: v1
kind: ReplicationController
metadata: {{name: web}}
spec:
  replicas: 3
  selector: {{app: web}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: registry.invalid/web:1}}]
END
k wait rc/web --timeout=120s --for=jsonpath='{{.status.readyReplicas}}'=3
k annotate pods -l app=web other.actor/nonce="$(date +%s%N)-$$"
"#
    );
    let path = dir.join("replicas.sh");
    std::fs::write(&path, script).unwrap();
    format!("sh {}", path.display())
}

/// `proxy --workload` on the ReplicationController controller of a kube-controller-manager the
/// proxy runs, in a namespace of its own, the end state of its RCs and Pods saved or compared
/// (`flags`).
async fn replicas_run(dir: &Path, flags: &[&str]) -> Output {
    let ns = TestNamespace::new("endstate").await;
    let kcm = format!(
        "exec '{}' --kubeconfig \"$KUBECONFIG\" --controllers=replicationcontroller --leader-elect=false --secure-port=0",
        controlplane_bin("kube-controller-manager").display()
    );
    let work = replicas_workload(dir);
    let mut cmd = informer();
    cmd.args(["proxy", "-p", "0", "-o", "json", "-n", &ns.name]);
    cmd.args(["--workload", &work, "--settle", "2s", "--state", "rc,pods"]);
    cmd.args(flags);
    cmd.args(["--", "sh", "-c", &kcm]);
    let out = tokio::task::spawn_blocking(move || run_with_limit(cmd, Duration::from_secs(240)))
        .await
        .unwrap();
    drop(ns);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn another_actors_writes_to_the_controllers_objects_are_no_difference_unless_every_field_is_compared(
) {
    let _one = ONE_AT_A_TIME.lock().await;
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).display().to_string();
    let (managed, all) = (file("managed.json"), file("all.json"));
    for flags in [
        vec!["--save-state", managed.as_str()],
        vec!["--save-state", all.as_str(), "--all-fields"],
    ] {
        let out = replicas_run(dir.path(), &flags).await;
        assert_eq!(out.code, Some(0), "{flags:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("Saved the end state of replicationcontrollers, pods in "),
            "{}",
            out.stderr
        );
    }
    let saved: Value = serde_json::from_slice(&std::fs::read(&managed).unwrap()).unwrap();
    assert_eq!(
        saved["managers"],
        serde_json::json!(["kube-controller-manager"]),
        "the field manager learned from the controller's writes through the proxy"
    );
    let pod = saved["objects"]["pods web-*"][0].to_string();
    assert!(pod.contains("registry.invalid/web:1"), "{pod}");
    for theirs in ["nodeName", "hostIP", "other.actor/nonce"] {
        assert!(
            !pod.contains(theirs),
            "{theirs} is not the controller's: {pod}"
        );
    }

    // The controller's fields alone: the nonce and the node are another actor's.
    let out = replicas_run(dir.path(), &["--compare-state", &managed]).await;
    let verdict = (out.json_lines().into_iter())
        .find(|v| v["type"] == "verdict")
        .unwrap_or_else(|| panic!("no verdict: {}\n{}", out.stdout, out.stderr));
    assert_eq!(verdict["differences"], serde_json::json!([]), "{verdict}");
    assert_eq!(
        verdict["managers"],
        serde_json::json!(["kube-controller-manager"])
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);

    // Every field: the nonce differs on every run, and the verdict names its path.
    let out = replicas_run(dir.path(), &["--compare-state", &all, "--all-fields"]).await;
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    let verdict = (out.json_lines().into_iter())
        .find(|v| v["type"] == "verdict")
        .unwrap_or_else(|| panic!("no verdict: {}\n{}", out.stdout, out.stderr));
    let paths: Vec<&str> = (verdict["differences"].as_array().unwrap().iter())
        .flat_map(|d| d["fields"].as_array().into_iter().flatten())
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert!(
        paths.contains(&".metadata.annotations[\"other.actor/nonce\"]"),
        "{verdict}"
    );
}
