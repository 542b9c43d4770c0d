//! The sentences tail's notices read as: a reflector's transitions (a LIST's end, a watch
//! opened, closed, refused or expired, a fallback, the server going back in time) and the
//! start and not-found notices, in text output, and in a JSON notice's `reason` and `error`.

use crate::format::count;
use crate::format::wait;
use crate::informer::transition::{
    CloseReason, FallbackReason, ReflectorEvent, RestartReason, WatchFailure,
};
use crate::recording::{Missing, Notice, StartNotice, Transition};
use std::time::Duration;

/// The sentence a notice reads as in text output.
pub fn describe_notice(notice: Notice<'_>) -> String {
    match notice {
        Notice::Start(StartNotice {
            resource,
            namespace,
            server,
            ..
        }) => match namespace {
            Some(ns) => format!("tailing {resource} in namespace \"{ns}\" on {server}"),
            None => format!("tailing {resource} on {server}"),
        },
        Notice::Transition { transition, .. } => describe_transition(transition),
        Notice::NotFound { watch, missing } => {
            let ns = watch.namespace.as_deref().unwrap_or_default();
            match missing {
                Missing::Namespace => format!(
                    "namespace \"{ns}\" not found: nothing to list; watching in case it is \
                     created (kubectl get namespaces lists those that exist)"
                ),
                // As the server names it in its NotFound: `deployments.apps "web" not found`.
                Missing::Object { name } => {
                    let resource = &watch.resource;
                    match &watch.namespace {
                        Some(ns) => format!(
                            "{resource} \"{name}\" not found in namespace \"{ns}\": watching \
                             for it to appear"
                        ),
                        None => {
                            format!("{resource} \"{name}\" not found: watching for it to appear")
                        }
                    }
                }
            }
        }
    }
}

/// The sentence a reflector's transition reads as in text output.
pub fn describe_transition(transition: Transition<'_>) -> String {
    match transition.event() {
        ReflectorEvent::ListComplete {
            resource_version,
            objects,
            pages,
            relist,
        } => describe_list_complete(resource_version, *objects, *pages, *relist),
        ReflectorEvent::Fallback { reason } => fallback_reason(reason),
        ReflectorEvent::ListRestarted { reason, objects } => format!(
            "the LIST was cut short after {} ({}); listing again to find what changed",
            count(*objects as u64, "object"),
            restart_reason(reason)
        ),
        // A watch-list names no RV: the server starts from its current state.
        ReflectorEvent::WatchOpened { resource_version } if resource_version.is_empty() => {
            "watch-list opened: the current state comes first, as initial events, then changes"
                .to_string()
        }
        ReflectorEvent::WatchOpened { resource_version } => {
            format!("watch opened from RV {resource_version}")
        }
        ReflectorEvent::WatchClosed {
            resource_version,
            reason,
            retry_in,
        } => describe_watch_closed(resource_version, reason, *retry_in),
        ReflectorEvent::ListFailed { error, retry_in } => format!(
            "{error}; listing again from the failed page in {}",
            wait(*retry_in)
        ),
        ReflectorEvent::WatchFailed {
            resource_version,
            error,
            retry_in,
        } => format!(
            "{}; retrying from RV {resource_version} in {}",
            watch_failure(resource_version, error),
            wait(*retry_in)
        ),
        ReflectorEvent::Expired {
            resource_version,
            message,
            oldest_resource_version,
        } => describe_expired(
            resource_version,
            message,
            oldest_resource_version.as_deref(),
        ),
        ReflectorEvent::WentBack { newest, served, on } => describe_went_back(newest, served, on),
        // Never a notice (`Transition::of` refuses them): records of their own.
        ReflectorEvent::Listed { .. }
        | ReflectorEvent::Watched { .. }
        | ReflectorEvent::Bookmark { .. } => String::new(),
    }
}

/// A request that brought an RV older than one seen before: the server's state went back.
fn describe_went_back(
    newest: &str,
    served: &str,
    on: &crate::informer::transition::BackOn,
) -> String {
    use crate::informer::transition::BackOn;
    let what = match on {
        BackOn::List => format!("the LIST answered at RV {served}"),
        BackOn::Watch { from } => format!("the watch from RV {from} brought RV {served}"),
    };
    format!(
        "went back in time: {what}, older than RV {newest} seen before; this answer's state is \
         older than an earlier one's (an API server whose watch cache lags, reached through a \
         load balancer, or a proxy), and its objects are taken as they come"
    )
}

