//! Every command that connects ends within its limits however a peer stalls: a loopback server
//! that stops at one phase of a connection (TCP accepted and silent, a TLS handshake started and
//! stopped, a request taken and never answered, response headers and then a body that stops),
//! and each command against it ends with its exit code and one line naming the endpoint, the
//! phase and the limit. Limits are client-go's per phase (dial 30 s, TLS handshake 10 s,
//! response headers `--request-timeout` or 60 s, a body that stops the health check's window),
//! and the run's own: `--for`, `--timeout`, SIGTERM. Beside them, what the proxy answers itself
//! rather than forward (an upgrade), with a Status and a line that says so.
//!
//! The assertions are on exit codes and lines; each run is only killed (and failed) when it
//! outlives a generous multiple of its limit, so a loaded machine does not fail them.

use crate::common::*;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Where a [`StallServer`] stops.
#[derive(Clone, Copy, Debug)]
enum Stall {
    /// Accepts the connection and says nothing (a plain-HTTP peer: no response headers).
    Accept,
    /// Reads the ClientHello, sends the first bytes of a ServerHello record, then nothing.
    Handshake,
    /// Completes TLS, reads the request, never answers it.
    Headers,
    /// Completes TLS (or not, `plain`), answers 200 with headers that promise a body, sends a
    /// part of it, then nothing.
    Body,
}

/// A server on loopback that stalls every connection at one phase and holds it open.
struct StallServer {
    port: u16,
    accepted: Arc<AtomicUsize>,
}

impl StallServer {
    fn start(stall: Stall, tls: bool) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let config = tls.then(server_config);
        let count = accepted.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                let config = config.clone();
                std::thread::spawn(move || stall_on(conn, stall, config));
            }
        });
        StallServer { port, accepted }
    }

    fn https(&self) -> String {
        format!("https://127.0.0.1:{}", self.port)
    }

    fn endpoint(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Waits until a client has connected, within 30 s.
    fn wait_for_a_connection(&self) {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while self.accepted.load(Ordering::SeqCst) == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "no connection within 30 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A self-signed serving certificate for 127.0.0.1 (the clients skip verification: what is
/// tested is the time a phase takes, not trust), HTTP/1.1 only.
fn server_config() -> Arc<rustls::ServerConfig> {
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let key = rustls_pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.cert.der().clone()], key)
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// Plays one connection up to its stall, then holds it open until the client goes.
fn stall_on(mut conn: TcpStream, stall: Stall, tls: Option<Arc<rustls::ServerConfig>>) {
    let hold = |conn: &mut dyn Read| {
        let mut sink = [0u8; 4096];
        while matches!(conn.read(&mut sink), Ok(n) if n > 0) {}
    };
    match stall {
        Stall::Accept => return hold(&mut conn),
        Stall::Handshake => {
            let mut hello = [0u8; 4096];
            let _ = conn.read(&mut hello);
            // A handshake record's header and the first bytes of a ServerHello.
            let _ = conn.write_all(&[0x16, 0x03, 0x03, 0x00, 0x5a, 0x02, 0x00, 0x00]);
            return hold(&mut conn);
        }
        Stall::Headers | Stall::Body => {}
    }
    let mut stream: Box<dyn ReadWrite> = match tls {
        Some(config) => {
            let server = rustls::ServerConnection::new(config).unwrap();
            Box::new(rustls::StreamOwned::new(server, conn))
        }
        None => Box::new(conn),
    };
    // The request's head (no body: every request here is a GET).
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    if let Stall::Body = stall {
        let _ = stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"kind\":",
        );
        let _ = stream.flush();
    }
    hold(&mut stream);
}

trait ReadWrite: Read + Write + Send {}
impl<T: Read + Write + Send> ReadWrite for T {}

