//! A controller's metrics over bench's measured window: a scrape when the window opens, one
//! every `every` while it is open and one when it closes. What the controller did in the window
//! is the growth of its counters and histograms from the first good scrape to the last (when a
//! leader moved within the window, each replica's growth over its own scrapes, added); its
//! queues' depths and its informers' queued items and lag are sampled at every scrape. A scrape
//! that fails or does not answer in time is a gap: counted, and the figures span it.

use super::controller::{Controller, InformerKey};
use super::interval::{growth, informer_idle, queue_idle, Percentiles};
use super::lag::{Lag, ServerSide};
use super::target::{no_answer, patience, ScrapeError, Scraper};
use crate::metrics::ArrivalWindow;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::time::Instant;

/// How often bench scrapes while its window is open.
pub const SCRAPE_EVERY: Duration = Duration::from_secs(1);

/// How long an unanswered scrape is kept waiting before it is given up for a new one: long
/// enough for a controller stopped for a while to answer it when it resumes, short enough that a
/// connection that hangs for good does not end the scraping.
const KEEP_WAITING: Duration = Duration::from_secs(30);

/// A controller's metrics endpoint, scraped every [`SCRAPE_EVERY`], and our own watches of the
/// resources whose informers' lag is measured.
pub struct ControllerSource {
    pub scraper: Scraper,
    pub server_side: ServerSide,
}

impl ControllerSource {
    /// Scrapes the controller from `window`'s opening to its close (returns after the scrape at
    /// the close); `None` when it closed without opening. One scrape at a time, one due every
    /// [`SCRAPE_EVERY`]: a scrape still unanswered when the next is due makes that one a gap (told
    /// through `notice`), and is kept waiting (up to `KEEP_WAITING`) rather than given up, so
    /// that a controller that was stopped is read the moment it answers again, when its
    /// informers are furthest behind.
    pub async fn over(
        &self,
        window: &ArrivalWindow,
        notice: &(dyn Fn(String) + Sync),
    ) -> Option<Scrapes> {
        if !window.opened().await {
            return None;
        }
        let mut scrapes = Scrapes::new(self.scraper.target(), Instant::now());
        // How long the scrape at the close may take.
        let patience = patience(SCRAPE_EVERY);
        let closed = window.closed();
        tokio::pin!(closed);
        let mut pending = None;
        // The replica scraped moved (a new leader) and the next good scrape starts its growth;
        // the last scrape failed (the replica may be gone).
        let (mut rebase, mut lost) = (false, false);
        let mut due = Instant::now();
        let mut asked = due;
        // Once the window has closed: until when its last scrape may answer.
        let mut end: Option<Instant> = None;
        loop {
            tokio::select! {
                _ = tokio::time::sleep_until(due), if end.is_none() => {
                    let now = Instant::now();
                    due = now + SCRAPE_EVERY;
                    if pending.is_some() {
                        self.gap(&mut scrapes, notice, &no_answer(SCRAPE_EVERY));
                        if now.duration_since(asked) < KEEP_WAITING {
                            continue;
                        }
                    }
                    pending = Some(Box::pin(self.follow_and_scrape(std::mem::take(&mut lost), notice)));
                    asked = now;
                }
                answer = async { pending.as_mut().expect("polled only when pending").await },
                    if pending.is_some() =>
                {
                    pending = None;
                    let (moved, answer) = answer;
                    rebase |= moved;
                    match answer {
                        Ok(controller) => {
                            let side = Some(&self.server_side);
                            scrapes.take(Instant::now(), controller, side, std::mem::take(&mut rebase));
                        }
                        Err(e) => {
                            lost = true;
                            self.gap(&mut scrapes, notice, &e.to_string());
                        }
                    }
                    if end.is_some() {
                        break;
                    }
                }
                _ = &mut closed, if end.is_none() => {
                    end = Some(Instant::now() + patience);
                    if pending.is_none() {
                        pending = Some(Box::pin(self.follow_and_scrape(std::mem::take(&mut lost), notice)));
                    }
                    asked = Instant::now();
                }
                _ = tokio::time::sleep_until(end.unwrap_or(due)), if end.is_some() => {
                    self.gap(&mut scrapes, notice, &no_answer(patience));
                    break;
                }
            }
        }
        Some(scrapes)
    }

