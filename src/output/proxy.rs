//! `proxy`'s lines: each fault applied as a NOTICE line (text, stderr) or a JSON line (stdout),
//! the line saying where it serves, and the summary of the faults applied.

use crate::format::{local_time, rfc3339_millis};
use crate::proxy::engine::{Applied, Notice};
use crate::proxy::state::{Difference, Verdict};
use crate::proxy::workload::Settled;
use serde_json::{json, Value};
use std::time::{Duration, SystemTime};

/// The version of the JSON lines' schema (`schemas/proxy-line.v1.schema.json`).
pub const SCHEMA_VERSION: u32 = 1;

/// `14:03:07.512  NOTICE    sever:every=3s  watch deployments.apps -A from rv 12: ...`
pub fn notice_line(notice: &Notice) -> String {
    let request = match &notice.request {
        Some(r) => format!("{r}: "),
        None => String::new(),
    };
    let what = match notice.fault.is_empty() {
        true => notice.kind,
        false => &notice.fault,
    };
    format!(
        "{}  NOTICE    {what}  {request}{}",
        local_time(notice.at),
        notice.detail
    )
}

pub fn notice_json(notice: &Notice) -> Value {
    if let Some((event, pid)) = notice.controller {
        return json!({
            "schemaVersion": SCHEMA_VERSION,
            "type": "controller",
            "time": rfc3339_millis(notice.at),
            "event": event,
            "pid": pid,
            "detail": notice.detail,
        });
    }
    if notice.fault.is_empty() {
        return json!({
            "schemaVersion": SCHEMA_VERSION,
            "type": "refused",
            "time": rfc3339_millis(notice.at),
            "request": notice.request,
            "detail": notice.detail,
        });
    }
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "type": "fault",
        "time": rfc3339_millis(notice.at),
        "fault": notice.kind,
        "spec": notice.fault,
        "request": notice.request,
        "detail": notice.detail,
    })
}

/// The first JSON line: where the proxy serves, for which cluster, with which faults and seed.
/// The first line of `proxy` for people: where it serves, for which cluster, and the faults with
/// their seed when there are any.
pub fn serving_line(
    url: &str,
    context: &str,
    server: &str,
    seed: u64,
    faults: &[String],
) -> String {
    let faults = match faults.is_empty() {
        true => String::new(),
        false => format!(", faults {}, seed {seed}", faults.join(" ")),
    };
    format!("Starting to serve on {url} (context \"{context}\", server {server}){faults}")
}

pub fn serving_json(url: &str, context: &str, server: &str, seed: u64, faults: &[String]) -> Value {
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "type": "serving",
        "time": rfc3339_millis(SystemTime::now()),
        "url": url,
        "context": context,
        "server": server,
        "seed": seed,
        "faults": faults,
    })
}

pub fn summary_json(applied: &[Applied], ran: Duration) -> Value {
    let faults: Vec<Value> = applied
        .iter()
        .map(|a| {
            json!({
                "spec": a.fault,
                "applied": a.count,
                "first": a.first.map(rfc3339_millis),
                "last": a.last.map(rfc3339_millis),
            })
        })
        .collect();
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "type": "summary",
        "time": rfc3339_millis(SystemTime::now()),
        "seconds": (ran.as_secs_f64() * 1000.0).round() / 1000.0,
        "faults": faults,
    })
}

/// The summary for people: how often each fault was applied, first and last.
pub fn summary_text(applied: &[Applied], ran: Duration) -> String {
    let mut out = format!(
        "Faults applied in {}:\n",
        crate::format::format_seconds(ran.as_secs_f64())
    );
    let width = applied.iter().map(|a| a.fault.len()).max().unwrap_or(0);
    for a in applied {
        let when = match (a.first, a.last) {
            (Some(first), Some(last)) if a.count > 1 => {
                format!("  first {}, last {}", local_time(first), local_time(last))
            }
            (Some(first), _) => format!("  at {}", local_time(first)),
            _ => String::new(),
        };
        out.push_str(&format!(
            "  {:width$}  {:>9}{when}\n",
            a.fault,
            crate::format::count(a.count, "time"),
        ));
    }
    out
}

