//! `completion SHELL`: completion scripts generated from the clap definition, the same scripts
//! that are checked in under `completions/`.

use crate::cli::{Cli, CompletionShell};
use clap::CommandFactory;
use clap_complete::Shell;
use std::io::Write;

/// The completion script for `shell`.
pub fn script(shell: CompletionShell) -> Vec<u8> {
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
        CompletionShell::Powershell => Shell::PowerShell,
    };
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kubectl-informer", &mut out);
    out
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
