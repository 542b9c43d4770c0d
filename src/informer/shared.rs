//! The SharedInformer: a reflector task feeding the FIFO, and the informer loop that applies
//! each FIFO item to the Store and distributes notifications to the listeners, as client-go's
//! `sharedIndexInformer` does (`HandleDeltas`). Every reflector transition is counted.

use super::fifo::{Delta, DeltaType, Fifo, FifoItem};
use super::listwatch::{ListWatch, ListerWatcher};
use super::object::RawObject;
use super::processor::{Handler, ListenerStats, Notification, NotificationKind, Processor};
use super::reflector::{EventType, Reflector, ReflectorConfig, ReflectorError, ReflectorEvent};
use super::store::{Objects, Store};
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
            ReflectorEvent::Listed { .. } => return,
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

/// The Store and the Processor, and the one function that applies a FIFO item to both.
pub struct InformerCore {
    pub store: Arc<RwLock<Store>>,
    pub processor: Processor,
    /// While a LIST replaces the cache: the objects cached when it began that it has not
    /// `Replaced` yet (shared, not copied); at `ReplaceDone`, those that vanished.
    replace_pending: Option<Objects>,
    synced: bool,
}

impl InformerCore {
    pub fn new(processor: Processor) -> Self {
        InformerCore {
            store: Arc::new(RwLock::new(Store::new())),
            processor,
            replace_pending: None,
            synced: false,
        }
    }

    /// Whether the first LIST (or watch-list) has been applied.
    pub fn has_synced(&self) -> bool {
        self.synced
    }

    fn store_mut(&self) -> std::sync::RwLockWriteGuard<'_, Store> {
        self.store.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies one FIFO item: updates the store, then notifies the listeners.
    pub fn process(&mut self, item: FifoItem) {
        match item {
            FifoItem::Delta(delta) => self.apply_delta(delta),
            FifoItem::ReplaceDone { resource_version } => {
                let pending = self.replace_pending.take();
                let vanished: Vec<RawObject> = {
                    let mut store = self.store_mut();
                    let pending = match pending {
                        Some(pending) => pending,
                        // A LIST of nothing: everything cached vanished.
                        None => store.frozen().1,
                    };
                    let mut gone: Vec<RawObject> = pending.iter().cloned().collect();
                    gone.sort_by_cached_key(RawObject::key);
                    // Only the version cached when the LIST began: one stored since is newer.
                    gone.retain(|object| store.remove_if_current(object));
                    store.set_resource_version(&resource_version);
                    store.set_replacing(false);
                    gone
                };
                let now = Instant::now();
                for object in vanished {
                    self.processor.distribute(
                        &Notification {
                            kind: NotificationKind::Delete {
                                object,
                                final_state_unknown: true,
                            },
                            received_at: now,
                        },
                        false,
                    );
                }
                self.synced = true;
            }
            // The LIST starts over: what its cut-short pass replaced stands, and the next pass
            // is compared with the cache as it is now.
            FifoItem::ReplaceRestarted => self.replace_pending = None,
            FifoItem::Bookmark { resource_version } => {
                self.store_mut().set_resource_version(&resource_version);
            }
            FifoItem::Resync => {
                if self.processor.begin_resync(Instant::now()) {
                    let objects: Vec<RawObject> =
                        self.store_mut().list().into_iter().cloned().collect();
                    let now = Instant::now();
                    for object in objects {
                        self.processor.distribute(
                            &Notification {
                                kind: NotificationKind::Update {
                                    old: object.clone(),
                                    new: object,
                                },
                                received_at: now,
                            },
                            true,
                        );
                    }
                }
            }
        }
    }