    /// A scrape, after following the leader to another replica if it moved (said through
    /// `notice`; then `true`: the scrape starts the new replica's growth).
    async fn follow_and_scrape(
        &self,
        after_failure: bool,
        notice: &(dyn Fn(String) + Sync),
    ) -> (bool, Result<Controller, ScrapeError>) {
        let target = self.scraper.target();
        let moved = match self.scraper.follow(after_failure).await {
            Ok(Some(moved)) => {
                notice(format!(
                    "{target}: pod/{} no longer leads or runs: scraping pod/{} from now on; the \
                     window's controller figures add each replica's growth over its own scrapes",
                    moved.from, moved.to.pod
                ));
                true
            }
            Ok(None) => false,
            // The replica scraped is still the one to try; its scrape says what is wrong.
            Err(e) => {
                notice(format!("{target}: cannot tell which replica leads: {e}"));
                false
            }
        };
        (moved, self.scraper.scrape().await)
    }

    /// A scrape that failed, or was due while the last one had no answer yet.
    fn gap(&self, scrapes: &mut Scrapes, notice: &(dyn Fn(String) + Sync), why: &str) {
        scrapes.gaps += 1;
        scrapes.scrapes += 1;
        notice(self.scraper.gap_line(None, scrapes.gaps, why));
    }
}

/// What one scrape sampled.
#[derive(Debug, Clone)]
struct Point {
    /// Since the window opened.
    seconds: f64,
    depths: BTreeMap<String, f64>,
    informers: BTreeMap<InformerKey, (f64, Option<Lag>)>,
}

/// The scrapes of one window.
#[derive(Debug, Clone)]
pub struct Scrapes {
    target: String,
    opened: Instant,
    /// The first and the last good scrape of the replica scraped now.
    first: Option<(Instant, Controller)>,
    last: Option<(Instant, Controller)>,
    /// When a leader moved within the window: what the replicas scraped before grew over
    /// their own scrapes, together, and when the first of them was first scraped.
    before: Option<(Instant, Controller)>,
    points: Vec<Point>,
    scrapes: u64,
    gaps: u64,
}

impl Scrapes {
    fn new(target: &str, opened: Instant) -> Scrapes {
        Scrapes {
            target: target.to_string(),
            opened,
            first: None,
            last: None,
            before: None,
            points: Vec::new(),
            scrapes: 0,
            gaps: 0,
        }
    }

    /// A good scrape taken `at`; each informer's lag from the store resourceVersion it reports.
    /// `rebase`: of another replica than the last (its counters are its own).
    fn take(
        &mut self,
        at: Instant,
        controller: Controller,
        side: Option<&ServerSide>,
        rebase: bool,
    ) {
        self.scrapes += 1;
        if let (true, Some((first_at, first)), Some((_, last))) = (rebase, &self.first, &self.last)
        {
            let grown = last.since(first);
            self.before = Some(match self.before.take() {
                Some((since, before)) => (since, before.plus(&grown)),
                None => (*first_at, grown),
            });
            self.first = None;
        }
        let informers = controller
            .informers
            .iter()
            .map(|(key, i)| {
                let lag = side
                    .zip(i.store_resource_version)
                    .and_then(|(side, store)| side.lag(key, store, at));
                (key.clone(), (i.queued_items, lag))
            })
            .collect();
        self.points.push(Point {
            seconds: at.saturating_duration_since(self.opened).as_secs_f64(),
            depths: controller
                .queues
                .iter()
                .map(|(name, q)| (name.clone(), q.depth))
                .collect(),
            informers,
        });
        if self.first.is_none() {
            self.first = Some((at, controller.clone()));
        }
        self.last = Some((at, controller));
    }

    /// The window's figures.
    pub fn figures(&self) -> ControllerFigures {
        let empty = Controller::default();
        let (mut first_at, mut first) = self
            .first
            .as_ref()
            .map_or((self.opened, &empty), |(at, c)| (*at, c));
        let (last_at, mut last) = self
            .last
            .as_ref()
            .map_or((self.opened, &empty), |(at, c)| (*at, c));
        // After a move: the replicas' growths added, from nothing.
        let together;
        if let Some((since, before)) = &self.before {
            together = before.plus(&last.since(first));
            (first_at, first, last) = (*since, &empty, &together);
        }
        ControllerFigures {
            target: self.target.clone(),
            scrapes: self.scrapes,
            gaps: self.gaps,
            seconds: last_at.saturating_duration_since(first_at).as_secs_f64(),
            queues: self.queue_figures(first, last),
            informers: self.informer_figures(first, last),
            throttling: last
                .throttling
                .as_ref()
                .map(|h| Percentiles::of(&h.since(&first.throttling.clone().unwrap_or_default()))),
            reconcilers: last
                .reconcilers
                .iter()
                .map(|(controller, r)| {
                    let before = first.reconcilers.get(controller).cloned();
                    let before = before.unwrap_or_default();
                    let total = |r: &super::controller::Reconciler| r.results.values().sum();
                    ReconcilerFigures {
                        controller: controller.clone(),
                        reconciles: growth(total(&before), total(r)),
                        errors: growth(before.errors_total, r.errors_total),
                        time: Percentiles::of(&r.time.since(&before.time)),
                        active_workers: r.active_workers,
                    }
                })
                .collect(),
            timeline: self.timeline(),
        }
    }

