//! The session's loop fed scripted reflector events, without a server: what it shows and in
//! which order, what ends it (--until-rv, --max-events), relists, and reactions (--react).

use super::*;
use crate::informer::object::RawObject;
use crate::informer::transition::WatchFailure;
use crate::react::Fate;
use crate::tail::sink::{ReactionShown, Shown};
use std::time::SystemTime;

/// What a session showed, a line each.
#[derive(Default)]
struct Lines(Vec<String>);

impl Sink for Lines {
    fn start(&mut self, feed: usize) -> std::io::Result<()> {
        self.0.push(format!("{feed} start"));
        Ok(())
    }
    fn object(&mut self, feed: usize, shown: &Shown<'_>) -> std::io::Result<()> {
        self.0.push(format!(
            "{feed} {} {:?} {}@{} {}",
            shown.event_type.as_str(),
            shown.origin,
            shown.object.name(),
            shown.object.resource_version(),
            shown.changes.unwrap_or("-")
        ));
        Ok(())
    }
    fn bookmark(
        &mut self,
        feed: usize,
        resource_version: &str,
        _: bool,
        _: SystemTime,
    ) -> std::io::Result<()> {
        self.0.push(format!("{feed} BOOKMARK {resource_version}"));
        Ok(())
    }
    fn event(&mut self, feed: usize, event: &ReflectorEvent) -> std::io::Result<()> {
        if let ReflectorEvent::ListComplete {
            resource_version, ..
        } = event
        {
            self.0
                .push(format!("{feed} list-complete {resource_version}"));
        }
        Ok(())
    }
    fn reaction(&mut self, shown: &ReactionShown<'_>) -> std::io::Result<()> {
        let fate = match &shown.resolved.fate {
            Fate::Reacted { took, .. } => format!("reacted in {}ms", took.as_millis()),
            Fate::Superseded { newer, .. } => format!("superseded by {newer}"),
            Fate::TimedOut => "timed out".to_string(),
            Fate::Deleted => "deleted".to_string(),
        };
        self.0.push(format!(
            "{} {}@{} {fate} (shown by {:?})",
            shown.feed, shown.resolved.write.key, shown.resolved.write.generation, shown.shown_by
        ));
        Ok(())
    }
    fn namespace_missing(&mut self, feed: usize) -> std::io::Result<()> {
        self.0.push(format!("{feed} namespace missing"));
        Ok(())
    }
    fn object_missing(&mut self, feed: usize, name: &str) -> std::io::Result<()> {
        self.0.push(format!("{feed} {name} missing"));
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn config_map(name: &str, rv: &str, value: &str) -> RawObject {
    let json = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "app", "uid": format!("uid-{name}"),
            "resourceVersion": rv}, "data": {"k": value}});
    let raw = serde_json::value::RawValue::from_string(json.to_string()).unwrap();
    RawObject::parse(raw, None).unwrap()
}

fn listed(object: RawObject, relist: bool) -> ReflectorEvent {
    ReflectorEvent::Listed {
        object,
        received_at: SystemTime::now(),
        relist,
    }
}

fn list_complete(rv: &str, objects: usize, relist: bool) -> ReflectorEvent {
    ReflectorEvent::ListComplete {
        resource_version: rv.into(),
        objects,
        pages: 1,
        relist,
    }
}

fn session(show_initial: bool, until_rv: Option<&str>, max_events: Option<u64>) -> Session {
    let config = SessionConfig {
        show_initial,
        bookmarks: true,
        detail: Detail {
            changes: true,
            diff: None,
        },
        max_events,
        until_rv: until_rv.map(|rv| ResourceVersion::parse(rv).unwrap()),
        timeout: None,
        run_for: None,
        filter: Filter::default(),
    };
    let feed = Feed::new("configmap".into(), "configmaps".into(), false, false, None);
    Session::new(config, vec![feed], None)
}

/// Hands `events` to the session as feed 0's, as `run` does.
fn feed_in(session: &mut Session, events: Vec<ReflectorEvent>) -> Lines {
    let mut lines = Lines::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    for event in events {
        runtime
            .block_on(session.step(0, event, &mut lines))
            .unwrap();
    }
    lines
}

