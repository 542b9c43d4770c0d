//! diff's result: the report of one comparison (`diff -o json`, schema in docs/json.md and
//! schemas/), and the watchdog's record that times drift across the comparisons of `--every`.
//! output/table.rs words them for people.

use super::drift::{counts, Drift, DriftClass};
use crate::format::rfc3339_millis;
use crate::informer::listwatch::ListWatch;
use serde::Serialize;
use std::time::{Instant, SystemTime};

/// Version of `diff -o json`'s schema (docs/json.md). 2: the document of 1, its number moved with
/// every JSON document's when one naming rule was applied to all of them.
pub const REPORT_SCHEMA_VERSION: u32 = 2;

/// How the LIST the cache was compared with was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// LIST at the cache's RV with resourceVersionMatch=Exact.
    Exact,
    /// The cache's RV could no longer be listed exactly (410); the cache caught up with the
    /// server's newest RV and was compared there, exactly.
    ExactAfterCatchUp,
    /// A saved cache compared with a consistent LIST taken now.
    CacheFile,
}

/// The result of one comparison: the JSON document of `diff -o json` (schema in docs/json.md and schemas/).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffReport {
    pub schema_version: u32,
    pub resource: String,
    pub namespace: Option<String>,
    /// The RV both sides were compared at (for a cache file: the LIST's RV).
    pub resource_version: String,
    /// For a cache file: the RV the saved cache was synced to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_resource_version: Option<String>,
    pub method: Method,
    pub compared: usize,
    /// Drifted objects per class, every class present.
    pub drift: DriftCounts,
    pub objects: Vec<Drift>,
    pub duration_seconds: f64,
    pub time: String,
    /// With --every: when drift was first seen, and when it healed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watchdog: Option<Watchdog>,
}

/// Drifted objects per class.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftCounts {
    pub missing: usize,
    pub ghost: usize,
    pub stale: usize,
    pub recreated: usize,
    pub content: usize,
}

impl DriftCounts {
    pub fn of(drift: &[Drift]) -> Self {
        let mut c = DriftCounts::default();
        for (class, n) in counts(drift) {
            *match class {
                DriftClass::Missing => &mut c.missing,
                DriftClass::Ghost => &mut c.ghost,
                DriftClass::Stale => &mut c.stale,
                DriftClass::Recreated => &mut c.recreated,
                DriftClass::Content => &mut c.content,
            } = n;
        }
        c
    }
}

/// Drift first seen and healed, across the comparisons of `--every`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Watchdog {
    pub comparisons: u64,
    pub drift_first_seen: Option<String>,
    pub healed_at: Option<String>,
    pub healed_after_seconds: Option<f64>,
    #[serde(skip)]
    first_seen: Option<SystemTime>,
}

impl Watchdog {
    pub fn observe(&mut self, drifted: bool, at: SystemTime) {
        self.comparisons += 1;
        match (drifted, self.first_seen) {
            (true, None) => {
                self.first_seen = Some(at);
                self.drift_first_seen = Some(rfc3339_millis(at));
                self.healed_at = None;
                self.healed_after_seconds = None;
            }
            (false, Some(first)) if self.healed_at.is_none() => {
                self.healed_at = Some(rfc3339_millis(at));
                self.healed_after_seconds = at.duration_since(first).ok().map(|d| d.as_secs_f64());
            }
            // Drift again after it healed: a new episode, timed from now.
            (true, Some(_)) if self.healed_at.is_some() => {
                self.first_seen = Some(at);
                self.drift_first_seen = Some(rfc3339_millis(at));
                self.healed_at = None;
                self.healed_after_seconds = None;
            }
            _ => {}
        }
    }
}

impl DiffReport {
    pub fn drifted(&self) -> bool {
        !self.objects.is_empty()
    }
}

/// A report of `compared` objects of `lw`'s resource and scope compared at `resource_version`.
pub fn report(
    lw: &ListWatch,
    resource_version: String,
    method: Method,
    compared: usize,
    objects: Vec<Drift>,
    started: Instant,
) -> DiffReport {
    DiffReport {
        schema_version: REPORT_SCHEMA_VERSION,
        resource: lw.resource.qualified_name(),
        namespace: lw.namespace.clone(),
        resource_version,
        cache_resource_version: None,
        method,
        compared,
        drift: DriftCounts::of(&objects),
        objects,
        duration_seconds: started.elapsed().as_secs_f64(),
        time: rfc3339_millis(SystemTime::now()),
        watchdog: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_watchdog_reports_first_drift_and_healing() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let mut w = Watchdog::default();
        w.observe(false, t0);
        assert!(w.drift_first_seen.is_none());
        w.observe(true, t0 + Duration::from_secs(5));
        w.observe(true, t0 + Duration::from_secs(10));
        assert_eq!(
            w.drift_first_seen.as_deref(),
            Some(rfc3339_millis(t0 + Duration::from_secs(5)).as_str())
        );
        assert!(w.healed_at.is_none());
        w.observe(false, t0 + Duration::from_secs(12));
        assert_eq!(w.healed_after_seconds, Some(7.0));
        assert_eq!(w.comparisons, 4);
        // Drift comes back: a new episode, first seen now, not healed.
        w.observe(true, t0 + Duration::from_secs(20));
        assert!(w.healed_at.is_none());
        assert_eq!(
            w.drift_first_seen.as_deref(),
            Some(rfc3339_millis(t0 + Duration::from_secs(20)).as_str())
        );
        assert_eq!(w.healed_after_seconds, None);
        w.observe(false, t0 + Duration::from_secs(23));
        assert_eq!(w.healed_after_seconds, Some(3.0));
    }
}
