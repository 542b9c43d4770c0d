//! The Prometheus export (`--export-prometheus`): text exposition with client-go's
//! `workqueue_*` names and buckets, so that figures line up with a controller's dashboards.

use crate::bench::snapshot::PipelineSnapshot;
use crate::metrics::Latency;
use std::io::Write;

/// client-go's workqueue latency buckets: `prometheus.ExponentialBuckets(10e-9, 10, 10)`.
pub const WORKQUEUE_BUCKETS: [f64; 10] =
    [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0];

/// Writes `snapshot` as Prometheus text exposition (format 0.0.4).
pub fn write(snapshot: &PipelineSnapshot, out: &mut impl Write) -> std::io::Result<()> {
    let queues = &snapshot.queues;
    family(
        out,
        "workqueue_depth",
        "gauge",
        "Current depth of workqueue",
    )?;
    for q in queues {
        writeln!(
            out,
            "workqueue_depth{{name=\"{}\"}} {}",
            q.name, q.gauges.depth
        )?;
    }
    family(
        out,
        "workqueue_adds_total",
        "counter",
        "Total number of adds handled by workqueue",
    )?;
    for q in queues {
        writeln!(
            out,
            "workqueue_adds_total{{name=\"{}\"}} {}",
            q.name, q.metrics.adds_total
        )?;
    }
    family(
        out,
        "workqueue_queue_duration_seconds",
        "histogram",
        "How long in seconds an item stays in workqueue before being requested",
    )?;
    for q in queues {
        histogram(
            out,
            "workqueue_queue_duration_seconds",
            "name",
            &q.name,
            &q.metrics.queue_duration,
        )?;
    }
    family(
        out,
        "workqueue_work_duration_seconds",
        "histogram",
        "How long in seconds processing an item from workqueue takes",
    )?;
    for q in queues {
        histogram(
            out,
            "workqueue_work_duration_seconds",
            "name",
            &q.name,
            &q.metrics.work_duration,
        )?;
    }
    family(
        out,
        "workqueue_unfinished_work_seconds",
        "gauge",
        "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
    )?;
    for q in queues {
        writeln!(
            out,
            "workqueue_unfinished_work_seconds{{name=\"{}\"}} {}",
            q.name, q.gauges.unfinished_work_seconds
        )?;
    }
    family(
        out,
        "workqueue_longest_running_processor_seconds",
        "gauge",
        "How many seconds has the longest running processor for workqueue been running",
    )?;
    for q in queues {
        writeln!(
            out,
            "workqueue_longest_running_processor_seconds{{name=\"{}\"}} {}",
            q.name, q.gauges.longest_running_processor_seconds
        )?;
    }
    family(
        out,
        "workqueue_retries_total",
        "counter",
        "Total number of retries handled by workqueue",
    )?;
    for q in queues {
        writeln!(
            out,
            "workqueue_retries_total{{name=\"{}\"}} {}",
            q.name, q.metrics.retries_total
        )?;
    }
    family(
        out,
        "informer_listener_backlog",
        "gauge",
        "Notifications distributed to a listener and not yet handed to its handler",
    )?;
    for l in &snapshot.listeners {
        writeln!(
            out,
            "informer_listener_backlog{{listener=\"{}\"}} {}",
            l.name, l.backlog
        )?;
    }
    family(
        out,
        "informer_delivery_lag_seconds",
        "histogram",
        "From the event's arrival from the API server to the start of its handler",
    )?;
    for l in &snapshot.listeners {
        histogram(
            out,
            "informer_delivery_lag_seconds",
            "listener",
            &l.name,
            &l.metrics.delivery_lag,
        )?;
    }
    family(
        out,
        "informer_handler_duration_seconds",
        "histogram",
        "How long a handler ran",
    )?;
    for l in &snapshot.listeners {
        histogram(
            out,
            "informer_handler_duration_seconds",
            "listener",
            &l.name,
            &l.metrics.handler_time,
        )?;
    }
    if let Some(t) = &snapshot.watch_transitions {
        for (name, help, value) in [
            (
                "informer_watch_reconnects_total",
                "Times the informer's watch was re-opened after it ended",
                t.reconnects,
            ),
            (
                "informer_relists_total",
                "Times the informer relisted (410 Gone, a malformed event)",
                t.relists,
            ),
        ] {
            family(out, name, "counter", help)?;
            writeln!(out, "{name} {value}")?;
        }
    }
    if let Some(latency) = &snapshot.watch_latency {
        family(
            out,
            "informer_watch_latency_seconds",
            "histogram",
            "From sending a write to the API server to receiving its watch event",
        )?;
        histogram(
            out,
            "informer_watch_latency_seconds",
            "name",
            "bench",
            latency,
        )?;
    }
    if let Some(latency) = &snapshot.reaction_latency {
        family(
            out,
            "informer_bench_reaction_latency_seconds",
            "histogram",
            "From sending a write to receiving the event that shows the controller's reaction \
             (bench --react)",
        )?;
        histogram(
            out,
            "informer_bench_reaction_latency_seconds",
            "name",
            "bench",
            latency,
        )?;
    }
    Ok(())
}

