//! `version`: the client's version and the commit it was built from, then the server's version
//! from its `/version`, as `kubectl version` prints them.

use super::GlobalConfig;
use crate::cli::VersionArgs;
use crate::cluster::Cluster;
use crate::error::{Error, Result, EXIT_OK};
use std::io::Write;

/// `version`'s arguments, validated.
#[derive(Debug, Clone, Copy)]
pub struct VersionConfig {
    /// `--client`: the client's version only, the server not asked.
    pub client_only: bool,
}

impl VersionConfig {
    pub fn from_args(args: &VersionArgs) -> Self {
        VersionConfig {
            client_only: args.client,
        }
    }
}

/// Prints the versions; the client's first, so that a server that cannot be asked still
/// leaves them.
pub async fn exec(global: &GlobalConfig, config: VersionConfig) -> Result<u8> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Client Version: v{}\nClient Commit: {}",
        env!("CARGO_PKG_VERSION"),
        env!("KUBECTL_INFORMER_COMMIT")
    )
    .and_then(|_| out.flush())
    .map_err(Error::Output)?;
    if config.client_only {
        return Ok(EXIT_OK);
    }
    let cluster = Cluster::connect(&global.selection, global.transport).await?;
    let server = cluster.server_version().await?;
    writeln!(out, "Server Version: {server} ({})", cluster.server).map_err(Error::Output)?;
    Ok(EXIT_OK)
}
