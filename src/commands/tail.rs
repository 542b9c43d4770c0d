//! `tail`: the reflector's output printed: every object event with its resourceVersion,
//! bookmarks, watch closes and reconnects, 410s and what a relist revealed.

mod config;

pub use config::TailConfig;

use super::{resolve_target, sleep_until, GlobalConfig};
use crate::cli::{InitialMode, OutputFormat};
use crate::error::{Error, Result, EXIT_INTERRUPTED, EXIT_OK};
use crate::informer::core::{fifo_item, Cache};
use crate::informer::fields::{changed_fields, summarize};
use crate::informer::listwatch::ListWatch;
use crate::informer::object::RawObject;
use crate::informer::processor::NotificationKind;
use crate::informer::reflector::{Reflector, ReflectorConfig, Start};
use crate::informer::transition::{EventType, ReflectorEvent};
use crate::output::stderr_is_terminal;
use crate::output::text::TextPrinter;
use crate::recording::{
    start_notice, BookmarkEvent, EventPrinter, JsonPrinter, Notice, ObjectEvent, Origin,
    StartNotice, Tee, Transition,
};
use std::time::{Duration, Instant, SystemTime};

/// Counters for the exit summary.
#[derive(Debug, Default)]
struct Stats {
    added: u64,
    modified: u64,
    deleted: u64,
    bookmarks: u64,
    reconnects: u64,
    relists: u64,
    first_rv: Option<String>,
    last_rv: Option<String>,
}

impl Stats {
    fn objects(&self) -> u64 {
        self.added + self.modified + self.deleted
    }

    fn count(&mut self, event_type: EventType, rv: &str) {
        match event_type {
            EventType::Added => self.added += 1,
            EventType::Modified => self.modified += 1,
            EventType::Deleted => self.deleted += 1,
        }
        self.saw_rv(rv);
    }

    fn saw_rv(&mut self, rv: &str) {
        if self.first_rv.is_none() {
            self.first_rv = Some(rv.to_string());
        }
        self.last_rv = Some(rv.to_string());
    }

    fn summary(&self, elapsed: Duration) -> String {
        let secs = elapsed.as_secs_f64();
        let rate = if secs > 0.0 {
            self.objects() as f64 / secs
        } else {
            0.0
        };
        format!(
            "summary: {} events (ADDED {}, MODIFIED {}, DELETED {}), {} bookmarks, {} reconnects, \
             {} relists, RV {} to {}, {:.1}s, {:.1} events/s",
            self.objects(),
            self.added,
            self.modified,
            self.deleted,
            self.bookmarks,
            self.reconnects,
            self.relists,
            self.first_rv.as_deref().unwrap_or("-"),
            self.last_rv.as_deref().unwrap_or("-"),
            secs,
            rate
        )
    }
}

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
    let target = resolve_target(global, &config.resource, &["list", "watch"]).await?;
    let lw = ListWatch {
        cluster: target.cluster.clone(),
        resource: target.resource.clone(),
        namespace: target.namespace.clone(),
        label_selector: config.label_selector.clone(),
        field_selector: config.field_selector.clone(),
        metadata_only: config.metadata_only,
    };
    let start = start_notice(&lw);
    let reflector = Reflector::new(
        lw,
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
        },
    );
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let mut printer: Box<dyn EventPrinter> = match config.output {
        OutputFormat::Text | OutputFormat::Wide => Box::new(TextPrinter::new(
            stdout,
            std::io::stderr(),
            crate::output::color_stdout(),
            config.output == OutputFormat::Wide,
        )),
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
        redact: target.resource.is_secret() && !config.show_secret_data,
        printer: printer.as_mut(),
        stats: Stats::default(),
        cache: Cache::new(),
        listed: config.from_rv.is_some(),
        until_reached: false,
        newest_rv: None,
    };
    let outcome = session.run(reflector, start).await;
    let summary = session.stats.summary(started.elapsed());
    let missed_end = matches!(outcome, Ok(Stop::TimedOut)).then(|| session.missed_end());
    let _ = printer.flush();
    if config.stats || stderr_is_terminal() {
        eprintln!("{summary}");
    }
    match outcome {
        Ok(Stop::Done) => Ok(EXIT_OK),
        Ok(Stop::TimedOut) => Err(Error::TimedOut(missed_end.unwrap_or_default())),
        Ok(Stop::Interrupted) => Ok(EXIT_INTERRUPTED),
        Err(e) => Err(e),
    }
}

/// The state of one `tail` run: what was printed, and the informer's cache of what tail has
/// seen, whose notifications say what a relist revealed.
struct Session<'a> {
    config: &'a TailConfig,
    /// Whether objects are Secrets whose values must not be printed.
    redact: bool,
    printer: &'a mut dyn EventPrinter,
    stats: Stats,
    /// Every object tail knows, at its last RV: the informer's cache, fed the reflector's events.
    cache: Cache,
    /// Whether the starting state is complete (a replay has none to wait for).
    listed: bool,
    /// Set once an event at or past `--until-rv` was printed.
    until_reached: bool,
    /// The newest resourceVersion of a watch event, bookmark or LIST (what `--until-rv` is
    /// compared with).
    newest_rv: Option<u64>,
}

