//! Errors: which are fatal, which are retried and after how long, and what ends a reflector
//! that does not reconnect.

use super::*;

#[tokio::test(start_paused = true)]
async fn before_anything_succeeded_an_error_other_than_429_is_fatal() {
    let mut run = Run::new(
        Script::default().list_fails(api_error(500, "InternalError")),
        config(Start::List),
    );
    assert!(matches!(
        run.error().await,
        ReflectorError::Cluster(ClusterError::Api { code: 500, .. })
    ));
    assert_eq!(run.requests(), [list(Some(2), None)]);

    let mut run = Run::new(
        Script::default()
            .list(Vec::new(), "100", None)
            .watch_fails(api_error(503, "ServiceUnavailable")),
        config(Start::FromResourceVersion("100".to_string())),
    );
    assert!(matches!(
        run.error().await,
        ReflectorError::Cluster(ClusterError::Api { code: 503, .. })
    ));
    assert_eq!(run.requests(), [list(Some(1), None), watch("100")]);

    // A refused watch-list is not a failure, but the LIST it falls back to is the first request.
    let script = Script::default()
        .watch_fails(api_error(422, "Invalid"))
        .list_fails(api_error(500, "InternalError"));
    let mut run = Run::new(script, config(Start::WatchList));
    assert_eq!(shown(&run.pull(1).await), ["Fallback"]);
    assert!(matches!(
        run.error().await,
        ReflectorError::Cluster(ClusterError::Api { code: 500, .. })
    ));
    assert!(run.start.elapsed().is_zero());
}

