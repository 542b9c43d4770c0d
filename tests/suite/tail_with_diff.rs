//! What changed, as a diff: `tail --diff` against the real control plane. A
//! ConfigMap edit shows as a unified diff of exactly the keys that changed, without the
//! resourceVersion/managedFields noise; with `-o json` each MODIFIED's `patch` turns the previous
//! object into the new one (noise left out; exactly with `--diff-all`), and the recording that
//! holds them is still read by `diff --cache-file` and `bench --from-file`; a Secret's values
//! never show.

use crate::common::*;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kubectl_informer::informer::patch::strip_noise;
use serde_json::{json, Value};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);

/// A namespace with ConfigMap `x`, whose data `keep`, `change` and `remove` the tests edit
/// with [`edit_x`].
async fn namespace_with_configmap_x(prefix: &str) -> TestNamespace {
    let ns = TestNamespace::new(prefix).await;
    let data = json!({"keep": "same", "change": "old", "remove": "gone"});
    let cm: ConfigMap =
        serde_json::from_value(json!({"metadata": {"name": "x"}, "data": data})).unwrap();
    ns.configmaps()
        .create(&PostParams::default(), &cm)
        .await
        .expect("create configmap");
    ns
}

/// Changes one key of ConfigMap `x`, adds one, removes one.
async fn edit_x(ns: &TestNamespace) {
    let edit = json!({"data": {"change": "new", "add": "added", "remove": null}});
    merge_configmap(ns, "x", edit).await;
}

/// Merge-patches ConfigMap `name` (a null removes a key).
async fn merge_configmap(ns: &TestNamespace, name: &str, patch: Value) {
    ns.configmaps()
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch configmap");
}

/// Server-side applies `data` to ConfigMap `name` as another field manager: with the values it
/// already has, only `metadata.managedFields` (and the RV) change.
async fn apply_configmap_as_other_manager(ns: &TestNamespace, name: &str, data: Value) {
    let applied =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data});
    ns.configmaps()
        .patch(
            name,
            &PatchParams::apply("another-manager"),
            &Patch::Apply(&applied),
        )
        .await
        .expect("apply configmap");
}

/// Starts `tail RESOURCE NAME -n NS --max-events EVENTS --no-bookmarks ARGS...` and waits for
/// its initial ADDED: the watch then starts from the LIST's RV, so every later change shows.
fn tail_one(ns: &TestNamespace, object: [&str; 2], events: &str, args: &[&str]) -> Streaming {
    let (resource, name) = (object[0], object[1]);
    let mut all = vec![
        "tail",
        resource,
        name,
        "-n",
        &ns.name,
        "--max-events",
        events,
    ];
    all.push("--no-bookmarks");
    all.extend_from_slice(args);
    let mut tail = Streaming::start(&all);
    tail.wait_for("the initial ADDED", LIMIT, |l| l.contains("ADDED"));
    tail
}