#[test]
fn a_list_a_modified_and_a_bookmark_show_in_order_and_the_bookmark_reaches_until_rv() {
    let mut s = session(true, Some("10"), None);
    let modified = ReflectorEvent::Watched {
        event_type: EventType::Modified,
        object: config_map("a", "5", "2"),
        received_at: SystemTime::now(),
    };
    let bookmark = ReflectorEvent::Bookmark {
        resource_version: "10".into(),
        initial_events_end: false,
        received_at: SystemTime::now(),
    };
    let lines = feed_in(
        &mut s,
        vec![
            listed(config_map("a", "1", "1"), false),
            list_complete("2", 1, false),
            modified,
        ],
    );
    assert_eq!(
        lines.0,
        [
            "0 start",
            "0 ADDED Initial a@1 -",
            "0 list-complete 2",
            "0 MODIFIED Watch a@5 data.k 1→2"
        ]
    );
    assert!(!s.until_reached);
    let lines = feed_in(&mut s, vec![bookmark]);
    assert_eq!(lines.0, ["0 BOOKMARK 10"]);
    assert!(s.until_reached);
    let stats = s.feeds()[0].stats();
    assert_eq!((stats.objects(), stats.bookmarks), (2, 1));
    assert_eq!(s.newest(), "the newest resourceVersion seen was 10");
}

#[test]
fn with_initial_none_the_first_list_is_hidden_and_a_relist_shows_what_changed_while_away() {
    let mut s = session(false, None, Some(2));
    let lines = feed_in(
        &mut s,
        vec![
            listed(config_map("a", "1", "1"), false),
            list_complete("1", 1, false),
            listed(config_map("a", "3", "2"), true),
            listed(config_map("b", "4", "1"), true),
            list_complete("4", 2, true),
        ],
    );
    assert_eq!(
        lines.0,
        [
            "0 start",
            "0 list-complete 1",
            "0 MODIFIED Relist a@3 data.k 1→2",
            "0 ADDED Relist b@4 -",
            "0 list-complete 4"
        ]
    );
    assert_eq!(s.feeds()[0].stats().relists, 1);
    assert!(s.full(), "--max-events 2 is reached");
    assert_eq!(
        s.missed_end(),
        "--timeout 0s reached before 2 object events arrived (2 did); the newest \
         resourceVersion seen was 4"
    );
}

/// A Deployment as its watch shows it: `generation`, and `observed` in its status.
fn deployment(rv: &str, generation: i64, observed: i64) -> RawObject {
    let json = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "app", "uid": "uid-web",
            "resourceVersion": rv, "generation": generation},
        "status": {"observedGeneration": observed}});
    let raw = serde_json::value::RawValue::from_string(json.to_string()).unwrap();
    RawObject::parse(raw, None).unwrap()
}

fn replica_set(rv: &str) -> RawObject {
    let json = serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": "web-7d9", "namespace": "app", "uid": "uid-rs",
            "resourceVersion": rv, "ownerReferences": [{"uid": "uid-web"}]}});
    let raw = serde_json::value::RawValue::from_string(json.to_string()).unwrap();
    RawObject::parse(raw, None).unwrap()
}

fn modified(object: RawObject, received_at: SystemTime) -> ReflectorEvent {
    ReflectorEvent::Watched {
        event_type: EventType::Modified,
        object,
        received_at,
    }
}

/// A session of Deployments with `--react reaction`, and for `owned:` a second feed of
/// ReplicaSets watched only for the reactions.
fn reacting(reaction: &str, timeout: Duration) -> Session {
    use crate::tail::react::{ReactConfig, Reacting};
    let mut s = session(true, None, None);
    let config = ReactConfig {
        reaction: crate::react::Reaction::parse(reaction).unwrap(),
        timeout,
    };
    let owned = reaction.starts_with("owned:").then_some(1);
    if owned.is_some() {
        let rs = Feed::new(
            "replicaset.apps".into(),
            "replicasets.apps".into(),
            false,
            false,
            None,
        );
        s.feeds.push(rs);
    }
    s.with_reactions(Reacting::new(config, 0, owned))
}

