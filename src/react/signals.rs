//! The watch events of the written resource (and, for `owned:`, of the owned one) read as what
//! they show: a *write* (someone changed the spec: `metadata.generation` went up) and a
//! *signal* (an event that shows the controller's reaction, and which writes it covers). Each
//! event is classified as it comes; collecting and matching them is the caller's.

use super::reaction::Reaction;
use crate::cluster::resource_version::ResourceVersion;
use crate::informer::object::object_key;
use serde_json::Value;
use std::collections::HashMap;
use std::time::SystemTime;

/// One write to an object: bench's, as its answer described it, or another's, as the watch
/// event that showed its generation going up described it.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    /// The written object's key, `namespace/name` (`name` when cluster-scoped).
    pub key: String,
    /// When it was sent (bench's writes), or when the event that showed it arrived (others').
    pub sent: SystemTime,
    /// `metadata.generation` after the write.
    pub generation: i64,
    /// `metadata.resourceVersion` after the write.
    pub resource_version: ResourceVersion,
}

/// An event that shows a reaction of the controller to the object `key`.
#[derive(Debug, Clone, PartialEq)]
pub struct Signal {
    /// The written object's key.
    pub key: String,
    /// When the event arrived.
    pub at: SystemTime,
    pub covers: Covers,
    /// The resourceVersion of the event (the written object's, or the owned object's).
    pub resource_version: ResourceVersion,
    /// For `owned:`, the name of the owned object whose change it is; `None` when the written
    /// object's own status shows it.
    pub owned: Option<String>,
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
    pub fn covers(&self, write: &Write) -> bool {
        match self {
            Covers::Generation(g) => write.generation <= *g,
            Covers::OlderThan(rv) => write.resource_version < *rv,
        }
    }
}

/// What one event of a written object shows: a write, a signal, both (a relist may reveal a
/// spec change and its reaction at once) or neither.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Observed {
    pub write: Option<Write>,
    pub signal: Option<Signal>,
}

/// Reads the events of the written resource (and, for `owned:`, of the owned one) as the
/// writes and signals they show, keeping what that needs of each object: its generation, its
/// condition's last status, its uid (which owned objects name).
#[derive(Debug)]
pub struct Signals {
    reaction: Reaction,
    /// Owner uid to the written object's key.
    keys: HashMap<String, String>,
    /// For a condition without observedGeneration: its last status per object.
    last_status: HashMap<String, Option<String>>,
    /// The generation each object was last seen at.
    generations: HashMap<String, i64>,
}

impl Signals {
    pub fn new(reaction: Reaction) -> Self {
        Signals {
            reaction,
            keys: HashMap::new(),
            last_status: HashMap::new(),
            generations: HashMap::new(),
        }
    }

    pub fn reaction(&self) -> &Reaction {
        &self.reaction
    }

    /// An ADDED or MODIFIED of a written object (`object` its JSON), arrived at `at`: a write
    /// when its generation went up since it was last seen (timed from `at`; the first sight of
    /// an object says nothing of when its generation was written, and the generation a
    /// deletion gives an object with finalizers is no spec change), and a signal when it shows
    /// the reaction.
    pub fn written(&mut self, object: &Value, at: SystemTime) -> Observed {
        let meta = &object["metadata"];
        let (Some(name), Some(rv)) = (meta["name"].as_str(), resource_version(object)) else {
            return Observed::default();
        };
        let key = object_key(meta["namespace"].as_str(), name);
        if let Some(uid) = meta["uid"].as_str() {
            self.keys.insert(uid.to_string(), key.clone());
        }
        let write = meta["generation"].as_i64().and_then(|generation| {
            let before = self.generations.insert(key.clone(), generation);
            let deleting = !meta["deletionTimestamp"].is_null();
            (before.is_some_and(|b| generation > b) && !deleting).then(|| Write {
                key: key.clone(),
                sent: at,
                generation,
                resource_version: rv.clone(),
            })
        });
        let signal = self.covers(&key, object, &rv).map(|covers| Signal {
            key,
            at,
            covers,
            resource_version: rv,
            owned: None,
        });
        Observed { write, signal }
    }

