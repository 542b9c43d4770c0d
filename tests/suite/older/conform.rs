//! conform against the oldest supported API server, v1.29, whose WatchList gate is off.

use crate::common::*;
use crate::conform::{conform, detail, statuses};

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn an_api_server_without_watch_list_has_it_not_supported_and_passes_the_rest() {
    // The v1.29 API server of the test control plane runs with its WatchList gate off (alpha).
    admin_at(&old_kubeconfig_path()).await;
    let out = conform(&["configmaps", "-o", "json"], Some(&old_kubeconfig_path()));
    let statuses = statuses(&out);
    assert_eq!(statuses["watch-list"], "skip", "{}", out.stdout);
    let why = detail(&out, "watch-list");
    assert!(why.starts_with("not supported: "), "{why}");
    assert!(
        why.contains("client-go falls back to LIST + WATCH"),
        "{why}"
    );
    assert!(why.contains("sendInitialEvents"), "{why}");
    let others: Vec<String> = statuses
        .iter()
        .filter(|(name, s)| {
            *s != "pass" && !matches!(name.as_str(), "watch-list" | "watch-expired")
        })
        .map(|(n, s)| format!("{n} {s}"))
        .collect();
    assert!(others.is_empty(), "{others:?}\n{}", out.stdout);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}
