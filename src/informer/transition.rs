//! What a reflector reports, in order: its one transition type, `ReflectorEvent` (object events,
//! bookmarks, and every LIST, watch open, close, failure, 410 and relist). The informer loop
//! turns it into FIFO items, `tail` prints it and the recording stores it as it is.

use super::object::RawObject;
use std::time::{Duration, SystemTime};

/// The kind of an object event from a watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// Where an object event came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The initial LIST.
    Initial,
    /// The watch.
    Watch,
    /// A relist after the watch was lost: what changed while the watch was not open.
    Relist,
}

/// Why a watch ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CloseReason {
    /// The server ended the response normally (its timeout elapsed).
    ServerClosed,
    /// The connection failed mid-stream.
    ConnectionLost(String),
    /// The server sent something undecodable; the reflector relists.
    Malformed(String),
    /// The server sent an event longer than the stream's limit (64 MiB), refused by size before
    /// it was read whole; the reflector relists (resuming would ask for the same event again).
    TooLarge(String),
    /// The server sent an ERROR event other than 410.
    ErrorEvent { code: u16, message: String },
}

impl CloseReason {
    /// Whether the reflector relists after this close instead of resuming from the last RV.
    pub fn relists(&self) -> bool {
        matches!(self, CloseReason::Malformed(_) | CloseReason::TooLarge(_))
    }
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CloseReason::ServerClosed => write!(f, "closed by the server"),
            CloseReason::ConnectionLost(r) => write!(f, "connection lost: {r}"),
            CloseReason::Malformed(r) => write!(f, "malformed event, relisting ({r})"),
            CloseReason::TooLarge(r) => write!(f, "{r}, relisting"),
            CloseReason::ErrorEvent { code, message } => {
                write!(f, "the server sent an error ({code}: {message})")
            }
        }
    }
}

/// Why the reflector gave up on a watch-list and lists instead (LIST + WATCH).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FallbackReason {
    /// The server refused the watch-list: its error, as the error reads.
    Refused(String),
    /// The server accepted the watch-list but sent no `k8s.io/initial-events-end` bookmark
    /// within `waited` of opening the watch (when no initial event came) or of the last of its
    /// `initial_events`.
    NoEndBookmark {
        waited: Duration,
        initial_events: usize,
    },
}

/// Why a LIST, or a watch-list's initial events, started over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestartReason {
    /// The continue token of the LIST's next page expired: the error, as the error reads.
    ContinueExpired(String),
    /// A watch-list's initial events did not end: no `k8s.io/initial-events-end` bookmark
    /// within `waited`.
    InitialEventsUnended { waited: Duration },
    /// A watch-list's watch closed during its initial events.
    InitialEventsClosed(CloseReason),
    /// The server answered a watch-list with 410 Gone during its initial events: its message.
    InitialEventsExpired { message: String },
}

/// Why a watch was not opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchFailure {
    /// The request failed: the error, as the error reads.
    Error(String),
    /// A replay's RV is ahead of the `current` one of `resource`, read with a LIST of one
    /// object: kube-apiserver would keep a watch from it open and send nothing until the
    /// resource's RV passes it, so the watch is not opened yet.
    AheadOfServer { current: String, resource: String },
}

/// Everything a reflector does, in order.
#[derive(Debug, Clone)]
pub enum ReflectorEvent {
    /// One object of a LIST; `relist` when the LIST followed a 410 or a malformed stream.
    Listed {
        object: RawObject,
        received_at: SystemTime,
        relist: bool,
    },
    /// A LIST is complete (or a watch-list's initial events ended): every object it returned
    /// was emitted before this.
    ListComplete {
        resource_version: String,
        objects: usize,
        /// LIST pages; 0 when the state came from a watch-list.
        pages: usize,
        relist: bool,
    },
    /// The server refused the watch-list, or accepted it and never ended its initial events;
    /// the reflector falls back to LIST + WATCH.
    Fallback { reason: FallbackReason },
    /// A LIST (or a watch-list's initial events) was cut short after `objects` objects were
    /// emitted and starts over, as a relist compared with everything emitted so far.
    ListRestarted {
        reason: RestartReason,
        objects: usize,
    },
    /// A WATCH opened from `resource_version`.
    WatchOpened { resource_version: String },
    /// An object event of the watch.
    Watched {
        event_type: EventType,
        object: RawObject,
        received_at: SystemTime,
    },
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
        received_at: SystemTime,
    },
    /// The watch ended; `retry_in` when the reflector will re-open it after that delay.
    WatchClosed {
        resource_version: String,
        reason: CloseReason,
        retry_in: Option<Duration>,
    },
    /// Opening the watch failed, or was put off, and the reflector tries again after `retry_in`.
    WatchFailed {
        resource_version: String,
        error: WatchFailure,
        retry_in: Duration,
    },
    /// A page of a LIST (a relist, or the first LIST throttled) failed with an error the
    /// reflector retries after `retry_in`, from the same page.
    ListFailed { error: String, retry_in: Duration },
    /// A LIST or a watch brought `served`, older than `newest`, the newest RV the
    /// reflector had seen of this resource: the server's state went back in time (an API server
    /// whose watch cache lags, reached through a load balancer; a proxy's `stale` fault). Said
    /// once per request; the objects it brings are taken as they come, as client-go takes them.
    WentBack {
        newest: String,
        served: String,
        on: BackOn,
    },
    /// The server no longer has `resource_version` (410 Gone): the reflector relists after one
    /// backoff period, as client-go does.
    Expired {
        resource_version: String,
        message: String,
        /// Where the server's history starts, when its message says (`Y` of kube-apiserver's
        /// "too old resource version: X (Y)"): its watch cache, or etcd after a compaction, can
        /// serve a watch from Y on. A restarted API server's watch cache starts at the etcd
        /// revision it started at, so a client that resumes after the restart is told this.
        oldest_resource_version: Option<String>,
    },
}

/// The request that brought a resourceVersion older than the newest seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackOn {
    /// A LIST (the RV of its last page).
    List,
    /// A watch opened from `from`: one of its events or bookmarks.
    Watch { from: String },
}

/// The resourceVersion a 410's message says the server's history starts at: `Y` of
/// kube-apiserver's (and etcd's) "too old resource version: X (Y)".
pub fn oldest_resource_version(message: &str) -> Option<String> {
    let (_, rest) = message.split_once("too old resource version: ")?;
    let (_, rest) = rest.split_once(" (")?;
    let (oldest, _) = rest.split_once(')')?;
    (!oldest.is_empty() && oldest.bytes().all(|b| b.is_ascii_digit())).then(|| oldest.to_string())
}

#[cfg(test)]
mod tests {
    use super::oldest_resource_version;

    #[test]
    fn the_start_of_the_servers_history_is_read_from_a_410s_message() {
        let oldest = |m: &str| oldest_resource_version(m);
        assert_eq!(
            oldest("too old resource version: 202 (203)").as_deref(),
            Some("203")
        );
        assert_eq!(
            oldest("expired: too old resource version: 5 (90) in cache").as_deref(),
            Some("90")
        );
        assert_eq!(oldest("the server says Expired"), None);
        assert_eq!(oldest("too old resource version: 5 ()"), None);
        assert_eq!(oldest("too old resource version: 5 (x)"), None);
    }
}
