//! Relisting: 410 in the stream and at watch open, watch-lists and their fallback, continue
//! tokens that expire, malformed events.

use super::*;

/// The script of a LIST at RV 10 whose watch `expires`, then the relist at RV 25.
fn expiring(expires: impl FnOnce(Script) -> Script) -> Script {
    expires(Script::default().list(vec![obj("a", 1)], "10", None))
        .list(vec![obj("a", 11), obj("b", 20)], "25", None)
        .watch(vec![Step::Hang])
}

/// The relist that `events` end with: after one backoff from `expired_at`, a relist and a watch
/// from its RV.
fn assert_relisted_after_one_backoff(events: &[(Duration, ReflectorEvent)], expired_at: Duration) {
    let n = events.len();
    assert_eq!(
        shown(&events[n - 4..]),
        [
            "Listed ns/a@11 (relist)",
            "Listed ns/b@20 (relist)",
            "ListComplete rv=25 objects=2 pages=1 (relist)",
            "WatchOpened rv=25",
        ]
    );
    assert_backoff(events[n - 4].0 - expired_at, 1);
}

#[tokio::test(start_paused = true)]
async fn a_410_error_event_in_the_stream_expires_then_relists_after_one_backoff_and_watches_from_the_relists_rv(
) {
    let script = expiring(|s| s.watch(vec![modified("a", 11), error_event(410, "Expired")]));
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(9).await;

    assert_eq!(
        shown(&events[..5]),
        [
            "Listed ns/a@1",
            "ListComplete rv=10 objects=1 pages=1",
            "WatchOpened rv=10",
            "Watched MODIFIED ns/a@11",
            "Expired rv=11",
        ]
    );
    assert!(matches!(
        &events[4].1,
        ReflectorEvent::Expired { message, oldest_resource_version, .. }
            if message == "too old resource version: 5 (20)"
                && oldest_resource_version.as_deref() == Some("20")
    ));
    assert_relisted_after_one_backoff(&events, events[4].0);
    assert_eq!(
        run.requests(),
        [
            list(Some(2), None),
            watch("10"),
            list(Some(2), None),
            watch("25")
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn an_error_event_with_reason_gone_and_no_code_also_expires_and_relists() {
    let script = expiring(|s| s.watch(vec![error_event(0, "Gone")]));
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(8).await;

    assert_eq!(shown(&events[2..4]), ["WatchOpened rv=10", "Expired rv=10"]);
    assert_relisted_after_one_backoff(&events, events[3].0);
}

#[tokio::test(start_paused = true)]
async fn a_410_when_the_watch_opens_also_expires_and_relists() {
    let script = expiring(|s| s.watch_fails(api_error(410, "Expired")));
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(7).await;

    assert_eq!(show(&events[2].1), "Expired rv=10");
    assert!(matches!(
        &events[2].1,
        ReflectorEvent::Expired { message, .. } if message == "the server says Expired"
    ));
    assert_relisted_after_one_backoff(&events, events[2].0);
    assert_eq!(
        run.requests(),
        [
            list(Some(2), None),
            watch("10"),
            list(Some(2), None),
            watch("25")
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_lists_initial_events_are_listed_without_advancing_the_rv_until_the_bookmark_that_ends_them(
) {
    let script = Script::default()
        .watch(vec![
            added("a", 5),
            added("b", 7),
            bookmark(20, true),
            modified("a", 21),
            Step::End,
        ])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::WatchList));

    let initial = run.pull(3).await;
    assert_eq!(run.reflector.resource_version(), Some(""));
    let rest = run.pull(5).await;

    let events = [initial, rest].concat();
    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=",
            "Listed ns/a@5",
            "Listed ns/b@7",
            "Bookmark rv=20 (initial events end)",
            "ListComplete rv=20 objects=2 pages=0",
            "Watched MODIFIED ns/a@21",
            "WatchClosed rv=21 ServerClosed, retry at once",
            "WatchOpened rv=21",
        ]
    );
    // Only the first watch asks for initial events.
    assert_eq!(run.requests(), [watch_list(), watch("21")]);
}

#[tokio::test(start_paused = true)]
async fn a_refused_watch_list_falls_back_to_list_then_watch() {
    let script = Script::default()
        .watch_fails(api_error(422, "Invalid"))
        .list(vec![obj("a", 1)], "10", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::WatchList));

    let events = run.pull(4).await;

    assert_eq!(
        shown(&events),
        [
            "Fallback",
            "Listed ns/a@1",
            "ListComplete rv=10 objects=1 pages=1",
            "WatchOpened rv=10",
        ]
    );
    assert!(matches!(
        &events[0].1,
        ReflectorEvent::Fallback { reason: FallbackReason::Refused(error) }
            if error.contains("422 Invalid")
    ));
    assert!(events.iter().all(|(at, _)| at.is_zero()), "a wait");
    assert_eq!(
        run.requests(),
        [watch_list(), list(Some(2), None), watch("10")]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_list_without_its_end_bookmark_falls_back_to_a_relist_after_the_timeout() {
    // What a proxy that drops bookmarks makes of a watch-list: the initial events, then
    // nothing. client-go's informer would wait for the end bookmark forever.
    let script = cut_watch_list(vec![added("a", 5), added("b", 7), Step::Hang]);
    let mut run = Run::new(script, config(Start::WatchList));

    let events = run.pull(9).await;

    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=",
            "Listed ns/a@5",
            "Listed ns/b@7",
            "Fallback",
            "ListRestarted objects=2",
            "Listed ns/a@5 (relist)",
            "Listed ns/c@9 (relist)",
            "ListComplete rv=30 objects=2 pages=1 (relist)",
            "WatchOpened rv=30",
        ]
    );
    // Ten seconds (the default) after the last initial event, not after the watch opened.
    assert_eq!(events[3].0 - events[2].0, INITIAL_EVENTS_TIMEOUT);
    assert!(matches!(
        &events[3].1,
        ReflectorEvent::Fallback {
            reason: FallbackReason::NoEndBookmark {
                waited: INITIAL_EVENTS_TIMEOUT,
                initial_events: 2
            }
        }
    ));
    // The watch after the relist is a plain one.
    assert_eq!(
        run.requests(),
        [watch_list(), list(Some(2), None), watch("30")]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_list_that_sends_nothing_falls_back_to_a_list_after_the_timeout() {
    let script = Script::default()
        .watch(vec![Step::Hang])
        .list(vec![obj("a", 1)], "10", None)
        .watch(vec![Step::Hang]);
    let config = ReflectorConfig {
        initial_events_timeout: Duration::from_secs(3),
        ..config(Start::WatchList)
    };
    let mut run = Run::new(script, config);

    let events = run.pull(5).await;

    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=",
            "Fallback",
            "Listed ns/a@1",
            "ListComplete rv=10 objects=1 pages=1",
            "WatchOpened rv=10",
        ]
    );
    assert_eq!(events[1].0, Duration::from_secs(3));
    assert!(matches!(
        &events[1].1,
        ReflectorEvent::Fallback {
            reason: FallbackReason::NoEndBookmark { waited, initial_events: 0 }
        } if *waited == Duration::from_secs(3)
    ));
}

/// The script of a watch-list that `cut`s its initial events, then the relist at RV 30.
fn cut_watch_list(cut: Vec<Step>) -> Script {
    Script::default()
        .watch(cut)
        .list(vec![obj("a", 5), obj("c", 9)], "30", None)
        .watch(vec![Step::Hang])
}

#[tokio::test(start_paused = true)]
async fn a_watch_list_cut_in_its_initial_events_restarts_as_a_relist_after_the_backoff() {
    let script = cut_watch_list(vec![added("a", 5), added("b", 7), Step::Cut]);
    let mut run = Run::new(script, config(Start::WatchList));

    let events = run.pull(9).await;

    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=",
            "Listed ns/a@5",
            "Listed ns/b@7",
            "WatchClosed rv= ConnectionLost, retry later",
            "ListRestarted objects=2",
            "Listed ns/a@5 (relist)",
            "Listed ns/c@9 (relist)",
            "ListComplete rv=30 objects=2 pages=1 (relist)",
            "WatchOpened rv=30",
        ]
    );
    let delay = retry_in(&events[3].1);
    assert_backoff(delay, 1);
    assert_waited(events[4].0, events[5].0, delay);
    assert_eq!(
        run.requests(),
        [watch_list(), list(Some(2), None), watch("30")]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_list_cut_before_any_initial_event_lists_plainly_after_the_backoff() {
    let script = cut_watch_list(vec![Step::Cut]);
    let mut run = Run::new(script, config(Start::WatchList));

    let events = run.pull(5).await;

    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=",
            "WatchClosed rv= ConnectionLost, retry later",
            "Listed ns/a@5",
            "Listed ns/c@9",
            "ListComplete rv=30 objects=2 pages=1",
        ]
    );
    assert_waited(events[1].0, events[2].0, retry_in(&events[1].1));
}

