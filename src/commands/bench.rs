//! `bench`: the informer pipeline and a simulated controller under a given event load, measured
//! at every stage, reported as a table and exports, and judged by `--fail-if` gates and a
//! `--baseline`. Exit 0 gates pass, 1 a gate failed or a figure regressed, 2 error.

mod config;
pub mod from_file;

pub use config::{BenchConfig, SourceConfig};

use super::{connect_and_discover, resolve_in, GlobalConfig, Resolved};
use crate::bench::gate::{compare_with_baseline, config_differences};
use crate::bench::live::{can_churn, run_live, sync, Churn, LiveFinished, Outside, Reacting};
use crate::bench::load::Workload;
use crate::bench::replay::Speed;
use crate::bench::report::{BaselineReport, BenchReport, Source};
use crate::bench::run::{run_replay, RunError, Tick, WindowCut};
use crate::bench::scratch;
use crate::bench::snapshot::PipelineSnapshot;
use crate::bench::BenchError;
use crate::cli::ReportFormat;
use crate::cluster::ApiResource;
use crate::error::{Error, Result, EXIT_FINDING, EXIT_OK};
use crate::informer::listwatch::ListWatch;
use crate::informer::object::Encoding;
use crate::output::{bench as print, stderr_is_terminal, tolerate_closed_pipe};
use crate::scrape::lag::{resource_of, ServerSide};
use crate::scrape::target::Scraper;
use crate::scrape::window::ControllerSource;
use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The spinner on stderr, cleared however `exec` ends (an error must not print below it).
struct Spinner(Option<indicatif::ProgressBar>);

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Runs `bench` and returns the exit code.
pub async fn exec(global: &GlobalConfig, config: BenchConfig) -> Result<u8> {
    // Ctrl-C and SIGTERM are ours from here on (see `stop::requested`): the scratch namespace
    // is cleaned up whenever one comes.
    // While the measured window is open, a stop cuts it (the figures up to then are printed);
    // at any other time it ends the run.
    let cut = WindowCut::default();
    let interrupt = async {
        loop {
            crate::stop::requested().await;
            if !cut.forward() {
                return;
            }
        }
    };
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
    let notice = |line: String| {
        crate::output::progress::say_above(bar.as_ref(), format!("bench: {line}"));
    };
    for warning in config.gates.iter().filter_map(print::deprecated_gate) {
        notice(warning);
    }
    let outcome = match &config.source {
        SourceConfig::File { path, speed } => {
            replay(path, *speed, &config, (&mut on_tick, &cut), &mut interrupt).await?
        }
        SourceConfig::Live { churn } => {
            live(
                global,
                churn,
                &config,
                (&mut on_tick, &notice),
                &cut,
                &mut interrupt,
            )
            .await?
        }
    };
    drop(spinner);
    let Some((mut report, snapshot)) = outcome else {
        return Ok(crate::stop::exit_code());
    };
    judge(&mut report, &config);
    // The figures first: an export that cannot be written must not hide them.
    let mut out = std::io::stdout().lock();
    let written = match config.output {
        ReportFormat::Text => print::write_text(&mut out, &report),
        ReportFormat::Json => crate::output::export::json::write(&mut out, &report),
    };
    tolerate_closed_pipe(written.and_then(|_| out.flush())).map_err(Error::Output)?;
    drop(out);
    write_exports(&report, &snapshot, &config)?;
    Ok(match (report.cut, report.failed()) {
        (true, _) => crate::stop::exit_code(),
        (false, true) => EXIT_FINDING,
        (false, false) => EXIT_OK,
    })
}

/// Where a run tells its progress: each tick, and the lines said on stderr.
type Told<'a> = (
    &'a mut (dyn FnMut(&Tick) + Send),
    &'a (dyn Fn(String) + Sync),
);

/// A finished run's report and what the Prometheus export reads; `None` when interrupted.
type Outcome = Option<(BenchReport, PipelineSnapshot)>;

