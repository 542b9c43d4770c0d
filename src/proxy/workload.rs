//! `proxy --workload`: the user's script run against the cluster once the proxy serves, then the
//! end state of the resources named taken (see [`super::state`]).

use super::engine::Engine;
use super::state::{Fields, State, SCHEMA_VERSION};
use super::trace::Trace;
use crate::cluster::{ApiResource, Cluster, ClusterError, Operation};
use std::path::PathBuf;
use std::time::Duration;
use tokio::time::Instant;

/// What `--workload` runs, and where its end state is read.
#[derive(Debug, Clone)]
pub struct Plan {
    pub command: String,
    /// How long the controller must have made no write before the end state is taken.
    pub settle: Duration,
    /// How long to wait for that quiet at most.
    pub settle_limit: Duration,
    /// Every field of the objects kept (`--all-fields`), not only the controller's.
    pub all_fields: bool,
    /// A controller runs behind the proxy: the workload waits until it has started watching
    /// ([`controller_started`]).
    pub await_controller: bool,
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

/// How the wait for the controller to finish ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settled {
    /// From the workload's end to the end state.
    pub waited: Duration,
    /// The controller had made no write for `settle` (else `settle_limit` ran out first).
    pub quiet: bool,
}

/// Runs the workload (`sh -c`, stdin closed, its output on stderr, `KUBECTL_INFORMER_NAMESPACE`
/// set), waits for the controller to finish ([`settle`]) and takes the end state, cut down to
/// the fields of the controller's managers (from `engine`'s trace, which the state carries),
/// with how the workload ended when it failed (the caller decides whether that state is kept: a
/// baseline's may not be).
pub async fn run(
    plan: &Plan,
    cluster: &Cluster,
    engine: &Engine,
) -> Result<(State, Settled), WorkloadError> {
    if plan.await_controller {
        let trace = || {
            let trace = engine.trace();
            (!trace.watched.is_empty(), trace.last_read)
        };
        controller_started(plan.settle_limit, trace).await;
    }
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
    let settled = settle(plan, engine.late_by(), || engine.trace().last_write).await;
    let trace = engine.trace();
    let mut state = take(plan, cluster, &trace).await?;
    state.workload_failed = (!status.success()).then(|| status.to_string());
    (state.writes, state.write_order, state.watched) = (trace.writes, trace.order, trace.watched);
    Ok((state, settled))
}

/// How long the controller must have opened no new watch or LIST, once it watches, for the
/// workload to start: a controller starts its informers together (controller-runtime starts
/// every source, then waits for every cache), so a second of none means they are all open.
pub const STARTED_QUIET: Duration = Duration::from_secs(1);

/// Waits until the controller has started: it has opened a watch, and no new watch or LIST for
/// [`STARTED_QUIET`] (`trace` says whether it watches and when it last opened one), so that
/// what the workload makes reaches it as watch events, as it would reach a running controller,
/// and not in the initial state of a watch that opens later (which no fault delays). `false`
/// when `limit` passed first (the workload then starts anyway).
pub async fn controller_started(
    limit: Duration,
    trace: impl Fn() -> (bool, Option<Instant>),
) -> bool {
    let limit = Instant::now() + limit;
    loop {
        let (watching, last) = trace();
        let now = Instant::now();
        let due = last.filter(|_| watching).map(|at| at + STARTED_QUIET);
        if due.is_some_and(|due| due <= now) {
            return true;
        }
        if now >= limit {
            return false;
        }
        // Until it opens its first watch nothing says when it will: look again soon.
        let next = due.unwrap_or(now + Duration::from_millis(50));
        tokio::time::sleep_until(next.min(limit)).await;
    }
}

/// Waits, from now (the workload's end), until the controller has made no write for
/// `plan.settle`: no sooner than `late_by` (how late a stale view or a coalesce tells it of a
/// change) plus `settle`, and no later than `late_by` plus `settle_limit`. `last_write` says when
/// the server last committed a write of the controller's; it is read again after each wait.
pub async fn settle(
    plan: &Plan,
    late_by: Duration,
    last_write: impl Fn() -> Option<Instant>,
) -> Settled {
    let ended = Instant::now();
    let heard = ended + late_by;
    let limit = heard + plan.settle_limit.max(plan.settle);
    loop {
        let due = last_write().map_or(heard, |at| at.max(heard)) + plan.settle;
        let now = Instant::now();
        if due <= now || now >= limit {
            return Settled {
                waited: now - ended,
                quiet: due <= now,
            };
        }
        tokio::time::sleep_until(due.min(limit)).await;
    }
}

