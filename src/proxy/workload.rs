//! `proxy --workload`: the user's script run against the cluster once the proxy serves, then the
//! end state of the resources named taken (see [`super::state`]).

use super::state::{State, SCHEMA_VERSION};
use crate::cluster::{ApiResource, Cluster, ClusterError, Operation};
use std::path::PathBuf;
use std::time::Duration;

/// What `--workload` runs, and where its end state is read.
#[derive(Debug, Clone)]
pub struct Plan {
    pub command: String,
    pub settle: Duration,
    pub resources: Vec<ApiResource>,
    pub namespace: String,
    /// The kubeconfig named with --kubeconfig, given to the workload as its KUBECONFIG.
    pub kubeconfig: Option<PathBuf>,
}

/// Why a workload's end state was not taken.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error("cannot run the workload with sh -c: {0}: check that sh is on PATH")]
    CannotStart(std::io::Error),
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    #[error("the LIST of {resource} is not JSON: {reason}")]
    NotJson { resource: String, reason: String },
}

/// Runs the workload (`sh -c`, stdin closed, its output on stderr, `KUBECTL_INFORMER_NAMESPACE`
/// set), waits `settle` once it has ended, and takes the end state, with how the workload ended
/// when it failed (the caller decides whether that state is kept: a baseline's may not be).
pub async fn run(plan: &Plan, cluster: &Cluster) -> Result<State, WorkloadError> {
    let mut command = tokio::process::Command::new("sh");
    command.arg("-c").arg(&plan.command);
    command.env("KUBECTL_INFORMER_NAMESPACE", &plan.namespace);
    if let Some(path) = &plan.kubeconfig {
        command.env("KUBECONFIG", path);
    }
    let status = command
        .stdin(std::process::Stdio::null())
        .stdout(std::io::stderr())
        .stderr(std::io::stderr())
        .kill_on_drop(true)
        .status()
        .await
        .map_err(WorkloadError::CannotStart)?;
    tokio::time::sleep(plan.settle).await;
    let mut state = take(plan, cluster).await?;
    state.workload_failed = (!status.success()).then(|| status.to_string());
    Ok(state)
}

/// The end state: each resource's objects in the namespace, as one LIST reads them.
async fn take(plan: &Plan, cluster: &Cluster) -> Result<State, WorkloadError> {
    let mut lists = Vec::new();
    for resource in &plan.resources {
        let namespace = resource.namespaced.then_some(plan.namespace.as_str());
        let op = Operation::new("list", resource.qualified_name(), namespace);
        let body = cluster
            .get(
                &resource.collection_path(namespace),
                "application/json",
                &op,
            )
            .await?;
        let list: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| WorkloadError::NotJson {
                resource: resource.qualified_name(),
                reason: e.to_string(),
            })?;
        let items = list["items"].as_array().cloned().unwrap_or_default();
        lists.push((resource.qualified_name(), items));
    }
    Ok(State::of(&plan.namespace, lists))
}

/// A state saved by `--save-state`, read back; the error says why it is not one.
pub fn parse_state(text: &[u8], resources: &[String]) -> Result<State, String> {
    let state: State = serde_json::from_slice(text)
        .map_err(|e| format!("it is not an end state saved by --save-state ({e})"))?;
    if state.schema_version != SCHEMA_VERSION {
        return Err(format!(
            "its schemaVersion is {}, this version reads {SCHEMA_VERSION}: save it again",
            state.schema_version
        ));
    }
    if state.resources != resources {
        return Err(format!(
            "it holds the state of {}, and --state names {}: compare the same resources",
            state.resources.join(","),
            resources.join(",")
        ));
    }
    Ok(state)
}
