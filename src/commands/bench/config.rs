//! `bench`'s arguments turned into a validated `BenchConfig` before anything runs: the source,
//! the controller's shape, the gates, the baseline (read now), and the exports' files.

use super::super::{nonzero, GlobalConfig};
use crate::bench::dist::Timer;
use crate::bench::gate::Gate;
use crate::bench::live::Churn;
use crate::bench::load::Workload;
use crate::bench::pipeline::ControllerShape;
use crate::bench::replay::Speed;
use crate::bench::report::Settings;
use crate::bench::run::RunOptions;
use crate::cli::{BenchArgs, ReportFormat};
use crate::error::{Error, Result};
use crate::informer::object::{Encoding, Keep};
use crate::output::export::Exporter;
use crate::react::Reaction;
use crate::scrape::target::Target;
use crate::template::{Mutation, Template};
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
    /// What stdout gets: the table or the report's JSON.
    pub output: ReportFormat,
    /// `--react` and `--reaction-timeout`.
    pub react: Option<(Reaction, Duration)>,
    /// The encoding a live run's informers ask for.
    pub encoding: Encoding,
    /// What a live run's informers keep of an object answered in JSON.
    pub keep: Keep,
    /// `--allow-empty`: a `--no-churn` run of a namespace that does not exist goes ahead.
    pub allow_empty: bool,
    /// `--metrics-from`, and the namespace its pod or service is in (`None`: -n's, else the
    /// context's).
    /// `--metrics-from`'s target, `--metrics-namespace` and `--metrics-token-from`.
    pub metrics_from: Option<MetricsFrom>,
}

impl BenchConfig {
    pub fn from_args(args: &BenchArgs, global: &GlobalConfig) -> Result<Self> {
        let usage = |m: String| Error::Usage(m);
        let gates = args.fail_if.clone();
        let warmup = args.warmup;
        let duration = args.run_for.unwrap_or(Duration::from_secs(30));
        let shape = shape(args)?;
        let react = reaction(args)?;
        let source = source(args, global, duration, react.as_ref().map(|(r, _)| r))?;
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
        let metrics_from = metrics_from(args)?;
        let controller_gate = gates.iter().find(|g| matches!(g, Gate::Controller { .. }));
        if let (Some(g), None) = (controller_gate, &metrics_from) {
            return Err(usage(format!(
                "--fail-if '{}' reads the controller's metrics: add --metrics-from TARGET (its \
                 pod, service or URL)",
                g.expr()
            )));
        }
        let exports = exports(args)?;
        let resource = resource_of(args, &source);
        let (encoding, keep) =
            super::super::wire_encoding(args.encoding, args.react.is_some().then_some("--react"))?;
        Ok(BenchConfig {
            resource,
            source,
            duration,
            options: RunOptions { shape, warmup },
            gates,
            baseline,
            tolerance: args.tolerance,
            exports,
            output: args.output,
            allow_empty: args.allow_empty,
            metrics_from,
            encoding,
            keep,
            react,
        })
    }

    /// How long a live run may wait for the server before its window opens (`--for`, counted
    /// from the start, as tail's): connecting, discovery, the informer's first LIST and WATCH.
    /// A window longer than the whole measured run could measure nothing. `None` for a replay,
    /// which connects to nothing.
    pub fn time_box(&self) -> Option<std::time::Duration> {
        match self.source {
            SourceConfig::Live { .. } => Some(self.duration),
            SourceConfig::File { .. } => None,
        }
    }

    /// The settings recorded in the report.
    pub fn settings(&self) -> Settings {
        let shape = &self.options.shape;
        let human = crate::format::duration;
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
            react: self.react.as_ref().map(|(r, _)| r.to_string()),
            reaction_timeout: self.react.as_ref().map(|(_, t)| human(*t)),
        }
    }
}

/// The objects the generator writes: ConfigMaps, or `--template`'s with `--mutate`'s change.
fn workload(args: &BenchArgs, react: Option<&Reaction>) -> Result<Workload> {
    let Some(path) = &args.template else {
        return Ok(Workload::ConfigMaps);
    };
    let template = Template::load(path).map_err(Error::Usage)?;
    let mutation = match &args.mutate {
        Some(text) => Mutation::parse(text).map_err(Error::Usage)?,
        None => Mutation::default_for(&template),
    };
    let mutation = mutation.for_template(&template).map_err(Error::Usage)?;
    Ok(Workload::Template {
        template: Box::new(template),
        mutation,
        // A generation the controller's status can reach only comes with a spec change.
        new_generation: matches!(
            react,
            Some(Reaction::ObservedGeneration | Reaction::Condition { .. })
        ),
    })
}

fn read_baseline(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::File(format!("cannot read --baseline {}: {e}", path.display())))?;
    let doc: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "--baseline {} is not JSON ({e}): pass a file written by bench --export-json",
            path.display()
        ))
    })?;
    crate::bench::report::upgrade(doc).ok_or_else(|| {
        Error::Usage(format!(
            "--baseline {} is not a bench report of schema version {} or 1: pass a file written \
             by bench --export-json (run it again with this version to regenerate it)",
            path.display(),
            crate::bench::report::BENCH_SCHEMA_VERSION
        ))
    })
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
/// The simulated controller: its handlers and workers, their times, errors and resync.
fn shape(args: &BenchArgs) -> Result<ControllerShape> {
    let usage = |m: String| Error::Usage(m);
    let (handler_time, work_time) = (args.handler_time, args.work_time);
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
    let resync = match nonzero(args.resync) {
        Some(d) if d < Duration::from_secs(1) => {
            return Err(usage(format!(
                "--resync {}: shorter than client-go's minimum resync period, 1s; use 1s or \
                     more, or 0 for none",
                crate::format::duration(d)
            )))
        }
        other => other,
    };
    Ok(ControllerShape {
        handlers: args.handlers,
        handler_time,
        workers: args.workers,
        work_time,
        error_rate: args.error_rate / 100.0,
        resync,
        seed: args.seed,
        timer: Timer::Thread,
    })
}

