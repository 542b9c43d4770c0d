//! kubectl's plugin completion (`kubectl_complete-informer` → `kubectl-informer __complete`)
//! answered from the real server's discovery, namespaces and the kubeconfig's contexts.

use crate::common::*;

fn complete(words: &[&str]) -> (Vec<String>, String) {
    let mut args = vec!["__complete"];
    args.extend_from_slice(words);
    let out = run(&args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let mut lines: Vec<String> = out.stdout.lines().map(str::to_string).collect();
    let directive = lines.pop().unwrap_or_default();
    (lines, directive)
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn resource_names_come_from_discovery() {
    admin().await;
    let (candidates, directive) = complete(&["tail", "config"]);
    assert_eq!(candidates, vec!["configmaps"]);
    assert_eq!(directive, ":4");
    let (candidates, _) = complete(&["tail", "deploy"]);
    assert_eq!(candidates, vec!["deployments.apps"]);
    // tail's list `deploy,rs,pods`: the last one is completed, the ones before kept, and a
    // resource already in the list is not offered again.
    let (candidates, _) = complete(&["tail", "configmaps,deploy"]);
    assert_eq!(candidates, vec!["configmaps,deployments.apps"]);
    let (candidates, _) = complete(&["tail", "configmaps,config"]);
    assert!(candidates.is_empty(), "{candidates:?}");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn namespaces_are_listed_from_the_server() {
    let ns = TestNamespace::new("compl").await;
    let (candidates, directive) = complete(&["tail", "cm", "-n", "compl-"]);
    assert!(candidates.contains(&ns.name), "{candidates:?}");
    assert!(
        candidates.iter().all(|c| c.starts_with("compl-")),
        "{candidates:?}"
    );
    assert_eq!(directive, ":4");
    let (candidates, _) = complete(&["tail", "cm", "--namespace=kube-s"]);
    assert_eq!(candidates, vec!["--namespace=kube-system"]);
    // The global flags typed before are those of the connection, as for the command itself:
    // with --server pointing where nothing listens, there is nothing to offer.
    let (candidates, directive) = complete(&[
        "--server",
        "https://127.0.0.1:1",
        "tail",
        "cm",
        "-n",
        "compl-",
    ]);
    assert!(candidates.is_empty(), "{candidates:?}");
    assert_eq!(directive, ":4");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn contexts_subcommands_and_flags_complete() {
    admin().await;
    let (candidates, _) = complete(&["tail", "cm", "--context", ""]);
    assert_eq!(candidates, vec!["admin", "nobody"]);
    let (candidates, _) = complete(&["t"]);
    assert_eq!(candidates.len(), 2, "{candidates:?}");
    assert!(candidates[0].starts_with("tail\t"), "{candidates:?}");
    assert!(candidates[1].starts_with("top\t"), "{candidates:?}");
    let (candidates, _) = complete(&["ta"]);
    assert_eq!(candidates.len(), 1);
    assert!(candidates[0].starts_with("tail\t"), "{candidates:?}");
    let (candidates, _) = complete(&["tail", "cm", "--server-t"]);
    assert_eq!(candidates.len(), 1);
    assert!(
        candidates[0].starts_with("--server-timeout\t"),
        "{candidates:?}"
    );
    let (_, directive) = complete(&["tail", "--kubeconfig", ""]);
    assert_eq!(directive, ":0", "file names complete for --kubeconfig");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn the_kubectl_helper_script_answers_like_the_binary() {
    admin().await;
    let dir = tempfile::tempdir().unwrap();
    // The helper execs `kubectl-informer` from PATH, as kubectl would find both.
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_kubectl-informer"),
        dir.path().join("kubectl-informer"),
    )
    .unwrap();
    let helper = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("completions/kubectl_complete-informer");
    let mut cmd = std::process::Command::new(helper);
    cmd.env("KUBECONFIG", kubeconfig_path())
        .env(
            "PATH",
            format!(
                "{}:{}",
                dir.path().display(),
                std::env::var("PATH").unwrap()
            ),
        )
        .args(["tail", "configm"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = run_with_limit(cmd, std::time::Duration::from_secs(30));
    assert_eq!(out.stdout, "configmaps\n:4\n", "{}", out.stderr);
}

/// `complete`, with the binary on another kubeconfig (`KUBECONFIG` still the test one's).
fn complete_with(env: &[(&str, &str)], words: &[&str]) -> Vec<String> {
    let mut cmd = informer();
    cmd.arg("__complete").args(words);
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = run_with_limit(cmd, std::time::Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.stderr, "", "completion writes nothing on stderr");
    let mut lines: Vec<String> = out.stdout.lines().map(str::to_string).collect();
    lines.pop();
    lines
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn object_names_are_those_of_the_namespace_and_context_the_command_would_watch() {
    let ns = TestNamespace::new("compl-names").await;
    let other = TestNamespace::new("compl-other").await;
    for name in ["alpha", "beta"] {
        ns.create_configmap(name, &[]).await;
    }
    other.create_configmap("gamma", &[]).await;
    let n = ns.name.as_str();

    let (candidates, directive) = complete(&["tail", "configmaps", "-n", n, ""]);
    assert_eq!(candidates, ["alpha", "beta"]);
    assert_eq!(directive, ":4");
    let (candidates, _) = complete(&["tail", "cm", "-n", n, "b"]);
    assert_eq!(candidates, ["beta"]);
    let namespace = format!("--namespace={}", other.name);
    let (candidates, _) = complete(&["tail", "cm", &namespace, ""]);
    assert_eq!(candidates, ["gamma"], "another namespace's objects only");
    // kubectl's TYPE/NAME form.
    let (candidates, _) = complete(&["tail", "-n", n, "configmaps/"]);
    assert_eq!(candidates, ["configmaps/alpha", "configmaps/beta"]);
    // -A: tail would watch the name in every namespace.
    let (candidates, _) = complete(&["tail", "cm", "-A", ""]);
    for name in ["alpha", "beta", "gamma"] {
        assert!(candidates.contains(&name.to_string()), "{candidates:?}");
    }
    // One name only: nothing after it; nothing for a resource list.
    assert!(complete(&["tail", "cm", "-n", n, "alpha", ""]).0.is_empty());
    assert!(complete(&["tail", "cm,secrets", "-n", n, ""]).0.is_empty());

    // --context: the user `nobody` may list nothing until granted, then only there.
    let as_nobody = ["--context", "nobody", "tail", "cm", "-n", n, ""];
    assert!(complete(&as_nobody).0.is_empty());
    ns.grant_nobody_and_wait("compl", &["configmaps"], &["list"])
        .await;
    assert_eq!(complete(&as_nobody).0, ["alpha", "beta"]);
    let elsewhere = ["--context", "nobody", "tail", "cm", &namespace, ""];
    assert!(complete(&elsewhere).0.is_empty());

    // --kubeconfig, and its context's namespace when -n is not given.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    std::fs::write(&path, kubeconfig_with_context("in-test", n)).unwrap();
    let path = path.display().to_string();
    let words = [
        "--kubeconfig",
        &path,
        "--context",
        "in-test",
        "tail",
        "cm",
        "",
    ];
    assert_eq!(complete(&words).0, ["alpha", "beta"]);
    let in_env = complete_with(
        &[("KUBECONFIG", &path)],
        &["--context=in-test", "tail", "cm", ""],
    );
    assert_eq!(
        in_env,
        ["alpha", "beta"],
        "$KUBECONFIG, as kubectl reads it"
    );
    assert!(complete(&["--context", "in-test", "tail", "cm", ""])
        .0
        .is_empty());
}

/// The test kubeconfig (as JSON, which is YAML) with one more context, `name`: the admin user
/// in `namespace`.
fn kubeconfig_with_context(name: &str, namespace: &str) -> String {
    let mut cmd = kubectl();
    cmd.args(["config", "view", "--raw", "--flatten", "-o", "json"]);
    let out = run_with_limit(cmd, std::time::Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let mut config: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let admin = config["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "admin")
        .unwrap()
        .clone();
    let mut context = admin;
    context["name"] = name.into();
    context["context"]["namespace"] = namespace.into();
    config["contexts"].as_array_mut().unwrap().push(context);
    config.to_string()
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_server_that_cannot_be_reached_completes_nothing_within_the_limit() {
    // A port that accepts and never answers: the answer comes, empty, within the 5 s limit.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("https://{}", silent.local_addr().unwrap());
    let started = std::time::Instant::now();
    let (candidates, directive) = complete(&["--server", &server, "tail", "cm", "-n", "x", ""]);
    assert!(candidates.is_empty(), "{candidates:?}");
    assert_eq!(directive, ":4");
    let words = ["--server", &server, "tail", "-n", "x", "cm/"];
    assert!(
        complete_with(&[], &words).is_empty(),
        "and nothing on stderr"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn fault_reaction_and_metrics_target_values_complete_with_the_servers_resources() {
    let ns = TestNamespace::new("compl-values").await;
    let (candidates, directive) = complete(&["proxy", "--fault", "sev"]);
    assert_eq!(candidates, ["sever:\tcut every open watch"]);
    assert_eq!(directive, ":6", "no space after `sever:`");
    let (candidates, _) = complete(&["proxy", "--fault", "sever:every=5s,how=r"]);
    assert_eq!(candidates, ["sever:every=5s,how=reset"]);
    let (candidates, _) = complete(&["proxy", "--fault=gone:resource=configm"]);
    assert_eq!(candidates, ["--fault=gone:resource=configmaps"]);
    let (candidates, _) = complete(&["tail", "deploy", "--react", "owned:replicas"]);
    assert_eq!(candidates, ["owned:replicasets.apps"]);
    let (candidates, _) = complete(&["proxy", "--state", "secrets,configm"]);
    assert_eq!(candidates, ["secrets,configmaps"]);
    let (candidates, _) = complete(&["top", "-n", &ns.name, "sa/"]);
    assert!(
        candidates.is_empty(),
        "top takes no service account: {candidates:?}"
    );
    let (candidates, _) = complete(&["top", "-n", &ns.name, "svc/"]);
    assert!(candidates.is_empty(), "{candidates:?}");
    let (candidates, _) = complete(&["top", "d"]);
    assert_eq!(candidates, ["deploy/", "ds/"]);
}
