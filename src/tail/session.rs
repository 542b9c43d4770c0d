//! One `tail` run once its watches are set up: the merged stream read until a stop condition,
//! each event handled by its resource's feed and what that shows handed to the sink; with
//! `--follow-owned`, only the followed objects, as the owner graph says; with `--react`, what
//! became of each write seen, when it is known.

use super::error::TailError;
use super::feed::{Detail, Feed, Seen};
use super::filter::Filter;
use super::owners::OwnerGraph;
use super::react::{ReactConfig, Reacting, ReactionStats};
use super::sink::Sink;
use crate::cluster::resource_version::ResourceVersion;
use crate::informer::merge::{Merged, MergedError};
use crate::informer::reflector::ReflectorError;
use crate::informer::transition::{EventType, Origin, ReflectorEvent};
use crate::signal::sleep_until;
use std::future::Future;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// What a session shows, and when it stops.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Whether the objects that exist at the start are shown (not with `--initial none`).
    pub show_initial: bool,
    /// Whether BOOKMARKs are shown (not with `--no-bookmarks`).
    pub bookmarks: bool,
    pub detail: Detail,
    /// Stop after this many object events, of every resource.
    pub max_events: Option<u64>,
    /// Stop after an event at or past this resourceVersion.
    pub until_rv: Option<ResourceVersion>,
    /// `--timeout`, named by the error line of a run that gave up.
    pub timeout: Option<Duration>,
    /// `--for`, named by the error line of a replay that never began.
    pub run_for: Option<Duration>,
    /// What of the object events is hidden (`--types`, `--ignore-field`).
    pub filter: Filter,
}

/// When a run ends whatever it has seen: `ends` (`--for`: done) and `gives_up` (`--timeout`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Deadlines {
    pub ends: Option<Instant>,
    pub gives_up: Option<Instant>,
}

/// Why a session stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// A stop condition was met, `--for` is over, the reader of the output went away, or the
    /// watch ended.
    Done,
    /// `--timeout` ran out before `--until-rv` or `--max-events` was reached.
    TimedOut,
    /// Ctrl-C or SIGTERM.
    Interrupted,
}

/// The state of one `tail` run: the resources' feeds, and what they share: the owner graph,
/// the count of object events shown, whether `--until-rv` was reached.
pub struct Session {
    config: SessionConfig,
    feeds: Vec<Feed>,
    /// With `--follow-owned`: which objects are in the followed set.
    graph: Option<OwnerGraph>,
    /// Object events shown, of every resource (what `--max-events` counts).
    objects: u64,
    /// Set once an event at or past `--until-rv` was shown.
    until_reached: bool,
    /// With `--react`: the writes seen and the reactions they wait for.
    reacting: Option<Reacting>,
}

impl Session {
    /// A session of `feeds`, in the order of the reflectors merged (`graph`: with
    /// `--follow-owned`).
    pub fn new(config: SessionConfig, feeds: Vec<Feed>, graph: Option<OwnerGraph>) -> Self {
        Session {
            config,
            feeds,
            graph,
            objects: 0,
            until_reached: false,
            reacting: None,
        }
    }

    /// The session with `--react`'s reactions shown.
    pub fn with_reactions(mut self, reacting: Reacting) -> Self {
        self.reacting = Some(reacting);
        self
    }

    pub fn feeds(&self) -> &[Feed] {
        &self.feeds
    }

    /// The feeds whose events are shown: all but one watched only for the reactions it shows.
    pub fn shown_feeds(&self) -> impl Iterator<Item = &Feed> {
        let reacting = self.reacting.as_ref();
        self.feeds
            .iter()
            .enumerate()
            .filter(move |(i, _)| !reacting.is_some_and(|r| r.only_for_reactions(*i)))
            .map(|(_, feed)| feed)
    }

    /// With `--react`: what it was given, and what became of the writes seen.
    pub fn reactions(&self) -> Option<(&ReactConfig, ReactionStats)> {
        self.reacting.as_ref().map(|r| (r.config(), r.stats()))
    }

    /// Reads `merged` and hands what each event shows to `sink`, flushed whenever nothing more
    /// is at hand, until a stop condition, a deadline, Ctrl-C or SIGTERM, `reader_gone` (the
    /// output's reader went away: done at once, however quiet the watch is), or the end of
    /// every watch.
    pub async fn run(
        &mut self,
        mut merged: Merged,
        deadlines: Deadlines,
        reader_gone: impl Future<Output = ()>,
        sink: &mut dyn Sink,
    ) -> Result<Stop, TailError> {
        let interrupt = crate::stop::requested();
        tokio::pin!(interrupt);
        tokio::pin!(reader_gone);
        loop {
            if self.until_reached || self.full() {
                return Ok(Stop::Done);
            }
            let reaction_due = self.reaction_deadline();
            let next = tokio::select! {
                biased;
                _ = &mut interrupt => return Ok(Stop::Interrupted),
                _ = &mut reader_gone => return Ok(Stop::Done),
                // --for first: when both end at once, the time box wins (exit 0).
                _ = sleep_until(deadlines.ends) => return self.time_is_up(),
                _ = sleep_until(deadlines.gives_up) => return Ok(Stop::TimedOut),
                _ = sleep_until(reaction_due) => {
                    self.expire_reactions(sink)?;
                    continue;
                }
                next = merged.next() => next,
            };
            let (index, event) = match next {
                Ok(Some(next)) => next,
                Ok(None) => return self.all_ended(sink),
                Err(MergedError { reflector, error }) => {
                    sink.flush().map_err(TailError::Output)?;
                    return Err(self.failed(reflector, error));
                }
            };
            self.step(index, event, sink).await?;
            if !merged.has_pending() {
                sink.flush().map_err(TailError::Output)?;
            }
        }
    }

