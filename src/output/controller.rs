//! The controller section of bench's report (`--metrics-from`): what the controller's own metrics
//! said over the window, as rows and lines every format shows alike (the table here, the
//! Markdown and HTML exports), in `top`'s columns. Percentiles are bucket bounds, as the
//! histograms give them.

use super::top::{bound, table};
use crate::format::{count, format_number, format_seconds};
use crate::scrape::window::ControllerFigures;
use std::io::Write;

/// The section for people: a heading with the scrapes and gaps, the busy queues and informers as
/// tables, then the throttling, the reconcilers and the idle ones counted.
pub fn write_controller(out: &mut impl Write, c: &ControllerFigures) -> std::io::Result<()> {
    writeln!(out, "\ncontroller {}: {}", c.target, window_line(c))?;
    let upper = |header: &[&str]| header.iter().map(|h| h.to_uppercase()).collect::<Vec<_>>();
    for (header, rows) in [
        (upper(&QUEUE_HEADER), rows(queue_rows(c))),
        (upper(&INFORMER_HEADER), rows(informer_rows(c))),
    ] {
        if !rows.is_empty() {
            let mut t = table(&header.iter().map(String::as_str).collect::<Vec<_>>());
            for row in rows {
                t.add_row(row);
            }
            writeln!(out, "{t}")?;
        }
    }
    for line in controller_lines(c) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

fn rows<const N: usize>(rows: Vec<[String; N]>) -> Vec<Vec<String>> {
    rows.into_iter().map(Vec::from).collect()
}

/// The controller section's heading after the target: scrapes, span and gaps, and how to read a
/// percentile (a histogram only tells the bucket it falls in).
pub fn window_line(c: &ControllerFigures) -> String {
    format!(
        "{} over {}, {}; percentiles are bucket bounds (≤ the bucket's upper edge)",
        count(c.scrapes, "scrape"),
        crate::format::format_seconds(c.seconds),
        count(c.gaps, "gap")
    )
}

/// The columns of the busy queues' table.
pub const QUEUE_HEADER: [&str; 10] = [
    "queue",
    "depth max",
    "mean",
    "end",
    "adds",
    "retries",
    "queue p50",
    "queue p99",
    "work p50",
    "work p99",
];

/// A row per queue that is not idle, in the report's order (by name).
pub fn queue_rows(c: &ControllerFigures) -> Vec<[String; 10]> {
    c.queues
        .iter()
        .filter(|q| !q.is_idle())
        .map(|q| {
            [
                q.name.clone(),
                format_number(q.depth.max),
                format!("{:.1}", q.depth.mean),
                format_number(q.depth.last),
                format_number(q.adds),
                format_number(q.retries),
                bound(q.queue_duration.p50),
                bound(q.queue_duration.p99),
                bound(q.work_duration.p50),
                bound(q.work_duration.p99),
            ]
        })
        .collect()
}

/// The columns of the busy informers' table.
pub const INFORMER_HEADER: [&str; 6] = [
    "informer",
    "queued max",
    "processing p99",
    "lag max RVs",
    "lag max",
    "lag at end",
];

/// A row per informer that is not idle, named `resource group/version` (`core` for the empty
/// group); `-` in the lag columns where its resource was not followed.
pub fn informer_rows(c: &ControllerFigures) -> Vec<[String; 6]> {
    c.informers
        .iter()
        .filter(|i| !i.is_idle())
        .map(|i| {
            let group = if i.group.is_empty() { "core" } else { &i.group };
            let (rvs, max, end) = match i.lag {
                Some(l) => (
                    l.max_resource_versions.to_string(),
                    format_seconds(l.max_seconds),
                    format_seconds(l.last.seconds),
                ),
                None => ("-".into(), "-".into(), "-".into()),
            };
            [
                format!("{} {group}/{}", i.resource, i.version),
                format_number(i.queued_items.max),
                bound(i.processing_latency.p99),
                rvs,
                max,
                end,
            ]
        })
        .collect()
}

/// The lines after the tables, as the text report words them: the client's throttling, each
/// reconciler, and how many queues and informers the tables leave out as idle.
pub fn controller_lines(c: &ControllerFigures) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(t) = &c.throttling {
        lines.push(format!(
            "client throttling: p50 {}, p99 {} ({} waited on the rate limiter)",
            bound(t.p50),
            bound(t.p99),
            count(t.count as u64, "request")
        ));
    }
    for r in &c.reconcilers {
        lines.push(format!(
            "reconciler {}: {} reconciles, {} errors, time p50 {} p99 {}",
            r.controller,
            format_number(r.reconciles),
            format_number(r.errors),
            bound(r.time.p50),
            bound(r.time.p99)
        ));
    }
    let idle_queues = c.queues.iter().filter(|q| q.is_idle()).count();
    let idle_informers = c.informers.iter().filter(|i| i.is_idle()).count();
    if idle_queues + idle_informers > 0 {
        lines.push(format!(
            "not shown, idle: {} and {} (all in the JSON report)",
            count(idle_queues as u64, "queue"),
            count(idle_informers as u64, "informer")
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::export::chart::tests::{controller, informer, percentiles, queue, ODD};
    use crate::scrape::lag::Lag;
    use crate::scrape::window::{LagFigures, Sampled};

    #[test]
    fn idle_queues_and_informers_are_counted_not_shown() {
        let c = controller();
        let queues: Vec<String> = queue_rows(&c).into_iter().map(|r| r[0].clone()).collect();
        assert_eq!(queues, [ODD, "deployment"]);
        let informers = informer_rows(&c);
        assert_eq!(
            informers,
            [["deployments apps/v1", "0", "-", "12", "250ms", "50ms"].map(String::from)]
        );
        assert_eq!(
            controller_lines(&c).last().unwrap(),
            "not shown, idle: 1 queue and 1 informer (all in the JSON report)"
        );
        assert_eq!(queue_rows(&c)[1][7], ">10s", "a p99 past the last edge");
    }

    #[test]
    fn a_queue_or_informer_that_did_anything_is_busy() {
        let idle = queue("q", Sampled::default(), 0.0);
        assert!(idle.is_idle());
        let added = queue("q", Sampled::default(), 3.0);
        let mut working = idle.clone();
        working.unfinished_work_seconds = 2.0;
        let mut held = idle.clone();
        held.depth.max = 1.0;
        for busy in [added, working, held] {
            assert!(!busy.is_idle(), "{busy:?}");
        }
        let idle = informer("configmaps", "", None);
        assert!(idle.is_idle());
        let mut caught_up = idle.clone();
        caught_up.lag = Some(LagFigures {
            max_resource_versions: 0,
            max_seconds: 0.0,
            last: Lag {
                resource_versions: 0,
                seconds: 0.0,
            },
            samples: 3,
        });
        assert!(caught_up.is_idle());
        let mut queued = idle.clone();
        queued.queued_items.max = 2.0;
        let mut processed = idle.clone();
        processed.processing_latency = percentiles(1.0, 0.001);
        let mut behind = caught_up.clone();
        behind.lag.as_mut().unwrap().max_resource_versions = 1;
        for busy in [queued, processed, behind] {
            assert!(!busy.is_idle(), "{busy:?}");
        }
    }
}
