//! `tail` against the real control plane: initial LIST, watch events with the resourceVersions
//! the API returned, selectors, bookmarks, server-side closes and reconnects, stop conditions,
//! and the process conventions (broken pipe, Ctrl-C).

use crate::common::*;
use std::time::Duration;

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn lists_then_watches_with_the_resource_versions_the_api_returned() {
    let ns = TestNamespace::new("tail").await;
    let rv_a = ns.create_configmap("a", &[]).await;
    let rv_b = ns.create_configmap("b", &[]).await;
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--max-events",
        "5",
    ]);
    let start = tail.wait_for_notice("start");
    assert_eq!(start["schemaVersion"], 2);
    assert_eq!(start["resource"], "configmaps");
    assert_eq!(start["namespace"], ns.name.as_str());
    tail.wait_for_notice("watch-opened");
    let rv_c = ns.create_configmap("c", &[]).await;
    let rv_a2 = ns.update_configmap("a", "v1").await;
    ns.delete_configmap("b").await;
    let out = tail.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let events = out.object_events();
    let got: Vec<(String, String, String, String)> = events
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_string(),
                e["name"].as_str().unwrap().to_string(),
                e["resourceVersion"].as_str().unwrap().to_string(),
                e["origin"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let s = |x: &str| x.to_string();
    assert_eq!(got[0], (s("ADDED"), s("a"), rv_a, s("initial")));
    assert_eq!(got[1], (s("ADDED"), s("b"), rv_b, s("initial")));
    assert_eq!(got[2], (s("ADDED"), s("c"), rv_c, s("watch")));
    assert_eq!(got[3], (s("MODIFIED"), s("a"), rv_a2, s("watch")));
    assert_eq!(got[4].0, "DELETED");
    assert_eq!(got[4].1, "b");
    // The whole object as the server sent it, with kind and apiVersion also on listed items.
    assert_eq!(events[0]["object"]["kind"], "ConfigMap");
    assert_eq!(events[0]["object"]["apiVersion"], "v1");
    assert_eq!(events[3]["object"]["data"]["k"], "v1");
    assert_eq!(events[0]["namespace"], ns.name.as_str());
    assert!(events[0]["uid"].as_str().is_some_and(|u| !u.is_empty()));
    assert!(events[0]["time"].as_str().unwrap().ends_with('Z'));
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn initial_none_prints_only_changes_and_pages_are_followed() {
    let ns = TestNamespace::new("none").await;
    for i in 0..7 {
        ns.create_configmap(&format!("old-{i}"), &[]).await;
    }
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--initial",
        "none",
        "--chunk-size",
        "3",
        "--max-events",
        "1",
    ]);
    let listed = tail.wait_for_notice("list-complete");
    assert_eq!(listed["objects"], 7);
    assert_eq!(listed["pages"], 3);
    tail.wait_for_notice("watch-opened");
    ns.create_configmap("new", &[]).await;
    let out = tail.finish(Duration::from_secs(30));
    let events = out.object_events();
    assert_eq!(events.len(), 1, "{}", out.stdout);
    assert_eq!(events[0]["name"], "new");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_name_and_a_label_selector_narrow_the_events() {
    let ns = TestNamespace::new("narrow").await;
    ns.create_configmap("web-1", &[("app", "web")]).await;
    ns.create_configmap("db-1", &[("app", "db")]).await;
    let out = run(&[
        "tail", "cm", "db-1", "-n", &ns.name, "-o", "json", "--for", "2s",
    ]);
    let names: Vec<String> = out
        .object_events()
        .iter()
        .map(|e| e["name"].to_string())
        .collect();
    assert_eq!(names, vec!["\"db-1\""], "{}", out.stderr);
    let out = run(&[
        "tail", "cm", "-n", &ns.name, "-l", "app=web", "-o", "json", "--for", "2s",
    ]);
    let names: Vec<String> = out
        .object_events()
        .iter()
        .map(|e| e["name"].to_string())
        .collect();
    assert_eq!(names, vec!["\"web-1\""], "{}", out.stderr);
}

