//! `top`: a running controller's own metrics, scraped every interval, shown as what changed in
//! it (kubectl top's refreshing table, or one JSON line per interval), and summed up at the end.
//! Exit 0 when `--for` ran out, 2 when the first scrape fails (a scrape failing later is a gap,
//! counted and shown), 130 and 143 after Ctrl-C and SIGTERM, the summary printed first.

mod each;

use super::{sleep_until, GlobalConfig};
use crate::cli::{ReportFormat, TopArgs, Via};
use crate::cluster::ApiResource;
use crate::cluster::Cluster;
use crate::error::{Error, Result, EXIT_OK};
use crate::output::stdout_is_terminal;
use crate::output::top::write_interval;
use crate::scrape::controller::{Controller, InformerKey};
use crate::scrape::interval::Interval;
use crate::scrape::lag::ServerSide;
use crate::scrape::target::{ScrapeError, Scraper, Target};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// The version of `top -o json`'s lines (schemas/top-line.v1.schema.json).
pub const TOP_SCHEMA_VERSION: u32 = 1;

/// The shortest interval: a scrape of kube-controller-manager is about 4,000 lines.
const MIN_INTERVAL: Duration = Duration::from_millis(200);

/// `top`'s arguments, validated.
#[derive(Debug, Clone)]
pub struct TopConfig {
    pub target: Target,
    /// `--metrics-token-from`'s service account.
    pub token_from: Option<String>,
    pub interval: Duration,
    pub run_for: Option<Duration>,
    pub lag: bool,
    pub all: bool,
    /// `--all-replicas`: each replica of the target scraped, not only the leader.
    pub all_replicas: bool,
    pub output: ReportFormat,
}

impl TopConfig {
    pub fn from_args(args: &TopArgs) -> Result<Self> {
        let (target, token_from) = read_target(
            &args.target,
            "metrics target",
            args.via,
            args.metrics_token_from.as_deref(),
        )?;
        if args.interval < MIN_INTERVAL {
            return Err(Error::Usage(format!(
                "--interval {}: scrape at most every {}, e.g. --interval 2s",
                crate::format::duration(args.interval),
                crate::format::duration(MIN_INTERVAL)
            )));
        }
        let run_for = super::nonzero(args.run_for);
        if let Some(run_for) = run_for.filter(|d| *d < args.interval) {
            // One scrape measures nothing: rates and durations are differences of two.
            return Err(Error::Usage(format!(
                "--for {} is shorter than --interval {}: top measures between two scrapes an \
                 interval apart, so the run would end before its first interval; give --for at \
                 least the interval, or a shorter --interval",
                crate::format::duration(run_for),
                crate::format::duration(args.interval)
            )));
        }
        if args.all_replicas && !matches!(target, Target::Pods { .. }) {
            return Err(Error::Usage(format!(
                "--all-replicas: \"{}\" has no replicas to scrape one by one; give KIND/NAME \
                 reached by port-forward (without --via proxy), e.g. deploy/my-operator",
                crate::scrape::target::shown(&args.target)
            )));
        }
        Ok(TopConfig {
            target,
            token_from,
            interval: args.interval,
            run_for,
            lag: args.lag,
            all: args.all,
            all_replicas: args.all_replicas,
            output: args.output,
        })
    }
}

/// A metrics target as given (`what` names it in errors), reached `via` port-forward or the API
/// server's proxy, and the service account whose token scrapes it (`--metrics-token-from`).
pub(super) fn read_target(
    text: &str,
    what: &str,
    via: Via,
    token_from: Option<&str>,
) -> Result<(Target, Option<String>)> {
    let shown = crate::scrape::target::shown(text);
    let mut target =
        Target::parse(text).map_err(|why| Error::Usage(format!("{what} \"{shown}\": {why}")))?;
    if via == Via::Proxy {
        target = target
            .through_proxy()
            .map_err(|why| Error::Usage(format!("{what} \"{shown}\" with --via proxy: {why}")))?;
    }
    let token_from = match token_from {
        None => None,
        Some(_) if !matches!(target, Target::Pods { .. }) => {
            return Err(Error::Usage(format!(
                "--metrics-token-from: the token is for a pod reached by port-forward, and \
                 \"{shown}\" is {}",
                match target {
                    Target::Url(_) => "a URL (it gets the kubeconfig's credentials)",
                    _ => "reached through the API server's proxy (which passes no token on)",
                }
            )))
        }
        Some(text) => Some(
            crate::scrape::target::service_account(text)
                .map_err(|why| Error::Usage(format!("--metrics-token-from \"{text}\": {why}")))?,
        ),
    };
    Ok((target, token_from))
}

