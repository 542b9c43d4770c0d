//! `tail`'s sink: what the session shows, written as the recording's records to the printer
//! that `-o` and `--record` chose, each naming its watch by the watch's start notice.

use crate::informer::transition::ReflectorEvent;
use crate::recording::{
    BookmarkEvent, EventPrinter, Missing, Notice, ObjectEvent, ReactionEvent, StartNotice,
    Transition,
};
use crate::tail::{ReactionShown, Shown, Sink};
use std::io;
use std::time::SystemTime;

/// The printer, and each feed's watch as its records name it (by the feed's index).
pub(super) struct Records {
    pub(super) printer: Box<dyn EventPrinter>,
    pub(super) watches: Vec<StartNotice>,
}

impl Records {
    fn missing(&mut self, feed: usize, missing: Missing<'_>) -> io::Result<()> {
        let watch = &self.watches[feed];
        self.printer
            .notice(Notice::NotFound { watch, missing }, SystemTime::now())
    }
}

impl Sink for Records {
    fn start(&mut self, feed: usize) -> io::Result<()> {
        self.printer
            .notice(Notice::Start(&self.watches[feed]), SystemTime::now())
    }

    fn object(&mut self, feed: usize, shown: &Shown<'_>) -> io::Result<()> {
        self.printer.object(&ObjectEvent {
            watch: &self.watches[feed],
            event_type: shown.event_type,
            origin: shown.origin,
            object: shown.object,
            received_at: shown.received_at,
            changes: shown.changes,
            owners: shown.owners,
            diff: shown.diff,
        })
    }

    fn bookmark(
        &mut self,
        feed: usize,
        resource_version: &str,
        initial_events_end: bool,
        received_at: SystemTime,
    ) -> io::Result<()> {
        self.printer.bookmark(&BookmarkEvent {
            watch: &self.watches[feed],
            resource_version,
            initial_events_end,
            received_at,
        })
    }

    fn event(&mut self, feed: usize, event: &ReflectorEvent) -> io::Result<()> {
        let Some(transition) = Transition::of(event) else {
            return Ok(());
        };
        let watch = &self.watches[feed];
        self.printer
            .notice(Notice::Transition { watch, transition }, SystemTime::now())
    }

    fn reaction(&mut self, shown: &ReactionShown<'_>) -> io::Result<()> {
        self.printer.reaction(&ReactionEvent {
            watch: &self.watches[shown.feed],
            shown_by: shown.shown_by.map(|feed| &self.watches[feed]),
            reaction: shown.reaction,
            timeout: shown.timeout,
            uid: shown.uid,
            resolved: shown.resolved,
            at: shown.at,
        })
    }

    fn namespace_missing(&mut self, feed: usize) -> io::Result<()> {
        self.missing(feed, Missing::Namespace)
    }

    fn object_missing(&mut self, feed: usize, name: &str) -> io::Result<()> {
        self.missing(feed, Missing::Object { name })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.printer.flush()
    }
}
