//! Replays from a resourceVersion (`--from-rv`): an RV too old to replay, and when a 410 means
//! a relist instead.

use super::*;

fn replay(relist_if_replay_expired: bool) -> ReflectorConfig {
    ReflectorConfig {
        relist_if_replay_expired,
        ..config(Start::FromResourceVersion("100".to_string()))
    }
}

/// The LIST of one object that reads the server's current RV (100) before a replay from 100.
fn current_rv_read() -> Script {
    Script::default().list(vec![obj("a", 90)], "100", None)
}

/// After a replay from RV 100, `then`, followed by a relist at RV 200.
fn replaying(then: impl FnOnce(Script) -> Script) -> Script {
    then(current_rv_read())
        .list(vec![obj("a", 150)], "200", None)
        .watch(vec![Step::Hang])
}

fn assert_replay_expired(error: ReflectorError, message: &str) {
    assert!(
        matches!(&error, ReflectorError::ReplayExpired { resource, resource_version, message: m }
            if resource == "configmaps" && resource_version == "100" && m == message),
        "{error:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_replay_from_an_rv_the_server_no_longer_has_fails_with_replay_expired() {
    let mut run = Run::new(
        replaying(|s| s.watch_fails(api_error(410, "Expired"))),
        replay(false),
    );
    assert_replay_expired(run.error().await, "the server says Expired");
    assert_eq!(run.requests(), [list(Some(1), None), watch("100")]);

    let mut run = Run::new(
        replaying(|s| s.watch(vec![error_event(410, "Expired")])),
        replay(false),
    );
    assert_eq!(shown(&run.pull(1).await), ["WatchOpened rv=100"]);
    assert_replay_expired(run.error().await, "too old resource version: 5 (20)");

    // A watch that failed at once showed nothing of the replay either.
    let mut run = Run::new(
        replaying(|s| {
            s.watch(vec![Step::Cut])
                .watch_fails(api_error(410, "Expired"))
        }),
        replay(false),
    );
    assert_eq!(
        shown(&run.pull(2).await),
        [
            "WatchOpened rv=100",
            "WatchClosed rv=100 ConnectionLost, retry later"
        ]
    );
    assert_replay_expired(run.error().await, "the server says Expired");
}

#[tokio::test(start_paused = true)]
async fn a_replay_whose_rv_is_gone_relists_when_asked_to() {
    let script = replaying(|s| s.watch(vec![error_event(410, "Expired")]));
    let mut run = Run::new(script, replay(true));

    let events = run.pull(5).await;

    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=100",
            "Expired rv=100",
            "Listed ns/a@150 (relist)",
            "ListComplete rv=200 objects=1 pages=1 (relist)",
            "WatchOpened rv=200",
        ]
    );
    assert_backoff(events[2].0, 1);
    assert_eq!(
        run.requests(),
        [
            list(Some(1), None),
            watch("100"),
            list(Some(2), None),
            watch("200")
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn once_a_replay_delivered_an_event_or_was_held_open_a_410_relists() {
    let script = replaying(|s| s.watch(vec![modified("a", 101), error_event(410, "Expired")]));
    let mut run = Run::new(script, replay(false));
    assert_eq!(
        shown(&run.pull(6).await),
        [
            "WatchOpened rv=100",
            "Watched MODIFIED ns/a@101",
            "Expired rv=101",
            "Listed ns/a@150 (relist)",
            "ListComplete rv=200 objects=1 pages=1 (relist)",
            "WatchOpened rv=200",
        ]
    );

    // The server took the RV and kept the watch open for seconds: the replay had begun.
    let script = replaying(|s| {
        s.watch(vec![Step::Wait(Duration::from_secs(5)), Step::End])
            .watch_fails(api_error(410, "Expired"))
    });
    let mut run = Run::new(script, replay(false));
    assert_eq!(
        shown(&run.pull(6).await),
        [
            "WatchOpened rv=100",
            "WatchClosed rv=100 ServerClosed, retry at once",
            "Expired rv=100",
            "Listed ns/a@150 (relist)",
            "ListComplete rv=200 objects=1 pages=1 (relist)",
            "WatchOpened rv=200",
        ]
    );
}

/// A replay from an RV the server has not reached would be a watch that opens and sends
/// nothing: the reflector says so, naming both RVs, and reads the current RV again after the
/// backoff, opening the watch once the server has reached it.
#[tokio::test(start_paused = true)]
async fn a_replay_from_an_rv_ahead_of_the_server_says_so_and_waits_for_it() {
    let script = Script::default()
        .list(vec![obj("a", 40)], "50", None)
        .list(vec![obj("a", 40)], "120", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, replay(false));

    let events = run.pull(2).await;

    assert_eq!(shown(&events), ["WatchFailed rv=100", "WatchOpened rv=100"]);
    let ReflectorEvent::WatchFailed { error, .. } = &events[0].1 else {
        unreachable!()
    };
    assert_eq!(
        *error,
        WatchFailure::AheadOfServer {
            current: "50".to_string(),
            resource: "configmaps".to_string()
        }
    );
    assert_backoff(retry_in(&events[0].1), 1);
    assert_waited(events[0].0, events[1].0, retry_in(&events[0].1));
    assert_eq!(
        run.requests(),
        [list(Some(1), None), list(Some(1), None), watch("100")]
    );
}

/// A replay whose first event cannot be read is over: the relist that follows shows the current
/// state, and its watch resumes from the relist's RV, where a 410 is history compacted since
/// (a relist), not an RV too old to replay.
#[tokio::test(start_paused = true)]
async fn after_a_replays_first_event_is_malformed_and_relisted_a_410_relists() {
    let script = current_rv_read()
        .watch(vec![Step::Garbage])
        .list(vec![obj("a", 150)], "200", None)
        .watch_fails(api_error(410, "Expired"))
        .list(vec![obj("a", 250)], "300", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, replay(false));

    let events = run.pull(8).await;

    assert_eq!(
        shown(&events),
        [
            "WatchOpened rv=100",
            "WatchClosed rv=100 Malformed, retry later",
            "Listed ns/a@150 (relist)",
            "ListComplete rv=200 objects=1 pages=1 (relist)",
            "Expired rv=200",
            "Listed ns/a@250 (relist)",
            "ListComplete rv=300 objects=1 pages=1 (relist)",
            "WatchOpened rv=300",
        ]
    );
}