impl From<ScrapeError> for Error {
    fn from(e: ScrapeError) -> Self {
        match e {
            ScrapeError::Cluster(c) => Error::Cluster(c),
            other => Error::Failed(other.to_string()),
        }
    }
}

/// One line of `top -o json`: an interval's figures, or (`kind: summary`) the whole run's, its
/// queues with their largest depth.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    schema_version: u32,
    kind: &'static str,
    time: String,
    target: &'a str,
    /// The replica scraped, for a port-forwarded target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pod: Option<&'a str>,
    /// With `--all-replicas`: whether the replica holds the leader's Lease (absent when no
    /// Lease names one of the replicas).
    #[serde(skip_serializing_if = "Option::is_none")]
    leader: Option<bool>,
    #[serde(flatten)]
    interval: &'a Interval,
    /// Summary only: scrapes made, and those that failed or took longer than the interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    scrapes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gaps: Option<u64>,
}

/// What the run has seen so far.
struct Run {
    first: (Instant, Controller),
    last: (Instant, Controller),
    scrapes: u64,
    gaps: u64,
    max_depths: BTreeMap<String, f64>,
    /// The scraping moved to another replica: the next scrape starts the intervals again.
    rebase: bool,
    /// The last scrape failed: the replica may be gone.
    lost: bool,
    /// When the last scrape began.
    tried: Instant,
    /// What the server serves: the informers' resources named as discovery names them.
    served: Vec<ApiResource>,
}

impl Run {
    fn new(at: Instant, scrape: Controller, served: &[ApiResource]) -> Run {
        let mut run = Run {
            first: (at, scrape.clone()),
            last: (at, scrape.clone()),
            scrapes: 0,
            gaps: 0,
            max_depths: BTreeMap::new(),
            rebase: false,
            lost: false,
            tried: at,
            served: served.to_vec(),
        };
        run.note_depths(&scrape);
        run.scrapes = 1;
        run
    }

    fn note_depths(&mut self, scrape: &Controller) {
        for (name, q) in &scrape.queues {
            let max = self.max_depths.entry(name.clone()).or_default();
            *max = max.max(q.depth);
        }
    }

    /// Takes a new scrape and returns the interval since the last one.
    fn next(&mut self, at: Instant, scrape: Controller) -> Interval {
        self.scrapes += 1;
        self.note_depths(&scrape);
        let seconds = at.duration_since(self.last.0).as_secs_f64();
        let mut interval = Interval::between(&self.last.1, &scrape, seconds);
        self.last = (at, scrape);
        self.name(&mut interval);
        interval
    }

    /// Each informer's resource as discovery names it (client-go's label guesses from the kind).
    fn name(&self, interval: &mut Interval) {
        for i in &mut interval.informers {
            i.name_by(&self.served);
        }
    }

    /// The first scrape of another replica: its counters start anew, so the intervals and the
    /// summary start from it (the largest depths seen are kept).
    fn restart(&mut self, at: Instant, scrape: Controller) {
        self.scrapes += 1;
        self.note_depths(&scrape);
        self.first = (at, scrape.clone());
        self.last = (at, scrape);
        self.rebase = false;
    }

    /// The whole run as one interval, each queue with its largest depth.
    fn summary(&self) -> Interval {
        let seconds = self.last.0.duration_since(self.first.0).as_secs_f64();
        let mut summary = Interval::between(&self.first.1, &self.last.1, seconds);
        for q in &mut summary.queues {
            q.max_depth = self.max_depths.get(&q.name).copied();
        }
        self.name(&mut summary);
        summary
    }
}

/// The cluster, the resources it serves and the namespace. Without `--lag`, discovery only
/// names the informers' resources: when it fails, they keep client-go's labels.
async fn connect(global: &GlobalConfig, lag: bool) -> Result<(Cluster, Vec<ApiResource>, String)> {
    let (cluster, served) = if lag {
        super::connect_and_discover(global).await?
    } else {
        let cluster = Cluster::connect(&global.selection, global.transport)
            .await?
            .with_verbosity(global.verbose);
        let discovery = cluster.discover();
        let what = "discovery of the API resources";
        let served = match global.limits.bound(&cluster, what, discovery).await {
            Err(Error::Stopped(code)) => return Err(Error::Stopped(code)),
            served => served.unwrap_or_default(),
        };
        (cluster, served)
    };
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| cluster.default_namespace.clone());
    Ok((cluster, served, namespace))
}

