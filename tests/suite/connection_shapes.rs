//! The connection shapes kubectl accepts beyond a direct connection, against the real control
//! plane: a proxy from the environment (`HTTPS_PROXY`, `https_proxy`, `NO_PROXY`) or from the
//! kubeconfig (`proxy-url`: http, https and socks5), with client-go's rules; token files and
//! tokens with whitespace; exec plugins (`provideClusterInfo`, `interactiveMode`); and the
//! credentials that cannot be used, each refused in one line.
//!
//! The proxies here are small and real (HTTP CONNECT over TCP or TLS, SOCKS5); each records the
//! destinations it tunnelled to, so a test proves the tunnel was used, not only that the command
//! worked. The server is named `kubernetes.default.svc` (a name in the API server's certificate
//! that no resolver here knows, and that the proxies map to loopback), because client-go never
//! proxies loopback: a command that reaches it went through the proxy.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The name the proxies resolve to 127.0.0.1 (it is in the test API server's certificate).
const SERVICE_NAME: &str = "kubernetes.default.svc";

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Http,
    Https,
    Socks5,
}

/// A proxy on loopback, in a thread of its own (the tests block on the binary meanwhile).
struct TestProxy {
    port: u16,
    /// `host:port` of each tunnel opened.
    tunnels: Arc<Mutex<Vec<String>>>,
    /// Bytes the server sent through the tunnels, counted as they are relayed (a tunnel the
    /// client resets as it exits still counts what went through it).
    received: Arc<std::sync::atomic::AtomicU64>,
    /// Connections accepted, and those handled to their end.
    accepted: Arc<std::sync::atomic::AtomicUsize>,
    closed: Arc<std::sync::atomic::AtomicUsize>,
}

impl TestProxy {
    /// `credentials`: the `user:password` the proxy demands (407 without them).
    fn start(kind: Kind, credentials: Option<&str>) -> TestProxy {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let tunnels = Arc::new(Mutex::new(Vec::new()));
        let seen = tunnels.clone();
        let received = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = received.clone();
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let taken = accepted.clone();
        let closed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let ended = closed.clone();
        let credentials = credentials.map(|c| {
            use base64::Engine as _;
            format!(
                "basic {}",
                base64::engine::general_purpose::STANDARD.encode(c)
            )
        });
        let tls = (kind == Kind::Https).then(tls_acceptor);
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                loop {
                    let Ok((client, _)) = listener.accept().await else {
                        continue;
                    };
                    taken.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let (seen, credentials, tls) = (seen.clone(), credentials.clone(), tls.clone());
                    let (counted, ended) = (counted.clone(), ended.clone());
                    tokio::spawn(async move {
                        let tunnel = Tunnel {
                            seen: &seen,
                            counted: &counted,
                        };
                        let _ = match (kind, tls) {
                            (Kind::Socks5, _) => socks5(client, tunnel).await,
                            (_, Some(tls)) => match tls.accept(client).await {
                                Ok(stream) => connect(stream, tunnel, credentials.as_deref()).await,
                                Err(e) => Err(e),
                            },
                            (_, None) => connect(client, tunnel, credentials.as_deref()).await,
                        };
                        ended.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    });
                }
            });
        });
        TestProxy {
            port,
            tunnels,
            received,
            accepted,
            closed,
        }
    }

    /// Bytes the server sent through the tunnels, once every connection accepted has been
    /// handled to its end (the client has exited: its connections end), within 30 s: a count
    /// taken while one is still relaying could miss its last bytes.
    fn received(&self) -> u64 {
        use std::sync::atomic::Ordering::SeqCst;
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while self.closed.load(SeqCst) < self.accepted.load(SeqCst).max(self.tunnels().len()) {
            assert!(
                std::time::Instant::now() < deadline,
                "tunnels still open after 30 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        self.received.load(std::sync::atomic::Ordering::SeqCst)
    }

    fn url(&self, scheme: &str) -> String {
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    fn tunnels(&self) -> Vec<String> {
        self.tunnels.lock().unwrap().clone()
    }
}

/// The address a proxy dials for `host:port`: the service name is the API server on loopback.
fn resolve(target: &str) -> String {
    match target.strip_prefix(&format!("{SERVICE_NAME}:")) {
        Some(port) => format!("127.0.0.1:{port}"),
        None => target.to_string(),
    }
}

/// Where a tunnel notes its target and counts the bytes the server sends through it.
#[derive(Clone, Copy)]
struct Tunnel<'a> {
    seen: &'a Mutex<Vec<String>>,
    counted: &'a std::sync::atomic::AtomicU64,
}

impl Tunnel<'_> {
    /// Relays between `client` and `server` until either ends, counting what the server sends
    /// as it is read.
    async fn relay<C, S>(self, client: &mut C, server: S) -> std::io::Result<()>
    where
        C: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        let mut server = Counted {
            inner: server,
            counted: self.counted,
        };
        tokio::io::copy_bidirectional(client, &mut server).await?;
        Ok(())
    }
}

