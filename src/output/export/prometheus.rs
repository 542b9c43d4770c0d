//! The Prometheus export (`--export-prometheus`): text exposition with client-go's
//! `workqueue_*` names and buckets, so that figures line up with a controller's dashboards;
//! with `--metrics-from`, the controller's figures over the window as
//! `kubectl_informer_controller_*` gauges.

use crate::bench::snapshot::{ListenerSnapshot, PipelineSnapshot, QueueSnapshot};
use crate::metrics::Latency;
use crate::scrape::interval::Percentiles;
use crate::scrape::window::{ControllerFigures, InformerFigures, QueueFigures, ReconcilerFigures};
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

/// What the controller's families are named after: `kubectl_informer_controller_` and the
/// metric they come from. They are figures over bench's window, not the controller's own series
/// (its counters' growth, its histograms' percentiles), so they must not take its names.
const CONTROLLER_PREFIX: &str = "kubectl_informer_controller_";

/// A controller family of one gauge per item: its name after the prefix, its help, and the
/// item's value (none: no sample for the item).
type Gauge<T> = (&'static str, &'static str, fn(&T) -> Option<f64>);

/// A controller family of the upper edges of the buckets an item's percentiles fall in.
type Bounds<T> = (&'static str, &'static str, fn(&T) -> &Percentiles);

const QUEUE_GAUGES: [Gauge<QueueFigures>; 5] = [
    (
        "workqueue_depth_max",
        "Largest workqueue_depth at any scrape in bench's window",
        |q| Some(q.depth.max),
    ),
    (
        "workqueue_depth_mean",
        "Mean workqueue_depth over the window's good scrapes",
        |q| Some(q.depth.mean),
    ),
    (
        "workqueue_depth_last",
        "workqueue_depth at the window's last good scrape",
        |q| Some(q.depth.last),
    ),
    (
        "workqueue_adds",
        "Growth of workqueue_adds_total over the window",
        |q| Some(q.adds),
    ),
    (
        "workqueue_retries",
        "Growth of workqueue_retries_total over the window",
        |q| Some(q.retries),
    ),
];

const QUEUE_BOUNDS: [Bounds<QueueFigures>; 2] = [
    (
        "workqueue_queue_duration_seconds_upper_bound",
        "Upper edge of the workqueue_queue_duration_seconds bucket each percentile of the \
         window's observations falls in (+Inf past the last edge)",
        |q| &q.queue_duration,
    ),
    (
        "workqueue_work_duration_seconds_upper_bound",
        "Upper edge of the workqueue_work_duration_seconds bucket each percentile of the \
         window's observations falls in (+Inf past the last edge)",
        |q| &q.work_duration,
    ),
];

const INFORMER_GAUGES: [Gauge<InformerFigures>; 3] = [
    (
        "informer_queued_items_max",
        "Largest informer_queued_items at any scrape in bench's window",
        |i| Some(i.queued_items.max),
    ),
    (
        "informer_lag_seconds_max",
        "Longest an event bench's own watch received waited for the informer's store, at the \
         window's scrapes",
        |i| i.lag.map(|l| l.max_seconds),
    ),
    (
        "informer_lag_resource_versions_max",
        "Largest gap between the newest resourceVersion bench's own watch received and the \
         informer's store's, at the window's scrapes",
        |i| i.lag.map(|l| l.max_resource_versions as f64),
    ),
];

const RECONCILER_GAUGES: [Gauge<ReconcilerFigures>; 2] = [
    (
        "controller_runtime_reconcile",
        "Growth of controller_runtime_reconcile_total over bench's window",
        |r| Some(r.reconciles),
    ),
    (
        "controller_runtime_reconcile_errors",
        "Growth of controller_runtime_reconcile_errors_total over bench's window",
        |r| Some(r.errors),
    ),
];

const RECONCILER_BOUNDS: Bounds<ReconcilerFigures> = (
    "controller_runtime_reconcile_time_seconds_upper_bound",
    "Upper edge of the controller_runtime_reconcile_time_seconds bucket each percentile of the \
     window's observations falls in (+Inf past the last edge)",
    |r| &r.time,
);

/// Writes `snapshot`, and the controller's section when the run has one, as Prometheus text
/// exposition (format 0.0.4).
pub fn write(
    snapshot: &PipelineSnapshot,
    controller: Option<&ControllerFigures>,
    out: &mut impl Write,
) -> std::io::Result<()> {
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
    match controller {
        Some(c) => write_controller(out, c),
        None => Ok(()),
    }
}

/// Label pairs, in the order written.
type Labels<'a> = Vec<(&'static str, &'a str)>;

