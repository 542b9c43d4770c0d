//! The gates' unit tests: parsing and its errors, every figure read from a typed report as its
//! JSON document has it, the controller's figures and selectors, and the baseline comparison.

use super::*;
use crate::bench::report::{
    BenchReport, Counters, GaugeFigures, LatencyFigures, Metrics, Settings, Source,
};
use crate::bench::timeline::Timeline;
use crate::metrics::GaugeSummary;
use crate::scrape::interval::{BoundFigure, Percentiles};
use crate::scrape::lag::Lag;
use crate::scrape::window::{
    ControllerFigures, ControllerTimeline, InformerFigures, LagFigures, QueueFigures, Sampled,
};
use serde_json::{json, Value};

fn latency(count: u64, p50: f64, p90: f64, p99: f64, mean: f64, max: f64) -> LatencyFigures {
    LatencyFigures {
        unit: "seconds",
        count,
        mean: Some(mean),
        p50: Some(p50),
        p90: Some(p90),
        p99: Some(p99),
        p999: Some(max),
        max: Some(max),
    }
}

fn gauge(max: u64, mean: f64, last: u64) -> GaugeFigures {
    GaugeFigures {
        unit: "items",
        summary: GaugeSummary {
            samples: 10,
            mean,
            max,
            last,
        },
    }
}

/// A replay's report: no watch latency, no reactions, no reconnects or relists.
fn report(p99: f64, backlog_max: u64, retries: u64) -> BenchReport {
    let none = LatencyFigures::of(&crate::metrics::Latency::default());
    BenchReport {
        schema_version: crate::bench::report::BENCH_SCHEMA_VERSION,
        source: Source::File {
            path: "events.jsonl".into(),
            speed: "max".into(),
        },
        config: Settings {
            handlers: 2,
            ..Settings::default()
        },
        window_seconds: 2.0,
        cut: false,
        drain_seconds: 0.0,
        process_cpu_seconds: None,
        metrics: Metrics {
            watch_latency: None,
            reaction_latency: None,
            delivery_lag: none,
            handler_time: none,
            queue_duration: latency(100, 0.010, 0.020, p99, 0.012, 0.2),
            work_duration: none,
            backlog: gauge(backlog_max, 3.5, 0),
            depth: gauge(4, 1.25, 1),
        },
        counters: Counters {
            events: 1025,
            events_per_second: 512.5,
            adds: 1000,
            deduplicated: 25,
            retries,
            ..Counters::default()
        },
        listeners: Vec::new(),
        timeline: Timeline::default(),
        generator: None,
        controller: None,
        gates: Vec::new(),
        baseline: None,
        time: String::new(),
    }
}

/// A live run's report with `--react`: every figure a gate can name is measured.
fn live_report() -> BenchReport {
    let mut r = report(0.040, 7, 1);
    r.metrics.watch_latency = Some(latency(50, 0.001, 0.002, 0.003, 0.0015, 0.004));
    r.metrics.reaction_latency = Some(latency(40, 0.020, 0.050, 2.0, 0.03, 2.5));
    r.counters.writes = Some(50);
    r.counters.writes_without_event = Some(0);
    r.counters.reconnects = Some(2);
    r.counters.relists = Some(0);
    r.counters.writes_without_reaction = Some(2);
    r.counters.superseded = Some(3);
    r
}

fn gate(expr: &str) -> Gate {
    Gate::parse(expr).unwrap_or_else(|e| panic!("{expr}: {e}"))
}

fn measured(expr: &str, report: &BenchReport) -> Option<f64> {
    gate(expr).evaluate(report).reading.map(|r| r.value)
}

