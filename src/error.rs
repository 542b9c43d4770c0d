//! The top-level error: every failure the binary reports, its one-line message and its exit code.

use crate::cluster::ClusterError;

/// Everything went as asked (also when the reader of stdout went away).
pub const EXIT_OK: u8 = 0;
/// The command ran and found something: drift, a failed bench gate.
pub const EXIT_FINDING: u8 = 1;
/// Bad input, an API error, an expired `--from-rv`.
pub const EXIT_ERROR: u8 = 2;
/// `--timeout` ran out before the run's own end (`--until-rv`, `--max-events`, a finished
/// comparison): GNU timeout(1)'s code.
pub const EXIT_TIMED_OUT: u8 = 124;
/// Interrupted by Ctrl-C, or stopped by SIGTERM: the codes are `stop`'s, a leaf's.
pub use crate::stop::{EXIT_INTERRUPTED, EXIT_TERMINATED};

/// A failure of any command, printed once by `main` as `error: {self}`.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag or argument that fails validation before any I/O.
    #[error("{0}")]
    Usage(String),
    /// Anything that involves the cluster: kubeconfig, connection, discovery, API calls.
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The watch failed in a way the reflector does not retry (e.g. an expired `--from-rv`).
    #[error("{0}")]
    Watch(String),
    /// `tail --diff` could not compare a MODIFIED object (`key`) with its previous version: one
    /// of them has no JSON (received in protobuf) or its JSON does not parse.
    #[error("cannot compare {key} with its previous version: {source}")]
    TailDiff {
        key: String,
        #[source]
        source: serde_json::Error,
    },
    /// A check found nothing to check (a namespace that does not exist, a selector that
    /// matches nothing): not a pass, unless the user said an empty scope is expected.
    #[error("{0}")]
    NothingChecked(String),
    /// A run that could not go on for a reason other than the cluster's: its load generator
    /// failed, or stopped.
    #[error("{0}")]
    Failed(String),
    /// A file named on the command line could not be opened, read, created or written.
    #[error("{0}")]
    File(String),
    /// `--timeout` ran out first: what did not happen in time. The run stopped cleanly (output
    /// flushed, files complete) before this is returned.
    #[error("{0}")]
    TimedOut(String),
    /// Ctrl-C or SIGTERM stopped the run before its own loop began (nothing to summarize); the
    /// exit code (130 or 143). Nothing is printed for it.
    #[error("stopped")]
    Stopped(u8),
    /// Writing to stdout or stderr failed; a closed pipe (the reader went away, `| head`) is
    /// not a failure: `run` ends with exit 0 on it, in this one place.
    #[error("cannot write output: {0}")]
    Output(#[source] std::io::Error),
}

impl From<crate::informer::reflector::ReflectorError> for Error {
    fn from(e: crate::informer::reflector::ReflectorError) -> Self {
        use crate::informer::reflector::ReflectorError;
        match e {
            ReflectorError::Cluster(c) => Error::Cluster(c),
            other => Error::Watch(other.to_string()),
        }
    }
}

impl Error {
    /// Whether this is a write to a pipe whose reader went away.
    pub fn is_closed_pipe(&self) -> bool {
        matches!(self, Error::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    /// The exit code this error ends the process with.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::TimedOut(_) => EXIT_TIMED_OUT,
            Error::Stopped(code) => *code,
            _ => EXIT_ERROR,
        }
    }
}

/// What a command's `exec` returns: an exit code, or an error to print.
pub type Result<T, E = Error> = std::result::Result<T, E>;
