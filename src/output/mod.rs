//! Rendering for people, separated from what computes: tail's text printer (`text`) and its
//! `--diff` of two versions of an object (`tail_diff`) as YAML (`yaml`), its exit summary
//! (`tail_summary`) and its `--react` lines (`tail_react`), the formats of `kubectl get -w`
//! (`kubectl`: `-o yaml`, `-o name`, `-o jsonpath=` with `jsonpath`'s templates, `-o
//! custom-columns=` (`custom_columns`), aligned by kubectl's `tabwriter`) and the label columns
//! of `-L` and `--show-labels` (`labels`), diff's drift table and verdicts (`drift`), boxed
//! tables as every command draws them (`table`), bench's table (`bench`), bench's exports, one
//! file per format (`export`), and the writing of them to a path (`file`), top's tables (`top`)
//! and the controller section bench shares with them (`controller`), conform's lines
//! (`conform`), proxy's notices (`proxy`), progress bars (`progress`), and when to color or
//! show progress.

pub mod bench;
pub mod conform;
pub mod controller;
pub mod custom_columns;
pub mod drift;
pub mod explore;
pub mod export;
pub mod file;
pub mod jsonpath;
pub mod kubectl;
pub mod labels;
pub mod progress;
pub mod proxy;
pub mod table;
pub mod tabwriter;
pub mod tail_diff;
pub mod tail_react;
pub mod tail_summary;
pub mod text;
pub mod top;
pub mod transition;
pub mod yaml;

use std::io::IsTerminal;

/// Whether to color output written to stdout: a terminal, and `NO_COLOR` unset.
pub fn color_stdout() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Whether stdout is a terminal (`top` redraws its table in place only there).
pub fn stdout_is_terminal() -> bool {
    std::io::stdout().is_terminal()
}

/// Whether stderr is a terminal (summaries and progress bars show only there, by default).
pub fn stderr_is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// Resolves when the reader of stdout has gone away (the read end of a pipe closed, as `| head`
/// closes it once it has its lines), so that a command that streams ends then, not at its next
/// write, which may be minutes away on a quiet watch. Never resolves where that cannot be told:
/// stdout a file (which cannot be watched, and never goes away) or off Unix.
pub async fn stdout_closed() {
    #[cfg(unix)]
    {
        use tokio::io::{unix::AsyncFd, Interest};
        /// Standard output, watched, not owned: never closed here.
        struct Stdout;
        impl std::os::fd::AsRawFd for Stdout {
            fn as_raw_fd(&self) -> std::os::fd::RawFd {
                1
            }
        }
        // A pipe whose reader has gone reports an error to its writer (EPOLLERR).
        // SAFETY: fd 1 stays open, the same stdout, for the process's lifetime: nothing here
        // closes or replaces it.
        let registered = unsafe { AsyncFd::register_with_interest(Stdout, Interest::ERROR) };
        if let Ok(stdout) = registered {
            while let Ok(mut ready) = stdout.ready(Interest::ERROR).await {
                if ready.ready().is_error() {
                    return;
                }
                ready.clear_ready();
            }
        }
    }
    std::future::pending::<()>().await
}

/// A command's one result written to stdout (diff's report, bench's table): a reader that went
/// away is not a failure, and the command's exit code (drift, a failed gate) still stands.
pub fn tolerate_closed_pipe(written: std::io::Result<()>) -> std::io::Result<()> {
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// A line for people on stderr (a notice, a summary, a retry): what commands say beside their
/// data, in one place. A stderr that cannot be written loses the line, as `eprintln!` would not
/// (it panics): nothing is left to tell.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