    fn apply_delta(&mut self, delta: Delta) {
        let Delta {
            delta_type,
            object,
            received_at,
            final_state_unknown,
        } = delta;
        let notification = match delta_type {
            DeltaType::Deleted => {
                let mut store = self.store_mut();
                store.remove_object(&object);
                store.set_resource_version(object.resource_version());
                NotificationKind::Delete {
                    object,
                    final_state_unknown,
                }
            }
            DeltaType::Added | DeltaType::Updated | DeltaType::Replaced | DeltaType::Sync => {
                if delta_type == DeltaType::Replaced {
                    let store = &self.store;
                    self.replace_pending
                        .get_or_insert_with(|| {
                            let mut store = store.write().unwrap_or_else(|e| e.into_inner());
                            store.set_replacing(true);
                            store.frozen().1
                        })
                        .remove_object(&object);
                }
                let old = {
                    let mut store = self.store_mut();
                    let old = store.upsert(object.clone());
                    if matches!(delta_type, DeltaType::Added | DeltaType::Updated) {
                        store.set_resource_version(object.resource_version());
                    }
                    old
                };
                match old {
                    Some(old) => {
                        // client-go: a Sync, or a relisted object whose RV did not change, goes
                        // only to the listeners that are resyncing.
                        let sync = delta_type == DeltaType::Sync
                            || (delta_type == DeltaType::Replaced
                                && old.resource_version() == object.resource_version());
                        self.processor.distribute(
                            &Notification {
                                kind: NotificationKind::Update { old, new: object },
                                received_at,
                            },
                            sync,
                        );
                        return;
                    }
                    None => NotificationKind::Add {
                        object,
                        in_initial_list: delta_type == DeltaType::Replaced && !self.synced,
                    },
                }
            }
        };
        self.processor.distribute(
            &Notification {
                kind: notification,
                received_at,
            },
            false,
        );
    }
}

/// Turns a reflector event into the FIFO item it stands for, if any.
pub fn fifo_item(event: ReflectorEvent, received_at: Instant) -> Option<FifoItem> {
    let delta = |delta_type, object| {
        Some(FifoItem::Delta(Delta {
            delta_type,
            object,
            received_at,
            final_state_unknown: false,
        }))
    };
    match event {
        ReflectorEvent::Listed { object, .. } => delta(DeltaType::Replaced, object),
        ReflectorEvent::ListComplete {
            resource_version, ..
        } => Some(FifoItem::ReplaceDone { resource_version }),
        ReflectorEvent::Watched {
            event_type, object, ..
        } => delta(
            match event_type {
                EventType::Added => DeltaType::Added,
                EventType::Modified => DeltaType::Updated,
                EventType::Deleted => DeltaType::Deleted,
            },
            object,
        ),
        ReflectorEvent::Bookmark {
            resource_version, ..
        } => Some(FifoItem::Bookmark { resource_version }),
        ReflectorEvent::ListRestarted { .. } => Some(FifoItem::ReplaceRestarted),
        _ => None,
    }
}

/// Starts the informer loop: pops FIFO items (and resync ticks, at `resync`) and applies them to
/// `core` until the FIFO is closed and empty; the receiver turns true once the first LIST is
/// applied. The task returns the core, so that its listeners can be drained.
pub fn spawn_core(
    fifo: Arc<Fifo>,
    mut core: InformerCore,
    resync: Option<Duration>,
) -> (tokio::task::JoinHandle<InformerCore>, watch::Receiver<bool>) {
    let (synced_tx, synced_rx) = watch::channel(false);
    let task = tokio::spawn(async move {
        let mut ticker = resync.map(|p| tokio::time::interval_at(Instant::now() + p, p));
        loop {
            let item = tokio::select! {
                item = fifo.pop() => item,
                _ = async {
                    match ticker.as_mut() {
                        Some(t) => { t.tick().await; }
                        None => std::future::pending::<()>().await,
                    }
                } => Some(FifoItem::Resync),
            };
            let Some(item) = item else { break };
            core.process(item);
            if core.has_synced() && !*synced_tx.borrow() {
                let _ = synced_tx.send(true);
            }
        }
        core
    });
    (task, synced_rx)
}

/// An informer before it runs: add listeners, then `run`.
pub struct SharedInformer<L = ListWatch> {
    lw: L,
    config: ReflectorConfig,
    processor: Processor,
}

/// A running informer.
pub struct RunningInformer {
    pub store: Arc<RwLock<Store>>,
    pub fifo: Arc<Fifo>,
    pub counters: Arc<ReflectorCounters>,
    synced: watch::Receiver<bool>,
    reflector: tokio::task::JoinHandle<Result<(), ReflectorError>>,
    core: tokio::task::JoinHandle<InformerCore>,
    observers: Arc<Mutex<Vec<tokio::sync::mpsc::UnboundedSender<ReflectorEvent>>>>,
}

