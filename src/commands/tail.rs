//! `tail`: the reflector's output printed: every object event with its resourceVersion,
//! bookmarks, watch closes and reconnects, 410s and what a relist revealed; of several resources
//! (`deploy,rs,pods`), one reflector each, merged in arrival order.

mod config;
mod follow;
mod owned;
mod stats;

pub use config::TailConfig;
use stats::{summary, Stats};

use super::{connect_and_discover, resolve_in, resolve_targets, sleep_until, GlobalConfig, Target};
use crate::cli::{InitialMode, OutputFormat};
use crate::cluster::ApiResource;
use crate::error::{Error, Result, EXIT_INTERRUPTED, EXIT_OK};
use crate::informer::core::{fifo_item, Cache};
use crate::informer::fields::{changed_fields, summarize};
use crate::informer::listwatch::ListWatch;
use crate::informer::merge::{Merged, MergedError};
use crate::informer::object::RawObject;
use crate::informer::patch::ObjectDiff;
use crate::informer::processor::NotificationKind;
use crate::informer::reflector::{Reflector, ReflectorConfig, Start};
use crate::informer::transition::{EventType, ReflectorEvent};
use crate::output::stderr_is_terminal;
use crate::output::text::qualified_kind;
use crate::output::text::TextPrinter;
use crate::recording::{
    start_notice, BookmarkEvent, EventPrinter, JsonPrinter, Notice, ObjectEvent, Origin,
    StartNotice, Tee, Transition,
};
use follow::Follow;
use std::time::{Instant, SystemTime};

/// Why printing stopped.
enum Stop {
    /// A stop condition was met, `--for` is over, or the watch ended.
    Done,
    /// `--timeout` ran out before `--until-rv` or `--max-events` was reached.
    TimedOut,
    Interrupted,
}

/// Runs `tail` and returns the exit code.
pub async fn exec(global: &GlobalConfig, config: TailConfig) -> Result<u8> {
    let (watches, follow) = match &config.follow_owned {
        None => {
            let targets = resolve_targets(global, &config.resources, VERBS).await?;
            let watches = targets
                .into_iter()
                .map(|t| list_watch(t, &config, config.field_selector.clone()))
                .collect();
            (watches, None)
        }
        Some(owned_kinds) => {
            let name = config.name.as_deref().unwrap_or_default();
            let watches = follow_watches(global, &config, owned_kinds.as_deref()).await?;
            (watches, Some(Follow::new(0, name)))
        }
    };
    let mut feeds = Vec::with_capacity(watches.len());
    let mut reflectors = Vec::with_capacity(watches.len());
    for lw in watches {
        feeds.push(Feed {
            kind: qualified_kind(&lw.resource.kind, &lw.resource.api_version()),
            watch: start_notice(&lw),
            started: false,
            redact: lw.resource.is_secret() && !config.show_secret_data,
            stats: Stats::default(),
            cache: Cache::new(),
            listed: config.from_rv.is_some(),
            newest_rv: None,
        });
        reflectors.push(Reflector::new(lw, reflector_config(&config)));
    }
    let several = feeds.len() > 1 || follow.is_some();
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut printer: Box<dyn EventPrinter> = match config.output {
        OutputFormat::Text | OutputFormat::Wide => {
            let text = TextPrinter::new(
                stdout,
                std::io::stderr(),
                crate::output::color_stdout(),
                config.output == OutputFormat::Wide,
            );
            if several {
                Box::new(text.naming_resources())
            } else {
                Box::new(text)
            }
        }
        OutputFormat::Json => Box::new(JsonPrinter::new(stdout)),
    };
    if let Some(path) = &config.record {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| {
                Error::File(format!(
                    "cannot create --record file {}: {e}: name a new file in a writable directory",
                    path.display()
                ))
            })?;
        let recorder = JsonPrinter::new(std::io::BufWriter::new(file));
        printer = Box::new(Tee(vec![printer, Box::new(recorder)]));
    }
    let started = Instant::now();
    let mut session = Session {
        config: &config,
        printer: printer.as_mut(),
        feeds,
        follow,
        objects: 0,
        until_reached: false,
    };
    let outcome = session.run(Merged::start(reflectors)).await;
    let summary = summary(&session.feeds, started.elapsed());
    let missed_end = matches!(outcome, Ok(Stop::TimedOut)).then(|| session.missed_end());
    let _ = printer.flush();
    if config.stats || stderr_is_terminal() {
        for line in summary {
            eprintln!("{line}");
        }
    }
    match outcome {
        Ok(Stop::Done) => Ok(EXIT_OK),
        Ok(Stop::TimedOut) => Err(Error::TimedOut(missed_end.unwrap_or_default())),
        Ok(Stop::Interrupted) => Ok(EXIT_INTERRUPTED),
        Err(e) => Err(e),
    }
}

