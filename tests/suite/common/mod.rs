//! Test harness for the real control plane: finds the running kube-apiserver (started by
//! `tests/controlplane/controlplane.sh up`, or by `tests/run.sh`), gives each test its own
//! namespace, and runs the `kubectl-informer` binary against it. A missing control plane is a
//! failure that names the command to start it; nothing is skipped.
#![allow(dead_code)]

pub mod bench;
pub mod bending;
pub mod controllers;
pub mod crd;
pub mod fake;
pub mod older;
pub mod schema;

use base64::Engine;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, DeleteParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub const START_COMMAND: &str = "tests/controlplane/controlplane.sh up";

/// A tool built by `tests/tools/tools.sh build` (actionlint, krew, validate-krew-manifest,
/// kubectl, promtool); a missing one fails the test with the command that builds it.
pub fn tool(name: &str) -> PathBuf {
    let bin = std::env::var_os("KUBECTL_INFORMER_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/bin"));
    let path = bin.join(name);
    assert!(
        path.is_file(),
        "{} is missing: build the test tools with `tests/tools/tools.sh build` (tests/run.sh does)",
        path.display()
    );
    path
}

/// What `promtool check metrics` says against the Prometheus text exposition in `file`; None
/// when it accepts it.
pub fn promtool_refusal(file: &Path) -> Option<String> {
    let text = std::fs::read(file).unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
    let mut child = Command::new(tool("promtool"))
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running promtool");
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&text).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (!out.status.success()).then(|| {
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// Fails unless `promtool check metrics` accepts the Prometheus text exposition in `file`.
pub fn assert_promtool_accepts(file: &Path) {
    if let Some(refusal) = promtool_refusal(file) {
        panic!(
            "promtool check metrics refused {}:\n{refusal}",
            file.display()
        );
    }
}

/// The kubeconfig of the test control plane.
pub fn kubeconfig_path() -> PathBuf {
    match std::env::var_os("KUBECTL_INFORMER_TEST_KUBECONFIG") {
        Some(p) => PathBuf::from(p),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/controlplane/run/kubeconfig"),
    }
}

/// The kubeconfig of the test control plane's kube-apiserver v1.29, which serves aggregated
/// discovery as `apidiscovery.k8s.io/v2beta1` (`run/old/kubeconfig` beside the current one's).
pub fn old_kubeconfig_path() -> PathBuf {
    match std::env::var_os("KUBECTL_INFORMER_TEST_OLD_KUBECONFIG") {
        Some(p) => PathBuf::from(p),
        None => run_dir().join("old/kubeconfig"),
    }
}

/// The kubeconfig of the test control plane's kube-apiserver v1.29 with aggregated discovery
/// turned off: it serves legacy discovery only.
pub fn legacy_kubeconfig_path() -> PathBuf {
    match std::env::var_os("KUBECTL_INFORMER_TEST_LEGACY_KUBECONFIG") {
        Some(p) => PathBuf::from(p),
        None => run_dir().join("old/legacy.kubeconfig"),
    }
}

/// A token the test control plane accepts (`admin` or `nobody`), read from beside its kubeconfig.
pub fn token(user: &str) -> String {
    let path = run_dir().join(format!("{user}.token"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| {
            panic!(
                "no {} ({e}): start the test control plane with `{START_COMMAND}`",
                path.display()
            )
        })
        .trim()
        .to_string()
}

/// The directory of the running test control plane: its kubeconfig, tokens and certificates.
pub fn run_dir() -> PathBuf {
    let path = kubeconfig_path();
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

/// A binary the control plane built (`kube-controller-manager`, `kube-apiserver-1.29`, ...):
/// `controlplane.sh` builds into `target/controlplane/bin` whichever run directory
/// (`$KUBECTL_INFORMER_CONTROLPLANE_RUN`) the servers use; a missing one fails the test with the
/// command that builds it.
pub fn controlplane_bin(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/controlplane/bin")
        .join(name);
    assert!(
        path.is_file(),
        "{} not found: the test control plane builds it ({START_COMMAND})",
        path.display()
    );
    path
}

/// A client for `context` of the test kubeconfig.
pub async fn client_for(context: &str) -> kube::Client {
    client_at(&kubeconfig_path(), context).await
}

/// A client for `context` of the kubeconfig at `path` (one of the test control plane's).
pub async fn client_at(path: &Path, context: &str) -> kube::Client {
    let kubeconfig = Kubeconfig::read_from(path).unwrap_or_else(|e| {
        panic!(
            "the test control plane is not running (no kubeconfig at {}: {e}); \
             start it with `{START_COMMAND}`, or run every test with `tests/run.sh`",
            path.display()
        )
    });
    let options = KubeConfigOptions {
        context: Some(context.to_string()),
        ..Default::default()
    };
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .expect("test kubeconfig is usable");
    kube::Client::try_from(config).expect("client builds")
}

/// The admin client, after checking that the control plane answers.
pub async fn admin() -> kube::Client {
    admin_at(&kubeconfig_path()).await
}

/// The admin client of the server in the kubeconfig at `path`, after checking that it answers.
pub async fn admin_at(path: &Path) -> kube::Client {
    let client = client_at(path, "admin").await;
    if let Err(e) = client.apiserver_version().await {
        panic!(
            "the test control plane does not answer at the server in {} ({e}); \
             start it with `{START_COMMAND}`, or run every test with `tests/run.sh`",
            path.display()
        );
    }
    client
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Creates a ConfigMap in `churn` each second until a watch of `api` from `rv` (asked of the
/// server directly) answers 410 Gone: etcd's compaction has passed `rv`, so a client that
/// resumes from it, or from an older RV, gets 410 too. Within 240 s. For resources the test
/// control plane serves from etcd, not the watch cache (`podtemplates`), whose history is what
/// compaction leaves.
pub async fn write_until_expired<K>(api: &Api<K>, rv: &str, churn: &TestNamespace)
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    use futures::StreamExt;
    let deadline = Instant::now() + Duration::from_secs(240);
    for i in 0.. {
        let expired = match api.watch(&kube::api::WatchParams::default(), rv).await {
            Err(kube::Error::Api(status)) => status.code == 410,
            Err(e) => panic!("watch from RV {rv}: {e}"),
            Ok(stream) => {
                let mut stream = stream.boxed();
                matches!(
                    tokio::time::timeout(Duration::from_secs(2), stream.next()).await,
                    Ok(Some(Ok(kube::api::WatchEvent::Error(e)))) if e.code == 410
                )
            }
        };
        if expired {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "RV {rv} was still in the server's history after 240 s of writes"
        );
        churn.create_configmap(&format!("c{i}"), &[]).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// A name unique to this test process: `prefix-<pid>-<n>`.
pub fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// A namespace of one test, deleted when dropped.
pub struct TestNamespace {
    pub name: String,
    pub client: kube::Client,
}

impl TestNamespace {
    pub async fn new(prefix: &str) -> Self {
        Self::with_client(prefix, admin().await).await
    }

    /// A namespace on the server `client` talks to.
    pub async fn with_client(prefix: &str, client: kube::Client) -> Self {
        Self::named(unique(prefix), client).await
    }

    /// The namespace `name` (a name from [`unique`], chosen before it exists).
    pub async fn named(name: String, client: kube::Client) -> Self {
        let ns: Namespace = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name}
        }))
        .unwrap();
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &ns)
            .await
            .expect("create test namespace");
        TestNamespace { name, client }
    }

    pub fn configmaps(&self) -> Api<ConfigMap> {
        Api::namespaced(self.client.clone(), &self.name)
    }

    /// Creates Secret `name` with `stringData` `{key: value}` (the server stores it base64 in
    /// `data`).
    /// Grants the user `nobody` (the kubeconfig's `nobody` context) `verbs` on the core
    /// `resources` of this namespace, through a Role and RoleBinding named `name`. RBAC's caches
    /// are eventually consistent: the grant may take a moment to apply.
    pub async fn grant_nobody(&self, name: &str, resources: &[&str], verbs: &[&str]) {
        use k8s_openapi::api::rbac::v1::{Role, RoleBinding};
        let role: Role = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "rules": [{"apiGroups": [""], "resources": resources, "verbs": verbs}]
        }))
        .unwrap();
        let binding: RoleBinding = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "nobody"}]
        }))
        .unwrap();
        Api::<Role>::namespaced(self.client.clone(), &self.name)
            .create(&PostParams::default(), &role)
            .await
            .unwrap();
        Api::<RoleBinding>::namespaced(self.client.clone(), &self.name)
            .create(&PostParams::default(), &binding)
            .await
            .unwrap();
    }

    /// name → resourceVersion of the namespace's ConfigMaps, by a fresh (consistent) LIST.
    /// [`grant_nobody`], then waits (within 30 s) until the server says, as the real kubectl
    /// asks it (`kubectl auth can-i --context nobody`), that `nobody` may use every verb: RBAC's
    /// caches apply a grant a moment after it is made.
    ///
    /// [`grant_nobody`]: TestNamespace::grant_nobody
    pub async fn grant_nobody_and_wait(&self, name: &str, resources: &[&str], verbs: &[&str]) {
        self.grant_nobody(name, resources, verbs).await;
        let deadline = Instant::now() + Duration::from_secs(30);
        for resource in resources {
            for verb in verbs {
                loop {
                    let mut cmd = kubectl();
                    cmd.args(["auth", "can-i", verb, resource, "-n", &self.name])
                        .args(["--context", "nobody"]);
                    let answer = cmd.output().expect("running kubectl auth can-i");
                    if answer.status.success() {
                        break;
                    }
                    assert!(
                        Instant::now() < deadline,
                        "nobody may still not {verb} {resource} in {} after 30 s",
                        self.name
                    );
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    }

    pub async fn configmap_versions(&self) -> std::collections::BTreeMap<String, String> {
        self.configmaps()
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .map(|c| {
                (
                    c.metadata.name.unwrap(),
                    c.metadata.resource_version.unwrap(),
                )
            })
            .collect()
    }

    pub async fn create_secret(&self, name: &str, key: &str, value: &str) {
        use k8s_openapi::api::core::v1::Secret;
        let secret: Secret = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name},
            "stringData": {key: value}
        }))
        .unwrap();
        Api::<Secret>::namespaced(self.client.clone(), &self.name)
            .create(&PostParams::default(), &secret)
            .await
            .unwrap();
    }

    /// Creates a ConfigMap with `data` and `labels`; returns its resourceVersion.
    pub async fn create_configmap(&self, name: &str, labels: &[(&str, &str)]) -> String {
        let labels: serde_json::Map<String, serde_json::Value> = labels
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
            .collect();
        let cm: ConfigMap = serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "labels": labels},
            "data": {"k": "v0"}
        }))
        .unwrap();
        let created = self
            .configmaps()
            .create(&PostParams::default(), &cm)
            .await
            .expect("create configmap");
        created.metadata.resource_version.unwrap()
    }

    /// Sets `data.k` to `value`; returns the new resourceVersion.
    pub async fn update_configmap(&self, name: &str, value: &str) -> String {
        let patch = serde_json::json!({"data": {"k": value}});
        let updated = self
            .configmaps()
            .patch(
                name,
                &kube::api::PatchParams::default(),
                &kube::api::Patch::Merge(&patch),
            )
            .await
            .expect("patch configmap");
        updated.metadata.resource_version.unwrap()
    }

    pub async fn delete_configmap(&self, name: &str) {
        self.configmaps()
            .delete(name, &DeleteParams::default())
            .await
            .expect("delete configmap");
    }
}

