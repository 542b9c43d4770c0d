//! `proxy --explore`'s words: a line per run as it ends (stderr, under a progress bar on a
//! terminal) or a JSON line (stdout, with `-o json`), and the report at the end.

use crate::format::{count, human};
use crate::proxy::explore::{Explored, Found, Outcome, Progress, Ran, Side};
use crate::proxy::fault::Fault;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

/// Now, as the JSON lines write a time.
fn now() -> String {
    crate::format::rfc3339_millis(std::time::SystemTime::now())
}

/// One difference, as the report's END STATE column and the run's line say it:
/// `configmaps books: .metadata.annotations["x/count"] "3" -> "2"`.
pub fn found_text(found: &Found) -> String {
    let (resource, name) = (&found.resource, &found.name);
    let count = |n: Option<u64>| n.unwrap_or(0);
    match found.difference.as_str() {
        "creates" | "deletes" => format!(
            "{resource} {}: {} -> {}",
            found.difference,
            count(found.baseline_count),
            count(found.run_count)
        ),
        "content" => {
            let fields: Vec<String> = (found.fields.iter())
                .map(|f| format!("{} {} -> {}", f.path, f.baseline, f.run))
                .collect();
            format!("{resource} {name}: {}", fields.join(", "))
        }
        "workload" => format!(
            "the workload ended with {}",
            found.status.as_deref().unwrap_or("a failure")
        ),
        what => format!("{resource} {name}: {what} ({})", count(found.count)),
    }
}

/// A run's end state in a few words: `the same`, its differences, or why it has none.
fn end_state(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Same => "the same".to_string(),
        Outcome::Differs(found) => differences_text(found),
        Outcome::Failed {
            code,
            last_line,
            log,
        } => format!("exit {code:?}: {last_line} (its log: {})", log.display()),
    }
}

/// How many parts of a run's differences its line and the report's row say (JSON has them all).
const PARTS_SHOWN: usize = 6;

/// How many names of missing or extra objects of a resource a part says.
const NAMES_SHOWN: usize = 3;

/// A run's differences in a line: the objects missing or extra counted per resource, with a few
/// of their names (a controller that loops leaves hundreds), then the others as [`found_text`]
/// words each; at most [`PARTS_SHOWN`] parts, then how many more.
fn differences_text(found: &[Found]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut grouped: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    for f in found {
        let kind = f.difference.as_str();
        if !matches!(kind, "missing" | "extra") {
            continue;
        }
        match grouped
            .iter_mut()
            .find(|(r, k, _)| *r == f.resource && *k == kind)
        {
            Some((_, _, names)) => names.push(&f.name),
            None => grouped.push((&f.resource, kind, vec![&f.name])),
        }
    }
    let mut said_groups = false;
    for f in found {
        match f.difference.as_str() {
            "missing" | "extra" if !said_groups => {
                said_groups = true;
                for (resource, kind, names) in &grouped {
                    let mut shown = names[..names.len().min(NAMES_SHOWN)].join(", ");
                    if names.len() > NAMES_SHOWN {
                        shown.push_str(", ...");
                    }
                    parts.push(match names.len() {
                        1 => format!("{resource} {shown}: {kind}"),
                        n => format!("{resource}: {n} {kind} ({shown})"),
                    });
                }
            }
            "missing" | "extra" => {}
            _ => parts.push(found_text(f)),
        }
    }
    let more = parts.len().saturating_sub(PARTS_SHOWN);
    parts.truncate(PARTS_SHOWN);
    let mut text = parts.join("; ");
    if more > 0 {
        text.push_str(&format!("; and {more} more (all in -o json)"));
    }
    text
}

