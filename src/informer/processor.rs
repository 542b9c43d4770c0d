//! The Processor and its Listeners: each notification (add, update with old and new, delete) goes
//! to every listener's own unbounded pending buffer, and each listener's handler drains its
//! buffer in its own task, like client-go's processorListener. A slow handler never blocks the
//! informer or the other listeners; the buffer's length is that handler's backlog.

use super::object::RawObject;
use crate::metrics::{ArrivalWindow, Gauge, Latency};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;

/// client-go's `minimumResyncPeriod`.
const MIN_RESYNC_PERIOD: Duration = Duration::from_secs(1);

/// What a handler is told.
#[derive(Debug, Clone)]
pub enum NotificationKind {
    Add {
        object: RawObject,
        /// Part of the initial LIST (client-go's `isInInitialList`).
        in_initial_list: bool,
    },
    /// `old` and `new` are the same object for a resync.
    Update { old: RawObject, new: RawObject },
    Delete {
        object: RawObject,
        /// Inferred from a relist (client-go's `DeletedFinalStateUnknown`).
        final_state_unknown: bool,
    },
}

/// A notification and when its event was received from the server.
#[derive(Debug, Clone)]
pub struct Notification {
    pub kind: NotificationKind,
    pub received_at: Instant,
}

impl Notification {
    /// The key of the object concerned.
    pub fn key(&self) -> String {
        match &self.kind {
            NotificationKind::Add { object, .. } | NotificationKind::Delete { object, .. } => {
                object.key()
            }
            NotificationKind::Update { new, .. } => new.key(),
        }
    }
}

/// A boxed handler future.
pub type HandlerFuture = Pin<Box<dyn Future<Output = ()> + Send>>;
/// An event handler: called once per notification, in order; the next waits for it.
pub type Handler = Box<dyn FnMut(Notification) -> HandlerFuture + Send>;

/// What one listener measured.
#[derive(Debug, Clone, Default)]
pub struct ListenerMetrics {
    /// Received from the server → handler start.
    pub delivery_lag: Latency,
    pub handler_time: Latency,
    /// Pending notifications, sampled by `Processor::sample`.
    pub backlog: Gauge,
    pub handled: u64,
}

struct Listener {
    name: String,
    tx: mpsc::UnboundedSender<Notification>,
    pending: Arc<AtomicUsize>,
    resync_period: Option<Duration>,
    next_resync: Option<Instant>,
    syncing: bool,
    task: tokio::task::JoinHandle<()>,
}

/// Which notifications the listeners measure (delivery lag, handler time, handled).
#[derive(Debug, Clone)]
enum Measuring {
    /// None: only to measure what the measuring costs (benches/pipeline.rs).
    Nothing,
    Everything,
    /// Those that arrived in the window, however late they are handled.
    Within(ArrivalWindow),
}

/// Distributes notifications to listeners.
pub struct Processor {
    listeners: Vec<Listener>,
    measuring: Measuring,
}

impl Default for Processor {
    fn default() -> Self {
        Processor {
            listeners: Vec::new(),
            measuring: Measuring::Everything,
        }
    }
}

/// A handle to one listener's figures.
#[derive(Clone)]
pub struct ListenerStats {
    pub name: String,
    pending: Arc<AtomicUsize>,
    metrics: Arc<Mutex<ListenerMetrics>>,
}

impl ListenerStats {
    /// Notifications distributed to the listener and not yet handed to its handler.
    pub fn backlog(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }

    pub fn metrics(&self) -> ListenerMetrics {
        self.lock().clone()
    }

    /// Records the current backlog in the backlog gauge.
    pub fn sample(&self) -> u64 {
        let backlog = self.backlog() as u64;
        self.lock().backlog.sample(backlog);
        backlog
    }

