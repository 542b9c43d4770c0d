//! Gates on a controller's own metrics (`--metrics-from`): `controller.<metric>[.<stat>]`
//! optionally followed by a selector of the queue, informer or reconciler it reads, e.g.
//! `controller.queueDuration.p99{name=deployment} > 1s` or
//! `controller.lag.max{resource=replicasets} > 2s`. Without a selector a gate reads the largest
//! figure of any of them. A percentile is compared on its bucket's upper edge (the most it can
//! be; past the last edge, infinity), since the histograms bound it, never place it.

use super::expr::GateError;
use super::figure::Stat;
use super::result::{ItemName, Reading, Unit};
use crate::scrape::interval::Percentiles;
use crate::scrape::window::{
    ControllerFigures, InformerFigures, LagFigures, QueueFigures, ReconcilerFigures, Sampled,
};

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

impl Kind {
    fn stats(self) -> &'static [Stat] {
        match self {
            Kind::Histogram => &[Stat::P50, Stat::P90, Stat::P99, Stat::Mean, Stat::Count],
            Kind::Sampled => &[Stat::Max, Stat::Mean, Stat::Last],
            Kind::Lag { .. } => &[Stat::Max, Stat::Last],
            Kind::Count => &[],
        }
    }
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
    /// What a selector may name, as the items' JSON does.
    fn labels(self) -> &'static [Label] {
        match self {
            Items::Queues => &[Label::Name],
            Items::Informers => &[Label::Name, Label::Group, Label::Version, Label::Resource],
            Items::Reconcilers => &[Label::Controller],
            Items::Section => &[],
        }
    }
}

/// A label a selector names an item by, as the items' JSON does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    Name,
    Group,
    Version,
    Resource,
    Controller,
}

impl Label {
    pub fn name(self) -> &'static str {
        match self {
            Label::Name => "name",
            Label::Group => "group",
            Label::Version => "version",
            Label::Resource => "resource",
            Label::Controller => "controller",
        }
    }

    /// `name, group, version, resource`: the names of `labels`, as the parse errors list them.
    pub fn names(labels: &[Label]) -> String {
        let names: Vec<_> = labels.iter().map(|l| l.name()).collect();
        names.join(", ")
    }
}

/// Every gateable figure of the controller section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControllerMetric {
    QueueDuration,
    WorkDuration,
    Depth,
    Adds,
    Retries,
    QueuedItems,
    ProcessingLatency,
    Lag,
    LagResourceVersions,
    Throttling,
    ReconcileErrors,
    Gaps,
}

impl ControllerMetric {
    /// In the order the parse errors list them.
    pub const ALL: [ControllerMetric; 12] = [
        ControllerMetric::QueueDuration,
        ControllerMetric::WorkDuration,
        ControllerMetric::Depth,
        ControllerMetric::Adds,
        ControllerMetric::Retries,
        ControllerMetric::QueuedItems,
        ControllerMetric::ProcessingLatency,
        ControllerMetric::Lag,
        ControllerMetric::LagResourceVersions,
        ControllerMetric::Throttling,
        ControllerMetric::ReconcileErrors,
        ControllerMetric::Gaps,
    ];

    /// Its name in a gate, its items, and what it reads.
    fn spec(self) -> (&'static str, Items, Kind) {
        use ControllerMetric as M;
        match self {
            M::QueueDuration => ("queueDuration", Items::Queues, Kind::Histogram),
            M::WorkDuration => ("workDuration", Items::Queues, Kind::Histogram),
            M::Depth => ("depth", Items::Queues, Kind::Sampled),
            M::Adds => ("adds", Items::Queues, Kind::Count),
            M::Retries => ("retries", Items::Queues, Kind::Count),
            M::QueuedItems => ("queuedItems", Items::Informers, Kind::Sampled),
            M::ProcessingLatency => ("processingLatency", Items::Informers, Kind::Histogram),
            M::Lag => ("lag", Items::Informers, Kind::Lag { seconds: true }),
            M::LagResourceVersions => (
                "lagResourceVersions",
                Items::Informers,
                Kind::Lag { seconds: false },
            ),
            M::Throttling => ("throttling", Items::Section, Kind::Histogram),
            M::ReconcileErrors => ("reconcileErrors", Items::Reconcilers, Kind::Count),
            M::Gaps => ("gaps", Items::Section, Kind::Count),
        }
    }

