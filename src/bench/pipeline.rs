//! The controller under test: `--handlers` listeners whose simulated handlers take
//! `--handler-time` and enqueue the object's key, and `--workers` workers that drain the
//! workqueue taking `--work-time` (failing `--error-rate` of the time, re-queued rate-limited),
//! the shape of a client-go controller. It owns the measuring of those stages.

use super::dist::{take, Dist, Rng, Timer};
use super::snapshot::{ListenerSnapshot, PipelineSnapshot, QueueSnapshot};
use super::timeline::Timeline;
use crate::informer::processor::{HandlerFuture, ListenerStats, Notification, Processor};
use crate::informer::workqueue::Workqueue;
use crate::metrics::{ArrivalWindow, GaugeSummary, Latency};
use crate::signal::Signal;
use std::sync::Arc;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The workqueue's name in the Prometheus export.
pub const QUEUE_NAME: &str = "bench";

/// The simulated controller's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerShape {
    pub handlers: usize,
    pub handler_time: Dist,
    pub workers: usize,
    pub work_time: Dist,
    /// Share of work items that fail, in [0, 1].
    pub error_rate: f64,
    pub resync: Option<Duration>,
    pub seed: u64,
    pub timer: Timer,
}

/// The listeners, the workqueue and the workers, running.
pub struct BenchPipeline {
    listeners: Vec<ListenerStats>,
    queue: Workqueue,
    /// Raised whenever a handler or a worker finished an item: when the controller may have
    /// become idle.
    progress: Arc<Signal>,
    workers: Vec<JoinHandle<()>>,
    /// Backlog and depth when the source ended.
    backlog_at_end: Vec<u64>,
    depth_at_end: u64,
    /// The measured window: the events that arrived in it are the ones the figures count.
    window: ArrivalWindow,
    /// When the window opened (the last `reset`), and what was sampled since.
    window_opened: Instant,
    timeline: Timeline,
}

impl BenchPipeline {
    /// Builds the listeners into `processor` and starts the workers. The listeners and the
    /// queue's adds count only what arrived in the window (`window`), which the source stamps
    /// its events into.
    pub fn start(shape: &ControllerShape, processor: &mut Processor) -> Self {
        let queue = Workqueue::default();
        let progress = Arc::new(Signal::default());
        let window = ArrivalWindow::default();
        processor.measure_within(window.clone());
        let mut listeners = Vec::with_capacity(shape.handlers);
        for i in 0..shape.handlers {
            let mut rng = Rng::new(shape.seed.wrapping_add(i as u64));
            let dist = shape.handler_time;
            let timer = shape.timer;
            let queue = queue.clone();
            let progress = progress.clone();
            let window = window.clone();
            let handler = Box::new(move |n: Notification| {
                let d = dist.sample(&mut rng);
                let key = n.key();
                let counted = window.admits(n.received_at);
                let queue = queue.clone();
                let progress = progress.clone();
                Box::pin(async move {
                    take(d, timer).await;
                    queue.add_counted(&key, counted);
                    progress.raise();
                }) as HandlerFuture
            });
            listeners.push(processor.add_listener(&format!("handler-{i}"), shape.resync, handler));
        }
        let workers = (0..shape.workers)
            .map(|w| {
                let queue = queue.clone();
                let progress = progress.clone();
                let dist = shape.work_time;
                let error_rate = shape.error_rate;
                let timer = shape.timer;
                let mut rng = Rng::new(shape.seed.wrapping_add(1_000 + w as u64));
                tokio::spawn(async move {
                    while let Some(key) = queue.get().await {
                        take(dist.sample(&mut rng), timer).await;
                        if error_rate > 0.0 && rng.next_f64() < error_rate {
                            queue.add_rate_limited(&key);
                        } else {
                            queue.forget(&key);
                        }
                        queue.done(&key);
                        progress.raise();
                    }
                })
            })
            .collect();
        BenchPipeline {
            listeners,
            queue,
            progress,
            workers,
            backlog_at_end: Vec::new(),
            depth_at_end: 0,
            window,
            window_opened: Instant::now(),
            timeline: Timeline::default(),
        }
    }

    /// Samples every listener's backlog and the queue's depth, and keeps the worst backlog and
    /// the depth in the timeline.
    pub fn sample(&mut self) {
        let backlog = self.listeners.iter().map(|l| l.sample()).max();
        let depth = self.queue.sample();
        let seconds = self.window_opened.elapsed().as_millis() as f64 / 1000.0;
        self.timeline.push(seconds, backlog.unwrap_or(0), depth);
    }

    /// The largest backlog of any listener now, and the queue's depth.
    pub fn current(&self) -> (usize, usize) {
        let backlog = self.listeners.iter().map(|l| l.backlog()).max();
        (backlog.unwrap_or(0), self.queue.depth())
    }

    /// Whether nothing is pending, queued, waiting for a retry or being worked on (a handler
    /// may still be finishing its last notification).
    pub fn idle(&self) -> bool {
        self.current() == (0, 0)
            && self.queue.delayed() == 0
            && self.queue.gauges().longest_running_processor_seconds == 0.0
    }

    /// Returns once the controller is idle (see `idle`).
    pub async fn until_idle(&self) {
        self.progress.until(|| self.idle()).await
    }

    /// The window every source stamps its events into (`ArrivalWindow::arrived`).
    pub fn window(&self) -> ArrivalWindow {
        self.window.clone()
    }

    /// Forgets what was measured during the warm-up: the window opens now. The figures are
    /// cleared before it opens, so that none of its arrivals is recorded before the clearing.
    pub fn reset(&mut self) {
        for l in &self.listeners {
            l.reset();
        }
        self.queue.reset_metrics();
        self.timeline = Timeline::default();
        self.window_opened = self.window.open();
    }

