//! Gates on a controller's own metrics (`--metrics-from`): `controller.<metric>[.<stat>]`
//! optionally followed by a selector of the queue, informer or reconciler it reads, e.g.
//! `controller.queueDuration.p99{name=deployment} > 1s` or
//! `controller.lag.max{resource=replicasets} > 2s`. Without a selector a gate reads the largest
//! figure of any of them. A percentile is compared on its bucket's upper edge (the most it can
//! be; past the last edge, infinity), since the histograms bound it, never place it.

use crate::format::{format_number, format_seconds};
use serde_json::Value;

/// What a metric reads in the report's `controller` section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Percentiles bounded by bucket edges, an exact mean (seconds) and a count.
    Histogram,
    /// Sampled at every scrape: max, mean, last.
    Sampled,
    /// A count over the window.
    Count,
    /// An informer's lag: max and last, in seconds or in resourceVersions.
    Lag { seconds: bool },
}

/// Where a metric's items are: the queues, the informers, the reconcilers, or the section itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Items {
    Queues,
    Informers,
    Reconcilers,
    Section,
}

impl Items {
    fn key(self) -> Option<&'static str> {
        match self {
            Items::Queues => Some("queues"),
            Items::Informers => Some("informers"),
            Items::Reconcilers => Some("reconcilers"),
            Items::Section => None,
        }
    }

    /// What a selector may name, as the items' JSON does.
    fn labels(self) -> &'static [&'static str] {
        match self {
            Items::Queues => &["name"],
            Items::Informers => &["name", "group", "version", "resource"],
            Items::Reconcilers => &["controller"],
            Items::Section => &[],
        }
    }

    /// The item as people name it: `deployment`, `replicasets apps/v1`.
    fn named(self, item: &Value) -> String {
        let s = |k: &str| item[k].as_str().unwrap_or_default().to_string();
        match self {
            Items::Queues => format!("queue {}", s("name")),
            Items::Informers => {
                let group = if s("group").is_empty() {
                    "core".to_string()
                } else {
                    s("group")
                };
                format!("informer {} {group}/{}", s("resource"), s("version"))
            }
            Items::Reconcilers => format!("reconciler {}", s("controller")),
            Items::Section => String::new(),
        }
    }
}

/// Every gateable figure of the section: its name in a gate, its items, the item's field.
const METRICS: [(&str, Items, &str, Kind); 12] = [
    (
        "queueDuration",
        Items::Queues,
        "queueDuration",
        Kind::Histogram,
    ),
    (
        "workDuration",
        Items::Queues,
        "workDuration",
        Kind::Histogram,
    ),
    ("depth", Items::Queues, "depth", Kind::Sampled),
    ("adds", Items::Queues, "adds", Kind::Count),
    ("retries", Items::Queues, "retries", Kind::Count),
    (
        "queuedItems",
        Items::Informers,
        "queuedItems",
        Kind::Sampled,
    ),
    (
        "processingLatency",
        Items::Informers,
        "processingLatency",
        Kind::Histogram,
    ),
    ("lag", Items::Informers, "lag", Kind::Lag { seconds: true }),
    (
        "lagResourceVersions",
        Items::Informers,
        "lag",
        Kind::Lag { seconds: false },
    ),
    ("throttling", Items::Section, "throttling", Kind::Histogram),
    ("reconcileErrors", Items::Reconcilers, "errors", Kind::Count),
    ("gaps", Items::Section, "gaps", Kind::Count),
];

/// A parsed gate on the controller section.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerGate {
    metric: &'static str,
    items: Items,
    field: &'static str,
    kind: Kind,
    stat: Option<&'static str>,
    /// `label=value` pairs an item must all have.
    selector: Vec<(String, String)>,
}

/// A figure read, and which item it came from.
pub struct Reading {
    pub value: f64,
    pub display: String,
}

