//! kubectl's connection flags (`--server`, `--token`, `--as`, `--certificate-authority`,
//! `--insecure-skip-tls-verify`, `--tls-server-name`) and its `-v=N`, against the real control
//! plane: each flag must change what the binary does, with kubectl's precedence over the
//! kubeconfig.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Writes the control plane's CA to a file (for --certificate-authority).
fn ca_file(dir: &Path) -> PathBuf {
    let (_, ca) = server_and_ca();
    let path = dir.join("ca.crt");
    std::fs::write(&path, ca).unwrap();
    path
}

/// The binary with no kubeconfig anywhere: KUBECONFIG unset, HOME empty.
fn without_kubeconfig(home: &Path, args: &[&str]) -> Output {
    let mut cmd = informer();
    cmd.env_remove("KUBECONFIG").env("HOME", home).args(args);
    run_with_limit(cmd, Duration::from_secs(60))
}

/// A namespace holding one ConfigMap, so that `tail --max-events 1` has an event to print.
async fn namespace_with_one_configmap(prefix: &str) -> TestNamespace {
    let ns = TestNamespace::new(prefix).await;
    ns.create_configmap("one", &[]).await;
    ns
}

fn assert_tailed_one(out: &Output) {
    assert_eq!(out.code, Some(0), "stderr: {}", out.stderr);
    let events = out.object_events();
    assert_eq!(events.len(), 1, "stdout: {}", out.stdout);
    assert_eq!(events[0]["object"]["metadata"]["name"], "one");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn as_nobody_is_forbidden_and_the_hint_repeats_the_impersonation() {
    let ns = namespace_with_one_configmap("as-nobody").await;
    let out = run(&["tail", "cm", "-n", &ns.name, "--as", "nobody"]);
    assert_one_line_error(
        &out,
        &[
            "cannot list configmaps",
            "as user \"nobody\"",
            "kubectl auth can-i list configmaps -n ",
            "--as nobody",
        ],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn as_group_grants_what_the_group_may_do() {
    let ns = namespace_with_one_configmap("as-group").await;
    let out = run(&[
        "tail",
        "cm",
        "-n",
        &ns.name,
        "--as",
        "nobody",
        "--as-group",
        "system:masters",
        "--max-events",
        "1",
        "-o",
        "json",
    ]);
    assert_tailed_one(&out);
}

#[tokio::test]
async fn as_group_without_as_is_refused_before_any_request() {
    let out = run(&["tail", "cm", "--as-group", "system:masters"]);
    assert_one_line_error(&out, &["--as-group and --as-uid need --as"]);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn server_token_and_ca_flags_work_with_no_kubeconfig_at_all() {
    let ns = namespace_with_one_configmap("flags-only").await;
    let dir = tempfile::tempdir().unwrap();
    let ca = ca_file(dir.path());
    let (server, _) = server_and_ca();
    let admin_token = token("admin");
    let out = without_kubeconfig(
        dir.path(),
        &[
            "tail",
            "cm",
            "-n",
            &ns.name,
            "-s",
            &server,
            "--token",
            &admin_token,
            "--certificate-authority",
            ca.to_str().unwrap(),
            "--max-events",
            "1",
            "-o",
            "json",
        ],
    );
    assert_tailed_one(&out);
    // The same without a CA: the server's certificate is not trusted, in one line.
    let out = without_kubeconfig(
        dir.path(),
        &["tail", "cm", "-s", &server, "--token", &admin_token],
    );
    assert_one_line_error(&out, &["TLS handshake with", "--certificate-authority"]);
    assert!(!out.stderr.contains(&admin_token), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn server_flag_beats_the_kubeconfigs_server_and_token_flag_its_credentials() {
    let ns = namespace_with_one_configmap("server-flag").await;
    let dir = tempfile::tempdir().unwrap();
    let (server, ca) = server_and_ca();
    // A kubeconfig pointing at a closed port with nobody's token: only the flags can make this
    // run succeed.
    let kc = write_kubeconfig(
        dir.path(),
        "https://127.0.0.1:1",
        &token("nobody"),
        Some(&ca),
    );
    let kc = kc.to_str().unwrap();
    let tail = |extra: &[&str]| {
        let mut args = vec!["tail", "cm", "-n", &ns.name, "--kubeconfig", kc];
        args.extend_from_slice(extra);
        run(&args)
    };
    let out = tail(&[]);
    assert_one_line_error(&out, &["cannot connect to https://127.0.0.1:1"]);
    let out = tail(&["--server", &server]);
    assert_one_line_error(&out, &["as user \"nobody\""]);
    let admin_token = token("admin");
    let out = tail(&[
        "--server",
        &server,
        "--token",
        &admin_token,
        "--max-events",
        "1",
        "-o",
        "json",
    ]);
    assert_tailed_one(&out);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn insecure_skip_tls_verify_and_tls_server_name_change_the_certificate_check() {
    let ns = namespace_with_one_configmap("tls-flags").await;
    let dir = tempfile::tempdir().unwrap();
    let (server, ca) = server_and_ca();
    let admin_token = token("admin");
    let no_ca = write_kubeconfig(dir.path(), &server, &admin_token, None);
    let with_ca = write_kubeconfig(dir.path(), &server, &admin_token, Some(&ca));
    let tail = |kc: &Path, extra: &[&str]| {
        let mut args = vec![
            "tail",
            "cm",
            "-n",
            &ns.name,
            "--kubeconfig",
            kc.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--max-events", "1", "-o", "json"]);
        run(&args)
    };
    // The server's certificate is signed by the test CA, unknown without one.
    assert_one_line_error(&tail(&no_ca, &[]), &["TLS handshake with"]);
    assert_tailed_one(&tail(&no_ca, &["--insecure-skip-tls-verify"]));
    assert_tailed_one(&tail(&no_ca, &["--insecure-skip-tls-verify=true"]));
    assert_one_line_error(
        &tail(&no_ca, &["--insecure-skip-tls-verify=false"]),
        &["TLS handshake with"],
    );
    // The certificate names 127.0.0.1 and localhost: checking it against another name fails.
    assert_tailed_one(&tail(&with_ca, &["--tls-server-name", "localhost"]));
    assert_one_line_error(
        &tail(&with_ca, &["--tls-server-name", "not-the-server.example"]),
        &["TLS handshake with"],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn v6_logs_every_request_with_its_status_and_never_the_token() {
    let ns = namespace_with_one_configmap("verbosity").await;
    let admin_token = token("admin");
    for level in [["-v=6"].as_slice(), &["--v=6"], &["-v", "6"], &["-v6"]] {
        let mut args = vec![
            "tail",
            "cm",
            "-n",
            &ns.name,
            "--max-events",
            "1",
            "--token",
            &admin_token,
        ];
        args.extend_from_slice(level);
        let out = run(&args);
        assert_eq!(out.code, Some(0), "{level:?}: {}", out.stderr);
        assert!(
            out.stderr.contains("context \"admin\""),
            "{level:?}: {}",
            out.stderr
        );
        let list = format!("GET {}", server_and_ca().0);
        assert!(
            out.stderr
                .lines()
                .any(|l| l.contains(&list) && l.contains(" 200 OK in ")),
            "{level:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains(&admin_token), "{}", out.stderr);
    }
    // Level 1 says where it connects, not each request.
    let out = run(&["tail", "cm", "-n", &ns.name, "--max-events", "1", "-v=1"]);
    assert!(out.stderr.contains("context \"admin\""), "{}", out.stderr);
    assert!(!out.stderr.contains(" 200 OK in "), "{}", out.stderr);
}

#[tokio::test]
async fn bad_connection_flags_get_one_line_each() {
    for (args, needles) in [
        (
            vec!["tail", "cm", "--server", "ftp://example.com"],
            vec!["invalid --server", "https://"],
        ),
        (
            vec![
                "tail",
                "cm",
                "--certificate-authority",
                "/nonexistent/ca.crt",
            ],
            vec![
                "--certificate-authority /nonexistent/ca.crt",
                "no such file",
            ],
        ),
        (vec!["tail", "cm", "--token", ""], vec!["--token is empty"]),
    ] {
        let out = run(&args);
        assert_one_line_error(&out, &needles);
    }
    let out = run(&["tail", "cm", "-v=x"]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("-v=6"), "{}", out.stderr);
}

/// kubectl's boolean forms of the connection flags (`--flag=true`, `--flag=false`, `-A=false`)
/// are taken: the run goes on to the kubeconfig, which is what fails here.
#[test]
fn boolean_connection_flags_take_kubectls_forms() {
    let dir = tempfile::tempdir().unwrap();
    for flags in [
        &["--insecure-skip-tls-verify=true"][..],
        &["--insecure-skip-tls-verify=false"],
        &["--disable-compression=true"],
        &["--all-namespaces=true"],
        &["-A=false"],
        &["-A"],
    ] {
        let mut args = vec!["tail", "cm"];
        args.extend_from_slice(flags);
        let out = without_kubeconfig(dir.path(), &args);
        assert_one_line_error(&out, &["no kubeconfig found"]);
    }
}

/// A YAML file of another kind (a CRD's manifest) given as the kubeconfig is said to be no
/// kubeconfig, not a kubeconfig without a current context.
#[test]
fn a_manifest_given_as_the_kubeconfig_is_said_to_be_no_kubeconfig() {
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("crd.yaml");
    std::fs::write(
        &crd,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         name: widgets.example.com\nspec:\n  group: example.com\n  names:\n    kind: Widget\n    \
         plural: widgets\n  scope: Namespaced\n",
    )
    .unwrap();
    let out = run(&["tail", "cm", "--kubeconfig", crd.to_str().unwrap()]);
    assert_one_line_error(
        &out,
        &[
            "crd.yaml",
            "it is not a kubeconfig (its kind is CustomResourceDefinition, not Config)",
            "pass a kubeconfig with --kubeconfig",
        ],
    );
    assert!(!out.stderr.contains("current-context"), "{}", out.stderr);
}

/// `proxy --write-kubeconfig FILE` refuses a FILE that exists, as `tail --record` and `diff
/// --save-cache` do, and leaves it as it was; a new FILE is written.
#[test]
fn proxy_write_kubeconfig_refuses_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let existing = dir.path().join("existing.kubeconfig");
    std::fs::write(&existing, "mine\n").unwrap();
    // No request is made before the file is written: a server that answers nothing will do.
    let connection = ["--server", "https://127.0.0.1:1", "--token", "t"];
    let mut args = vec!["proxy", "-p", "0", "--for", "1s", "--write-kubeconfig"];
    args.push(existing.to_str().unwrap());
    args.extend_from_slice(&connection);
    let out = without_kubeconfig(dir.path(), &args);
    assert_one_line_error(
        &out,
        &[
            "cannot create --write-kubeconfig file",
            "existing.kubeconfig",
            "name a new file",
        ],
    );
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "mine\n");

    let new = dir.path().join("new.kubeconfig");
    let mut args = vec!["proxy", "-p", "0", "--for", "1s", "--write-kubeconfig"];
    args.push(new.to_str().unwrap());
    args.extend_from_slice(&connection);
    let out = without_kubeconfig(dir.path(), &args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let written = std::fs::read_to_string(&new).unwrap();
    assert!(written.contains("kind: Config"), "{written}");
}