/// The controller's figures over the window: its scrapes and gaps; per queue (`name`) depth,
/// adds, retries and its durations' percentile bounds; per informer (`name`, `group`,
/// `version`, `resource`) queued items and, where measured, lag; the client's throttling; per
/// reconciler (`controller`) reconciles, errors and time. Gauges all: a count is the growth in
/// the window, not the controller's counter.
fn write_controller(out: &mut impl Write, c: &ControllerFigures) -> std::io::Result<()> {
    let (scrapes, gaps) = (c.scrapes as f64, c.gaps as f64);
    let help = "Scrapes of the controller's metrics in bench's window, failed ones included";
    gauges(out, "scrapes", help, vec![(Vec::new(), scrapes)])?;
    let help = "Scrapes in the window that failed or did not answer in time";
    gauges(out, "scrape_gaps", help, vec![(Vec::new(), gaps)])?;
    for (name, help, value) in QUEUE_GAUGES {
        let samples = c.queues.iter().filter_map(|q| Some((queue(q), value(q)?)));
        gauges(out, name, help, samples.collect())?;
    }
    for (name, help, percentiles) in QUEUE_BOUNDS {
        let samples = c
            .queues
            .iter()
            .flat_map(|q| bounds(queue(q), percentiles(q)));
        gauges(out, name, help, samples.collect())?;
    }
    for (name, help, value) in INFORMER_GAUGES {
        let samples = c
            .informers
            .iter()
            .filter_map(|i| Some((informer(i), value(i)?)));
        gauges(out, name, help, samples.collect())?;
    }
    if let Some(t) = &c.throttling {
        let help = "Upper edge of the rest_client_rate_limiter_duration_seconds bucket each \
                    percentile of the window's waits falls in (+Inf past the last edge)";
        let name = "rest_client_rate_limiter_duration_seconds_upper_bound";
        gauges(out, name, help, bounds(Vec::new(), t))?;
    }
    for (name, help, value) in RECONCILER_GAUGES {
        let samples = c
            .reconcilers
            .iter()
            .filter_map(|r| Some((reconciler(r), value(r)?)));
        gauges(out, name, help, samples.collect())?;
    }
    let (name, help, percentiles) = RECONCILER_BOUNDS;
    let samples = c
        .reconcilers
        .iter()
        .flat_map(|r| bounds(reconciler(r), percentiles(r)));
    gauges(out, name, help, samples.collect())
}

/// A queue's labels, as client-go's workqueue metrics have them.
fn queue(q: &QueueFigures) -> Labels<'_> {
    vec![("name", &q.name)]
}

/// An informer's labels, as the controller's informer metrics have them.
fn informer(i: &InformerFigures) -> Labels<'_> {
    vec![
        ("name", &i.name),
        ("group", &i.group),
        ("version", &i.version),
        ("resource", &i.resource),
    ]
}

/// A reconciler's labels, as controller-runtime's metrics have them.
fn reconciler(r: &ReconcilerFigures) -> Labels<'_> {
    vec![("controller", &r.controller)]
}

/// The samples of a percentiles' upper-bound family for one item: a `percentile` label (50, 90,
/// 99; `quantile` is a summary's, which promtool refuses on a gauge) with the upper edge of the
/// bucket the percentile falls in, infinite past the last edge; none without observations.
fn bounds<'a>(labels: Labels<'a>, p: &Percentiles) -> Vec<(Labels<'a>, f64)> {
    [("50", p.p50), ("90", p.p90), ("99", p.p99)]
        .into_iter()
        .filter_map(|(percentile, bound)| {
            let mut labels = labels.clone();
            labels.push(("percentile", percentile));
            Some((labels, bound?.at_most.unwrap_or(f64::INFINITY)))
        })
        .collect()
}

/// A gauge family named `kubectl_informer_controller_{name}`, a sample per `(labels, value)`;
/// nothing when it has no sample.
fn gauges(
    out: &mut impl Write,
    name: &str,
    help: &str,
    samples: Vec<(Labels<'_>, f64)>,
) -> std::io::Result<()> {
    if samples.is_empty() {
        return Ok(());
    }
    let name = format!("{CONTROLLER_PREFIX}{name}");
    family(out, &name, "gauge", help)?;
    for (labels, value) in samples {
        let labels: Vec<String> = labels
            .iter()
            .map(|(k, v)| format!("{k}=\"{}\"", label_value(v)))
            .collect();
        let labels = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", labels.join(","))
        };
        writeln!(out, "{name}{labels} {}", sample_value(value))?;
    }
    Ok(())
}