    /// The source ended, and with it the window: one last sample, and the backlog and depth as
    /// they are now. What arrived before now is still counted when it is handled.
    pub fn source_ended(&mut self) {
        self.window.close();
        self.sample();
        self.backlog_at_end = self.listeners.iter().map(|l| l.backlog() as u64).collect();
        self.depth_at_end = self.queue.depth() as u64;
    }

    /// After the listeners have drained (the processor was shut down): lets the workers finish
    /// what is queued and returns everything measured.
    pub async fn finish(self, watch_latency: Option<Latency>) -> Measured {
        self.queue.shut_down_with_drain().await;
        for w in self.workers {
            let _ = w.await;
        }
        let listeners: Vec<ListenerSnapshot> = self
            .listeners
            .iter()
            .map(|l| ListenerSnapshot {
                name: l.name.clone(),
                metrics: l.metrics(),
                backlog: l.backlog(),
            })
            .collect();
        Measured {
            events: self.window.arrivals(),
            snapshot: PipelineSnapshot {
                listeners,
                queues: vec![QueueSnapshot {
                    name: QUEUE_NAME.to_string(),
                    metrics: self.queue.metrics(),
                    gauges: self.queue.gauges(),
                }],
                watch_latency,
                reaction_latency: None,
                watch_transitions: None,
            },
            backlog_at_end: self.backlog_at_end,
            depth_at_end: self.depth_at_end,
            timeline: self.timeline,
        }
    }
}

/// What a run measured in the pipeline.
pub struct Measured {
    /// The object events that arrived in the window, as the source counted them.
    pub events: u64,
    pub snapshot: PipelineSnapshot,
    /// Per listener, when the source ended.
    pub backlog_at_end: Vec<u64>,
    pub depth_at_end: u64,
    /// Every sample of the window.
    pub timeline: Timeline,
}

impl Measured {
    /// The worst listener's backlog: the largest max, mean and end value of any listener.
    pub fn backlog(&self) -> GaugeSummary {
        let mut worst = GaugeSummary::default();
        for l in &self.snapshot.listeners {
            let s = l.metrics.backlog.summary();
            worst.samples = worst.samples.max(s.samples);
            worst.mean = worst.mean.max(s.mean);
            worst.max = worst.max.max(s.max);
        }
        worst.last = self.backlog_at_end.iter().copied().max().unwrap_or(0);
        worst
    }

    /// The workqueue's sampled depth, ending with the depth when the source ended.
    pub fn depth(&self) -> GaugeSummary {
        let mut s = self.snapshot.queues[0].metrics.depth.summary();
        s.last = self.depth_at_end;
        s
    }

    /// Every listener's latencies merged into one histogram per stage: (delivery lag, handler
    /// time).
    pub fn merged(&self) -> (Latency, Latency) {
        let (mut lag, mut handler) = (Latency::default(), Latency::default());
        for l in &self.snapshot.listeners {
            lag.merge(&l.metrics.delivery_lag);
            handler.merge(&l.metrics.handler_time);
        }
        (lag, handler)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::dist::Timer;
    use crate::informer::processor::NotificationKind;
    use crate::informer::store::tests::cm;

    /// One handler of 10 ms, one worker that takes no time.
    fn shape() -> ControllerShape {
        ControllerShape {
            handlers: 1,
            handler_time: Dist::parse("10ms").unwrap(),
            workers: 1,
            work_time: Dist::parse("0").unwrap(),
            error_rate: 0.0,
            resync: None,
            seed: 1,
            timer: Timer::Tokio,
        }
    }

    /// An event of `name` that arrived at `at`, as a source reports it: counted in the window by
    /// its stamp, then handed to the listeners.
    fn arrive(processor: &Processor, window: &ArrivalWindow, name: &str, at: Instant) {
        window.arrived(at);
        let notification = Notification {
            kind: NotificationKind::Add {
                object: cm("ns", name, 1, &[]),
                in_initial_list: false,
            },
            received_at: at,
        };
        processor.distribute(&notification, false);
    }

    #[tokio::test(start_paused = true)]
    async fn the_figures_count_what_arrived_in_the_window_however_late_it_was_handled() {
        let mut processor = Processor::new();
        let mut pipeline = BenchPipeline::start(&shape(), &mut processor);
        let window = pipeline.window();
        // Before the window: still in the handler's buffer when it opens.
        for name in ["before-1", "before-2", "before-3"] {
            arrive(&processor, &window, name, Instant::now());
        }
        tokio::time::advance(Duration::from_millis(1)).await;
        pipeline.reset();
        for name in ["in-1", "in-2"] {
            arrive(&processor, &window, name, Instant::now());
        }
        // Stamped in the window, handed over after it closed (a source busy at the edge).
        let stamped_inside = Instant::now();
        tokio::time::advance(Duration::from_millis(1)).await;
        pipeline.source_ended();
        arrive(&processor, &window, "in-3", stamped_inside);
        tokio::time::advance(Duration::from_millis(1)).await;
        arrive(&processor, &window, "after", Instant::now());
        processor.shutdown().await;
        let measured = pipeline.finish(None).await;

        let listener = &measured.snapshot.listeners[0].metrics;
        let queue = &measured.snapshot.queues[0].metrics;
        assert_eq!(measured.events, 3);
        assert_eq!(
            (
                listener.handled,
                listener.handler_time.summary().count,
                listener.delivery_lag.summary().count,
                queue.adds_total + queue.deduplicated_total,
            ),
            (3, 3, 3, 3)
        );
        // Every event was still handled and worked on.
        assert_eq!(queue.work_duration.summary().count, 7);
    }
}
