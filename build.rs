//! Stamps the binary with the commit it was built from, for `kubectl informer version` and
//! `--version`: `KUBECTL_INFORMER_COMMIT` when set (a release pipeline's), else what git says
//! of the source tree (with `-dirty` when it has uncommitted changes), else `unknown` (a build
//! from a crate archive, which has no history).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=KUBECTL_INFORMER_COMMIT");
    // A new commit or a checkout moves HEAD or the branch it names; the index changes with
    // every `git add`, so `-dirty` follows too. Their paths are git's (`git rev-parse
    // --git-path`): in a linked worktree `.git` is a file, and a path named that does not exist
    // would make cargo run this script, and rebuild the crate, on every build.
    let head = git_path("HEAD");
    let branch = head
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|h| h.trim().strip_prefix("ref: ").and_then(git_path));
    for path in [head, git_path("index"), git_path("packed-refs"), branch]
        .into_iter()
        .flatten()
    {
        println!("cargo:rerun-if-changed={path}");
    }
    let commit = std::env::var("KUBECTL_INFORMER_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(from_git)
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=KUBECTL_INFORMER_COMMIT={commit}");
}

/// Where git keeps `name` (HEAD, index, a ref) of this checkout, when that file exists; None
/// outside a git checkout.
fn git_path(name: &str) -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "--git-path", name])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    std::path::Path::new(&path).exists().then_some(path)
}

/// `git rev-parse --short=12 HEAD`, `-dirty` added when tracked files differ from it; `None`
/// without git or outside a repository of this crate.
fn from_git() -> Option<String> {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    // Only this crate's own repository: a crate unpacked inside another repository (cargo's
    // package check, a vendored copy) has no commit of its own.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let here = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    if std::fs::canonicalize(top).ok()? != std::fs::canonicalize(here).ok()? {
        return None;
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty {
        format!("{commit}-dirty")
    } else {
        commit
    })
}