/// The end state: each resource's objects in the namespace, as one LIST reads them, cut down to
/// the fields of the managers of the controller's writes in `trace`.
async fn take(plan: &Plan, cluster: &Cluster, trace: &Trace) -> Result<State, WorkloadError> {
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
    let fields = match plan.all_fields {
        true => Fields::All,
        false => Fields::ManagedBy(&trace.managers),
    };
    Ok(State::of(&plan.namespace, lists, fields))
}

/// A state saved by `--save-state`, read back; the error says why it is not one.
pub fn parse_state(text: &[u8], resources: &[String], all_fields: bool) -> Result<State, String> {
    let state: State = serde_json::from_slice(text)
        .map_err(|e| format!("it is not an end state saved by --save-state ({e})"))?;
    if state.schema_version != SCHEMA_VERSION {
        return Err(format!(
            "its schemaVersion is {}, this version reads {SCHEMA_VERSION}: save it again",
            state.schema_version
        ));
    }
    if state.all_fields != all_fields {
        let how = |all: bool| match all {
            true => "every field (--all-fields)",
            false => "the controller's fields only",
        };
        return Err(format!(
            "it keeps {} and this run compares {}: save it again the same way",
            how(state.all_fields),
            how(all_fields)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(settle: u64, limit: u64) -> Plan {
        Plan {
            command: "true".into(),
            settle: Duration::from_secs(settle),
            settle_limit: Duration::from_secs(limit),
            all_fields: false,
            await_controller: false,
            resources: vec![],
            namespace: "demo".into(),
            kubeconfig: None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_controller_idle_since_before_the_workload_ended_is_waited_for_settle_alone() {
        let started = Instant::now();
        let settled = settle(&plan(5, 120), Duration::ZERO, || Some(started)).await;
        assert_eq!(
            settled,
            Settled {
                waited: Duration::from_secs(5),
                quiet: true
            }
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_end_state_waits_until_the_controllers_writes_have_stopped_for_settle() {
        // Writes at 3 s and 7 s after the workload: quiet from 7 s, taken at 12 s.
        let start = Instant::now();
        let last = move || {
            let now = Instant::now();
            [3, 7]
                .map(|s| start + Duration::from_secs(s))
                .into_iter()
                .filter(|at| *at <= now)
                .max()
        };
        let settled = settle(&plan(5, 120), Duration::ZERO, last).await;
        assert_eq!(settled.waited, Duration::from_secs(12));
        assert!(settled.quiet);
    }

    #[tokio::test(start_paused = true)]
    async fn a_controller_that_never_stops_writing_is_cut_off_at_the_limit() {
        let settled = settle(&plan(5, 30), Duration::ZERO, || Some(Instant::now())).await;
        assert_eq!(
            settled,
            Settled {
                waited: Duration::from_secs(30),
                quiet: false
            }
        );
    }

    #[tokio::test(start_paused = true)]
    async fn the_workload_starts_a_second_after_the_controllers_last_new_watch() {
        // Watches opened at 0.3 s and 0.8 s (and a LIST at 0.5 s): started at 1.8 s.
        let start = Instant::now();
        let trace = move || {
            let now = Instant::now();
            let opened: Vec<Instant> = [300, 500, 800]
                .map(|ms| start + Duration::from_millis(ms))
                .into_iter()
                .filter(|at| *at <= now)
                .collect();
            (!opened.is_empty(), opened.last().copied())
        };
        assert!(controller_started(Duration::from_secs(120), trace).await);
        assert_eq!(start.elapsed(), Duration::from_millis(1800));
    }

    #[tokio::test(start_paused = true)]
    async fn a_controller_that_never_watches_is_waited_for_until_the_limit() {
        let start = Instant::now();
        assert!(!controller_started(Duration::from_secs(30), || (false, None)).await);
        assert_eq!(start.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn a_late_view_is_waited_out_before_the_quiet_counts() {
        let settled = settle(&plan(5, 120), Duration::from_secs(45), || None).await;
        assert_eq!(settled.waited, Duration::from_secs(50));
        assert!(settled.quiet);
    }
}
