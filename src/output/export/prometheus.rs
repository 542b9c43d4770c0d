//! The Prometheus export (`--export-prometheus`): text exposition with client-go's
//! `workqueue_*` names and buckets, so that figures line up with a controller's dashboards.

use crate::bench::snapshot::{ListenerSnapshot, PipelineSnapshot, QueueSnapshot};
use crate::metrics::Latency;
use std::io::Write;

/// client-go's workqueue latency buckets: `prometheus.ExponentialBuckets(10e-9, 10, 10)`.
pub const WORKQUEUE_BUCKETS: [f64; 10] =
    [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0];

/// What one metric family holds per queue or listener: a number, or a latency histogram.
enum Figure<'a> {
    Number(String),
    Histogram(&'a Latency),
}

/// One family: its name, type and help (client-go's, for the workqueue ones), and its figure of
/// each item.
type Family<T> = (
    &'static str,
    &'static str,
    &'static str,
    for<'a> fn(&'a T) -> Figure<'a>,
);

/// The workqueue families client-go's workqueue metrics provider registers, per queue `name`.
const QUEUE_FAMILIES: [Family<QueueSnapshot>; 7] = [
    ("workqueue_depth", "gauge", "Current depth of workqueue", |q| {
        Figure::Number(q.gauges.depth.to_string())
    }),
    (
        "workqueue_adds_total",
        "counter",
        "Total number of adds handled by workqueue",
        |q| Figure::Number(q.metrics.adds_total.to_string()),
    ),
    (
        "workqueue_queue_duration_seconds",
        "histogram",
        "How long in seconds an item stays in workqueue before being requested",
        |q| Figure::Histogram(&q.metrics.queue_duration),
    ),
    (
        "workqueue_work_duration_seconds",
        "histogram",
        "How long in seconds processing an item from workqueue takes",
        |q| Figure::Histogram(&q.metrics.work_duration),
    ),
    (
        "workqueue_unfinished_work_seconds",
        "gauge",
        "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
        |q| Figure::Number(q.gauges.unfinished_work_seconds.to_string()),
    ),
    (
        "workqueue_longest_running_processor_seconds",
        "gauge",
        "How many seconds has the longest running processor for workqueue been running",
        |q| Figure::Number(q.gauges.longest_running_processor_seconds.to_string()),
    ),
    (
        "workqueue_retries_total",
        "counter",
        "Total number of retries handled by workqueue",
        |q| Figure::Number(q.metrics.retries_total.to_string()),
    ),
];

/// The informer's families, per `listener`.
const LISTENER_FAMILIES: [Family<ListenerSnapshot>; 3] = [
    (
        "informer_listener_backlog",
        "gauge",
        "Notifications distributed to a listener and not yet handed to its handler",
        |l| Figure::Number(l.backlog.to_string()),
    ),
    (
        "informer_delivery_lag_seconds",
        "histogram",
        "From the event's arrival from the API server to the start of its handler",
        |l| Figure::Histogram(&l.metrics.delivery_lag),
    ),
    (
        "informer_handler_duration_seconds",
        "histogram",
        "How long a handler ran",
        |l| Figure::Histogram(&l.metrics.handler_time),
    ),
];

/// Writes `snapshot` as Prometheus text exposition (format 0.0.4).
pub fn write(snapshot: &PipelineSnapshot, out: &mut impl Write) -> std::io::Result<()> {
    for family in &QUEUE_FAMILIES {
        families(out, family, "name", &snapshot.queues, |q| &q.name)?;
    }
    for family in &LISTENER_FAMILIES {
        families(out, family, "listener", &snapshot.listeners, |l| &l.name)?;
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
    for (name, help, latency) in [
        (
            "informer_watch_latency_seconds",
            "From sending a write to the API server to receiving its watch event",
            &snapshot.watch_latency,
        ),
        (
            "informer_bench_reaction_latency_seconds",
            "From sending a write to receiving the event that shows the controller's reaction \
             (bench --react)",
            &snapshot.reaction_latency,
        ),
    ] {
        if let Some(latency) = latency {
            family(out, name, "histogram", help)?;
            histogram(out, name, "name", "bench", latency)?;
        }
    }
    Ok(())
}

/// `family` with one sample (or histogram) per item, labelled `label="{key(item)}"`.
fn families<T>(
    out: &mut impl Write,
    (name, kind, help, figure): &Family<T>,
    label: &str,
    items: &[T],
    key: impl Fn(&T) -> &str,
) -> std::io::Result<()> {
    family(out, name, kind, help)?;
    for item in items {
        match figure(item) {
            Figure::Number(value) => writeln!(out, "{name}{{{label}=\"{}\"}} {value}", key(item))?,
            Figure::Histogram(latency) => histogram(out, name, label, key(item), latency)?,
        }
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
