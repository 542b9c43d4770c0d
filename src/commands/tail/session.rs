//! One `tail` run once its watches are set up: each resource's feed (its cache, counts, start
//! notice), the merged stream read until a stop condition, and every event applied and printed
//! (with `--follow-owned`, only the followed objects; with `--diff`, each change as a diff).

use super::stats::Stats;
use super::{Stdout, TailConfig};
use crate::cluster::resource_version::ResourceVersion;
use crate::cluster::Cluster;
use crate::commands::{sleep_until, RunLimits};
use crate::error::{Error, Result};
use crate::informer::core::{fifo_item, Cache};
use crate::informer::fields;
use crate::informer::merge::{Merged, MergedError};
use crate::informer::object::RawObject;
use crate::informer::patch::ObjectDiff;
use crate::informer::processor::NotificationKind;
use crate::informer::transition::{EventType, ReflectorEvent};
use crate::recording::{
    BookmarkEvent, EventPrinter, Missing, Notice, ObjectEvent, Origin, StartNotice, Transition,
};
use crate::tail::owners::OwnerGraph;
use std::time::SystemTime;

/// Why printing stopped.
pub(super) enum Stop {
    /// A stop condition was met, `--for` is over, or the watch ended.
    Done,
    /// `--timeout` ran out before `--until-rv` or `--max-events` was reached.
    TimedOut,
    Interrupted,
}

/// One resource of a run: its watch, what was printed of it, and the informer's cache of what
/// tail has seen of it, whose notifications say what a relist revealed.
pub(super) struct Feed {
    /// How lines name its objects' kind: `replicaset.apps`, `pod`.
    pub(super) kind: String,
    /// What is watched: the `start` notice, which names the resource in every record.
    pub(super) watch: StartNotice,
    /// Whether the start notice was printed (with the resource's first event, so a run that
    /// fails at once prints only its error).
    pub(super) started: bool,
    /// Whether objects are Secrets whose values must not be printed.
    pub(super) redact: bool,
    pub(super) stats: Stats,
    /// Every object tail knows, at its last RV: the informer's cache, fed the reflector's events.
    pub(super) cache: Cache,
    /// Whether the starting state is complete (a replay has none to wait for).
    pub(super) listed: bool,
    /// The newest resourceVersion of a watch event, bookmark or LIST (what `--until-rv` is
    /// compared with).
    pub(super) newest_rv: Option<ResourceVersion>,
    /// Where to ask, when the first LIST finds nothing, whether the namespace (and the named
    /// object) exists, to say so: a typo in `-n` is not a quiet, empty tail.
    pub(super) lookup: Option<Lookup>,
}

/// What a feed looks up when its first LIST is empty.
pub(super) struct Lookup {
    pub(super) cluster: Cluster,
    /// The object the feed is of (`tail deploy web`), if one was named.
    pub(super) name: Option<String>,
}

/// The state of one `tail` run: the resources' feeds, and what they share: the printer, the
/// stop conditions, the count of object events printed.
pub(super) struct Session<'a> {
    pub(super) config: &'a TailConfig,
    pub(super) printer: &'a mut dyn EventPrinter,
    pub(super) feeds: Vec<Feed>,
    /// With `--follow-owned`: which objects are in the followed set.
    pub(super) follow: Option<OwnerGraph>,
    /// Object events printed, of every resource (what `--max-events` counts).
    pub(super) objects: u64,
    /// Set once an event at or past `--until-rv` was printed.
    pub(super) until_reached: bool,
}