#[tokio::test(start_paused = true)]
async fn a_throttled_first_list_waits_the_servers_retry_after_else_the_backoff() {
    let script = Script::default()
        .list_fails(throttled(Some(Duration::from_secs(2))))
        .list_fails(throttled(None))
        .list(vec![obj("a", 1)], "10", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(5).await;

    assert_eq!(
        shown(&events),
        [
            "ListFailed",
            "ListFailed",
            "Listed ns/a@1",
            "ListComplete rv=10 objects=1 pages=1",
            "WatchOpened rv=10",
        ]
    );
    assert_eq!(retry_in(&events[0].1), Duration::from_secs(2));
    assert_eq!(events[1].0, Duration::from_secs(2));
    assert_backoff(retry_in(&events[1].1), 1);
    assert_waited(events[1].0, events[2].0, retry_in(&events[1].1));
    assert_eq!(
        run.requests()[..3],
        [
            list(Some(2), None),
            list(Some(2), None),
            list(Some(2), None)
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_failed_page_is_retried_from_the_same_page_after_the_backoff() {
    let script = Script::default()
        .list(vec![obj("a", 1), obj("b", 2)], "10", Some("token-1"))
        .list_fails(api_error(500, "InternalError"))
        .list(vec![obj("c", 3)], "10", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(6).await;

    assert_eq!(
        shown(&events),
        [
            "Listed ns/a@1",
            "Listed ns/b@2",
            "ListFailed",
            "Listed ns/c@3",
            "ListComplete rv=10 objects=3 pages=2",
            "WatchOpened rv=10",
        ]
    );
    assert_backoff(retry_in(&events[2].1), 1);
    assert_waited(events[2].0, events[3].0, retry_in(&events[2].1));
    assert_eq!(
        run.requests(),
        [
            list(Some(2), None),
            list(Some(2), Some("token-1")),
            list(Some(2), Some("token-1")),
            watch("10"),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn once_started_a_500_when_the_watch_opens_is_retried_from_the_same_rv_after_the_backoff() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch_fails(api_error(500, "InternalError"))
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(3).await;

    assert_eq!(
        shown(&events),
        [
            "ListComplete rv=10 objects=0 pages=1",
            "WatchFailed rv=10",
            "WatchOpened rv=10",
        ]
    );
    assert!(matches!(
        &events[1].1,
        ReflectorEvent::WatchFailed { error: WatchFailure::Error(error), .. }
            if error.contains("500 InternalError")
    ));
    assert_backoff(retry_in(&events[1].1), 1);
    assert_waited(events[1].0, events[2].0, retry_in(&events[1].1));
    assert_eq!(
        run.requests(),
        [list(Some(2), None), watch("10"), watch("10")]
    );
}

#[tokio::test(start_paused = true)]
async fn once_started_a_403_when_the_watch_opens_is_fatal() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch_fails(api_error(403, "Forbidden"))
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    assert_eq!(
        shown(&run.pull(1).await),
        ["ListComplete rv=10 objects=0 pages=1"]
    );
    assert!(matches!(
        run.error().await,
        ReflectorError::Cluster(ClusterError::Api { code: 403, .. })
    ));
    assert_eq!(run.requests(), [list(Some(2), None), watch("10")]);
}

#[tokio::test(start_paused = true)]
async fn a_429_waits_exactly_as_long_as_the_servers_retry_after_on_watch_and_on_relist() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch_fails(throttled(Some(Duration::from_secs(7))))
        .watch(vec![error_event(410, "Expired")])
        .list_fails(throttled(Some(Duration::from_secs(3))))
        .list(vec![], "20", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(7).await;

    assert_eq!(
        shown(&events),
        [
            "ListComplete rv=10 objects=0 pages=1",
            "WatchFailed rv=10",
            "WatchOpened rv=10",
            "Expired rv=10",
            "ListFailed",
            "ListComplete rv=20 objects=0 pages=1 (relist)",
            "WatchOpened rv=20",
        ]
    );
    assert_eq!(retry_in(&events[1].1), Duration::from_secs(7));
    assert_eq!(events[2].0, Duration::from_secs(7));
    assert_eq!(retry_in(&events[4].1), Duration::from_secs(3));
    assert_eq!(events[5].0 - events[4].0, Duration::from_secs(3));
}

/// [`config`] without reconnecting.
fn once() -> ReflectorConfig {
    ReflectorConfig {
        reconnect: false,
        ..config(Start::List)
    }
}

#[tokio::test(start_paused = true)]
async fn without_reconnect_a_watch_the_server_ends_after_events_ends_the_stream() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![modified("a", 11), Step::End])
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, once());

    let events = run.pull(4).await;

    assert_eq!(
        shown(&events)[3],
        "WatchClosed rv=11 ServerClosed, no retry"
    );
    assert!(matches!(run.next().await, Ok(None)));
    assert_eq!(run.requests(), [list(Some(2), None), watch("10")]);
}

/// The error a reflector without reconnect ends with when, after a LIST at RV 10, the watch
/// does what `watch` scripts; `before` events come first.
async fn ends_without_reconnect(
    watch: impl FnOnce(Script) -> Script,
    before: usize,
) -> ReflectorError {
    let script = watch(Script::default().list(vec![], "10", None)).watch(vec![Step::Hang]);
    let mut run = Run::new(script, once());
    run.pull(before).await;
    let error = run.error().await;
    assert_eq!(run.requests().len(), 2, "{:?}", run.requests());
    error
}

#[tokio::test(start_paused = true)]
async fn without_reconnect_a_cut_a_very_short_watch_a_410_or_a_failed_watch_is_an_error() {
    let cut = ends_without_reconnect(|s| s.watch(vec![modified("a", 11), Step::Cut]), 3).await;
    assert!(
        matches!(&cut, ReflectorError::WatchEnded { resource_version, reason, .. }
            if resource_version == "11" && reason == "connection reset by peer"),
        "{cut:?}"
    );
    let short = ends_without_reconnect(|s| s.watch(vec![Step::End]), 2).await;
    assert!(
        matches!(&short, ReflectorError::WatchEnded { resource_version, reason, .. }
            if resource_version == "10" && reason == "the server closed the watch at once"),
        "{short:?}"
    );
    let expired = ends_without_reconnect(|s| s.watch(vec![error_event(410, "Expired")]), 2).await;
    assert!(
        matches!(&expired, ReflectorError::Expired { resource_version, .. } if resource_version == "10"),
        "{expired:?}"
    );
    let failed =
        ends_without_reconnect(|s| s.watch_fails(api_error(500, "InternalError")), 1).await;
    assert!(
        matches!(
            failed,
            ReflectorError::Cluster(ClusterError::Api { code: 500, .. })
        ),
        "{failed:?}"
    );
}
