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
                    _ => {}
                }
            }
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
mod tests {
    use super::*;
    use crate::proxy::engine::{Armed, Notice};
    use crate::proxy::fault::Fault;
    use std::time::Duration;
    use tokio::sync::mpsc::UnboundedReceiver;

    fn engine(faults: &[&str]) -> (Arc<Engine>, UnboundedReceiver<Notice>) {
        let armed = faults
            .iter()
            .map(|f| Armed {
                fault: Fault::parse(f).unwrap(),
                scope: None,
            })
            .collect();
        let (tx, rx) = mpsc::unbounded_channel();
        (Arc::new(Engine::new(armed, 1, tx)), rx)
    }

    fn event(kind: &str, rv: u32, initial_events_end: bool) -> Bytes {
        let annotations = match initial_events_end {
            true => r#","annotations":{"k8s.io/initial-events-end":"true"}"#,
            false => "",
        };
        Bytes::from(
            format!(
                r#"{{"type":"{kind}","object":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"c{rv}","resourceVersion":"{rv}"{annotations}}}}}}}"#
            ) + "\n",
        )
    }

    /// A watch of ConfigMaps relayed through `engine`'s faults: the upstream's sender, and the
    /// body the client reads.
    fn watch(engine: &Arc<Engine>) -> (mpsc::Sender<Result<Frame<Bytes>, BoxError>>, ProxyBody) {
        watch_of(engine, "watch=1&resourceVersion=5")
    }

    fn watch_of(
        engine: &Arc<Engine>,
        query: &str,
    ) -> (mpsc::Sender<Result<Frame<Bytes>, BoxError>>, ProxyBody) {
        let request = ApiRequest::new(
            &http::Method::GET,
            "/api/v1/namespaces/demo/configmaps",
            Some(query),
        );
        let plan = engine.plan(&request);
        let connection = engine.connection("127.0.0.1:1".parse().unwrap());
        let guard = engine.watch_opened(&request, &connection);
        let (tx, rx) = mpsc::channel(16);
        let upstream = received(rx);
        let body = relay(
            engine.clone(),
            request,
            plan.stream,
            Encoding::Json,
            upstream,
            guard,
        );
        (tx, body)
    }

    async fn send(tx: &mpsc::Sender<Result<Frame<Bytes>, BoxError>>, bytes: Bytes) {
        tx.send(Ok(Frame::data(bytes))).await.unwrap();
    }