/// The binary with `args` against `server`, named with `--server` (over a kubeconfig whose own
/// server is never asked), skipping verification; `dir` holds the kubeconfig.
fn command(dir: &std::path::Path, server: &str, args: &[&str]) -> std::process::Command {
    let kubeconfig = write_kubeconfig(dir, "https://127.0.0.1:9", "unused", None);
    let mut cmd = informer();
    cmd.env("KUBECONFIG", kubeconfig).args(args).args([
        "--server",
        server,
        "--insecure-skip-tls-verify",
        "--token",
        "stall-test",
    ]);
    cmd
}

/// [`command`] run to its end; killed and failed after `limit`.
fn against(server: &str, args: &[&str], limit: Duration) -> Output {
    let dir = tempfile::tempdir().unwrap();
    run_with_limit(command(dir.path(), server, args), limit)
}

#[test]
fn tail_for_ends_the_run_while_the_tls_handshake_never_comes() {
    let server = StallServer::start(Stall::Accept, true);
    let out = against(
        &server.https(),
        &["tail", "cm", "--for", "3s"],
        Duration::from_secs(40),
    );
    // --for before the server ever answered: nothing was watched, so not a pass.
    assert_one_line_error(
        &out,
        &[
            "--for 3s ended the run while",
            &format!("no TLS handshake from {} within 3s", server.endpoint()),
            "check the address (--server)",
        ],
    );
}

#[test]
fn diff_timeout_gives_up_on_a_handshake_stopped_half_way() {
    let server = StallServer::start(Stall::Handshake, true);
    let out = against(
        &server.https(),
        &["diff", "cm", "--timeout", "3s"],
        Duration::from_secs(40),
    );
    assert_timed_out(
        &out,
        &[
            "--timeout 3s ended the run while",
            &format!("no TLS handshake from {}", server.endpoint()),
        ],
    );
}

#[test]
fn a_tls_handshake_that_never_ends_fails_within_ten_seconds() {
    let server = StallServer::start(Stall::Handshake, true);
    let out = against(&server.https(), &["version"], Duration::from_secs(60));
    assert_one_line_error(
        &out,
        &[
            "get /version",
            &format!("no TLS handshake from {} within 10s", server.endpoint()),
        ],
    );
}

#[test]
fn request_timeout_bounds_the_wait_for_response_headers() {
    let server = StallServer::start(Stall::Headers, true);
    let out = against(
        &server.https(),
        &["tail", "cm", "--request-timeout", "2s"],
        Duration::from_secs(40),
    );
    assert_one_line_error(
        &out,
        &[&format!(
            "{}/api: no response headers within 2s",
            server.https()
        )],
    );
}

#[test]
fn conform_and_version_end_at_the_request_timeout_without_headers() {
    let server = StallServer::start(Stall::Headers, true);
    for args in [
        &["conform", "configmaps", "--request-timeout", "2s"][..],
        &["version", "--request-timeout", "2s"][..],
    ] {
        let out = against(&server.https(), args, Duration::from_secs(40));
        assert_one_line_error(&out, &["no response headers within 2s"]);
    }
}

#[test]
fn bench_live_ends_at_the_request_timeout_without_headers() {
    let server = StallServer::start(Stall::Headers, true);
    let out = against(
        &server.https(),
        &[
            "bench",
            "cm",
            "-n",
            "stalled",
            "--no-churn",
            "--for",
            "3s",
            "--request-timeout",
            "2s",
        ],
        Duration::from_secs(40),
    );
    assert_one_line_error(&out, &["no response headers within 2s"]);
}

