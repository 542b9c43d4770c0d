//! The reflector driven in process by a scripted source on tokio's paused clock, as client-go
//! tests its reflector with a fake ListerWatcher: each test asserts the events reported, the
//! requests made and, where timing is the point, how long the reflector waited. This file holds
//! what they share: a [`Run`] of a reflector over a [`Script`], and events shown as lines.

mod errors;
mod relisting;
mod replay;
mod watching;
mod went_back;

use super::*;
use crate::informer::backoff;
use crate::informer::listwatch::ApiStatus;
use crate::informer::object::RawObject;
use crate::informer::script::{Request, Script, Step};
use crate::informer::store::tests::cm;

/// Tokio's timers fire on whole milliseconds: a wait of `d` ends in `[d, d + 1 ms)`.
const TICK: Duration = Duration::from_millis(1);

/// An informer's reflector (bookmarks, reconnects), pages of 2, watches of 60 s.
fn config(start: Start) -> ReflectorConfig {
    ReflectorConfig {
        server_timeout: Some(60),
        ..ReflectorConfig::informer(start, 2)
    }
}

fn obj(name: &str, rv: u64) -> RawObject {
    cm("ns", name, rv, &[])
}

fn added(name: &str, rv: u64) -> Step {
    Step::Event(WatchEvent::Added(obj(name, rv)))
}

fn modified(name: &str, rv: u64) -> Step {
    Step::Event(WatchEvent::Modified(obj(name, rv)))
}

fn bookmark(rv: u64, initial_events_end: bool) -> Step {
    Step::Event(WatchEvent::Bookmark {
        resource_version: rv.to_string(),
        initial_events_end,
    })
}

/// An ERROR event in the stream, as the API server sends a 410.
fn error_event(code: u16, reason: &str) -> Step {
    Step::Event(WatchEvent::Error(ApiStatus {
        code,
        reason: reason.to_string(),
        message: "too old resource version: 5 (20)".to_string(),
    }))
}

fn api_error(code: u16, reason: &str) -> ClusterError {
    api_error_after(code, reason, None)
}

fn throttled(retry_after: Option<Duration>) -> ClusterError {
    api_error_after(429, "TooManyRequests", retry_after)
}

fn api_error_after(code: u16, reason: &str, retry_after: Option<Duration>) -> ClusterError {
    ClusterError::Api {
        what: "configmaps".to_string(),
        code,
        reason: reason.to_string(),
        message: format!("the server says {reason}"),
        retry_after,
    }
}

fn list(limit: Option<u32>, continue_token: Option<&str>) -> Request {
    Request::List {
        limit,
        continue_token: continue_token.map(str::to_string),
        resource_version: None,
    }
}

/// A plain WATCH from `rv` with [`config`]'s options.
fn watch(rv: &str) -> Request {
    watch_asking(rv, 60, false)
}

fn watch_list() -> Request {
    watch_asking("", 60, true)
}

fn watch_asking(rv: &str, timeout_seconds: u64, send_initial_events: bool) -> Request {
    Request::Watch {
        resource_version: rv.to_string(),
        timeout_seconds: Some(timeout_seconds),
        send_initial_events,
        bookmarks: true,
    }
}

/// A reflector over a script, with the tokio time it started at.
struct Run {
    reflector: Reflector<Script>,
    script: Script,
    start: Instant,
}

impl Run {
    fn new(script: Script, config: ReflectorConfig) -> Self {
        Run {
            reflector: Reflector::new(script.clone(), config),
            script,
            start: Instant::now(),
        }
    }

    /// The reflector's next step; an hour of tokio time without one fails the test (a guard,
    /// not a sleep: the paused clock jumps there at once when nothing else is due).
    async fn next(&mut self) -> Result<Option<ReflectorEvent>, ReflectorError> {
        tokio::time::timeout(Duration::from_secs(3600), self.reflector.next())
            .await
            .expect("the reflector did nothing for an hour")
    }

    /// The next `n` events, each with when it came (tokio time since the start).
    async fn pull(&mut self, n: usize) -> Vec<(Duration, ReflectorEvent)> {
        let mut events = Vec::new();
        for _ in 0..n {
            match self.next().await {
                Ok(Some(event)) => events.push((self.start.elapsed(), event)),
                other => panic!("after {:?}: {other:?}", shown(&events)),
            }
        }
        events
    }