    /// The next event the client reads (`None`: the stream ended cleanly; `Err`: it was reset).
    async fn next(body: &mut ProxyBody) -> Option<Result<Bytes, String>> {
        match body.frame().await? {
            Ok(frame) => Some(Ok(frame.into_data().unwrap())),
            Err(e) => Some(Err(e.to_string())),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn bookmarks_are_dropped_all_of_them_or_only_the_initial_events_end_one() {
        for (fault, kept) in [
            ("drop-bookmarks", vec![1, 4]),
            ("drop-initial-events-end", vec![1, 3, 4]),
        ] {
            let (engine, mut notices) = engine(&[fault]);
            let (tx, mut body) = watch(&engine);
            // Events split across chunks: each is judged whole.
            let mut all = Vec::new();
            for (i, (kind, end)) in [
                ("ADDED", false),
                ("BOOKMARK", true),
                ("BOOKMARK", false),
                ("MODIFIED", false),
            ]
            .into_iter()
            .enumerate()
            {
                all.extend_from_slice(&event(kind, i as u32 + 1, end));
            }
            for chunk in all.chunks(50) {
                send(&tx, Bytes::copy_from_slice(chunk)).await;
            }
            drop(tx);
            let mut got = Vec::new();
            while let Some(event) = next(&mut body).await {
                got.push(event.unwrap());
            }
            let expected: Vec<Bytes> = kept
                .iter()
                .map(|rv| {
                    let kind = match rv {
                        1 => "ADDED",
                        4 => "MODIFIED",
                        _ => "BOOKMARK",
                    };
                    event(kind, *rv, false)
                })
                .collect();
            assert_eq!(got, expected, "{fault}");
            let notice = notices.recv().await.unwrap();
            assert_eq!(
                notice.detail,
                "dropped the initial-events-end BOOKMARK at rv 2"
            );
            assert_eq!(engine.applied()[0].count, 4 - kept.len() as u64, "{fault}");
        }
    }

    /// An event of ConfigMap `name` in namespace demo.
    fn of(kind: &str, name: &str, rv: u32) -> Bytes {
        Bytes::from(
            format!(
                r#"{{"type":"{kind}","object":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"demo","resourceVersion":"{rv}"}}}}}}"#
            ) + "\n",
        )
    }

    #[tokio::test(start_paused = true)]
    async fn coalesced_events_of_an_object_come_as_the_newest_typed_as_a_relist_shows_them_in_rv_order(
    ) {
        let (engine, mut notices) = engine(&["coalesce:window=5s"]);
        let (tx, mut body) = watch(&engine);
        let start = Instant::now();
        for event in [
            of("MODIFIED", "x", 1),
            of("ADDED", "y", 2),
            of("MODIFIED", "x", 3),
            event("BOOKMARK", 4, false),
            of("DELETED", "y", 5),
            of("DELETED", "z", 6),
            of("ADDED", "z", 7),
        ] {
            send(&tx, event).await;
        }
        // x: the newest of two changes; the bookmark after it, not before (RV order); y, added
        // and deleted, never; z, deleted and created again, as the change a relist shows.
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            of("MODIFIED", "x", 3)
        );
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("BOOKMARK", 4, false)
        );
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            of("MODIFIED", "z", 7)
        );
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        let details: Vec<String> = [(); 3]
            .iter()
            .map(|()| notices.try_recv().unwrap().detail)
            .collect();
        assert_eq!(
            details,
            [
                "2 events of demo/x within 5s sent as one MODIFIED at rv 3",
                "2 events of demo/y within 5s (added, then deleted) not sent: a relist would not show it",
                "2 events of demo/z within 5s sent as one MODIFIED at rv 7",
            ]
        );
        // A window opens with an object's first event after the last one closed.
        tokio::time::sleep(Duration::from_secs(1)).await;
        send(&tx, of("MODIFIED", "x", 8)).await;
        drop(tx);
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            of("MODIFIED", "x", 8)
        );
        assert_eq!(start.elapsed(), Duration::from_secs(11));
        assert!(next(&mut body).await.is_none());
        assert!(notices.try_recv().is_err(), "one event is no coalescing");
        assert_eq!(engine.applied()[0].count, 3);
    }

    #[tokio::test(start_paused = true)]
    async fn a_watch_lists_initial_events_are_not_coalesced_and_what_follows_is() {
        let (engine, _notices) = engine(&["coalesce:window=5s"]);
        let (tx, mut body) = watch_of(
            &engine,
            "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
        );
        let start = Instant::now();
        send(&tx, of("ADDED", "x", 1)).await;
        send(&tx, event("BOOKMARK", 2, true)).await;
        send(&tx, of("MODIFIED", "x", 3)).await;
        assert_eq!(next(&mut body).await.unwrap().unwrap(), of("ADDED", "x", 1));
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("BOOKMARK", 2, true)
        );
        assert_eq!(start.elapsed(), Duration::ZERO);
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            of("MODIFIED", "x", 3)
        );
        assert_eq!(start.elapsed(), Duration::from_secs(5));
    }

    #[tokio::test(start_paused = true)]
    async fn a_delayed_watch_sends_each_event_its_delay_after_it_came_in_order() {
        let (engine, _notices) = engine(&["delay:by=2s"]);
        let (tx, mut body) = watch(&engine);
        let start = Instant::now();
        send(&tx, event("ADDED", 1, false)).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        send(&tx, event("MODIFIED", 2, false)).await;
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("ADDED", 1, false)
        );
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("MODIFIED", 2, false)
        );
        assert_eq!(start.elapsed(), Duration::from_millis(2500));
        // The upstream's end comes after the events it follows.
        send(&tx, event("MODIFIED", 3, false)).await;
        drop(tx);
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("MODIFIED", 3, false)
        );
        assert!(next(&mut body).await.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_stalled_watch_holds_its_events_until_the_stall_ends_then_sends_them() {
        let (engine, mut notices) = engine(&["stall:at=1s,for=10s"]);
        engine.run_timers();
        let (tx, mut body) = watch(&engine);
        let start = Instant::now();
        send(&tx, event("ADDED", 1, false)).await;
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("ADDED", 1, false)
        );
        let stalled = notices.recv().await.unwrap();
        assert!(
            stalled.detail.starts_with("stalled for 10s after"),
            "{}",
            stalled.detail
        );
        send(&tx, event("MODIFIED", 2, false)).await;
        send(&tx, event("MODIFIED", 3, false)).await;
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("MODIFIED", 2, false)
        );
        assert_eq!(start.elapsed(), Duration::from_secs(11));
        assert_eq!(
            next(&mut body).await.unwrap().unwrap(),
            event("MODIFIED", 3, false)
        );
        let over = notices.recv().await.unwrap();
        assert_eq!(over.detail, "stall over: 2 events held are sent");
    }

    #[tokio::test(start_paused = true)]
    async fn a_sever_ends_the_stream_cleanly_or_resets_it() {
        for (fault, reset) in [("sever:at=1s,how=end", false), ("sever:at=1s", true)] {
            let (engine, mut notices) = engine(&[fault]);
            engine.run_timers();
            let (tx, mut body) = watch(&engine);
            send(&tx, event("ADDED", 7, false)).await;
            assert!(next(&mut body).await.unwrap().is_ok());
            match next(&mut body).await {
                None => assert!(!reset, "{fault}: ended cleanly"),
                Some(Err(e)) => assert!(reset && e.contains("fault sever"), "{fault}: {e}"),
                Some(Ok(b)) => panic!("{fault}: {b:?}"),
            }
            let notice = notices.recv().await.unwrap();
            assert!(
                notice.detail.contains("after 1s and 1 event, last rv 7"),
                "{}",
                notice.detail
            );
            assert_eq!(
                notice.request.as_deref(),
                Some("watch configmaps -n demo from rv 5")
            );
            // The upstream is let go.
            assert!(tx.is_closed() || tx.send(Ok(Frame::data(Bytes::new()))).await.is_err());
        }
    }
}
