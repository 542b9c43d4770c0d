//! What the exports' charts draw, taken from a report once for every format: backlog and
//! workqueue depth over the window, and each latency's percentiles.

use crate::bench::report::BenchReport;
use crate::bench::timeline::Timeline;
use crate::output::bench::latency_rows;

/// The most points a time chart draws (Mermaid spreads them evenly over the x axis; a run of
/// 10 minutes has 6,000 samples).
pub const MAX_POINTS: usize = 100;

/// A gauge over time.
pub struct GaugeSeries {
    pub title: &'static str,
    pub unit: &'static str,
    /// Seconds since the window opened.
    pub seconds: Vec<f64>,
    pub values: Vec<u64>,
}

/// Backlog and depth over the window, at most `points` points each; none when the window had no
/// sample.
pub fn gauge_series(report: &BenchReport, points: usize) -> Vec<GaugeSeries> {
    let t: Timeline = report.timeline.downsample(points);
    if t.is_empty() {
        return Vec::new();
    }
    vec![
        GaugeSeries {
            title: "backlog (worst handler)",
            unit: "notifications",
            seconds: t.seconds.clone(),
            values: t.backlog,
        },
        GaugeSeries {
            title: "workqueue depth",
            unit: "items",
            seconds: t.seconds,
            values: t.depth,
        },
    ]
}

/// The percentiles a latency chart draws, in this order.
pub const PERCENTILES: [&str; 4] = ["p50", "p90", "p99", "p999"];

/// One latency's percentiles, in seconds.
pub struct LatencyBars {
    pub name: &'static str,
    pub seconds: [f64; 4],
}

/// The latencies that measured something (as the table's rows), with their percentiles.
pub fn latency_bars(report: &BenchReport) -> Vec<LatencyBars> {
    latency_rows(report)
        .into_iter()
        .filter_map(|(name, f)| {
            Some(LatencyBars {
                name,
                seconds: [f.p50?, f.p90?, f.p99?, f.p999?],
            })
        })
        .collect()
}

/// Milliseconds with three significant digits, as charts label them.
pub fn millis(seconds: f64) -> f64 {
    let ms = seconds * 1e3;
    if ms == 0.0 {
        return 0.0;
    }
    let scale = 10f64.powi(2 - ms.abs().log10().floor() as i32);
    (ms * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_keep_three_significant_digits() {
        assert_eq!(millis(0.012345), 12.3);
        assert_eq!(millis(0.000038), 0.038);
        assert_eq!(millis(1.23456), 1230.0);
        assert_eq!(millis(0.0), 0.0);
    }
}
