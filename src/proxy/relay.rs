//! A watch stream under faults: its events passed on one by one, each whole, delayed, held while
//! the watch is stalled, dropped (bookmarks), an object's events within a window sent as one
//! (coalesced), and the stream cut (ended or reset) when a sever comes.

use super::engine::{Engine, Moment, WatchGuard};
use super::fault::Kind;
use super::frames::{retyped, Change, Splitter};
use super::request::ApiRequest;
use super::serve::{BoxError, ProxyBody};
use crate::cluster::Encoding;
use bytes::Bytes;
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

/// One watch's relay: what it was asked, which faults act on it, and what it has done.
struct Relay {
    engine: Arc<Engine>,
    request: ApiRequest,
    faults: Vec<usize>,
    splitter: Splitter,
    encoding: Encoding,
    /// Events waiting, in the order they came: until their time (delay, coalesce), or until
    /// the stall ends.
    waiting: VecDeque<Waiting>,
    /// The objects whose events a `coalesce` is gathering, by key.
    gathering: HashMap<String, Gathering>,
    /// The numbers of the held events a newer one of the same object replaced: not sent.
    superseded: HashSet<u64>,
    held_count: u64,
    /// A watch-list's initial events, until the bookmark that ends them: not coalesced (each is
    /// an object of its own, and the client's sync waits for them).
    initial: bool,
    stalled_until: Option<(usize, Instant)>,
    opened: Instant,
    events: u64,
    last_rv: Option<String>,
    delay_noticed: bool,
    tx: mpsc::Sender<Result<Frame<Bytes>, BoxError>>,
}

/// An event waiting to be sent.
struct Waiting {
    due: Instant,
    event: Bytes,
    /// For an object's event that a `coalesce` holds: which, and what it says.
    held: Option<Held>,
}

struct Held {
    key: String,
    change: Change,
    resource_version: Option<String>,
    number: u64,
}

/// An object whose events a `coalesce` gathers until `due`, the end of the window that its first
/// event opened.
struct Gathering {
    fault: usize,
    window: std::time::Duration,
    /// What the first event said: whether the client had the object before.
    first: Change,
    /// The newest event's number.
    number: u64,
    count: u64,
    due: Instant,
}

/// The body of a watch whose stream `faults` act on; `guard` is dropped when it ends.
pub fn relay(
    engine: Arc<Engine>,
    request: ApiRequest,
    faults: Vec<usize>,
    encoding: Encoding,
    upstream: ProxyBody,
    guard: WatchGuard,
) -> ProxyBody {
    let (tx, rx) = mpsc::channel(16);
    let moments = engine.subscribe();
    let initial = request.send_initial_events;
    let relay = Relay {
        engine,
        request,
        faults,
        splitter: Splitter::new(encoding),
        encoding,
        waiting: VecDeque::new(),
        gathering: HashMap::new(),
        superseded: HashSet::new(),
        held_count: 0,
        initial,
        stalled_until: None,
        opened: Instant::now(),
        events: 0,
        last_rv: None,
        delay_noticed: false,
        tx,
    };
    tokio::spawn(async move {
        relay.run(upstream, moments).await;
        drop(guard);
    });
    received(rx)
}

/// A body of the frames sent on the channel `rx` reads, ending when its senders are gone.
pub(super) fn received(rx: mpsc::Receiver<Result<Frame<Bytes>, BoxError>>) -> ProxyBody {
    let stream = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    });
    StreamBody::new(stream).boxed_unsync()
}

impl Relay {
    async fn run(mut self, mut upstream: ProxyBody, mut moments: broadcast::Receiver<Moment>) {
        let mut upstream_done = false;
        loop {
            if upstream_done && self.waiting.is_empty() {
                return;
            }
            let wake = self.next_wake();
            tokio::select! {
                biased;
                () = self.tx.closed() => return,
                moment = moments.recv() => match moment {
                    Ok(m) if self.faults.contains(&m.fault) => {
                        if self.moment(m).await.is_err() {
                            return;
                        }
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => {}
                },
                () = crate::signal::sleep_until(wake) => {}
                frame = upstream.frame(), if !upstream_done => match frame {
                    None => upstream_done = true,
                    Some(Err(e)) => {
                        let _ = self.tx.send(Err(e)).await;
                        return;
                    }
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data() {
                            self.take(&data);
                        }
                    }
                },
            }
            if self.release().await.is_err() {
                return;
            }
        }
    }

