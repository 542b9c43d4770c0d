//! The live source: an informer on a real cluster, fed by the load generator in a scratch
//! namespace that bench creates and always deletes, or by a namespace's own traffic
//! (`--no-churn`). Watch latency comes from matching each write's resourceVersion with the
//! watch event that carried it.

use super::error::BenchError;
use super::load::{Generated, LoadPlan, LoadStats, LoadThread, MatchBy, SentWrite, Workload};
use super::pipeline::{BenchPipeline, Measured};
use super::react::Collected;
use super::run::{measure, Finished, RunError, RunOptions, Tick, Window, WindowCut};
use super::snapshot::WatchTransitions;
use crate::cluster::ApiResource;
use crate::informer::listwatch::{ListWatch, DEFAULT_CHUNK_SIZE};
use crate::informer::object::{Encoding, RawObject};
use crate::informer::reflector::{ReflectorConfig, Start};
use crate::informer::shared::{ReflectorCounters, RunningInformer, SharedInformer};
use crate::informer::store::Store;
use crate::informer::transition::{EventType, ReflectorEvent};
use crate::metrics::Latency;
use crate::react::{match_reactions, Matched, Reaction};
use crate::scrape::window::{ControllerFigures, ControllerSource, Scrapes};
use crate::signal::Signal;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// How long bench waits for the events of writes it made before it calls them missing.
const EVENT_GRACE: Duration = Duration::from_secs(30);

/// The load to make.
#[derive(Debug, Clone)]
pub struct Churn {
    pub objects: usize,
    pub rate: f64,
    pub workload: Workload,
    /// In an existing namespace: the run that names and labels the objects (the informer's
    /// label selector selects them), told when the load begins to write.
    pub run: Option<super::scratch::Labelled>,
}

/// `--react`: what counts as the controller's reaction to a write, the owned resource to
/// watch for `owned:`, and how long a reaction may take.
#[derive(Debug, Clone)]
pub struct Reacting {
    pub reaction: Reaction,
    pub owned: Option<ApiResource>,
    pub timeout: Duration,
}

/// What a live run observes beyond its own pipeline: a real controller's reactions to the
/// writes (`--react`) and that controller's own metrics (`--metrics-from`).
#[derive(Default)]
pub struct Outside {
    pub reacting: Option<Reacting>,
    pub controller: Option<ControllerSource>,
}

/// What the live run measured beyond the pipeline.
pub struct LiveFinished {
    pub finished: Finished,
    pub generator: Option<LoadStats>,
    pub writes: Option<u64>,
    pub writes_without_event: Option<u64>,
    /// The watch's re-opens and relists since the initial sync.
    pub reconnects: u64,
    pub relists: u64,
    /// With `--react`: the writes of the window matched with the controller's reactions.
    pub reactions: Option<Matched>,
    /// The encoding the cached objects arrived in at the end of the window (the server's
    /// answer to what was asked: protobuf is asked for and custom resources come in JSON);
    /// `None` when the cache was empty.
    pub encoding: Option<Encoding>,
    /// With `--metrics-from`: what the controller's metrics said over the window.
    pub controller: Option<ControllerFigures>,
}

/// The informers of a live run, synced: the first step of [`run_live`], which the caller
/// bounds (a server that never answers the first LIST or WATCH ends the run at its limit).
pub struct Synced {
    lw: ListWatch,
    informers: Informers,
    at_sync: AtSync,
}

/// Starts the informer on `lw` with the simulated controller (and `reacting`'s owned
/// resource's), and returns once each has synced.
pub async fn sync(
    lw: ListWatch,
    reacting: Option<&Reacting>,
    options: &RunOptions,
) -> Result<Synced, BenchError> {
    let informers = Informers::start(&lw, reacting, options).await?;
    // Re-opens and relists are counted from the initial sync, as the report says: those during
    // the set-up are the run's too.
    let at_sync = AtSync::read(&informers.running);
    Ok(Synced {
        lw,
        informers,
        at_sync,
    })
}

