//! Every command on the other minors upstream supports beside the current one: kube-apiserver
//! v1.35 and v1.36 (the newest patches the Go module proxy serves), each with its default feature
//! gates (watch-list served, resourceVersions comparable, and from 1.36 a `/readyz` that waits
//! for the watch cache), started by `tests/controlplane/controlplane.sh up` beside the current
//! server. One set of tests, run on each (`older::minors::v1_35::`, `older::minors::v1_36::`): tail from a
//! watch-list and from a LIST, a replay from a resourceVersion, a 410 for one older than the
//! history, diff's four classes, bench with its own load and with `--react` timing that minor's
//! own kube-controller-manager, and conform. `version` on each is tests/suite/version.rs's. A
//! server that does not answer fails the test, naming the command that starts it.

use crate::common::older::{minor_kubeconfig_path, ControllerManager, MINORS};
use crate::common::*;
use k8s_openapi::api::core::v1::PodTemplate;
use kube::api::{Api, PostParams};
use std::path::PathBuf;
use std::time::Duration;

/// One supported minor's API server.
struct MinorServer {
    minor: &'static str,
    kubeconfig: PathBuf,
    client: kube::Client,
}

impl MinorServer {
    /// The server of `minor` ("1.35"), after checking that it answers and is that minor.
    async fn connect(minor: &'static str) -> Self {
        let kubeconfig = minor_kubeconfig_path(minor);
        let client = admin_at(&kubeconfig).await;
        let version = client.apiserver_version().await.unwrap();
        assert_eq!(
            format!("{}.{}", version.major, version.minor),
            minor,
            "the server of {} is {}",
            kubeconfig.display(),
            version.git_version
        );
        MinorServer {
            minor,
            kubeconfig,
            client,
        }
    }

    async fn namespace(&self, prefix: &str) -> TestNamespace {
        TestNamespace::with_client(prefix, self.client.clone()).await
    }

    /// `kubectl-informer --kubeconfig <this server> ARGS`.
    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        let mut all = vec!["--kubeconfig", self.kubeconfig.to_str().unwrap()];
        all.extend_from_slice(args);
        all
    }
}

/// (origin, name, resourceVersion) of each object event of a `-o json` tail, the initial ones
/// by name (a watch-list's need not come in any order).
fn events(out: &Output) -> Vec<(String, String, String)> {
    let field = |e: &serde_json::Value, key: &str| e[key].as_str().unwrap_or_default().to_string();
    let mut events: Vec<_> = out
        .object_events()
        .iter()
        .map(|e| {
            (
                field(e, "origin"),
                field(e, "name"),
                field(e, "resourceVersion"),
            )
        })
        .collect();
    let initial = events.iter().take_while(|e| e.0 == "initial").count();
    events[..initial].sort();
    events
}

/// `tail --initial watch-list` and `--initial list` each show the namespace's objects as initial
/// events with the resourceVersions the API returned, then a write as a watch event: the
/// watch-list without falling back, ended by the initial-events-end bookmark.
async fn tail_starts_from_a_watch_list_and_from_a_list(server: &MinorServer) {
    for initial in ["watch-list", "list"] {
        let ns = server.namespace("minor-start").await;
        let rv_a = ns.create_configmap("a", &[]).await;
        let rv_b = ns.create_configmap("b", &[]).await;
        let mut tail = Streaming::start(&server.args(&[
            "tail",
            "cm",
            "-n",
            &ns.name,
            "-o",
            "json",
            "--initial",
            initial,
            "--max-events",
            "3",
        ]));
        // The initial state is in: the LIST's, or the watch-list's initial events (its end
        // bookmark); a write now comes as a watch event.
        tail.wait_for_notice_within("list-complete", Duration::from_secs(60));
        let rv_c = ns.create_configmap("c", &[]).await;
        let out = tail.finish(Duration::from_secs(60));
        assert_eq!(out.code, Some(0), "{initial}: {}", out.stderr);
        let s = |x: &str| x.to_string();
        assert_eq!(
            events(&out),
            [
                (s("initial"), s("a"), rv_a),
                (s("initial"), s("b"), rv_b),
                (s("watch"), s("c"), rv_c)
            ],
            "{initial}: {}",
            out.stdout
        );
        let lines = out.json_lines();
        let notice = |name: &str| lines.iter().find(|l| l["notice"] == name);
        assert!(notice("fallback").is_none(), "{initial}: {}", out.stdout);
        let listed = notice("list-complete").expect("list-complete");
        let end_bookmark = lines
            .iter()
            .any(|l| l["type"] == "BOOKMARK" && l["initialEventsEnd"] == true);
        let watch_rv = &notice("watch-opened").unwrap()["resourceVersion"];
        if initial == "watch-list" {
            assert!(end_bookmark, "{}", out.stdout);
            assert_eq!(listed["pages"], 0, "{}", out.stdout);
            assert_eq!(watch_rv, "", "a watch-list is a consistent read");
        } else {
            assert!(!end_bookmark, "{}", out.stdout);
            assert_eq!(listed["pages"], 1, "{}", out.stdout);
            assert_eq!(watch_rv, &listed["resourceVersion"], "{}", out.stdout);
        }
    }
}

