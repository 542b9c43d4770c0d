//! The pods behind `deploy/NAME`, `sts/NAME`, `ds/NAME`, `rs/NAME`, `svc/NAME` or `pod/NAME`,
//! found as `kubectl port-forward` and `kubectl logs` find them (the workload's selector, a
//! service's selector), and the port of each that serves metrics: a number, a container port's
//! name, or, unsaid, the container port the usual scaffolds name (`https`, then `metrics`).

use crate::cluster::{Cluster, ClusterError, Operation};
use k8s_openapi::api::core::v1::{Pod, Service};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::de::DeserializeOwned;

/// The container port names a metrics port is found by when none is given, in this order:
/// kubebuilder's scaffold serves secure metrics on a port named `https`; many others name it
/// `metrics`.
pub const USUAL_PORT_NAMES: [&str; 3] = ["https", "metrics", "http-metrics"];

/// What kind of object names the pods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pod,
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Service,
}

impl Kind {
    /// Every kind, in the order help lists them.
    pub const ALL: [Kind; 6] = [
        Kind::Deployment,
        Kind::StatefulSet,
        Kind::DaemonSet,
        Kind::ReplicaSet,
        Kind::Service,
        Kind::Pod,
    ];

    /// kubectl's names for the kind (singular, plural, short).
    pub fn parse(text: &str) -> Option<Kind> {
        Some(match text {
            "pod" | "pods" | "po" => Kind::Pod,
            "deploy" | "deployment" | "deployments" => Kind::Deployment,
            "rs" | "replicaset" | "replicasets" => Kind::ReplicaSet,
            "sts" | "statefulset" | "statefulsets" => Kind::StatefulSet,
            "ds" | "daemonset" | "daemonsets" => Kind::DaemonSet,
            "svc" | "service" | "services" => Kind::Service,
            _ => return None,
        })
    }

    /// As kubectl writes it in `KIND/NAME`.
    pub fn short(self) -> &'static str {
        match self {
            Kind::Pod => "pod",
            Kind::Deployment => "deploy",
            Kind::ReplicaSet => "rs",
            Kind::StatefulSet => "sts",
            Kind::DaemonSet => "ds",
            Kind::Service => "svc",
        }
    }

    /// The resource's plural and its API path prefix.
    fn resource(self) -> (&'static str, &'static str) {
        match self {
            Kind::Pod => ("pods", "/api/v1"),
            Kind::Service => ("services", "/api/v1"),
            Kind::Deployment => ("deployments", "/apis/apps/v1"),
            Kind::ReplicaSet => ("replicasets", "/apis/apps/v1"),
            Kind::StatefulSet => ("statefulsets", "/apis/apps/v1"),
            Kind::DaemonSet => ("daemonsets", "/apis/apps/v1"),
        }
    }
}

/// A port as the user gave it: a number or a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Port {
    Number(u16),
    Name(String),
}

impl Port {
    /// `8443` or `https`: a number from 1 to 65535, or an IANA service name (at most 15
    /// lowercase letters, digits and '-').
    pub fn parse(text: &str) -> Result<Port, String> {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            return match text.parse::<u16>() {
                Ok(n) if n > 0 => Ok(Port::Number(n)),
                _ => Err(format!("port {text} is not between 1 and 65535")),
            };
        }
        let valid = !text.is_empty()
            && text.len() <= 15
            && text
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !valid {
            return Err(format!("port {text:?} is neither a number nor a port name"));
        }
        Ok(Port::Name(text.to_string()))
    }
}

impl std::fmt::Display for Port {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Port::Number(n) => write!(f, "{n}"),
            Port::Name(name) => f.write_str(name),
        }
    }
}

/// A pod and the port of it to scrape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodPort {
    pub pod: String,
    pub port: u16,
    /// The container port's name, when it has one.
    pub port_name: Option<String>,
    /// How the port was chosen, for the line that says it: `port 8443`, `the container port
    /// named "https"`.
    pub chosen_by: String,
}