    pub fn name(self) -> &'static str {
        self.spec().0
    }

    fn items(self) -> Items {
        self.spec().1
    }

    fn kind(self) -> Kind {
        self.spec().2
    }

    /// What this metric reads of `item`; `None` for an item of another kind, or an informer
    /// whose lag was not measured.
    fn of<'a>(self, item: Item<'a>) -> Option<Field<'a>> {
        use ControllerMetric as M;
        Some(match (self, item) {
            (M::QueueDuration, Item::Queue(q)) => Field::Histogram(&q.queue_duration),
            (M::WorkDuration, Item::Queue(q)) => Field::Histogram(&q.work_duration),
            (M::Depth, Item::Queue(q)) => Field::Sampled(&q.depth),
            (M::Adds, Item::Queue(q)) => Field::Count(q.adds),
            (M::Retries, Item::Queue(q)) => Field::Count(q.retries),
            (M::QueuedItems, Item::Informer(i)) => Field::Sampled(&i.queued_items),
            (M::ProcessingLatency, Item::Informer(i)) => Field::Histogram(&i.processing_latency),
            (M::Lag | M::LagResourceVersions, Item::Informer(i)) => Field::Lag(i.lag.as_ref()?),
            (M::ReconcileErrors, Item::Reconciler(r)) => Field::Count(r.errors),
            _ => return None,
        })
    }

    /// What this metric reads of the section itself.
    fn of_section(self, section: &ControllerFigures) -> Option<Field<'_>> {
        match self {
            ControllerMetric::Throttling => section.throttling.as_ref().map(Field::Histogram),
            ControllerMetric::Gaps => Some(Field::Count(section.gaps as f64)),
            _ => None,
        }
    }
}

/// The names of the controller's metrics, as the parse errors list them.
pub fn names() -> String {
    let names: Vec<_> = ControllerMetric::ALL.iter().map(|m| m.name()).collect();
    names.join(", ")
}

