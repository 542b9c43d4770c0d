//! `proxy` on the test control plane: requests reach the API server with the proxy's
//! credentials (the client's own are dropped), over TLS signed by the proxy's own CA, and a
//! watch streams each event as it comes.

mod common;

use common::*;
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, PostParams, WatchEvent, WatchParams};
use kubectl_informer::cluster::{Cluster, KubeconfigSelection, Transport};
use kubectl_informer::proxy::{serve::serve, tls::Authority};
use std::time::Duration;

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
    let server = tokio::spawn(serve(listener, Some(authority.server.clone()), cluster));
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
#[ignore = "needs the test control plane: cargo test -- --ignored (see CONTRIBUTING.md)"]
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
