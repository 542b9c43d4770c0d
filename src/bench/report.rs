//! The bench report: what `--export-json` writes (schema in docs/json.md and schemas/, versioned), what the table
//! and the Markdown export show, and what gates and baselines read.

use super::gate::{BaselineComparison, GateResult};
use super::live::LiveFinished;
use super::load::LoadStats;
use super::pipeline::Measured;
use super::run::Window;
use super::timeline::Timeline;
use crate::metrics::{GaugeSummary, Latency, Summary};
use crate::scrape::window::ControllerFigures;
use serde::Serialize;

/// Version of the bench report's JSON schema. 2: keys in camelCase, `schemaVersion` (1 had
/// snake_case keys and `version`), a live run's `source.namespace` null for all namespaces.
pub const BENCH_SCHEMA_VERSION: u32 = 2;

/// A latency's figures, in seconds; every statistic is null when nothing was measured (so that
/// a gate on it fails instead of passing on a zero).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
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
#[serde(rename_all = "camelCase")]
pub struct GaugeFigures {
    pub unit: &'static str,
    #[serde(flatten)]
    pub summary: GaugeSummary,
}

/// Every metric a gate can name.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    /// Live runs only: write sent → its watch event received.
    pub watch_latency: Option<LatencyFigures>,
    /// `--react` only: write sent → the event showing the controller's reaction received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reaction_latency: Option<LatencyFigures>,
    pub delivery_lag: LatencyFigures,
    pub handler_time: LatencyFigures,
    pub queue_duration: LatencyFigures,
    pub work_duration: LatencyFigures,
    /// The worst listener's backlog.
    pub backlog: GaugeFigures,
    pub depth: GaugeFigures,
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
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
    /// `--react` only: writes with no reaction within --reaction-timeout, and older writes a
    /// reaction covered together with a newer one (the controller coalesced them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writes_without_reaction: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListenerFigures {
    pub name: String,
    pub handled: u64,
    pub backlog: GaugeFigures,
    pub delivery_lag: LatencyFigures,
    pub handler_time: LatencyFigures,
}

/// Where the events came from.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Source {
    Live {
        resource: String,
        /// `None`: all namespaces.
        namespace: Option<String>,
        /// Whether bench made the load (false with `--no-churn`).
        churn: bool,
        /// `protobuf` or `json`: what the server answered the informer in (the cached objects'
        /// encoding at the end of the window); `None` when nothing was cached.
        encoding: Option<&'static str>,
    },
    File {
        path: String,
        speed: String,
    },
}

/// The settings that shape the figures (compared with a baseline's).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
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
    /// `--react` and `--reaction-timeout`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub react: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reaction_timeout: Option<String>,
}

/// The comparison with `--baseline`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BaselineReport {
    pub file: String,
    pub tolerance_percent: f64,
    /// Settings that differ from the baseline's, as `key: old → new`.
    pub config_differences: Vec<String>,
    pub comparisons: Vec<BaselineComparison>,
}

