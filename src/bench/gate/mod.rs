//! CI gates: `--fail-if 'queueDuration.p99 > 50ms'` expressions, parsed before anything runs and
//! evaluated against the report's JSON document; and the comparison with a `--baseline` report.
//! Both read the same document `--export-json` writes, so a baseline is just an earlier export.

mod controller;

use crate::format::{format_number, format_seconds};
use controller::ControllerGate;
use serde::Serialize;
use serde_json::Value;

/// Latency metrics: `metrics.<name>.<stat>`, in seconds. Gates name metrics as the report's
/// JSON does.
pub const LATENCIES: [&str; 6] = [
    "watchLatency",
    "reactionLatency",
    "deliveryLag",
    "handlerTime",
    "queueDuration",
    "workDuration",
];
const LATENCY_STATS: [&str; 7] = ["p50", "p90", "p99", "p999", "max", "mean", "count"];
/// Sampled gauges: `metrics.<name>.<stat>`.
pub const GAUGES: [&str; 2] = ["backlog", "depth"];
const GAUGE_STATS: [&str; 3] = ["max", "mean", "last"];
/// Plain numbers: `counters.<name>`.
pub const COUNTERS: [&str; 10] = [
    "events",
    "eventsPerSecond",
    "adds",
    "deduplicated",
    "retries",
    "writesWithoutEvent",
    "reconnects",
    "relists",
    "writesWithoutReaction",
    "superseded",
];
/// The snake_case names of report schema version 1, still accepted in gates so that existing
/// CI configurations keep working; deprecated.
const DEPRECATED_NAMES: [(&str, &str); 9] = [
    ("watch_latency", "watchLatency"),
    ("reaction_latency", "reactionLatency"),
    ("writes_without_reaction", "writesWithoutReaction"),
    ("delivery_lag", "deliveryLag"),
    ("handler_time", "handlerTime"),
    ("queue_duration", "queueDuration"),
    ("work_duration", "workDuration"),
    ("events_per_second", "eventsPerSecond"),
    ("writes_without_event", "writesWithoutEvent"),
];
/// Latency statistics a baseline comparison looks at (max and p999 are too noisy to gate on
/// a percentage).
const BASELINE_STATS: [&str; 4] = ["p50", "p90", "p99", "mean"];
/// Latencies closer than this to the baseline are never a regression: below it, a percentage
/// measures timer noise, not the pipeline.
pub const BASELINE_FLOOR_SECONDS: f64 = 100e-6;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Op {
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
}

impl Op {
    /// As written in a gate: `>`, `>=`, `<`, `<=`.
    fn as_str(self) -> &'static str {
        match self {
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }

    fn holds(self, measured: f64, threshold: f64) -> bool {
        match self {
            Op::Gt => measured > threshold,
            Op::Ge => measured >= threshold,
            Op::Lt => measured < threshold,
            Op::Le => measured <= threshold,
        }
    }
}

/// One parsed `--fail-if` expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// As the user wrote it.
    pub text: String,
    /// The metric's name in the report (camelCase).
    pub metric: String,
    /// The deprecated snake_case name the user wrote for `metric`, if they did.
    pub deprecated_name: Option<&'static str>,
    /// `None` for counters.
    pub stat: Option<String>,
    pub op: Op,
    /// Seconds for latencies.
    pub threshold: f64,
    pub is_latency: bool,
    /// A gate on the controller section (`controller.…`, with `--metrics-from`).
    pub controller: Option<ControllerGate>,
}

/// A gate after the run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateResult {
    pub expr: String,
    /// `None` when the run has no figure for it (e.g. watchLatency of a replay).
    pub measured: Option<f64>,
    pub failed: bool,
    /// The measured value as people read it (`73.2ms`).
    pub display: String,
}

