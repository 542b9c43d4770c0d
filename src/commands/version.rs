//! `version`: the client's version and the commit it was built from, then the server's version
//! from its `/version`, as `kubectl version` prints them; with `-o json|yaml`, kubectl's one
//! document of `clientVersion` and `serverVersion`.

use super::GlobalConfig;
use crate::cli::{VersionArgs, VersionOutput};
use crate::cluster::Cluster;
use crate::error::{Error, Result, EXIT_OK};
use crate::output::yaml::to_yaml;
use serde_json::{json, Value};
use std::io::Write;

/// `version`'s arguments, validated.
#[derive(Debug, Clone, Copy)]
pub struct VersionConfig {
    /// `--client`: the client's version only, the server not asked.
    pub client_only: bool,
    /// `-o`: one document instead of lines.
    pub output: Option<VersionOutput>,
}

impl VersionConfig {
    pub fn from_args(args: &VersionArgs) -> Self {
        VersionConfig {
            client_only: args.client,
            output: args.output,
        }
    }
}

/// Prints the versions; the client's first, so that a server that cannot be asked still
/// leaves them.
pub async fn exec(global: &GlobalConfig, config: VersionConfig) -> Result<u8> {
    if let Some(form) = config.output {
        return document(global, config.client_only, form).await;
    }
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
    let git_version = server["gitVersion"].as_str().unwrap_or_default();
    writeln!(out, "Server Version: {git_version} ({})", cluster.server).map_err(Error::Output)?;
    Ok(EXIT_OK)
}

/// `-o json|yaml`: the document is printed whole, without `serverVersion` when the server could
/// not be asked (the error follows on stderr, as kubectl does).
async fn document(global: &GlobalConfig, client_only: bool, form: VersionOutput) -> Result<u8> {
    let mut doc = json!({
        "clientVersion": {
            "gitVersion": format!("v{}", env!("CARGO_PKG_VERSION")),
            "gitCommit": env!("KUBECTL_INFORMER_COMMIT"),
        }
    });
    let server = match client_only {
        true => Ok(None),
        false => match Cluster::connect(&global.selection, global.transport).await {
            Ok(cluster) => cluster
                .server_version()
                .await
                .map(Some)
                .map_err(Error::from),
            Err(e) => Err(Error::from(e)),
        },
    };
    if let Ok(Some(server)) = &server {
        doc["serverVersion"] = server.clone();
    }
    let text = match form {
        VersionOutput::Json => format!("{}\n", pretty(&doc)),
        VersionOutput::Yaml => to_yaml(&doc),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(Error::Output)?;
    server.map(|_| EXIT_OK)
}

/// kubectl's `-o json` indentation: two spaces.
fn pretty(doc: &Value) -> String {
    serde_json::to_string_pretty(doc).unwrap_or_default()
}
