//! Exploration without hints: faults chosen from what the controller did. Two fault-free runs of
//! the workload are the baselines; their trace (the writes the server committed for the
//! controller, the resources it watched) makes the plan: a crash right after each kind of write,
//! a restart onto a stale view of each resource watched (for as long as it lags, then it catches
//! up), coalesced events on each. Each run is a
//! `proxy` of this binary with those faults, in a namespace of its own, compared with the
//! baselines; runs go side by side when the controller watches one namespace.

use super::fault::{Fault, Verb};
use super::state::State;
use crate::cluster::ClusterError;
use futures::future::BoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// How the plan's faults are set: how far behind a stale view is, how long a coalesce gathers.
#[derive(Debug, Clone, Copy)]
pub struct Lateness {
    pub lag: Duration,
    pub window: Duration,
}

/// The plan from a baseline's trace: each run's faults.
pub fn plan(baseline: &State, late: Lateness) -> Vec<Vec<Fault>> {
    let mut runs = Vec::new();
    // A write's kind is `VERB RESOURCE[/SUBRESOURCE]`; the crash follows the resource's writes.
    let crash_after = |key: &str| {
        let (verb, resource) = key.split_once(' ')?;
        let verb = Verb::WRITES.into_iter().find(|v| v.name() == verb)?;
        Some(Fault::crash_after(verb, resource.split('/').next()?))
    };
    let mut crashes: Vec<Fault> = Vec::new();
    for crash in baseline.write_order.iter().filter_map(|k| crash_after(k)) {
        if !crashes.contains(&crash) {
            crashes.push(crash);
        }
    }
    runs.extend(crashes.iter().map(|c| vec![c.clone()]));
    // A restart after the last kind of write, onto a view of each resource watched that lags,
    // as long as its lag, then catches up: what the controller did on the stale view and does
    // not undo once it sees the present is left in the end state.
    if let Some(last) = crashes.last() {
        for resource in &baseline.watched {
            runs.push(vec![
                last.clone(),
                Fault::stale_on_restart(late.lag, resource),
            ]);
        }
    }
    for resource in &baseline.watched {
        runs.push(vec![Fault::coalesce(late.window, resource)]);
    }
    runs
}

/// How many runs go at once, and why not more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    pub runs: usize,
    /// Why the runs go one at a time, when they do for a reason other than being asked.
    pub sequential_because: Option<&'static str>,
}

/// Runs go side by side only when each run's controller is confined to its own namespace (its
/// arguments name `{namespace}`): a controller that watches every namespace would see, and act
/// on, the other runs' objects.
pub const CLUSTER_WIDE: &str = "the controller's arguments name no {namespace}: it may watch every namespace, and would see the other runs' objects";

/// `asked` (`--parallel`), else the machine's CPUs (at least 2, at most 4), when the controller's
/// arguments confine it to a namespace; one at a time otherwise. `Err`: `--parallel` above 1 for
/// a controller that is not confined.
pub fn side_by_side(controller_args: &[String], asked: Option<usize>) -> Result<Side, String> {
    let confined = controller_args.iter().any(|a| a.contains("{namespace}"));
    match (confined, asked) {
        (false, Some(n)) if n > 1 => Err(format!(
            "--parallel {n}: {CLUSTER_WIDE}; confine it with {{namespace}} in its arguments (e.g. --namespace={{namespace}}), or leave out --parallel"
        )),
        (false, _) => Ok(Side {
            runs: 1,
            sequential_because: Some(CLUSTER_WIDE),
        }),
        (true, Some(n)) => Ok(Side {
            runs: n.max(1),
            sequential_because: None,
        }),
        (true, None) => {
            let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
            Ok(Side {
                runs: cpus.clamp(2, 4),
                sequential_because: None,
            })
        }
    }
}

/// One difference a run's verdict found, as its `verdict` line says it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    #[serde(default)]
    pub resource: String,
    #[serde(default)]
    pub name: String,
    /// `missing`, `extra`, `content`, `creates`, `deletes` or `workload`.
    pub difference: String,
    #[serde(default)]
    pub count: Option<u64>,
    #[serde(default)]
    pub baseline_count: Option<u64>,
    #[serde(default)]
    pub run_count: Option<u64>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub fields: Vec<Field>,
}

