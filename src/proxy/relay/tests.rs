//! The relay's faults on a watch's events, with paused time: bookmarks dropped, delays, stalls,
//! severs and coalescing.

use super::*;
use crate::proxy::engine::{Armed, Notice};
use crate::proxy::fault::Fault;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedReceiver;

fn engine(faults: &[&str]) -> (Arc<Engine>, UnboundedReceiver<Notice>) {
    let armed = faults
        .iter()
        .map(|f| Armed {
            fault: Fault::parse(f).unwrap(),
            scope: None,
        })
        .collect();
    let (tx, rx) = mpsc::unbounded_channel();
    (Arc::new(Engine::new(armed, 1, tx)), rx)
}

fn event(kind: &str, rv: u32, initial_events_end: bool) -> Bytes {
    let annotations = match initial_events_end {
        true => r#","annotations":{"k8s.io/initial-events-end":"true"}"#,
        false => "",
    };
    Bytes::from(
        format!(
            r#"{{"type":"{kind}","object":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"c{rv}","resourceVersion":"{rv}"{annotations}}}}}}}"#
        ) + "\n",
    )
}

/// A watch of ConfigMaps relayed through `engine`'s faults: the upstream's sender, and the
/// body the client reads.
fn watch(engine: &Arc<Engine>) -> (mpsc::Sender<Result<Frame<Bytes>, BoxError>>, ProxyBody) {
    watch_of(engine, "watch=1&resourceVersion=5")
}

fn watch_of(
    engine: &Arc<Engine>,
    query: &str,
) -> (mpsc::Sender<Result<Frame<Bytes>, BoxError>>, ProxyBody) {
    let request = ApiRequest::new(
        &http::Method::GET,
        "/api/v1/namespaces/demo/configmaps",
        Some(query),
    );
    let plan = engine.plan(&request);
    let connection = engine.connection("127.0.0.1:1".parse().unwrap());
    let guard = engine.watch_opened(&request, &connection);
    let (tx, rx) = mpsc::channel(16);
    let upstream = received(rx);
    let body = relay(
        engine.clone(),
        request,
        plan.stream,
        Encoding::Json,
        upstream,
        guard,
    );
    (tx, body)
}

async fn send(tx: &mpsc::Sender<Result<Frame<Bytes>, BoxError>>, bytes: Bytes) {
    tx.send(Ok(Frame::data(bytes))).await.unwrap();
}

/// The next event the client reads (`None`: the stream ended cleanly; `Err`: it was reset).
async fn next(body: &mut ProxyBody) -> Option<Result<Bytes, String>> {
    match body.frame().await? {
        Ok(frame) => Some(Ok(frame.into_data().unwrap())),
        Err(e) => Some(Err(e.to_string())),
    }
}

#[tokio::test(start_paused = true)]
async fn bookmarks_are_dropped_all_of_them_or_only_the_initial_events_end_one() {
    for (fault, kept) in [
        ("drop-bookmarks", vec![1, 4]),
        ("drop-initial-events-end", vec![1, 3, 4]),
    ] {
        let (engine, mut notices) = engine(&[fault]);
        let (tx, mut body) = watch(&engine);
        // Events split across chunks: each is judged whole.
        let mut all = Vec::new();
        for (i, (kind, end)) in [
            ("ADDED", false),
            ("BOOKMARK", true),
            ("BOOKMARK", false),
            ("MODIFIED", false),
        ]
        .into_iter()
        .enumerate()
        {
            all.extend_from_slice(&event(kind, i as u32 + 1, end));
        }
        for chunk in all.chunks(50) {
            send(&tx, Bytes::copy_from_slice(chunk)).await;
        }
        drop(tx);
        let mut got = Vec::new();
        while let Some(event) = next(&mut body).await {
            got.push(event.unwrap());
        }
        let expected: Vec<Bytes> = kept
            .iter()
            .map(|rv| {
                let kind = match rv {
                    1 => "ADDED",
                    4 => "MODIFIED",
                    _ => "BOOKMARK",
                };
                event(kind, *rv, false)
            })
            .collect();
        assert_eq!(got, expected, "{fault}");
        let notice = notices.recv().await.unwrap();
        assert_eq!(
            notice.detail,
            "dropped the initial-events-end BOOKMARK at rv 2"
        );
        assert_eq!(engine.applied()[0].count, 4 - kept.len() as u64, "{fault}");
    }
}

/// An event of ConfigMap `name` in namespace demo.
fn of(kind: &str, name: &str, rv: u32) -> Bytes {
    Bytes::from(
        format!(
            r#"{{"type":"{kind}","object":{{"kind":"ConfigMap","apiVersion":"v1","metadata":{{"name":"{name}","namespace":"demo","resourceVersion":"{rv}"}}}}}}"#
        ) + "\n",
    )
}

