//! Time travel: a LIST or a resumed watch that brings a resourceVersion older than one the
//! reflector saw before, as an API server whose watch cache lags answers a client that
//! reached a fresher one first. Said once per request; the objects are taken as they come.

use super::*;

#[tokio::test(start_paused = true)]
async fn a_relist_older_than_the_watch_before_it_is_said_once() {
    let script = Script::default()
        .list(vec![obj("a", 10)], "10", None)
        .watch(vec![modified("a", 30), error_event(410, "Expired")])
        // The relist is served by a server 10 revisions behind.
        .list(vec![obj("a", 10)], "20", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(9).await;

    assert_eq!(
        shown(&events[5..]),
        [
            "Listed ns/a@10 (relist)",
            "ListComplete rv=20 objects=1 pages=1 (relist)",
            "WentBack rv=20 newest=30 on list",
            "WatchOpened rv=20",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watch_that_brings_what_was_seen_already_is_said_once_not_per_event() {
    let script = Script::default()
        .list(vec![], "10", None)
        .watch(vec![modified("a", 30)])
        // Resumed from 30, the stream starts over from 15: 15, 20 and 25 are behind 30.
        .watch(vec![
            modified("a", 15),
            modified("a", 20),
            modified("a", 25),
            modified("a", 31),
            Step::Hang,
        ]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(10).await;

    assert_eq!(
        shown(&events[3..]),
        [
            "WatchClosed rv=30 ConnectionLost, retry at once",
            "WatchOpened rv=30",
            "Watched MODIFIED ns/a@15",
            "WentBack rv=15 newest=30 on watch from 30",
            "Watched MODIFIED ns/a@20",
            "Watched MODIFIED ns/a@25",
            "Watched MODIFIED ns/a@31",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn resourceversions_that_only_go_forward_say_nothing() {
    let script = Script::default()
        .list(vec![obj("a", 3), obj("b", 9)], "10", None)
        .watch(vec![modified("a", 11), bookmark(15, false)])
        .watch(vec![modified("b", 16), error_event(410, "Expired")])
        .list(vec![obj("a", 11), obj("b", 16)], "16", None)
        .watch(vec![Step::Hang]);
    let mut run = Run::new(script, config(Start::List));

    let events = run.pull(14).await;

    let lines = shown(&events);
    assert!(
        !lines.iter().any(|l| l.starts_with("WentBack")),
        "{lines:?}"
    );
}
