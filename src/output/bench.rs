//! `bench` for people: the figures as a table on stdout, and the progress line (the rows and
//! lines here are shared with the Markdown export).

use crate::bench::gate::{Gate, GateResult, Metric, MetricKind, Spelling};
use crate::bench::report::{BaselineReport, BenchReport, GaugeFigures, LatencyFigures, Source};
use crate::bench::run::Tick;
use crate::format::{format_number, format_seconds};
use comfy_table::{CellAlignment, Table};
use std::io::Write;
use std::time::Duration;

/// The columns: statistics named as the report's JSON and gates name them.
pub(crate) const HEADER: [&str; 8] = [
    "METRIC", "p50", "p90", "p99", "p999", "max", "mean", "count",
];

/// The latency rows: name (as the report's JSON and gates name it) and figures, watch and
/// reaction latency only when measured.
pub(crate) fn latency_rows(report: &BenchReport) -> Vec<(&'static str, LatencyFigures)> {
    Metric::of_kind(MetricKind::Latency)
        .filter_map(|m| Some((m.name(), *m.latency(report)?)))
        .collect()
}

/// `--react`'s counts: reactions measured, writes without one, writes superseded.
pub(crate) fn reaction_line(report: &BenchReport) -> Option<String> {
    let c = &report.counters;
    let (without, superseded) = (c.writes_without_reaction?, c.superseded?);
    let reacted = report.metrics.reaction_latency.map_or(0, |r| r.count);
    Some(format!(
        "reactions: {reacted} measured, {without} writes without a reaction, {superseded} \
         superseded (coalesced with a newer write)"
    ))
}

