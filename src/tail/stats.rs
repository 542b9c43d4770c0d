//! `tail`'s counts for its exit summary: events of each type, bookmarks, reconnects and
//! relists, and the range of resourceVersions seen, of one resource or the total of several.

use crate::cluster::resource_version::compare;
use crate::informer::transition::EventType;
use std::cmp::Ordering;

/// Counters for the exit summary, of one resource or of all.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    pub added: u64,
    pub modified: u64,
    pub deleted: u64,
    pub bookmarks: u64,
    pub reconnects: u64,
    pub relists: u64,
    /// Object events counted above but not shown (`--types`, `--ignore-field`).
    pub hidden: u64,
    /// The oldest resourceVersion seen (none in a total of several resources).
    pub first_rv: Option<String>,
    /// The newest resourceVersion seen (none in a total of several resources).
    pub last_rv: Option<String>,
}

impl Stats {
    /// Object events, of every type.
    pub fn objects(&self) -> u64 {
        self.added + self.modified + self.deleted
    }

    pub fn count(&mut self, event_type: EventType, rv: &str) {
        match event_type {
            EventType::Added => self.added += 1,
            EventType::Modified => self.modified += 1,
            EventType::Deleted => self.deleted += 1,
        }
        self.saw_rv(rv);
    }

    /// Widens the range of resourceVersions seen. A LIST's objects come in no RV order, so the
    /// range is the oldest and the newest (KEP-5504's order), not the first and the last; RVs
    /// that are not numbers keep the first and the last seen.
    pub fn saw_rv(&mut self, rv: &str) {
        let older = |a: &str, b: &str| compare(a, b).ok();
        match &self.first_rv {
            Some(first) if older(rv, first) != Some(Ordering::Less) => {}
            _ => self.first_rv = Some(rv.to_string()),
        }
        match &self.last_rv {
            Some(last) if older(rv, last).is_some_and(|o| o != Ordering::Greater) => {}
            _ => self.last_rv = Some(rv.to_string()),
        }
    }

    /// The counts of several resources added up (resourceVersions are per resource: none).
    pub fn total<'s>(all: impl IntoIterator<Item = &'s Stats>) -> Stats {
        all.into_iter().fold(Stats::default(), |t, s| Stats {
            added: t.added + s.added,
            modified: t.modified + s.modified,
            deleted: t.deleted + s.deleted,
            bookmarks: t.bookmarks + s.bookmarks,
            reconnects: t.reconnects + s.reconnects,
            relists: t.relists + s.relists,
            hidden: t.hidden + s.hidden,
            first_rv: None,
            last_rv: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rv_range_is_the_oldest_to_the_newest_whatever_order_they_came_in() {
        let mut stats = Stats::default();
        for rv in ["15096", "15087", "15100", "9999", "15099"] {
            stats.count(EventType::Added, rv);
        }
        assert_eq!(
            (stats.first_rv.as_deref(), stats.last_rv.as_deref()),
            (Some("9999"), Some("15100"))
        );
        let mut opaque = Stats::default();
        for rv in ["b", "a", "c"] {
            opaque.saw_rv(rv);
        }
        assert_eq!(
            (opaque.first_rv.as_deref(), opaque.last_rv.as_deref()),
            (Some("b"), Some("c")),
            "RVs that are not numbers: the first and the last seen"
        );
    }

    #[test]
    fn a_total_adds_the_counts_up_without_resource_versions() {
        let mut a = Stats::default();
        a.count(EventType::Added, "5");
        a.bookmarks = 2;
        let mut b = Stats::default();
        b.count(EventType::Deleted, "7");
        b.relists = 1;
        let total = Stats::total([&a, &b]);
        assert_eq!((total.objects(), total.bookmarks, total.relists), (2, 2, 1));
        assert_eq!((total.first_rv, total.last_rv), (None, None));
    }
}