/// A stream whose reads are counted as they come.
struct Counted<'a, S> {
    inner: S,
    counted: &'a std::sync::atomic::AtomicU64,
}

impl<S: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Counted<'_, S> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let read = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = (buf.filled().len() - before) as u64;
        self.counted
            .fetch_add(n, std::sync::atomic::Ordering::SeqCst);
        read
    }
}

impl<S: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Counted<'_, S> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// An HTTP CONNECT proxy's side of one connection.
async fn connect<S>(
    mut client: S,
    tunnel: Tunnel<'_>,
    credentials: Option<&str>,
) -> std::io::Result<()>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8];
        if client.read(&mut byte).await? == 0 {
            return Ok(());
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let target = head
        .strip_prefix("CONNECT ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_default()
        .to_string();
    if let Some(want) = credentials {
        let given = head.lines().any(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("proxy-authorization: ")
                .is_some_and(|v| v == want.to_ascii_lowercase())
        });
        if !given {
            client
                .write_all(b"HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n")
                .await?;
            return Ok(());
        }
    }
    let server = match tokio::net::TcpStream::connect(resolve(&target)).await {
        Ok(server) => server,
        Err(_) => {
            client
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")
                .await?;
            return Ok(());
        }
    };
    tunnel.seen.lock().unwrap().push(target);
    client
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .await?;
    tunnel.relay(&mut client, server).await
}

/// A SOCKS5 proxy's side of one connection (no authentication; CONNECT only).
async fn socks5(mut client: tokio::net::TcpStream, tunnel: Tunnel<'_>) -> std::io::Result<()> {
    let mut greeting = [0u8; 2];
    client.read_exact(&mut greeting).await?;
    let mut methods = vec![0u8; greeting[1] as usize];
    client.read_exact(&mut methods).await?;
    client.write_all(&[5, 0]).await?;
    let mut request = [0u8; 4];
    client.read_exact(&mut request).await?;
    let host = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            client.read_exact(&mut ip).await?;
            std::net::Ipv4Addr::from(ip).to_string()
        }
        3 => {
            let mut len = [0u8];
            client.read_exact(&mut len).await?;
            let mut name = vec![0u8; len[0] as usize];
            client.read_exact(&mut name).await?;
            String::from_utf8_lossy(&name).to_string()
        }
        _ => return Ok(()),
    };
    let mut port = [0u8; 2];
    client.read_exact(&mut port).await?;
    let target = format!("{host}:{}", u16::from_be_bytes(port));
    let server = tokio::net::TcpStream::connect(resolve(&target)).await?;
    tunnel.seen.lock().unwrap().push(target);
    client.write_all(&[5, 0, 0, 1, 0, 0, 0, 0, 0, 0]).await?;
    tunnel.relay(&mut client, server).await
}

