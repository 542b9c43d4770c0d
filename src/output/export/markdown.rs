//! The Markdown export (`--export-markdown`), for a pull-request comment: the tables, and
//! Mermaid charts (GitHub draws them in comments and job summaries) of backlog and depth over
//! the window and of the latencies' percentiles.

use super::chart::{gauge_series, latency_bars, millis, MAX_POINTS};
use crate::bench::report::BenchReport;
use crate::format::{format_number, format_seconds};
use crate::output::bench::{
    cells, counts_after_events, gauge_rows, latency_rows, reaction_line, source_line, HEADER,
};
use std::io::Write;

/// The report as Markdown, for a pull-request comment.
pub fn write(out: &mut impl Write, report: &BenchReport) -> std::io::Result<()> {
    writeln!(out, "### kubectl informer bench\n")?;
    writeln!(out, "{}\n", source_line(report))?;
    writeln!(out, "| {} |", HEADER.join(" | "))?;
    writeln!(out, "|---|{}", "---:|".repeat(HEADER.len() - 1))?;
    for (name, figures) in latency_rows(report) {
        writeln!(out, "| {} |", cells(name, &figures).join(" | "))?;
    }
    let c = &report.counters;
    writeln!(
        out,
        "\n| gauge | max | mean | at end |\n|---|---:|---:|---:|"
    )?;
    for (name, g) in gauge_rows(report) {
        writeln!(
            out,
            "| {name} | {} | {:.1} | {} |",
            g.summary.max, g.summary.mean, g.summary.last
        )?;
    }
    writeln!(
        out,
        "\n**{}** events {}",
        c.events,
        counts_after_events(report)
    )?;
    if let (Some(writes), Some(missed)) = (c.writes, c.writes_without_event) {
        writeln!(
            out,
            "\n{writes} writes measured, {missed} without a watch event"
        )?;
    }
    if let Some(line) = reaction_line(report) {
        writeln!(out, "\n{line}")?;
    }
    if let (Some(reconnects), Some(relists)) = (c.reconnects, c.relists) {
        writeln!(
            out,
            "\nwatch since the initial sync: {reconnects} reconnects, {relists} relists"
        )?;
    }
    write_charts(out, report)?;
    if !report.gates.is_empty() {
        writeln!(out, "\n**Gates**\n")?;
        for g in &report.gates {
            writeln!(
                out,
                "- {} {}",
                if g.failed { "❌ FAIL" } else { "✅ PASS" },
                g.reading()
            )?;
        }
    }
    if let Some(b) = &report.baseline {
        writeln!(
            out,
            "\n**Baseline** `{}` (tolerance {}%)\n\n| figure | baseline | now | change |\n|---|---:|---:|---:|",
            b.file,
            format_number(b.tolerance_percent)
        )?;
        for r in &b.comparisons {
            writeln!(
                out,
                "| {}{}.{} | {} | {} | {:+.1}% |",
                if r.regressed { "❌ " } else { "" },
                r.metric,
                r.stat,
                format_seconds(r.baseline),
                format_seconds(r.measured),
                r.change_percent
            )?;
        }
    }
    Ok(())
}

/// A number as Mermaid reads it, as short as it is exact (`0.038`, `1230`).
fn number(v: f64) -> String {
    format!("{v}")
}

/// The time charts (one per gauge: xychart has no legend) and the latency chart.
fn write_charts(out: &mut impl Write, report: &BenchReport) -> std::io::Result<()> {
    for g in gauge_series(report, MAX_POINTS) {
        let end = g.seconds.last().copied().unwrap_or(0.0);
        let top = g.values.iter().copied().max().unwrap_or(0).max(1);
        let values: Vec<String> = g.values.iter().map(u64::to_string).collect();
        writeln!(out, "\n```mermaid\nxychart-beta")?;
        writeln!(out, "    title \"{} over the window\"", g.title)?;
        writeln!(out, "    x-axis \"seconds\" 0 --> {}", number(end))?;
        writeln!(out, "    y-axis \"{}\" 0 --> {top}", g.unit)?;
        writeln!(out, "    line [{}]\n```", values.join(", "))?;
    }
    let bars = latency_bars(report);
    if !bars.is_empty() {
        let names: Vec<String> = bars.iter().map(|b| format!("\"{}\"", b.name)).collect();
        let column = |i: usize| -> Vec<String> {
            bars.iter().map(|b| number(millis(b.seconds[i]))).collect()
        };
        writeln!(out, "\n```mermaid\nxychart-beta")?;
        writeln!(out, "    title \"latency in ms: p99 (bars), p50 (line)\"")?;
        writeln!(out, "    x-axis [{}]", names.join(", "))?;
        writeln!(out, "    y-axis \"ms\"")?;
        writeln!(out, "    bar [{}]", column(2).join(", "))?;
        writeln!(out, "    line [{}]\n```", column(0).join(", "))?;
    }
    Ok(())
}