/// A field of an object that differs: its path and both values, as JSON.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct Field {
    pub path: String,
    pub baseline: String,
    pub run: String,
}

/// A run's `verdict` line, the part read.
#[derive(serde::Deserialize)]
struct VerdictLine {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    differences: Vec<Found>,
}

/// How a run's end state compared with the baselines'.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Same,
    Differs(Vec<Found>),
    /// It ended without a verdict: its exit code, the last error line, where its output is.
    Failed {
        code: Option<i32>,
        last_line: String,
        log: PathBuf,
    },
}

/// A run of the plan (numbered from 1) and what it found.
#[derive(Debug, Clone)]
pub struct Ran {
    pub number: usize,
    pub faults: Vec<Fault>,
    pub namespace: String,
    pub outcome: Outcome,
    pub took: Duration,
}

/// What the exploration is told as it goes.
pub trait Progress: Sync {
    /// A fault-free run has saved its end state (`number` of 2).
    fn baseline(&self, number: usize, took: Duration);
    /// The plan is made: `runs` runs, `side.runs` at a time.
    fn planned(&self, runs: usize, side: &Side);
    /// A run of the plan has ended (`of` in all).
    fn ran(&self, ran: &Ran, of: usize);
}

/// Why the exploration ended before its plan was done.
#[derive(Debug, thiserror::Error)]
pub enum ExploreError {
    #[error("the fault-free run {number} in {namespace} ended with exit {code:?}: {last_line} (its log: {})", log.display())]
    Baseline {
        number: usize,
        namespace: String,
        code: Option<i32>,
        last_line: String,
        log: PathBuf,
    },
    #[error("the baseline {} cannot be read: {why}", path.display())]
    BaselineFile { path: PathBuf, why: String },
    #[error("cannot run a proxy for {namespace}: {why}")]
    Spawn { namespace: String, why: String },
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// Ctrl-C, SIGTERM, `--for` or `--timeout` (`why`) ended it.
    #[error("{why} ended the exploration before its plan was done (the output of the runs so far is in {})", dir.display())]
    Cancelled { why: Cancel, dir: PathBuf },
}

/// What ends an exploration early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancel {
    Stopped,
    For,
    Timeout,
}

impl std::fmt::Display for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Cancel::Stopped => "a signal",
            Cancel::For => "--for",
            Cancel::Timeout => "--timeout",
        })
    }
}

/// The arguments of a run of this binary's `proxy`: from its namespace, its faults and its state
/// flags (`--save-state` for a baseline, `--compare-state` for a run).
pub type ChildArgs<'a> = dyn Fn(&str, &[Fault], &[String]) -> Vec<String> + Sync + 'a;

/// Where the runs' namespaces come from: each made before its run (labelled as the exploration's),
/// and deleted at the end.
pub trait Namespaces: Sync {
    fn create<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<(), ClusterError>>;
    fn delete<'a>(&'a self, name: &'a str) -> BoxFuture<'a, ()>;
}

/// What the exploration runs: this binary, with `args(namespace, faults, state flags)` as its
/// arguments, in `dir`'s logs; namespaces named after `prefix`.
pub struct Exploration<'a> {
    pub namespaces: &'a dyn Namespaces,
    pub args: &'a ChildArgs<'a>,
    pub prefix: &'a str,
    pub dir: &'a Path,
    pub late: Lateness,
    pub side: Side,
    /// When `--for` and `--timeout` end it.
    pub ends: Option<Instant>,
    pub gives_up: Option<Instant>,
}

/// What an exploration did: each run, in the plan's order.
#[derive(Debug, Clone)]
pub struct Explored {
    pub ran: Vec<Ran>,
    pub took: Duration,
}

impl Explored {
    /// The runs whose end state is not the baselines' (they differ, or ended without a verdict).
    pub fn differing(&self) -> impl Iterator<Item = &Ran> {
        self.ran.iter().filter(|r| r.outcome != Outcome::Same)
    }
}

