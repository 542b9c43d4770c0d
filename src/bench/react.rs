//! `bench --react`: how long a real controller takes to act on a write, seen from outside, by
//! the conventions of the API (no code in the controller):
//!
//! - `observed-generation`: the object's `status.observedGeneration` reaches the generation the
//!   write gave it;
//! - `owned:RESOURCE`: an object of RESOURCE whose ownerReferences name the written object is
//!   created or updated after the write (its resourceVersion is newer than the write's);
//! - `condition:TYPE[=STATUS]`: the object's condition TYPE has STATUS (any, without one) for
//!   the write: its `observedGeneration` reaches the write's generation, or, for a condition
//!   without one, its status changes to STATUS after the write.
//!
//! Each write is matched with the first *signal* (an event that shows a reaction) that covers
//! it. A controller coalesces: when one signal covers several writes to the same object (the
//! controller saw only the newest), the newest write gets the reaction time and the older ones
//! count as `superseded`. A write no signal covers within `--reaction-timeout` counts in
//! `writes_without_reaction`. Matching is done on what was collected (every write with its
//! send time, generation and resourceVersion; every signal with its arrival time), so the order
//! in which a write's answer and its reaction arrive does not matter.

use crate::cluster::resource_version::ResourceVersion;
use std::collections::HashMap;
use std::time::{Duration, SystemTime};

/// What counts as the controller's reaction to a write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reaction {
    ObservedGeneration,
    /// Objects of this resource (as the user named it) owned by the written object.
    Owned(String),
    Condition {
        kind: String,
        status: Option<String>,
    },
}

impl Reaction {
    /// Parses `--react`'s value; the error says what is wrong and what is valid (the flag and
    /// the text are the caller's to add).
    pub fn parse(text: &str) -> Result<Reaction, String> {
        let usage = "use observed-generation, owned:RESOURCE (e.g. owned:replicasets) or \
                     condition:TYPE[=STATUS] (e.g. condition:Available=True)";
        match text.split_once(':') {
            None if text == "observed-generation" => Ok(Reaction::ObservedGeneration),
            Some(("owned", resource)) if !resource.is_empty() && !resource.contains(',') => {
                Ok(Reaction::Owned(resource.to_string()))
            }
            Some(("condition", spec)) => {
                let (kind, status) = match spec.split_once('=') {
                    Some((kind, status)) => (kind, Some(status)),
                    None => (spec, None),
                };
                if kind.is_empty() || status.is_some_and(str::is_empty) {
                    return Err(format!("a condition needs a TYPE; {usage}"));
                }
                Ok(Reaction::Condition {
                    kind: kind.to_string(),
                    status: status.map(str::to_string),
                })
            }
            _ => Err(format!("not a reaction; {usage}")),
        }
    }
}

impl std::fmt::Display for Reaction {
    /// As `--react` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reaction::ObservedGeneration => f.write_str("observed-generation"),
            Reaction::Owned(resource) => write!(f, "owned:{resource}"),
            Reaction::Condition { kind, status: None } => write!(f, "condition:{kind}"),
            Reaction::Condition {
                kind,
                status: Some(s),
            } => write!(f, "condition:{kind}={s}"),
        }
    }
}

/// One write of the generator, as its answer described it.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    /// The written object's name.
    pub name: String,
    pub sent: SystemTime,
    /// `metadata.generation` after the write.
    pub generation: i64,
    /// `metadata.resourceVersion` after the write.
    pub resource_version: ResourceVersion,
}

/// An event that shows a reaction of the controller to the object `name`.
#[derive(Debug, Clone, PartialEq)]
pub struct Signal {
    pub name: String,
    pub at: SystemTime,
    pub covers: Covers,
}

/// Which writes a signal is the reaction to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Covers {
    /// Writes that gave the object this generation or an older one.
    Generation(i64),
    /// Writes whose resourceVersion is older than this one (an owned object's change, or a
    /// condition's change, made after them). resourceVersions of one etcd grow with every
    /// write, across resources.
    OlderThan(ResourceVersion),
}

