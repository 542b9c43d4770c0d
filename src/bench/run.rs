//! One bench run: the measuring loop shared by both sources (warm-up, sampling, progress ticks,
//! the window), and the offline run that replays a recording through the informer loop.

use super::pipeline::{BenchPipeline, ControllerShape, Measured};
use super::replay::{Replay, Speed};
use crate::informer::core::{spawn_core, InformerCore};
use crate::informer::fifo::Fifo;
use crate::informer::processor::Processor;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::time::Instant;

/// How often backlog and depth are sampled (and the progress bar redrawn).
pub const SAMPLE_EVERY: Duration = Duration::from_millis(100);

/// What shapes a run, whatever the source.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub shape: ControllerShape,
    pub warmup: Duration,
}

/// A progress report, every `SAMPLE_EVERY`.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// Since the run (warm-up included) began.
    pub elapsed: Duration,
    pub warming_up: bool,
    pub events: u64,
    pub events_per_second: f64,
    /// The largest backlog of any listener, and the queue's depth.
    pub backlog: usize,
    pub depth: usize,
}

/// The measured window (its events are the pipeline's: `Measured::events`).
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub seconds: f64,
    /// CPU time the whole bench process used in the window (Linux).
    pub cpu_seconds: Option<f64>,
}

/// Why a run has no figures.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the source ended after {}, before the warm-up of {} was over", crate::format::wait(*.ended_after), crate::format::wait(*.warmup))]
    EndedInWarmup {
        ended_after: Duration,
        warmup: Duration,
    },
    /// Ctrl-C or SIGTERM came during the warm-up: no window was measured, nothing to report.
    #[error("stopped during the warm-up: no window was measured")]
    StoppedInWarmup,
}

/// Runs `source` to its end while sampling the pipeline; the window opens when `warmup` is over
/// (the figures measured until then are forgotten) and closes when the source ends. `events`
/// counts the source's events for the progress ticks (the window's own count is stamped in the
/// pipeline's window). Returns the window (an error when the source ended during the warm-up)
/// and, always, the source's output: its own error explains more than a window that never
/// opened.
pub async fn measure<F: Future>(
    pipeline: &mut BenchPipeline,
    events: &(dyn Fn() -> u64 + Sync),
    warmup: Duration,
    source: F,
    on_tick: &mut (dyn FnMut(&Tick) + Send),
) -> (Result<Window, RunError>, F::Output) {
    let started = Instant::now();
    let cpu = crate::metrics::process_cpu_seconds;
    if warmup.is_zero() {
        pipeline.reset();
    }
    let mut window_start = (warmup.is_zero()).then_some((started, cpu()));
    let mut ticker = tokio::time::interval_at(started + SAMPLE_EVERY, SAMPLE_EVERY);
    // A late tick is not made up for with a burst of samples, which would skew the means.
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last = (started, events());
    tokio::pin!(source);
    let output = loop {
        tokio::select! {
            output = &mut source => break output,
            _ = tokio::time::sleep_until(started + warmup), if window_start.is_none() => {
                pipeline.reset();
                window_start = Some((Instant::now(), cpu()));
            }
            _ = ticker.tick() => {
                if window_start.is_some() {
                    pipeline.sample();
                }
                let now = Instant::now();
                let count = events();
                let rate = (count - last.1) as f64
                    / now.saturating_duration_since(last.0).as_secs_f64().max(1e-9);
                last = (now, count);
                let (backlog, depth) = pipeline.current();
                on_tick(&Tick {
                    elapsed: now - started,
                    warming_up: window_start.is_none(),
                    events: count,
                    events_per_second: rate,
                    backlog,
                    depth,
                });
            }
        }
    };
    let ended = Instant::now();
    let Some((start, cpu_at_start)) = window_start else {
        // Those waiting for it to open learn that it never will.
        pipeline.window().close();
        return (
            Err(RunError::EndedInWarmup {
                ended_after: ended - started,
                warmup,
            }),
            output,
        );
    };
    pipeline.source_ended();
    (
        Ok(Window {
            seconds: (ended - start).as_secs_f64(),
            cpu_seconds: cpu_at_start
                .zip(cpu())
                .map(|(before, after)| after - before),
        }),
        output,
    )
}

/// What a finished run hands back: the figures, the window and how long draining took.
pub struct Finished {
    pub measured: Measured,
    pub window: Window,
    pub drain: Duration,
    /// Whether Ctrl-C or SIGTERM cut the window short.
    pub cut: bool,
}

/// Ctrl-C while the window is open cuts the window instead of ending the run, so that what was
/// measured up to then is reported: the window opens a cut (`open`), the command's stop handler
/// hands it the stop (`forward`, false when no window is open: the run ends as before).
#[derive(Clone, Default)]
pub struct WindowCut(Arc<Mutex<Option<tokio::sync::oneshot::Sender<()>>>>);

impl WindowCut {
    /// The window opens: a stop from now on cuts it.
    pub(super) fn open(&self) -> tokio::sync::oneshot::Receiver<()> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        *self.slot() = Some(tx);
        rx
    }

    /// The window closed: a stop ends the run again.
    pub(super) fn close(&self) {
        self.slot().take();
    }

    /// Hands a stop to the open window, which ends there; false when none is open.
    pub fn forward(&self) -> bool {
        self.slot().take().is_some_and(|cut| cut.send(()).is_ok())
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<tokio::sync::oneshot::Sender<()>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Replays `replay` at `speed` through the informer loop into the simulated controller.
pub async fn run_replay(
    replay: Replay,
    speed: Speed,
    (options, cut): (&RunOptions, &WindowCut),
    on_tick: &mut (dyn FnMut(&Tick) + Send),
) -> Result<Finished, RunError> {
    let mut processor = Processor::new();
    let mut pipeline = BenchPipeline::start(&options.shape, &mut processor);
    let fifo = Arc::new(Fifo::new());
    let (state, _) = tokio::sync::watch::channel(Default::default());
    let core = spawn_core(
        fifo.clone(),
        InformerCore::new(processor),
        options.shape.resync,
        Arc::new(state),
    );
    let played = Arc::new(AtomicU64::new(0));
    let counter = played.clone();
    let events = move || counter.load(Ordering::Relaxed);
    // The source ends when the informer loop has taken the last event, not when it was queued:
    // at --speed max the window is then the loop's own time.
    let source = {
        let fifo = fifo.clone();
        let window = pipeline.window();
        let cut_off = cut.open();
        async move {
            let play = async {
                replay.play(fifo.clone(), speed, played, window).await;
                fifo.until_below(1).await;
            };
            tokio::select! {
                () = play => false,
                Ok(()) = cut_off => true,
            }
        }
    };
    let (result, was_cut) = measure(&mut pipeline, &events, options.warmup, source, on_tick).await;
    cut.close();
    // The FIFO is closed (the replay ended) or closes now (it did not): the informer loop
    // applies what is queued, then every listener drains its backlog.
    fifo.close();
    let drain_start = Instant::now();
    if let Ok(core) = core.await {
        core.processor.shutdown().await;
    }
    let measured = pipeline.finish(None).await;
    let window = match result {
        Err(_) if was_cut => return Err(RunError::StoppedInWarmup),
        result => result?,
    };
    Ok(Finished {
        measured,
        window,
        drain: drain_start.elapsed(),
        cut: was_cut,
    })
}
