//! `top`'s command line ([`TopArgs`]).

use super::ReportFormat;
use crate::duration;
use clap::Args;
use std::time::Duration;

/// `kubectl informer top TARGET`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    # kube-controller-manager's queues and informers, from its own metrics\n  \
    kubectl informer top https://127.0.0.1:10257/metrics\n  \
    # a controller-runtime manager's plain-http metrics port, through the API server's proxy\n  \
    kubectl informer top pod/my-operator-7d4f9:8080 -n operators\n  \
    kubectl informer top svc/my-operator-metrics:8080 -n operators -o json --for 1m\n\n\
    Exit status: 0 --for ran out, 2 error (the first scrape failed), 130 interrupted by \
    Ctrl-C, 143 by SIGTERM (after the summary).")]
pub struct TopArgs {
    /// Where the controller serves its metrics: pod/NAME[:PORT][/PATH] or svc/NAME:PORT[/PATH]
    /// in the namespace (-n), reached through the API server's proxy (needs get on pods/proxy or
    /// services/proxy), or an http(s):// URL reached with the kubeconfig's credentials and
    /// certificate authority.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// Time between two scrapes: each table is of what happened in between.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "2s")]
    pub interval: Duration,
    /// Stop after this long and print the summary (default: until Ctrl-C).
    #[arg(long = "for", value_name = "DURATION", value_parser = duration::parse)]
    pub run_for: Option<Duration>,
    /// Measure each informer's lag behind the server: watch each resource the controller's
    /// informers hold (metadata only, from now on, across all namespaces) and compare each event
    /// with the resourceVersion the informer's store reached. Needs list and watch on those
    /// resources.
    #[arg(long)]
    pub lag: bool,
    /// Show every queue and informer, the idle ones too (no depth, nothing added, nothing
    /// processed in the interval).
    #[arg(long)]
    pub all: bool,
    /// `text`: a table per interval (redrawn in place on a terminal); `json`: one JSON line per
    /// interval, then the summary's.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}