/// Runs the `synced` informers with the simulated controller; with `churn`, the generator
/// makes the load in their namespace, else the namespace's own traffic is measured for
/// `duration`.
pub async fn run_live(
    synced: Synced,
    churn: Option<Churn>,
    outside: Outside,
    (duration, cut): (Duration, &WindowCut),
    options: &RunOptions,
    on_tick: &mut (dyn FnMut(&Tick) + Send),
    notice: &(dyn Fn(String) + Sync),
) -> Result<LiveFinished, BenchError> {
    let Outside {
        reacting,
        controller,
    } = outside;
    let Synced {
        lw,
        mut informers,
        at_sync,
    } = synced;
    let mut load = set_up(
        &lw,
        churn.as_ref(),
        reacting.as_ref(),
        &informers,
        options,
        notice,
    )
    .await?;

    let window_start_wall = SystemTime::now() + options.warmup;
    let cut_off = cut.open();
    let ((window, source_result), scrapes, was_cut) = informers
        .measure(
            load.as_mut(),
            options,
            (duration, cut_off),
            controller.as_ref(),
            on_tick,
            notice,
        )
        .await;
    cut.close();
    // The source's own failure first, then the watch's, then a window that never opened.
    let generated = source_result?;
    if informers.running.reflector_finished() {
        return Err(informers.watch_ended().await);
    }
    let window = match window {
        Err(_) if was_cut => return Err(RunError::StoppedInWarmup.into()),
        window => window?,
    };

    // The events of the last writes are still on their way: wait for them (bounded).
    let writes = sent_since(generated.as_ref(), window_start_wall);
    let _ = tokio::time::timeout(EVENT_GRACE, informers.receipts.until_arrived(&writes)).await;
    // The reactions to the last writes may take up to --reaction-timeout.
    let reactions = match (&reacting, &informers.signals) {
        (Some(r), Some(signals)) => Some(
            settle_reactions(
                r,
                signals,
                &informers.receipts,
                generated.as_ref(),
                window_start_wall,
            )
            .await,
        ),
        _ => None,
    };
    let writes_seen = match (&reactions, &generated) {
        (Some(m), None) => Some(m.reactions.len() as u64 + m.superseded + m.without_reaction),
        _ => None,
    };
    let measured_writes = generated.as_ref().map(|_| writes.as_slice());
    let stopped = informers
        .stop(measured_writes, reactions.as_ref(), &at_sync)
        .await?;
    Ok(LiveFinished {
        finished: Finished {
            measured: stopped.measured,
            window,
            drain: stopped.drain,
            cut: was_cut,
        },
        generator: generated.map(|g| g.stats),
        writes: churn.map(|_| writes.len() as u64).or(writes_seen),
        writes_without_event: stopped.writes_without_event,
        reconnects: stopped.transitions.reconnects,
        relists: stopped.transitions.relists,
        reactions,
        encoding: stopped.encoding,
        controller: scrapes.map(|s| s.figures()),
    })
}

/// The informer on the measured resource with the simulated controller it feeds, the owned
/// resource's informer (`--react owned:`), the arrivals of events and (with `--react`) the
/// controller's signals: what the set-up waits on and the window measures.
struct Informers {
    running: RunningInformer,
    owned: Option<RunningInformer>,
    pipeline: BenchPipeline,
    receipts: Arc<Receipts>,
    signals: Option<Arc<Mutex<Collected>>>,
}

/// What the informers leave when stopped.
struct Stopped {
    measured: Measured,
    /// How long stopping the informer and draining the controller took.
    drain: Duration,
    encoding: Option<Encoding>,
    writes_without_event: Option<u64>,
    transitions: WatchTransitions,
}

