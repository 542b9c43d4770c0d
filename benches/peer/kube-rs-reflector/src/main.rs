//! The kube-rs peer of kubectl-informer's scale benchmark (benches/scale.rs): a kube-runtime
//! `reflector` Store of ConfigMaps or Pods in one namespace, fed by `watcher` with its default
//! configuration (a paginated LIST of 500 per page, in JSON, then WATCH), as a Rust controller
//! author would write it. Prints its resident memory before the watcher starts and once the
//! store is ready, and the time to ready, as one JSON line.
//!
//!   kube-rs-reflector-peer configmaps|pods NAMESPACE   (KUBECONFIG names the cluster)

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::runtime::{reflector, watcher, WatchStreamExt};
use kube::{Api, Client, Resource};
use std::time::{Duration, Instant};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Syncs a reflector of `api`; returns (objects, sync seconds, RSS before, RSS synced).
async fn sync<K>(api: Api<K>, before: u64) -> (usize, f64, u64, u64)
where
    K: Resource<DynamicType = ()>
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned
        + Send
        + Sync
        + 'static,
{
    let (reader, writer) = reflector::store();
    let started = Instant::now();
    let stream = reflector(writer, watcher(api, watcher::Config::default())).applied_objects();
    tokio::spawn(stream.for_each(|_| async {}));
    reader.wait_until_ready().await.expect("the store became ready");
    let seconds = started.elapsed().as_secs_f64();
    tokio::time::sleep(Duration::from_secs(2)).await;
    (reader.state().len(), seconds, before, rss_kib())
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(resource), Some(namespace)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: kube-rs-reflector-peer configmaps|pods NAMESPACE");
        std::process::exit(2);
    };
    let client = Client::try_default().await.expect("a kubeconfig");
    let before = rss_kib();
    let (objects, seconds, before, after) = match resource.as_str() {
        "configmaps" => sync(Api::<ConfigMap>::namespaced(client, namespace), before).await,
        "pods" => sync(Api::<Pod>::namespaced(client, namespace), before).await,
        other => {
            eprintln!("{other}: configmaps or pods");
            std::process::exit(2);
        }
    };
    println!(
        "{{\"objects\":{objects},\"rssBeforeKiB\":{before},\"rssAfterKiB\":{after},\"syncSeconds\":{seconds:.3}}}"
    );
}