/// The gauge rows, as every format names them.
pub(crate) fn gauge_rows(report: &BenchReport) -> [(&'static str, &GaugeFigures); 2] {
    let m = &report.metrics;
    [
        ("backlog (worst handler)", &m.backlog),
        ("workqueue depth", &m.depth),
    ]
}

/// The window's counts after the number of events, as the Markdown and HTML exports write them
/// (`in 20.00s (99.9/s) · workqueue adds 3867 · deduplicated 135 · retries 0`).
pub(crate) fn counts_after_events(report: &BenchReport) -> String {
    let c = &report.counters;
    format!(
        "in {} ({}/s) · workqueue adds {} · deduplicated {} · retries {}",
        format_seconds(report.window_seconds),
        events_rate(report),
        c.adds,
        c.deduplicated,
        c.retries
    )
}

pub(crate) fn cells(name: &str, f: &LatencyFigures) -> Vec<String> {
    let mut row = vec![name.to_string()];
    row.extend(
        [f.p50, f.p90, f.p99, f.p999, f.max, f.mean]
            .map(|v| v.map(format_seconds).unwrap_or_else(|| "-".to_string())),
    );
    row.push(f.count.to_string());
    row
}

fn gauge_line(f: &GaugeFigures) -> String {
    format!(
        "max {}, mean {:.1}, at end {}",
        f.summary.max, f.summary.mean, f.summary.last
    )
}

/// `, read in protobuf`: the wire encoding of a live run, when known.
fn read_in(encoding: Option<&str>) -> String {
    encoding.map_or_else(String::new, |e| format!(", read in {e}"))
}

pub(crate) fn source_line(report: &BenchReport) -> String {
    let c = &report.config;
    let source = match &report.source {
        Source::Live {
            resource,
            namespace,
            churn: true,
            encoding,
        } => format!(
            "{resource} in namespace {}, {} objects, {} writes/s{}",
            namespace.as_deref().unwrap_or_default(),
            c.objects.unwrap_or(0),
            format_number(c.rate.unwrap_or(0.0)),
            read_in(*encoding)
        ),
        Source::Live {
            resource,
            namespace,
            churn: false,
            encoding,
        } => {
            let scope = match namespace {
                Some(namespace) => format!("namespace {namespace}"),
                None => "all namespaces".to_string(),
            };
            format!(
                "{resource} in {scope}, its own traffic{}",
                read_in(*encoding)
            )
        }
        Source::File { path, speed } => format!("replay of {path} at speed {speed}"),
    };
    let count = |n: usize, what: &str| {
        if n == 1 {
            format!("1 {what}")
        } else {
            format!("{n} {what}s")
        }
    };
    format!(
        "{source}; {} taking {} each, {} taking {} each",
        count(c.handlers, "handler"),
        c.handler_time,
        count(c.workers, "worker"),
        c.work_time
    )
}

/// Events per second, to a tenth.
pub(crate) fn events_rate(report: &BenchReport) -> String {
    format_number((report.counters.events_per_second * 10.0).round() / 10.0)
}

/// What the run cost in CPU: the bench process, and the load generator's part of it. CPU time
/// is read from Linux's /proc; on another system the line says it was not measured.
fn cpu_line(report: &BenchReport) -> Option<String> {
    let Some(process) = report.process_cpu_seconds else {
        return (!cfg!(target_os = "linux")).then(|| {
            "cpu in the window: not measured (read from /proc, which only Linux has)".to_string()
        });
    };
    let window = report.window_seconds.max(1e-9);
    let share = |s: f64| format!("{s:.2}s, {:.1}% of one core", s / window * 100.0);
    let mut line = format!("cpu in the window: bench process {}", share(process));
    if let Some(generator) = report.generator.as_ref().and_then(|g| g.cpu_seconds) {
        line.push_str(&format!(
            ", of which the load generator {}",
            share(generator)
        ));
    }
    Some(line)
}

/// The report as people read it: a table of latencies, then gauges, counters, gates, baseline.
pub fn write_text(out: &mut impl Write, report: &BenchReport) -> std::io::Result<()> {
    writeln!(out, "{}", source_line(report))?;
    if report.cut {
        writeln!(
            out,
            "stopped early: the window was cut at {} of {} (Ctrl-C or SIGTERM); the figures are of that part",
            format_seconds(report.window_seconds),
            report.config.duration.as_deref().unwrap_or("its length")
        )?;
    }
    writeln!(out, "{}", latency_table(report))?;
    write_counts(out, report)?;
    if let Some(c) = &report.controller {
        super::controller::write_controller(out, c)?;
    }
    for g in &report.gates {
        writeln!(out, "{}", gate_line(g))?;
    }
    if let Some(b) = &report.baseline {
        write_baseline(out, b)?;
    }
    Ok(())
}

/// A judged gate as one line that reads the right way round: the verdict, then
/// [`gate_reading`].
pub(crate) fn gate_line(result: &GateResult) -> String {
    let verdict = if result.failed { "FAIL" } else { "PASS" };
    format!("{verdict} {}", gate_reading(result))
}

/// The figure, then what would fail it (`queueDuration.p99 = 88µs (fails if > 50ms)`), as
/// k6 and hyperfine show a threshold beside the value rather than the condition alone,
/// which reads as if the condition held.
pub(crate) fn gate_reading(result: &GateResult) -> String {
    let figure = result.gate.figure_name();
    let condition = result.gate.condition();
    let (op, threshold) = (condition.op.as_str(), &condition.written);
    match result.reading {
        Some(_) => format!(
            "{figure} = {} (fails if {op} {threshold})",
            result.display()
        ),
        None => format!(
            "{figure}: {} (fails if {op} {threshold}, or when not measured)",
            result.display()
        ),
    }
}

/// The warning for a gate that names its metric as report schema version 1 did (the command
/// adds its own name before it).
pub fn deprecated_gate(gate: &Gate) -> Option<String> {
    let Gate::Pipeline { figure, expr, .. } = gate else {
        return None;
    };
    (figure.spelling == Spelling::SchemaV1).then(|| {
        format!(
            "--fail-if '{expr}': {} is a deprecated name (report schema version 1); write {} \
             as the report's JSON names it",
            figure.metric.v1_name(),
            figure.metric.name()
        )
    })
}

/// The latency rows as a table, the figures aligned right.
fn latency_table(report: &BenchReport) -> Table {
    let mut table = super::table::boxed();
    table.set_header(HEADER);
    for (name, figures) in latency_rows(report) {
        table.add_row(cells(name, &figures));
    }
    for i in 1..HEADER.len() {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
    table
}

/// A line each for the gauges, the window's events and what it counted beside them (writes,
/// reactions, the watch's re-opens, CPU), and the drain.
fn write_counts(out: &mut impl Write, report: &BenchReport) -> std::io::Result<()> {
    let c = &report.counters;
    for (name, g) in gauge_rows(report) {
        writeln!(out, "{name}: {}", gauge_line(g))?;
    }
    writeln!(
        out,
        "events: {} in {} ({}/s); workqueue adds {}, deduplicated {}, retries {}",
        c.events,
        format_seconds(report.window_seconds),
        events_rate(report),
        c.adds,
        c.deduplicated,
        c.retries
    )?;
    if let (Some(writes), Some(missed), Some(g)) =
        (c.writes, c.writes_without_event, &report.generator)
    {
        writeln!(
            out,
            "writes: {writes} measured, {missed} without a watch event; generator {:.1}/s of \
             {}/s asked, late by up to {}",
            g.achieved_rate,
            format_number(g.requested_rate),
            format_seconds(g.max_late_seconds)
        )?;
    }
    if let Some(line) = reaction_line(report) {
        writeln!(out, "{line}")?;
    }
    if let (Some(reconnects), Some(relists)) = (c.reconnects, c.relists) {
        writeln!(
            out,
            "watch since the initial sync: {reconnects} reconnects, {relists} relists"
        )?;
    }
    if let Some(line) = cpu_line(report) {
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "drained in {} after the source ended",
        format_seconds(report.drain_seconds)
    )
}

/// The comparison with `--baseline`: settings that differ, how many figures regressed, and
/// each one that did.
fn write_baseline(out: &mut impl Write, b: &BaselineReport) -> std::io::Result<()> {
    for d in &b.config_differences {
        writeln!(out, "baseline was run with other settings: {d}")?;
    }
    let regressed: Vec<_> = b.comparisons.iter().filter(|c| c.regressed).collect();
    writeln!(
        out,
        "baseline {} (tolerance {}%): {} of {} figures regressed",
        b.file,
        format_number(b.tolerance_percent),
        regressed.len(),
        b.comparisons.len()
    )?;
    for r in regressed {
        writeln!(
            out,
            "REGRESSED {} {} → {} ({:+.1}%)",
            r.figure(),
            format_seconds(r.baseline),
            format_seconds(r.measured),
            r.change_percent
        )?;
    }
    Ok(())
}

/// One line for the progress bar: elapsed of total, events/s, backlog, depth.
pub fn progress_line(t: &Tick, total: Option<Duration>) -> String {
    let elapsed = t.elapsed.as_secs_f64();
    let time = match total {
        Some(total) => format!("{elapsed:.0}s/{:.0}s", total.as_secs_f64()),
        None => format!("{elapsed:.0}s"),
    };
    format!(
        "{time}{} · {} events ({:.0}/s) · backlog {} · depth {}",
        if t.warming_up { " (warm-up)" } else { "" },
        t.events,
        t.events_per_second,
        t.backlog,
        t.depth
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::gate::{Reading, Unit};

    fn judged(expr: &str, reading: Option<(f64, Unit)>, failed: bool) -> GateResult {
        GateResult {
            gate: Gate::parse(expr).unwrap(),
            reading: reading.map(|(value, unit)| Reading {
                value,
                unit,
                of: None,
            }),
            failed,
        }
    }

    #[test]
    fn a_result_reads_as_the_figure_then_what_would_fail_it() {
        let cases = [
            (
                judged(
                    "queueDuration.p99 > 50ms",
                    Some((0.000088, Unit::Seconds)),
                    false,
                ),
                "PASS queueDuration.p99 = 88µs (fails if > 50ms)",
            ),
            (
                judged(
                    "queueDuration.p99 > 50ms",
                    Some((0.0732, Unit::Seconds)),
                    true,
                ),
                "FAIL queueDuration.p99 = 73.2ms (fails if > 50ms)",
            ),
            (
                judged("retries<=0", Some((0.0, Unit::Number)), true),
                "FAIL retries = 0 (fails if <= 0)",
            ),
            (
                judged("watch_latency.p99 >  1s ", None, true),
                "FAIL watch_latency.p99: not measured in this run (fails if > 1s, or when not \
                 measured)",
            ),
            (
                judged(
                    "controller.queueDuration.p99{name=deployment} > 1s",
                    Some((f64::INFINITY, Unit::Bucket { above: 10.0 })),
                    true,
                ),
                "FAIL controller.queueDuration.p99{name=deployment} = >10s (fails if > 1s)",
            ),
        ];
        for (result, line) in cases {
            assert_eq!(gate_line(&result), line);
        }
    }

    #[test]
    fn a_gate_in_the_snake_case_of_schema_version_1_is_warned_about() {
        let warning = |expr: &str| deprecated_gate(&Gate::parse(expr).unwrap());
        assert_eq!(
            warning("queue_duration.p99 > 50ms").as_deref(),
            Some(
                "--fail-if 'queue_duration.p99 > 50ms': queue_duration is a deprecated name \
                 (report schema version 1); write queueDuration as the report's JSON names it"
            )
        );
        assert_eq!(warning("queueDuration.p99 > 50ms"), None);
        assert_eq!(warning("retries > 0"), None);
        assert_eq!(warning("controller.retries > 0"), None);
    }
}