impl Drop for TestNamespace {
    fn drop(&mut self) {
        // Best effort, without blocking the test's runtime: a leftover namespace only costs space.
        let client = self.client.clone();
        let name = self.name.clone();
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            handle.spawn(async move {
                let _ = Api::<Namespace>::all(client)
                    .delete(&name, &DeleteParams::default())
                    .await;
            });
        }
    }
}

/// What a run of the binary produced.
#[derive(Debug)]
pub struct Output {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// Lines of stdout parsed as JSON.
    pub fn json_lines(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }

    /// Object events (not bookmarks or notices) of a `-o json` run.
    pub fn object_events(&self) -> Vec<serde_json::Value> {
        self.json_lines()
            .into_iter()
            .filter(|l| matches!(l["type"].as_str(), Some("ADDED" | "MODIFIED" | "DELETED")))
            .collect()
    }
}

/// The real kubectl (built by `tests/tools/tools.sh`), with the test kubeconfig, its output
/// piped.
pub fn kubectl() -> Command {
    let mut cmd = Command::new(tool("kubectl"));
    cmd.env("KUBECONFIG", kubeconfig_path())
        .env_remove("KUBERNETES_SERVICE_HOST")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// The binary, with the test kubeconfig in `KUBECONFIG` and nothing inherited that could
/// change what it reads.
pub fn informer() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-informer"));
    cmd.env("KUBECONFIG", kubeconfig_path())
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Runs the binary with `args` until a line of its stdout satisfies `ready`, then closes the
/// read end of its stdout, as `| head` does once it has its lines, and waits up to `limit` for
/// it to exit (killed and failed after). The stdout read up to then is in the result.
pub fn close_stdout_after(args: &[&str], ready: impl Fn(&str) -> bool, limit: Duration) -> Output {
    use std::io::BufRead;
    let mut child = informer()
        .args(args)
        .spawn()
        .expect("spawn kubectl-informer");
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut stdout = String::new();
    {
        // Dropped at the end of this block: the pipe's only read end closes.
        let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                let _ = child.kill();
                panic!("stdout ended before the line awaited: {stdout}");
            }
            stdout.push_str(&line);
            if ready(&line) {
                break;
            }
        }
    }
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("still running {limit:?} after its stdout was closed: {stdout}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        code: status.code(),
        stdout,
        stderr: stderr.join().unwrap_or_default(),
    }
}

