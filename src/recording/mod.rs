//! The recording format, the only place that knows it: tail's JSON Lines (`tail -o json`,
//! `tail --record`, `diff --save-cache`), which `bench --from-file` replays and
//! `diff --cache-file` compares. The records (`ObjectEvent`, `BookmarkEvent`, `Notice`) and the
//! sink they go to (`EventPrinter`) are defined here; `writer` writes them as JSON Lines (and a
//! cache as a snapshot), `reader` reads them back line by line or into a Store.

pub mod reader;
pub mod writer;

pub use reader::{read, RecordLine, Recording, Scope};
pub use writer::{snapshot, start_notice, JsonPrinter};

use crate::informer::object::RawObject;
use serde::Serialize;
use std::time::SystemTime;

/// Version of the JSON Lines schema that `tail -o json` writes (see README, "JSON schema").
pub const SCHEMA_VERSION: u32 = 1;

/// Where an object event came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The initial LIST.
    Initial,
    /// The watch.
    Watch,
    /// A relist after the watch was lost: what changed while tail was not watching.
    Relist,
}

/// One object event to print.
#[derive(Debug)]
pub struct ObjectEvent<'a> {
    /// `ADDED`, `MODIFIED` or `DELETED`.
    pub event_type: &'static str,
    pub origin: Origin,
    pub object: &'a RawObject,
    pub received_at: SystemTime,
    /// For MODIFIED in text output: which fields changed (`spec.replicas 3→5, ...`).
    pub changes: Option<&'a str>,
}

/// One BOOKMARK to print.
#[derive(Debug)]
pub struct BookmarkEvent<'a> {
    pub resource_version: &'a str,
    pub initial_events_end: bool,
    pub received_at: SystemTime,
}

/// Something about the watch itself, never an object event.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "notice", rename_all = "kebab-case")]
pub enum Notice {
    /// First line of a recording: what is being watched.
    #[serde(rename_all = "camelCase")]
    Start {
        schema_version: u32,
        resource: String,
        api_version: String,
        kind: String,
        namespace: Option<String>,
        label_selector: Option<String>,
        field_selector: Option<String>,
        /// Objects are `PartialObjectMetadata` (`--metadata-only`).
        metadata_only: bool,
        server: String,
    },
    /// The initial state (or a relist) is complete; `pages` is 0 for a watch-list.
    #[serde(rename_all = "camelCase")]
    ListComplete {
        resource_version: String,
        objects: usize,
        pages: usize,
        relist: bool,
    },
    /// The server refused the watch-list: LIST + WATCH instead, as client-go does.
    #[serde(rename_all = "camelCase")]
    Fallback { reason: String },
    /// A LIST (or a watch-list's initial events) was cut short after `objects` objects and
    /// starts over as a relist, compared with what was shown so far.
    #[serde(rename_all = "camelCase")]
    ListRestarted { reason: String, objects: usize },
    #[serde(rename_all = "camelCase")]
    WatchOpened { resource_version: String },
    /// The watch ended; `retry_in_seconds` when tail re-opens it.
    #[serde(rename_all = "camelCase")]
    WatchClosed {
        resource_version: String,
        reason: String,
        retry_in_seconds: Option<f64>,
    },
    #[serde(rename_all = "camelCase")]
    WatchFailed {
        resource_version: String,
        error: String,
        retry_in_seconds: f64,
    },
    /// A LIST page failed; the LIST goes on from that page after `retry_in_seconds`.
    #[serde(rename_all = "camelCase")]
    ListFailed {
        error: String,
        retry_in_seconds: f64,
    },
    /// 410 Gone: the server no longer has the RV; a relist follows.
    #[serde(rename_all = "camelCase")]
    Expired {
        resource_version: String,
        message: String,
    },
}

/// A sink for the records of an event stream.
pub trait EventPrinter {
    fn object(&mut self, event: &ObjectEvent<'_>) -> std::io::Result<()>;
    fn bookmark(&mut self, event: &BookmarkEvent<'_>) -> std::io::Result<()>;
    fn notice(&mut self, notice: &Notice, at: SystemTime) -> std::io::Result<()>;
    fn flush(&mut self) -> std::io::Result<()>;
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

    fn notice(&mut self, notice: &Notice, at: SystemTime) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.notice(notice, at))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.iter_mut().try_for_each(|p| p.flush())
    }
}
