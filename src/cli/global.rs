//! kubectl's global flags ([`GlobalArgs`]), which every command takes, and how a `-v` level
//! is read.

use crate::duration;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// kubectl's global flags, shared by every subcommand.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// The kubeconfig cluster to use (overrides the context's).
    #[arg(long, global = true, value_name = "NAME")]
    pub cluster: Option<String>,
    /// The kubeconfig user to use (overrides the context's).
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<String>,
    /// Namespace to work in (default: the context's namespace, else `default`).
    #[arg(short = 'n', long, global = true, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Work across all namespaces.
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request's response
    /// headers (0: no limit, like kubectl); without it, response headers are waited for 60s.
    #[arg(long, global = true, value_name = "DURATION", value_parser = duration::parse)]
    pub request_timeout: Option<Duration>,
    /// Check a connection that has received nothing for this long, e.g. `30s` (0: never): an
    /// HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP
    /// keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response
    /// body that stops for as long is abandoned. Costs one 17-byte PING and its answer per
    /// quiet connection per period.
    #[arg(long, global = true, value_name = "DURATION", default_value = "30s", value_parser = duration::parse)]
    pub health_check: Duration,
    /// Log level on stderr, as kubectl's: -v=1 (up to 5) the context, server, user and resolved
    /// resource; -v=6 and up also every request with its status and time.
    #[arg(short = 'v', long = "v", global = true, value_name = "LEVEL", default_value = "0",
        value_parser = parse_level)]
    pub verbose: u8,
    /// The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the
    /// kubeconfig's cluster; `https://` is assumed without a scheme).
    #[arg(short = 's', long, global = true, value_name = "URL")]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server (overrides the kubeconfig user's
    /// credentials). Prefer a kubeconfig: a flag's value is visible to other local users in `ps`.
    #[arg(long, global = true, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Username to impersonate, e.g. a controller's service account:
    /// `system:serviceaccount:NAMESPACE:NAME`.
    #[arg(long = "as", global = true, value_name = "USER")]
    pub impersonate: Option<String>,
    /// Group to impersonate (repeatable); needs --as.
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub impersonate_groups: Vec<String>,
    /// UID to impersonate; needs --as.
    #[arg(long = "as-uid", global = true, value_name = "UID")]
    pub impersonate_uid: Option<String>,
    /// Path to a certificate file for the certificate authority (overrides the kubeconfig's).
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub certificate_authority: Option<PathBuf>,
    /// Path to a client certificate file for TLS.
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub client_certificate: Option<PathBuf>,
    /// Path to a client key file for TLS.
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub client_key: Option<PathBuf>,
    /// Do not check the server's certificate: the connection is then open to interception.
    #[arg(long, global = true, value_name = "BOOL", num_args = 0..=1, require_equals = true,
        default_missing_value = "true", default_value = "false", value_parser = clap::value_parser!(bool))]
    pub insecure_skip_tls_verify: bool,
    /// Server name to check the server's certificate against (default: the host of the
    /// server's address).
    #[arg(long, global = true, value_name = "NAME")]
    pub tls_server_name: Option<String>,
    /// Do not ask the server to gzip its responses (as the kubeconfig's `disable-compression`).
    #[arg(long, global = true, value_name = "BOOL", num_args = 0..=1, require_equals = true,
        default_missing_value = "true", default_value = "false", value_parser = clap::value_parser!(bool))]
    pub disable_compression: bool,
}

/// A `-v` level as kubectl writes it (`-v=6`, `--v=6`, `-v 6`); `-vv` (an earlier spelling of
/// "every request") is read as 6.
fn parse_level(text: &str) -> Result<u8, String> {
    if !text.is_empty() && text.bytes().all(|b| b == b'v') {
        return Ok(crate::cluster::REQUEST_LEVEL);
    }
    text.parse::<u8>().map_err(|_| {
        format!("a log level is a number from 0 to 255, e.g. -v=6 (kubectl's), not \"{text}\"")
    })
}