/// Runs `cmd` to completion; kills it and fails the test if it takes longer than `limit`
/// (a hang is a bug, reported as one).
pub fn run_with_limit(mut cmd: Command, limit: Duration) -> Output {
    let mut child = cmd.spawn().expect("spawn kubectl-informer");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stdout = out_thread.join().unwrap();
            let stderr = err_thread.join().unwrap();
            panic!("kubectl-informer did not finish within {limit:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        code: status.code(),
        stdout: out_thread.join().unwrap(),
        stderr: err_thread.join().unwrap(),
    }
}

/// Runs the binary with `args`, within 60 s.
pub fn run(args: &[&str]) -> Output {
    let mut cmd = informer();
    cmd.args(args);
    run_with_limit(cmd, Duration::from_secs(60))
}

/// Runs the binary in the background (the test makes changes meanwhile); `wait` collects it.
pub struct Background {
    handle: std::thread::JoinHandle<Output>,
}

impl Background {
    pub fn start(args: &[&str]) -> Self {
        let mut cmd = informer();
        cmd.args(args);
        Background {
            handle: std::thread::spawn(move || run_with_limit(cmd, Duration::from_secs(90))),
        }
    }

    pub fn wait(self) -> Output {
        self.handle.join().expect("background run")
    }
}

/// Asserts a failed run: exit code 2, exactly one line on stderr starting `error: ` (the last
/// one; any others are NOTICE lines of what went before, or bench's line saying where it is about
/// to write) that contains each of `needles`, and
/// no panic or backtrace.
pub fn assert_one_line_error(out: &Output, needles: &[&str]) {
    assert_eq!(out.code, Some(2), "exit code; stderr: {}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    let errors: Vec<&&str> = lines.iter().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(
        errors.len(),
        1,
        "expected one error line on stderr, got: {}",
        out.stderr
    );
    assert_eq!(
        lines.last(),
        errors.first().copied(),
        "error is the last line: {}",
        out.stderr
    );
    for other in lines.iter().filter(|l| !l.starts_with("error: ")) {
        assert!(
            other.contains("  NOTICE  ") || other.starts_with("bench: writing to context "),
            "unexpected stderr line: {other}"
        );
    }
    for needle in needles {
        assert!(
            errors[0].contains(needle),
            "missing {needle:?} in: {}",
            errors[0]
        );
    }
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(!out.stderr.contains("RUST_BACKTRACE"), "{}", out.stderr);
}

