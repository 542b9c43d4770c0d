//! `top`'s command line ([`TopArgs`]).

use super::{ReportFormat, Via};
use crate::duration;
use clap::Args;
use std::time::Duration;

/// `kubectl informer top TARGET`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    # an operator's leading replica, its metrics port found by name (https, metrics)\n  \
    kubectl informer top deploy/my-operator -n my-operator-system\n  \
    # the same with a service account's token (the user's has no right to get /metrics)\n  \
    kubectl informer top deploy/my-operator -n my-operator-system --metrics-token-from sa/metrics-reader\n  \
    # every replica, the leader's and the followers' queues side by side\n  \
    kubectl informer top deploy/my-operator -n my-operator-system --all-replicas\n  \
    # kube-controller-manager's queues and informers, from its own metrics\n  \
    kubectl informer top https://127.0.0.1:10257/metrics\n  \
    # a plain-http metrics port, through the API server's proxy\n  \
    kubectl informer top svc/my-operator-metrics:8080 -n operators --via proxy -o json --for 1m\n\n\
    Exit status: 0 --for ran out, 2 error (the first scrape failed), 130 interrupted by \
    Ctrl-C, 143 by SIGTERM (after the summary).")]
pub struct TopArgs {
    /// Where the controller serves its metrics: KIND/NAME[:PORT][/PATH] in the namespace (-n),
    /// KIND deploy, sts, ds, rs, svc or pod (the leading replica; the port by number or name,
    /// else the container port named https or metrics), or an http(s):// URL reached with the
    /// kubeconfig's credentials and certificate authority.
    #[arg(value_name = "TARGET")]
    pub target: String,
    /// How KIND/NAME is reached: port-forward (HTTPS or HTTP, with a bearer token) or proxy
    /// (the API server's proxy to a pod or a service: plain HTTP, no credentials).
    #[arg(long, value_enum, default_value_t = Via::PortForward)]
    pub via: Via,
    /// Scrape with a token of this service account (sa/NAME, in the namespace of the target),
    /// asked for with the TokenRequest API (needs create on serviceaccounts/token), instead of
    /// the kubeconfig user's; never printed.
    #[arg(long, value_name = "sa/NAME")]
    pub metrics_token_from: Option<String>,
    /// Time between two scrapes: each table is of what happened in between.
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "2s")]
    pub interval: Duration,
    /// Stop after this long and print the summary (default: until Ctrl-C).
    #[arg(long = "for", value_name = "DURATION", value_parser = duration::parse)]
    pub run_for: Option<Duration>,
    /// Scrape every running replica of KIND/NAME, not only the leader: one table (or JSON line)
    /// per replica and interval, marked leader or follower, so that an idle leader or a busy
    /// follower stands out. The replicas are listed again each interval.
    #[arg(long)]
    pub all_replicas: bool,
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
