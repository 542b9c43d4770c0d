//! What ends a live bench run without a report: the cluster's and the watch's failures, the load
//! generator's, a run too short for its warm-up, and writes that cannot be measured as asked
//! (a mutation the server ignores, a write whose resourceVersion cannot be ordered). The command
//! adds what the user can do about it (which flag to change).

use super::run::RunError;
use crate::cluster::ClusterError;
use crate::informer::reflector::ReflectorError;

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The informer's reflector stopped for good (a failure it does not retry).
    #[error(transparent)]
    Reflector(#[from] ReflectorError),
    /// The informer's watch ended and its reflector reported nothing more.
    #[error("the watch ended before the run did")]
    WatchEnded,
    #[error("cannot start the load generator: {0}")]
    LoadThread(#[source] std::io::Error),
    /// The load generator's thread is gone (it panicked or its runtime stopped).
    #[error("generate load failed: the load generator stopped")]
    LoadStopped,
    #[error(transparent)]
    Run(#[from] RunError),
    /// An update of `path` left `metadata.generation` where it was: no spec change, so no
    /// controller has a generation to observe.
    #[error(
        "{path}: the update left metadata.generation at {generation}: the server takes it as no \
         change of the spec (a label or an annotation outside the pod template), so no controller \
         has a generation to observe; mutate a field of the spec"
    )]
    MutationLeavesGeneration { path: String, generation: i64 },
    /// The server answered an update without the value written at `path`.
    #[error(
        "{path}: the server did not keep the value written there (the field is not in \
         {resource}'s schema, or is set by the server): mutate a field of the resource's spec, a \
         label or an annotation"
    )]
    MutationNotKept { path: String, resource: String },
    /// Reactions are matched by resourceVersion, and a write's answer had one that is not a
    /// number.
    #[error(
        "reactions are ordered by resourceVersion, and the server answered the write of {name} \
         with a {reason}"
    )]
    UnorderedWrite { name: String, reason: String },
}