pub async fn exec(global: &GlobalConfig, config: TopConfig) -> Result<u8> {
    let (cluster, served, namespace) = connect(global, config.lag).await?;
    if config.all_replicas {
        return each::exec(global, &config, &cluster, &namespace, &served).await;
    }
    let (scraper, first) = match start(global, &config, &cluster, &namespace).await {
        Err(Error::Stopped(code)) => return Ok(code),
        started => started?,
    };
    let interrupt = crate::stop::requested();
    tokio::pin!(interrupt);
    // `| head -1` has its line: done at once, not an interval later.
    let closed = crate::output::stdout_closed();
    tokio::pin!(closed);
    let server_side = match config.lag {
        true => Some(follow_informers(&cluster, &served, &first).await),
        false => None,
    };
    let started = Instant::now();
    let deadline = global.limits.ends();
    let mut run = Run::new(started, first, &served);
    let mut out = std::io::stdout().lock();
    let redraw = config.output == ReportFormat::Text && stdout_is_terminal();
    let patience = crate::scrape::target::patience(config.interval);
    let code = loop {
        // An interval after the last attempt: a scrape that failed at once is not tried again
        // at once.
        let due = run.tried.max(started) + config.interval;
        let due = deadline.map_or(due, |d| due.min(d));
        tokio::select! {
            _ = tokio::time::sleep_until(due) => {}
            _ = &mut interrupt => break crate::stop::exit_code(),
            _ = &mut closed => return Ok(EXIT_OK),
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break EXIT_OK;
        }
        // A scrape slower than the interval is a gap, as a failed one is: the next interval
        // starts at the last good scrape. A leader that moved is followed first.
        let scraped = tokio::select! {
            scraped = tokio::time::timeout(patience, follow_and_scrape(&scraper, &mut run)) => scraped,
            _ = &mut interrupt => break crate::stop::exit_code(),
            _ = sleep_until(deadline) => break EXIT_OK,
            _ = &mut closed => return Ok(EXIT_OK),
        };
        match scraped {
            Ok(Ok(scrape)) if run.rebase => run.restart(Instant::now(), scrape),
            Ok(Ok(scrape)) => {
                let mut interval = run.next(Instant::now(), scrape);
                if let Some(side) = &server_side {
                    add_lags(&mut interval, side);
                }
                let pod = scraper.reached().await.map(|r| r.pod);
                write_one(
                    &mut out,
                    &config,
                    &Shown::of(&scraper, &pod),
                    &interval,
                    redraw,
                    false,
                )
                .map_err(Error::Output)?;
            }
            Ok(Err(e)) => gap(&mut run, &scraper, &e.to_string()),
            Err(_) => gap(
                &mut run,
                &scraper,
                &crate::scrape::target::no_answer(patience),
            ),
        }
    };
    let pod = scraper.reached().await.map(|r| r.pod);
    write_summary(&mut out, &config, &Shown::of(&scraper, &pod), &run).map_err(Error::Output)?;
    Ok(code)
}

/// The scraper of `config`'s target. Finding a workload's replicas and leader asks the API
/// server: within the run's limits (--for) and until Ctrl-C, as the scrapes are.
async fn scraper(
    global: &GlobalConfig,
    config: &TopConfig,
    cluster: &Cluster,
    namespace: &str,
) -> Result<Scraper> {
    let finding = format!("finding the replicas of {}", config.target);
    let token_from = config.token_from.as_deref();
    (global.limits)
        .bound(
            cluster,
            &finding,
            Scraper::new(&config.target, cluster, namespace, token_from),
        )
        .await
}

/// The scraper of `config`'s target and its first scrape, within the run's limits; says which
/// replica a port-forwarded target reached.
async fn start(
    global: &GlobalConfig,
    config: &TopConfig,
    cluster: &Cluster,
    namespace: &str,
) -> Result<(Scraper, Controller)> {
    let scraper = scraper(global, config, cluster, namespace).await?;
    let what = format!("the first scrape of {}", scraper.target());
    let first = global
        .limits
        .bound(scraper.cluster(), &what, scraper.scrape())
        .await?;
    if let Some(reached) = scraper.reached().await {
        crate::output::say(&format!(
            "kubectl-informer: {}",
            crate::output::top::reached_line(scraper.target(), &reached)
        ));
    }
    Ok((scraper, first))
}

/// A scrape, after following the leader to another replica if it moved (said on stderr; the
/// scrape is then the first of a new interval).
async fn follow_and_scrape(scraper: &Scraper, run: &mut Run) -> Result<Controller, ScrapeError> {
    run.tried = Instant::now();
    match scraper.follow(std::mem::take(&mut run.lost)).await {
        Ok(Some(moved)) => {
            crate::output::say(&crate::output::top::moved_line(scraper.target(), &moved));
            run.rebase = true;
        }
        Ok(None) => {}
        // The replica scraped is still the one to try; its scrape says what is wrong.
        Err(e) => crate::output::say(&format!(
            "kubectl-informer: {}: cannot tell which replica leads: {e}",
            scraper.target()
        )),
    }
    let scraped = scraper.scrape().await;
    if scraped.is_err() {
        // A replica that is gone fails its scrapes: the next look finds the one that runs.
        run.lost = true;
    }
    scraped
}