impl Session<'_> {
    async fn run(&mut self, mut reflector: Reflector, start: StartNotice) -> Result<Stop> {
        // Printed with the first event, so a run that fails at once prints only its error.
        let mut start = Some(start);
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
                    .is_some_and(|max| self.stats.objects() >= max)
            {
                return Ok(Stop::Done);
            }
            let next = tokio::select! {
                biased;
                _ = &mut interrupt => return Ok(Stop::Interrupted),
                // --for first: when both end at once, the time box wins (exit 0).
                _ = sleep_until(ends) => return Ok(Stop::Done),
                _ = sleep_until(gives_up) => return Ok(Stop::TimedOut),
                next = reflector.next() => next,
            };
            let event = match next {
                Ok(Some(event)) => event,
                // The watch ended for good (--no-reconnect): an --until-rv not reached now never
                // will be, and what was printed is not everything up to it.
                Ok(None) if self.config.until_rv.is_some() => {
                    self.printer.flush().map_err(Error::Output)?;
                    return Err(Error::Watch(self.watch_ended_early()));
                }
                Ok(None) => return Ok(Stop::Done),
                Err(e) => {
                    self.printer.flush().map_err(Error::Output)?;
                    return Err(e.into());
                }
            };
            if let Some(start) = start.take() {
                self.notice(Notice::Start(&start))?;
            }
            self.handle(event)?;
            if !reflector.has_pending() {
                self.printer.flush().map_err(Error::Output)?;
            }
        }
    }

    /// Applies `event` to the cache and prints it: an object event as the server sent it, what
    /// a relist revealed as the cache's notifications say, a transition as a notice.
    fn handle(&mut self, event: ReflectorEvent) -> Result<()> {
        let mut notifications = Vec::new();
        if let Some(item) = fifo_item(event.clone(), tokio::time::Instant::now()) {
            self.cache
                .apply(item, &mut |n, sync| notifications.push((n.kind, sync)));
        }
        match &event {
            // The initial state as the server sent it.
            ReflectorEvent::Listed {
                object,
                received_at,
                relist: false,
            } if self.config.initial != InitialMode::None => {
                self.print_object(EventType::Added, Origin::Initial, object, *received_at)?
            }
            ReflectorEvent::Listed {
                received_at,
                relist: true,
                ..
            } => self.print_revealed(notifications, *received_at)?,
            ReflectorEvent::ListComplete {
                resource_version,
                relist,
                ..
            } => {
                if *relist {
                    if self.listed {
                        self.stats.relists += 1;
                    }
                    self.print_revealed(notifications, SystemTime::now())?;
                }
                self.listed = true;
                self.check_until(resource_version);
            }
            ReflectorEvent::Watched {
                event_type,
                object,
                received_at,
            } => {
                let changes = match notifications.pop() {
                    Some((NotificationKind::Update { old, .. }, _))
                        if *event_type == EventType::Modified
                            && self.config.output != OutputFormat::Json =>
                    {
                        Some(self.changes(&old, object))
                    }
                    _ => None,
                };
                self.print_object_with(
                    *event_type,
                    Origin::Watch,
                    object,
                    *received_at,
                    changes.as_deref(),
                )?;
            }
            ReflectorEvent::Bookmark {
                resource_version,
                initial_events_end,
                received_at,
            } => {
                self.stats.bookmarks += 1;
                self.stats.saw_rv(resource_version);
                self.check_until(resource_version);
                if self.config.bookmarks {
                    self.printer
                        .bookmark(&BookmarkEvent {
                            resource_version,
                            initial_events_end: *initial_events_end,
                            received_at: *received_at,
                        })
                        .map_err(Error::Output)?;
                }
            }
            ReflectorEvent::WatchClosed {
                retry_in: Some(_), ..
            } => self.stats.reconnects += 1,
            _ => {}
        }
        match Transition::of(&event) {
            Some(transition) => self.notice(Notice::Transition(transition)),
            None => Ok(()),
        }
    }

    /// Prints what a relist revealed, as the cache's notifications say: an object it did not
    /// have (ADDED), one with another RV (MODIFIED, or DELETED and ADDED when its uid changed),
    /// one that vanished (DELETED). Objects unchanged since tail saw them print nothing, and
    /// nothing prints while `--initial none` hides the initial LIST.
    fn print_revealed(
        &mut self,
        notifications: Vec<(NotificationKind, bool)>,
        at: SystemTime,
    ) -> Result<()> {
        if self.initial_list_hidden() {
            return Ok(());
        }
        for (kind, sync) in notifications {
            match kind {
                NotificationKind::Add { object, .. } => {
                    self.print_object(EventType::Added, Origin::Relist, &object, at)?
                }
                NotificationKind::Update { old, new } if old.uid() != new.uid() => {
                    self.print_object(EventType::Deleted, Origin::Relist, &old, at)?;
                    self.print_object(EventType::Added, Origin::Relist, &new, at)?;
                }
                // Only to resyncing listeners: the same RV as tail saw.
                NotificationKind::Update { .. } if sync => {}
                NotificationKind::Update { old, new } => {
                    let changes = (self.config.output != OutputFormat::Json)
                        .then(|| self.changes(&old, &new));
                    self.print_object_with(
                        EventType::Modified,
                        Origin::Relist,
                        &new,
                        at,
                        changes.as_deref(),
                    )?
                }
                NotificationKind::Delete { object, .. } => {
                    self.print_object(EventType::Deleted, Origin::Relist, &object, at)?
                }
            }
        }
        Ok(())
    }

    /// Which fields changed from `old` to `new`, as text shows them (values hidden for Secrets).
    fn changes(&self, old: &RawObject, new: &RawObject) -> String {
        let parse = |o: &RawObject| serde_json::from_str::<serde_json::Value>(o.json());
        match (parse(old), parse(new)) {
            (Ok(a), Ok(b)) => summarize(&changed_fields(&a, &b), 4, !self.redact),
            _ => String::new(),
        }
    }

    fn print_object(
        &mut self,
        event_type: EventType,
        origin: Origin,
        object: &RawObject,
        received_at: SystemTime,
    ) -> Result<()> {
        self.print_object_with(event_type, origin, object, received_at, None)
    }

    fn print_object_with(
        &mut self,
        event_type: EventType,
        origin: Origin,
        object: &RawObject,
        received_at: SystemTime,
        changes: Option<&str>,
    ) -> Result<()> {
        if self
            .config
            .max_events
            .is_some_and(|max| self.stats.objects() >= max)
        {
            return Ok(());
        }
        self.stats.count(event_type, object.resource_version());
        // A LIST's objects come in no RV order: a LIST reaches --until-rv at its end, by its RV.
        if origin == Origin::Watch {
            self.check_until(object.resource_version());
        }
        let redacted;
        let object = if self.redact {
            redacted = object
                .redacted()
                .map_err(|e| Error::Usage(format!("cannot redact Secret {}: {e}", object.key())))?;
            &redacted
        } else {
            object
        };
        self.printer
            .object(&ObjectEvent {
                event_type,
                origin,
                object,
                received_at,
                changes,
            })
            .map_err(Error::Output)
    }

    /// Whether what is listed now belongs to the initial LIST (also when it started over) and
    /// --initial none hides it.
    fn initial_list_hidden(&self) -> bool {
        !self.listed && self.config.initial == InitialMode::None
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
            .map(|max| format!("{max} object events arrived ({} did)", self.stats.objects()));
        let missed = match (rv, events) {
            (Some(rv), Some(events)) => format!("{rv} or {events}"),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => "the end condition was met".to_string(),
        };
        let last = match self.newest_rv {
            Some(rv) => format!("the newest resourceVersion seen was {rv}"),
            None => "no resourceVersion was seen".to_string(),
        };
        format!("--timeout {limit} reached before {missed}; {last}")
    }

    /// Why an --until-rv run ended without reaching it.
    fn watch_ended_early(&self) -> String {
        let until = self.config.until_rv.unwrap_or_default();
        let last = match self.newest_rv {
            Some(rv) => format!("the newest resourceVersion seen was {rv}"),
            None => "no resourceVersion was seen".to_string(),
        };
        format!(
            "the watch ended (--no-reconnect) before resourceVersion {until} was seen; {last}: \
             drop --no-reconnect to resume the watch until it is"
        )
    }

    fn check_until(&mut self, rv: &str) {
        let Ok(rv) = rv.parse::<u64>() else { return };
        self.newest_rv = self.newest_rv.max(Some(rv));
        if let Some(until) = self.config.until_rv {
            self.until_reached |= rv >= until;
        }
    }

    fn notice(&mut self, notice: Notice<'_>) -> Result<()> {
        self.printer
            .notice(notice, SystemTime::now())
            .map_err(Error::Output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_events_and_rates() {
        let mut s = Stats::default();
        s.count(EventType::Added, "1");
        s.count(EventType::Modified, "2");
        s.bookmarks = 1;
        let text = s.summary(Duration::from_secs(2));
        assert!(
            text.contains("2 events (ADDED 1, MODIFIED 1, DELETED 0)"),
            "{text}"
        );
        assert!(text.contains("RV 1 to 2"), "{text}");
        assert!(text.contains("1.0 events/s"), "{text}");
    }
}