/// Asserts a run that `--timeout` stopped: exit code 124 and exactly one `error: ` line on
/// stderr, the last, containing each of `needles` (what did not happen in time); other lines
/// (notices, a `--stats` summary) may come before it.
pub fn assert_timed_out(out: &Output, needles: &[&str]) {
    assert_eq!(out.code, Some(124), "exit code; stderr: {}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    let errors: Vec<&&str> = lines.iter().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "one error line: {}", out.stderr);
    assert_eq!(lines.last(), errors.first().copied(), "{}", out.stderr);
    for needle in needles {
        assert!(
            errors[0].contains(needle),
            "missing {needle:?} in: {}",
            errors[0]
        );
    }
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

/// Writes a kubeconfig for `server` with `token` and optionally a CA; returns its path.
pub fn write_kubeconfig(dir: &Path, server: &str, token: &str, ca_pem: Option<&str>) -> PathBuf {
    use std::io::Write;
    let ca = match ca_pem {
        Some(pem) => format!(
            "    certificate-authority-data: {}\n",
            base64::engine::general_purpose::STANDARD.encode(pem.as_bytes())
        ),
        None => String::new(),
    };
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: {server}\n{ca}users:\n- name: u\n  user:\n    token: {token}\ncontexts:\n- name: ctx\n  context: {{cluster: c, user: u, namespace: default}}\ncurrent-context: ctx\n"
    );
    let path = dir.join(unique("kubeconfig"));
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    path
}

/// The test control plane's server URL and CA (PEM), read from its kubeconfig.
pub fn server_and_ca() -> (String, String) {
    let kubeconfig = Kubeconfig::read_from(kubeconfig_path()).unwrap_or_else(|e| {
        panic!("the test control plane is not running ({e}); start it with `{START_COMMAND}`")
    });
    let cluster = kubeconfig.clusters[0].cluster.clone().unwrap();
    let ca_b64 = cluster.certificate_authority_data.unwrap();
    let ca = String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(ca_b64.trim())
            .unwrap(),
    )
    .unwrap();
    (cluster.server.unwrap(), ca)
}

/// The lines of a `-o json` run, each parsed (a line that is not JSON fails the test).
pub fn parse_json_lines(lines: &[String]) -> Vec<serde_json::Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The MODIFIED events of a `-o json` run (`tail --diff`), each with the object event before it
/// of the same object: (previous object, MODIFIED line).
pub fn modified_with_previous(
    events: &[serde_json::Value],
) -> Vec<(serde_json::Value, serde_json::Value)> {
    let mut pairs = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if e["type"] == "MODIFIED" {
            let previous = events[..i]
                .iter()
                .rev()
                .find(|p| p["uid"] == e["uid"])
                .unwrap_or_else(|| panic!("no event before {e}"));
            pairs.push((previous["object"].clone(), e.clone()));
        }
    }
    pairs
}

/// A line's `patch` (RFC 6902) applied to `object`.
pub fn patched(mut object: serde_json::Value, patch: &serde_json::Value) -> serde_json::Value {
    let patch: json_patch::Patch =
        serde_json::from_value(patch.clone()).expect("an RFC 6902 patch");
    json_patch::patch(&mut object, &patch).unwrap_or_else(|e| panic!("{e}: {patch:?}"));
    object
}

