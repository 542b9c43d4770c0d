//! Bad input and failing servers, each giving one clear line and exit code 2, against the real
//! control plane (or a loopback socket that misbehaves on purpose).

use crate::common::*;
use std::net::TcpListener;
use std::time::{Duration, Instant};

#[tokio::test]
async fn missing_kubeconfig_file_names_the_file_and_the_flag() {
    let out = run(&["tail", "cm", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_one_line_error(
        &out,
        &["/nonexistent/kubeconfig", "does not exist", "--kubeconfig"],
    );
}

#[tokio::test]
async fn kubeconfig_env_with_no_existing_file_says_what_was_searched() {
    let mut cmd = informer();
    cmd.env("KUBECONFIG", "/nonexistent/a:/nonexistent/b")
        .args(["tail", "cm"]);
    let out = run_with_limit(cmd, Duration::from_secs(30));
    assert_one_line_error(
        &out,
        &[
            "no kubeconfig found",
            "KUBECONFIG=/nonexistent/a:/nonexistent/b",
        ],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn unknown_context_lists_the_contexts_that_exist() {
    admin().await;
    let out = run(&["tail", "cm", "--context", "nope"]);
    assert_one_line_error(&out, &["context \"nope\" not found", "admin", "nobody"]);
}

#[tokio::test]
async fn connection_refused_fails_at_once_and_says_cannot_connect() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(dir.path(), &format!("https://127.0.0.1:{port}"), "t", None);
    let out = run(&["tail", "cm", "--kubeconfig", kc.to_str().unwrap()]);
    assert_one_line_error(&out, &["cannot connect to https://127.0.0.1:", "ctx"]);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn untrusted_server_certificate_is_a_tls_error() {
    admin().await;
    let (server, _) = server_and_ca();
    let unrelated = include_str!("../fixtures/unrelated-ca.crt");
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(dir.path(), &server, "t", Some(unrelated));
    let out = run(&["tail", "cm", "--kubeconfig", kc.to_str().unwrap()]);
    assert_one_line_error(
        &out,
        &["TLS handshake with", "failed", "certificate-authority"],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn bad_token_is_401_and_the_token_is_never_printed() {
    admin().await;
    let (server, ca) = server_and_ca();
    let secret = "not-a-valid-token-4f1c2";
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(dir.path(), &server, secret, Some(&ca));
    let out = run(&["tail", "cm", "--kubeconfig", kc.to_str().unwrap()]);
    assert_one_line_error(&out, &["401 Unauthorized", "user \"u\""]);
    assert!(!out.stderr.contains(secret) && !out.stdout.contains(secret));
}

/// A token given with `--token` is what the 401 blames, not the kubeconfig's user.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_bad_token_flag_is_named_as_the_rejected_credential() {
    admin().await;
    let secret = "not-a-valid-token-9d3e";
    let out = run(&["tail", "cm", "--token", secret]);
    assert_one_line_error(&out, &["401 Unauthorized", "the token passed with --token"]);
    assert!(!out.stderr.contains("kubeconfig"), "{}", out.stderr);
    assert!(!out.stderr.contains(secret) && !out.stdout.contains(secret));
}

#[test]
fn an_unreachable_server_flag_is_named_as_where_the_address_came_from() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let kc = write_kubeconfig(dir.path(), "https://127.0.0.1:9", "t", None);
    let server = format!("https://127.0.0.1:{port}");
    let out = run(&[
        "tail",
        "cm",
        "--kubeconfig",
        kc.to_str().unwrap(),
        "--server",
        &server,
    ]);
    assert_one_line_error(&out, &["cannot connect to", "its address (--server)"]);
    assert!(!out.stderr.contains("in your kubeconfig"), "{}", out.stderr);
}

/// Runs the `kubectl auth can-i ...` an error suggests, with the real kubectl in a shell with
/// `env`, and returns its answer (`yes`/`no`) and exit code.
fn run_can_i_hint(stderr: &str, env: &[(&str, &std::path::Path)]) -> (String, Option<i32>) {
    let hint = stderr
        .split("(check with `")
        .nth(1)
        .and_then(|rest| rest.split("`)").next())
        .unwrap_or_else(|| panic!("no `kubectl auth can-i` hint in: {stderr}"));
    let command = hint
        .strip_prefix("kubectl ")
        .unwrap_or_else(|| panic!("the hint is not a kubectl command: {hint}"));
    let kubectl = tool("kubectl");
    let mut sh = std::process::Command::new("sh");
    sh.arg("-c")
        .arg(format!("\"$KUBECTL\" {command}"))
        .env("KUBECTL", &kubectl)
        .env_remove("KUBECONFIG")
        .env("HOME", "/nonexistent");
    for (name, value) in env {
        sh.env(name, value);
    }
    let out = sh.output().expect("running sh");
    (
        String::from_utf8_lossy(&out.stdout).trim().to_string(),
        out.status.code(),
    )
}

/// The suggested `kubectl auth can-i` asks as the identity that was refused: run as it is with
/// the real kubectl, it answers "no" (the same command without `--context nobody` would ask
/// for the admin, who may).
#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn rbac_denied_list_names_verb_resource_and_user_and_the_hint_asks_for_that_user() {
    let ns = TestNamespace::new("forbid").await;
    let out = run(&["tail", "configmaps", "-n", &ns.name, "--context", "nobody"]);
    assert_one_line_error(
        &out,
        &[
            "cannot list configmaps in namespace",
            "as user \"nobody\"",
            "kubectl auth can-i list configmaps -n",
            "--context nobody",
        ],
    );
    let kubeconfig = kubeconfig_path();
    let answer = run_can_i_hint(&out.stderr, &[("KUBECONFIG", &kubeconfig)]);
    assert_eq!(answer, ("no".to_string(), Some(1)), "{}", out.stderr);
}

/// Refused across every namespace (`-A`), the hint asks about every namespace too: the real
/// kubectl answers "no" to it.
#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn a_list_refused_in_all_namespaces_hints_at_can_i_with_all_namespaces() {
    admin().await;
    let out = run(&["tail", "configmaps", "-A", "--context", "nobody"]);
    assert_one_line_error(
        &out,
        &[
            "cannot list configmaps in all namespaces",
            "kubectl auth can-i list configmaps -A --context nobody",
        ],
    );
    let kubeconfig = kubeconfig_path();
    let answer = run_can_i_hint(&out.stderr, &[("KUBECONFIG", &kubeconfig)]);
    assert_eq!(answer, ("no".to_string(), Some(1)), "{}", out.stderr);
}

/// A kubeconfig named by `--kubeconfig` (none in KUBECONFIG) is named in the hint too, so the
/// hint runs in a shell that has no kubeconfig of its own.
#[tokio::test]
#[ignore = "needs the test control plane and the test tools (controlplane.sh up, tools/tools.sh build): cargo test -- --ignored"]
async fn the_can_i_hint_names_the_kubeconfig_it_was_given() {
    let ns = TestNamespace::new("forbid-kc").await;
    let kubeconfig = kubeconfig_path();
    let mut cmd = informer();
    cmd.env_remove("KUBECONFIG").args([
        "tail",
        "configmaps",
        "-n",
        &ns.name,
        "--kubeconfig",
        kubeconfig.to_str().unwrap(),
        "--context",
        "nobody",
    ]);
    let out = run_with_limit(cmd, std::time::Duration::from_secs(60));
    assert_one_line_error(&out, &["cannot list configmaps", "--kubeconfig "]);
    let answer = run_can_i_hint(&out.stderr, &[]);
    assert_eq!(answer, ("no".to_string(), Some(1)), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn rbac_allowing_list_but_not_watch_names_watch() {
    let ns = TestNamespace::new("listonly").await;
    ns.grant_nobody("list-cm", &["configmaps"], &["list"]).await;
    // RBAC caches are eventually consistent; the list must be allowed before we look at watch.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let out = run(&["tail", "cm", "-n", &ns.name, "--context", "nobody"]);
        if out.stderr.contains("cannot list") && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(200));
            continue;
        }
        assert_one_line_error(&out, &["cannot watch configmaps", "as user \"nobody\""]);
        break;
    }
}

#[tokio::test]
async fn invalid_label_selector_fails_before_any_request() {
    // No kubeconfig at all: the selector is checked first.
    let out = run(&[
        "tail",
        "cm",
        "-l",
        "app in prod",
        "--kubeconfig",
        "/nonexistent",
    ]);
    assert_one_line_error(
        &out,
        &["invalid label selector \"app in prod\"", "parentheses"],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn field_selector_the_server_rejects_is_one_line_with_the_servers_reason() {
    let ns = TestNamespace::new("badfield").await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--field-selector",
        "spec.nonexistent=x",
    ]);
    assert_one_line_error(
        &out,
        &["list configmaps", "400", "is not a known field selector"],
    );
}

#[tokio::test]
async fn invalid_namespace_and_duration_flags_are_usage_errors() {
    let out = run(&["tail", "cm", "-n", "Bad_NS"]);
    assert_one_line_error(&out, &["invalid namespace \"Bad_NS\""]);
    let out = run(&["tail", "cm", "--request-timeout", "soon"]);
    assert_one_line_error(&out, &["--request-timeout soon: not a duration"]);
    let out = run(&["tail", "cm", "--request-timeout", "5"]);
    assert_one_line_error(
        &out,
        &["--request-timeout 5: a duration needs a unit, e.g. 5s or 5ms"],
    );
}

#[tokio::test]
async fn unknown_flag_is_a_usage_error_with_exit_2() {
    let out = run(&["tail", "cm", "--no-such-flag"]);
    assert_eq!(out.code, Some(2));
    assert!(out.stderr.contains("--no-such-flag"), "{}", out.stderr);
}
