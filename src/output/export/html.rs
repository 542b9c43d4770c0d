//! The HTML export (`--export-html`): one self-contained page (inline CSS and SVG; no script,
//! no font, nothing fetched) with the tables and the charts of the Markdown export, drawn to
//! scale: backlog and depth against the time of each sample, percentiles on a log scale; with
//! `--metrics-from`, the controller's section and its busiest queues' depth against time.

use super::chart::{
    busiest_depths, gauge_series, latency_bars, millis, DepthLines, GaugeSeries, LatencyBars,
    PERCENTILES,
};
use crate::bench::report::BenchReport;
use crate::format::format_seconds;
use crate::output::bench::{
    cells, counts_after_events, gate_reading, gauge_rows, latency_rows, reaction_line, source_line,
    HEADER,
};
use crate::output::controller::{
    controller_lines, informer_rows, queue_rows, window_line, INFORMER_HEADER, QUEUE_HEADER,
};
use std::fmt::Write as _;
use std::io::Write;

/// The most points a time chart draws (an SVG of a long run stays small).
const MAX_POINTS: usize = 600;
const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 240.0;
/// The plot area's margins: left (y labels), right, top (title), bottom (x labels).
const MARGIN: (f64, f64, f64, f64) = (64.0, 16.0, 30.0, 40.0);
const COLORS: [&str; 4] = ["#4e79a7", "#f28e2b", "#e15759", "#59a14f"];

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2em auto;max-width:760px;\
color:#222}table{border-collapse:collapse;margin:1em 0}th,td{padding:.25em .7em;\
border-bottom:1px solid #ddd;text-align:right;font-variant-numeric:tabular-nums}\
th:first-child,td:first-child{text-align:left}svg{display:block;margin:1em 0}\
svg text{font-size:12px;fill:#444}.fail{color:#b00020}.pass{color:#1b7f3b}";

/// The report as one HTML page.
pub fn write(out: &mut impl Write, report: &BenchReport) -> std::io::Result<()> {
    let mut page = String::new();
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        page,
        "<title>kubectl informer bench</title>\n<style>{STYLE}</style>"
    );
    page.push_str("</head>\n<body>\n<h1>kubectl informer bench</h1>\n");
    let _ = writeln!(page, "<p>{}</p>", escape(&source_line(report)));
    let _ = writeln!(page, "<p>{}</p>", escape(&report.time));
    latency_section(&mut page, report);
    gauge_section(&mut page, report);
    counters_section(&mut page, report);
    controller_section(&mut page, report);
    gates_section(&mut page, report);
    baseline_section(&mut page, report);
    page.push_str("</body>\n</html>\n");
    out.write_all(page.as_bytes())
}