/// What one difference says, in the verdict's table and its JSON.
fn difference_parts(d: &Difference) -> (&'static str, String) {
    match d {
        Difference::Missing { count, .. } => (
            "missing",
            format!("{count} in the baseline, not in this run"),
        ),
        Difference::Extra { count, .. } => {
            ("extra", format!("{count} in this run, not in the baseline"))
        }
        Difference::Writes { key, baseline, run } => (
            match key.ends_with(" delete") {
                true => "deletes",
                false => "creates",
            },
            format!("{baseline} in the baseline, {run} in this run (the controller's, through the proxy)"),
        ),
        Difference::Workload { status } => (
            "workload",
            format!("ended with {status}, where the baselines' succeeded: what it waited for did not come, or a command of it failed (its output is on stderr)"),
        ),
        Difference::Content { fields, .. } => (
            "content",
            fields
                .iter()
                .map(|(path, base, run)| format!("{path}: {base} -> {run}"))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

/// The resource and name a difference is of (both empty for the workload's failure; the name
/// empty for creates and deletes, which are of a resource).
fn resource_and_name(d: &Difference) -> (&str, &str) {
    match d {
        Difference::Writes { key, .. } => (key.split(' ').next().unwrap_or(key), ""),
        Difference::Workload { .. } => ("", ""),
        _ => d.key().split_once(' ').unwrap_or((d.key(), "")),
    }
}

/// What a verdict is of: the run's namespace and resources, how many baselines, whose fields
/// were compared, and how the wait for the controller to finish ended.
pub struct VerdictOf<'a> {
    pub namespace: &'a str,
    pub resources: &'a [String],
    pub baselines: usize,
    /// The controller's field managers (whose fields were compared), unless `all_fields`.
    pub managers: &'a [String],
    pub all_fields: bool,
    pub settled: Settled,
    pub settle_limit: Duration,
}

/// Which fields were compared (or kept), as the verdict's first line and the saved line say it:
/// every field, or those of the controller's field managers.
fn fields_compared(all_fields: bool, managers: &[String]) -> String {
    match (all_fields, managers) {
        (true, _) => "every field".to_string(),
        (false, []) => "no field (the controller made no write)".to_string(),
        (false, managers) => format!(
            "the fields of {}",
            managers
                .iter()
                .map(|m| format!("{m:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `Saved the end state of secrets, configmaps in demo (3 objects, the fields of "manager") to
/// base.json`, on stderr after `--save-state`.
pub fn saved_line(
    state: &crate::proxy::state::State,
    namespace: &str,
    path: &std::path::Path,
) -> String {
    let objects = state.objects.values().map(Vec::len).sum::<usize>();
    format!(
        "Saved the end state of {} in {namespace} ({}, with {}) to {}\n",
        state.resources.join(", "),
        crate::format::count(objects as u64, "object"),
        fields_compared(state.all_fields, &state.managers),
        path.display()
    )
}

/// The verdict: a line saying what was compared and what was found, the table of differences,
/// then what a reader must know to trust it (one baseline; a controller still writing).
pub fn verdict_text(verdict: &Verdict, of: &VerdictOf) -> String {
    let parts: Vec<String> = [
        (verdict.unstable_keys, "object"),
        (verdict.unstable_fields, "field"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, what)| crate::format::count(*n as u64, what))
    .collect();
    let left_out = match parts.is_empty() {
        true => String::new(),
        false => format!(
            " ({} the baselines differ on left out)",
            parts.join(" and ")
        ),
    };
    let mut out = format!(
        "End state of {} in {} (their objects with {}, the controller's creates and deletes, how the workload ended) against {}: {}{left_out}\n",
        of.resources.join(", "),
        of.namespace,
        fields_compared(of.all_fields, of.managers),
        crate::format::count(of.baselines as u64, "baseline"),
        match verdict.differences.len() {
            0 => "the same".to_string(),
            n => crate::format::count(n as u64, "difference"),
        }
    );
    if !verdict.differences.is_empty() {
        let mut table = super::table::boxed();
        table.set_header(["RESOURCE", "NAME", "DIFFERENCE", "DETAIL"]);
        for d in &verdict.differences {
            let (resource, name) = resource_and_name(d);
            let (what, detail) = difference_parts(d);
            table.add_row([resource, name, what, &detail]);
        }
        out.push_str(&table.to_string());
        out.push('\n');
    }
    if !of.settled.quiet {
        out.push_str(&format!(
            "The controller was still writing {} after the workload (--settle-limit {}): the end state was taken then.\n",
            crate::format::human(of.settled.waited),
            crate::format::duration(of.settle_limit)
        ));
    }
    if of.baselines == 1 {
        out.push_str("With one baseline, a value that is new on every run (a generated password, a random port) cannot be told from a finding: give --compare-state a second fault-free run's state, and what the two differ on is left out.\n");
    }
    out
}

/// The verdict as a JSON line (`type` "verdict").
pub fn verdict_json(verdict: &Verdict, of: &VerdictOf) -> Value {
    let differences: Vec<Value> = verdict
        .differences
        .iter()
        .map(|d| {
            let (resource, name) = resource_and_name(d);
            let (what, _) = difference_parts(d);
            let mut line = json!({"resource": resource, "name": name, "difference": what});
            match d {
                Difference::Writes { baseline, run, .. } => {
                    line["baselineCount"] = json!(baseline);
                    line["runCount"] = json!(run);
                }
                Difference::Missing { count, .. } | Difference::Extra { count, .. } => {
                    line["count"] = json!(count)
                }
                Difference::Workload { status } => line["status"] = json!(status),
                Difference::Content { fields, .. } => {
                    line["fields"] = fields
                        .iter()
                        .map(
                            |(path, base, run)| json!({"path": path, "baseline": base, "run": run}),
                        )
                        .collect();
                }
            }
            line
        })
        .collect();
    json!({
        "schemaVersion": SCHEMA_VERSION, "type": "verdict",
        "time": rfc3339_millis(SystemTime::now()),
        "namespace": of.namespace, "resources": of.resources, "baselines": of.baselines,
        "differences": differences,
        "unstableObjects": verdict.unstable_keys, "unstableFields": verdict.unstable_fields,
        "managers": of.managers, "allFields": of.all_fields,
        "settledAfterMs": of.settled.waited.as_millis() as u64, "quiet": of.settled.quiet,
    })
}
