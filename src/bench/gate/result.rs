//! A gate judged on a run's typed report: the figure it read (if the run had it) and whether it
//! failed. The report's JSON writes each as `{expr, measured, failed, display}`.

use super::expr::Gate;
use crate::bench::report::BenchReport;
use crate::format::{format_number, format_seconds};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// How a figure is read by people.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unit {
    Seconds,
    Number,
    /// A percentile bounded by its histogram's buckets: at most the value, which past the last
    /// edge is infinite (then it is only known to be above `above`).
    Bucket {
        above: f64,
    },
}

/// The queue, informer or reconciler a controller's figure came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemName {
    Queue(String),
    Informer {
        resource: String,
        group: String,
        version: String,
    },
    Reconciler(String),
}

/// As the report's `display` names it: `queue deployment`, `informer replicasets apps/v1`
/// (`core/v1` for the core group).
impl std::fmt::Display for ItemName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ItemName::Queue(name) => write!(f, "queue {name}"),
            ItemName::Informer {
                resource,
                group,
                version,
            } => {
                let group = if group.is_empty() { "core" } else { group };
                write!(f, "informer {resource} {group}/{version}")
            }
            ItemName::Reconciler(name) => write!(f, "reconciler {name}"),
        }
    }
}

/// A figure a gate read.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// Seconds for a duration.
    pub value: f64,
    pub unit: Unit,
    /// For a controller's gate without a selector: the item whose figure was the largest.
    pub of: Option<ItemName>,
}

impl Reading {
    /// The value as people read it: `73.2ms`, `1200`, a bucket bound as `≤1s` (or `>10s` past
    /// the last edge), followed by the item it came from (`10 (queue replicaset)`).
    pub fn display(&self) -> String {
        let shown = match self.unit {
            Unit::Seconds => format_seconds(self.value),
            Unit::Number => format_number(self.value),
            Unit::Bucket { .. } if self.value.is_finite() => {
                format!("≤{}", format_seconds(self.value))
            }
            Unit::Bucket { above } => format!(">{}", format_seconds(above)),
        };
        match &self.of {
            Some(item) => format!("{shown} ({item})"),
            None => shown,
        }
    }
}

/// A gate after the run.
#[derive(Debug, Clone, PartialEq)]
pub struct GateResult {
    pub gate: Gate,
    /// `None` when the run has no figure for it (e.g. watchLatency of a replay).
    pub reading: Option<Reading>,
    pub failed: bool,
}

impl Gate {
    /// Judges `report`. A gate whose figure the run does not have fails: a gate that cannot fail
    /// would pass a broken pipeline.
    pub fn evaluate(&self, report: &BenchReport) -> GateResult {
        let reading = match self {
            Gate::Pipeline { figure, .. } => figure.read(report).map(|value| Reading {
                value,
                unit: if figure.is_duration() {
                    Unit::Seconds
                } else {
                    Unit::Number
                },
                of: None,
            }),
            Gate::Controller { figure, .. } => {
                report.controller.as_ref().and_then(|c| figure.read(c))
            }
        };
        GateResult {
            gate: self.clone(),
            failed: reading
                .as_ref()
                .is_none_or(|r| self.condition().fails(r.value)),
            reading,
        }
    }
}

impl GateResult {
    /// The measured figure as people read it, which the report's JSON carries as `display`
    /// (its schema documents this wording for a figure the run lacks).
    pub fn display(&self) -> String {
        match &self.reading {
            Some(r) => r.display(),
            None => "not measured in this run".to_string(),
        }
    }
}

/// `{expr, measured, failed, display}`, as the report's schema has it.
impl Serialize for GateResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("GateResult", 4)?;
        s.serialize_field("expr", self.gate.expr())?;
        s.serialize_field("measured", &self.reading.as_ref().map(|r| r.value))?;
        s.serialize_field("failed", &self.failed)?;
        s.serialize_field("display", &self.display())?;
        s.end()
    }
}
