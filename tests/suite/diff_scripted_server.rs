//! `diff` on a scripted server, for what a real one will not do on demand: drift that appears
//! and heals (for the `--every` watchdog), and a cache RV the server can no longer list exactly.

use crate::common::fake::*;
use crate::common::*;

fn query(target: &str, key: &str) -> Option<String> {
    target
        .split_once('?')?
        .1
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")).map(str::to_string))
}

/// `diff cm -n ns -o json` against the scripted server, with `extra`; the kubeconfig is
/// written in `dir`.
fn diff_args(fake: &FakeServer, dir: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let kc = kubeconfig(dir, &fake.url);
    let mut args: Vec<String> = ["diff", "cm", "-n", "ns", "-o", "json", "--kubeconfig"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    args.push(kc.to_str().unwrap().to_string());
    // The scripted server serves LIST + WATCH; it does not speak the watch-list (a cache file
    // has no informer to start).
    if !extra.contains(&"--cache-file") {
        args.extend(["--initial".to_string(), "list".to_string()]);
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

fn diff(fake: &FakeServer, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let args = diff_args(fake, dir.path(), extra);
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn reports(out: &Output) -> Vec<serde_json::Value> {
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn every_reports_drift_then_the_time_it_took_to_heal() {
    // The informer's LIST misses b; the LIST at RV 10 has it (a server bug, say); the watch
    // then brings b at RV 12, and the comparison at 12 agrees.
    let fake = FakeServer::start(|target, _| {
        let path = target.split('?').next().unwrap_or("");
        match (
            path,
            query(target, "watch"),
            query(target, "resourceVersionMatch"),
            query(target, "resourceVersion"),
        ) {
            ("/api", ..) => core_discovery(),
            ("/apis", ..) => empty_discovery(),
            (_, Some(_), ..) => Reply::Stream(vec![
                Step::Sleep(std::time::Duration::from_millis(1500)),
                event("MODIFIED", "b", "ub", 12),
                Step::Sleep(std::time::Duration::from_secs(30)),
            ]),
            (_, None, Some(m), Some(rv)) if m == "Exact" && rv == "10" => {
                list(10, vec![configmap("a", "ua", 5), configmap("b", "ub", 9)])
            }
            (_, None, Some(m), Some(rv)) if m == "Exact" && rv == "12" => {
                list(12, vec![configmap("a", "ua", 5), configmap("b", "ub", 12)])
            }
            _ => list(10, vec![configmap("a", "ua", 5)]),
        }
    });
    // Watched until it has healed, however long the comparisons take on a busy machine.
    let dir = tempfile::tempdir().unwrap();
    let args = diff_args(&fake, dir.path(), &["--every", "1s"]);
    let mut watchdog = Streaming::start(&args.iter().map(String::as_str).collect::<Vec<_>>());
    let limit = std::time::Duration::from_secs(60);
    watchdog.wait_for("a report of drift", limit, |l| l.contains("\"missing\":1"));
    watchdog.wait_for("a report of the drift healed", limit, |l| {
        l.contains("\"healedAt\":\"")
    });
    std::process::Command::new("kill")
        .args(["-INT", &watchdog.pid().to_string()])
        .status()
        .unwrap();
    let out = watchdog.finish(limit);
    assert_eq!(out.code, Some(130), "{}\n{}", out.stdout, out.stderr);
    let reports = reports(&out);
    assert_eq!(reports[0]["objects"][0]["class"], "missing");
    assert_eq!(reports[0]["objects"][0]["name"], "b");
    assert!(
        reports[0]["watchdog"]["healedAt"].is_null(),
        "{}",
        reports[0]
    );
    let healed = reports
        .iter()
        .find(|r| r["watchdog"]["healedAt"].is_string())
        .unwrap();
    assert_eq!(healed["objects"].as_array().unwrap().len(), 0);
    assert_eq!(healed["resourceVersion"], "12");
    let after = healed["watchdog"]["healedAfterSeconds"]
        .as_f64()
        .expect("healed time");
    assert!(after > 0.0, "{after}");
    assert!(healed["watchdog"]["driftFirstSeen"].is_string());
}

#[test]
fn an_rv_that_can_no_longer_be_listed_exactly_falls_back_and_says_so() {
    let fake = FakeServer::start(|target, _| {
        let path = target.split('?').next().unwrap_or("");
        match (path, query(target, "watch"), query(target, "resourceVersionMatch"), query(target, "resourceVersion")) {
            ("/api", ..) => core_discovery(),
            ("/apis", ..) => empty_discovery(),
            (_, Some(_), ..) => Reply::Stream(vec![
                Step::Sleep(std::time::Duration::from_millis(300)),
                Step::Chunk(
                    r#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"20"}}}"#.to_string() + "\n",
                ),
                Step::Sleep(std::time::Duration::from_secs(30)),
            ]),
            (_, None, Some(m), Some(rv)) if m == "Exact" && rv == "10" => Reply::Json(
                410,
                r#"{"kind":"Status","apiVersion":"v1","status":"Failure","message":"The resourceVersion for the provided list is too old.","reason":"Expired","code":410}"#.into(),
            ),
            (_, None, Some(m), Some(rv)) if m == "Exact" && rv == "20" => list(20, vec![configmap("a", "ua", 5)]),
            (_, None, None, None) if query(target, "limit").as_deref() == Some("1") => list(20, vec![configmap("a", "ua", 5)]),
            _ => list(10, vec![configmap("a", "ua", 5)]),
        }
    });
    let out = diff(&fake, &[]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let r = &reports(&out)[0];
    assert_eq!(r["method"], "exact-after-catch-up");
    assert_eq!(r["resourceVersion"], "20");
    assert!(
        out.stderr
            .contains("can no longer be listed exactly (410 Gone)"),
        "{}",
        out.stderr
    );
    let requests = fake.requests();
    assert!(
        !requests
            .iter()
            .any(|r| query(r, "resourceVersion").as_deref() == Some("0")),
        "never RV 0: {requests:?}"
    );
}

#[test]
fn history_compacted_mid_list_restarts_the_comparison_at_a_newer_rv() {
    let fake = FakeServer::start(|target, _| {
        let path = target.split('?').next().unwrap_or("");
        let cont = query(target, "continue");
        match (path, query(target, "watch"), query(target, "resourceVersionMatch"), query(target, "resourceVersion")) {
            ("/api", ..) => core_discovery(),
            ("/apis", ..) => empty_discovery(),
            (_, Some(_), ..) => Reply::Stream(vec![
                Step::Sleep(std::time::Duration::from_millis(300)),
                Step::Chunk(
                    r#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"20"}}}"#.to_string() + "\n",
                ),
                Step::Sleep(std::time::Duration::from_secs(30)),
            ]),
            _ if cont.as_deref() == Some("page2") => continue_expired(),
            (_, None, Some(m), Some(rv)) if m == "Exact" && rv == "10" => Reply::Json(
                200,
                serde_json::json!({"kind": "ConfigMapList", "apiVersion": "v1",
                    "metadata": {"resourceVersion": "10", "continue": "page2", "remainingItemCount": 1},
                    "items": [configmap("a", "ua", 5)]})
                .to_string(),
            ),
            (_, None, Some(m), Some(rv)) if m == "Exact" && rv == "20" => {
                list(20, vec![configmap("a", "ua", 5), configmap("b", "ub", 6)])
            }
            (_, None, None, None) if query(target, "limit").as_deref() == Some("1") => list(20, vec![]),
            _ => list(10, vec![configmap("a", "ua", 5), configmap("b", "ub", 6)]),
        }
    });
    let out = diff(&fake, &[]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let r = &reports(&out)[0];
    assert_eq!(r["method"], "exact-after-catch-up");
    assert_eq!(r["compared"], 2);
    assert!(
        out.stderr
            .contains("waiting for the cache to reach the server's newest RV 20"),
        "{}",
        out.stderr
    );
}

#[test]
fn every_stops_with_exit_0_when_the_reader_of_stdout_goes_away() {
    let fake = FakeServer::start(|target, _| {
        let path = target.split('?').next().unwrap_or("");
        match (path, query(target, "watch")) {
            ("/api", _) => core_discovery(),
            ("/apis", _) => empty_discovery(),
            (_, Some(_)) => Reply::Stream(vec![Step::Sleep(std::time::Duration::from_secs(60))]),
            _ => list(10, vec![configmap("a", "ua", 5)]),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &fake.url);
    let mut diff = Streaming::start(&[
        "diff",
        "cm",
        "-n",
        "ns",
        // The scripted server serves LIST + WATCH; it does not speak the watch-list.
        "--initial",
        "list",
        "-o",
        "json",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--every",
        "200ms",
    ]);
    diff.wait_for(
        "the first report",
        std::time::Duration::from_secs(20),
        |l| l.contains("\"objects\""),
    );
    // As `| head -1` does.
    diff.stop_reading_stdout();
    let out = diff.finish(std::time::Duration::from_secs(20));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
}

#[test]
fn a_cache_file_list_whose_continue_token_expires_starts_over_in_one_request() {
    let fake = FakeServer::start(|target, _| {
        let path = target.split('?').next().unwrap_or("");
        match (path, query(target, "continue"), query(target, "limit")) {
            ("/api", ..) => core_discovery(),
            ("/apis", ..) => empty_discovery(),
            (_, Some(_), _) => continue_expired(),
            (_, None, Some(_)) => Reply::Json(
                200,
                serde_json::json!({"kind": "ConfigMapList", "apiVersion": "v1",
                    "metadata": {"resourceVersion": "7", "continue": "p2", "remainingItemCount": 1},
                    "items": [configmap("a", "ua", 5)]})
                .to_string(),
            ),
            (_, None, None) => list(9, vec![configmap("a", "ua", 5), configmap("b", "ub", 6)]),
        }
    });
    // As tail records them: with their kind and apiVersion.
    let recorded = |name: &str, uid: &str, rv: u64| {
        let mut o = configmap(name, uid, rv);
        o["kind"] = "ConfigMap".into();
        o["apiVersion"] = "v1".into();
        o
    };
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.jsonl");
    std::fs::write(
        &cache,
        [
            r#"{"type":"NOTICE","notice":"start","resource":"configmaps","namespace":"ns"}"#,
            &serde_json::json!({"type": "ADDED", "object": recorded("a", "ua", 5)}).to_string(),
            &serde_json::json!({"type": "ADDED", "object": recorded("b", "ub", 6)}).to_string(),
            r#"{"type":"NOTICE","notice":"list-complete","resourceVersion":"6"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let out = diff(&fake, &["--cache-file", cache.to_str().unwrap()]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let report = &reports(&out)[0];
    assert_eq!(report["compared"], 2, "{report}");
    assert_eq!(report["resourceVersion"], "9", "{report}");
    let lists: Vec<String> = fake
        .requests()
        .into_iter()
        .filter(|r| r.starts_with("/api/v1/namespaces/ns/configmaps"))
        .collect();
    assert!(
        lists.len() == 3 && !lists[2].contains("limit="),
        "{lists:?}"
    );

    // A recording of changes only (no list-complete) is not a whole cache.
    let changes = dir.path().join("changes.jsonl");
    std::fs::write(
        &changes,
        [
            r#"{"type":"NOTICE","notice":"start","resource":"configmaps","namespace":"ns"}"#,
            &serde_json::json!({"type": "MODIFIED", "object": recorded("a", "ua", 8)}).to_string(),
        ]
        .join("\n"),
    )
    .unwrap();
    let out = diff(&fake, &["--cache-file", changes.to_str().unwrap()]);
    assert_one_line_error(&out, &["holds no complete LIST"]);
    // Nor is one made with `tail --initial none`: the end of its LIST, without the objects.
    let unshown = dir.path().join("unshown.jsonl");
    std::fs::write(
        &unshown,
        [
            r#"{"type":"NOTICE","notice":"start","resource":"configmaps","namespace":"ns"}"#,
            r#"{"type":"NOTICE","notice":"list-complete","resourceVersion":"6","objects":2,"pages":1,"relist":false}"#,
            &serde_json::json!({"type": "MODIFIED", "object": recorded("a", "ua", 8)}).to_string(),
        ]
        .join("\n"),
    )
    .unwrap();
    let out = diff(&fake, &["--cache-file", unshown.to_str().unwrap()]);
    assert_one_line_error(&out, &["holds no complete LIST"]);
}

/// Aggregated discovery for `/apis` serving the custom resource `widgets` of
/// `bench.informer.test/v1`.
fn widget_discovery() -> Reply {
    let body = serde_json::json!({
        "kind": "APIGroupDiscoveryList", "apiVersion": "apidiscovery.k8s.io/v2",
        "items": [{"metadata": {"name": "bench.informer.test"}, "versions": [{"version": "v1", "resources": [{
            "resource": "widgets", "responseKind": {"group": "bench.informer.test", "version": "v1", "kind": "Widget"},
            "scope": "Namespaced", "singularResource": "widget", "verbs": ["list", "watch", "get"]
        }]}]}]
    })
    .to_string();
    Reply::Typed(200, AGGREGATED, body)
}

/// A widget's LIST item at RV 10; `spec` is its spec's JSON text, as the server wrote it.
fn widget_list(spec: &str, metadata_first: bool) -> Reply {
    let metadata = r#"{"name":"w","namespace":"ns","uid":"uw","resourceVersion":"10","labels":{"app":"a","tier":"b"}}"#;
    let item = if metadata_first {
        format!(r#"{{"metadata":{metadata},"spec":{spec}}}"#)
    } else {
        let reordered = r#"{"labels":{"tier":"b","app":"a"},"resourceVersion":"10","uid":"uw","namespace":"ns","name":"w"}"#;
        format!(r#"{{"spec":{spec},"metadata":{reordered}}}"#)
    };
    Reply::Json(
        200,
        format!(
            r#"{{"kind":"WidgetList","apiVersion":"bench.informer.test/v1","metadata":{{"resourceVersion":"10"}},"items":[{item}]}}"#
        ),
    )
}

/// `diff widgets` where the informer's LIST and the exact LIST at the same RV give `cached` and
/// `listed` (each a spec's text and whether metadata comes first), with `extra` flags.
fn diff_widget(
    cached: (&'static str, bool),
    listed: (&'static str, bool),
    extra: &[&str],
) -> Output {
    let fake = FakeServer::start(move |target, _| {
        let path = target.split('?').next().unwrap_or("");
        match (
            path,
            query(target, "watch"),
            query(target, "resourceVersionMatch"),
        ) {
            ("/api", ..) => core_discovery(),
            ("/apis", ..) => widget_discovery(),
            (_, Some(_), _) => Reply::Stream(vec![Step::Sleep(std::time::Duration::from_secs(30))]),
            (_, None, Some(m)) if m == "Exact" => widget_list(listed.0, listed.1),
            _ => widget_list(cached.0, cached.1),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), &fake.url);
    let mut args = vec![
        "diff",
        "widgets",
        "-n",
        "ns",
        "-o",
        "json",
        "--initial",
        "list",
    ];
    args.extend(["--kubeconfig", kc.to_str().unwrap()]);
    args.extend(extra);
    run(&args)
}

#[test]
fn a_custom_resource_differing_only_in_key_order_has_no_drift_and_changed_content_has() {
    const SPEC: &str = r#"{"replicas":2,"settings":{"a":"1","b":"2"},"ports":[{"name":"http","port":80}],"weight":0.5}"#;
    const REORDERED: &str = r#"{"weight":0.5,"ports":[{"port":80,"name":"http"}],"settings":{"b":"2","a":"1"},"replicas":2}"#;
    const CHANGED: &str = r#"{"weight":0.5,"ports":[{"port":81,"name":"http"}],"settings":{"b":"2","a":"1"},"replicas":2}"#;
    // By default the objects are kept as digests; with --show-fields, as their JSON.
    for extra in [&[][..], &["--show-fields"][..]] {
        let out = diff_widget((SPEC, true), (REORDERED, false), extra);
        assert_eq!(
            out.code,
            Some(0),
            "{extra:?}: {}\n{}",
            out.stdout,
            out.stderr
        );
        let r = &reports(&out)[0];
        assert_eq!(
            (r["compared"].as_u64(), r["method"].as_str()),
            (Some(1), Some("exact")),
            "{r}"
        );
        assert_eq!(r["objects"].as_array().unwrap().len(), 0, "{extra:?}: {r}");

        let out = diff_widget((SPEC, true), (CHANGED, false), extra);
        assert_eq!(
            out.code,
            Some(1),
            "{extra:?}: {}\n{}",
            out.stdout,
            out.stderr
        );
        let r = &reports(&out)[0];
        let drift = &r["objects"][0];
        assert_eq!(
            (drift["class"].as_str(), drift["name"].as_str()),
            (Some("content"), Some("w")),
            "{r}"
        );
        if !extra.is_empty() {
            assert!(
                drift["fields"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("spec.ports"),
                "{r}"
            );
        }
    }
}
