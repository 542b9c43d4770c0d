//! A million objects without a control plane: a loopback server that generates N running Pods
//! (as a 5,000-node cluster's would look: scheduled, with status, an owning ReplicaSet and
//! managed fields) in the Kubernetes protobuf encoding, page by page as the informer asks, and a
//! recording of the same Pods in JSON for `bench --from-file`. Only our side is measured: the
//! server holds one page at a time and spends little per Pod (the parts every Pod shares are
//! encoded once).
//!
//! Field numbers are those of k8s.io/api core/v1 and k8s.io/apimachinery meta/v1
//! `generated.proto`.

#[path = "../../tests/suite/common/fake.rs"]
mod fake;

/// The test-only writer of the encoding; `super::MAGIC` there is this one.
#[allow(dead_code)] // it also writes objects and frames, which the pages do not need
#[path = "../../src/cluster/protobuf/encode.rs"]
mod encode;

use encode::{bytes, list, number};
use fake::{core_discovery_of, empty_discovery, FakeServer, Reply, Step};
use kubectl_informer::cluster::protobuf::MAGIC;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The namespace of the generated Pods.
pub const NAMESPACE: &str = "bench-million";
/// Pods per Deployment (each has its ReplicaSet and a label value of its own).
const PER_DEPLOYMENT: usize = 50;
/// Nodes the Pods are spread over.
const NODES: usize = 5000;
const HASH: &str = "7d9f8c6b5f";
const DIGEST: &str = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const CONTAINER_ID: &str =
    "containerd://4b825dc642cb6eb9a060e54bf8d69288fbee4904a1c2d3e4f5a6b7c8d9e0f1a2";
/// The managed fields of the two writers of every Pod: the ReplicaSet controller (spec) and
/// the kubelet (status).
const SPEC_FIELDS: &str = r#"{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{},"f:prometheus.io/port":{},"f:prometheus.io/scrape":{}},"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/version":{},"f:pod-template-hash":{},"f:tier":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"00000000-0000-0000-0000-000000000000\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:args":{},"f:env":{},"f:image":{},"f:livenessProbe":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{},"f:volumeMounts":{}},"k:{\"name\":\"proxy\"}":{".":{},"f:args":{},"f:image":{},"f:ports":{},"f:resources":{}}},"f:volumes":{}}}"#;
const STATUS_FIELDS: &str = r#"{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.0.0.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}"#;
/// The LIST's resourceVersion: after every Pod's.
const LIST_RV: u64 = 50_000_000;

/// A Time message of `seconds`.
fn time(seconds: u64) -> Vec<u8> {
    let mut t = Vec::new();
    number(&mut t, 1, seconds);
    t
}

/// A map entry (`map<string, string>`, or a Quantity's `{string = 1}` value when `quantity`).
fn entry(out: &mut Vec<u8>, field: u64, key: &str, value: &str, quantity: bool) {
    let mut e = Vec::new();
    bytes(&mut e, 1, key.as_bytes());
    if quantity {
        let mut q = Vec::new();
        bytes(&mut q, 1, value.as_bytes());
        bytes(&mut e, 2, &q);
    } else {
        bytes(&mut e, 2, value.as_bytes());
    }
    bytes(out, field, &e);
}

fn message(build: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut m = Vec::new();
    build(&mut m);
    m
}

/// The parts of a Pod every generated Pod shares, encoded once.
struct Shared {
    /// ObjectMeta fields 12 (annotations) and 17 (managedFields).
    meta_tail: Vec<u8>,
    /// PodSpec without nodeName.
    spec: Vec<u8>,
    /// PodStatus without hostIP and podIP.
    status: Vec<u8>,
}

