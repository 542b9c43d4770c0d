//! `conform`'s command line ([`ConformArgs`]): its flags, examples, exit status and the
//! checks, as its help prints them.

use super::ReportFormat;
use crate::duration;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// `kubectl informer conform RESOURCE`.
#[derive(Debug, Clone, Args)]
#[command(
    before_help = "Examples:\n  \
    # every check on configmaps, writing only in a scratch namespace conform creates and deletes\n  \
    kubectl informer conform configmaps\n  \
    # a CRD: conform creates its objects from a manifest of one\n  \
    kubectl informer conform widgets.example.com --template widget.yaml -o json\n  \
    # through a proxy, writing nothing: the checks that need a write are SKIP, expected\n  \
    kubectl informer conform pods -n prod --read-only --allow-skips --kubeconfig proxy.kubeconfig\n\n\
    Exit status: 0 every check that applies to the server passed (a SKIP the server cannot be \
    held to, such as a feature it does not serve, does not count; with --allow-skips no SKIP \
    does), 1 a check failed, 2 nothing checked (no watch check ran), a check skipped (forbidden, \
    --read-only) without --allow-skips, or an error (also a resource that cannot be listed), 130 \
    interrupted by Ctrl-C, 143 by SIGTERM (the scratch namespace is deleted first).",
    after_help = "Checks:\n  \
    1 list-consistent   a LIST at RV \"\" is not older than a write made just before\n  \
    2 list-pagination   limit is honoured, continue tokens work, every page has the first's RV\n  \
    3 list-exact-rv     LIST with resourceVersionMatch=Exact returns the state at that RV\n  \
    4 watch-from-list   a WATCH from a LIST's RV delivers a later write, with a greater RV\n  \
    5 watch-rv-order    RVs increase along a watch (comparable integers, KEP-5504)\n  \
    6 watch-bookmarks   allowWatchBookmarks=true brings a BOOKMARK before the watch ends\n  \
    7 watch-list        sendInitialEvents=true ends the initial state with the\n                      \
    k8s.io/initial-events-end BOOKMARK (or is refused: client-go then LISTs)\n  \
    8 watch-expired     a WATCH from a compacted RV answers 410 Expired\n  \
    9 watch-timeout     the server ends a watch at its timeoutSeconds\n  \
    10 watch-unbuffered a write's event arrives within --delivery-limit\n  \
    11 watch-metadata   a metadata-only (PartialObjectMetadata) watch is served\n  \
    12 list-never-back  LISTs between writes never answer older than an earlier one"
)]
pub struct ConformArgs {
    /// The resource, as kubectl names it: `configmaps`, `pods`, a CRD, an aggregated API's.
    #[arg(value_name = "RESOURCE")]
    pub resource: String,
    /// Write nothing: the checks run on the namespace of -n (or the context's) and those that
    /// need a write are SKIP. Without it conform writes only objects of its own: in a scratch
    /// namespace it creates and deletes, or with -n in that namespace, labelled with the run
    /// and deleted at the end.
    #[arg(long)]
    pub read_only: bool,
    /// Skips are expected: a check skipped because the identity may not make its requests or
    /// --read-only writes nothing does not fail the run. A run in which no watch check ran
    /// still exits 2 (nothing checked).
    #[arg(long)]
    pub allow_skips: bool,
    /// A manifest (YAML or JSON) of one object of RESOURCE, which conform creates copies of:
    /// needed to write any resource but configmaps.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with = "read_only")]
    pub template: Option<PathBuf>,
    /// Check 7: how long the end of the initial events may take after the watch opened or the
    /// last initial event.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = duration::parse)]
    pub initial_events_timeout: Duration,
    /// Check 10: how soon a write's event must arrive (a proxy that buffers the stream delivers
    /// it when its buffer fills or a timer fires).
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = duration::parse)]
    pub delivery_limit: Duration,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}
