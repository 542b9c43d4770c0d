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

use cli::{Cli, Command};
use error::{Error, Result, EXIT_OK};

/// Runs a parsed command line and returns the exit code (errors are returned, not printed).
pub async fn run(cli: Cli) -> Result<u8> {
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
            match commands::completion::exec(args.shell, &mut out) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::Output(e)),
                _ => Ok(EXIT_OK),
            }
        }
    }
}