    /// Forgets what was measured so far (the end of a warm-up).
    pub fn reset(&self) {
        *self.lock() = ListenerMetrics::default();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ListenerMetrics> {
        self.metrics.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Processor {
    pub fn new() -> Self {
        Processor::default()
    }

    /// A processor whose listeners record no latencies (for measuring the instrumentation).
    pub fn uninstrumented() -> Self {
        Processor {
            listeners: Vec::new(),
            measuring: Measuring::Nothing,
        }
    }

    /// The listeners added from now on measure only the notifications that arrived in `window`.
    pub fn measure_within(&mut self, window: ArrivalWindow) {
        self.measuring = Measuring::Within(window);
    }

    /// Adds a listener whose handler runs in its own task; `resync_period` asks for the cache to
    /// be re-delivered as updates at that period.
    pub fn add_listener(
        &mut self,
        name: &str,
        resync_period: Option<Duration>,
        mut handler: Handler,
    ) -> ListenerStats {
        // client-go: a period of 0 means no resync, and a shorter one than 1 s is raised to 1 s.
        let resync_period = resync_period
            .filter(|p| !p.is_zero())
            .map(|p| p.max(MIN_RESYNC_PERIOD));
        let (tx, mut rx) = mpsc::unbounded_channel::<Notification>();
        let pending = Arc::new(AtomicUsize::new(0));
        let metrics = Arc::new(Mutex::new(ListenerMetrics::default()));
        let measuring = self.measuring.clone();
        let task = {
            let pending = pending.clone();
            let metrics = metrics.clone();
            tokio::spawn(async move {
                // The end of one handler is the start of the next when the buffer is not
                // empty: one clock read per notification while busy.
                let mut busy_since: Option<Instant> = None;
                loop {
                    let (n, start) = match rx.try_recv() {
                        Ok(n) => (n, busy_since),
                        Err(mpsc::error::TryRecvError::Empty) => match rx.recv().await {
                            Some(n) => (n, None),
                            None => break,
                        },
                        Err(mpsc::error::TryRecvError::Disconnected) => break,
                    };
                    pending.fetch_sub(1, Ordering::AcqRel);
                    let measured = match &measuring {
                        Measuring::Nothing => {
                            handler(n).await;
                            continue;
                        }
                        Measuring::Everything => true,
                        Measuring::Within(window) => window.admits(n.received_at),
                    };
                    let start = start.unwrap_or_else(Instant::now);
                    let lag = start.saturating_duration_since(n.received_at);
                    handler(n).await;
                    let end = Instant::now();
                    busy_since = Some(end);
                    if !measured {
                        continue;
                    }
                    let mut m = metrics.lock().unwrap_or_else(|e| e.into_inner());
                    m.delivery_lag.record(lag);
                    m.handler_time.record(end.saturating_duration_since(start));
                    m.handled += 1;
                }
            })
        };
        let stats = ListenerStats {
            name: name.to_string(),
            pending: pending.clone(),
            metrics,
        };
        self.listeners.push(Listener {
            name: name.to_string(),
            tx,
            pending,
            resync_period,
            next_resync: resync_period.map(|p| Instant::now() + p),
            syncing: false,
            task,
        });
        stats
    }

    /// Sends `n` to every listener, or with `sync` only to those whose resync is due.
    pub fn distribute(&self, n: &Notification, sync: bool) {
        for l in self.listeners.iter().filter(|l| !sync || l.syncing) {
            l.pending.fetch_add(1, Ordering::AcqRel);
            if l.tx.send(n.clone()).is_err() {
                l.pending.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }

    /// The shortest resync period asked for, if any listener asked.
    pub fn resync_check_period(&self) -> Option<Duration> {
        self.listeners.iter().filter_map(|l| l.resync_period).min()
    }

    /// Marks the listeners whose resync is due at `now` (and schedules their next one);
    /// returns whether any is due. `distribute(.., true)` reaches exactly these until the next
    /// check, as client-go's `shouldResync`: a relisted object whose RV did not change goes to
    /// them too.
    pub fn begin_resync(&mut self, now: Instant) -> bool {
        let mut any = false;
        for l in &mut self.listeners {
            l.syncing = false;
            if let (Some(period), Some(next)) = (l.resync_period, l.next_resync) {
                if now >= next {
                    l.syncing = true;
                    l.next_resync = Some(now + period);
                    any = true;
                }
            }
        }
        any
    }

    pub fn names(&self) -> Vec<String> {
        self.listeners.iter().map(|l| l.name.clone()).collect()
    }

    /// Stops distributing and waits until every handler has drained its buffer.
    pub async fn shutdown(self) {
        let mut tasks = Vec::new();
        for l in self.listeners {
            drop(l.tx);
            tasks.push(l.task);
        }
        for t in tasks {
            let _ = t.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::store::tests::cm;

    fn add(name: &str) -> Notification {
        Notification {
            kind: NotificationKind::Add {
                object: cm("ns", name, 1, &[]),
                in_initial_list: false,
            },
            received_at: Instant::now(),
        }
    }

    fn recording_handler(log: Arc<Mutex<Vec<String>>>, delay: Duration) -> Handler {
        Box::new(move |n: Notification| {
            let log = log.clone();
            Box::pin(async move {
                tokio::time::sleep(delay).await;
                log.lock().unwrap().push(n.key());
            })
        })
    }

    #[tokio::test(start_paused = true)]
    async fn a_slow_listener_builds_a_backlog_without_holding_back_a_fast_one() {
        let mut p = Processor::new();
        let fast_log = Arc::new(Mutex::new(Vec::new()));
        let slow_log = Arc::new(Mutex::new(Vec::new()));
        let fast = p.add_listener(
            "fast",
            None,
            recording_handler(fast_log.clone(), Duration::ZERO),
        );
        let slow = p.add_listener(
            "slow",
            None,
            recording_handler(slow_log.clone(), Duration::from_secs(1)),
        );
        for i in 0..100 {
            p.distribute(&add(&format!("o{i}")), false);
        }
        // Distribution returned at once: the buffers grew instead of blocking.
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(fast_log.lock().unwrap().len(), 100);
        assert_eq!(fast.backlog(), 0);
        assert!(slow.backlog() >= 98, "{}", slow.backlog());
        slow.sample();
        assert!(slow.metrics().backlog.summary().max >= 98);
        tokio::time::sleep(Duration::from_secs(101)).await;
        assert_eq!(slow.backlog(), 0);
        let log = slow_log.lock().unwrap().clone();
        assert_eq!(log.len(), 100);
        assert_eq!(log[0], "ns/o0");
        assert_eq!(log[99], "ns/o99", "in order");
        let m = slow.metrics();
        assert_eq!(m.handled, 100);
        // The last one waited for 99 handlers of 1 s each.
        assert!(
            m.delivery_lag.summary().max >= 98.0,
            "{:?}",
            m.delivery_lag.summary()
        );
        assert!((m.handler_time.summary().p50 - 1.0).abs() < 0.01);
    }

    #[tokio::test(start_paused = true)]
    async fn a_zero_resync_period_means_none_and_a_shorter_one_than_1s_is_1s() {
        let mut p = Processor::new();
        p.add_listener(
            "zero",
            Some(Duration::ZERO),
            recording_handler(Arc::default(), Duration::ZERO),
        );
        assert_eq!(p.resync_check_period(), None);
        p.add_listener(
            "short",
            Some(Duration::from_millis(10)),
            recording_handler(Arc::default(), Duration::ZERO),
        );
        assert_eq!(p.resync_check_period(), Some(Duration::from_secs(1)));
        p.shutdown().await;
    }

    #[tokio::test(start_paused = true)]
    async fn resync_reaches_only_the_listeners_that_asked_when_due() {
        let mut p = Processor::new();
        let a_log = Arc::new(Mutex::new(Vec::new()));
        let b_log = Arc::new(Mutex::new(Vec::new()));
        p.add_listener(
            "resyncs",
            Some(Duration::from_secs(10)),
            recording_handler(a_log.clone(), Duration::ZERO),
        );
        p.add_listener(
            "never",
            None,
            recording_handler(b_log.clone(), Duration::ZERO),
        );
        assert_eq!(p.resync_check_period(), Some(Duration::from_secs(10)));
        assert!(!p.begin_resync(Instant::now()), "not due yet");
        tokio::time::advance(Duration::from_secs(10)).await;
        assert!(p.begin_resync(Instant::now()));
        p.distribute(&add("x"), true);
        // Until the next check, a sync (a relisted object with an unchanged RV) still goes to
        // the listener that is resyncing, as in client-go.
        p.distribute(&add("y"), true);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert!(!p.begin_resync(Instant::now()), "the next check: none due");
        p.distribute(&add("z"), true);
        p.shutdown().await;
        assert_eq!(*a_log.lock().unwrap(), vec!["ns/x", "ns/y"]);
        assert!(b_log.lock().unwrap().is_empty());
    }
}