impl Informers {
    /// Starts the informer with the simulated controller on `lw` (and, with `--react owned:`,
    /// one on the owned resource); returns once each has synced.
    async fn start(
        lw: &ListWatch,
        reacting: Option<&Reacting>,
        options: &RunOptions,
    ) -> Result<Informers, BenchError> {
        let mut informer = SharedInformer::new(
            lw.clone(),
            ReflectorConfig::informer(Start::WatchList, DEFAULT_CHUNK_SIZE),
        );
        let pipeline = BenchPipeline::start(&options.shape, informer.processor_mut());
        informer.count_arrivals(pipeline.window());
        let mut running = informer.run();
        let signals = reacting.map(|r| Arc::new(Mutex::new(Collected::new(r.reaction.clone()))));
        let receipts = collect_receipts(&running, signals.clone());
        running.synced().await?;
        // For `owned:`, the owned resource in the same namespace: its objects' changes are the
        // reactions.
        let owned = match reacting.and_then(|r| r.owned.clone()) {
            Some(resource) => {
                Some(start_owned(lw, resource, signals.clone(), receipts.clone()).await?)
            }
            None => None,
        };
        Ok(Informers {
            running,
            owned,
            pipeline,
            receipts,
            signals,
        })
    }

    /// Measures the window: the generator's load (without one, `warmup` + `duration` of the
    /// namespace's own traffic) through the informer into the controller, cut short when the
    /// watch ends, while `controller`'s metrics are scraped over the same window. The window,
    /// what the generator did, and the scrapes (`None` without `controller`, or when the window
    /// never opened).
    async fn measure(
        &mut self,
        load: Option<&mut LoadThread>,
        options: &RunOptions,
        (duration, cut_off): (Duration, tokio::sync::oneshot::Receiver<()>),
        controller: Option<&ControllerSource>,
        on_tick: &mut (dyn FnMut(&Tick) + Send),
        notice: &(dyn Fn(String) + Sync),
    ) -> (
        (
            Result<Window, RunError>,
            Result<Option<Generated>, BenchError>,
        ),
        Option<Scrapes>,
        bool,
    ) {
        let window = self.pipeline.window();
        let scrapes = async {
            match controller {
                Some(c) => c.over(&window, notice).await,
                None => None,
            }
        };
        let counters = self.running.counters();
        let events = move || ReflectorCounters::get(&counters.events);
        let total = options.warmup + duration;
        let running = &self.running;
        let was_cut = AtomicBool::new(false);
        let source = async {
            let mut cut_off = cut_off;
            let cut = |how: &str| {
                was_cut.store(true, Ordering::Relaxed);
                notice(format!(
                    "stopped: the window ends now ({how}), figures follow"
                ));
            };
            let work = async {
                match load {
                    Some(load) => {
                        let cutter = load.cutter();
                        let run = load.run(options.warmup, duration);
                        tokio::pin!(run);
                        tokio::select! {
                            r = &mut run => r.map(Some),
                            Ok(()) = &mut cut_off => {
                                cut("the load's writes in flight are answered first");
                                cutter.store(true, Ordering::Relaxed);
                                run.await.map(Some)
                            }
                        }
                    }
                    None => {
                        // Said once the run has begun (the window is open unless there is a
                        // warm-up): what comes after this line is measured.
                        let cached = running.read(Store::len);
                        notice(format!(
                            "the informer holds {}; measuring the traffic others make (bench \
                             writes nothing) for {} from now",
                            crate::format::count(cached as u64, "object"),
                            crate::format::wait(total)
                        ));
                        tokio::select! {
                            () = tokio::time::sleep(total) => {}
                            Ok(()) = &mut cut_off => cut("measuring no more traffic"),
                        }
                        Ok(None)
                    }
                }
            };
            tokio::select! {
                r = work => r,
                _ = running.finished() => Ok(None),
            }
        };
        let measured = measure(&mut self.pipeline, &events, options.warmup, source, on_tick);
        let (measured, scrapes) = tokio::join!(measured, scrapes);
        (measured, scrapes, was_cut.load(Ordering::Relaxed))
    }

    /// Why the watch ended during the window: its error, or `WatchEnded` when it ended
    /// without one.
    async fn watch_ended(self) -> BenchError {
        self.running
            .stop()
            .await
            .err()
            .map(BenchError::from)
            .unwrap_or(BenchError::WatchEnded)
    }