#[test]
fn every_figure_is_read_from_the_typed_report_as_its_json_document_has_it() {
    for r in [report(0.05, 3, 0), live_report()] {
        let doc = r.to_value();
        for metric in Metric::ALL {
            let stats = metric.kind().stats().iter().map(|s| Some(*s));
            let stats: Vec<_> = match metric.kind() {
                MetricKind::Counter => vec![None],
                _ => stats.collect(),
            };
            for stat in stats {
                let figure = Figure {
                    metric,
                    stat,
                    spelling: Spelling::Current,
                };
                let json = match stat {
                    Some(s) => &doc["metrics"][metric.name()][s.name()],
                    None => &doc["counters"][metric.name()],
                };
                assert_eq!(figure.read(&r), json.as_f64(), "{figure}");
            }
        }
    }
}

#[test]
fn a_gate_on_relists_reads_the_live_count_and_fails_a_replay_that_has_none() {
    let gate = gate("relists > 0");
    let mut live = live_report();
    assert!(!gate.evaluate(&live).failed);
    live.counters.relists = Some(1);
    assert!(gate.evaluate(&live).failed);
    let r = gate.evaluate(&report(0.0, 0, 0));
    assert!(
        r.failed && r.display() == "not measured in this run",
        "{r:?}"
    );
    assert!(Gate::parse("reconnects >= 3").is_ok());
}

#[test]
fn a_gate_fails_on_the_right_side_of_its_threshold() {
    let g = gate("queue_duration.p99 > 50ms");
    assert_eq!(g.condition().threshold, 0.05);
    assert!(
        !g.evaluate(&report(0.050, 0, 0)).failed,
        "equal is not above"
    );
    let r = g.evaluate(&report(0.0501, 0, 0));
    assert!(r.failed);
    assert_eq!(r.display(), "50.1ms");
    let ge = gate("backlog.max >= 1000");
    assert!(!ge.evaluate(&report(0.0, 999, 0)).failed);
    assert!(ge.evaluate(&report(0.0, 1000, 0)).failed);
    let lt = gate("events_per_second < 1000");
    assert!(lt.evaluate(&report(0.0, 0, 0)).failed);
    let le = gate("retries<=0");
    assert!(le.evaluate(&report(0.0, 0, 0)).failed);
    assert!(!le.evaluate(&report(0.0, 0, 1)).failed);
}

#[test]
fn a_gate_on_a_figure_the_run_lacks_fails() {
    let r = gate("watch_latency.p99 > 1s").evaluate(&report(0.0, 0, 0));
    assert!(r.failed);
    assert_eq!(r.reading, None);
    let empty = gate("workDuration.p99 > 1s").evaluate(&report(0.0, 0, 0));
    assert!(empty.failed, "no samples is no figure, not a zero");
    assert!(
        !gate("workDuration.count > 0")
            .evaluate(&report(0.0, 0, 0))
            .failed
    );
}

#[test]
fn the_report_writes_a_gate_as_written_with_its_figure() {
    let results: Vec<_> = ["retries<=0", "queueDuration.p99 > 50ms", "relists > 0"]
        .into_iter()
        .map(|e| gate(e).evaluate(&report(0.0732, 0, 0)))
        .collect();
    assert_eq!(
        serde_json::to_value(&results).unwrap(),
        json!([
            {"expr": "retries<=0", "measured": 0.0, "failed": true, "display": "0"},
            {"expr": "queueDuration.p99 > 50ms", "measured": 0.0732, "failed": true, "display": "73.2ms"},
            {"expr": "relists > 0", "measured": null, "failed": true, "display": "not measured in this run"},
        ])
    );
}

