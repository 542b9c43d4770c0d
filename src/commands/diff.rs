//! `diff`: an informer cache compared with a LIST at the same resourceVersion, so that nothing
//! in flight counts as drift. Exit 0 no drift, 1 drift, 2 error (kubectl diff's convention),
//! 124 `--timeout` reached before the comparison finished.

use super::{create_new_file, nonzero, resolve_target, sleep_until, GlobalConfig};
use crate::cli::{CacheInitial, DiffArgs, ReportFormat};
use crate::cluster::selector::{validate_field_selector, validate_label_selector};
use crate::diff::compare::{compare_cache, when_settled};
use crate::diff::drift::FieldDetail;
use crate::diff::report::DiffReport;
use crate::diff::run::{self, Ready};
use crate::diff::session::{Once, Reports, Session, Watched};
use crate::diff::DiffError;
use crate::error::{Error, Result, EXIT_FINDING, EXIT_OK};
use crate::informer::listwatch::ListWatch;
use crate::informer::object::{Encoding, Keep};
use crate::informer::reflector::Start;
use crate::informer::shared::RunningInformer;
use crate::informer::store::Objects;
use crate::output::drift;
use crate::output::progress::ListProgress;
use crate::output::transition::describe_transition;
use crate::output::{stderr_is_terminal, tolerate_closed_pipe};
use crate::recording::{self, Scope, Transition};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// `diff`'s arguments, validated.
#[derive(Debug, Clone)]
pub struct DiffConfig {
    pub resource: String,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub initial: CacheInitial,
    pub initial_events_timeout: Duration,
    pub settle: Option<Duration>,
    pub every: Option<Duration>,
    /// `--for`: how long the `--every` watchdog runs.
    pub run_for: Option<Duration>,
    /// `--timeout`: how long the one comparison may take before diff exits 124.
    pub timeout: Option<Duration>,
    pub chunk_size: u32,
    pub cache_file: Option<PathBuf>,
    pub save_cache: Option<PathBuf>,
    pub show_fields: bool,
    /// `--allow-empty`: nothing to compare is a pass.
    pub allow_empty: bool,
    pub encoding: Encoding,
    /// What the informer and the LIST keep of an object answered in JSON.
    pub keep: Keep,
    pub output: ReportFormat,
}

impl DiffConfig {
    pub fn from_args(args: &DiffArgs) -> Result<Self> {
        one_resource(&args.resource)?;
        check_list_flags(args)?;
        let (encoding, keep) = super::wire_encoding(
            args.encoding,
            [
                (args.show_fields, "--show-fields"),
                (args.save_cache.is_some(), "--save-cache"),
                (args.cache_file.is_some(), "--cache-file"),
            ]
            .into_iter()
            .find_map(|(set, flag)| set.then_some(flag)),
        )?;
        let Times {
            settle,
            every,
            run_for,
            timeout,
        } = times(args)?;
        check_cache_files(args)?;
        Ok(DiffConfig {
            resource: args.resource.clone(),
            label_selector: args.selector.clone().filter(|s| !s.is_empty()),
            field_selector: args.field_selector.clone().filter(|s| !s.is_empty()),
            initial: args.initial,
            initial_events_timeout: super::initial_events_timeout(
                args.initial_events_timeout,
                args.initial == CacheInitial::WatchList,
            )?,
            settle,
            every,
            run_for,
            timeout,
            chunk_size: args.chunk_size,
            cache_file: args.cache_file.clone(),
            save_cache: args.save_cache.clone(),
            show_fields: args.show_fields,
            allow_empty: args.allow_empty,
            encoding,
            keep,
            output: args.output,
        })
    }
}