    fn queue_figures(&self, first: &Controller, last: &Controller) -> Vec<QueueFigures> {
        last.queues
            .iter()
            .map(|(name, q)| {
                let before = first.queues.get(name).cloned().unwrap_or_default();
                QueueFigures {
                    name: name.clone(),
                    depth: Sampled::of(self.points.iter().map(|p| p.depths.get(name).copied())),
                    adds: growth(before.adds_total, q.adds_total),
                    retries: growth(before.retries_total, q.retries_total),
                    queue_duration: Percentiles::of(
                        &q.queue_duration.since(&before.queue_duration),
                    ),
                    work_duration: Percentiles::of(&q.work_duration.since(&before.work_duration)),
                    unfinished_work_seconds: q.unfinished_work_seconds,
                    longest_running_processor_seconds: q.longest_running_processor_seconds,
                }
            })
            .collect()
    }

    fn informer_figures(&self, first: &Controller, last: &Controller) -> Vec<InformerFigures> {
        last.informers
            .iter()
            .map(|(key, i)| {
                let before = first.informers.get(key).cloned().unwrap_or_default();
                let sampled = || self.points.iter().map(|p| p.informers.get(key));
                let lags: Vec<Lag> = sampled().flatten().filter_map(|(_, lag)| *lag).collect();
                InformerFigures {
                    name: key.name.clone(),
                    group: key.group.clone(),
                    version: key.version.clone(),
                    resource: key.resource.clone(),
                    queued_items: Sampled::of(sampled().map(|s| s.map(|(queued, _)| *queued))),
                    processing_latency: Percentiles::of(
                        &i.processing_latency.since(&before.processing_latency),
                    ),
                    lag: lags.last().map(|last| LagFigures {
                        max_resource_versions: lags
                            .iter()
                            .map(|l| l.resource_versions)
                            .max()
                            .unwrap_or(0),
                        max_seconds: lags.iter().map(|l| l.seconds).fold(0.0, f64::max),
                        last: *last,
                        samples: lags.len() as u64,
                    }),
                }
            })
            .collect()
    }

    /// Each queue's depth at every scrape, for the queues that held anything.
    fn timeline(&self) -> ControllerTimeline {
        let mut depth: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for (i, point) in self.points.iter().enumerate() {
            for (name, d) in &point.depths {
                if *d > 0.0 || depth.contains_key(name) {
                    let column = depth.entry(name.clone()).or_insert_with(|| vec![0.0; i]);
                    column.resize(i, 0.0);
                    column.push(*d);
                }
            }
        }
        for column in depth.values_mut() {
            column.resize(self.points.len(), 0.0);
        }
        ControllerTimeline {
            seconds: self
                .points
                .iter()
                .map(|p| (p.seconds * 1000.0).round() / 1000.0)
                .collect(),
            depth,
        }
    }
}

/// A figure sampled at every good scrape: its largest value, its mean and its value at the last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampled {
    pub max: f64,
    pub mean: f64,
    pub last: f64,
}

impl Sampled {
    /// Over the scrapes; one that lacked the figure counts as 0.
    fn of(values: impl Iterator<Item = Option<f64>>) -> Sampled {
        let (mut n, mut sum, mut out) = (0u32, 0.0, Sampled::default());
        for v in values {
            let v = v.unwrap_or(0.0);
            n += 1;
            sum += v;
            out.max = out.max.max(v);
            out.last = v;
        }
        if n > 0 {
            out.mean = sum / f64::from(n);
        }
        out
    }
}

/// One workqueue over the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueFigures {
    pub name: String,
    pub depth: Sampled,
    /// `workqueue_adds_total` and `workqueue_retries_total`'s growth in the window.
    pub adds: f64,
    pub retries: f64,
    /// Where the percentiles of the window's observations lie, bounded by the bucket edges.
    pub queue_duration: Percentiles,
    pub work_duration: Percentiles,
    /// At the last scrape.
    pub unfinished_work_seconds: f64,
    pub longest_running_processor_seconds: f64,
}

