//! The recording format, the only place that knows it: tail's JSON Lines (`tail -o json`,
//! `tail --record`, `diff --save-cache`), which `bench --from-file` replays and
//! `diff --cache-file` compares. The records (`ObjectEvent`, `BookmarkEvent`, `Notice`, whose
//! transitions are the reflector's own events, and `ReactionEvent`, what became of a write with
//! `tail --react`, which the readers skip) and the sink they go to (`EventPrinter`) are
//! defined here; `writer` writes them as JSON Lines (and a cache as a snapshot), `reader` reads
//! them back line by line or into a Store.

pub mod reader;
pub mod writer;

/// Where an object event came from: the reflector's, as tail shows it.
pub use crate::informer::transition::Origin;
pub use reader::{read, RecordLine, Recording, Scope};
pub use writer::{snapshot, start_notice, JsonPrinter};

use crate::informer::object::RawObject;
use crate::informer::patch::ObjectDiff;
use crate::informer::transition::{EventType, ReflectorEvent};
use crate::react::{Reaction, Resolved};
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime};

/// A line's `type`: an object event's (the watch's own words), a bookmark, a notice, or a
/// write's reaction (`tail --react`). The
/// writer writes it and the reader reads it as this type, so that neither spells a tag of its
/// own; a type a newer writer adds reads as `Unknown`, and is skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum LineType {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Notice,
    Reaction,
    #[serde(other, skip_serializing)]
    Unknown,
}

impl From<EventType> for LineType {
    fn from(event_type: EventType) -> Self {
        match event_type {
            EventType::Added => LineType::Added,
            EventType::Modified => LineType::Modified,
            EventType::Deleted => LineType::Deleted,
        }
    }
}

/// A NOTICE line's `notice`, shared by the writer and the reader as [`LineType`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoticeKind {
    Start,
    NotFound,
    ListComplete,
    Fallback,
    ListRestarted,
    WatchOpened,
    WatchClosed,
    WatchFailed,
    ListFailed,
    Expired,
    WentBack,
    #[serde(other, skip_serializing)]
    Unknown,
}

/// Version of the JSON Lines schema that `tail -o json` writes (docs/json.md; schemas/recording.v2.schema.json).
/// 2 writes the lines of 1 (already camelCase); the number moved with every JSON document's
/// when one naming rule was applied to all of them. The reader takes 1 and 2.
pub const SCHEMA_VERSION: u32 = 2;
/// The oldest recording schema the reader still takes: users keep recordings.
pub const OLDEST_READ_VERSION: u32 = 1;

/// One object event to print.
#[derive(Debug)]
pub struct ObjectEvent<'a> {
    /// The watch it came from (a stream may merge several resources').
    pub watch: &'a StartNotice,
    pub event_type: EventType,
    pub origin: Origin,
    pub object: &'a RawObject,
    pub received_at: SystemTime,
    /// For MODIFIED in text output: which fields changed (`spec.replicas 3→5, ...`).
    pub changes: Option<&'a str>,
    /// With `tail --follow-owned`: the objects it is followed through, from the named object
    /// down to its direct owner (`["deployment.apps/web", "replicaset.apps/web-7d9"]`; empty
    /// for the named object).
    pub owners: Option<&'a [String]>,
    /// For MODIFIED with `--diff`: the previous version and this one, as compared.
    pub diff: Option<&'a ObjectDiff>,
}

/// One BOOKMARK to print.
#[derive(Debug)]
pub struct BookmarkEvent<'a> {
    /// The watch it came from: a bookmark's RV is that resource's.
    pub watch: &'a StartNotice,
    pub resource_version: &'a str,
    pub initial_events_end: bool,
    pub received_at: SystemTime,
}