/// Each way a live bench is asked for: without load, with load (in a scratch namespace, in
/// one that -n names), timing a controller's reactions (`--react`), reading a controller's
/// metrics (`--metrics-from`, a silent one too).
fn bench_runs(dir: &std::path::Path, metrics: &str) -> Vec<Vec<String>> {
    let template = dir.join("cm.yaml");
    std::fs::write(
        &template,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\n",
    )
    .unwrap();
    let template = template.to_str().unwrap();
    let runs: [&[&str]; 6] = [
        &["-n", "stalled", "--no-churn"],
        &[],
        &["-n", "stalled", "--objects", "5", "--rate", "5"],
        &[
            "-n",
            "stalled",
            "--no-churn",
            "--react",
            "observed-generation",
        ],
        &["--template", template, "--react", "condition:Ready"],
        &["-n", "stalled", "--no-churn", "--metrics-from", metrics],
    ];
    runs.iter()
        .map(|extra| {
            ["bench", "configmaps", "--for", "3s"]
                .iter()
                .chain(extra.iter())
                .map(|s| s.to_string())
                .collect()
        })
        .collect()
}

/// Every bench run of [`bench_runs`] against `server`, at once (each on its own thread), each
/// checked with `check`.
fn every_bench_run_against(server: &StallServer, check: impl Fn(&Output) + Sync) {
    let dir = tempfile::tempdir().unwrap();
    let silent_metrics = StallServer::start(Stall::Accept, false);
    let metrics = format!("http://127.0.0.1:{}/metrics", silent_metrics.port);
    let url = server.https();
    std::thread::scope(|scope| {
        let runs: Vec<_> = bench_runs(dir.path(), &metrics)
            .into_iter()
            .map(|args| {
                let url = &url;
                scope.spawn(move || {
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    (args.join(" "), against(url, &args, Duration::from_secs(40)))
                })
            })
            .collect();
        for run in runs {
            let (args, out) = run.join().unwrap();
            eprintln!("{args}: exit {:?}", out.code);
            check(&out);
        }
    });
}

#[test]
fn bench_for_ends_every_live_run_while_the_tls_handshake_never_comes() {
    let server = StallServer::start(Stall::Accept, true);
    every_bench_run_against(&server, |out| {
        assert_one_line_error(
            out,
            &[
                "--for 3s ended the run while",
                &format!("no TLS handshake from {} within 3s", server.endpoint()),
            ],
        )
    });
}

#[test]
fn bench_for_ends_every_live_run_while_the_server_never_answers() {
    let server = StallServer::start(Stall::Headers, true);
    every_bench_run_against(&server, |out| {
        assert_one_line_error(
            out,
            &[
                "--for 3s ended the run while discovery",
                &format!("{}/api: no response headers within 3s", server.https()),
            ],
        )
    });
}

/// conform has no time box of its own: a peer that never completes the TLS handshake ends it at
/// the handshake's limit (client-go's 10 s).
#[test]
fn conform_ends_at_the_tls_handshakes_limit_when_it_never_comes() {
    let server = StallServer::start(Stall::Accept, true);
    for args in [
        &["conform", "configmaps"][..],
        &["conform", "configmaps", "-n", "stalled", "--read-only"][..],
    ] {
        let out = against(&server.https(), args, Duration::from_secs(60));
        assert_one_line_error(
            &out,
            &[&format!(
                "no TLS handshake from {} within 10s",
                server.endpoint()
            )],
        );
    }
}

#[test]
fn a_body_that_stops_is_abandoned_at_the_health_checks_window() {
    let server = StallServer::start(Stall::Body, true);
    // The window is the health check's idle time plus 15 s for a PING's answer: 16 s here.
    let out = against(
        &server.https(),
        &["tail", "cm", "--health-check", "1s"],
        Duration::from_secs(90),
    );
    assert_one_line_error(
        &out,
        &["stopped sending the response for 16s", &server.https()],
    );
}

#[test]
fn diff_timeout_ends_a_body_that_stopped_and_names_it() {
    let server = StallServer::start(Stall::Body, true);
    let out = against(
        &server.https(),
        &["diff", "cm", "--timeout", "3s"],
        Duration::from_secs(40),
    );
    assert_timed_out(
        &out,
        &[
            "--timeout 3s ended the run while",
            &format!(
                "{}/api: the response body did not end within 3s",
                server.https()
            ),
        ],
    );
}