/// How far an informer's store was behind our watch of its resource, at the window's scrapes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LagFigures {
    pub max_resource_versions: u64,
    pub max_seconds: f64,
    /// At the last scrape.
    pub last: Lag,
    /// Scrapes it was measured at.
    pub samples: u64,
}

/// One informer over the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InformerFigures {
    pub name: String,
    pub group: String,
    pub version: String,
    /// client-go's label: lower-case kind plus `s` (`endpointss`).
    pub resource: String,
    pub queued_items: Sampled,
    pub processing_latency: Percentiles,
    /// Null when its resource was not followed.
    pub lag: Option<LagFigures>,
}

impl QueueFigures {
    pub fn is_idle(&self) -> bool {
        queue_idle(self.depth.max, self.adds, self.unfinished_work_seconds)
    }
}

impl InformerFigures {
    pub fn is_idle(&self) -> bool {
        informer_idle(
            self.queued_items.max,
            self.processing_latency.count,
            self.lag.map(|l| l.max_resource_versions),
        )
    }
}

/// One controller-runtime reconciler over the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconcilerFigures {
    pub controller: String,
    pub reconciles: f64,
    pub errors: f64,
    pub time: Percentiles,
    pub active_workers: Option<f64>,
}

/// The queues' depths at every good scrape (what the exports' charts draw).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControllerTimeline {
    /// Seconds since the window opened, to the millisecond.
    pub seconds: Vec<f64>,
    /// Per queue that held anything in the window, its depth at each of those times; written
    /// as a list of `{name, depth}` (a queue's name is data, not a key).
    #[serde(serialize_with = "named_columns")]
    pub depth: BTreeMap<String, Vec<f64>>,
}

/// `{"a": [1]}` as `[{"name": "a", "depth": [1]}]`.
fn named_columns<S: serde::Serializer>(
    columns: &BTreeMap<String, Vec<f64>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Column<'a> {
        name: &'a str,
        depth: &'a [f64],
    }
    serializer.collect_seq(columns.iter().map(|(name, depth)| Column { name, depth }))
}