/// TLS for the https:// proxy, with the API server's own certificate (issued by the test CA,
/// for 127.0.0.1), which a client that trusts the cluster's CA accepts, as client-go does.
fn tls_acceptor() -> tokio_rustls::TlsAcceptor {
    use rustls_pki_types::pem::PemObject;
    let pki = run_dir().join("pki");
    let certs = rustls_pki_types::CertificateDer::pem_file_iter(pki.join("apiserver.crt"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = rustls_pki_types::PrivateKeyDer::from_pem_file(pki.join("apiserver.key")).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .unwrap();
    tokio_rustls::TlsAcceptor::from(Arc::new(config))
}

fn admin_token() -> String {
    token("admin")
}

/// A kubeconfig for the test API server at `host` (its port kept), with `cluster_extra` and
/// `user` as the cluster's extra fields and the user entry (YAML, indented for their place).
fn kubeconfig(dir: &Path, host: &str, cluster_extra: &str, user: &str) -> PathBuf {
    use base64::Engine as _;
    let (server, ca) = server_and_ca();
    let port = server.rsplit(':').next().unwrap();
    let ca = base64::engine::general_purpose::STANDARD.encode(ca);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://{host}:{port}\n    certificate-authority-data: {ca}\n{cluster_extra}users:\n- name: u\n  user:\n{user}contexts:\n- name: ctx\n  context: {{cluster: c, user: u, namespace: default}}\ncurrent-context: ctx\n"
    );
    let path = dir.join(unique("kubeconfig"));
    std::fs::write(&path, text).unwrap();
    path
}

fn token_user() -> String {
    format!("    token: {}\n", admin_token())
}

/// `tail configmaps` of one namespace until its one object arrives, with `env` set and every
/// proxy variable of the test's own environment removed first.
fn tail_one(kubeconfig: &Path, namespace: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = informer();
    for name in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        cmd.env_remove(name);
    }
    cmd.envs(env.iter().copied())
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(["tail", "configmaps", "-n", namespace, "--max-events", "1"])
        .args(["--request-timeout", "20s", "-o", "json"]);
    run_with_limit(cmd, Duration::from_secs(90))
}

fn assert_tailed_one(out: &Output) {
    assert_eq!(out.code, Some(0), "stderr: {}", out.stderr);
    let events = out.object_events();
    assert_eq!(events.len(), 1, "stdout: {}", out.stdout);
    assert_eq!(events[0]["object"]["metadata"]["name"], "one");
}

