//! `bench`: the informer pipeline and a simulated controller under a given event load, measured
//! at every stage, reported as a table and exports, and judged by `--fail-if` gates and a
//! `--baseline`. Exit 0 gates pass, 1 a gate failed or a figure regressed, 2 error.

use super::{parse_duration, resolve_target, GlobalConfig};
use crate::bench::dist::{Dist, Timer};
use crate::bench::gate::{compare_with_baseline, config_differences, Gate};
use crate::bench::live::{can_churn, run_live, Churn, ScratchNamespace, SCRATCH_LABEL};
use crate::bench::pipeline::ControllerShape;
use crate::bench::replay::{Replay, Speed};
use crate::bench::report::{BaselineReport, BenchReport, Settings, Source};
use crate::bench::run::{run_replay, RunOptions, Tick};
use crate::bench::snapshot::{PipelineSnapshot, WatchTransitions};
use crate::cli::BenchArgs;
use crate::error::{Error, Result, EXIT_FINDING, EXIT_INTERRUPTED, EXIT_OK};
use crate::informer::listwatch::ListWatch;
use crate::output::export::Exporter;
use crate::output::{bench as print, stderr_is_terminal};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Handlers plus workers at most: each simulated sleep holds a blocking-pool thread, and past
/// the pool's 512 they would queue and inflate the figures.
const MAX_SIMULATED: usize = 256;

/// Where the events come from, validated.
#[derive(Debug, Clone)]
pub enum SourceConfig {
    File { path: PathBuf, speed: Speed },
    Live { churn: Option<Churn> },
}

/// `bench`'s arguments, validated.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    pub resource: String,
    pub source: SourceConfig,
    pub duration: Duration,
    pub options: RunOptions,
    pub gates: Vec<Gate>,
    /// The baseline document, read before anything runs.
    pub baseline: Option<(PathBuf, serde_json::Value)>,
    pub tolerance: f64,
    /// Each export asked for, and its file.
    pub exports: Vec<(Exporter, PathBuf)>,
}