    fn next_wake(&self) -> Option<Instant> {
        match self.stalled_until {
            Some((_, until)) => Some(until),
            None => self.waiting.front().map(|w| w.due),
        }
    }

    /// The events a chunk completes: dropped, or queued to be sent at their time.
    fn take(&mut self, chunk: &[u8]) {
        let now = Instant::now();
        for event in self.splitter.push(chunk) {
            let info = self.splitter.info(&event);
            let (delay, dropped_by) = self.acting(&info, now);
            if let Some(fault) = dropped_by {
                let what = match info.initial_events_end {
                    true => "the initial-events-end BOOKMARK",
                    false => "a BOOKMARK",
                };
                let rv = info.resource_version.as_deref().unwrap_or("?");
                self.engine.notice(
                    fault,
                    Some(&self.request),
                    format!("dropped {what} at rv {rv}"),
                    true,
                );
                continue;
            }
            if !delay.is_zero() && !self.delay_noticed {
                self.delay_noticed = true;
                let fault = self
                    .faults
                    .iter()
                    .copied()
                    .find(|f| matches!(self.engine.kind(*f), Kind::Delay { .. }));
                if let Some(fault) = fault {
                    self.engine.notice(
                        fault,
                        Some(&self.request),
                        format!(
                            "every event sent {} after it came",
                            crate::format::duration(delay)
                        ),
                        true,
                    );
                }
            }
            if info.resource_version.is_some() {
                self.last_rv = info.resource_version.clone();
            }
            let mut due = now + delay;
            let held = match (self.coalesce(), info.change) {
                (Some((fault, window)), Some((change, key))) if !self.initial => {
                    due = self.gather(fault, window, &key, change, due + window);
                    if self.engine.verbose() >= 1 {
                        let rv = info.resource_version.as_deref().unwrap_or("?");
                        let detail = format!(
                            "holding {} {key} at rv {rv}: it goes out as its object's newest event in {}",
                            change.name(),
                            crate::format::duration(due.saturating_duration_since(now))
                        );
                        self.engine
                            .notice(fault, Some(&self.request), detail, false);
                    }
                    Some(Held {
                        key,
                        change,
                        resource_version: info.resource_version,
                        number: self.held_count,
                    })
                }
                _ => None,
            };
            if info.initial_events_end {
                self.initial = false;
            }
            self.waiting.push_back(Waiting { due, event, held });
        }
    }

    /// How long the faults hold an event (`delay`, `stale`), and the fault that drops it, if
    /// one does (a bookmark).
    fn acting(
        &self,
        info: &super::frames::EventInfo,
        now: Instant,
    ) -> (std::time::Duration, Option<usize>) {
        let mut delay = std::time::Duration::ZERO;
        let mut dropped_by = None;
        for &fault in &self.faults {
            match *self.engine.kind(fault) {
                Kind::DropBookmarks {
                    initial_events_end_only,
                } if info.bookmark && (info.initial_events_end || !initial_events_end_only) => {
                    dropped_by = Some(fault);
                }
                Kind::Delay { by } => delay = delay.max(by),
                Kind::Stale { by, .. } => {
                    let mut due = self.engine.stale_due(info.resource_version.as_deref(), by);
                    if let Some(end) = self.engine.stale_ends(fault) {
                        due = due.min(end);
                    }
                    delay = delay.max(due.saturating_duration_since(now));
                }
                _ => {}
            }
        }
        (delay, dropped_by)
    }

    /// The `coalesce` fault on this watch, and its window.
    fn coalesce(&self) -> Option<(usize, std::time::Duration)> {
        self.faults
            .iter()
            .find_map(|&f| match *self.engine.kind(f) {
                Kind::Coalesce { window } => Some((f, window)),
                _ => None,
            })
    }