/// The latencies' table, and their percentiles' chart when any was measured.
fn latency_section(page: &mut String, report: &BenchReport) {
    page.push_str("<h2>Latency</h2>\n<table>\n<tr>");
    for h in HEADER {
        let _ = write!(page, "<th>{}</th>", escape(h));
    }
    page.push_str("</tr>\n");
    for (name, figures) in latency_rows(report) {
        page.push_str("<tr>");
        for c in cells(name, &figures) {
            let _ = write!(page, "<td>{}</td>", escape(&c));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
    let bars = latency_bars(report);
    if !bars.is_empty() {
        page.push_str(&percentile_chart(&bars));
    }
}

/// The gauges' table, and each gauge's chart over the window.
fn gauge_section(page: &mut String, report: &BenchReport) {
    page.push_str("<h2>Backlog and workqueue depth</h2>\n<table>\n");
    page.push_str("<tr><th>gauge</th><th>max</th><th>mean</th><th>at end</th></tr>\n");
    for (name, g) in gauge_rows(report) {
        let s = &g.summary;
        let _ = writeln!(
            page,
            "<tr><td>{name}</td><td>{}</td><td>{:.1}</td><td>{}</td></tr>",
            s.max, s.mean, s.last
        );
    }
    page.push_str("</table>\n");
    for g in gauge_series(report, MAX_POINTS) {
        page.push_str(&time_chart(&g));
    }
}

/// The window's counts, a paragraph each: events, writes, reactions, reconnects and relists.
fn counters_section(page: &mut String, report: &BenchReport) {
    let c = &report.counters;
    let _ = writeln!(
        page,
        "<p><b>{}</b> events {}</p>",
        c.events,
        escape(&counts_after_events(report))
    );
    if let (Some(writes), Some(missed)) = (c.writes, c.writes_without_event) {
        let _ = writeln!(
            page,
            "<p>{writes} writes measured, {missed} without a watch event</p>"
        );
    }
    if let Some(line) = reaction_line(report) {
        let _ = writeln!(page, "<p>{}</p>", escape(&line));
    }
    if let (Some(reconnects), Some(relists)) = (c.reconnects, c.relists) {
        let _ = writeln!(
            page,
            "<p>watch since the initial sync: {reconnects} reconnects, {relists} relists</p>"
        );
    }
}

/// The controller's section (`--metrics-from`), when the run has one: its scrapes, the busy
/// queues and informers, throttling, reconcilers and the idle count, and the busiest queues'
/// depth over the window.
fn controller_section(page: &mut String, report: &BenchReport) {
    let Some(c) = &report.controller else {
        return;
    };
    let _ = writeln!(
        page,
        "<h2>Controller</h2>\n<p><code>{}</code>: {}</p>",
        escape(&c.target),
        escape(&window_line(c))
    );
    let queues = queue_rows(c);
    if !queues.is_empty() {
        table(page, QUEUE_HEADER, &queues);
    }
    let informers = informer_rows(c);
    if !informers.is_empty() {
        table(page, INFORMER_HEADER, &informers);
    }
    for line in controller_lines(c) {
        let _ = writeln!(page, "<p>{}</p>", escape(&line));
    }
    if let Some(d) = busiest_depths(c, MAX_POINTS) {
        page.push_str(&depth_chart(&d));
    }
}

/// A table of `rows` under `header`, every cell escaped.
fn table<const N: usize>(page: &mut String, header: [&str; N], rows: &[[String; N]]) {
    page.push_str("<table>\n<tr>");
    for h in header {
        let _ = write!(page, "<th>{}</th>", escape(h));
    }
    page.push_str("</tr>\n");
    for row in rows {
        page.push_str("<tr>");
        for c in row {
            let _ = write!(page, "<td>{}</td>", escape(c));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
}

/// The `--fail-if` gates, each PASS or FAIL, when any was given.
fn gates_section(page: &mut String, report: &BenchReport) {
    if report.gates.is_empty() {
        return;
    }
    page.push_str("<h2>Gates</h2>\n<ul>\n");
    for g in &report.gates {
        let (class, verdict) = if g.failed {
            ("fail", "FAIL")
        } else {
            ("pass", "PASS")
        };
        let _ = writeln!(
            page,
            "<li class=\"{class}\">{verdict} {}</li>",
            escape(&gate_reading(g))
        );
    }
    page.push_str("</ul>\n");
}

/// The comparison with `--baseline`, when one was given: each figure then and now.
fn baseline_section(page: &mut String, report: &BenchReport) {
    let Some(b) = &report.baseline else {
        return;
    };
    let _ = writeln!(
        page,
        "<h2>Baseline</h2>\n<p><code>{}</code>, tolerance {}%</p>\n<table>\n\
         <tr><th>figure</th><th>baseline</th><th>now</th><th>change</th></tr>",
        escape(&b.file),
        b.tolerance_percent
    );
    for r in &b.comparisons {
        let _ = writeln!(
            page,
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{:+.1}%</td></tr>",
            if r.regressed { " class=\"fail\"" } else { "" },
            escape(&r.figure()),
            format_seconds(r.baseline),
            format_seconds(r.measured),
            r.change_percent
        );
    }
    page.push_str("</table>\n");
}

/// Text for HTML, in an element or an attribute.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A tick step for `range` in about `ticks` steps: 1, 2 or 5 times a power of ten.
fn step(range: f64, ticks: f64) -> f64 {
    let raw = (range / ticks).max(f64::MIN_POSITIVE);
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// The plot area: (left, top, width, height).
fn plot_area() -> (f64, f64, f64, f64) {
    let (l, r, t, b) = MARGIN;
    (l, t, WIDTH - l - r, HEIGHT - t - b)
}

fn svg_open(svg: &mut String, title: &str, data: &str) {
    let _ = writeln!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"{t}\" {data}>\n\
         <text x=\"{}\" y=\"18\" style=\"font-weight:600\">{t}</text>",
        MARGIN.0,
        t = escape(title)
    );
}

/// A horizontal line across the plot area at height `y`, labelled `value` on the left.
fn grid_line(svg: &mut String, y: f64, value: f64) {
    let (left, _, width, _) = plot_area();
    let _ = writeln!(
        svg,
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#e5e5e5\"/>\
         <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{value}</text>",
        left + width,
        left - 6.0,
        y + 4.0
    );
}

/// One line of a time chart: its values at the chart's times. A named line (one of several)
/// carries its name and values on its polyline, and its name as a tooltip.
struct Line<'a> {
    name: Option<&'a str>,
    values: Vec<f64>,
}

/// A gauge against the time of each sample.
fn time_chart(g: &GaugeSeries) -> String {
    let join = |v: Vec<String>| v.join(" ");
    let data = format!(
        "data-chart=\"timeline\" data-unit=\"{}\" data-seconds=\"{}\" data-values=\"{}\"",
        g.unit,
        join(g.seconds.iter().map(f64::to_string).collect()),
        join(g.values.iter().map(u64::to_string).collect())
    );
    let line = Line {
        name: None,
        values: g.values.iter().map(|v| *v as f64).collect(),
    };
    let title = format!("{} over the window", g.title);
    lines_chart(&title, g.unit, &g.seconds, &[line], &data)
}

/// The busiest queues' depth against the time of each scrape, a line each in the palette's
/// order, and a legend under the chart naming them (queue names are too long to fit in it).
fn depth_chart(d: &DepthLines) -> String {
    let seconds: Vec<String> = d.seconds.iter().map(f64::to_string).collect();
    let data = format!(
        "data-chart=\"controller-depth\" data-unit=\"items\" data-seconds=\"{}\"",
        seconds.join(" ")
    );
    let lines: Vec<Line> = d
        .lines
        .iter()
        .map(|(name, _, values)| Line {
            name: Some(name),
            values: values.clone(),
        })
        .collect();
    let title = "controller workqueue depth over the window";
    let mut html = lines_chart(title, "items", &d.seconds, &lines, &data);
    let legend: Vec<String> = d
        .lines
        .iter()
        .zip(COLORS.iter().cycle())
        .map(|((name, max, _), color)| {
            format!(
                "<span style=\"color:{color}\">■</span> {} (max {max})",
                escape(name)
            )
        })
        .collect();
    let _ = writeln!(html, "<p>{}</p>", legend.join(", "));
    html
}

/// `lines` against `seconds` (one value of each line per time): a grid of about four steps up
/// to the largest value (at least 1), about six steps of time.
fn lines_chart(title: &str, unit: &str, seconds: &[f64], lines: &[Line], data: &str) -> String {
    let (left, top, width, height) = plot_area();
    let x_max = seconds.last().copied().unwrap_or(0.0).max(0.1);
    let peak = lines
        .iter()
        .flat_map(|l| l.values.iter().copied())
        .fold(1.0, f64::max);
    let y_step = step(peak, 4.0).max(1.0);
    let y_max = (peak / y_step).ceil() * y_step;
    let x = |s: f64| left + s / x_max * width;
    let y = |v: f64| top + height - v / y_max * height;
    let mut svg = String::new();
    svg_open(&mut svg, title, data);
    let mut v = 0.0;
    while v <= y_max {
        grid_line(&mut svg, y(v), v);
        v += y_step;
    }
    let x_step = step(x_max, 6.0);
    let mut s = 0.0;
    while s <= x_max + 1e-9 {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x(s),
            top + height + 16.0,
            (s * 1000.0).round() / 1000.0
        );
        s += x_step;
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">seconds</text>\
         <text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">{}</text>",
        left + width / 2.0,
        HEIGHT - 4.0,
        top + height / 2.0,
        top + height / 2.0,
        unit
    );
    for (line, color) in lines.iter().zip(COLORS.iter().cycle()) {
        let points: Vec<String> = seconds
            .iter()
            .zip(&line.values)
            .map(|(s, v)| format!("{:.1},{:.1}", x(*s), y(*v)))
            .collect();
        let (open, close) = match line.name {
            None => (String::new(), "/>".to_string()),
            Some(name) => {
                let values: Vec<String> = line.values.iter().map(f64::to_string).collect();
                let name = escape(name);
                (
                    format!("data-name=\"{name}\" data-values=\"{}\" ", values.join(" ")),
                    format!("><title>{name}</title></polyline>"),
                )
            }
        };
        let _ = writeln!(
            svg,
            "<polyline {open}fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"{close}",
            points.join(" ")
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Each latency's percentiles as a group of bars, in milliseconds on a log scale (a lag of
/// microseconds beside a handler of milliseconds).
fn percentile_chart(bars: &[LatencyBars]) -> String {
    let (left, top, width, height) = plot_area();
    let all: Vec<f64> = bars
        .iter()
        .flat_map(|b| b.seconds.map(millis))
        .filter(|ms| *ms > 0.0)
        .collect();
    let low = all.iter().copied().fold(f64::INFINITY, f64::min);
    let high = all.iter().copied().fold(0.0, f64::max);
    let (mut from, mut to) = if all.is_empty() {
        (-3, 0)
    } else {
        (low.log10().floor() as i32, high.log10().ceil() as i32)
    };
    if from == to {
        (from, to) = (from - 1, to + 1);
    }
    let decades = f64::from(to - from);
    let y = |ms: f64| {
        let position = if ms > 0.0 {
            ((ms.log10() - f64::from(from)) / decades).clamp(0.0, 1.0)
        } else {
            0.0
        };
        top + height - position * height
    };
    let mut svg = String::new();
    svg_open(
        &mut svg,
        "latency percentiles, ms (log scale)",
        "data-chart=\"percentiles\"",
    );
    for d in from..=to {
        let ms = 10f64.powi(d);
        grid_line(&mut svg, y(ms), ms);
    }
    for (i, p) in PERCENTILES.iter().enumerate() {
        let lx = left + width - 4.0 * 56.0 + i as f64 * 56.0;
        let _ = writeln!(
            svg,
            "<rect x=\"{lx}\" y=\"8\" width=\"10\" height=\"10\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"17\">{p}</text>",
            COLORS[i],
            lx + 14.0
        );
    }
    let group = width / bars.len() as f64;
    let bar = (group * 0.8 / PERCENTILES.len() as f64).min(28.0);
    for (g, b) in bars.iter().enumerate() {
        let start = left + g as f64 * group + (group - bar * PERCENTILES.len() as f64) / 2.0;
        for (i, s) in b.seconds.iter().enumerate() {
            let ms = millis(*s);
            let (bx, by) = (start + i as f64 * bar, y(ms));
            let _ = writeln!(
                svg,
                "<rect data-latency=\"{}\" data-percentile=\"{}\" data-ms=\"{ms}\" x=\"{bx:.1}\" \
                 y=\"{by:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{} {}: {ms} ms</title></rect>",
                b.name,
                PERCENTILES[i],
                bar - 1.0,
                top + height - by,
                COLORS[i],
                b.name,
                PERCENTILES[i]
            );
        }
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            left + (g as f64 + 0.5) * group,
            top + height + 16.0,
            b.name
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::super::chart::tests::{controller, report};
    use super::*;

    fn html(report: &BenchReport) -> String {
        let mut out = Vec::new();
        write(&mut out, report).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The page from its `<h2>Controller</h2>` to the next heading or the end of the body.
    fn section(page: &str) -> &str {
        let start = page
            .find("<h2>Controller</h2>")
            .expect("a controller section");
        let rest = &page[start..];
        let end = ["<h2>", "</body>"]
            .iter()
            .filter_map(|e| rest[4..].find(e))
            .min()
            .expect("the end of the body")
            + 4;
        &rest[..end]
    }

    #[test]
    fn the_controller_section_has_escaped_tables_and_a_depth_chart() {
        let page = html(&report(Some(controller())));
        let s = section(&page);
        for line in [
            "<h2>Controller</h2>",
            "<p><code>pod/kube-system/kube-controller-manager</code>: 5 scrapes over 3s, 1 gap; \
             percentiles are bucket bounds (≤ the bucket's upper edge)</p>",
            "<tr><td>deployment</td><td>7</td><td>2.5</td><td>1</td><td>40</td><td>4</td>\
             <td>≤1s</td><td>&gt;10s</td><td>≤10ms</td><td>&gt;10s</td></tr>",
            "<tr><td>deployments apps/v1</td><td>0</td><td>-</td><td>12</td><td>250ms</td>\
             <td>50ms</td></tr>",
            "<p>client throttling: p50 ≤100ms, p99 &gt;10s (3 requests waited on the rate \
             limiter)</p>",
            "<p>not shown, idle: 1 queue and 1 informer (all in the JSON report)</p>",
        ] {
            assert!(s.contains(line), "missing {line:?} in\n{s}");
        }
        assert!(
            s.contains("<tr><td>a|&lt;b&gt;&amp;&quot;c&quot;\\\nd</td><td>3</td>"),
            "{s}"
        );
        assert!(
            !s.contains("<td>idle</td>") && !s.contains("configmaps"),
            "{s}"
        );
        assert_eq!(s.matches("<svg ").count(), 1, "{s}");
        assert!(s.contains("data-chart=\"controller-depth\""), "{s}");
        assert!(s.contains("data-seconds=\"0 1 2 3\""), "{s}");
        assert!(
            s.contains("data-name=\"deployment\" data-values=\"0 7 3 1\""),
            "{s}"
        );
        assert!(
            s.contains("data-name=\"a|&lt;b&gt;&amp;&quot;c&quot;\\\nd\" data-values=\"1 3 0 0\""),
            "{s}"
        );
        assert!(s.contains("</span> deployment (max 7), "), "{s}");
    }

    #[test]
    fn a_gauges_chart_is_one_line_without_a_name() {
        let g = GaugeSeries {
            title: "workqueue depth",
            unit: "items",
            seconds: vec![0.0, 1.0, 2.0],
            values: vec![0, 4, 2],
        };
        let svg = time_chart(&g);
        assert!(
            svg.ends_with(
                "<polyline fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"1.5\" \
                 points=\"64.0,200.0 384.0,30.0 704.0,115.0\"/>\n</svg>\n"
            ),
            "{svg}"
        );
        assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
        assert!(
            svg.contains("data-seconds=\"0 1 2\" data-values=\"0 4 2\">"),
            "{svg}"
        );
    }

    #[test]
    fn a_page_without_the_section_has_none_of_it() {
        let (mut with, mut without) = (report(Some(controller())), report(None));
        (with.time, without.time) = ("now".into(), "now".into());
        let (with, without) = (html(&with), html(&without));
        assert!(
            !without.contains("Controller") && !without.contains("<svg"),
            "{without}"
        );
        assert_eq!(
            with.replace(section(&with), ""),
            without,
            "the section is all that a controller adds"
        );
    }

    #[test]
    fn tick_steps_are_one_two_or_five_times_a_power_of_ten() {
        assert_eq!(step(20.0, 6.0), 5.0);
        assert_eq!(step(7.0, 4.0), 2.0);
        assert_eq!(step(3.0, 6.0), 0.5);
        assert_eq!(step(1000.0, 4.0), 500.0);
    }

    #[test]
    fn text_is_escaped_for_elements_and_attributes() {
        assert_eq!(
            escape("queueDuration.p99 > 50ms & \"x\" <y>"),
            "queueDuration.p99 &gt; 50ms &amp; &quot;x&quot; &lt;y&gt;"
        );
    }
}
