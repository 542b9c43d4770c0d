//! The release files hold, checked by the tools their consumers run (built by
//! `tests/tools/tools.sh build`, which `tests/run.sh` runs; found with `common::tool`): the krew manifest template
//! (`.krew.yaml`) rendered as krew-release-bot renders it, against archives made as the release
//! workflow makes them, passes krew's own `validate-krew-manifest` with every platform installed
//! by `kubectl krew install`; the release workflow and the CI examples of the docs pass actionlint;
//! and the three agree on the archives' names and contents.

use crate::common::tool;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The release tag of this version, as the workflow requires it (`v` + Cargo.toml's version).
fn tag() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

/// Where the release workflow publishes a tag's archives.
fn download_base(tag: &str) -> String {
    format!("{}/releases/download/{tag}/", env!("CARGO_PKG_REPOSITORY"))
}

/// Serves the files of `dir` over HTTP on loopback until the test process ends; returns its base
/// URL.
fn serve(dir: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("binding a loopback port");
    let base = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut request = String::new();
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // The rest of the request's head is not needed.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let name = request
                .split(' ')
                .nth(1)
                .unwrap_or("/")
                .trim_start_matches('/');
            let mut stream = reader.into_inner();
            let _ = match std::fs::read(dir.join(name)) {
                Ok(body) if !name.contains("..") => write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                )
                .and_then(|_| stream.write_all(&body)),
                _ => write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                ),
            };
        }
    });
    base
}

fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("running sha256sum");
    assert!(out.status.success(), "sha256sum: {}", text(&out));
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .expect("sha256sum printed a sum")
        .to_string()
}

/// The files the archive of `os`/`arch` holds, from the workflow's `tar` line (in the order it
/// lists them), with the platform's `matrix.exe` (`.exe` on windows) put in.
fn workflow_archive_files(workflow: &str, os: &str, arch: &str) -> Vec<String> {
    let line = workflow
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("tar ") && l.contains("-czf"))
        .expect("the release workflow makes its archives with one tar line");
    let after = line
        .split(".tar.gz\"")
        .nth(1)
        .expect("tar writes a .tar.gz");
    let exe = workflow_matrix(workflow)
        .into_iter()
        .find(|p| p["os"] == os && p["arch"] == arch)
        .and_then(|p| p["exe"].as_str().map(str::to_string))
        .unwrap_or_else(|| panic!("the matrix has no exe for {os}/{arch}"));
    after
        .replace("${{ matrix.exe }}", &exe)
        .split_whitespace()
        .map(|f| f.trim_matches('"').to_string())
        .collect()
}

