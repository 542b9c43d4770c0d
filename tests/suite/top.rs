//! `top` against kube-controller-manager itself (its /metrics on the test control plane, reached
//! with the kubeconfig's credentials), and against a scripted loopback server for what the real
//! one will not do on demand: serve an HTML page, metrics that are not a controller's, or stop
//! answering for a while; and a pod's plain-http metrics through the API server's proxy (a
//! network namespace of the test's own holds the pod's address), read by `top` and by
//! `bench --metrics-from`; and bench's patience with a scrape that never answers.

use crate::common;
use crate::common::controllers::{create_deployment, require_controllers};
use crate::common::fake::{FakeServer, Reply, Step};
use crate::common::{
    assert_one_line_error, informer, run_dir, run_with_limit, Merged, Stream, TestNamespace,
};
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

/// kube-controller-manager's metrics URL on the test control plane.
fn kcm_metrics() -> String {
    let port = std::fs::read_to_string(run_dir().join("kube-controller-manager.port"))
        .expect("the test control plane runs kube-controller-manager");
    format!("https://127.0.0.1:{}/metrics", port.trim())
}

/// A line of `top -o json`, parsed and held to its schema.
fn parse(line: &str) -> Value {
    let value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
    let errors = common::schema::schema_errors("top-line.v1.schema.json", &value);
    assert!(errors.is_empty(), "{errors:?} in {line}");
    value
}

