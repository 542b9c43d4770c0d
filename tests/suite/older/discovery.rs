//! The oldest supported API server, and every way of discovery: `tail`, `diff` and
//! `bench` (its own load, a replay, `--react`) run, and resolve built-ins and a CRD, on a real
//! kube-apiserver v1.29 (`conform` runs there in tests/suite/conform.rs), which serves aggregated
//! discovery only as `apidiscovery.k8s.io/v2beta1`, and on the same server with aggregated
//! discovery turned off, which serves legacy discovery only (`/api`, `/apis`, one
//! `APIResourceList` per group version). Both are started by `tests/controlplane/controlplane.sh
//! up` beside the current server; a missing one fails the test with that command.

use crate::common::crd::get_json;
use crate::common::fake::{configmap, kubeconfig, list, FakeServer, Reply, Step};
use crate::common::older::ControllerManager;
use crate::common::*;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, PostParams};
use kubectl_informer::cluster::discovery::ACCEPT;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One of the two v1.29 servers, and what its discovery is.
struct OldServer {
    kubeconfig: PathBuf,
    client: kube::Client,
    /// Whether it serves legacy discovery only.
    legacy: bool,
}

impl OldServer {
    /// The v1.29 server at `kubeconfig`, after checking that it answers, is v1.29, and serves
    /// the discovery the test expects (`expect_kind` of `/apis`, `expect_api_version`).
    async fn connect(kubeconfig: PathBuf, expect_kind: &str, expect_api_version: &str) -> Self {
        let client = admin_at(&kubeconfig).await;
        let version = client.apiserver_version().await.unwrap();
        assert_eq!(
            (version.major.as_str(), version.minor.as_str()),
            ("1", "29"),
            "{}",
            version.git_version
        );
        let root = get_json(&client, "/apis", ACCEPT).await;
        assert_eq!(
            root["kind"],
            expect_kind,
            "/apis of {}",
            kubeconfig.display()
        );
        assert_eq!(root["apiVersion"], expect_api_version, "/apis");
        OldServer {
            kubeconfig,
            client,
            legacy: expect_kind == "APIGroupList",
        }
    }

    /// `kubectl-informer -v=1 --kubeconfig <this server> ARGS` (a later `-v` in ARGS wins).
    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = vec!["-v=1", "--kubeconfig", self.kubeconfig.to_str().unwrap()];
        all.extend_from_slice(args);
        all
    }
}

/// A namespaced CRD `gizmos.<group>` (short name `gz<suffix>`) served at v1, and one object of
/// it; returns (CRD name, short name, qualified resource name).
async fn gizmo_crd(ns: &TestNamespace) -> (String, String, String) {
    let suffix = unique("g").replace('-', "");
    let group = format!("d{suffix}.informer.test");
    let short = format!("gz{suffix}");
    let name = crd::create(&ns.client, &group, "gizmos", "Gizmo", &short).await;
    crd::create_object(
        &ns.client,
        &ns.name,
        &crd::custom(&group, "gizmos", "Gizmo"),
        serde_json::json!({"metadata": {"name": "gizmo-1"}}),
    )
    .await;
    (name.clone(), short, name)
}

async fn create_deployment(ns: &TestNamespace, name: &str) {
    let deploy: Deployment = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "c", "image": "registry.invalid/none"}]}
            }
        }
    }))
    .unwrap();
    Api::<Deployment>::namespaced(ns.client.clone(), &ns.name)
        .create(&PostParams::default(), &deploy)
        .await
        .expect("create deployment");
}

/// The `-v` line saying what the name resolved to.
fn resolved_line(out: &Output) -> String {
    out.stderr
        .lines()
        .find(|l| l.contains("resolved \""))
        .unwrap_or_else(|| panic!("no resolved line in: {}", out.stderr))
        .to_string()
}

