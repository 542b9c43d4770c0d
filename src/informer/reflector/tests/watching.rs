//! Watching: the RV that events and bookmarks advance, re-opening at once or after the backoff,
//! very short watches, and watches presumed dead.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_paginated_list_then_a_watch_from_its_rv_advanced_by_events_and_bookmarks_and_reopened_at_once_after_a_clean_end(
) {
    let script = Script::default()
        .list(vec![obj("a", 1), obj("b", 2)], "10", Some("page-2"))
        .list(vec![obj("c", 3)], "10", None)
        .watch(vec![
            added("d", 11),
            modified("a", 12),
            bookmark(15, false),
            Step::End,
        ])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let listed = run.pull(5).await;
    assert_eq!(run.reflector.resource_version(), Some("10"));
    let added = run.pull(1).await;
    assert_eq!(run.reflector.resource_version(), Some("11"));
    let rest = run.pull(4).await;
    assert_eq!(run.reflector.resource_version(), Some("15"));

    let events = [listed, added, rest].concat();
    assert_eq!(
        shown(&events),
        [
            "Listed ns/a@1",
            "Listed ns/b@2",
            "Listed ns/c@3",
            "ListComplete rv=10 objects=3 pages=2",
            "WatchOpened rv=10",
            "Watched ADDED ns/d@11",
            "Watched MODIFIED ns/a@12",
            "Bookmark rv=15",
            "WatchClosed rv=15 ServerClosed, retry at once",
            "WatchOpened rv=15",
        ]
    );
    assert!(events.iter().all(|(at, _)| at.is_zero()), "a wait");
    assert_eq!(
        run.requests(),
        [
            list(Some(2), None),
            list(Some(2), Some("page-2")),
            watch("10"),
            watch("15"),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn without_a_timeout_of_the_callers_each_watch_asks_for_5_to_10_minutes_and_is_presumed_dead_5s_after_it(
) {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![Step::Hang])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, ReflectorConfig::informer(Start::List, 0));

    let events = run.pull(4).await;

    assert_eq!(
        shown(&events),
        [
            "ListComplete rv=10 objects=0 pages=1",
            "WatchOpened rv=10",
            "WatchClosed rv=10 ConnectionLost, retry at once",
            "WatchOpened rv=10",
        ]
    );
    let requests = run.requests();
    assert_eq!(requests[0], list(Some(0), None));
    let timeouts: Vec<u64> = requests[1..]
        .iter()
        .map(|r| match r {
            Request::Watch {
                timeout_seconds: Some(t),
                ..
            } => *t,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(timeouts.len(), 2);
    assert!(
        timeouts.iter().all(|t| (300..600).contains(t)),
        "{timeouts:?}"
    );
    assert_eq!(events[2].0, Duration::from_secs(timeouts[0] + 5));
}

#[tokio::test(start_paused = true)]
async fn a_connection_cut_after_events_resumes_at_once_from_the_last_rv() {
    let script = Script::default()
        .list(vec![obj("a", 1)], "10", None)
        .watch(vec![
            Step::Wait(Duration::from_secs(30)),
            modified("a", 11),
            Step::Cut,
        ])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(6).await;

    assert_eq!(
        shown(&events),
        [
            "Listed ns/a@1",
            "ListComplete rv=10 objects=1 pages=1",
            "WatchOpened rv=10",
            "Watched MODIFIED ns/a@11",
            "WatchClosed rv=11 ConnectionLost, retry at once",
            "WatchOpened rv=11",
        ]
    );
    assert!(matches!(
        &events[4].1,
        ReflectorEvent::WatchClosed { reason: CloseReason::ConnectionLost(r), .. }
            if r.contains("connection reset by peer")
    ));
    assert_eq!(events[5].0, Duration::from_secs(30));
    assert_eq!(
        run.requests(),
        [list(Some(2), None), watch("10"), watch("11")]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_cut_or_ended_within_a_second_without_events_is_very_short_and_waits_out_a_doubling_backoff(
) {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![Step::Cut])
        .watch(vec![Step::Wait(Duration::from_millis(500)), Step::End])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(6).await;

    assert_eq!(
        shown(&events),
        [
            "ListComplete rv=10 objects=0 pages=1",
            "WatchOpened rv=10",
            "WatchClosed rv=10 ConnectionLost, retry later",
            "WatchOpened rv=10",
            "WatchClosed rv=10 ServerClosed, retry later",
            "WatchOpened rv=10",
        ]
    );
    let (first, second) = (retry_in(&events[2].1), retry_in(&events[4].1));
    assert_backoff(first, 1);
    assert_backoff(second, 2);
    assert_waited(events[2].0, events[3].0, first);
    assert_waited(events[3].0, events[4].0, Duration::from_millis(500));
    assert_waited(events[4].0, events[5].0, second);
    assert_eq!(
        run.requests(),
        [list(Some(2), None), watch("10"), watch("10"), watch("10")]
    );
}

#[tokio::test(start_paused = true)]
async fn a_quiet_watch_that_lasted_a_second_is_not_very_short_and_is_reopened_at_once() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![Step::Wait(Duration::from_secs(1)), Step::End])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(4).await;

    assert_eq!(
        shown(&events)[2..],
        [
            "WatchClosed rv=10 ServerClosed, retry at once",
            "WatchOpened rv=10"
        ]
    );
    assert_eq!(events[3].0, Duration::from_secs(1));
}

#[tokio::test(start_paused = true)]
async fn a_watch_that_asked_for_one_second_is_very_short_only_under_half_of_it() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![Step::Wait(Duration::from_millis(499)), Step::End])
        .watch(vec![Step::Wait(Duration::from_millis(500)), Step::End])
        .watch(vec![Step::Hang]);
    let config = ReflectorConfig {
        server_timeout: Some(1),
        ..config(Start::List)
    };
    let mut run = Run::new(script, config);

    let events = run.pull(6).await;

    assert_eq!(
        shown(&events)[2..],
        [
            "WatchClosed rv=10 ServerClosed, retry later",
            "WatchOpened rv=10",
            "WatchClosed rv=10 ServerClosed, retry at once",
            "WatchOpened rv=10",
        ]
    );
    assert_waited(events[2].0, events[3].0, retry_in(&events[2].1));
}

