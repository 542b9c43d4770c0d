//! `top` for people: a controller's queues, informers, client throttling and reconcilers in one
//! interval, as tables in kubectl's plain columns.

use crate::format::{format_number, format_seconds};
use crate::scrape::interval::{
    BoundFigure, InformerInterval, Interval, Percentiles, QueueInterval, ReconcilerInterval,
};
use comfy_table::presets::NOTHING;
use comfy_table::{CellAlignment, Table};
use std::io::Write;

/// A bucket edge: decades down to 10 ns, as client-go's workqueue histograms have them.
fn edge(seconds: f64) -> String {
    if seconds > 0.0 && seconds < 1e-6 {
        format!("{:.0}ns", seconds * 1e9)
    } else {
        format_seconds(seconds)
    }
}

/// Where a percentile lies, as its bucket bounds it: `≤10ms`, `>10s` past the last edge,
/// `-` without observations.
pub fn bound(b: Option<BoundFigure>) -> String {
    match b {
        None => "-".to_string(),
        Some(BoundFigure {
            at_most: Some(at_most),
            ..
        }) => format!("≤{}", edge(at_most)),
        Some(BoundFigure { above, .. }) => format!(">{}", edge(above)),
    }
}

pub(crate) fn p(percentiles: &Percentiles) -> (String, String) {
    (bound(percentiles.p50), bound(percentiles.p99))
}

pub(crate) fn table(header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_style(NOTHING).set_header(header.to_vec());
    for i in 1..header.len() {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t
}

/// One interval's tables; the idle queues and informers are counted, not shown, unless `all`.
pub fn write_interval(
    out: &mut impl Write,
    heading: &str,
    interval: &Interval,
    all: bool,
) -> std::io::Result<()> {
    writeln!(out, "{heading}")?;
    let queues: Vec<_> = interval
        .queues
        .iter()
        .filter(|q| all || !q.is_idle())
        .collect();
    if !queues.is_empty() {
        writeln!(out, "{}", queue_table(&queues))?;
    }
    let informers: Vec<_> = interval
        .informers
        .iter()
        .filter(|i| all || !i.is_idle())
        .collect();
    if !informers.is_empty() {
        writeln!(out, "{}", informer_table(&informers))?;
    }
    if !interval.reconcilers.is_empty() {
        writeln!(out, "{}", reconciler_table(&interval.reconcilers))?;
    }
    if let Some(t) = &interval.throttling {
        writeln!(
            out,
            "client throttling: p50 {}, p99 {} ({} waited on the rate limiter)",
            bound(t.p50),
            bound(t.p99),
            crate::format::count(t.count as u64, "request")
        )?;
    }
    let hidden_queues = interval.queues.len() - queues.len();
    let hidden_informers = interval.informers.len() - informers.len();
    if hidden_queues + hidden_informers > 0 {
        writeln!(
            out,
            "not shown, idle: {} and {} (--all shows them)",
            crate::format::count(hidden_queues as u64, "queue"),
            crate::format::count(hidden_informers as u64, "informer")
        )?;
    }
    Ok(())
}

/// A row per workqueue.
fn queue_table(queues: &[&QueueInterval]) -> Table {
    let mut t = table(&[
        "QUEUE",
        "DEPTH",
        "ADDS/S",
        "RETRIES/S",
        "QUEUE P50",
        "QUEUE P99",
        "WORK P50",
        "WORK P99",
        "UNFINISHED",
        "LONGEST",
    ]);
    for q in queues {
        let (queue50, queue99) = p(&q.queue_duration);
        let (work50, work99) = p(&q.work_duration);
        t.add_row(vec![
            q.name.clone(),
            format_number(q.depth),
            format!("{:.1}", q.adds_per_second),
            format!("{:.1}", q.retries_per_second),
            queue50,
            queue99,
            work50,
            work99,
            format_seconds(q.unfinished_work_seconds),
            format_seconds(q.longest_running_processor_seconds),
        ]);
    }
    t
}

/// A row per informer, with the lag columns when any lag was measured.
fn informer_table(informers: &[&InformerInterval]) -> Table {
    let lags = informers.iter().any(|i| i.lag.is_some());
    let mut header = vec![
        "INFORMER",
        "QUEUED",
        "PROCESSING P50",
        "PROCESSING P99",
        "STORE RV",
    ];
    if lags {
        header.extend(["LAG RVS", "LAG"]);
    }
    let mut t = table(&header);
    for i in informers {
        let (p50, p99) = p(&i.processing_latency);
        let group = if i.group.is_empty() { "core" } else { &i.group };
        let mut row = vec![
            format!(
                "{} {group}/{}",
                i.plural.as_deref().unwrap_or(&i.resource),
                i.version
            ),
            format_number(i.queued_items),
            p50,
            p99,
            i.store_resource_version
                .map(format_number)
                .unwrap_or_else(|| "-".into()),
        ];
        if lags {
            row.extend(match i.lag {
                Some(l) => [l.resource_versions.to_string(), format_seconds(l.seconds)],
                None => ["-".to_string(), "-".to_string()],
            });
        }
        t.add_row(row);
    }
    t
}

/// A row per controller-runtime reconciler.
fn reconciler_table(reconcilers: &[ReconcilerInterval]) -> Table {
    let mut t = table(&[
        "RECONCILER",
        "RECONCILES/S",
        "ERRORS/S",
        "TIME P50",
        "TIME P99",
        "WORKERS",
    ]);
    for r in reconcilers {
        let (p50, p99) = p(&r.time);
        t.add_row(vec![
            r.controller.clone(),
            format!("{:.1}", r.reconciles_per_second),
            format!("{:.1}", r.errors_per_second),
            p50,
            p99,
            r.active_workers
                .map(format_number)
                .unwrap_or_else(|| "-".into()),
        ]);
    }
    t
}

/// What says which replica and port a port-forwarded target reached, and how (the caller
/// prefixes its name).
pub fn reached_line(target: &str, reached: &crate::scrape::target::Reached) -> String {
    let who = match (&reached.leader, reached.replicas) {
        (Some(lease), n) => format!("the leader of {n} replicas (Lease {lease})"),
        (None, 1) => "its only replica".to_string(),
        (None, n) => format!(
            "the first of {n} replicas by name (no Lease in the namespace names one of them as \
             its holder)"
        ),
    };
    scraping_line(target, reached, &who)
}

/// With `--all-replicas`, the line that says how one replica is scraped, when it is first seen:
/// the leader (`leads`), a follower, or one of replicas no Lease tells apart.
pub fn replica_line(
    target: &str,
    reached: &crate::scrape::target::Reached,
    leads: Option<bool>,
) -> String {
    let n = reached.replicas;
    let who = match (leads, &reached.leader) {
        (Some(true), Some(lease)) => format!("the leader of {n} replicas (Lease {lease})"),
        (Some(false), _) => format!("a follower of {n} replicas"),
        _ if n == 1 => "its only replica".to_string(),
        _ => format!("one of {n} replicas (no Lease in the namespace names one as its holder)"),
    };
    scraping_line(target, reached, &who)
}

fn scraping_line(target: &str, reached: &crate::scrape::target::Reached, who: &str) -> String {
    use crate::scrape::forwarded::Scheme;
    let over = match reached.scheme {
        Some(Scheme::Https) => {
            ", over HTTPS: the pod's certificate is accepted unchecked (a \
                                pod's own, usually self-signed), for this connection only"
        }
        Some(Scheme::Http) => ", over plain HTTP",
        None => "",
    };
    format!(
        "{target}: scraping pod/{}, {who}, port {} ({}) by port-forward{over}",
        reached.pod, reached.port, reached.chosen_by
    )
}

/// With `--all-replicas`, a replica that answered with metrics but none of a controller's: a
/// follower's controllers have not started (client-go's and controller-runtime's leader
/// election start them on the leader only).
pub fn standby_line(shown: &str, time: &str, leads: Option<bool>) -> String {
    format!(
        "{shown} · {time}: no controller metrics yet ({})",
        waiting(leads)
    )
}

/// With `--all-replicas`, the summary of a replica that never served a controller's metrics.
pub fn standby_summary(shown: &str, leads: Option<bool>, scrapes: u64, gaps: u64) -> String {
    format!(
        "summary of {shown}: no controller metrics in {}, {} ({})",
        crate::format::count(scrapes, "scrape"),
        crate::format::count(gaps, "gap"),
        waiting(leads)
    )
}

fn waiting(leads: Option<bool>) -> &'static str {
    match leads {
        Some(false) => "a follower's controllers start when it leads",
        _ => "its controllers have not started",
    }
}

