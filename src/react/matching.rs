//! Each write matched with the first signal that covers it. A controller coalesces: when one
//! signal covers several pending writes to the same object (the controller saw only the newest),
//! the newest write gets the reaction and the older ones are *superseded*. A write no signal
//! covers within the timeout has no reaction (it *timed out*), nor has one whose object was
//! deleted first.
//!
//! The [`Matcher`] does it as the writes and signals come (`tail --react` says each write's fate
//! when it is known); [`match_reactions`] does it on what was collected (`bench --react`: every
//! write with its send time, every signal with its arrival), so that the order in which a
//! write's answer and its reaction arrive does not matter.

use super::signals::{Signal, Write};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, SystemTime};

/// Signals kept per object, with [`Matcher::either_order`], for writes that arrive after them.
const EARLY_SIGNALS: usize = 4;

/// What became of a write.
#[derive(Debug, Clone, PartialEq)]
pub enum Fate {
    /// The newest write `signal` covered: the reaction came `took` after the write.
    Reacted { signal: Signal, took: Duration },
    /// `signal` covered it together with a newer write (which gave the object generation
    /// `newer`), which got the reaction: the controller coalesced them.
    Superseded { signal: Signal, newer: i64 },
    /// No signal covered it within the timeout.
    TimedOut,
    /// The object was deleted before a signal covered it.
    Deleted,
}

impl Fate {
    /// The signal that covered the write, if one did.
    pub fn signal(&self) -> Option<&Signal> {
        match self {
            Fate::Reacted { signal, .. } | Fate::Superseded { signal, .. } => Some(signal),
            Fate::TimedOut | Fate::Deleted => None,
        }
    }
}

/// A write, and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub write: Write,
    pub fate: Fate,
}

/// Matches writes with signals as they come: each call returns the writes it resolved, oldest
/// first.
#[derive(Debug)]
pub struct Matcher {
    timeout: Duration,
    /// Each object's writes that wait for a reaction, in the order they came.
    pending: HashMap<String, Vec<Write>>,
    /// With `either_order`: each object's last signals that covered nothing when they came.
    early: Option<HashMap<String, VecDeque<Signal>>>,
}

impl Matcher {
    /// A matcher of writes that always come before their reactions (bench's: a write is sent
    /// before anything can react to it).
    pub fn new(timeout: Duration) -> Self {
        Matcher {
            timeout,
            pending: HashMap::new(),
            early: None,
        }
    }

