//! Where a `tail` session's output goes: what each feed shows (its start, its object events and
//! bookmarks, its reflector's transitions, a watch of something that does not exist) is handed
//! to a [`Sink`] the command gives the session, which writes it as it likes; `commands/` writes
//! the recording's records.

use crate::informer::object::RawObject;
use crate::informer::patch::ObjectDiff;
use crate::informer::transition::{EventType, Origin, ReflectorEvent};
use crate::react::{Reaction, Resolved};
use std::io;
use std::time::{Duration, SystemTime};

/// One object event, as a feed shows it.
#[derive(Debug)]
pub struct Shown<'a> {
    pub event_type: EventType,
    pub origin: Origin,
    /// The object, a Secret's values redacted unless `--show-secret-data`.
    pub object: &'a RawObject,
    pub received_at: SystemTime,
    /// For a MODIFIED, when the session was asked for them: the fields it changed.
    pub changes: Option<&'a str>,
    /// With `--follow-owned`: the chain of owners it is followed through, the named object
    /// first (empty for the named object itself).
    pub owners: Option<&'a [String]>,
    /// For a MODIFIED with `--diff`: its previous version and this one, as compared.
    pub diff: Option<&'a ObjectDiff>,
}

/// What became of one write (`--react`), as the session shows it.
#[derive(Debug)]
pub struct ReactionShown<'a> {
    /// The feed of the written object.
    pub feed: usize,
    /// The feed whose event showed the reaction (the written resource's, or for `owned:` the
    /// owned one's), when one did.
    pub shown_by: Option<usize>,
    pub reaction: &'a Reaction,
    /// `--reaction-timeout`.
    pub timeout: Duration,
    /// The written object's uid.
    pub uid: &'a str,
    pub resolved: &'a Resolved,
    /// When its fate was known: the reaction's arrival, the end of the timeout, the deletion's
    /// arrival.
    pub at: SystemTime,
}

/// What a session's feeds show, each by its feed's index (the order the session was given
/// them in).
pub trait Sink {
    /// The feed's first event arrived: what it watches is said before anything of it.
    fn start(&mut self, feed: usize) -> io::Result<()>;
    fn object(&mut self, feed: usize, shown: &Shown<'_>) -> io::Result<()>;
    /// A BOOKMARK, unless `--no-bookmarks`.
    fn bookmark(
        &mut self,
        feed: usize,
        resource_version: &str,
        initial_events_end: bool,
        received_at: SystemTime,
    ) -> io::Result<()>;
    /// Each event of the feed's reflector, after the object events it made: the transitions
    /// among them (a LIST's end, a watch opened or closed, a 410, ...) are said as they are.
    fn event(&mut self, feed: usize, event: &ReflectorEvent) -> io::Result<()>;
    /// What became of a write to one of the feed's objects (`--react`): after the event that
    /// decided it, or on its own when the timeout passed.
    fn reaction(&mut self, shown: &ReactionShown<'_>) -> io::Result<()>;
    /// The feed's first LIST found nothing: the namespace it watches does not exist.
    fn namespace_missing(&mut self, feed: usize) -> io::Result<()>;
    /// The feed's first LIST found nothing: the object `name` it is of is not there.
    fn object_missing(&mut self, feed: usize, name: &str) -> io::Result<()>;
    /// Writes out what was shown (the merged stream has nothing more at hand).
    fn flush(&mut self) -> io::Result<()>;
}