/// A run's faults as `--fault` takes them, space-separated.
fn faults_text(faults: &[Fault]) -> String {
    faults
        .iter()
        .map(|f| f.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `run 3/8 crash:after=update,resource=deployments.apps -> the same (25s)`
pub fn run_line(ran: &Ran, of: usize) -> String {
    format!(
        "run {}/{of} {} -> {} ({})",
        ran.number,
        faults_text(&ran.faults),
        end_state(&ran.outcome),
        human(ran.took)
    )
}

/// The JSON words of a run's outcome: `same`, `differs` or `failed`.
fn outcome_word(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Same => "same",
        Outcome::Differs(_) => "differs",
        Outcome::Failed { .. } => "failed",
    }
}

/// A run as a JSON line (`type` "run").
pub fn run_json(ran: &Ran, of: usize) -> Value {
    let differences: Vec<Value> = match &ran.outcome {
        Outcome::Differs(found) => found
            .iter()
            .map(|f| {
                json!({"resource": f.resource, "name": f.name, "difference": f.difference,
                    "fields": f.fields, "text": found_text(f)})
            })
            .collect(),
        _ => Vec::new(),
    };
    let mut line = json!({
        "schemaVersion": super::proxy::SCHEMA_VERSION, "type": "run", "time": now(),
        "run": ran.number, "runs": of, "faults": ran.faults.iter().map(|f| &f.text).collect::<Vec<_>>(), "namespace": ran.namespace,
        "endState": outcome_word(&ran.outcome), "differences": differences,
        "tookMs": ran.took.as_millis() as u64,
    });
    if let Outcome::Failed {
        code,
        last_line,
        log,
    } = &ran.outcome
    {
        line["exitCode"] = json!(code);
        line["error"] = json!(last_line);
        line["log"] = json!(log.display().to_string());
    }
    line
}

/// How the runs went: how many at a time, and why one at a time when so.
fn side_words(side: &Side) -> String {
    match (side.runs, side.sequential_because) {
        (1, Some(why)) => format!("one at a time: {why}"),
        (1, None) => "one at a time".to_string(),
        (n, _) => format!("{n} at a time"),
    }
}

/// The report: what was explored and found, one row per run, then the command that repeats each
/// run that differs (`repeat`: run number and command line).
pub fn report_text(
    explored: &Explored,
    side: &Side,
    repeat: &[(usize, String)],
    dir: &std::path::Path,
) -> String {
    let differing = explored.differing().count();
    let mut out = format!(
        "Explored in {}: 2 fault-free runs, then {} from their trace ({}); {differing} with another end state\n",
        human(explored.took),
        count(explored.ran.len() as u64, "run"),
        side_words(side)
    );
    let mut table = super::table::boxed();
    table.set_header(["#", "FAULTS", "END STATE"]);
    for r in &explored.ran {
        table.add_row([
            r.number.to_string(),
            faults_text(&r.faults),
            end_state(&r.outcome),
        ]);
    }
    out.push_str(&table.to_string());
    out.push('\n');
    for (number, command) in repeat {
        let namespace = (explored.ran.iter())
            .find(|r| r.number == *number)
            .map_or("", |r| r.namespace.as_str());
        out.push_str(&format!(
            "run {number} (in {namespace}) again, in a new namespace NAMESPACE: kubectl informer {command}\n"
        ));
    }
    out.push_str(&format!(
        "The baselines and each run's output are in {}\n",
        dir.display()
    ));
    out
}

/// The report as the last JSON line (`type` "exploration").
pub fn report_json(
    explored: &Explored,
    side: &Side,
    repeat: &[(usize, String)],
    dir: &std::path::Path,
) -> Value {
    let differing: Vec<usize> = explored.differing().map(|r| r.number).collect();
    let repeat: Vec<Value> = (repeat.iter())
        .map(|(run, command)| json!({"run": run, "command": format!("kubectl informer {command}")}))
        .collect();
    json!({
        "schemaVersion": super::proxy::SCHEMA_VERSION, "type": "exploration", "time": now(),
        "runs": explored.ran.len(), "differing": differing,
        "tookMs": explored.took.as_millis() as u64, "parallel": side.runs,
        "sequentialBecause": side.sequential_because,
        "repeat": repeat, "directory": dir.display().to_string(),
    })
}

/// The exploration's progress: a line per baseline and per run as it ends (text on stderr, or
/// JSON lines on stdout), and on a terminal a bar of the runs done, the lines printed above it.
pub struct ExploreProgress {
    json: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl ExploreProgress {
    /// `shown`: stderr is a terminal (and the output is not JSON).
    pub fn new(json: bool, shown: bool) -> Self {
        let bar = (shown && !json).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_message("2 fault-free runs (the baselines)");
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        ExploreProgress {
            json,
            bar: Mutex::new(bar),
        }
    }

    fn say(&self, line: &str) {
        let bar = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        match bar.as_ref() {
            Some(bar) => bar.println(line),
            None => {
                let _ = std::io::stderr().write_all(format!("{line}\n").as_bytes());
            }
        }
    }

    fn json_line(&self, line: Value) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}").and_then(|()| out.flush());
    }

    /// Clears the bar before the report.
    pub fn finish(&self) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
        }
    }
}

