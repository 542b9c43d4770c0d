//! `tail --follow-owned`: which objects of the watched resources belong to the followed set, the
//! named object and, transitively, every object whose ownerReferences point into the set.
//!
//! Each resource is watched whole (in the owner's namespace), and this graph of every object
//! seen, by uid, decides what is printed. Objects join the set with their first event as an
//! owned object, or, when their owner's event arrives after theirs (each resource has its own
//! watch, so a Pod's ADDED can overtake its ReplicaSet's), with their current state as soon as
//! the owner joins. They leave with their DELETED, or with the MODIFIED that dropped the
//! ownerReference into the set. A followed owner that is deleted keeps its children in the set
//! until each goes (the garbage collector deletes them after it), so their last events print.

use crate::informer::object::RawObject;
use crate::informer::transition::EventType;
use std::collections::{BTreeSet, HashMap, HashSet};

/// Ownership deeper than this is taken as a cycle (the API server does not forbid one).
const MAX_DEPTH: usize = 32;

/// An object of a watched resource, as the graph knows it.
#[derive(Debug)]
struct Node {
    /// The feed (watched resource) it belongs to.
    feed: usize,
    /// Its cache key (`namespace/name`).
    key: String,
    /// How lines name it: `replicaset.apps/web-7d9`.
    label: String,
    /// The uids of its owners, the controller first.
    owners: Vec<String>,
    /// Deleted while followed: kept while objects it owned are still there.
    gone: bool,
}

/// What to print for one object event.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Whether the event itself is printed.
    pub print: bool,
    /// The owners it is followed through (`OwnerGraph::chain`), as of before a DELETED.
    pub chain: Vec<String>,
    /// Objects that joined the set because of it, owners before what they own: each is printed
    /// with its current state, as (feed, cache key).
    pub joined: Vec<(usize, String)>,
}

/// The ownership graph of one `--follow-owned` run.
#[derive(Debug)]
pub struct OwnerGraph {
    /// The feed of the named object's resource, and its name: the root of the set.
    root_feed: usize,
    root_name: String,
    nodes: HashMap<String, Node>,
    /// Owner uid to the uids of the objects that name it.
    children: HashMap<String, BTreeSet<String>>,
    /// Objects in the set whose events are printed.
    shown: HashSet<String>,
}

impl OwnerGraph {
    pub fn new(root_feed: usize, root_name: &str) -> Self {
        OwnerGraph {
            root_feed,
            root_name: root_name.to_string(),
            nodes: HashMap::new(),
            children: HashMap::new(),
            shown: HashSet::new(),
        }
    }

    /// Takes in one event of `feed`'s resource (whose objects lines name as `kind`, e.g.
    /// `replicaset.apps`) and says what to print.
    pub fn observe(
        &mut self,
        feed: usize,
        kind: &str,
        event_type: EventType,
        object: &RawObject,
    ) -> Verdict {
        let uid = object.uid().to_string();
        if event_type == EventType::Deleted {
            let print = self.shown.remove(&uid);
            let chain = if print { self.chain(&uid) } else { Vec::new() };
            self.remove(&uid, print);
            return Verdict {
                print,
                chain,
                joined: Vec::new(),
            };
        }
        let mut owners: Vec<_> = object.owner_references();
        owners.sort_by_key(|o| o.controller != Some(true));
        for owner in &owners {
            self.children
                .entry(owner.uid.clone())
                .or_default()
                .insert(uid.clone());
        }
        // Owners it no longer names (the new ones are linked first, so a gone owner it still
        // names stays).
        let kept: HashSet<&str> = owners.iter().map(|o| o.uid.as_str()).collect();
        self.unlink_from(&uid, |owner| !kept.contains(owner));
        self.nodes.insert(
            uid.clone(),
            Node {
                feed,
                key: object.key(),
                label: format!("{kind}/{}", object.name()),
                owners: owners.into_iter().map(|o| o.uid).collect(),
                gone: false,
            },
        );
        if self.followed(&uid, 0) {
            self.shown.insert(uid.clone());
            Verdict {
                print: true,
                chain: self.chain(&uid),
                joined: self.join_below(&uid),
            }
        } else if self.shown.remove(&uid) {
            // It left (orphaned): this event, which dropped the ownerReference, is its last;
            // what it owns leaves with it.
            self.leave_below(&uid);
            Verdict {
                print: true,
                chain: Vec::new(),
                joined: Vec::new(),
            }
        } else {
            Verdict::default()
        }
    }