    /// The error the reflector ends with next.
    async fn error(&mut self) -> ReflectorError {
        match self.next().await {
            Err(e) => e,
            Ok(other) => panic!("expected an error, got {:?}", other.as_ref().map(show)),
        }
    }

    fn requests(&self) -> Vec<Request> {
        self.script.requests()
    }
}

/// An event as a line: its variant and the fields a test compares.
fn show(event: &ReflectorEvent) -> String {
    let relist = |r: bool| if r { " (relist)" } else { "" };
    match event {
        ReflectorEvent::Listed {
            object, relist: r, ..
        } => format!(
            "Listed {}@{}{}",
            object.key(),
            object.resource_version(),
            relist(*r)
        ),
        ReflectorEvent::ListComplete {
            resource_version,
            objects,
            pages,
            relist: r,
        } => format!(
            "ListComplete rv={resource_version} objects={objects} pages={pages}{}",
            relist(*r)
        ),
        ReflectorEvent::Fallback { .. } => "Fallback".to_string(),
        ReflectorEvent::ListRestarted { objects, .. } => format!("ListRestarted objects={objects}"),
        ReflectorEvent::WatchOpened { resource_version } => {
            format!("WatchOpened rv={resource_version}")
        }
        ReflectorEvent::Watched {
            event_type, object, ..
        } => format!(
            "Watched {} {}@{}",
            event_type.as_str(),
            object.key(),
            object.resource_version()
        ),
        ReflectorEvent::Bookmark {
            resource_version,
            initial_events_end,
            ..
        } => format!(
            "Bookmark rv={resource_version}{}",
            if *initial_events_end {
                " (initial events end)"
            } else {
                ""
            }
        ),
        ReflectorEvent::WatchClosed {
            resource_version,
            reason,
            retry_in,
        } => show_closed(resource_version, reason, *retry_in),
        ReflectorEvent::WatchFailed {
            resource_version, ..
        } => format!("WatchFailed rv={resource_version}"),
        ReflectorEvent::ListFailed { .. } => "ListFailed".to_string(),
        ReflectorEvent::Expired {
            resource_version, ..
        } => format!("Expired rv={resource_version}"),
        ReflectorEvent::WentBack { newest, served, on } => {
            let on = match on {
                BackOn::List => "list".to_string(),
                BackOn::Watch { from } => format!("watch from {from}"),
            };
            format!("WentBack rv={served} newest={newest} on {on}")
        }
    }
}

fn show_closed(resource_version: &str, reason: &CloseReason, retry_in: Option<Duration>) -> String {
    let reason = match reason {
        CloseReason::ServerClosed => "ServerClosed".to_string(),
        CloseReason::ConnectionLost(_) => "ConnectionLost".to_string(),
        CloseReason::Malformed(_) => "Malformed".to_string(),
        CloseReason::TooLarge(_) => "TooLarge".to_string(),
        CloseReason::ErrorEvent { code, .. } => format!("ErrorEvent {code}"),
    };
    let retry = match retry_in {
        None => "no retry",
        Some(d) if d.is_zero() => "retry at once",
        Some(_) => "retry later",
    };
    format!("WatchClosed rv={resource_version} {reason}, {retry}")
}

fn shown(events: &[(Duration, ReflectorEvent)]) -> Vec<String> {
    events.iter().map(|(_, e)| show(e)).collect()
}

/// The delay an event says the reflector waits before its next attempt.
fn retry_in(event: &ReflectorEvent) -> Duration {
    match event {
        ReflectorEvent::WatchClosed {
            retry_in: Some(d), ..
        }
        | ReflectorEvent::WatchFailed { retry_in: d, .. }
        | ReflectorEvent::ListFailed { retry_in: d, .. } => *d,
        other => panic!("no retry delay in {}", show(other)),
    }
}

/// `delay` is the `nth` (from 1) backoff delay in a row: 800 ms doubled `nth - 1` times, plus
/// a jitter of up to as much again.
fn assert_backoff(delay: Duration, nth: u32) {
    let base = backoff::INITIAL * 2u32.pow(nth - 1);
    assert!(
        delay >= base && delay < base * 2,
        "backoff #{nth} was {delay:?}, not in [{base:?}, {:?})",
        base * 2
    );
}

/// The time from `from` to `to` is `delay`, to tokio's millisecond.
fn assert_waited(from: Duration, to: Duration, delay: Duration) {
    let waited = to - from;
    assert!(
        waited >= delay && waited < delay + TICK,
        "waited {waited:?}, not {delay:?}"
    );
}
