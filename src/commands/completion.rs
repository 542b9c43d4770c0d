//! `completion SHELL`: the completion scripts, the same that are checked in under
//! `completions/`. Each asks the binary itself for the candidates of every <TAB>
//! (`kubectl-informer __complete WORDS... CURRENT`, Cobra's protocol, as kubectl's scripts ask
//! kubectl), so commands, flags, resource types, object names, namespaces and contexts all
//! complete from one place: `complete.rs`.

use crate::cli::CompletionShell;
use std::io::Write;

/// The completion script for `shell`.
pub fn script(shell: CompletionShell) -> Vec<u8> {
    let text = match shell {
        CompletionShell::Bash => include_str!("completion/bash.sh"),
        CompletionShell::Zsh => include_str!("completion/zsh.zsh"),
        CompletionShell::Fish => include_str!("completion/fish.fish"),
        CompletionShell::Powershell => include_str!("completion/powershell.ps1"),
    };
    text.as_bytes().to_vec()
}

/// The file under `completions/` that holds the script for `shell`.
pub fn file_name(shell: CompletionShell) -> &'static str {
    match shell {
        CompletionShell::Bash => "kubectl-informer.bash",
        CompletionShell::Zsh => "_kubectl-informer",
        CompletionShell::Fish => "kubectl-informer.fish",
        CompletionShell::Powershell => "kubectl-informer.ps1",
    }
}

/// Prints the script for `shell` to `out`.
pub fn exec(shell: CompletionShell, out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(&script(shell))?;
    out.flush()
}