/// The build job's matrix: one entry per platform.
fn workflow_matrix(workflow: &str) -> Vec<Value> {
    let doc: Value = serde_saphyr::from_str(workflow).expect("the workflow is YAML");
    doc["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .expect("the build job has a matrix of platforms")
        .clone()
}

/// The (os, arch) pairs the workflow builds, from its matrix.
fn workflow_platforms(workflow: &str) -> Vec<(String, String)> {
    workflow_matrix(workflow)
        .iter()
        .map(|p| {
            (
                p["os"].as_str().unwrap().to_string(),
                p["arch"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Renders `.krew.yaml` for `tag` as krew-release-bot does (`{{ .TagName }}` is the tag; each
/// `{{addURIAndSha "URL" .TagName }}` becomes `uri: URL` and, 4 spaces in, the sha256 of what
/// the URL serves), with the release's download address moved to `mirror` (where the test
/// serves the archives) and the sums taken from `dir`.
fn render_krew_template(template: &str, tag: &str, mirror: &str, dir: &Path) -> String {
    const OPEN: &str = "{{addURIAndSha \"";
    const CLOSE: &str = "\" .TagName }}";
    let mut rendered = String::new();
    let mut rest = template;
    while let Some(start) = rest.find(OPEN) {
        rendered.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        let end = after
            .find(CLOSE)
            .expect("addURIAndSha ends with \" .TagName }}");
        let url = after[..end].replace("{{ .TagName }}", tag);
        let name = url
            .strip_prefix(&download_base(tag))
            .unwrap_or_else(|| panic!("{url} is not an archive of the release of {tag}"));
        rendered.push_str(&format!(
            "uri: {mirror}{name}\n    sha256: {}",
            sha256(&dir.join(name))
        ));
        rest = &after[end + CLOSE.len()..];
    }
    rendered.push_str(rest);
    let rendered = rendered.replace("{{ .TagName }}", tag);
    assert!(
        !rendered.contains("{{"),
        "the template uses more of Go's templates than the test renders:\n{rendered}"
    );
    rendered
}

/// The archives of every platform the workflow builds, made as it makes them (this machine's
/// binary in each, named as that platform names it: krew only unpacks and links it).
fn make_archives(dir: &Path) -> Vec<(String, String)> {
    let workflow = read(".github/workflows/release.yml");
    let platforms = workflow_platforms(&workflow);
    for (os, arch) in &platforms {
        let files = workflow_archive_files(&workflow, os, arch);
        let staging = dir.join(format!("staging-{os}-{arch}"));
        std::fs::create_dir_all(&staging).unwrap();
        for file in &files {
            let from = match file.as_str() {
                "kubectl-informer" | "kubectl-informer.exe" => {
                    PathBuf::from(env!("CARGO_BIN_EXE_kubectl-informer"))
                }
                "kubectl_complete-informer" => root().join("completions/kubectl_complete-informer"),
                other => root().join(other),
            };
            std::fs::copy(&from, staging.join(file))
                .unwrap_or_else(|e| panic!("copying {} into the archive: {e}", from.display()));
        }
        let archive = dir.join(format!("kubectl-informer-{os}-{arch}.tar.gz"));
        let out = Command::new("tar")
            .arg("-C")
            .arg(&staging)
            .arg("-czf")
            .arg(&archive)
            .args(&files)
            .output()
            .expect("running tar");
        assert!(out.status.success(), "tar: {}", text(&out));
    }
    platforms
}

/// krew's own validator on a manifest file, installing each platform through `kubectl krew`
/// (as krew-index's CI runs it).
fn validate_krew_manifest(manifest: &Path) -> Output {
    let validator = tool("validate-krew-manifest");
    let bin = validator.parent().unwrap().to_path_buf();
    tool("kubectl");
    tool("kubectl-krew");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    Command::new(&validator)
        .arg("-manifest")
        .arg(manifest)
        .env("PATH", path)
        .output()
        .expect("running validate-krew-manifest")
}

/// The rendered manifest of this version in `dir` as `informer.yaml` (krew wants the file named
/// as the plugin), with the archives it points to served from `dir`.
fn rendered_manifest(dir: &Path) -> (PathBuf, Vec<(String, String)>) {
    let platforms = make_archives(dir);
    let mirror = serve(dir.to_path_buf());
    let rendered = render_krew_template(&read(".krew.yaml"), &tag(), &mirror, dir);
    let manifest = dir.join("informer.yaml");
    std::fs::write(&manifest, rendered).unwrap();
    (manifest, platforms)
}

#[test]
#[ignore = "needs the test tools (tests/tools/tools.sh build), no cluster: cargo test -- --ignored"]
fn the_krew_manifest_passes_krews_validation_and_installs_on_every_platform() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, platforms) = rendered_manifest(dir.path());
    let out = validate_krew_manifest(&manifest);
    assert!(
        out.status.success(),
        "validate-krew-manifest refused {}:\n{}\n{}",
        manifest.display(),
        text(&out),
        std::fs::read_to_string(&manifest).unwrap()
    );

    // The manifest names the platforms the workflow builds, each with the files its archive
    // holds, and the version of this build.
    let doc: Value = serde_saphyr::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    assert_eq!(doc["spec"]["version"], tag());
    let mut named: Vec<(String, String)> = doc["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let labels = &p["selector"]["matchLabels"];
            (
                labels["os"].as_str().unwrap().into(),
                labels["arch"].as_str().unwrap().into(),
            )
        })
        .collect();
    let mut built = platforms.clone();
    named.sort();
    built.sort();
    assert_eq!(
        named, built,
        "krew's platforms and the release workflow's matrix differ"
    );
    let workflow = read(".github/workflows/release.yml");
    for p in doc["spec"]["platforms"].as_array().unwrap() {
        let labels = &p["selector"]["matchLabels"];
        let (os, arch) = (
            labels["os"].as_str().unwrap(),
            labels["arch"].as_str().unwrap(),
        );
        let files = workflow_archive_files(&workflow, os, arch);
        let from: Vec<&str> = p["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["from"].as_str().unwrap())
            .collect();
        assert_eq!(
            from, files,
            "{os}/{arch}: krew takes other files than the archive holds"
        );
        let bin = if os == "windows" {
            "kubectl-informer.exe"
        } else {
            "kubectl-informer"
        };
        assert_eq!(p["bin"], bin, "{os}/{arch}");
        assert!(files.iter().any(|f| f == bin), "{os}/{arch}: {files:?}");
    }
}

#[test]
#[ignore = "needs the test tools (tests/tools/tools.sh build), no cluster: cargo test -- --ignored"]
fn krews_validation_fails_when_an_archive_is_not_the_one_the_manifest_sums() {
    let dir = tempfile::tempdir().unwrap();
    let (manifest, platforms) = rendered_manifest(dir.path());
    // The last platform's archive replaced after the sums were taken (a re-uploaded asset).
    let (os, arch) = platforms.last().unwrap();
    let archive = dir
        .path()
        .join(format!("kubectl-informer-{os}-{arch}.tar.gz"));
    let mut bytes = std::fs::read(&archive).unwrap();
    bytes.extend_from_slice(&[0; 512]);
    std::fs::write(&archive, bytes).unwrap();
    let out = validate_krew_manifest(&manifest);
    assert!(
        !out.status.success(),
        "a wrong sha256 passed: {}",
        text(&out)
    );
    assert!(
        text(&out).contains("checksum does not match"),
        "{}",
        text(&out)
    );
}

/// actionlint on a workflow file, shellcheck and pyflakes off (so that the verdict does not
/// depend on what else the machine has).
fn actionlint(file: &Path) -> Output {
    Command::new(tool("actionlint"))
        .args(["-no-color", "-shellcheck=", "-pyflakes="])
        .arg(file)
        .output()
        .expect("running actionlint")
}

/// The GitHub Actions workflows the docs show (YAML blocks with `jobs:`), in the README and the
/// CI page.
fn readme_workflows() -> Vec<String> {
    let readme = read("README.md") + &read("docs/ci.md");
    let mut workflows = Vec::new();
    let mut block: Option<String> = None;
    for line in readme.lines() {
        match &mut block {
            None if line.trim_start() == "```yaml" => block = Some(String::new()),
            Some(b) if line.trim_start() == "```" => {
                if b.lines().any(|l| l.starts_with("jobs:")) {
                    workflows.push(std::mem::take(b));
                }
                block = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    workflows
}

#[test]
#[ignore = "needs the test tools (tests/tools/tools.sh build), no cluster: cargo test -- --ignored"]
fn the_workflows_and_the_docs_ci_examples_pass_actionlint() {
    for workflow in ["release.yml", "ci.yml"] {
        let out = actionlint(&root().join(".github/workflows").join(workflow));
        assert!(
            out.status.success(),
            "actionlint on {workflow}:\n{}",
            text(&out)
        );
    }

    let workflows = readme_workflows();
    assert!(
        workflows.len() >= 2,
        "the docs show their CI workflows: {}",
        workflows.len()
    );
    let dir = tempfile::tempdir().unwrap();
    for (i, workflow) in workflows.iter().enumerate() {
        let file = dir.path().join(format!("readme-{i}.yml"));
        std::fs::write(&file, workflow).unwrap();
        let out = actionlint(&file);
        assert!(
            out.status.success(),
            "actionlint on the docs' workflow {i}:\n{}\n{workflow}",
            text(&out)
        );
    }
}

/// The command README's "Run every test" block gives.
fn readme_test_command() -> String {
    let readme = read("README.md");
    let after = readme
        .split_once("**Run every test**")
        .expect("README has a \"Run every test\" paragraph")
        .1;
    let block = after
        .split_once("```sh\n")
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .expect("a sh block after it")
        .0;
    let lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one command: {block}");
    lines[0].trim().to_string()
}

#[test]
fn the_ci_workflow_and_ci_run_run_the_test_command_readme_gives() {
    let command = readme_test_command();
    assert_eq!(command, "tests/run.sh");
    let workflow = read(".github/workflows/ci.yml");
    let runs: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("run: "))
        .collect();
    let last = runs.last().expect("ci.yml runs something");
    assert!(
        last.split_whitespace().last() == Some(command.as_str()),
        "ci.yml's last step runs {last}, not README's {command}"
    );
    assert!(
        workflow.contains("pull_request:"),
        "it runs on pull requests"
    );
    let ci_run = read(".ci/run");
    assert!(
        ci_run
            .lines()
            .any(|l| l.trim() == format!("exec {command}")),
        ".ci/run: {ci_run}"
    );
}

#[test]
#[ignore = "needs the test tools (tests/tools/tools.sh build), no cluster: cargo test -- --ignored"]
fn actionlint_fails_a_workflow_that_reads_a_matrix_value_it_does_not_have() {
    let workflow = read(".github/workflows/release.yml").replace("matrix.target", "matrix.triple");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("release.yml");
    std::fs::write(&file, workflow).unwrap();
    let out = actionlint(&file);
    assert!(!out.status.success(), "actionlint passed a broken workflow");
    assert!(text(&out).contains("triple"), "{}", text(&out));
}

#[test]
fn the_readme_installs_the_released_archive_the_workflow_publishes() {
    let readme = read("README.md");
    let base = format!("{}/releases/download/", env!("CARGO_PKG_REPOSITORY"));
    assert!(
        readme.contains(&base) && readme.contains("kubectl-informer-linux-amd64.tar.gz"),
        "the README's CI example installs the released linux/amd64 archive from {base}"
    );
    assert!(
        readme.contains("SHA256SUMS"),
        "the README's install checks the release's sums"
    );
    assert!(read(".github/workflows/release.yml").contains("SHA256SUMS"));
}
