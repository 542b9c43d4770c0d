//! A `--fail-if` expression, `<figure> <op> <threshold>`, parsed once into a [`Gate`]: what it
//! reads, and when it fails. A malformed one is a [`GateError`], whose message is the one the
//! command line prints (after the flag and the expression).

use super::controller::{ControllerFigure, Label};
use super::figure::{Figure, Metric, MetricKind, Stat};
use crate::duration::DurationError;

/// A comparison, as written in a gate: `>`, `>=`, `<`, `<=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Gt,
    Ge,
    Lt,
    Le,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
        }
    }

    pub fn holds(self, measured: f64, threshold: f64) -> bool {
        match self {
            Op::Gt => measured > threshold,
            Op::Ge => measured >= threshold,
            Op::Lt => measured < threshold,
            Op::Le => measured <= threshold,
        }
    }
}

/// When a gate fails: its figure compared with the threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub op: Op,
    /// Seconds for a duration.
    pub threshold: f64,
    /// The threshold as written (`50ms`, `1m30s`), as the gate is printed.
    pub written: String,
}

impl Condition {
    pub fn fails(&self, measured: f64) -> bool {
        self.op.holds(measured, self.threshold)
    }
}

/// One parsed `--fail-if`.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// On a figure of bench's own pipeline: `queueDuration.p99 > 50ms`.
    Pipeline {
        figure: Figure,
        condition: Condition,
        /// The expression as written, trimmed (the report's `expr`).
        expr: String,
    },
    /// On a figure of the controller's own metrics, which `--metrics-from` reads:
    /// `controller.queueDuration.p99{name=deployment} > 1s`.
    Controller {
        figure: ControllerFigure,
        condition: Condition,
        expr: String,
    },
}

impl Gate {
    /// Parses `<metric>[.<stat>] <op> <value>`, or `controller.` and a figure of the
    /// controller's (see [`ControllerFigure::parse`]).
    pub fn parse(text: &str) -> Result<Gate, GateError> {
        let (left, op, right) = split(text).ok_or(GateError::NoComparison)?;
        let expr = text.trim().to_string();
        if let Some(rest) = left.strip_prefix("controller.") {
            let figure = ControllerFigure::parse(rest)?;
            let condition = condition(left, op, right, figure.is_duration())?;
            return Ok(Gate::Controller {
                figure,
                condition,
                expr,
            });
        }
        let figure = Figure::parse(left, op, right)?;
        let condition = condition(left, op, right, figure.is_duration())?;
        Ok(Gate::Pipeline {
            figure,
            condition,
            expr,
        })
    }

    pub fn condition(&self) -> &Condition {
        match self {
            Gate::Pipeline { condition, .. } | Gate::Controller { condition, .. } => condition,
        }
    }

    /// The expression as written, trimmed.
    pub fn expr(&self) -> &str {
        match self {
            Gate::Pipeline { expr, .. } | Gate::Controller { expr, .. } => expr,
        }
    }

    /// The figure as the gate names it (`queueDuration.p99`,
    /// `controller.depth.max{name=deployment}`).
    pub fn figure_name(&self) -> String {
        match self {
            Gate::Pipeline { figure, .. } => figure.to_string(),
            Gate::Controller { figure, .. } => format!("controller.{figure}"),
        }
    }
}

/// A malformed gate; each says what is wrong and what to write.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateError {
    #[error(
        "no comparison: write <metric>.<stat> <op> <value> with op one of > >= < <=, e.g. \
         'queueDuration.p99 > 50ms'"
    )]
    NoComparison,
    #[error(
        "unknown metric \"{name}\": use one of {}, {} or {} (or, with --metrics-from, \
         controller.<metric>, e.g. controller.queueDuration.p99{{name=deployment}})",
        names(MetricKind::Latency),
        names(MetricKind::Gauge),
        names(MetricKind::Counter)
    )]
    UnknownMetric { name: String },
    #[error(
        "unknown controller metric \"{name}\": use one of {}",
        super::controller::names()
    )]
    UnknownControllerMetric { name: String },
    /// A counter of bench's own, written with a statistic.
    #[error("{metric} is a single number: write '{metric} {} {threshold}' without .{stat}", op.as_str())]
    SingleNumber {
        metric: &'static str,
        stat: String,
        op: Op,
        threshold: String,
    },
    /// A count of the controller's, written with a statistic.
    #[error("controller.{metric} is a single number: write it without .{stat}")]
    ControllerSingleNumber { metric: &'static str, stat: String },
    #[error(
        "{figure} needs a statistic: {figure}.<stat> with stat one of {}",
        Stat::names(stats)
    )]
    NeedsStatistic {
        figure: String,
        stats: &'static [Stat],
    },
    #[error(
        "unknown statistic \"{stat}\" for {figure}: use one of {}",
        Stat::names(stats)
    )]
    UnknownStatistic {
        stat: String,
        figure: String,
        stats: &'static [Stat],
    },
    #[error(
        "selector {selector}: write it last, as {{label=value}}, e.g. \
         controller.depth.max{{name=deployment}}"
    )]
    SelectorNotLast { selector: String },
    #[error(
        "controller.{metric} is one figure for the whole controller: write it without {selector}"
    )]
    NoSelector {
        metric: &'static str,
        selector: String,
    },
    #[error("selector {selector}: \"{pair}\" is not label=value")]
    NotLabelValue { selector: String, pair: String },
    #[error(
        "selector {selector}: controller.{metric} is selected by {}",
        Label::names(labels)
    )]
    UnknownLabel {
        selector: String,
        metric: &'static str,
        labels: &'static [Label],
    },
    #[error("{figure} is a latency: {source}")]
    NotADuration {
        figure: String,
        #[source]
        source: DurationError,
    },
    #[error("\"{threshold}\" is not a number ({figure} is a count, without a unit)")]
    NotANumber { threshold: String, figure: String },
}

/// The names of bench's own metrics of `kind`, as the parse errors list them.
fn names(kind: MetricKind) -> String {
    let names: Vec<_> = Metric::of_kind(kind).map(|m| m.name()).collect();
    names.join(", ")
}

/// When `left` fails, with the threshold as written: a duration for a latency (`50ms`), else a
/// plain number.
fn condition(left: &str, op: Op, right: &str, duration: bool) -> Result<Condition, GateError> {
    let threshold = if duration {
        crate::duration::parse(right)
            .map(|d| d.as_secs_f64())
            .map_err(|source| GateError::NotADuration {
                figure: left.to_string(),
                source,
            })?
    } else {
        right
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| GateError::NotANumber {
                threshold: right.to_string(),
                figure: left.to_string(),
            })?
    };
    Ok(Condition {
        op,
        threshold,
        written: right.to_string(),
    })
}

/// A gate expression's three parts, trimmed: what it reads, the comparison, and the threshold
/// as written (`queueDuration.p99`, `>`, `50ms`).
fn split(text: &str) -> Option<(&str, Op, &str)> {
    let (pos, op_text, op) = [(">=", Op::Ge), ("<=", Op::Le), (">", Op::Gt), ("<", Op::Lt)]
        .into_iter()
        .find_map(|(s, op)| text.find(s).map(|p| (p, s, op)))?;
    Some((text[..pos].trim(), op, text[pos + op_text.len()..].trim()))
}