/// A kubeconfig for `top`, whose URL target is scraped with the kubeconfig's trust (its server
/// itself is never asked here).
fn metrics_kubeconfig(dir: &std::path::Path) -> String {
    write_kubeconfig(dir, "https://127.0.0.1:9", "unused", None)
        .to_str()
        .unwrap()
        .to_string()
}

/// A controller's plain-HTTP metrics that give no headers, or headers and then half a body:
/// top's `--for` ends its first scrape, naming the phase.
#[test]
fn top_for_ends_a_first_scrape_without_headers_or_with_a_stopped_body() {
    for (stall, missing) in [
        (Stall::Accept, "no response headers"),
        (Stall::Body, "the response body did not end"),
    ] {
        let server = StallServer::start(stall, false);
        let dir = tempfile::tempdir().unwrap();
        let kc = metrics_kubeconfig(dir.path());
        let url = format!("http://127.0.0.1:{}/metrics", server.port);
        let mut cmd = informer();
        cmd.args(["top", &url, "--for", "3s", "--kubeconfig", &kc]);
        let out = run_with_limit(cmd, Duration::from_secs(40));
        assert_one_line_error(
            &out,
            &[
                "--for 3s ended the run while the first scrape of",
                &format!("{url}: {missing} within 3s"),
            ],
        );
    }
}

#[test]
fn sigterm_ends_a_run_waiting_for_the_tls_handshake_with_143() {
    let server = StallServer::start(Stall::Accept, true);
    let dir = tempfile::tempdir().unwrap();
    let child = command(dir.path(), &server.https(), &["tail", "cm"])
        .spawn()
        .unwrap();
    let pid = child.id();
    let waiter = std::thread::spawn(move || child.wait_with_output().unwrap());
    server.wait_for_a_connection();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = waiter.join().unwrap();
    assert_eq!(out.status.code(), Some(143), "{out:?}");
    // Stopped from outside before anything ran: nothing to say.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One request through `kubectl informer proxy --plain-http`, with `headers` (each line ending
/// in CRLF): its status line and the JSON object of its body.
fn through_proxy_with(port: u16, path: &str, headers: &str) -> (String, String) {
    let mut conn = TcpStream::connect(("127.0.0.1", port)).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    write!(
        conn,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{headers}\r\n"
    )
    .unwrap();
    let mut response = String::new();
    conn.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    // The JSON object, whatever the framing (chunked or not).
    let json = match (body.find('{'), body.rfind('}')) {
        (Some(start), Some(end)) => &body[start..=end],
        _ => body,
    };
    (
        head.lines().next().unwrap_or_default().to_string(),
        json.to_string(),
    )
}

fn through_proxy(port: u16, path: &str) -> (String, String) {
    through_proxy_with(port, path, "")
}

/// The port of a proxy whose first stdout line (text or `-o json`) names its URL.
fn serving_port(line: &str) -> u16 {
    let after = line.split("http://127.0.0.1:").nth(1).unwrap();
    after
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn the_proxy_answers_504_with_a_status_when_the_upstream_never_answers_and_keeps_serving() {
    let server = StallServer::start(Stall::Headers, true);
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = Streaming::spawn(command(
        dir.path(),
        &server.https(),
        &[
            "proxy",
            "--plain-http",
            "-p",
            "0",
            "--request-timeout",
            "2s",
        ],
    ));
    let line = proxy.wait_for("the serving line", Duration::from_secs(30), |l| {
        l.starts_with("Starting to serve on http://127.0.0.1:")
    });
    let port = serving_port(&line);
    for _ in 0..2 {
        let (status, body) = through_proxy(port, "/api/v1/namespaces");
        assert!(status.contains(" 504 "), "{status}");
        let body: serde_json::Value = serde_json::from_str(body.trim())
            .unwrap_or_else(|e| panic!("not a Status ({e}): {body}"));
        assert_eq!(body["kind"], "Status");
        assert_eq!(body["reason"], "Timeout");
        let message = body["message"].as_str().unwrap();
        assert!(
            message.contains("no response headers within 2s"),
            "{message}"
        );
    }
    let status = std::process::Command::new("kill")
        .args(["-TERM", &proxy.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = proxy.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(143), "{}", out.stderr);
}

#[test]
fn an_exec_plugin_that_never_exits_is_one_line_within_the_request_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("never-exits.sh");
    // Ends by itself long after the test (a plugin left behind is not killed by kubectl either).
    std::fs::write(&plugin, "#!/bin/sh\nexec sleep 30\n").unwrap();
    std::fs::set_permissions(&plugin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: \
             https://127.0.0.1:9\nusers:\n- name: u\n  user:\n    exec:\n      apiVersion: \
             client.authentication.k8s.io/v1\n      command: {}\ncontexts:\n- name: ctx\n  \
             context: {{cluster: c, user: u}}\ncurrent-context: ctx\n",
            plugin.display()
        ),
    )
    .unwrap();
    let mut cmd = informer();
    cmd.env("KUBECONFIG", &kubeconfig)
        .args(["tail", "cm", "--request-timeout", "2s"]);
    let out = run_with_limit(cmd, Duration::from_secs(25));
    assert_one_line_error(
        &out,
        &[
            "never-exits.sh",
            "did not print a credential within 2s",
            "--request-timeout",
        ],
    );
}

/// A kubeconfig for `server` whose user's exec plugin is `script`, in `dir`; `RAN` in the
/// script is a file it may append a line to on each run (returned beside the kubeconfig).
fn exec_plugin_kubeconfig(
    dir: &std::path::Path,
    name: &str,
    server: &str,
    script: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let plugin = dir.join(name);
    let ran = dir.join("ran");
    std::fs::write(&plugin, script.replace("RAN", &ran.display().to_string())).unwrap();
    std::fs::set_permissions(&plugin, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {server}\n\
             users:\n- name: u\n  user:\n    exec:\n      apiVersion: \
             client.authentication.k8s.io/v1\n      command: {}\ncontexts:\n- name: ctx\n  \
             context: {{cluster: c, user: u, namespace: ns}}\ncurrent-context: ctx\n",
            plugin.display()
        ),
    )
    .unwrap();
    (kubeconfig, ran)
}

