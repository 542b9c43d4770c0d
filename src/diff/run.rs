//! The informer whose cache diff compares, up to the first comparison: started from a LIST or a
//! watch-list, synced, left to settle, within the run's deadline and until a stop; and what goes
//! wrong with its watch on the way, handed out as it happens.

use super::error::DiffError;
use crate::informer::listwatch::ListWatch;
use crate::informer::reflector::{ReflectorConfig, Start};
use crate::informer::shared::{RunningInformer, SharedInformer};
use crate::informer::transition::{CloseReason, ReflectorEvent};
use crate::signal::sleep_until;
use std::future::Future;
use std::time::Duration;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// How a wait for the informer ended.
pub enum Ready<T> {
    /// The wait is over: the informer runs on.
    Running(RunningInformer),
    /// The deadline came first, while diff was waiting for this; the informer is stopped.
    GaveUp { waiting_for: &'static str },
    /// The stop resolved first, with this.
    Stopped(T),
}

/// Starts the informer: its first LIST (`start`, in pages of `chunk_size`) or watch-list, whose
/// initial events may take `initial_events_timeout`.
pub fn start(
    lw: &ListWatch,
    start: Start,
    chunk_size: u32,
    initial_events_timeout: Duration,
) -> RunningInformer {
    let config = ReflectorConfig {
        initial_events_timeout,
        ..ReflectorConfig::informer(start, chunk_size)
    };
    SharedInformer::new(lw.clone(), config).run()
}

/// Waits for the cache to sync, unless `gives_up` or `stop` comes first.
pub async fn synced<T>(
    mut running: RunningInformer,
    gives_up: Option<Instant>,
    stop: impl Future<Output = T>,
) -> Result<Ready<T>, DiffError> {
    tokio::select! {
        synced = running.synced() => synced?,
        value = stop => return Ok(Ready::Stopped(value)),
        _ = sleep_until(gives_up) => return Ok(gave_up(running, "the informer's cache to sync").await),
    }
    Ok(Ready::Running(running))
}

/// Lets the synced cache take in the events of `settle` (none: no wait), unless `gives_up` or
/// `stop` comes first.
pub async fn settled<T>(
    running: RunningInformer,
    settle: Option<Duration>,
    gives_up: Option<Instant>,
    stop: impl Future<Output = T>,
) -> Ready<T> {
    let Some(settle) = settle else {
        return Ready::Running(running);
    };
    tokio::select! {
        _ = tokio::time::sleep(settle) => Ready::Running(running),
        value = stop => Ready::Stopped(value),
        _ = sleep_until(gives_up) => gave_up(running, "--settle to end").await,
    }
}

async fn gave_up<T>(running: RunningInformer, waiting_for: &'static str) -> Ready<T> {
    let _ = running.stop().await;
    Ready::GaveUp { waiting_for }
}

/// Hands `trouble` what goes wrong with the informer's watch (a watch lost or refused, a 410
/// and its relist, a watch-list that fell back to a LIST) and, once after a trouble, its
/// recovery; the routine re-opens of a watch the server ended are not handed out. The task ends
/// with the informer.
pub fn follow_troubles(
    running: &RunningInformer,
    mut trouble: impl FnMut(&ReflectorEvent) + Send + 'static,
) -> JoinHandle<()> {
    let mut events = running.observe();
    tokio::spawn(async move {
        let mut troubled = false;
        while let Some(event) = events.recv().await {
            if is_trouble(&event, troubled) {
                troubled = !matches!(event, ReflectorEvent::WatchOpened { .. });
                trouble(&event);
            }
        }
    })
}

/// Whether `event` is a trouble, or the recovery from one (`troubled`: the last one said was a
/// trouble).
fn is_trouble(event: &ReflectorEvent, troubled: bool) -> bool {
    match event {
        ReflectorEvent::WatchClosed { reason, .. } => *reason != CloseReason::ServerClosed,
        ReflectorEvent::WatchFailed { .. }
        | ReflectorEvent::ListFailed { .. }
        | ReflectorEvent::Expired { .. }
        | ReflectorEvent::WentBack { .. }
        | ReflectorEvent::Fallback { .. }
        | ReflectorEvent::ListRestarted { .. } => true,
        // Back: said once after a trouble.
        ReflectorEvent::WatchOpened { .. } | ReflectorEvent::ListComplete { .. } => troubled,
        _ => false,
    }
}