/// The lines of a unified diff that add or remove (headers left out).
fn changed_lines(lines: &[&str]) -> Vec<String> {
    let mut changed: Vec<String> = lines
        .iter()
        .filter(|l| {
            (l.starts_with('-') && !l.starts_with("---"))
                || (l.starts_with('+') && !l.starts_with("+++"))
        })
        .map(|l| l.to_string())
        .collect();
    changed.sort();
    changed
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_configmap_edit_shows_exactly_the_keys_that_changed_and_no_noise() {
    let ns = namespace_with_configmap_x("diff-text").await;
    let mut tail = tail_one(&ns, ["cm", "x"], "3", &["--diff"]);
    edit_x(&ns).await;
    tail.wait_for("the diff's last line", LIMIT, |l| {
        l.starts_with("+  change: new")
    });
    apply_configmap_as_other_manager(&ns, "x", json!({"keep": "same"})).await;
    let out = tail.finish(LIMIT);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let lines: Vec<&str> = out.stdout.lines().collect();
    let versions = ns.configmap_versions().await;
    let modified: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("MODIFIED"))
        .collect();
    assert_eq!(modified.len(), 2, "{}", out.stdout);
    let (edit, noise) = (
        &lines[modified[0] + 1..modified[1]],
        &lines[modified[1] + 1..],
    );
    // Headed by the object and its two RVs, the first from the ADDED line.
    let rv_of = |line: &str| line.split_whitespace().nth(2).unwrap().to_string();
    let (created, edited) = (rv_of(lines[0]), rv_of(lines[modified[0]]));
    assert_eq!(
        edit[0],
        format!("--- configmap/x rv={created}"),
        "{}",
        out.stdout
    );
    assert_eq!(
        edit[1],
        format!("+++ configmap/x rv={edited}"),
        "{}",
        out.stdout
    );
    assert!(edit[2].starts_with("@@ "), "{}", out.stdout);
    assert_eq!(
        changed_lines(edit),
        [
            "+  add: added",
            "+  change: new",
            "-  change: old",
            "-  remove: gone"
        ],
        "{}",
        out.stdout
    );
    for noise_field in ["resourceVersion", "managedFields", "generation"] {
        assert!(
            !edit.iter().any(|l| l.contains(noise_field)),
            "{noise_field} in the diff:\n{}",
            out.stdout
        );
    }
    // A write that changed only managedFields: the event line, and one line saying so.
    assert_eq!(rv_of(lines[modified[1]]), versions["x"]);
    assert_eq!(
        noise,
        ["(only metadata.resourceVersion, metadata.managedFields, metadata.generation changed)"],
        "{}",
        out.stdout
    );
}

