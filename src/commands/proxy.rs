//! `proxy`: the cluster's API on a loopback port, every request forwarded with the user's
//! credentials, over HTTPS with HTTP/2 (a CA of its own, made for the run) or, with
//! `--plain-http`, as kubectl proxy serves it. Exit 0 when `--for` ran out, 2 on an error, 130
//! and 143 after Ctrl-C and SIGTERM.

use super::GlobalConfig;
use crate::cli::ProxyArgs;
use crate::cluster::Cluster;
use crate::error::{Error, Result, EXIT_OK};
use crate::proxy::serve::serve;
use crate::proxy::tls::Authority;
use base64::Engine;
use std::io::Write;

pub async fn exec(global: &GlobalConfig, args: &ProxyArgs) -> Result<u8> {
    let cluster = Cluster::connect(&global.selection, global.transport)
        .await?
        .with_verbosity(global.verbose);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", args.port))
        .await
        .map_err(|e| {
            Error::Usage(format!(
                "cannot serve on 127.0.0.1:{}: {e}: choose another port with -p (0 picks a free one)",
                args.port
            ))
        })?;
    let port = listener.local_addr().map_err(Error::Output)?.port();
    let authority = match args.plain_http {
        true => None,
        false => Some(Authority::new().map_err(|e| Error::Failed(e.to_string()))?),
    };
    let scheme = if authority.is_some() { "https" } else { "http" };
    let url = format!("{scheme}://127.0.0.1:{port}");
    if let Some(path) = &args.write_kubeconfig {
        let text = kubeconfig(&url, authority.as_ref(), &cluster.default_namespace);
        crate::output::file::write_whole(path, text.as_bytes()).map_err(|e| {
            Error::File(format!(
                "cannot write --write-kubeconfig {}: {e}",
                path.display()
            ))
        })?;
    }
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Starting to serve on {url} (context \"{}\", server {})",
        cluster.context, cluster.server
    )
    .and_then(|()| out.flush())
    .map_err(Error::Output)?;
    drop(out);
    let interrupt = crate::stop::requested();
    let served = serve(listener, authority.map(|a| a.server), cluster);
    tokio::select! {
        r = served => r.map(|()| EXIT_OK).map_err(|e| Error::Failed(format!("proxy stopped: {e}"))),
        _ = interrupt => Ok(crate::stop::exit_code()),
        _ = super::sleep_until(args.run_for.map(|d| tokio::time::Instant::now() + d)) => Ok(EXIT_OK),
    }
}

/// A kubeconfig whose one context reaches the cluster through the proxy at `url`, in
/// `namespace`. Its user's token is not a credential: the proxy drops whatever a client sends
/// and adds the user's own; it is there because kubectl asks for a user name and password on a
/// terminal when an https server's user has nothing.
fn kubeconfig(url: &str, authority: Option<&Authority>, namespace: &str) -> String {
    let ca = authority.map_or(String::new(), |a| {
        format!(
            "    certificate-authority-data: {}\n",
            base64::engine::general_purpose::STANDARD.encode(a.ca_pem.as_bytes())
        )
    });
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: kubectl-informer-proxy\n  cluster:\n    \
         server: {url}\n{ca}users:\n- name: kubectl-informer-proxy\n  user:\n    \
         token: not-a-credential-the-proxy-adds-yours\ncontexts:\n- \
         name: kubectl-informer-proxy\n  context:\n    cluster: kubectl-informer-proxy\n    \
         user: kubectl-informer-proxy\n    namespace: {namespace}\ncurrent-context: \
         kubectl-informer-proxy\n"
    )
}
