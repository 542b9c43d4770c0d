//! The comparison with a `--baseline` report: an earlier `--export-json`, read as the document
//! it is (an older schema's brought to the current one), compared with this run's document
//! figure by figure, under the names gates use.

use super::controller::ControllerMetric;
use super::figure::{Metric, MetricKind, Stat};
use serde::Serialize;
use serde_json::Value;

/// Latency statistics a baseline comparison looks at (max and p999 are too noisy to gate on
/// a percentage).
const BASELINE_STATS: [Stat; 4] = [Stat::P50, Stat::P90, Stat::P99, Stat::Mean];
/// The controller's queue figures compared, and their percentiles.
const QUEUE_FIGURES: [ControllerMetric; 2] = [
    ControllerMetric::QueueDuration,
    ControllerMetric::WorkDuration,
];
const QUEUE_STATS: [Stat; 2] = [Stat::P50, Stat::P99];
/// Latencies closer than this to the baseline are never a regression: below it, a percentage
/// measures timer noise, not the pipeline.
pub const BASELINE_FLOOR_SECONDS: f64 = 100e-6;

/// A figure a baseline comparison looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compared {
    /// A latency of bench's own pipeline.
    Latency(Metric),
    /// A duration of one of the controller's workqueues, by its name (`--metrics-from`).
    Queue {
        metric: ControllerMetric,
        name: String,
    },
}

/// As the report's JSON names it: `queueDuration`, `controller.queueDuration{name=deployment}`.
impl std::fmt::Display for Compared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Compared::Latency(metric) => f.write_str(metric.name()),
            Compared::Queue { metric, name } => {
                write!(f, "controller.{}{{name={name}}}", metric.name())
            }
        }
    }
}

impl Serialize for Compared {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One latency figure against the baseline's.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BaselineComparison {
    pub metric: Compared,
    pub stat: Stat,
    pub baseline: f64,
    pub measured: f64,
    /// Percent change; positive is slower.
    pub change_percent: f64,
    pub regressed: bool,
}

impl BaselineComparison {
    /// `measured` against `base`: regressed when it grew by more than `tolerance_percent` and
    /// by more than `BASELINE_FLOOR_SECONDS`.
    fn new(metric: Compared, stat: Stat, base: f64, measured: f64, tolerance_percent: f64) -> Self {
        let change_percent = if base > 0.0 {
            (measured - base) / base * 100.0
        } else if measured > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        BaselineComparison {
            metric,
            stat,
            baseline: base,
            measured,
            change_percent,
            regressed: change_percent > tolerance_percent
                && measured - base > BASELINE_FLOOR_SECONDS,
        }
    }

    /// The figure as a gate names it: `queueDuration.p99`, or with the controller's queue
    /// selected last, `controller.queueDuration.p99{name=deployment}`.
    pub fn figure(&self) -> String {
        let stat = self.stat.name();
        match &self.metric {
            Compared::Latency(metric) => format!("{}.{stat}", metric.name()),
            Compared::Queue { metric, name } => {
                format!("controller.{}.{stat}{{name={name}}}", metric.name())
            }
        }
    }
}

/// Compares every latency figure both reports have; a figure regressed when it grew by more than
/// `tolerance_percent` and by more than `BASELINE_FLOOR_SECONDS`.
pub fn compare_with_baseline(
    report: &Value,
    baseline: &Value,
    tolerance_percent: f64,
) -> Vec<BaselineComparison> {
    let mut out = Vec::new();
    for metric in Metric::of_kind(MetricKind::Latency) {
        let name = metric.name();
        let (now, then) = (&report["metrics"][name], &baseline["metrics"][name]);
        let counted = |v: &Value| v["count"].as_u64().unwrap_or(0) > 0;
        if !counted(now) || !counted(then) {
            continue;
        }
        for stat in BASELINE_STATS {
            let figure = |doc: &Value| doc[stat.name()].as_f64();
            let (Some(measured), Some(base)) = (figure(now), figure(then)) else {
                continue;
            };
            out.push(BaselineComparison::new(
                Compared::Latency(metric),
                stat,
                base,
                measured,
                tolerance_percent,
            ));
        }
    }
    out.extend(compare_controller_queues(
        report,
        baseline,
        tolerance_percent,
    ));
    out
}

/// The controller's workqueue percentiles a baseline comparison looks at, each as its bucket's
/// upper edge: per queue both reports have, where both bound it (a percentile past the last
/// edge, or with no observation, is not compared).
fn compare_controller_queues(
    report: &Value,
    baseline: &Value,
    tolerance_percent: f64,
) -> Vec<BaselineComparison> {
    fn queues(doc: &Value) -> Option<&Vec<Value>> {
        doc.pointer("/controller/queues").and_then(Value::as_array)
    }
    let (Some(now), Some(then)) = (queues(report), queues(baseline)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for q in now {
        let Some(before) = then.iter().find(|b| b["name"] == q["name"]) else {
            continue;
        };
        let name = q["name"].as_str().unwrap_or_default();
        for (metric, stat) in QUEUE_FIGURES
            .into_iter()
            .flat_map(|m| QUEUE_STATS.map(|s| (m, s)))
        {
            let edge = |doc: &Value| doc[metric.name()][stat.name()]["atMost"].as_f64();
            let (Some(measured), Some(base)) = (edge(q), edge(before)) else {
                continue;
            };
            out.push(BaselineComparison::new(
                Compared::Queue {
                    metric,
                    name: name.to_string(),
                },
                stat,
                base,
                measured,
                tolerance_percent,
            ));
        }
    }
    out
}

/// What differs between two reports' `config` objects, as `key: old → new` (to warn that a
/// baseline was made with other settings).
pub fn config_differences(report: &Value, baseline: &Value) -> Vec<String> {
    let (Some(now), Some(then)) = (report["config"].as_object(), baseline["config"].as_object())
    else {
        return Vec::new();
    };
    now.iter()
        .filter(|(k, v)| then.get(*k).is_some_and(|old| old != *v))
        .map(|(k, v)| format!("{k}: {} → {v}", then[k]))
        .collect()
}
