//! What a controller's own metrics say about its pipeline, read from one scrape: client-go's
//! workqueue metrics per queue `name` (controller-runtime serves the same names), the informers'
//! FIFO metrics client-go 1.36+ serves for informers a component names (`informer_*`, labelled
//! `name`, `group`, `version`, `resource`), the client's rate-limiter waits, and
//! controller-runtime's reconciler metrics.

use super::text::{Exposition, Sample};
use std::collections::BTreeMap;

/// A histogram as scraped: cumulative counts per upper bound (`le`), ascending, `+Inf` last.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histogram {
    pub buckets: Vec<(f64, f64)>,
    pub count: f64,
    pub sum: f64,
}

/// Where a quantile lies, as bounded by the histogram's bucket edges: in `(above, at_most]`;
/// `at_most` is `None` past the last finite edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub above: f64,
    pub at_most: Option<f64>,
}

impl Histogram {
    fn add(&mut self, sample: &Sample, family: &str) {
        let suffix = &sample.name[family.len()..];
        match suffix {
            "_bucket" => {
                let Some(le) = sample.label("le").and_then(|le| {
                    le.parse::<f64>()
                        .ok()
                        .or_else(|| (le == "+Inf").then_some(f64::INFINITY))
                }) else {
                    return;
                };
                match self.buckets.iter_mut().find(|(bound, _)| *bound == le) {
                    Some((_, count)) => *count += sample.value,
                    None => {
                        self.buckets.push((le, sample.value));
                        self.buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
                    }
                }
            }
            "_count" => self.count += sample.value,
            "_sum" => self.sum += sample.value,
            _ => {}
        }
    }

    /// The observations made between `earlier` and this scrape. A count that went down (the
    /// process restarted) counts from zero, as Prometheus' `rate` does.
    pub fn since(&self, earlier: &Histogram) -> Histogram {
        let reset = self.count < earlier.count;
        let before = |le: f64| {
            if reset {
                return 0.0;
            }
            earlier
                .buckets
                .iter()
                .find(|(bound, _)| *bound == le)
                .map_or(0.0, |(_, c)| *c)
        };
        Histogram {
            buckets: self
                .buckets
                .iter()
                .map(|(le, c)| (*le, (c - before(*le)).max(0.0)))
                .collect(),
            count: if reset {
                self.count
            } else {
                self.count - earlier.count
            },
            sum: if reset {
                self.sum
            } else {
                self.sum - earlier.sum
            },
        }
    }

    /// The bucket the `q`-quantile of the observations falls in; `None` without observations.
    pub fn quantile(&self, q: f64) -> Option<Bound> {
        let total = self.buckets.last().map_or(self.count, |(_, c)| *c);
        if total <= 0.0 {
            return None;
        }
        let rank = (q * total).ceil().max(1.0);
        let mut above = 0.0;
        for (le, cumulative) in &self.buckets {
            if *cumulative >= rank {
                return Some(Bound {
                    above,
                    at_most: le.is_finite().then_some(*le),
                });
            }
            above = *le;
        }
        Some(Bound {
            above,
            at_most: None,
        })
    }
}

/// One workqueue, by its `name` label.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Queue {
    pub depth: f64,
    pub adds_total: f64,
    pub retries_total: f64,
    pub queue_duration: Histogram,
    pub work_duration: Histogram,
    pub unfinished_work_seconds: f64,
    pub longest_running_processor_seconds: f64,
}

/// Which informer: the component's name for it and the resource it holds. client-go makes the
/// `resource` label from the kind (lower case, an `s` added: `endpointss` for Endpoints), so it
/// is a label, not always a resource's plural name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct InformerKey {
    pub name: String,
    pub group: String,
    pub version: String,
    pub resource: String,
}

/// One informer's FIFO.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Informer {
    pub queued_items: f64,
    pub processing_latency: Histogram,
    /// The resourceVersion its store last reached (client-go keeps its last 15 digits).
    pub store_resource_version: Option<f64>,
}

