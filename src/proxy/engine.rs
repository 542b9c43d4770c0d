//! The faults at run time: which apply to a request (drawn with the run's seed), the moments of
//! the timed ones, the connections and watches open, and every fault applied, as a [`Notice`]
//! and in the counts of the summary.

use super::fault::{Fault, Kind, Schedule};
use super::request::ApiRequest;
use super::stale::{Lag, Rewrite, Timeline};
use super::trace::Trace;
use crate::cluster::resolve::ApiResource;
use crate::rng::Rng;
use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

/// A fault, with the resource it is limited to resolved through discovery.
#[derive(Debug, Clone)]
pub struct Armed {
    pub fault: Fault,
    pub scope: Option<ApiResource>,
}

impl Armed {
    fn covers(&self, request: &ApiRequest) -> bool {
        match (&self.scope, &request.resource) {
            (None, _) => true,
            (Some(scope), Some(r)) => r.group == scope.group && r.plural == scope.plural,
            (Some(_), None) => false,
        }
    }
}

/// A fault applied: when, which (as the user wrote it), to what, and what it did; or, with
/// `fault` empty and `kind` "refused", a request the proxy does not forward.
#[derive(Debug, Clone)]
pub struct Notice {
    pub at: SystemTime,
    pub fault: String,
    pub kind: &'static str,
    /// The request it was applied to (`watch deployments.apps -A from rv 12`), if one.
    pub request: Option<String>,
    pub detail: String,
    /// For a notice of the controller the proxy runs (`kind` "controller"): what happened to it
    /// (`started`, `exited`, `stopped`) and its pid.
    pub controller: Option<(&'static str, Option<u32>)>,
}

/// How often a fault was applied, for the summary.
#[derive(Debug, Clone)]
pub struct Applied {
    pub fault: String,
    pub count: u64,
    pub first: Option<SystemTime>,
    pub last: Option<SystemTime>,
}

/// A timed fault's moment: `fault` (an index into the run's faults) happens now, until `until`.
#[derive(Debug, Clone, Copy)]
pub struct Moment {
    pub fault: usize,
    pub until: Instant,
}

/// What the faults do to one request, decided when it comes.
#[derive(Debug, Default)]
pub struct Plan {
    /// Answer with this status (and Retry-After seconds) instead of forwarding.
    pub error: Option<(usize, u16, Option<u64>)>,
    /// Forward it this much later.
    pub slow: Option<(usize, Duration)>,
    /// Answer the watch with 410 Gone.
    pub gone: Option<usize>,
    /// The faults that act on the watch's stream.
    pub stream: Vec<usize>,
    /// The `crash` faults whose writes this is one of: counted once the server has committed it.
    pub crash: Vec<usize>,
    /// Serve it from an older state (the `stale` fault, how, and which state).
    pub stale: Option<(usize, Rewrite, Lag)>,
}

/// A client's connection, as the timed faults reach it.
pub struct Connection {
    pub id: u64,
    pub peer: SocketAddr,
    /// The open watches on it, by their id.
    watches: Mutex<HashMap<u64, ApiRequest>>,
    /// Set while it is silent: nothing is read or written until then.
    pub silent_until: watch::Sender<Option<Instant>>,
    /// The silence that fault put on it last, and when.
    silenced: Mutex<Option<(usize, Instant)>>,
    /// Set when it is to be closed.
    pub closed: watch::Sender<bool>,
}

pub struct Engine {
    faults: Vec<Armed>,
    rng: Mutex<Rng>,
    notices: mpsc::UnboundedSender<Notice>,
    applied: Mutex<Vec<Applied>>,
    /// The keys of watches (covered by a `gone`) that ended: the next watch from a
    /// resourceVersion with one of them resumes it.
    ended: Mutex<HashSet<String>>,
    moments: broadcast::Sender<Moment>,
    /// Per fault, the watches open in its scope.
    open: Vec<AtomicUsize>,
    connections: Mutex<HashMap<u64, Arc<Connection>>>,
    next_id: AtomicU64,
    started: Instant,
    /// The run's seed, from which each timed fault's draws are seeded too.
    seed: u64,
    /// Per fault, the writes in its scope the server has committed (for `crash:after=`).
    committed: Vec<AtomicU64>,
    /// The controller the proxy runs, which `crash` faults kill.
    controller: Option<super::controller::Handle>,
    /// `-v`: from 1 on, a `coalesce` also says each event it holds.
    verbose: u8,
    /// The cluster's resourceVersions over time, kept when a `stale` fault needs them.
    timeline: Option<Arc<Timeline>>,
    /// When a `crash` last restarted the controller.
    restarted: Mutex<Option<Instant>>,
    /// What the server committed and opened for the clients.
    trace: Mutex<Trace>,
}

/// The longest `by` of the `stale` faults, if any.
fn longest_stale(faults: &[Armed]) -> Option<Duration> {
    faults
        .iter()
        .filter_map(|a| match a.fault.kind {
            Kind::Stale { by, .. } => Some(by),
            _ => None,
        })
        .max()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Engine {
    pub fn new(faults: Vec<Armed>, seed: u64, notices: mpsc::UnboundedSender<Notice>) -> Self {
        let count = faults.len();
        let applied = faults
            .iter()
            .map(|a| Applied {
                fault: a.fault.text.clone(),
                count: 0,
                first: None,
                last: None,
            })
            .collect();
        Engine {
            open: faults.iter().map(|_| AtomicUsize::new(0)).collect(),
            rng: Mutex::new(Rng::new(seed)),
            notices,
            applied: Mutex::new(applied),
            ended: Mutex::new(HashSet::new()),
            moments: broadcast::channel(64).0,
            connections: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            started: Instant::now(),
            seed,
            committed: (0..count).map(|_| AtomicU64::new(0)).collect(),
            controller: None,
            verbose: 0,
            timeline: longest_stale(&faults).map(|by| Arc::new(Timeline::new(by))),
            restarted: Mutex::new(None),
            trace: Mutex::new(Trace::default()),
            faults,
        }
    }

    /// The timeline the `stale` faults serve from, and the first of them, when there is one.
    pub fn timeline(&self) -> Option<(Arc<Timeline>, usize)> {
        let first = self
            .faults
            .iter()
            .position(|a| matches!(a.fault.kind, Kind::Stale { .. }))?;
        Some((self.timeline.clone()?, first))
    }

    /// Whether `fault` (a `stale`) acts now: in its period (`at`, `for`, from the start or,
    /// `on_restart`, from the controller's last restart), or always.
    fn in_period(&self, fault: usize, length: Option<Duration>, on_restart: bool) -> bool {
        let Some(from) = self.period_start(fault, on_restart) else {
            return false;
        };
        let now = Instant::now();
        now >= from && length.is_none_or(|l| now < from + l)
    }

    /// When `fault`'s period starts: at `at` from the proxy's start, or (`on_restart`) at the
    /// controller's last restart (`None` before one), else at the start.
    fn period_start(&self, fault: usize, on_restart: bool) -> Option<Instant> {
        match (on_restart, self.faults[fault].fault.schedule) {
            (true, _) => *lock(&self.restarted),
            (false, Some(Schedule::At(at))) => Some(self.started + at),
            (false, _) => Some(self.started),
        }
    }

    /// When `fault` (a `stale` with `for=D`) stops lagging: its period's end. A watch it
    /// serves then catches up (what it held goes out, later events at once), as a controller
    /// that reconnects to an API server that is not behind; `None`: it lags for as long as it
    /// runs.
    pub fn stale_ends(&self, fault: usize) -> Option<Instant> {
        match self.faults[fault].fault.kind {
            Kind::Stale {
                length: Some(length),
                on_restart,
                ..
            } => Some(self.period_start(fault, on_restart)? + length),
            _ => None,
        }
    }

    /// Keeps what the server answered `request` with in the trace ([`Trace::record`]).
    pub fn seen(&self, request: &ApiRequest, status: http::StatusCode) {
        lock(&self.trace).record(request, status, Instant::now());
    }

    /// How late the clients may hear of a change: the longest `stale` lag or `coalesce` window
    /// armed (zero without either). The end state is taken no sooner than this after the
    /// workload, so that the controller has been told of everything it did.
    pub fn late_by(&self) -> Duration {
        (self.faults.iter())
            .filter_map(|a| match a.fault.kind {
                Kind::Stale { by, .. } => Some(by),
                Kind::Coalesce { window } => Some(window),
                _ => None,
            })
            .max()
            .unwrap_or(Duration::ZERO)
    }

    /// What the server committed and opened for the clients so far.
    pub fn trace(&self) -> Trace {
        lock(&self.trace).clone()
    }

    /// The server answered that it no longer has `rv`: stale requests are served newer ones.
    pub fn compacted(&self, rv: &str) {
        if let Some(timeline) = &self.timeline {
            timeline.compacted(rv);
        }
    }

    /// When a watch event at `rv` goes out under a `stale` of `by` ([`Timeline::due`]; one
    /// without a resourceVersion, `by` from now).
    pub fn stale_due(&self, rv: Option<&str>, by: Duration) -> Instant {
        let now = Instant::now();
        match (rv, &self.timeline) {
            (Some(rv), Some(timeline)) => timeline.due(rv, by, now),
            _ => now + by,
        }
    }

    /// The engine at log level `verbose` (`-v`).
    pub fn with_verbosity(mut self, verbose: u8) -> Self {
        self.verbose = verbose;
        self
    }

    /// The log level asked for with `-v`.
    pub fn verbose(&self) -> u8 {
        self.verbose
    }

    /// The engine whose `crash` faults kill the controller behind `handle`.
    pub fn with_controller(mut self, handle: super::controller::Handle) -> Self {
        self.controller = Some(handle);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.faults.is_empty()
    }

    pub fn kind(&self, fault: usize) -> &Kind {
        &self.faults[fault].fault.kind
    }

    /// The fault as the user wrote it.
    pub fn text(&self, fault: usize) -> &str {
        &self.faults[fault].fault.text
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Moment> {
        self.moments.subscribe()
    }

    /// How often each fault was applied.
    pub fn applied(&self) -> Vec<Applied> {
        lock(&self.applied).clone()
    }

    /// Says that `fault` was applied (counted), or only what it found (`counted` false).
    pub fn notice(
        &self,
        fault: usize,
        request: Option<&ApiRequest>,
        detail: String,
        counted: bool,
    ) {
        let at = SystemTime::now();
        if counted {
            let mut applied = lock(&self.applied);
            let a = &mut applied[fault];
            a.count += 1;
            a.first.get_or_insert(at);
            a.last = Some(at);
        }
        let _ = self.notices.send(Notice {
            at,
            fault: self.faults[fault].fault.text.clone(),
            kind: self.faults[fault].fault.name(),
            request: request.map(ApiRequest::describe),
            detail,
            controller: None,
        });
    }

    /// Says that a request was answered by the proxy itself because it is not forwarded.
    pub fn refused(&self, request: String, detail: String) {
        let _ = self.notices.send(Notice {
            at: SystemTime::now(),
            fault: String::new(),
            kind: "refused",
            request: Some(request),
            detail,
            controller: None,
        });
    }

    fn coin(&self, share: f64) -> bool {
        share >= 1.0 || lock(&self.rng).next_f64() < share
    }

    /// Decides what the faults do to `request`.
    pub fn plan(&self, request: &ApiRequest) -> Plan {
        let mut plan = Plan::default();
        for (i, armed) in self.faults.iter().enumerate() {
            if !armed.covers(request) {
                continue;
            }
            let fault = &armed.fault;
            match fault.kind {
                Kind::Error {
                    status,
                    retry_after,
                } if plan.error.is_none()
                    && fault.verbs.contains(&request.verb)
                    && self.coin(fault.share) =>
                {
                    plan.error = Some((i, status, retry_after));
                }
                Kind::SlowList { by }
                    if plan.slow.is_none()
                        && request.verb == super::fault::Verb::List
                        && self.coin(fault.share) =>
                {
                    plan.slow = Some((i, by));
                }
                Kind::Gone
                    if plan.gone.is_none()
                        && request.is_resume()
                        && lock(&self.ended).remove(&request.key)
                        && self.coin(fault.share) =>
                {
                    plan.gone = Some(i);
                }
                Kind::Sever { .. } | Kind::Stall { .. }
                    if request.verb == super::fault::Verb::Watch =>
                {
                    plan.stream.push(i);
                }
                Kind::Delay { .. } | Kind::DropBookmarks { .. }
                    if request.verb == super::fault::Verb::Watch && self.coin(fault.share) =>
                {
                    plan.stream.push(i);
                }
                Kind::Coalesce { .. } if request.verb == super::fault::Verb::Watch => {
                    plan.stream.push(i);
                }
                Kind::Crash { nth: Some(_) }
                    if fault.verbs.contains(&request.verb) && !request.dry_run =>
                {
                    plan.crash.push(i);
                }
                Kind::Stale {
                    by,
                    length,
                    on_restart,
                } if plan.stale.is_none() && self.in_period(i, length, on_restart) => {
                    let lag = self
                        .timeline
                        .as_ref()
                        .and_then(|t| t.lag(Instant::now(), by));
                    let rewrite = |lag: Lag| Some((i, super::stale::rewrite(request, &lag)?, lag));
                    plan.stale = lag.and_then(rewrite);
                    // A watch served stale sends each event `by` after it happened.
                    if plan.stale.is_some() && request.verb == super::fault::Verb::Watch {
                        plan.stream.push(i);
                    }
                }
                _ => {}
            }
        }
        plan
    }

    /// A connection accepted from `peer`, registered until [`Engine::forget`]. One that comes
    /// while another is silent says how long into the silence the client came back.
    pub fn connection(&self, peer: SocketAddr) -> Arc<Connection> {
        let connection = Arc::new(Connection {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            peer,
            watches: Mutex::new(HashMap::new()),
            silent_until: watch::channel(None).0,
            silenced: Mutex::new(None),
            closed: watch::channel(false).0,
        });
        let now = Instant::now();
        let silent: Vec<(u64, usize, Instant)> = lock(&self.connections)
            .values()
            .filter(|c| c.silent_until.borrow().is_some_and(|until| until > now))
            .filter_map(|c| lock(&c.silenced).map(|(fault, since)| (c.id, fault, since)))
            .collect();
        lock(&self.connections).insert(connection.id, connection.clone());
        for (id, fault, since) in silent {
            self.notice(
                fault,
                None,
                format!(
                    "a new connection #{} from {peer}, {} into the silence of connection #{id}: the client has given up on it",
                    connection.id,
                    crate::format::format_seconds((now - since).as_secs_f64())
                ),
                false,
            );
        }
        connection
    }

    pub fn forget(&self, connection: &Connection) {
        lock(&self.connections).remove(&connection.id);
    }

    /// A watch opened on `connection`: counted open in the scope of the timed faults until the
    /// guard is dropped, when it also becomes one a `gone` answers the resume of.
    pub fn watch_opened(
        self: &Arc<Self>,
        request: &ApiRequest,
        connection: &Arc<Connection>,
    ) -> WatchGuard {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        for (i, armed) in self.faults.iter().enumerate() {
            if armed.covers(request) {
                self.open[i].fetch_add(1, Ordering::Relaxed);
            }
        }
        lock(&connection.watches).insert(id, request.clone());
        WatchGuard {
            engine: self.clone(),
            connection: connection.clone(),
            request: request.clone(),
            id,
        }
    }

    /// Counts a write of `request` the server committed against the `crash` faults of its plan;
    /// the first whose `nth` it is kills the controller, with `what` (the object written) in its
    /// notice, and this returns once the controller is gone: it never sees the answer.
    pub async fn committed(self: &Arc<Self>, crash: &[usize], request: &ApiRequest, what: &str) {
        for &fault in crash {
            let Kind::Crash { nth: Some(nth) } = self.faults[fault].fault.kind else {
                continue;
            };
            if self.committed[fault].fetch_add(1, Ordering::Relaxed) + 1 != nth {
                continue;
            }
            let request = request.clone();
            let what = what.to_string();
            self.crash(move |engine, pid| match pid {
                Some(pid) => engine.notice(
                    fault,
                    Some(&request),
                    format!("committed by the server (write {nth} in scope{what}); the controller (pid {pid}) killed with SIGKILL before it saw the answer"),
                    true,
                ),
                None => engine.notice(
                    fault,
                    Some(&request),
                    format!("committed by the server (write {nth} in scope{what}); no controller was running to kill"),
                    false,
                ),
            })
            .await;
            return;
        }
    }

    /// Kills the controller (when the proxy runs one), `say` saying so with the pid killed.
    async fn crash(self: &Arc<Self>, say: impl FnOnce(&Engine, Option<u32>) + Send + 'static) {
        let Some(handle) = &self.controller else {
            say(self, None);
            return;
        };
        let engine = self.clone();
        handle
            .kill(Box::new(move |pid| {
                if pid.is_some() {
                    *lock(&engine.restarted) = Some(Instant::now());
                }
                say(&engine, pid)
            }))
            .await;
    }

    /// Runs the timed faults' moments, each at its schedule from the start, until the process
    /// ends.
    pub fn run_timers(self: &Arc<Self>) {
        for (i, armed) in self.faults.iter().enumerate() {
            let Some(schedule) = armed.fault.schedule else {
                continue;
            };
            let engine = self.clone();
            let mut rng = Rng::new(self.seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            tokio::spawn(async move {
                let mut next = engine.started;
                loop {
                    next += match schedule {
                        Schedule::At(at) => at,
                        Schedule::Every { min, max } => min + (max - min).mul_f64(rng.next_f64()),
                    };
                    tokio::time::sleep_until(next).await;
                    engine.fire(i);
                    if matches!(schedule, Schedule::At(_)) {
                        return;
                    }
                }
            });
        }
    }

    /// A timed fault's moment.
    fn fire(self: &Arc<Self>, fault: usize) {
        let armed = &self.faults[fault];
        let now = Instant::now();
        let until = now
            + match armed.fault.kind {
                Kind::Silence { length } | Kind::Stall { length } | Kind::Refuse { length } => {
                    length
                }
                _ => Duration::ZERO,
            };
        let moment = Moment { fault, until };
        match armed.fault.kind {
            Kind::Sever { .. } | Kind::Stall { .. } => {
                if self.open[fault].load(Ordering::Relaxed) == 0 {
                    let scope = armed
                        .scope
                        .as_ref()
                        .map_or("any resource".to_string(), ApiResource::qualified_name);
                    self.notice(fault, None, format!("no watch of {scope} is open"), false);
                }
                let _ = self.moments.send(moment);
            }
            Kind::Silence { length } => self.silence(fault, until, length),
            Kind::Crash { .. } => {
                let engine = self.clone();
                tokio::spawn(async move {
                    engine
                        .crash(move |engine, pid| match pid {
                            Some(pid) => engine.notice(
                                fault,
                                None,
                                format!("the controller (pid {pid}) killed with SIGKILL"),
                                true,
                            ),
                            None => {
                                engine.notice(fault, None, "no controller is running".into(), false)
                            }
                        })
                        .await;
                });
            }
            Kind::Refuse { length } => {
                let connections: Vec<Arc<Connection>> =
                    lock(&self.connections).values().cloned().collect();
                for c in &connections {
                    c.closed.send_replace(true);
                }
                self.notice(
                    fault,
                    None,
                    format!(
                        "{} closed; new connections refused for {}",
                        crate::format::count(connections.len() as u64, "connection"),
                        crate::format::duration(length)
                    ),
                    true,
                );
                let _ = self.moments.send(moment);
            }
            _ => {}
        }
    }

    fn silence(&self, fault: usize, until: Instant, length: Duration) {
        let armed = &self.faults[fault];
        let connections: Vec<Arc<Connection>> = lock(&self.connections).values().cloned().collect();
        let mut silenced = 0;
        for c in connections {
            let watches: Vec<String> = lock(&c.watches)
                .values()
                .filter(|w| armed.covers(w))
                .map(ApiRequest::describe)
                .collect();
            if watches.is_empty() {
                continue;
            }
            silenced += 1;
            c.silent_until.send_replace(Some(until));
            *lock(&c.silenced) = Some((fault, Instant::now()));
            self.notice(
                fault,
                None,
                format!(
                    "connection #{} from {} silent for {} (nothing read or written, HTTP/2 PINGs unanswered); it carries {}",
                    c.id,
                    c.peer,
                    crate::format::duration(length),
                    watches.join(", ")
                ),
                true,
            );
        }
        if silenced == 0 {
            self.notice(
                fault,
                None,
                "no connection carries a watch in scope".into(),
                false,
            );
        }
    }
}

/// An open watch; dropped when it ends, however it ends.
pub struct WatchGuard {
    engine: Arc<Engine>,
    connection: Arc<Connection>,
    request: ApiRequest,
    id: u64,
}

impl Drop for WatchGuard {
    fn drop(&mut self) {
        let engine = &self.engine;
        let mut gone = false;
        for (i, armed) in engine.faults.iter().enumerate() {
            if armed.covers(&self.request) {
                engine.open[i].fetch_sub(1, Ordering::Relaxed);
                gone |= matches!(armed.fault.kind, Kind::Gone);
            }
        }
        if gone {
            lock(&engine.ended).insert(self.request.key.clone());
        }
        lock(&self.connection.watches).remove(&self.id);
    }
}

#[cfg(test)]
#[path = "engine/tests.rs"]
mod tests;
