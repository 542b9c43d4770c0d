//! kubectl-informer: a client-go style reflector and informer pipeline, run on demand from the
//! command line, instrumented so that a person can see what a controller sees.

pub mod bench;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod diff;
pub mod error;
pub mod format;
pub mod informer;
pub mod memory;
pub mod metrics;
pub mod output;
pub mod recording;
pub mod rng;
pub mod signal;

use cli::{Cli, Command};
use error::{Error, Result, EXIT_OK};

/// Runs a parsed command line and returns the exit code (errors are returned, not printed). A
/// closed stdout ends a command here, with exit 0, as ripgrep does: the reader went away.
pub async fn run(cli: Cli) -> Result<u8> {
    match exec(cli).await {
        Err(e) if e.is_closed_pipe() => Ok(EXIT_OK),
        other => other,
    }
}

async fn exec(cli: Cli) -> Result<u8> {
    let global = commands::GlobalConfig::from_args(&cli.global)?;
    match cli.command {
        Command::Tail(args) => {
            let config = commands::tail::TailConfig::from_args(&args)?;
            commands::tail::exec(&global, config).await
        }
        Command::Diff(args) => {
            let config = commands::diff::DiffConfig::from_args(&args)?;
            commands::diff::exec(&global, config).await
        }
        Command::Bench(args) => {
            let config = commands::bench::BenchConfig::from_args(&args, &global)?;
            commands::bench::exec(&global, config).await
        }
        Command::Completion(args) => {
            let mut out = std::io::stdout().lock();
            commands::completion::exec(args.shell, &mut out).map_err(Error::Output)?;
            Ok(EXIT_OK)
        }
    }
}