impl<L: ListerWatcher> SharedInformer<L> {
    pub fn new(lw: L, config: ReflectorConfig) -> Self {
        SharedInformer {
            lw,
            config,
            processor: Processor::new(),
        }
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
        let store = core.store.clone();

        let reflector = {
            let fifo = fifo.clone();
            let counters = counters.clone();
            let observers = observers.clone();
            let mut reflector = Reflector::new(self.lw, self.config);
            tokio::spawn(async move {
                let result = loop {
                    match reflector.next().await {
                        Ok(Some(event)) => {
                            counters.count(&event);
                            observers
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .retain(|o| o.send(event.clone()).is_ok());
                            if let Some(item) = fifo_item(event, Instant::now()) {
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

        let (core_task, synced_rx) = spawn_core(fifo.clone(), core, resync);

        RunningInformer {
            store,
            fifo,
            counters,
            synced: synced_rx,
            reflector,
            core: core_task,
            observers,
        }
    }
}

impl RunningInformer {
    /// Waits until the first LIST has reached the store; fails if the reflector failed first.
    pub async fn wait_synced(&mut self) -> Result<(), ReflectorError> {
        loop {
            if *self.synced.borrow() {
                return Ok(());
            }
            if self.reflector.is_finished() || self.synced.changed().await.is_err() {
                return match (&mut self.reflector).await {
                    Ok(Err(e)) => Err(e),
                    _ => Ok(()),
                };
            }
        }
    }

    pub fn has_synced(&self) -> bool {
        *self.synced.borrow()
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

    /// Whether the reflector has stopped (an error, or the watch ended without reconnect).
    pub fn reflector_finished(&self) -> bool {
        self.reflector.is_finished()
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
    use crate::informer::store::tests::cm;
    use std::collections::BTreeMap;

    fn delta(t: DeltaType, object: RawObject) -> FifoItem {
        FifoItem::Delta(Delta {
            delta_type: t,
            object,
            received_at: Instant::now(),
            final_state_unknown: false,
        })
    }

    /// A core whose single listener records what it was told, as `kind key rv` strings.
    fn recording_core() -> (InformerCore, Arc<Mutex<Vec<String>>>) {
        let log = Arc::new(Mutex::new(Vec::new()));
        let mut processor = Processor::new();
        let sink = log.clone();
        processor.add_listener(
            "rec",
            None,
            Box::new(move |n: Notification| {
                let line = match &n.kind {
                    NotificationKind::Add {
                        object,
                        in_initial_list,
                    } => {
                        format!(
                            "add {} {} initial={in_initial_list}",
                            object.key(),
                            object.resource_version()
                        )
                    }
                    NotificationKind::Update { old, new } => format!(
                        "update {} {}->{}",
                        new.key(),
                        old.resource_version(),
                        new.resource_version()
                    ),
                    NotificationKind::Delete {
                        object,
                        final_state_unknown,
                    } => format!(
                        "delete {} {} unknown={final_state_unknown}",
                        object.key(),
                        object.resource_version()
                    ),
                };
                sink.lock().unwrap().push(line);
                Box::pin(async {})
            }),
        );
        (InformerCore::new(processor), log)
    }

    fn contents(core: &InformerCore) -> BTreeMap<String, String> {
        let store = core.store.read().unwrap();
        store
            .list()
            .into_iter()
            .map(|o| (o.key(), o.resource_version().to_string()))
            .collect()
    }

    #[tokio::test]
    async fn a_relist_replaces_notifies_changes_and_deletes_what_vanished() {
        let (mut core, log) = recording_core();
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 1, &[])));
        core.process(delta(DeltaType::Replaced, cm("ns", "b", 2, &[])));
        core.process(FifoItem::ReplaceDone {
            resource_version: "2".into(),
        });
        assert!(core.has_synced());
        core.process(delta(DeltaType::Updated, cm("ns", "a", 3, &[])));
        // Relist: a unchanged (a sync, not delivered), b gone, c new.
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 3, &[])));
        core.process(delta(DeltaType::Replaced, cm("ns", "c", 5, &[])));
        core.process(FifoItem::ReplaceDone {
            resource_version: "6".into(),
        });
        assert_eq!(core.store.read().unwrap().resource_version(), "6");
        assert_eq!(
            contents(&core),
            BTreeMap::from([
                ("ns/a".to_string(), "3".to_string()),
                ("ns/c".to_string(), "5".to_string())
            ])
        );
        let processor = std::mem::take(&mut core.processor);
        processor.shutdown().await;
        assert_eq!(
            *log.lock().unwrap(),
            vec![
                "add ns/a 1 initial=true",
                "add ns/b 2 initial=true",
                "update ns/a 1->3",
                "add ns/c 5 initial=false",
                "delete ns/b 2 unknown=true",
            ]
        );
    }

    #[tokio::test]
    async fn a_relist_of_nothing_deletes_everything_and_one_after_it_starts_afresh() {
        let (mut core, log) = recording_core();
        for (name, rv) in [("b", 2), ("a", 1), ("c", 3)] {
            core.process(delta(DeltaType::Replaced, cm("ns", name, rv, &[])));
        }
        core.process(FifoItem::ReplaceDone {
            resource_version: "3".into(),
        });
        // The next LIST is empty: every cached object vanished.
        core.process(FifoItem::ReplaceDone {
            resource_version: "9".into(),
        });
        assert!(contents(&core).is_empty());
        // And the one after knows nothing of the earlier replaces.
        core.process(delta(DeltaType::Replaced, cm("ns", "d", 10, &[])));
        core.process(FifoItem::ReplaceDone {
            resource_version: "10".into(),
        });
        assert_eq!(
            contents(&core),
            BTreeMap::from([("ns/d".to_string(), "10".to_string())])
        );
        let processor = std::mem::take(&mut core.processor);
        processor.shutdown().await;
        assert_eq!(
            log.lock().unwrap()[3..],
            [
                "delete ns/a 1 unknown=true",
                "delete ns/b 2 unknown=true",
                "delete ns/c 3 unknown=true",
                "add ns/d 10 initial=false",
            ]
        );
    }

    #[tokio::test]
    async fn a_list_cut_short_and_restarted_deletes_what_only_its_first_pass_showed() {
        let (mut core, log) = recording_core();
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 1, &[])));
        core.process(delta(DeltaType::Replaced, cm("ns", "gone", 1, &[])));
        core.process(FifoItem::ReplaceDone {
            resource_version: "1".into(),
        });
        // A relist: its first page shows a and x, then its continue token expires and the
        // LIST starts over at a newer RV, where only a is left.
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 1, &[])));
        core.process(delta(DeltaType::Replaced, cm("ns", "x", 2, &[])));
        core.process(
            fifo_item(
                ReflectorEvent::ListRestarted {
                    reason: "410".into(),
                    objects: 2,
                },
                Instant::now(),
            )
            .unwrap(),
        );
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 1, &[])));
        core.process(FifoItem::ReplaceDone {
            resource_version: "5".into(),
        });
        assert_eq!(
            contents(&core),
            BTreeMap::from([("ns/a".to_string(), "1".to_string())])
        );
        let processor = std::mem::take(&mut core.processor);
        processor.shutdown().await;
        assert_eq!(
            log.lock().unwrap()[2..],
            [
                "add ns/x 2 initial=false",
                "delete ns/gone 1 unknown=true",
                "delete ns/x 2 unknown=true",
            ]
        );
    }

    #[tokio::test]
    async fn the_store_says_it_is_part_way_through_a_relist_until_the_relist_is_done() {
        let (mut core, _log) = recording_core();
        let replacing = |core: &InformerCore| core.store.read().unwrap().is_replacing();
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 1, &[])));
        assert!(replacing(&core), "the first LIST");
        core.process(FifoItem::ReplaceDone {
            resource_version: "1".into(),
        });
        assert!(!replacing(&core));
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 3, &[])));
        core.process(FifoItem::ReplaceRestarted);
        assert!(replacing(&core), "a relist started over");
        core.process(delta(DeltaType::Replaced, cm("ns", "a", 3, &[])));
        core.process(FifoItem::ReplaceDone {
            resource_version: "3".into(),
        });
        assert!(!replacing(&core));
        // A relist of nothing never began replacing; it is done at once.
        core.process(FifoItem::ReplaceDone {
            resource_version: "4".into(),
        });
        assert!(!replacing(&core) && core.store.read().unwrap().is_empty());
    }

    #[tokio::test]
    async fn watch_deltas_and_bookmarks_advance_the_synced_rv() {
        let (mut core, _log) = recording_core();
        core.process(FifoItem::ReplaceDone {
            resource_version: "10".into(),
        });
        core.process(delta(DeltaType::Added, cm("ns", "a", 11, &[])));
        assert_eq!(core.store.read().unwrap().resource_version(), "11");
        core.process(FifoItem::Bookmark {
            resource_version: "15".into(),
        });
        assert_eq!(core.store.read().unwrap().resource_version(), "15");
        core.process(delta(DeltaType::Deleted, cm("ns", "a", 16, &[])));
        assert_eq!(core.store.read().unwrap().resource_version(), "16");
        assert!(core.store.read().unwrap().is_empty());
    }
}
