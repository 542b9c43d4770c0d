//! A synced informer's cache compared with LISTs: once, or every interval until a deadline (the
//! `--every` watchdog, which outlives a failed comparison and tracks drift seen and healed). The
//! reports go to a [`Reports`] sink: diff computes, the command renders.

use super::compare::{compare_live, why_stopped, PageProgress};
use super::drift::FieldDetail;
use super::error::DiffError;
use super::report::{DiffReport, Watchdog};
use crate::informer::listwatch::ListWatch;
use crate::informer::shared::RunningInformer;
use crate::signal::sleep_until;
use std::future::Future;
use std::time::{Duration, SystemTime};
use tokio::task::JoinHandle;

/// Where a watchdog's reports go as they come.
pub trait Reports {
    /// A comparison's report, carrying the watchdog's record so far. An error ends the watchdog
    /// (a reader gone away, say).
    fn report(&mut self, report: &DiffReport) -> std::io::Result<()>;
    /// A comparison failed while the informer goes on; the next one is `again_in` from now.
    fn failed(&mut self, error: DiffError, again_in: Duration);
}

/// How one comparison ended without an error.
pub enum Once<T> {
    Report(Box<DiffReport>),
    /// The deadline came first; the informer is stopped.
    GaveUp,
    /// `stop` resolved first, with this.
    Stopped(T),
}

/// How a watchdog ended without an error.
pub enum Watched<T> {
    /// Its end came: the last comparison's verdict.
    Verdict { drifted: bool },
    /// `stop` resolved first, with this.
    Stopped(T),
}

/// The synced informer and what comparing its cache with a LIST takes.
pub struct Session<'a> {
    pub lw: &'a ListWatch,
    pub running: RunningInformer,
    pub detail: FieldDetail,
    pub chunk_size: u32,
    /// A first comparison of no objects is a report (true) or [`DiffError::NothingCompared`].
    pub allow_empty: bool,
    pub progress: &'a dyn PageProgress,
    /// A task that follows the informer (the command's printer of its troubles): awaited after
    /// the one comparison, so that what it has left is said, and stopped with a watchdog.
    pub follower: JoinHandle<()>,
}

impl Session<'_> {
    /// The cache compared with a LIST.
    async fn compare(&self) -> Result<DiffReport, DiffError> {
        compare_live(
            self.lw,
            &self.running,
            self.detail,
            self.chunk_size,
            self.progress,
        )
        .await
    }

    /// Compares once, unless `gives_up` or `stop` comes first.
    pub async fn once<T>(
        self,
        gives_up: Option<tokio::time::Instant>,
        stop: impl Future<Output = T>,
    ) -> Result<Once<T>, DiffError> {
        let report = tokio::select! {
            r = self.compare() => r,
            value = stop => return Ok(Once::Stopped(value)),
            _ = sleep_until(gives_up) => {
                let _ = self.running.stop().await;
                return Ok(Once::GaveUp);
            }
        };
        let report = match report {
            Ok(report) => report,
            Err(e) => return Err(why_stopped(self.running, e).await),
        };
        let _ = self.running.stop().await;
        // The informer's observers are gone with it: what the follower has left, it does now.
        let _ = self.follower.await;
        Ok(Once::Report(Box::new(report)))
    }

    /// The watchdog: compares every `every`, handing each report to `reports`, until `ends`
    /// or `stop`. A comparison that fails while the informer goes on (the server restarting, a
    /// network outage) is told to `reports` and tried again at the next interval; one that
    /// fails at the end is no verdict: [`DiffError::LastComparisonFailed`].
    pub async fn watchdog<T>(
        self,
        every: Duration,
        ends: Option<tokio::time::Instant>,
        stop: impl Future<Output = T>,
        reports: &mut impl Reports,
    ) -> Result<Watched<T>, DiffError> {
        tokio::pin!(stop);
        let mut watchdog = Watchdog::default();
        let ended = loop {
            // An informer whose watch failed for good holds a cache that no longer moves:
            // comparing it again would report whatever it last showed, so say why it stopped
            // instead.
            if self.running.reflector_finished() {
                let stopped = DiffError::Stopped("the informer's watch ended".into());
                return Err(why_stopped(self.running, stopped).await);
            }
            let report = tokio::select! {
                r = self.compare() => r,
                value = &mut stop => return Ok(Watched::Stopped(value)),
            };
            let first = watchdog.comparisons == 0;
            let drifted = match report {
                Ok(report) if first && report.compared == 0 && !self.allow_empty => {
                    self.stop().await;
                    return Err(DiffError::NothingCompared);
                }
                Ok(mut report) => {
                    watchdog.observe(report.drifted(), SystemTime::now());
                    report.watchdog = Some(watchdog.clone());
                    reports.report(&report).map_err(DiffError::Output)?;
                    Some(report.drifted())
                }
                Err(e) if self.running.reflector_finished() => {
                    return Err(why_stopped(self.running, e).await)
                }
                Err(e) => {
                    reports.failed(e, every);
                    None
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                _ = sleep_until(ends) => match drifted {
                    Some(drifted) => break Watched::Verdict { drifted },
                    None => {
                        self.stop().await;
                        return Err(DiffError::LastComparisonFailed);
                    }
                },
                value = &mut stop => break Watched::Stopped(value),
            }
        };
        self.stop().await;
        Ok(ended)
    }

    /// Stops the informer, and its follower with it.
    async fn stop(self) {
        self.follower.abort();
        let _ = self.running.stop().await;
    }
}