impl Covers {
    fn covers(&self, write: &Write) -> bool {
        match self {
            Covers::Generation(g) => write.generation <= *g,
            Covers::OlderThan(rv) => write.resource_version < *rv,
        }
    }
}

/// What the matching found.
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

/// Matches `writes` (of any objects, in any order) with `signals` (in arrival order): see the
/// module's documentation. Writes sent less than `timeout` before `now` without a reaction yet
/// are counted as `waiting` (and in `without_reaction`, which they leave when one comes).
pub fn match_reactions(
    writes: &[Write],
    signals: &[Signal],
    timeout: Duration,
    now: SystemTime,
) -> Matched {
    let mut pending: HashMap<&str, Vec<&Write>> = HashMap::new();
    let mut by_object: HashMap<&str, Vec<&Write>> = HashMap::new();
    for w in writes {
        by_object.entry(&w.name).or_default().push(w);
    }
    for list in by_object.values_mut() {
        list.sort_by_key(|w| w.sent);
    }
    let mut matched = Matched::default();
    let mut next: HashMap<&str, usize> = HashMap::new();
    for signal in signals {
        let Some(list) = by_object.get(signal.name.as_str()) else {
            continue;
        };
        // Writes sent before the signal arrived join the object's pending writes.
        let at = next.entry(&signal.name).or_insert(0);
        let waiting = pending.entry(&signal.name).or_default();
        while *at < list.len() && list[*at].sent <= signal.at {
            waiting.push(list[*at]);
            *at += 1;
        }
        let (covered, rest): (Vec<&Write>, Vec<&Write>) =
            waiting.iter().partition(|w| signal.covers.covers(w));
        *waiting = rest;
        if let Some((newest, older)) = covered.split_last() {
            matched.superseded += older.len() as u64;
            let took = signal.at.duration_since(newest.sent).unwrap_or_default();
            if took <= timeout {
                matched.reactions.push(took);
            } else {
                matched.without_reaction += 1;
            }
        }
    }
    for (name, list) in &by_object {
        let unseen = next.get(name).map_or(&list[..], |&at| &list[at..]);
        for w in pending.get(name).into_iter().flatten().chain(unseen) {
            matched.without_reaction += 1;
            if now.duration_since(w.sent).unwrap_or_default() < timeout {
                matched.waiting += 1;
            }
        }
    }
    matched
}

/// Turns the watch events of the written resource (and, for `owned:`, of the owned one) into
/// the signals the reaction shows.
#[derive(Debug)]
pub struct Signals {
    reaction: Reaction,
    /// Owner uid to name, from the written resource's events.
    names: HashMap<String, String>,
    /// For a condition without observedGeneration: its last status per object.
    last_status: HashMap<String, Option<String>>,
    pub signals: Vec<Signal>,
    /// `--no-churn`: the generation each object was last seen at, and the writes seen as
    /// generations going up (timed from the arrival of the event that showed each).
    generations: HashMap<String, i64>,
    pub seen_writes: Vec<Write>,
}

impl Signals {
    pub fn new(reaction: Reaction) -> Self {
        Signals {
            reaction,
            names: HashMap::new(),
            last_status: HashMap::new(),
            signals: Vec::new(),
            generations: HashMap::new(),
            seen_writes: Vec::new(),
        }
    }