/// The replay run: a recording's events through the informer loop into the controller.
async fn replay(
    path: &Path,
    speed: Speed,
    config: &BenchConfig,
    (on_tick, cut): (&mut (dyn FnMut(&Tick) + Send), &WindowCut),
    interrupt: &mut (impl Future + Unpin),
) -> Result<Outcome> {
    let file = std::fs::File::open(path)
        .map_err(|e| Error::File(format!("cannot open --from-file {}: {e}", path.display())))?;
    let replay = from_file::read_replay(std::io::BufReader::new(file)).map_err(|e| {
        Error::Usage(format!(
            "--from-file {} is not a recording: {e}",
            path.display()
        ))
    })?;
    crate::recording::reader::one_resource(&replay.resources)
        .map_err(|e| Error::Usage(format!("--from-file {} {e}", path.display())))?;
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
    let finished = tokio::select! {
        r = run_replay(replay, speed, (&config.options, cut), on_tick) => r,
        _ = interrupt => return Ok(None),
    };
    let f = finished.map_err(|e| Error::from(BenchError::Run(e)))?;
    let report = BenchReport::new(
        source,
        config.settings(),
        &f.measured,
        &f.window,
        f.drain.as_secs_f64(),
    );
    let report = BenchReport {
        cut: f.cut,
        ..report
    };
    Ok(Some((report, f.measured.snapshot)))
}

/// The live run: an informer on the cluster, fed by the load generator in a scratch namespace
/// (deleted however the run ends) or in the namespace -n names (its objects labelled and
/// deleted), or by a namespace's own traffic (`--no-churn`).
async fn live(
    global: &GlobalConfig,
    churn: &Option<Churn>,
    config: &BenchConfig,
    (on_tick, notice): Told<'_>,
    cut: &WindowCut,
    interrupt: &mut (impl Future + Unpin),
) -> Result<Outcome> {
    let (target, reacting) = tokio::select! {
        t = resolve(global, config, churn) => t?,
        _ = &mut *interrupt => return Ok(None),
    };
    if let (None, Some(ns), false) = (churn, &target.namespace, config.allow_empty) {
        if super::namespace_exists(&target.cluster, ns, &global.limits).await? == Some(false) {
            return Err(Error::NothingChecked(format!(
                "nothing to measure: namespace \"{ns}\" does not exist (kubectl get namespaces \
                 lists those that do); a measure of nothing is not a pass: check -n, or pass \
                 --allow-empty to measure it from its creation"
            )));
        }
    }
    let controller = tokio::select! {
        c = controller_source(global, config, &target, reacting.as_ref(), notice) => c?,
        _ = &mut *interrupt => return Ok(None),
    };
    let run = LiveRun {
        target: &target,
        limits: global.limits,
        config,
        outside: Outside {
            reacting,
            controller,
        },
        on_tick,
        notice,
        cut,
    };
    let measured = run
        .measure(churn, global.namespace.as_ref(), interrupt)
        .await?;
    let Some((namespace, live)) = measured else {
        return Ok(None);
    };
    if let Some(missed) = live.writes_without_event.filter(|n| *n > 0) {
        notice(format!(
            "{missed} writes never arrived as watch events: the informer missed them (see \
             writesWithoutEvent)"
        ));
    }
    let source = Source::Live {
        resource: target.resource.qualified_name(),
        namespace,
        churn: churn.is_some(),
        encoding: live.encoding.map(Encoding::value),
    };
    let report = BenchReport::live(source, config.settings(), &live);
    Ok(Some((report, live.finished.measured.snapshot)))
}

/// A live run on a resolved target: what it measures with, and where it tells its progress.
struct LiveRun<'a> {
    target: &'a Resolved,
    /// The run's limits (`--for` from its start), which end the steps before the window.
    limits: super::RunLimits,
    config: &'a BenchConfig,
    outside: Outside,
    on_tick: &'a mut (dyn FnMut(&Tick) + Send),
    notice: &'a (dyn Fn(String) + Sync),
    /// Where a stop during the window goes: it cuts the window.
    cut: &'a WindowCut,
}

