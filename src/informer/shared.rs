//! The SharedInformer: a reflector task feeding the FIFO and the informer loop (`core`) behind
//! it; and the `RunningInformer` handle, whose cache and progress callers read and await.
//! Every reflector transition is counted.

use super::core::{fifo_item, spawn_core, InformerCore, InformerState};
use super::fifo::Fifo;
use super::listwatch::{ListWatch, ListerWatcher};
use super::processor::{Handler, ListenerStats, Processor};
use super::reflector::{Reflector, ReflectorConfig, ReflectorError};
use super::store::Store;
use super::transition::ReflectorEvent;
use crate::cluster::resource_version::{NotComparable, ResourceVersion};
use crate::metrics::ArrivalWindow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// Counters of what the reflector did.
#[derive(Debug, Default)]
pub struct ReflectorCounters {
    pub lists: AtomicU64,
    pub relists: AtomicU64,
    pub watches_opened: AtomicU64,
    pub watches_closed: AtomicU64,
    pub watch_errors: AtomicU64,
    /// LIST pages that failed and were retried.
    pub list_errors: AtomicU64,
    pub expired: AtomicU64,
    pub fallbacks: AtomicU64,
    /// LISTs (or watch-lists' initial events) cut short and started over.
    pub list_restarts: AtomicU64,
    pub bookmarks: AtomicU64,
    pub events: AtomicU64,
}

impl ReflectorCounters {
    fn count(&self, event: &ReflectorEvent) {
        let counter = match event {
            ReflectorEvent::Listed { .. } | ReflectorEvent::WentBack { .. } => return,
            ReflectorEvent::ListComplete { relist: false, .. } => &self.lists,
            ReflectorEvent::ListComplete { relist: true, .. } => &self.relists,
            ReflectorEvent::Fallback { .. } => &self.fallbacks,
            ReflectorEvent::ListRestarted { .. } => &self.list_restarts,
            ReflectorEvent::WatchOpened { .. } => &self.watches_opened,
            ReflectorEvent::Watched { .. } => &self.events,
            ReflectorEvent::Bookmark { .. } => &self.bookmarks,
            ReflectorEvent::WatchClosed { .. } => &self.watches_closed,
            ReflectorEvent::WatchFailed { .. } => &self.watch_errors,
            ReflectorEvent::ListFailed { .. } => &self.list_errors,
            ReflectorEvent::Expired { .. } => &self.expired,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub fn get(counter: &AtomicU64) -> u64 {
        counter.load(Ordering::Relaxed)
    }
}

/// An informer before it runs: add listeners, then `run`.
pub struct SharedInformer<L = ListWatch> {
    lw: L,
    config: ReflectorConfig,
    processor: Processor,
    /// Where the watch events' arrivals are counted, if anywhere.
    arrivals: Option<ArrivalWindow>,
}

/// A running informer: its cache and counters to read, its progress to await.
pub struct RunningInformer {
    store: Arc<RwLock<Store>>,
    fifo: Arc<Fifo>,
    counters: Arc<ReflectorCounters>,
    state: watch::Receiver<InformerState>,
    reflector: tokio::task::JoinHandle<Result<(), ReflectorError>>,
    core: tokio::task::JoinHandle<InformerCore>,
    observers: Arc<Mutex<Vec<tokio::sync::mpsc::UnboundedSender<ReflectorEvent>>>>,
}

/// The informer stopped (its reflector failed for good, or its watch ended without reconnect)
/// before what was awaited happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the informer's watch ended")]
pub struct Stopped;

/// Why a wait for a resourceVersion ended without it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReached {
    #[error(transparent)]
    Stopped(Stopped),
    /// The cache's resourceVersion cannot be compared with the one awaited.
    #[error("the cache's {0}")]
    NotComparable(NotComparable),
}

/// Marks the state `stopped` when the reflector's task ends, however it ends (also aborted).
struct MarkStopped(Arc<watch::Sender<InformerState>>);

impl Drop for MarkStopped {
    fn drop(&mut self) {
        self.0.send_modify(|s| s.stopped = true);
    }
}

impl<L: ListerWatcher> SharedInformer<L> {
    pub fn new(lw: L, config: ReflectorConfig) -> Self {
        SharedInformer {
            lw,
            config,
            processor: Processor::new(),
            arrivals: None,
        }
    }

    /// Counts each watch event in `window` by its arrival stamp, the one its notifications
    /// carry (before `run`).
    pub fn count_arrivals(&mut self, window: ArrivalWindow) {
        self.arrivals = Some(window);
    }

    /// Adds a listener (before `run`).
    pub fn add_listener(
        &mut self,
        name: &str,
        resync_period: Option<Duration>,
        handler: Handler,
    ) -> ListenerStats {
        self.processor.add_listener(name, resync_period, handler)
    }