/// How many times an [`exec_plugin_kubeconfig`] plugin ran.
fn plugin_runs(ran: &std::path::Path) -> usize {
    std::fs::read_to_string(ran)
        .unwrap_or_default()
        .lines()
        .count()
}

/// A plugin whose first two runs (the client's set-up: for a client certificate, then for the
/// token) each print a token that expires in 2 s, and whose every later run, a renewal, hangs
/// (ending by itself long after the test).
const RENEWS_NEVER: &str = r#"#!/bin/sh
echo run >> RAN
if [ "$(wc -l < RAN)" -gt 2 ]; then exec sleep 120; fi
exp=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%SZ)
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"%s"}}\n' "$exp"
"#;

/// An exec plugin that prints a token about to expire, then never exits when run again: kube
/// runs it again before the next request (a token within a minute of its expiry is renewed),
/// and that renewal is bounded as the first run is, with the same line, not said as the
/// server's silence.
#[test]
fn an_exec_plugin_whose_renewal_never_exits_is_one_line_within_the_request_timeout() {
    let (out, runs, server) = tail_while_a_renewal_hangs(("30s", "2s"), Duration::from_secs(25));
    assert!(runs > 2, "not run again: {}", out.stderr);
    assert_one_line_error(
        &out,
        &[
            "renews-never.sh",
            "did not print a credential within 2s",
            "--request-timeout",
        ],
    );
    assert!(
        server.requests().is_empty(),
        "a request went without the renewed token: {:?}",
        server.requests()
    );
}