/// Starts our watches of the resources the controller's informers hold; says on stderr which
/// cannot be followed, and why.
async fn follow_informers(
    cluster: &Cluster,
    served: &[ApiResource],
    first: &Controller,
) -> ServerSide {
    let (side, not_followed) = ServerSide::follow(cluster, served, first.informers.keys()).await;
    for n in not_followed {
        crate::output::say(&format!(
            "kubectl-informer: no lag for the {} informer: {}",
            n.informer, n.reason
        ));
    }
    side
}

/// Each informer's lag now, from its store's resourceVersion in the scrape just taken.
fn add_lags(interval: &mut Interval, side: &ServerSide) {
    let now = Instant::now();
    for i in &mut interval.informers {
        let key = InformerKey {
            name: i.name.clone(),
            group: i.group.clone(),
            version: i.version.clone(),
            resource: i.resource.clone(),
        };
        i.lag = i
            .store_resource_version
            .and_then(|store| side.lag(&key, store, now));
    }
}

/// A scrape that gave nothing: counted, and said on stderr.
fn gap(run: &mut Run, scraper: &Scraper, why: &str) {
    run.gaps += 1;
    run.scrapes += 1;
    crate::output::say(&format!(
        "kubectl-informer: {}",
        scraper.gap_line(None, run.gaps, why)
    ));
}

/// What is scraped, as a line names it: the target, the replica of a port-forwarded one, and
/// with `--all-replicas` whether it leads.
struct Shown<'a> {
    target: &'a str,
    pod: Option<&'a str>,
    leads: Option<bool>,
}

impl<'a> Shown<'a> {
    fn of(scraper: &'a Scraper, pod: &'a Option<String>) -> Self {
        Shown {
            target: scraper.target(),
            pod: pod.as_deref(),
            leads: None,
        }
    }
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let role = match self.leads {
            Some(true) => ", leader",
            Some(false) => ", follower",
            None => "",
        };
        match self.pod {
            Some(pod) => write!(f, "{} (pod/{pod}{role})", self.target),
            None => f.write_str(self.target),
        }
    }
}

/// One interval's line or tables; on a terminal (`redraw`) the screen is cleared first unless
/// `after` (another replica's tables of the same round are above).
fn write_one(
    out: &mut impl Write,
    config: &TopConfig,
    shown: &Shown,
    interval: &Interval,
    redraw: bool,
    after: bool,
) -> std::io::Result<()> {
    let time = crate::format::rfc3339_millis(SystemTime::now());
    match config.output {
        ReportFormat::Json => {
            let line = Line {
                schema_version: TOP_SCHEMA_VERSION,
                kind: "interval",
                time,
                target: shown.target,
                pod: shown.pod,
                leader: shown.leads,
                interval,
                scrapes: None,
                gaps: None,
            };
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)?;
        }
        ReportFormat::Text => {
            if redraw && !after {
                // Home and clear, as watch(1) redraws.
                write!(out, "\x1b[H\x1b[2J")?;
            }
            let heading = format!(
                "{shown} · {} · the last {}",
                crate::format::local_time(SystemTime::now()),
                crate::format::format_seconds(interval.seconds)
            );
            write_interval(out, &heading, interval, config.all)?;
            if !redraw || config.all_replicas {
                writeln!(out)?;
            }
        }
    }
    out.flush()
}

fn write_summary(
    out: &mut impl Write,
    config: &TopConfig,
    shown: &Shown,
    run: &Run,
) -> std::io::Result<()> {
    let summary = run.summary();
    match config.output {
        ReportFormat::Json => {
            let line = Line {
                schema_version: TOP_SCHEMA_VERSION,
                kind: "summary",
                time: crate::format::rfc3339_millis(SystemTime::now()),
                target: shown.target,
                pod: shown.pod,
                leader: shown.leads,
                interval: &summary,
                scrapes: Some(run.scrapes),
                gaps: Some(run.gaps),
            };
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)?;
        }
        ReportFormat::Text => {
            let heading = format!(
                "summary of {shown}: {} over {}, {}",
                crate::format::count(run.scrapes, "scrape"),
                crate::format::format_seconds(summary.seconds),
                crate::format::count(run.gaps, "gap")
            );
            write_interval(out, &heading, &summary, config.all)?;
            let deepest = run
                .max_depths
                .iter()
                .filter(|(_, d)| **d > 0.0)
                .map(|(n, d)| format!("{n} {}", crate::format::format_number(*d)))
                .collect::<Vec<_>>();
            if !deepest.is_empty() {
                writeln!(out, "largest depths: {}", deepest.join(", "))?;
            }
        }
    }
    out.flush()
}
