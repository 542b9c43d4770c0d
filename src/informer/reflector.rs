//! The Reflector: LIST (paginated) then WATCH from the list's resourceVersion, resuming from the
//! last RV seen (bookmarks advance it), relisting on 410, backing off like client-go. Every
//! transition is reported as a [`ReflectorEvent`] so that callers can show or count it.

mod ahead;
mod config;

pub use config::{ReflectorConfig, ReflectorError, Start, INITIAL_EVENTS_TIMEOUT};

use super::backoff::Backoff;
use super::listwatch::{
    ApiStatus, ListOptions, ListWatch, ListerWatcher, StreamError, WatchEvent, WatchOptions,
    WatchStream,
};
use super::object::RawObject;
use super::transition::{
    oldest_resource_version, CloseReason, EventType, FallbackReason, ReflectorEvent, RestartReason,
    WatchFailure,
};
use crate::cluster::ClusterError;
use std::collections::VecDeque;
use std::pin::Pin;
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

enum State {
    List {
        continue_token: Option<String>,
        pages: usize,
        objects: usize,
        relist: bool,
    },
    OpenWatch,
    Watching {
        stream: WatchStream,
        opened: Instant,
        events: u64,
        /// The `timeoutSeconds` the watch asked for.
        asked: Duration,
        /// Fires when the watch is presumed dead: `asked` plus a grace after `opened`. One timer
        /// for the whole watch, not one per event.
        dead: Pin<Box<tokio::time::Sleep>>,
    },
    Sleep {
        until: Instant,
        then: Box<State>,
    },
    Done,
}

/// LIST + WATCH of one resource, as a stream of [`ReflectorEvent`]s pulled with [`Self::next`].
pub struct Reflector<L = ListWatch> {
    lw: L,
    config: ReflectorConfig,
    state: State,
    /// The RV to resume from: the list's, then the last object event's or bookmark's.
    resource_version: String,
    /// Whether anything ever succeeded: before that, every error is fatal (fail fast on bad
    /// input); after it, transient errors are retried like client-go does.
    started: bool,
    /// While a watch-list's initial events arrive: how many so far.
    initial_events: Option<usize>,
    /// While they arrive: when the reflector stops waiting for their end (the timeout after the
    /// watch opened or the last initial event).
    initial_events_deadline: Option<Instant>,
    /// With `--from-rv`, until the replay watch delivered anything: a 410 then means the RV
    /// is too old to replay.
    replaying: bool,
    /// With `--from-rv`, until the server's current RV was found not older than the replay's
    /// (or could not be read): until then each attempt to open the replay reads it first.
    replay_checked: bool,
    backoff: Backoff,
    /// The next LIST is one unpaginated request: a paginated one was cut short by an expired
    /// continue token, and paging as slowly again could expire again (client-go's pager falls
    /// back to a full list the same way).
    full_list: bool,
    pending: VecDeque<ReflectorEvent>,
}

impl<L: ListerWatcher> Reflector<L> {
    pub fn new(lw: L, config: ReflectorConfig) -> Self {
        let (state, resource_version, initial_events, replaying) = match &config.start {
            Start::List => (
                State::List {
                    continue_token: None,
                    pages: 0,
                    objects: 0,
                    relist: false,
                },
                String::new(),
                None,
                false,
            ),
            Start::WatchList => (State::OpenWatch, String::new(), Some(0), false),
            Start::FromResourceVersion(rv) => (State::OpenWatch, rv.clone(), None, true),
        };
        Reflector {
            lw,
            config,
            state,
            resource_version,
            started: false,
            initial_events,
            initial_events_deadline: None,
            replaying,
            replay_checked: !replaying,
            backoff: Backoff::default(),
            full_list: false,
            pending: VecDeque::new(),
        }
    }

    /// The last resourceVersion the reflector is synced to.
    pub fn resource_version(&self) -> &str {
        &self.resource_version
    }