#[test]
fn a_write_others_make_is_shown_with_its_reaction_after_the_event_that_showed_it() {
    let mut s = reacting("observed-generation", Duration::from_secs(30));
    let t0 = SystemTime::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let lines = feed_in(
        &mut s,
        vec![
            listed(deployment("1", 1, 1), false),
            list_complete("1", 1, false),
            modified(deployment("2", 2, 1), at(10)),
            modified(deployment("3", 3, 1), at(20)),
            modified(deployment("4", 3, 3), at(95)),
        ],
    );
    assert_eq!(
        lines.0[3..],
        [
            // metadata.generation is bookkeeping: not said among the fields changed.
            "0 MODIFIED Watch web@2 ",
            "0 MODIFIED Watch web@3 ",
            "0 MODIFIED Watch web@4 status.observedGeneration 1→3",
            "0 app/web@2 superseded by 3 (shown by Some(0))",
            "0 app/web@3 reacted in 75ms (shown by Some(0))",
        ]
    );
    let (_, stats) = s.reactions().unwrap();
    assert_eq!((stats.writes(), stats.reacted, stats.superseded), (2, 1, 1));
}

#[test]
fn an_owned_resource_watched_for_reactions_shows_none_of_its_own_and_a_silent_one_times_out() {
    let mut s = reacting("owned:rs", Duration::from_secs(30));
    let long_ago = SystemTime::now() - Duration::from_secs(60);
    let lines = feed_in(
        &mut s,
        vec![
            listed(deployment("1", 1, 1), false),
            list_complete("1", 1, false),
        ],
    );
    assert_eq!(lines.0.len(), 3);
    let mut lines = Lines::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let t0 = SystemTime::now() - Duration::from_secs(1);
    let events = [
        (1, listed(replica_set("1"), false)),
        (1, list_complete("1", 1, false)),
        (0, modified(deployment("5", 2, 1), t0)),
        (
            1,
            modified(replica_set("6"), t0 + Duration::from_millis(12)),
        ),
        (0, modified(deployment("7", 3, 2), long_ago)),
    ];
    for (feed, event) in events {
        runtime.block_on(s.step(feed, event, &mut lines)).unwrap();
    }
    assert_eq!(
        lines.0,
        [
            "0 MODIFIED Watch web@5 ",
            "0 app/web@2 reacted in 12ms (shown by Some(1))",
            "0 MODIFIED Watch web@7 status.observedGeneration 1→2",
        ]
    );
    assert!(s.reaction_deadline().is_some());
    s.expire_reactions(&mut lines).unwrap();
    assert_eq!(
        lines.0.last().unwrap(),
        "0 app/web@3 timed out (shown by None)"
    );
    assert_eq!(s.shown_feeds().count(), 1);
    let (_, stats) = s.reactions().unwrap();
    assert_eq!((stats.reacted, stats.timed_out, stats.waiting), (1, 1, 0));
}

#[test]
fn a_replay_held_ahead_of_the_server_ends_with_for_as_an_error_naming_both_rvs_until_it_opens() {
    let mut s = session(false, None, None);
    s.config.run_for = Some(Duration::from_secs(8));
    assert!(matches!(s.time_is_up(), Ok(Stop::Done)));
    let ahead = ReflectorEvent::WatchFailed {
        resource_version: "99999999".into(),
        error: WatchFailure::AheadOfServer {
            current: "594".into(),
            resource: "configmaps".into(),
        },
        retry_in: Duration::from_secs(1),
    };
    feed_in(&mut s, vec![ahead]);
    let err = s.time_is_up().unwrap_err().to_string();
    assert_eq!(
        err,
        "--for 8s ended before the replay began: resourceVersion 99999999 stayed ahead of the \
         server's current one (594, from a LIST of configmaps); pass a resourceVersion this \
         cluster printed for configmaps"
    );
    assert!(
        s.missed_end()
            .ends_with("the replay never began: resourceVersion 99999999 stayed ahead of the server's (594, configmaps)"),
        "{}",
        s.missed_end()
    );
    let opened = ReflectorEvent::WatchOpened {
        resource_version: "99999999".into(),
    };
    feed_in(&mut s, vec![opened]);
    assert!(matches!(s.time_is_up(), Ok(Stop::Done)));
}