/// No object event twice: a (name, RV) pair appears once, except for a relist's DELETED of an
/// object tail had (which carries the RV tail last saw); relist events come only between the
/// notice that starts a relist and its `list-complete`; watch events come in strictly increasing
/// RV order, each past the LIST (or relist) before it.
pub fn assert_nothing_repeated(lines: &[serde_json::Value]) {
    let mut seen = std::collections::HashSet::new();
    let mut relisting = false;
    let mut newest: u64 = 0;
    for l in lines {
        let rv = || -> u64 { l["resourceVersion"].as_str().unwrap().parse().unwrap() };
        match (
            l["type"].as_str().unwrap(),
            l["notice"].as_str().unwrap_or_default(),
        ) {
            ("NOTICE", "expired" | "list-restarted") => relisting = true,
            ("NOTICE", "watch-closed") if l["reason"].as_str().unwrap().contains("relist") => {
                relisting = true
            }
            ("NOTICE", "list-complete") => {
                assert_eq!(l["relist"], relisting, "a relist ends as it began: {l}");
                relisting = false;
                newest = newest.max(rv());
            }
            ("NOTICE" | "BOOKMARK", _) => {}
            (event_type, _) => {
                let key = (l["name"].to_string(), rv());
                match l["origin"].as_str().unwrap() {
                    "relist" => {
                        assert!(relisting, "a relist event outside a relist: {l}");
                        if event_type == "DELETED" {
                            assert!(
                                seen.contains(&key),
                                "relist deleted what tail never had: {l}"
                            );
                        } else {
                            assert!(seen.insert(key), "repeated by a relist: {l}");
                        }
                    }
                    origin => {
                        assert!(seen.insert(key), "repeated: {l}");
                        if origin == "watch" {
                            assert!(rv() > newest, "watch event at or before RV {newest}: {l}");
                            newest = rv();
                        }
                    }
                }
            }
        }
    }
}

/// A run whose stdout the test reads line by line while it goes on (to act at the right moment,
/// e.g. once the watch is open).
pub struct Streaming {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    pub seen: Vec<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Streaming {
    pub fn start(args: &[&str]) -> Self {
        let mut cmd = informer();
        cmd.args(args);
        Self::spawn(cmd)
    }

    /// Any command whose stdout and stderr are piped (kubectl, as an oracle).
    pub fn spawn(mut cmd: Command) -> Self {
        let mut child = cmd.spawn().expect("spawn the command");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Streaming {
            child,
            lines: rx,
            seen: Vec::new(),
            stderr: Some(stderr),
        }
    }

    /// Reads stdout until a line satisfies `pred`; fails the test after `limit`.
    pub fn wait_for(&mut self, what: &str, limit: Duration, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if pred(&line) {
                        return line;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!(
                        "no {what} within {limit:?}; stdout so far:\n{}",
                        self.seen.join("\n")
                    );
                }
            }
        }
    }

    /// Waits up to 30 s for the JSON notice `notice` (a `-o json` run).
    pub fn wait_for_notice(&mut self, notice: &str) -> serde_json::Value {
        self.wait_for_notice_within(notice, Duration::from_secs(30))
    }

    pub fn wait_for_notice_within(&mut self, notice: &str, limit: Duration) -> serde_json::Value {
        let needle = format!("\"notice\":\"{notice}\"");
        let line = self.wait_for(&needle, limit, |l| l.contains(&needle));
        serde_json::from_str(&line).unwrap()
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to exit by itself (within `limit`) and returns everything.
    pub fn finish(mut self, limit: Duration) -> Output {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!(
                    "kubectl-informer did not exit within {limit:?}; stdout:\n{}",
                    self.seen.join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
        Output {
            code: status.code(),
            stdout: self.seen.join("\n"),
            stderr: self
                .stderr
                .take()
                .map(|t| t.join().unwrap())
                .unwrap_or_default(),
        }
    }

    /// SIGTERM to the process (what CI runners and Kubernetes send), then [`Streaming::finish`].
    pub fn terminate(self, limit: Duration) -> Output {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill");
        assert!(status.success(), "kill -TERM {}", self.pid());
        self.finish(limit)
    }

    /// Takes in the lines that arrive until none has for `quiet`.
    pub fn drain_for(&mut self, quiet: Duration) {
        while let Ok(line) = self.lines.recv_timeout(quiet) {
            self.seen.push(line);
        }
    }

    /// Stops reading stdout, as `| head -1` does once it has its line. The read end of the pipe
    /// closes when the child writes its next line (the thread blocked reading it drops the pipe
    /// then: a blocked read cannot be cut short); to close it while the child writes nothing,
    /// use [`close_stdout_after`].
    pub fn stop_reading_stdout(&mut self) {
        let (_, rx) = std::sync::mpsc::channel();
        self.lines = rx;
    }
}

impl Drop for Streaming {
    /// A test that ends early (or fails) leaves no kubectl-informer running behind it.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An admin kubeconfig (written in `dir`) for the test API server reached through a loopback
/// proxy on `port` that passes TLS through.
fn admin_kubeconfig_via(dir: &Path, port: u16, ca: &str) -> PathBuf {
    let token = std::fs::read_to_string(kubeconfig_path().parent().unwrap().join("admin.token"))
        .expect("admin token of the test control plane");
    write_kubeconfig(
        dir,
        &format!("https://127.0.0.1:{port}"),
        token.trim(),
        Some(ca),
    )
}

/// A loopback TCP proxy in front of the test API server (TLS passes through untouched) that can
/// cut every open connection on demand, as a flaky network would.
pub struct CuttingProxy {
    pub port: u16,
    conns: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
    refusing: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl CuttingProxy {
    pub fn start(upstream: &str) -> Self {
        let upstream = upstream.trim_start_matches("https://").to_string();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let conns = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let tracked = conns.clone();
        let refusing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let refuse = refusing.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if refuse.load(Ordering::SeqCst) {
                    let _ = client.shutdown(std::net::Shutdown::Both);
                    continue;
                }
                let Ok(server) = std::net::TcpStream::connect(&upstream) else {
                    continue;
                };
                tracked.lock().unwrap().push(client.try_clone().unwrap());
                tracked.lock().unwrap().push(server.try_clone().unwrap());
                pump(client.try_clone().unwrap(), server.try_clone().unwrap());
                pump(server, client);
            }
        });
        CuttingProxy {
            port,
            conns,
            refusing,
        }
    }

    /// Cuts every connection and drops new ones until `restore`: the network is down.
    pub fn outage(&self) {
        self.refusing.store(true, Ordering::SeqCst);
        self.cut();
    }

    pub fn restore(&self) {
        self.refusing.store(false, Ordering::SeqCst);
    }

    /// A proxy in front of the test API server, and an admin kubeconfig (written in `dir`) whose
    /// server is the proxy.
    pub fn for_test_server(dir: &Path) -> (Self, PathBuf) {
        let (server, ca) = server_and_ca();
        let proxy = CuttingProxy::start(&server);
        let kc = admin_kubeconfig_via(dir, proxy.port, &ca);
        (proxy, kc)
    }

    /// Severs every connection open now; new ones are accepted as before.
    pub fn cut(&self) {
        for conn in self.conns.lock().unwrap().drain(..) {
            let _ = conn.shutdown(std::net::Shutdown::Both);
        }
    }
}

