//! The Reflector: LIST (paginated) then WATCH from the list's resourceVersion, resuming from the
//! last RV seen (bookmarks advance it), relisting on 410, backing off like client-go. Every
//! transition is reported as a [`ReflectorEvent`] so that callers can show or count it.
//!
//! The loop is a `State` (`state.rs`) whose variants carry the data valid in them, as the
//! states of kube-runtime's watcher do, and one transition function, `Reflector::step`, takes a
//! state to the next.

mod ahead;
mod config;
mod state;

pub use config::{ReflectorConfig, ReflectorError, Start, INITIAL_EVENTS_TIMEOUT};

use super::backoff::Backoff;
use super::listwatch::{
    ApiStatus, ListAt, ListOptions, ListWatch, ListerWatcher, StreamError, WatchEvent,
    WatchOptions, WatchStream,
};
use super::object::RawObject;
use super::transition::{
    oldest_resource_version, BackOn, CloseReason, EventType, FallbackReason, ReflectorEvent,
    RestartReason, WatchFailure,
};
use crate::cluster::resource_version::ResourceVersion;
use crate::cluster::ClusterError;
use state::{Listing, Opening, Phase, State, Watch};
use std::collections::VecDeque;
use std::time::{Duration, SystemTime};
use tokio::time::Instant;

/// A watch that ends sooner than this without any event is treated as a failure (client-go).
const SHORT_WATCH: Duration = Duration::from_secs(1);

/// Without a `timeoutSeconds` of the caller's, each watch asks for between this and twice this,
/// at random, as client-go's reflector does (`minWatchTimeout`), so watches of many clients do
/// not all end at once.
const MIN_WATCH_TIMEOUT: u64 = 300;

/// A watch still open this long after its `timeoutSeconds` is presumed dead (a peer gone without
/// closing the connection) and re-opened. client-go has no such bound (its `Request.Watch` only
/// sends `timeoutSeconds` to the server); it notices a dead peer through HTTP/2 health checks,
/// as the transport here does (`cluster::Transport`, `--health-check`), much sooner. This bound
/// remains for when the health check is off or the connection has none (HTTP/1.1 to a peer
/// process that is alive but stuck).
const DEAD_WATCH_GRACE: Duration = Duration::from_secs(5);

/// LIST + WATCH of one resource, as a stream of [`ReflectorEvent`]s pulled with [`Self::next`].
pub struct Reflector<L = ListWatch> {
    lw: L,
    config: ReflectorConfig,
    state: State,
    /// Whether anything ever succeeded: before that, every error is fatal (fail fast on bad
    /// input); after it, transient errors are retried like client-go does. What happened
    /// before, whatever the state now, so no variant of it carries this.
    started: bool,
    backoff: Backoff,
    pending: VecDeque<ReflectorEvent>,
    /// The newest RV seen of the resource (LISTs, watch-lists' ends, watch events and
    /// bookmarks; not the objects of a LIST): one older after it is the server going back.
    newest: Option<ResourceVersion>,
}

impl<L: ListerWatcher> Reflector<L> {
    pub fn new(lw: L, config: ReflectorConfig) -> Self {
        let state = match &config.start {
            Start::List => State::List(Listing::new(false)),
            Start::WatchList => State::OpenWatch(Opening::WatchList),
            Start::FromResourceVersion(rv) => State::CheckReplay { from: rv.clone() },
        };
        Reflector {
            lw,
            config,
            state,
            started: false,
            backoff: Backoff::default(),
            pending: VecDeque::new(),
            newest: None,
        }
    }

    /// The resourceVersion the watch resumes from: the LIST's, then the last object event's or
    /// bookmark's ("" while a watch-list's initial events arrive). `None` while the reflector
    /// lists, and once it ended.
    pub fn resource_version(&self) -> Option<&str> {
        let mut state = &self.state;
        loop {
            match state {
                State::Sleep { then, .. } => state = then,
                State::CheckReplay { from } => return Some(from),
                State::OpenWatch(opening) => return Some(opening.resource_version()),
                State::Watching(watch) => return Some(&watch.resource_version),
                State::List(_) | State::Done => return None,
            }
        }
    }