    /// An ADDED or MODIFIED of a written object (`object` its JSON), arrived at `at`.
    pub fn written(&mut self, object: &serde_json::Value, at: SystemTime) {
        let meta = &object["metadata"];
        let (Some(name), Some(rv)) = (
            meta["name"].as_str(),
            meta["resourceVersion"]
                .as_str()
                .and_then(|rv| ResourceVersion::parse(rv).ok()),
        ) else {
            return;
        };
        if let Some(uid) = meta["uid"].as_str() {
            self.names.insert(uid.to_string(), name.to_string());
        }
        if let Some(generation) = meta["generation"].as_i64() {
            // A generation above the one last seen: someone changed the spec. (The first
            // sight of an object says nothing of when its generation was written.)
            let before = self.generations.insert(name.to_string(), generation);
            if before.is_some_and(|b| generation > b) {
                self.seen_writes.push(Write {
                    name: name.to_string(),
                    sent: at,
                    generation,
                    resource_version: rv.clone(),
                });
            }
        }
        let covers = match &self.reaction {
            Reaction::ObservedGeneration => object["status"]["observedGeneration"]
                .as_i64()
                .map(Covers::Generation),
            Reaction::Owned(_) => None,
            Reaction::Condition { kind, status } => {
                let condition = object["status"]["conditions"]
                    .as_array()
                    .and_then(|c| c.iter().find(|c| c["type"] == kind.as_str()));
                let now = condition
                    .and_then(|c| c["status"].as_str())
                    .map(str::to_string);
                let wanted = |s: &Option<String>| match (status, s) {
                    (Some(want), Some(s)) => want == s,
                    (None, Some(_)) => true,
                    (_, None) => false,
                };
                let before = self.last_status.insert(name.to_string(), now.clone());
                match condition.and_then(|c| c["observedGeneration"].as_i64()) {
                    Some(g) if wanted(&now) => Some(Covers::Generation(g)),
                    Some(_) => None,
                    // No observedGeneration: a change of status to the one wanted, made after
                    // the writes older than this event.
                    None if wanted(&now) && before.is_some_and(|b| b != now) => {
                        Some(Covers::OlderThan(rv))
                    }
                    None => None,
                }
            }
        };
        if let Some(covers) = covers {
            self.signals.push(Signal {
                name: name.to_string(),
                at,
                covers,
            });
        }
    }

