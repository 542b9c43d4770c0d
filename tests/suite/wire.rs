//! Wire-level cases against a scripted loopback server (tests/suite/common/fake.rs), because a real
//! API server does not produce them on demand: a 410 inside the stream and at watch open, a cut
//! connection, an event split mid-JSON, a malformed line.

use crate::common::fake::*;
use crate::common::*;
use std::time::Duration;

/// Discovery for configmaps, then `on_list(n)` / `on_watch(n)` for the n-th LIST / WATCH.
fn server(
    on_list: impl Fn(usize) -> Reply + Send + Sync + 'static,
    on_watch: impl Fn(usize) -> Reply + Send + Sync + 'static,
) -> FakeServer {
    FakeServer::start(move |target, n| {
        let path = target.split('?').next().unwrap_or("");
        match path {
            "/api" => core_discovery(),
            "/apis" => empty_discovery(),
            "/api/v1/namespaces/ns/configmaps" if target.contains("watch=true") => on_watch(n),
            "/api/v1/namespaces/ns/configmaps" => on_list(n),
            _ => Reply::Json(
                404,
                r#"{"kind":"Status","code":404,"reason":"NotFound","message":"not found"}"#.into(),
            ),
        }
    })
}

fn tail(fake: &FakeServer, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &fake.url);
    let mut args = vec![
        "tail",
        "cm",
        "-n",
        "ns",
        "-o",
        "json",
        "--kubeconfig",
        kc.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// The names of the notices tail printed, in order.
fn notice_names(out: &Output) -> Vec<String> {
    out.json_lines()
        .into_iter()
        .filter_map(|l| l["notice"].as_str().map(str::to_string))
        .collect()
}

fn summary(events: &[serde_json::Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| {
            format!(
                "{} {} {} {}",
                e["type"].as_str().unwrap(),
                e["name"].as_str().unwrap(),
                e["resourceVersion"].as_str().unwrap(),
                e["origin"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn relist_after_410_in_the_stream_reports_what_changed_while_away() {
    let fake = server(
        |n| match n {
            0 => list(
                12,
                vec![
                    configmap("a", "ua", 10),
                    configmap("b", "ub", 11),
                    configmap("c", "uc", 12),
                    configmap("e", "ue", 9),
                ],
            ),
            // While tail was away: a changed, b unchanged, c recreated, d added, e deleted.
            _ => list(
                17,
                vec![
                    configmap("a", "ua", 15),
                    configmap("b", "ub", 11),
                    configmap("c", "uc2", 16),
                    configmap("d", "ud", 17),
                ],
            ),
        },
        |n| match n {
            0 => Reply::Stream(vec![event("MODIFIED", "a", "ua", 13), expired_event(13)]),
            _ => Reply::Stream(vec![event("ADDED", "f", "uf", 18)]),
        },
    );
    let out = tail(&fake, &["--max-events", "11", "--diff-all"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // --diff-all: the MODIFIED a relist revealed has its patch from the version tail last saw,
    // as a watched one does; only MODIFIED have one.
    let events = out.object_events();
    let modified = modified_with_previous(&events);
    assert_eq!(modified.len(), 2, "{}", out.stdout);
    for (previous, e) in &modified {
        assert_eq!(patched(previous.clone(), &e["patch"]), e["object"], "{e}");
    }
    assert_eq!(
        events.iter().filter(|e| e.get("patch").is_some()).count(),
        2
    );
    assert_eq!(
        summary(&events),
        vec![
            "ADDED a 10 initial",
            "ADDED b 11 initial",
            "ADDED c 12 initial",
            "ADDED e 9 initial",
            "MODIFIED a 13 watch",
            "MODIFIED a 15 relist",
            "DELETED c 12 relist",
            "ADDED c 16 relist",
            "ADDED d 17 relist",
            "DELETED e 9 relist",
            "ADDED f 18 watch",
        ]
    );
    let notices: Vec<serde_json::Value> = out
        .json_lines()
        .into_iter()
        .filter(|l| l["type"] == "NOTICE")
        .collect();
    let expired = notices
        .iter()
        .find(|n| n["notice"] == "expired")
        .expect("expired notice");
    assert_eq!(expired["resourceVersion"], "13");
    assert!(expired["message"]
        .as_str()
        .unwrap()
        .contains("too old resource version: 13"));
    assert!(notices
        .iter()
        .any(|n| n["notice"] == "list-complete" && n["relist"] == true));
    // The watch after the relist starts from the relist's RV.
    let watches: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|r| r.contains("watch=true"))
        .collect();
    assert!(watches[1].contains("resourceVersion=17"), "{watches:?}");
}

#[test]
fn a_relist_answered_older_than_the_watch_before_it_is_said_as_going_back_in_time() {
    // The relist after a 410 reaches a server whose state is behind what the watch showed (an
    // API server whose watch cache lags, behind a load balancer): RV 15 after 20.
    let lagging = || {
        server(
            |n| match n {
                0 => list(12, vec![configmap("a", "ua", 10)]),
                _ => list(15, vec![configmap("a", "ua", 10)]),
            },
            |n| match n {
                0 => Reply::Stream(vec![event("MODIFIED", "a", "ua", 20), expired_event(20)]),
                _ => Reply::Stream(vec![event("ADDED", "f", "uf", 21)]),
            },
        )
    };
    let out = tail(&lagging(), &["--max-events", "4"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // What tail shows is what the server said: a back at its older version.
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 10 initial",
            "MODIFIED a 20 watch",
            "MODIFIED a 10 relist",
            "ADDED f 21 watch",
        ]
    );
    let lines = out.json_lines();
    let went_back: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|n| n["notice"] == "went-back")
        .collect();
    assert_eq!(went_back.len(), 1, "{}", out.stdout);
    assert_eq!(went_back[0]["resourceVersion"], "15");
    assert_eq!(went_back[0]["newestResourceVersion"], "20");
    assert_eq!(went_back[0]["request"], "list");
    assert_eq!(went_back[0]["fromResourceVersion"], serde_json::Value::Null);
    let errors = crate::common::schema::schema_errors("recording.v2.schema.json", went_back[0]);
    assert!(errors.is_empty(), "{errors:?}");
    // In text, one line on stderr that says from which RV back to which, on which request.
    let text = tail(&lagging(), &["--max-events", "4", "-o", "text"]);
    assert!(
        text.stderr.contains(
            "went back in time: the LIST answered at RV 15, older than RV 20 seen before"
        ),
        "{}",
        text.stderr
    );
}

#[test]
fn a_relist_whose_continue_token_expires_starts_over_and_deletes_what_only_its_first_pass_showed() {
    let fake = server(
        |n| {
            match n {
                0 => list(5, vec![configmap("a", "ua", 5), configmap("x", "ux", 5)]),
                // The relist's first page, then its continue token expires (history compacted).
                1 => Reply::Json(
                    200,
                    serde_json::json!({"kind": "ConfigMapList", "apiVersion": "v1",
                    "metadata": {"resourceVersion": "7", "continue": "p2", "remainingItemCount": 1},
                    "items": [configmap("a", "ua", 6), configmap("y", "uy", 7)]})
                    .to_string(),
                ),
                2 => continue_expired(),
                // The LIST again, at a newer RV: y was deleted meanwhile, z created.
                _ => list(10, vec![configmap("a", "ua", 6), configmap("z", "uz", 9)]),
            }
        },
        |n| match n {
            0 => Reply::Stream(vec![expired_event(5)]),
            _ => Reply::Stream(vec![event("ADDED", "f", "uf", 11)]),
        },
    );
    let out = tail(&fake, &["--max-events", "8", "--chunk-size", "2"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 5 initial",
            "ADDED x 5 initial",
            "MODIFIED a 6 relist",
            "ADDED y 7 relist",
            "ADDED z 9 relist",
            "DELETED x 5 relist",
            "DELETED y 7 relist",
            "ADDED f 11 watch",
        ]
    );
    let restarted = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "list-restarted")
        .expect("list-restarted notice");
    assert_eq!(restarted["objects"], 2);
    assert!(
        restarted["reason"].as_str().unwrap().contains("continue"),
        "{restarted}"
    );
    let lists: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|r| r.starts_with("/api/v1/namespaces/ns/configmaps") && !r.contains("watch=true"))
        .collect();
    assert_eq!(lists.len(), 4, "{lists:?}");
    assert!(
        lists[2].contains("continue=p2") && !lists[3].contains("continue"),
        "{lists:?}"
    );
    // The LIST starts over in one request, as client-go's pager does: paging as slowly again
    // could outlive the next continue token too.
    assert!(
        lists[1].contains("limit=") && !lists[3].contains("limit="),
        "{lists:?}"
    );
}

#[test]
fn with_initial_none_a_first_list_that_starts_over_still_shows_nothing_but_changes() {
    let fake = server(
        |n| {
            match n {
                // The first LIST's first page (x is deleted before the LIST starts over), then its
                // continue token expires.
                0 => Reply::Json(
                    200,
                    serde_json::json!({"kind": "ConfigMapList", "apiVersion": "v1",
                    "metadata": {"resourceVersion": "7", "continue": "p2", "remainingItemCount": 1},
                    "items": [configmap("a", "ua", 6), configmap("x", "ux", 7)]})
                    .to_string(),
                ),
                1 => continue_expired(),
                _ => list(20, vec![configmap("a", "ua", 6), configmap("b", "ub", 5)]),
            }
        },
        |_| Reply::Stream(vec![event("ADDED", "f", "uf", 21)]),
    );
    let out = tail(&fake, &["--initial", "none", "--max-events", "1"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(summary(&out.object_events()), vec!["ADDED f 21 watch"]);
    assert!(
        out.json_lines()
            .iter()
            .any(|l| l["notice"] == "list-restarted"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_watch_list_cut_short_is_followed_by_a_relist_that_deletes_what_it_no_longer_shows() {
    let fake = server(
        |_| list(10, vec![configmap("a", "ua", 9)]),
        |n| match n {
            // The initial events: a and x, then the connection drops before the bookmark.
            0 => Reply::Stream(vec![
                event("ADDED", "a", "ua", 5),
                event("ADDED", "x", "ux", 6),
                Step::Reset,
            ]),
            _ => Reply::Stream(vec![event("ADDED", "f", "uf", 11)]),
        },
    );
    let out = tail(&fake, &["--initial", "watch-list", "--max-events", "5"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 5 initial",
            "ADDED x 6 initial",
            "MODIFIED a 9 relist",
            "DELETED x 6 relist",
            "ADDED f 11 watch",
        ]
    );
    let notices = notice_names(&out);
    let closed = notices.iter().position(|n| n == "watch-closed").unwrap();
    assert_eq!(notices[closed + 1], "list-restarted", "{notices:?}");
    let restarted = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "list-restarted")
        .unwrap();
    assert_eq!(restarted["objects"], 2, "{restarted}");
}

#[test]
fn a_410_in_a_watch_lists_initial_events_relists_then_watches_from_the_relists_rv() {
    let fake = server(
        |_| list(10, vec![configmap("a", "ua", 9)]),
        |n| match n {
            0 => Reply::Stream(vec![
                event("ADDED", "a", "ua", 5),
                event("ADDED", "x", "ux", 6),
                expired_event(6),
            ]),
            _ => Reply::Stream(vec![event("ADDED", "f", "uf", 11)]),
        },
    );
    let out = tail(&fake, &["--initial", "watch-list", "--max-events", "5"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 5 initial",
            "ADDED x 6 initial",
            "MODIFIED a 9 relist",
            "DELETED x 6 relist",
            "ADDED f 11 watch",
        ]
    );
    let notices = notice_names(&out);
    let expired = notices.iter().position(|n| n == "expired").unwrap();
    assert_eq!(notices[expired + 1], "list-restarted", "{notices:?}");
    let watches: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|r| r.contains("watch=true"))
        .collect();
    assert!(
        watches[1].contains("resourceVersion=10") && !watches[1].contains("sendInitialEvents"),
        "after the relist a plain watch from its RV: {watches:?}"
    );
}

#[test]
fn an_error_event_with_reason_gone_and_no_code_also_relists() {
    // client-go takes reason Expired or Gone for expired history, whatever the code says.
    let gone = Step::Chunk(format!(
        "{}\n",
        serde_json::json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1",
            "metadata": {}, "status": "Failure", "message": "resource version 5 is gone",
            "reason": "Gone"}})
    ));
    let fake = server(
        |n| match n {
            0 => list(5, vec![configmap("a", "ua", 5)]),
            _ => list(30, vec![]),
        },
        move |n| match n {
            0 => Reply::Stream(vec![gone.clone()]),
            _ => Reply::Stream(vec![event("ADDED", "z", "uz", 31)]),
        },
    );
    let out = tail(&fake, &["--max-events", "3"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 5 initial",
            "DELETED a 5 relist",
            "ADDED z 31 watch"
        ]
    );
}

#[test]
fn a_410_when_the_watch_opens_also_relists() {
    let fake = server(
        |n| match n {
            0 => list(5, vec![configmap("a", "ua", 5)]),
            _ => list(30, vec![]),
        },
        |n| {
            match n {
            0 => Reply::Json(410, r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (29)","reason":"Expired","code":410}"#.into()),
            _ => Reply::Stream(vec![event("ADDED", "z", "uz", 31)]),
        }
        },
    );
    let out = tail(&fake, &["--max-events", "3"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 5 initial",
            "DELETED a 5 relist",
            "ADDED z 31 watch"
        ]
    );
}

#[test]
fn with_no_reconnect_a_410_ends_with_exit_2_quoting_the_server() {
    let fake = server(
        |_| list(5, vec![]),
        |_| Reply::Stream(vec![expired_event(5)]),
    );
    let out = tail(&fake, &["--no-reconnect"]);
    assert_one_line_error(
        &out,
        &[
            "resourceVersion 5",
            "too old resource version: 5 (105)",
            "history is compacted",
        ],
    );
}

/// Serves a watch whose connection is cut after `first` (then a MODIFIED of x at RV 21), and
/// returns tail's watch-closed notice and the watch requests it made.
fn tail_through_a_cut(first: Vec<Step>) -> (serde_json::Value, Vec<String>) {
    let fake = server(
        |_| list(10, vec![]),
        move |n| match n {
            0 => Reply::Stream(first.clone()),
            _ => Reply::Stream(vec![event("MODIFIED", "x", "ux", 21)]),
        },
    );
    let out = tail(&fake, &["--max-events", "2"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let closed = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "watch-closed")
        .expect("watch-closed");
    assert!(
        closed["reason"]
            .as_str()
            .unwrap()
            .starts_with("connection lost"),
        "{closed}"
    );
    let watches = fake
        .requests()
        .into_iter()
        .filter(|r| r.contains("watch=true"))
        .collect();
    (closed, watches)
}

#[test]
fn a_connection_cut_after_events_is_resumed_at_once_from_the_last_rv_as_client_go_does() {
    let (closed, watches) = tail_through_a_cut(vec![event("ADDED", "x", "ux", 20), Step::Reset]);
    assert_eq!(closed["retryInSeconds"], 0.0, "{closed}");
    assert!(watches[1].contains("resourceVersion=20"), "{watches:?}");
    // Without --server-timeout each watch asks for 5 to 10 minutes, as client-go's reflector.
    for watch in &watches {
        let asked: u64 = watch
            .split(['?', '&'])
            .find_map(|p| p.strip_prefix("timeoutSeconds="))
            .expect("timeoutSeconds")
            .parse()
            .unwrap();
        assert!((300..=600).contains(&asked), "{watch}");
    }
}

#[test]
fn an_event_split_across_chunks_mid_json_is_reassembled() {
    let line = match event("ADDED", "split", "us", 7) {
        Step::Chunk(s) => s,
        _ => unreachable!(),
    };
    let (a, b) = line.split_at(line.len() / 2);
    let (a, b) = (a.to_string(), b.to_string());
    let fake = server(
        |_| list(6, vec![]),
        move |_| {
            Reply::Stream(vec![
                Step::Chunk(a.clone()),
                Step::Sleep(Duration::from_millis(200)),
                Step::Chunk(b.clone()),
            ])
        },
    );
    let out = tail(&fake, &["--max-events", "1"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(summary(&out.object_events()), vec!["ADDED split 7 watch"]);
}

#[test]
fn a_malformed_event_is_reported_and_followed_by_a_relist() {
    let fake = server(
        |n| match n {
            0 => list(6, vec![configmap("a", "ua", 6)]),
            _ => list(8, vec![configmap("a", "ua", 8)]),
        },
        |n| match n {
            0 => Reply::Stream(vec![Step::Chunk(
                "{\"type\":\"ADDED\",\"object\":{\"metadata\":\n".into(),
            )]),
            _ => Reply::Stream(vec![event("DELETED", "a", "ua", 9)]),
        },
    );
    let out = tail(&fake, &["--max-events", "3"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 6 initial",
            "MODIFIED a 8 relist",
            "DELETED a 9 watch"
        ]
    );
    let closed = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "watch-closed")
        .expect("watch-closed");
    assert!(
        closed["reason"]
            .as_str()
            .unwrap()
            .contains("malformed event"),
        "{closed}"
    );
}

/// End to end: a line of hostile bytes, then a line of 65 MiB (streamed by the fake
/// server 1 MiB at a time), each close the watch with a one-line watch-closed notice naming the
/// reason, and tail relists and goes on.
#[test]
fn a_hostile_line_and_one_over_64_mib_each_close_the_watch_with_a_notice_and_a_relist() {
    let huge = r#"{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"huge","namespace":"ns","resourceVersion":"10"},"data":{"k":""#;
    let fake = server(
        |n| match n {
            0 => list(6, vec![configmap("a", "ua", 6)]),
            1 => list(8, vec![configmap("a", "ua", 8)]),
            _ => list(
                11,
                vec![
                    configmap("a", "ua", 8),
                    configmap("b", "ub", 9),
                    configmap("c", "uc", 11),
                ],
            ),
        },
        move |n| match n {
            0 => Reply::Stream(vec![
                event("MODIFIED", "a", "ua", 7),
                Step::Chunk("\u{1b}[31m{\"type\":\"ADDED\",\u{0}\"object\":\n".into()),
            ]),
            1 => Reply::Stream(vec![
                event("ADDED", "b", "ub", 9),
                Step::Chunk(huge.into()),
                Step::Repeat("x".repeat(1 << 20), 65),
                Step::Chunk("\"}}}\n".into()),
                event("ADDED", "never", "un", 99),
            ]),
            _ => Reply::Stream(vec![event("DELETED", "a", "ua", 12)]),
        },
    );
    let out = tail(&fake, &["--max-events", "6"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 6 initial",
            "MODIFIED a 7 watch",
            "MODIFIED a 8 relist",
            "ADDED b 9 watch",
            "ADDED c 11 relist",
            "DELETED a 12 watch",
        ]
    );
    let reasons: Vec<String> = out
        .json_lines()
        .into_iter()
        .filter(|l| l["notice"] == "watch-closed")
        .map(|l| l["reason"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons[0].starts_with("malformed event, relisting (")
            && reasons[0].contains(r"\u{1b}[31m{")
            && reasons[0].contains(r"\u{0}"),
        "{}",
        reasons[0]
    );
    assert_eq!(
        reasons[1],
        "a watch event of more than 64 MiB was refused by size, relisting"
    );
    assert!(!out.stdout.contains(['\u{1b}', '\0']));
    // Two relists, each after its own watch.
    let lists = fake
        .requests()
        .iter()
        .filter(|r| r.starts_with("/api/v1/namespaces/ns/configmaps?") && !r.contains("watch=true"))
        .count();
    assert_eq!(lists, 3);
}

#[test]
fn a_hostile_line_is_one_escaped_notice_line_in_tails_text() {
    let fake = server(
        |n| match n {
            0 => list(6, vec![]),
            _ => list(8, vec![configmap("a", "ua", 8)]),
        },
        |n| match n {
            0 => Reply::Stream(vec![Step::Chunk("\u{1b}]0;owned\u{7}\r{\n".into())]),
            _ => Reply::Stream(vec![]),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &fake.url);
    let out = run(&[
        "tail",
        "cm",
        "-n",
        "ns",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--max-events",
        "1",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let closed: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("watch closed"))
        .collect();
    assert_eq!(closed.len(), 1, "{}", out.stderr);
    assert!(
        closed[0].contains(r"malformed event, relisting (")
            && closed[0].contains(r"\u{1b}]0;owned\u{7}\r{")
            && closed[0].rsplit(" in ").next().is_some_and(|delay| delay
                .starts_with(|c: char| c.is_ascii_digit())
                && delay.ends_with('s')),
        "{}",
        closed[0]
    );
    assert!(
        !out.stderr.contains(['\u{1b}', '\u{7}', '\r']),
        "{:?}",
        out.stderr
    );
}

#[test]
fn a_refused_watch_list_falls_back_to_list_and_says_so() {
    let fake = server(
        |_| list(40, vec![configmap("a", "ua", 40)]),
        |n| {
            match n {
            0 => Reply::Json(
                422,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled","reason":"Invalid","code":422}"#.into(),
            ),
            _ => Reply::Stream(vec![event("MODIFIED", "a", "ua", 41)]),
        }
        },
    );
    let out = tail(&fake, &["--initial", "watch-list", "--max-events", "2"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec!["ADDED a 40 initial", "MODIFIED a 41 watch"]
    );
    let fallback = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "fallback")
        .expect("fallback notice");
    assert!(
        fallback["reason"]
            .as_str()
            .unwrap()
            .contains("WatchList feature gate"),
        "{fallback}"
    );
    let requests = fake.requests();
    assert!(
        requests[2].contains("sendInitialEvents=true"),
        "{requests:?}"
    );
    assert!(
        requests[3].starts_with("/api/v1/namespaces/ns/configmaps?limit=500"),
        "{requests:?}"
    );
}

#[test]
fn a_watch_list_whose_end_bookmark_never_comes_falls_back_to_a_relist_instead_of_hanging() {
    // What a proxy that drops bookmarks makes of a watch-list: the initial events, then the
    // stream stays open and silent (client-go's informer never syncs there).
    let fake = server(
        |_| list(10, vec![configmap("a", "ua", 9)]),
        |n| match n {
            0 => Reply::Stream(vec![
                event("ADDED", "a", "ua", 5),
                event("ADDED", "x", "ux", 6),
                Step::Sleep(Duration::from_secs(120)),
            ]),
            _ => Reply::Stream(vec![event("ADDED", "f", "uf", 11)]),
        },
    );
    let out = tail(
        &fake,
        &[
            "--initial",
            "watch-list",
            "--initial-events-timeout",
            "1s",
            "--max-events",
            "5",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 5 initial",
            "ADDED x 6 initial",
            "MODIFIED a 9 relist",
            "DELETED x 6 relist",
            "ADDED f 11 watch",
        ]
    );
    let fallback = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "fallback")
        .expect("fallback notice");
    let reason = fallback["reason"].as_str().unwrap();
    assert!(
        reason.contains("accepted the watch-list but sent no k8s.io/initial-events-end bookmark within 1s of its last initial event (2 came)"),
        "{fallback}"
    );
    let watches: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|r| r.contains("watch=true"))
        .collect();
    assert!(
        watches[1].contains("resourceVersion=10") && !watches[1].contains("sendInitialEvents"),
        "after the relist a plain watch from its RV: {watches:?}"
    );
}

#[test]
fn initial_events_timeout_is_refused_without_a_watch_list() {
    for args in [
        vec!["tail", "cm", "--initial-events-timeout", "5s"],
        // diff's default is a watch-list: refused only with --initial list.
        vec![
            "diff",
            "cm",
            "--initial",
            "list",
            "--initial-events-timeout",
            "5s",
        ],
    ] {
        let out = run(&args);
        assert_one_line_error(&out, &["--initial-events-timeout 5s: only a watch-list"]);
    }
    let out = run(&[
        "tail",
        "cm",
        "--initial",
        "watch-list",
        "--initial-events-timeout",
        "0",
    ]);
    assert_one_line_error(&out, &["--initial-events-timeout 0"]);
}

#[test]
fn with_no_reconnect_a_malformed_line_is_an_error_naming_the_rv_it_followed() {
    let fake = server(
        |_| list(6, vec![]),
        |_| {
            Reply::Stream(vec![
                event("ADDED", "a", "ua", 7),
                Step::Chunk("not json at all\n".into()),
            ])
        },
    );
    let out = tail(&fake, &["--no-reconnect"]);
    assert_one_line_error(
        &out,
        &[
            "after resourceVersion 7",
            "cannot be decoded",
            "not json at all",
        ],
    );
}

#[test]
fn an_unknown_event_type_is_reported_and_followed_by_a_relist() {
    let fake = server(
        |n| match n {
            0 => list(6, vec![]),
            _ => list(9, vec![configmap("a", "ua", 8)]),
        },
        |n| {
            match n {
            0 => Reply::Stream(vec![Step::Chunk(
                r#"{"type":"RENAMED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"8"}}}"#.to_string() + "\n",
            )]),
            _ => Reply::Stream(vec![]),
        }
        },
    );
    let out = tail(&fake, &["--max-events", "1"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(summary(&out.object_events()), vec!["ADDED a 8 relist"]);
    let closed = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "watch-closed")
        .unwrap();
    let reason = closed["reason"].as_str().unwrap();
    assert!(
        reason.contains(r#"unknown event type "RENAMED""#),
        "{reason}"
    );
}

#[test]
fn a_429_waits_as_long_as_the_servers_retry_after_then_goes_on() {
    let fake = server(
        |_| list(6, vec![]),
        |n| {
            match n {
            0 => Reply::Json(
                429,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":2},"code":429}"#.into(),
            ),
            _ => Reply::Stream(vec![event("ADDED", "a", "ua", 7)]),
        }
        },
    );
    let out = tail(&fake, &["--max-events", "1"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let failed = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "watch-failed")
        .expect("watch-failed");
    assert_eq!(failed["retryInSeconds"], 2.0, "{failed}");
    assert!(
        failed["error"].as_str().unwrap().contains("429"),
        "{failed}"
    );
    assert_eq!(summary(&out.object_events()), vec!["ADDED a 7 watch"]);
}

#[test]
fn a_plain_text_429_waits_as_long_as_its_retry_after_header_asks() {
    // API Priority and Fairness and max-in-flight answer in plain text, the wait in the header.
    let fake = server(
        |_| list(6, vec![]),
        |n| match n {
            0 => Reply::Text(
                429,
                vec!["Retry-After: 3".into()],
                "Too many requests, please try again later.\n".into(),
            ),
            _ => Reply::Stream(vec![event("ADDED", "a", "ua", 7)]),
        },
    );
    let out = tail(&fake, &["--max-events", "1"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let failed = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "watch-failed")
        .expect("watch-failed");
    assert_eq!(failed["retryInSeconds"], 3.0, "{failed}");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .contains("Too many requests"),
        "{failed}"
    );
    assert_eq!(summary(&out.object_events()), vec!["ADDED a 7 watch"]);
}

#[test]
fn diff_every_stops_with_the_reason_when_the_informers_watch_fails_for_good() {
    // Synced, then the watch is forbidden (permissions revoked): the informer stops, and its
    // cache would never move again.
    let fake = server(
        |_| list(10, vec![configmap("a", "ua", 10)]),
        |_| {
            Reply::Json(
                403,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps is forbidden: User \"u\" cannot watch resource \"configmaps\" in the namespace \"ns\"","reason":"Forbidden","code":403}"#.into(),
            )
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &fake.url);
    let out = run(&[
        "diff",
        "cm",
        "-n",
        "ns",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--every",
        "1s",
        "--for",
        "30s",
    ]);
    assert_one_line_error(&out, &["cannot watch resource"]);
}

#[test]
fn until_rv_reached_by_an_object_of_the_list_stops_at_the_end_of_the_list() {
    // A LIST's objects come in no RV order; its state is at its own RV, 10.
    let fake = server(
        |_| {
            list(
                10,
                vec![
                    configmap("a", "ua", 8),
                    configmap("b", "ub", 9),
                    configmap("c", "uc", 5),
                ],
            )
        },
        |_| Reply::Stream(vec![event("ADDED", "f", "uf", 11)]),
    );
    let out = tail(&fake, &["--until-rv", "7"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec![
            "ADDED a 8 initial",
            "ADDED b 9 initial",
            "ADDED c 5 initial"
        ]
    );
    let complete = out
        .json_lines()
        .into_iter()
        .find(|l| l["notice"] == "list-complete")
        .expect("list-complete");
    assert_eq!(complete["resourceVersion"], "10", "{complete}");
}

#[test]
fn a_throttled_list_page_is_retried_and_said_as_a_list_failure() {
    let fake = server(
        |n| match n {
            0 => Reply::Text(
                429,
                vec!["Retry-After: 1".into()],
                "Too many requests\n".into(),
            ),
            _ => list(6, vec![configmap("a", "ua", 6)]),
        },
        |_| Reply::Stream(vec![event("ADDED", "b", "ub", 7)]),
    );
    let out = tail(&fake, &["--max-events", "2"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(
        summary(&out.object_events()),
        vec!["ADDED a 6 initial", "ADDED b 7 watch"]
    );
    let notices = out.json_lines();
    let failed = notices
        .iter()
        .find(|l| l["notice"] == "list-failed")
        .expect("list-failed");
    assert_eq!(failed["retryInSeconds"], 1.0, "{failed}");
    assert!(
        !notices.iter().any(|l| l["notice"] == "watch-failed"),
        "a LIST is not a watch: {}",
        out.stdout
    );
}

#[test]
fn a_proxys_html_error_page_is_one_short_line() {
    let page = format!(
        "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n{}\n</body>\n</html>\n",
        "<p>upstream connect error</p>\n".repeat(40)
    );
    let fake = server(
        move |_| Reply::Text(502, vec![], page.clone()),
        |_| Reply::Stream(vec![]),
    );
    let out = tail(&fake, &["--max-events", "1"]);
    assert_one_line_error(&out, &["502", "502 Bad Gateway"]);
    let line = out.stderr.lines().last().unwrap();
    assert!(line.len() < 600, "{line}");
}

/// Configmaps and services in namespace `ns`: `on_list(resource, n)` / `on_watch(resource, n)`
/// answer the n-th LIST / WATCH of each (`resource` is `configmaps` or `services`).
fn two_resources(
    on_list: impl Fn(&str, usize) -> Reply + Send + Sync + 'static,
    on_watch: impl Fn(&str, usize) -> Reply + Send + Sync + 'static,
) -> FakeServer {
    let discovery = core_discovery_of(&[
        ("configmaps", "ConfigMap", &["cm"]),
        ("services", "Service", &["svc"]),
    ]);
    FakeServer::start(move |target, n| {
        let path = target.split('?').next().unwrap_or("");
        match path {
            "/api" => discovery.clone(),
            "/apis" => empty_discovery(),
            _ => match path.strip_prefix("/api/v1/namespaces/ns/") {
                Some(r @ ("configmaps" | "services")) if target.contains("watch=true") => {
                    on_watch(r, n)
                }
                Some(r @ ("configmaps" | "services")) => on_list(r, n),
                _ => Reply::Json(
                    404,
                    r#"{"kind":"Status","code":404,"reason":"NotFound","message":"not found"}"#
                        .into(),
                ),
            },
        }
    })
}

/// A watch that sends `steps` and then stays open, quiet, longer than any test runs.
fn then_quiet(mut steps: Vec<Step>) -> Reply {
    steps.push(Step::Sleep(Duration::from_secs(120)));
    Reply::Stream(steps)
}

#[test]
fn a_410_on_one_of_several_resources_relists_that_one_and_leaves_the_others_watch_alone() {
    let fake = two_resources(
        |resource, n| match (resource, n) {
            ("configmaps", 0) => list(12, vec![configmap("a", "ua", 10)]),
            // What changed while the configmaps' watch was away: a changed, d added.
            ("configmaps", _) => list(20, vec![configmap("a", "ua", 15), configmap("d", "ud", 20)]),
            _ => list_of("Service", 5, vec![configmap("s", "us", 5)]),
        },
        |resource, n| match (resource, n) {
            ("configmaps", 0) => {
                Reply::Stream(vec![event("MODIFIED", "a", "ua", 13), expired_event(13)])
            }
            ("configmaps", 1) => then_quiet(vec![event("ADDED", "f", "uf", 21)]),
            ("services", 0) => then_quiet(vec![event_of("Service", "MODIFIED", "s", "us", 6)]),
            _ => then_quiet(Vec::new()),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &fake.url);
    let out = run(&[
        "tail",
        "cm,svc",
        "-n",
        "ns",
        "-o",
        "json",
        "--max-events",
        "7",
        "--kubeconfig",
        kc.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let events = out.object_events();
    let of = |resource: &str| {
        let mine: Vec<serde_json::Value> = events
            .iter()
            .filter(|e| e["resource"] == resource)
            .cloned()
            .collect();
        summary(&mine)
    };
    assert_eq!(
        of("configmaps"),
        [
            "ADDED a 10 initial",
            "MODIFIED a 13 watch",
            "MODIFIED a 15 relist",
            "ADDED d 20 relist",
            "ADDED f 21 watch",
        ],
        "{}",
        out.stdout
    );
    assert_eq!(
        of("services"),
        ["ADDED s 5 initial", "MODIFIED s 6 watch"],
        "{}",
        out.stdout
    );
    // The 410 and its relist are the configmaps' and said so; the services saw neither.
    let notices: Vec<serde_json::Value> = out
        .json_lines()
        .into_iter()
        .filter(|l| l["type"] == "NOTICE")
        .collect();
    let of_kind = |name: &str| -> Vec<String> {
        notices
            .iter()
            .filter(|n| n["notice"] == name)
            .map(|n| n["resource"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(of_kind("expired"), ["configmaps"], "{notices:?}");
    let relisted: Vec<&serde_json::Value> = notices
        .iter()
        .filter(|n| n["notice"] == "list-complete" && n["relist"] == true)
        .collect();
    assert_eq!(relisted.len(), 1, "{notices:?}");
    assert_eq!(relisted[0]["resource"], "configmaps");
    let requests = fake.requests();
    let count = |path: &str, watch: bool| {
        requests
            .iter()
            .filter(|r| r.split('?').next() == Some(path) && r.contains("watch=true") == watch)
            .count()
    };
    assert_eq!(
        count("/api/v1/namespaces/ns/services", false),
        1,
        "{requests:?}"
    );
    assert_eq!(
        count("/api/v1/namespaces/ns/services", true),
        1,
        "{requests:?}"
    );
    assert_eq!(
        count("/api/v1/namespaces/ns/configmaps", false),
        2,
        "{requests:?}"
    );
    let cm_watches: Vec<&String> = requests
        .iter()
        .filter(|r| r.starts_with("/api/v1/namespaces/ns/configmaps?") && r.contains("watch=true"))
        .collect();
    assert!(
        cm_watches[1].contains("resourceVersion=20"),
        "{cm_watches:?}"
    );
}

#[test]
fn wide_output_of_several_resources_names_each_objects_kind_and_uid() {
    let fake = two_resources(
        |resource, _| match resource {
            "configmaps" => list(12, vec![configmap("a", "ua", 10)]),
            _ => list_of("Service", 5, vec![configmap("s", "us", 5)]),
        },
        |resource, n| match (resource, n) {
            ("configmaps", 0) => then_quiet(vec![event("MODIFIED", "a", "ua", 13)]),
            ("services", 0) => then_quiet(vec![event_of("Service", "DELETED", "s", "us", 6)]),
            _ => then_quiet(Vec::new()),
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &fake.url);
    let out = run(&[
        "tail",
        "configmaps,services",
        "-n",
        "ns",
        "-o",
        "wide",
        "--max-events",
        "4",
        "--kubeconfig",
        kc.to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", out.stdout);
    // Each line: the type, the RV, the kind, the object as `kubectl get a,b` names it, its uid.
    for (event, rv, kind, name, uid) in [
        ("ADDED", "10", "ConfigMap", "ns  configmap/a", "ua"),
        ("MODIFIED", "13", "ConfigMap", "ns  configmap/a", "ua"),
        ("ADDED", "5", "Service", "ns  service/s", "us"),
        ("DELETED", "6", "Service", "ns  service/s", "us"),
    ] {
        let found = lines.iter().find(|l| {
            let columns: Vec<&str> = l.split_whitespace().collect();
            columns.get(1) == Some(&event) && columns.get(2) == Some(&rv)
        });
        let line = found.unwrap_or_else(|| panic!("no {event} at RV {rv}:\n{}", out.stdout));
        let columns: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(columns[3], kind, "{line}");
        assert!(
            line.contains(&format!("  {name}  {uid}  gen=-  delay=")),
            "{line}"
        );
    }
    // Notices go to stderr and name their resource.
    for resource in ["configmaps", "services"] {
        assert!(
            out.stderr
                .contains(&format!("{resource}: watch opened from RV ")),
            "{}",
            out.stderr
        );
    }
}
