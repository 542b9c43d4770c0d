//! `version`: the client's version and the commit it was built from, then the server's version
//! from its `/version`, as `kubectl version` prints them.

use super::GlobalConfig;
use crate::cli::VersionArgs;
use crate::cluster::{Cluster, ClusterError, Operation};
use crate::error::{Error, Result, EXIT_OK};
use std::io::Write;

/// Prints the versions; the client's first, so that a server that cannot be asked still
/// leaves them.
pub async fn exec(global: &GlobalConfig, args: &VersionArgs) -> Result<u8> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Client Version: v{}\nClient Commit: {}",
        env!("CARGO_PKG_VERSION"),
        env!("KUBECTL_INFORMER_COMMIT")
    )
    .and_then(|_| out.flush())
    .map_err(Error::Output)?;
    if args.client {
        return Ok(EXIT_OK);
    }
    let cluster = Cluster::connect(&global.selection, global.transport).await?;
    let server = server_version(&cluster).await?;
    writeln!(out, "Server Version: {server} ({})", cluster.server).map_err(Error::Output)?;
    Ok(EXIT_OK)
}

/// The server's `gitVersion` from `/version` (`v1.37.2`).
async fn server_version(cluster: &Cluster) -> Result<String> {
    let op = Operation::new("get", "/version", None);
    let body = cluster.get("/version", "application/json", &op).await?;
    let version: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
        Error::Cluster(ClusterError::Decode {
            what: "get /version".into(),
            reason: e.to_string(),
        })
    })?;
    version["gitVersion"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| {
            Error::Cluster(ClusterError::Decode {
                what: "get /version".into(),
                reason: "it has no gitVersion: the server is not a Kubernetes API server".into(),
            })
        })
}