impl Exploration<'_> {
    /// The baselines, then the plan's runs, `side.runs` at a time; every namespace made is
    /// deleted at the end, also after an error.
    pub async fn run(&self, progress: &dyn Progress) -> Result<Explored, ExploreError> {
        let started = Instant::now();
        let made = Mutex::new(Vec::new());
        let (cancel, cancelled) = watch::channel(None);
        let work = self.all(progress, &made, &cancelled);
        tokio::pin!(work);
        let result = tokio::select! {
            r = &mut work => r,
            why = self.cancelled() => {
                let _ = cancel.send(Some(why));
                // Each run going on stops its proxy (SIGTERM, so that it stops its controller)
                // and ends; none starts.
                let _ = work.await;
                Err(ExploreError::Cancelled { why, dir: self.dir.to_path_buf() })
            }
        };
        let made = std::mem::take(&mut *made.lock().unwrap_or_else(|e| e.into_inner()));
        for namespace in made {
            self.namespaces.delete(&namespace).await;
        }
        result.map(|ran| Explored {
            ran,
            took: started.elapsed(),
        })
    }

    /// Resolves when a signal, `--for` or `--timeout` asks the exploration to end.
    async fn cancelled(&self) -> Cancel {
        tokio::select! {
            biased;
            _ = crate::stop::requested() => Cancel::Stopped,
            _ = sleep_until(self.ends) => Cancel::For,
            _ = sleep_until(self.gives_up) => Cancel::Timeout,
        }
    }

    async fn all(
        &self,
        progress: &dyn Progress,
        made: &Mutex<Vec<String>>,
        cancelled: &watch::Receiver<Option<Cancel>>,
    ) -> Result<Vec<Ran>, ExploreError> {
        let base: Vec<PathBuf> = (1..=2)
            .map(|n| self.dir.join(format!("baseline-{n}.json")))
            .collect();
        let base = &base;
        let baselines = (1..=2).map(|n| async move {
            let at = Instant::now();
            let namespace = format!("{}-base-{n}", self.prefix);
            self.namespace(&namespace, made).await?;
            let path = &base[n - 1];
            let save = ["--save-state".to_string(), path.display().to_string()];
            let out = self
                .child(&namespace, &[], &save, cancelled.clone())
                .await?;
            if out.code != Some(0) {
                return Err(ExploreError::Baseline {
                    number: n,
                    namespace,
                    code: out.code,
                    last_line: out.last_line,
                    log: out.log,
                });
            }
            progress.baseline(n, at.elapsed());
            Ok(())
        });
        let side = self.side.runs.min(2);
        run_bounded(baselines, side).await?;
        let text = std::fs::read(&base[0]).map_err(|e| ExploreError::BaselineFile {
            path: base[0].clone(),
            why: e.to_string(),
        })?;
        let baseline: State =
            serde_json::from_slice(&text).map_err(|e| ExploreError::BaselineFile {
                path: base[0].clone(),
                why: e.to_string(),
            })?;
        let compare: Vec<String> = base
            .iter()
            .flat_map(|p| ["--compare-state".to_string(), p.display().to_string()])
            .collect();
        let plan = plan(&baseline, self.late);
        progress.planned(plan.len(), &self.side);
        let of = plan.len();
        let runs = plan.into_iter().enumerate().map(|(i, faults)| {
            let compare = &compare;
            async move {
                let at = Instant::now();
                let namespace = format!("{}-run-{}", self.prefix, i + 1);
                self.namespace(&namespace, made).await?;
                let out = self
                    .child(&namespace, &faults, compare, cancelled.clone())
                    .await?;
                let outcome = match (out.code, out.verdict) {
                    (Some(0), _) => Outcome::Same,
                    (_, Some(found)) => Outcome::Differs(found),
                    (code, None) => Outcome::Failed {
                        code,
                        last_line: out.last_line,
                        log: out.log,
                    },
                };
                let ran = Ran {
                    number: i + 1,
                    faults,
                    namespace,
                    outcome,
                    took: at.elapsed(),
                };
                progress.ran(&ran, of);
                Ok(ran)
            }
        });
        let mut ran = run_bounded(runs, self.side.runs).await?;
        ran.sort_by_key(|r| r.number);
        Ok(ran)
    }

    /// Makes namespace `name` for one run, to be deleted at the end.
    async fn namespace(&self, name: &str, made: &Mutex<Vec<String>>) -> Result<(), ExploreError> {
        self.namespaces.create(name).await?;
        made.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(name.to_string());
        Ok(())
    }

    /// One run of this binary's `proxy`, in a process group of its own, its output kept in
    /// `dir`; stopped as a proxy is stopped (SIGTERM, which stops its controller; SIGKILL after
    /// the grace period) once `cancelled` says so.
    async fn child(
        &self,
        namespace: &str,
        faults: &[Fault],
        state_flags: &[String],
        mut cancelled: watch::Receiver<Option<Cancel>>,
    ) -> Result<ChildOut, ExploreError> {
        let spawn_error = |why: String| ExploreError::Spawn {
            namespace: namespace.to_string(),
            why,
        };
        if let Some(why) = *cancelled.borrow() {
            return Err(ExploreError::Cancelled {
                why,
                dir: self.dir.to_path_buf(),
            });
        }
        let exe = this_program()
            .map_err(|e| spawn_error(format!("cannot find this program to run it again: {e}")))?;
        let log = self.dir.join(format!("{namespace}.log"));
        let mut command = tokio::process::Command::new(exe);
        command
            .args((self.args)(namespace, faults, state_flags))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn().map_err(|e| spawn_error(e.to_string()))?;
        let stdout = tokio::spawn(read_all(child.stdout.take()));
        let stderr = tokio::spawn(read_all(child.stderr.take()));
        let status = tokio::select! {
            status = child.wait() => status.map_err(|e| spawn_error(e.to_string()))?,
            why = cancelled.wait_for(Option::is_some) => {
                let why = why.ok().and_then(|w| *w).unwrap_or(Cancel::Stopped);
                super::controller::stop_group(&mut child).await;
                return Err(ExploreError::Cancelled { why, dir: self.dir.to_path_buf() });
            }
        };
        let (stdout, stderr) = (
            stdout.await.unwrap_or_default(),
            stderr.await.unwrap_or_default(),
        );
        let _ = std::fs::write(&log, [&stdout[..], &stderr[..]].concat());
        let stderr = String::from_utf8_lossy(&stderr);
        let last_line = stderr
            .lines()
            .rev()
            .find(|l| l.starts_with("error:"))
            .or_else(|| stderr.lines().last())
            .unwrap_or("")
            .to_string();
        let verdict = String::from_utf8_lossy(&stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<VerdictLine>(l).ok())
            .find(|v| v.kind == "verdict")
            .map(|v| v.differences);
        Ok(ChildOut {
            code: status.code(),
            verdict,
            last_line,
            log,
        })
    }
}

