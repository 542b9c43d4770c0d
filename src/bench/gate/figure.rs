//! The figures of bench's own pipeline a gate reads: every metric and statistic declared once,
//! with the name the report's JSON gives it, and read from the typed report.

use super::expr::{GateError, Op};
use crate::bench::report::{BenchReport, GaugeFigures, LatencyFigures};

/// A statistic of a metric, named as the report's JSON names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stat {
    P50,
    P90,
    P99,
    P999,
    Max,
    Mean,
    Last,
    Count,
}

impl Stat {
    pub fn name(self) -> &'static str {
        match self {
            Stat::P50 => "p50",
            Stat::P90 => "p90",
            Stat::P99 => "p99",
            Stat::P999 => "p999",
            Stat::Max => "max",
            Stat::Mean => "mean",
            Stat::Last => "last",
            Stat::Count => "count",
        }
    }

    /// The statistic of `among` named `name`.
    pub fn named(name: &str, among: &[Stat]) -> Option<Stat> {
        among.iter().copied().find(|s| s.name() == name)
    }

    /// The statistic written after a metric (`written`), one of `stats`, which has none for a
    /// single number: `figure` names the metric in the errors, and `single` is the error for a
    /// statistic written after a single number.
    pub fn parse(
        written: Option<&str>,
        stats: &'static [Stat],
        figure: &str,
        single: impl FnOnce(&str) -> GateError,
    ) -> Result<Option<Stat>, GateError> {
        match (written, stats.is_empty()) {
            (None, true) => Ok(None),
            (Some(s), true) => Err(single(s)),
            (None, false) => Err(GateError::NeedsStatistic {
                figure: figure.to_string(),
                stats,
            }),
            (Some(s), false) => {
                Stat::named(s, stats)
                    .map(Some)
                    .ok_or_else(|| GateError::UnknownStatistic {
                        stat: s.to_string(),
                        figure: figure.to_string(),
                        stats,
                    })
            }
        }
    }

    /// `p50, p90, p99`: the names of `stats`, as the parse errors list them.
    pub fn names(stats: &[Stat]) -> String {
        let names: Vec<_> = stats.iter().map(|s| s.name()).collect();
        names.join(", ")
    }

    /// This statistic of a latency; `None` where nothing was measured.
    pub fn of_latency(self, f: &LatencyFigures) -> Option<f64> {
        match self {
            Stat::P50 => f.p50,
            Stat::P90 => f.p90,
            Stat::P99 => f.p99,
            Stat::P999 => f.p999,
            Stat::Max => f.max,
            Stat::Mean => f.mean,
            Stat::Count => Some(f.count as f64),
            Stat::Last => None,
        }
    }

    fn of_gauge(self, f: &GaugeFigures) -> Option<f64> {
        match self {
            Stat::Max => Some(f.summary.max as f64),
            Stat::Mean => Some(f.summary.mean),
            Stat::Last => Some(f.summary.last as f64),
            _ => None,
        }
    }
}

impl std::fmt::Display for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// As the report's JSON names it.
impl serde::Serialize for Stat {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// What a metric is, which decides its statistics and the unit of its threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricKind {
    /// Seconds: `metrics.<name>.<stat>`.
    Latency,
    /// A sampled gauge: `metrics.<name>.<stat>`.
    Gauge,
    /// A plain number: `counters.<name>`, without a statistic.
    Counter,
}

impl MetricKind {
    pub fn stats(self) -> &'static [Stat] {
        match self {
            MetricKind::Latency => &[
                Stat::P50,
                Stat::P90,
                Stat::P99,
                Stat::P999,
                Stat::Max,
                Stat::Mean,
                Stat::Count,
            ],
            MetricKind::Gauge => &[Stat::Max, Stat::Mean, Stat::Last],
            MetricKind::Counter => &[],
        }
    }
}