/// One controller-runtime reconciler, by its `controller` label.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reconciler {
    /// `controller_runtime_reconcile_total` by `result` (success, error, requeue,
    /// requeue_after).
    pub results: BTreeMap<String, f64>,
    pub errors_total: f64,
    pub time: Histogram,
    pub active_workers: Option<f64>,
}

/// What one scrape says about the controller.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Controller {
    pub queues: BTreeMap<String, Queue>,
    pub informers: BTreeMap<InformerKey, Informer>,
    /// `rest_client_rate_limiter_duration_seconds`, every verb and host together: how long
    /// requests waited for the client's own rate limiter (QPS and burst).
    pub throttling: Option<Histogram>,
    pub reconcilers: BTreeMap<String, Reconciler>,
}

impl Controller {
    /// Reads the controller's families out of a scrape; `None` when it has none of them (the
    /// target serves metrics, but not a client-go or controller-runtime process's).
    pub fn read(exposition: &Exposition) -> Option<Controller> {
        let mut c = Controller::default();
        let mut any = false;
        for s in &exposition.samples {
            any |= c.take(s);
        }
        any.then_some(c)
    }

    /// Files one sample where it belongs; returns whether it was one of the controller's.
    fn take(&mut self, s: &Sample) -> bool {
        let name = s.name.as_str();
        if let Some(metric) = name.strip_prefix("workqueue_") {
            let Some(queue) = s.label("name") else {
                return false;
            };
            let q = self.queues.entry(queue.to_string()).or_default();
            match metric {
                // controller-runtime (v0.22 on) splits a priority queue's depth by `priority`:
                // the queue holds their sum.
                "depth" => q.depth += s.value,
                "adds_total" => q.adds_total = s.value,
                "retries_total" => q.retries_total = s.value,
                "unfinished_work_seconds" => q.unfinished_work_seconds = s.value,
                "longest_running_processor_seconds" => {
                    q.longest_running_processor_seconds = s.value
                }
                m if m.starts_with("queue_duration_seconds") => {
                    q.queue_duration.add(s, "workqueue_queue_duration_seconds")
                }
                m if m.starts_with("work_duration_seconds") => {
                    q.work_duration.add(s, "workqueue_work_duration_seconds")
                }
                _ => {}
            }
            return true;
        }
        if let Some(metric) = name.strip_prefix("informer_") {
            let key = InformerKey {
                name: s.label("name").unwrap_or_default().to_string(),
                group: s.label("group").unwrap_or_default().to_string(),
                version: s.label("version").unwrap_or_default().to_string(),
                resource: s.label("resource").unwrap_or_default().to_string(),
            };
            let i = self.informers.entry(key).or_default();
            match metric {
                "queued_items" => i.queued_items = s.value,
                "store_resource_version" => i.store_resource_version = Some(s.value),
                m if m.starts_with("processing_latency_seconds") => i
                    .processing_latency
                    .add(s, "informer_processing_latency_seconds"),
                _ => {}
            }
            return true;
        }
        if name.starts_with("rest_client_rate_limiter_duration_seconds") {
            self.throttling
                .get_or_insert_with(Histogram::default)
                .add(s, "rest_client_rate_limiter_duration_seconds");
            return true;
        }
        if let Some(metric) = name.strip_prefix("controller_runtime_") {
            let Some(controller) = s.label("controller") else {
                return false;
            };
            let r = self.reconcilers.entry(controller.to_string()).or_default();
            match metric {
                "reconcile_total" => {
                    let result = s.label("result").unwrap_or("total").to_string();
                    *r.results.entry(result).or_default() += s.value;
                }
                "reconcile_errors_total" => r.errors_total = s.value,
                "active_workers" => r.active_workers = Some(s.value),
                m if m.starts_with("reconcile_time_seconds") => {
                    r.time.add(s, "controller_runtime_reconcile_time_seconds")
                }
                _ => {}
            }
            return true;
        }
        false
    }
}