/// One bench run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchReport {
    pub schema_version: u32,
    pub source: Source,
    pub config: Settings,
    /// The measured window: after the warm-up until the source ended.
    pub window_seconds: f64,
    /// Ctrl-C or SIGTERM cut the window short: the figures are of `window_seconds` only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cut: bool,
    /// From the source's end until handlers and workers had finished.
    pub drain_seconds: f64,
    /// CPU time of the whole bench process in the window (Linux; null elsewhere): informer,
    /// controller, measuring, and the load generator (whose own share is in `generator`).
    pub process_cpu_seconds: Option<f64>,
    pub metrics: Metrics,
    pub counters: Counters,
    pub listeners: Vec<ListenerFigures>,
    /// Backlog and depth at every sample of the window (what the exports' charts draw).
    pub timeline: Timeline,
    pub generator: Option<LoadStats>,
    /// `--metrics-from`: what the controller's own metrics said over the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<ControllerFigures>,
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
        let (window_seconds, events) = (window.seconds, measured.events);
        let (lag, handler) = measured.merged();
        let queue = &measured.snapshot.queues[0].metrics;
        let gauge = |unit, summary| GaugeFigures { unit, summary };
        BenchReport {
            schema_version: BENCH_SCHEMA_VERSION,
            source,
            config,
            window_seconds,
            cut: false,
            drain_seconds,
            process_cpu_seconds: window.cpu_seconds,
            metrics: Metrics {
                watch_latency: measured
                    .snapshot
                    .watch_latency
                    .as_ref()
                    .map(LatencyFigures::of),
                reaction_latency: measured
                    .snapshot
                    .reaction_latency
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
                writes_without_reaction: None,
                superseded: None,
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
            timeline: measured.timeline.clone(),
            generator: None,
            controller: None,
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
        report.cut = f.cut;
        report.generator = live.generator.clone();
        report.controller = live.controller.clone();
        report.counters.writes = live.writes;
        report.counters.writes_without_event = live.writes_without_event;
        report.counters.reconnects = Some(live.reconnects);
        report.counters.relists = Some(live.relists);
        if let Some(m) = &live.reactions {
            report.counters.writes_without_reaction = Some(m.without_reaction);
            report.counters.superseded = Some(m.superseded);
        }
        report
    }

    /// The report as the JSON document it is written as, which a baseline comparison reads.
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

/// A report document as this version reads it (`--baseline`): one of the current schema as it
/// is, and one of schema version 1 (snake_case keys, `version`, `""` for all namespaces) brought
/// to it key by key, since its keys are exactly the current ones in snake_case. `None` for
/// anything else.
pub fn upgrade(doc: serde_json::Value) -> Option<serde_json::Value> {
    let version = |key: &str| doc.get(key).and_then(serde_json::Value::as_u64);
    match (version("schemaVersion"), version("version")) {
        (Some(v), _) if v == u64::from(BENCH_SCHEMA_VERSION) => Some(doc),
        (None, Some(1)) => {
            let mut doc = camel_case_keys(doc);
            let top = doc.as_object_mut()?;
            top.remove("version");
            top.insert("schemaVersion".into(), BENCH_SCHEMA_VERSION.into());
            if let Some(ns) = doc.pointer_mut("/source/namespace") {
                if ns.as_str() == Some("") {
                    *ns = serde_json::Value::Null;
                }
            }
            Some(doc)
        }
        _ => None,
    }
}

/// `doc` with every object key turned from snake_case to camelCase.
fn camel_case_keys(doc: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match doc {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (camel_case(&k), camel_case_keys(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_case_keys).collect()),
        other => other,
    }
}

/// `queue_duration` → `queueDuration`.
fn camel_case(key: &str) -> String {
    let mut parts = key.split('_');
    let mut out = parts.next().unwrap_or_default().to_string();
    for part in parts {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.push_str(chars.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn fixture(name: &str) -> Value {
        let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn a_version_1_report_is_read_as_the_current_schema() {
        let old = fixture("bench-report-v1-live.json");
        assert_eq!(old["version"], 1);
        let doc = upgrade(old.clone()).unwrap();
        assert_eq!(doc["schemaVersion"], BENCH_SCHEMA_VERSION);
        assert!(doc.get("version").is_none());
        assert_eq!(
            doc["metrics"]["queueDuration"]["p99"],
            old["metrics"]["queue_duration"]["p99"]
        );
        assert_eq!(
            doc["counters"]["writesWithoutEvent"],
            old["counters"]["writes_without_event"]
        );
        assert_eq!(
            doc["generator"]["maxLateSeconds"],
            old["generator"]["max_late_seconds"]
        );
        assert_eq!(doc["config"]["handlerTime"], old["config"]["handler_time"]);
        assert_eq!(doc["source"]["namespace"], old["source"]["namespace"]);
        // Exactly the keys a current report has.
        let now = serde_json::to_value(Settings::default()).unwrap();
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&doc["config"]), keys(&now));
    }

    #[test]
    fn all_namespaces_is_null_and_other_documents_are_refused() {
        let old = json!({"version": 1, "source": {"kind": "live", "namespace": ""}});
        assert_eq!(upgrade(old).unwrap()["source"]["namespace"], Value::Null);
        let current = json!({"schemaVersion": BENCH_SCHEMA_VERSION});
        assert_eq!(upgrade(current.clone()), Some(current));
        for other in [
            json!({"version": 2}),
            json!({"schemaVersion": 1}),
            json!({"schemaVersion": BENCH_SCHEMA_VERSION + 1}),
            json!({"resource": "configmaps"}),
            json!([1]),
        ] {
            assert_eq!(upgrade(other.clone()), None, "{other}");
        }
    }

    #[test]
    fn snake_case_becomes_camel_case() {
        assert_eq!(camel_case("queue_duration"), "queueDuration");
        assert_eq!(camel_case("events_per_second"), "eventsPerSecond");
        assert_eq!(camel_case("p999"), "p999");
    }
}