impl ControllerGate {
    /// Reads `controller.<metric>[.<stat>][{label=value,...}]` (the part before the comparison,
    /// without `controller.`). Whether the threshold is a duration: `Ok((gate, is_latency))`.
    pub fn parse(left: &str) -> Result<(ControllerGate, bool), String> {
        let (path, selector) = match left.find('{') {
            Some(i) => (&left[..i], Some(&left[i..])),
            None => (left, None),
        };
        if let Some(text) = selector.filter(|t| !t.ends_with('}')) {
            return Err(format!(
                "selector {text}: write it last, as {{label=value}}, e.g. \
                 controller.depth.max{{name=deployment}}"
            ));
        }
        let (metric, stat) = match path.split_once('.') {
            Some((m, s)) => (m, Some(s)),
            None => (path, None),
        };
        let Some(&(name, items, field, kind)) = METRICS.iter().find(|m| m.0 == metric) else {
            let names: Vec<_> = METRICS.iter().map(|m| m.0).collect();
            return Err(format!(
                "unknown controller metric \"{metric}\": use one of {}",
                names.join(", ")
            ));
        };
        let stats: &[&'static str] = match kind {
            Kind::Histogram => &["p50", "p90", "p99", "mean", "count"],
            Kind::Sampled => &["max", "mean", "last"],
            Kind::Lag { .. } => &["max", "last"],
            Kind::Count => &[],
        };
        let stat = match (stat, stats.is_empty()) {
            (None, true) => None,
            (Some(s), true) => {
                return Err(format!(
                    "controller.{name} is a single number: write it without .{s}"
                ))
            }
            (None, false) => {
                return Err(format!(
                    "controller.{name} needs a statistic: controller.{name}.<stat> with stat one \
                     of {}",
                    stats.join(", ")
                ))
            }
            (Some(s), false) => Some(*stats.iter().find(|k| **k == s).ok_or_else(|| {
                format!(
                    "unknown statistic \"{s}\" for controller.{name}: use one of {}",
                    stats.join(", ")
                )
            })?),
        };
        let selector = match selector {
            Some(text) => parse_selector(text, name, items)?,
            None => Vec::new(),
        };
        let is_latency = match kind {
            Kind::Histogram => stat != Some("count"),
            Kind::Lag { seconds } => seconds,
            Kind::Sampled | Kind::Count => false,
        };
        Ok((
            ControllerGate {
                metric: name,
                items,
                field,
                kind,
                stat,
                selector,
            },
            is_latency,
        ))
    }

    /// The figure in a report document: of the item the selector names, or the largest of any;
    /// `None` when the report has no controller section or no such item has the figure.
    pub fn read(&self, report: &Value) -> Option<Reading> {
        let section = report.get("controller").filter(|c| c.is_object())?;
        let Some(key) = self.items.key() else {
            let value = self.figure(&section[self.field])?;
            return Some(Reading {
                value,
                display: self.shown(value, &section[self.field]),
            });
        };
        section[key]
            .as_array()?
            .iter()
            .filter(|item| {
                self.selector
                    .iter()
                    .all(|(k, v)| item[k].as_str() == Some(v.as_str()))
            })
            .filter_map(|item| {
                let value = self.figure(&item[self.field])?;
                let shown = self.shown(value, &item[self.field]);
                Some((value, shown, item))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(value, shown, item)| Reading {
                value,
                display: if self.selector.is_empty() {
                    format!("{shown} ({})", self.items.named(item))
                } else {
                    shown
                },
            })
    }

    /// The statistic's value in one item's figure.
    fn figure(&self, figure: &Value) -> Option<f64> {
        let Some(stat) = self.stat else {
            return figure.as_f64();
        };
        match (self.kind, stat) {
            (Kind::Histogram, "p50" | "p90" | "p99") => {
                let bound = figure.get(stat).filter(|b| b.is_object())?;
                Some(bound["atMost"].as_f64().unwrap_or(f64::INFINITY))
            }
            (Kind::Lag { seconds }, _) => {
                let (max, last) = if seconds {
                    ("maxSeconds", "/last/seconds")
                } else {
                    ("maxResourceVersions", "/last/resourceVersions")
                };
                match stat {
                    "max" => figure[max].as_f64(),
                    _ => figure.pointer(last)?.as_f64(),
                }
            }
            _ => figure[stat].as_f64(),
        }
    }

    /// The value as people read it: a bucket bound as `≤1s` (or `>10s` past the last
    /// edge), a duration, or a number.
    fn shown(&self, value: f64, figure: &Value) -> String {
        match (self.kind, self.stat) {
            (Kind::Histogram, Some(stat @ ("p50" | "p90" | "p99"))) => {
                if value.is_finite() {
                    format!("≤{}", format_seconds(value))
                } else {
                    let above = figure[stat]["above"].as_f64().unwrap_or(0.0);
                    format!(">{}", format_seconds(above))
                }
            }
            (Kind::Histogram, Some("mean")) | (Kind::Lag { seconds: true }, _) => {
                format_seconds(value)
            }
            _ => format_number(value),
        }
    }

    /// The metric as a baseline comparison names it.
    pub fn metric(&self) -> &'static str {
        self.metric
    }
}