impl Shared {
    fn new() -> Shared {
        let mut meta_tail = Vec::new();
        for (k, v) in [
            ("prometheus.io/scrape", "true"),
            ("prometheus.io/port", "9090"),
            ("kubectl.kubernetes.io/restartedAt", "2026-11-24T10:00:00Z"),
        ] {
            entry(&mut meta_tail, 12, k, v, false);
        }
        for (manager, subresource, fields) in [
            ("kube-controller-manager", "", SPEC_FIELDS),
            ("kubelet", "status", STATUS_FIELDS),
        ] {
            let m = message(|m| {
                bytes(m, 1, manager.as_bytes());
                bytes(m, 2, b"Update");
                bytes(m, 3, b"v1");
                bytes(m, 4, &time(1_795_000_000));
                bytes(m, 6, b"FieldsV1");
                bytes(m, 7, &message(|f| bytes(f, 1, fields.as_bytes())));
                if !subresource.is_empty() {
                    bytes(m, 8, subresource.as_bytes());
                }
            });
            bytes(&mut meta_tail, 17, &m);
        }
        let probe = |path: &str, period: u64| {
            message(|p| {
                let get = message(|g| {
                    bytes(g, 1, path.as_bytes());
                    bytes(g, 2, &message(|port| number(port, 2, 8080)));
                    bytes(g, 4, b"HTTP");
                });
                bytes(p, 1, &message(|h| bytes(h, 2, &get)));
                number(p, 3, 1);
                number(p, 4, period);
                number(p, 5, 1);
                number(p, 6, 3);
            })
        };
        let port = |name: &str, number_: u64| {
            message(|p| {
                bytes(p, 1, name.as_bytes());
                number(p, 3, number_);
                bytes(p, 4, b"TCP");
            })
        };
        let app = message(|c| {
            bytes(c, 1, b"app");
            bytes(c, 2, b"registry.example/bench/app:1.2.3");
            for a in ["--port=8080", "--metrics-port=9090", "--log-level=info"] {
                bytes(c, 4, a.as_bytes());
            }
            bytes(c, 6, &port("http", 8080));
            bytes(c, 6, &port("metrics", 9090));
            for k in 0..8 {
                let env = message(|e| {
                    bytes(e, 1, format!("SETTING_{k}").as_bytes());
                    bytes(e, 2, format!("value-{k}-0000000").as_bytes());
                });
                bytes(c, 7, &env);
            }
            bytes(
                c,
                8,
                &message(|r| {
                    entry(r, 1, "cpu", "500m", true);
                    entry(r, 1, "memory", "256Mi", true);
                    entry(r, 2, "cpu", "100m", true);
                    entry(r, 2, "memory", "128Mi", true);
                }),
            );
            bytes(
                c,
                9,
                &message(|v| {
                    bytes(v, 1, b"config");
                    bytes(v, 3, b"/etc/app");
                }),
            );
            bytes(c, 10, &probe("/healthz", 10));
            bytes(c, 11, &probe("/ready", 5));
            bytes(c, 13, b"/dev/termination-log");
            bytes(c, 14, b"IfNotPresent");
            bytes(c, 20, b"File");
        });
        let proxy = message(|c| {
            bytes(c, 1, b"proxy");
            bytes(c, 2, b"registry.example/bench/proxy:0.9.1");
            bytes(c, 4, b"--upstream=127.0.0.1:8080");
            bytes(c, 6, &port("proxy", 15001));
            bytes(
                c,
                8,
                &message(|r| {
                    entry(r, 2, "cpu", "50m", true);
                    entry(r, 2, "memory", "64Mi", true);
                }),
            );
            bytes(c, 13, b"/dev/termination-log");
            bytes(c, 14, b"IfNotPresent");
            bytes(c, 20, b"File");
        });
        let spec = message(|s| {
            let volume = message(|v| {
                bytes(v, 1, b"config");
                let source = message(|cm| {
                    bytes(cm, 1, &message(|r| bytes(r, 1, b"app-config")));
                    number(cm, 3, 0o644);
                });
                bytes(v, 2, &message(|vs| bytes(vs, 19, &source)));
            });
            bytes(s, 1, &volume);
            bytes(s, 2, &app);
            bytes(s, 2, &proxy);
            bytes(s, 3, b"Always");
            number(s, 4, 30);
            bytes(s, 6, b"ClusterFirst");
            bytes(s, 8, b"default");
            bytes(s, 19, b"default-scheduler");
            number(s, 25, 0);
            number(s, 30, 1);
            bytes(s, 31, b"PreemptLowerPriority");
        });
        let status = message(|s| {
            bytes(s, 1, b"Running");
            for kind in [
                "PodReadyToStartContainers",
                "Initialized",
                "Ready",
                "ContainersReady",
                "PodScheduled",
            ] {
                let c = message(|c| {
                    bytes(c, 1, kind.as_bytes());
                    bytes(c, 2, b"True");
                    bytes(c, 3, &[]);
                    bytes(c, 4, &time(1_795_000_010));
                });
                bytes(s, 2, &c);
            }
            bytes(s, 7, &time(1_795_000_001));
            for (name, image) in [
                ("app", "registry.example/bench/app:1.2.3"),
                ("proxy", "registry.example/bench/proxy:0.9.1"),
            ] {
                let c = message(|c| {
                    bytes(c, 1, name.as_bytes());
                    let running = message(|r| bytes(r, 1, &time(1_795_000_005)));
                    bytes(c, 2, &message(|st| bytes(st, 2, &running)));
                    bytes(c, 3, &[]);
                    number(c, 4, 1);
                    number(c, 5, 0);
                    bytes(c, 6, image.as_bytes());
                    bytes(c, 7, format!("{image}@sha256:{DIGEST}").as_bytes());
                    bytes(c, 8, CONTAINER_ID.as_bytes());
                    number(c, 9, 1);
                });
                bytes(s, 8, &c);
            }
            bytes(s, 9, b"Burstable");
        });
        Shared {
            meta_tail,
            spec,
            status,
        }
    }

