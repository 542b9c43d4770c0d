//! Measurements shared by every stage: latencies in HdrHistogram (microsecond resolution, up to
//! hours) and gauges sampled over time, with their summaries.

use hdrhistogram::Histogram;
use serde::Serialize;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// Highest latency recorded exactly: longer values are clamped to it (and counted).
const MAX_MICROS: u64 = 4 * 3600 * 1_000_000;

/// A latency distribution in microseconds.
#[derive(Debug, Clone)]
pub struct Latency {
    histogram: Histogram<u64>,
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            histogram: Histogram::new_with_bounds(1, MAX_MICROS, 3)
                .expect("valid histogram bounds"),
        }
    }
}

/// The statistics a latency or gauge is reported with, in seconds for latencies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Summary {
    pub count: u64,
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Latency {
    pub fn record(&mut self, d: Duration) {
        let micros = (d.as_micros() as u64).clamp(1, MAX_MICROS);
        self.histogram.saturating_record(micros);
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// Adds every value of `other` (e.g. one histogram per listener into one per stage).
    pub fn merge(&mut self, other: &Latency) {
        let _ = self.histogram.add(&other.histogram);
    }

    /// The summary in seconds.
    pub fn summary(&self) -> Summary {
        let h = &self.histogram;
        if h.is_empty() {
            return Summary::default();
        }
        let s = |micros: u64| micros as f64 / 1e6;
        Summary {
            count: h.len(),
            mean: h.mean() / 1e6,
            p50: s(h.value_at_quantile(0.50)),
            p90: s(h.value_at_quantile(0.90)),
            p99: s(h.value_at_quantile(0.99)),
            p999: s(h.value_at_quantile(0.999)),
            max: s(h.max()),
        }
    }

    /// Cumulative counts at `bounds` (seconds), for a Prometheus histogram.
    pub fn buckets(&self, bounds: &[f64]) -> Vec<(f64, u64)> {
        bounds
            .iter()
            .map(|b| {
                let micros = (b * 1e6).round() as u64;
                // A recorded value's bucket of equivalent values starts at or below it: a value
                // exactly on a bound counts under it (`le` is "less than or equal").
                let count = self
                    .histogram
                    .iter_recorded()
                    .filter(|v| self.histogram.lowest_equivalent(v.value_iterated_to()) <= micros)
                    .map(|v| v.count_at_value())
                    .sum();
                (*b, count)
            })
            .collect()
    }

    /// The sum of all values in seconds (approximate, from the histogram's buckets).
    pub fn sum_seconds(&self) -> f64 {
        self.histogram.mean() * self.histogram.len() as f64 / 1e6
    }
}

/// A gauge sampled over time: backlog of a listener, depth of a queue.
#[derive(Debug, Clone, Default)]
pub struct Gauge {
    samples: u64,
    sum: f64,
    max: u64,
    last: u64,
}

/// A gauge's summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GaugeSummary {
    pub samples: u64,
    pub mean: f64,
    pub max: u64,
    pub last: u64,
}

impl Gauge {
    pub fn sample(&mut self, value: u64) {
        self.samples += 1;
        self.sum += value as f64;
        self.max = self.max.max(value);
        self.last = value;
    }

    pub fn summary(&self) -> GaugeSummary {
        GaugeSummary {
            samples: self.samples,
            mean: if self.samples == 0 {
                0.0
            } else {
                self.sum / self.samples as f64
            },
            max: self.max,
            last: self.last,
        }
    }
}

/// Which arrivals a measured window counts: those stamped from when it opened until it closed,
/// both ends included (what was stamped at the very instant the window closed came before the
/// close).
/// Every stage asks with the arrival stamp, whenever it gets there: a handler still working
/// through its backlog after the close counts the same arrivals as the source that stamped them,
/// and an arrival that came before the opening is left out however late it is handled. Before it
/// opens, a window counts nothing. A clone is a handle to the same window.
#[derive(Debug, Clone, Default)]
pub struct ArrivalWindow {
    /// A watch channel's value, so that those who wait for the window to open or close are
    /// woken when it does (counting an arrival wakes no one).
    state: Arc<tokio::sync::watch::Sender<WindowState>>,
}

#[derive(Debug, Default)]
struct WindowState {
    opened: Option<Instant>,
    /// Set by `close` also when the window never opened: it then never will.
    closed: Option<Instant>,
    arrivals: u64,
}

impl ArrivalWindow {
    /// Opens the window now (again, if it was open: the arrivals counted so far are forgotten)
    /// and returns when.
    pub fn open(&self) -> Instant {
        let now = Instant::now();
        self.state.send_replace(WindowState {
            opened: Some(now),
            ..WindowState::default()
        });
        now
    }

    /// Closes the window now; arrivals stamped before now still count when they are looked at
    /// later. A window that never opened stays empty (and will not open for those waiting).
    pub fn close(&self) {
        self.state.send_if_modified(|s| {
            let closing = s.closed.is_none();
            if closing {
                s.closed = Some(Instant::now());
            }
            closing
        });
    }

    /// Returns once the window has opened (at once if it has): true, or false when it was closed
    /// without opening.
    pub async fn opened(&self) -> bool {
        let mut state = self.state.subscribe();
        let state = state
            .wait_for(|s| s.opened.is_some() || s.closed.is_some())
            .await;
        state.is_ok_and(|s| s.opened.is_some())
    }

    /// Returns once the window has closed (at once if it has).
    pub async fn closed(&self) {
        let mut state = self.state.subscribe();
        let _ = state.wait_for(|s| s.closed.is_some()).await;
    }

