//! kubectl's global flags ([`GlobalArgs`]), which every command takes, and how a `-v` level
//! is read.

use crate::cluster::queries::validate_dns_label;
use crate::cluster::{KubeconfigSelection, Overrides, Transport, DEFAULT_RESPONSE_HEADERS};
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

impl GlobalArgs {
    /// `-n`, checked as the DNS label a namespace's name is.
    pub fn checked_namespace(&self) -> Result<Option<String>, String> {
        if let Some(ns) = &self.namespace {
            validate_dns_label(ns)
                .map_err(|why| format!("invalid namespace \"{ns}\" (-n): {why}"))?;
        }
        Ok(self.namespace.clone())
    }

    /// Which kubeconfig, context, cluster and user, and the connection flags over them.
    pub fn selection(&self) -> Result<KubeconfigSelection, String> {
        Ok(KubeconfigSelection {
            path: self.kubeconfig.clone(),
            context: self.context.clone(),
            cluster: self.cluster.clone(),
            user: self.user.clone(),
            overrides: overrides(self)?,
        })
    }

    /// The requests' limits: `--request-timeout` (0 is none) bounds each request and its
    /// response headers, which are otherwise bounded by default; `--health-check` pings.
    pub fn transport(&self) -> Transport {
        let nonzero = |d: Duration| Some(d).filter(|d| !d.is_zero());
        Transport {
            request_timeout: self.request_timeout.and_then(nonzero),
            response_headers: match self.request_timeout {
                Some(limit) => nonzero(limit),
                None => Some(DEFAULT_RESPONSE_HEADERS),
            },
            health_check: nonzero(self.health_check),
        }
    }
}

/// The connection flags, checked: a server address with a scheme, files that exist, no
/// impersonated group without a user (clientcmd refuses it too).
fn overrides(args: &GlobalArgs) -> Result<Overrides, String> {
    let server = match args.server.as_deref().map(str::trim) {
        None => None,
        Some("") => {
            return Err(
                "--server is empty: pass the API server's address, e.g. https://10.0.0.1:6443"
                    .into(),
            )
        }
        Some(text) => {
            let url = if text.contains("://") {
                text.to_string()
            } else {
                format!("https://{text}")
            };
            match url.parse::<http::Uri>() {
                Ok(uri)
                    if matches!(uri.scheme_str(), Some("https" | "http"))
                        && uri.host().is_some() =>
                {
                    Some(url)
                }
                _ => {
                    return Err(format!(
                        "invalid --server \"{text}\": not an http(s) address; pass one like \
                         https://10.0.0.1:6443"
                    ))
                }
            }
        }
    };
    for (flag, path) in [
        ("--certificate-authority", &args.certificate_authority),
        ("--client-certificate", &args.client_certificate),
        ("--client-key", &args.client_key),
    ] {
        if let Some(path) = path {
            if !path.is_file() {
                return Err(format!(
                    "{flag} {}: no such file: pass the path of a PEM file",
                    path.display()
                ));
            }
        }
    }
    if args.token.as_deref() == Some("") {
        return Err(
            "--token is empty: pass a bearer token, or leave the flag out to use the kubeconfig's \
             credentials"
                .into(),
        );
    }
    if args.impersonate.is_none()
        && (!args.impersonate_groups.is_empty() || args.impersonate_uid.is_some())
    {
        return Err(
            "--as-group and --as-uid need --as: name the user to impersonate as well".into(),
        );
    }
    if args.insecure_skip_tls_verify && args.certificate_authority.is_some() {
        return Err(
            "--insecure-skip-tls-verify and --certificate-authority contradict each other: \
             pass one of them"
                .into(),
        );
    }
    Ok(Overrides {
        server,
        certificate_authority: args.certificate_authority.clone(),
        insecure_skip_tls_verify: args.insecure_skip_tls_verify,
        tls_server_name: args.tls_server_name.clone().filter(|n| !n.is_empty()),
        disable_compression: args.disable_compression,
        client_certificate: args.client_certificate.clone(),
        client_key: args.client_key.clone(),
        token: args.token.clone(),
        impersonate: args.impersonate.clone(),
        impersonate_groups: args.impersonate_groups.clone(),
        impersonate_uid: args.impersonate_uid.clone(),
    })
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