impl BenchConfig {
    pub fn from_args(args: &BenchArgs, global: &GlobalConfig) -> Result<Self> {
        let usage = |m: String| Error::Usage(m);
        let gates = args
            .fail_if
            .iter()
            .map(|e| Gate::parse(e).map_err(usage))
            .collect::<Result<Vec<_>>>()?;
        let dist = |text: &str, flag: &str| {
            Dist::parse(text).map_err(|why| usage(format!("invalid {flag}: {why}")))
        };
        let handler_time = dist(&args.handler_time, "--handler-time")?;
        let work_time = dist(&args.work_time, "--work-time")?;
        if args.handlers + args.workers > MAX_SIMULATED {
            return Err(usage(format!(
                "--handlers plus --workers is {}: at most {MAX_SIMULATED} (each sleeps on a \
                 thread of tokio's blocking pool, which has 512)",
                args.handlers + args.workers
            )));
        }
        if args.handlers == 0 || args.workers == 0 {
            return Err(usage(
                "--handlers and --workers must be at least 1 (the controller under test has \
                 both)"
                    .into(),
            ));
        }
        if !(0.0..=100.0).contains(&args.error_rate) {
            return Err(usage(format!(
                "invalid --error-rate {}: give a percentage from 0 to 100",
                args.error_rate
            )));
        }
        let required = |text: &str, flag: &str| -> Result<Duration> {
            Ok(parse_duration(text, flag)?.unwrap_or_default())
        };
        let warmup = required(&args.warmup, "--warmup")?;
        let duration = required(args.duration.as_deref().unwrap_or("30s"), "--duration")?;
        let resync = match &args.resync {
            Some(text) => match parse_duration(text, "--resync")? {
                Some(d) if !d.is_zero() && d < Duration::from_secs(1) => {
                    return Err(usage(format!(
                        "--resync {text}: shorter than client-go's minimum resync period, 1s; \
                         use 1s or more, or 0 for none"
                    )))
                }
                Some(d) if !d.is_zero() => Some(d),
                _ => None,
            },
            None => None,
        };
        let source = match &args.from_file {
            Some(path) => {
                if args.resource.is_some() {
                    return Err(usage(
                        "RESOURCE with --from-file: the recording names its resource; drop it"
                            .into(),
                    ));
                }
                if global.namespace.is_some() || global.all_namespaces {
                    return Err(usage(
                        "-n/-A with --from-file: a replay has the namespaces of its recording; \
                         drop the flag"
                            .into(),
                    ));
                }
                if !path.is_file() {
                    return Err(usage(format!(
                        "--from-file {}: no such file: pass a recording made by `tail -o json` \
                         or `tail --record`",
                        path.display()
                    )));
                }
                SourceConfig::File {
                    path: path.clone(),
                    speed: Speed::parse(&args.speed).map_err(usage)?,
                }
            }
            None => {
                if duration.is_zero() {
                    return Err(usage(
                        "--duration must be longer than 0s for a live run".into(),
                    ));
                }
                if args.no_churn {
                    SourceConfig::Live { churn: None }
                } else {
                    if let Some(ns) = &global.namespace {
                        return Err(usage(format!(
                            "-n {ns} with load: bench makes its load in a scratch namespace it \
                             creates and deletes; to measure the traffic of namespace {ns} add \
                             --no-churn"
                        )));
                    }
                    if global.all_namespaces {
                        return Err(usage(
                            "-A with load: bench makes its load in a scratch namespace; add \
                             --no-churn to measure the traffic of all namespaces"
                                .into(),
                        ));
                    }
                    if args.objects == 0 {
                        return Err(usage("--objects must be at least 1".into()));
                    }
                    SourceConfig::Live {
                        churn: Some(Churn {
                            objects: args.objects,
                            rate: parse_rate(&args.rate).map_err(usage)?,
                        }),
                    }
                }
            }
        };
        let baseline = match &args.baseline {
            Some(path) => Some((path.clone(), read_baseline(path)?)),
            None => None,
        };
        if !(args.tolerance >= 0.0 && args.tolerance.is_finite()) {
            return Err(usage(format!(
                "invalid --tolerance {}: give a percentage of 0 or more",
                args.tolerance
            )));
        }
        let exports: Vec<(Exporter, PathBuf)> = [
            (Exporter::Json, &args.export_json),
            (Exporter::Markdown, &args.export_markdown),
            (Exporter::Prometheus, &args.export_prometheus),
        ]
        .into_iter()
        .filter_map(|(exporter, path)| Some((exporter, path.clone()?)))
        .collect();
        for (exporter, p) in &exports {
            let flag = exporter.flag();
            check_writable(p, flag)?;
            if let Some(recording) = &args.from_file {
                if same_file(p, recording) {
                    return Err(usage(format!(
                        "{flag} {} is the recording being replayed: name another file",
                        p.display()
                    )));
                }
            }
        }
        Ok(BenchConfig {
            resource: args
                .resource
                .clone()
                .unwrap_or_else(|| "configmaps".to_string()),
            source,
            duration,
            options: RunOptions {
                shape: ControllerShape {
                    handlers: args.handlers,
                    handler_time,
                    workers: args.workers,
                    work_time,
                    error_rate: args.error_rate / 100.0,
                    resync,
                    seed: args.seed,
                    timer: Timer::Thread,
                },
                warmup,
            },
            gates,
            baseline,
            tolerance: args.tolerance,
            exports,
        })
    }

    /// The settings recorded in the report.
    fn settings(&self) -> Settings {
        let shape = &self.options.shape;
        let human = |d: Duration| humantime::format_duration(d).to_string();
        let (duration, objects, rate, speed) = match &self.source {
            SourceConfig::File { speed, .. } => (None, None, None, Some(speed.to_string())),
            SourceConfig::Live { churn } => (
                Some(human(self.duration)),
                churn.as_ref().map(|c| c.objects),
                churn.as_ref().map(|c| c.rate),
                None,
            ),
        };
        Settings {
            handlers: shape.handlers,
            handler_time: shape.handler_time.to_string(),
            workers: shape.workers,
            work_time: shape.work_time.to_string(),
            error_rate: shape.error_rate * 100.0,
            resync: shape.resync.map(human),
            warmup: human(self.options.warmup),
            duration,
            objects,
            rate,
            speed,
            seed: shape.seed,
        }
    }
}

/// `100`, `100/s`, `2.5`: from 0.01 to 100,000 writes per second.
fn parse_rate(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches("/s");
    number
        .parse::<f64>()
        .ok()
        .filter(|r| (0.01..=100_000.0).contains(r))
        .ok_or_else(|| {
            format!("invalid --rate \"{text}\": give writes per second from 0.01 to 100000, e.g. 100 or 100/s")
        })
}

fn read_baseline(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Usage(format!("cannot read --baseline {}: {e}", path.display())))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "--baseline {} is not JSON ({e}): pass a file written by bench --export-json",
            path.display()
        ))
    })?;
    match doc["version"].as_u64() {
        Some(v) if v == u64::from(crate::bench::report::BENCH_SCHEMA_VERSION) => Ok(doc),
        _ => Err(Error::Usage(format!(
            "--baseline {} is not a bench report of schema version {}: pass a file written by \
             bench --export-json",
            path.display(),
            crate::bench::report::BENCH_SCHEMA_VERSION
        ))),
    }
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Fails before the run when an export could not be written afterwards.
fn check_writable(path: &Path, flag: &str) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "{flag} {}: the directory {} does not exist",
            path.display(),
            dir.display()
        )));
    }
    if path.is_dir() {
        return Err(Error::Usage(format!(
            "{flag} {}: is a directory: name a file",
            path.display()
        )));
    }
    Ok(())
}