impl LiveRun<'_> {
    /// Measures where the load goes (the namespace -n names, a scratch namespace, or with
    /// `--no-churn` the namespace as it is) and deletes the load after; the namespace measured
    /// and what was measured there, `None` when interrupted.
    async fn measure(
        self,
        churn: &Option<Churn>,
        named: Option<&String>,
        interrupt: &mut (impl Future + Unpin),
    ) -> Result<Option<(Option<String>, LiveFinished)>> {
        let (target, notice) = (self.target, self.notice);
        let measured = match (churn, named) {
            // A namespace the user named: the load's objects carry the run's label, which the
            // informer selects, and are deleted at the end; nothing else there is touched.
            (Some(c), Some(ns)) => {
                super::existing_namespace_to_write(
                    &target.cluster,
                    ns,
                    "bench makes its load",
                    &self.limits,
                )
                .await?;
                let labelled = scratch::Labelled::new("bench", ns);
                let churn = Churn {
                    run: Some(labelled.clone()),
                    ..c.clone()
                };
                scratch::labelled_in(
                    &target.cluster,
                    &target.resource,
                    labelled,
                    "making the load",
                    interrupt,
                    notice,
                    |labelled| {
                        self.measure_in(Some(ns.clone()), Some(labelled.selector()), Some(churn))
                    },
                )
                .await
            }
            (Some(_), None) => {
                scratch::around(
                    &target.cluster,
                    ("bench", "the load"),
                    interrupt,
                    notice,
                    |ns| self.measure_in(Some(ns), None, churn.clone()),
                )
                .await?
            }
            (None, _) => tokio::select! {
                r = self.measure_in(target.namespace.clone(), None, None) => Some(r),
                _ = &mut *interrupt => None,
            },
        };
        measured.transpose()
    }

    /// The informer on `namespace` (only the run's objects with `label_selector`), fed by
    /// `churn`.
    async fn measure_in(
        self,
        namespace: Option<String>,
        label_selector: Option<String>,
        churn: Option<Churn>,
    ) -> Result<(Option<String>, LiveFinished)> {
        let lw = ListWatch {
            cluster: self.target.cluster.clone(),
            resource: self.target.resource.clone(),
            namespace: namespace.clone(),
            label_selector,
            field_selector: None,
            metadata_only: false,
            encoding: self.config.encoding,
            keep: self.config.keep,
        };
        // The first LIST and WATCH: a server that never answers them ends the run at --for,
        // as it ends discovery.
        let what = format!(
            "the informer's first LIST and WATCH of {}",
            self.target.resource.qualified_name()
        );
        let synced = (self.limits)
            .bound(
                &self.target.cluster,
                &what,
                sync(lw, self.outside.reacting.as_ref(), &self.config.options),
            )
            .await?;
        let live = run_live(
            synced,
            churn,
            self.outside,
            (self.config.duration, self.cut),
            &self.config.options,
            self.on_tick,
            self.notice,
        )
        .await?;
        Ok((namespace, live))
    }
}

/// `--metrics-from`: the controller's metrics endpoint, scraped once now (a target that is not
/// a controller's metrics is refused before the run), and our own watches of the resources
/// the run loads (the measured one and `--react owned:`'s) for the lag of the controller's
/// informers of them.
async fn controller_source(
    global: &GlobalConfig,
    config: &BenchConfig,
    target: &Resolved,
    reacting: Option<&Reacting>,
    notice: &(dyn Fn(String) + Sync),
) -> Result<Option<ControllerSource>> {
    let Some(metrics) = &config.metrics_from else {
        return Ok(None);
    };
    let cluster = &target.cluster;
    let namespace = (metrics.namespace)
        .clone()
        .or_else(|| global.namespace.clone())
        .unwrap_or_else(|| cluster.default_namespace.clone());
    // Finding a workload's replicas and leader asks the API server: bounded as the first scrape
    // is, and Ctrl-C ends it.
    let finding = format!("finding the replicas of {}", metrics.target);
    let scraper = super::RunLimits::start(Some(config.duration), None)
        .bound(
            cluster,
            &finding,
            Scraper::new(
                &metrics.target,
                cluster,
                &namespace,
                metrics.token_from.as_deref(),
            ),
        )
        .await?;
    // A first scrape slower than the whole measured window could measure nothing.
    let what = format!("the first scrape of {}", scraper.target());
    let first = super::RunLimits::start(Some(config.duration), None)
        .bound(scraper.cluster(), &what, scraper.scrape())
        .await?;
    if let Some(reached) = scraper.reached().await {
        notice(crate::output::top::reached_line(scraper.target(), &reached));
    }
    let loaded: Vec<ApiResource> = [
        Some(&target.resource),
        reacting.and_then(|r| r.owned.as_ref()),
    ]
    .into_iter()
    .flatten()
    .cloned()
    .collect();
    let keys = first
        .informers
        .keys()
        .filter(|key| resource_of(key, &loaded).is_some());
    let (server_side, not_followed) = ServerSide::follow(cluster, &loaded, keys).await;
    for n in not_followed {
        notice(format!(
            "no lag for the {} informer: {}",
            n.informer, n.reason
        ));
    }
    notice(format!(
        "reading {}'s metrics: {}, {}",
        scraper.target(),
        crate::format::count(first.queues.len() as u64, "workqueue"),
        crate::format::count(first.informers.len() as u64, "named informer"),
    ));
    Ok(Some(ControllerSource {
        scraper,
        server_side,
    }))
}

