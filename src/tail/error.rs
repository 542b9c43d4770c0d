//! Why a `tail` session ends with an error: a watch its reflector does not retry, an
//! `--until-rv` that cannot be reached, an object that cannot be redacted or compared, a sink
//! that cannot write. `commands/` maps each into the top-level error.

use crate::cluster::resource_version::{NotComparable, ResourceVersion};
use crate::informer::reflector::ReflectorError;

/// A `tail` session's failure.
#[derive(Debug, thiserror::Error)]
pub enum TailError {
    /// The one watch failed in a way its reflector does not retry (an expired `--from-rv`, a
    /// refusal).
    #[error(transparent)]
    Watch(Box<ReflectorError>),
    /// One of several watches failed so: `resource` names it.
    #[error("{resource}: {source}")]
    WatchOf {
        resource: String,
        #[source]
        source: Box<ReflectorError>,
    },
    /// Every watch ended (`--no-reconnect`) before `--until-rv` was seen; `newest` says what
    /// was.
    #[error(
        "the watch ended (--no-reconnect) before resourceVersion {until} was seen; {newest}: \
         drop --no-reconnect to resume the watch until it is"
    )]
    EndedBefore {
        until: ResourceVersion,
        newest: String,
    },
    /// `resource` sent a resourceVersion that is not a number, which `--until-rv` can never be
    /// compared with.
    #[error("--until-rv {until} cannot be reached: {resource} sent {source}")]
    Unreachable {
        until: ResourceVersion,
        resource: String,
        #[source]
        source: NotComparable,
    },
    /// `limit` (`--for 8s`) ended a replay that never began: its RV `from` stayed ahead of the
    /// server's `current` one of `resource`, and the reflector's retries stop with the run.
    #[error(
        "{limit} ended before the replay began: resourceVersion {from} stayed ahead of the \
         server's current one ({current}, from a LIST of {resource}); pass a resourceVersion \
         this cluster printed for {resource}"
    )]
    StillAhead {
        limit: String,
        from: String,
        current: String,
        resource: String,
    },
    /// A Secret kept without its JSON, or whose JSON does not parse, cannot be redacted.
    #[error("cannot redact Secret {key}: {source}")]
    Redact {
        key: String,
        #[source]
        source: serde_json::Error,
    },
    /// `--diff`: a MODIFIED object (`key`) could not be compared with its previous version.
    #[error("cannot compare {key} with its previous version: {source}")]
    Diff {
        key: String,
        #[source]
        source: serde_json::Error,
    },
    /// The sink could not write (stdout, the `--record` file).
    #[error("cannot write output: {0}")]
    Output(#[source] std::io::Error),
}