    /// Which writes the written object's state (at `rv`) shows the reaction to, if any.
    fn covers(&mut self, key: &str, object: &Value, rv: &ResourceVersion) -> Option<Covers> {
        let (kind, status) = match &self.reaction {
            Reaction::ObservedGeneration => {
                return object["status"]["observedGeneration"]
                    .as_i64()
                    .map(Covers::Generation)
            }
            Reaction::Owned(_) => return None,
            Reaction::Condition { kind, status } => (kind, status),
        };
        let condition = object["status"]["conditions"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["type"] == kind.as_str()));
        let now = condition
            .and_then(|c| c["status"].as_str())
            .map(str::to_string);
        let wanted = match (status, &now) {
            (Some(want), Some(s)) => want == s,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        let before = self.last_status.insert(key.to_string(), now.clone());
        match condition.and_then(|c| c["observedGeneration"].as_i64()) {
            Some(g) if wanted => Some(Covers::Generation(g)),
            Some(_) => None,
            // No observedGeneration: a change of status to the one wanted, made after the
            // writes older than this event.
            None if wanted && before.is_some_and(|b| b != now) => {
                Some(Covers::OlderThan(rv.clone()))
            }
            None => None,
        }
    }

    /// An ADDED or MODIFIED of an object of the owned resource, arrived at `at`: a signal for
    /// each written object among its owners.
    pub fn owned(&mut self, object: &Value, at: SystemTime) -> Vec<Signal> {
        let Some(rv) = resource_version(object) else {
            return Vec::new();
        };
        let name = object["metadata"]["name"].as_str().map(str::to_string);
        object["metadata"]["ownerReferences"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|owner| self.keys.get(owner["uid"].as_str()?))
            .map(|key| Signal {
                key: key.clone(),
                at,
                covers: Covers::OlderThan(rv.clone()),
                resource_version: rv.clone(),
                owned: name.clone(),
            })
            .collect()
    }

    /// A written object was deleted: what was kept of it is forgotten (an object made again
    /// under its name is seen for the first time). Its key.
    pub fn deleted(&mut self, object: &Value) -> Option<String> {
        let meta = &object["metadata"];
        let key = object_key(meta["namespace"].as_str(), meta["name"].as_str()?);
        if let Some(uid) = meta["uid"].as_str() {
            self.keys.remove(uid);
        }
        self.generations.remove(&key);
        self.last_status.remove(&key);
        Some(key)
    }
}