/// The spinner on stderr, cleared however `exec` ends (an error must not print below it).
struct Spinner(Option<indicatif::ProgressBar>);

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// How long bench tries to delete its scratch namespace before it says how to do it by hand.
const DELETE_LIMIT: Duration = Duration::from_secs(30);

/// Runs `bench` and returns the exit code.
pub async fn exec(global: &GlobalConfig, config: BenchConfig) -> Result<u8> {
    // Ctrl-C is ours from here on (the handler is registered at the first poll): the scratch
    // namespace is cleaned up whenever it comes.
    let interrupt = tokio::signal::ctrl_c();
    tokio::pin!(interrupt);
    let _ = futures::FutureExt::now_or_never(&mut interrupt);
    let spinner = Spinner(stderr_is_terminal().then(crate::output::progress::bench_bar));
    let bar = &spinner.0;
    let total = match &config.source {
        SourceConfig::Live { .. } => Some(config.options.warmup + config.duration),
        SourceConfig::File { .. } => None,
    };
    let mut on_tick = |t: &Tick| {
        if let Some(bar) = bar {
            bar.set_message(print::progress_line(t, total));
        }
    };
    let mut notice = |line: String| {
        let line = format!("bench: {line}");
        match bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    };
    let outcome = match &config.source {
        SourceConfig::File { path, speed } => {
            let file = std::fs::File::open(path).map_err(|e| {
                Error::Usage(format!("cannot open --from-file {}: {e}", path.display()))
            })?;
            let replay = Replay::read(std::io::BufReader::new(file)).map_err(|e| {
                Error::Usage(format!(
                    "--from-file {} is not a recording: {e}",
                    path.display()
                ))
            })?;
            if replay.events() == 0 {
                return Err(Error::Usage(format!(
                    "--from-file {} has no object events to replay",
                    path.display()
                )));
            }
            let source = Source::File {
                path: path.display().to_string(),
                speed: speed.to_string(),
            };
            tokio::select! {
                r = run_replay(replay, *speed, &config.options, &mut on_tick) => {
                    let f = r.map_err(|e| Error::Usage(e.to_string()))?;
                    let report = BenchReport::new(
                        source,
                        config.settings(),
                        &f.measured,
                        &f.window,
                        f.drain.as_secs_f64(),
                    );
                    Some((report, f.measured.snapshot))
                }
                _ = &mut interrupt => None,
            }
        }
        SourceConfig::Live { churn } => {
            let target = tokio::select! {
                t = resolve_target(global, &config.resource, &["list", "watch"]) => t?,
                _ = &mut interrupt => return Ok(EXIT_INTERRUPTED),
            };
            if churn.is_some() && !can_churn(&target.resource) {
                return Err(Error::Usage(format!(
                    "bench makes load only for configmaps, not {}: measure an existing \
                     namespace's traffic with -n NAMESPACE --no-churn",
                    target.resource.qualified_name()
                )));
            }
            let scratch = match churn {
                Some(_) => {
                    let ns = ScratchNamespace::new_name();
                    let created = tokio::select! {
                        r = ns.create(&target.cluster) => Some(r),
                        _ = &mut interrupt => None,
                    };
                    match created {
                        Some(Ok(())) => {}
                        Some(Err(e)) => return Err(e.into()),
                        None => {
                            // The create may have reached the server: the name is ours, so
                            // deleting it is safe either way.
                            remove_scratch(&ns, &target.cluster, &mut notice, true).await;
                            return Ok(EXIT_INTERRUPTED);
                        }
                    }
                    notice(format!(
                        "created namespace {} (label {SCRATCH_LABEL}); it is deleted at the end",
                        ns.name
                    ));
                    Some(ns)
                }
                None => None,
            };
            let namespace = match &scratch {
                Some(ns) => Some(ns.name.clone()),
                None => target.namespace.clone(),
            };
            let lw = ListWatch {
                cluster: target.cluster.clone(),
                resource: target.resource.clone(),
                namespace: namespace.clone(),
                label_selector: None,
                field_selector: None,
                metadata_only: false,
            };
            let result = tokio::select! {
                r = run_live(lw, churn.clone(), config.duration, &config.options, &mut on_tick, &mut notice) => Some(r),
                _ = &mut interrupt => None,
            };
            if let Some(ns) = &scratch {
                remove_scratch(ns, &target.cluster, &mut notice, false).await;
            }
            match result {
                None => None,
                Some(r) => {
                    let live = r?;
                    let f = live.finished;
                    let mut report = BenchReport::new(
                        Source::Live {
                            resource: target.resource.qualified_name(),
                            namespace: namespace.unwrap_or_default(),
                            churn: churn.is_some(),
                        },
                        config.settings(),
                        &f.measured,
                        &f.window,
                        f.drain.as_secs_f64(),
                    );
                    report.generator = live.generator.clone();
                    report.counters.writes = live.writes;
                    report.counters.writes_without_event = live.writes_without_event;
                    report.counters.reconnects = Some(live.reconnects);
                    report.counters.relists = Some(live.relists);
                    let mut snapshot = f.measured.snapshot;
                    snapshot.watch_transitions = Some(WatchTransitions {
                        reconnects: live.reconnects,
                        relists: live.relists,
                    });
                    if let Some(missed) = live.writes_without_event.filter(|n| *n > 0) {
                        notice(format!(
                            "{missed} writes never arrived as watch events: the informer \
                             missed them (see writes_without_event)"
                        ));
                    }
                    Some((report, snapshot))
                }
            }
        }
    };
    drop(spinner);
    let Some((mut report, snapshot)) = outcome else {
        return Ok(EXIT_INTERRUPTED);
    };
    judge(&mut report, &config);
    // The figures first: an export that cannot be written must not hide them.
    let mut out = std::io::stdout().lock();
    match print::write_text(&mut out, &report).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(Error::Output(e)),
        _ => {}
    }
    write_exports(&report, &snapshot, &config)?;
    Ok(if report.failed() {
        EXIT_FINDING
    } else {
        EXIT_OK
    })
}