/// Resolves the resource (and `--react owned:`'s) and checks that the load fits it: ConfigMaps,
/// or objects of `--template` whose apiVersion and kind are the resource's.
async fn resolve(
    global: &GlobalConfig,
    config: &BenchConfig,
    churn: &Option<Churn>,
) -> Result<(Resolved, Option<Reacting>)> {
    const VERBS: &[&str] = &["list", "watch"];
    let (cluster, resources) = connect_and_discover(global).await?;
    let target = resolve_in(
        global,
        &cluster,
        &resources,
        std::slice::from_ref(&config.resource),
        VERBS,
    )?
    .remove(0);
    let resource = &target.resource;
    match churn.as_ref().map(|c| &c.workload) {
        Some(Workload::ConfigMaps) if !can_churn(resource) => {
            return Err(Error::Usage(format!(
                "bench makes load for {} only with --template FILE (a manifest of one of its \
                 objects); without one it makes ConfigMaps; to measure an existing namespace's \
                 traffic use -n NAMESPACE --no-churn",
                resource.qualified_name()
            )));
        }
        Some(Workload::Template { template, .. })
            if template.api_version() != resource.api_version()
                || template.kind() != resource.kind =>
        {
            return Err(Error::Usage(format!(
                "--template is a {} {} and bench watches {} ({} {}): give a manifest of the \
                 resource measured, or name the resource the manifest is of",
                template.api_version(),
                template.kind(),
                resource.qualified_name(),
                resource.api_version(),
                resource.kind
            )));
        }
        _ => {}
    }
    if !resource.namespaced && churn.is_some() {
        return Err(Error::Usage(format!(
            "{} is cluster-scoped: bench makes its load in a scratch namespace, so only of \
             namespaced resources",
            resource.qualified_name()
        )));
    }
    let reacting = match &config.react {
        Some((reaction, timeout)) => {
            let owned =
                super::react::resolve(global, &cluster, &resources, resource, reaction).await?;
            Some(Reacting {
                reaction: reaction.clone(),
                owned,
                timeout: *timeout,
            })
        }
        None => None,
    };
    Ok((target, reacting))
}

/// Writes each export asked for: a file whole or not at all, a device or a pipe straight through
/// (`output::file`). A pipe whose reader went away is not a failure.
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
        tolerate_closed_pipe(crate::output::file::write_whole(path, &bytes))
            .map_err(|e| Error::File(format!("cannot write {flag} {}: {e}", path.display())))?;
    }
    Ok(())
}

/// Evaluates the gates (on the report) and the baseline (the report's document against the
/// baseline's) into the report.
pub fn judge(report: &mut BenchReport, config: &BenchConfig) {
    report.gates = config.gates.iter().map(|g| g.evaluate(report)).collect();
    if let Some((path, baseline)) = &config.baseline {
        let doc = report.to_value();
        report.baseline = Some(BaselineReport {
            file: path.display().to_string(),
            tolerance_percent: config.tolerance,
            config_differences: config_differences(&doc, baseline),
            comparisons: compare_with_baseline(&doc, baseline, config.tolerance),
        });
    }
}

/// A live run's failure as the user reads it: a mutation or a reaction that cannot be measured
/// as asked names its flag.
impl From<BenchError> for Error {
    fn from(e: BenchError) -> Self {
        match e {
            BenchError::Cluster(e) => Error::Cluster(e),
            BenchError::Reflector(e) => e.into(),
            BenchError::WatchEnded => Error::Watch(e.to_string()),
            BenchError::Run(RunError::StoppedInWarmup) => Error::Stopped(crate::stop::exit_code()),
            BenchError::Run(_) => {
                Error::Usage(format!("{e}: shorten --warmup or lengthen the run"))
            }
            BenchError::MutationLeavesGeneration { .. } | BenchError::MutationNotKept { .. } => {
                Error::Usage(format!("--mutate {e}"))
            }
            BenchError::UnorderedWrite { .. } => Error::Watch(format!("--react: {e}")),
            BenchError::LoadThread(_) | BenchError::LoadStopped => Error::Failed(e.to_string()),
        }
    }
}