    /// A matcher of writes and signals seen on two watches (`owned:`: the written resource's
    /// and the owned one's), which may deliver a reaction before the write it answers: a
    /// signal that covered nothing is kept for a while, and a write it covers that comes after
    /// it is its reaction's, timed at zero.
    pub fn either_order(timeout: Duration) -> Self {
        Matcher {
            early: Some(HashMap::new()),
            ..Matcher::new(timeout)
        }
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// A write, which waits for a signal that covers it (or, with `either_order`, is resolved
    /// by one that came before it).
    pub fn write(&mut self, write: Write) -> Vec<Resolved> {
        let key = write.key.clone();
        let early = self
            .early
            .as_mut()
            .and_then(|early| early.get_mut(&key))
            .and_then(|signals| {
                let at = signals.iter().position(|s| s.covers.covers(&write))?;
                signals.remove(at)
            });
        self.pending.entry(key).or_default().push(write);
        match early {
            Some(signal) => self.signal(signal),
            None => Vec::new(),
        }
    }

    /// A signal: the object's writes that timed out before it came, then the writes it covers
    /// (the older ones superseded, the newest reacted to).
    pub fn signal(&mut self, signal: Signal) -> Vec<Resolved> {
        let timeout = self.timeout;
        let waiting = self.pending.remove(&signal.key).unwrap_or_default();
        let (late, waiting): (Vec<Write>, Vec<Write>) = waiting
            .into_iter()
            .partition(|w| elapsed(w.sent, signal.at) >= timeout);
        let (covered, rest): (Vec<Write>, Vec<Write>) =
            waiting.into_iter().partition(|w| signal.covers.covers(w));
        if !rest.is_empty() {
            self.pending.insert(signal.key.clone(), rest);
        }
        let mut resolved: Vec<Resolved> = late.into_iter().map(timed_out).collect();
        let Some(newest) = covered.last() else {
            self.keep_early(signal);
            return resolved;
        };
        let (newer, took) = (newest.generation, elapsed(newest.sent, signal.at));
        let count = covered.len();
        for (i, write) in covered.into_iter().enumerate() {
            let fate = match i + 1 == count {
                true => Fate::Reacted {
                    signal: signal.clone(),
                    took,
                },
                false => Fate::Superseded {
                    signal: signal.clone(),
                    newer,
                },
            };
            resolved.push(Resolved { write, fate });
        }
        resolved
    }

    /// With `either_order`, keeps a signal that covered nothing, for a write that comes after
    /// it: the object's last few, none older than the timeout.
    fn keep_early(&mut self, signal: Signal) {
        let timeout = self.timeout;
        let Some(early) = self.early.as_mut() else {
            return;
        };
        let kept = early.entry(signal.key.clone()).or_default();
        kept.retain(|s| elapsed(s.at, signal.at) < timeout);
        if kept.len() == EARLY_SIGNALS {
            kept.pop_front();
        }
        kept.push_back(signal);
    }

    /// The writes that have waited the timeout or longer at `now`, of every object.
    pub fn expire(&mut self, now: SystemTime) -> Vec<Resolved> {
        let timeout = self.timeout;
        let mut resolved = Vec::new();
        self.pending.retain(|_, writes| {
            let (late, waiting): (Vec<Write>, Vec<Write>) = std::mem::take(writes)
                .into_iter()
                .partition(|w| elapsed(w.sent, now) >= timeout);
            resolved.extend(late.into_iter().map(timed_out));
            *writes = waiting;
            !writes.is_empty()
        });
        if let Some(early) = self.early.as_mut() {
            early.retain(|_, signals| {
                signals.retain(|s| elapsed(s.at, now) < timeout);
                !signals.is_empty()
            });
        }
        resolved.sort_by_key(|r| r.write.sent);
        resolved
    }

    /// The object `key` was deleted: its waiting writes will have no reaction.
    pub fn deleted(&mut self, key: &str) -> Vec<Resolved> {
        if let Some(early) = self.early.as_mut() {
            early.remove(key);
        }
        let writes = self.pending.remove(key).unwrap_or_default();
        writes
            .into_iter()
            .map(|write| Resolved {
                write,
                fate: Fate::Deleted,
            })
            .collect()
    }

    /// When the oldest waiting write times out.
    pub fn next_deadline(&self) -> Option<SystemTime> {
        let oldest = self.waiting().map(|w| w.sent).min()?;
        Some(oldest + self.timeout)
    }

    /// The writes still waiting for a reaction.
    pub fn waiting(&self) -> impl Iterator<Item = &Write> {
        self.pending.values().flatten()
    }
}

/// From `from` to `to`, zero when `to` is earlier.
fn elapsed(from: SystemTime, to: SystemTime) -> Duration {
    to.duration_since(from).unwrap_or_default()
}

fn timed_out(write: Write) -> Resolved {
    Resolved {
        write,
        fate: Fate::TimedOut,
    }
}

/// What the matching found, counted.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Matched {
    /// From each write's send to its reaction's arrival (the newest of coalesced writes).
    pub reactions: Vec<Duration>,
    /// Older writes a reaction covered together with a newer one.
    pub superseded: u64,
    /// Writes with no reaction within the timeout (late ones included).
    pub without_reaction: u64,
    /// Of those, writes that may still get one: sent less than the timeout before `now`.
    pub waiting: u64,
}

impl Matched {
    /// Counts what became of a write.
    fn count(&mut self, resolved: &Resolved) {
        match &resolved.fate {
            Fate::Reacted { took, .. } => self.reactions.push(*took),
            Fate::Superseded { .. } => self.superseded += 1,
            Fate::TimedOut | Fate::Deleted => self.without_reaction += 1,
        }
    }
}