    /// Stops the informers (the owned resource's first) and drains the controller into the
    /// figures, with the watch latency of `writes` (`None`: bench made no load) and the
    /// latency of `reactions`.
    async fn stop(
        self,
        writes: Option<&[SentWrite]>,
        reactions: Option<&Matched>,
        at_sync: &AtSync,
    ) -> Result<Stopped, BenchError> {
        if let Some(owned) = self.owned {
            owned.stop().await?;
        }
        let encoding = self
            .running
            .read(|store| store.iter().next().map(RawObject::encoding));
        let drain_start = Instant::now();
        self.running.stop().await?;
        let watch_latency = writes.map(|writes| self.receipts.latency(writes));
        let writes_without_event = writes.map(|writes| self.receipts.missing(writes) as u64);
        let mut measured = self.pipeline.finish(watch_latency).await;
        measured.snapshot.reaction_latency =
            reactions.map(|m| latency_of(m.reactions.iter().copied()));
        let transitions = at_sync.since();
        measured.snapshot.watch_transitions = Some(transitions);
        Ok(Stopped {
            measured,
            drain: drain_start.elapsed(),
            encoding,
            writes_without_event,
            transitions,
        })
    }
}

/// The watch's re-opens and relists at the informer's initial sync: the run's are counted from
/// there.
struct AtSync {
    counters: Arc<ReflectorCounters>,
    closed: u64,
    relists: u64,
}

impl AtSync {
    /// The counts now, and the counters to read them from again.
    fn read(running: &RunningInformer) -> AtSync {
        let counters = running.counters();
        AtSync {
            closed: ReflectorCounters::get(&counters.watches_closed),
            relists: ReflectorCounters::get(&counters.relists),
            counters,
        }
    }

    /// The watch's re-opens and relists since.
    fn since(&self) -> WatchTransitions {
        WatchTransitions {
            reconnects: ReflectorCounters::get(&self.counters.watches_closed) - self.closed,
            relists: ReflectorCounters::get(&self.counters.relists) - self.relists,
        }
    }
}

/// For `--react owned:`, an informer on `resource` in `lw`'s namespace feeding `signals`;
/// returns once it has synced.
async fn start_owned(
    lw: &ListWatch,
    resource: ApiResource,
    signals: Option<Arc<Mutex<Collected>>>,
    receipts: Arc<Receipts>,
) -> Result<RunningInformer, BenchError> {
    // Owned objects carry their controller's labels, not the run's.
    let owned_lw = ListWatch {
        resource,
        label_selector: None,
        ..lw.clone()
    };
    let informer = SharedInformer::new(
        owned_lw,
        ReflectorConfig::informer(Start::WatchList, DEFAULT_CHUNK_SIZE),
    );
    let mut running = informer.run();
    collect_owned(&running, signals, receipts);
    running.synced().await?;
    Ok(running)
}