impl Session<'_> {
    pub(super) async fn run(&mut self, mut merged: Merged, limits: RunLimits) -> Result<Stop> {
        let (ends, gives_up) = (limits.ends(), limits.gives_up());
        let interrupt = crate::stop::requested();
        tokio::pin!(interrupt);
        let closed = crate::output::stdout_closed();
        tokio::pin!(closed);
        loop {
            if self.until_reached
                || self
                    .config
                    .max_events
                    .is_some_and(|max| self.objects >= max)
            {
                return Ok(Stop::Done);
            }
            let next = tokio::select! {
                biased;
                _ = &mut interrupt => return Ok(Stop::Interrupted),
                // `| head` has its lines: done, at once, however quiet the watch is.
                _ = &mut closed => return Ok(Stop::Done),
                // --for first: when both end at once, the time box wins (exit 0).
                _ = sleep_until(ends) => return Ok(Stop::Done),
                _ = sleep_until(gives_up) => return Ok(Stop::TimedOut),
                next = merged.next() => next,
            };
            let (feed, event) = match next {
                Ok(Some(next)) => next,
                // Every watch ended for good (--no-reconnect): an --until-rv not reached now
                // never will be, and what was printed is not everything up to it.
                Ok(None) if self.config.until_rv.is_some() => {
                    self.printer.flush().map_err(Error::Output)?;
                    return Err(Error::Watch(self.watch_ended_early()));
                }
                Ok(None) => return Ok(Stop::Done),
                Err(MergedError { reflector, error }) => {
                    self.printer.flush().map_err(Error::Output)?;
                    let error = Error::from(error);
                    return Err(match self.feeds.as_slice() {
                        [_] => error,
                        feeds => {
                            Error::Watch(format!("{}: {error}", feeds[reflector].watch.resource))
                        }
                    });
                }
            };
            if !self.feeds[feed].started {
                self.feeds[feed].started = true;
                self.printer
                    .notice(Notice::Start(&self.feeds[feed].watch), SystemTime::now())
                    .map_err(Error::Output)?;
            }
            let first_empty = !self.feeds[feed].listed
                && matches!(
                    event,
                    ReflectorEvent::ListComplete {
                        objects: 0,
                        relist: false,
                        ..
                    }
                );
            self.handle(feed, event)?;
            if first_empty {
                self.say_what_is_missing(feed).await?;
            }
            if !merged.has_pending() {
                self.printer.flush().map_err(Error::Output)?;
            }
        }
    }

    /// After a first LIST that found nothing: a notice when the namespace does not exist, or
    /// the object named is not there. Nothing when the server cannot say (no right to get the
    /// namespace): an empty LIST of a namespace that exists is a plain empty result.
    async fn say_what_is_missing(&mut self, feed: usize) -> Result<()> {
        let Some(lookup) = &self.feeds[feed].lookup else {
            return Ok(());
        };
        let watch = &self.feeds[feed].watch;
        let namespace_missing = match &watch.namespace {
            Some(ns) => super::super::namespace_exists(&lookup.cluster, ns).await == Some(false),
            None => false,
        };
        let missing = match (&lookup.name, namespace_missing) {
            (_, true) => Missing::Namespace,
            (Some(name), false) => Missing::Object { name },
            (None, false) => return Ok(()),
        };
        self.printer
            .notice(Notice::NotFound { watch, missing }, SystemTime::now())
            .map_err(Error::Output)
    }

    /// Applies `event` to its resource's cache and prints it: an object event as the server
    /// sent it, what a relist revealed as the cache's notifications say, a transition as a
    /// notice.
    fn handle(&mut self, feed: usize, event: ReflectorEvent) -> Result<()> {
        let notifications = self.update_cache(feed, &event);
        match &event {
            ReflectorEvent::Listed {
                object,
                received_at,
                relist: false,
            } => self.initial_object(feed, object, *received_at)?,
            ReflectorEvent::Listed {
                received_at,
                relist: true,
                ..
            } => self.print_revealed(feed, notifications, *received_at)?,
            ReflectorEvent::ListComplete {
                resource_version,
                relist,
                ..
            } => self.list_complete(feed, resource_version, *relist, notifications)?,
            ReflectorEvent::Watched {
                event_type,
                object,
                received_at,
            } => {
                let previous = replaced(notifications, *event_type);
                self.print_object_with(
                    feed,
                    *event_type,
                    Origin::Watch,
                    object,
                    *received_at,
                    previous.as_ref(),
                )?;
            }
            ReflectorEvent::Bookmark {
                resource_version,
                initial_events_end,
                received_at,
            } => self.bookmark(feed, resource_version, *initial_events_end, *received_at)?,
            ReflectorEvent::WatchClosed {
                retry_in: Some(_), ..
            } => self.feeds[feed].stats.reconnects += 1,
            _ => {}
        }
        self.print_transition(feed, &event)
    }

    /// Feeds `event` to its resource's cache, and returns what the cache notified (each with
    /// whether it was a resync's): what a relist revealed, or the version a MODIFIED replaced.
    fn update_cache(
        &mut self,
        feed: usize,
        event: &ReflectorEvent,
    ) -> Vec<(NotificationKind, bool)> {
        let mut notifications = Vec::new();
        if let Some(item) = fifo_item(event.clone(), tokio::time::Instant::now()) {
            self.feeds[feed]
                .cache
                .apply(item, &mut |n, sync| notifications.push((n.kind, sync)));
        }
        notifications
    }

    /// An object of the first LIST: printed, unless `--initial none` hides the initial state.
    fn initial_object(
        &mut self,
        feed: usize,
        object: &RawObject,
        received_at: SystemTime,
    ) -> Result<()> {
        if self.config.begin.shows_initial() {
            // The initial state as the server sent it.
            return self.print_object(feed, EventType::Added, Origin::Initial, object, received_at);
        }
        // Not printed, but what it owns and is owned by counts for what is followed.
        if let Some(follow) = &mut self.follow {
            follow.observe(feed, &self.feeds[feed].kind, EventType::Added, object);
        }
        Ok(())
    }

    /// The end of a LIST: a relist's findings printed (and counted, unless it was the first
    /// LIST), the starting state complete, and its RV kept for `--until-rv`.
    fn list_complete(
        &mut self,
        feed: usize,
        resource_version: &str,
        relist: bool,
        notifications: Vec<(NotificationKind, bool)>,
    ) -> Result<()> {
        if relist {
            if self.feeds[feed].listed {
                self.feeds[feed].stats.relists += 1;
            }
            self.print_revealed(feed, notifications, SystemTime::now())?;
        }
        self.feeds[feed].listed = true;
        self.check_until(feed, resource_version)
    }

    /// A bookmark: counted, its RV kept for `--until-rv`, and printed unless `--no-bookmarks`.
    fn bookmark(
        &mut self,
        feed: usize,
        resource_version: &str,
        initial_events_end: bool,
        received_at: SystemTime,
    ) -> Result<()> {
        self.feeds[feed].stats.bookmarks += 1;
        self.feeds[feed].stats.saw_rv(resource_version);
        self.check_until(feed, resource_version)?;
        if self.config.bookmarks {
            self.printer
                .bookmark(&BookmarkEvent {
                    watch: &self.feeds[feed].watch,
                    resource_version,
                    initial_events_end,
                    received_at,
                })
                .map_err(Error::Output)?;
        }
        Ok(())
    }

    /// Prints `event` as a notice if it is one: any event but an object's or a bookmark.
    fn print_transition(&mut self, feed: usize, event: &ReflectorEvent) -> Result<()> {
        match Transition::of(event) {
            Some(transition) => self
                .printer
                .notice(
                    Notice::Transition {
                        watch: &self.feeds[feed].watch,
                        transition,
                    },
                    SystemTime::now(),
                )
                .map_err(Error::Output),
            None => Ok(()),
        }
    }

    /// Prints what a relist revealed, as the cache's notifications say: an object it did not
    /// have (ADDED), one with another RV (MODIFIED, or DELETED and ADDED when its uid changed),
    /// one that vanished (DELETED). Objects unchanged since tail saw them print nothing, and
    /// nothing prints while `--initial none` hides the initial LIST.
    fn print_revealed(
        &mut self,
        feed: usize,
        notifications: Vec<(NotificationKind, bool)>,
        at: SystemTime,
    ) -> Result<()> {
        if !self.feeds[feed].listed && !self.config.begin.shows_initial() {
            return Ok(());
        }
        for (kind, sync) in notifications {
            match kind {
                NotificationKind::Add { object, .. } => {
                    self.print_object(feed, EventType::Added, Origin::Relist, &object, at)?
                }
                NotificationKind::Update { old, new } if old.uid() != new.uid() => {
                    self.print_object(feed, EventType::Deleted, Origin::Relist, &old, at)?;
                    self.print_object(feed, EventType::Added, Origin::Relist, &new, at)?;
                }
                // Only to resyncing listeners: the same RV as tail saw.
                NotificationKind::Update { .. } if sync => {}
                NotificationKind::Update { old, new } => self.print_object_with(
                    feed,
                    EventType::Modified,
                    Origin::Relist,
                    &new,
                    at,
                    Some(&old),
                )?,
                NotificationKind::Delete { object, .. } => {
                    self.print_object(feed, EventType::Deleted, Origin::Relist, &object, at)?
                }
            }
        }
        Ok(())
    }

    /// Which fields changed from `old` to `new`, as text shows them (values hidden for Secrets).
    fn changes(&self, feed: usize, old: &RawObject, new: &RawObject) -> String {
        fields::summary(old, new, 4, !self.feeds[feed].redact)
    }

    fn print_object(
        &mut self,
        feed: usize,
        event_type: EventType,
        origin: Origin,
        object: &RawObject,
        received_at: SystemTime,
    ) -> Result<()> {
        self.print_object_with(feed, event_type, origin, object, received_at, None)
    }

    /// Prints an object event; a MODIFIED's `old` version (the cache's) says what changed.
    /// With `--follow-owned`, only of an object in the followed set, followed by the objects it
    /// brought into the set.
    fn print_object_with(
        &mut self,
        feed: usize,
        event_type: EventType,
        origin: Origin,
        object: &RawObject,
        received_at: SystemTime,
        old: Option<&RawObject>,
    ) -> Result<()> {
        let Some(follow) = &mut self.follow else {
            return self.emit(feed, event_type, origin, object, received_at, old, None);
        };
        let verdict = follow.observe(feed, &self.feeds[feed].kind, event_type, object);
        if verdict.print {
            self.emit(
                feed,
                event_type,
                origin,
                object,
                received_at,
                old,
                Some(&verdict.chain),
            )?;
        }
        for (owned_feed, key) in verdict.joined {
            let current = self.feeds[owned_feed].cache.get(&key);
            let (Some(owned), Some(follow)) = (current, &self.follow) else {
                continue;
            };
            let chain = follow.chain(owned.uid());
            self.emit(
                owned_feed,
                EventType::Added,
                origin,
                &owned,
                received_at,
                None,
                Some(&chain),
            )?;
        }
        Ok(())
    }

    /// Prints one object event (unless `--max-events` is reached) and counts it; a MODIFIED's
    /// `old` version gives the fields that changed and, with `--diff`, its diff.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        feed: usize,
        event_type: EventType,
        origin: Origin,
        object: &RawObject,
        received_at: SystemTime,
        old: Option<&RawObject>,
        owners: Option<&[String]>,
    ) -> Result<()> {
        if self
            .config
            .max_events
            .is_some_and(|max| self.objects >= max)
        {
            return Ok(());
        }
        self.objects += 1;
        self.feeds[feed]
            .stats
            .count(event_type, object.resource_version());
        // A LIST's objects come in no RV order: a LIST reaches --until-rv at its end, by its RV.
        if origin == Origin::Watch {
            self.check_until(feed, object.resource_version())?;
        }
        let changes = match old {
            Some(old) if self.config.stdout != Stdout::Json => {
                Some(self.changes(feed, old, object))
            }
            _ => None,
        };
        let object = self.shown(feed, object)?;
        let diff = match (self.config.diff, old) {
            (Some(fields), Some(old)) => {
                let redacted = self.feeds[feed].redact;
                let diff = ObjectDiff::between(&self.shown(feed, old)?, &object, fields, redacted)
                    .map_err(|source| Error::TailDiff {
                        key: object.key(),
                        source,
                    })?;
                Some(diff)
            }
            _ => None,
        };
        self.printer
            .object(&ObjectEvent {
                watch: &self.feeds[feed].watch,
                event_type,
                origin,
                object: &object,
                received_at,
                changes: changes.as_deref(),
                owners,
                diff: diff.as_ref(),
            })
            .map_err(Error::Output)
    }

    /// `object` as printed: a Secret's values redacted unless `--show-secret-data`.
    fn shown(&self, feed: usize, object: &RawObject) -> Result<RawObject> {
        if !self.feeds[feed].redact {
            return Ok(object.clone());
        }
        object
            .redacted()
            .map_err(|e| Error::Usage(format!("cannot redact Secret {}: {e}", object.key())))
    }

    /// What `--timeout` ran out before, for its error line.
    pub(super) fn missed_end(&self) -> String {
        let config = self.config;
        let limit = crate::format::duration(config.timeout.unwrap_or_default());
        let rv = config
            .until_rv
            .as_ref()
            .map(|rv| format!("resourceVersion {rv} was seen"));
        let events = config
            .max_events
            .map(|max| format!("{max} object events arrived ({} did)", self.objects));
        let missed = match (rv, events) {
            (Some(rv), Some(events)) => format!("{rv} or {events}"),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => "the end condition was met".to_string(),
        };
        format!(
            "--timeout {limit} reached before {missed}; {}",
            self.newest()
        )
    }

    /// Why an --until-rv run ended without reaching it.
    fn watch_ended_early(&self) -> String {
        let until = self
            .config
            .until_rv
            .as_ref()
            .map(ResourceVersion::to_string)
            .unwrap_or_default();
        format!(
            "the watch ended (--no-reconnect) before resourceVersion {until} was seen; {}: \
             drop --no-reconnect to resume the watch until it is",
            self.newest()
        )
    }

    /// The newest resourceVersion seen, for an error line: of each resource when several.
    fn newest(&self) -> String {
        match self.feeds.as_slice() {
            [one] => match &one.newest_rv {
                Some(rv) => format!("the newest resourceVersion seen was {rv}"),
                None => "no resourceVersion was seen".to_string(),
            },
            several => {
                let each: Vec<String> = several
                    .iter()
                    .map(|f| match &f.newest_rv {
                        Some(rv) => format!("{} {rv}", f.watch.resource),
                        None => format!("{} none", f.watch.resource),
                    })
                    .collect();
                format!("the newest resourceVersions seen were {}", each.join(", "))
            }
        }
    }

    /// Keeps the newest resourceVersion seen, and whether --until-rv is reached. With
    /// --until-rv, an RV that is not a number ends the run naming it: it can never be compared.
    fn check_until(&mut self, feed: usize, rv: &str) -> Result<()> {
        let rv = match ResourceVersion::parse(rv) {
            Ok(rv) => rv,
            Err(e) => {
                return match &self.config.until_rv {
                    Some(until) => Err(Error::Watch(format!(
                        "--until-rv {until} cannot be reached: {} sent {e}",
                        self.feeds[feed].watch.resource
                    ))),
                    None => Ok(()),
                }
            }
        };
        if let Some(until) = &self.config.until_rv {
            self.until_reached |= rv >= *until;
        }
        let newest = &mut self.feeds[feed].newest_rv;
        if newest.as_ref().is_none_or(|n| rv > *n) {
            *newest = Some(rv);
        }
        Ok(())
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