/// `tail`, `diff` and (when `bench` is set) `bench --no-churn` on `server`, for the core,
/// apps and CRD names: each resolves as expected and runs to a clean end.
async fn every_command_resolves_and_runs(server: &OldServer, prefix: &str, bench: bool) {
    let ns = TestNamespace::with_client(prefix, server.client.clone()).await;
    ns.create_configmap("cm-1", &[]).await;
    create_deployment(&ns, "deploy-1").await;
    let (crd, short, qualified) = gizmo_crd(&ns).await;

    // A ConfigMap written while tail watches arrives through the watch.
    let mut tail = Streaming::start(&server.args(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--max-events",
        "2",
    ]));
    tail.wait_for("cm-1", Duration::from_secs(30), |l| l.contains("\"cm-1\""));
    ns.create_configmap("cm-2", &[]).await;
    let out = tail.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let names: Vec<String> = out
        .object_events()
        .iter()
        .map(|e| e["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(names, ["cm-1", "cm-2"], "{}", out.stdout);
    assert!(
        resolved_line(&out).contains("to configmaps (v1, kind ConfigMap"),
        "{}",
        out.stderr
    );

    // What the binary asked for: one APIResourceList per group version only where aggregated
    // discovery is not served (`-v=6` logs every request: `kubectl-informer: GET URL 200 OK in
    // N milliseconds`).
    let out = run(&server.args(&["tail", "cm", "-n", &ns.name, "--max-events", "1", "-v=6"]));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let asked = |path: &str| {
        out.stderr.lines().any(|l| {
            l.split_whitespace()
                .nth(2)
                .is_some_and(|url| url.ends_with(path))
        })
    };
    assert!(asked("/apis"), "{}", out.stderr);
    assert_eq!(asked("/apis/apps/v1"), server.legacy, "{}", out.stderr);
    assert_eq!(asked("/api/v1"), server.legacy, "{}", out.stderr);

    let cases: [(&str, String, &str); 4] = [
        ("cm", "to configmaps (v1, kind ConfigMap".into(), "cm-1"),
        (
            "deploy",
            "to deployments.apps (apps/v1, kind Deployment".into(),
            "deploy-1",
        ),
        (
            "deployments.apps",
            "to deployments.apps (apps/v1, kind Deployment".into(),
            "deploy-1",
        ),
        (
            short.as_str(),
            format!(
                "to {qualified} ({}/v1, kind Gizmo",
                &qualified["gizmos.".len()..]
            ),
            "gizmo-1",
        ),
    ];
    for (name, expected, object) in &cases {
        let out = run(&server.args(&[
            "tail",
            name,
            "-n",
            &ns.name,
            "-o",
            "json",
            "--max-events",
            "1",
        ]));
        assert_eq!(out.code, Some(0), "tail {name}: {}", out.stderr);
        assert!(
            resolved_line(&out).contains(expected),
            "tail {name}: {}",
            out.stderr
        );
        assert_eq!(out.object_events()[0]["name"], *object, "tail {name}");

        let out = run(&server.args(&["diff", name, "-n", &ns.name]));
        assert_eq!(out.code, Some(0), "diff {name}: {}", out.stderr);
        assert!(
            resolved_line(&out).contains(expected),
            "diff {name}: {}",
            out.stderr
        );
        assert!(
            out.stdout.starts_with("no drift: "),
            "diff {name}: {}",
            out.stdout
        );

        if bench {
            let out = run(&server.args(&[
                "bench",
                name,
                "-n",
                &ns.name,
                "--no-churn",
                "--duration",
                "2s",
            ]));
            assert_eq!(out.code, Some(0), "bench {name}: {}", out.stderr);
            assert!(
                resolved_line(&out).contains(expected),
                "bench {name}: {}",
                out.stderr
            );
        }
    }
    crd::delete(&ns.client, &crd).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn v1_29_with_v2beta1_discovery_runs_tail_diff_and_bench_on_builtins_and_a_crd() {
    let server = OldServer::connect(
        old_kubeconfig_path(),
        "APIGroupDiscoveryList",
        "apidiscovery.k8s.io/v2beta1",
    )
    .await;
    every_command_resolves_and_runs(&server, "old", true).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn v1_29_with_legacy_discovery_only_runs_tail_diff_and_bench_on_builtins_and_a_crd() {
    let server = OldServer::connect(legacy_kubeconfig_path(), "APIGroupList", "v1").await;
    every_command_resolves_and_runs(&server, "legacy", true).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn v1_29_runs_bench_with_its_own_load_and_replays_a_recording_made_there() {
    let server = OldServer::connect(
        old_kubeconfig_path(),
        "APIGroupDiscoveryList",
        "apidiscovery.k8s.io/v2beta1",
    )
    .await;
    // bench's own load: every write it makes arrives as a watch event of the v1.29 server.
    crate::older::minors::bench_own_load_report(
        &server.args(&crate::older::minors::BENCH_OWN_LOAD),
    );

    // A recording of the v1.29 server's events replays offline to the same count.
    let ns = TestNamespace::with_client("old-replay", server.client.clone()).await;
    for name in ["cm-1", "cm-2", "cm-3"] {
        ns.create_configmap(name, &[]).await;
    }
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("events.jsonl");
    let out = run(&server.args(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--record",
        recording.to_str().unwrap(),
        "--max-events",
        "3",
    ]));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let out = run(&[
        "bench",
        "--from-file",
        recording.to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(report["counters"]["events"], 3, "{}", out.stdout);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn v1_29_times_a_real_controller_s_reactions_with_bench_react() {
    let server = OldServer::connect(
        old_kubeconfig_path(),
        "APIGroupDiscoveryList",
        "apidiscovery.k8s.io/v2beta1",
    )
    .await;
    // Its Deployment and ReplicaSet controllers, of kube-controller-manager v1.29.15, built from
    // the same module as that server: the version-skew policy has a controller manager never
    // newer than its API server.
    let _controllers = ControllerManager::start(
        "kube-controller-manager-1.29",
        &server.kubeconfig,
        "deployment,replicaset",
    );
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("deploy.yaml");
    std::fs::write(
        &template,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: replaced\nspec:\n  replicas: 1\n  \
         selector: {matchLabels: {app: bench}}\n  template:\n    metadata: {labels: {app: bench}}\n    \
         spec:\n      containers: [{name: app, image: registry.invalid/app:1}]\n",
    )
    .unwrap();
    // Every write is either reacted to (the controller's observedGeneration reached it) or
    // superseded by the next write to the same object before the reaction came.
    let out = run_with_limit(
        {
            let mut cmd = informer();
            cmd.args(server.args(&[
                "bench",
                "--template",
                template.to_str().unwrap(),
                "--react",
                "observed-generation",
                "--objects",
                "4",
                "--rate",
                "4",
                "--for",
                "6s",
                "-o",
                "json",
            ]));
            cmd
        },
        Duration::from_secs(180),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let counters = &report["counters"];
    let reacted = report["metrics"]["reactionLatency"]["count"]
        .as_u64()
        .unwrap_or(0);
    assert!(reacted > 0, "{}", out.stdout);
    assert_eq!(counters["writesWithoutReaction"], 0, "{}", out.stdout);
    assert_eq!(
        reacted + counters["superseded"].as_u64().unwrap_or(0),
        counters["writes"].as_u64().unwrap_or(0),
        "{}",
        out.stdout
    );
}

/// The resource names completion offers: every preferred list+watch resource, from discovery.
fn catalog(kubeconfig: &Path) -> Vec<String> {
    let out = run(&[
        "__complete",
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "tail",
        "",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let mut lines: Vec<String> = out.stdout.lines().map(str::to_string).collect();
    lines.pop(); // the completion directive
                 // CRDs the other tests create and delete meanwhile are not part of the comparison.
    lines.retain(|l| !l.ends_with(".informer.test"));
    lines
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn aggregated_and_legacy_discovery_of_one_server_give_the_same_catalog() {
    // Two v1.29 servers on one etcd, one serving v2beta1 and one legacy discovery: the same
    // resources, so the same catalog.
    OldServer::connect(
        old_kubeconfig_path(),
        "APIGroupDiscoveryList",
        "apidiscovery.k8s.io/v2beta1",
    )
    .await;
    OldServer::connect(legacy_kubeconfig_path(), "APIGroupList", "v1").await;
    let aggregated = catalog(&old_kubeconfig_path());
    let legacy = catalog(&legacy_kubeconfig_path());
    assert!(aggregated.len() > 30, "{aggregated:?}");
    for name in [
        "configmaps",
        "deployments.apps",
        "horizontalpodautoscalers.autoscaling",
    ] {
        assert!(
            aggregated.contains(&name.to_string()),
            "{name}: {aggregated:?}"
        );
    }
    assert_eq!(aggregated, legacy);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn names_resolve_alike_on_v1_37_v2_v1_29_v2beta1_and_legacy_discovery() {
    admin().await;
    admin_at(&old_kubeconfig_path()).await;
    admin_at(&legacy_kubeconfig_path()).await;
    let servers = [
        kubeconfig_path(),
        old_kubeconfig_path(),
        legacy_kubeconfig_path(),
    ];
    // Each name in each server at once: `tail -v` says what it resolved to; `--for` ends it. Its
    // limit counts from the start of the run, discovery included, and 21 runs discovering at
    // once on two loaded cores take seconds: ended before the server answered, a run is an
    // error, so the limit is generous.
    let names = [
        "cm",
        "deploy",
        "deployments.apps",
        "hpa",
        "events",
        "events.events.k8s.io",
        "ns",
    ];
    let runs: Vec<(String, usize, std::thread::JoinHandle<Output>)> = names
        .iter()
        .flat_map(|name| {
            servers.iter().enumerate().map(move |(i, kc)| {
                let args: Vec<String> = [
                    "tail",
                    name,
                    "-n",
                    "kube-public",
                    "--for",
                    "15s",
                    "-v=1",
                    "--kubeconfig",
                    kc.to_str().unwrap(),
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                let handle = std::thread::spawn(move || {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    run(&args)
                });
                (name.to_string(), i, handle)
            })
        })
        .collect();
    let mut seen: Vec<(String, usize, String)> = Vec::new();
    for (name, i, handle) in runs {
        let out = handle.join().unwrap();
        assert_eq!(out.code, Some(0), "{name} on server {i}: {}", out.stderr);
        let line = resolved_line(&out);
        // `resolved "cm" to configmaps (v1, kind ConfigMap, namespace "kube-public")`
        let what = line[line.find(" to ").unwrap()..].to_string();
        seen.push((name, i, what));
    }
    for (name, i, what) in &seen {
        let first = &seen.iter().find(|(n, _, _)| n == name).unwrap().2;
        assert_eq!(
            what, first,
            "{name} on server {i} differs from the current server"
        );
    }
    let hpa = &seen.iter().find(|(n, _, _)| n == "hpa").unwrap().2;
    assert!(hpa.contains("autoscaling/v2"), "{hpa}");
}

/// A server that answers `/api` and `/apis` with `root` and every group version with `gv`.
fn fake_discovery(
    root: impl Fn(&str) -> Reply + Send + Sync + 'static,
    gv: impl Fn(&str) -> Reply + Send + Sync + 'static,
) -> FakeServer {
    FakeServer::start(move |target, _| {
        if target.contains("watch=true") {
            return Reply::Stream(vec![Step::Sleep(Duration::from_secs(10))]);
        }
        let path = target.split('?').next().unwrap_or("").to_string();
        match path.as_str() {
            "/api" | "/apis" => root(&path),
            _ => gv(&path),
        }
    })
}

#[tokio::test]
async fn a_server_that_serves_no_discovery_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    // A proxy's login page with 200 OK, where discovery should be.
    let fake = fake_discovery(
        |_| Reply::Typed(200, "text/html", "<html><body>sign in</body></html>".into()),
        |_| Reply::Json(404, "{}".into()),
    );
    let kc = kubeconfig(dir.path(), &fake.url);
    for command in ["tail", "diff"] {
        let out = run(&[command, "cm", "--kubeconfig", kc.to_str().unwrap()]);
        assert_one_line_error(
            &out,
            &[
                "discovery of API resources",
                "/api) failed: the server sent something that is not JSON",
                "kubectl get --raw /api",
            ],
        );
        assert!(!out.stderr.contains("1.26"), "{}", out.stderr);
    }
}

#[tokio::test]
async fn legacy_discovery_whose_every_group_version_fails_is_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_discovery(
        |path| {
            match path {
            "/api" => Reply::Json(200, r#"{"kind":"APIVersions","versions":["v1"]}"#.into()),
            _ => Reply::Json(
                200,
                r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}}]}"#.into(),
            ),
        }
        },
        |_| {
            Reply::Json(
                503,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","code":503}"#.into(),
            )
        },
    );
    let kc = kubeconfig(dir.path(), &fake.url);
    let out = run(&["tail", "cm", "--kubeconfig", kc.to_str().unwrap()]);
    assert_one_line_error(
        &out,
        &[
            "discover API resources of v1 failed",
            "503 ServiceUnavailable",
        ],
    );
    // Each group version was asked for: legacy discovery, not a guess.
    let requests = fake.requests();
    assert!(requests.contains(&"/api/v1".to_string()), "{requests:?}");
    assert!(
        requests.contains(&"/apis/apps/v1".to_string()),
        "{requests:?}"
    );
}

#[tokio::test]
async fn legacy_discovery_leaves_out_a_failing_group_version_like_client_go() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_discovery(
        |path| {
            match path {
            "/api" => Reply::Json(200, r#"{"kind":"APIVersions","versions":["v1"]}"#.into()),
            _ => Reply::Json(
                200,
                r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"metrics.k8s.io","versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}}]}"#.into(),
            ),
        }
        },
        |path| {
            match path {
            "/api/v1" => Reply::Json(
                200,
                r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["list","watch"],"shortNames":["cm"]}]}"#.into(),
            ),
            "/api/v1/namespaces/ns/configmaps" => list(5, vec![configmap("a", "uid-a", 5)]),
            _ => Reply::Json(
                503,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"the server is currently unable to handle the request","reason":"ServiceUnavailable","code":503}"#.into(),
            ),
        }
        },
    );
    let kc = kubeconfig(dir.path(), &fake.url);
    let out = run(&[
        "tail",
        "cm",
        "--max-events",
        "1",
        "-v=1",
        "--kubeconfig",
        kc.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("skipped metrics.k8s.io/v1beta1 in discovery"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("ns/a"), "{}", out.stdout);
}

#[tokio::test]
async fn a_404_on_api_leaves_the_choice_to_apis_like_client_go() {
    // An aggregated API server serves `/apis` only.
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_discovery(
        |path| {
            match path {
            "/api" => Reply::Json(404, r#"{"kind":"Status","code":404,"reason":"NotFound"}"#.into()),
            _ => Reply::Typed(
                200,
                "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
                serde_json::json!({
                    "kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2beta1",
                    "items": [{"metadata": {"name": "informer.test"}, "versions": [{"version": "v1", "resources": [{
                        "resource": "widgets", "responseKind": {"group": "informer.test", "version": "v1", "kind": "Widget"},
                        "scope": "Namespaced", "singularResource": "widget", "verbs": ["list", "watch"]
                    }]}]}]
                })
                .to_string(),
            ),
        }
        },
        |path| match path {
            "/apis/informer.test/v1/namespaces/ns/widgets" => {
                list(7, vec![configmap("w", "uid-w", 7)])
            }
            _ => Reply::Json(404, "{}".into()),
        },
    );
    let kc = kubeconfig(dir.path(), &fake.url);
    let out = run(&[
        "tail",
        "widget",
        "--max-events",
        "1",
        "--kubeconfig",
        kc.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("ns/w"), "{}", out.stdout);
    let requests = fake.requests();
    assert!(
        !requests.iter().any(|r| r == "/apis/informer.test/v1"),
        "no legacy discovery: {requests:?}"
    );
}
