//! What ends a comparison without a report: the cluster's and the informer's failures, and a
//! server whose history moves faster than a comparison can list it. The command that runs the
//! comparison adds what the user can do about it (which flag to change).

use crate::cluster::ClusterError;
use crate::informer::reflector::ReflectorError;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The informer's reflector stopped for good (a failure it does not retry).
    #[error(transparent)]
    Reflector(#[from] ReflectorError),
    /// The informer stopped before its cache could be read.
    #[error("{0}")]
    Stopped(String),
    /// Every try to list at the cache's RV, and then at the newest RV after catching up, met a
    /// 410: a LIST of the cache's size takes longer than the server keeps history.
    #[error(
        "the server discarded the history of {resource} {tries} times while diff listed it: a \
         LIST of the cache's size takes longer than the server keeps history"
    )]
    HistoryGone { resource: String, tries: usize },
    /// The server's LIST answered with a resourceVersion that cannot be compared.
    #[error("the server's LIST answered with a {0}")]
    UnreadableResourceVersion(String),
    #[error("the cache cannot be compared at the server's newest RV {newest}: the {reason}")]
    NotComparable { newest: String, reason: String },
    /// Neither events nor bookmarks moved the cache to the server's newest RV in time.
    #[error(
        "the cache did not reach RV {newest} within {}s (it is at {current}): no events or \
         bookmarks arrived", .limit.as_secs()
    )]
    NotCaughtUp {
        newest: String,
        current: String,
        limit: Duration,
    },
    /// The first comparison found no objects, and none was allowed.
    #[error("nothing to compare")]
    NothingCompared,
    /// The watchdog's end came after a comparison that failed: no verdict.
    #[error("the watchdog's last comparison failed (see above)")]
    LastComparisonFailed,
    /// A report could not be handed on (its reader went away).
    #[error(transparent)]
    Output(std::io::Error),
}
