//! `diff`'s command line ([`DiffArgs`]), and how its informer obtains its initial state
//! ([`CacheInitial`]).

use super::{ReportFormat, WireEncoding};
use crate::duration;
use crate::informer::listwatch::DEFAULT_CHUNK_SIZE;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

/// `kubectl informer diff RESOURCE`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    kubectl informer diff configmaps -n default\n  \
    kubectl informer diff deploy -A --settle 30s --show-fields\n  \
    kubectl informer diff cm -n app --save-cache before.jsonl\n  \
    kubectl informer diff cm -n app --cache-file before.jsonl -o json\n  \
    # a drift watchdog: compare every minute for an hour\n  \
    kubectl informer diff pods -n app --every 1m --for 1h\n\n\
    Exit status: 0 no drift, 1 drift found, 2 error (like kubectl diff), 124 --timeout reached \
    before the comparison finished, 130 interrupted by Ctrl-C, 143 by SIGTERM.")]
pub struct DiffArgs {
    /// The resource, as kubectl names it.
    #[arg(value_name = "RESOURCE")]
    pub resource: String,
    /// Label selector, e.g. `app=web`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Field selector, e.g. `metadata.name=foo`.
    #[arg(long, value_name = "SELECTOR")]
    pub field_selector: Option<String>,
    /// How the informer gets its initial state: `watch-list`, as client-go v1.35 and later do
    /// (one consistent WATCH that streams it; falls back to `list` where the server refuses
    /// it), or `list`.
    #[arg(long, value_enum, default_value_t = CacheInitial::WatchList)]
    pub initial: CacheInitial,
    /// With --initial watch-list: how long the end of the initial events (the
    /// k8s.io/initial-events-end bookmark) may take after the watch opened or the last initial
    /// event, before falling back to LIST + WATCH (default 10s).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub initial_events_timeout: Option<Duration>,
    /// Keep the informer watching this long (with its reconnects and relists) before comparing.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub settle: Option<Duration>,
    /// Compare again at this interval while the informer keeps running (a drift watchdog);
    /// stop with Ctrl-C or --for.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub every: Option<Duration>,
    /// With --every: how long the watchdog runs, e.g. `1h` (exit 0 or 1 by its last
    /// comparison).
    #[arg(long = "for", value_name = "DURATION", value_parser = duration::parse)]
    pub run_for: Option<Duration>,
    /// Give up when the comparison (sync, --settle, compare) has not finished within DURATION:
    /// stop and exit 124. Not with --every, which has no end: use --for.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub timeout: Option<Duration>,
    /// Objects per LIST page.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CHUNK_SIZE)]
    pub chunk_size: u32,
    /// Compare a saved cache (JSON Lines in tail's recording format) with a LIST taken now,
    /// instead of running an informer.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with_all = ["save_cache", "settle", "every", "initial"])]
    pub cache_file: Option<PathBuf>,
    /// Write the informer's cache to FILE (tail's recording format) once synced. FILE must not
    /// exist yet.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub save_cache: Option<PathBuf>,
    /// For stale and content drift, say which fields differ.
    #[arg(long)]
    pub show_fields: bool,
    /// Pass when there is nothing to compare (no object in the scope, or a namespace that does
    /// not exist); without it that exits 2, since a check of nothing is not a pass. With
    /// --every, the first comparison is checked.
    #[arg(long)]
    pub allow_empty: bool,
    /// The encoding to LIST and WATCH in: `protobuf` (kube-apiserver's built-in types; custom
    /// resources, which it does not serve in protobuf, are read in JSON), `json`, or `cbor`
    /// (where the server serves CBOR, else JSON). Default: protobuf, or JSON where objects are
    /// shown or recorded (--show-fields, --save-cache, --cache-file).
    #[arg(long, value_enum, value_name = "ENCODING")]
    pub encoding: Option<WireEncoding>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}

/// How `diff`'s informer obtains its initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CacheInitial {
    /// Paginated LIST, then WATCH.
    List,
    /// One WATCH with sendInitialEvents (falls back to `list` when refused).
    WatchList,
}
