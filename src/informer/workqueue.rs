//! The Workqueue with client-go's semantics and metrics: `dirty` and `processing` sets (an item
//! added while dirty is deduplicated; one added while processing is queued again on `done`),
//! delayed adds, per-item exponential backoff with an overall token bucket (client-go's default
//! controller rate limiter), and a shutdown that can drain.

use crate::metrics::{Gauge, Latency};
use serde::Serialize;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, Notify};
use tokio::time::Instant;

/// client-go's `DefaultControllerRateLimiter`: per-item 5 ms doubling to 1000 s, and 10 qps
/// with a burst of 100 overall; the longer delay of the two wins.
#[derive(Debug)]
pub struct RateLimiter {
    base: Duration,
    max: Duration,
    failures: HashMap<String, u32>,
    qps: f64,
    burst: f64,
    tokens: f64,
    last: Option<Instant>,
}

impl Default for RateLimiter {
    fn default() -> Self {
        RateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
            10.0,
            100,
        )
    }
}

impl RateLimiter {
    pub fn new(base: Duration, max: Duration, qps: f64, burst: u32) -> Self {
        RateLimiter {
            base,
            max,
            failures: HashMap::new(),
            qps,
            burst: f64::from(burst),
            tokens: f64::from(burst),
            last: None,
        }
    }

    /// How long `item` waits before its next try (and one more failure counted).
    pub fn when(&mut self, item: &str, now: Instant) -> Duration {
        let failures = self.failures.entry(item.to_string()).or_insert(0);
        let exp = self
            .base
            .checked_mul(1u32.checked_shl(*failures).unwrap_or(u32::MAX))
            .unwrap_or(self.max)
            .min(self.max);
        *failures = failures.saturating_add(1);
        exp.max(self.reserve(now))
    }

    /// A token-bucket reservation: the delay until a token is available (tokens may go
    /// negative, as with Go's `rate.Limiter.Reserve`).
    fn reserve(&mut self, now: Instant) -> Duration {
        if let Some(last) = self.last {
            let refill = now.saturating_duration_since(last).as_secs_f64() * self.qps;
            self.tokens = (self.tokens + refill).min(self.burst);
        }
        self.last = Some(now);
        self.tokens -= 1.0;
        if self.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-self.tokens / self.qps)
        }
    }

    pub fn num_requeues(&self, item: &str) -> u32 {
        self.failures.get(item).copied().unwrap_or(0)
    }

    pub fn forget(&mut self, item: &str) {
        self.failures.remove(item);
    }
}

/// The workqueue metrics, with client-go's names and meanings.
#[derive(Debug, Clone, Default)]
pub struct QueueMetrics {
    /// `workqueue_adds_total`: adds that were not deduplicated.
    pub adds_total: u64,
    /// Adds of an item that was already waiting (deduplicated, not counted in `adds_total`).
    pub deduplicated_total: u64,
    /// `workqueue_retries_total`: delayed adds (`add_after`, and so `add_rate_limited`), as
    /// client-go counts them.
    pub retries_total: u64,
    /// `workqueue_queue_duration_seconds`: first add → get.
    pub queue_duration: Latency,
    /// `workqueue_work_duration_seconds`: get → done.
    pub work_duration: Latency,
    /// `workqueue_depth`, sampled.
    pub depth: Gauge,
}

/// Current values of the gauges client-go computes on scrape.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct QueueGauges {
    /// `workqueue_depth`.
    pub depth: usize,
    /// `workqueue_unfinished_work_seconds`: the sum of how long each item in processing has run.
    pub unfinished_work_seconds: f64,
    /// `workqueue_longest_running_processor_seconds`.
    pub longest_running_processor_seconds: f64,
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<String>,
    dirty: HashSet<String>,
    processing: HashSet<String>,
    add_times: HashMap<String, Instant>,
    start_times: HashMap<String, Instant>,
    shutting_down: bool,
    /// A `shut_down_with_drain` is waiting for the items being processed; `shut_down` ends it.
    draining: bool,
    /// When each item waiting for a delay is due: one entry per item, the earliest (client-go's
    /// delaying queue `insert`).
    due: HashMap<String, Instant>,
    metrics: QueueMetrics,
    limiter: RateLimiter,
}