fn family(out: &mut impl Write, name: &str, kind: &str, help: &str) -> std::io::Result<()> {
    writeln!(out, "# HELP {name} {help}")?;
    writeln!(out, "# TYPE {name} {kind}")
}

fn histogram(
    out: &mut impl Write,
    name: &str,
    label: &str,
    value: &str,
    latency: &Latency,
) -> std::io::Result<()> {
    for (bound, count) in latency.buckets(&WORKQUEUE_BUCKETS) {
        writeln!(
            out,
            "{name}_bucket{{{label}=\"{value}\",le=\"{}\"}} {count}",
            go_float(bound)
        )?;
    }
    writeln!(
        out,
        "{name}_bucket{{{label}=\"{value}\",le=\"+Inf\"}} {}",
        latency.count()
    )?;
    writeln!(
        out,
        "{name}_sum{{{label}=\"{value}\"}} {}",
        latency.sum_seconds()
    )?;
    writeln!(
        out,
        "{name}_count{{{label}=\"{value}\"}} {}",
        latency.count()
    )
}

/// A float as Go's `strconv.FormatFloat(f, 'g', -1, 64)` writes it, as client_golang writes
/// `le` bounds: `1e-08`, `0.0001`, `0.01`, `1`, `10`. Dashboards match these as strings.
fn go_float(f: f64) -> String {
    if f == 0.0 || !f.is_finite() {
        return format!("{f}");
    }
    let exponent = f.abs().log10().floor() as i32;
    if (-4..21).contains(&exponent) {
        return format!("{f}");
    }
    let scientific = format!("{f:e}");
    match scientific.split_once('e') {
        Some((mantissa, exp)) => {
            let exp: i32 = exp.parse().unwrap_or(0);
            let sign = if exp < 0 { '-' } else { '+' };
            format!("{mantissa}e{sign}{:02}", exp.abs())
        }
        None => scientific,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::snapshot::{ListenerSnapshot, QueueSnapshot, WatchTransitions};
    use crate::informer::processor::ListenerMetrics;
    use crate::informer::workqueue::{QueueGauges, QueueMetrics};
    use std::time::Duration;

    fn snapshot() -> PipelineSnapshot {
        let mut qm = QueueMetrics {
            adds_total: 3,
            retries_total: 1,
            ..Default::default()
        };
        qm.queue_duration.record(Duration::from_millis(5));
        qm.queue_duration.record(Duration::from_millis(50));
        let mut lm = ListenerMetrics::default();
        lm.delivery_lag.record(Duration::from_micros(300));
        lm.handled = 1;
        PipelineSnapshot {
            listeners: vec![ListenerSnapshot {
                name: "h0".into(),
                metrics: lm,
                backlog: 4,
            }],
            queues: vec![QueueSnapshot {
                name: "bench".into(),
                metrics: qm,
                gauges: QueueGauges {
                    depth: 2,
                    ..Default::default()
                },
            }],
            watch_latency: None,
            reaction_latency: None,
            watch_transitions: Some(WatchTransitions {
                reconnects: 2,
                relists: 1,
            }),
        }
    }

    #[test]
    fn prometheus_uses_client_go_names_and_cumulative_buckets() {
        let mut out = Vec::new();
        write(&snapshot(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in [
            "# TYPE workqueue_depth gauge",
            "workqueue_depth{name=\"bench\"} 2",
            "workqueue_adds_total{name=\"bench\"} 3",
            "workqueue_retries_total{name=\"bench\"} 1",
            "workqueue_queue_duration_seconds_bucket{name=\"bench\",le=\"1e-08\"} 0",
            "workqueue_queue_duration_seconds_bucket{name=\"bench\",le=\"0.01\"} 1",
            "workqueue_queue_duration_seconds_bucket{name=\"bench\",le=\"0.1\"} 2",
            "workqueue_queue_duration_seconds_bucket{name=\"bench\",le=\"10\"} 2",
            "workqueue_queue_duration_seconds_bucket{name=\"bench\",le=\"+Inf\"} 2",
            "workqueue_queue_duration_seconds_count{name=\"bench\"} 2",
            "# TYPE workqueue_longest_running_processor_seconds gauge",
            "informer_listener_backlog{listener=\"h0\"} 4",
            "informer_delivery_lag_seconds_bucket{listener=\"h0\",le=\"0.001\"} 1",
            "# TYPE informer_watch_reconnects_total counter",
            "informer_watch_reconnects_total 2",
            "informer_relists_total 1",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
    }

    #[test]
    fn bounds_are_written_as_go_writes_them_and_a_value_on_a_bound_counts_under_it() {
        let written: Vec<String> = WORKQUEUE_BUCKETS.iter().map(|b| go_float(*b)).collect();
        assert_eq!(
            written,
            ["1e-08", "1e-07", "1e-06", "1e-05", "0.0001", "0.001", "0.01", "0.1", "1", "10"]
        );
        let mut latency = Latency::default();
        latency.record(Duration::from_millis(10));
        latency.record(Duration::from_millis(1000));
        let buckets = latency.buckets(&[0.01, 1.0]);
        assert_eq!(buckets, vec![(0.01, 1), (1.0, 2)]);
    }
}