/// diff compares one cache with one LIST: a list of resources (`cm,deploy`, as tail takes) is
/// refused in one line that says how to compare each.
fn one_resource(resource: &str) -> Result<()> {
    if !resource.contains(',') {
        return Ok(());
    }
    let each: Vec<String> = resource
        .split(',')
        .filter(|r| !r.is_empty())
        .map(|r| format!("diff {r}"))
        .collect();
    Err(Error::Usage(format!(
        "diff compares one resource at a time (got {resource}): its cache and its LIST share one \
         resourceVersion; run {}",
        each.join(", then ")
    )))
}

/// Checks `-l`, `--field-selector` and `--chunk-size`, what the LIST and the watch are asked
/// with.
fn check_list_flags(args: &DiffArgs) -> Result<()> {
    if let Some(l) = &args.selector {
        validate_label_selector(l).map_err(Error::Usage)?;
    }
    if let Some(f) = &args.field_selector {
        validate_field_selector(f).map_err(Error::Usage)?;
    }
    if args.chunk_size == 0 {
        return Err(Error::Usage(
            "--chunk-size must be at least 1 (objects per LIST page)".into(),
        ));
    }
    Ok(())
}

/// `--settle`, `--every`, `--for` and `--timeout`, 0 meaning none.
struct Times {
    settle: Option<Duration>,
    every: Option<Duration>,
    run_for: Option<Duration>,
    timeout: Option<Duration>,
}

/// The times, and the rules between them: `--timeout` limits the one comparison, `--for` the
/// `--every` watchdog, and the comparison comes after `--settle`.
fn times(args: &DiffArgs) -> Result<Times> {
    let every = nonzero(args.every);
    if args.every.is_some() && every.is_none() {
        return Err(Error::Usage(
            "--every 0: a watchdog needs an interval, e.g. --every 1m".into(),
        ));
    }
    let (settle, run_for, timeout) = (
        nonzero(args.settle),
        nonzero(args.run_for),
        nonzero(args.timeout),
    );
    if let (Some(_), Some(t)) = (every, timeout) {
        let t = crate::format::duration(t);
        return Err(Error::Usage(format!(
            "--timeout {t} with --every: a watchdog has no end for a timeout to wait for; \
             --timeout used to mean how long it runs, which is now --for: use --for {t}"
        )));
    }
    if let (None, Some(f)) = (every, run_for) {
        let f = crate::format::duration(f);
        return Err(Error::Usage(format!(
            "--for {f} without --every: diff compares once and ends; add --every INTERVAL to \
             run a watchdog for {f}, or use --timeout {f} to limit the one comparison"
        )));
    }
    if let (Some(s), Some(t)) = (settle, timeout) {
        if t <= s {
            return Err(Error::Usage(format!(
                "--timeout {} is not longer than --settle {}: the comparison comes after the \
                 settling and could never finish in time; give a longer --timeout",
                crate::format::duration(t),
                crate::format::duration(s)
            )));
        }
    }
    Ok(Times {
        settle,
        every,
        run_for,
        timeout,
    })
}