/// The writes the generator sent once the window was open, whose events the figures count.
fn sent_since(generated: Option<&Generated>, window_start: SystemTime) -> Vec<SentWrite> {
    generated
        .map(|g| {
            g.writes
                .iter()
                .filter(|w| w.sent >= window_start)
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// A latency histogram of `durations`.
fn latency_of(durations: impl IntoIterator<Item = Duration>) -> Latency {
    let mut latency = Latency::default();
    for took in durations {
        latency.record(took);
    }
    latency
}

/// Before the clock starts. With `churn`, the generator creates the objects, and their events
/// (and, with `--react`, the controller's reactions to them) are awaited: the load generator is
/// returned ready to churn. Without, the initial LIST's notifications drain first (the run says
/// what it measures once it has begun: `Informers::measure`).
async fn set_up(
    lw: &ListWatch,
    churn: Option<&Churn>,
    reacting: Option<&Reacting>,
    w: &Informers,
    options: &RunOptions,
    notice: &(dyn Fn(String) + Sync),
) -> Result<Option<LoadThread>, BenchError> {
    let namespace = lw.namespace.clone().unwrap_or_default();
    Ok(match churn {
        Some(c) => {
            let started = Instant::now();
            if let Some(labelled) = &c.run {
                labelled.begin_writing(notice);
            }
            let mut load = LoadThread::start(
                lw.cluster.clone(),
                LoadPlan {
                    resource: lw.resource.clone(),
                    workload: c.workload.clone(),
                    namespace: namespace.clone(),
                    objects: c.objects,
                    rate: c.rate,
                    seed: options.shape.seed,
                    run: c.run.as_ref().map(|l| l.run.clone()),
                },
            )
            .map_err(BenchError::LoadThread)?;
            let populated = load.populated().await?;
            wait_for_quiet(w, &populated.writes, notice).await;
            // A condition's reaction is a change of status, which a create need not make.
            if let (
                Some(
                    r @ Reacting {
                        reaction: Reaction::ObservedGeneration | Reaction::Owned(_),
                        ..
                    },
                ),
                Some(signals),
            ) = (reacting, w.signals.as_deref())
            {
                wait_for_reactions(r, signals, &w.receipts, &populated.reacted_to, notice).await;
            }
            notice(format!(
                "created {} in {}; the clock starts now",
                crate::format::count(populated.writes.len() as u64, "object"),
                crate::format::human(started.elapsed())
            ));
            Some(load)
        }
        None => {
            // The initial LIST's notifications are set-up, not traffic: let them drain first.
            wait_for_quiet(w, &[], notice).await;
            None
        }
    })
}

/// The controller's reactions to the writes of the window (bench's, or with `--no-churn` the
/// generations others' writes made), once each has one or `reacting.timeout` has passed.
async fn settle_reactions(
    reacting: &Reacting,
    signals: &Mutex<Collected>,
    receipts: &Receipts,
    generated: Option<&Generated>,
    window_start: SystemTime,
) -> Matched {
    let all = match generated {
        Some(g) => g.reacted_to.clone(),
        None => lock(signals).seen_writes.clone(),
    };
    let reacted_to: Vec<_> = all.into_iter().filter(|w| w.sent >= window_start).collect();
    let matched = || {
        let signals = lock(signals);
        match_reactions(
            &reacted_to,
            &signals.signals,
            reacting.timeout,
            SystemTime::now(),
        )
    };
    let settled = receipts.arrived.until(|| matched().waiting == 0);
    let _ = tokio::time::timeout(reacting.timeout, settled).await;
    matched()
}

/// When the watch delivered what, as the reflector stamped it on arrival.
#[derive(Default)]
struct Seen {
    /// First arrival of each resourceVersion.
    by_resource_version: HashMap<String, SystemTime>,
    /// Arrivals of DELETED events per key, in order.
    deletions: HashMap<String, Vec<SystemTime>>,
}

impl Seen {
    /// When the event of `write` arrived.
    fn arrival(&self, write: &SentWrite) -> Option<SystemTime> {
        match &write.matched_by {
            MatchBy::ResourceVersion(rv) => self.by_resource_version.get(rv).copied(),
            MatchBy::Deletion(key, nth) => self.deletions.get(key)?.get(*nth).copied(),
        }
    }
}

/// What the watch delivered, raised at every arrival.
#[derive(Default)]
struct Receipts {
    seen: Mutex<Seen>,
    arrived: Signal,
}

impl Receipts {
    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Writes whose event has not arrived.
    fn missing(&self, writes: &[SentWrite]) -> usize {
        let seen = self.seen();
        writes.iter().filter(|w| seen.arrival(w).is_none()).count()
    }

    /// The watch latency of `writes`: from each one's send to its event's arrival.
    fn latency(&self, writes: &[SentWrite]) -> Latency {
        let seen = self.seen();
        latency_of(writes.iter().filter_map(|w| {
            let received = seen.arrival(w)?;
            Some(received.duration_since(w.sent).unwrap_or_default())
        }))
    }

    /// Returns once the event of every write in `writes` has arrived.
    async fn until_arrived(&self, writes: &[SentWrite]) {
        self.arrived.until(|| self.missing(writes) == 0).await
    }
}

/// Collects what the watch delivered into receipts (and, with `--react`, the signals its
/// objects show).
fn collect_receipts(
    running: &RunningInformer,
    signals: Option<Arc<Mutex<Collected>>>,
) -> Arc<Receipts> {
    let receipts = Arc::new(Receipts::default());
    let mut events = running.observe();
    let sink = receipts.clone();
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if let (Some(signals), Some((value, at))) = (&signals, upserted(&event)) {
                lock(signals).written(&value, at);
            }
            if let ReflectorEvent::Watched {
                event_type,
                object,
                received_at,
            } = event
            {
                let mut seen = sink.seen();
                if event_type == EventType::Deleted {
                    seen.deletions
                        .entry(object.key())
                        .or_default()
                        .push(received_at);
                }
                seen.by_resource_version
                    .entry(object.resource_version().to_string())
                    .or_insert(received_at);
                drop(seen);
                sink.arrived.raise();
            }
        }
    });
    receipts
}