/// Why the pods or their port could not be found.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    #[error("{kind}/{name} in namespace \"{namespace}\" not found")]
    NotFound {
        kind: &'static str,
        name: String,
        namespace: String,
    },
    #[error("{what} has no running pod{why}: check `kubectl get pods -n {namespace}`")]
    NoPods {
        what: String,
        namespace: String,
        why: String,
    },
    #[error("{0}")]
    Port(String),
    #[error("cannot read {what}: {reason}")]
    Decode { what: String, reason: String },
}

/// The running pods of `kind/name` in `namespace` (sorted by name), each with the port to
/// scrape: `port`, or the one found by its name, or by [`USUAL_PORT_NAMES`].
pub async fn pods(
    cluster: &Cluster,
    namespace: &str,
    kind: Kind,
    name: &str,
    port: Option<&Port>,
) -> Result<Vec<PodPort>, WorkloadError> {
    let what = format!("{}/{name}", kind.short());
    let (pods, port) = match kind {
        Kind::Pod => {
            let pod: Pod = get(cluster, namespace, kind, name).await?;
            (vec![pod], port.cloned())
        }
        Kind::Service => {
            let service: Service = get(cluster, namespace, kind, name).await?;
            let spec = service.spec.unwrap_or_default();
            let Some(labels) = spec.selector.filter(|s| !s.is_empty()) else {
                return Err(WorkloadError::NoPods {
                    what,
                    namespace: namespace.to_string(),
                    why: " (it has no selector)".to_string(),
                });
            };
            // A service's port leads to its target port, as `kubectl port-forward svc/` does.
            let port = match port {
                None => None,
                Some(p) => Some(target_port(&what, p, spec.ports.as_deref().unwrap_or(&[]))?),
            };
            let selector = labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",");
            (list_pods(cluster, namespace, &selector).await?, port)
        }
        _ => {
            let object: serde_json::Value = get(cluster, namespace, kind, name).await?;
            let selector: LabelSelector =
                serde_json::from_value(object["spec"]["selector"].clone()).map_err(|e| {
                    WorkloadError::Decode {
                        what: format!("the selector of {what}"),
                        reason: e.to_string(),
                    }
                })?;
            let selector = selector_text(&selector).ok_or_else(|| WorkloadError::NoPods {
                what: what.clone(),
                namespace: namespace.to_string(),
                why: " (its selector is empty)".to_string(),
            })?;
            (
                list_pods(cluster, namespace, &selector).await?,
                port.cloned(),
            )
        }
    };
    let mut running: Vec<&Pod> = pods.iter().filter(|p| is_running(p)).collect();
    if running.is_empty() {
        let why = match pods.len() {
            0 => " (its selector matches none)".to_string(),
            n => format!(
                " ({} found, none running)",
                crate::format::count(n as u64, "pod")
            ),
        };
        return Err(WorkloadError::NoPods {
            what,
            namespace: namespace.to_string(),
            why,
        });
    }
    running.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    running
        .into_iter()
        .map(|pod| port_of(pod, port.as_ref()))
        .collect()
}

/// GET `kind/name`, a 404 said in the user's words.
async fn get<T: DeserializeOwned>(
    cluster: &Cluster,
    namespace: &str,
    kind: Kind,
    name: &str,
) -> Result<T, WorkloadError> {
    let (resource, prefix) = kind.resource();
    let op = Operation::new("get", resource, Some(namespace));
    let path = format!("{prefix}/namespaces/{namespace}/{resource}/{name}");
    let body = match cluster.get(&path, "application/json", &op).await {
        Err(e) if e.status_code() == Some(404) => {
            return Err(WorkloadError::NotFound {
                kind: kind.short(),
                name: name.to_string(),
                namespace: namespace.to_string(),
            })
        }
        other => other?,
    };
    serde_json::from_slice(&body).map_err(|e| WorkloadError::Decode {
        what: format!("{}/{name}", kind.short()),
        reason: e.to_string(),
    })
}

async fn list_pods(
    cluster: &Cluster,
    namespace: &str,
    selector: &str,
) -> Result<Vec<Pod>, WorkloadError> {
    let op = Operation::new("list", "pods", Some(namespace));
    let query: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("labelSelector", selector)
        .finish();
    let path = format!("/api/v1/namespaces/{namespace}/pods?{query}");
    let body = cluster.get(&path, "application/json", &op).await?;
    let list: k8s_openapi::List<Pod> =
        serde_json::from_slice(&body).map_err(|e| WorkloadError::Decode {
            what: format!("the pods of namespace \"{namespace}\""),
            reason: e.to_string(),
        })?;
    Ok(list.items)
}