    /// Counts an event of object `key` into its gathering (opened now, until `due`, if there is
    /// none), the one it replaces marked superseded; returns when it is to be sent.
    fn gather(
        &mut self,
        fault: usize,
        window: std::time::Duration,
        key: &str,
        change: Change,
        due: Instant,
    ) -> Instant {
        self.held_count += 1;
        let number = self.held_count;
        match self.gathering.get_mut(key) {
            Some(g) => {
                self.superseded.insert(g.number);
                g.number = number;
                g.count += 1;
                g.due
            }
            None => {
                let g = Gathering {
                    fault,
                    window,
                    first: change,
                    number,
                    count: 1,
                    due,
                };
                self.gathering.insert(key.to_string(), g);
                due
            }
        }
    }

    /// The one event sent for an object's gathered events (`held` the newest, `event` its
    /// bytes), typed as a relist would show the change to a client that had seen none of them:
    /// an object it did not have is an ADDED, one it had a MODIFIED (even deleted and created
    /// again in between) or a DELETED; one added and deleted within the window is not sent.
    fn gathered(&mut self, held: Held, event: Bytes) -> Option<Bytes> {
        let Some(g) = self.gathering.remove(&held.key) else {
            return Some(event);
        };
        let sent = match (g.first, held.change) {
            (Change::Added, Change::Deleted) => None,
            (Change::Added, _) => Some(Change::Added),
            (_, Change::Deleted) => Some(Change::Deleted),
            _ => Some(Change::Modified),
        };
        if g.count > 1 {
            let within = format!(
                "{} events of {} within {}",
                g.count,
                held.key,
                crate::format::duration(g.window)
            );
            let detail = match (sent, &held.resource_version) {
                (None, _) => {
                    format!("{within} (added, then deleted) not sent: a relist would not show it")
                }
                (Some(c), Some(rv)) => format!("{within} sent as one {} at rv {rv}", c.name()),
                (Some(c), None) => format!("{within} sent as one {}", c.name()),
            };
            self.engine
                .notice(g.fault, Some(&self.request), detail, true);
        }
        match sent {
            None => None,
            Some(c) if c == held.change => Some(event),
            Some(c) => Some(retyped(self.encoding, &event, c).unwrap_or(event)),
        }
    }

    /// Sends what is due, unless the watch is stalled.
    async fn release(&mut self) -> Result<(), ()> {
        let now = Instant::now();
        if let Some((fault, until)) = self.stalled_until {
            if until > now {
                return Ok(());
            }
            self.stalled_until = None;
            self.engine.notice(
                fault,
                Some(&self.request),
                format!(
                    "stall over: {} held are sent",
                    crate::format::count(self.waiting.len() as u64, "event")
                ),
                false,
            );
        }
        while self.waiting.front().is_some_and(|w| w.due <= now) {
            let Some(waiting) = self.waiting.pop_front() else {
                break;
            };
            let event = match waiting.held {
                None => Some(waiting.event),
                Some(held) if self.superseded.remove(&held.number) => None,
                Some(held) => self.gathered(held, waiting.event),
            };
            if let Some(event) = event {
                self.events += 1;
                self.tx.send(Ok(Frame::data(event))).await.map_err(|_| ())?;
            }
        }
        Ok(())
    }

    /// A timed fault's moment, for this watch: a sever cuts it (`Err`: the relay is over), a
    /// stall holds its events.
    async fn moment(&mut self, moment: Moment) -> Result<(), ()> {
        let at = match &self.last_rv {
            Some(rv) => format!(", last rv {rv}"),
            None => String::new(),
        };
        let lived = format!(
            "after {} and {}{at}",
            crate::format::format_seconds(self.opened.elapsed().as_secs_f64()),
            crate::format::count(self.events, "event")
        );
        match *self.engine.kind(moment.fault) {
            Kind::Sever { reset } => {
                let how = match reset {
                    true => "reset",
                    false => "ended cleanly",
                };
                self.engine.notice(
                    moment.fault,
                    Some(&self.request),
                    format!("{how} {lived}"),
                    true,
                );
                if reset {
                    let _ = self
                        .tx
                        .send(Err("kubectl-informer proxy: fault sever".into()))
                        .await;
                }
                Err(())
            }
            Kind::Stall { length } => {
                self.stalled_until = Some((moment.fault, moment.until));
                self.engine.notice(
                    moment.fault,
                    Some(&self.request),
                    format!(
                        "stalled for {} {lived}: its events are held",
                        crate::format::duration(length)
                    ),
                    true,
                );
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
