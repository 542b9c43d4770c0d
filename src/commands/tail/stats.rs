//! `tail`'s exit summary: counts of events, bookmarks, reconnects and relists, of each resource
//! and, with several, of all.

use super::Feed;
use crate::cluster::resource_version::compare;
use crate::format::count;
use crate::informer::transition::EventType;
use std::cmp::Ordering;
use std::time::Duration;

/// Counters for the exit summary, of one resource or of all.
#[derive(Debug, Default)]
pub(super) struct Stats {
    added: u64,
    modified: u64,
    deleted: u64,
    pub(super) bookmarks: u64,
    pub(super) reconnects: u64,
    pub(super) relists: u64,
    first_rv: Option<String>,
    last_rv: Option<String>,
}

impl Stats {
    fn objects(&self) -> u64 {
        self.added + self.modified + self.deleted
    }

    pub(super) fn count(&mut self, event_type: EventType, rv: &str) {
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
    pub(super) fn saw_rv(&mut self, rv: &str) {
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
    fn total<'s>(all: impl IntoIterator<Item = &'s Stats>) -> Stats {
        all.into_iter().fold(Stats::default(), |t, s| Stats {
            added: t.added + s.added,
            modified: t.modified + s.modified,
            deleted: t.deleted + s.deleted,
            bookmarks: t.bookmarks + s.bookmarks,
            reconnects: t.reconnects + s.reconnects,
            relists: t.relists + s.relists,
            first_rv: None,
            last_rv: None,
        })
    }

    /// `N events (ADDED a, MODIFIED m, DELETED d), ... RV x to y, 3.0s, 2.0 events/s`; without
    /// the RVs for a total of several resources.
    fn summary(&self, elapsed: Duration, rvs: bool) -> String {
        let secs = elapsed.as_secs_f64();
        let rate = if secs > 0.0 {
            self.objects() as f64 / secs
        } else {
            0.0
        };
        let rvs = if rvs {
            format!(
                "RV {} to {}, ",
                self.first_rv.as_deref().unwrap_or("-"),
                self.last_rv.as_deref().unwrap_or("-")
            )
        } else {
            String::new()
        };
        format!(
            "{} (ADDED {}, MODIFIED {}, DELETED {}), {}, {}, {}, {rvs}{}, {:.1} events/s",
            count(self.objects(), "event"),
            self.added,
            self.modified,
            self.deleted,
            count(self.bookmarks, "bookmark"),
            count(self.reconnects, "reconnect"),
            count(self.relists, "relist"),
            crate::format::format_seconds(secs),
            rate
        )
    }
}

/// The exit summary: one line for one resource; with several, one per resource (named) and
/// their total.
pub(super) fn summary(feeds: &[Feed], elapsed: Duration) -> Vec<String> {
    match feeds {
        [one] => vec![format!("summary: {}", one.stats.summary(elapsed, true))],
        several => several
            .iter()
            .map(|f| {
                format!(
                    "summary {}: {}",
                    f.watch.resource,
                    f.stats.summary(elapsed, true)
                )
            })
            .chain(std::iter::once(format!(
                "summary: total of {} resources: {}",
                several.len(),
                Stats::total(several.iter().map(|f| &f.stats)).summary(elapsed, false)
            )))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::core::Cache;
    use crate::recording::StartNotice;

    #[test]
    fn summary_counts_events_and_rates() {
        let mut s = Stats::default();
        s.count(EventType::Added, "1");
        s.count(EventType::Modified, "2");
        s.bookmarks = 1;
        let text = s.summary(Duration::from_secs(2), true);
        assert!(
            text.contains("2 events (ADDED 1, MODIFIED 1, DELETED 0)"),
            "{text}"
        );
        assert!(text.contains("RV 1 to 2"), "{text}");
        assert!(text.contains("1.0 events/s"), "{text}");
    }

    #[test]
    fn with_several_resources_the_summary_has_a_line_each_and_their_total_without_rvs() {
        let feed = |resource: &str, rv: &str| {
            let mut stats = Stats::default();
            stats.count(EventType::Added, rv);
            Feed {
                kind: "configmap".into(),
                watch: StartNotice {
                    resource: resource.into(),
                    ..crate::recording::writer::tests::configmaps()
                },
                started: true,
                redact: false,
                stats,
                cache: Cache::new(),
                listed: true,
                newest_rv: None,
                lookup: None,
            }
        };
        let one = summary(&[feed("pods", "7")], Duration::from_secs(1));
        assert_eq!(one.len(), 1);
        assert!(one[0].starts_with("summary: 1 event (ADDED 1"), "{one:?}");
        let lines = summary(
            &[feed("deployments.apps", "5"), feed("pods", "7")],
            Duration::from_secs(1),
        );
        assert_eq!(lines.len(), 3);
        assert!(
            lines[0].starts_with("summary deployments.apps: 1 event"),
            "{lines:?}"
        );
        assert!(lines[0].contains("RV 5 to 5"), "{lines:?}");
        assert!(lines[1].starts_with("summary pods: 1 event"), "{lines:?}");
        assert!(
            lines[2].starts_with("summary: total of 2 resources: 2 events (ADDED 2,"),
            "{lines:?}"
        );
        assert!(!lines[2].contains("RV"), "{lines:?}");
    }

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
}