    /// Pod `i` as a PodList item (an unenveloped Pod message).
    fn pod(&self, i: usize) -> Vec<u8> {
        let id = Identity::of(i);
        let meta = message(|m| {
            bytes(m, 1, id.name.as_bytes());
            bytes(m, 2, id.generate_name.as_bytes());
            bytes(m, 3, NAMESPACE.as_bytes());
            bytes(m, 5, id.uid.as_bytes());
            bytes(m, 6, id.resource_version.to_string().as_bytes());
            bytes(m, 8, &time(1_795_000_000 + (i / 100) as u64));
            for (k, v) in id.labels() {
                entry(m, 11, k, &v, false);
            }
            m.extend_from_slice(&self.meta_tail);
            let owner = message(|o| {
                bytes(o, 1, b"ReplicaSet");
                bytes(o, 3, id.owner.as_bytes());
                bytes(o, 4, id.owner_uid.as_bytes());
                bytes(o, 5, b"apps/v1");
                number(o, 6, 1);
                number(o, 7, 1);
            });
            bytes(m, 13, &owner);
        });
        let mut spec = self.spec.clone();
        bytes(&mut spec, 10, id.node.as_bytes());
        let mut status = self.status.clone();
        bytes(&mut status, 5, id.host_ip.as_bytes());
        bytes(&mut status, 6, id.pod_ip.as_bytes());
        let mut pod = Vec::with_capacity(meta.len() + spec.len() + status.len() + 16);
        bytes(&mut pod, 1, &meta);
        bytes(&mut pod, 2, &spec);
        bytes(&mut pod, 3, &status);
        pod
    }
}

/// What differs from one generated Pod to the next.
struct Identity {
    name: String,
    generate_name: String,
    uid: String,
    resource_version: u64,
    deployment: String,
    owner: String,
    owner_uid: String,
    node: String,
    host_ip: String,
    pod_ip: String,
}

