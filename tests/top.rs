//! `top` against kube-controller-manager itself (its /metrics on the test control plane, reached
//! with the kubeconfig's credentials), and against a scripted loopback server for what the real
//! one will not do on demand: serve an HTML page, metrics that are not a controller's, or stop
//! answering for a while.

mod common;

use common::controllers::{create_deployment, require_controllers};
use common::fake::{FakeServer, Reply, Step};
use common::{
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
#[ignore = "needs the test control plane: cargo test -- --ignored (see CONTRIBUTING.md)"]
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
#[ignore = "needs the test control plane: cargo test -- --ignored (see CONTRIBUTING.md)"]
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
#[ignore = "needs the test control plane: cargo test -- --ignored (see CONTRIBUTING.md)"]
fn a_pod_that_does_not_exist_is_named_in_one_line() {
    let mut cmd = informer();
    cmd.args(["top", "pod/no-such-pod:8080", "-n", "default"]);
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
        ("deploy/web", "\"deploy\" is not pod or svc"),
        ("svc/web", "needs a port"),
        ("https://user:pw@127.0.0.1/metrics", "holds credentials"),
    ] {
        let mut cmd = informer();
        cmd.args(["--kubeconfig", kubeconfig.to_str().unwrap(), "top", target]);
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
    // The third scrape hangs for a minute after its headers; the others answer at once.
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
        "1s",
    ]);
    top.wait_for(
        Stream::Err,
        "the gap's notice",
        Duration::from_secs(60),
        |l| {
            l.contains(&format!(
                "scrape of {url} failed (1 gap): no answer within 1s"
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
    assert!(after["seconds"].as_f64() > Some(1.5), "{after}");
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