impl Gate {
    /// Parses `<metric>[.<stat>] <op> <value>`; the error says what is wrong and what is valid
    /// (the flag and the text are the caller's to add).
    pub fn parse(text: &str) -> Result<Gate, String> {
        let (left, op, right) = split(text).ok_or_else(|| {
            "no comparison: write <metric>.<stat> <op> <value> with op one of > >= < <=, e.g. \
             'queueDuration.p99 > 50ms'"
                .to_string()
        })?;
        if let Some(rest) = left.strip_prefix("controller.") {
            return Self::parse_controller(text, rest, op, right);
        }
        let (metric, stat) = match left.split_once('.') {
            Some((m, s)) => (m, Some(s)),
            None => (left, None),
        };
        let deprecated = DEPRECATED_NAMES.iter().find(|(old, _)| *old == metric);
        let metric = deprecated.map_or(metric, |(_, new)| new);
        let is_latency = LATENCIES.contains(&metric);
        let stats: &[&str] = if is_latency {
            &LATENCY_STATS
        } else if GAUGES.contains(&metric) {
            &GAUGE_STATS
        } else if COUNTERS.contains(&metric) {
            &[]
        } else {
            return Err(format!(
                "unknown metric \"{metric}\": use one of {}, {} or {} (or, with --metrics-from, \
                 controller.<metric>, e.g. controller.queueDuration.p99{{name=deployment}})",
                LATENCIES.join(", "),
                GAUGES.join(", "),
                COUNTERS.join(", ")
            ));
        };
        match (stat, stats.is_empty()) {
            (Some(s), true) => {
                return Err(format!(
                    "{metric} is a single number: write '{metric} {} {right}' without .{s}",
                    op.as_str()
                ))
            }
            (None, false) => {
                return Err(format!(
                    "{metric} needs a statistic: {metric}.<stat> with stat one of {}",
                    stats.join(", ")
                ))
            }
            (Some(s), false) if !stats.contains(&s) => {
                return Err(format!(
                    "unknown statistic \"{s}\" for {metric}: use one of {}",
                    stats.join(", ")
                ))
            }
            _ => {}
        }
        let counted = !is_latency || stat == Some("count");
        Ok(Gate {
            text: text.trim().to_string(),
            metric: metric.to_string(),
            deprecated_name: deprecated.map(|(old, _)| *old),
            stat: stat.map(str::to_string),
            op,
            threshold: threshold(left, right, !counted)?,
            is_latency: !counted,
            controller: None,
        })
    }

    /// A gate on the controller section: `controller.` then `rest`.
    fn parse_controller(text: &str, rest: &str, op: Op, right: &str) -> Result<Gate, String> {
        let (gate, is_latency) = ControllerGate::parse(rest)?;
        Ok(Gate {
            text: text.trim().to_string(),
            metric: format!("controller.{}", gate.metric()),
            deprecated_name: None,
            stat: None,
            op,
            threshold: threshold(&format!("controller.{rest}"), right, is_latency)?,
            is_latency,
            controller: Some(gate),
        })
    }

    /// The warning for a gate that names its metric by a deprecated name (the caller adds
    /// where the gate came from).
    pub fn deprecation(&self) -> Option<String> {
        self.deprecated_name.map(|old| {
            format!(
                "{old} is a deprecated name (report schema version 1); write {} as the report's \
                 JSON names it",
                self.metric
            )
        })
    }

    /// The figure this gate reads from a report document.
    pub fn measured(&self, report: &Value) -> Option<f64> {
        if let Some(c) = &self.controller {
            return c.read(report).map(|r| r.value);
        }
        let figure = match &self.stat {
            Some(stat) => &report["metrics"][&self.metric][stat],
            None => &report["counters"][&self.metric],
        };
        figure.as_f64()
    }

    /// Evaluates against a report document. A gate whose figure the run does not have fails:
    /// a gate that cannot fail would pass a broken pipeline.
    pub fn evaluate(&self, report: &Value) -> GateResult {
        if let Some(c) = &self.controller {
            let reading = c.read(report);
            return GateResult {
                expr: self.text.clone(),
                measured: reading.as_ref().map(|r| r.value),
                failed: reading
                    .as_ref()
                    .is_none_or(|r| self.op.holds(r.value, self.threshold)),
                display: reading
                    .map_or_else(|| "not measured in this run".to_string(), |r| r.display),
            };
        }
        let measured = self.measured(report);
        GateResult {
            expr: self.text.clone(),
            measured,
            failed: measured.is_none_or(|m| self.op.holds(m, self.threshold)),
            display: match measured {
                Some(m) if self.is_latency => format_seconds(m),
                Some(m) => format_number(m),
                None => "not measured in this run".to_string(),
            },
        }
    }
}

/// The threshold as written: a duration for a latency (`50ms`), else a plain number.
fn threshold(left: &str, right: &str, is_latency: bool) -> Result<f64, String> {
    if is_latency {
        crate::duration::parse(right)
            .map(|d| d.as_secs_f64())
            .map_err(|e| format!("{left} is a latency: {e}"))
    } else {
        right
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                format!("\"{right}\" is not a number ({left} is a count, without a unit)")
            })
    }
}

/// A gate expression's three parts, trimmed: what it reads, the comparison, and the threshold
/// as written (`queueDuration.p99`, `>`, `50ms`).
fn split(text: &str) -> Option<(&str, Op, &str)> {
    let (pos, op_text, op) = [(">=", Op::Ge), ("<=", Op::Le), (">", Op::Gt), ("<", Op::Lt)]
        .into_iter()
        .find_map(|(s, op)| text.find(s).map(|p| (p, s, op)))?;
    Some((text[..pos].trim(), op, text[pos + op_text.len()..].trim()))
}

