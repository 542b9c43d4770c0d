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
