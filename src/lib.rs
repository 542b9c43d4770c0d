//! kubectl-informer: a client-go style reflector and informer pipeline, run on demand from the
//! command line, instrumented so that a person can see what a controller sees.
//!
//! The layers, and which way they point (an arrow is "imports"):
//!
//! ```text
//! main ─▶ cli, complete, commands/{tail,diff,bench,conform,top,proxy,version,schema,completion}
//!             │        each: flags ─▶ a validated config ─▶ exec, which only wires the layers
//!             │
//!             ├─▶ output/   renders for people: tail's text, --diff and summary, diff's drift
//!             │             table and verdicts, bench's table and gates, top's tables, conform's
//!             │             lines, the proxy's notices, exports (json, markdown, html,
//!             │             prometheus) and writing them to a path (file), progress bars
//!             ├─▶ recording/ the JSON Lines format, both ways: records, their line types and
//!             │             notice kinds, writer, reader, snapshot
//!             ├─▶ tail/     a run's session over the merged watches, each resource's feed (its
//!             │             cache, the object events it makes, how each is shown), the sink
//!             │             what is shown goes to (commands/ writes it as records), the
//!             │             summary's counts; the owner graph --follow-owned follows, and
//!             │             which resources an owner's objects own objects in; --react's
//!             │             reactions to the writes seen, as they come (with react/)
//!             ├─▶ diff/     drift classification, the comparisons, the report and the watchdog's
//!             │             record, and a session that compares once or every interval
//!             ├─▶ bench/    the simulated controller, replay and live runs, load generator,
//!             │             scratch namespace, report, gates (parsed once, judged on the
//!             │             report); a live run scrapes a real controller over its window
//!             │             (with scrape/) and times its reactions (with react/)
//!             ├─▶ react/    below bench and tail, for both: what a controller's reaction to a
//!             │             write is (--react KIND, parsed once), the writes and signals watch
//!             │             events show, and their matching (coalesced writes superseded)
//!             ├─▶ scrape/   a running controller's own metrics: where they are served (a
//!             │             workload's pods and its leader by its Lease, reached by
//!             │             port-forward over HTTPS with a token; the API server's proxy; a
//!             │             URL), the Prometheus text, its queues, informers and throttling,
//!             │             intervals, a window's scrapes, and when a queue or an informer is idle
//!             ├─▶ conform/  the watch-contract checks, run against a server, and their report
//!             ├─▶ proxy/    the API on a loopback port: its own CA and TLS (h2, http/1.1),
//!             │             every request forwarded with the user's credentials, and the
//!             │             faults (what they are, when they happen, a watch's events
//!             │             relayed through them, a connection's bytes stopped: silence,
//!             │             a stale view from the cluster's past), the controller it runs,
//!             │             and a workload's end state, normalized and compared
//!             ▼
//!         informer/  the pipeline, one client-go stage per file, in the order data flows:
//!                    listwatch (the ListerWatcher trait and the wire protocol), reflector
//!                    (a State and its step; reports `transition`s), fifo, core (the informer
//!                    loop: Cache = store + relist bookkeeping, then the processor), processor,
//!                    workqueue. A stage imports only the stages it drives: the reflector its
//!                    listwatch, core its fifo and processor. shared assembles them and hands
//!                    out a RunningInformer to await; merge runs several reflectors as one stream
//!             │
//!             ▼
//!         cluster/   kubeconfig and its credentials, the transport (dial, TLS, the phases'
//!                    limits) and the outbound proxy (HTTPS_PROXY, proxy-url), client,
//!                    discovery, resource names, the small queries (a namespace's existence, the
//!                    server's version), selectors, resourceVersions, the protobuf encoding of
//!                    built-in types (read without their schemas) and the CBOR of custom
//!                    resources, the encoding a response is in (from its Content-Type), the
//!                    framer that cuts a watch body into events (for the informer's watch and
//!                    the proxy's relay), errors
//! ```
//!
//! `output/` and `recording/` are only imported by `commands/` (and by each other: the text
//! printer renders the recording's records, the writer words notices as the printer does);
//! `informer/` imports neither. `output/` renders the reports of the domain layers below (and
//! `recording/` records what became of a write, `react/`'s). `tail/`, `bench/`, `diff/`,
//! `conform/`, `scrape/` and `proxy/` compute without rendering, know neither the recording
//! format nor each other (but for bench, which uses scrape; what bench and tail share of a
//! controller's reaction to a write is `react/`, below both, which imports only `informer/` and
//! `cluster/`), and have their own errors (`TailError`, `BenchError`, `DiffError`,
//! `ScrapeError`, conform's verdicts), which `commands/` map into `error`: the top-level error
//! and exit codes, which wraps the cluster's and the reflector's errors. A domain layer returns
//! data, which `output/` words; the sentences it writes itself are its errors' messages (each
//! error's one line for the user, so the error carries it) and the few phrases that are fields
//! of a JSON document (a gate's `display`, a drifted object's changed fields). `cli` parses
//! flags into the value types of `cluster/`, `informer/`, `bench/`, `react/` and `proxy/`.
//! `complete` (main runs it for `__complete`, kubectl's plugin completion and the scripts'
//! protocol) completes a command line from the flags' definitions in `cli`, the values
//! `proxy/` and `scrape/` accept, and resource types, namespaces and object names asked of the
//! server, connected as the command would be.
//! Leaves anyone may use: `duration` (the one parser of every duration flag and gate value),
//! `format` (numbers, times and foreign text for people), `metrics` (histograms, gauges, CPU
//! time), `rng`, `signal` (await a condition, or a deadline that may be none), `stop` (Ctrl-C
//! and SIGTERM, and their exit codes), `memory`, `verbosity` (the one sink of `-v` diagnostics
//! on stderr), `template` (objects made from a manifest, for bench and conform to write).
//! `tests/suite/layers.rs` checks that the imports are these edges.

