//! `tail`'s exit summary, on stderr: counts of events, bookmarks, reconnects and relists, of
//! each resource and, with several, of all.

use crate::format::count;
use crate::tail::stats::Stats;
use std::time::Duration;

/// The exit summary of `resources` (each named, with its counts): one line for one resource;
/// with several, one per resource and their total.
pub fn summary(resources: &[(&str, &Stats)], elapsed: Duration) -> Vec<String> {
    match resources {
        [(_, one)] => vec![format!("summary: {}", line(one, elapsed, true))],
        several => several
            .iter()
            .map(|(resource, stats)| format!("summary {resource}: {}", line(stats, elapsed, true)))
            .chain(std::iter::once(format!(
                "summary: total of {} resources: {}",
                several.len(),
                line(
                    &Stats::total(several.iter().map(|(_, stats)| *stats)),
                    elapsed,
                    false
                )
            )))
            .collect(),
    }
}

/// `N events (ADDED a, MODIFIED m, DELETED d), ... RV x to y, 3.0s, 2.0 events/s`; without
/// the RVs for a total of several resources.
fn line(stats: &Stats, elapsed: Duration, rvs: bool) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        stats.objects() as f64 / secs
    } else {
        0.0
    };
    let rvs = if rvs {
        format!(
            "RV {} to {}, ",
            stats.first_rv.as_deref().unwrap_or("-"),
            stats.last_rv.as_deref().unwrap_or("-")
        )
    } else {
        String::new()
    };
    let hidden = match stats.hidden {
        0 => String::new(),
        n => format!(", {n} hidden"),
    };
    format!(
        "{} (ADDED {}, MODIFIED {}, DELETED {}{hidden}), {}, {}, {}, {rvs}{}, {:.1} events/s",
        count(stats.objects(), "event"),
        stats.added,
        stats.modified,
        stats.deleted,
        count(stats.bookmarks, "bookmark"),
        count(stats.reconnects, "reconnect"),
        count(stats.relists, "relist"),
        crate::format::format_seconds(secs),
        rate
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::transition::EventType;

    #[test]
    fn summary_counts_events_and_rates() {
        let mut s = Stats::default();
        s.count(EventType::Added, "1");
        s.count(EventType::Modified, "2");
        s.bookmarks = 1;
        let text = line(&s, Duration::from_secs(2), true);
        assert!(
            text.contains("2 events (ADDED 1, MODIFIED 1, DELETED 0)"),
            "{text}"
        );
        assert!(text.contains("RV 1 to 2"), "{text}");
        assert!(text.contains("1.0 events/s"), "{text}");
    }

    #[test]
    fn with_several_resources_the_summary_has_a_line_each_and_their_total_without_rvs() {
        let stats = |rv: &str| {
            let mut stats = Stats::default();
            stats.count(EventType::Added, rv);
            stats
        };
        let (deployments, pods) = (stats("5"), stats("7"));
        let one = summary(&[("pods", &pods)], Duration::from_secs(1));
        assert_eq!(one.len(), 1);
        assert!(one[0].starts_with("summary: 1 event (ADDED 1"), "{one:?}");
        let lines = summary(
            &[("deployments.apps", &deployments), ("pods", &pods)],
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
}