/// Matches `writes` (of any objects, in any order) with `signals` (in arrival order): a signal
/// covers the writes sent before it arrived. Writes sent less than `timeout` before `now`
/// without a reaction yet are counted as `waiting` (and in `without_reaction`, which they leave
/// when one comes).
pub fn match_reactions(
    writes: &[Write],
    signals: &[Signal],
    timeout: Duration,
    now: SystemTime,
) -> Matched {
    let mut sorted: Vec<&Write> = writes.iter().collect();
    sorted.sort_by_key(|w| w.sent);
    let mut unsent = sorted.into_iter().peekable();
    let mut matcher = Matcher::new(timeout);
    let mut matched = Matched::default();
    for signal in signals {
        while let Some(w) = unsent.next_if(|w| w.sent <= signal.at) {
            matcher.write(w.clone());
        }
        for resolved in matcher.signal(signal.clone()) {
            matched.count(&resolved);
        }
    }
    for w in matcher.waiting().chain(unsent) {
        matched.without_reaction += 1;
        if elapsed(w.sent, now) < timeout {
            matched.waiting += 1;
        }
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::resource_version::ResourceVersion;
    use crate::react::signals::Covers;

    fn t(ms: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
    }

    fn rv(text: &str) -> ResourceVersion {
        ResourceVersion::parse(text).unwrap()
    }

    fn write(key: &str, sent: u64, generation: i64, resource_version: u64) -> Write {
        Write {
            key: key.into(),
            sent: t(sent),
            generation,
            resource_version: rv(&resource_version.to_string()),
        }
    }

    fn signal(key: &str, at: u64, covers: Covers) -> Signal {
        Signal {
            key: key.into(),
            at: t(at),
            covers,
            resource_version: rv("1000"),
            owned: None,
        }
    }

    const TIMEOUT: Duration = Duration::from_secs(30);

    #[test]
    fn each_write_is_matched_with_the_first_signal_that_covers_it() {
        let writes = [
            write("a", 0, 2, 10),
            write("b", 5, 4, 11),
            write("a", 100, 3, 20),
        ];
        let signals = [
            // Older than a's first write: covers nothing.
            signal("a", 1, Covers::Generation(1)),
            signal("a", 40, Covers::Generation(2)),
            signal("b", 25, Covers::Generation(4)),
            // The same generation again: a's first write already reacted to.
            signal("a", 60, Covers::Generation(2)),
            signal("a", 130, Covers::Generation(3)),
        ];
        let m = match_reactions(&writes, &signals, TIMEOUT, t(200));
        assert_eq!(
            m.reactions,
            [
                Duration::from_millis(40),
                Duration::from_millis(20),
                Duration::from_millis(30)
            ]
        );
        assert_eq!((m.superseded, m.without_reaction, m.waiting), (0, 0, 0));
    }

    #[test]
    fn a_signal_covering_several_writes_is_the_newest_s_reaction_and_the_others_are_superseded() {
        let writes = [
            write("a", 0, 2, 10),
            write("a", 10, 3, 12),
            write("a", 20, 4, 14),
        ];
        let m = match_reactions(
            &writes,
            &[signal("a", 50, Covers::Generation(4))],
            TIMEOUT,
            t(100),
        );
        assert_eq!(m.reactions, [Duration::from_millis(30)]);
        assert_eq!(m.superseded, 2);
    }

    #[test]
    fn a_signal_counts_only_for_writes_sent_before_it_arrived() {
        // The write's answer may come after its reaction: matching is on send time, so the
        // order of collection does not matter; a signal before a write never covers it.
        let writes = [write("a", 50, 2, 30)];
        let early = [signal("a", 40, Covers::OlderThan(rv("99")))];
        let m = match_reactions(&writes, &early, TIMEOUT, t(60));
        assert!(m.reactions.is_empty());
        assert_eq!((m.without_reaction, m.waiting), (1, 1));
        let owned = [
            signal("a", 70, Covers::OlderThan(rv("29"))),
            signal("a", 80, Covers::OlderThan(rv("31"))),
        ];
        let m = match_reactions(&writes, &owned, TIMEOUT, t(90));
        assert_eq!(m.reactions, [Duration::from_millis(30)]);
    }

    #[test]
    fn no_reaction_within_the_timeout_is_counted_and_a_late_one_too() {
        let writes = [
            write("a", 0, 2, 10),
            write("b", 0, 2, 11),
            write("c", 35_000, 2, 12),
        ];
        let signals = [signal("a", 31_000, Covers::Generation(2))];
        let m = match_reactions(&writes, &signals, TIMEOUT, t(40_000));
        assert!(m.reactions.is_empty());
        // a too late, b never, c still within its timeout.
        assert_eq!((m.without_reaction, m.waiting), (3, 1));
        assert_eq!(m.superseded, 0);
    }

    #[test]
    fn a_write_past_its_timeout_is_not_superseded_by_a_newer_write_s_reaction() {
        // a@0 waited 40 s: it had no reaction within the timeout, whatever covers it later.
        let writes = [write("a", 0, 2, 10), write("a", 35_000, 3, 12)];
        let signals = [signal("a", 40_000, Covers::Generation(3))];
        let m = match_reactions(&writes, &signals, TIMEOUT, t(41_000));
        assert_eq!(m.reactions, [Duration::from_secs(5)]);
        assert_eq!((m.superseded, m.without_reaction), (0, 1));
    }

    #[test]
    fn writes_of_objects_without_any_signal_have_no_reaction() {
        let m = match_reactions(&[write("a", 0, 2, 10)], &[], TIMEOUT, t(60_000));
        assert_eq!((m.without_reaction, m.waiting), (1, 0));
    }

    #[test]
    fn as_they_come_each_write_is_told_its_fate_once_oldest_first() {
        let mut m = Matcher::new(TIMEOUT);
        assert!(m.write(write("a", 0, 2, 10)).is_empty());
        assert!(m.write(write("a", 10, 3, 12)).is_empty());
        assert!(m.write(write("b", 20, 7, 13)).is_empty());
        assert_eq!(m.next_deadline(), Some(t(30_000)));
        let s = signal("a", 50, Covers::Generation(3));
        let fates: Vec<(i64, Fate)> = m
            .signal(s.clone())
            .into_iter()
            .map(|r| (r.write.generation, r.fate))
            .collect();
        assert_eq!(
            fates,
            [
                (
                    2,
                    Fate::Superseded {
                        signal: s.clone(),
                        newer: 3
                    }
                ),
                (
                    3,
                    Fate::Reacted {
                        signal: s,
                        took: Duration::from_millis(40)
                    }
                )
            ]
        );
        assert_eq!(m.next_deadline(), Some(t(30_020)));
        assert!(m.expire(t(30_019)).is_empty());
        let expired = m.expire(t(30_020));
        assert_eq!(expired.len(), 1);
        assert_eq!(expired[0].fate, Fate::TimedOut);
        assert_eq!(m.next_deadline(), None);
        m.write(write("c", 100, 2, 20));
        let deleted = m.deleted("c");
        assert_eq!((deleted.len(), &deleted[0].fate), (1, &Fate::Deleted));
        assert_eq!(m.waiting().count(), 0);
    }

    #[test]
    fn on_two_watches_a_reaction_that_came_before_its_write_is_its_reaction_at_zero() {
        let early = signal("a", 10, Covers::OlderThan(rv("15")));
        // Without either_order, it covers nothing that comes after it.
        let mut strict = Matcher::new(TIMEOUT);
        assert!(strict.signal(early.clone()).is_empty());
        assert!(strict.write(write("a", 12, 2, 14)).is_empty());
        let mut m = Matcher::either_order(TIMEOUT);
        assert!(m.signal(early.clone()).is_empty());
        // A write newer than the signal is not covered by it.
        assert!(m.write(write("b", 12, 2, 16)).is_empty());
        let resolved = m.write(write("a", 12, 2, 14));
        assert_eq!(
            resolved[0].fate,
            Fate::Reacted {
                signal: early,
                took: Duration::ZERO
            }
        );
        // Used once: the next write waits.
        assert!(m.write(write("a", 20, 3, 13)).is_empty());
        assert_eq!(m.waiting().count(), 2);
    }
}
