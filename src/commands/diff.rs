//! `diff`: an informer cache compared with a LIST at the same resourceVersion, so that nothing
//! in flight counts as drift. Exit 0 no drift, 1 drift, 2 error (kubectl diff's convention).

use super::{parse_duration, resolve_target, sleep_until, GlobalConfig};
use crate::cli::{CacheInitial, DiffArgs, ReportFormat};
use crate::cluster::selector::{validate_field_selector, validate_label_selector};
use crate::cluster::ClusterError;
use crate::error::{Error, Result, EXIT_FINDING, EXIT_INTERRUPTED, EXIT_OK};
use crate::format::rfc3339_millis;
use crate::informer::drift::{counts, Comparison, Drift, DriftClass, FieldDetail};
use crate::informer::listwatch::{ListOptions, ListWatch};
use crate::informer::object::RawObject;
use crate::informer::reflector::{ReflectorConfig, Start};
use crate::informer::shared::{RunningInformer, SharedInformer};
use crate::informer::store::{Objects, Store};
use crate::output::stderr_is_terminal;
use crate::recording::{self, Scope, SCHEMA_VERSION};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long the cache may take to catch up with the server's newest RV in a fallback.
const CATCH_UP_DEADLINE: Duration = Duration::from_secs(60);

/// `diff`'s arguments, validated.
#[derive(Debug, Clone)]
pub struct DiffConfig {
    pub resource: String,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub initial: CacheInitial,
    pub settle: Option<Duration>,
    pub every: Option<Duration>,
    pub timeout: Option<Duration>,
    pub chunk_size: u32,
    pub cache_file: Option<PathBuf>,
    pub save_cache: Option<PathBuf>,
    pub show_fields: bool,
    pub output: ReportFormat,
}

impl DiffConfig {
    pub fn from_args(args: &DiffArgs) -> Result<Self> {
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
        let duration = |v: &Option<String>, flag: &str| -> Result<Option<Duration>> {
            match v {
                Some(t) => parse_duration(t, flag),
                None => Ok(None),
            }
        };
        let every = duration(&args.every, "--every")?;
        if every.is_some_and(|d| d.is_zero()) {
            return Err(Error::Usage("--every must be longer than 0s".into()));
        }
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
        Ok(DiffConfig {
            resource: args.resource.clone(),
            label_selector: args.selector.clone().filter(|s| !s.is_empty()),
            field_selector: args.field_selector.clone().filter(|s| !s.is_empty()),
            initial: args.initial,
            settle: duration(&args.settle, "--settle")?,
            every,
            timeout: duration(&args.timeout, "--timeout")?,
            chunk_size: args.chunk_size,
            cache_file: args.cache_file.clone(),
            save_cache: args.save_cache.clone(),
            show_fields: args.show_fields,
            output: args.output,
        })
    }
}

/// How the LIST the cache was compared with was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// LIST at the cache's RV with resourceVersionMatch=Exact.
    Exact,
    /// The cache's RV could no longer be listed exactly (410); the cache caught up with the
    /// server's newest RV and was compared there, exactly.
    ExactAfterCatchUp,
    /// A saved cache compared with a consistent LIST taken now.
    CacheFile,
}

impl Method {
    fn describe(self) -> &'static str {
        match self {
            Method::Exact => "exact LIST at the cache's RV",
            Method::ExactAfterCatchUp => {
                "exact LIST after the cache caught up: its RV was no longer listable"
            }
            Method::CacheFile => "saved cache against a consistent LIST now",
        }
    }
}

/// The result of one comparison: the JSON document of `diff -o json` (schema in README).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffReport {
    pub schema_version: u32,
    pub resource: String,
    pub namespace: Option<String>,
    /// The RV both sides were compared at (for a cache file: the LIST's RV).
    pub resource_version: String,
    /// For a cache file: the RV the saved cache was synced to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_resource_version: Option<String>,
    pub method: Method,
    pub compared: usize,
    /// Drifted objects per class, every class present.
    pub drift: DriftCounts,
    pub objects: Vec<Drift>,
    pub duration_seconds: f64,
    pub time: String,
    /// With --every: when drift was first seen, and when it healed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watchdog: Option<Watchdog>,
}