    /// Feed `index`'s `event`: its start said first if it is its first, then what it shows,
    /// then, after a first LIST that found nothing, what is missing.
    async fn step(
        &mut self,
        index: usize,
        event: ReflectorEvent,
        sink: &mut dyn Sink,
    ) -> Result<(), TailError> {
        let shown = !self.only_for_reactions(index);
        let feed = &mut self.feeds[index];
        if feed.first_event() && shown {
            sink.start(index).map_err(TailError::Output)?;
        }
        let first_empty = feed.ends_empty_first_list(&event);
        self.handle(index, &event, sink)?;
        if first_empty {
            let feed = &self.feeds[index];
            feed.say_what_is_missing(index, sink)
                .await
                .map_err(TailError::Output)?;
        }
        Ok(())
    }

    /// Hands `event` to its feed and shows what it makes: its object events, a bookmark, the
    /// event itself (a transition is said as it is); a LIST's end and a bookmark count for
    /// `--until-rv` by their RV.
    fn handle(
        &mut self,
        index: usize,
        event: &ReflectorEvent,
        sink: &mut dyn Sink,
    ) -> Result<(), TailError> {
        let only_for_reactions = self.only_for_reactions(index);
        for seen in self.feeds[index].take(event, self.config.show_initial) {
            let at = seen.received_at;
            let decided = match &mut self.reacting {
                Some(r) => r.observe(index, &seen),
                None => Vec::new(),
            };
            if !only_for_reactions {
                self.show(index, seen, sink)?;
            }
            if let Some(r) = &mut self.reacting {
                r.show(&decided, at, sink).map_err(TailError::Output)?;
            }
        }
        // Nothing else of a resource watched only for the reactions it shows: its bookmarks,
        // transitions and resourceVersions are its own business.
        if only_for_reactions {
            return Ok(());
        }
        match event {
            ReflectorEvent::ListComplete {
                resource_version, ..
            } => self.reach(index, resource_version)?,
            ReflectorEvent::Bookmark {
                resource_version,
                initial_events_end,
                received_at,
            } => {
                self.reach(index, resource_version)?;
                if self.config.bookmarks {
                    sink.bookmark(index, resource_version, *initial_events_end, *received_at)
                        .map_err(TailError::Output)?;
                }
            }
            _ => {}
        }
        sink.event(index, event).map_err(TailError::Output)
    }

    /// Shows an object event of feed `index`. With `--follow-owned`, only of an object in the
    /// followed set, followed by the objects it brought into the set (each with its current
    /// state); a hidden one (`--initial none`) is only taken in by the graph.
    fn show(&mut self, index: usize, seen: Seen, sink: &mut dyn Sink) -> Result<(), TailError> {
        let Some(graph) = &mut self.graph else {
            return match seen.hidden {
                true => Ok(()),
                false => self.emit(index, &seen, None, sink),
            };
        };
        let verdict = graph.observe(
            index,
            self.feeds[index].kind(),
            seen.event_type,
            &seen.object,
        );
        if seen.hidden {
            return Ok(());
        }
        if verdict.print {
            self.emit(index, &seen, Some(&verdict.chain), sink)?;
        }
        for (owned, key) in verdict.joined {
            let (Some(object), Some(graph)) = (self.feeds[owned].get(&key), &self.graph) else {
                continue;
            };
            let chain = graph.chain(object.uid());
            let joined = Seen {
                event_type: EventType::Added,
                origin: seen.origin,
                object,
                received_at: seen.received_at,
                old: None,
                hidden: false,
            };
            self.emit(owned, &joined, Some(&chain), sink)?;
        }
        Ok(())
    }

