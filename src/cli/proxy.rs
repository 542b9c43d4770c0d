//! `proxy`'s command line ([`ProxyArgs`]).

use crate::duration;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// `kubectl informer proxy`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    # The API of the current context on https://127.0.0.1:8001, and a kubeconfig to use it\n  \
    kubectl informer proxy --write-kubeconfig proxy.kubeconfig\n  \
    kube-controller-manager --kubeconfig proxy.kubeconfig ...\n\n  \
    # As kubectl proxy serves it: plain HTTP/1.1, any free port\n  \
    kubectl informer proxy --plain-http -p 0\n\n\
    Exit status: 0 --for ran out, 2 error (the port taken, the cluster unreachable), 130 \
    interrupted by Ctrl-C, 143 by SIGTERM.")]
pub struct ProxyArgs {
    /// The port on 127.0.0.1 to serve on; 0 picks a free one (the line on stdout says which).
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = 8001)]
    pub port: u16,
    /// Write a kubeconfig that reaches the cluster through the proxy to FILE: its address and,
    /// over HTTPS, the proxy's certificate authority; no credential (the proxy adds yours).
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub write_kubeconfig: Option<PathBuf>,
    /// Serve plain HTTP/1.1, as kubectl proxy does, instead of HTTPS with HTTP/2 (with a
    /// certificate authority of the proxy's own, made for this run). A client then has no
    /// HTTP/2 health check: client-go notices a connection that went silent only over HTTP/2.
    #[arg(long)]
    pub plain_http: bool,
    /// Stop after this long (default: until Ctrl-C).
    #[arg(long = "for", value_name = "DURATION", value_parser = duration::parse)]
    pub run_for: Option<Duration>,
}