async fn namespace_with_one_configmap(prefix: &str) -> TestNamespace {
    let ns = TestNamespace::new(prefix).await;
    ns.create_configmap("one", &[]).await;
    ns
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn https_proxy_from_the_environment_carries_the_connection_and_no_proxy_bypasses_it() {
    let ns = namespace_with_one_configmap("env-proxy").await;
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(dir.path(), SERVICE_NAME, "", &token_user());
    let proxy = TestProxy::start(Kind::Http, None);
    let url = proxy.url("http");

    for name in ["HTTPS_PROXY", "https_proxy"] {
        let before = proxy.tunnels().len();
        assert_tailed_one(&tail_one(&kc, &ns.name, &[(name, &url)]));
        let tunnels = proxy.tunnels();
        assert!(
            tunnels.len() > before,
            "{name}: no tunnel through the proxy"
        );
        assert!(
            tunnels[before..]
                .iter()
                .all(|t| t.starts_with(SERVICE_NAME)),
            "{tunnels:?}"
        );
    }
    // A value without a scheme is http://, as Go reads it.
    let bare = format!("127.0.0.1:{}", proxy.port);
    assert_tailed_one(&tail_one(&kc, &ns.name, &[("HTTPS_PROXY", &bare)]));

    // NO_PROXY naming the server (a domain suffix, or the name with its port): no tunnel, so
    // the name does not resolve and the command fails in one line.
    let port = server_and_ca().0.rsplit(':').next().unwrap().to_string();
    for no_proxy in [
        ".svc".to_string(),
        format!("{SERVICE_NAME}:{port}"),
        "*".to_string(),
    ] {
        let before = proxy.tunnels().len();
        let out = tail_one(
            &kc,
            &ns.name,
            &[("HTTPS_PROXY", &url), ("no_proxy", &no_proxy)],
        );
        assert_one_line_error(&out, &["cannot connect to", SERVICE_NAME]);
        assert_eq!(
            proxy.tunnels().len(),
            before,
            "NO_PROXY={no_proxy} was proxied"
        );
    }
    // A NO_PROXY entry for another port does not cover the server.
    let before = proxy.tunnels().len();
    assert_tailed_one(&tail_one(
        &kc,
        &ns.name,
        &[
            ("HTTPS_PROXY", &url),
            ("NO_PROXY", &format!("{SERVICE_NAME}:1")),
        ],
    ));
    assert!(proxy.tunnels().len() > before);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_loopback_server_is_never_proxied_from_the_environment() {
    let ns = namespace_with_one_configmap("loopback-direct").await;
    let dir = tempfile::tempdir().unwrap();
    let proxy = TestProxy::start(Kind::Http, None);
    for host in ["127.0.0.1", "localhost"] {
        let kc = kubeconfig(dir.path(), host, "", &token_user());
        let out = tail_one(
            &kc,
            &ns.name,
            &[
                ("HTTPS_PROXY", &proxy.url("http")),
                ("HTTP_PROXY", &proxy.url("http")),
            ],
        );
        assert_tailed_one(&out);
    }
    assert_eq!(proxy.tunnels(), Vec::<String>::new());
    // Even a proxy that does not exist: it is never dialled.
    let kc = kubeconfig(dir.path(), "127.0.0.1", "", &token_user());
    assert_tailed_one(&tail_one(
        &kc,
        &ns.name,
        &[("HTTPS_PROXY", "http://192.0.2.1:9")],
    ));
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn proxy_url_in_the_kubeconfig_tunnels_over_http_https_and_socks5_even_to_loopback() {
    let ns = namespace_with_one_configmap("proxy-url").await;
    let dir = tempfile::tempdir().unwrap();
    for (kind, scheme) in [
        (Kind::Http, "http"),
        (Kind::Https, "https"),
        (Kind::Socks5, "socks5"),
    ] {
        let proxy = TestProxy::start(kind, None);
        let extra = format!("    proxy-url: {}\n", proxy.url(scheme));
        // Loopback too: a kubeconfig's proxy-url applies to every request, and NO_PROXY does
        // not apply to it.
        for host in [SERVICE_NAME, "127.0.0.1"] {
            let kc = kubeconfig(dir.path(), host, &extra, &token_user());
            let out = tail_one(&kc, &ns.name, &[("NO_PROXY", "*")]);
            assert_tailed_one(&out);
            let tunnels = proxy.tunnels();
            assert!(
                tunnels.iter().any(|t| t.starts_with(&format!("{host}:"))),
                "{scheme} proxy, server {host}: tunnels {tunnels:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn responses_come_gzipped_unless_compression_is_disabled_by_flag_or_kubeconfig() {
    use k8s_openapi::api::core::v1::ConfigMap;
    // 100 ConfigMaps of 8 KB of text that compresses well: a LIST or a watch-list of them is
    // 800 KB as it is, and a small fraction of that gzipped.
    let ns = TestNamespace::new("gzip").await;
    let api = kube::Api::<ConfigMap>::namespaced(ns.client.clone(), &ns.name);
    for i in 0..100 {
        let cm: ConfigMap = serde_json::from_value(serde_json::json!({
            "metadata": {"name": format!("cm-{i:03}")},
            "data": {"text": format!("line {i} of a configuration file\n").repeat(250)}
        }))
        .unwrap();
        api.create(&Default::default(), &cm).await.unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    // What the server sends for one `diff` (its sync and its comparison's LIST), through a
    // proxy that counts it: a server behind a proxy is not on this host, so even the
    // watch-list is asked for gzipped.
    let sent = |initial: &str, cluster_extra: &str, flags: &[&str]| -> u64 {
        let proxy = TestProxy::start(Kind::Http, None);
        let extra = format!("    proxy-url: {}\n{cluster_extra}", proxy.url("http"));
        let kc = kubeconfig(dir.path(), "127.0.0.1", &extra, &token_user());
        let mut args = vec![
            "--kubeconfig",
            kc.to_str().unwrap(),
            "diff",
            "configmaps",
            "-n",
            &ns.name,
            "--initial",
            initial,
        ];
        args.extend_from_slice(flags);
        let out = run(&args);
        assert_eq!(out.code, Some(0), "{initial} {flags:?}: {}", out.stderr);
        assert!(out.stdout.starts_with("no drift: "), "{}", out.stdout);
        proxy.received()
    };
    let list_gzip = sent("list", "", &[]);
    let list_plain = sent("list", "", &["--disable-compression"]);
    let list_plain_by_kubeconfig = sent("list", "    disable-compression: true\n", &[]);
    let watch_list_gzip = sent("watch-list", "", &[]);
    let watch_list_plain = sent("watch-list", "", &["--disable-compression"]);
    let figures = format!(
        "LIST: {list_gzip} gzipped, {list_plain} with --disable-compression, \
         {list_plain_by_kubeconfig} with the kubeconfig's disable-compression; watch-list: \
         {watch_list_gzip} gzipped, {watch_list_plain} with --disable-compression"
    );
    eprintln!("{figures}");
    assert!(list_plain > 1_600_000, "{figures}");
    assert!(list_gzip * 3 < list_plain, "{figures}");
    assert!(list_gzip * 3 < list_plain_by_kubeconfig, "{figures}");
    assert!(watch_list_gzip * 3 < watch_list_plain, "{figures}");
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_proxy_that_wants_credentials_gets_them_from_the_url_and_its_refusal_is_one_line() {
    let ns = namespace_with_one_configmap("proxy-auth").await;
    let dir = tempfile::tempdir().unwrap();
    let proxy = TestProxy::start(Kind::Http, Some("alice:s3cr%t"));
    let with = format!(
        "    proxy-url: http://alice:s3cr%25t@127.0.0.1:{}\n",
        proxy.port
    );
    let kc = kubeconfig(dir.path(), SERVICE_NAME, &with, &token_user());
    assert_tailed_one(&tail_one(&kc, &ns.name, &[]));
    assert!(!proxy.tunnels().is_empty());

    let without = format!("    proxy-url: {}\n", proxy.url("http"));
    let kc = kubeconfig(dir.path(), SERVICE_NAME, &without, &token_user());
    let out = tail_one(&kc, &ns.name, &[]);
    assert_one_line_error(&out, &["407", "proxy-url of cluster \"c\""]);

    let wrong = format!(
        "    proxy-url: http://alice:wrong-pass@127.0.0.1:{}\n",
        proxy.port
    );
    let kc = kubeconfig(dir.path(), SERVICE_NAME, &wrong, &token_user());
    let out = tail_one(&kc, &ns.name, &[]);
    assert_one_line_error(&out, &["407"]);
    assert!(!out.stderr.contains("wrong-pass"), "{}", out.stderr);
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn unusable_proxy_settings_are_refused_in_one_line_naming_where_they_were_set() {
    let dir = tempfile::tempdir().unwrap();
    let kc = kubeconfig(
        dir.path(),
        SERVICE_NAME,
        "    proxy-url: ftp://user:hunter2@proxy.example:21\n",
        &token_user(),
    );
    let out = tail_one(&kc, "default", &[]);
    assert_one_line_error(
        &out,
        &["proxy-url of cluster \"c\"", "ftp", "http, https or socks5"],
    );
    assert!(!out.stderr.contains("hunter2"), "{}", out.stderr);

    let kc = kubeconfig(dir.path(), SERVICE_NAME, "", &token_user());
    let out = tail_one(
        &kc,
        "default",
        &[("HTTPS_PROXY", "gopher://proxy.example:70")],
    );
    assert_one_line_error(&out, &["HTTPS_PROXY", "gopher"]);

    // A proxy that is not there: one line naming the proxy, not the API server's health.
    let kc = kubeconfig(
        dir.path(),
        SERVICE_NAME,
        "    proxy-url: http://127.0.0.1:9\n",
        &token_user(),
    );
    let out = tail_one(&kc, "default", &[]);
    assert_one_line_error(
        &out,
        &["proxy http://127.0.0.1:9", "proxy-url of cluster \"c\""],
    );
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn token_files_and_tokens_with_surrounding_whitespace_work_as_in_kubectl() {
    let ns = namespace_with_one_configmap("token-ws").await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    // As `echo $TOKEN > file` writes it.
    std::fs::write(&file, format!("{}\n", admin_token())).unwrap();
    let user = format!("    tokenFile: {}\n", file.display());
    let kc = kubeconfig(dir.path(), "127.0.0.1", "", &user);
    assert_tailed_one(&tail_one(&kc, &ns.name, &[]));

    // A YAML block scalar keeps the newline in an inline token.
    let user = format!("    token: |\n      {}\n", admin_token());
    let kc = kubeconfig(dir.path(), "127.0.0.1", "", &user);
    assert_tailed_one(&tail_one(&kc, &ns.name, &[]));
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn a_token_with_a_line_break_inside_is_one_line_of_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let token = admin_token();
    let (first, second) = token.split_at(token.len() / 2);
    let broken = format!("{first}\n{second}");

    let file = dir.path().join("token");
    std::fs::write(&file, &broken).unwrap();
    let kc = kubeconfig(
        dir.path(),
        "127.0.0.1",
        "",
        &format!("    tokenFile: {}\n", file.display()),
    );
    let from_file = tail_one(&kc, "default", &[]);
    assert_one_line_error(&from_file, &["users[].user.tokenFile", "line break"]);

    let kc = kubeconfig(
        dir.path(),
        "127.0.0.1",
        "",
        &format!("    token: \"{first}\\n{second}\"\n"),
    );
    let inline = tail_one(&kc, "default", &[]);
    assert_one_line_error(&inline, &["users[].user.token", "line break"]);

    let plugin = exec_plugin(dir.path(), &format!("{first}\\n{second}"), None);
    let kc = kubeconfig(
        dir.path(),
        "127.0.0.1",
        "",
        &exec_user(&plugin, "Never", false),
    );
    let from_plugin = tail_one(&kc, "default", &[]);
    assert_one_line_error(&from_plugin, &["exec plugin", "line break"]);
    for out in [&from_file, &inline, &from_plugin] {
        assert!(!out.stderr.contains(first), "no token in: {}", out.stderr);
        assert!(!out.stderr.contains("RUST_BACKTRACE"), "{}", out.stderr);
    }
}

/// A shell-script exec plugin printing an ExecCredential with `token` (JSON-escaped already);
/// it saves its KUBERNETES_EXEC_INFO to `info` when given.
fn exec_plugin(dir: &Path, token: &str, info: Option<&Path>) -> PathBuf {
    let path = dir.join(unique("plugin"));
    let save = info
        .map(|p| {
            format!(
                "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '{}'\n",
                p.display()
            )
        })
        .unwrap_or_default();
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n{save}printf '%s' '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{token}\"}}}}'\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn exec_user(plugin: &Path, interactive: &str, cluster_info: bool) -> String {
    format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: {interactive}\n      provideClusterInfo: {cluster_info}\n",
        plugin.display()
    )
}

#[tokio::test]
#[ignore = "needs the test control plane (tests/controlplane/controlplane.sh up): cargo test -- --ignored"]
async fn an_exec_plugin_gets_the_cluster_info_and_interactive_mode_client_go_gives() {
    let ns = namespace_with_one_configmap("exec-info").await;
    let dir = tempfile::tempdir().unwrap();
    let info = dir.path().join("exec-info.json");
    let plugin = exec_plugin(dir.path(), &admin_token(), Some(&info));
    let kc = kubeconfig(
        dir.path(),
        "127.0.0.1",
        "",
        &exec_user(&plugin, "Never", true),
    );
    assert_tailed_one(&tail_one(&kc, &ns.name, &[]));
    let sent: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&info).unwrap()).unwrap();
    assert_eq!(sent["kind"], "ExecCredential");
    assert_eq!(sent["apiVersion"], "client.authentication.k8s.io/v1");
    assert_eq!(
        sent["spec"]["interactive"], false,
        "interactiveMode Never: {sent}"
    );
    let server = sent["spec"]["cluster"]["server"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(server.trim_end_matches('/'), server_and_ca().0, "{sent}");
    assert!(
        sent["spec"]["cluster"]["certificate-authority-data"].is_string(),
        "the cluster's CA is passed on: {sent}"
    );

    // Without provideClusterInfo the plugin is told nothing of the cluster.
    let kc = kubeconfig(
        dir.path(),
        "127.0.0.1",
        "",
        &exec_user(&plugin, "Never", false),
    );
    assert_tailed_one(&tail_one(&kc, &ns.name, &[]));
    let sent: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&info).unwrap()).unwrap();
    assert!(sent["spec"]["cluster"].is_null(), "{sent}");

    // The test's standard input is not a terminal: IfAvailable runs the plugin as not
    // interactive, as client-go does, and Always is refused in one line before it runs.
    let kc = kubeconfig(
        dir.path(),
        "127.0.0.1",
        "",
        &exec_user(&plugin, "IfAvailable", false),
    );
    assert_tailed_one(&tail_one(&kc, &ns.name, &[]));
    let sent: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&info).unwrap()).unwrap();
    assert_eq!(
        sent["spec"]["interactive"], false,
        "interactiveMode IfAvailable without a terminal: {sent}"
    );
    std::fs::remove_file(&info).unwrap();
    let kc = kubeconfig(
        dir.path(),
        "127.0.0.1",
        "",
        &exec_user(&plugin, "Always", false),
    );
    let out = tail_one(&kc, &ns.name, &[]);
    assert_one_line_error(&out, &["interactiveMode Always", "not a terminal"]);
    assert!(!info.exists(), "the plugin was not run");
}