    /// The owners from the root down to the direct owner of `uid`, as lines name them (empty
    /// for the root, or an object not in the set).
    pub fn chain(&self, uid: &str) -> Vec<String> {
        let mut chain = Vec::new();
        let mut at = uid;
        while let Some(owner) = self.nodes.get(at).and_then(|n| {
            n.owners.iter().find(|o| {
                self.nodes
                    .get(o.as_str())
                    .is_some_and(|_| self.followed(o, 0))
            })
        }) {
            if chain.len() >= MAX_DEPTH {
                break;
            }
            at = owner;
            chain.push(self.nodes[at].label.clone());
        }
        chain.reverse();
        chain
    }

    /// Whether `uid` is the root or owned, transitively, by an object in the set (a deleted
    /// owner still counts while its objects remain).
    fn followed(&self, uid: &str, depth: usize) -> bool {
        let Some(node) = self.nodes.get(uid) else {
            return false;
        };
        if node.gone {
            return true;
        }
        if node.feed == self.root_feed && node.key.rsplit('/').next() == Some(&self.root_name) {
            return true;
        }
        depth < MAX_DEPTH && node.owners.iter().any(|o| self.followed(o, depth + 1))
    }

    /// Objects below `uid` that are in the set and were not shown, owners first.
    fn join_below(&mut self, uid: &str) -> Vec<(usize, String)> {
        let mut joined = Vec::new();
        let mut queue = std::collections::VecDeque::from([uid.to_string()]);
        let mut visited = HashSet::new();
        while let Some(at) = queue.pop_front() {
            if !visited.insert(at.clone()) {
                continue;
            }
            let below: Vec<String> = self
                .children
                .get(&at)
                .map(|c| c.iter().cloned().collect())
                .unwrap_or_default();
            for child in below {
                if self.nodes.get(&child).is_some_and(|n| !n.gone)
                    && !self.shown.contains(&child)
                    && self.followed(&child, 0)
                {
                    self.shown.insert(child.clone());
                    let node = &self.nodes[&child];
                    joined.push((node.feed, node.key.clone()));
                }
                queue.push_back(child);
            }
        }
        joined
    }

    /// Objects below `uid` that are no longer in the set stop being shown, without an event.
    fn leave_below(&mut self, uid: &str) {
        let mut queue = vec![uid.to_string()];
        let mut visited = HashSet::new();
        while let Some(at) = queue.pop() {
            if !visited.insert(at.clone()) {
                continue;
            }
            for child in self.children.get(&at).into_iter().flatten() {
                queue.push(child.clone());
            }
            if at != uid && !self.followed(&at, 0) {
                self.shown.remove(&at);
            }
        }
    }

    /// Forgets `uid` (deleted), or keeps it as a gone owner when it was in the set and objects
    /// it owned remain.
    fn remove(&mut self, uid: &str, was_followed: bool) {
        let owns = self.children.get(uid).is_some_and(|c| !c.is_empty());
        if was_followed && owns {
            if let Some(node) = self.nodes.get_mut(uid) {
                node.gone = true;
            }
            return;
        }
        self.unlink(uid);
        self.nodes.remove(uid);
        self.children.remove(uid);
    }

    /// Removes `uid` from its owners' lists of children; an owner that is gone and now owns
    /// nothing is forgotten.
    fn unlink(&mut self, uid: &str) {
        self.unlink_from(uid, |_| true);
    }

