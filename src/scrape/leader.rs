//! Which of a controller's replicas leads. With leader election (client-go's `leaderelection`,
//! controller-runtime's manager), only the leader's controllers run: its queues do the work, the
//! others' stay empty. The leader holds a Lease (coordination.k8s.io/v1) in its namespace whose
//! `spec.holderIdentity` is its identity: the hostname, which in a pod is the pod's name, then
//! `_` and a unique suffix (client-go's and controller-runtime's default).

use crate::cluster::{Cluster, ClusterError, Operation};
use k8s_openapi::api::coordination::v1::Lease;

/// The Lease that names one of the pods as its holder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leader {
    pub pod: String,
    /// The Lease's name.
    pub lease: String,
}

/// Whether `holder` (a Lease's `holderIdentity`) is the identity of the pod `pod`.
pub fn holds(holder: &str, pod: &str) -> bool {
    holder == pod
        || holder
            .strip_prefix(pod)
            .is_some_and(|rest| rest.starts_with('_'))
}

/// The Lease of `namespace` whose holder is one of `pods`, if any; the newest renewed when
/// several are (a manager with several leader-election IDs is led by one process anyway).
pub fn leader_of(leases: &[Lease], pods: &[String]) -> Option<Leader> {
    leases
        .iter()
        .filter_map(|lease| {
            let spec = lease.spec.as_ref()?;
            let holder = spec.holder_identity.as_deref()?;
            let pod = pods.iter().find(|p| holds(holder, p))?;
            Some((spec.renew_time.as_ref().map(|t| t.0), pod, lease))
        })
        .max_by_key(|(renewed, _, _)| *renewed)
        .map(|(_, pod, lease)| Leader {
            pod: pod.clone(),
            lease: lease.metadata.name.clone().unwrap_or_default(),
        })
}

/// The Leases of `namespace`.
pub async fn leases(cluster: &Cluster, namespace: &str) -> Result<Vec<Lease>, ClusterError> {
    let op = Operation::new("list", "leases.coordination.k8s.io", Some(namespace));
    let path = format!("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases");
    let body = cluster.get(&path, "application/json", &op).await?;
    let list: k8s_openapi::List<Lease> =
        serde_json::from_slice(&body).map_err(|e| ClusterError::Decode {
            what: op_text(namespace),
            reason: e.to_string(),
        })?;
    Ok(list.items)
}

fn op_text(namespace: &str) -> String {
    format!("list leases in namespace \"{namespace}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(name: &str, holder: &str, renewed_s: i64) -> Lease {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "spec": {"holderIdentity": holder,
                     "renewTime": format!("2026-11-28T00:00:{renewed_s:02}.000000Z")}
        }))
        .unwrap()
    }

    #[test]
    fn the_holder_is_the_pod_name_then_an_underscore() {
        assert!(holds("op-7d4f9-abcde_1b2c3d", "op-7d4f9-abcde"));
        assert!(holds("op-7d4f9-abcde", "op-7d4f9-abcde"));
        assert!(!holds("op-7d4f9-abcdef_1b2c", "op-7d4f9-abcde"));
        assert!(!holds("op-7d4f9-abc", "op-7d4f9-abcde"));
    }

    #[test]
    fn the_leader_is_the_pod_a_lease_names() {
        let pods = vec!["op-a".to_string(), "op-b".to_string()];
        let leases = [
            lease("kube-controller-manager", "host_123", 5),
            lease("op.example.com", "op-b_9f8e", 3),
        ];
        assert_eq!(
            leader_of(&leases, &pods),
            Some(Leader {
                pod: "op-b".into(),
                lease: "op.example.com".into()
            })
        );
        assert_eq!(leader_of(&leases[..1], &pods), None);
        let both = [lease("one", "op-a_1", 1), lease("two", "op-b_2", 9)];
        assert_eq!(leader_of(&both, &pods).unwrap().pod, "op-b");
    }
}
