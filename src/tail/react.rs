//! `tail --react`: the reaction of a controller to each write that others make to the objects
//! tailed (a watch event whose generation went up: a spec change; tail writes nothing), shown
//! when it comes with its latency from the event that showed the write, or once
//! `--reaction-timeout` passed without one, as `bench --react` counts them (`crate::react`):
//! a reaction that covers several pending writes to one object is the newest's, the older ones
//! superseded. For `owned:RESOURCE` the owned resource is watched too, only for the reactions
//! its objects' changes show.

use super::feed::Seen;
use super::sink::{ReactionShown, Sink};
use crate::informer::transition::EventType;
use crate::metrics::Latency;
use crate::react::{Fate, Matcher, Reaction, Resolved, Signals};
use std::collections::HashMap;
use std::time::{Duration, SystemTime};

/// `--react` and `--reaction-timeout`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReactConfig {
    pub reaction: Reaction,
    pub timeout: Duration,
}

/// What became of the writes seen, for the exit summary.
#[derive(Debug, Clone, Default)]
pub struct ReactionStats {
    pub reacted: u64,
    pub superseded: u64,
    pub timed_out: u64,
    pub deleted: u64,
    /// Writes still waiting for a reaction when the run ended.
    pub waiting: u64,
    /// From each write's event to its reaction's, of the writes reacted to.
    pub latency: Latency,
}

impl ReactionStats {
    /// Every write seen, whatever became of it.
    pub fn writes(&self) -> u64 {
        self.reacted + self.superseded + self.timed_out + self.deleted + self.waiting
    }

    fn count(&mut self, fate: &Fate) {
        match fate {
            Fate::Reacted { took, .. } => {
                self.reacted += 1;
                self.latency.record(*took);
            }
            Fate::Superseded { .. } => self.superseded += 1,
            Fate::TimedOut => self.timed_out += 1,
            Fate::Deleted => self.deleted += 1,
        }
    }
}

/// The writes seen in a run and the reactions they are waiting for.
pub struct Reacting {
    config: ReactConfig,
    /// The feed of the written resource, and for `owned:` that of the owned one.
    written: usize,
    owned: Option<usize>,
    signals: Signals,
    matcher: Matcher,
    /// Each written object's uid, by key, which its reaction lines name.
    uids: HashMap<String, String>,
    stats: ReactionStats,
}

impl Reacting {
    /// Reactions to the writes to feed `written`'s objects, shown by their own status or (for
    /// `owned:`) by feed `owned`'s objects.
    pub fn new(config: ReactConfig, written: usize, owned: Option<usize>) -> Self {
        // Two watches deliver each in its own time: a reaction may arrive before its write.
        let matcher = match owned {
            Some(_) => Matcher::either_order(config.timeout),
            None => Matcher::new(config.timeout),
        };
        Reacting {
            signals: Signals::new(config.reaction.clone()),
            config,
            written,
            owned,
            matcher,
            uids: HashMap::new(),
            stats: ReactionStats::default(),
        }
    }

    pub fn config(&self) -> &ReactConfig {
        &self.config
    }

    /// What became of the writes so far (those still waiting counted as such).
    pub fn stats(&self) -> ReactionStats {
        ReactionStats {
            waiting: self.matcher.waiting().count() as u64,
            ..self.stats.clone()
        }
    }

    /// Whether feed `index` is watched only for the reactions its objects show (`owned:`'s):
    /// none of it is shown.
    pub fn only_for_reactions(&self, index: usize) -> bool {
        self.owned == Some(index)
    }

    /// When the oldest waiting write times out.
    pub fn deadline(&self) -> Option<SystemTime> {
        self.matcher.next_deadline()
    }

    /// Reads an object event of feed `index` (hidden ones too: a first sight tells the
    /// generation a write raises) and returns the writes whose fate it decided.
    pub(super) fn observe(&mut self, index: usize, seen: &Seen) -> Vec<Resolved> {
        let Some(object) = seen
            .object
            .json()
            .and_then(|json| serde_json::from_str::<serde_json::Value>(json).ok())
        else {
            return Vec::new();
        };
        let at = seen.received_at;
        match (index, seen.event_type) {
            (i, EventType::Deleted) if i == self.written => match self.signals.deleted(&object) {
                Some(key) => self.matcher.deleted(&key),
                None => Vec::new(),
            },
            (i, _) if i == self.written => {
                let observed = self.signals.written(&object, at);
                let mut resolved = Vec::new();
                if let Some(write) = observed.write {
                    self.uids
                        .insert(write.key.clone(), seen.object.uid().to_string());
                    resolved.extend(self.matcher.write(write));
                }
                if let Some(signal) = observed.signal {
                    resolved.extend(self.matcher.signal(signal));
                }
                resolved
            }
            (_, EventType::Deleted) => Vec::new(),
            (i, _) if Some(i) == self.owned => {
                let signals = self.signals.owned(&object, at);
                signals
                    .into_iter()
                    .flat_map(|s| self.matcher.signal(s))
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// The writes that waited `--reaction-timeout` by `now`.
    pub(super) fn expire(&mut self, now: SystemTime) -> Vec<Resolved> {
        self.matcher.expire(now)
    }

    /// Counts `resolved` and shows each to `sink`; `event_at` is the arrival of the event that
    /// decided them (a deletion's).
    pub(super) fn show(
        &mut self,
        resolved: &[Resolved],
        event_at: SystemTime,
        sink: &mut dyn Sink,
    ) -> std::io::Result<()> {
        for r in resolved {
            self.stats.count(&r.fate);
            let at = match &r.fate {
                Fate::Reacted { signal, .. } | Fate::Superseded { signal, .. } => signal.at,
                Fate::TimedOut => r.write.sent + self.config.timeout,
                Fate::Deleted => event_at,
            };
            let shown_by = r.fate.signal().map(|s| match s.owned {
                Some(_) => self.owned.unwrap_or(self.written),
                None => self.written,
            });
            let uid = self.uids.get(&r.write.key).map_or("", String::as_str);
            sink.reaction(&ReactionShown {
                feed: self.written,
                shown_by,
                reaction: &self.config.reaction,
                timeout: self.config.timeout,
                uid,
                resolved: r,
                at,
            })?;
            if r.fate == Fate::Deleted {
                self.uids.remove(&r.write.key);
            }
        }
        Ok(())
    }
}