/// What two processes did together (the replicas a moving leader was scraped on, one after
/// the other): each one's growth over its own scrapes, added.
impl Histogram {
    /// This histogram's observations and `other`'s together. Both come from the same program,
    /// so their bucket edges are the same; an edge only one has counts the other's observations
    /// at or below its own largest edge under it.
    pub fn plus(&self, other: &Histogram) -> Histogram {
        let mut edges: Vec<f64> = (self.buckets.iter().chain(&other.buckets))
            .map(|(le, _)| *le)
            .collect();
        edges.sort_by(f64::total_cmp);
        edges.dedup();
        let at = |h: &Histogram, le: f64| {
            (h.buckets.iter())
                .take_while(|(edge, _)| *edge <= le)
                .last()
                .map_or(0.0, |(_, c)| *c)
        };
        Histogram {
            buckets: edges
                .into_iter()
                .map(|le| (le, at(self, le) + at(other, le)))
                .collect(),
            count: self.count + other.count,
            sum: self.sum + other.sum,
        }
    }
}

impl Controller {
    /// What grew from `earlier` to this scrape of the same process: its counters and histograms
    /// (a count that went down, after a restart, counts from zero), with this scrape's gauges
    /// (depths, queued items, the store's resourceVersion, workers).
    pub fn since(&self, earlier: &Controller) -> Controller {
        use super::interval::growth;
        let queues = (self.queues.iter())
            .map(|(name, q)| {
                let before = earlier.queues.get(name).cloned().unwrap_or_default();
                let q = Queue {
                    adds_total: growth(before.adds_total, q.adds_total),
                    retries_total: growth(before.retries_total, q.retries_total),
                    queue_duration: q.queue_duration.since(&before.queue_duration),
                    work_duration: q.work_duration.since(&before.work_duration),
                    ..q.clone()
                };
                (name.clone(), q)
            })
            .collect();
        let informers = (self.informers.iter())
            .map(|(key, i)| {
                let before = earlier.informers.get(key).cloned().unwrap_or_default();
                let i = Informer {
                    processing_latency: i.processing_latency.since(&before.processing_latency),
                    ..i.clone()
                };
                (key.clone(), i)
            })
            .collect();
        let reconcilers = (self.reconcilers.iter())
            .map(|(name, r)| {
                let before = earlier.reconcilers.get(name).cloned().unwrap_or_default();
                let results = (r.results.iter())
                    .map(|(result, n)| {
                        let was = before.results.get(result).copied().unwrap_or(0.0);
                        (result.clone(), growth(was, *n))
                    })
                    .collect();
                let r = Reconciler {
                    results,
                    errors_total: growth(before.errors_total, r.errors_total),
                    time: r.time.since(&before.time),
                    active_workers: r.active_workers,
                };
                (name.clone(), r)
            })
            .collect();
        Controller {
            queues,
            informers,
            throttling: (self.throttling.as_ref())
                .map(|h| h.since(&earlier.throttling.clone().unwrap_or_default())),
            reconcilers,
        }
    }

