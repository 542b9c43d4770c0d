//! `version` prints the client's version and the commit it was built from, and the server's
//! version as the real kubectl reads it from the same server (the current one, v1.29 and each
//! supported minor between), in lines and as kubectl's `-o json|yaml` document.

use crate::common::older::{minor_kubeconfig_path, MINORS};
use crate::common::*;
use crate::version::{field, head_commit};

#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn version_names_the_client_commit_and_the_servers_version_as_kubectl_reads_it() {
    // The current server, the oldest supported one and each supported minor between.
    let minors = MINORS.map(minor_kubeconfig_path);
    for kubeconfig in [kubeconfig_path(), old_kubeconfig_path()]
        .iter()
        .chain(&minors)
    {
        admin_at(kubeconfig).await;
        let kubeconfig = kubeconfig.to_str().unwrap();
        let out = run(&["version", "--kubeconfig", kubeconfig]);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        assert_eq!(
            field(&out, "Client Version"),
            concat!("v", env!("CARGO_PKG_VERSION"))
        );
        let commit = field(&out, "Client Commit");
        match head_commit() {
            Some(head) => assert_eq!(commit.trim_end_matches("-dirty"), head),
            None => assert_eq!(commit, "unknown"),
        }
        let mut cmd = kubectl();
        cmd.args(["version", "-o", "json", "--kubeconfig", kubeconfig]);
        let theirs = cmd.output().unwrap();
        assert!(theirs.status.success(), "{theirs:?}");
        let theirs: serde_json::Value = serde_json::from_slice(&theirs.stdout).unwrap();
        let server = theirs["serverVersion"]["gitVersion"].as_str().unwrap();
        let (ours, _) = field(&out, "Server Version")
            .split_once(" (")
            .unwrap_or_default();
        assert_eq!(ours, server);
        // -o json and -o yaml: kubectl's document, its serverVersion as kubectl's.
        for form in ["json", "yaml"] {
            let out = run(&["version", "-o", form, "--kubeconfig", kubeconfig]);
            assert_eq!(out.code, Some(0), "{}", out.stderr);
            let ours: serde_json::Value = match form {
                "json" => serde_json::from_str(&out.stdout).unwrap(),
                _ => serde_saphyr::from_str(&out.stdout).unwrap(),
            };
            assert_eq!(ours["serverVersion"], theirs["serverVersion"], "{form}");
            assert_eq!(
                ours["clientVersion"]["gitVersion"],
                concat!("v", env!("CARGO_PKG_VERSION"))
            );
            assert_eq!(ours["clientVersion"]["gitCommit"], commit);
        }
    }
    assert!(run(&["--version"]).stdout.starts_with(&format!(
        "kubectl-informer {} (commit ",
        env!("CARGO_PKG_VERSION")
    )));
}