/// Deletes the scratch namespace within `DELETE_LIMIT`; a second Ctrl-C, a failure or the limit
/// leave a line that says how to delete it by hand. With `quiet_if_absent` (a Ctrl-C came during
/// its create, which may not have happened) a 404 says nothing.
async fn remove_scratch(
    ns: &ScratchNamespace,
    cluster: &crate::cluster::Cluster,
    notice: &mut (dyn FnMut(String) + Send),
    quiet_if_absent: bool,
) {
    let by_hand = format!("delete it with `kubectl delete namespace {}`", ns.name);
    let result = tokio::select! {
        r = tokio::time::timeout(DELETE_LIMIT, ns.delete(cluster)) => r,
        _ = tokio::signal::ctrl_c() => {
            notice(format!("interrupted while deleting namespace {}: {by_hand}", ns.name));
            return;
        }
    };
    match result {
        Ok(Ok(())) => notice(format!("deleted namespace {}", ns.name)),
        Ok(Err(crate::cluster::ClusterError::Api { code: 404, .. })) if quiet_if_absent => {}
        Ok(Err(e)) => notice(format!(
            "could not delete namespace {}: {e}: {by_hand}",
            ns.name
        )),
        Err(_) => notice(format!(
            "namespace {} was not deleted within {}s: {by_hand}",
            ns.name,
            DELETE_LIMIT.as_secs()
        )),
    }
}

/// Writes each export asked for, each whole or not at all (a temporary file renamed over it).
fn write_exports(
    report: &BenchReport,
    snapshot: &PipelineSnapshot,
    config: &BenchConfig,
) -> Result<()> {
    let mut files: Vec<(&PathBuf, &str, Vec<u8>)> = Vec::new();
    for (exporter, path) in &config.exports {
        let bytes = exporter
            .serialize(report, snapshot)
            .map_err(Error::Output)?;
        files.push((path, exporter.flag(), bytes));
    }
    for (path, flag, bytes) in files {
        let tmp = path.with_extension("partial");
        std::fs::write(&tmp, &bytes)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                Error::Usage(format!("cannot write {flag} {}: {e}", path.display()))
            })?;
    }
    Ok(())
}

/// Evaluates the gates and the baseline into the report.
pub fn judge(report: &mut BenchReport, config: &BenchConfig) {
    let doc = report.to_value();
    report.gates = config.gates.iter().map(|g| g.evaluate(&doc)).collect();
    if let Some((path, baseline)) = &config.baseline {
        report.baseline = Some(BaselineReport {
            file: path.display().to_string(),
            tolerance_percent: config.tolerance,
            config_differences: config_differences(&doc, baseline),
            comparisons: compare_with_baseline(&doc, baseline, config.tolerance),
        });
    }
}