    /// Removes `uid` from the lists of children of those of its owners `which` picks.
    fn unlink_from(&mut self, uid: &str, which: impl Fn(&str) -> bool) {
        let Some(node) = self.nodes.get(uid) else {
            return;
        };
        let owners: Vec<String> = node.owners.iter().filter(|o| which(o)).cloned().collect();
        for owner in owners {
            let emptied = self.children.get_mut(&owner).is_some_and(|c| {
                c.remove(uid);
                c.is_empty()
            });
            if emptied {
                self.children.remove(&owner);
                if self.nodes.get(&owner).is_some_and(|n| n.gone) {
                    self.unlink(&owner);
                    self.nodes.remove(&owner);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    const DEPLOY: usize = 0;
    const RS: usize = 1;
    const POD: usize = 2;

    fn object(name: &str, uid: &str, owners: &[&str]) -> RawObject {
        let refs: Vec<_> = owners
            .iter()
            .map(|o| serde_json::json!({"apiVersion": "v1", "kind": "X", "name": o, "uid": o, "controller": true}))
            .collect();
        let json = serde_json::json!({"metadata": {"name": name, "namespace": "app", "uid": uid,
            "ownerReferences": refs}});
        RawObject::parse(RawValue::from_string(json.to_string()).unwrap(), None).unwrap()
    }

    fn see(f: &mut OwnerGraph, feed: usize, t: EventType, o: &RawObject) -> Verdict {
        let kind = ["deployment.apps", "replicaset.apps", "pod"][feed];
        f.observe(feed, kind, t, o)
    }

    /// A printed event that brought nothing into the set, followed through `chain`.
    fn printed(chain: &[&str]) -> Verdict {
        Verdict {
            print: true,
            chain: chain.iter().map(|c| c.to_string()).collect(),
            joined: Vec::new(),
        }
    }

    #[test]
    fn the_named_object_and_what_it_owns_transitively_are_followed_others_not() {
        let mut f = OwnerGraph::new(DEPLOY, "web");
        let web = object("web", "d1", &[]);
        let other = object("db", "d2", &[]);
        assert_eq!(see(&mut f, DEPLOY, EventType::Added, &web), printed(&[]));
        assert_eq!(
            see(&mut f, DEPLOY, EventType::Added, &other),
            Verdict::default()
        );
        let rs = object("web-1", "r1", &["d1"]);
        assert_eq!(
            see(&mut f, RS, EventType::Added, &rs),
            printed(&["deployment.apps/web"])
        );
        let pod = object("web-1-a", "p1", &["r1"]);
        assert_eq!(
            see(&mut f, POD, EventType::Added, &pod),
            printed(&["deployment.apps/web", "replicaset.apps/web-1"])
        );
        assert_eq!(
            f.chain("p1"),
            ["deployment.apps/web", "replicaset.apps/web-1"]
        );
        assert!(f.chain("d1").is_empty());
        let db_rs = object("db-1", "r2", &["d2"]);
        assert_eq!(
            see(&mut f, RS, EventType::Added, &db_rs),
            Verdict::default()
        );
        let db_pod = object("db-1-a", "p2", &["r2"]);
        assert_eq!(
            see(&mut f, POD, EventType::Modified, &db_pod),
            Verdict::default()
        );
    }

    #[test]
    fn objects_seen_before_their_owner_join_with_it_owners_first() {
        let mut f = OwnerGraph::new(DEPLOY, "web");
        let pod = object("web-1-a", "p1", &["r1"]);
        let rs = object("web-1", "r1", &["d1"]);
        assert_eq!(see(&mut f, POD, EventType::Added, &pod), Verdict::default());
        assert_eq!(see(&mut f, RS, EventType::Added, &rs), Verdict::default());
        let web = object("web", "d1", &[]);
        assert_eq!(
            see(&mut f, DEPLOY, EventType::Added, &web),
            Verdict {
                print: true,
                chain: Vec::new(),
                joined: vec![(RS, "app/web-1".into()), (POD, "app/web-1-a".into())],
            }
        );
        // Joined once: its next event prints as usual, nothing joins again.
        assert_eq!(
            see(&mut f, RS, EventType::Modified, &rs),
            printed(&["deployment.apps/web"])
        );
    }

    #[test]
    fn an_orphaned_object_leaves_with_the_event_that_dropped_the_reference_and_takes_its_own() {
        let mut f = OwnerGraph::new(DEPLOY, "web");
        see(&mut f, DEPLOY, EventType::Added, &object("web", "d1", &[]));
        see(
            &mut f,
            RS,
            EventType::Added,
            &object("web-1", "r1", &["d1"]),
        );
        see(
            &mut f,
            POD,
            EventType::Added,
            &object("web-1-a", "p1", &["r1"]),
        );
        let orphan = object("web-1", "r1", &[]);
        assert_eq!(see(&mut f, RS, EventType::Modified, &orphan), printed(&[]));
        assert_eq!(
            see(&mut f, RS, EventType::Modified, &orphan),
            Verdict::default()
        );
        let pod = object("web-1-a", "p1", &["r1"]);
        assert_eq!(
            see(&mut f, POD, EventType::Modified, &pod),
            Verdict::default()
        );
        assert_eq!(
            see(&mut f, POD, EventType::Deleted, &pod),
            Verdict::default()
        );
    }

    #[test]
    fn a_deleted_owner_keeps_its_objects_followed_until_each_is_deleted() {
        let mut f = OwnerGraph::new(DEPLOY, "web");
        see(&mut f, DEPLOY, EventType::Added, &object("web", "d1", &[]));
        let rs = object("web-1", "r1", &["d1"]);
        let pod = object("web-1-a", "p1", &["r1"]);
        see(&mut f, RS, EventType::Added, &rs);
        see(&mut f, POD, EventType::Added, &pod);
        assert_eq!(
            see(&mut f, RS, EventType::Deleted, &rs),
            printed(&["deployment.apps/web"])
        );
        // The garbage collector marks and then deletes the Pod: both print.
        assert_eq!(
            see(&mut f, POD, EventType::Modified, &pod),
            printed(&["deployment.apps/web", "replicaset.apps/web-1"])
        );
        assert_eq!(
            f.chain("p1"),
            ["deployment.apps/web", "replicaset.apps/web-1"]
        );
        assert_eq!(
            see(&mut f, POD, EventType::Deleted, &pod),
            printed(&["deployment.apps/web", "replicaset.apps/web-1"])
        );
        // Nothing of them is kept.
        assert!(f.nodes.keys().all(|uid| uid == "d1"), "{:?}", f.nodes);
        assert!(f.children.is_empty(), "{:?}", f.children);
        // A deleted object that was never followed prints nothing.
        let stray = object("x", "p9", &["r9"]);
        see(&mut f, POD, EventType::Added, &stray);
        assert_eq!(
            see(&mut f, POD, EventType::Deleted, &stray),
            Verdict::default()
        );
    }

    #[test]
    fn a_recreated_root_is_followed_by_name_and_an_ownership_cycle_ends() {
        let mut f = OwnerGraph::new(DEPLOY, "web");
        let old = object("web", "d1", &[]);
        see(&mut f, DEPLOY, EventType::Added, &old);
        see(&mut f, DEPLOY, EventType::Deleted, &old);
        assert_eq!(
            see(&mut f, DEPLOY, EventType::Added, &object("web", "d2", &[])),
            printed(&[])
        );
        let a = object("a", "ca", &["cb"]);
        let b = object("b", "cb", &["ca"]);
        assert_eq!(see(&mut f, RS, EventType::Added, &a), Verdict::default());
        assert_eq!(see(&mut f, RS, EventType::Added, &b), Verdict::default());
    }
}
