//! The Markdown export (`--export-markdown`), for a pull-request comment: the tables, and
//! Mermaid charts (GitHub draws them in comments and job summaries) of backlog and depth over
//! the window and of the latencies' percentiles; with `--metrics-from`, the controller's
//! section and a chart of its busiest queues' depth.

use super::chart::{busiest_depths, gauge_series, latency_bars, millis, MAX_POINTS};
use crate::bench::report::BenchReport;
use crate::format::{format_number, format_seconds};
use crate::output::bench::{
    cells, counts_after_events, gate_reading, gauge_rows, latency_rows, reaction_line, source_line,
    HEADER,
};
use crate::output::controller::{
    controller_lines, informer_rows, queue_rows, window_line, INFORMER_HEADER, QUEUE_HEADER,
};
use crate::scrape::window::ControllerFigures;
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
    if let Some(c) = &report.controller {
        write_controller(out, c)?;
    }
    if !report.gates.is_empty() {
        writeln!(out, "\n**Gates**\n")?;
        for g in &report.gates {
            writeln!(
                out,
                "- {} {}",
                if g.failed { "❌ FAIL" } else { "✅ PASS" },
                gate_reading(g)
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
                "| {}{} | {} | {} | {:+.1}% |",
                if r.regressed { "❌ " } else { "" },
                r.figure(),
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

/// Foreign text (a queue's, an informer's or a reconciler's name) in a table cell or a line: a
/// pipe would end the cell, a line end the row, and `<` could open an HTML tag GitHub drops.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace(['\r', '\n'], " ")
}

/// A table of `rows` under `header`, the first column left-aligned and the figures right.
fn table<const N: usize>(
    out: &mut impl Write,
    header: [&str; N],
    rows: &[[String; N]],
) -> std::io::Result<()> {
    writeln!(out, "\n| {} |", header.join(" | "))?;
    writeln!(out, "|---|{}", "---:|".repeat(N - 1))?;
    for row in rows {
        let row: Vec<String> = row.iter().map(|c| cell(c)).collect();
        writeln!(out, "| {} |", row.join(" | "))?;
    }
    Ok(())
}

/// The controller's section (`--metrics-from`): its scrapes, the busy queues and informers,
/// throttling, reconcilers and the idle count, and a chart of the busiest queues' depth.
fn write_controller(out: &mut impl Write, c: &ControllerFigures) -> std::io::Result<()> {
    writeln!(
        out,
        "\n**Controller** `{}`: {}",
        c.target.replace(['\r', '\n'], " "),
        window_line(c)
    )?;
    let queues = queue_rows(c);
    if !queues.is_empty() {
        table(out, QUEUE_HEADER, &queues)?;
    }
    let informers = informer_rows(c);
    if !informers.is_empty() {
        table(out, INFORMER_HEADER, &informers)?;
    }
    for line in controller_lines(c) {
        writeln!(out, "\n{}", cell(&line))?;
    }
    write_depth_chart(out, c)
}

/// The busiest queues' depth over the window, a line each in one chart; the sentence under it
/// names the lines, since xychart draws no legend.
fn write_depth_chart(out: &mut impl Write, c: &ControllerFigures) -> std::io::Result<()> {
    let Some(d) = busiest_depths(c, MAX_POINTS) else {
        return Ok(());
    };
    let end = d.seconds.last().copied().unwrap_or(0.0);
    let top = d.lines.iter().map(|(_, max, _)| *max).fold(1.0, f64::max);
    writeln!(out, "\n```mermaid\nxychart-beta")?;
    writeln!(
        out,
        "    title \"controller workqueue depth over the window\""
    )?;
    writeln!(out, "    x-axis \"seconds\" 0 --> {}", number(end))?;
    writeln!(out, "    y-axis \"items\" 0 --> {}", number(top.ceil()))?;
    for (_, _, values) in &d.lines {
        let values: Vec<String> = values.iter().map(|v| number(*v)).collect();
        writeln!(out, "    line [{}]", values.join(", "))?;
    }
    writeln!(out, "```")?;
    let names: Vec<String> = d
        .lines
        .iter()
        .map(|(name, max, _)| format!("{} (max {})", cell(name), number(*max)))
        .collect();
    writeln!(
        out,
        "\nLines in the order drawn: {}; the deepest queues, at most {}.",
        names.join(", "),
        super::chart::BUSIEST_QUEUES
    )
}

#[cfg(test)]
mod tests {
    use super::super::chart::tests::{controller, report};
    use super::*;

    fn markdown(report: &BenchReport) -> String {
        let mut out = Vec::new();
        write(&mut out, report).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_controller_section_has_the_busy_queues_and_a_line_per_deep_queue() {
        let text = markdown(&report(Some(controller())));
        for line in [
            "**Controller** `pod/kube-system/kube-controller-manager`: 5 scrapes over 3s, 1 gap; \
             percentiles are bucket bounds (≤ the bucket's upper edge)",
            "| queue | depth max | mean | end | adds | retries | queue p50 | queue p99 | work p50 | work p99 |",
            "| deployment | 7 | 2.5 | 1 | 40 | 4 | ≤1s | >10s | ≤10ms | >10s |",
            "| a\\|&lt;b>&\"c\"\\ d | 3 | 1.0 | 0 | 5 | 0.5 | ≤1s | >10s | ≤10ms | >10s |",
            "| deployments apps/v1 | 0 | - | 12 | 250ms | 50ms |",
            "client throttling: p50 ≤100ms, p99 >10s (3 requests waited on the rate limiter)",
            "reconciler certificate: 12 reconciles, 1 errors, time p50 ≤10ms p99 >10s",
            "not shown, idle: 1 queue and 1 informer (all in the JSON report)",
            "    title \"controller workqueue depth over the window\"",
            "    x-axis \"seconds\" 0 --> 3",
            "    y-axis \"items\" 0 --> 7",
            "    line [0, 7, 3, 1]",
            "    line [1, 3, 0, 0]",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        assert!(!text.contains("| idle |"), "{text}");
        assert!(!text.contains("configmaps"), "{text}");
        let chart = text.split("```mermaid\nxychart-beta\n").last().unwrap();
        assert_eq!(chart.matches("    line [").count(), 2, "{chart}");
        assert!(
            chart.contains(
                "Lines in the order drawn: deployment (max 7), a\\|&lt;b>&\"c\"\\ d (max 3);"
            ),
            "{chart}"
        );
    }

    #[test]
    fn a_report_without_the_section_writes_none_of_it() {
        let mut with = report(Some(controller()));
        let text = markdown(&with);
        let without = markdown(&report(None));
        assert!(!without.contains("Controller") && !without.contains("deployment"));
        assert!(
            text.starts_with(without.trim_end()),
            "the section comes after the rest"
        );
        with.controller.as_mut().unwrap().timeline = Default::default();
        assert!(!markdown(&with).contains("xychart"), "no depth, no chart");
    }
}
