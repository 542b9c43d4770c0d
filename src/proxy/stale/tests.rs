use super::*;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn lag(then: &str, now: &str) -> Lag {
    Lag {
        then: then.into(),
        now: now.into(),
        age: secs(30),
        oldest_known: false,
    }
}

fn get(query: &str) -> ApiRequest {
    ApiRequest::new(
        &http::Method::GET,
        "/api/v1/namespaces/demo/configmaps",
        Some(query),
    )
}

#[test]
fn the_state_served_is_the_newest_read_at_least_by_ago_or_else_the_oldest_known() {
    let timeline = Timeline::new(secs(30));
    let start = Instant::now();
    assert_eq!(timeline.lag(start, secs(30)), None, "nothing read yet");
    for (s, rv) in [
        (0, "100"),
        (10, "110"),
        (20, "120"),
        (40, "140"),
        (45, "145"),
    ] {
        timeline.record(start + secs(s), rv.into());
    }
    let at = |s: u64| timeline.lag(start + secs(s), secs(30)).unwrap();
    // 45 s in, 30 s behind is 15 s in: the sample read at 10 s.
    let served = at(45);
    assert_eq!((served.then.as_str(), served.now.as_str()), ("110", "145"));
    assert_eq!((served.age, served.oldest_known), (secs(35), false));
    assert_eq!(at(50).then, "120");
    // Before the run is 30 s old, the first sample: the oldest the proxy knows.
    let timeline = Timeline::new(secs(30));
    timeline.record(start, "100".into());
    timeline.record(start + secs(5), "105".into());
    let early = timeline.lag(start + secs(6), secs(30)).unwrap();
    assert_eq!((early.then.as_str(), early.oldest_known), ("100", true));
}

#[test]
fn samples_older_than_the_longest_lag_are_dropped_but_the_one_it_needs_is_kept() {
    let timeline = Timeline::new(secs(10));
    let start = Instant::now();
    for s in 0..100 {
        timeline.record(start + secs(s), (1000 + s).to_string());
    }
    assert!(
        timeline.samples().len() <= 14,
        "{}",
        timeline.samples().len()
    );
    assert_eq!(
        timeline.lag(start + secs(99), secs(10)).unwrap().then,
        "1089"
    );
}

#[test]
fn each_request_is_served_as_a_lagging_cache_would_serve_it() {
    let lag = lag("100", "200");
    let list = |rv: &str| Some(Rewrite::List { rv: rv.into() });
    assert_eq!(rewrite(&get("limit=500"), &lag), list("100"), "most recent");
    assert_eq!(rewrite(&get("resourceVersion=0"), &lag), list("100"), "any");
    assert_eq!(
        rewrite(
            &get("resourceVersion=50&resourceVersionMatch=NotOlderThan"),
            &lag
        ),
        list("100")
    );
    assert_eq!(
        rewrite(&get("resourceVersion=150"), &lag),
        list("150"),
        "not older than 150: the stalest it allows"
    );
    assert_eq!(
        rewrite(&get("resourceVersion=150&resourceVersionMatch=Exact"), &lag),
        None,
        "an exact LIST is what it asks"
    );
    assert_eq!(
        rewrite(&get("limit=500&continue=abc"), &lag),
        None,
        "a later page: its token holds its resourceVersion"
    );
    assert_eq!(
        rewrite(
            &get("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"),
            &lag
        ),
        Some(Rewrite::Initial {
            rv: "100".into(),
            bookmark: true
        })
    );
    assert_eq!(
        rewrite(&get("watch=1&resourceVersion=0"), &lag),
        Some(Rewrite::Initial {
            rv: "100".into(),
            bookmark: false
        })
    );
    assert_eq!(
        rewrite(&get("watch=1&resourceVersion=180"), &lag),
        Some(Rewrite::Resume {
            rv: "100".into(),
            from: Some("180".into())
        })
    );
    assert_eq!(
        rewrite(&get("watch=1&resourceVersion=90"), &lag),
        Some(Rewrite::Watch),
        "a watch from before the lag goes on as asked (its events late)"
    );
    assert_eq!(
        rewrite(&get("watch=1"), &lag),
        Some(Rewrite::Resume {
            rv: "100".into(),
            from: None
        })
    );
    let get_one = ApiRequest::new(
        &http::Method::GET,
        "/api/v1/namespaces/demo/configmaps/a",
        None,
    );
    assert_eq!(rewrite(&get_one, &lag), None, "a GET reads etcd");
}