/// Drifted objects per class.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct DriftCounts {
    pub missing: usize,
    pub ghost: usize,
    pub stale: usize,
    pub recreated: usize,
    pub content: usize,
}

impl DriftCounts {
    fn of(drift: &[Drift]) -> Self {
        let mut c = DriftCounts::default();
        for (class, n) in counts(drift) {
            *match class {
                DriftClass::Missing => &mut c.missing,
                DriftClass::Ghost => &mut c.ghost,
                DriftClass::Stale => &mut c.stale,
                DriftClass::Recreated => &mut c.recreated,
                DriftClass::Content => &mut c.content,
            } = n;
        }
        c
    }
}

/// Drift first seen and healed, across the comparisons of `--every`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Watchdog {
    pub comparisons: u64,
    pub drift_first_seen: Option<String>,
    pub healed_at: Option<String>,
    pub healed_after_seconds: Option<f64>,
    #[serde(skip)]
    first_seen: Option<SystemTime>,
}

impl Watchdog {
    fn observe(&mut self, drifted: bool, at: SystemTime) {
        self.comparisons += 1;
        match (drifted, self.first_seen) {
            (true, None) => {
                self.first_seen = Some(at);
                self.drift_first_seen = Some(rfc3339_millis(at));
                self.healed_at = None;
                self.healed_after_seconds = None;
            }
            (false, Some(first)) if self.healed_at.is_none() => {
                self.healed_at = Some(rfc3339_millis(at));
                self.healed_after_seconds = at.duration_since(first).ok().map(|d| d.as_secs_f64());
            }
            // Drift again after it healed: a new episode, timed from now.
            (true, Some(_)) if self.healed_at.is_some() => {
                self.first_seen = Some(at);
                self.drift_first_seen = Some(rfc3339_millis(at));
                self.healed_at = None;
                self.healed_after_seconds = None;
            }
            _ => {}
        }
    }

    fn describe(&self) -> Option<String> {
        let first = self.drift_first_seen.as_deref()?;
        Some(match (&self.healed_at, self.healed_after_seconds) {
            (Some(healed), Some(after)) => {
                format!(
                    "watchdog: drift first seen at {first}, healed at {healed} (after {after:.1}s)"
                )
            }
            _ => format!("watchdog: drift first seen at {first}, not healed"),
        })
    }
}

impl DiffReport {
    fn drifted(&self) -> bool {
        !self.objects.is_empty()
    }

