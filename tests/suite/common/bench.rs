//! What the tests of a live `bench` share: the scratch namespace it names, and the check that
//! it is gone.

use super::{admin, controllers_running};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::Api;
use std::time::Duration;

/// The scratch namespace named in bench's "created namespace X" notice.
pub fn scratch_namespace(stderr: &str) -> String {
    scratch_namespace_of("bench", stderr)
}

/// The scratch namespace named in `command`'s "created namespace X" notice.
pub fn scratch_namespace_of(command: &str, stderr: &str) -> String {
    let notice = format!("{command}: created namespace ");
    stderr
        .lines()
        .find_map(|l| l.strip_prefix(notice.as_str()))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no created-namespace notice in: {stderr}"))
        .to_string()
}

/// Asserts that `name` is gone or being deleted.
/// With the control plane's namespace controller running, `name` must be gone within 90 s (its
/// deletion finished); on a bare API server, which finishes no deletion, it must be Terminating.
pub async fn assert_namespace_removed(name: &str) {
    let namespaces: Api<Namespace> = Api::all(admin().await);
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    while let Some(ns) = namespaces.get_opt(name).await.unwrap() {
        assert!(
            ns.metadata.deletion_timestamp.is_some(),
            "namespace {name} is still there and not being deleted"
        );
        if !controllers_running() {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "namespace {name} is still Terminating after 90 s: the namespace controller did not \
             finish deleting it"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The scratch namespace a finished bench run named, after checking that it said it deleted it
/// and that it is gone.
pub async fn assert_scratch_removed(stderr: &str) -> String {
    assert_scratch_removed_of("bench", stderr).await
}

/// The scratch namespace a finished run of `command` named, after checking that it said it
/// deleted it and that it is gone.
pub async fn assert_scratch_removed_of(command: &str, stderr: &str) -> String {
    let ns = scratch_namespace_of(command, stderr);
    assert!(
        stderr.contains(&format!("{command}: deleted namespace {ns}")),
        "{stderr}"
    );
    assert_namespace_removed(&ns).await;
    ns
}