#[tokio::test(start_paused = true)]
async fn coalesced_events_of_an_object_come_as_the_newest_typed_as_a_relist_shows_them_in_rv_order()
{
    let (engine, mut notices) = engine(&["coalesce:window=5s"]);
    let (tx, mut body) = watch(&engine);
    let start = Instant::now();
    for event in [
        of("MODIFIED", "x", 1),
        of("ADDED", "y", 2),
        of("MODIFIED", "x", 3),
        event("BOOKMARK", 4, false),
        of("DELETED", "y", 5),
        of("DELETED", "z", 6),
        of("ADDED", "z", 7),
    ] {
        send(&tx, event).await;
    }
    // x: the newest of two changes; the bookmark after it, not before (RV order); y, added
    // and deleted, never; z, deleted and created again, as the change a relist shows.
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        of("MODIFIED", "x", 3)
    );
    assert_eq!(start.elapsed(), Duration::from_secs(5));
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("BOOKMARK", 4, false)
    );
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        of("MODIFIED", "z", 7)
    );
    assert_eq!(start.elapsed(), Duration::from_secs(5));
    let details: Vec<String> = [(); 3]
        .iter()
        .map(|()| notices.try_recv().unwrap().detail)
        .collect();
    assert_eq!(
        details,
        [
            "2 events of demo/x within 5s sent as one MODIFIED at rv 3",
            "2 events of demo/y within 5s (added, then deleted) not sent: a relist would not show it",
            "2 events of demo/z within 5s sent as one MODIFIED at rv 7",
        ]
    );
    // A window opens with an object's first event after the last one closed.
    tokio::time::sleep(Duration::from_secs(1)).await;
    send(&tx, of("MODIFIED", "x", 8)).await;
    drop(tx);
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        of("MODIFIED", "x", 8)
    );
    assert_eq!(start.elapsed(), Duration::from_secs(11));
    assert!(next(&mut body).await.is_none());
    assert!(notices.try_recv().is_err(), "one event is no coalescing");
    assert_eq!(engine.applied()[0].count, 3);
}

#[tokio::test(start_paused = true)]
async fn a_watch_lists_initial_events_are_not_coalesced_and_what_follows_is() {
    let (engine, _notices) = engine(&["coalesce:window=5s"]);
    let (tx, mut body) = watch_of(
        &engine,
        "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
    );
    let start = Instant::now();
    send(&tx, of("ADDED", "x", 1)).await;
    send(&tx, event("BOOKMARK", 2, true)).await;
    send(&tx, of("MODIFIED", "x", 3)).await;
    assert_eq!(next(&mut body).await.unwrap().unwrap(), of("ADDED", "x", 1));
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("BOOKMARK", 2, true)
    );
    assert_eq!(start.elapsed(), Duration::ZERO);
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        of("MODIFIED", "x", 3)
    );
    assert_eq!(start.elapsed(), Duration::from_secs(5));
}

#[tokio::test(start_paused = true)]
async fn a_delayed_watch_sends_each_event_its_delay_after_it_came_in_order() {
    let (engine, _notices) = engine(&["delay:by=2s"]);
    let (tx, mut body) = watch(&engine);
    let start = Instant::now();
    send(&tx, event("ADDED", 1, false)).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    send(&tx, event("MODIFIED", 2, false)).await;
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("ADDED", 1, false)
    );
    assert_eq!(start.elapsed(), Duration::from_secs(2));
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("MODIFIED", 2, false)
    );
    assert_eq!(start.elapsed(), Duration::from_millis(2500));
    // The upstream's end comes after the events it follows.
    send(&tx, event("MODIFIED", 3, false)).await;
    drop(tx);
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("MODIFIED", 3, false)
    );
    assert!(next(&mut body).await.is_none());
}

#[tokio::test(start_paused = true)]
async fn a_stalled_watch_holds_its_events_until_the_stall_ends_then_sends_them() {
    let (engine, mut notices) = engine(&["stall:at=1s,for=10s"]);
    engine.run_timers();
    let (tx, mut body) = watch(&engine);
    let start = Instant::now();
    send(&tx, event("ADDED", 1, false)).await;
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("ADDED", 1, false)
    );
    let stalled = notices.recv().await.unwrap();
    assert!(
        stalled.detail.starts_with("stalled for 10s after"),
        "{}",
        stalled.detail
    );
    send(&tx, event("MODIFIED", 2, false)).await;
    send(&tx, event("MODIFIED", 3, false)).await;
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("MODIFIED", 2, false)
    );
    assert_eq!(start.elapsed(), Duration::from_secs(11));
    assert_eq!(
        next(&mut body).await.unwrap().unwrap(),
        event("MODIFIED", 3, false)
    );
    let over = notices.recv().await.unwrap();
    assert_eq!(over.detail, "stall over: 2 events held are sent");
}

#[tokio::test(start_paused = true)]
async fn a_sever_ends_the_stream_cleanly_or_resets_it() {
    for (fault, reset) in [("sever:at=1s,how=end", false), ("sever:at=1s", true)] {
        let (engine, mut notices) = engine(&[fault]);
        engine.run_timers();
        let (tx, mut body) = watch(&engine);
        send(&tx, event("ADDED", 7, false)).await;
        assert!(next(&mut body).await.unwrap().is_ok());
        match next(&mut body).await {
            None => assert!(!reset, "{fault}: ended cleanly"),
            Some(Err(e)) => assert!(reset && e.contains("fault sever"), "{fault}: {e}"),
            Some(Ok(b)) => panic!("{fault}: {b:?}"),
        }
        let notice = notices.recv().await.unwrap();
        assert!(
            notice.detail.contains("after 1s and 1 event, last rv 7"),
            "{}",
            notice.detail
        );
        assert_eq!(
            notice.request.as_deref(),
            Some("watch configmaps -n demo from rv 5")
        );
        // The upstream is let go.
        assert!(tx.is_closed() || tx.send(Ok(Frame::data(Bytes::new()))).await.is_err());
    }
}
