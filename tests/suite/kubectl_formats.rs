//! `tail -o yaml` and `tail -o name` print what `kubectl get -w` prints with the same flags: the
//! real kubectl watches beside tail, and both streams must hold the same documents (read back as
//! YAML, keys in the same order) or the same names, event for event. Scalars may be quoted
//! differently (tail quotes a string wherever a YAML 1.1 or 1.2 reader could take it for a number,
//! a boolean or a time); what they read as is compared.

use crate::common::*;
use serde_json::Value;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// kubectl's `get ARGS -w` beside tail's `tail ARGS`, both reading stdout.
fn both(kubectl_args: &[&str], tail_args: &[&str]) -> (Streaming, Streaming) {
    let mut cmd = kubectl();
    cmd.args(kubectl_args);
    (Streaming::spawn(cmd), Streaming::start(tail_args))
}

/// Reads a `-o yaml` stream until the document of the ConfigMap `last` has ended (its last line
/// is `metadata.uid`, keys being sorted), and returns every document.
fn documents_until(stream: &mut Streaming, who: &str, last: &str) -> Vec<Value> {
    let name = format!("  name: {last}");
    stream.wait_for(&format!("{who}'s document of {last}"), LIMIT, |l| l == name);
    stream.wait_for(&format!("the end of {who}'s {last}"), LIMIT, |l| {
        l.starts_with("  uid: ")
    });
    let text = stream.seen.join("\n") + "\n";
    serde_saphyr::from_multiple::<Value>(&text)
        .unwrap_or_else(|e| panic!("{who}'s output is not YAML ({e}):\n{text}"))
}

/// Object values with their keys in order, for a comparison that order breaks.
fn in_order(docs: &[Value]) -> Vec<String> {
    docs.iter()
        .map(|d| serde_json::to_string(d).unwrap())
        .collect()
}

#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn yaml_and_names_are_what_kubectl_get_w_prints_for_the_same_events() {
    let ns = TestNamespace::new("kubectl-yaml").await;
    // Keys in go-yaml's order (digit runs by value, non-letters first) and values that read as
    // other types unless quoted.
    let data = [
        ("k10", "true"),
        ("k9", "10.0.0.1"),
        ("K", "25%"),
        ("-dash", "0b1010"),
        ("_under", "9bedb5df-497e-446b-8369-c1bca0fba69b"),
        ("k1", "1e5"),
        ("multi", "line one\nline two\n"),
        ("star", "*"),
        ("colon", "a: b"),
        ("empty", ""),
        ("spaced", " leading"),
        ("time", "2026-11-25T20:00:00Z"),
        ("no", "no"),
    ];
    let configmaps = ns.configmaps();
    let make = |name: &str, pairs: &[(&str, &str)]| {
        let data: serde_json::Map<String, Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Value::String(v.to_string())))
            .collect();
        serde_json::from_value::<k8s_openapi::api::core::v1::ConfigMap>(serde_json::json!({
            "metadata": {"name": name, "labels": {"app": "web", "tier.example.com/x": "1"}},
            "data": data,
        }))
        .unwrap()
    };
    let post = kube::api::PostParams::default();
    configmaps.create(&post, &make("a", &data)).await.unwrap();
    configmaps
        .create(&post, &make("b", &data[..3]))
        .await
        .unwrap();

    let (mut theirs, mut ours) = both(
        &["get", "cm", "-n", &ns.name, "-w", "-o", "yaml"],
        &["tail", "cm", "-n", &ns.name, "-o", "yaml"],
    );
    let (mut their_names, mut our_names) = both(
        &["get", "cm", "-n", &ns.name, "-w", "-o", "name"],
        &["tail", "cm", "-n", &ns.name, "-o", "name"],
    );
    // Each has printed the initial state before anything changes.
    documents_until(&mut theirs, "kubectl", "b");
    documents_until(&mut ours, "tail", "b");
    their_names.wait_for("kubectl's b", LIMIT, |l| l == "configmap/b");
    our_names.wait_for("tail's b", LIMIT, |l| l == "configmap/b");

    ns.update_configmap("a", "changed").await;
    ns.delete_configmap("b").await;
    configmaps
        .create(&post, &make("c", &data[6..]))
        .await
        .unwrap();
    configmaps
        .create(&post, &make("zz-end", &[]))
        .await
        .unwrap();

    let want = in_order(&documents_until(&mut theirs, "kubectl", "zz-end"));
    let got = in_order(&documents_until(&mut ours, "tail", "zz-end"));
    assert_eq!(
        want.len(),
        6,
        "a, b, a changed, b deleted, c, zz-end: {want:#?}"
    );
    assert_eq!(got, want);
    assert!(
        !ours.seen.iter().any(|l| l.contains("managedFields")),
        "managedFields are left out, as kubectl leaves them out"
    );
    their_names.wait_for("kubectl's zz-end", LIMIT, |l| l == "configmap/zz-end");
    our_names.wait_for("tail's zz-end", LIMIT, |l| l == "configmap/zz-end");
    assert_eq!(our_names.seen, their_names.seen);
    assert_eq!(our_names.seen.len(), 6, "{:?}", our_names.seen);
}

/// A richer object than a ConfigMap (numbers, lists of mappings, IP addresses): the Service
/// `kubernetes`, as tail's watch prints it and as `kubectl get -o yaml` does; and with
/// `--show-managed-fields`, its managedFields are there as kubectl's flag keeps them.
#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn a_service_in_yaml_reads_as_kubectl_get_prints_it() {
    admin().await;
    for extra in [&[][..], &["--show-managed-fields"][..]] {
        let mut cmd = kubectl();
        cmd.args(["get", "svc", "kubernetes", "-n", "default", "-o", "yaml"])
            .args(extra);
        let theirs = cmd.output().unwrap();
        assert!(theirs.status.success(), "{theirs:?}");
        let theirs: Value = serde_saphyr::from_slice(&theirs.stdout).unwrap();
        let mut args = vec![
            "tail",
            "svc",
            "kubernetes",
            "-n",
            "default",
            "-o",
            "yaml",
            "--max-events",
            "1",
        ];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        let ours: Value = serde_saphyr::from_str(&out.stdout).unwrap();
        assert_eq!(in_order(&[ours]), in_order(&[theirs]), "{extra:?}");
    }
}

#[test]
fn kubectl_only_forms_and_watch_only_beside_initial_are_answered_in_one_line() {
    for (args, needles) in [
        (
            &["tail", "cm", "--watch-only", "--initial", "list"][..],
            &["--initial"][..],
        ),
        (
            &["tail", "cm", "-o", "name", "--diff"][..],
            &["--diff with -o name"][..],
        ),
        (
            &["tail", "cm", "--show-managed-fields"][..],
            &["for -o yaml"][..],
        ),
    ] {
        let out = run(args);
        assert_one_line_error(&out, needles);
    }
}