    /// The processor, to add listeners to (before `run`).
    pub fn processor_mut(&mut self) -> &mut Processor {
        &mut self.processor
    }

    /// Starts the reflector task and the informer loop.
    pub fn run(self) -> RunningInformer {
        let fifo = Arc::new(Fifo::new());
        let counters = Arc::new(ReflectorCounters::default());
        let observers: Arc<Mutex<Vec<tokio::sync::mpsc::UnboundedSender<ReflectorEvent>>>> =
            Arc::default();
        let resync = self.processor.resync_check_period();
        let core = InformerCore::new(self.processor);
        let store = core.store().clone();
        let (state_tx, state) = watch::channel(InformerState::default());
        let state_tx = Arc::new(state_tx);

        let reflector = {
            let fifo = fifo.clone();
            let counters = counters.clone();
            let observers = observers.clone();
            let mut reflector = Reflector::new(self.lw, self.config);
            let stopped = MarkStopped(state_tx.clone());
            let arrivals = self.arrivals;
            tokio::spawn(async move {
                let _stopped = stopped;
                let result = loop {
                    match reflector.next().await {
                        Ok(Some(event)) => {
                            let received_at = Instant::now();
                            counters.count(&event);
                            if let (Some(window), ReflectorEvent::Watched { .. }) =
                                (&arrivals, &event)
                            {
                                window.arrived(received_at);
                            }
                            observers
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .retain(|o| o.send(event.clone()).is_ok());
                            if let Some(item) = fifo_item(event, received_at) {
                                fifo.push(item);
                            }
                        }
                        Ok(None) => break Ok(()),
                        Err(e) => break Err(e),
                    }
                };
                fifo.close();
                result
            })
        };

        let core_task = spawn_core(fifo.clone(), core, resync, state_tx);

        RunningInformer {
            store,
            fifo,
            counters,
            state,
            reflector,
            core: core_task,
            observers,
        }
    }
}

impl RunningInformer {
    /// Waits until the first LIST has reached the store; fails with the reflector's error if it
    /// stopped first.
    pub async fn synced(&mut self) -> Result<(), ReflectorError> {
        let synced = self.state.wait_for(|s| s.synced || s.stopped).await;
        if synced.is_ok_and(|s| s.synced) {
            return Ok(());
        }
        match (&mut self.reflector).await {
            Ok(Err(e)) => Err(e),
            _ => Ok(()),
        }
    }

    /// `read` of the cache once no relist is part-way through replacing it (a half-replaced
    /// cache holds objects newer than its RV).
    pub async fn settled<T>(&self, read: impl Fn(&Store) -> T) -> Result<T, Stopped> {
        let mut state = self.state.clone();
        loop {
            // Marked seen before the store is looked at: the end of the relist is published
            // after it, and wakes the wait below.
            let stopped = state.borrow_and_update().stopped;
            {
                let store = self.store.read().unwrap_or_else(|e| e.into_inner());
                if !store.is_replacing() {
                    return Ok(read(&store));
                }
            }
            if stopped || state.changed().await.is_err() {
                return Err(Stopped);
            }
        }
    }

    /// Waits until the cache is synced to `resource_version` or later (events and bookmarks
    /// advance it), compared as KEP-5504 orders resourceVersions. A cache RV that is not a
    /// number ends the wait at once with that RV named: no later event would make it comparable.
    pub async fn reached(&self, resource_version: &ResourceVersion) -> Result<(), NotReached> {
        let mut state = self.state.clone();
        let at = |rv: &str| ResourceVersion::parse(rv).map(|rv| rv >= *resource_version);
        let reached = state
            .wait_for(|s| s.stopped || !matches!(at(&s.resource_version), Ok(false)))
            .await
            .map_err(|_| NotReached::Stopped(Stopped))?;
        match at(&reached.resource_version) {
            Ok(true) => Ok(()),
            Ok(false) => Err(NotReached::Stopped(Stopped)),
            // An empty RV is a cache that never synced, then stopped.
            Err(_) if reached.resource_version.is_empty() => Err(NotReached::Stopped(Stopped)),
            Err(e) => Err(NotReached::NotComparable(e)),
        }
    }

    /// Resolves when the reflector has stopped.
    pub async fn finished(&self) {
        let _ = self.state.clone().wait_for(|s| s.stopped).await;
    }

    /// Whether the reflector has stopped (an error, or the watch ended without reconnect).
    pub fn reflector_finished(&self) -> bool {
        self.reflector.is_finished()
    }

