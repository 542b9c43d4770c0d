//! What the exports' charts draw, taken from a report once for every format: backlog and
//! workqueue depth over the window, and each latency's percentiles; and, with `--metrics-from`,
//! the controller's busiest queues' depth over the window.

use crate::bench::report::BenchReport;
use crate::bench::timeline::Timeline;
use crate::output::bench::latency_rows;
use crate::scrape::window::{ControllerFigures, QueueFigures};

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

/// The most queues a depth chart draws.
pub const BUSIEST_QUEUES: usize = 4;

/// The busiest queues' depth over the window, one line per queue at shared times.
pub struct DepthLines {
    /// Seconds since the window opened.
    pub seconds: Vec<f64>,
    /// Each queue's name, largest depth and depth at each of `seconds`, the deepest first.
    pub lines: Vec<(String, f64, Vec<f64>)>,
}

/// The depth of the [`BUSIEST_QUEUES`] queues with the largest depth (ties in name order), at
/// most `points` points each. Past `points` scrapes, each point is the largest depth of a run
/// of scrapes at the time of the run's last, as the pipeline's timeline is downsampled: a peak
/// is never averaged away. None when no queue held anything or nothing was scraped.
pub fn busiest_depths(c: &ControllerFigures, points: usize) -> Option<DepthLines> {
    let t = &c.timeline;
    let mut busy: Vec<&QueueFigures> = c
        .queues
        .iter()
        .filter(|q| q.depth.max > 0.0 && t.depth.contains_key(&q.name))
        .collect();
    busy.sort_by(|a, b| b.depth.max.total_cmp(&a.depth.max));
    busy.truncate(BUSIEST_QUEUES);
    let n = t.seconds.len();
    if busy.is_empty() || n == 0 {
        return None;
    }
    let runs: Vec<(usize, usize)> = if n <= points || points == 0 {
        (0..n).map(|i| (i, i + 1)).collect()
    } else {
        (0..points)
            .map(|run| (run * n / points, (run + 1) * n / points))
            .collect()
    };
    let lines = busy
        .into_iter()
        .map(|q| {
            let column = &t.depth[&q.name];
            let peak = |&(start, end): &(usize, usize)| {
                column
                    .get(start..end)
                    .map_or(0.0, |run| run.iter().copied().fold(0.0, f64::max))
            };
            (q.name.clone(), q.depth.max, runs.iter().map(peak).collect())
        })
        .collect();
    Some(DepthLines {
        seconds: runs.iter().map(|(_, end)| t.seconds[end - 1]).collect(),
        lines,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bench::pipeline::Measured;
    use crate::bench::report::{Settings, Source};
    use crate::bench::run::Window;
    use crate::bench::snapshot::{PipelineSnapshot, QueueSnapshot};
    use crate::scrape::interval::{BoundFigure, Percentiles};
    use crate::scrape::lag::Lag;
    use crate::scrape::window::{
        ControllerTimeline, InformerFigures, LagFigures, ReconcilerFigures, Sampled,
    };

    /// A queue name with every character some format escapes: a pipe, angle brackets, an
    /// ampersand, quotes, a backslash and a line end.
    pub const ODD: &str = "a|<b>&\"c\"\\\nd";

    /// Percentiles of `count` observations whose p50 is at most `p50` seconds and whose p90
    /// and p99 lie past the last edge (10 s); none without observations.
    pub fn percentiles(count: f64, p50: f64) -> Percentiles {
        let past = Some(BoundFigure {
            above: 10.0,
            at_most: None,
        });
        let some = count > 0.0;
        Percentiles {
            count,
            mean: some.then_some(p50),
            p50: some.then_some(BoundFigure {
                above: p50 / 10.0,
                at_most: Some(p50),
            }),
            p90: past.filter(|_| some),
            p99: past.filter(|_| some),
        }
    }

    pub(crate) fn queue(name: &str, depth: Sampled, adds: f64) -> QueueFigures {
        QueueFigures {
            name: name.into(),
            depth,
            adds,
            retries: adds / 10.0,
            queue_duration: percentiles(adds, 1.0),
            work_duration: percentiles(adds, 0.01),
            unfinished_work_seconds: 0.0,
            longest_running_processor_seconds: 0.0,
        }
    }

    pub(crate) fn informer(
        resource: &str,
        group: &str,
        lag: Option<LagFigures>,
    ) -> InformerFigures {
        InformerFigures {
            name: "kube-controller-manager".into(),
            group: group.into(),
            version: "v1".into(),
            resource: resource.into(),
            queued_items: Sampled::default(),
            processing_latency: percentiles(0.0, 0.0),
            lag,
        }
    }

    /// A controller with two busy queues (`deployment`, deepest, and [`ODD`]), an idle one, a
    /// lagging informer, an idle one, throttling, a reconciler and four scrapes' depths.
    pub fn controller() -> ControllerFigures {
        let depth = |max, mean, last| Sampled { max, mean, last };
        let lag = LagFigures {
            max_resource_versions: 12,
            max_seconds: 0.25,
            last: Lag {
                resource_versions: 2,
                seconds: 0.05,
            },
            samples: 4,
        };
        ControllerFigures {
            target: "pod/kube-system/kube-controller-manager".into(),
            scrapes: 5,
            gaps: 1,
            seconds: 3.0,
            queues: vec![
                queue(ODD, depth(3.0, 1.0, 0.0), 5.0),
                queue("deployment", depth(7.0, 2.5, 1.0), 40.0),
                queue("idle", Sampled::default(), 0.0),
            ],
            informers: vec![
                informer("configmaps", "", None),
                informer("deployments", "apps", Some(lag)),
            ],
            throttling: Some(percentiles(3.0, 0.1)),
            reconcilers: vec![ReconcilerFigures {
                controller: "certificate".into(),
                reconciles: 12.0,
                errors: 1.0,
                time: percentiles(12.0, 0.01),
                active_workers: Some(2.0),
            }],
            timeline: ControllerTimeline {
                seconds: vec![0.0, 1.0, 2.0, 3.0],
                depth: [
                    ("deployment".to_string(), vec![0.0, 7.0, 3.0, 1.0]),
                    (ODD.to_string(), vec![1.0, 3.0, 0.0, 0.0]),
                ]
                .into(),
            },
        }
    }

    /// A report of a run that measured nothing, with `controller` as its controller section.
    pub fn report(controller: Option<ControllerFigures>) -> BenchReport {
        let measured = Measured {
            events: 0,
            snapshot: PipelineSnapshot {
                listeners: Vec::new(),
                queues: vec![QueueSnapshot {
                    name: "bench".into(),
                    metrics: Default::default(),
                    gauges: Default::default(),
                }],
                watch_latency: None,
                reaction_latency: None,
                watch_transitions: None,
            },
            backlog_at_end: Vec::new(),
            depth_at_end: 0,
            timeline: Timeline::default(),
        };
        let settings = Settings {
            handlers: 1,
            handler_time: "0s".into(),
            workers: 1,
            work_time: "0s".into(),
            warmup: "0s".into(),
            seed: 1,
            ..Settings::default()
        };
        let source = Source::File {
            path: "r.jsonl".into(),
            speed: "1x".into(),
        };
        let window = Window {
            seconds: 3.0,
            cpu_seconds: None,
        };
        let mut report = BenchReport::new(source, settings, &measured, &window, 0.0);
        report.controller = controller;
        report
    }

    #[test]
    fn the_deepest_queues_are_drawn_and_a_long_window_keeps_each_runs_peak() {
        let mut c = controller();
        let d = busiest_depths(&c, 100).unwrap();
        assert_eq!(d.seconds, [0.0, 1.0, 2.0, 3.0]);
        let names: Vec<&str> = d.lines.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["deployment", ODD]);
        assert_eq!(d.lines[0].2, [0.0, 7.0, 3.0, 1.0]);
        let d = busiest_depths(&c, 2).unwrap();
        assert_eq!(d.seconds, [1.0, 3.0]);
        assert_eq!(d.lines[0].2, [7.0, 3.0]);
        assert_eq!(d.lines[1].2, [3.0, 0.0]);
        for i in 0..6 {
            let mut q = c.queues[1].clone();
            q.name = format!("q{i}");
            q.depth.max = 1.0;
            c.timeline.depth.insert(q.name.clone(), vec![1.0; 4]);
            c.queues.push(q);
        }
        let d = busiest_depths(&c, 100).unwrap();
        let names: Vec<&str> = d.lines.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["deployment", ODD, "q0", "q1"]);
        c.timeline = ControllerTimeline::default();
        assert!(busiest_depths(&c, 100).is_none());
    }

    #[test]
    fn milliseconds_keep_three_significant_digits() {
        assert_eq!(millis(0.012345), 12.3);
        assert_eq!(millis(0.000038), 0.038);
        assert_eq!(millis(1.23456), 1230.0);
        assert_eq!(millis(0.0), 0.0);
    }
}
