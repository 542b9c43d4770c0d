//! `top --all-replicas`: every running replica of a workload scraped each interval, each with
//! intervals and a summary of its own, marked leader or follower, so that an idle leader or a
//! busy follower stands out. The replicas are listed again each interval: one started since is
//! scraped from then on, one gone is said and keeps its summary. A replica that serves metrics
//! but none of a controller's (a follower whose controllers wait for the Lease) is shown as
//! waiting, not as a gap.

use super::{add_lags, follow_informers, write_one, write_summary, Run, Shown, TopConfig};
use crate::cli::ReportFormat;
use crate::cluster::{ApiResource, Cluster};
use crate::commands::{sleep_until, GlobalConfig};
use crate::error::{Error, Result, EXIT_OK};
use crate::output::top::{gone_line, new_leader_line, replica_line, standby_line, standby_summary};
use crate::scrape::controller::Controller;
use crate::scrape::lag::ServerSide;
use crate::scrape::target::{ReplicaScrape, ScrapeError, Scraper};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::SystemTime;
use tokio::time::Instant;

/// How long the first scrape of each replica may take (each scrape after it has the interval,
/// at least a second): as long as a pod's answer may take to begin, the API server's default
/// for a request's headers.
const FIRST_SCRAPE_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// One replica as the run has seen it.
#[derive(Default)]
struct Seen {
    /// From its first scrape with a controller's metrics.
    run: Option<Run>,
    /// Scrapes and gaps before that one.
    scrapes: u64,
    gaps: u64,
    leads: Option<bool>,
    gone: bool,
}

impl Seen {
    fn gap(&mut self) -> u64 {
        match &mut self.run {
            Some(run) => {
                run.scrapes += 1;
                run.gaps += 1;
                run.gaps
            }
            None => {
                self.scrapes += 1;
                self.gaps += 1;
                self.gaps
            }
        }
    }
}

/// Every replica seen, by pod, and which leads.
struct Replicas<'a> {
    scraper: &'a Scraper,
    served: &'a [ApiResource],
    seen: BTreeMap<String, Seen>,
    leader: Option<String>,
}

/// What a round shows on stdout for one replica.
enum Shows {
    Interval(crate::scrape::interval::Interval),
    Standby,
}

/// A replica that serves metrics, but none of a controller's (`kind: standby`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StandbyLine<'a> {
    schema_version: u32,
    kind: &'static str,
    time: String,
    target: &'a str,
    pod: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    leader: Option<bool>,
    /// At the end only, for a replica that never served a controller's metrics.
    #[serde(skip_serializing_if = "Option::is_none")]
    scrapes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gaps: Option<u64>,
}

pub(super) async fn exec(
    global: &GlobalConfig,
    config: &TopConfig,
    cluster: &Cluster,
    namespace: &str,
    served: &[ApiResource],
) -> Result<u8> {
    let (scraper, first) = match start(global, config, cluster, namespace).await {
        Err(Error::Stopped(code)) => return Ok(code),
        started => started?,
    };
    let interrupt = crate::stop::requested();
    tokio::pin!(interrupt);
    let closed = crate::output::stdout_closed();
    tokio::pin!(closed);
    let server_side = match config.lag {
        true => {
            let mut union = Controller::default();
            for c in first.iter().filter_map(|r| r.scrape.as_ref().ok()) {
                union.informers.extend(c.informers.clone());
            }
            Some(follow_informers(cluster, served, &union).await)
        }
        false => None,
    };
    let started = Instant::now();
    let deadline = global.limits.ends();
    let mut replicas = Replicas {
        scraper: &scraper,
        served,
        seen: BTreeMap::new(),
        leader: None,
    };
    let mut out = std::io::stdout().lock();
    replicas.round(started, first);
    let patience = crate::scrape::target::patience(config.interval);
    let mut tried = started;
    let code = loop {
        let due = tried + config.interval;
        let due = deadline.map_or(due, |d| due.min(d));
        tokio::select! {
            _ = tokio::time::sleep_until(due) => {}
            _ = &mut interrupt => break crate::stop::exit_code(),
            _ = &mut closed => return Ok(EXIT_OK),
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break EXIT_OK;
        }
        tried = Instant::now();
        let round = tokio::select! {
            // Listing the replicas, then each one's scrape within the patience.
            round = tokio::time::timeout(2 * patience, scraper.scrape_each(patience)) => round,
            _ = &mut interrupt => break crate::stop::exit_code(),
            _ = sleep_until(deadline) => break EXIT_OK,
            _ = &mut closed => return Ok(EXIT_OK),
        };
        let why = match round {
            Ok(Some(Ok(each))) => {
                let shows = replicas.round(Instant::now(), each);
                write_round(&mut out, config, &replicas, shows, server_side.as_ref())
                    .map_err(Error::Output)?;
                continue;
            }
            Ok(Some(Err(e))) => e.to_string(),
            // Refused by TopConfig: a target without replicas has no round.
            Ok(None) => break EXIT_OK,
            Err(_) => crate::scrape::target::no_answer(2 * patience),
        };
        replicas.gap_all(&why);
    };
    write_summaries(&mut out, config, &replicas).map_err(Error::Output)?;
    Ok(code)
}

