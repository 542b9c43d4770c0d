//! What a controller did between two scrapes: per queue its depth, adds and retries per second,
//! and where the 50th and 99th percentiles of its queue and work durations lie (bounded by the
//! histograms' bucket edges, from the buckets' growth in the interval); per informer its queued
//! items and processing latency; the client's throttling; controller-runtime's reconciles.

use super::controller::{Bound, Controller, Histogram, Informer, InformerKey, Queue, Reconciler};
use serde::Serialize;

/// Percentiles of the observations in an interval, each as the bucket it falls in.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Percentiles {
    pub count: f64,
    /// Exact, from the histogram's sum and count (seconds); null without observations.
    pub mean: Option<f64>,
    pub p50: Option<BoundFigure>,
    pub p90: Option<BoundFigure>,
    pub p99: Option<BoundFigure>,
}

/// A percentile lies in `(above, atMost]` seconds; `atMost` is null past the last finite edge.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundFigure {
    pub above: f64,
    pub at_most: Option<f64>,
}

impl From<Bound> for BoundFigure {
    fn from(b: Bound) -> Self {
        BoundFigure {
            above: b.above,
            at_most: b.at_most,
        }
    }
}

impl Percentiles {
    /// The figures of the observations `h` holds.
    pub fn of(h: &Histogram) -> Percentiles {
        let count = h.buckets.last().map_or(h.count, |(_, c)| *c);
        Percentiles {
            count,
            mean: (h.count > 0.0).then(|| h.sum / h.count),
            p50: h.quantile(0.50).map(BoundFigure::from),
            p90: h.quantile(0.90).map(BoundFigure::from),
            p99: h.quantile(0.99).map(BoundFigure::from),
        }
    }
}

/// One workqueue in an interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueInterval {
    pub name: String,
    /// At the interval's end.
    pub depth: f64,
    pub adds_per_second: f64,
    pub retries_per_second: f64,
    pub queue_duration: Percentiles,
    pub work_duration: Percentiles,
    pub unfinished_work_seconds: f64,
    pub longest_running_processor_seconds: f64,
    /// A run's summary only: the largest depth at any scrape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_depth: Option<f64>,
}

/// One informer in an interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InformerInterval {
    pub name: String,
    pub group: String,
    pub version: String,
    /// client-go's label: lower-case kind plus `s` (`endpointss`).
    pub resource: String,
    /// The resource's plural as the server's discovery names it (`endpoints`), what text
    /// shows; null when discovery found no resource of that kind.
    pub plural: Option<String>,
    pub queued_items: f64,
    pub processing_latency: Percentiles,
    pub store_resource_version: Option<f64>,
    /// How far its store is behind our own watch of the resource (`top --lag`); null when not
    /// measured.
    pub lag: Option<super::lag::Lag>,
}

/// One controller-runtime reconciler in an interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconcilerInterval {
    pub controller: String,
    pub reconciles_per_second: f64,
    pub errors_per_second: f64,
    pub time: Percentiles,
    pub active_workers: Option<f64>,
}

/// Everything between two scrapes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Interval {
    pub seconds: f64,
    pub queues: Vec<QueueInterval>,
    pub informers: Vec<InformerInterval>,
    /// Waits for the client's rate limiter (null when the process serves none).
    pub throttling: Option<Percentiles>,
    pub reconcilers: Vec<ReconcilerInterval>,
}

/// Whether a queue was idle: it held nothing, took nothing in and had no work in flight. One
/// rule for an interval (`top`) and a window (`bench --metrics-from`), which differ only in how
/// they measure the three (at the interval's end or the largest at any scrape; a rate or a
/// count).
pub fn queue_idle(held: f64, added: f64, unfinished_work_seconds: f64) -> bool {
    held == 0.0 && added == 0.0 && unfinished_work_seconds == 0.0
}

/// Whether an informer was idle: its FIFO held nothing, it processed nothing, and its store was
/// never behind our own watch (`None`: not measured).
pub fn informer_idle(held: f64, processed: f64, behind: Option<u64>) -> bool {
    held == 0.0 && processed == 0.0 && behind.is_none_or(|rvs| rvs == 0)
}

/// How much a counter grew from `before` to `now`; a counter that went down (the process
/// restarted) grew by what it holds now.
pub fn growth(before: f64, now: f64) -> f64 {
    if now < before {
        now
    } else {
        now - before
    }
}

