//! Human text: one aligned line per event on stdout, notices on stderr.

use crate::format::local_time;
use crate::format::wait;
use crate::informer::transition::ReflectorEvent;
use crate::recording::{BookmarkEvent, EventPrinter, Notice, ObjectEvent, Origin, StartNotice};
use std::io::Write;
use std::time::SystemTime;

const RESET: &str = "\x1b[0m";

/// Prints events as `TIME TYPE RV NAMESPACE/NAME [origin] [changes]` (wide: with kind, uid,
/// generation and the delay from arrival to print), notices as lines on `err`.
pub struct TextPrinter<O: Write, E: Write> {
    out: O,
    err: E,
    color: bool,
    wide: bool,
    /// Column width of resourceVersions, grown to the widest seen so columns stay aligned.
    rv_width: usize,
}

impl<O: Write, E: Write> TextPrinter<O, E> {
    pub fn new(out: O, err: E, color: bool, wide: bool) -> Self {
        TextPrinter {
            out,
            err,
            color,
            wide,
            rv_width: 8,
        }
    }

    fn paint(&self, text: &str, code: &str) -> String {
        if self.color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    fn type_column(&self, event_type: &str) -> String {
        let code = match event_type {
            "ADDED" => "\x1b[32m",
            "MODIFIED" => "\x1b[33m",
            "DELETED" => "\x1b[31m",
            "BOOKMARK" => "\x1b[36m",
            _ => "\x1b[35m",
        };
        self.paint(&format!("{event_type:<8}"), code)
    }

    fn rv_column(&mut self, rv: &str) -> String {
        self.rv_width = self.rv_width.max(rv.len());
        format!("{rv:<width$}", width = self.rv_width)
    }
}

/// The sentence a notice reads as in text output.
pub fn describe_notice(notice: Notice<'_>) -> String {
    let transition = match notice {
        Notice::Start(StartNotice {
            resource,
            namespace,
            server,
            ..
        }) => {
            return match namespace {
                Some(ns) => format!("tailing {resource} in namespace \"{ns}\" on {server}"),
                None => format!("tailing {resource} on {server}"),
            }
        }
        Notice::Transition(transition) => transition.event(),
    };
    match transition {
        ReflectorEvent::ListComplete {
            resource_version,
            objects,
            pages: 0,
            ..
        } => format!(
            "received {objects} initial events by watch-list, synced at RV {resource_version}"
        ),
        ReflectorEvent::Fallback { reason } => format!(
            "the server refused the watch-list ({reason}); falling back to LIST + WATCH, as client-go does"
        ),
        ReflectorEvent::ListComplete {
            resource_version,
            objects,
            pages,
            relist,
        } => format!(
            "{} {objects} objects in {pages} page(s) at RV {resource_version}",
            if *relist { "relisted" } else { "listed" }
        ),
        ReflectorEvent::ListRestarted { reason, objects } => format!(
            "the LIST was cut short after {objects} objects ({reason}); listing again to find what changed"
        ),
        ReflectorEvent::WatchOpened { resource_version } => {
            format!("watch opened from RV {resource_version}")
        }
        ReflectorEvent::WatchClosed {
            resource_version,
            reason,
            retry_in,
        } => match retry_in {
            // A malformed or oversized event is followed by a relist, not a resume.
            Some(d) if reason.relists() => format!(
                "watch closed at RV {resource_version}: {reason} in {}",
                wait(*d)
            ),
            Some(d) if !d.is_zero() => format!(
                "watch closed at RV {resource_version}: {reason}; resuming from RV {resource_version} in {}",
                wait(*d)
            ),
            Some(_) => format!(
                "watch closed at RV {resource_version}: {reason}; resuming from RV {resource_version}"
            ),
            None => format!("watch closed at RV {resource_version}: {reason}"),
        },
        ReflectorEvent::ListFailed { error, retry_in } => format!(
            "{error}; listing again from the failed page in {}",
            wait(*retry_in)
        ),
        ReflectorEvent::WatchFailed {
            resource_version,
            error,
            retry_in,
        } => format!(
            "{error}; retrying from RV {resource_version} in {}",
            wait(*retry_in)
        ),
        ReflectorEvent::Expired {
            resource_version,
            message,
            oldest_resource_version: Some(oldest),
        } => format!(
            "RV {resource_version} expired (410 Gone: {message}): the server's history now starts \
             at RV {oldest} (the API server restarted and its watch cache starts there, or older \
             history was compacted); relisting to find what changed"
        ),
        ReflectorEvent::Expired {
            resource_version,
            message,
            oldest_resource_version: None,
        } => format!(
            "RV {resource_version} expired (410 Gone: {message}); relisting to find what changed"
        ),
        // Never a notice (`Transition::of` refuses them): records of their own.
        ReflectorEvent::Listed { .. }
        | ReflectorEvent::Watched { .. }
        | ReflectorEvent::Bookmark { .. } => String::new(),
    }
}

impl<O: Write, E: Write> EventPrinter for TextPrinter<O, E> {
    fn object(&mut self, e: &ObjectEvent<'_>) -> std::io::Result<()> {
        let time = local_time(e.received_at);
        let kind = self.type_column(e.event_type.as_str());
        let rv = self.rv_column(e.object.resource_version());
        let mark = match e.origin {
            Origin::Initial => "  (initial)",
            Origin::Watch => "",
            Origin::Relist => "  (relist)",
        };
        let changes = e
            .changes
            .filter(|c| !c.is_empty())
            .map(|c| format!("  {c}"))
            .unwrap_or_default();
        if self.wide {
            let generation = e
                .object
                .generation()
                .map(|g| g.to_string())
                .unwrap_or_else(|| "-".to_string());
            let delay = SystemTime::now()
                .duration_since(e.received_at)
                .unwrap_or_default();
            writeln!(
                self.out,
                "{time}  {kind}  {rv}  {:<14}  {}  {}  gen={generation}  delay={:.3}ms{mark}{changes}",
                e.object.kind(),
                e.object.key(),
                e.object.uid(),
                delay.as_secs_f64() * 1000.0
            )
        } else {
            writeln!(
                self.out,
                "{time}  {kind}  {rv}  {}{mark}{changes}",
                e.object.key()
            )
        }
    }