/// The scraper and the first round, within the run's limits: at least one replica must serve a
/// controller's metrics, or the run ends with the first replica's error.
async fn start(
    global: &GlobalConfig,
    config: &TopConfig,
    cluster: &Cluster,
    namespace: &str,
) -> Result<(Scraper, Vec<ReplicaScrape>)> {
    let scraper = super::scraper(global, config, cluster, namespace).await?;
    let what = format!("the first scrape of each replica of {}", scraper.target());
    let first = global
        .limits
        .bound(scraper.cluster(), &what, async {
            let none = || Error::Usage(format!("{} has no replicas", scraper.target()));
            let each = scraper.scrape_each(FIRST_SCRAPE_LIMIT).await;
            each.ok_or_else(none)?.map_err(Error::from)
        })
        .await?;
    if first.iter().any(|r| r.scrape.is_ok()) {
        return Ok((scraper, first));
    }
    // None serves a controller's metrics: the first one's error says why (a workload without
    // a running pod is an error of its own, before this).
    match first.into_iter().find_map(|r| r.scrape.err()) {
        Some(error) => Err(error.into()),
        None => Err(Error::Failed(format!(
            "{} has no running replica",
            config.target
        ))),
    }
}

impl Replicas<'_> {
    /// Takes a round's scrapes: says the replicas first seen, a new leader and the replicas
    /// gone; returns what to show for each, the leader first.
    fn round(&mut self, at: Instant, each: Vec<ReplicaScrape>) -> Vec<(String, Shows)> {
        let target = self.scraper.target();
        let leader = each.iter().find(|r| r.leads == Some(true));
        if let Some(leader) = leader {
            if self.leader.as_deref() != Some(leader.reached.pod.as_str()) {
                if self.leader.is_some() {
                    crate::output::say(&new_leader_line(
                        target,
                        &leader.reached.pod,
                        leader.reached.leader.as_deref().unwrap_or_default(),
                        self.leader.as_deref(),
                    ));
                }
                self.leader = Some(leader.reached.pod.clone());
            }
        }
        let running = each.len();
        for (pod, seen) in &mut self.seen {
            if !seen.gone && !each.iter().any(|r| &r.reached.pod == pod) {
                seen.gone = true;
                crate::output::say(&gone_line(target, pod, running));
            }
        }
        let mut shows = Vec::new();
        for r in each {
            let pod = r.reached.pod.clone();
            let seen = self.seen.entry(pod.clone()).or_default();
            if std::mem::take(&mut seen.gone) || (seen.run.is_none() && seen.scrapes == 0) {
                crate::output::say(&format!(
                    "kubectl-informer: {}",
                    replica_line(target, &r.reached, r.leads)
                ));
            }
            seen.leads = r.leads;
            if let Some(shown) = Self::take(self.scraper, self.served, &pod, seen, at, r.scrape) {
                shows.push((pod, shown));
            }
        }
        // The leader first, then the others by name.
        shows.sort_by_key(|(pod, _)| self.leader.as_deref() != Some(pod.as_str()));
        shows
    }

    /// One replica's scrape: an interval since its last, a first scrape (nothing to show
    /// yet), a replica waiting to lead, or a gap (said on stderr).
    fn take(
        scraper: &Scraper,
        served: &[ApiResource],
        pod: &str,
        seen: &mut Seen,
        at: Instant,
        scrape: Result<Controller, ScrapeError>,
    ) -> Option<Shows> {
        match (scrape, &mut seen.run) {
            (Ok(c), Some(run)) => Some(Shows::Interval(run.next(at, c))),
            (Ok(c), None) => {
                let mut run = Run::new(at, c, served);
                run.scrapes += seen.scrapes;
                run.gaps += seen.gaps;
                seen.run = Some(run);
                None
            }
            (Err(ScrapeError::NotAController { .. }), None) => {
                seen.scrapes += 1;
                Some(Shows::Standby)
            }
            (Err(e), _) => {
                let gaps = seen.gap();
                crate::output::say(&format!(
                    "kubectl-informer: {}",
                    scraper.gap_line(Some(pod), gaps, &e.to_string())
                ));
                None
            }
        }
    }

    /// A round that gave nothing (the replicas could not be listed, or it took too long): a
    /// gap of every replica that runs, said once.
    fn gap_all(&mut self, why: &str) {
        let mut gaps = 0;
        for seen in self.seen.values_mut().filter(|s| !s.gone) {
            gaps = gaps.max(seen.gap());
        }
        crate::output::say(&format!(
            "kubectl-informer: {}",
            self.scraper.gap_line(None, gaps, why)
        ));
    }

    fn shown<'a>(&'a self, pod: &'a str) -> Shown<'a> {
        Shown {
            target: self.scraper.target(),
            pod: Some(pod),
            leads: self.seen.get(pod).and_then(|s| s.leads),
        }
    }
}