impl Interval {
    /// What happened from `earlier` to `later`, `seconds` apart. A queue, an informer or a
    /// reconciler that appeared in between counts from zero.
    pub fn between(earlier: &Controller, later: &Controller, seconds: f64) -> Interval {
        let rate = Rate(seconds);
        let queues = later
            .queues
            .iter()
            .map(|(name, q)| {
                let before = earlier.queues.get(name).cloned().unwrap_or_default();
                QueueInterval::between(name, &before, q, rate)
            })
            .collect();
        let informers = later
            .informers
            .iter()
            .map(|(key, i)| {
                let before = earlier.informers.get(key).cloned().unwrap_or_default();
                InformerInterval::between(key, &before, i)
            })
            .collect();
        let throttling = later.throttling.as_ref().map(|h| {
            let before = earlier.throttling.clone().unwrap_or_default();
            Percentiles::of(&h.since(&before))
        });
        let reconcilers = later
            .reconcilers
            .iter()
            .map(|(controller, r)| {
                let before = earlier
                    .reconcilers
                    .get(controller)
                    .cloned()
                    .unwrap_or_default();
                ReconcilerInterval::between(controller, &before, r, rate)
            })
            .collect();
        Interval {
            seconds,
            queues,
            informers,
            throttling,
            reconcilers,
        }
    }
}

/// A counter's growth per second over an interval of this many seconds.
#[derive(Clone, Copy)]
struct Rate(f64);

impl Rate {
    fn of(self, before: f64, now: f64) -> f64 {
        if self.0 > 0.0 {
            growth(before, now) / self.0
        } else {
            0.0
        }
    }
}

impl QueueInterval {
    pub fn is_idle(&self) -> bool {
        queue_idle(
            self.depth,
            self.adds_per_second,
            self.unfinished_work_seconds,
        )
    }

    fn between(name: &str, before: &Queue, q: &Queue, rate: Rate) -> QueueInterval {
        QueueInterval {
            name: name.to_string(),
            depth: q.depth,
            adds_per_second: rate.of(before.adds_total, q.adds_total),
            retries_per_second: rate.of(before.retries_total, q.retries_total),
            queue_duration: Percentiles::of(&q.queue_duration.since(&before.queue_duration)),
            work_duration: Percentiles::of(&q.work_duration.since(&before.work_duration)),
            unfinished_work_seconds: q.unfinished_work_seconds,
            longest_running_processor_seconds: q.longest_running_processor_seconds,
            max_depth: None,
        }
    }
}

impl InformerInterval {
    /// Names its resource as `served` does (client-go's label is a guess from the kind).
    pub fn name_by(&mut self, served: &[crate::cluster::ApiResource]) {
        let key = InformerKey {
            name: self.name.clone(),
            group: self.group.clone(),
            version: self.version.clone(),
            resource: self.resource.clone(),
        };
        self.plural = super::lag::resource_of(&key, served).map(|r| r.plural.clone());
    }

    pub fn is_idle(&self) -> bool {
        informer_idle(
            self.queued_items,
            self.processing_latency.count,
            self.lag.map(|l| l.resource_versions),
        )
    }

    fn between(key: &InformerKey, before: &Informer, i: &Informer) -> InformerInterval {
        let InformerKey {
            name,
            group,
            version,
            resource,
        } = key.clone();
        InformerInterval {
            name,
            group,
            version,
            resource,
            plural: None,
            queued_items: i.queued_items,
            processing_latency: Percentiles::of(
                &i.processing_latency.since(&before.processing_latency),
            ),
            store_resource_version: i.store_resource_version,
            lag: None,
        }
    }
}

impl ReconcilerInterval {
    fn between(controller: &str, before: &Reconciler, r: &Reconciler, rate: Rate) -> Self {
        let total = |r: &Reconciler| r.results.values().sum::<f64>();
        ReconcilerInterval {
            controller: controller.to_string(),
            reconciles_per_second: rate.of(total(before), total(r)),
            errors_per_second: rate.of(before.errors_total, r.errors_total),
            time: Percentiles::of(&r.time.since(&before.time)),
            active_workers: r.active_workers,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scrape::text::parse;

    fn controller(text: &str) -> Controller {
        Controller::read(&parse(text).unwrap()).unwrap()
    }

    #[test]
    fn rates_are_per_second_and_a_new_queue_counts_from_zero() {
        let earlier = controller(
            "workqueue_adds_total{name=\"a\"} 100\nworkqueue_retries_total{name=\"a\"} 1\n",
        );
        let later = controller(concat!(
            "workqueue_adds_total{name=\"a\"} 120\nworkqueue_retries_total{name=\"a\"} 5\n",
            "workqueue_depth{name=\"a\"} 7\nworkqueue_adds_total{name=\"b\"} 4\n",
        ));
        let i = Interval::between(&earlier, &later, 2.0);
        let a = &i.queues[0];
        assert_eq!(
            (
                a.name.as_str(),
                a.depth,
                a.adds_per_second,
                a.retries_per_second
            ),
            ("a", 7.0, 10.0, 2.0)
        );
        assert_eq!(
            (i.queues[1].name.as_str(), i.queues[1].adds_per_second),
            ("b", 2.0)
        );
        assert_eq!(a.queue_duration.p99, None, "no observation, no percentile");
        assert!(i.throttling.is_none());
    }
}