    /// This growth and a `later` one (of another process, from [`Controller::since`]) together:
    /// counters and histograms added, the gauges `later`'s where it has them.
    pub fn plus(&self, later: &Controller) -> Controller {
        let mut sum = self.clone();
        for (name, q) in &later.queues {
            let was = sum.queues.remove(name).unwrap_or_default();
            let q = Queue {
                adds_total: was.adds_total + q.adds_total,
                retries_total: was.retries_total + q.retries_total,
                queue_duration: was.queue_duration.plus(&q.queue_duration),
                work_duration: was.work_duration.plus(&q.work_duration),
                ..q.clone()
            };
            sum.queues.insert(name.clone(), q);
        }
        for (key, i) in &later.informers {
            let was = sum.informers.remove(key).unwrap_or_default();
            let i = Informer {
                processing_latency: was.processing_latency.plus(&i.processing_latency),
                ..i.clone()
            };
            sum.informers.insert(key.clone(), i);
        }
        for (name, r) in &later.reconcilers {
            let mut was = sum.reconcilers.remove(name).unwrap_or_default();
            for (result, n) in &r.results {
                *was.results.entry(result.clone()).or_default() += n;
            }
            let r = Reconciler {
                results: was.results,
                errors_total: was.errors_total + r.errors_total,
                time: was.time.plus(&r.time),
                active_workers: r.active_workers,
            };
            sum.reconcilers.insert(name.clone(), r);
        }
        sum.throttling = match (&sum.throttling, &later.throttling) {
            (Some(a), Some(b)) => Some(a.plus(b)),
            (a, b) => a.clone().or_else(|| b.clone()),
        };
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_of_two_processes_add_edge_by_edge() {
        let h = |buckets: &[(f64, f64)], count, sum| Histogram {
            buckets: buckets.to_vec(),
            count,
            sum,
        };
        let a = h(&[(0.1, 1.0), (1.0, 3.0), (f64::INFINITY, 3.0)], 3.0, 1.2);
        let b = h(&[(0.1, 2.0), (1.0, 2.0), (f64::INFINITY, 4.0)], 4.0, 9.0);
        let sum = a.plus(&b);
        assert_eq!(
            sum.buckets,
            vec![(0.1, 3.0), (1.0, 5.0), (f64::INFINITY, 7.0)]
        );
        assert_eq!((sum.count, sum.sum), (7.0, 10.2));
        // An edge only one of them has: the other's count at its largest edge under it.
        let c = h(&[(0.5, 1.0), (f64::INFINITY, 1.0)], 1.0, 0.3);
        assert_eq!(
            a.plus(&c).buckets,
            vec![(0.1, 1.0), (0.5, 2.0), (1.0, 4.0), (f64::INFINITY, 4.0)]
        );
    }

    #[test]
    fn a_growth_counts_a_restarted_process_from_zero_and_keeps_its_gauges() {
        let read =
            |text: &str| Controller::read(&crate::scrape::text::parse(text).unwrap()).unwrap();
        let earlier = read(
            "workqueue_adds_total{name=\"q\"} 50\nworkqueue_depth{name=\"q\"} 9\n\
             controller_runtime_reconcile_total{controller=\"c\",result=\"success\"} 40\n",
        );
        let later = read(
            "workqueue_adds_total{name=\"q\"} 60\nworkqueue_depth{name=\"q\"} 2\n\
             controller_runtime_reconcile_total{controller=\"c\",result=\"success\"} 5\n",
        );
        let grown = later.since(&earlier);
        assert_eq!(grown.queues["q"].adds_total, 10.0);
        assert_eq!(grown.queues["q"].depth, 2.0);
        assert_eq!(grown.reconcilers["c"].results["success"], 5.0);
        let both = grown.plus(&grown);
        assert_eq!(both.queues["q"].adds_total, 20.0);
        assert_eq!(both.queues["q"].depth, 2.0);
        assert_eq!(both.reconcilers["c"].results["success"], 10.0);
    }
    use crate::scrape::text::parse;

    /// A queue named `q` with `buckets` (upper bound, cumulative count) of queue duration.
    fn scrape(adds: u32, buckets: &[(&str, u32)]) -> Controller {
        let mut text =
            format!("workqueue_adds_total{{name=\"q\"}} {adds}\nworkqueue_depth{{name=\"q\"}} 2\n");
        for (le, n) in buckets {
            text.push_str(&format!(
                "workqueue_queue_duration_seconds_bucket{{name=\"q\",le=\"{le}\"}} {n}\n"
            ));
        }
        let count = buckets.last().map_or(0, |(_, n)| *n);
        text.push_str(&format!(
            "workqueue_queue_duration_seconds_count{{name=\"q\"}} {count}\n"
        ));
        Controller::read(&parse(&text).unwrap()).unwrap()
    }

    #[test]
    fn a_quantile_is_the_bucket_it_falls_in() {
        let c = scrape(
            10,
            &[("0.001", 90), ("0.01", 99), ("0.1", 100), ("+Inf", 100)],
        );
        let h = &c.queues["q"].queue_duration;
        let bound = |above, at_most| Some(Bound { above, at_most });
        assert_eq!(h.quantile(0.5), bound(0.0, Some(0.001)));
        assert_eq!(h.quantile(0.99), bound(0.001, Some(0.01)));
        assert_eq!(h.quantile(1.0), bound(0.01, Some(0.1)));
        let slow = scrape(1, &[("0.1", 0), ("+Inf", 3)]);
        assert_eq!(
            slow.queues["q"].queue_duration.quantile(0.99),
            bound(0.1, None)
        );
        assert_eq!(Histogram::default().quantile(0.99), None);
    }

    #[test]
    fn an_interval_counts_the_buckets_growth_and_a_restart_from_zero() {
        let before = scrape(10, &[("0.001", 100), ("1", 100), ("+Inf", 100)]);
        let after = scrape(30, &[("0.001", 101), ("1", 120), ("+Inf", 120)]);
        let grown = after.queues["q"]
            .queue_duration
            .since(&before.queues["q"].queue_duration);
        assert_eq!(
            grown.buckets,
            vec![(0.001, 1.0), (1.0, 20.0), (f64::INFINITY, 20.0)]
        );
        assert_eq!(grown.count, 20.0);
        // The slow 19 of 20 set the 99th percentile, which the totals since the start hide.
        assert_eq!(grown.quantile(0.99).unwrap().at_most, Some(1.0));
        let restarted = scrape(3, &[("0.001", 3), ("1", 3), ("+Inf", 3)]);
        let grown = restarted.queues["q"]
            .queue_duration
            .since(&after.queues["q"].queue_duration);
        assert_eq!(grown.count, 3.0);
        assert_eq!(grown.buckets[0], (0.001, 3.0));
    }

    #[test]
    fn every_family_lands_under_its_labels_and_other_metrics_are_not_a_controller() {
        let text = concat!(
            "informer_queued_items{group=\"apps\",name=\"kube-controller-manager\",resource=\"deployments\",version=\"v1\"} 4\n",
            "informer_store_resource_version{group=\"\",name=\"kube-controller-manager\",resource=\"endpointss\",version=\"v1\"} 1234\n",
            "rest_client_rate_limiter_duration_seconds_bucket{host=\"a\",verb=\"GET\",le=\"0.1\"} 3\n",
            "rest_client_rate_limiter_duration_seconds_bucket{host=\"a\",verb=\"PUT\",le=\"0.1\"} 2\n",
            "controller_runtime_reconcile_total{controller=\"web\",result=\"success\"} 7\n",
            "controller_runtime_reconcile_total{controller=\"web\",result=\"error\"} 1\n",
            "controller_runtime_active_workers{controller=\"web\"} 2\n",
            "go_goroutines 80\n",
        );
        let c = Controller::read(&parse(text).unwrap()).unwrap();
        let deployments = c
            .informers
            .iter()
            .find(|(k, _)| k.resource == "deployments" && k.group == "apps")
            .unwrap()
            .1;
        assert_eq!(deployments.queued_items, 4.0);
        let endpoints = c
            .informers
            .iter()
            .find(|(k, _)| k.resource == "endpointss")
            .unwrap()
            .1;
        assert_eq!(endpoints.store_resource_version, Some(1234.0));
        assert_eq!(c.throttling.unwrap().buckets, vec![(0.1, 5.0)]);
        assert_eq!(c.reconcilers["web"].results.values().sum::<f64>(), 8.0);
        assert_eq!(c.reconcilers["web"].active_workers, Some(2.0));
        assert!(Controller::read(&parse("go_goroutines 80\n").unwrap()).is_none());
    }

    #[test]
    fn a_priority_queues_depth_is_the_sum_of_its_priorities() {
        // controller-runtime v0.25's workqueue_depth, as a manager restarted with items from
        // its initial list (priority -100) and newer ones (0) serves it.
        let text = concat!(
            "workqueue_depth{controller=\"configmap\",name=\"configmap\",priority=\"-100\"} 12\n",
            "workqueue_depth{controller=\"configmap\",name=\"configmap\",priority=\"0\"} 29\n",
            "workqueue_depth{name=\"deployment\"} 3\n",
        );
        let c = Controller::read(&parse(text).unwrap()).unwrap();
        assert_eq!(c.queues["configmap"].depth, 41.0);
        assert_eq!(c.queues["deployment"].depth, 3.0);
    }
}