/// Asserts that a `--diff-all -o json` run has `modified` MODIFIED events, each of whose patch
/// turns the object event before it into its own object exactly; returns them as
/// [`modified_with_previous`] does.
fn assert_patches_rebuild_exactly(out: &Output, modified: usize) -> Vec<(Value, Value)> {
    let pairs = modified_with_previous(&out.object_events());
    assert_eq!(pairs.len(), modified, "{}", out.stdout);
    for (previous, modified) in &pairs {
        let rebuilt = patched(previous.clone(), &modified["patch"]);
        assert_eq!(rebuilt, modified["object"], "{}", modified["patch"]);
    }
    pairs
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn each_modified_patch_turns_the_previous_object_into_the_new_one() {
    let ns = namespace_with_configmap_x("diff-json").await;
    let dir = tempfile::tempdir().unwrap();
    let recording = dir.path().join("diff.jsonl");
    let tail = |diff: &[&str]| tail_one(&ns, ["cm", "x"], "4", &[&["-o", "json"], diff].concat());
    let content = tail(&["--diff", "--record", recording.to_str().unwrap()]);
    let all = tail(&["--diff-all"]);
    let without = tail(&[]);
    edit_x(&ns).await;
    merge_configmap(
        &ns,
        "x",
        json!({"metadata": {"labels": {"tier": "web"}}, "data": {"multi": "a\nb\n"}}),
    )
    .await;
    apply_configmap_as_other_manager(&ns, "x", json!({"keep": "same"})).await;

    let out = content.finish(LIMIT);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let pairs = modified_with_previous(&out.object_events());
    assert_eq!(pairs.len(), 3, "{}", out.stdout);
    for (previous, modified) in &pairs {
        let patch = &modified["patch"];
        for op in patch.as_array().unwrap() {
            let path = op["path"].as_str().unwrap();
            for noise in [
                "/metadata/resourceVersion",
                "/metadata/managedFields",
                "/metadata/generation",
            ] {
                assert!(!path.starts_with(noise), "{noise} in {patch}");
            }
        }
        let (mut before, mut after) = (previous.clone(), modified["object"].clone());
        strip_noise(&mut before);
        strip_noise(&mut after);
        assert_eq!(patched(before, patch), after, "{patch}");
    }
    let first = pairs[0].1["patch"].as_array().unwrap();
    let mut paths: Vec<&str> = first
        .iter()
        .map(|op| op["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(
        paths,
        ["/data/add", "/data/change", "/data/remove"],
        "{}",
        pairs[0].1["patch"]
    );
    // Only managedFields changed: an empty patch.
    assert_eq!(pairs[2].1["patch"], json!([]));

    let out = all.finish(LIMIT);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let pairs = assert_patches_rebuild_exactly(&out, 3);
    assert!(
        pairs[2].1["patch"]
            .to_string()
            .contains("/metadata/managedFields"),
        "{}",
        pairs[2].1["patch"]
    );

    // Without --diff, no patch.
    let out = without.finish(LIMIT);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let events = out.object_events();
    assert_eq!(events.len(), 4, "{}", out.stdout);
    assert!(
        events.iter().all(|e| e.get("patch").is_none()),
        "{}",
        out.stdout
    );

    // The recording that holds the patches is read back as any other.
    let recording = recording.to_str().unwrap();
    let out = run(&[
        "diff",
        "cm",
        "-n",
        &ns.name,
        "--field-selector",
        "metadata.name=x",
        "--cache-file",
        recording,
    ]);
    assert_eq!(out.code, Some(0), "in sync: {}{}", out.stdout, out.stderr);
    let out = run(&["bench", "--from-file", recording, "--fail-if", "events < 4"]);
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_secret_edit_never_shows_its_values_in_the_diff_or_the_patch() {
    let ns = TestNamespace::new("diff-secret").await;
    ns.create_secret("s", "password", "hunter2").await;
    let secrets: Api<Secret> = Api::namespaced(ns.client.clone(), &ns.name);
    let tail = |args: &[&str]| tail_one(&ns, ["secret", "s"], "3", args);
    let text = tail(&["--diff"]);
    let json = tail(&["--diff-all", "-o", "json"]);
    let shown = tail(&["--diff", "--show-secret-data"]);
    // The same length (a change the redaction hides), then a longer one.
    for value in ["hunter3", "correct-horse-battery"] {
        secrets
            .patch(
                "s",
                &PatchParams::default(),
                &Patch::Merge(&json!({"stringData": {"password": value}})),
            )
            .await
            .expect("patch secret");
    }
    let values = ["hunter2", "hunter3", "correct-horse-battery"];
    let base64 = ["aHVudGVyMg", "aHVudGVyMw", "Y29ycmVjdC1ob3JzZS1iYXR0ZXJ5"];
    for (what, tail) in [("text", text), ("json", json)] {
        let out = tail.finish(LIMIT);
        assert_eq!(out.code, Some(0), "{what}: {}", out.stderr);
        for secret in values.iter().chain(&base64) {
            assert!(
                !out.stdout.contains(secret),
                "{what} shows {secret}:\n{}",
                out.stdout
            );
        }
        if what == "text" {
            assert!(
                out.stdout.contains(
                    "(only metadata.resourceVersion, metadata.managedFields, metadata.generation, \
                     or redacted values changed)"
                ),
                "{}",
                out.stdout
            );
            let changed = changed_lines(&out.stdout.lines().collect::<Vec<_>>());
            assert_eq!(
                changed,
                [
                    r#"+  password: "<redacted: 21 bytes>""#,
                    r#"-  password: "<redacted: 7 bytes>""#,
                ],
                "{}",
                out.stdout
            );
        } else {
            let pairs = assert_patches_rebuild_exactly(&out, 2);
            assert!(pairs[1].1["patch"]
                .to_string()
                .contains("<redacted: 21 bytes>"));
        }
    }
    // What the redaction hid, --show-secret-data shows.
    let out = shown.finish(LIMIT);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let changed = changed_lines(&out.stdout.lines().collect::<Vec<_>>());
    assert!(
        changed.contains(&"+  password: aHVudGVyMw==".to_string()),
        "{}",
        out.stdout
    );
}