/// `--react` and its timeout, checked against what makes the writes it times.
fn reaction(args: &BenchArgs) -> Result<Option<(Reaction, Duration)>> {
    let usage = |m: String| Error::Usage(m);
    Ok(match &args.react {
        Some(reaction) => {
            let timeout = args.reaction_timeout;
            if timeout.is_zero() {
                return Err(usage(
                    "--reaction-timeout 0: a reaction needs some time, e.g. 30s".into(),
                ));
            }
            match (&args.template, args.no_churn, reaction) {
                (Some(_), _, _) | (None, true, Reaction::ObservedGeneration) => {}
                (None, true, _) => {
                    return Err(usage(format!(
                        "--react {reaction} with --no-churn: without bench's own writes only \
                             observed-generation tells which write a reaction is for; use \
                             --react observed-generation, or --template to make the writes"
                    )))
                }
                (None, false, _) => {
                    return Err(usage(format!(
                        "--react {reaction} needs writes a controller reacts to: --template \
                             FILE (a manifest of an object your controller manages), or \
                             --no-churn -n NAMESPACE to time its reactions to others' writes"
                    )))
                }
            }
            Some((reaction.clone(), timeout))
        }
        None => None,
    })
}

/// Where the events come from: a recording, the namespace's own traffic, or bench's load.
fn source(
    args: &BenchArgs,
    global: &GlobalConfig,
    duration: Duration,
    react: Option<&Reaction>,
) -> Result<SourceConfig> {
    let usage = |m: String| Error::Usage(m);
    Ok(match &args.from_file {
        Some(path) => {
            if args.resource.is_some() {
                return Err(usage(
                    "RESOURCE with --from-file: the recording names its resource; drop it".into(),
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
                speed: args.speed,
            }
        }
        None => {
            if duration.is_zero() {
                return Err(usage(
                    "--for 0: a live run needs a length, e.g. --for 30s (--duration is the \
                         same flag)"
                        .into(),
                ));
            }
            if args.no_churn {
                SourceConfig::Live { churn: None }
            } else {
                if global.all_namespaces {
                    return Err(usage(
                        "-A with load: bench makes its load in one namespace (a scratch \
                             namespace, or the one -n names); add --no-churn to measure the \
                             traffic of all namespaces"
                            .into(),
                    ));
                }
                if args.objects == 0 {
                    return Err(usage("--objects must be at least 1".into()));
                }
                SourceConfig::Live {
                    churn: Some(Churn {
                        objects: args.objects,
                        rate: args.rate,
                        workload: workload(args, react)?,
                        run: None,
                    }),
                }
            }
        }
    })
}

/// The export files asked for, each new (or a FIFO, or /dev/stdout) and none the recording.
fn exports(args: &BenchArgs) -> Result<Vec<(Exporter, PathBuf)>> {
    let usage = |m: String| Error::Usage(m);
    let exports: Vec<(Exporter, PathBuf)> = [
        (Exporter::Json, &args.export_json),
        (Exporter::Markdown, &args.export_markdown),
        (Exporter::Html, &args.export_html),
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
    Ok(exports)
}

/// The resource measured: RESOURCE, else the template's kind, else configmaps.
fn resource_of(args: &BenchArgs, source: &SourceConfig) -> String {
    match (&args.resource, source) {
        (Some(resource), _) => resource.clone(),
        // The template's kind, in its group: what kubectl would resolve it to.
        (None, SourceConfig::Live { churn: Some(c) }) => match &c.workload {
            Workload::Template { template, .. } => match template.api_version().split_once('/') {
                Some((group, _)) => format!("{}.{group}", template.kind()),
                None => template.kind().to_string(),
            },
            Workload::ConfigMaps => "configmaps".to_string(),
        },
        (None, _) => "configmaps".to_string(),
    }
}

/// Where a live run reads the controller's metrics.
#[derive(Debug, Clone)]
pub struct MetricsFrom {
    pub target: Target,
    pub namespace: Option<String>,
    /// The service account whose token scrapes a port-forwarded target.
    pub token_from: Option<String>,
}

/// `--metrics-from`'s target, read before anything runs.
fn metrics_from(args: &BenchArgs) -> Result<Option<MetricsFrom>> {
    let Some(text) = &args.metrics_from else {
        return Ok(None);
    };
    let (target, token_from) = crate::commands::top::read_target(
        text,
        "--metrics-from",
        args.metrics_via,
        args.metrics_token_from.as_deref(),
    )?;
    if let Some(ns) = &args.metrics_namespace {
        crate::cluster::queries::validate_dns_label(ns)
            .map_err(|why| Error::Usage(format!("invalid --metrics-namespace \"{ns}\": {why}")))?;
    }
    Ok(Some(MetricsFrom {
        target,
        namespace: args.metrics_namespace.clone(),
        token_from,
    }))
}