/// What became of one write to an object (`tail --react`): reacted to, superseded by a newer
/// write's reaction, or none within the timeout or before the object was deleted.
#[derive(Debug)]
pub struct ReactionEvent<'a> {
    /// The watch of the written object.
    pub watch: &'a StartNotice,
    /// The watch whose event showed the reaction (the written resource's, or for `owned:` the
    /// owned resource's), when one did.
    pub shown_by: Option<&'a StartNotice>,
    /// `--react`, and `--reaction-timeout`.
    pub reaction: &'a Reaction,
    pub timeout: Duration,
    /// The written object's uid.
    pub uid: &'a str,
    pub resolved: &'a Resolved,
    /// When its fate was known.
    pub at: SystemTime,
}

/// The first line of a recording, once per resource: what is being watched. Every record
/// names the watch it came from by it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StartNotice {
    pub schema_version: u32,
    pub resource: String,
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// Objects are `PartialObjectMetadata` (`--metadata-only`).
    pub metadata_only: bool,
    pub server: String,
}

/// Something about the watch itself, never an object event: the recording's start, or one of
/// the reflector's transitions, recorded as the engine reports it (no copy of its own).
#[derive(Debug, Clone, Copy)]
pub enum Notice<'a> {
    Start(&'a StartNotice),
    Transition {
        watch: &'a StartNotice,
        transition: Transition<'a>,
    },
    /// The first LIST found nothing, because what is watched does not exist (yet); the watch
    /// goes on, as `kubectl get -w` does, since it may be created.
    NotFound {
        watch: &'a StartNotice,
        missing: Missing<'a>,
    },
}

/// What a watch that found nothing watches in vain, until it is created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing<'a> {
    /// The namespace (the watch's) does not exist.
    Namespace,
    /// The object named (`tail deploy web`) is not there, in a namespace that exists (or one
    /// the user may not look up).
    Object { name: &'a str },
}

impl<'a> Notice<'a> {
    /// The watch the notice is about.
    pub fn watch(&self) -> &'a StartNotice {
        match self {
            Notice::Start(watch)
            | Notice::Transition { watch, .. }
            | Notice::NotFound { watch, .. } => watch,
        }
    }
}

/// A reflector event that is a notice: anything but an object event or a bookmark (those are
/// records of their own).
#[derive(Debug, Clone, Copy)]
pub struct Transition<'a>(&'a ReflectorEvent);

impl<'a> Transition<'a> {
    /// The notice `event` is, if it is one.
    pub fn of(event: &'a ReflectorEvent) -> Option<Self> {
        match event {
            ReflectorEvent::Listed { .. }
            | ReflectorEvent::Watched { .. }
            | ReflectorEvent::Bookmark { .. } => None,
            _ => Some(Transition(event)),
        }
    }

    pub fn event(&self) -> &'a ReflectorEvent {
        self.0
    }
}

/// A sink for the records of an event stream.
pub trait EventPrinter {
    fn object(&mut self, event: &ObjectEvent<'_>) -> std::io::Result<()>;
    fn bookmark(&mut self, event: &BookmarkEvent<'_>) -> std::io::Result<()>;
    fn notice(&mut self, notice: Notice<'_>, at: SystemTime) -> std::io::Result<()>;
    fn reaction(&mut self, event: &ReactionEvent<'_>) -> std::io::Result<()>;
    fn flush(&mut self) -> std::io::Result<()>;
    /// The end of the stream: what is held for what would have come next is written out.
    fn finish(&mut self) -> std::io::Result<()> {
        self.flush()
    }
}

/// Sends every record to each printer in turn (`-o text --record FILE`).
pub struct Tee(pub Vec<Box<dyn EventPrinter>>);

impl EventPrinter for Tee {
    fn object(&mut self, event: &ObjectEvent<'_>) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.object(event))
    }

    fn bookmark(&mut self, event: &BookmarkEvent<'_>) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.bookmark(event))
    }

    fn notice(&mut self, notice: Notice<'_>, at: SystemTime) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.notice(notice, at))
    }

    fn reaction(&mut self, event: &ReactionEvent<'_>) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.reaction(event))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.flush())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.finish())
    }
}