/// A label value as the text format escapes it: backslash, double quote and line feed.
fn label_value(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// A sample value: `+Inf`, `-Inf` and `NaN` as the text format spells them, other numbers as
/// Go writes them.
fn sample_value(v: f64) -> String {
    match v {
        f64::INFINITY => "+Inf".to_string(),
        f64::NEG_INFINITY => "-Inf".to_string(),
        v if v.is_nan() => "NaN".to_string(),
        v => go_float(v),
    }
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
    use super::super::chart::tests::controller;
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
        write(&snapshot(), None, &mut out).unwrap();
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

    fn exposition(controller: Option<&ControllerFigures>) -> String {
        let mut out = Vec::new();
        write(&snapshot(), controller, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_controllers_window_is_written_as_gauges_labelled_as_its_metrics() {
        let text = exposition(Some(&controller()));
        let p = "kubectl_informer_controller_";
        for line in [
            format!("# TYPE {p}scrapes gauge"),
            format!("{p}scrapes 5"),
            format!("{p}scrape_gaps 1"),
            format!("# HELP {p}workqueue_depth_max Largest workqueue_depth at any scrape in bench's window"),
            format!("# TYPE {p}workqueue_depth_max gauge"),
            format!("{p}workqueue_depth_max{{name=\"deployment\"}} 7"),
            format!("{p}workqueue_depth_mean{{name=\"deployment\"}} 2.5"),
            format!("{p}workqueue_depth_last{{name=\"deployment\"}} 1"),
            format!("{p}workqueue_adds{{name=\"deployment\"}} 40"),
            format!("{p}workqueue_retries{{name=\"deployment\"}} 4"),
            format!("{p}workqueue_adds{{name=\"a|<b>&\\\"c\\\"\\\\\\nd\"}} 5"),
            format!("# TYPE {p}workqueue_queue_duration_seconds_upper_bound gauge"),
            format!("{p}workqueue_queue_duration_seconds_upper_bound{{name=\"deployment\",percentile=\"50\"}} 1"),
            format!("{p}workqueue_queue_duration_seconds_upper_bound{{name=\"deployment\",percentile=\"99\"}} +Inf"),
            format!("{p}workqueue_work_duration_seconds_upper_bound{{name=\"deployment\",percentile=\"50\"}} 0.01"),
            format!("{p}informer_queued_items_max{{name=\"kube-controller-manager\",group=\"\",version=\"v1\",resource=\"configmaps\"}} 0"),
            format!("{p}informer_lag_seconds_max{{name=\"kube-controller-manager\",group=\"apps\",version=\"v1\",resource=\"deployments\"}} 0.25"),
            format!("{p}informer_lag_resource_versions_max{{name=\"kube-controller-manager\",group=\"apps\",version=\"v1\",resource=\"deployments\"}} 12"),
            format!("{p}rest_client_rate_limiter_duration_seconds_upper_bound{{percentile=\"50\"}} 0.1"),
            format!("{p}rest_client_rate_limiter_duration_seconds_upper_bound{{percentile=\"90\"}} +Inf"),
            format!("{p}controller_runtime_reconcile{{controller=\"certificate\"}} 12"),
            format!("{p}controller_runtime_reconcile_errors{{controller=\"certificate\"}} 1"),
            format!("{p}controller_runtime_reconcile_time_seconds_upper_bound{{controller=\"certificate\",percentile=\"99\"}} +Inf"),
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        // Only informers whose lag was measured have lag samples; a queue without observations
        // has no percentile bounds.
        assert!(!text.contains("lag_seconds_max{name=\"kube-controller-manager\",group=\"\""));
        assert_eq!(
            text.matches("upper_bound{name=\"idle\"").count(),
            0,
            "{text}"
        );
        assert!(
            text.contains("workqueue_depth_max{name=\"idle\"} 0"),
            "{text}"
        );
        assert!(
            !text.contains("quantile="),
            "promtool refuses a quantile label on a gauge"
        );
    }

    #[test]
    fn without_a_controller_section_nothing_of_it_is_written() {
        let text = exposition(None);
        assert!(!text.contains("kubectl_informer_controller_"), "{text}");
        let mut c = controller();
        (c.throttling, c.reconcilers) = (None, Vec::new());
        let text = exposition(Some(&c));
        assert!(
            !text.contains("rest_client") && !text.contains("controller_runtime"),
            "{text}"
        );
        assert!(
            text.starts_with(&exposition(None)),
            "the pipeline's families come first"
        );
    }

    #[test]
    fn labels_and_values_are_spelled_as_the_text_format_reads_them() {
        assert_eq!(label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
        assert_eq!(sample_value(f64::INFINITY), "+Inf");
        assert_eq!(sample_value(f64::NEG_INFINITY), "-Inf");
        assert_eq!(sample_value(f64::NAN), "NaN");
        assert_eq!(sample_value(1e-5), "1e-05");
        assert_eq!(sample_value(2.5), "2.5");
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