fn pump(mut from: std::net::TcpStream, mut to: std::net::TcpStream) {
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut from, &mut to);
        let _ = to.shutdown(std::net::Shutdown::Both);
    });
}

/// A loopback TCP proxy in front of the test API server (TLS passes through) that can freeze
/// the connections open at that moment: they stay open but nothing crosses them any more, in
/// either direction, with no FIN and no RST (a dead NAT entry, a hung load balancer, a frozen
/// peer). New connections are forwarded as before. It counts connections and the bytes the
/// server sent, so that a test can see a quiet connection being health-checked.
pub struct FreezingProxy {
    pub port: u16,
    state: std::sync::Arc<FreezeState>,
}

#[derive(Default)]
struct FreezeState {
    /// Connections numbered below this are frozen.
    frozen_below: std::sync::atomic::AtomicUsize,
    accepted: std::sync::atomic::AtomicUsize,
    from_server: std::sync::atomic::AtomicUsize,
    stopped: std::sync::atomic::AtomicBool,
}

impl FreezingProxy {
    pub fn start(upstream: &str) -> Self {
        let upstream = upstream.trim_start_matches("https://").to_string();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let state = std::sync::Arc::new(FreezeState::default());
        let shared = state.clone();
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = std::net::TcpStream::connect(&upstream) else {
                    continue;
                };
                let id = shared.accepted.fetch_add(1, Ordering::SeqCst);
                let (c, s) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                freezable_pump(client, server, id, shared.clone(), false);
                freezable_pump(s, c, id, shared.clone(), true);
            }
        });
        FreezingProxy { port, state }
    }

    /// A proxy in front of the test API server, and an admin kubeconfig (written in `dir`) whose
    /// server is the proxy.
    pub fn for_test_server(dir: &Path) -> (Self, PathBuf) {
        let (server, ca) = server_and_ca();
        let proxy = FreezingProxy::start(&server);
        let kc = admin_kubeconfig_via(dir, proxy.port, &ca);
        (proxy, kc)
    }

    /// Freezes every connection open now.
    pub fn freeze(&self) {
        let open = self.state.accepted.load(Ordering::SeqCst);
        self.state.frozen_below.store(open, Ordering::SeqCst);
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        self.state.accepted.load(Ordering::SeqCst)
    }

    /// Bytes forwarded from the server to clients so far.
    pub fn bytes_from_server(&self) -> usize {
        self.state.from_server.load(Ordering::SeqCst)
    }
}

impl Drop for FreezingProxy {
    fn drop(&mut self) {
        self.state.stopped.store(true, Ordering::SeqCst);
    }
}