/// `tail cm --for FOR --request-timeout TIMEOUT` on a server that answers discovery, with the
/// plugin that hangs at its first renewal, run within `limit`: its output, how often the plugin
/// ran, and the server (for the requests it saw).
fn tail_while_a_renewal_hangs(
    (run_for, request_timeout): (&str, &str),
    limit: Duration,
) -> (Output, usize, crate::common::fake::FakeServer) {
    use crate::common::fake::{self, FakeServer};
    let server = FakeServer::start(|path, _| match path {
        "/api" => fake::core_discovery(),
        _ => fake::empty_discovery(),
    });
    let dir = tempfile::tempdir().unwrap();
    let (kubeconfig, ran) =
        exec_plugin_kubeconfig(dir.path(), "renews-never.sh", &server.url, RENEWS_NEVER);
    let mut cmd = informer();
    cmd.env("KUBECONFIG", &kubeconfig).args([
        "tail",
        "cm",
        "--for",
        run_for,
        "--request-timeout",
        request_timeout,
    ]);
    let out = run_with_limit(cmd, limit);
    let runs = plugin_runs(&ran);
    (out, runs, server)
}

/// A limit of the run (`--for`) that ends it while a renewal hangs names the plugin, not the
/// server, as what the run was waiting for.
#[test]
fn a_run_limit_that_ends_a_hung_renewal_names_the_plugin() {
    let (out, runs, _server) = tail_while_a_renewal_hangs(("2s", "20s"), Duration::from_secs(15));
    assert!(runs > 2, "not run again: {}", out.stderr);
    assert_one_line_error(
        &out,
        &[
            "--for 2s ended the run",
            "no credential from the exec plugin",
            "renews-never.sh",
            "run the plugin by hand",
        ],
    );
}

/// A plugin whose tokens always expire within a minute is run again for every request (as
/// kube and client-go do), once: the renewal made before the request's limits start is the
/// one the request carries, not run a second time inside the request.
#[test]
fn an_exec_plugins_short_lived_token_is_renewed_once_per_request() {
    use crate::common::fake::{self, FakeServer};
    let server = FakeServer::start(|path, _| match path {
        "/api" => fake::core_discovery(),
        _ => fake::empty_discovery(),
    });
    let dir = tempfile::tempdir().unwrap();
    // Each run prints the token t<run>, which expires in 2 s.
    let script = r#"#!/bin/sh
echo run >> RAN
exp=$(date -u -d '+2 seconds' +%Y-%m-%dT%H:%M:%SZ)
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t%s","expirationTimestamp":"%s"}}\n' "$(wc -l < RAN)" "$exp"
"#;
    let (kubeconfig, ran) = exec_plugin_kubeconfig(dir.path(), "short.sh", &server.url, script);
    let mut cmd = informer();
    cmd.env("KUBECONFIG", &kubeconfig).args([
        "tail",
        "cm",
        "--for",
        "2s",
        "--request-timeout",
        "5s",
    ]);
    let out = run_with_limit(cmd, Duration::from_secs(25));
    let mut sent = server.authorizations.lock().unwrap().clone();
    assert!(
        sent.len() >= 2,
        "requests: {:?}; {}",
        server.requests(),
        out.stderr
    );
    // Two runs to set up the client, then one for each request, in whichever order the
    // concurrent requests reached the server.
    sent.sort_by_key(|a| {
        a.trim_start_matches("Bearer t")
            .parse::<usize>()
            .unwrap_or(0)
    });
    let expected: Vec<String> = (3..3 + sent.len())
        .map(|n| format!("Bearer t{n}"))
        .collect();
    assert_eq!(sent, expected, "{}", out.stderr);
    assert_eq!(plugin_runs(&ran), 2 + sent.len(), "{}", out.stderr);
}

