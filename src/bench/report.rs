//! The bench report: what `--export-json` writes (schema in README, versioned), what the table
//! and the Markdown export show, and what gates and baselines read.

use super::gate::{BaselineComparison, GateResult};
use super::live::LiveFinished;
use super::load::LoadStats;
use super::pipeline::Measured;
use super::run::Window;
use crate::metrics::{GaugeSummary, Latency, Summary};
use serde::Serialize;

/// Version of the bench report's JSON schema.
pub const BENCH_SCHEMA_VERSION: u32 = 1;

/// A latency's figures, in seconds; every statistic is null when nothing was measured (so that
/// a gate on it fails instead of passing on a zero).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LatencyFigures {
    pub unit: &'static str,
    pub count: u64,
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p99: Option<f64>,
    pub p999: Option<f64>,
    pub max: Option<f64>,
}

impl LatencyFigures {
    pub fn of(latency: &Latency) -> Self {
        let s: Summary = latency.summary();
        let stat = |v: f64| (s.count > 0).then_some(v);
        LatencyFigures {
            unit: "seconds",
            count: s.count,
            mean: stat(s.mean),
            p50: stat(s.p50),
            p90: stat(s.p90),
            p99: stat(s.p99),
            p999: stat(s.p999),
            max: stat(s.max),
        }
    }
}

/// A sampled gauge's figures; `last` is the value when the source ended.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GaugeFigures {
    pub unit: &'static str,
    #[serde(flatten)]
    pub summary: GaugeSummary,
}

/// Every metric a gate can name.
#[derive(Debug, Clone, Serialize)]
pub struct Metrics {
    /// Live runs only: write sent → its watch event received.
    pub watch_latency: Option<LatencyFigures>,
    pub delivery_lag: LatencyFigures,
    pub handler_time: LatencyFigures,
    pub queue_duration: LatencyFigures,
    pub work_duration: LatencyFigures,
    /// The worst listener's backlog.
    pub backlog: GaugeFigures,
    pub depth: GaugeFigures,
}

#[derive(Debug, Clone, Serialize)]
pub struct Counters {
    /// Object events that reached the informer in the measured window.
    pub events: u64,
    pub events_per_second: f64,
    /// `workqueue_adds_total`.
    pub adds: u64,
    /// Adds of a key already waiting.
    pub deduplicated: u64,
    /// `workqueue_retries_total`.
    pub retries: u64,
    /// Live runs: the generator's writes in the window, and those whose event never came.
    pub writes: Option<u64>,
    pub writes_without_event: Option<u64>,
    /// Live runs: how often the informer's watch was re-opened after it ended (closed by the
    /// server, a dropped connection) and how often it relisted (410), from its initial sync to
    /// the end of the run: each is a stretch in which events arrived late or as a relist.
    pub reconnects: Option<u64>,
    pub relists: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListenerFigures {
    pub name: String,
    pub handled: u64,
    pub backlog: GaugeFigures,
    pub delivery_lag: LatencyFigures,
    pub handler_time: LatencyFigures,
}

/// Where the events came from.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Live {
        resource: String,
        namespace: String,
        /// Whether bench made the load (false with `--no-churn`).
        churn: bool,
    },
    File {
        path: String,
        speed: String,
    },
}

/// The settings that shape the figures (compared with a baseline's).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Settings {
    pub handlers: usize,
    pub handler_time: String,
    pub workers: usize,
    pub work_time: String,
    pub error_rate: f64,
    pub resync: Option<String>,
    pub warmup: String,
    pub duration: Option<String>,
    pub objects: Option<usize>,
    pub rate: Option<f64>,
    pub speed: Option<String>,
    pub seed: u64,
}

/// The comparison with `--baseline`.
#[derive(Debug, Clone, Serialize)]
pub struct BaselineReport {
    pub file: String,
    pub tolerance_percent: f64,
    /// Settings that differ from the baseline's, as `key: old → new`.
    pub config_differences: Vec<String>,
    pub comparisons: Vec<BaselineComparison>,
}