fn uuid(kind: u64, i: u64) -> String {
    let x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ kind;
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        x >> 32,
        (x >> 16) & 0xffff,
        x & 0xfff,
        (i >> 12) & 0xfff,
        i & 0xffff_ffff_ffff
    )
}

impl Identity {
    fn of(i: usize) -> Identity {
        let d = i / PER_DEPLOYMENT;
        let deployment = format!("svc-{d:05}");
        let owner = format!("{deployment}-{HASH}");
        let node = i % NODES;
        Identity {
            name: format!("{owner}-{:05x}", i % PER_DEPLOYMENT * 7919 + d % 97),
            generate_name: format!("{owner}-"),
            uid: uuid(1, i as u64),
            resource_version: 1000 + i as u64,
            owner_uid: uuid(2, d as u64),
            deployment,
            owner,
            node: format!("node-{node:04}"),
            host_ip: format!("10.1.{}.{}", node / 250, node % 250 + 1),
            pod_ip: format!("10.{}.{}.{}", 64 + i / 65536, (i / 256) % 256, i % 256),
        }
    }

    fn labels(&self) -> [(&'static str, String); 4] {
        [
            ("app", self.deployment.clone()),
            ("app.kubernetes.io/version", "1.2.3".into()),
            ("pod-template-hash", HASH.into()),
            ("tier", "backend".into()),
        ]
    }
}

/// A LIST of `/api/v1/namespaces/bench-million/pods`: the page after `continue` (an index,
/// which this server hands out) of at most `limit` Pods.
fn page(shared: &Shared, objects: usize, query: &str) -> Vec<u8> {
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let from = param("continue").unwrap_or(0).min(objects);
    let to = param("limit").map_or(objects, |l| (from + l.max(1)).min(objects));
    let items: Vec<Vec<u8>> = (from..to).map(|i| shared.pod(i)).collect();
    let next = if to < objects {
        to.to_string()
    } else {
        String::new()
    };
    list("v1", "PodList", &LIST_RV.to_string(), &next, &items)
}

/// Serves `objects` Pods: discovery, LIST pages in protobuf, and a WATCH that stays open and
/// quiet (a watch-list, `sendInitialEvents`, is refused as a server without it would, so the
/// informer syncs by LIST). Returns the server and a kubeconfig for it under `dir`.
pub fn serve(objects: usize, dir: &Path) -> (FakeServer, PathBuf) {
    let shared = Arc::new(Shared::new());
    let pods = format!("/api/v1/namespaces/{NAMESPACE}/pods");
    let server = FakeServer::start(move |target, _| {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        match path {
            "/api" => core_discovery_of(&[("pods", "Pod", &["po"])]),
            "/apis" => empty_discovery(),
            p if p == pods && query.contains("sendInitialEvents=true") => Reply::Json(
                422,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,"message":"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"}"#.into(),
            ),
            p if p == pods && query.contains("watch=true") => {
                Reply::Stream(vec![Step::Sleep(Duration::from_secs(3600))])
            }
            p if p == pods => Reply::Bytes(
                200,
                "application/vnd.kubernetes.protobuf",
                page(&shared, objects, query),
            ),
            _ => Reply::Json(
                404,
                r#"{"kind":"Status","code":404,"reason":"NotFound","message":"not found"}"#
                    .into(),
            ),
        }
    });
    std::fs::create_dir_all(dir).expect("a directory for the kubeconfig");
    let kubeconfig = fake::kubeconfig(dir, &server.url);
    (server, kubeconfig)
}