/// A label selector as a query's `labelSelector`; `None` when it selects everything.
pub fn selector_text(selector: &LabelSelector) -> Option<String> {
    let mut terms: Vec<String> = selector
        .match_labels
        .iter()
        .flatten()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    for e in selector.match_expressions.iter().flatten() {
        let values = e.values.clone().unwrap_or_default().join(",");
        terms.push(match e.operator.as_str() {
            "In" => format!("{} in ({values})", e.key),
            "NotIn" => format!("{} notin ({values})", e.key),
            "Exists" => e.key.clone(),
            _ => format!("!{}", e.key),
        });
    }
    (!terms.is_empty()).then(|| terms.join(","))
}

/// A pod that runs and is not being deleted: the one a port-forward reaches.
fn is_running(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none()
        && pod.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
}

/// A service's port (its number or its name) as the pods' port: its `targetPort`.
fn target_port(
    what: &str,
    port: &Port,
    ports: &[k8s_openapi::api::core::v1::ServicePort],
) -> Result<Port, WorkloadError> {
    let found = ports.iter().find(|p| match port {
        Port::Number(n) => p.port == i32::from(*n),
        Port::Name(name) => p.name.as_deref() == Some(name.as_str()),
    });
    let Some(found) = found else {
        let listed = ports
            .iter()
            .map(|p| match &p.name {
                Some(name) => format!("{} ({name})", p.port),
                None => p.port.to_string(),
            })
            .collect::<Vec<_>>();
        return Err(WorkloadError::Port(format!(
            "{what} has no port {port}; its ports: {}",
            if listed.is_empty() {
                "none".to_string()
            } else {
                listed.join(", ")
            }
        )));
    };
    Ok(match &found.target_port {
        Some(IntOrString::Int(n)) => Port::Number(u16::try_from(*n).unwrap_or_default()),
        Some(IntOrString::String(name)) => Port::Name(name.clone()),
        // No targetPort: the same number as the service's port.
        None => Port::Number(u16::try_from(found.port).unwrap_or_default()),
    })
}