/// What a controller's metrics said over the window: the report's `controller` section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControllerFigures {
    pub target: String,
    /// Scrapes made, and those that failed or did not answer in time.
    pub scrapes: u64,
    pub gaps: u64,
    /// From the first good scrape to the last: the span the counts and percentiles cover.
    pub seconds: f64,
    pub queues: Vec<QueueFigures>,
    pub informers: Vec<InformerFigures>,
    /// Waits for the client's rate limiter; null when the process serves none.
    pub throttling: Option<Percentiles>,
    pub reconcilers: Vec<ReconcilerFigures>,
    pub timeline: ControllerTimeline,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scrape::text::parse;

    fn controller(depth: u32, adds: u32, bucket_1s: u32) -> Controller {
        let text = format!(
            "workqueue_depth{{name=\"deployment\"}} {depth}\n\
             workqueue_adds_total{{name=\"deployment\"}} {adds}\n\
             workqueue_queue_duration_seconds_bucket{{name=\"deployment\",le=\"0.1\"}} 10\n\
             workqueue_queue_duration_seconds_bucket{{name=\"deployment\",le=\"1\"}} {}\n\
             workqueue_queue_duration_seconds_bucket{{name=\"deployment\",le=\"+Inf\"}} {}\n\
             workqueue_queue_duration_seconds_sum{{name=\"deployment\"}} {}\n\
             workqueue_queue_duration_seconds_count{{name=\"deployment\"}} {}\n\
             workqueue_depth{{name=\"idle\"}} 0\n",
            10 + bucket_1s,
            10 + bucket_1s,
            0.5 * f64::from(bucket_1s),
            10 + bucket_1s,
        );
        Controller::read(&parse(&text).unwrap()).unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn after_the_leader_moved_the_figures_add_each_replicas_growth_over_its_own_scrapes() {
        let opened = Instant::now();
        let mut s = Scrapes::new("deploy/op", opened);
        // The first leader: 100 adds before the window, 30 in it, 20 of them waited up to 1 s.
        s.take(Instant::now(), controller(2, 100, 0), None, false);
        tokio::time::advance(Duration::from_secs(1)).await;
        s.take(Instant::now(), controller(4, 130, 20), None, false);
        // The new leader's counters are its own: 7 adds before its first scrape, not the window's.
        tokio::time::advance(Duration::from_secs(1)).await;
        s.take(Instant::now(), controller(1, 7, 0), None, true);
        tokio::time::advance(Duration::from_secs(1)).await;
        s.take(Instant::now(), controller(3, 12, 5), None, false);
        let f = s.figures();
        assert_eq!((f.scrapes, f.seconds), (4, 3.0));
        let q = &f.queues[0];
        // 30 + 5 adds; 20 + 5 observations in (100 ms, 1 s], none of the 10 + 10 before.
        assert_eq!((q.name.as_str(), q.adds), ("deployment", 35.0));
        assert_eq!(q.queue_duration.count, 25.0);
        let p50 = q.queue_duration.p50.unwrap();
        assert_eq!((p50.above, p50.at_most), (0.1, Some(1.0)));
        // Depths are sampled at every scrape, whichever replica answered it; the last is the
        // new leader's.
        assert_eq!(q.depth.max, 4.0);
        assert_eq!(q.depth.last, 3.0);
    }

    #[tokio::test(start_paused = true)]
    async fn the_figures_are_what_grew_between_the_first_good_scrape_and_the_last() {
        let opened = Instant::now();
        let mut s = Scrapes::new("pod/kcm", opened);
        // Before the window: 10 observations under 100 ms, counted already.
        s.take(Instant::now(), controller(2, 100, 0), None, false);
        tokio::time::advance(Duration::from_secs(1)).await;
        s.gaps += 1;
        s.scrapes += 1;
        tokio::time::advance(Duration::from_secs(1)).await;
        s.take(Instant::now(), controller(8, 130, 20), None, false);
        tokio::time::advance(Duration::from_secs(1)).await;
        s.take(Instant::now(), controller(5, 150, 40), None, false);
        let f = s.figures();
        assert_eq!((f.scrapes, f.gaps, f.seconds), (4, 1, 3.0));
        let q = &f.queues[0];
        assert_eq!((q.name.as_str(), q.adds), ("deployment", 50.0));
        assert_eq!(
            q.depth,
            Sampled {
                max: 8.0,
                mean: 5.0,
                last: 5.0
            }
        );
        // The window's 40 observations all fell in (100 ms, 1 s]: the earlier ten are not its.
        let p99 = q.queue_duration.p99.unwrap();
        assert_eq!((p99.above, p99.at_most), (0.1, Some(1.0)));
        assert_eq!(q.queue_duration.count, 40.0);
        assert_eq!(q.queue_duration.mean, Some(0.5));
        // The timeline: each good scrape's time, the queues that held anything.
        assert_eq!(f.timeline.seconds, vec![0.0, 2.0, 3.0]);
        assert_eq!(
            f.timeline.depth.keys().collect::<Vec<_>>(),
            vec!["deployment"]
        );
        let json = serde_json::to_value(&f.timeline).unwrap();
        assert_eq!(
            json["depth"],
            serde_json::json!([{"name": "deployment", "depth": [2.0, 8.0, 5.0]}])
        );
        assert_eq!(f.queues[1].name, "idle");
    }

    #[test]
    fn without_a_good_scrape_there_are_no_figures_but_the_gaps() {
        let mut s = Scrapes::new("pod/kcm", Instant::now());
        s.gaps = 2;
        s.scrapes = 2;
        let f = s.figures();
        assert_eq!((f.scrapes, f.gaps, f.seconds), (2, 2, 0.0));
        assert!(f.queues.is_empty() && f.informers.is_empty() && f.throttling.is_none());
    }

    #[test]
    fn a_queue_that_appears_in_the_window_is_zero_before_it_did() {
        let mut s = Scrapes::new("pod/kcm", Instant::now());
        s.take(Instant::now(), controller(0, 1, 0), None, false);
        let later = Controller::read(
            &parse("workqueue_depth{name=\"deployment\"} 0\nworkqueue_depth{name=\"new\"} 4\n")
                .unwrap(),
        )
        .unwrap();
        s.take(Instant::now(), later, None, false);
        let f = s.figures();
        let new = f.queues.iter().find(|q| q.name == "new").unwrap();
        assert_eq!(new.depth.max, 4.0);
        assert_eq!(new.depth.mean, 2.0, "absent at the first scrape: 0");
        assert_eq!(f.timeline.depth["new"], vec![0.0, 4.0]);
    }
}
