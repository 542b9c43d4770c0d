//! The `kubectl-informer` binary: parse, run, print an error once, exit with its code.

use kubectl_informer::error::{EXIT_ERROR, EXIT_OK};
use std::process::ExitCode;

fn main() -> ExitCode {
    kubectl_informer::memory::use_one_malloc_arena();
    let args: Vec<String> = std::env::args().collect();
    let cli = kubectl_informer::cli::parse();
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Ok(cli) = &cli {
        if let Some(workers) = kubectl_informer::cli::worker_threads(cli) {
            builder.worker_threads(workers);
        }
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    // kubectl's plugin completion protocol, answered before clap sees the words.
    if args.get(1).map(String::as_str) == Some("__complete") {
        let mut out = std::io::stdout().lock();
        let _ = runtime.block_on(kubectl_informer::complete::exec(&args[2..], &mut out));
        // A lookup still blocking a thread after the time limit must not hold the shell up.
        runtime.shutdown_timeout(std::time::Duration::from_millis(100));
        return ExitCode::from(EXIT_OK);
    }
    let cli = match cli {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_ERROR } else { EXIT_OK });
        }
    };
    let result = runtime.block_on(kubectl_informer::run(cli));
    // Tasks still running (a bench handler asleep on a blocking thread after Ctrl-C) must not
    // hold the exit up.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    match result {
        Ok(code) => ExitCode::from(code),
        // Ctrl-C or SIGTERM before anything ran: the code says it, as a shell's would.
        Err(e @ kubectl_informer::error::Error::Stopped(_)) => ExitCode::from(e.exit_code()),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