#[test]
fn a_query_keeps_what_it_had_but_the_parameters_changed() {
    assert_eq!(
        query(
            Some("labelSelector=a%3Db&resourceVersion=0&limit=500"),
            &["resourceVersion", "resourceVersionMatch"],
            &[
                ("resourceVersion", "100"),
                ("resourceVersionMatch", "Exact")
            ]
        ),
        "labelSelector=a%3Db&limit=500&resourceVersion=100&resourceVersionMatch=Exact"
    );
    assert_eq!(
        query(None, &[], &[("resourceVersion", "7")]),
        "resourceVersion=7"
    );
}

#[test]
fn a_lists_objects_become_added_events_with_their_kind_and_the_bookmark() {
    let list = br#"{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},
        "items":[{"metadata":{"name":"a","resourceVersion":"90"}},{"metadata":{"name":"b"}}]}"#;
    let events = added_events(list, "100", true).unwrap();
    assert_eq!(events.count, 2);
    let lines: Vec<serde_json::Value> = std::str::from_utf8(&events.bytes)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["type"], "ADDED");
    assert_eq!(lines[0]["object"]["kind"], "ConfigMap");
    assert_eq!(lines[0]["object"]["apiVersion"], "v1");
    assert_eq!(lines[1]["object"]["metadata"]["name"], "b");
    assert_eq!(lines[2]["type"], "BOOKMARK");
    assert_eq!(lines[2]["object"]["metadata"]["resourceVersion"], "100");
    assert_eq!(
        lines[2]["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
        "true"
    );
    let plain = added_events(list, "100", false).unwrap();
    assert_eq!(
        std::str::from_utf8(&plain.bytes).unwrap().lines().count(),
        2
    );
    assert!(added_events(b"not json", "1", true).is_err());
}

#[test]
fn a_watch_event_goes_out_by_after_the_cluster_reached_it_and_an_old_one_at_once() {
    let timeline = Timeline::new(secs(30));
    let start = Instant::now();
    for (s, rv) in [(0, "100"), (1, "101"), (2, "105")] {
        timeline.record(start + secs(s), rv.into());
    }
    let now = start + secs(3);
    assert_eq!(
        timeline.due("90", secs(30), now),
        now,
        "before the first read"
    );
    assert_eq!(timeline.due("100", secs(30), now), now);
    assert_eq!(timeline.due("103", secs(30), now), start + secs(32));
    assert_eq!(timeline.due("105", secs(30), now), start + secs(32));
    assert_eq!(
        timeline.due("106", secs(30), now),
        now + secs(30),
        "newer than every read"
    );
    assert_eq!(
        timeline.due("101", secs(1), start + secs(10)),
        start + secs(10),
        "never before now"
    );
}

#[test]
fn a_compacted_revision_moves_the_oldest_state_served_on() {
    let timeline = Timeline::new(secs(60));
    let start = Instant::now();
    for (s, rv) in [(0, "100"), (1, "110"), (2, "120")] {
        timeline.record(start + secs(s), rv.into());
    }
    timeline.compacted("110");
    let served = timeline.lag(start + secs(3), secs(60)).unwrap();
    assert_eq!((served.then.as_str(), served.oldest_known), ("120", true));
    timeline.compacted("500");
    assert_eq!(
        timeline.lag(start + secs(3), secs(60)).unwrap().then,
        "120",
        "the newest read is kept"
    );
}
