//! One resource of a `tail` run: its reflector's events applied to the informer's cache, whose
//! notifications say what a relist revealed and which version a MODIFIED replaced; the object
//! events that makes, each shown as asked (a Secret's values redacted, the fields a MODIFIED
//! changed, its diff) and counted; the newest resourceVersion seen, for `--until-rv`.

use super::error::TailError;
use super::sink::{Shown, Sink};
use super::stats::Stats;
use crate::cluster::resource_version::ResourceVersion;
use crate::cluster::Cluster;
use crate::informer::core::{fifo_item, Cache};
use crate::informer::fields;
use crate::informer::object::RawObject;
use crate::informer::patch::{DiffFields, ObjectDiff};
use crate::informer::processor::NotificationKind;
use crate::informer::transition::{EventType, Origin, ReflectorEvent, WatchFailure};
use std::time::SystemTime;

/// One resource of a run: what was shown of it, and the informer's cache of what tail has seen
/// of it.
pub struct Feed {
    /// How the owner graph names its objects' kind: `replicaset.apps`, `pod`.
    kind: String,
    /// The resource, as error lines and the summary name it: `replicasets.apps`.
    resource: String,
    /// Whether its first event arrived (its start is said with it, so that a run that fails at
    /// once says only its error).
    started: bool,
    /// Whether objects are Secrets whose values must not be shown.
    redact: bool,
    stats: Stats,
    /// Every object tail knows, at its last RV: the informer's cache, fed the reflector's events.
    cache: Cache,
    /// Whether the starting state is complete (a replay has none to wait for).
    listed: bool,
    /// The newest resourceVersion of a watch event, bookmark or LIST (what `--until-rv` is
    /// compared with).
    newest_rv: Option<ResourceVersion>,
    lookup: Option<Lookup>,
    /// While a replay's RV is ahead of the server's and its watch is put off: the RV it waits
    /// to open from and the server's current one, as last read.
    held_ahead: Option<(String, String)>,
}

/// Where a feed asks, when its first LIST is empty, whether what it watches exists, to say so:
/// a typo in `-n` is not a quiet, empty tail.
pub struct Lookup {
    pub cluster: Cluster,
    /// The namespace watched, if one is.
    pub namespace: Option<String>,
    /// The object the feed is of (`tail deploy web`), if one was named.
    pub name: Option<String>,
}

/// What an object event shows besides the object, the same for the whole run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    /// The fields a MODIFIED changed (text says them; JSON has the objects whole).
    pub changes: bool,
    /// `--diff`: a MODIFIED against its previous version.
    pub diff: Option<DiffFields>,
}

/// One object event a reflector event makes for its feed, before it is shown.
#[derive(Debug, Clone)]
pub(super) struct Seen {
    pub event_type: EventType,
    pub origin: Origin,
    pub object: RawObject,
    pub received_at: SystemTime,
    /// The version a MODIFIED replaced (the cache's), which says what changed.
    pub old: Option<RawObject>,
    /// Not shown (`--initial none` hides the initial LIST), but taken in by the owner graph.
    pub hidden: bool,
}

impl Feed {
    /// A feed before anything arrived. `listed`: the starting state is complete already (a
    /// replay's).
    pub fn new(
        kind: String,
        resource: String,
        redact: bool,
        listed: bool,
        lookup: Option<Lookup>,
    ) -> Self {
        Feed {
            kind,
            resource,
            started: false,
            redact,
            stats: Stats::default(),
            cache: Cache::new(),
            listed,
            newest_rv: None,
            lookup,
            held_ahead: None,
        }
    }

    pub(super) fn kind(&self) -> &str {
        &self.kind
    }