    /// Whether `next` has an event without waiting: one queued, or a watch event that arrived
    /// whole. Readers take what is ready in one go (a batch, one flush of the output) instead of
    /// paying for each event alone.
    pub fn has_pending(&mut self) -> bool {
        if !self.pending.is_empty() {
            return true;
        }
        match &mut self.state {
            State::Watching { stream, .. } => stream.has_event(),
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

    async fn step(&mut self, state: State) -> Result<State, ReflectorError> {
        match state {
            State::List {
                continue_token,
                pages,
                objects,
                relist,
            } => self.list_page(continue_token, pages, objects, relist).await,
            State::OpenWatch if !self.replay_checked => match self.replay_ahead().await {
                Some(wait) => Ok(wait),
                None => self.open_watch().await,
            },
            State::OpenWatch => self.open_watch().await,
            State::Watching {
                stream,
                opened,
                events,
                asked,
                dead,
            } => self.read_watch(stream, opened, events, asked, dead).await,
            State::Sleep { until, then } => {
                tokio::time::sleep_until(until).await;
                Ok(*then)
            }
            State::Done => Ok(State::Done),
        }
    }

    async fn list_page(
        &mut self,
        continue_token: Option<String>,
        pages: usize,
        objects: usize,
        relist: bool,
    ) -> Result<State, ReflectorError> {
        let opts = ListOptions {
            limit: (!self.full_list).then_some(self.config.chunk_size),
            continue_token: continue_token.clone(),
            // "" is a consistent read: never "0", which may be served stale from the cache.
            resource_version: None,
            version_match: None,
        };
        let page = match self.lw.list_page(&opts).await {
            Ok(page) => page,
            Err(e) if continue_token.is_some() && e.status_code() == Some(410) => {
                // The continue token expired mid-list: start the LIST over, in one request, as a
                // relist so that the objects of the pages already emitted are compared, not
                // repeated.
                self.full_list = true;
                self.pending.push_back(ReflectorEvent::ListRestarted {
                    reason: RestartReason::ContinueExpired(e.to_string()),
                    objects,
                });
                return Ok(State::List {
                    continue_token: None,
                    pages: 0,
                    objects: 0,
                    relist: true,
                });
            }
            Err(e) => {
                return self.retry_or_fail(
                    e,
                    State::List {
                        continue_token,
                        pages,
                        objects,
                        relist,
                    },
                )
            }
        };
        self.started = true;
        let received_at = SystemTime::now();
        let count = page.items.len();
        for object in page.items {
            self.pending.push_back(ReflectorEvent::Listed {
                object,
                received_at,
                relist,
            });
        }
        match page.continue_token {
            Some(token) => Ok(State::List {
                continue_token: Some(token),
                pages: pages + 1,
                objects: objects + count,
                relist,
            }),
            None => {
                self.full_list = false;
                self.resource_version = page.resource_version.clone();
                self.pending.push_back(ReflectorEvent::ListComplete {
                    resource_version: page.resource_version,
                    objects: objects + count,
                    pages: pages + 1,
                    relist,
                });
                Ok(State::OpenWatch)
            }
        }
    }

    async fn open_watch(&mut self) -> Result<State, ReflectorError> {
        let watch_list = self.initial_events.is_some();
        let timeout = self.config.server_timeout.unwrap_or_else(|| {
            MIN_WATCH_TIMEOUT + (MIN_WATCH_TIMEOUT as f64 * self.backoff.unit()) as u64
        });
        // The server's clock for the timeout starts after this one.
        let opened = Instant::now();
        let opts = WatchOptions {
            // A watch-list with "" is a consistent read of the initial state.
            resource_version: self.resource_version.clone(),
            timeout_seconds: Some(timeout),
            bookmarks: self.config.bookmarks,
            send_initial_events: watch_list,
        };
        match self.lw.watch(&opts).await {
            Ok(stream) => {
                self.started = true;
                self.pending.push_back(ReflectorEvent::WatchOpened {
                    resource_version: self.resource_version.clone(),
                });
                let asked = Duration::from_secs(timeout);
                self.initial_events_deadline =
                    watch_list.then(|| Instant::now() + self.config.initial_events_timeout);
                Ok(State::Watching {
                    stream,
                    opened,
                    events: 0,
                    asked,
                    dead: Box::pin(tokio::time::sleep_until(opened + asked + DEAD_WATCH_GRACE)),
                })
            }
            // client-go falls back to LIST + WATCH on any error of a watch-list; not here on
            // 401 and 403, which the WATCH after a LIST would meet as well: the user hears the
            // refusal once, not a fallback and then the same refusal.
            Err(e) if watch_list && !matches!(e.status_code(), Some(401 | 403)) => {
                self.initial_events = None;
                self.pending.push_back(ReflectorEvent::Fallback {
                    reason: FallbackReason::Refused(e.to_string()),
                });
                Ok(State::List {
                    continue_token: None,
                    pages: 0,
                    objects: 0,
                    relist: false,
                })
            }
            Err(e) if e.status_code() == Some(410) => {
                let message = match &e {
                    ClusterError::Api { message, .. } => message.clone(),
                    other => other.to_string(),
                };
                self.expired(message)
            }
            Err(e) => self.retry_or_fail(e, State::OpenWatch),
        }
    }

    /// Waits for the watch's next event (or for it to be presumed dead, or a watch-list's
    /// initial events to time out) and takes it in: the watch goes on, or what follows it.
    async fn read_watch(
        &mut self,
        mut stream: WatchStream,
        opened: Instant,
        events: u64,
        asked: Duration,
        mut dead: Pin<Box<tokio::time::Sleep>>,
    ) -> Result<State, ReflectorError> {
        let initial_deadline = self.initial_events.and(self.initial_events_deadline);
        let next = tokio::select! {
            biased;
            next = stream.next() => Some(next),
            _ = dead.as_mut() => None,
            _ = crate::signal::sleep_until(initial_deadline) => {
                return Ok(self.initial_events_timed_out());
            }
        };
        let Some(next) = next else {
            return self.ended(presumed_dead(asked), opened, events, asked);
        };
        let received_at = SystemTime::now();
        if matches!(next, Ok(Some(ref e)) if !matches!(e, WatchEvent::Error(_))) {
            self.replaying = false;
        }
        match next {
            Ok(Some(WatchEvent::Added(o))) => self.object_event(EventType::Added, o, received_at),
            Ok(Some(WatchEvent::Modified(o))) => {
                self.object_event(EventType::Modified, o, received_at)
            }
            Ok(Some(WatchEvent::Deleted(o))) => {
                self.object_event(EventType::Deleted, o, received_at)
            }
            Ok(Some(WatchEvent::Bookmark {
                resource_version,
                initial_events_end,
            })) => self.bookmark(resource_version, initial_events_end, received_at),
            Ok(Some(WatchEvent::Error(status))) => return self.error_event(status),
            // client-go's watch decoder treats a reset connection like the end of the stream
            // (`IsProbableEOF`), and its reflector re-opens an ended watch at once unless it was
            // very short: no event in under a second. The very short ones wait out the backoff.
            Ok(None) => return self.ended(CloseReason::ServerClosed, opened, events, asked),
            Err(StreamError::Io(reason)) => {
                return self.ended(CloseReason::ConnectionLost(reason), opened, events, asked);
            }
            // Resuming from the last RV would ask for the same event again: relist instead, as
            // for a malformed one, and watch from the relist's RV.
            Err(e @ (StreamError::Malformed { .. } | StreamError::TooLarge { .. })) => {
                return self.undecodable(e);
            }
        }
        Ok(State::Watching {
            stream,
            opened,
            events: events + 1,
            asked,
            dead,
        })
    }

    /// An object event of the watch: while a watch-list's initial events arrive, an ADDED is
    /// one of them; any other is a change, whose RV is the one to resume from.
    fn object_event(&mut self, event_type: EventType, object: RawObject, received_at: SystemTime) {
        if let (Some(count), EventType::Added) = (self.initial_events.as_mut(), event_type) {
            // A watch-list's initial state: not yet synced, so the RV does not advance.
            *count += 1;
            self.initial_events_deadline =
                Some(Instant::now() + self.config.initial_events_timeout);
            self.pending.push_back(ReflectorEvent::Listed {
                object,
                received_at,
                relist: false,
            });
        } else {
            self.resource_version = object.resource_version().to_string();
            self.pending.push_back(ReflectorEvent::Watched {
                event_type,
                object,
                received_at,
            });
        }
    }

    /// A bookmark: its RV is the one to resume from, and the one that ends a watch-list's
    /// initial events completes their LIST at that RV.
    fn bookmark(
        &mut self,
        resource_version: String,
        initial_events_end: bool,
        received_at: SystemTime,
    ) {
        self.resource_version = resource_version.clone();
        self.pending.push_back(ReflectorEvent::Bookmark {
            resource_version: resource_version.clone(),
            initial_events_end,
            received_at,
        });
        if let (true, Some(objects)) = (initial_events_end, self.initial_events) {
            self.initial_events = None;
            self.pending.push_back(ReflectorEvent::ListComplete {
                resource_version,
                objects,
                pages: 0,
                relist: false,
            });
        }
    }

    /// An ERROR event: a 410 expires the RV, anything else re-opens the watch after the backoff.
    fn error_event(&mut self, status: ApiStatus) -> Result<State, ReflectorError> {
        // client-go's isExpiredError: reason Expired or Gone, or code 410.
        if status.code == 410 || matches!(status.reason.as_str(), "Expired" | "Gone") {
            return self.expired(status.message);
        }
        self.closed(
            CloseReason::ErrorEvent {
                code: status.code,
                message: status.message,
            },
            State::OpenWatch,
        )
    }

    /// An event that cannot be read (malformed, or refused by size): the watch closes, and a
    /// relist follows after the backoff.
    fn undecodable(&mut self, e: StreamError) -> Result<State, ReflectorError> {
        let reason = match &e {
            StreamError::TooLarge { .. } => CloseReason::TooLarge(e.to_string()),
            _ => CloseReason::Malformed(e.to_string()),
        };
        self.closed(
            reason,
            State::List {
                continue_token: None,
                pages: 0,
                objects: 0,
                relist: true,
            },
        )
    }

    /// A watch-list whose initial events never ended (no `k8s.io/initial-events-end` bookmark
    /// within the timeout): what a proxy or an aggregated API server that drops bookmarks does.
    /// The watch is dropped and a LIST follows (a relist, comparing, when initial events came),
    /// then plain watches.
    fn initial_events_timed_out(&mut self) -> State {
        let objects = self.initial_events.take().unwrap_or_default();
        let waited = self.config.initial_events_timeout;
        self.pending.push_back(ReflectorEvent::Fallback {
            reason: FallbackReason::NoEndBookmark {
                waited,
                initial_events: objects,
            },
        });
        // What was listed so far is compared by the relist, not added to.
        self.pending.extend(list_restarted(Some(objects), || {
            RestartReason::InitialEventsUnended { waited }
        }));
        State::List {
            continue_token: None,
            pages: 0,
            objects: 0,
            relist: objects > 0,
        }
    }

    /// The watch stream ended, by the server or by a lost connection: re-open it from the last RV
    /// at once, or after the backoff if it was very short or cut a watch-list's initial events.
    fn ended(
        &mut self,
        reason: CloseReason,
        opened: Instant,
        events: u64,
        asked: Duration,
    ) -> Result<State, ReflectorError> {
        // A watch that asked for 1 s may end in under 1 s by the server's clock: short is also
        // under half of what it asked for.
        let very_short = events == 0 && opened.elapsed() < SHORT_WATCH.min(asked / 2);
        if self.initial_events.is_some() || very_short {
            return self.closed(reason, State::OpenWatch);
        }
        // The server took the replay's RV and kept the watch open: the replay has begun, and a
        // 410 after this is history compacted since, not an RV too old to replay.
        self.replaying = false;
        if !self.config.reconnect && matches!(reason, CloseReason::ConnectionLost(_)) {
            return self.closed(reason, State::Done);
        }
        self.pending.push_back(ReflectorEvent::WatchClosed {
            resource_version: self.resource_version.clone(),
            reason,
            retry_in: self.config.reconnect.then_some(Duration::ZERO),
        });
        Ok(if self.config.reconnect {
            State::OpenWatch
        } else {
            State::Done
        })
    }

    /// The watch ended abnormally: report it, then retry after a backoff or end with an error.
    fn closed(&mut self, reason: CloseReason, then: State) -> Result<State, ReflectorError> {
        if !self.config.reconnect {
            return Err(ReflectorError::watch_ended(
                self.lw.resource_name(),
                self.resource_version.clone(),
                reason,
            ));
        }
        // A watch-list cut short is replaced by a relist, which compares instead of repeating.
        let cut_short = self.initial_events.take();
        let then = match cut_short {
            Some(objects) => State::List {
                continue_token: None,
                pages: 0,
                objects: 0,
                relist: objects > 0,
            },
            None => then,
        };
        let restarted = list_restarted(cut_short, || {
            RestartReason::InitialEventsClosed(reason.clone())
        });
        let delay = self.backoff.next_delay();
        self.pending.push_back(ReflectorEvent::WatchClosed {
            resource_version: self.resource_version.clone(),
            reason,
            retry_in: Some(delay),
        });
        self.pending.extend(restarted);
        Ok(State::Sleep {
            until: Instant::now() + delay,
            then: Box::new(then),
        })
    }

    fn expired(&mut self, message: String) -> Result<State, ReflectorError> {
        if self.replaying && !self.config.relist_if_replay_expired {
            return Err(ReflectorError::ReplayExpired {
                resource: self.lw.resource_name(),
                resource_version: self.resource_version.clone(),
                message,
            });
        }
        if !self.config.reconnect && !self.replaying {
            return Err(ReflectorError::Expired {
                resource: self.lw.resource_name(),
                resource_version: self.resource_version.clone(),
                message,
            });
        }
        self.replaying = false;
        // A watch-list told 410 in its initial events: the relist that follows compares instead
        // of adding to them, and the watch after it is a plain one from the relist's RV.
        let restarted = list_restarted(self.initial_events.take(), || {
            RestartReason::InitialEventsExpired {
                message: message.clone(),
            }
        });
        self.pending.push_back(ReflectorEvent::Expired {
            resource_version: self.resource_version.clone(),
            oldest_resource_version: oldest_resource_version(&message),
            message,
        });
        self.pending.extend(restarted);
        // client-go returns from ListAndWatch on a 410 and relists after one backoff period.
        Ok(State::Sleep {
            until: Instant::now() + self.backoff.next_delay(),
            then: Box::new(State::List {
                continue_token: None,
                pages: 0,
                objects: 0,
                relist: true,
            }),
        })
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
        self.pending.push_back(match then {
            State::List { .. } => ReflectorEvent::ListFailed {
                error: err.to_string(),
                retry_in: delay,
            },
            _ => ReflectorEvent::WatchFailed {
                resource_version: self.resource_version.clone(),
                error: WatchFailure::Error(err.to_string()),
                retry_in: delay,
            },
        });
        Ok(State::Sleep {
            until: Instant::now() + delay,
            then: Box::new(then),
        })
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
/// when it showed nothing yet (the relist that follows then simply lists).
fn list_restarted(
    objects: Option<usize>,
    reason: impl FnOnce() -> RestartReason,
) -> Option<ReflectorEvent> {
    objects
        .filter(|n| *n > 0)
        .map(|objects| ReflectorEvent::ListRestarted {
            reason: reason(),
            objects,
        })
}

#[cfg(test)]
mod tests;