/// A round's tables or lines, one replica after the other, the screen cleared once.
fn write_round(
    out: &mut impl Write,
    config: &TopConfig,
    replicas: &Replicas,
    shows: Vec<(String, Shows)>,
    server_side: Option<&ServerSide>,
) -> std::io::Result<()> {
    let redraw = config.output == ReportFormat::Text && crate::output::stdout_is_terminal();
    for (i, (pod, shows)) in shows.into_iter().enumerate() {
        let shown = replicas.shown(&pod);
        match shows {
            Shows::Interval(mut interval) => {
                if let Some(side) = server_side {
                    add_lags(&mut interval, side);
                }
                write_one(out, config, &shown, &interval, redraw, i > 0)?;
            }
            Shows::Standby => write_standby(out, config, &shown, None, redraw && i == 0)?,
        }
    }
    out.flush()
}

/// A replica without a controller's metrics: each round, and at the end (`counts`: its
/// scrapes and gaps) when it never served them.
fn write_standby(
    out: &mut impl Write,
    config: &TopConfig,
    shown: &Shown,
    counts: Option<(u64, u64)>,
    clear: bool,
) -> std::io::Result<()> {
    let time = SystemTime::now();
    match config.output {
        ReportFormat::Json => {
            let line = StandbyLine {
                schema_version: super::TOP_SCHEMA_VERSION,
                kind: "standby",
                time: crate::format::rfc3339_millis(time),
                target: shown.target,
                pod: shown.pod.unwrap_or_default(),
                leader: shown.leads,
                scrapes: counts.map(|c| c.0),
                gaps: counts.map(|c| c.1),
            };
            serde_json::to_writer(&mut *out, &line)?;
            writeln!(out)
        }
        ReportFormat::Text => {
            if clear {
                write!(out, "\x1b[H\x1b[2J")?;
            }
            let shown_text = shown.to_string();
            let line = match counts {
                Some((scrapes, gaps)) => standby_summary(&shown_text, shown.leads, scrapes, gaps),
                None => standby_line(&shown_text, &crate::format::local_time(time), shown.leads),
            };
            writeln!(out, "{line}\n")
        }
    }
}

/// Each replica's summary, the leader first.
fn write_summaries(
    out: &mut impl Write,
    config: &TopConfig,
    replicas: &Replicas,
) -> std::io::Result<()> {
    let mut pods: Vec<&String> = replicas.seen.keys().collect();
    pods.sort_by_key(|pod| replicas.leader.as_ref() != Some(*pod));
    for pod in pods {
        let seen = &replicas.seen[pod];
        let shown = replicas.shown(pod);
        match &seen.run {
            Some(run) => {
                write_summary(out, config, &shown, run)?;
                if config.output == ReportFormat::Text {
                    writeln!(out)?;
                }
            }
            None => write_standby(out, config, &shown, Some((seen.scrapes, seen.gaps)), false)?,
        }
    }
    out.flush()
}