/// The Pod of [`Shared::pod`] in JSON, as a recording's ADDED line of `tail -o json`.
fn recorded(i: usize) -> serde_json::Value {
    let id = Identity::of(i);
    let mut pod = super::pod(i);
    let labels: serde_json::Map<_, _> = id
        .labels()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into()))
        .collect();
    let meta = &mut pod["metadata"];
    meta["name"] = id.name.clone().into();
    meta["generateName"] = id.generate_name.into();
    meta["namespace"] = NAMESPACE.into();
    meta["uid"] = id.uid.clone().into();
    meta["resourceVersion"] = id.resource_version.to_string().into();
    meta["creationTimestamp"] = "2026-11-19T10:00:00Z".into();
    meta["labels"] = labels.into();
    meta["ownerReferences"] = serde_json::json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "name": id.owner, "uid": id.owner_uid, "controller": true, "blockOwnerDeletion": true}]);
    let managed = |manager: &str, subresource: Option<&str>, fields: &str| {
        let mut entry = serde_json::json!({"manager": manager, "operation": "Update",
            "apiVersion": "v1", "time": "2026-11-19T10:00:00Z", "fieldsType": "FieldsV1",
            "fieldsV1": serde_json::from_str::<serde_json::Value>(fields).expect("fields")});
        if let Some(s) = subresource {
            entry["subresource"] = s.into();
        }
        entry
    };
    meta["managedFields"] = serde_json::json!([
        managed("kube-controller-manager", None, SPEC_FIELDS),
        managed("kubelet", Some("status"), STATUS_FIELDS)
    ]);
    pod["apiVersion"] = "v1".into();
    pod["kind"] = "Pod".into();
    pod["spec"]["nodeName"] = id.node.into();
    let conditions: Vec<_> = [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    .iter()
    .map(|t| {
        serde_json::json!({"type": t, "status": "True", "lastProbeTime": null,
            "lastTransitionTime": "2026-11-19T10:00:10Z"})
    })
    .collect();
    let statuses: Vec<_> = [
        ("app", "registry.example/bench/app:1.2.3"),
        ("proxy", "registry.example/bench/proxy:0.9.1"),
    ]
    .iter()
    .map(|(name, image)| {
        serde_json::json!({"name": name, "ready": true, "restartCount": 0, "started": true,
            "image": image, "imageID": format!("{image}@sha256:{DIGEST}"),
            "containerID": CONTAINER_ID,
            "state": {"running": {"startedAt": "2026-11-19T10:00:05Z"}}})
    })
    .collect();
    pod["status"] = serde_json::json!({
        "phase": "Running", "hostIP": id.host_ip, "podIP": id.pod_ip, "qosClass": "Burstable",
        "startTime": "2026-11-19T10:00:01Z", "conditions": conditions,
        "containerStatuses": statuses,
    });
    serde_json::json!({"type": "ADDED", "resourceVersion": id.resource_version.to_string(),
        "kind": "Pod", "namespace": NAMESPACE, "name": id.name, "uid": id.uid,
        "time": "2026-11-24T12:00:00.000Z", "origin": "initial", "object": pod})
}

/// Writes a recording of `objects` Pods (the start notice, then one ADDED line each) to `path`,
/// once; returns its size in bytes.
pub fn recording(objects: usize, path: &Path) -> u64 {
    if let Ok(meta) = std::fs::metadata(path) {
        return meta.len();
    }
    let partial = path.with_extension("partial");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&partial).expect("recording"));
    writeln!(
        out,
        r#"{{"type":"NOTICE","time":"2026-11-24T12:00:00.000Z","notice":"start","schemaVersion":1,"resource":"pods","apiVersion":"v1","kind":"Pod","namespace":"{NAMESPACE}","labelSelector":null,"fieldSelector":null,"metadataOnly":false,"server":"generated"}}"#
    )
    .expect("write");
    for i in 0..objects {
        serde_json::to_writer(&mut out, &recorded(i)).expect("write");
        out.write_all(b"\n").expect("write");
    }
    out.into_inner().expect("flush").sync_all().ok();
    std::fs::rename(&partial, path).expect("rename");
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// The size of Pod `i` in protobuf and in JSON (as the recording's `object`).
pub fn sizes(i: usize) -> (usize, usize) {
    let json = recorded(i)["object"].to_string().len();
    (Shared::new().pod(i).len(), json)
}