#[test]
fn gates_name_metrics_as_the_json_does_and_the_old_snake_case_names_still_work() {
    let pipeline = |g: &Gate| match g {
        Gate::Pipeline { figure, .. } => *figure,
        Gate::Controller { .. } => panic!("{g:?}"),
    };
    let now = gate("queueDuration.p99 > 50ms");
    let old = gate("queue_duration.p99 > 50ms");
    assert_eq!(pipeline(&now).metric, Metric::QueueDuration);
    assert_eq!(pipeline(&now).spelling, Spelling::Current);
    assert_eq!(pipeline(&old).metric, Metric::QueueDuration);
    assert_eq!(pipeline(&old).spelling, Spelling::SchemaV1);
    assert_eq!(
        old.figure_name(),
        "queue_duration.p99",
        "printed as written"
    );
    for g in [&now, &old] {
        assert!(!g.evaluate(&report(0.040, 0, 0)).failed);
        assert!(g.evaluate(&report(0.060, 0, 0)).failed);
    }
    assert_eq!(
        measured("eventsPerSecond < 1000", &report(0.0, 0, 0)),
        Some(512.5)
    );
    let v1: Vec<_> = Metric::ALL
        .into_iter()
        .map(Metric::v1_name)
        .filter(|n| n.contains('_'))
        .collect();
    assert_eq!(
        v1,
        [
            "watch_latency",
            "reaction_latency",
            "delivery_lag",
            "handler_time",
            "queue_duration",
            "work_duration",
            "events_per_second",
            "writes_without_event",
            "writes_without_reaction"
        ]
    );
    let err = Gate::parse("queue_duration.p99.9 > 5ms").unwrap_err();
    assert!(
        err.to_string().contains("use one of p50, p90, p99, p999"),
        "{err}"
    );
}

#[test]
fn malformed_expressions_are_refused_with_what_to_write() {
    let cases = [
        ("queue_duration.p99 50ms", "no comparison: write <metric>.<stat> <op> <value> with op one of > >= < <=, e.g. 'queueDuration.p99 > 50ms'"),
        ("latency.p99 > 5ms", "unknown metric \"latency\": use one of watchLatency, reactionLatency, deliveryLag, handlerTime, queueDuration, workDuration, backlog, depth or events, eventsPerSecond, adds, deduplicated, retries, writesWithoutEvent, reconnects, relists, writesWithoutReaction, superseded (or, with --metrics-from, controller.<metric>, e.g. controller.queueDuration.p99{name=deployment})"),
        ("queue_duration.p42 > 5ms", "unknown statistic \"p42\" for queueDuration: use one of p50, p90, p99, p999, max, mean, count"),
        ("queue_duration > 5ms", "queueDuration needs a statistic: queueDuration.<stat> with stat one of p50, p90, p99, p999, max, mean, count"),
        ("queue_duration.p99 > 50", "queue_duration.p99 is a latency: a duration needs a unit, e.g. 50s or 50ms"),
        ("queue_duration.p99 > fast", "queue_duration.p99 is a latency: not a duration"),
        ("backlog.p99 > 10", "unknown statistic \"p99\" for backlog: use one of max, mean, last"),
        ("backlog.max > 10ms", "\"10ms\" is not a number (backlog.max is a count, without a unit)"),
        ("retries.max > 1", "retries is a single number: write 'retries > 1' without .max"),
        ("events_per_second.max>1", "eventsPerSecond is a single number: write 'eventsPerSecond > 1' without .max"),
        ("events > inf", "\"inf\" is not a number (events is a count, without a unit)"),
    ];
    for (expr, why) in cases {
        let err = Gate::parse(expr).unwrap_err().to_string();
        assert!(err.starts_with(why), "{expr}: {err}");
    }
}

#[test]
fn latency_thresholds_take_every_duration_form_and_keep_it_as_written() {
    let threshold = |value: &str| {
        let g = gate(&format!("queue_duration.p99 > {value}"));
        assert_eq!(g.condition().written, value);
        g.condition().threshold
    };
    assert_eq!(threshold("250us"), 250e-6);
    assert_eq!(threshold("1.5s"), 1.5);
    assert_eq!(threshold("1m30s"), 90.0);
    assert_eq!(threshold("1h"), 3600.0);
    assert_eq!(threshold("0"), 0.0);
}

fn doc(p99: f64) -> Value {
    report(p99, 0, 0).to_value()
}