/// What tail needs of a resource: to list and watch it.
const VERBS: &[&str] = &["list", "watch"];

/// What `target`'s reflector lists and watches: with tail's selectors, `field_selector` for
/// fields.
fn list_watch(target: Target, config: &TailConfig, field_selector: Option<String>) -> ListWatch {
    ListWatch {
        cluster: target.cluster,
        resource: target.resource,
        namespace: target.namespace,
        label_selector: config.label_selector.clone(),
        field_selector,
        metadata_only: config.metadata_only,
    }
}

/// `--follow-owned`: the named object's resource (by name, unless its objects own others of
/// their kind) and, watched whole in its scope, each resource owned objects are looked for in.
async fn follow_watches(
    global: &GlobalConfig,
    config: &TailConfig,
    owned_kinds: Option<&[String]>,
) -> Result<Vec<ListWatch>> {
    let (cluster, resources) = connect_and_discover(global).await?;
    let owner = resolve_in(global, &cluster, &resources, &config.resources, VERBS)?.remove(0);
    let owned: Vec<ApiResource> = match owned_kinds {
        Some(names) => resolve_in(global, &cluster, &resources, names, VERBS)?
            .into_iter()
            .map(|t| t.resource)
            .collect(),
        None => owned::discover(global, &cluster, &owner, &resources).await?,
    };
    let owns_its_kind = owned.contains(&owner.resource);
    let by_name = (!owns_its_kind)
        .then(|| config.field_selector.clone())
        .flatten();
    let mut watches = Vec::with_capacity(owned.len() + 1);
    for resource in owned.into_iter().filter(|r| *r != owner.resource) {
        let target = Target {
            cluster: cluster.clone(),
            namespace: owned::scope(&owner, &resource),
            resource,
        };
        watches.push(list_watch(target, config, None));
    }
    watches.insert(0, list_watch(owner, config, by_name));
    Ok(watches)
}

/// Each resource's reflector: how tail starts (LIST, watch-list or a replay) and watches.
fn reflector_config(config: &TailConfig) -> ReflectorConfig {
    ReflectorConfig {
        start: match (&config.from_rv, config.initial) {
            (Some(rv), _) => Start::FromResourceVersion(rv.clone()),
            (None, InitialMode::WatchList) => Start::WatchList,
            (None, InitialMode::List | InitialMode::None) => Start::List,
        },
        relist_if_replay_expired: config.relist_if_replay_expired,
        chunk_size: config.chunk_size,
        bookmarks: config.bookmarks,
        server_timeout: config.server_timeout,
        reconnect: config.reconnect,
        initial_events_timeout: config.initial_events_timeout,
    }
}

/// One resource of a run: its watch, what was printed of it, and the informer's cache of what
/// tail has seen of it, whose notifications say what a relist revealed.
struct Feed {
    /// How lines name its objects' kind: `replicaset.apps`, `pod`.
    kind: String,
    /// What is watched: the `start` notice, which names the resource in every record.
    watch: StartNotice,
    /// Whether the start notice was printed (with the resource's first event, so a run that
    /// fails at once prints only its error).
    started: bool,
    /// Whether objects are Secrets whose values must not be printed.
    redact: bool,
    stats: Stats,
    /// Every object tail knows, at its last RV: the informer's cache, fed the reflector's events.
    cache: Cache,
    /// Whether the starting state is complete (a replay has none to wait for).
    listed: bool,
    /// The newest resourceVersion of a watch event, bookmark or LIST (what `--until-rv` is
    /// compared with).
    newest_rv: Option<u64>,
}

/// The state of one `tail` run: the resources' feeds, and what they share: the printer, the
/// stop conditions, the count of object events printed.
struct Session<'a> {
    config: &'a TailConfig,
    printer: &'a mut dyn EventPrinter,
    feeds: Vec<Feed>,
    /// With `--follow-owned`: which objects are in the followed set.
    follow: Option<Follow>,
    /// Object events printed, of every resource (what `--max-events` counts).
    objects: u64,
    /// Set once an event at or past `--until-rv` was printed.
    until_reached: bool,
}