/// The port of `pod` to scrape.
fn port_of(pod: &Pod, port: Option<&Port>) -> Result<PodPort, WorkloadError> {
    let name = pod.metadata.name.clone().unwrap_or_default();
    let ports: Vec<(u16, Option<String>)> = pod
        .spec
        .iter()
        .flat_map(|s| &s.containers)
        .flat_map(|c| c.ports.iter().flatten())
        .filter_map(|p| Some((u16::try_from(p.container_port).ok()?, p.name.clone())))
        .collect();
    let listed = || {
        let listed: Vec<String> = ports
            .iter()
            .map(|(n, name)| match name {
                Some(name) => format!("{n} ({name})"),
                None => n.to_string(),
            })
            .collect();
        if listed.is_empty() {
            "none declared".to_string()
        } else {
            listed.join(", ")
        }
    };
    match port {
        // A number needs no declaration, as with kubectl port-forward.
        Some(Port::Number(n)) => Ok(PodPort {
            pod: name,
            port: *n,
            port_name: ports
                .iter()
                .find(|(p, _)| p == n)
                .and_then(|(_, n)| n.clone()),
            chosen_by: format!("port {n}"),
        }),
        Some(Port::Name(wanted)) => {
            match ports.iter().find(|(_, n)| n.as_deref() == Some(wanted)) {
                Some((n, _)) => Ok(PodPort {
                    pod: name,
                    port: *n,
                    port_name: Some(wanted.clone()),
                    chosen_by: format!("the container port named \"{wanted}\""),
                }),
                None => Err(WorkloadError::Port(format!(
                    "pod/{name} has no container port named \"{wanted}\"; its ports: {}",
                    listed()
                ))),
            }
        }
        None => USUAL_PORT_NAMES
            .iter()
            .find_map(|usual| {
                ports
                    .iter()
                    .find(|(_, n)| n.as_deref() == Some(*usual))
                    .map(|(n, _)| PodPort {
                        pod: name.clone(),
                        port: *n,
                        port_name: Some(usual.to_string()),
                        chosen_by: format!("the container port named \"{usual}\""),
                    })
            })
            .ok_or_else(|| {
                WorkloadError::Port(format!(
                    "pod/{name} has no container port named {}; its ports: {}: name the \
                     metrics port with :PORT",
                    USUAL_PORT_NAMES.join(" or "),
                    listed()
                ))
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, ports: &[(i32, Option<&str>)]) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "spec": {"containers": [{"name": "manager", "ports": ports.iter().map(|(n, name)| {
                let mut p = serde_json::json!({"containerPort": n});
                if let Some(name) = name { p["name"] = serde_json::json!(name); }
                p
            }).collect::<Vec<_>>()}]},
            "status": {"phase": "Running"}
        }))
        .unwrap()
    }

    #[test]
    fn the_port_is_the_one_given_else_the_one_scaffolds_name() {
        let p = pod("op-1", &[(8081, Some("probes")), (8443, Some("https"))]);
        let chosen = port_of(&p, None).unwrap();
        assert_eq!(
            (chosen.port, chosen.port_name.as_deref()),
            (8443, Some("https"))
        );
        assert_eq!(chosen.chosen_by, "the container port named \"https\"");
        let named = port_of(&p, Some(&Port::Name("probes".into()))).unwrap();
        assert_eq!(named.port, 8081);
        assert_eq!(port_of(&p, Some(&Port::Number(9000))).unwrap().port, 9000);
        let err = port_of(&p, Some(&Port::Name("metrics".into()))).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pod/op-1 has no container port named \"metrics\"; its ports: 8081 (probes), 8443 (https)"
        );
        let bare = pod("op-2", &[(8080, None)]);
        let err = port_of(&bare, None).unwrap_err().to_string();
        assert!(
            err.contains("no container port named https or metrics or http-metrics"),
            "{err}"
        );
        assert!(
            err.contains("its ports: 8080: name the metrics port with :PORT"),
            "{err}"
        );
    }

    #[test]
    fn ports_are_numbers_or_service_names() {
        assert_eq!(Port::parse("8443"), Ok(Port::Number(8443)));
        assert_eq!(Port::parse("https"), Ok(Port::Name("https".into())));
        assert!(Port::parse("0").is_err());
        assert!(Port::parse("70000").is_err());
        assert!(Port::parse("Bad_Name").is_err());
        assert!(Port::parse("").is_err());
    }

    #[test]
    fn selectors_are_written_as_the_api_reads_them() {
        let selector: LabelSelector = serde_json::from_value(serde_json::json!({
            "matchLabels": {"app": "op"},
            "matchExpressions": [
                {"key": "tier", "operator": "In", "values": ["a", "b"]},
                {"key": "canary", "operator": "DoesNotExist"}
            ]
        }))
        .unwrap();
        assert_eq!(
            selector_text(&selector).unwrap(),
            "app=op,tier in (a,b),!canary"
        );
        assert_eq!(selector_text(&LabelSelector::default()), None);
    }

    #[test]
    fn a_service_port_leads_to_its_target_port() {
        let ports: Vec<k8s_openapi::api::core::v1::ServicePort> =
            serde_json::from_value(serde_json::json!([
                {"name": "https", "port": 8443, "targetPort": "https"},
                {"port": 80, "targetPort": 8080},
                {"port": 9090}
            ]))
            .unwrap();
        let t = |p| target_port("svc/op", &p, &ports);
        assert_eq!(t(Port::Number(8443)).unwrap(), Port::Name("https".into()));
        assert_eq!(
            t(Port::Name("https".into())).unwrap(),
            Port::Name("https".into())
        );
        assert_eq!(t(Port::Number(80)).unwrap(), Port::Number(8080));
        assert_eq!(t(Port::Number(9090)).unwrap(), Port::Number(9090));
        assert_eq!(
            t(Port::Number(1)).unwrap_err().to_string(),
            "svc/op has no port 1; its ports: 8443 (https), 80, 9090"
        );
    }
}