/// One bench run.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub version: u32,
    pub source: Source,
    pub config: Settings,
    /// The measured window: after the warm-up until the source ended.
    pub window_seconds: f64,
    /// From the source's end until handlers and workers had finished.
    pub drain_seconds: f64,
    /// CPU time of the whole bench process in the window (Linux; null elsewhere): informer,
    /// controller, measuring, and the load generator (whose own share is in `generator`).
    pub process_cpu_seconds: Option<f64>,
    pub metrics: Metrics,
    pub counters: Counters,
    pub listeners: Vec<ListenerFigures>,
    pub generator: Option<LoadStats>,
    pub gates: Vec<GateResult>,
    pub baseline: Option<BaselineReport>,
    pub time: String,
}

impl BenchReport {
    /// Assembles a report from what the pipeline measured.
    pub fn new(
        source: Source,
        config: Settings,
        measured: &Measured,
        window: &Window,
        drain_seconds: f64,
    ) -> Self {
        let (window_seconds, events) = (window.seconds, window.events);
        let (lag, handler) = measured.merged();
        let queue = &measured.snapshot.queues[0].metrics;
        let gauge = |unit, summary| GaugeFigures { unit, summary };
        BenchReport {
            version: BENCH_SCHEMA_VERSION,
            source,
            config,
            window_seconds,
            drain_seconds,
            process_cpu_seconds: window.cpu_seconds,
            metrics: Metrics {
                watch_latency: measured
                    .snapshot
                    .watch_latency
                    .as_ref()
                    .map(LatencyFigures::of),
                delivery_lag: LatencyFigures::of(&lag),
                handler_time: LatencyFigures::of(&handler),
                queue_duration: LatencyFigures::of(&queue.queue_duration),
                work_duration: LatencyFigures::of(&queue.work_duration),
                backlog: gauge("notifications", measured.backlog()),
                depth: gauge("items", measured.depth()),
            },
            counters: Counters {
                events,
                events_per_second: if window_seconds > 0.0 {
                    events as f64 / window_seconds
                } else {
                    0.0
                },
                adds: queue.adds_total,
                deduplicated: queue.deduplicated_total,
                retries: queue.retries_total,
                writes: None,
                writes_without_event: None,
                reconnects: None,
                relists: None,
            },
            listeners: measured
                .snapshot
                .listeners
                .iter()
                .zip(measured.backlog_at_end.iter().chain(std::iter::repeat(&0)))
                .map(|(l, end)| {
                    let mut backlog = l.metrics.backlog.summary();
                    backlog.last = *end;
                    ListenerFigures {
                        name: l.name.clone(),
                        handled: l.metrics.handled,
                        backlog: gauge("notifications", backlog),
                        delivery_lag: LatencyFigures::of(&l.metrics.delivery_lag),
                        handler_time: LatencyFigures::of(&l.metrics.handler_time),
                    }
                })
                .collect(),
            generator: None,
            gates: Vec::new(),
            baseline: None,
            time: crate::format::rfc3339_millis(std::time::SystemTime::now()),
        }
    }

    /// Assembles a live run's report: the pipeline's figures, the writes and the generator's,
    /// and the watch's reconnects and relists.
    pub fn live(source: Source, config: Settings, live: &LiveFinished) -> Self {
        let f = &live.finished;
        let mut report = BenchReport::new(
            source,
            config,
            &f.measured,
            &f.window,
            f.drain.as_secs_f64(),
        );
        report.generator = live.generator.clone();
        report.counters.writes = live.writes;
        report.counters.writes_without_event = live.writes_without_event;
        report.counters.reconnects = Some(live.reconnects);
        report.counters.relists = Some(live.relists);
        report
    }

    /// The document gates and exports read.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }

    /// Whether any gate failed or any figure regressed against the baseline.
    pub fn failed(&self) -> bool {
        self.gates.iter().any(|g| g.failed)
            || self
                .baseline
                .as_ref()
                .is_some_and(|b| b.comparisons.iter().any(|c| c.regressed))
    }
}