    /// Whether an arrival stamped `at` is in the window.
    pub fn admits(&self, at: Instant) -> bool {
        self.state.borrow().admits(at)
    }

    /// Counts an arrival stamped `at` if it is in the window; returns whether it was.
    pub fn arrived(&self, at: Instant) -> bool {
        let mut admitted = false;
        self.state.send_if_modified(|s| {
            admitted = s.admits(at);
            s.arrivals += u64::from(admitted);
            false
        });
        admitted
    }

    /// The arrivals counted in the window (complete once every source has stopped).
    pub fn arrivals(&self) -> u64 {
        self.state.borrow().arrivals
    }
}

impl WindowState {
    fn admits(&self, at: Instant) -> bool {
        self.opened.is_some_and(|opened| at >= opened)
            && self.closed.is_none_or(|closed| at <= closed)
    }
}

/// CPU time this process has used (user + system), from `/proc/self/stat` (Linux; `None`
/// elsewhere). Resolution: 10 ms (`USER_HZ`, 100 on every Linux ABI).
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// CPU time the calling thread has used, in nanoseconds' resolution, from
/// `/proc/thread-self/schedstat` (Linux; `None` elsewhere).
pub fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_window_counts_arrivals_by_their_stamp_not_by_when_they_are_counted() {
        let w = ArrivalWindow::default();
        let before = Instant::now();
        assert!(
            !w.arrived(before),
            "a window that never opened counts nothing"
        );
        tokio::time::advance(Duration::from_millis(1)).await;
        w.open();
        let inside = Instant::now();
        tokio::time::advance(Duration::from_millis(1)).await;
        w.close();
        tokio::time::advance(Duration::from_millis(1)).await;
        let after = Instant::now();
        // Counted after the close, in any order: only the arrival stamped inside is in.
        assert!(!w.arrived(after));
        assert!(w.arrived(inside));
        assert!(!w.arrived(before));
        assert_eq!(w.arrivals(), 1);
        assert!(w.admits(inside) && !w.admits(before) && !w.admits(after));
        // Opening again starts over.
        w.open();
        assert_eq!(w.arrivals(), 0);
        assert!(w.admits(Instant::now()) && !w.admits(inside));
    }

    #[tokio::test]
    async fn those_waiting_for_a_window_learn_when_it_opens_closes_or_never_opens() {
        let w = ArrivalWindow::default();
        let waiting = tokio::spawn({
            let w = w.clone();
            async move { w.opened().await }
        });
        w.open();
        assert!(waiting.await.unwrap(), "opened");
        let closing = tokio::spawn({
            let w = w.clone();
            async move { w.closed().await }
        });
        w.close();
        closing.await.unwrap();
        // One that closes without opening: those waiting for it to open are told it never will.
        let never = ArrivalWindow::default();
        let waiting = tokio::spawn({
            let w = never.clone();
            async move { w.opened().await }
        });
        never.close();
        assert!(!waiting.await.unwrap());
        assert!(!never.admits(Instant::now()), "and it counts nothing");
    }

    #[test]
    fn latency_summary_is_in_seconds_with_microsecond_resolution() {
        let mut l = Latency::default();
        for ms in 1..=100 {
            l.record(Duration::from_millis(ms));
        }
        let s = l.summary();
        assert_eq!(s.count, 100);
        assert!((s.p50 - 0.050).abs() < 0.0005, "{s:?}");
        assert!((s.p99 - 0.099).abs() < 0.0005, "{s:?}");
        assert!((s.max - 0.100).abs() < 0.0005, "{s:?}");
        l.record(Duration::from_micros(3));
        assert!(l.summary().count == 101);
    }

    #[test]
    fn hours_long_latencies_are_kept() {
        let mut l = Latency::default();
        l.record(Duration::from_secs(3 * 3600));
        assert!((l.summary().max - 10800.0).abs() / 10800.0 < 0.001);
    }

    #[test]
    fn buckets_are_cumulative() {
        let mut l = Latency::default();
        for ms in [1, 2, 50, 900] {
            l.record(Duration::from_millis(ms));
        }
        let b = l.buckets(&[0.005, 0.1, 1.0]);
        assert_eq!(b, vec![(0.005, 2), (0.1, 3), (1.0, 4)]);
    }

    #[test]
    fn cpu_time_grows_with_work() {
        let (Some(p0), Some(t0)) = (process_cpu_seconds(), thread_cpu_seconds()) else {
            panic!("/proc/self/stat and /proc/thread-self/schedstat are readable on Linux");
        };
        // Spin until this thread has used 50 ms of CPU by its own count (however long other
        // tests keep it off the CPU); a reader that does not advance hits the deadline.
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let mut used = 0.0;
        while used < 0.05 && std::time::Instant::now() < deadline {
            std::hint::black_box(0u64);
            used = thread_cpu_seconds().unwrap() - t0;
        }
        assert!(used >= 0.05, "thread CPU time did not advance: {used}");
        // The process count has 10 ms ticks.
        let process = process_cpu_seconds().unwrap() - p0;
        assert!(
            process >= 0.03,
            "process CPU time did not advance: {process}"
        );
    }

    #[test]
    fn gauges_keep_mean_max_and_last() {
        let mut g = Gauge::default();
        for v in [0, 10, 5] {
            g.sample(v);
        }
        assert_eq!(
            g.summary(),
            GaugeSummary {
                samples: 3,
                mean: 5.0,
                max: 10,
                last: 5
            }
        );
    }
}