/// `{name=deployment}` or `{resource=pods,group=}`: each label one the items have.
fn parse_selector(text: &str, metric: &str, items: Items) -> Result<Vec<(String, String)>, String> {
    let inner = text
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| {
            format!("selector {text}: write it last, as {{label=value}}, e.g. {{name=deployment}}")
        })?;
    let labels = items.labels();
    if labels.is_empty() {
        return Err(format!(
            "controller.{metric} is one figure for the whole controller: write it without {text}"
        ));
    }
    inner
        .split(',')
        .map(|pair| {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| format!("selector {text}: \"{pair}\" is not label=value"))?;
            let (k, v) = (k.trim(), v.trim().trim_matches('"'));
            if !labels.contains(&k) {
                return Err(format!(
                    "selector {text}: controller.{metric} is selected by {}",
                    labels.join(", ")
                ));
            }
            Ok((k.to_string(), v.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report() -> Value {
        json!({"controller": {
            "gaps": 2,
            "throttling": {"count": 10, "mean": 0.2, "p50": {"above": 0.005, "atMost": 0.01},
                           "p90": {"above": 0.1, "atMost": 0.5}, "p99": {"above": 0.5, "atMost": 1.0}},
            "queues": [
                {"name": "deployment", "adds": 50, "retries": 1,
                 "depth": {"max": 7, "mean": 1.5, "last": 0},
                 "queueDuration": {"count": 50, "mean": 0.3, "p50": {"above": 0.01, "atMost": 0.1},
                                   "p90": {"above": 0.1, "atMost": 1.0}, "p99": {"above": 10.0, "atMost": null}}},
                {"name": "replicaset", "adds": 80, "retries": 0,
                 "depth": {"max": 10, "mean": 2.0, "last": 1},
                 "queueDuration": {"count": 0, "mean": null, "p50": null, "p90": null, "p99": null}}
            ],
            "informers": [
                {"name": "kube-controller-manager", "group": "apps", "version": "v1", "resource": "replicasets",
                 "lag": {"maxResourceVersions": 23, "maxSeconds": 0.073, "last": {"resourceVersions": 0, "seconds": 0.0}}},
                {"name": "kube-controller-manager", "group": "", "version": "v1", "resource": "pods", "lag": null}
            ]
        }})
    }

    fn read(expr: &str) -> Option<(f64, String)> {
        let (gate, _) = ControllerGate::parse(expr).unwrap();
        gate.read(&report()).map(|r| (r.value, r.display))
    }

    #[test]
    fn a_percentile_reads_as_its_buckets_upper_edge_and_past_the_last_edge_as_infinity() {
        assert_eq!(
            read("queueDuration.p90{name=deployment}"),
            Some((1.0, "≤1s".into()))
        );
        assert_eq!(
            read("queueDuration.p99{name=deployment}"),
            Some((f64::INFINITY, ">10s".into()))
        );
        assert_eq!(read("queueDuration.mean{name=deployment}").unwrap().0, 0.3);
        // A queue with no observation in the window has no percentile to read.
        assert_eq!(read("queueDuration.p99{name=replicaset}"), None);
        assert_eq!(read("throttling.p99"), Some((1.0, "≤1s".into())));
    }

    #[test]
    fn a_selector_picks_one_item_and_none_reads_the_largest_naming_it() {
        assert_eq!(read("depth.max{name=deployment}").unwrap().0, 7.0);
        assert_eq!(
            read("depth.max"),
            Some((10.0, "10 (queue replicaset)".into()))
        );
        assert_eq!(read("adds{name=nosuch}"), None);
        assert_eq!(read("lag.max{resource=replicasets}").unwrap().0, 0.073);
        assert_eq!(
            read("lagResourceVersions.max{resource=replicasets,group=apps}")
                .unwrap()
                .0,
            23.0
        );
        assert_eq!(
            read("lag.last{resource=pods}"),
            None,
            "pods was not followed"
        );
        assert_eq!(read("gaps").unwrap().0, 2.0);
        let (gate, _) = ControllerGate::parse("gaps").unwrap();
        assert!(gate.read(&json!({"metrics": {}})).is_none(), "no section");
    }

    #[test]
    fn durations_and_counts_are_told_apart_and_bad_names_say_what_to_write() {
        let latency = |e: &str| ControllerGate::parse(e).unwrap().1;
        assert!(latency("queueDuration.p99{name=a}"));
        assert!(latency("lag.max"));
        assert!(!latency("queueDuration.count"));
        assert!(!latency("lagResourceVersions.max"));
        assert!(!latency("depth.max"));
        for (expr, why) in [
            (
                "queueLatency.p99",
                "unknown controller metric \"queueLatency\"",
            ),
            ("queueDuration.p42", "unknown statistic \"p42\""),
            ("queueDuration", "needs a statistic"),
            ("adds.max", "single number"),
            ("depth.max{queue=a}", "selected by name"),
            ("depth.max{name}", "is not label=value"),
            ("depth{name=a}.max", "write it last"),
            (
                "throttling.p99{name=a}",
                "one figure for the whole controller",
            ),
        ] {
            let err = ControllerGate::parse(expr).unwrap_err();
            assert!(err.contains(why), "{expr}: {err}");
        }
    }
}