#[tokio::test(start_paused = true)]
async fn a_410_in_a_watch_lists_initial_events_restarts_as_a_relist() {
    let script = cut_watch_list(vec![added("a", 5), error_event(410, "Expired")]);
    let mut run = Run::new(script, config(Start::WatchList));

    let events = run.pull(8).await;

    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=",
            "Listed ns/a@5",
            "Expired rv=",
            "ListRestarted objects=1",
            "Listed ns/a@5 (relist)",
            "Listed ns/c@9 (relist)",
            "ListComplete rv=30 objects=2 pages=1 (relist)",
            "WatchOpened rv=30",
        ]
    );
    assert_backoff(events[4].0, 1);
    assert_eq!(
        run.requests(),
        [watch_list(), list(Some(2), None), watch("30")]
    );
}

#[tokio::test(start_paused = true)]
async fn an_expired_continue_token_restarts_the_list_in_one_unpaginated_request_and_the_next_list_pages_again(
) {
    let script = Script::default()
        .list(vec![obj("a", 1), obj("b", 2)], "10", Some("token-1"))
        .list_fails(api_error(410, "Expired"))
        .list(vec![obj("a", 1), obj("c", 3)], "12", None)
        .watch(vec![modified("c", 13), error_event(410, "Expired")])
        .list(vec![obj("a", 1), obj("c", 13)], "14", Some("token-2"))
        .list(vec![obj("d", 14)], "14", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(14).await;

    assert_eq!(
        shown(&events),
        [
            "Listed ns/a@1",
            "Listed ns/b@2",
            "ListRestarted objects=2",
            "Listed ns/a@1 (relist)",
            "Listed ns/c@3 (relist)",
            "ListComplete rv=12 objects=2 pages=1 (relist)",
            "WatchOpened rv=12",
            "Watched MODIFIED ns/c@13",
            "Expired rv=13",
            "Listed ns/a@1 (relist)",
            "Listed ns/c@13 (relist)",
            "Listed ns/d@14 (relist)",
            "ListComplete rv=14 objects=3 pages=2 (relist)",
            "WatchOpened rv=14",
        ]
    );
    // The restart is at once; only the 410 of the watch waits.
    assert!(events[5].0.is_zero());
    assert_eq!(
        run.requests(),
        [
            list(Some(2), None),
            list(Some(2), Some("token-1")),
            list(None, None),
            watch("12"),
            list(Some(2), None),
            list(Some(2), Some("token-2")),
            watch("14"),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_malformed_event_relists_after_the_backoff() {
    let script = Script::default()
        .list(vec![obj("a", 1)], "10", None)
        .watch(vec![modified("a", 11), Step::Garbage])
        .list(vec![obj("a", 11)], "12", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(8).await;

    assert_eq!(
        shown(&events)[3..],
        [
            "Watched MODIFIED ns/a@11",
            "WatchClosed rv=11 Malformed, retry later",
            "Listed ns/a@11 (relist)",
            "ListComplete rv=12 objects=1 pages=1 (relist)",
            "WatchOpened rv=12",
        ]
    );
    assert_backoff(retry_in(&events[4].1), 1);
    assert_waited(events[4].0, events[5].0, retry_in(&events[4].1));
}

#[tokio::test(start_paused = true)]
async fn an_event_refused_by_size_relists_like_a_malformed_one() {
    // Resuming from RV 11 would ask for the same oversized event again.
    let script = Script::default()
        .list(vec![obj("a", 1)], "10", None)
        .watch(vec![modified("a", 11), Step::TooLarge])
        .list(vec![obj("a", 13)], "13", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(8).await;

    assert_eq!(
        shown(&events)[3..],
        [
            "Watched MODIFIED ns/a@11",
            "WatchClosed rv=11 TooLarge, retry later",
            "Listed ns/a@13 (relist)",
            "ListComplete rv=13 objects=1 pages=1 (relist)",
            "WatchOpened rv=13",
        ]
    );
    assert_backoff(retry_in(&events[4].1), 1);
    match &events[4].1 {
        ReflectorEvent::WatchClosed { reason, .. } => assert_eq!(
            reason.to_string(),
            "a watch event of more than 64 MiB was refused by size, relisting"
        ),
        other => panic!("unexpected {other:?}"),
    }
}