    pub fn resource(&self) -> &str {
        &self.resource
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub(super) fn newest_rv(&self) -> Option<&ResourceVersion> {
        self.newest_rv.as_ref()
    }

    /// While its replay's watch is put off because the RV is ahead of the server's: that RV
    /// and the server's current one.
    pub(super) fn held_ahead(&self) -> Option<(&str, &str)> {
        self.held_ahead
            .as_ref()
            .map(|(from, current)| (from.as_str(), current.as_str()))
    }

    /// The cache's current version of the object at `key`.
    pub(super) fn get(&self, key: &str) -> Option<RawObject> {
        self.cache.get(key)
    }

    /// Whether this is the feed's first event, whose start is said before it.
    pub(super) fn first_event(&mut self) -> bool {
        !std::mem::replace(&mut self.started, true)
    }

    /// Whether `event` ends a first LIST that found nothing.
    pub(super) fn ends_empty_first_list(&self, event: &ReflectorEvent) -> bool {
        !self.listed
            && matches!(
                event,
                ReflectorEvent::ListComplete {
                    objects: 0,
                    relist: false,
                    ..
                }
            )
    }

    /// Applies `event` to the cache, counts it, and returns the object events it makes, in
    /// order: an object as the server sent it (a MODIFIED with the version it replaced), what
    /// a relist revealed as the cache's notifications say; the initial LIST's hidden unless
    /// `show_initial`.
    pub(super) fn take(&mut self, event: &ReflectorEvent, show_initial: bool) -> Vec<Seen> {
        let notifications = self.update_cache(event);
        match event {
            ReflectorEvent::WatchFailed {
                resource_version,
                error: WatchFailure::AheadOfServer { current, .. },
                ..
            } => {
                self.held_ahead = Some((resource_version.clone(), current.clone()));
                Vec::new()
            }
            ReflectorEvent::WatchOpened { .. } => {
                self.held_ahead = None;
                Vec::new()
            }
            ReflectorEvent::Listed {
                object,
                received_at,
                relist: false,
            } => vec![Seen {
                event_type: EventType::Added,
                origin: Origin::Initial,
                object: object.clone(),
                received_at: *received_at,
                old: None,
                hidden: !show_initial,
            }],
            ReflectorEvent::Listed {
                received_at,
                relist: true,
                ..
            } => self.revealed(notifications, *received_at, show_initial),
            ReflectorEvent::ListComplete { relist, .. } => {
                let mut revealed = Vec::new();
                if *relist {
                    if self.listed {
                        self.stats.relists += 1;
                    }
                    revealed = self.revealed(notifications, SystemTime::now(), show_initial);
                }
                self.listed = true;
                revealed
            }
            ReflectorEvent::Watched {
                event_type,
                object,
                received_at,
            } => vec![Seen {
                event_type: *event_type,
                origin: Origin::Watch,
                object: object.clone(),
                received_at: *received_at,
                old: replaced(notifications, *event_type),
                hidden: false,
            }],
            ReflectorEvent::Bookmark {
                resource_version, ..
            } => {
                self.stats.bookmarks += 1;
                self.stats.saw_rv(resource_version);
                Vec::new()
            }
            ReflectorEvent::WatchClosed {
                retry_in: Some(_), ..
            } => {
                self.stats.reconnects += 1;
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// Feeds `event` to the cache, and returns what the cache notified (each with whether it
    /// was a resync's): what a relist revealed, or the version a MODIFIED replaced.
    fn update_cache(&mut self, event: &ReflectorEvent) -> Vec<(NotificationKind, bool)> {
        let mut notifications = Vec::new();
        if let Some(item) = fifo_item(event.clone(), tokio::time::Instant::now()) {
            self.cache
                .apply(item, &mut |n, sync| notifications.push((n.kind, sync)));
        }
        notifications
    }

    /// What a relist revealed, as the cache's notifications say: an object it did not have
    /// (ADDED), one with another RV (MODIFIED, or DELETED and ADDED when its uid changed), one
    /// that vanished (DELETED). Objects unchanged since tail saw them make nothing, and nothing
    /// is made while `--initial none` hides the initial LIST.
    fn revealed(
        &self,
        notifications: Vec<(NotificationKind, bool)>,
        at: SystemTime,
        show_initial: bool,
    ) -> Vec<Seen> {
        if !self.listed && !show_initial {
            return Vec::new();
        }
        let seen = |event_type, object, old| Seen {
            event_type,
            origin: Origin::Relist,
            object,
            received_at: at,
            old,
            hidden: false,
        };
        let mut revealed = Vec::new();
        for (kind, sync) in notifications {
            match kind {
                NotificationKind::Add { object, .. } => {
                    revealed.push(seen(EventType::Added, object, None))
                }
                NotificationKind::Update { old, new } if old.uid() != new.uid() => {
                    revealed.push(seen(EventType::Deleted, old, None));
                    revealed.push(seen(EventType::Added, new, None));
                }
                // Only to resyncing listeners: the same RV as tail saw.
                NotificationKind::Update { .. } if sync => {}
                NotificationKind::Update { old, new } => {
                    revealed.push(seen(EventType::Modified, new, Some(old)))
                }
                NotificationKind::Delete { object, .. } => {
                    revealed.push(seen(EventType::Deleted, object, None))
                }
            }
        }
        revealed
    }

    /// Counts an object event shown, of `event_type` at `rv`.
    pub(super) fn count(&mut self, event_type: EventType, rv: &str) {
        self.stats.count(event_type, rv);
    }

    /// Counts an object event the filters hide, of `event_type` at `rv`.
    pub(super) fn count_hidden(&mut self, event_type: EventType, rv: &str) {
        self.stats.count(event_type, rv);
        self.stats.hidden += 1;
    }

    /// Keeps `rv` if it is the newest seen (what `--until-rv` is compared with). With
    /// `until`, an RV that is not a number ends the run naming it: it can never be compared.
    pub(super) fn reach(
        &mut self,
        rv: &str,
        until: Option<&ResourceVersion>,
    ) -> Result<(), TailError> {
        let rv = match ResourceVersion::parse(rv) {
            Ok(rv) => rv,
            Err(source) => {
                return match until {
                    Some(until) => Err(TailError::Unreachable {
                        until: until.clone(),
                        resource: self.resource.clone(),
                        source,
                    }),
                    None => Ok(()),
                }
            }
        };
        if self.newest_rv.as_ref().is_none_or(|n| rv > *n) {
            self.newest_rv = Some(rv);
        }
        Ok(())
    }

    /// Shows `seen` to `sink` as feed `index`'s, with `owners` (`--follow-owned`'s chain): a
    /// Secret's values redacted unless `--show-secret-data`, and for a MODIFIED, the fields it
    /// changed and its diff as `detail` asks.
    pub(super) fn show(
        &self,
        index: usize,
        seen: &Seen,
        owners: Option<&[String]>,
        detail: Detail,
        sink: &mut dyn Sink,
    ) -> Result<(), TailError> {
        let changes = match &seen.old {
            Some(old) if detail.changes => {
                Some(fields::summary(old, &seen.object, 4, !self.redact))
            }
            _ => None,
        };
        let object = self.shown(&seen.object)?;
        let diff = match (detail.diff, &seen.old) {
            (Some(compared), Some(old)) => Some(
                ObjectDiff::between(&self.shown(old)?, &object, compared, self.redact).map_err(
                    |source| TailError::Diff {
                        key: object.key(),
                        source,
                    },
                )?,
            ),
            _ => None,
        };
        let shown = Shown {
            event_type: seen.event_type,
            origin: seen.origin,
            object: &object,
            received_at: seen.received_at,
            changes: changes.as_deref(),
            owners,
            diff: diff.as_ref(),
        };
        sink.object(index, &shown).map_err(TailError::Output)
    }

    /// `object` as shown: a Secret's values redacted unless `--show-secret-data`.
    fn shown(&self, object: &RawObject) -> Result<RawObject, TailError> {
        if !self.redact {
            return Ok(object.clone());
        }
        object.redacted().map_err(|source| TailError::Redact {
            key: object.key(),
            source,
        })
    }

    /// After a first LIST that found nothing, tells `sink` (as feed `index`'s) that the
    /// namespace does not exist, or the object named is not there. Nothing when the server
    /// cannot say (no right to get the namespace): an empty LIST of a namespace that exists is
    /// a plain empty result.
    pub(super) async fn say_what_is_missing(
        &self,
        index: usize,
        sink: &mut dyn Sink,
    ) -> std::io::Result<()> {
        let Some(lookup) = &self.lookup else {
            return Ok(());
        };
        let namespace_missing = match &lookup.namespace {
            Some(ns) => lookup.cluster.namespace_exists(ns).await == Some(false),
            None => false,
        };
        match (&lookup.name, namespace_missing) {
            (_, true) => sink.namespace_missing(index),
            (Some(name), false) => sink.object_missing(index, name),
            (None, false) => Ok(()),
        }
    }
}

/// The cache's version of the object a MODIFIED replaced (in the last notification its event
/// caused), which says what changed; none for any other event.
fn replaced(
    mut notifications: Vec<(NotificationKind, bool)>,
    event_type: EventType,
) -> Option<RawObject> {
    match notifications.pop() {
        Some((NotificationKind::Update { old, .. }, _)) if event_type == EventType::Modified => {
            Some(old)
        }
        _ => None,
    }
}