/// With `--all-replicas`, the line that says another replica leads now.
pub fn new_leader_line(target: &str, pod: &str, lease: &str, before: Option<&str>) -> String {
    let before = before
        .map(|b| format!(" (was pod/{b})"))
        .unwrap_or_default();
    format!("kubectl-informer: {target}: the leader is now pod/{pod}{before}, by Lease {lease}")
}

/// With `--all-replicas`, the line that says a replica no longer runs; its summary comes at
/// the end with the others'.
pub fn gone_line(target: &str, pod: &str, replicas: usize) -> String {
    format!(
        "kubectl-informer: {target}: pod/{pod} no longer runs ({} now)",
        crate::format::count(replicas as u64, "replica")
    )
}

/// The line that says the scraping moved to another replica.
pub fn moved_line(target: &str, moved: &crate::scrape::target::Moved) -> String {
    let why = match &moved.to.leader {
        Some(lease) => format!("the leader is now pod/{} (Lease {lease})", moved.to.pod),
        None => format!("pod/{} is scraped instead", moved.to.pod),
    };
    format!(
        "kubectl-informer: {target}: pod/{} no longer leads or runs: {why}; the next interval \
         starts at its first scrape",
        moved.from
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_read_as_the_bucket_edges() {
        let b = |above, at_most| Some(BoundFigure { above, at_most });
        assert_eq!(bound(b(0.001, Some(0.01))), "≤10ms");
        assert_eq!(bound(b(0.0, Some(1e-8))), "≤10ns");
        assert_eq!(bound(b(10.0, None)), ">10s");
        assert_eq!(bound(None), "-");
    }
}