/// A namespace that does not exist is said after the empty LIST (kubectl says "No resources
/// found in ... namespace"), and the watch goes on: created, its objects come as ADDED.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_namespace_that_does_not_exist_is_a_notice_and_the_watch_goes_on() {
    let name = unique("not-yet");
    let mut tail = Streaming::start(&["tail", "cm", "-n", &name, "-o", "json"]);
    let notice = tail.wait_for_notice("not-found");
    assert_eq!(notice["missing"], "namespace", "{notice}");
    assert_eq!(notice["namespace"], name.as_str(), "{notice}");
    assert_eq!(notice["name"], serde_json::Value::Null, "{notice}");
    tail.wait_for_notice("watch-opened");
    let ns = TestNamespace::named(name, admin().await).await;
    ns.create_configmap("late", &[]).await;
    let added = tail.wait_for(
        "the ADDED of the new ConfigMap",
        Duration::from_secs(60),
        |l| l.contains("\"ADDED\"") && l.contains("\"late\""),
    );
    assert!(added.contains("\"origin\":\"watch\""), "{added}");
}

/// An object named that is not there is said (in text, as the server's NotFound names it), in
/// a namespace that exists; an empty namespace, with no name, is only an empty LIST.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn an_object_named_that_is_not_there_is_a_notice_and_an_empty_namespace_is_not() {
    let ns = TestNamespace::new("no-such-obj").await;
    let mut tail = Streaming::start(&["tail", "cm", "web", "-n", &ns.name, "-o", "json"]);
    let notice = tail.wait_for_notice("not-found");
    assert_eq!(notice["missing"], "object", "{notice}");
    assert_eq!(notice["name"], "web", "{notice}");
    let out = run(&["tail", "cm", "web", "-n", &ns.name, "--for", "1s"]);
    assert!(
        out.stderr.contains(&format!(
            "configmaps \"web\" not found in namespace \"{}\": watching for it to appear",
            ns.name
        )),
        "{}",
        out.stderr
    );
    // The namespace exists and nothing was named: nothing is missing.
    let out = run(&["tail", "cm", "-n", &ns.name, "-o", "json", "--for", "1s"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("\"list-complete\""), "{}", out.stdout);
    assert!(!out.stdout.contains("not-found"), "{}", out.stdout);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn server_side_close_is_reported_and_the_watch_resumes_from_the_last_rv() {
    let ns = TestNamespace::new("reconnect").await;
    let other = TestNamespace::new("elsewhere").await;
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--server-timeout",
        "4s",
        "--for",
        "30s",
    ]);
    tail.wait_for_notice("watch-opened");
    // A change the watch does not see still advances the RV its bookmarks carry.
    let elsewhere_rv: u64 = other.create_configmap("x", &[]).await.parse().unwrap();
    let bookmark = tail.wait_for("a BOOKMARK", Duration::from_secs(20), |l| {
        l.contains("\"BOOKMARK\"")
    });
    let bookmark: serde_json::Value = serde_json::from_str(&bookmark).unwrap();
    let bookmark_rv: u64 = bookmark["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        bookmark_rv >= elsewhere_rv,
        "bookmark {bookmark_rv} < {elsewhere_rv}"
    );
    let closed = tail.wait_for_notice("watch-closed");
    assert_eq!(closed["reason"], "closed by the server");
    assert_eq!(closed["retryInSeconds"], 0.0);
    let reopened = tail.wait_for_notice("watch-opened");
    assert_eq!(reopened["resourceVersion"], closed["resourceVersion"]);
    // Changes after the reconnect still arrive.
    let rv = ns.create_configmap("after", &[]).await;
    let line = tail.wait_for("the ADDED after reconnect", Duration::from_secs(20), |l| {
        l.contains("\"ADDED\"")
    });
    assert!(
        line.contains(&format!("\"resourceVersion\":\"{rv}\"")),
        "{line}"
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn no_reconnect_exits_0_when_the_server_closes_the_watch() {
    let ns = TestNamespace::new("noreconnect").await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--no-reconnect",
        "--server-timeout",
        "2s",
        "-o",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let closed: Vec<_> = out
        .json_lines()
        .into_iter()
        .filter(|l| l["notice"] == "watch-closed")
        .collect();
    assert_eq!(closed.len(), 1);
    assert!(closed[0]["retryInSeconds"].is_null());
}

/// An --until-rv the watch never reached before it ended for good is an error: what was
/// printed is not everything up to that RV.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn no_reconnect_with_until_rv_not_reached_exits_2() {
    let ns = TestNamespace::new("noreconnect-until").await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--no-reconnect",
        "--server-timeout",
        "2s",
        "--until-rv",
        "999999999999",
    ]);
    assert_one_line_error(
        &out,
        &["the watch ended (--no-reconnect) before resourceVersion 999999999999 was seen"],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn text_output_and_stats_summary() {
    let ns = TestNamespace::new("text").await;
    let rv = ns.create_configmap("t", &[]).await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--for",
        "1s",
        "--stats",
        "--no-bookmarks",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let line = out.stdout.lines().next().unwrap();
    assert!(line.contains("ADDED"), "{line}");
    assert!(line.contains(&rv), "{line}");
    assert!(
        line.contains(&format!("{}/t  (initial)", ns.name)),
        "{line}"
    );
    assert!(
        out.stderr.contains("listed 1 object in 1 page"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("summary: 1 event (ADDED 1"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_closed_stdout_ends_tail_with_exit_0() {
    let ns = TestNamespace::new("pipe").await;
    ns.create_configmap("first", &[]).await;
    let mut tail = Streaming::start(&["tail", "cm", "-n", &ns.name, "-o", "json", "--for", "60s"]);
    tail.wait_for_notice("watch-opened");
    tail.stop_reading_stdout();
    for i in 0..20 {
        ns.create_configmap(&format!("more-{i}"), &[]).await;
    }
    let out = tail.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stderr.contains("error"), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_reader_that_goes_away_while_the_watch_is_quiet_ends_tail_at_once() {
    // Nothing is written after the watch opens (no objects, no bookmarks): only noticing the
    // closed pipe itself ends the run before --for's 300 s.
    let ns = TestNamespace::new("quiet-pipe").await;
    let out = close_stdout_after(
        &[
            "tail",
            "cm",
            "-n",
            &ns.name,
            "-o",
            "json",
            "--initial",
            "none",
            "--no-bookmarks",
            "--for",
            "300s",
        ],
        |line| line.contains("\"notice\":\"watch-opened\""),
        Duration::from_secs(30),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stderr.contains("error"), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn sigterm_ends_tail_like_ctrl_c_with_its_summary_and_exit_143() {
    let ns = TestNamespace::new("sigterm").await;
    ns.create_configmap("t", &[]).await;
    let mut tail = Streaming::start(&[
        "tail", "cm", "-n", &ns.name, "-o", "json", "--stats", "--for", "300s",
    ]);
    tail.wait_for_notice("watch-opened");
    let status = std::process::Command::new("kill")
        .args(["-TERM", &tail.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = tail.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(143), "{}", out.stderr);
    assert!(
        out.stderr.contains("summary: 1 event (ADDED 1"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn ctrl_c_ends_tail_with_exit_130() {
    let ns = TestNamespace::new("sigint").await;
    let mut tail = Streaming::start(&["tail", "cm", "-n", &ns.name, "-o", "json", "--for", "60s"]);
    tail.wait_for_notice("watch-opened");
    let status = std::process::Command::new("kill")
        .args(["-INT", &tail.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = tail.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(130), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn secret_values_are_redacted_unless_asked_for() {
    let ns = TestNamespace::new("secret").await;
    ns.create_secret("s", "password", "hunter2-plaintext").await;
    // "hunter2-plaintext" in base64, as the server stores it in data.
    let encoded = "aHVudGVyMi1wbGFpbnRleHQ=";
    let out = run(&[
        "tail", "secrets", "-n", &ns.name, "-o", "json", "--for", "1s",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stdout.contains(encoded), "{}", out.stdout);
    let events = out.object_events();
    assert_eq!(
        events[0]["object"]["data"]["password"],
        "<redacted: 17 bytes>"
    );
    let out = run(&[
        "tail",
        "secrets",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--for",
        "1s",
        "--show-secret-data",
    ]);
    assert!(out.stdout.contains(encoded), "{}", out.stdout);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn modified_lines_say_which_fields_changed_and_wide_adds_identity_and_delay() {
    let ns = TestNamespace::new("changes").await;
    ns.create_configmap("m", &[]).await;
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "wide",
        "--max-events",
        "2",
    ]);
    tail.wait_for("the initial ADDED", Duration::from_secs(30), |l| {
        l.contains("ADDED")
    });
    let rv = ns.update_configmap("m", "v9").await;
    let out = tail.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let modified = out.stdout.lines().find(|l| l.contains("MODIFIED")).unwrap();
    assert!(modified.contains(&rv), "{modified}");
    assert!(modified.contains("ConfigMap"), "{modified}");
    assert!(
        modified.contains("gen=-") && modified.contains("delay="),
        "{modified}"
    );
    assert!(modified.ends_with("data.k v0→v9"), "{modified}");
}

/// `kubectl set image` changes one leaf inside a list: the MODIFIED line names it as kubectl's
/// strategic merge keys the list (the container's name) with both values, in text and wide.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_change_inside_a_list_is_shown_by_its_keyed_leaf_with_both_values() {
    let ns = TestNamespace::new("list-change").await;
    crate::common::controllers::create_deployment(&ns, "web", 0).await;
    for (form, image) in [
        ("text", "registry.example/web:2"),
        ("wide", "registry.example/web:3"),
    ] {
        let mut tail = Merged::start(&[
            "tail",
            "deploy",
            "web",
            "-n",
            &ns.name,
            "-o",
            form,
            "--initial",
            "none",
            "--for",
            "120s",
        ]);
        tail.wait_for(
            Stream::Err,
            "the watch opened",
            Duration::from_secs(30),
            |l| l.contains("watch opened"),
        );
        crate::common::controllers::set_image(&ns, "web", &format!("app={image}"));
        let modified = tail.wait_for(
            Stream::Out,
            "the image's change",
            Duration::from_secs(60),
            |l| l.contains("MODIFIED") && l.contains("containers[app].image"),
        );
        assert!(
            modified.contains("spec.template.spec.containers[app].image ")
                && modified.contains(&format!("→{image}")),
            "{form}: {modified}"
        );
        assert_eq!(tail.interrupt(Duration::from_secs(30)), Some(130));
    }
}

/// `--types` keeps the event types named, `--ignore-field` hides a MODIFIED that changed only
/// fields under the paths given; in every output format, the hidden events still counted in
/// the summary.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn filters_hide_event_types_and_changes_under_paths_and_the_summary_counts_them() {
    let ns = TestNamespace::new("filters").await;
    let mut tail = Merged::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--types",
        "ADDED,deleted",
        "--stats",
        "--for",
        "120s",
    ]);
    tail.wait_for(
        Stream::Out,
        "the watch opened",
        Duration::from_secs(30),
        |l| l.contains("\"watch-opened\""),
    );
    ns.create_configmap("a", &[]).await;
    ns.update_configmap("a", "v1").await;
    ns.delete_configmap("a").await;
    tail.wait_for(Stream::Out, "the DELETED", Duration::from_secs(60), |l| {
        l.contains("\"type\":\"DELETED\"")
    });
    assert_eq!(tail.interrupt(Duration::from_secs(30)), Some(130));
    let shown: Vec<&String> = (tail.seen.iter())
        .filter(|(s, l)| *s == Stream::Out && l.contains("\"name\":\"a\""))
        .map(|(_, l)| l)
        .collect();
    assert_eq!(shown.len(), 2, "{}", tail.transcript());
    assert!(!shown.iter().any(|l| l.contains("MODIFIED")), "{shown:?}");
    let summary = tail.transcript();
    assert!(
        summary.contains("(ADDED 1, MODIFIED 1, DELETED 1, 1 hidden)"),
        "{summary}"
    );

    // A Deployment's status churn hidden: the spec's change alone is shown.
    crate::common::controllers::create_deployment(&ns, "web", 0).await;
    let mut tail = Merged::start(&[
        "tail",
        "deploy",
        "-n",
        &ns.name,
        "--initial",
        "none",
        "--ignore-field",
        "status",
        "--ignore-field",
        ".metadata.annotations",
        "--stats",
        "--for",
        "120s",
    ]);
    tail.wait_for(
        Stream::Err,
        "the watch opened",
        Duration::from_secs(30),
        |l| l.contains("watch opened"),
    );
    crate::common::controllers::set_image(&ns, "web", "app=registry.example/app:2");
    tail.wait_for(
        Stream::Out,
        "the spec's change",
        Duration::from_secs(60),
        |l| l.contains("containers[app].image"),
    );
    // The controller's status write for it (observedGeneration 2) is hidden; a second image
    // shown after it proves tail had it (a watch delivers in resourceVersion order).
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    loop {
        let mut get = kubectl();
        get.args(["get", "-n", &ns.name, "deploy/web", "-o"]);
        get.arg("jsonpath={.status.observedGeneration}");
        if String::from_utf8_lossy(&get.output().unwrap().stdout) == "2" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no status write within 90s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    crate::common::controllers::set_image(&ns, "web", "app=registry.example/app:3");
    tail.wait_for(
        Stream::Out,
        "the second change",
        Duration::from_secs(60),
        |l| l.contains("→registry.example/app:3"),
    );
    assert_eq!(tail.interrupt(Duration::from_secs(30)), Some(130));
    let modified = (tail.seen.iter())
        .filter(|(s, l)| *s == Stream::Out && l.contains("MODIFIED"))
        .count();
    assert_eq!(modified, 2, "{}", tail.transcript());
    let summary = (tail.seen.iter())
        .find(|(s, l)| *s == Stream::Err && l.starts_with("summary:"))
        .map(|(_, l)| l.clone())
        .unwrap_or_else(|| panic!("no summary: {}", tail.transcript()));
    let hidden: u64 = summary
        .split(", ")
        .find_map(|part| part.strip_suffix(" hidden)"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no hidden count: {summary}"));
    assert!(hidden >= 1, "{summary}");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn record_writes_json_lines_beside_text_and_never_overwrites() {
    let ns = TestNamespace::new("record").await;
    ns.create_configmap("r", &[]).await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rec.jsonl");
    let path = file.to_str().unwrap();
    let out = run(&[
        "tail", "cm", "-n", &ns.name, "--for", "1s", "--record", path,
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(
        out.stdout.contains("ADDED"),
        "text still on stdout: {}",
        out.stdout
    );
    let recorded = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<serde_json::Value> = recorded
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["notice"], "start");
    assert!(lines
        .iter()
        .any(|l| l["type"] == "ADDED" && l["name"] == "r"));
    let out = run(&[
        "tail", "cm", "-n", &ns.name, "--for", "1s", "--record", path,
    ]);
    assert_one_line_error(&out, &["the file exists"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        recorded,
        "the existing file is untouched"
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn metadata_only_watches_partial_object_metadata() {
    let ns = TestNamespace::new("meta").await;
    ns.create_configmap("p", &[("app", "x")]).await;
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--metadata-only",
        "--max-events",
        "2",
    ]);
    tail.wait_for_notice("watch-opened");
    ns.update_configmap("p", "v2").await;
    let out = tail.finish(Duration::from_secs(30));
    let events = out.object_events();
    assert_eq!(events.len(), 2, "{}", out.stdout);
    for e in &events {
        assert_eq!(e["object"]["kind"], "PartialObjectMetadata", "{e}");
        assert_eq!(e["object"]["metadata"]["labels"]["app"], "x");
        assert!(
            e["object"].get("data").is_none(),
            "no data in metadata-only: {e}"
        );
    }
}

/// `--timeout` is a limit on the run's own end (`--until-rv`, `--max-events`); when it
/// runs out first, tail stops as cleanly as on any other end and exits 124, so that a script can
/// tell that the resourceVersion never came.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn until_rv_never_seen_within_timeout_exits_124_with_the_recording_complete() {
    let ns = TestNamespace::new("timeout").await;
    let rv: u64 = ns.create_configmap("seen", &[]).await.parse().unwrap();
    let never = (rv + 1_000_000_000).to_string();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rec.jsonl");
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--until-rv",
        &never,
        "--timeout",
        "2s",
        "--record",
        file.to_str().unwrap(),
        "--stats",
    ]);
    assert_timed_out(
        &out,
        &[
            "--timeout 2s reached before resourceVersion",
            &never,
            "was seen; the newest resourceVersion seen was",
        ],
    );
    let newest: u64 = out
        .stderr
        .trim_end()
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(newest >= rv, "the LIST's RV counts: {}", out.stderr);
    assert!(out.stderr.contains("summary: 1 event"), "{}", out.stderr);
    // Both streams are whole JSON Lines: the ADDED, and the LIST's end.
    let recorded = std::fs::read_to_string(&file).unwrap();
    assert!(recorded.ends_with('\n'), "{recorded}");
    for text in [&out.stdout, &recorded] {
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        assert_eq!(lines[0]["notice"], "start", "{text}");
        assert!(lines
            .iter()
            .any(|l| l["type"] == "ADDED" && l["name"] == "seen"));
        assert!(
            lines.iter().any(|l| l["notice"] == "list-complete"),
            "{text}"
        );
    }
    assert_eq!(out.stdout, recorded);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn max_events_reached_before_the_timeout_exits_0() {
    let ns = TestNamespace::new("maxev").await;
    ns.create_configmap("a", &[]).await;
    ns.create_configmap("b", &[]).await;
    let started = std::time::Instant::now();
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--max-events",
        "2",
        "--timeout",
        "50s",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.object_events().len(), 2, "{}", out.stdout);
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "ended at --max-events"
    );
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--max-events",
        "3",
        "--timeout",
        "1s",
    ]);
    assert_timed_out(
        &out,
        &["--timeout 1s reached before 3 object events arrived (2 did)"],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn for_ends_a_run_with_exit_0_also_before_a_pending_timeout() {
    let ns = TestNamespace::new("for").await;
    let rv: u64 = ns.create_configmap("x", &[]).await.parse().unwrap();
    let never = (rv + 1_000_000_000).to_string();
    let started = std::time::Instant::now();
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "-o",
        "json",
        "--for",
        "1500ms",
        "--until-rv",
        &never,
        "--timeout",
        "50s",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert_eq!(out.object_events().len(), 1, "{}", out.stdout);
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "--for ended the run"
    );
    assert!(!out.stderr.contains("error"), "{}", out.stderr);
}

#[test]
fn timeout_without_an_end_condition_unitless_durations_and_unreadable_rvs_are_refused() {
    for (args, needles) in [
        (
            vec!["tail", "cm", "--timeout", "1m"],
            vec!["--timeout 1m", "--until-rv or --max-events", "use --for 1m"],
        ),
        (
            vec!["tail", "cm", "--for", "30"],
            vec!["--for 30: a duration needs a unit, e.g. 30s or 30ms"],
        ),
        (
            vec!["tail", "cm", "--server-timeout", "1500ms"],
            vec!["--server-timeout 1500ms", "whole seconds", "1s or 2s"],
        ),
        (
            vec!["tail", "cm", "--max-events", "1", "--timeout", "1d"],
            vec!["--timeout 1d: not a duration", "unknown unit \"d\""],
        ),
        // What kube-apiserver cannot read as a resourceVersion, before any connection.
        (
            vec!["tail", "cm", "--from-rv", "abc"],
            vec![
                "--from-rv \"abc\" is not a resourceVersion",
                "unsigned 64-bit",
            ],
        ),
        (
            vec![
                "tail",
                "cm",
                "--from-rv",
                "340282366920938463463374607431768211456",
            ],
            vec!["is above 18446744073709551615 (2^64-1)"],
        ),
        (
            vec!["tail", "cm", "--until-rv", "1.5"],
            vec!["--until-rv \"1.5\" is not a resourceVersion"],
        ),
    ] {
        assert_one_line_error(&run(&args), &needles);
    }
}

/// `--from-rv` ahead of the server's current resourceVersion: kube-apiserver would take the
/// watch and send nothing until it got there, so tail says so (a NOTICE naming both RVs; in
/// `-o json` a `watch-failed` notice) instead of sitting on a silent watch, and when `--for`
/// ends while it is still ahead, exits 2 saying the replay never began.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_from_rv_ahead_of_the_server_is_said_to_be_ahead_not_watched_in_silence() {
    let ns = TestNamespace::new("tail-ahead").await;
    let rv: u64 = ns.create_configmap("a", &[]).await.parse().unwrap();
    let ahead = (rv + 1_000_000).to_string();
    let said = format!("resourceVersion {ahead} is ahead of the server's current one (");
    let mut tail = Streaming::start(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--from-rv",
        &ahead,
        "--for",
        "5s",
        "-o",
        "json",
    ]);
    let notice = tail.wait_for_notice("watch-failed");
    assert_eq!(notice["resourceVersion"], ahead.as_str());
    let error = notice["error"].as_str().unwrap();
    assert!(error.starts_with(&said), "{error}");
    let out = tail.finish(Duration::from_secs(30));
    assert!(!out.stdout.contains("\"watch-opened\""), "{}", out.stdout);
    // --for ends the retries, and says the replay never began.
    assert_one_line_error(
        &out,
        &[
            "--for 5s ended before the replay began",
            &format!("resourceVersion {ahead} stayed ahead"),
        ],
    );

    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--from-rv",
        &ahead,
        "--for",
        "3s",
    ]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .lines()
            .any(|l| l.contains("  NOTICE  ") && l.contains(&said)),
        "{}",
        out.stderr
    );
}

/// The JSON lines of `tail cm -n NS --initial watch-list -o json` with `flags`, from its start to
/// the event of a ConfigMap `next` made once the initial ADDED of `first` was printed: the
/// watch-list's initial events, then whatever comes before `next` (the bookmark that ends the
/// initial events does: the server sends it before any later event).
async fn watch_list_lines_until(
    ns: &TestNamespace,
    first: &str,
    next: &str,
    flags: &[&str],
) -> Vec<String> {
    let mut args = vec![
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--initial",
        "watch-list",
        "-o",
        "json",
        "--for",
        "300s",
    ];
    args.extend_from_slice(flags);
    let mut tail = Streaming::start(&args);
    let named = |name: &str| format!("\"name\":\"{name}\"");
    let (first, next_name) = (named(first), named(next));
    tail.wait_for("the initial ADDED", Duration::from_secs(120), |l| {
        l.contains("\"type\":\"ADDED\"") && l.contains(&first)
    });
    ns.create_configmap(next, &[]).await;
    tail.wait_for("the next ADDED", Duration::from_secs(120), |l| {
        l.contains("\"type\":\"ADDED\"") && l.contains(&next_name)
    });
    tail.seen.clone()
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn no_bookmarks_hides_even_the_bookmark_that_ends_a_watch_lists_initial_events() {
    let ns = TestNamespace::new("nobookmarks").await;
    ns.create_configmap("a", &[]).await;
    let is_bookmark = |l: &String| l.contains("\"type\":\"BOOKMARK\"");
    // Without the flag the end of the initial events is printed: what the flag must hide is there.
    let shown = watch_list_lines_until(&ns, "a", "b", &[]).await;
    assert!(shown.iter().any(is_bookmark), "{shown:#?}");
    let hidden = watch_list_lines_until(&ns, "a", "c", &["--no-bookmarks"]).await;
    assert!(!hidden.iter().any(is_bookmark), "{hidden:#?}");
}