#[test]
fn the_proxy_refuses_an_upgrade_with_a_status_and_says_so() {
    // The upstream is never asked: an upgrade is answered by the proxy itself.
    let server = StallServer::start(Stall::Accept, true);
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = Streaming::spawn(command(
        dir.path(),
        &server.https(),
        &["proxy", "--plain-http", "-p", "0", "-o", "json"],
    ));
    let line = proxy.wait_for("the serving line", Duration::from_secs(30), |l| {
        l.contains("\"type\":\"serving\"")
    });
    let port = serving_port(&line);
    let exec = "/api/v1/namespaces/default/pods/p/exec?command=sh&stdin=true";
    let (status, body) = through_proxy_with(
        port,
        exec,
        "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAAAA==\r\n",
    );
    assert!(status.contains(" 400 "), "{status}");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["kind"], "Status");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("does not forward upgraded connections"),
        "{body}"
    );
    let refused = proxy.wait_for("the refused line", Duration::from_secs(30), |l| {
        l.contains("\"type\":\"refused\"")
    });
    let refused: serde_json::Value = serde_json::from_str(&refused).unwrap();
    assert_eq!(
        refused["request"],
        "GET /api/v1/namespaces/default/pods/p/exec"
    );
    assert_eq!(
        server.accepted.load(Ordering::SeqCst),
        0,
        "the upstream was asked"
    );
    let status = std::process::Command::new("kill")
        .args(["-TERM", &proxy.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = proxy.finish(Duration::from_secs(30));
    assert_eq!(out.code, Some(143), "{}", out.stderr);
}

/// bench on the test control plane, its `--metrics-from` a controller that takes the connection
/// and never answers: the first scrape ends with the measured window, in one line.
#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn bench_metrics_from_a_silent_controller_ends_with_its_window() {
    let ns = TestNamespace::new("stalled-metrics").await;
    let server = StallServer::start(Stall::Accept, false);
    let url = format!("http://127.0.0.1:{}/metrics", server.port);
    let out = run(&[
        "bench",
        "configmaps",
        "-n",
        &ns.name,
        "--no-churn",
        "--allow-empty",
        "--metrics-from",
        &url,
        "--for",
        "3s",
    ]);
    assert_one_line_error(
        &out,
        &[
            "the first scrape of",
            "--for 3s ended the run while",
            &format!("{url}: no response headers within 3s"),
        ],
    );
}

/// A server that answers discovery and whether the namespace exists, and never finishes an
/// answer about ConfigMaps: bench's informer never syncs (without load and with it), so --for
/// ends the run while the first LIST and WATCH wait; conform's first LIST ends at
/// --request-timeout.
#[test]
fn bench_for_ends_a_run_whose_first_list_and_watch_never_finish() {
    use crate::common::fake::{self, FakeServer, Reply, Step};
    let server = FakeServer::start(|path, _| {
        if path.starts_with("/api/v1/namespaces/ns/configmaps") {
            return Reply::Stream(vec![Step::Sleep(Duration::from_secs(600))]);
        }
        if path.starts_with("/api/v1/namespaces/ns") {
            return Reply::Json(
                200,
                r#"{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"ns"}}"#.into(),
            );
        }
        if path == "/api" {
            return fake::core_discovery();
        }
        fake::empty_discovery()
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = fake::kubeconfig(dir.path(), &server.url);
    let kc = kc.to_str().unwrap();
    for extra in [&["--no-churn"][..], &["--objects", "5", "--rate", "5"][..]] {
        let mut cmd = informer();
        cmd.args([
            "bench",
            "configmaps",
            "-n",
            "ns",
            "--for",
            "3s",
            "--kubeconfig",
            kc,
        ])
        .args(extra);
        let out = run_with_limit(cmd, Duration::from_secs(40));
        assert_one_line_error(
            &out,
            &[
                "--for 3s ended the run while the informer's first LIST and WATCH of configmaps",
                &server.url,
            ],
        );
    }
    let mut cmd = informer();
    cmd.args([
        "conform",
        "configmaps",
        "-n",
        "ns",
        "--read-only",
        "--request-timeout",
        "2s",
    ])
    .args(["--kubeconfig", kc]);
    let out = run_with_limit(cmd, Duration::from_secs(40));
    assert_one_line_error(&out, &["list configmaps", "2s"]);
}