/// `tail --from-rv` shows exactly the writes after it, without a LIST.
async fn tail_replays_exactly_the_writes_after_a_resource_version(server: &MinorServer) {
    let ns = server.namespace("minor-replay").await;
    let rv0 = ns.create_configmap("a", &[]).await;
    let rv1 = ns.update_configmap("a", "v1").await;
    let rv2 = ns.create_configmap("b", &[]).await;
    ns.delete_configmap("a").await;
    let out = run(&server.args(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--from-rv",
        &rv0,
        "--max-events",
        "3",
    ]));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let got = events(&out);
    let s = |x: &str| x.to_string();
    assert_eq!(
        got[..2],
        [(s("watch"), s("a"), rv1), (s("watch"), s("b"), rv2)]
    );
    assert_eq!((got[2].0.as_str(), got[2].1.as_str()), ("watch", "a"));
    let types: Vec<_> = out
        .object_events()
        .iter()
        .map(|e| e["type"].clone())
        .collect();
    assert_eq!(types, ["MODIFIED", "ADDED", "DELETED"], "{}", out.stdout);
    assert!(
        !out.json_lines()
            .iter()
            .any(|l| l["notice"] == "list-complete"),
        "no LIST in a replay: {}",
        out.stdout
    );
}

/// A resourceVersion that etcd's compaction has passed (PodTemplates are served from etcd in the
/// test control plane, so their history is what compaction leaves): `tail --from-rv` says so in
/// one line with exit 2, and with `--on-expired relist` relists and goes on.
async fn tail_from_an_expired_resource_version_gets_a_410(server: &MinorServer) {
    let ns = server.namespace("minor-expired").await;
    let templates: Api<PodTemplate> = Api::namespaced(ns.client.clone(), &ns.name);
    let template: PodTemplate = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "t"},
        "template": {"spec": {"containers": [{"name": "c", "image": "registry.invalid/none"}]}}
    }))
    .unwrap();
    let created = templates
        .create(&PostParams::default(), &template)
        .await
        .unwrap();
    let rv = created.metadata.resource_version.unwrap();
    write_until_expired(&templates, &rv, &ns).await;
    let tail = |extra: &[&str]| {
        let mut args = vec!["tail", "podtemplates", "-n", ns.name.as_str(), "--from-rv"];
        args.extend_from_slice(&[rv.as_str(), "-o", "json", "--for", "5s"]);
        args.extend_from_slice(extra);
        run(&server.args(&args))
    };
    let out = tail(&[]);
    assert_one_line_error(
        &out,
        &[
            &format!("cannot replay podtemplates from resourceVersion {rv}"),
            "too old",
            "--on-expired relist",
        ],
    );
    let out = tail(&["--on-expired", "relist"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines = out.json_lines();
    assert!(
        lines.iter().any(|l| l["notice"] == "expired"),
        "{}",
        out.stdout
    );
    assert!(
        lines
            .iter()
            .any(|l| l["notice"] == "list-complete" && l["relist"] == true),
        "{}",
        out.stdout
    );
}

/// The arguments of a short `bench` with its own load, `-o json`.
pub(crate) const BENCH_OWN_LOAD: [&str; 9] = [
    "bench",
    "--objects",
    "5",
    "--rate",
    "20",
    "--duration",
    "3s",
    "-o",
    "json",
];

/// The report of a run of [`BENCH_OWN_LOAD`] (`args`: it with a server's flags), checked: it
/// updated, without errors, and every write it made arrived as a watch event.
pub(crate) fn bench_own_load_report(args: &[&str]) -> serde_json::Value {
    let out = run(args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let report: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert!(
        report["generator"]["updates"].as_u64().unwrap_or(0) > 0,
        "{}",
        out.stdout
    );
    assert_eq!(report["generator"]["errors"], 0, "{}", out.stdout);
    assert_eq!(
        report["counters"]["writesWithoutEvent"], 0,
        "{}",
        out.stdout
    );
    report
}

/// `bench` with its own load: every write it makes arrives as a watch event.
async fn bench_with_its_own_load_sees_every_write(server: &MinorServer) {
    let report = bench_own_load_report(&server.args(&BENCH_OWN_LOAD));
    assert_eq!(report["source"]["encoding"], "protobuf", "{report}");
}

/// `bench --react observed-generation` times the Deployment controller of the same minor's
/// kube-controller-manager (the version-skew policy has a controller manager never newer than
/// its API server): every write is reacted to, or superseded by the next write to its object.
async fn bench_react_times_that_minors_controller_manager(server: &MinorServer) {
    let _controllers = ControllerManager::start(
        &format!("kube-controller-manager-{}", server.minor),
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
    let out = run_with_limit(cmd, Duration::from_secs(180));
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

/// The tests of one minor, each a test of its own named after the minor's module.
macro_rules! minor_tests {
    ($module:ident, $minor:literal) => {
        mod $module {
            use super::*;

            pub const MINOR: &str = $minor;

            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
            async fn tail_starts_from_a_watch_list_and_from_a_list() {
                let server = MinorServer::connect(MINOR).await;
                super::tail_starts_from_a_watch_list_and_from_a_list(&server).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
            async fn tail_replays_exactly_the_writes_after_a_resource_version() {
                let server = MinorServer::connect(MINOR).await;
                super::tail_replays_exactly_the_writes_after_a_resource_version(&server).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
            async fn tail_from_an_expired_resource_version_gets_a_410() {
                let server = MinorServer::connect(MINOR).await;
                super::tail_from_an_expired_resource_version_gets_a_410(&server).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
            async fn diff_finds_one_of_each_class_from_a_saved_cache() {
                let server = MinorServer::connect(MINOR).await;
                let ns = server.namespace("minor-classes").await;
                crate::diff::saved_cache_then_changes_give_one_of_each_class(
                    &ns,
                    &server.kubeconfig,
                )
                .await;
            }

            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
            async fn bench_with_its_own_load_sees_every_write() {
                let server = MinorServer::connect(MINOR).await;
                super::bench_with_its_own_load_sees_every_write(&server).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
            async fn bench_react_times_that_minors_controller_manager() {
                let server = MinorServer::connect(MINOR).await;
                super::bench_react_times_that_minors_controller_manager(&server).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            #[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
            async fn conform_passes_every_check_on_configmaps() {
                let server = MinorServer::connect(MINOR).await;
                let out = crate::conform::conform(
                    &["configmaps", "-o", "json"],
                    Some(&server.kubeconfig),
                );
                crate::conform::assert_all_pass(&out);
            }
        }
    };
}

minor_tests!(v1_35, "1.35");
minor_tests!(v1_36, "1.36");

/// The minors tested here are the ones controlplane.sh builds and starts (`minor_k8s_versions`),
/// each from its wrapper module at that version, and README's supported versions name each.
#[test]
fn the_minors_tested_are_the_ones_the_control_plane_builds_and_readme_names() {
    assert_eq!([v1_35::MINOR, v1_36::MINOR], MINORS);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
    let script = read("tests/controlplane/controlplane.sh");
    let versions: Vec<&str> = script
        .lines()
        .find_map(|l| l.strip_prefix("minor_k8s_versions="))
        .expect("controlplane.sh sets minor_k8s_versions")
        .trim_matches('"')
        .split_whitespace()
        .collect();
    let minors: Vec<&str> = versions
        .iter()
        .map(|v| v.trim_start_matches('v').rsplit_once('.').unwrap().0)
        .collect();
    assert_eq!(minors, MINORS, "{versions:?}");
    let readme = read("README.md");
    let supported = readme
        .split_once("## Supported Kubernetes versions")
        .expect("README has a supported versions section")
        .1;
    for (minor, version) in MINORS.iter().zip(&versions) {
        let go_mod = read(&format!("tests/controlplane/kube-apiserver-{minor}/go.mod"));
        assert!(
            go_mod.contains(&format!("\tk8s.io/kubernetes {version}\n")),
            "kube-apiserver-{minor}/go.mod requires k8s.io/kubernetes {version}"
        );
        assert!(supported.contains(version), "README names {version}");
    }
}