/// The queue named `name` in a line of `top -o json`.
fn queue<'a>(line: &'a Value, name: &str) -> Option<&'a Value> {
    line["queues"]
        .as_array()?
        .iter()
        .find(|q| q["name"] == name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane with its controllers (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn top_shows_kube_controller_managers_deployment_queue_taking_a_new_deployment() {
    require_controllers();
    let ns = TestNamespace::new("top").await;
    let url = kcm_metrics();
    let mut top = Merged::start(&["top", &url, "-o", "json", "--interval", "1s"]);
    top.wait_for(
        Stream::Out,
        "a first interval",
        Duration::from_secs(60),
        |l| l.contains("\"kind\":\"interval\""),
    );
    create_deployment(&ns, "web", 2).await;
    let busy = top.wait_for(
        Stream::Out,
        "an interval in which the deployment queue took adds",
        Duration::from_secs(120),
        |l| queue(&parse(l), "deployment").is_some_and(|q| q["addsPerSecond"].as_f64() > Some(0.0)),
    );
    let busy = parse(&busy);
    assert_eq!(busy["target"], url.as_str());
    let deployment = queue(&busy, "deployment").unwrap();
    // Whatever was added was also taken: its queue duration has observations and a bound.
    assert!(
        deployment["queueDuration"]["count"].as_f64() > Some(0.0),
        "{deployment}"
    );
    assert!(
        deployment["queueDuration"]["p99"]["atMost"].is_number(),
        "{deployment}"
    );
    // kube-controller-manager 1.37 names its informers: the Deployments' reports its store RV.
    let informers = busy["informers"].as_array().unwrap();
    let deployments = informers
        .iter()
        .find(|i| i["resource"] == "deployments" && i["group"] == "apps")
        .unwrap_or_else(|| panic!("no apps/v1 deployments informer in {informers:?}"));
    assert_eq!(deployments["name"], "kube-controller-manager");
    assert!(deployments["storeResourceVersion"].as_f64() > Some(0.0));
    // client-go's label guesses the plural from the kind (endpointss, networkpolicys); each
    // informer carries the plural discovery names.
    let plural = |label: &str| {
        informers
            .iter()
            .find(|i| i["resource"] == label)
            .map(|i| i["plural"].clone())
            .unwrap_or_else(|| panic!("no {label} informer in {informers:?}"))
    };
    assert_eq!(plural("deployments"), "deployments");
    assert_eq!(plural("endpointss"), "endpoints");
    // Every client-go process has a rate limiter.
    assert!(
        busy["throttling"]["count"].is_number(),
        "{}",
        busy["throttling"]
    );

    assert_eq!(top.interrupt(Duration::from_secs(30)), Some(130));
    let summary = top
        .seen
        .iter()
        .rev()
        .find(|(s, l)| *s == Stream::Out && l.contains("\"kind\":\"summary\""))
        .map(|(_, l)| parse(l))
        .unwrap_or_else(|| panic!("no summary after Ctrl-C:\n{}", top.transcript()));
    assert_eq!(summary["gaps"], 0, "{summary}");
    assert!(summary["scrapes"].as_u64() >= Some(3), "{summary}");
    let over_the_run = queue(&summary, "deployment").unwrap();
    assert!(
        over_the_run["addsPerSecond"].as_f64() > Some(0.0),
        "{over_the_run}"
    );
    assert!(over_the_run["maxDepth"].is_number(), "{summary}");
}

#[test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
fn a_user_the_controller_does_not_authorize_gets_the_rbac_it_needs_in_one_line() {
    let mut cmd = informer();
    cmd.args(["--context", "nobody", "top", &kcm_metrics()]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_one_line_error(
        &out,
        &[
            "cannot get /metrics as user \"nobody\"",
            "kubectl auth can-i get /metrics",
        ],
    );
}

#[test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
fn a_pod_that_does_not_exist_is_named_in_one_line() {
    let mut cmd = informer();
    cmd.args(["top", "pod/no-such-pod:8080", "-n", "default"]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_one_line_error(
        &out,
        &["pod/no-such-pod in namespace \"default\" not found"],
    );
    // Through the API server's proxy, the proxy's own 404.
    let mut cmd = informer();
    cmd.args([
        "top",
        "pod/no-such-pod:8080",
        "-n",
        "default",
        "--via",
        "proxy",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_one_line_error(
        &out,
        &[
            "get pods/proxy in namespace \"default\"",
            "pods \"no-such-pod\" not found",
        ],
    );
}

/// A kubeconfig whose API server is never asked: `top` of a URL reaches the URL only.
fn offline_kubeconfig(dir: &tempfile::TempDir) -> PathBuf {
    common::write_kubeconfig(
        dir.path(),
        "https://127.0.0.1:1",
        "not-sent-over-http",
        None,
    )
}

/// A controller's metrics as a client-go process serves them, one workqueue whose adds grow by
/// 10 at every scrape.
fn controller_metrics(scrape: usize) -> String {
    format!(
        "# TYPE workqueue_adds_total counter\nworkqueue_adds_total{{name=\"web\"}} {}\n\
         # TYPE workqueue_depth gauge\nworkqueue_depth{{name=\"web\"}} 3\n",
        10 * scrape
    )
}

#[test]
fn what_is_not_a_controllers_metrics_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = offline_kubeconfig(&dir);
    let server = FakeServer::start(|path, _| match path {
        "/page" => Reply::Typed(
            200,
            "text/html; charset=utf-8",
            "<html><body>hi</body></html>".into(),
        ),
        "/go" => Reply::Typed(
            200,
            "text/plain; version=0.0.4",
            "go_goroutines 12\n".into(),
        ),
        "/broken" => Reply::Typed(200, "text/plain", "workqueue_depth{name=\"x\" 1\n".into()),
        _ => Reply::Text(404, vec![], "404 page not found".into()),
    });
    for (path, needles) in [
        ("/page", &["answered text/html, not metrics"][..]),
        ("/go", &["serves metrics, but none of a controller's"][..]),
        (
            "/broken",
            &["did not answer in the Prometheus text format: line 1"][..],
        ),
        ("/missing", &["404"][..]),
    ] {
        let mut cmd = informer();
        let url = format!("{}{path}", server.url);
        cmd.args(["--kubeconfig", kubeconfig.to_str().unwrap(), "top", &url]);
        let out = run_with_limit(cmd, Duration::from_secs(60));
        assert_one_line_error(&out, needles);
    }
    for (target, needle) in [
        ("job/web", "\"job\" is not a kind of workload"),
        ("svc/web --via proxy", "needs a port"),
        (
            "deploy/web --via proxy",
            "reaches a pod or a service, not deploy/web",
        ),
        ("https://user:pw@127.0.0.1/metrics", "holds credentials"),
        (
            "https://127.0.0.1/metrics --metrics-token-from sa/reader",
            "the token is for a pod reached by port-forward",
        ),
        ("deploy/web --metrics-token-from reader", "expected sa/NAME"),
    ] {
        let mut cmd = informer();
        cmd.args(["--kubeconfig", kubeconfig.to_str().unwrap(), "top"]);
        cmd.args(target.split(' '));
        let out = run_with_limit(cmd, Duration::from_secs(60));
        assert_one_line_error(&out, &[needle]);
        assert!(!out.stderr.contains("pw@"), "{}", out.stderr);
    }
    let mut cmd = informer();
    cmd.args([
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "top",
        "http://127.0.0.1:1/metrics",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_one_line_error(
        &out,
        &[
            "cannot scrape http://127.0.0.1:1/metrics",
            "check that the controller is running",
        ],
    );
}

#[test]
fn a_scrape_that_gets_no_answer_is_a_gap_and_top_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = offline_kubeconfig(&dir);
    // The third scrape hangs for a minute after its headers; the others answer at once (a
    // scrape is given the interval, 2 s, which no answer of these few bytes takes, even on a
    // loaded machine).
    let server = FakeServer::start(|_, n| {
        if n == 2 {
            Reply::Stream(vec![Step::Sleep(Duration::from_secs(60))])
        } else {
            Reply::Typed(200, "text/plain; version=0.0.4", controller_metrics(n))
        }
    });
    let url = format!("{}/metrics", server.url);
    let mut top = Merged::start(&[
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "top",
        &url,
        "-o",
        "json",
        "--interval",
        "2s",
    ]);
    top.wait_for(
        Stream::Err,
        "the gap's notice",
        Duration::from_secs(60),
        |l| {
            l.contains(&format!(
                "scrape of {url} failed (1 gap): no answer within 2s"
            ))
        },
    );
    // The scrape after the gap spans the gap: from the last good scrape, 20 adds.
    let after = top.wait_for(
        Stream::Out,
        "an interval after the gap",
        Duration::from_secs(60),
        |l| l.contains("\"kind\":\"interval\""),
    );
    let after = parse(&after);
    let web = queue(&after, "web").unwrap();
    let adds = web["addsPerSecond"].as_f64().unwrap() * after["seconds"].as_f64().unwrap();
    assert!((adds - 20.0).abs() < 1e-6, "{after}");
    assert!(after["seconds"].as_f64() > Some(3.0), "{after}");
    assert_eq!(top.interrupt(Duration::from_secs(30)), Some(130));
    let summary = top
        .seen
        .iter()
        .find(|(s, l)| *s == Stream::Out && l.contains("\"kind\":\"summary\""))
        .map(|(_, l)| parse(l))
        .unwrap_or_else(|| panic!("no summary:\n{}", top.transcript()));
    assert!(summary["gaps"].as_u64() >= Some(1), "{summary}");
    assert_eq!(queue(&summary, "web").unwrap()["maxDepth"], 3.0);
    // Plain http carries no credential.
    assert_eq!(server.authorizations.lock().unwrap().len(), 0);
    assert!(server.requests().len() >= 4);
}

/// The inside end of the test's network namespace: an address the API server will proxy to (it
/// refuses loopback), and not the machine's own.
const POD_IP: &str = "10.213.0.2";

/// A network namespace of the test's own joined to the host by a veth pair (10.213.0.1/30
/// outside, 10.213.0.2 inside), with a metrics server inside; removed when dropped, the server
/// with it, also when the test fails.
struct PodNetwork {
    name: String,
    outside: String,
    server: Option<std::process::Child>,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = std::process::Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl PodNetwork {
    fn new() -> PodNetwork {
        let id = std::process::id() % 100_000;
        let net = PodNetwork {
            name: format!("kinf-top-{id}"),
            outside: format!("kinf{id}o"),
            server: None,
        };
        let inside = format!("kinf{id}i");
        let made = ip(&["netns", "add", &net.name])
            .and_then(|()| {
                ip(&[
                    "link",
                    "add",
                    &net.outside,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    &inside,
                ])
            })
            .and_then(|()| ip(&["link", "set", &inside, "netns", &net.name]))
            .and_then(|()| ip(&["addr", "add", "10.213.0.1/30", "dev", &net.outside]))
            .and_then(|()| ip(&["link", "set", &net.outside, "up"]))
            .and_then(|()| {
                ip(&[
                    "-n",
                    &net.name,
                    "addr",
                    "add",
                    &format!("{POD_IP}/30"),
                    "dev",
                    &inside,
                ])
            })
            .and_then(|()| ip(&["-n", &net.name, "link", "set", &inside, "up"]))
            .and_then(|()| ip(&["-n", &net.name, "link", "set", "lo", "up"]));
        if let Err(e) = made {
            panic!("cannot make the test's network namespace (it needs root, as tests/run.sh runs): {e}");
        }
        net
    }

    /// Serves `body` as Prometheus text on POD_IP:`port` at /metrics (404 elsewhere), from
    /// inside the namespace; returns once it accepts connections (within 30 s).
    fn serve_metrics(&mut self, dir: &std::path::Path, port: u16, body: &str) {
        let file = dir.join("metrics.txt");
        std::fs::write(&file, body).unwrap();
        let script = "import http.server, sys\n\
            body = open(sys.argv[2], 'rb').read()\n\
            class H(http.server.BaseHTTPRequestHandler):\n\
            \x20   def do_GET(self):\n\
            \x20       if self.path != '/metrics':\n\
            \x20           self.send_error(404)\n\
            \x20           return\n\
            \x20       self.send_response(200)\n\
            \x20       self.send_header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')\n\
            \x20       self.send_header('Content-Length', str(len(body)))\n\
            \x20       self.end_headers()\n\
            \x20       self.wfile.write(body)\n\
            http.server.HTTPServer((sys.argv[3], int(sys.argv[1])), H).serve_forever()\n";
        let child = std::process::Command::new("ip")
            .args(["netns", "exec", &self.name, "python3", "-c", script])
            .args([&port.to_string(), file.to_str().unwrap(), POD_IP])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start the metrics server");
        self.server = Some(child);
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        let address = format!("{POD_IP}:{port}").parse().unwrap();
        while std::net::TcpStream::connect_timeout(&address, Duration::from_secs(1)).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "the metrics server in {} did not come up within 30 s",
                self.name
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for PodNetwork {
    fn drop(&mut self) {
        if let Some(mut server) = self.server.take() {
            let _ = server.kill();
            let _ = server.wait();
        }
        // Deleting the namespace takes its end of the pair, and with it the other end.
        let _ = ip(&["netns", "delete", &self.name]);
        let _ = ip(&["link", "delete", &self.outside]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up) and root, for a network namespace: cargo test -- --ignored"]
async fn top_and_bench_reach_a_pods_plain_http_metrics_through_the_api_servers_proxy() {
    use k8s_openapi::api::core::v1::Pod;
    use kube::api::{Api, Patch, PatchParams, PostParams};
    let ns = TestNamespace::new("top-pod").await;
    let dir = tempfile::tempdir().unwrap();
    let mut network = PodNetwork::new();
    network.serve_metrics(dir.path(), 8080, &controller_metrics(1));
    // Bound to a node that does not exist, so that neither kwok nor the scheduler touches it;
    // its status says where it runs.
    let pods: Api<Pod> = Api::namespaced(common::admin().await, &ns.name);
    let pod: Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "operator"},
        "spec": {"nodeName": "no-such-node", "containers": [{"name": "manager", "image": "operator"}]}
    }))
    .unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let status = serde_json::json!({"status": {
        "phase": "Running", "podIP": POD_IP, "podIPs": [{"ip": POD_IP}]
    }});
    pods.patch_status("operator", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();

    let mut cmd = informer();
    cmd.args([
        "top",
        "pod/operator:8080",
        "--via",
        "proxy",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--interval",
        "1s",
        "--for",
        "2500ms",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines: Vec<Value> = out.stdout.lines().map(parse).collect();
    let summary = lines.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["target"], "pod/operator:8080");
    assert_eq!(summary["gaps"], 0, "{summary}");
    assert_eq!(queue(summary, "web").unwrap()["depth"], 3.0);

    // bench reads it the same way over its window: the pod in --metrics-namespace while the
    // informer watches all namespaces.
    let mut cmd = informer();
    cmd.args([
        "bench",
        "configmaps",
        "--no-churn",
        "-A",
        "--for",
        "2s",
        "--metrics-from",
        "pod/operator:8080",
        "--metrics-via",
        "proxy",
        "--metrics-namespace",
        &ns.name,
        "--fail-if",
        "controller.depth.max{name=web} < 3",
        "-o",
        "json",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let controller = &report["controller"];
    assert_eq!(controller["target"], "pod/operator:8080", "{controller}");
    assert_eq!(controller["gaps"], 0, "{controller}");
    assert!(controller["scrapes"].as_u64().unwrap() >= 3, "{controller}");
    let web = &controller["queues"][0];
    assert_eq!(
        (&web["name"], &web["depth"]["max"]),
        (&Value::from("web"), &Value::from(3.0))
    );
    assert_eq!(report["gates"][0]["failed"], false, "{}", report["gates"]);

    // The same through a Service without a selector whose endpoints are the pod's address.
    let services: Api<k8s_openapi::api::core::v1::Service> =
        Api::namespaced(common::admin().await, &ns.name);
    let service = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "operator-metrics"},
        "spec": {"ports": [{"name": "metrics", "port": 8080}]}
    }))
    .unwrap();
    services
        .create(&PostParams::default(), &service)
        .await
        .unwrap();
    let slices: Api<k8s_openapi::api::discovery::v1::EndpointSlice> =
        Api::namespaced(common::admin().await, &ns.name);
    let slice = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "operator-metrics-1",
                     "labels": {"kubernetes.io/service-name": "operator-metrics"}},
        "addressType": "IPv4",
        // The API server proxies only to an address that is a pod's.
        "endpoints": [{"addresses": [POD_IP], "conditions": {"ready": true},
                       "targetRef": {"kind": "Pod", "namespace": &ns.name, "name": "operator"}}],
        "ports": [{"name": "metrics", "port": 8080, "protocol": "TCP"}]
    }))
    .unwrap();
    slices.create(&PostParams::default(), &slice).await.unwrap();
    // The API server proxies to the endpoints its own informer holds: until that has the slice,
    // it answers 503 "no endpoints available".
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let out = loop {
        let mut cmd = informer();
        cmd.args([
            "top",
            "svc/operator-metrics:metrics",
            "--via",
            "proxy",
            "-n",
            &ns.name,
            "-o",
            "json",
            "--interval",
            "1s",
            "--for",
            "1s",
        ]);
        let out = run_with_limit(cmd, Duration::from_secs(60));
        if out.code == Some(0) || !out.stderr.contains("no endpoints available") {
            break out;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the API server did not see the EndpointSlice within 60 s: {}",
            out.stderr
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let summary = parse(out.stdout.lines().last().unwrap());
    assert_eq!(summary["target"], "svc/operator-metrics:metrics");
    assert_eq!(queue(&summary, "web").unwrap()["depth"], 3.0);

    // Another path on the same pod is the pod's own 404, said in one line.
    let mut cmd = informer();
    cmd.args([
        "top",
        "pod/operator:8080/other",
        "--via",
        "proxy",
        "-n",
        &ns.name,
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_one_line_error(&out, &["get pods/proxy in namespace", "404"]);
}

/// An informer's metrics as a client-go 1.36+ process serves them: its store at `store`.
fn informer_metrics(store: u64) -> String {
    format!(
        "workqueue_depth{{name=\"cm\"}} 0\n\
         informer_queued_items{{group=\"\",name=\"fake\",resource=\"configmaps\",version=\"v1\"}} 0\n\
         informer_store_resource_version{{group=\"\",name=\"fake\",resource=\"configmaps\",version=\"v1\"}} {store}\n"
    )
}

/// The lag of the ConfigMaps informer in a line of `top --lag -o json`.
fn configmaps_lag(line: &Value) -> Option<&Value> {
    line["informers"]
        .as_array()?
        .iter()
        .find(|i| i["resource"] == "configmaps")
        .map(|i| &i["lag"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn lag_counts_the_events_an_informers_store_has_not_reached() {
    let ns = TestNamespace::new("top-lag").await;
    let store: u64 = ns.create_configmap("before", &[]).await.parse().unwrap();
    // A controller whose ConfigMaps informer stays at `store` until the test moves it.
    let reported = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(store));
    let served = reported.clone();
    let server = FakeServer::start(move |_, _| {
        let store = served.load(std::sync::atomic::Ordering::SeqCst);
        Reply::Typed(200, "text/plain; version=0.0.4", informer_metrics(store))
    });
    let url = format!("{}/metrics", server.url);
    let mut top = Merged::start(&["top", &url, "--lag", "-o", "json", "--interval", "1s"]);
    // The watch of ConfigMaps starts after the first scrape: the new ConfigMap comes after.
    top.wait_for(
        Stream::Out,
        "a first interval",
        Duration::from_secs(60),
        |l| l.contains("\"kind\":\"interval\""),
    );
    let after: u64 = ns.create_configmap("after", &[]).await.parse().unwrap();
    // Other tests write ConfigMaps too, in their namespaces: the newest event may be later.
    let behind = top.wait_for(
        Stream::Out,
        "the store behind the new ConfigMap",
        Duration::from_secs(60),
        |l| {
            configmaps_lag(&parse(l))
                .is_some_and(|lag| lag["resourceVersions"].as_u64() >= Some(after - store))
        },
    );
    let lag = configmaps_lag(&parse(&behind)).unwrap().clone();
    assert!(lag["seconds"].as_f64() > Some(0.0), "{lag}");
    // The store reaches everything: no lag.
    reported.store(u64::MAX / 1_000_000, std::sync::atomic::Ordering::SeqCst);
    top.wait_for(
        Stream::Out,
        "the store caught up",
        Duration::from_secs(60),
        |l| {
            configmaps_lag(&parse(l))
                .is_some_and(|lag| lag["resourceVersions"] == 0 && lag["seconds"] == 0.0)
        },
    );
    assert_eq!(top.interrupt(Duration::from_secs(30)), Some(130));
}

#[test]
fn without_a_terminal_each_interval_is_a_table_and_the_summary_ends_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = offline_kubeconfig(&dir);
    let server = FakeServer::start(|_, n| {
        Reply::Typed(200, "text/plain; version=0.0.4", controller_metrics(n))
    });
    let url = format!("{}/metrics", server.url);
    let mut cmd = informer();
    let kubeconfig = kubeconfig.to_str().unwrap();
    cmd.args([
        "--kubeconfig",
        kubeconfig,
        "top",
        &url,
        "--interval",
        "1s",
        "--for",
        "4s",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(60));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let headings = out.stdout.lines().filter(|l| l.starts_with(&url)).count();
    assert!(headings > 0, "{}", out.stdout);
    // Each interval's table and the summary's have the queue's row, 3 deep.
    let rows: Vec<Vec<&str>> = out
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("web "))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), headings + 1, "{}", out.stdout);
    assert!(rows.iter().all(|row| row[1] == "3"), "{rows:?}");
    let summary = format!("summary of {url}: {} scrapes over", headings + 1);
    assert!(out.stdout.contains(&summary), "{}", out.stdout);
    assert!(
        out.stdout.contains("largest depths: web 3"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains('\u{1b}'),
        "no redraw without a terminal"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn bench_keeps_an_unanswered_scrape_waiting_for_a_while_then_scrapes_on() {
    common::admin().await;
    // The scrape at the window's first tick (the third request: one before the run, one when
    // the window opens) never answers; the others answer at once.
    let server = FakeServer::start(|_, n| {
        if n == 2 {
            Reply::Stream(vec![Step::Sleep(Duration::from_secs(120))])
        } else {
            Reply::Typed(200, "text/plain; version=0.0.4", controller_metrics(n))
        }
    });
    let url = format!("{}/metrics", server.url);
    let out = tokio::task::spawn_blocking(move || {
        let mut cmd = informer();
        cmd.args([
            "bench",
            "configmaps",
            "--no-churn",
            "-A",
            "--for",
            "36s",
            "--metrics-from",
            &url,
            "-o",
            "json",
        ]);
        run_with_limit(cmd, Duration::from_secs(120))
    })
    .await
    .unwrap();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report: Value = serde_json::from_str(&out.stdout).unwrap();
    let c = &report["controller"];
    // Waited for 30 s (a gap each second), then given up for a new scrape, which answered.
    let gaps = c["gaps"].as_u64().unwrap();
    assert!((25..=31).contains(&gaps), "{c}");
    let times: Vec<f64> = c["timeline"]["seconds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap())
        .collect();
    assert!(times.iter().any(|t| *t > 30.0), "scraped again: {times:?}");
    assert!(
        out.stderr.contains("failed (1 gap): no answer within 1s"),
        "{}",
        out.stderr
    );
}

/// `top -o json | head -1`: the reader goes after the first interval's line, and top ends then,
/// not at its next interval (20 s later here).
#[test]
fn top_ends_as_soon_as_the_reader_of_its_stdout_goes() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = offline_kubeconfig(&dir);
    let server = FakeServer::start(|_, n| {
        Reply::Typed(200, "text/plain; version=0.0.4", controller_metrics(n))
    });
    let url = format!("{}/metrics", server.url);
    let out = common::close_stdout_after(
        &[
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "top",
            &url,
            "-o",
            "json",
            "--interval",
            "20s",
        ],
        |line| line.contains("\"interval\""),
        Duration::from_secs(15),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

/// One scrape measures nothing (rates are differences of two): a run shorter than an interval
/// is refused before any scrape.
#[test]
fn a_run_shorter_than_its_interval_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = offline_kubeconfig(&dir);
    let mut cmd = informer();
    cmd.args([
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "top",
        "http://127.0.0.1:9/metrics",
        "--for",
        "1s",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(30));
    assert_one_line_error(
        &out,
        &[
            "--for 1s is shorter than --interval 2s",
            "before its first interval",
        ],
    );
}

#[test]
fn all_replicas_of_a_target_without_replicas_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = offline_kubeconfig(&dir);
    for (target, via) in [
        ("http://127.0.0.1:9/metrics", "port-forward"),
        ("svc/my-operator-metrics:8080", "proxy"),
    ] {
        let mut cmd = informer();
        cmd.args(["--kubeconfig", kubeconfig.to_str().unwrap(), "top", target])
            .args(["--via", via, "--all-replicas"]);
        let out = run_with_limit(cmd, Duration::from_secs(30));
        assert_one_line_error(
            &out,
            &[
                &format!("--all-replicas: \"{target}\" has no replicas to scrape one by one"),
                "reached by port-forward",
            ],
        );
    }
}