/// `--cache-file` must be there to read, and `--save-cache` must not: diff never overwrites a
/// file.
fn check_cache_files(args: &DiffArgs) -> Result<()> {
    if let Some(path) = &args.cache_file {
        if !path.is_file() {
            return Err(Error::Usage(format!(
                "--cache-file {}: no such file: pass a recording made by `tail -o json`, \
                 `tail --record` or `diff --save-cache`",
                path.display()
            )));
        }
    }
    if let Some(path) = &args.save_cache {
        if path.exists() {
            return Err(Error::Usage(format!(
                "--save-cache {}: the file exists; name a new file (diff never overwrites one)",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Runs `diff` and returns the exit code.
pub async fn exec(global: &GlobalConfig, config: DiffConfig) -> Result<u8> {
    let verbs: &[&str] = if config.cache_file.is_some() {
        &["list"]
    } else {
        &["list", "watch"]
    };
    let target = resolve_target(global, &config.resource, verbs).await?;
    let lw = ListWatch {
        cluster: target.cluster.clone(),
        resource: target.resource.clone(),
        namespace: target.namespace.clone(),
        label_selector: config.label_selector.clone(),
        field_selector: config.field_selector.clone(),
        metadata_only: false,
        encoding: config.encoding,
        keep: config.keep,
    };
    let detail = match (config.show_fields, lw.resource.is_secret()) {
        (false, _) => FieldDetail::None,
        (true, true) => FieldDetail::Paths,
        (true, false) => FieldDetail::PathsAndValues,
    };
    let mut out = std::io::stdout().lock();
    let progress = ListProgress::new(stderr_is_terminal());
    let gives_up = global.limits.gives_up();
    let result = match &config.cache_file {
        Some(path) => {
            let started = std::time::Instant::now();
            let cache = read_cache_file(&lw, path)?;
            tokio::select! {
                r = compare_cache(&lw, config.chunk_size, detail, cache, started, &progress) => {
                    r.map(|r| Outcome::Report(Box::new(r))).map_err(Error::from)
                }
                _ = sleep_until(gives_up) => Err(timed_out(&config, "the LIST to compare with")),
            }
        }
        None => run_informer(&lw, &config, detail, &progress, &mut out, global.limits).await,
    };
    match result {
        Ok(Outcome::Report(report)) if report.compared == 0 && !config.allow_empty => {
            Err(nothing_to_compare(&lw).await)
        }
        Ok(Outcome::Report(report)) => {
            tolerate_closed_pipe(print_report(&report, &config, &mut out))
                .map_err(Error::Output)?;
            Ok(if report.drifted() {
                EXIT_FINDING
            } else {
                EXIT_OK
            })
        }
        Ok(Outcome::Code(code)) => Ok(code),
        Err(e) => Err(e),
    }
}

/// Reads `--cache-file`: a recording of `lw`'s resource, made in the same scope, holding a
/// complete LIST; the cache it ends with (its RV and objects).
fn read_cache_file(lw: &ListWatch, path: &Path) -> Result<(String, Objects)> {
    let file = std::fs::File::open(path)
        .map_err(|e| Error::File(format!("cannot open --cache-file {}: {e}", path.display())))?;
    let rec = recording::read(std::io::BufReader::new(file)).map_err(|e| {
        Error::Usage(format!(
            "--cache-file {} is not a recording: {e}: pass a file made by `tail -o json`, \
             `tail --record` or `diff --save-cache`",
            path.display()
        ))
    })?;
    let wanted = lw.resource.qualified_name();
    let recorded = recording::reader::one_resource(&rec.resources)
        .map_err(|e| Error::Usage(format!("--cache-file {} {e}", path.display())))?;
    if let Some(recorded) = recorded.filter(|r| *r != wanted) {
        return Err(Error::Usage(format!(
            "--cache-file {} records {recorded}, not {wanted}: name the resource it was made for",
            path.display()
        )));
    }
    if let Some(scope) = &rec.scope {
        check_scope(scope, lw, path)?;
    }
    if !rec.listed {
        return Err(Error::Usage(format!(
            "--cache-file {} holds no complete LIST (no list-complete line), so it is not a \
             whole cache: record with `tail -o json` from its initial LIST, or `diff --save-cache`",
            path.display()
        )));
    }
    Ok(rec.store.frozen())
}

/// A cache file is compared with a LIST of the same namespace and selectors, of whole objects:
/// anything else reports every object outside the overlap as drift.
fn check_scope(scope: &Scope, lw: &ListWatch, path: &Path) -> Result<()> {
    if scope.metadata_only {
        return Err(Error::Usage(format!(
            "--cache-file {} was recorded with --metadata-only: diff compares whole objects; \
             record without --metadata-only",
            path.display()
        )));
    }
    let shown = |value: &Option<String>, none: &str| match value {
        Some(v) => format!("\"{v}\""),
        None => none.to_string(),
    };
    let mut differences = Vec::new();
    for (what, recorded, here, none) in [
        (
            "namespace",
            &scope.namespace,
            &lw.namespace,
            "all namespaces",
        ),
        (
            "label selector",
            &scope.label_selector,
            &lw.label_selector,
            "none",
        ),
        (
            "field selector",
            &scope.field_selector,
            &lw.field_selector,
            "none",
        ),
    ] {
        if recorded != here {
            differences.push(format!(
                "{what} {} (this run: {})",
                shown(recorded, none),
                shown(here, none)
            ));
        }
    }
    if differences.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "--cache-file {} was recorded with {}: pass the -n/-A, -l and --field-selector it was \
         made with",
        path.display(),
        differences.join(", ")
    )))
}

enum Outcome {
    /// One report, still to print.
    Report(Box<DiffReport>),
    /// Reports were printed as they came (`--every`); the exit code.
    Code(u8),
}

/// A comparison of no objects: exit 2, naming the scope that holds none.
async fn nothing_to_compare(lw: &ListWatch) -> Error {
    super::nothing_checked(lw, "nothing to compare", "--allow-empty").await
}

/// Prints one report.
fn print_report(
    report: &DiffReport,
    config: &DiffConfig,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let written = match config.output {
        ReportFormat::Json => serde_json::to_writer(&mut *out, report)
            .map_err(std::io::Error::other)
            .and_then(|_| out.write_all(b"\n")),
        ReportFormat::Text => {
            // A watchdog's verdicts, one per comparison, each say when.
            let when = match config.every {
                Some(_) => format!("{}  ", crate::format::local_time(SystemTime::now())),
                None => String::new(),
            };
            drift::write_drift(out, &report.objects, config.show_fields)
                .and_then(|_| writeln!(out, "{when}{}", drift::verdict(report)))
                .and_then(
                    |_| match report.watchdog.as_ref().and_then(drift::watchdog) {
                        Some(line) => writeln!(out, "{line}"),
                        None => Ok(()),
                    },
                )
        }
    };
    written.and_then(|_| out.flush())
}

/// `--timeout` ran out while diff was still at `stage`.
fn timed_out(config: &DiffConfig, stage: &str) -> Error {
    let limit = crate::format::duration(config.timeout.unwrap_or_default());
    Error::TimedOut(format!(
        "--timeout {limit} reached before the comparison finished: diff was waiting for {stage}"
    ))
}

/// Runs the informer and compares its cache once, or every `--every`, within the run's
/// limits: `--timeout`'s deadline for the one comparison, `--for`'s end of a watchdog.
async fn run_informer(
    lw: &ListWatch,
    config: &DiffConfig,
    detail: FieldDetail,
    progress: &ListProgress,
    out: &mut impl Write,
    limits: super::RunLimits,
) -> Result<Outcome> {
    let (gives_up, ends) = (limits.gives_up(), limits.ends());
    let start = match config.initial {
        CacheInitial::List => Start::List,
        CacheInitial::WatchList => Start::WatchList,
    };
    let running = run::start(lw, start, config.chunk_size, config.initial_events_timeout);
    // Before the sync: a watch-list that fell back to a LIST (a proxy dropping its end
    // bookmark) is said then.
    let follower = run::follow_troubles(&running, |event| {
        if let Some(transition) = Transition::of(event) {
            crate::output::say(&format!("diff: {}", describe_transition(transition)));
        }
    });
    let interrupt = crate::stop::requested();
    tokio::pin!(interrupt);
    let running = match run::synced(running, gives_up, &mut interrupt).await? {
        Ready::Running(running) => running,
        other => return ended_early(other, config),
    };
    if let Some(path) = &config.save_cache {
        save_cache(&running, lw, path).await?;
    }
    let running = match run::settled(running, config.settle, gives_up, &mut interrupt).await {
        Ready::Running(running) => running,
        other => return ended_early(other, config),
    };
    let session = Session {
        lw,
        running,
        detail,
        chunk_size: config.chunk_size,
        allow_empty: config.allow_empty,
        progress,
        follower,
    };
    let interrupted = async {
        interrupt.await;
        crate::stop::exit_code()
    };
    let ended = match config.every {
        None => match session.once(gives_up, interrupted).await {
            Ok(Once::Report(report)) => return Ok(Outcome::Report(report)),
            Ok(Once::GaveUp) => {
                return Err(timed_out(config, "the LIST to compare the cache with"))
            }
            Ok(Once::Stopped(code)) => return Ok(Outcome::Code(code)),
            Err(e) => e,
        },
        Some(every) => {
            // The reader of the reports gone (`| head -1`) ends the watchdog, as a write that
            // finds it does: exit 0.
            let stopped = async {
                tokio::select! {
                    code = interrupted => code,
                    _ = crate::output::stdout_closed() => EXIT_OK,
                }
            };
            let mut printer = Printer { config, out };
            match session.watchdog(every, ends, stopped, &mut printer).await {
                Ok(Watched::Verdict { drifted }) => {
                    return Ok(Outcome::Code(if drifted { EXIT_FINDING } else { EXIT_OK }))
                }
                Ok(Watched::Stopped(code)) => return Ok(Outcome::Code(code)),
                Err(e) => e,
            }
        }
    };
    match ended {
        DiffError::NothingCompared => Err(nothing_to_compare(lw).await),
        other => Err(other.into()),
    }
}

/// A wait before the comparison that ended the run: `--timeout` (an error naming what diff was
/// waiting for) or Ctrl-C/SIGTERM (its exit code).
fn ended_early(ready: Ready<()>, config: &DiffConfig) -> Result<Outcome> {
    match ready {
        Ready::GaveUp { waiting_for } => Err(timed_out(config, waiting_for)),
        _ => Ok(Outcome::Code(crate::stop::exit_code())),
    }
}

/// A watchdog's reports printed as they come, and its failed comparisons said on stderr.
struct Printer<'a, W> {
    config: &'a DiffConfig,
    out: &'a mut W,
}

impl<W: Write> Reports for Printer<'_, W> {
    fn report(&mut self, report: &DiffReport) -> std::io::Result<()> {
        print_report(report, self.config, self.out)
    }

    fn failed(&mut self, error: DiffError, again_in: Duration) {
        crate::output::say(&format!(
            "diff: the comparison failed: {}; comparing again in {}",
            Error::from(error),
            crate::format::wait(again_in)
        ));
    }
}

/// Writes the cache in tail's recording format, Secret values redacted as tail records them
/// (`--cache-file` redacts the LIST it compares with the same way), once no relist is part-way
/// through it.
async fn save_cache(running: &RunningInformer, lw: &ListWatch, path: &Path) -> Result<()> {
    let file = create_new_file("--save-cache", path)?;
    let start = recording::start_notice(lw);
    let redact = lw.resource.is_secret();
    when_settled(running, |store| {
        recording::snapshot(store, &start, redact, std::io::BufWriter::new(&file))
    })
    .await?
    .map_err(|e| Error::File(format!("cannot write --save-cache {}: {e}", path.display())))
}

/// A comparison's failure as the user reads it, with what to do about it where a flag helps.
impl From<DiffError> for Error {
    fn from(e: DiffError) -> Self {
        match e {
            DiffError::Cluster(e) => Error::Cluster(e),
            DiffError::Reflector(e) => e.into(),
            DiffError::HistoryGone { .. } => Error::Watch(format!(
                "{e}; use a larger --chunk-size (fewer pages), or compare a saved cache with \
                 --cache-file"
            )),
            DiffError::NotCaughtUp { .. } => {
                Error::Watch(format!("{e}; compare again, or with --cache-file"))
            }
            DiffError::Output(e) => Error::Output(e),
            other => Error::Watch(other.to_string()),
        }
    }
}