    /// An ADDED or MODIFIED of an object of the owned resource, arrived at `at`: a signal for
    /// each written object among its owners.
    pub fn owned(&mut self, object: &serde_json::Value, at: SystemTime) {
        let Some(rv) = object["metadata"]["resourceVersion"]
            .as_str()
            .and_then(|rv| ResourceVersion::parse(rv).ok())
        else {
            return;
        };
        for owner in object["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(name) = owner["uid"].as_str().and_then(|uid| self.names.get(uid)) {
                self.signals.push(Signal {
                    name: name.clone(),
                    at,
                    covers: Covers::OlderThan(rv.clone()),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
    }

    fn rv(text: &str) -> ResourceVersion {
        ResourceVersion::parse(text).unwrap()
    }

    fn write(name: &str, sent: u64, generation: i64, resource_version: u64) -> Write {
        Write {
            name: name.into(),
            sent: t(sent),
            generation,
            resource_version: rv(&resource_version.to_string()),
        }
    }

    fn signal(name: &str, at: u64, covers: Covers) -> Signal {
        Signal {
            name: name.into(),
            at: t(at),
            covers,
        }
    }

    const TIMEOUT: Duration = Duration::from_secs(30);

    #[test]
    fn react_values_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(
            Reaction::parse("observed-generation"),
            Ok(Reaction::ObservedGeneration)
        );
        assert_eq!(
            Reaction::parse("owned:replicasets"),
            Ok(Reaction::Owned("replicasets".into()))
        );
        assert_eq!(
            Reaction::parse("condition:Available=True"),
            Ok(Reaction::Condition {
                kind: "Available".into(),
                status: Some("True".into())
            })
        );
        assert_eq!(
            Reaction::parse("condition:Ready"),
            Ok(Reaction::Condition {
                kind: "Ready".into(),
                status: None
            })
        );
        for bad in [
            "generation",
            "owned:",
            "condition:",
            "condition:=True",
            "condition:A=",
        ] {
            let err = Reaction::parse(bad).unwrap_err();
            assert!(err.contains("a condition needs a TYPE") || err.starts_with("not a reaction"));
            assert!(err.contains("observed-generation"), "{err}");
        }
    }

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
    fn signals_come_from_observed_generation_owned_objects_and_conditions() {
        use serde_json::json;
        let obj = |rv: &str, status: serde_json::Value| json!({"metadata": {"name": "web", "uid": "u1", "resourceVersion": rv}, "status": status});
        let mut og = Signals::new(Reaction::ObservedGeneration);
        og.written(&obj("5", json!({})), t(1));
        og.written(&obj("6", json!({"observedGeneration": 3})), t(2));
        assert_eq!(og.signals, [signal("web", 2, Covers::Generation(3))]);

        let mut owned = Signals::new(Reaction::Owned("replicasets".into()));
        owned.written(&obj("5", json!({"observedGeneration": 3})), t(1));
        owned.owned(
            &json!({"metadata": {"name": "web-1", "resourceVersion": "9",
                "ownerReferences": [{"uid": "u1"}, {"uid": "someone-else"}]}}),
            t(3),
        );
        owned.owned(
            &json!({"metadata": {"name": "x", "resourceVersion": "10"}}),
            t(4),
        );
        assert_eq!(
            owned.signals,
            [signal("web", 3, Covers::OlderThan(rv("9")))]
        );

        let cond = |s: &str, og: Option<i64>| {
            let mut c = json!({"type": "Available", "status": s});
            if let Some(g) = og {
                c["observedGeneration"] = json!(g);
            }
            json!({"conditions": [{"type": "Other", "status": "True"}, c]})
        };
        let mut available = Signals::new(Reaction::parse("condition:Available=True").unwrap());
        available.written(&obj("5", cond("True", None)), t(1)); // no change seen: none
        available.written(&obj("6", cond("False", None)), t(2)); // not the status wanted
        available.written(&obj("7", cond("True", None)), t(3)); // False -> True
        available.written(&obj("8", cond("True", None)), t(4)); // unchanged: none
        available.written(&obj("9", cond("True", Some(4))), t(5));
        available.written(&obj("10", cond("False", Some(5))), t(6));
        assert_eq!(
            available.signals,
            [
                signal("web", 3, Covers::OlderThan(rv("7"))),
                signal("web", 5, Covers::Generation(4))
            ]
        );
        let mut any = Signals::new(Reaction::parse("condition:Available").unwrap());
        any.written(&obj("5", cond("True", None)), t(1));
        any.written(&obj("6", cond("False", None)), t(2));
        assert_eq!(any.signals, [signal("web", 2, Covers::OlderThan(rv("6")))]);
    }

    #[test]
    fn without_load_a_generation_going_up_is_a_write_timed_from_its_event() {
        use serde_json::json;
        let obj = |rv: &str, generation: i64, observed: i64| {
            json!({"metadata": {"name": "web", "resourceVersion": rv, "generation": generation},
                "status": {"observedGeneration": observed}})
        };
        let mut s = Signals::new(Reaction::ObservedGeneration);
        s.written(&obj("5", 3, 2), t(0)); // first sight: not a write of the run
        s.written(&obj("6", 4, 2), t(10));
        s.written(&obj("7", 4, 4), t(25));
        s.written(&obj("8", 4, 4), t(30)); // status only
        assert_eq!(s.seen_writes, [write("web", 10, 4, 6)]);
        let m = match_reactions(&s.seen_writes, &s.signals, TIMEOUT, t(100));
        assert_eq!(m.reactions, [Duration::from_millis(15)]);
    }

    #[test]
    fn writes_of_objects_without_any_signal_have_no_reaction() {
        let m = match_reactions(&[write("a", 0, 2, 10)], &[], TIMEOUT, t(60_000));
        assert_eq!((m.without_reaction, m.waiting), (1, 0));
    }
}