/// Every metric of bench's own pipeline a gate can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    WatchLatency,
    ReactionLatency,
    DeliveryLag,
    HandlerTime,
    QueueDuration,
    WorkDuration,
    Backlog,
    Depth,
    Events,
    EventsPerSecond,
    Adds,
    Deduplicated,
    Retries,
    WritesWithoutEvent,
    Reconnects,
    Relists,
    WritesWithoutReaction,
    Superseded,
}

impl Metric {
    /// In the order the parse errors list them: latencies, gauges, counters.
    pub const ALL: [Metric; 18] = [
        Metric::WatchLatency,
        Metric::ReactionLatency,
        Metric::DeliveryLag,
        Metric::HandlerTime,
        Metric::QueueDuration,
        Metric::WorkDuration,
        Metric::Backlog,
        Metric::Depth,
        Metric::Events,
        Metric::EventsPerSecond,
        Metric::Adds,
        Metric::Deduplicated,
        Metric::Retries,
        Metric::WritesWithoutEvent,
        Metric::Reconnects,
        Metric::Relists,
        Metric::WritesWithoutReaction,
        Metric::Superseded,
    ];

    /// The name in the report's JSON (and in gates), and what it is.
    fn spec(self) -> (&'static str, MetricKind) {
        match self {
            Metric::WatchLatency => ("watchLatency", MetricKind::Latency),
            Metric::ReactionLatency => ("reactionLatency", MetricKind::Latency),
            Metric::DeliveryLag => ("deliveryLag", MetricKind::Latency),
            Metric::HandlerTime => ("handlerTime", MetricKind::Latency),
            Metric::QueueDuration => ("queueDuration", MetricKind::Latency),
            Metric::WorkDuration => ("workDuration", MetricKind::Latency),
            Metric::Backlog => ("backlog", MetricKind::Gauge),
            Metric::Depth => ("depth", MetricKind::Gauge),
            Metric::Events => ("events", MetricKind::Counter),
            Metric::EventsPerSecond => ("eventsPerSecond", MetricKind::Counter),
            Metric::Adds => ("adds", MetricKind::Counter),
            Metric::Deduplicated => ("deduplicated", MetricKind::Counter),
            Metric::Retries => ("retries", MetricKind::Counter),
            Metric::WritesWithoutEvent => ("writesWithoutEvent", MetricKind::Counter),
            Metric::Reconnects => ("reconnects", MetricKind::Counter),
            Metric::Relists => ("relists", MetricKind::Counter),
            Metric::WritesWithoutReaction => ("writesWithoutReaction", MetricKind::Counter),
            Metric::Superseded => ("superseded", MetricKind::Counter),
        }
    }

