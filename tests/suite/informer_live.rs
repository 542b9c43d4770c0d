//! The informer pipeline against the real control plane through a loopback proxy that severs the
//! connection again and again while writers make thousands of creates, updates and deletes, and
//! once stays down past the history window so a relist is forced. At the end the store equals a
//! fresh consistent LIST and every listener has seen the final state of every object.

use crate::common::*;
use k8s_openapi::api::core::v1::PodTemplate;
use kube::api::{Api, DeleteParams, PostParams};
use kubectl_informer::cluster::{resolve, Cluster, KubeconfigSelection, Transport};
use kubectl_informer::informer::listwatch::{ListOptions, ListWatch};
use kubectl_informer::informer::object::{Encoding, Keep};
use kubectl_informer::informer::processor::{Notification, NotificationKind};
use kubectl_informer::informer::reflector::{ReflectorConfig, Start};
use kubectl_informer::informer::shared::{ReflectorCounters, SharedInformer};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

type View = BTreeMap<String, String>;

fn recording_listener(
    view: Arc<Mutex<View>>,
    delay: Duration,
) -> kubectl_informer::informer::processor::Handler {
    Box::new(move |n: Notification| {
        let view = view.clone();
        Box::pin(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let mut v = view.lock().unwrap();
            match n.kind {
                NotificationKind::Add { object, .. }
                | NotificationKind::Update { new: object, .. } => {
                    v.insert(object.key(), object.resource_version().to_string());
                }
                NotificationKind::Delete { object, .. } => {
                    v.remove(&object.key());
                }
            }
        })
    })
}

async fn fresh_list(lw: &ListWatch) -> (String, View) {
    let mut view = View::new();
    let mut opts = ListOptions {
        limit: Some(500),
        ..Default::default()
    };
    loop {
        let page = lw.list_page(&opts).await.expect("consistent LIST");
        for o in page.items {
            view.insert(o.key(), o.resource_version().to_string());
        }
        match page.continue_token {
            Some(token) => opts.continue_token = Some(token),
            None => return (page.resource_version, view),
        }
    }
}

