//! The informer loop (client-go's `sharedIndexInformer.HandleDeltas`): pops FIFO items and
//! applies each to the Store, then distributes the notification to the listeners; a relist
//! replaces the cache and deletes what vanished. It publishes what it reached for callers to
//! await (`InformerState`).

use super::fifo::{Delta, DeltaType, Fifo, FifoItem};
use super::object::RawObject;
use super::processor::{Notification, NotificationKind, Processor};
use super::store::{Objects, Store};
use super::transition::{EventType, ReflectorEvent};
use std::sync::{Arc, RwLock};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// The Store and the Processor: the informer loop's state, and the one function that applies a
/// FIFO item to both.
pub struct InformerCore {
    cache: Cache,
    pub processor: Processor,
}

/// The cache side of the informer loop: the Store, and the bookkeeping of a LIST replacing it.
/// It applies FIFO items and says which notifications each makes, so that the informer loop
/// hands them to its listeners and `tail` prints what a relist revealed from the same logic.
pub struct Cache {
    store: Arc<RwLock<Store>>,
    /// While a LIST replaces the cache: the objects cached when it began that it has not
    /// `Replaced` yet (shared, not copied); at `ReplaceDone`, those that vanished.
    replace_pending: Option<Objects>,
    synced: bool,
    /// Whether `synced` or the store's `replacing` changed since the state was last published.
    changed: bool,
}

/// What a running informer has reached, published by its loops for callers to await (kube-rs's
/// `Store::wait_until_ready`, generalised): the loop publishes after every change of `synced`
/// or `replacing`, and whenever it has applied everything queued, so `resource_version` is
/// exact once the loop is caught up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InformerState {
    /// The RV the cache is synced to.
    pub resource_version: String,
    /// The first LIST (or watch-list) has been applied.
    pub synced: bool,
    /// A relist is part-way through replacing the cache: it holds objects newer than its RV.
    pub replacing: bool,
    /// The reflector has stopped (an error it does not retry, or the watch ended without
    /// reconnect): the cache no longer moves.
    pub stopped: bool,
}

impl InformerCore {
    pub fn new(processor: Processor) -> Self {
        InformerCore {
            cache: Cache::new(),
            processor,
        }
    }

    /// The cache.
    pub fn store(&self) -> &Arc<RwLock<Store>> {
        self.cache.store()
    }

    /// Whether the first LIST (or watch-list) has been applied.
    pub fn has_synced(&self) -> bool {
        self.cache.has_synced()
    }

    /// Applies one FIFO item: updates the store, then notifies the listeners.
    pub fn process(&mut self, item: FifoItem) {
        match item {
            FifoItem::Resync => {
                let processor = &mut self.processor;
                if processor.begin_resync(Instant::now()) {
                    let objects: Vec<RawObject> =
                        self.cache.store_mut().list().into_iter().cloned().collect();
                    let now = Instant::now();
                    for object in objects {
                        processor.distribute(
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
            item => {
                let processor = &self.processor;
                self.cache
                    .apply(item, &mut |n, sync| processor.distribute(&n, sync))
            }
        }
    }
}

impl Default for Cache {
    fn default() -> Self {
        Cache::new()
    }
}

impl Cache {
    pub fn new() -> Self {
        Cache {
            store: Arc::new(RwLock::new(Store::new())),
            replace_pending: None,
            synced: false,
            changed: false,
        }
    }

    /// The Store, shared.
    pub fn store(&self) -> &Arc<RwLock<Store>> {
        &self.store
    }

    /// Whether the first LIST (or watch-list) has been applied.
    pub fn has_synced(&self) -> bool {
        self.synced
    }

    /// The cached version of the object at `key` (`namespace/name`).
    pub fn get(&self, key: &str) -> Option<RawObject> {
        let store = self.store.read().unwrap_or_else(|e| e.into_inner());
        store.get(key).cloned()
    }

    /// Publishes the RV, `synced` and `replacing` on `state` (when they differ from what it
    /// holds), keeping the reflector's `stopped`.
    pub fn publish(&self, state: &watch::Sender<InformerState>) {
        let (resource_version, replacing) = {
            let store = self.store.read().unwrap_or_else(|e| e.into_inner());
            (store.resource_version().to_string(), store.is_replacing())
        };
        state.send_if_modified(|s| {
            let new = (&resource_version, self.synced, replacing);
            if (&s.resource_version, s.synced, s.replacing) == new {
                return false;
            }
            s.resource_version = resource_version.clone();
            s.synced = self.synced;
            s.replacing = replacing;
            true
        });
    }

    pub(crate) fn store_mut(&self) -> std::sync::RwLockWriteGuard<'_, Store> {
        self.store.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies one FIFO item to the store and hands each notification it makes to `notify`,
    /// with whether it goes only to resyncing listeners (a relisted object whose RV did not
    /// change). A `Resync` is the processor's: it makes none here.
    pub fn apply(&mut self, item: FifoItem, notify: &mut impl FnMut(Notification, bool)) {
        match item {
            FifoItem::Delta(delta) => self.apply_delta(delta, notify),
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
                self.changed = true;
                let now = Instant::now();
                for object in vanished {
                    notify(
                        Notification {
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
            FifoItem::Resync => {}
        }
    }

    fn apply_delta(&mut self, delta: Delta, notify: &mut impl FnMut(Notification, bool)) {
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
                    let (store, changed) = (&self.store, &mut self.changed);
                    self.replace_pending
                        .get_or_insert_with(|| {
                            let mut store = store.write().unwrap_or_else(|e| e.into_inner());
                            *changed |= !store.is_replacing();
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
                        notify(
                            Notification {
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
        notify(
            Notification {
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
/// `core` until the FIFO is closed and empty, publishing what it reached on `state`. The task
/// returns the core, so that its listeners can be drained.
pub fn spawn_core(
    fifo: Arc<Fifo>,
    mut core: InformerCore,
    resync: Option<Duration>,
    state: Arc<watch::Sender<InformerState>>,
) -> tokio::task::JoinHandle<InformerCore> {
    tokio::spawn(async move {
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
            // Under load the FIFO is rarely empty: the RV is published when the loop catches up,
            // not once per event.
            if std::mem::take(&mut core.cache.changed) || fifo.is_empty() {
                core.cache.publish(&state);
            }
        }
        core
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::store::tests::cm;
    use std::collections::BTreeMap;
    use std::sync::Mutex;

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
        let store = core.store().read().unwrap();
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
        assert_eq!(core.store().read().unwrap().resource_version(), "6");
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
                    reason: crate::informer::transition::RestartReason::ContinueExpired(
                        "410".into(),
                    ),
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
        let replacing = |core: &InformerCore| core.store().read().unwrap().is_replacing();
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
        assert!(!replacing(&core) && core.store().read().unwrap().is_empty());
    }

    #[tokio::test]
    async fn watch_deltas_and_bookmarks_advance_the_synced_rv() {
        let (mut core, _log) = recording_core();
        core.process(FifoItem::ReplaceDone {
            resource_version: "10".into(),
        });
        core.process(delta(DeltaType::Added, cm("ns", "a", 11, &[])));
        assert_eq!(core.store().read().unwrap().resource_version(), "11");
        core.process(FifoItem::Bookmark {
            resource_version: "15".into(),
        });
        assert_eq!(core.store().read().unwrap().resource_version(), "15");
        core.process(delta(DeltaType::Deleted, cm("ns", "a", 16, &[])));
        assert_eq!(core.store().read().unwrap().resource_version(), "16");
        assert!(core.store().read().unwrap().is_empty());
    }
}
