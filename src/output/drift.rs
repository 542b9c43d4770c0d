//! `diff` for people: the table of drifted objects, the one-line verdict of a comparison and the
//! watchdog's record of drift seen and healed.

use super::table::boxed;
use crate::diff::drift::{counts, Drift};
use crate::diff::report::{DiffReport, Method, Watchdog};
use crate::format::{count, format_seconds};
use std::io::Write;

/// Writes a table of drifted objects (nothing when there is none); `fields` adds the FIELDS
/// column of `--show-fields`.
pub fn write_drift(out: &mut impl Write, drift: &[Drift], fields: bool) -> std::io::Result<()> {
    if drift.is_empty() {
        return Ok(());
    }
    let mut table = boxed();
    let mut header = vec!["CLASS", "OBJECT", "CACHE RV", "SERVER RV", "UID"];
    if fields {
        header.push("FIELDS");
    }
    table.set_header(header);
    for d in drift {
        let object = match &d.namespace {
            Some(ns) => format!("{ns}/{}", d.name),
            None => d.name.clone(),
        };
        let mut row = vec![
            d.class.as_str().to_string(),
            object,
            d.cache_resource_version
                .clone()
                .unwrap_or_else(|| "-".into()),
            d.server_resource_version
                .clone()
                .unwrap_or_else(|| "-".into()),
            d.uid.clone(),
        ];
        if fields {
            row.push(d.fields.clone().unwrap_or_default());
        }
        table.add_row(row);
    }
    writeln!(out, "{table}")
}

/// How the LIST the cache was compared with was taken, in a verdict's words.
fn method(method: Method) -> &'static str {
    match method {
        Method::Exact => "exact LIST at the cache's RV",
        Method::ExactAfterCatchUp => {
            "exact LIST after the cache caught up: its RV was no longer listable"
        }
        Method::CacheFile => "saved cache against a consistent LIST now",
    }
}

/// A comparison's one-line verdict: `no drift: ...` or `drift: N class, ... in ...`.
pub fn verdict(report: &DiffReport) -> String {
    let at = format!(
        "{} compared at RV {} ({}), {}",
        count(report.compared as u64, "object"),
        report.resource_version,
        method(report.method),
        format_seconds(report.duration_seconds)
    );
    if !report.drifted() {
        return format!("no drift: {at}");
    }
    let per_class: Vec<String> = counts(&report.objects)
        .into_iter()
        .map(|(c, n)| format!("{n} {}", c.as_str()))
        .collect();
    format!("drift: {} in {at}", per_class.join(", "))
}

/// The watchdog's record, once drift was seen: when, and whether and when it healed.
pub fn watchdog(record: &Watchdog) -> Option<String> {
    let first = record.drift_first_seen.as_deref()?;
    Some(match (&record.healed_at, record.healed_after_seconds) {
        (Some(healed), Some(after)) => format!(
            "watchdog: drift first seen at {first}, healed at {healed} (after {})",
            format_seconds(after)
        ),
        _ => format!("watchdog: drift first seen at {first}, not healed"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn the_watchdog_line_says_first_drift_and_healing() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let mut w = Watchdog::default();
        w.observe(false, t0);
        assert_eq!(watchdog(&w), None);
        w.observe(true, t0 + Duration::from_secs(5));
        let line = watchdog(&w).unwrap();
        assert!(line.ends_with("not healed"), "{line}");
        w.observe(false, t0 + Duration::from_secs(12));
        let line = watchdog(&w).unwrap();
        assert!(
            line.contains("healed at ") && line.ends_with("(after 7s)"),
            "{line}"
        );
    }
}