/// A LIST's end: a watch-list's initial events (no pages), or the objects a LIST or a relist
/// found in its pages.
fn describe_list_complete(
    resource_version: &str,
    objects: usize,
    pages: usize,
    relist: bool,
) -> String {
    if pages == 0 {
        return format!(
            "received {} by watch-list, synced at RV {resource_version}",
            count(objects as u64, "initial event")
        );
    }
    format!(
        "{} {} in {} at RV {resource_version}",
        if relist { "relisted" } else { "listed" },
        count(objects as u64, "object"),
        count(pages as u64, "page")
    )
}

/// A watch's end, and whether and when it resumes.
fn describe_watch_closed(
    resource_version: &str,
    reason: &CloseReason,
    retry_in: Option<Duration>,
) -> String {
    match retry_in {
        // A malformed or oversized event is followed by a relist, not a resume.
        Some(d) if reason.relists() => format!(
            "watch closed at RV {resource_version}: {reason} in {}",
            wait(d)
        ),
        Some(d) if !d.is_zero() => format!(
            "watch closed at RV {resource_version}: {reason}; resuming from RV {resource_version} in {}",
            wait(d)
        ),
        Some(_) => format!(
            "watch closed at RV {resource_version}: {reason}; resuming from RV {resource_version}"
        ),
        None => format!("watch closed at RV {resource_version}: {reason}"),
    }
}

/// A 410 Gone: the RV is older than the server's history, whose start the message may name.
fn describe_expired(resource_version: &str, message: &str, oldest: Option<&str>) -> String {
    match oldest {
        Some(oldest) => format!(
            "RV {resource_version} expired (410 Gone: {message}): the server's history now starts \
             at RV {oldest} (the API server restarted and its watch cache starts there, or older \
             history was compacted); relisting to find what changed"
        ),
        None => format!(
            "RV {resource_version} expired (410 Gone: {message}); relisting to find what changed"
        ),
    }
}

/// Why the reflector fell back from a watch-list to LIST + WATCH, as a sentence.
pub fn fallback_reason(reason: &FallbackReason) -> String {
    match reason {
        FallbackReason::Refused(error) => format!(
            "the server refused the watch-list ({error}); falling back to LIST + WATCH, as \
             client-go does"
        ),
        FallbackReason::NoEndBookmark {
            waited,
            initial_events,
        } => {
            let after = match initial_events {
                0 => "of opening the watch".to_string(),
                n => format!("of its last initial event ({n} came)"),
            };
            format!(
                "the server accepted the watch-list but sent no k8s.io/initial-events-end \
                 bookmark within {} {after}: something on the way (an auth proxy, an \
                 aggregated API server) may drop bookmarks; falling back to LIST + WATCH \
                 (client-go falls back only when the watch-list is refused: its informer would \
                 wait here without end and never sync)",
                crate::format::duration(*waited)
            )
        }
    }
}

/// Why a LIST (or a watch-list's initial events) started over, as a clause.
pub fn restart_reason(reason: &RestartReason) -> String {
    match reason {
        RestartReason::ContinueExpired(error) => error.clone(),
        RestartReason::InitialEventsUnended { waited } => format!(
            "watch-list: no initial-events-end bookmark within {}",
            crate::format::duration(*waited)
        ),
        RestartReason::InitialEventsClosed(reason) => format!("watch-list: {reason}"),
        RestartReason::InitialEventsExpired { message } => {
            format!("watch-list: 410 Gone: {message}")
        }
    }
}

