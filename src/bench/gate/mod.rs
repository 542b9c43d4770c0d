//! CI gates: `--fail-if 'queueDuration.p99 > 50ms'` expressions, parsed once before anything
//! runs into a typed [`Gate`] and judged on the typed report; and the comparison with a
//! `--baseline` report, an earlier `--export-json` compared with this run's document.

mod baseline;
mod controller;
mod expr;
mod figure;
mod result;

pub use baseline::{
    compare_with_baseline, config_differences, BaselineComparison, Compared, BASELINE_FLOOR_SECONDS,
};
pub use controller::{ControllerFigure, ControllerMetric, Label, Selector};
pub use expr::{Condition, Gate, GateError, Op};
pub use figure::{Figure, Metric, MetricKind, Spelling, Stat};
pub use result::{GateResult, ItemName, Reading, Unit};

#[cfg(test)]
mod tests;