/// Copies `from` to `to` until either ends or connection `id` is frozen; a frozen connection
/// keeps both sockets open, unread and unwritten, until the proxy is dropped.
fn freezable_pump(
    mut from: std::net::TcpStream,
    mut to: std::net::TcpStream,
    id: usize,
    state: std::sync::Arc<FreezeState>,
    from_server: bool,
) {
    use std::io::{Read, Write};
    std::thread::spawn(move || {
        let frozen = || id < state.frozen_below.load(Ordering::SeqCst);
        let mut buf = vec![0u8; 64 * 1024];
        // A read that waits for data wakes up now and then to see whether it is frozen.
        let _ = from.set_read_timeout(Some(Duration::from_millis(200)));
        loop {
            if frozen() {
                // Holds the sockets open, forwarding nothing, until the proxy is dropped.
                while !state.stopped.load(Ordering::SeqCst) {
                    std::thread::park_timeout(Duration::from_millis(500));
                }
                break;
            }
            match from.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if frozen() {
                        continue;
                    }
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                    if from_server {
                        state.from_server.fetch_add(n, Ordering::SeqCst);
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
        let _ = to.shutdown(std::net::Shutdown::Both);
    });
}

/// The binary running in the background, its stderr read line by line (stdout discarded).
pub struct Spawned {
    pub child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    pub seen: Vec<String>,
}

impl Spawned {
    pub fn start(args: &[&str]) -> Self {
        let mut cmd = informer();
        cmd.args(args).stdout(std::process::Stdio::null());
        let mut child = cmd.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Spawned {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits up to 60 s for a stderr line containing `needle`.
    pub fn wait_for(&mut self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !self.seen.iter().any(|l| l.contains(needle)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.seen.push(line),
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no {needle:?} on stderr: {:?}", self.seen);
                }
            }
        }
    }

    /// Waits up to `limit` for the exit; returns the code.
    pub fn wait(&mut self, limit: Duration) -> Option<i32> {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                self.seen
                    .extend(self.lines.recv_timeout(Duration::from_secs(1)));
                self.seen.extend(self.lines.try_iter());
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("bench did not exit within {limit:?}: {:?}", self.seen);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Whether the test control plane runs its controllers (kube-controller-manager, kube-scheduler,
/// kwok): `controlplane.sh up` writes its set-up to `mode` beside the kubeconfig.
pub fn controllers_running() -> bool {
    let mode = kubeconfig_path().parent().unwrap().join("mode");
    std::fs::read_to_string(mode)
        .unwrap_or_default()
        .starts_with("controllers")
}

/// A private etcd + kube-apiserver pair of one test, for killing, stopping and restarting servers
/// (the shared ones must never be: other tests run on them). `controlplane.sh pair` writes their
/// exact command lines (the flags live only in the script); this starts each one, and starts it
/// again as it was, on the same port and data. Drop kills both (SIGKILL) and waits, also when the
/// test fails.
pub struct PrivatePair {
    dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
    etcd_args: Vec<String>,
    apiserver_args: Vec<String>,
    etcd: Option<std::process::Child>,
    apiserver: Option<std::process::Child>,
}

impl PrivatePair {
    /// Starts etcd, then kube-apiserver, and waits until the API server is ready.
    pub async fn start() -> Self {
        Self::start_with_feature_gates(&[]).await
    }

    /// `start`, with more of kube-apiserver's feature gates turned on or off (`Gate=true`).
    pub async fn start_with_feature_gates(gates: &[&str]) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("informer-pair-")
            .tempdir()
            .unwrap();
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/controlplane/controlplane.sh");
        let out = Command::new(&script)
            .arg("pair")
            .arg(dir.path())
            .env("KUBECTL_INFORMER_CONTROLPLANE_RUN", run_dir())
            .output()
            .expect("run tests/controlplane/controlplane.sh");
        assert!(
            out.status.success(),
            "cannot set up a private etcd + kube-apiserver pair: {}; start the test control plane \
             with `{START_COMMAND}`",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        let args = |name: &str| -> Vec<String> {
            std::fs::read_to_string(dir.path().join(name))
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect()
        };
        let mut apiserver_args = args("apiserver.args");
        if !gates.is_empty() {
            let flag = apiserver_args
                .iter_mut()
                .find(|a| a.starts_with("--feature-gates="))
                .expect("controlplane.sh pair gives kube-apiserver --feature-gates");
            flag.push(',');
            flag.push_str(&gates.join(","));
        }
        let mut pair = PrivatePair {
            kubeconfig: dir.path().join("kubeconfig"),
            etcd_args: args("etcd.args"),
            apiserver_args,
            dir,
            etcd: None,
            apiserver: None,
        };
        pair.start_etcd();
        pair.start_apiserver();
        pair.wait_ready(Duration::from_secs(120)).await;
        pair
    }

    pub fn kubeconfig(&self) -> &str {
        self.kubeconfig.to_str().unwrap()
    }

    fn spawn(&self, args: &[String], log: &str) -> std::process::Child {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(log))
            .unwrap();
        Command::new(&args[0])
            .args(&args[1..])
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot start {}: {e}; build it with `{START_COMMAND}`",
                    args[0]
                )
            })
    }

    /// Starts etcd with its command line (again, after a kill: same ports, same data).
    pub fn start_etcd(&mut self) {
        assert!(self.etcd.is_none(), "etcd is running");
        self.etcd = Some(self.spawn(&self.etcd_args, "etcd.log"));
    }

    /// Starts kube-apiserver with its command line (again, after a kill: same port).
    pub fn start_apiserver(&mut self) {
        assert!(self.apiserver.is_none(), "kube-apiserver is running");
        self.apiserver = Some(self.spawn(&self.apiserver_args, "apiserver.log"));
    }

    /// The last lines of a server's log, for a failure message.
    pub fn log_tail(&self, log: &str) -> String {
        let text = std::fs::read_to_string(self.dir.path().join(log)).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// Waits until the API server answers /readyz (within `limit`).
    pub async fn wait_ready(&mut self, limit: Duration) {
        let client = client_at(&self.kubeconfig, "admin").await;
        let deadline = Instant::now() + limit;
        loop {
            let request = http::Request::get("/readyz").body(Vec::new()).unwrap();
            if client.request_text(request).await.is_ok() {
                return;
            }
            for log in ["etcd.log", "apiserver.log"] {
                let child = match log {
                    "etcd.log" => &mut self.etcd,
                    _ => &mut self.apiserver,
                };
                if let Some(Some(status)) = child.as_mut().map(|c| c.try_wait().unwrap()) {
                    panic!(
                        "{log}: the server exited ({status}):\n{}",
                        self.log_tail(log)
                    );
                }
            }
            assert!(
                Instant::now() < deadline,
                "the private kube-apiserver is not ready after {limit:?}:\n{}",
                self.log_tail("apiserver.log")
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Sends `signal` (a name `kill` takes: TERM, STOP, CONT) to the API server.
    pub fn signal_apiserver(&self, signal: &str) {
        let pid = self.apiserver.as_ref().expect("kube-apiserver runs").id();
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(pid.to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -{signal} {pid}");
    }

    /// SIGKILL to the API server, and waits until it is gone.
    pub fn kill_apiserver(&mut self) {
        kill_and_wait(self.apiserver.take().expect("kube-apiserver runs"));
    }

    /// SIGTERM to the API server (a clean shutdown), and waits up to `limit` until it exits.
    pub fn stop_apiserver(&mut self, limit: Duration) -> std::process::ExitStatus {
        self.signal_apiserver("TERM");
        let mut child = self.apiserver.take().unwrap();
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                kill_and_wait(child);
                panic!("kube-apiserver did not exit within {limit:?} of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL to etcd, and waits until it is gone.
    pub fn kill_etcd(&mut self) {
        kill_and_wait(self.etcd.take().expect("etcd runs"));
    }
}

fn kill_and_wait(mut child: std::process::Child) {
    let _ = child.kill();
    let _ = child.wait();
}

impl Drop for PrivatePair {
    fn drop(&mut self) {
        // A stopped process dies of SIGKILL too.
        for child in [self.apiserver.take(), self.etcd.take()]
            .into_iter()
            .flatten()
        {
            kill_and_wait(child);
        }
    }
}

/// The binary in the background with both its stdout and stderr read line by line as they come
/// (a test that acts on a notice and on the data both).
pub struct Merged {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<(Stream, String)>,
    pub seen: Vec<(Stream, String)>,
}

/// Which output a line of [`Merged`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

impl Merged {
    pub fn start(args: &[&str]) -> Self {
        let mut cmd = informer();
        cmd.args(args);
        let mut child = cmd.spawn().expect("spawn kubectl-informer");
        let (tx, lines) = std::sync::mpsc::channel();
        let read = |from: Box<dyn Read + Send>, stream: Stream| {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in std::io::BufReader::new(from).lines().map_while(Result::ok) {
                    if tx.send((stream, line)).is_err() {
                        break;
                    }
                }
            });
        };
        read(Box::new(child.stdout.take().unwrap()), Stream::Out);
        read(Box::new(child.stderr.take().unwrap()), Stream::Err);
        Merged {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads lines until one of `stream` satisfies `pred`; fails the test after `limit`.
    pub fn wait_for(
        &mut self,
        stream: Stream,
        what: &str,
        limit: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok((from, line)) => {
                    self.seen.push((from, line.clone()));
                    if from == stream && pred(&line) {
                        return line;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no {what} within {limit:?}; so far:\n{}", self.transcript());
                }
            }
        }
    }

    /// Every line so far, stderr's marked `[err]`.
    pub fn transcript(&self) -> String {
        self.seen
            .iter()
            .map(|(from, l)| match from {
                Stream::Out => l.clone(),
                Stream::Err => format!("[err] {l}"),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Sends SIGINT (Ctrl-C) and waits up to `limit` for the exit; returns its code.
    pub fn interrupt(&mut self, limit: Duration) -> Option<i32> {
        let status = Command::new("kill")
            .arg("-INT")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(1)) {
                    self.seen.push(line);
                }
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("no exit within {limit:?} of SIGINT:\n{}", self.transcript());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Merged {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