struct Inner {
    state: Mutex<State>,
    /// Wakes getters (an item arrived or shutdown) and drainers (processing emptied).
    changed: Notify,
    delayed: mpsc::UnboundedSender<(Instant, String)>,
}

/// A cloneable handle to one workqueue.
#[derive(Clone)]
pub struct Workqueue {
    inner: Arc<Inner>,
}

impl Default for Workqueue {
    fn default() -> Self {
        Workqueue::new(RateLimiter::default())
    }
}

impl Workqueue {
    /// A queue with `limiter` for `add_rate_limited`; spawns the task that releases delayed adds.
    pub fn new(limiter: RateLimiter) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let inner = Arc::new(Inner {
            state: Mutex::new(State {
                limiter,
                ..State::default()
            }),
            changed: Notify::new(),
            delayed: tx,
        });
        tokio::spawn(release_delayed(Arc::downgrade(&inner), rx));
        Workqueue { inner }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `item` unless it is already waiting; an item being processed is queued again when
    /// its `done` comes.
    pub fn add(&self, item: &str) {
        self.add_counted(item, true);
    }

    /// `add`, left out of `adds_total` and `deduplicated_total` unless `counted`: an add whose
    /// cause a measured window leaves out (it arrived before the window opened or after it
    /// closed) still queues the work.
    pub fn add_counted(&self, item: &str, counted: bool) {
        add_locked(&mut self.state(), item, counted);
        self.inner.changed.notify_waiters();
        self.inner.changed.notify_one();
    }

    /// Adds `item` after `delay` (at once when zero). An item already waiting for a delay
    /// keeps the earlier of the two times and is added once, as in client-go's delaying queue.
    /// A delay too long to represent never fires.
    pub fn add_after(&self, item: &str, delay: Duration) {
        {
            let mut s = self.state();
            if s.shutting_down {
                return;
            }
            s.metrics.retries_total += 1;
        }
        if delay.is_zero() {
            self.add(item);
        } else if let Some(at) = Instant::now().checked_add(delay) {
            let mut s = self.state();
            if s.due.get(item).is_none_or(|earlier| at < *earlier) {
                s.due.insert(item.to_string(), at);
                let _ = self.inner.delayed.send((at, item.to_string()));
            }
        }
    }

    /// Items waiting for a delay (`add_after`, retries) to pass.
    pub fn delayed(&self) -> usize {
        self.state().due.len()
    }

    /// Adds `item` after the rate limiter's delay for it (a retry).
    pub fn add_rate_limited(&self, item: &str) {
        let delay = {
            let mut s = self.state();
            if s.shutting_down {
                return;
            }
            s.limiter.when(item, Instant::now())
        };
        self.add_after(item, delay);
    }

    /// Stops tracking `item`'s failures (after it was processed successfully).
    pub fn forget(&self, item: &str) {
        self.state().limiter.forget(item);
    }

    pub fn num_requeues(&self, item: &str) -> u32 {
        self.state().limiter.num_requeues(item)
    }

    /// The next item to process; waits while the queue is empty; `None` once shut down (and,
    /// for a draining shutdown, emptied).
    pub async fn get(&self) -> Option<String> {
        loop {
            let notified = self.inner.changed.notified();
            {
                let mut s = self.state();
                if let Some(item) = s.queue.pop_front() {
                    let now = Instant::now();
                    if let Some(added) = s.add_times.remove(&item) {
                        s.metrics
                            .queue_duration
                            .record(now.saturating_duration_since(added));
                    }
                    s.start_times.insert(item.clone(), now);
                    s.processing.insert(item.clone());
                    s.dirty.remove(&item);
                    return Some(item);
                }
                if s.shutting_down {
                    return None;
                }
            }
            notified.await;
        }
    }

    /// Marks `item` processed; if it was added meanwhile, it is queued again.
    pub fn done(&self, item: &str) {
        {
            let mut s = self.state();
            if let Some(start) = s.start_times.remove(item) {
                s.metrics.work_duration.record(start.elapsed());
            }
            s.processing.remove(item);
            if s.dirty.contains(item) {
                s.queue.push_back(item.to_string());
            }
        }
        self.inner.changed.notify_waiters();
        self.inner.changed.notify_one();
    }