    /// Reads the cache.
    pub fn read<T>(&self, read: impl FnOnce(&Store) -> T) -> T {
        read(&self.store.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// What the reflector did so far, counted.
    pub fn counters(&self) -> Arc<ReflectorCounters> {
        self.counters.clone()
    }

    /// Items the informer loop has still to apply (how far it is behind the reflector).
    pub fn queued(&self) -> usize {
        self.fifo.len()
    }

    /// Waits until the informer loop has taken everything the reflector queued so far.
    pub async fn caught_up(&self) {
        self.fifo.until_below(1).await
    }

    /// The FIFO itself, for benchmarks that feed the informer loop directly (a simulated relist).
    pub fn fifo(&self) -> &Arc<Fifo> {
        &self.fifo
    }

    /// Receives every reflector event from now on (e.g. to show notices).
    pub fn observe(&self) -> tokio::sync::mpsc::UnboundedReceiver<ReflectorEvent> {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        self.observers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(tx);
        rx
    }

    /// Stops the reflector, lets the informer loop apply what is queued, and waits until every
    /// listener has handled its backlog. Returns the reflector's error, if it failed.
    pub async fn stop(self) -> Result<(), ReflectorError> {
        self.reflector.abort();
        let result = match self.reflector.await {
            Ok(r) => r,
            Err(_) => Ok(()),
        };
        self.fifo.close();
        if let Ok(core) = self.core.await {
            core.processor.shutdown().await;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::ClusterError;
    use crate::informer::listwatch::WatchEvent;
    use crate::informer::reflector::Start;
    use crate::informer::script::{Script, Step};
    use crate::informer::store::tests::cm;

    /// One LIST page of `a` at RV 5, then a watch that sends `a` modified at RV 6 and a
    /// bookmark at RV 9, then stays open and quiet.
    fn one_page() -> Script {
        Script::default()
            .list(vec![cm("ns", "a", 5, &[])], "5", None)
            .watch(vec![
                Step::Event(WatchEvent::Modified(cm("ns", "a", 6, &[]))),
                Step::Event(WatchEvent::Bookmark {
                    resource_version: "9".into(),
                    initial_events_end: false,
                }),
                Step::Hang,
            ])
    }

    fn rv(text: &str) -> ResourceVersion {
        ResourceVersion::parse(text).unwrap()
    }

    fn informer(script: Script) -> RunningInformer {
        SharedInformer::new(script, ReflectorConfig::informer(Start::List, 500)).run()
    }

    #[tokio::test(start_paused = true)]
    async fn callers_await_the_sync_a_resource_version_and_a_settled_cache_without_polling() {
        let mut running = informer(one_page());
        running.synced().await.unwrap();
        // On the paused clock a wait that nothing wakes times out at once instead of hanging.
        tokio::time::timeout(Duration::from_secs(60), running.reached(&rv("9")))
            .await
            .expect("the bookmark's RV is published")
            .unwrap();
        let (rv, keys) = running
            .settled(|store| (store.resource_version().to_string(), store.keys()))
            .await
            .unwrap();
        assert_eq!((rv.as_str(), keys), ("9", vec!["ns/a".to_string()]));
        assert_eq!(
            running.read(|store| store.get("ns/a").map(|o| o.resource_version().to_string())),
            Some("6".to_string())
        );
        assert!(!running.reflector_finished());
        running.stop().await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_reflector_that_fails_before_the_sync_ends_every_wait_with_its_error() {
        let forbidden = ClusterError::Api {
            what: "list configmaps".into(),
            code: 403,
            reason: "Forbidden".into(),
            message: "no".into(),
            retry_after: None,
        };
        let mut running = informer(Script::default().list_fails(forbidden));
        let err = running.synced().await.unwrap_err();
        assert!(err.to_string().contains("403"), "{err}");
        running.finished().await;
        assert_eq!(
            running.reached(&rv("1")).await,
            Err(NotReached::Stopped(Stopped))
        );
        assert!(running.reflector_finished());
    }

    #[tokio::test(start_paused = true)]
    async fn a_resource_version_that_is_not_a_number_ends_the_wait_naming_it() {
        let script = Script::default()
            .list(vec![cm("ns", "a", 5, &[])], "5", None)
            .watch(vec![
                Step::Event(WatchEvent::Bookmark {
                    resource_version: "v9".into(),
                    initial_events_end: false,
                }),
                Step::Hang,
            ]);
        let mut running = informer(script);
        running.synced().await.unwrap();
        let err = tokio::time::timeout(Duration::from_secs(60), running.reached(&rv("9")))
            .await
            .expect("the wait ends when the RV arrives, not at a timeout")
            .unwrap_err();
        assert_eq!(
            err,
            NotReached::NotComparable(NotComparable("v9".to_string()))
        );
        assert!(err.to_string().contains("\"v9\""), "{err}");
        running.stop().await.unwrap();
    }
}
