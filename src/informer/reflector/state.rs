//! The reflector's state: each variant of [`State`] carries what is valid in it (the page of a
//! LIST to ask for, the RV to watch from, the open watch and what its events mean), as
//! kube-runtime's `watcher::State` does; `Reflector::step` takes one to the next.

use crate::informer::listwatch::WatchStream;
use crate::informer::transition::CloseReason;
use std::pin::Pin;
use std::time::Duration;
use tokio::time::Instant;

/// Where the reflector is; each variant carries what is valid in it.
pub(super) enum State {
    /// A LIST in progress: the page to ask for next.
    List(Listing),
    /// Before a replay's watch opens: whether `from` is ahead of the server's current RV
    /// (see `ahead.rs`).
    CheckReplay { from: String },
    /// A watch to open.
    OpenWatch(Opening),
    /// An open watch.
    Watching(Watch),
    /// A wait (the backoff, or a server's Retry-After) before `then`.
    Sleep { until: Instant, then: Box<State> },
    /// The watch ended and the reflector does not reconnect: nothing follows.
    Done,
}

impl State {
    /// `then`, once `delay` has passed.
    pub(super) fn after(delay: Duration, then: State) -> State {
        State::Sleep {
            until: Instant::now() + delay,
            then: Box::new(then),
        }
    }
}

/// A LIST, page by page.
pub(super) struct Listing {
    /// A relist (after a 410, a malformed stream, a LIST or a watch-list cut short): what it
    /// finds is compared with what was emitted before, not added to it.
    pub(super) relist: bool,
    /// Whether pages are asked for (`limit`). Not after a continue token expired: paging as
    /// slowly again could expire again, so the LIST starts over in one request (client-go's
    /// pager falls back to a full list the same way).
    pub(super) paged: bool,
    /// The token of the next page; none for the first.
    pub(super) continue_token: Option<String>,
    /// Pages and objects received so far.
    pub(super) pages: usize,
    pub(super) objects: usize,
}

impl Listing {
    /// A LIST from its first page; a relist when `relist`.
    pub(super) fn new(relist: bool) -> Listing {
        Listing {
            relist,
            paged: true,
            continue_token: None,
            pages: 0,
            objects: 0,
        }
    }
}

/// Which watch [`State::OpenWatch`] opens.
pub(super) enum Opening {
    /// A watch-list (`sendInitialEvents=true`, from ""): the current state first, as initial
    /// events. Only the first watch is one; whatever ends it is followed by a LIST.
    WatchList,
    /// A replay from `--from-rv`'s RV that has not begun: a 410 means that RV is too old to
    /// replay.
    Replay { from: String },
    /// From the last RV synced: a LIST's, an event's or a bookmark's.
    Resume { from: String },
}

impl Opening {
    pub(super) fn resource_version(&self) -> &str {
        match self {
            Opening::WatchList => "",
            Opening::Replay { from } | Opening::Resume { from } => from,
        }
    }
}

/// An open watch: its stream, its limits, the RV to resume from and what its events mean.
pub(super) struct Watch {
    pub(super) stream: WatchStream,
    pub(super) opened: Instant,
    pub(super) events: u64,
    /// The `timeoutSeconds` the watch asked for.
    pub(super) asked: Duration,
    /// Fires when the watch is presumed dead: `asked` plus a grace after `opened`. One timer
    /// for the whole watch, not one per event.
    pub(super) dead: Pin<Box<tokio::time::Sleep>>,
    /// The RV to resume from: the one the watch opened from, then the last object event's or
    /// bookmark's (a watch-list's initial events do not advance it).
    pub(super) resource_version: String,
    /// The RV the watch opened from ("" for a watch-list).
    pub(super) from: String,
    /// Whether it brought an RV older than the newest seen before (said once per watch).
    pub(super) went_back: bool,
    pub(super) phase: Phase,
}

/// What an open watch's events mean.
pub(super) enum Phase {
    /// A watch-list's initial state, until the `k8s.io/initial-events-end` bookmark: each ADDED
    /// is one object of a LIST (`objects` so far). Without that bookmark by `deadline` (the
    /// timeout after the watch opened or after the last initial event), the reflector falls
    /// back to LIST + WATCH.
    InitialEvents { objects: usize, deadline: Instant },
    /// A replay that has delivered nothing yet: a 410 means its RV is too old to replay.
    Replay,
    /// Changes after the RV the watch resumes from.
    Changes,
}

impl Phase {
    /// The initial events a watch-list showed so far: when it is cut, the relist that follows
    /// compares them instead of adding to them. 0 outside initial events.
    pub(super) fn initial_events(&self) -> usize {
        match self {
            Phase::InitialEvents { objects, .. } => *objects,
            Phase::Replay | Phase::Changes => 0,
        }
    }
}

impl Watch {
    /// What follows this watch when `reason` closed it: the same watch again (the replay, or
    /// from the last RV), or a relist when `reason` calls for one. A watch-list's initial
    /// events cut short are not resumed: a LIST follows, a relist once any came.
    pub(super) fn after_close(self, reason: &CloseReason) -> State {
        let from = self.resource_version;
        match self.phase {
            Phase::InitialEvents { objects, .. } => State::List(Listing::new(objects > 0)),
            _ if reason.relists() => State::List(Listing::new(true)),
            Phase::Replay => State::OpenWatch(Opening::Replay { from }),
            Phase::Changes => State::OpenWatch(Opening::Resume { from }),
        }
    }
}