/// Feeds the owned resource's objects to `signals` (`--react owned:`), raising `receipts`'
/// arrival signal with each.
fn collect_owned(
    running: &RunningInformer,
    signals: Option<Arc<Mutex<Collected>>>,
    receipts: Arc<Receipts>,
) {
    let mut events = running.observe();
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            if let (Some(signals), Some((value, at))) = (&signals, upserted(&event)) {
                lock(signals).owned(&value, at);
                receipts.arrived.raise();
            }
        }
    });
}

/// Waits (up to the reaction timeout) until the controller has reacted to the creates of the
/// initial objects, so that its catching up with them does not count against the first writes;
/// says so when it has not.
async fn wait_for_reactions(
    reacting: &Reacting,
    signals: &Mutex<Collected>,
    receipts: &Receipts,
    creates: &[crate::react::Write],
    notice: &(dyn Fn(String) + Sync),
) {
    let unanswered = || {
        let m = match_reactions(
            creates,
            &lock(signals).signals,
            reacting.timeout,
            SystemTime::now(),
        );
        m.without_reaction
    };
    let started = Instant::now();
    let _ = tokio::time::timeout(
        reacting.timeout,
        receipts.arrived.until(|| unanswered() == 0),
    )
    .await;
    match unanswered() {
        0 => notice(format!(
            "the controller reacted to the {} created within {}",
            crate::format::count(creates.len() as u64, "object"),
            crate::format::human(started.elapsed())
        )),
        n => notice(format!(
            "the controller did not react to {n} of the {} created within {} \
             (--reaction-timeout); measuring anyway",
            crate::format::count(creates.len() as u64, "object"),
            crate::format::duration(reacting.timeout)
        )),
    }
}

/// The object an ADDED, MODIFIED or listed event carries, parsed, and its arrival.
fn upserted(event: &ReflectorEvent) -> Option<(serde_json::Value, SystemTime)> {
    match event {
        ReflectorEvent::Watched {
            event_type: EventType::Added | EventType::Modified,
            object,
            received_at,
        }
        | ReflectorEvent::Listed {
            object,
            received_at,
            ..
        } => Some((serde_json::from_str(object.json()?).ok()?, *received_at)),
        _ => None,
    }
}

fn lock(signals: &Mutex<Collected>) -> std::sync::MutexGuard<'_, Collected> {
    signals.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits (up to `EVENT_GRACE`) until the informer has seen `writes` and the controller is idle,
/// so that the set-up's load does not spill into the figures; says so when it is not.
async fn wait_for_quiet(w: &Informers, writes: &[SentWrite], notice: &(dyn Fn(String) + Sync)) {
    let quiet = async {
        loop {
            w.receipts.until_arrived(writes).await;
            w.running.caught_up().await;
            w.pipeline.until_idle().await;
            // Each held when it was reached; all three at once is the quiet asked for.
            if w.receipts.missing(writes) == 0 && w.running.queued() == 0 && w.pipeline.idle() {
                return;
            }
        }
    };
    tokio::select! {
        _ = tokio::time::timeout(EVENT_GRACE, quiet) => {}
        _ = w.running.finished() => {}
    }
    let (backlog, depth) = w.pipeline.current();
    if !w.pipeline.idle() {
        notice(format!(
            "the set-up's notifications were not all handled after {}s (backlog {backlog}, \
             depth {depth}); they count in the figures: use --warmup to leave them out",
            EVENT_GRACE.as_secs()
        ));
    }
}

/// Whether bench can make load for `resource` without a template (ConfigMaps only: any other
/// resource needs `--template` or `--no-churn`).
pub fn can_churn(resource: &ApiResource) -> bool {
    resource.group.is_empty() && resource.plural == "configmaps"
}