    pub fn name(self) -> &'static str {
        self.spec().0
    }

    pub fn kind(self) -> MetricKind {
        self.spec().1
    }

    /// The metrics of one kind, in [`Metric::ALL`]'s order.
    pub fn of_kind(kind: MetricKind) -> impl Iterator<Item = Metric> {
        Metric::ALL.into_iter().filter(move |m| m.kind() == kind)
    }

    /// The name report schema version 1 gave it: the same words in snake_case
    /// (`queue_duration`), still accepted in gates so that existing CI configurations keep
    /// working; deprecated.
    pub fn v1_name(self) -> String {
        let mut out = String::new();
        for c in self.name().chars() {
            if c.is_ascii_uppercase() {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    /// The metric a gate names, and how: by its name, or by schema version 1's.
    fn named(name: &str) -> Option<(Metric, Spelling)> {
        Metric::ALL.into_iter().find_map(|m| {
            if m.name() == name {
                Some((m, Spelling::Current))
            } else if m.v1_name() == name {
                Some((m, Spelling::SchemaV1))
            } else {
                None
            }
        })
    }

    /// The latency's figures in `report`; `None` for a latency the run did not measure (watch
    /// latency of a replay) and for a metric that is no latency.
    pub fn latency(self, report: &BenchReport) -> Option<&LatencyFigures> {
        let m = &report.metrics;
        match self {
            Metric::WatchLatency => m.watch_latency.as_ref(),
            Metric::ReactionLatency => m.reaction_latency.as_ref(),
            Metric::DeliveryLag => Some(&m.delivery_lag),
            Metric::HandlerTime => Some(&m.handler_time),
            Metric::QueueDuration => Some(&m.queue_duration),
            Metric::WorkDuration => Some(&m.work_duration),
            _ => None,
        }
    }

    fn gauge(self, report: &BenchReport) -> Option<&GaugeFigures> {
        match self {
            Metric::Backlog => Some(&report.metrics.backlog),
            Metric::Depth => Some(&report.metrics.depth),
            _ => None,
        }
    }

    /// The counter's value; `None` for one the run does not count (relists of a replay).
    fn counter(self, report: &BenchReport) -> Option<f64> {
        let c = &report.counters;
        let count = |n: Option<u64>| n.map(|n| n as f64);
        match self {
            Metric::Events => Some(c.events as f64),
            Metric::EventsPerSecond => Some(c.events_per_second),
            Metric::Adds => Some(c.adds as f64),
            Metric::Deduplicated => Some(c.deduplicated as f64),
            Metric::Retries => Some(c.retries as f64),
            Metric::WritesWithoutEvent => count(c.writes_without_event),
            Metric::Reconnects => count(c.reconnects),
            Metric::Relists => count(c.relists),
            Metric::WritesWithoutReaction => count(c.writes_without_reaction),
            Metric::Superseded => count(c.superseded),
            _ => None,
        }
    }
}

/// How a gate named its metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// As the report's JSON names it.
    Current,
    /// In report schema version 1's snake_case: deprecated.
    SchemaV1,
}

/// A figure of bench's own pipeline: a metric, and its statistic unless it is a counter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Figure {
    pub metric: Metric,
    /// `None` exactly for counters.
    pub stat: Option<Stat>,
    pub spelling: Spelling,
}

impl Figure {
    /// Reads `<metric>[.<stat>]`; `op` and `threshold` (as written) go into the error that
    /// shows how to write a counter's gate.
    pub fn parse(left: &str, op: Op, threshold: &str) -> Result<Figure, GateError> {
        let (name, stat) = match left.split_once('.') {
            Some((m, s)) => (m, Some(s)),
            None => (left, None),
        };
        let Some((metric, spelling)) = Metric::named(name) else {
            return Err(GateError::UnknownMetric {
                name: name.to_string(),
            });
        };
        let stat = Stat::parse(stat, metric.kind().stats(), metric.name(), |s| {
            GateError::SingleNumber {
                metric: metric.name(),
                stat: s.to_string(),
                op,
                threshold: threshold.to_string(),
            }
        })?;
        Ok(Figure {
            metric,
            stat,
            spelling,
        })
    }

    /// Whether its threshold is a duration: a latency's statistic but its count.
    pub fn is_duration(&self) -> bool {
        self.metric.kind() == MetricKind::Latency && self.stat != Some(Stat::Count)
    }

    /// The figure in `report`; `None` when the run has no such figure (or it is not finite:
    /// the report's JSON writes that as null too).
    pub fn read(&self, report: &BenchReport) -> Option<f64> {
        let value = match (self.metric.kind(), self.stat) {
            (MetricKind::Latency, Some(stat)) => stat.of_latency(self.metric.latency(report)?),
            (MetricKind::Gauge, Some(stat)) => stat.of_gauge(self.metric.gauge(report)?),
            (MetricKind::Counter, None) => self.metric.counter(report),
            _ => None,
        };
        value.filter(|v| v.is_finite())
    }
}

/// As the gate wrote it: `queueDuration.p99`, or in the deprecated spelling, `queue_duration.p99`.
impl std::fmt::Display for Figure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.spelling {
            Spelling::Current => f.write_str(self.metric.name())?,
            Spelling::SchemaV1 => f.write_str(&self.metric.v1_name())?,
        }
        match self.stat {
            Some(stat) => write!(f, ".{}", stat.name()),
            None => Ok(()),
        }
    }
}
