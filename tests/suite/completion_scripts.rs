//! The scripts in completions/ are what `kubectl-informer completion SHELL` prints (the binary's
//! own copies, src/commands/completion/); this fails when they differ. Rewrite them with
//! `UPDATE_COMPLETIONS=1 cargo test --test suite completion_scripts::`.

use kubectl_informer::cli::CompletionShell;
use kubectl_informer::commands::completion::{file_name, script};
use std::path::Path;

#[test]
fn completion_scripts_in_the_repository_are_what_the_binary_prints() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let update = std::env::var_os("UPDATE_COMPLETIONS").is_some();
    let mut stale = Vec::new();
    for shell in [
        CompletionShell::Bash,
        CompletionShell::Zsh,
        CompletionShell::Fish,
        CompletionShell::Powershell,
    ] {
        let path = dir.join(file_name(shell));
        let want = script(shell);
        if update {
            std::fs::write(&path, &want).unwrap();
            continue;
        }
        let have = std::fs::read(&path).unwrap_or_default();
        if have != want {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts: {}; regenerate with `UPDATE_COMPLETIONS=1 cargo test --test suite completion_scripts::`",
        stale.join(", ")
    );
}

#[test]
fn kubectl_plugin_completion_helper_calls_the_complete_protocol() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions/kubectl_complete-informer");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("exec kubectl-informer __complete \"$@\""),
        "{text}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert!(mode & 0o111 != 0, "{} must be executable", path.display());
    }
}