impl GateResult {
    /// The result as one line that reads the right way round: the verdict, then [`reading`].
    ///
    /// [`reading`]: GateResult::reading
    pub fn line(&self) -> String {
        let verdict = if self.failed { "FAIL" } else { "PASS" };
        format!("{verdict} {}", self.reading())
    }

    /// The figure, then what would fail it (`queueDuration.p99 = 88µs (fails if > 50ms)`), as
    /// k6 and hyperfine show a threshold beside the value rather than the condition alone,
    /// which reads as if the condition held.
    pub fn reading(&self) -> String {
        let Some((figure, op, threshold)) = split(&self.expr) else {
            return format!("{} ({})", self.expr, self.display);
        };
        let op = op.as_str();
        match self.measured {
            Some(_) => format!("{figure} = {} (fails if {op} {threshold})", self.display),
            None => format!(
                "{figure}: {} (fails if {op} {threshold}, or when not measured)",
                self.display
            ),
        }
    }
}

/// One latency figure against the baseline's.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BaselineComparison {
    pub metric: String,
    pub stat: String,
    pub baseline: f64,
    pub measured: f64,
    /// Percent change; positive is slower.
    pub change_percent: f64,
    pub regressed: bool,
}

impl BaselineComparison {
    /// `measured` against `base`: regressed when it grew by more than `tolerance_percent` and
    /// by more than `BASELINE_FLOOR_SECONDS`.
    fn new(metric: String, stat: &str, base: f64, measured: f64, tolerance_percent: f64) -> Self {
        let change_percent = if base > 0.0 {
            (measured - base) / base * 100.0
        } else if measured > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
        BaselineComparison {
            metric,
            stat: stat.to_string(),
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
        match self.metric.split_once('{') {
            Some((metric, selector)) => format!("{metric}.{}{{{selector}", self.stat),
            None => format!("{}.{}", self.metric, self.stat),
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
    for metric in LATENCIES {
        let (now, then) = (&report["metrics"][metric], &baseline["metrics"][metric]);
        let counted = |v: &Value| v["count"].as_u64().unwrap_or(0) > 0;
        if !counted(now) || !counted(then) {
            continue;
        }
        for stat in BASELINE_STATS {
            let (Some(measured), Some(base)) = (now[stat].as_f64(), then[stat].as_f64()) else {
                continue;
            };
            out.push(BaselineComparison::new(
                metric.to_string(),
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
        for (field, stat) in ["queueDuration", "workDuration"]
            .into_iter()
            .flat_map(|f| ["p50", "p99"].map(|s| (f, s)))
        {
            let edge = |doc: &Value| doc[field][stat]["atMost"].as_f64();
            let (Some(measured), Some(base)) = (edge(q), edge(before)) else {
                continue;
            };
            out.push(BaselineComparison::new(
                format!("controller.{field}{{name={name}}}"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(p99: f64, backlog_max: u64, retries: u64) -> Value {
        json!({
            "schemaVersion": 2,
            "config": {"handlers": 2},
            "metrics": {
                "queueDuration": {"count": 100, "p50": 0.010, "p90": 0.020, "p99": p99, "mean": 0.012, "max": 0.2},
                "backlog": {"max": backlog_max, "mean": 3.5, "last": 0},
                "watchLatency": null
            },
            "counters": {"retries": retries, "eventsPerSecond": 512.5}
        })
    }

    #[test]
    fn a_gate_on_relists_reads_the_live_count_and_fails_a_replay_that_has_none() {
        let gate = Gate::parse("relists > 0").unwrap();
        let live = json!({"counters": {"relists": 0, "reconnects": 2}});
        assert!(!gate.evaluate(&live).failed);
        let relisted = json!({"counters": {"relists": 1, "reconnects": 2}});
        assert!(gate.evaluate(&relisted).failed);
        let replay = json!({"counters": {"relists": null, "reconnects": null}});
        let r = gate.evaluate(&replay);
        assert!(r.failed && r.display == "not measured in this run", "{r:?}");
        assert!(Gate::parse("reconnects >= 3").is_ok());
    }

    #[test]
    fn a_gate_fails_on_the_right_side_of_its_threshold() {
        let gate = Gate::parse("queue_duration.p99 > 50ms").unwrap();
        assert_eq!(gate.threshold, 0.05);
        assert!(
            !gate.evaluate(&report(0.050, 0, 0)).failed,
            "equal is not above"
        );
        let r = gate.evaluate(&report(0.0501, 0, 0));
        assert!(r.failed);
        assert_eq!(r.display, "50.1ms");
        let ge = Gate::parse("backlog.max >= 1000").unwrap();
        assert!(!ge.evaluate(&report(0.0, 999, 0)).failed);
        assert!(ge.evaluate(&report(0.0, 1000, 0)).failed);
        let lt = Gate::parse("events_per_second < 1000").unwrap();
        assert!(lt.evaluate(&report(0.0, 0, 0)).failed);
        let le = Gate::parse("retries<=0").unwrap();
        assert!(le.evaluate(&report(0.0, 0, 0)).failed);
        assert!(!le.evaluate(&report(0.0, 0, 1)).failed);
    }

    #[test]
    fn a_result_reads_as_the_figure_then_what_would_fail_it() {
        let gate = Gate::parse("queueDuration.p99 > 50ms").unwrap();
        assert_eq!(
            gate.evaluate(&report(0.000088, 0, 0)).line(),
            "PASS queueDuration.p99 = 88µs (fails if > 50ms)"
        );
        assert_eq!(
            gate.evaluate(&report(0.0732, 0, 0)).line(),
            "FAIL queueDuration.p99 = 73.2ms (fails if > 50ms)"
        );
        let counter = Gate::parse("retries<=0").unwrap();
        assert_eq!(
            counter.evaluate(&report(0.0, 0, 0)).line(),
            "FAIL retries = 0 (fails if <= 0)"
        );
        let lacking = Gate::parse("watchLatency.p99 > 1s").unwrap();
        assert_eq!(
            lacking.evaluate(&report(0.0, 0, 0)).line(),
            "FAIL watchLatency.p99: not measured in this run (fails if > 1s, or when not measured)"
        );
    }

    #[test]
    fn a_gate_on_a_figure_the_run_lacks_fails() {
        let r = Gate::parse("watch_latency.p99 > 1s")
            .unwrap()
            .evaluate(&report(0.0, 0, 0));
        assert!(r.failed);
        assert_eq!(r.measured, None);
    }

    #[test]
    fn gates_name_metrics_as_the_json_does_and_the_old_snake_case_names_still_work() {
        let gate = Gate::parse("queueDuration.p99 > 50ms").unwrap();
        assert_eq!(
            (gate.metric.as_str(), gate.deprecation()),
            ("queueDuration", None)
        );
        let old = Gate::parse("queue_duration.p99 > 50ms").unwrap();
        assert_eq!(old.metric, "queueDuration");
        let warning = old.deprecation().unwrap();
        assert!(
            warning.contains("queue_duration is a deprecated name"),
            "{warning}"
        );
        assert!(warning.contains("write queueDuration"), "{warning}");
        for (g, failed) in [(&gate, false), (&old, false)] {
            assert_eq!(g.evaluate(&report(0.040, 0, 0)).failed, failed);
            assert!(g.evaluate(&report(0.060, 0, 0)).failed);
        }
        let rate = Gate::parse("eventsPerSecond < 1000").unwrap();
        assert_eq!(rate.measured(&report(0.0, 0, 0)), Some(512.5));
        assert_eq!(
            Gate::parse("events_per_second < 1000").unwrap().metric,
            "eventsPerSecond"
        );
        let err = Gate::parse("queue_duration.p99.9 > 5ms").unwrap_err();
        assert!(err.contains("use one of p50, p90, p99, p999"), "{err}");
    }

    #[test]
    fn malformed_expressions_are_refused_with_what_to_write() {
        let cases = [
            ("queue_duration.p99 50ms", "no comparison"),
            ("latency.p99 > 5ms", "unknown metric \"latency\""),
            ("queue_duration.p42 > 5ms", "unknown statistic \"p42\""),
            ("queue_duration > 5ms", "needs a statistic"),
            (
                "queue_duration.p99 > 50",
                "queue_duration.p99 is a latency: a duration needs a unit, e.g. 50s or 50ms",
            ),
            ("queue_duration.p99 > fast", "not a duration"),
            ("backlog.p99 > 10", "unknown statistic"),
            ("backlog.max > 10ms", "not a number"),
            ("retries.max > 1", "single number"),
        ];
        for (expr, why) in cases {
            let err = Gate::parse(expr).unwrap_err();
            assert!(err.contains(why), "{expr}: {err}");
        }
    }

    #[test]
    fn latency_thresholds_take_every_duration_form() {
        let threshold = |value: &str| {
            Gate::parse(&format!("queue_duration.p99 > {value}"))
                .unwrap()
                .threshold
        };
        assert_eq!(threshold("250us"), 250e-6);
        assert_eq!(threshold("1.5s"), 1.5);
        assert_eq!(threshold("1m30s"), 90.0);
        assert_eq!(threshold("1h"), 3600.0);
        assert_eq!(threshold("0"), 0.0);
    }

    #[test]
    fn the_baseline_flags_a_regression_and_accepts_noise_within_tolerance() {
        let base = report(0.040, 0, 0);
        let noisy = compare_with_baseline(&report(0.043, 0, 0), &base, 10.0);
        assert!(noisy.iter().all(|c| !c.regressed), "{noisy:?}");
        let worse = compare_with_baseline(&report(0.060, 0, 0), &base, 10.0);
        let p99 = worse.iter().find(|c| c.stat == "p99").unwrap();
        assert!(p99.regressed);
        assert!((p99.change_percent - 50.0).abs() < 1e-9);
        assert!(worse.iter().filter(|c| c.regressed).count() == 1);
    }

    #[test]
    fn a_slower_controller_reaction_regresses_against_the_baseline_and_gates_read_it() {
        let with_reaction = |p99: f64| {
            let mut r = report(0.040, 0, 0);
            r["metrics"]["reactionLatency"] =
                json!({"count": 40, "p50": 0.020, "p90": 0.050, "p99": p99, "mean": 0.03});
            r["counters"]["writesWithoutReaction"] = json!(2);
            r
        };
        let worse = compare_with_baseline(&with_reaction(2.0), &with_reaction(1.0), 10.0);
        let p99 = worse
            .iter()
            .find(|c| c.metric == "reactionLatency" && c.stat == "p99")
            .unwrap();
        assert!(p99.regressed, "{worse:?}");
        let gate = Gate::parse("reaction_latency.p99 > 1s").unwrap();
        assert!(gate.deprecation().is_some());
        assert!(gate.evaluate(&with_reaction(2.0)).failed);
        let none = Gate::parse("writesWithoutReaction > 0").unwrap();
        assert!(none.evaluate(&with_reaction(2.0)).failed);
    }

    #[test]
    fn the_controllers_queue_percentiles_are_compared_on_their_bucket_edges() {
        let with_queue = |p50: Option<f64>, p99: Option<f64>| {
            let mut r = report(0.040, 0, 0);
            let bound = |edge: Option<f64>| json!({"above": 0.0, "atMost": edge});
            r["controller"] = json!({"queues": [{
                "name": "deployment",
                "queueDuration": {"count": 10, "p50": bound(p50), "p99": bound(p99)},
                "workDuration": {"count": 0, "p50": null, "p99": null}
            }]});
            r
        };
        let base = with_queue(Some(0.01), Some(1.0));
        let worse = compare_with_baseline(&with_queue(Some(0.01), Some(10.0)), &base, 10.0);
        let queue: Vec<_> = worse
            .iter()
            .filter(|c| c.metric.starts_with("controller."))
            .collect();
        assert_eq!(
            queue.len(),
            2,
            "p50 and p99 of the queue duration: {queue:?}"
        );
        let p99 = queue.iter().find(|c| c.stat == "p99").unwrap();
        assert!(p99.regressed && (p99.change_percent - 900.0).abs() < 1e-9);
        assert_eq!(
            p99.figure(),
            "controller.queueDuration.p99{name=deployment}"
        );
        assert!(!queue.iter().find(|c| c.stat == "p50").unwrap().regressed);
        // Past the last edge (null) or without observations: not compared.
        let unbounded = compare_with_baseline(&with_queue(Some(0.01), None), &base, 10.0);
        assert_eq!(
            unbounded
                .iter()
                .filter(|c| c.metric.starts_with("controller."))
                .count(),
            1
        );
        assert_eq!(worse[0].figure(), "queueDuration.p50");
    }

    #[test]
    fn microsecond_changes_are_below_the_noise_floor() {
        let mut base = report(0.040, 0, 0);
        base["metrics"]["queueDuration"]["p50"] = json!(0.000_010);
        let mut now = base.clone();
        now["metrics"]["queueDuration"]["p50"] = json!(0.000_030);
        let c = compare_with_baseline(&now, &base, 10.0);
        assert!(c.iter().all(|c| !c.regressed), "+200% of 10µs is noise");
    }

    #[test]
    fn config_differences_name_the_changed_settings() {
        let mut other = report(0.0, 0, 0);
        other["config"]["handlers"] = json!(4);
        assert_eq!(
            config_differences(&other, &report(0.0, 0, 0)),
            vec!["handlers: 2 → 4"]
        );
    }
}