/// Why a watch from `resource_version` was not opened, as a clause.
pub fn watch_failure(resource_version: &str, failure: &WatchFailure) -> String {
    match failure {
        WatchFailure::Error(error) => error.clone(),
        WatchFailure::AheadOfServer { current, resource } => format!(
            "resourceVersion {resource_version} is ahead of the server's current one ({current}, \
             from a LIST of {resource}): kube-apiserver would keep a watch from it open and send \
             nothing until the resource's resourceVersion passes {resource_version}, so the watch \
             is not opened yet (an RV of another cluster or resource, or a typo?)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notices_count_in_words_and_a_watch_list_says_it_has_no_rv() {
        let say = |event: ReflectorEvent| describe_transition(Transition::of(&event).unwrap());
        let listed = |objects, pages| ReflectorEvent::ListComplete {
            resource_version: "5".into(),
            objects,
            pages,
            relist: false,
        };
        assert_eq!(say(listed(1, 1)), "listed 1 object in 1 page at RV 5");
        assert_eq!(say(listed(0, 1)), "listed 0 objects in 1 page at RV 5");
        assert_eq!(say(listed(2, 3)), "listed 2 objects in 3 pages at RV 5");
        assert_eq!(
            say(listed(1, 0)),
            "received 1 initial event by watch-list, synced at RV 5"
        );
        let opened = |rv: &str| ReflectorEvent::WatchOpened {
            resource_version: rv.into(),
        };
        assert_eq!(say(opened("13")), "watch opened from RV 13");
        assert!(
            say(opened("")).starts_with("watch-list opened: the current state comes first"),
            "{}",
            say(opened(""))
        );
    }

    #[test]
    fn a_close_followed_by_a_relist_says_so_instead_of_resuming() {
        use crate::informer::transition::CloseReason;
        let closed = |reason| ReflectorEvent::WatchClosed {
            resource_version: "11".into(),
            reason,
            retry_in: Some(std::time::Duration::from_millis(800)),
        };
        let text = |event: &ReflectorEvent| describe_transition(Transition::of(event).unwrap());
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
    fn a_fallback_a_restarted_list_and_a_replay_ahead_of_the_server_read_as_sentences() {
        let text = |event: &ReflectorEvent| describe_transition(Transition::of(event).unwrap());
        let unended = |waited: u64, initial_events| ReflectorEvent::Fallback {
            reason: FallbackReason::NoEndBookmark {
                waited: Duration::from_secs(waited),
                initial_events,
            },
        };
        assert_eq!(
            text(&unended(10, 2)),
            "the server accepted the watch-list but sent no k8s.io/initial-events-end bookmark \
             within 10s of its last initial event (2 came): something on the way (an auth proxy, \
             an aggregated API server) may drop bookmarks; falling back to LIST + WATCH \
             (client-go falls back only when the watch-list is refused: its informer would wait \
             here without end and never sync)"
        );
        assert!(text(&unended(3, 0)).contains(" within 3s of opening the watch: "));
        assert_eq!(
            text(&ReflectorEvent::Fallback {
                reason: FallbackReason::Refused("the server says Invalid".into())
            }),
            "the server refused the watch-list (the server says Invalid); falling back to LIST + \
             WATCH, as client-go does"
        );
        let restarted = |reason| text(&ReflectorEvent::ListRestarted { reason, objects: 2 });
        assert_eq!(
            restarted(RestartReason::InitialEventsUnended {
                waited: Duration::from_secs(10)
            }),
            "the LIST was cut short after 2 objects (watch-list: no initial-events-end bookmark \
             within 10s); listing again to find what changed"
        );
        assert_eq!(
            restarted(RestartReason::InitialEventsClosed(
                CloseReason::ServerClosed
            )),
            "the LIST was cut short after 2 objects (watch-list: closed by the server); listing \
             again to find what changed"
        );
        assert_eq!(
            restarted(RestartReason::InitialEventsExpired {
                message: "too old".into()
            }),
            "the LIST was cut short after 2 objects (watch-list: 410 Gone: too old); listing \
             again to find what changed"
        );
        assert_eq!(
            restarted(RestartReason::ContinueExpired("410 Expired".into())),
            "the LIST was cut short after 2 objects (410 Expired); listing again to find what \
             changed"
        );
        assert_eq!(
            text(&ReflectorEvent::WatchFailed {
                resource_version: "100".into(),
                error: WatchFailure::AheadOfServer {
                    current: "50".into(),
                    resource: "configmaps".into()
                },
                retry_in: Duration::from_millis(800),
            }),
            "resourceVersion 100 is ahead of the server's current one (50, from a LIST of \
             configmaps): kube-apiserver would keep a watch from it open and send nothing until \
             the resource's resourceVersion passes 100, so the watch is not opened yet (an RV of \
             another cluster or resource, or a typo?); retrying from RV 100 in 800ms"
        );
    }

    #[test]
    fn a_410_says_where_the_servers_history_starts_when_its_message_says() {
        let expired = |message: &str| ReflectorEvent::Expired {
            resource_version: "202".into(),
            message: message.into(),
            oldest_resource_version: crate::informer::transition::oldest_resource_version(message),
        };
        let text = |e: &ReflectorEvent| describe_transition(Transition::of(e).unwrap());
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
