//! What a reflector is asked to do ([`ReflectorConfig`], [`Start`]) and the failures that end
//! it ([`ReflectorError`]).

use crate::cluster::ClusterError;
use crate::informer::transition::CloseReason;
use std::time::Duration;

/// How the reflector obtains its starting state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// Paginated LIST, then WATCH from the list's RV (client-go's default).
    List,
    /// One WATCH with `sendInitialEvents=true` (KEP-3157): the initial state arrives as ADDED
    /// events ending with a BOOKMARK marked `k8s.io/initial-events-end`. Falls back to `List` on
    /// any error, as client-go does.
    WatchList,
    /// WATCH from this RV without any LIST: exactly the events after it (a replay).
    FromResourceVersion(String),
}

/// What the reflector is asked to do.
#[derive(Debug, Clone)]
pub struct ReflectorConfig {
    pub start: Start,
    /// With `Start::FromResourceVersion`: when the server no longer has that RV (410), relist
    /// and go on instead of failing.
    pub relist_if_replay_expired: bool,
    /// LIST page size (`limit`); 0 for no pagination.
    pub chunk_size: u32,
    pub bookmarks: bool,
    /// The watch's `timeoutSeconds`; `None`: 5 to 10 minutes at random, as client-go does.
    /// A watch not ended by the server 5 s after it is presumed dead and re-opened.
    pub server_timeout: Option<u64>,
    /// Re-open the watch when it ends; when false, the first end of the watch ends the stream.
    pub reconnect: bool,
    /// With `Start::WatchList`: how long after the watch opened, or after its last initial
    /// event, the `k8s.io/initial-events-end` bookmark may take before the reflector gives up on
    /// it and falls back to LIST + WATCH (client-go's informer waits forever, and never syncs).
    pub initial_events_timeout: Duration,
}

/// `ReflectorConfig::initial_events_timeout` by default.
pub const INITIAL_EVENTS_TIMEOUT: Duration = Duration::from_secs(10);

impl ReflectorConfig {
    /// What an informer runs with (client-go's reflector): bookmarks, reconnects, client-go's
    /// watch timeouts, and a failed `--from-rv` replay is not its concern.
    pub fn informer(start: Start, chunk_size: u32) -> Self {
        ReflectorConfig {
            start,
            relist_if_replay_expired: false,
            chunk_size,
            bookmarks: true,
            server_timeout: None,
            reconnect: true,
            initial_events_timeout: INITIAL_EVENTS_TIMEOUT,
        }
    }
}

/// A failure that ends the reflector.
#[derive(Debug, thiserror::Error)]
pub enum ReflectorError {
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    #[error(
        "cannot replay {resource} from resourceVersion {resource_version}: the server said \
         \"{message}\": that history is gone (the API server compacts etcd, every 5 minutes by \
         default, and its watch cache keeps only a short window, from about 75 s); drop \
         --from-rv to start from the current state, or add --on-expired relist"
    )]
    ReplayExpired {
        resource: String,
        resource_version: String,
        message: String,
    },
    #[error("the watch of {resource} failed after resourceVersion {resource_version}: {reason}")]
    WatchEnded {
        resource: String,
        resource_version: String,
        reason: String,
    },
    #[error(
        "resourceVersion {resource_version} of {resource} is too old: the server said \"{message}\": \
         its history is compacted and the watch cache keeps only a short window"
    )]
    Expired {
        resource: String,
        resource_version: String,
        message: String,
    },
}

impl ReflectorError {
    /// A watch that ended for `reason`, ending a reflector that does not reconnect. The reason
    /// is worded here, as this error's message, apart from how a notice words a `CloseReason`:
    /// the message names what ended the watch, not what the reflector does next.
    pub(super) fn watch_ended(
        resource: String,
        resource_version: String,
        reason: CloseReason,
    ) -> Self {
        let reason = match reason {
            CloseReason::ServerClosed => "the server closed the watch at once".to_string(),
            CloseReason::ConnectionLost(r)
            | CloseReason::Malformed(r)
            | CloseReason::TooLarge(r) => r,
            CloseReason::ErrorEvent { code, message } => {
                format!("the server sent an error ({code}): {message}")
            }
        };
        ReflectorError::WatchEnded {
            resource,
            resource_version,
            reason,
        }
    }
}