    /// Whether `next` has an event without waiting: one queued, or a watch event that arrived
    /// whole. Readers take what is ready in one go (a batch, one flush of the output) instead of
    /// paying for each event alone.
    pub fn has_pending(&mut self) -> bool {
        if !self.pending.is_empty() {
            return true;
        }
        match &mut self.state {
            State::Watching(watch) => watch.stream.has_event(),
            _ => false,
        }
    }

    /// The next event; `Ok(None)` once the watch ended and `reconnect` is off.
    pub async fn next(&mut self) -> Result<Option<ReflectorEvent>, ReflectorError> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Ok(Some(event));
            }
            if matches!(self.state, State::Done) {
                return Ok(None);
            }
            let state = std::mem::replace(&mut self.state, State::Done);
            self.state = self.step(state).await?;
        }
    }

    /// The transition function: the state after `state`, with what happened on the way queued
    /// as events. Each variant has its own step below.
    async fn step(&mut self, state: State) -> Result<State, ReflectorError> {
        match state {
            State::List(listing) => self.list_page(listing).await,
            State::CheckReplay { from } => Ok(self.check_replay(from).await),
            State::OpenWatch(opening) => self.open_watch(opening).await,
            State::Watching(watch) => self.read_watch(watch).await,
            State::Sleep { until, then } => {
                tokio::time::sleep_until(until).await;
                Ok(*then)
            }
            State::Done => Ok(State::Done),
        }
    }

    /// One page of a LIST: its objects, then the next page or, after the last, the watch from
    /// the LIST's RV.
    async fn list_page(&mut self, mut listing: Listing) -> Result<State, ReflectorError> {
        let opts = ListOptions {
            limit: listing.paged.then_some(self.config.chunk_size),
            continue_token: listing.continue_token.clone(),
            at: ListAt::Newest,
        };
        let page = match self.lw.list_page(&opts).await {
            Ok(page) => page,
            Err(e) if listing.continue_token.is_some() && e.status_code() == Some(410) => {
                // The continue token expired mid-list: start the LIST over, in one request, as a
                // relist so that the objects of the pages already emitted are compared, not
                // repeated.
                self.pending.push_back(ReflectorEvent::ListRestarted {
                    reason: RestartReason::ContinueExpired(e.to_string()),
                    objects: listing.objects,
                });
                return Ok(State::List(Listing {
                    paged: false,
                    ..Listing::new(true)
                }));
            }
            Err(e) => return self.retry_or_fail(e, State::List(listing)),
        };
        self.started = true;
        let received_at = SystemTime::now();
        listing.pages += 1;
        listing.objects += page.items.len();
        for object in page.items {
            self.pending.push_back(ReflectorEvent::Listed {
                object,
                received_at,
                relist: listing.relist,
            });
        }
        if let Some(token) = page.continue_token {
            listing.continue_token = Some(token);
            return Ok(State::List(listing));
        }
        self.pending.push_back(ReflectorEvent::ListComplete {
            resource_version: page.resource_version.clone(),
            objects: listing.objects,
            pages: listing.pages,
            relist: listing.relist,
        });
        self.note_resource_version(&page.resource_version, true, || BackOn::List);
        Ok(State::OpenWatch(Opening::Resume {
            from: page.resource_version,
        }))
    }

    async fn open_watch(&mut self, opening: Opening) -> Result<State, ReflectorError> {
        let watch_list = matches!(opening, Opening::WatchList);
        let timeout = self.config.server_timeout.unwrap_or_else(|| {
            MIN_WATCH_TIMEOUT + (MIN_WATCH_TIMEOUT as f64 * self.backoff.unit()) as u64
        });
        // The server's clock for the timeout starts after this one.
        let opened = Instant::now();
        let opts = WatchOptions {
            // A watch-list with "" is a consistent read of the initial state.
            resource_version: opening.resource_version().to_string(),
            timeout_seconds: Some(timeout),
            bookmarks: self.config.bookmarks,
            send_initial_events: watch_list,
        };
        match self.lw.watch(&opts).await {
            Ok(stream) => Ok(self.opened(opening, stream, opened, Duration::from_secs(timeout))),
            // client-go falls back to LIST + WATCH on any error of a watch-list; not here on
            // 401 and 403, which the WATCH after a LIST would meet as well: the user hears the
            // refusal once, not a fallback and then the same refusal.
            Err(e) if watch_list && !matches!(e.status_code(), Some(401 | 403)) => {
                self.pending.push_back(ReflectorEvent::Fallback {
                    reason: FallbackReason::Refused(e.to_string()),
                });
                Ok(State::List(Listing::new(false)))
            }
            Err(e) if e.status_code() == Some(410) => {
                let message = match &e {
                    ClusterError::Api { message, .. } => message.clone(),
                    other => other.to_string(),
                };
                let replay = matches!(opening, Opening::Replay { .. });
                self.expired(message, opening.resource_version().to_string(), replay)
            }
            Err(e) => self.retry_or_fail(e, State::OpenWatch(opening)),
        }
    }

    /// A watch the server took, opened at `opened` asking for `asked`: reported, then read.
    fn opened(
        &mut self,
        opening: Opening,
        stream: WatchStream,
        opened: Instant,
        asked: Duration,
    ) -> State {
        self.started = true;
        let (resource_version, phase) = match opening {
            Opening::WatchList => (
                String::new(),
                Phase::InitialEvents {
                    objects: 0,
                    deadline: Instant::now() + self.config.initial_events_timeout,
                },
            ),
            Opening::Replay { from } => (from, Phase::Replay),
            Opening::Resume { from } => (from, Phase::Changes),
        };
        self.pending.push_back(ReflectorEvent::WatchOpened {
            resource_version: resource_version.clone(),
        });
        State::Watching(Watch {
            stream,
            opened,
            events: 0,
            asked,
            dead: Box::pin(tokio::time::sleep_until(opened + asked + DEAD_WATCH_GRACE)),
            from: resource_version.clone(),
            resource_version,
            went_back: false,
            phase,
        })
    }

    /// Waits for the watch's next event (or for it to be presumed dead, or a watch-list's
    /// initial events to time out) and takes it in: the watch goes on, or what follows it.
    async fn read_watch(&mut self, mut watch: Watch) -> Result<State, ReflectorError> {
        let initial_deadline = match watch.phase {
            Phase::InitialEvents { deadline, .. } => Some(deadline),
            Phase::Replay | Phase::Changes => None,
        };
        let next = tokio::select! {
            biased;
            next = watch.stream.next() => Some(next),
            _ = watch.dead.as_mut() => None,
            _ = crate::signal::sleep_until(initial_deadline) => {
                return Ok(self.initial_events_timed_out(watch.phase.initial_events()));
            }
        };
        let Some(next) = next else {
            return self.ended(presumed_dead(watch.asked), watch);
        };
        let received_at = SystemTime::now();
        match next {
            Ok(Some(WatchEvent::Added(o))) => {
                self.object_event(&mut watch, EventType::Added, o, received_at);
            }
            Ok(Some(WatchEvent::Modified(o))) => {
                self.object_event(&mut watch, EventType::Modified, o, received_at);
            }
            Ok(Some(WatchEvent::Deleted(o))) => {
                self.object_event(&mut watch, EventType::Deleted, o, received_at);
            }
            Ok(Some(WatchEvent::Bookmark {
                resource_version,
                initial_events_end,
            })) => self.bookmark(
                &mut watch,
                resource_version,
                initial_events_end,
                received_at,
            ),
            Ok(Some(WatchEvent::Error(status))) => return self.error_event(status, watch),
            // client-go's watch decoder treats a reset connection like the end of the stream
            // (`IsProbableEOF`), and its reflector re-opens an ended watch at once unless it was
            // very short: no event in under a second. The very short ones wait out the backoff.
            Ok(None) => return self.ended(CloseReason::ServerClosed, watch),
            Err(StreamError::Io(reason)) => {
                return self.ended(CloseReason::ConnectionLost(reason), watch);
            }
            // Resuming from the last RV would ask for the same event again: relist instead, as
            // for a malformed one, and watch from the relist's RV.
            Err(e @ (StreamError::Malformed { .. } | StreamError::TooLarge { .. })) => {
                return self.undecodable(e, watch);
            }
        }
        // An event came: a replay has begun, and a 410 after this is history compacted since,
        // not an RV too old to replay.
        if let Phase::Replay = watch.phase {
            watch.phase = Phase::Changes;
        }
        watch.events += 1;
        Ok(State::Watching(watch))
    }

    /// An object event of the watch: while a watch-list's initial events arrive, an ADDED is
    /// one of them; any other is a change, whose RV is the one to resume from.
    fn object_event(
        &mut self,
        watch: &mut Watch,
        event_type: EventType,
        object: RawObject,
        received_at: SystemTime,
    ) {
        if let (Phase::InitialEvents { objects, deadline }, EventType::Added) =
            (&mut watch.phase, event_type)
        {
            // A watch-list's initial state: not yet synced, so the RV does not advance.
            *objects += 1;
            *deadline = Instant::now() + self.config.initial_events_timeout;
            self.pending.push_back(ReflectorEvent::Listed {
                object,
                received_at,
                relist: false,
            });
        } else {
            watch.resource_version = object.resource_version().to_string();
            self.pending.push_back(ReflectorEvent::Watched {
                event_type,
                object,
                received_at,
            });
            self.note_watch_resource_version(watch);
        }
    }

    /// A bookmark: its RV is the one to resume from, and the one that ends a watch-list's
    /// initial events completes their LIST at that RV.
    fn bookmark(
        &mut self,
        watch: &mut Watch,
        resource_version: String,
        initial_events_end: bool,
        received_at: SystemTime,
    ) {
        watch.resource_version = resource_version.clone();
        self.pending.push_back(ReflectorEvent::Bookmark {
            resource_version: resource_version.clone(),
            initial_events_end,
            received_at,
        });
        if let (true, Phase::InitialEvents { objects, .. }) = (initial_events_end, &watch.phase) {
            self.pending.push_back(ReflectorEvent::ListComplete {
                resource_version,
                objects: *objects,
                pages: 0,
                relist: false,
            });
            watch.phase = Phase::Changes;
            // Only the first watch is a watch-list: nothing seen before to be older than.
            let rv = watch.resource_version.clone();
            self.note_resource_version(&rv, false, || BackOn::List);
        } else if !matches!(watch.phase, Phase::InitialEvents { .. }) {
            self.note_watch_resource_version(watch);
        }
    }

    /// Takes the RV a watch just moved to (an event's or a bookmark's): the newest seen, or,
    /// older than that, the server going back (said once per watch).
    fn note_watch_resource_version(&mut self, watch: &mut Watch) {
        let say = !watch.went_back;
        let from = &watch.from;
        let back = self.note_resource_version(&watch.resource_version, say, || BackOn::Watch {
            from: from.clone(),
        });
        watch.went_back |= back;
    }

    /// Takes `rv`, brought by the request `on` names: the newest seen so far, or one older than
    /// the newest, said (when `say`) as the server's state going back. Returns whether it was
    /// older. An RV that is not a number (an API server before 1.35 may hand out others) is
    /// not compared.
    fn note_resource_version(&mut self, rv: &str, say: bool, on: impl FnOnce() -> BackOn) -> bool {
        let Ok(rv) = ResourceVersion::parse(rv) else {
            return false;
        };
        match &self.newest {
            Some(newest) if rv < *newest => {
                if say {
                    self.pending.push_back(ReflectorEvent::WentBack {
                        newest: newest.to_string(),
                        served: rv.to_string(),
                        on: on(),
                    });
                }
                true
            }
            _ => {
                self.newest = Some(rv);
                false
            }
        }
    }

    /// An ERROR event: a 410 expires the RV, anything else re-opens the watch after the backoff.
    fn error_event(&mut self, status: ApiStatus, watch: Watch) -> Result<State, ReflectorError> {
        // client-go's isExpiredError: reason Expired or Gone, or code 410.
        if status.code == 410 || matches!(status.reason.as_str(), "Expired" | "Gone") {
            // A watch-list told 410 in its initial events: the relist that follows compares
            // instead of adding to them, and the watch after it is a plain one from the
            // relist's RV.
            let restarted = list_restarted(watch.phase.initial_events(), || {
                RestartReason::InitialEventsExpired {
                    message: status.message.clone(),
                }
            });
            let replay = matches!(watch.phase, Phase::Replay);
            let relist = self.expired(status.message, watch.resource_version, replay)?;
            self.pending.extend(restarted);
            return Ok(relist);
        }
        self.closed(
            CloseReason::ErrorEvent {
                code: status.code,
                message: status.message,
            },
            watch,
        )
    }

    /// An event that cannot be read (malformed, or refused by size): the watch closes, and a
    /// relist follows after the backoff.
    fn undecodable(&mut self, e: StreamError, watch: Watch) -> Result<State, ReflectorError> {
        let reason = match &e {
            StreamError::TooLarge { .. } => CloseReason::TooLarge(e.to_string()),
            _ => CloseReason::Malformed(e.to_string()),
        };
        self.closed(reason, watch)
    }

    /// A watch-list whose initial events never ended (no `k8s.io/initial-events-end` bookmark
    /// within the timeout): what a proxy or an aggregated API server that drops bookmarks does.
    /// The watch is dropped and a LIST follows (a relist, comparing, when initial events came),
    /// then plain watches.
    fn initial_events_timed_out(&mut self, objects: usize) -> State {
        let waited = self.config.initial_events_timeout;
        self.pending.push_back(ReflectorEvent::Fallback {
            reason: FallbackReason::NoEndBookmark {
                waited,
                initial_events: objects,
            },
        });
        // What was listed so far is compared by the relist, not added to.
        self.pending.extend(list_restarted(objects, || {
            RestartReason::InitialEventsUnended { waited }
        }));
        State::List(Listing::new(objects > 0))
    }

    /// The watch stream ended, by the server or by a lost connection: re-open it from the last RV
    /// at once, or after the backoff if it was very short or cut a watch-list's initial events.
    fn ended(&mut self, reason: CloseReason, watch: Watch) -> Result<State, ReflectorError> {
        // A watch that asked for 1 s may end in under 1 s by the server's clock: short is also
        // under half of what it asked for.
        let very_short =
            watch.events == 0 && watch.opened.elapsed() < SHORT_WATCH.min(watch.asked / 2);
        if very_short || matches!(watch.phase, Phase::InitialEvents { .. }) {
            return self.closed(reason, watch);
        }
        // The server took the replay's RV and kept the watch open: the replay has begun, and a
        // 410 after this is history compacted since, not an RV too old to replay; the next
        // watch resumes.
        let from = watch.resource_version;
        if !self.config.reconnect && matches!(reason, CloseReason::ConnectionLost(_)) {
            return Err(self.watch_ended(reason, from));
        }
        self.pending.push_back(ReflectorEvent::WatchClosed {
            resource_version: from.clone(),
            reason,
            retry_in: self.config.reconnect.then_some(Duration::ZERO),
        });
        Ok(if self.config.reconnect {
            State::OpenWatch(Opening::Resume { from })
        } else {
            State::Done
        })
    }

    /// The watch ended abnormally: report it, then retry after a backoff or end with an error.
    fn closed(&mut self, reason: CloseReason, watch: Watch) -> Result<State, ReflectorError> {
        if !self.config.reconnect {
            return Err(self.watch_ended(reason, watch.resource_version));
        }
        // A watch-list cut short is replaced by a relist, which compares instead of repeating.
        let restarted = list_restarted(watch.phase.initial_events(), || {
            RestartReason::InitialEventsClosed(reason.clone())
        });
        let resource_version = watch.resource_version.clone();
        let then = watch.after_close(&reason);
        let delay = self.backoff.next_delay();
        self.pending.push_back(ReflectorEvent::WatchClosed {
            resource_version,
            reason,
            retry_in: Some(delay),
        });
        self.pending.extend(restarted);
        Ok(State::after(delay, then))
    }

    fn watch_ended(&self, reason: CloseReason, resource_version: String) -> ReflectorError {
        ReflectorError::watch_ended(self.lw.resource_name(), resource_version, reason)
    }

    /// The server no longer has `resource_version` (410 Gone): a replay that had not begun ends
    /// (unless asked to relist), as does a reflector that does not reconnect; otherwise a
    /// relist follows after one backoff period.
    fn expired(
        &mut self,
        message: String,
        resource_version: String,
        replay: bool,
    ) -> Result<State, ReflectorError> {
        if replay && !self.config.relist_if_replay_expired {
            return Err(ReflectorError::ReplayExpired {
                resource: self.lw.resource_name(),
                resource_version,
                message,
            });
        }
        if !self.config.reconnect && !replay {
            return Err(ReflectorError::Expired {
                resource: self.lw.resource_name(),
                resource_version,
                message,
            });
        }
        self.pending.push_back(ReflectorEvent::Expired {
            resource_version,
            oldest_resource_version: oldest_resource_version(&message),
            message,
        });
        // client-go returns from ListAndWatch on a 410 and relists after one backoff period.
        let delay = self.backoff.next_delay();
        Ok(State::after(delay, State::List(Listing::new(true))))
    }

    /// Before the first success every error is fatal; afterwards only those that retrying
    /// cannot fix (bad request, credentials, permissions, a resource that went away). A 429 waits
    /// as long as the server's Retry-After asks, else the backoff.
    fn retry_or_fail(&mut self, err: ClusterError, then: State) -> Result<State, ReflectorError> {
        let permanent = matches!(err.status_code(), Some(400 | 401 | 403 | 404 | 405 | 422));
        let throttled = err.status_code() == Some(429);
        if (!self.started && !throttled) || permanent || !self.config.reconnect {
            return Err(err.into());
        }
        let delay = match err.retry_after() {
            Some(after) if throttled => after,
            _ => self.backoff.next_delay(),
        };
        self.pending.push_back(match &then {
            State::OpenWatch(opening) => ReflectorEvent::WatchFailed {
                resource_version: opening.resource_version().to_string(),
                error: WatchFailure::Error(err.to_string()),
                retry_in: delay,
            },
            _ => ReflectorEvent::ListFailed {
                error: err.to_string(),
                retry_in: delay,
            },
        });
        Ok(State::after(delay, then))
    }
}

/// Why a watch that asked for `asked` is closed when it outlived it by [`DEAD_WATCH_GRACE`]
/// without the server ending it: taken for a lost connection, so worded as the transport's
/// error of one would be (it is also the message of the error that ends a reflector without
/// reconnect).
fn presumed_dead(asked: Duration) -> CloseReason {
    CloseReason::ConnectionLost(format!(
        "the server did not end the watch {}s after its timeoutSeconds ({}s): presumed dead",
        DEAD_WATCH_GRACE.as_secs(),
        asked.as_secs()
    ))
}

/// The `ListRestarted` a watch-list cut short after `objects` initial events calls for: none
/// when it showed nothing yet (the LIST that follows then simply lists).
fn list_restarted(
    objects: usize,
    reason: impl FnOnce() -> RestartReason,
) -> Option<ReflectorEvent> {
    (objects > 0).then(|| ReflectorEvent::ListRestarted {
        reason: reason(),
        objects,
    })
}

#[cfg(test)]
mod tests;