fn template(name: &str, value: &str) -> PodTemplate {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "labels": {"v": value}},
        "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn severed_again_and_again_and_expired_once_the_store_ends_equal_to_a_fresh_list() {
    let ns = TestNamespace::new("pipeline").await;
    let dir = tempfile::tempdir().unwrap();
    let (proxy, kc) = CuttingProxy::for_test_server(dir.path());
    let proxy = Arc::new(proxy);

    let selection = KubeconfigSelection {
        path: Some(kc),
        ..Default::default()
    };
    let transport = Transport {
        request_timeout: Some(Duration::from_secs(10)),
        ..Transport::default()
    };
    let cluster = Cluster::connect(&selection, transport).await.unwrap();
    let resources = cluster.discover().await.unwrap();
    // PodTemplates: watched from etcd in the test control plane, so history expires on demand.
    let resource = resolve("podtemplates", &resources).unwrap().clone();
    let lw = ListWatch {
        cluster,
        resource,
        namespace: Some(ns.name.clone()),
        label_selector: None,
        field_selector: None,
        metadata_only: false,
        // In protobuf, as diff and bench read: the frames are cut mid-stream as JSON lines are.
        encoding: Encoding::Protobuf,
        keep: Keep::Digest,
    };
    let mut informer = SharedInformer::new(
        lw.clone(),
        ReflectorConfig {
            start: Start::List,
            relist_if_replay_expired: false,
            chunk_size: 100,
            bookmarks: true,
            server_timeout: Some(20),
            reconnect: true,
            initial_events_timeout: kubectl_informer::informer::reflector::INITIAL_EVENTS_TIMEOUT,
        },
    );
    let fast_view: Arc<Mutex<View>> = Arc::default();
    let slow_view: Arc<Mutex<View>> = Arc::default();
    informer.add_listener(
        "fast",
        None,
        recording_listener(fast_view.clone(), Duration::ZERO),
    );
    let slow = informer.add_listener(
        "slow",
        None,
        recording_listener(slow_view.clone(), Duration::from_millis(2)),
    );
    let mut running = informer.run();
    running.synced().await.unwrap();

    // Writers, straight to the API server (not through the proxy).
    // They go on until the cutter is done, so every cut lands while objects change.
    let api: Api<PodTemplate> = Api::namespaced(ns.client.clone(), &ns.name);
    let cutting = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut writers = Vec::new();
    for w in 0..4 {
        let api = api.clone();
        let cutting = cutting.clone();
        writers.push(tokio::spawn(async move {
            let mut writes = 0;
            for i in 0.. {
                if i >= 60 && !cutting.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let name = format!("w{w}-{i}");
                api.create(&PostParams::default(), &template(&name, "0"))
                    .await
                    .unwrap();
                for v in 1..=4 {
                    let patch = serde_json::json!({"metadata": {"labels": {"v": v.to_string()}}});
                    api.patch(
                        &name,
                        &kube::api::PatchParams::default(),
                        &kube::api::Patch::Merge(&patch),
                    )
                    .await
                    .unwrap();
                }
                writes += 5;
                if i % 3 == 0 {
                    api.delete(&name, &DeleteParams::default()).await.unwrap();
                    writes += 1;
                }
            }
            writes
        }));
    }
    // The cutter: severs every connection at irregular intervals while the writers run, at least
    // 40 times and until three cuts have closed an open watch. Cuts that land while the reflector
    // sleeps out its backoff (0.8 s doubling) or opens a watch close none, so how many cuts that
    // takes depends on timing; the limit only keeps a broken reflector from hanging the test.
    let counters = running.counters();
    let cutter = {
        let proxy = proxy.clone();
        let counters = counters.clone();
        let cutting = cutting.clone();
        tokio::spawn(async move {
            let closed_before = ReflectorCounters::get(&counters.watches_closed);
            let limit = tokio::time::Instant::now() + Duration::from_secs(120);
            let mut cuts = 0u64;
            while cuts < 40 || ReflectorCounters::get(&counters.watches_closed) < closed_before + 3
            {
                assert!(
                    tokio::time::Instant::now() < limit,
                    "{cuts} cuts in 120 s closed only {} watches; reflector counters: {counters:?}",
                    ReflectorCounters::get(&counters.watches_closed) - closed_before
                );
                tokio::time::sleep(Duration::from_millis(150 + (cuts * 97) % 400)).await;
                proxy.cut();
                cuts += 1;
            }
            cutting.store(false, std::sync::atomic::Ordering::SeqCst);
            cuts
        })
    };
    let cuts = cutter.await.unwrap();
    let mut writes = 0;
    for w in writers {
        writes += w.await.unwrap();
    }
    assert!(writes >= 1000, "{writes} writes");

    // One outage longer than the history window: the resume gets 410 and the reflector relists.
    proxy.outage();
    let before = api.list(&Default::default()).await.unwrap();
    let before_rv = before.metadata.resource_version.unwrap();
    api.delete("w0-1", &DeleteParams::default()).await.unwrap();
    let churn = TestNamespace::new("pipeline-churn").await;
    write_until_expired(&api, &before_rv, &churn).await;
    proxy.restore();

    // Wait until the store has caught up with a fresh consistent LIST. After the outage the
    // reflector may still sleep out its backoff (up to twice the attempt's base, 51.2 s after six
    // failures), then gets 410 and waits one more backoff period (up to 60 s) before relisting,
    // as client-go does.
    let (list_rv, truth) = fresh_list(&lw).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
    loop {
        let (rv, cached): (u64, View) = running.read(|store| {
            (
                store.resource_version().parse().unwrap_or(0),
                store
                    .list()
                    .into_iter()
                    .map(|o| (o.key(), o.resource_version().to_string()))
                    .collect(),
            )
        });
        if rv >= list_rv.parse::<u64>().unwrap() {
            running.read(|store| {
                let encodings: Vec<_> = store.list().into_iter().map(|o| o.encoding()).collect();
                assert!(
                    encodings.iter().all(|e| *e == Encoding::Protobuf),
                    "every cached object came in protobuf: {encodings:?}"
                );
            });
            assert_eq!(
                cached, truth,
                "store at RV {rv} against the LIST at {list_rv}"
            );
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "store stuck at RV {rv}, LIST at {list_rv}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(
        ReflectorCounters::get(&counters.relists) >= 1,
        "the outage forced a relist; reflector counters: {counters:?}"
    );
    eprintln!("{writes} writes, {cuts} cuts; reflector counters: {counters:?}");
    let store_view: View = running.read(|store| {
        store
            .list()
            .into_iter()
            .map(|o| (o.key(), o.resource_version().to_string()))
            .collect()
    });
    running.stop().await.unwrap();
    assert_eq!(
        *fast_view.lock().unwrap(),
        store_view,
        "fast listener's final view"
    );
    assert_eq!(
        *slow_view.lock().unwrap(),
        store_view,
        "slow listener's final view"
    );
    // How many notifications that takes depends on how many writes relists folded together;
    // at least one per object that exists.
    let handled = slow.metrics().handled;
    assert!(
        handled as usize >= store_view.len(),
        "{handled} notifications handled"
    );
}