    /// Shows one object event (unless `--max-events` is reached, or the filters hide it) and
    /// counts it.
    fn emit(
        &mut self,
        index: usize,
        seen: &Seen,
        owners: Option<&[String]>,
        sink: &mut dyn Sink,
    ) -> Result<(), TailError> {
        if self.full() {
            return Ok(());
        }
        let rv = seen.object.resource_version();
        if self.config.filter.hides(seen) {
            self.feeds[index].count_hidden(seen.event_type, rv);
            if seen.origin == Origin::Watch {
                self.reach(index, rv)?;
            }
            return Ok(());
        }
        self.objects += 1;
        self.feeds[index].count(seen.event_type, rv);
        // A LIST's objects come in no RV order: a LIST reaches --until-rv at its end, by its RV.
        if seen.origin == Origin::Watch {
            self.reach(index, rv)?;
        }
        self.feeds[index].show(index, seen, owners, self.config.detail, sink)
    }

    /// Whether feed `index` is watched only for the reactions its objects show (`--react
    /// owned:`'s resource).
    fn only_for_reactions(&self, index: usize) -> bool {
        self.reacting
            .as_ref()
            .is_some_and(|r| r.only_for_reactions(index))
    }

    /// When the oldest write waiting for a reaction times out, on tokio's clock.
    fn reaction_deadline(&self) -> Option<Instant> {
        let due = self.reacting.as_ref()?.deadline()?;
        let from_now = due.duration_since(SystemTime::now()).unwrap_or_default();
        Some(Instant::now() + from_now)
    }

    /// Shows the writes that waited `--reaction-timeout` without a reaction.
    fn expire_reactions(&mut self, sink: &mut dyn Sink) -> Result<(), TailError> {
        let Some(r) = &mut self.reacting else {
            return Ok(());
        };
        let now = SystemTime::now();
        let expired = r.expire(now);
        r.show(&expired, now, sink).map_err(TailError::Output)?;
        sink.flush().map_err(TailError::Output)
    }

    /// Whether `--max-events` object events were shown.
    fn full(&self) -> bool {
        self.config
            .max_events
            .is_some_and(|max| self.objects >= max)
    }

    /// Keeps feed `index`'s newest resourceVersion, and whether --until-rv is reached: by every
    /// resource shown, so that a replay of several has all of each one's events up to it.
    fn reach(&mut self, index: usize, rv: &str) -> Result<(), TailError> {
        let until = self.config.until_rv.as_ref();
        self.feeds[index].reach(rv, until)?;
        self.until_reached = until.is_some_and(|until| {
            self.shown_feeds()
                .all(|f| f.newest_rv().is_some_and(|newest| newest >= until))
        });
        Ok(())
    }

    /// Every watch ended for good (`--no-reconnect`): an `--until-rv` not reached now never
    /// will be, and what was shown is not everything up to it.
    fn all_ended(&self, sink: &mut dyn Sink) -> Result<Stop, TailError> {
        let Some(until) = &self.config.until_rv else {
            return Ok(Stop::Done);
        };
        sink.flush().map_err(TailError::Output)?;
        Err(TailError::EndedBefore {
            until: until.clone(),
            newest: self.newest(),
        })
    }

    /// `--for` is over: done, unless a replay never began because its RV stayed ahead of the
    /// server's all along (the retries stop here, and the error says so).
    fn time_is_up(&self) -> Result<Stop, TailError> {
        let Some((feed, (from, current))) = self
            .shown_feeds()
            .find_map(|f| f.held_ahead().map(|held| (f, held)))
        else {
            return Ok(Stop::Done);
        };
        Err(TailError::StillAhead {
            limit: format!(
                "--for {}",
                crate::format::duration(self.config.run_for.unwrap_or_default())
            ),
            from: from.to_string(),
            current: current.to_string(),
            resource: feed.resource().to_string(),
        })
    }

    /// Feed `index`'s reflector failed for good: named, when it is one of several.
    fn failed(&self, index: usize, error: ReflectorError) -> TailError {
        match self.feeds.as_slice() {
            [_] => TailError::Watch(Box::new(error)),
            feeds => TailError::WatchOf {
                resource: feeds[index].resource().to_string(),
                source: Box::new(error),
            },
        }
    }

    /// What `--timeout` ran out before, for its error line.
    pub fn missed_end(&self) -> String {
        let config = &self.config;
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
        let held = self.shown_feeds().find_map(|f| {
            f.held_ahead().map(|(from, current)| {
                format!(
                    "; the replay never began: resourceVersion {from} stayed ahead of the \
                     server's ({current}, {})",
                    f.resource()
                )
            })
        });
        format!(
            "--timeout {limit} reached before {missed}; {}{}",
            self.newest(),
            held.unwrap_or_default()
        )
    }

    /// The newest resourceVersion seen, for an error line: of each resource when several.
    fn newest(&self) -> String {
        match self.feeds.as_slice() {
            [one] => match one.newest_rv() {
                Some(rv) => format!("the newest resourceVersion seen was {rv}"),
                None => "no resourceVersion was seen".to_string(),
            },
            several => {
                let each: Vec<String> = several
                    .iter()
                    .map(|f| match f.newest_rv() {
                        Some(rv) => format!("{} {rv}", f.resource()),
                        None => format!("{} none", f.resource()),
                    })
                    .collect();
                format!("the newest resourceVersions seen were {}", each.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests;