impl Session<'_> {
    async fn run(&mut self, mut merged: Merged) -> Result<Stop> {
        let now = tokio::time::Instant::now();
        let ends = self.config.run_for.map(|t| now + t);
        let gives_up = self.config.timeout.map(|t| now + t);
        let interrupt = tokio::signal::ctrl_c();
        tokio::pin!(interrupt);
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
            self.handle(feed, event)?;
            if !merged.has_pending() {
                self.printer.flush().map_err(Error::Output)?;
            }
        }
    }

    /// Applies `event` to its resource's cache and prints it: an object event as the server
    /// sent it, what a relist revealed as the cache's notifications say, a transition as a
    /// notice.
    fn handle(&mut self, feed: usize, event: ReflectorEvent) -> Result<()> {
        let mut notifications = Vec::new();
        if let Some(item) = fifo_item(event.clone(), tokio::time::Instant::now()) {
            self.feeds[feed]
                .cache
                .apply(item, &mut |n, sync| notifications.push((n.kind, sync)));
        }
        match &event {
            // The initial state as the server sent it.
            ReflectorEvent::Listed {
                object,
                received_at,
                relist: false,
            } if self.config.initial != InitialMode::None => self.print_object(
                feed,
                EventType::Added,
                Origin::Initial,
                object,
                *received_at,
            )?,
            // Not printed, but what it owns and is owned by counts for what is followed.
            ReflectorEvent::Listed {
                object,
                relist: false,
                ..
            } => {
                if let Some(follow) = &mut self.follow {
                    follow.observe(feed, &self.feeds[feed].kind, EventType::Added, object);
                }
            }
            ReflectorEvent::Listed {
                received_at,
                relist: true,
                ..
            } => self.print_revealed(feed, notifications, *received_at)?,
            ReflectorEvent::ListComplete {
                resource_version,
                relist,
                ..
            } => {
                if *relist {
                    if self.feeds[feed].listed {
                        self.feeds[feed].stats.relists += 1;
                    }
                    self.print_revealed(feed, notifications, SystemTime::now())?;
                }
                self.feeds[feed].listed = true;
                self.check_until(feed, resource_version);
            }
            ReflectorEvent::Watched {
                event_type,
                object,
                received_at,
            } => {
                let previous = match notifications.pop() {
                    Some((NotificationKind::Update { old, .. }, _))
                        if *event_type == EventType::Modified =>
                    {
                        Some(old)
                    }
                    _ => None,
                };
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
            } => {
                self.feeds[feed].stats.bookmarks += 1;
                self.feeds[feed].stats.saw_rv(resource_version);
                self.check_until(feed, resource_version);
                if self.config.bookmarks {
                    self.printer
                        .bookmark(&BookmarkEvent {
                            watch: &self.feeds[feed].watch,
                            resource_version,
                            initial_events_end: *initial_events_end,
                            received_at: *received_at,
                        })
                        .map_err(Error::Output)?;
                }
            }
            ReflectorEvent::WatchClosed {
                retry_in: Some(_), ..
            } => self.feeds[feed].stats.reconnects += 1,
            _ => {}
        }
        match Transition::of(&event) {
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
        if !self.feeds[feed].listed && self.config.initial == InitialMode::None {
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
        let parse = |o: &RawObject| serde_json::from_str::<serde_json::Value>(o.json());
        match (parse(old), parse(new)) {
            (Ok(a), Ok(b)) => summarize(&changed_fields(&a, &b), 4, !self.feeds[feed].redact),
            _ => String::new(),
        }
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
            self.check_until(feed, object.resource_version());
        }
        let changes = match old {
            Some(old) if self.config.output != OutputFormat::Json => {
                Some(self.changes(feed, old, object))
            }
            _ => None,
        };
        let object = self.shown(feed, object)?;
        let diff = match (self.config.diff, old) {
            (Some(fields), Some(old)) => {
                let redacted = self.feeds[feed].redact;
                let diff = ObjectDiff::between(&self.shown(feed, old)?, &object, fields, redacted)
                    .map_err(|e| {
                        Error::Watch(format!(
                            "cannot compare {} with its previous version: {e}",
                            object.key()
                        ))
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
    fn missed_end(&self) -> String {
        let config = self.config;
        let limit = crate::format::duration(config.timeout.unwrap_or_default());
        let rv = config
            .until_rv
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
        let until = self.config.until_rv.unwrap_or_default();
        format!(
            "the watch ended (--no-reconnect) before resourceVersion {until} was seen; {}: \
             drop --no-reconnect to resume the watch until it is",
            self.newest()
        )
    }

    /// The newest resourceVersion seen, for an error line: of each resource when several.
    fn newest(&self) -> String {
        match self.feeds.as_slice() {
            [one] => match one.newest_rv {
                Some(rv) => format!("the newest resourceVersion seen was {rv}"),
                None => "no resourceVersion was seen".to_string(),
            },
            several => {
                let each: Vec<String> = several
                    .iter()
                    .map(|f| match f.newest_rv {
                        Some(rv) => format!("{} {rv}", f.watch.resource),
                        None => format!("{} none", f.watch.resource),
                    })
                    .collect();
                format!("the newest resourceVersions seen were {}", each.join(", "))
            }
        }
    }

    fn check_until(&mut self, feed: usize, rv: &str) {
        let Ok(rv) = rv.parse::<u64>() else { return };
        let newest = &mut self.feeds[feed].newest_rv;
        *newest = (*newest).max(Some(rv));
        if let Some(until) = self.config.until_rv {
            self.until_reached |= rv >= until;
        }
    }
}