    fn bookmark(&mut self, e: &BookmarkEvent<'_>) -> std::io::Result<()> {
        let time = local_time(e.received_at);
        let kind = self.type_column("BOOKMARK");
        let rv = self.rv_column(e.resource_version);
        let mark = if e.initial_events_end {
            "  (initial-events-end)"
        } else {
            ""
        };
        writeln!(self.out, "{time}  {kind}  {}{mark}", rv.trim_end())
    }

    fn notice(&mut self, notice: Notice<'_>, at: SystemTime) -> std::io::Result<()> {
        self.out.flush()?;
        let label = self.paint("NOTICE  ", "\x1b[35m");
        writeln!(
            self.err,
            "{}  {label}  {}",
            local_time(at),
            describe_notice(notice)
        )
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()?;
        self.err.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::object::RawObject;
    use serde_json::value::RawValue;

    #[test]
    fn events_go_to_stdout_and_notices_to_stderr_without_color() {
        let raw = RawValue::from_string(
            r#"{"kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"12"}}"#
                .into(),
        )
        .unwrap();
        let object = RawObject::parse(raw, None).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut p = TextPrinter::new(&mut out, &mut err, false, false);
        let at = SystemTime::now();
        p.object(&ObjectEvent {
            event_type: crate::informer::transition::EventType::Deleted,
            origin: Origin::Relist,
            object: &object,
            received_at: at,
            changes: None,
        })
        .unwrap();
        p.bookmark(&BookmarkEvent {
            resource_version: "13",
            initial_events_end: false,
            received_at: at,
        })
        .unwrap();
        let opened = ReflectorEvent::WatchOpened {
            resource_version: "13".into(),
        };
        p.notice(
            Notice::Transition(crate::recording::Transition::of(&opened).unwrap()),
            at,
        )
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        let err = String::from_utf8(err).unwrap();
        assert!(out.contains("DELETED   12        ns/a  (relist)"), "{out}");
        assert!(out.contains("BOOKMARK  13\n"), "{out}");
        assert!(!out.contains('\x1b'));
        assert!(err.contains("watch opened from RV 13"), "{err}");
    }

    #[test]
    fn a_close_followed_by_a_relist_says_so_instead_of_resuming() {
        use crate::informer::transition::CloseReason;
        let closed = |reason| ReflectorEvent::WatchClosed {
            resource_version: "11".into(),
            reason,
            retry_in: Some(std::time::Duration::from_millis(800)),
        };
        let text = |event: &ReflectorEvent| {
            describe_notice(Notice::Transition(
                crate::recording::Transition::of(event).unwrap(),
            ))
        };
        assert_eq!(
            text(&closed(CloseReason::TooLarge(
                "a watch event of more than 64 MiB was refused by size".into()
            ))),
            "watch closed at RV 11: a watch event of more than 64 MiB was refused by size, \
             relisting in 800ms"
        );
        assert_eq!(
            text(&closed(CloseReason::ServerClosed)),
            "watch closed at RV 11: closed by the server; resuming from RV 11 in 800ms"
        );
    }

    #[test]
    fn a_410_says_where_the_servers_history_starts_when_its_message_says() {
        let expired = |message: &str| ReflectorEvent::Expired {
            resource_version: "202".into(),
            message: message.into(),
            oldest_resource_version: crate::informer::transition::oldest_resource_version(message),
        };
        let text = |e: &ReflectorEvent| {
            describe_notice(Notice::Transition(
                crate::recording::Transition::of(e).unwrap(),
            ))
        };
        let restarted = text(&expired("too old resource version: 202 (203)"));
        assert!(
            restarted
                .contains("the server's history now starts at RV 203 (the API server restarted"),
            "{restarted}"
        );
        assert!(
            restarted.ends_with("relisting to find what changed"),
            "{restarted}"
        );
        let other = text(&expired("Expired"));
        assert_eq!(
            other,
            "RV 202 expired (410 Gone: Expired); relisting to find what changed"
        );
    }
}