/// One queue, informer or reconciler of the section.
#[derive(Clone, Copy)]
enum Item<'a> {
    Queue(&'a QueueFigures),
    Informer(&'a InformerFigures),
    Reconciler(&'a ReconcilerFigures),
}

impl<'a> Item<'a> {
    fn all(section: &'a ControllerFigures) -> impl Iterator<Item = Item<'a>> {
        let queues = section.queues.iter().map(Item::Queue);
        let informers = section.informers.iter().map(Item::Informer);
        let reconcilers = section.reconcilers.iter().map(Item::Reconciler);
        queues.chain(informers).chain(reconcilers)
    }

    fn label(self, label: Label) -> Option<&'a str> {
        match (self, label) {
            (Item::Queue(q), Label::Name) => Some(&q.name),
            (Item::Informer(i), Label::Name) => Some(&i.name),
            (Item::Informer(i), Label::Group) => Some(&i.group),
            (Item::Informer(i), Label::Version) => Some(&i.version),
            (Item::Informer(i), Label::Resource) => Some(&i.resource),
            (Item::Reconciler(r), Label::Controller) => Some(&r.controller),
            _ => None,
        }
    }

    fn name(self) -> ItemName {
        match self {
            Item::Queue(q) => ItemName::Queue(q.name.clone()),
            Item::Informer(i) => ItemName::Informer {
                resource: i.resource.clone(),
                group: i.group.clone(),
                version: i.version.clone(),
            },
            Item::Reconciler(r) => ItemName::Reconciler(r.controller.clone()),
        }
    }
}

/// One item's figure a metric reads.
#[derive(Clone, Copy)]
enum Field<'a> {
    Histogram(&'a Percentiles),
    Sampled(&'a Sampled),
    Count(f64),
    Lag(&'a LagFigures),
}

/// `{name=deployment}` or `{resource=pods,group=}`: the labels an item must all have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    pub pairs: Vec<(Label, String)>,
    /// As written, as the gate is printed.
    pub written: String,
}

/// A parsed gate on the controller section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerFigure {
    pub metric: ControllerMetric,
    /// `None` exactly for counts.
    pub stat: Option<Stat>,
    /// `None`: the largest figure of any item.
    pub selector: Option<Selector>,
}

impl ControllerFigure {
    /// Reads `<metric>[.<stat>][{label=value,...}]` (the part of a gate before the comparison,
    /// after `controller.`).
    pub fn parse(left: &str) -> Result<ControllerFigure, GateError> {
        let (path, selector) = match left.find('{') {
            Some(i) => (&left[..i], Some(&left[i..])),
            None => (left, None),
        };
        if let Some(text) = selector.filter(|t| !t.ends_with('}')) {
            return Err(GateError::SelectorNotLast {
                selector: text.to_string(),
            });
        }
        let (name, stat) = match path.split_once('.') {
            Some((m, s)) => (m, Some(s)),
            None => (path, None),
        };
        let Some(metric) = ControllerMetric::ALL.into_iter().find(|m| m.name() == name) else {
            return Err(GateError::UnknownControllerMetric {
                name: name.to_string(),
            });
        };
        let figure = format!("controller.{}", metric.name());
        let stat = Stat::parse(stat, metric.kind().stats(), &figure, |s| {
            GateError::ControllerSingleNumber {
                metric: metric.name(),
                stat: s.to_string(),
            }
        })?;
        let selector = match selector {
            Some(text) => Some(parse_selector(text, metric)?),
            None => None,
        };
        Ok(ControllerFigure {
            metric,
            stat,
            selector,
        })
    }

    /// Whether its threshold is a duration: a histogram's percentiles and mean, and the lag in
    /// seconds.
    pub fn is_duration(&self) -> bool {
        match self.metric.kind() {
            Kind::Histogram => self.stat != Some(Stat::Count),
            Kind::Lag { seconds } => seconds,
            Kind::Sampled | Kind::Count => false,
        }
    }

    /// The figure in the report's controller section: of the item the selector names, or the
    /// largest of any (and which it is); `None` when no such item has the figure.
    pub fn read(&self, section: &ControllerFigures) -> Option<Reading> {
        if self.metric.items() == Items::Section {
            let (value, unit) = self.value(self.metric.of_section(section)?)?;
            return Some(Reading {
                value,
                unit,
                of: None,
            });
        }
        Item::all(section)
            .filter(|item| self.selects(*item))
            .filter_map(|item| {
                let (value, unit) = self.value(self.metric.of(item)?)?;
                Some((value, unit, item))
            })
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(value, unit, item)| Reading {
                value,
                unit,
                of: self.selector.is_none().then(|| item.name()),
            })
    }

    fn selects(&self, item: Item<'_>) -> bool {
        self.selector.as_ref().is_none_or(|s| {
            s.pairs
                .iter()
                .all(|(label, value)| item.label(*label) == Some(value.as_str()))
        })
    }

    /// The statistic's value in one item's figure, and its unit. A percentile past the last
    /// bucket edge is infinite; any other figure that is not finite is none (the report's JSON
    /// writes it as null).
    fn value(&self, field: Field<'_>) -> Option<(f64, Unit)> {
        let finite = |v: f64| v.is_finite().then_some(v);
        let (value, unit) = match (field, self.stat) {
            (Field::Histogram(p), Some(stat @ (Stat::P50 | Stat::P90 | Stat::P99))) => {
                let bound = match stat {
                    Stat::P50 => p.p50,
                    Stat::P90 => p.p90,
                    _ => p.p99,
                }?;
                let at_most = bound.at_most.and_then(finite);
                let unit = Unit::Bucket { above: bound.above };
                return Some((at_most.unwrap_or(f64::INFINITY), unit));
            }
            (Field::Histogram(p), Some(Stat::Mean)) => (p.mean?, Unit::Seconds),
            (Field::Histogram(p), Some(Stat::Count)) => (p.count, Unit::Number),
            (Field::Sampled(s), Some(Stat::Max)) => (s.max, Unit::Number),
            (Field::Sampled(s), Some(Stat::Mean)) => (s.mean, Unit::Number),
            (Field::Sampled(s), Some(Stat::Last)) => (s.last, Unit::Number),
            (Field::Count(n), None) => (n, Unit::Number),
            (Field::Lag(lag), Some(stat)) => lag_value(lag, stat, self.metric.kind())?,
            _ => return None,
        };
        Some((finite(value)?, unit))
    }
}

/// An informer's lag, `max` or `last`, in seconds or in resourceVersions.
fn lag_value(lag: &LagFigures, stat: Stat, kind: Kind) -> Option<(f64, Unit)> {
    Some(match (kind, stat) {
        (Kind::Lag { seconds: true }, Stat::Max) => (lag.max_seconds, Unit::Seconds),
        (Kind::Lag { seconds: true }, Stat::Last) => (lag.last.seconds, Unit::Seconds),
        (Kind::Lag { seconds: false }, Stat::Max) => {
            (lag.max_resource_versions as f64, Unit::Number)
        }
        (Kind::Lag { seconds: false }, Stat::Last) => {
            (lag.last.resource_versions as f64, Unit::Number)
        }
        _ => return None,
    })
}

/// As the gate wrote it, after `controller.`: `queueDuration.p99{name=deployment}`.
impl std::fmt::Display for ControllerFigure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.metric.name())?;
        if let Some(stat) = self.stat {
            write!(f, ".{}", stat.name())?;
        }
        match &self.selector {
            Some(s) => f.write_str(&s.written),
            None => Ok(()),
        }
    }
}

/// `{name=deployment}` or `{resource=pods,group=}`: each label one the items have.
fn parse_selector(text: &str, metric: ControllerMetric) -> Result<Selector, GateError> {
    // The caller found `{` first and `}` last.
    let inner = &text[1..text.len() - 1];
    let labels = metric.items().labels();
    if labels.is_empty() {
        return Err(GateError::NoSelector {
            metric: metric.name(),
            selector: text.to_string(),
        });
    }
    let pairs =
        inner
            .split(',')
            .map(|pair| {
                let (k, v) = pair
                    .split_once('=')
                    .ok_or_else(|| GateError::NotLabelValue {
                        selector: text.to_string(),
                        pair: pair.to_string(),
                    })?;
                let (k, v) = (k.trim(), v.trim().trim_matches('"'));
                let label = labels.iter().find(|l| l.name() == k).ok_or_else(|| {
                    GateError::UnknownLabel {
                        selector: text.to_string(),
                        metric: metric.name(),
                        labels,
                    }
                })?;
                Ok((*label, v.to_string()))
            })
            .collect::<Result<_, GateError>>()?;
    Ok(Selector {
        pairs,
        written: text.to_string(),
    })
}