    /// The one-line verdict.
    pub fn verdict(&self) -> String {
        let at = format!(
            "{} objects compared at RV {} ({}), {:.2}s",
            self.compared,
            self.resource_version,
            self.method.describe(),
            self.duration_seconds
        );
        if !self.drifted() {
            return format!("no drift: {at}");
        }
        let per_class: Vec<String> = counts(&self.objects)
            .into_iter()
            .map(|(c, n)| format!("{n} {}", c.as_str()))
            .collect();
        format!("drift: {} in {at}", per_class.join(", "))
    }
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
    };
    let detail = match (config.show_fields, lw.resource.is_secret()) {
        (false, _) => FieldDetail::None,
        (true, true) => FieldDetail::Paths,
        (true, false) => FieldDetail::PathsAndValues,
    };
    let mut out = std::io::stdout().lock();
    let result = match &config.cache_file {
        Some(path) => compare_cache_file(&lw, &config, detail, path).await,
        None => run_informer(&lw, &config, detail, &mut out).await,
    };
    match result {
        Ok(Outcome::Report(report)) => {
            print_report(&report, &config, &mut out)?;
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

enum Outcome {
    /// One report, still to print.
    Report(Box<DiffReport>),
    /// Reports were printed as they came (`--every`); the exit code.
    Code(u8),
}

/// Prints one report; `Ok(false)` when stdout's reader has gone away (`| head -1`).
fn print_report(report: &DiffReport, config: &DiffConfig, out: &mut impl Write) -> Result<bool> {
    let written = match config.output {
        ReportFormat::Json => serde_json::to_writer(&mut *out, report)
            .map_err(std::io::Error::other)
            .and_then(|_| out.write_all(b"\n")),
        ReportFormat::Text => {
            crate::output::table::write_drift(out, &report.objects, config.show_fields)
                .and_then(|_| writeln!(out, "{}", report.verdict()))
                .and_then(
                    |_| match report.watchdog.as_ref().and_then(Watchdog::describe) {
                        Some(line) => writeln!(out, "{line}"),
                        None => Ok(()),
                    },
                )
        }
    };
    match written.and_then(|_| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(Error::Output(e)),
    }
}

fn report(
    lw: &ListWatch,
    resource_version: String,
    method: Method,
    compared: usize,
    objects: Vec<Drift>,
    started: Instant,
) -> DiffReport {
    DiffReport {
        schema_version: SCHEMA_VERSION,
        resource: lw.resource.qualified_name(),
        namespace: lw.namespace.clone(),
        resource_version,
        cache_resource_version: None,
        method,
        compared,
        drift: DriftCounts::of(&objects),
        objects,
        duration_seconds: started.elapsed().as_secs_f64(),
        time: rfc3339_millis(SystemTime::now()),
        watchdog: None,
    }
}

/// LISTs page by page (at `at` exactly, or consistently when `None`) and compares each page
/// with the frozen cache; returns the LIST's RV, objects compared and drift.
async fn list_and_compare(
    lw: &ListWatch,
    at: Option<&str>,
    cache: Objects,
    detail: FieldDetail,
    chunk_size: u32,
    redact_server: bool,
) -> Result<(String, usize, Vec<Drift>), ClusterError> {
    let mut comparison = Comparison::new(cache, detail);
    let mut opts = ListOptions {
        limit: Some(chunk_size),
        continue_token: None,
        resource_version: at.map(str::to_string),
        version_match: at.map(|_| "Exact"),
    };
    let mut progress: Option<indicatif::ProgressBar> = None;
    loop {
        let page = lw.list_page(&opts).await?;
        if progress.is_none() && page.continue_token.is_some() && stderr_is_terminal() {
            let total =
                page.items.len() as u64 + page.remaining_item_count.unwrap_or(0).max(0) as u64;
            progress = Some(crate::output::progress::list_bar(total));
        }
        if let Some(bar) = &progress {
            bar.inc(page.items.len() as u64);
        }
        if redact_server {
            let redacted: Vec<RawObject> = page
                .items
                .iter()
                .map(|o| o.redacted().unwrap_or_else(|_| o.clone()))
                .collect();
            comparison.page(&redacted);
        } else {
            comparison.page(&page.items);
        }
        match page.continue_token {
            Some(token) => {
                opts.continue_token = Some(token);
            }
            None => {
                if let Some(bar) = progress {
                    bar.finish_and_clear();
                }
                let (compared, drift) = comparison.finish();
                return Ok((page.resource_version, compared, drift));
            }
        }
    }
}

async fn compare_cache_file(
    lw: &ListWatch,
    config: &DiffConfig,
    detail: FieldDetail,
    path: &PathBuf,
) -> Result<Outcome> {
    let started = Instant::now();
    let file = std::fs::File::open(path)
        .map_err(|e| Error::Usage(format!("cannot open --cache-file {}: {e}", path.display())))?;
    let rec = recording::read(std::io::BufReader::new(file)).map_err(|e| {
        Error::Usage(format!(
            "--cache-file {} is not a recording: {e}: pass a file made by `tail -o json`, \
             `tail --record` or `diff --save-cache`",
            path.display()
        ))
    })?;
    let wanted = lw.resource.qualified_name();
    if let Some(recorded) = rec.resource.as_deref().filter(|r| *r != wanted) {
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
    let (cache_rv, cache) = rec.store.frozen();
    // A recording made without --show-secret-data holds markers, not values: compare like with
    // like.
    let redact =
        lw.resource.is_secret() && cache.iter().any(|o| o.json().contains("\"<redacted: "));
    // A LIST whose continue token expires mid-way (slower than the history window) starts over
    // in one request, as client-go's pager does.
    let (rv, compared, drift) =
        match list_and_compare(lw, None, cache.clone(), detail, config.chunk_size, redact).await {
            Err(e) if e.status_code() == Some(410) => {
                list_and_compare(lw, None, cache, detail, 0, redact).await?
            }
            other => other?,
        };
    let mut r = report(lw, rv, Method::CacheFile, compared, drift, started);
    r.cache_resource_version = Some(cache_rv).filter(|v| !v.is_empty());
    Ok(Outcome::Report(Box::new(r)))
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

async fn run_informer(
    lw: &ListWatch,
    config: &DiffConfig,
    detail: FieldDetail,
    out: &mut impl Write,
) -> Result<Outcome> {
    let informer = SharedInformer::new(
        lw.clone(),
        ReflectorConfig::informer(
            match config.initial {
                CacheInitial::List => Start::List,
                CacheInitial::WatchList => Start::WatchList,
            },
            config.chunk_size,
        ),
    );
    let mut running = informer.run();
    let interrupt = tokio::signal::ctrl_c();
    tokio::pin!(interrupt);
    let deadline = config.timeout.map(|t| tokio::time::Instant::now() + t);

    tokio::select! {
        synced = running.synced() => synced?,
        _ = &mut interrupt => return Ok(Outcome::Code(EXIT_INTERRUPTED)),
    }
    if let Some(path) = &config.save_cache {
        save_cache(&running, lw, path).await?;
    }
    if let Some(settle) = config.settle {
        tokio::select! {
            _ = tokio::time::sleep(settle) => {}
            _ = &mut interrupt => return Ok(Outcome::Code(EXIT_INTERRUPTED)),
        }
    }
    let Some(every) = config.every else {
        let report = tokio::select! {
            r = compare_live(lw, &running, detail, config.chunk_size) => r,
            _ = &mut interrupt => return Ok(Outcome::Code(EXIT_INTERRUPTED)),
        };
        let report = match report {
            Ok(report) => report,
            Err(e) => return Err(why_stopped(running, e).await),
        };
        let _ = running.stop().await;
        return Ok(Outcome::Report(Box::new(report)));
    };
    let mut watchdog = Watchdog::default();
    let code = loop {
        // An informer whose watch failed for good holds a cache that no longer moves: comparing
        // it again would report whatever it last showed, so say why it stopped instead.
        if running.reflector_finished() {
            let stopped = Error::Watch("the informer's watch ended".into());
            return Err(why_stopped(running, stopped).await);
        }
        let report = tokio::select! {
            r = compare_live(lw, &running, detail, config.chunk_size) => r,
            _ = &mut interrupt => return Ok(Outcome::Code(EXIT_INTERRUPTED)),
        };
        let mut report = match report {
            Ok(report) => report,
            Err(e) => return Err(why_stopped(running, e).await),
        };
        watchdog.observe(report.drifted(), SystemTime::now());
        report.watchdog = Some(watchdog.clone());
        if !print_report(&report, config, out)? {
            // Nobody reads the reports any more: stop, as tail does (exit 0).
            break EXIT_OK;
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = sleep_until(deadline) => break if report.drifted() { EXIT_FINDING } else { EXIT_OK },
            _ = &mut interrupt => break EXIT_INTERRUPTED,
        }
    };
    let _ = running.stop().await;
    Ok(Outcome::Code(code))
}

/// Writes the cache in tail's recording format, Secret values redacted as tail records them
/// (`--cache-file` redacts the LIST it compares with the same way), once no relist is part-way
/// through it.
async fn save_cache(running: &RunningInformer, lw: &ListWatch, path: &PathBuf) -> Result<()> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| {
            Error::Usage(format!(
                "cannot create --save-cache file {}: {e}: name a new file in a writable directory",
                path.display()
            ))
        })?;
    let start = recording::start_notice(lw);
    let redact = lw.resource.is_secret();
    when_settled(running, |store| {
        recording::snapshot(store, &start, redact, std::io::BufWriter::new(&file))
    })
    .await?
    .map_err(|e| Error::Usage(format!("cannot write --save-cache {}: {e}", path.display())))
}

/// Freezes the cache at its synced RV R and compares it with a LIST at exactly R. When the
/// server can no longer serve R (410, at the first page or mid-list when its history is compacted
/// under a long LIST), waits for the cache to reach the server's newest RV and compares there;
/// gives up after three such tries.
async fn compare_live(
    lw: &ListWatch,
    running: &RunningInformer,
    detail: FieldDetail,
    chunk_size: u32,
) -> Result<DiffReport> {
    const TRIES: usize = 3;
    let started = Instant::now();
    let mut method = Method::Exact;
    for _ in 0..TRIES {
        let (rv, cache) = settled_cache(running).await?;
        match list_and_compare(lw, Some(&rv), cache, detail, chunk_size, false).await {
            Ok((_, compared, drift)) => {
                return Ok(report(lw, rv, method, compared, drift, started));
            }
            Err(e) if e.status_code() == Some(410) => {
                catch_up(lw, running, &rv).await?;
                method = Method::ExactAfterCatchUp;
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(Error::Watch(format!(
        "the server discarded the history of {} {TRIES} times while diff listed it: a LIST of \
         the cache's size takes longer than the server keeps history; use a larger --chunk-size \
         (fewer pages), or compare a saved cache with --cache-file",
        lw.resource.qualified_name()
    )))
}

/// The error to show for `err`: the reflector's own, when it stopped (a failure it does not
/// retry, such as 403 after permissions were revoked), else `err`.
async fn why_stopped(running: RunningInformer, err: Error) -> Error {
    if running.reflector_finished() {
        if let Err(e) = running.stop().await {
            return e.into();
        }
    }
    err
}

/// The cache frozen at its RV, once no relist is part-way through replacing it (a half-replaced
/// cache holds objects newer than its RV and would show drift that is not there).
async fn settled_cache(running: &RunningInformer) -> Result<(String, Objects)> {
    when_settled(running, Store::frozen).await
}

/// `read` of the store once no relist is part-way through replacing it.
async fn when_settled<T>(running: &RunningInformer, read: impl Fn(&Store) -> T) -> Result<T> {
    running
        .settled(read)
        .await
        .map_err(|stopped| Error::Watch(stopped.to_string()))
}

/// Waits until the cache's RV reaches the server's newest (events and bookmarks advance it).
async fn catch_up(lw: &ListWatch, running: &RunningInformer, rv: &str) -> Result<()> {
    let newest = lw
        .list_page(&ListOptions {
            limit: Some(1),
            ..Default::default()
        })
        .await?
        .resource_version;
    eprintln!(
        "kubectl-informer: the cache's RV {rv} can no longer be listed exactly (410 Gone); \
         waiting for the cache to reach the server's newest RV {newest} and comparing there"
    );
    let newest_n: u64 = newest.parse().unwrap_or(u64::MAX);
    match tokio::time::timeout(CATCH_UP_DEADLINE, running.reached(newest_n)).await {
        Ok(Ok(())) => Ok(()),
        _ => {
            let current: u64 = running
                .read(|store| store.resource_version().parse())
                .unwrap_or(0);
            Err(Error::Watch(format!(
                "the cache did not reach RV {newest} within {}s (it is at {current}): no events \
                 or bookmarks arrived; compare again, or with --cache-file",
                CATCH_UP_DEADLINE.as_secs()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_reports_first_drift_and_healing() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let mut w = Watchdog::default();
        w.observe(false, t0);
        assert!(w.describe().is_none());
        w.observe(true, t0 + Duration::from_secs(5));
        w.observe(true, t0 + Duration::from_secs(10));
        assert!(w.describe().unwrap().ends_with("not healed"));
        w.observe(false, t0 + Duration::from_secs(12));
        assert_eq!(w.healed_after_seconds, Some(7.0));
        assert!(w.describe().unwrap().contains("(after 7.0s)"));
        assert_eq!(w.comparisons, 4);
        // Drift comes back: a new episode, first seen now, not healed.
        w.observe(true, t0 + Duration::from_secs(20));
        let line = w.describe().unwrap();
        assert!(line.ends_with("not healed"), "{line}");
        assert_eq!(
            w.drift_first_seen.as_deref(),
            Some(rfc3339_millis(t0 + Duration::from_secs(20)).as_str())
        );
        assert_eq!(w.healed_after_seconds, None);
        w.observe(false, t0 + Duration::from_secs(23));
        assert_eq!(w.healed_after_seconds, Some(3.0));
    }
}