/// `metadata.resourceVersion`, as a number to compare (`None` when it is not one).
fn resource_version(object: &Value) -> Option<ResourceVersion> {
    object["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|rv| ResourceVersion::parse(rv).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::time::Duration;

    fn t(ms: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
    }

    fn rv(text: &str) -> ResourceVersion {
        ResourceVersion::parse(text).unwrap()
    }

    fn signal(at: u64, covers: Covers, resource_version: &str) -> Signal {
        Signal {
            key: "app/web".into(),
            at: t(at),
            covers,
            resource_version: rv(resource_version),
            owned: None,
        }
    }

    fn obj(rv: &str, status: Value) -> Value {
        json!({"metadata": {"name": "web", "namespace": "app", "uid": "u1", "resourceVersion": rv},
            "status": status})
    }

    #[test]
    fn observed_generation_is_a_signal_covering_that_generation() {
        let mut og = Signals::new(Reaction::ObservedGeneration);
        assert_eq!(og.written(&obj("5", json!({})), t(1)), Observed::default());
        let seen = og.written(&obj("6", json!({"observedGeneration": 3})), t(2));
        assert_eq!(seen.signal, Some(signal(2, Covers::Generation(3), "6")));
    }

    #[test]
    fn an_owned_object_signals_for_each_written_owner_it_names() {
        let mut owned = Signals::new(Reaction::Owned("replicasets".into()));
        owned.written(&obj("5", json!({"observedGeneration": 3})), t(1));
        let signals = owned.owned(
            &json!({"metadata": {"name": "web-1", "namespace": "app", "resourceVersion": "9",
                "ownerReferences": [{"uid": "u1"}, {"uid": "someone-else"}]}}),
            t(3),
        );
        let mut expected = signal(3, Covers::OlderThan(rv("9")), "9");
        expected.owned = Some("web-1".into());
        assert_eq!(signals, [expected]);
        let unowned = json!({"metadata": {"name": "x", "resourceVersion": "10"}});
        assert!(owned.owned(&unowned, t(4)).is_empty());
        // Once its owner is deleted, an owned object signals for nothing.
        assert_eq!(
            owned.deleted(&obj("11", json!({}))).as_deref(),
            Some("app/web")
        );
        let orphan = json!({"metadata": {"name": "web-1", "resourceVersion": "12",
            "ownerReferences": [{"uid": "u1"}]}});
        assert!(owned.owned(&orphan, t(5)).is_empty());
    }

    #[test]
    fn a_condition_signals_when_it_has_the_status_for_the_generation_or_changes_to_it() {
        let cond = |s: &str, og: Option<i64>| {
            let mut c = json!({"type": "Available", "status": s});
            if let Some(g) = og {
                c["observedGeneration"] = json!(g);
            }
            json!({"conditions": [{"type": "Other", "status": "True"}, c]})
        };
        let mut available = Signals::new(Reaction::parse("condition:Available=True").unwrap());
        let mut signals = Vec::new();
        for (i, (status, og)) in [
            ("True", None),    // no change seen: none
            ("False", None),   // not the status wanted
            ("True", None),    // False -> True
            ("True", None),    // unchanged: none
            ("True", Some(4)), // for generation 4
            ("False", Some(5)),
        ]
        .into_iter()
        .enumerate()
        {
            let rv = (5 + i).to_string();
            let at = 1 + i as u64;
            signals.extend(available.written(&obj(&rv, cond(status, og)), t(at)).signal);
        }
        assert_eq!(
            signals,
            [
                signal(3, Covers::OlderThan(rv("7")), "7"),
                signal(5, Covers::Generation(4), "9")
            ]
        );
        let mut any = Signals::new(Reaction::parse("condition:Available").unwrap());
        any.written(&obj("5", cond("True", None)), t(1));
        let seen = any.written(&obj("6", cond("False", None)), t(2));
        assert_eq!(
            seen.signal,
            Some(signal(2, Covers::OlderThan(rv("6")), "6"))
        );
    }

    #[test]
    fn a_generation_going_up_is_a_write_timed_from_its_event_but_not_a_deletion_s() {
        let obj = |rv: &str, generation: i64, observed: i64| {
            json!({"metadata": {"name": "web", "namespace": "app", "resourceVersion": rv,
                "generation": generation}, "status": {"observedGeneration": observed}})
        };
        let mut s = Signals::new(Reaction::ObservedGeneration);
        let mut writes = Vec::new();
        writes.extend(s.written(&obj("5", 3, 2), t(0)).write); // first sight: not a write
        writes.extend(s.written(&obj("6", 4, 2), t(10)).write);
        writes.extend(s.written(&obj("7", 4, 4), t(25)).write);
        writes.extend(s.written(&obj("8", 4, 4), t(30)).write); // status only
        let mut deleting = obj("9", 5, 4);
        deleting["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        writes.extend(s.written(&deleting, t(40)).write);
        assert_eq!(
            writes,
            [Write {
                key: "app/web".into(),
                sent: t(10),
                generation: 4,
                resource_version: rv("6")
            }]
        );
        // Made again under the same name: seen for the first time.
        s.deleted(&deleting);
        assert_eq!(s.written(&obj("10", 1, 0), t(50)).write, None);
        assert_eq!(
            s.written(&obj("11", 2, 0), t(60)).write.unwrap().generation,
            2
        );
    }
}