/// This program, to run again: on Linux `/proc/self/exe`, the running file itself even when
/// its path has since been replaced (a rebuild or an upgrade during a long exploration), else
/// the path it was started from.
fn this_program() -> std::io::Result<PathBuf> {
    let own = Path::new("/proc/self/exe");
    match cfg!(target_os = "linux") && own.exists() {
        true => Ok(own.to_path_buf()),
        false => std::env::current_exe(),
    }
}

/// Drives `jobs`, at most `at_once` at a time, to the end of each: after the first error no
/// more start, those going on end (the cancel reaches them), and the first error is returned.
async fn run_bounded<T, F>(
    jobs: impl IntoIterator<Item = F>,
    at_once: usize,
) -> Result<Vec<T>, ExploreError>
where
    F: std::future::Future<Output = Result<T, ExploreError>>,
{
    let mut jobs = jobs.into_iter();
    let mut going = FuturesUnordered::new();
    let (mut done, mut failed) = (Vec::new(), None);
    loop {
        while failed.is_none() && going.len() < at_once.max(1) {
            match jobs.next() {
                Some(job) => going.push(job),
                None => break,
            }
        }
        match going.next().await {
            Some(Ok(t)) => done.push(t),
            Some(Err(e)) => {
                failed.get_or_insert(e);
            }
            None => break,
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(done),
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// What one child run left: its exit code, its verdict's differences, the last line of its
/// stderr, and where its log is.
struct ChildOut {
    code: Option<i32>,
    verdict: Option<Vec<Found>>,
    last_line: String,
    log: PathBuf,
}

/// All that `pipe` gives until it ends.
async fn read_all(pipe: Option<impl tokio::io::AsyncRead + Unpin>) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut out = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = pipe.read_to_end(&mut out).await;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_is_a_crash_after_each_kind_of_write_a_stale_restart_and_a_coalesce_per_watch() {
        let mut baseline = State::of("demo", vec![], crate::proxy::state::Fields::All);
        baseline.write_order = vec![
            "create secrets".into(),
            "patch configmaps".into(),
            "update deployments.apps/status".into(),
        ];
        baseline.watched = vec!["configmaps".into(), "secrets".into()];
        let late = Lateness {
            lag: Duration::from_secs(45),
            window: Duration::from_secs(10),
        };
        let plan = plan(&baseline, late);
        let texts: Vec<Vec<&str>> = (plan.iter())
            .map(|faults| faults.iter().map(|f| f.text.as_str()).collect())
            .collect();
        let last = "crash:after=update,resource=deployments.apps";
        assert_eq!(
            texts,
            [
                vec!["crash:after=create,resource=secrets"],
                vec!["crash:after=patch,resource=configmaps"],
                vec![last],
                vec![last, "stale:by=45s,on=restart,for=45s,resource=configmaps"],
                vec![last, "stale:by=45s,on=restart,for=45s,resource=secrets"],
                vec!["coalesce:window=10s,resource=configmaps"],
                vec!["coalesce:window=10s,resource=secrets"],
            ]
        );
        // Each fault is what its text says, as `--fault` reads it in the run.
        for fault in plan.iter().flatten() {
            assert_eq!(
                &crate::proxy::fault::Fault::parse(&fault.text).unwrap(),
                fault
            );
        }
    }

    #[test]
    fn runs_go_side_by_side_only_for_a_controller_confined_to_its_namespace() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let confined = args(&["--namespace={namespace}"]);
        let wide = args(&["--leader-elect=false"]);
        let side = side_by_side(&confined, None).unwrap();
        assert!((2..=4).contains(&side.runs), "{side:?}");
        assert_eq!(side.sequential_because, None);
        assert_eq!(side_by_side(&confined, Some(6)).unwrap().runs, 6);
        assert_eq!(
            side_by_side(&wide, None).unwrap(),
            Side {
                runs: 1,
                sequential_because: Some(CLUSTER_WIDE)
            }
        );
        assert_eq!(side_by_side(&wide, Some(1)).unwrap().runs, 1);
        let refused = side_by_side(&wide, Some(3)).unwrap_err();
        assert!(refused.starts_with("--parallel 3: "), "{refused}");
    }

    #[tokio::test]
    async fn bounded_runs_never_exceed_the_bound_and_the_first_error_stops_new_ones() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let (going, most, started) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        let jobs = (0..10).map(|i| {
            let (going, most, started) = (&going, &most, &started);
            async move {
                started.fetch_add(1, Ordering::SeqCst);
                let now = going.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                tokio::task::yield_now().await;
                going.fetch_sub(1, Ordering::SeqCst);
                match i {
                    4 => Err(ExploreError::Spawn {
                        namespace: "n".into(),
                        why: "planted".into(),
                    }),
                    _ => Ok(i),
                }
            }
        });
        let result = run_bounded(jobs, 3).await;
        assert!(matches!(result, Err(ExploreError::Spawn { .. })));
        assert_eq!(most.load(Ordering::SeqCst), 3);
        assert!(
            started.load(Ordering::SeqCst) < 10,
            "none start after the error"
        );
        let all = run_bounded((0..5).map(|i| async move { Ok(i) }), 2).await;
        assert_eq!(all.unwrap().len(), 5);
    }
}