#[tokio::test(start_paused = true)]
async fn a_bookmark_alone_keeps_a_watch_from_being_very_short_as_in_client_go() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![bookmark(12, false), Step::End])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(5).await;

    assert_eq!(
        shown(&events)[2..],
        [
            "Bookmark rv=12",
            "WatchClosed rv=12 ServerClosed, retry at once",
            "WatchOpened rv=12",
        ]
    );
    assert!(events[4].0.is_zero());
}

#[tokio::test(start_paused = true)]
async fn two_healthy_minutes_reset_the_backoff_of_very_short_watches() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![Step::Cut])
        .watch(vec![Step::Cut])
        .watch(vec![
            Step::Wait(Duration::from_secs(120)),
            modified("a", 11),
            Step::Cut,
        ])
        .watch(vec![Step::Cut])
        .watch(vec![Step::Hang]);
    let config = ReflectorConfig {
        server_timeout: Some(300),
        ..config(Start::List)
    };
    let mut run = Run::new(script, config);

    let events = run.pull(11).await;

    assert_eq!(
        shown(&events)[2..],
        [
            "WatchClosed rv=10 ConnectionLost, retry later",
            "WatchOpened rv=10",
            "WatchClosed rv=10 ConnectionLost, retry later",
            "WatchOpened rv=10",
            "Watched MODIFIED ns/a@11",
            "WatchClosed rv=11 ConnectionLost, retry at once",
            "WatchOpened rv=11",
            "WatchClosed rv=11 ConnectionLost, retry later",
            "WatchOpened rv=11",
        ]
    );
    assert_backoff(retry_in(&events[2].1), 1);
    assert_backoff(retry_in(&events[4].1), 2);
    assert_backoff(retry_in(&events[9].1), 1);
}

/// [`config`] with watches that ask for 10 s: presumed dead 15 s after they open.
fn ten_second_watches() -> ReflectorConfig {
    ReflectorConfig {
        server_timeout: Some(10),
        ..config(Start::List)
    }
}

#[tokio::test(start_paused = true)]
async fn a_watch_that_hangs_is_presumed_dead_15s_after_it_opened_and_resumed_at_once_from_the_last_rv(
) {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![
            Step::Wait(Duration::from_secs(3)),
            modified("a", 11),
            Step::Hang,
        ])
        .watch(vec![Step::Hang])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, ten_second_watches());

    let events = run.pull(7).await;

    assert_eq!(
        shown(&events)[1..],
        [
            "WatchOpened rv=10",
            "Watched MODIFIED ns/a@11",
            "WatchClosed rv=11 ConnectionLost, retry at once",
            "WatchOpened rv=11",
            "WatchClosed rv=11 ConnectionLost, retry at once",
            "WatchOpened rv=11",
        ]
    );
    let at: Vec<u64> = events.iter().map(|(at, _)| at.as_secs()).collect();
    assert_eq!(at, [0, 0, 3, 15, 15, 30, 30]);
    assert!(events[3..].iter().all(|(at, _)| at.subsec_nanos() == 0));
    assert!(matches!(
        &events[3].1,
        ReflectorEvent::WatchClosed { reason: CloseReason::ConnectionLost(r), .. }
            if r.contains("presumed dead") && r.contains("timeoutSeconds (10s)")
    ));
    let watch_10s = |rv| watch_asking(rv, 10, false);
    assert_eq!(
        run.requests(),
        [
            list(Some(2), None),
            watch_10s("10"),
            watch_10s("11"),
            watch_10s("11")
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_that_keeps_sending_events_is_still_cut_15s_after_it_opened_one_limit_per_watch_not_per_event(
) {
    let every_two_seconds = (11..=20)
        .flat_map(|rv| [Step::Wait(Duration::from_secs(2)), modified("a", rv)])
        .collect();
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(every_two_seconds)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, ten_second_watches());

    let events = run.pull(11).await;

    let shown = shown(&events);
    let watched: Vec<String> = (11..=17)
        .map(|rv| format!("Watched MODIFIED ns/a@{rv}"))
        .collect();
    assert_eq!(shown[2..9], watched);
    assert_eq!(
        shown[9..],
        [
            "WatchClosed rv=17 ConnectionLost, retry at once",
            "WatchOpened rv=17"
        ]
    );
    assert_eq!(events[8].0, Duration::from_secs(14));
    assert_eq!(events[9].0, Duration::from_secs(15));
    assert_eq!(events[10].0, Duration::from_secs(15));
}

#[tokio::test(start_paused = true)]
async fn an_error_event_other_than_410_reopens_the_watch_from_the_last_rv_after_the_backoff() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![modified("a", 11), error_event(500, "InternalError")])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(5).await;

    assert_eq!(
        shown(&events)[2..],
        [
            "Watched MODIFIED ns/a@11",
            "WatchClosed rv=11 ErrorEvent 500, retry later",
            "WatchOpened rv=11",
        ]
    );
    assert_backoff(retry_in(&events[3].1), 1);
    assert_waited(events[3].0, events[4].0, retry_in(&events[3].1));
}