#[test]
fn the_baseline_flags_a_regression_and_accepts_noise_within_tolerance() {
    let base = doc(0.040);
    let noisy = compare_with_baseline(&doc(0.043), &base, 10.0);
    assert!(noisy.iter().all(|c| !c.regressed), "{noisy:?}");
    let worse = compare_with_baseline(&doc(0.060), &base, 10.0);
    let p99 = worse.iter().find(|c| c.stat == Stat::P99).unwrap();
    assert!(p99.regressed);
    assert!((p99.change_percent - 50.0).abs() < 1e-9);
    assert!(worse.iter().filter(|c| c.regressed).count() == 1);
}

#[test]
fn a_slower_controller_reaction_regresses_against_the_baseline_and_gates_read_it() {
    let with_reaction = |p99: f64| {
        let mut r = live_report();
        r.metrics.reaction_latency = Some(latency(40, 0.020, 0.050, p99, 0.03, p99));
        r
    };
    let (slow, fast) = (with_reaction(2.0), with_reaction(1.0));
    let worse = compare_with_baseline(&slow.to_value(), &fast.to_value(), 10.0);
    let p99 = worse
        .iter()
        .find(|c| c.metric == Compared::Latency(Metric::ReactionLatency) && c.stat == Stat::P99)
        .unwrap();
    assert!(p99.regressed, "{worse:?}");
    let g = gate("reaction_latency.p99 > 1s");
    assert!(g.evaluate(&slow).failed);
    assert!(!g.evaluate(&fast).failed, "equal is not above");
    assert!(gate("writesWithoutReaction > 0").evaluate(&slow).failed);
}

