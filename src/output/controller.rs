//! The controller section of bench's report for people (`--metrics-from`): what the
//! controller's own metrics said over the window, as tables in `top`'s columns. Percentiles are
//! bucket bounds, as the histograms give them.

use super::top::{bound, p, table};
use crate::format::{count, format_number, format_seconds};
use crate::scrape::window::{ControllerFigures, InformerFigures, QueueFigures};
use comfy_table::Table;
use std::io::Write;

/// Whether a queue did nothing in the window and held nothing at any scrape.
fn queue_idle(q: &QueueFigures) -> bool {
    q.depth.max == 0.0 && q.adds == 0.0 && q.unfinished_work_seconds == 0.0
}

/// Whether an informer's FIFO held nothing, processed nothing and was never behind.
fn informer_idle(i: &InformerFigures) -> bool {
    i.queued_items.max == 0.0
        && i.processing_latency.count == 0.0
        && i.lag.is_none_or(|l| l.max_resource_versions == 0)
}

/// The section: a heading with the scrapes and gaps, the busy queues, the busy informers, the
/// reconcilers and the client's throttling; idle ones counted.
pub fn write_controller(out: &mut impl Write, c: &ControllerFigures) -> std::io::Result<()> {
    writeln!(
        out,
        "\ncontroller {}: {} over {:.1}s, {}; percentiles are bucket bounds (≤ the bucket's upper edge)",
        c.target,
        count(c.scrapes, "scrape"),
        c.seconds,
        count(c.gaps, "gap")
    )?;
    let queues: Vec<_> = c.queues.iter().filter(|q| !queue_idle(q)).collect();
    if !queues.is_empty() {
        writeln!(out, "{}", queue_table(&queues))?;
    }
    let informers: Vec<_> = c.informers.iter().filter(|i| !informer_idle(i)).collect();
    if !informers.is_empty() {
        writeln!(out, "{}", informer_table(&informers))?;
    }
    for r in &c.reconcilers {
        writeln!(
            out,
            "reconciler {}: {} reconciles, {} errors, time p50 {} p99 {}",
            r.controller,
            format_number(r.reconciles),
            format_number(r.errors),
            bound(r.time.p50),
            bound(r.time.p99)
        )?;
    }
    if let Some(t) = &c.throttling {
        writeln!(
            out,
            "client throttling: p50 {}, p99 {} ({} waited on the rate limiter)",
            bound(t.p50),
            bound(t.p99),
            count(t.count as u64, "request")
        )?;
    }
    let idle = (
        c.queues.len() - queues.len(),
        c.informers.len() - informers.len(),
    );
    if idle.0 + idle.1 > 0 {
        writeln!(
            out,
            "not shown, idle: {} and {} (all in the JSON report)",
            count(idle.0 as u64, "queue"),
            count(idle.1 as u64, "informer")
        )?;
    }
    Ok(())
}

/// A row per busy workqueue.
fn queue_table(queues: &[&QueueFigures]) -> Table {
    let mut t = table(&[
        "QUEUE",
        "DEPTH MAX",
        "MEAN",
        "END",
        "ADDS",
        "RETRIES",
        "QUEUE P50",
        "QUEUE P99",
        "WORK P50",
        "WORK P99",
        "LONGEST",
    ]);
    for q in queues {
        let (queue50, queue99) = p(&q.queue_duration);
        let (work50, work99) = p(&q.work_duration);
        t.add_row(vec![
            q.name.clone(),
            format_number(q.depth.max),
            format!("{:.1}", q.depth.mean),
            format_number(q.depth.last),
            format_number(q.adds),
            format_number(q.retries),
            queue50,
            queue99,
            work50,
            work99,
            format_seconds(q.longest_running_processor_seconds),
        ]);
    }
    t
}

/// A row per busy informer, with its lag where it was measured.
fn informer_table(informers: &[&InformerFigures]) -> Table {
    let mut t = table(&[
        "INFORMER",
        "QUEUED MAX",
        "PROCESSING P50",
        "PROCESSING P99",
        "LAG MAX RVS",
        "LAG MAX",
        "LAG AT END",
    ]);
    for i in informers {
        let (p50, p99) = p(&i.processing_latency);
        let group = if i.group.is_empty() { "core" } else { &i.group };
        let (rvs, max, end) = match i.lag {
            Some(l) => (
                l.max_resource_versions.to_string(),
                format_seconds(l.max_seconds),
                format_seconds(l.last.seconds),
            ),
            None => ("-".into(), "-".into(), "-".into()),
        };
        t.add_row(vec![
            format!("{} {group}/{}", i.resource, i.version),
            format_number(i.queued_items.max),
            p50,
            p99,
            rvs,
            max,
            end,
        ]);
    }
    t
}