#![warn(clippy::too_many_lines)]

pub mod bench;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod complete;
pub mod conform;
pub mod diff;
pub mod duration;
pub mod error;
pub mod format;
pub mod informer;
pub mod memory;
pub mod metrics;
pub mod output;
pub mod proxy;
pub mod react;
pub mod recording;
pub mod rng;
pub mod scrape;
pub mod signal;
pub mod stop;
pub mod tail;
pub mod template;
pub mod verbosity;

use cli::{Cli, Command};

/// The version `--version` prints: the crate's and the commit it was built from (`unknown` for
/// a build without the repository's history).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("KUBECTL_INFORMER_COMMIT"),
    ")"
);
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
            let global = global.limited(config.run_for, config.timeout);
            commands::tail::exec(&global, config).await
        }
        Command::Diff(args) => {
            let config = commands::diff::DiffConfig::from_args(&args)?;
            let global = global.limited(config.run_for, config.timeout);
            commands::diff::exec(&global, config).await
        }
        Command::Bench(args) => {
            let config = commands::bench::BenchConfig::from_args(&args, &global)?;
            let global = global.limited(config.time_box(), None);
            commands::bench::exec(&global, config).await
        }
        Command::Conform(args) => {
            let config = commands::conform::ConformConfig::from_args(&args, &global)?;
            commands::conform::exec(&global, config).await
        }
        Command::Top(args) => {
            let config = commands::top::TopConfig::from_args(&args)?;
            let global = global.limited(config.run_for, None);
            commands::top::exec(&global, config).await
        }
        Command::Proxy(args) => {
            let config = commands::proxy::ProxyConfig::from_args(&args)?;
            let global = global.limited(config.run_for, None);
            commands::proxy::exec(&global, config).await
        }
        Command::Version(args) => {
            let config = commands::version::VersionConfig::from_args(&args);
            commands::version::exec(&global, config).await
        }
        Command::Options => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            out.write_all(cli::global_options_help().as_bytes())
                .map_err(Error::Output)?;
            Ok(EXIT_OK)
        }
        Command::Schema(args) => {
            let mut out = std::io::stdout().lock();
            commands::schema::exec(args.document, &mut out).map_err(Error::Output)?;
            Ok(EXIT_OK)
        }
        Command::Completion(args) => {
            let mut out = std::io::stdout().lock();
            commands::completion::exec(args.shell, &mut out).map_err(Error::Output)?;
            Ok(EXIT_OK)
        }
    }
}