    /// Stops accepting items; `get` returns `None` once the queue is empty. Ends the wait of a
    /// `shut_down_with_drain`, as client-go's `ShutDown` does.
    pub fn shut_down(&self) {
        {
            let mut s = self.state();
            s.shutting_down = true;
            s.draining = false;
        }
        self.inner.changed.notify_waiters();
    }

    /// Like `shut_down`, then waits until every item handed out is `done` (client-go's
    /// `ShutDownWithDrain`: items still queued do not hold it; workers that go on calling `get`
    /// take them, and those are waited for in turn).
    pub async fn shut_down_with_drain(&self) {
        {
            let mut s = self.state();
            s.shutting_down = true;
            s.draining = true;
        }
        self.inner.changed.notify_waiters();
        loop {
            let notified = self.inner.changed.notified();
            {
                let s = self.state();
                if s.processing.is_empty() || !s.draining {
                    return;
                }
            }
            notified.await;
        }
    }

    pub fn is_shutting_down(&self) -> bool {
        self.state().shutting_down
    }

    /// Items waiting to be handed out by `get`.
    pub fn len(&self) -> usize {
        self.state().queue.len()
    }

    /// `workqueue_depth` as client-go counts it: items added and not yet taken by `get`,
    /// including those added again while being processed (queued when their `done` comes).
    pub fn depth(&self) -> usize {
        self.state().dirty.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records the current depth in the depth gauge.
    pub fn sample(&self) -> u64 {
        let mut s = self.state();
        let depth = s.dirty.len() as u64;
        s.metrics.depth.sample(depth);
        depth
    }

    pub fn metrics(&self) -> QueueMetrics {
        self.state().metrics.clone()
    }

    /// Forgets what was measured so far (the end of a warm-up); items already waiting keep
    /// their add times, so their queue duration is still measured from their first add.
    pub fn reset_metrics(&self) {
        self.state().metrics = QueueMetrics::default();
    }

    pub fn gauges(&self) -> QueueGauges {
        let s = self.state();
        let now = Instant::now();
        let running: Vec<f64> = s
            .start_times
            .values()
            .map(|t| now.saturating_duration_since(*t).as_secs_f64())
            .collect();
        QueueGauges {
            depth: s.dirty.len(),
            unfinished_work_seconds: running.iter().sum(),
            longest_running_processor_seconds: running.iter().copied().fold(0.0, f64::max),
        }
    }
}

fn add_locked(s: &mut State, item: &str, counted: bool) {
    if s.shutting_down {
        return;
    }
    if s.dirty.contains(item) {
        s.metrics.deduplicated_total += u64::from(counted);
        return;
    }
    s.metrics.adds_total += u64::from(counted);
    s.add_times
        .entry(item.to_string())
        .or_insert_with(Instant::now);
    s.dirty.insert(item.to_string());
    if !s.processing.contains(item) {
        s.queue.push_back(item.to_string());
    }
}

/// Releases delayed adds when they are due; ends when the queue is dropped.
async fn release_delayed(
    inner: std::sync::Weak<Inner>,
    mut rx: mpsc::UnboundedReceiver<(Instant, String)>,
) {
    let mut waiting: BinaryHeap<std::cmp::Reverse<(Instant, String)>> = BinaryHeap::new();
    loop {
        let next_due = waiting.peek().map(|std::cmp::Reverse((t, _))| *t);
        tokio::select! {
            received = rx.recv() => match received {
                Some(entry) => waiting.push(std::cmp::Reverse(entry)),
                None => return,
            },
            _ = async {
                match next_due {
                    Some(t) => tokio::time::sleep_until(t).await,
                    None => std::future::pending().await,
                }
            } => {
                let Some(inner) = inner.upgrade() else { return };
                let now = Instant::now();
                let mut released = false;
                {
                    let mut s = inner.state.lock().unwrap_or_else(|e| e.into_inner());
                    while let Some(std::cmp::Reverse((t, _))) = waiting.peek() {
                        if *t > now {
                            break;
                        }
                        let std::cmp::Reverse((at, item)) = waiting.pop().expect("peeked");
                        // An entry replaced by an earlier one for the same item is stale.
                        if s.due.get(&item) != Some(&at) {
                            continue;
                        }
                        s.due.remove(&item);
                        add_locked(&mut s, &item, true);
                        released = true;
                    }
                }
                if released {
                    inner.changed.notify_waiters();
                    inner.changed.notify_one();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn items_come_out_in_order_and_a_waiting_item_is_deduplicated() {
        let q = Workqueue::default();
        for item in ["a", "b", "a", "c", "b"] {
            q.add(item);
        }
        assert_eq!(q.len(), 3);
        let m = q.metrics();
        assert_eq!((m.adds_total, m.deduplicated_total), (3, 2));
        let mut out = Vec::new();
        for _ in 0..3 {
            let item = q.get().await.unwrap();
            q.done(&item);
            out.push(item);
        }
        assert_eq!(out, vec!["a", "b", "c"]);
    }

    #[tokio::test]
    async fn an_uncounted_add_queues_the_work_and_is_left_out_of_the_counts() {
        let q = Workqueue::default();
        q.add_counted("a", false);
        q.add_counted("a", false);
        q.add("b");
        q.add_counted("b", false);
        assert_eq!(q.len(), 2);
        let m = q.metrics();
        assert_eq!((m.adds_total, m.deduplicated_total), (1, 0));
        assert_eq!(q.get().await.as_deref(), Some("a"));
    }

    #[tokio::test]
    async fn an_item_added_while_processing_is_queued_again_on_done_not_before() {
        let q = Workqueue::default();
        q.add("a");
        let item = q.get().await.unwrap();
        q.add("a");
        assert_eq!(
            q.len(),
            0,
            "not handed to a second worker while the first holds it"
        );
        q.add("a");
        assert_eq!(q.metrics().deduplicated_total, 1);
        q.done(&item);
        assert_eq!(q.len(), 1);
        assert_eq!(q.get().await.as_deref(), Some("a"));
    }

    #[tokio::test]
    async fn shutdown_ends_get_and_a_draining_shutdown_waits_for_done() {
        let q = Workqueue::default();
        q.add("a");
        let item = q.get().await.unwrap();
        let drained = {
            let q = q.clone();
            tokio::spawn(async move { q.shut_down_with_drain().await })
        };
        tokio::task::yield_now().await;
        assert!(!drained.is_finished(), "waits for the item in processing");
        q.add("ignored after shutdown");
        q.done(&item);
        drained.await.unwrap();
        assert_eq!(q.get().await, None);
        assert!(q.is_shutting_down());
    }

    #[tokio::test(start_paused = true)]
    async fn queue_duration_counts_from_the_first_add_and_work_duration_until_done() {
        let q = Workqueue::default();
        q.add("a");
        tokio::time::advance(Duration::from_millis(300)).await;
        q.add("a");
        tokio::time::advance(Duration::from_millis(200)).await;
        let item = q.get().await.unwrap();
        tokio::time::advance(Duration::from_millis(50)).await;
        let g = q.gauges();
        assert!((g.unfinished_work_seconds - 0.05).abs() < 0.001, "{g:?}");
        assert!(
            (g.longest_running_processor_seconds - 0.05).abs() < 0.001,
            "{g:?}"
        );
        q.done(&item);
        let m = q.metrics();
        assert!((m.queue_duration.summary().max - 0.5).abs() < 0.001);
        assert!((m.work_duration.summary().max - 0.05).abs() < 0.001);
    }

    #[tokio::test(start_paused = true)]
    async fn add_after_releases_the_item_when_due() {
        let q = Workqueue::default();
        q.add_after("later", Duration::from_secs(2));
        q.add_after("sooner", Duration::from_secs(1));
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(q.len(), 1);
        assert_eq!(q.get().await.as_deref(), Some("sooner"));
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(q.get().await.as_deref(), Some("later"));
    }

    #[tokio::test(start_paused = true)]
    async fn rate_limited_retries_back_off_per_item_until_forgotten() {
        let mut limiter = RateLimiter::default();
        let now = Instant::now();
        let delays: Vec<u128> = (0..4).map(|_| limiter.when("a", now).as_millis()).collect();
        assert_eq!(delays, vec![5, 10, 20, 40]);
        assert_eq!(limiter.when("b", now).as_millis(), 5, "per item");
        assert_eq!(limiter.num_requeues("a"), 4);
        limiter.forget("a");
        assert_eq!(limiter.when("a", now).as_millis(), 5);
        let mut capped = RateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
            1e9,
            1_000_000,
        );
        for _ in 0..40 {
            capped.when("x", now);
        }
        assert_eq!(capped.when("x", now), Duration::from_secs(1000));
    }

    #[tokio::test(start_paused = true)]
    async fn the_overall_bucket_allows_a_burst_of_100_then_10_per_second() {
        let mut limiter = RateLimiter::default();
        let now = Instant::now();
        for i in 0..100 {
            assert_eq!(limiter.when(&format!("i{i}"), now).as_millis(), 5);
        }
        assert_eq!(limiter.when("i100", now).as_millis(), 100);
        assert_eq!(limiter.when("i101", now).as_millis(), 200);
    }

    #[tokio::test(start_paused = true)]
    async fn an_item_delayed_twice_is_added_once_at_the_earlier_time() {
        for (first, second) in [(1, 10), (10, 1)] {
            let q = Workqueue::default();
            q.add_after("a", Duration::from_secs(first));
            q.add_after("a", Duration::from_secs(second));
            assert_eq!(q.delayed(), 1);
            tokio::time::sleep(Duration::from_millis(1500)).await;
            assert_eq!(q.delayed(), 0);
            assert_eq!(q.get().await.as_deref(), Some("a"), "at 1 s");
            q.done("a");
            tokio::time::sleep(Duration::from_secs(10)).await;
            assert_eq!(q.len(), 0, "the later delay of a does not fire again");
            assert_eq!(q.metrics().adds_total, 1);
            assert_eq!(
                q.metrics().retries_total,
                2,
                "client-go counts every AddAfter"
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_delay_too_long_to_represent_never_fires_and_does_not_panic() {
        let q = Workqueue::default();
        q.add_after("x", Duration::MAX);
        tokio::time::sleep(Duration::from_secs(3600)).await;
        assert_eq!(q.len(), 0);
    }

    #[tokio::test]
    async fn a_draining_shutdown_does_not_wait_for_items_nobody_took_and_shut_down_ends_it() {
        let q = Workqueue::default();
        q.add("queued");
        tokio::time::timeout(Duration::from_secs(5), q.shut_down_with_drain())
            .await
            .expect("nothing in processing: returns at once");
        let q = Workqueue::default();
        q.add("a");
        let _taken = q.get().await.unwrap();
        let drained = {
            let q = q.clone();
            tokio::spawn(async move { q.shut_down_with_drain().await })
        };
        tokio::task::yield_now().await;
        assert!(!drained.is_finished());
        q.shut_down();
        tokio::time::timeout(Duration::from_secs(5), drained)
            .await
            .expect("shut_down ends the drain")
            .unwrap();
    }

    #[tokio::test]
    async fn depth_counts_an_item_added_again_while_it_is_processed() {
        let q = Workqueue::default();
        q.add("a");
        let item = q.get().await.unwrap();
        assert_eq!(q.depth(), 0);
        q.add("a");
        assert_eq!((q.depth(), q.len(), q.gauges().depth), (1, 0, 1));
        q.done(&item);
        assert_eq!((q.depth(), q.len()), (1, 1));
    }

    #[tokio::test(start_paused = true)]
    async fn add_rate_limited_counts_retries_and_delays_the_item() {
        let q = Workqueue::default();
        q.add_rate_limited("a");
        assert_eq!(q.metrics().retries_total, 1);
        assert_eq!(q.len(), 0);
        tokio::time::sleep(Duration::from_millis(6)).await;
        assert_eq!(q.get().await.as_deref(), Some("a"));
    }
}