impl Progress for ExploreProgress {
    fn baseline(&self, number: usize, took: Duration) {
        match self.json {
            true => self.json_line(json!({
                "schemaVersion": super::proxy::SCHEMA_VERSION, "type": "baseline", "time": now(),
                "baseline": number, "tookMs": took.as_millis() as u64,
            })),
            false => self.say(&format!("baseline {number}/2 -> saved ({})", human(took))),
        }
    }

    fn planned(&self, runs: usize, side: &Side) {
        if self.json {
            return;
        }
        self.say(&format!(
            "{} from the baselines' trace, {}",
            count(runs as u64, "run"),
            side_words(side)
        ));
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            bar.set_length(runs as u64);
            let style =
                ProgressStyle::with_template("{spinner} run {pos}/{len} [{bar:30}] {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> ");
            bar.set_style(style);
        }
    }

    fn ran(&self, ran: &Ran, of: usize) {
        match self.json {
            true => self.json_line(run_json(ran, of)),
            false => self.say(&run_line(ran, of)),
        }
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            bar.inc(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proxy::explore::Field;

    fn content() -> Found {
        Found {
            resource: "configmaps".into(),
            name: "books".into(),
            difference: "content".into(),
            count: None,
            baseline_count: None,
            run_count: None,
            status: None,
            fields: vec![Field {
                path: ".metadata.annotations[\"x/count\"]".into(),
                baseline: "\"3\"".into(),
                run: "\"2\"".into(),
            }],
        }
    }

    #[test]
    fn a_content_difference_names_the_field_and_both_values() {
        assert_eq!(
            found_text(&content()),
            "configmaps books: .metadata.annotations[\"x/count\"] \"3\" -> \"2\""
        );
    }

    fn object(resource: &str, name: &str, difference: &str) -> Found {
        Found {
            resource: resource.into(),
            name: name.into(),
            difference: difference.into(),
            count: Some(1),
            ..content()
        }
    }

    #[test]
    fn many_extra_objects_are_counted_per_resource_with_a_few_names_and_the_line_stays_short() {
        let mut found = vec![object("crs", "web-3", "missing")];
        found.extend((10..700).map(|n| object("crs", &format!("web-{n}"), "extra")));
        found.push(object("secrets", "web-*", "extra"));
        found.push(content());
        found.extend((0..6).map(|n| object(&format!("r{n}"), "x", "missing")));
        let text = differences_text(&found);
        assert!(
            text.starts_with(
                "crs web-3: missing; crs: 690 extra (web-10, web-11, web-12, ...); secrets web-*: extra; "
            ),
            "{text}"
        );
        assert!(text.ends_with("; and 4 more (all in -o json)"), "{text}");
        assert!(text.len() < 400, "{text}");
    }

    #[test]
    fn a_run_line_says_its_number_faults_end_state_and_time() {
        let ran = Ran {
            number: 3,
            faults: vec![Fault::crash_after(
                crate::proxy::fault::Verb::Update,
                "configmaps",
            )],
            namespace: "ex-run-3".into(),
            outcome: Outcome::Same,
            took: Duration::from_secs(25),
        };
        assert_eq!(
            run_line(&ran, 8),
            "run 3/8 crash:after=update,resource=configmaps -> the same (25s)"
        );
        let differs = Ran {
            outcome: Outcome::Differs(vec![content()]),
            ..ran
        };
        let line = run_json(&differs, 8);
        assert_eq!(line["type"], "run");
        assert_eq!(line["endState"], "differs");
        assert_eq!(
            line["differences"][0]["fields"][0]["path"],
            ".metadata.annotations[\"x/count\"]"
        );
    }
}