#[test]
fn the_controllers_queue_percentiles_are_compared_on_their_bucket_edges() {
    let with_queue = |p50: Option<f64>, p99: Option<f64>| {
        let mut r = doc(0.040);
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
    let of_queue = |c: &&BaselineComparison| matches!(c.metric, Compared::Queue { .. });
    let queue: Vec<_> = worse.iter().filter(of_queue).collect();
    assert_eq!(
        queue.len(),
        2,
        "p50 and p99 of the queue duration: {queue:?}"
    );
    let p99 = queue.iter().find(|c| c.stat == Stat::P99).unwrap();
    assert!(p99.regressed && (p99.change_percent - 900.0).abs() < 1e-9);
    assert_eq!(
        p99.figure(),
        "controller.queueDuration.p99{name=deployment}"
    );
    assert!(
        !queue
            .iter()
            .find(|c| c.stat == Stat::P50)
            .unwrap()
            .regressed
    );
    // Past the last edge (null) or without observations: not compared.
    let unbounded = compare_with_baseline(&with_queue(Some(0.01), None), &base, 10.0);
    assert_eq!(unbounded.iter().filter(of_queue).count(), 1);
    assert_eq!(worse[0].figure(), "queueDuration.p50");
    let written = serde_json::to_value(p99).unwrap();
    assert_eq!(
        written["metric"],
        "controller.queueDuration{name=deployment}"
    );
    assert_eq!(written["stat"], "p99");
}

#[test]
fn microsecond_changes_are_below_the_noise_floor() {
    let mut base = doc(0.040);
    base["metrics"]["queueDuration"]["p50"] = json!(0.000_010);
    let mut now = base.clone();
    now["metrics"]["queueDuration"]["p50"] = json!(0.000_030);
    let c = compare_with_baseline(&now, &base, 10.0);
    assert!(c.iter().all(|c| !c.regressed), "+200% of 10µs is noise");
}

#[test]
fn config_differences_name_the_changed_settings() {
    let mut other = doc(0.0);
    other["config"]["handlers"] = json!(4);
    assert_eq!(
        config_differences(&other, &doc(0.0)),
        vec!["handlers: 2 → 4"]
    );
}

/// Percentiles of `count` observations, bounded as `(above, atMost]` each.
fn percentiles(count: f64, mean: f64, bounds: [(f64, Option<f64>); 3]) -> Percentiles {
    let [p50, p90, p99] = bounds.map(|(above, at_most)| Some(BoundFigure { above, at_most }));
    Percentiles {
        count,
        mean: (count > 0.0).then_some(mean),
        p50: p50.filter(|_| count > 0.0),
        p90: p90.filter(|_| count > 0.0),
        p99: p99.filter(|_| count > 0.0),
    }
}

fn queue(name: &str, adds: f64, depth: Sampled, duration: Percentiles) -> QueueFigures {
    QueueFigures {
        name: name.into(),
        depth,
        adds,
        retries: 0.0,
        queue_duration: duration,
        work_duration: percentiles(0.0, 0.0, [(0.0, None); 3]),
        unfinished_work_seconds: 0.0,
        longest_running_processor_seconds: 0.0,
    }
}

fn informer(group: &str, resource: &str, lag: Option<LagFigures>) -> InformerFigures {
    InformerFigures {
        name: "kube-controller-manager".into(),
        group: group.into(),
        version: "v1".into(),
        resource: resource.into(),
        queued_items: Sampled::default(),
        processing_latency: percentiles(0.0, 0.0, [(0.0, None); 3]),
        lag,
    }
}

/// A controller section: two queues (one without observations), two informers (pods not
/// followed), throttling, and two gaps.
fn controller() -> ControllerFigures {
    let sampled = |max, mean, last| Sampled { max, mean, last };
    let busy = [(0.01, Some(0.1)), (0.1, Some(1.0)), (10.0, None)];
    ControllerFigures {
        target: "pod/kube-controller-manager".into(),
        scrapes: 10,
        gaps: 2,
        seconds: 9.0,
        queues: vec![
            queue(
                "deployment",
                50.0,
                sampled(7.0, 1.5, 0.0),
                percentiles(50.0, 0.3, busy),
            ),
            queue(
                "replicaset",
                80.0,
                sampled(10.0, 2.0, 1.0),
                percentiles(0.0, 0.0, busy),
            ),
        ],
        informers: vec![
            informer(
                "apps",
                "replicasets",
                Some(LagFigures {
                    max_resource_versions: 23,
                    max_seconds: 0.073,
                    last: Lag {
                        resource_versions: 0,
                        seconds: 0.0,
                    },
                    samples: 9,
                }),
            ),
            informer("", "pods", None),
        ],
        throttling: Some(percentiles(
            10.0,
            0.2,
            [(0.005, Some(0.01)), (0.1, Some(0.5)), (0.5, Some(1.0))],
        )),
        reconcilers: Vec::new(),
        timeline: ControllerTimeline::default(),
    }
}

fn read(expr: &str) -> Option<(f64, String)> {
    let Ok(Gate::Controller { figure, .. }) = Gate::parse(&format!("controller.{expr} > 0")) else {
        panic!("{expr}: not a controller gate");
    };
    figure.read(&controller()).map(|r| (r.value, r.display()))
}

#[test]
fn a_percentile_reads_as_its_buckets_upper_edge_and_past_the_last_edge_as_infinity() {
    assert_eq!(
        read("queueDuration.p90{name=deployment}"),
        Some((1.0, "≤1s".into()))
    );
    assert_eq!(
        read("queueDuration.p99{name=deployment}"),
        Some((f64::INFINITY, ">10s".into()))
    );
    assert_eq!(read("queueDuration.mean{name=deployment}").unwrap().0, 0.3);
    // A queue with no observation in the window has no percentile to read.
    assert_eq!(read("queueDuration.p99{name=replicaset}"), None);
    assert_eq!(read("throttling.p99"), Some((1.0, "≤1s".into())));
}

#[test]
fn a_selector_picks_one_item_and_none_reads_the_largest_naming_it() {
    assert_eq!(read("depth.max{name=deployment}").unwrap().0, 7.0);
    assert_eq!(
        read("depth.max"),
        Some((10.0, "10 (queue replicaset)".into()))
    );
    assert_eq!(read("adds{name=nosuch}"), None);
    assert_eq!(read("lag.max{resource=replicasets}").unwrap().0, 0.073);
    assert_eq!(
        read("lagResourceVersions.max{resource=replicasets,group=apps}")
            .unwrap()
            .0,
        23.0
    );
    assert_eq!(
        read("lag.max"),
        Some((0.073, "73ms (informer replicasets apps/v1)".into()))
    );
    assert_eq!(
        read("lag.last{resource=pods}"),
        None,
        "pods was not followed"
    );
    assert_eq!(read("gaps"), Some((2.0, "2".into())));
    let g = gate("controller.gaps > 0");
    assert!(g.evaluate(&report(0.0, 0, 0)).failed, "no section");
    let mut with = report(0.0, 0, 0);
    with.controller = Some(controller());
    assert!(g.evaluate(&with).failed);
    assert!(!gate("controller.gaps > 2").evaluate(&with).failed);
}

#[test]
fn durations_and_counts_are_told_apart_and_bad_names_say_what_to_write() {
    let duration = |e: &str| match gate(&format!("controller.{e} > 0")) {
        Gate::Controller { figure, .. } => figure.is_duration(),
        g => panic!("{g:?}"),
    };
    assert!(duration("queueDuration.p99{name=a}"));
    assert!(duration("lag.max"));
    assert!(!duration("queueDuration.count"));
    assert!(!duration("lagResourceVersions.max"));
    assert!(!duration("depth.max"));
    for (expr, why) in [
        (
            "queueLatency.p99",
            "unknown controller metric \"queueLatency\": use one of queueDuration, workDuration, \
             depth, adds, retries, queuedItems, processingLatency, lag, lagResourceVersions, \
             throttling, reconcileErrors, gaps",
        ),
        (
            "queueDuration.p42",
            "unknown statistic \"p42\" for controller.queueDuration: use one of p50, p90, p99, \
             mean, count",
        ),
        (
            "queueDuration",
            "controller.queueDuration needs a statistic: controller.queueDuration.<stat> with \
             stat one of p50, p90, p99, mean, count",
        ),
        (
            "adds.max",
            "controller.adds is a single number: write it without .max",
        ),
        (
            "depth.max{queue=a}",
            "selector {queue=a}: controller.depth is selected by name",
        ),
        (
            "lag.max{queue=a}",
            "selector {queue=a}: controller.lag is selected by name, group, version, resource",
        ),
        (
            "depth.max{name}",
            "selector {name}: \"name\" is not label=value",
        ),
        (
            "depth{name=a}.max",
            "selector {name=a}.max: write it last, as {label=value}, e.g. \
             controller.depth.max{name=deployment}",
        ),
        (
            "throttling.p99{name=a}",
            "controller.throttling is one figure for the whole controller: write it without \
             {name=a}",
        ),
    ] {
        let err = Gate::parse(&format!("controller.{expr} > 1s"))
            .unwrap_err()
            .to_string();
        assert_eq!(err, why, "{expr}");
    }
    for (expr, why) in [
        (
            "controller.queueDuration.p99 > 1",
            "controller.queueDuration.p99 is a latency: a duration needs a unit, e.g. 1s or 1ms",
        ),
        (
            "controller.depth.max > 1s",
            "\"1s\" is not a number (controller.depth.max is a count, without a unit)",
        ),
    ] {
        assert_eq!(Gate::parse(expr).unwrap_err().to_string(), why);
    }
}

#[test]
fn a_controller_gate_prints_its_figure_and_selector_as_written() {
    let g = gate("controller.queueDuration.p99{name = \"deployment\"} > 1s");
    assert_eq!(
        g.figure_name(),
        "controller.queueDuration.p99{name = \"deployment\"}"
    );
    let Gate::Controller { figure, .. } = &g else {
        panic!("{g:?}");
    };
    let selector = figure.selector.as_ref().unwrap();
    assert_eq!(selector.pairs, [(Label::Name, "deployment".to_string())]);
}
