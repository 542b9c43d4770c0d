//! Finds and loads the kubeconfig the way kubectl does, and turns it into a client configuration.
//!
//! Precedence: `--kubeconfig` > `$KUBECONFIG` (a colon-separated list, merged, missing files
//! skipped) > `~/.kube/config` > in-cluster service account.

use super::innermost;
use super::outbound_proxy::{self as proxy, Proxy};
use super::ClusterError;
use kube::config::{
    Context, KubeConfigOptions, Kubeconfig, NamedAuthInfo, NamedCluster, NamedContext,
};
use std::path::{Path, PathBuf};

mod flags;

/// Which kubeconfig, which parts of it, and which of its values the user overrode with flags.
#[derive(Debug, Clone, Default)]
pub struct KubeconfigSelection {
    pub path: Option<PathBuf>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    pub overrides: Overrides,
}

/// kubectl's connection flags (`--server`, `--token`, `--as`, ...): each beats what the
/// kubeconfig says for the selected cluster or user, with clientcmd's rules.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `-s/--server`, with a scheme (`https://` is added to a bare `host:port`).
    pub server: Option<String>,
    pub certificate_authority: Option<PathBuf>,
    pub insecure_skip_tls_verify: bool,
    pub tls_server_name: Option<String>,
    /// `--disable-compression`: true sets the cluster's `disable-compression`.
    pub disable_compression: bool,
    pub client_certificate: Option<PathBuf>,
    pub client_key: Option<PathBuf>,
    /// `--token`: a credential, never printed (see the `Debug` impl).
    pub token: Option<String>,
    /// `--as`, `--as-group`, `--as-uid`.
    pub impersonate: Option<String>,
    pub impersonate_groups: Vec<String>,
    pub impersonate_uid: Option<String>,
}

impl std::fmt::Debug for Overrides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overrides")
            .field("server", &self.server)
            .field("certificate_authority", &self.certificate_authority)
            .field("insecure_skip_tls_verify", &self.insecure_skip_tls_verify)
            .field("tls_server_name", &self.tls_server_name)
            .field("disable_compression", &self.disable_compression)
            .field("client_certificate", &self.client_certificate)
            .field("client_key", &self.client_key)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("impersonate", &self.impersonate)
            .field("impersonate_groups", &self.impersonate_groups)
            .field("impersonate_uid", &self.impersonate_uid)
            .finish()
    }
}

impl Overrides {
    /// Writes the flags' values into the kubeconfig's entries for `cluster` and `user`
    /// (creating them when the kubeconfig has none), as clientcmd's DirectClientConfig does: a
    /// CA or --insecure-skip-tls-verify flag replaces the file's CA settings together, --server
    /// also resets the file's tls-server-name, and --token replaces every other way the file
    /// says to obtain a token (token file, exec plugin, auth provider).
    fn apply(&self, kubeconfig: &mut Kubeconfig, cluster: &str, user: &str) {
        let entry = match kubeconfig
            .clusters
            .iter_mut()
            .position(|c| c.name == cluster)
        {
            Some(i) => &mut kubeconfig.clusters[i],
            None => {
                kubeconfig.clusters.push(NamedCluster {
                    name: cluster.to_string(),
                    ..Default::default()
                });
                kubeconfig.clusters.last_mut().expect("just pushed")
            }
        };
        let c = entry.cluster.get_or_insert_with(Default::default);
        if let Some(server) = &self.server {
            c.server = Some(server.clone());
        }
        if self.insecure_skip_tls_verify || self.certificate_authority.is_some() {
            c.insecure_skip_tls_verify = Some(self.insecure_skip_tls_verify);
            c.certificate_authority = self
                .certificate_authority
                .as_ref()
                .map(|p| p.display().to_string());
            c.certificate_authority_data = None;
        }
        if self.tls_server_name.is_some() || self.server.is_some() {
            c.tls_server_name = self.tls_server_name.clone();
        }
        if self.disable_compression {
            c.disable_compression = Some(true);
        }
        let entry = match kubeconfig
            .auth_infos
            .iter_mut()
            .position(|u| u.name == user)
        {
            Some(i) => &mut kubeconfig.auth_infos[i],
            None => {
                kubeconfig.auth_infos.push(NamedAuthInfo {
                    name: user.to_string(),
                    ..Default::default()
                });
                kubeconfig.auth_infos.last_mut().expect("just pushed")
            }
        };
        let u = entry.auth_info.get_or_insert_with(Default::default);
        if let Some(token) = &self.token {
            u.token = Some(token.clone().into());
            u.token_file = None;
            u.exec = None;
            u.auth_provider = None;
        }
        if let Some(cert) = &self.client_certificate {
            u.client_certificate = Some(cert.display().to_string());
            u.client_certificate_data = None;
        }
        if let Some(key) = &self.client_key {
            u.client_key = Some(key.display().to_string());
            u.client_key_data = None;
        }
        if self.impersonate.is_some() {
            u.impersonate = self.impersonate.clone();
            u.impersonate_groups = Some(self.impersonate_groups.clone()).filter(|g| !g.is_empty());
            u.impersonate_uid = self.impersonate_uid.clone();
        }
    }
}

/// The name of the context, cluster and user made from flags when no kubeconfig names them.
const FLAGS_CONTEXT: &str = "(flags)";

/// A client configuration plus the names that error messages refer to.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub config: kube::Config,
    /// The context in use, or `in-cluster`.
    pub context: String,
    /// The user name as the kubeconfig calls it (not a credential).
    pub user: String,
    /// The proxy the connections go through (client-go's rules: `outbound_proxy::choose`).
    pub proxy: Option<Proxy>,
}

/// Where the kubeconfig comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Files(Vec<PathBuf>),
    InCluster,
}

impl Source {
    fn describe(&self) -> String {
        match self {
            Source::Files(paths) => paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(":"),
            Source::InCluster => "in-cluster".to_string(),
        }
    }
}

/// Decides where the kubeconfig comes from, without reading any file contents.
///
/// `kubeconfig_env` is `$KUBECONFIG`, `home` the home directory, `in_cluster` whether the
/// in-cluster environment variables are set; passed in so the decision is testable.
pub fn find_source(
    explicit: Option<&Path>,
    kubeconfig_env: Option<&str>,
    home: Option<&Path>,
    in_cluster: bool,
) -> Result<Source, ClusterError> {
    if let Some(path) = explicit {
        if !path.exists() {
            return Err(ClusterError::KubeconfigMissing {
                path: path.to_path_buf(),
            });
        }
        return Ok(Source::Files(vec![path.to_path_buf()]));
    }
    let mut searched = Vec::new();
    if let Some(list) = kubeconfig_env.filter(|v| !v.is_empty()) {
        // kubectl skips files of the list that do not exist.
        let listed: Vec<PathBuf> = std::env::split_paths(list)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        let existing: Vec<PathBuf> = listed.iter().filter(|p| p.exists()).cloned().collect();
        if !existing.is_empty() {
            return Ok(Source::Files(existing));
        }
        searched.push(format!("KUBECONFIG={list}"));
    } else if let Some(home) = home {
        let default = home.join(".kube").join("config");
        if default.exists() {
            return Ok(Source::Files(vec![default]));
        }
        searched.push(default.display().to_string());
    }
    if in_cluster {
        return Ok(Source::InCluster);
    }
    Err(ClusterError::NoKubeconfig {
        searched: searched.join(", "),
    })
}

/// Loads the kubeconfig for `selection` from the environment of this process.
pub async fn load(selection: &KubeconfigSelection) -> Result<LoadedConfig, ClusterError> {
    let env = std::env::var("KUBECONFIG").ok();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let in_cluster = std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
        && std::env::var_os("KUBERNETES_SERVICE_PORT").is_some();
    let found = find_source(
        selection.path.as_deref(),
        env.as_deref(),
        home.as_deref(),
        // Like clientcmd, flags that name a server are a configuration of their own: the pod's
        // service account is the fallback only when the user gave none.
        in_cluster && selection.overrides.server.is_none(),
    );
    let source = match found {
        Err(ClusterError::NoKubeconfig { .. }) if selection.overrides.server.is_some() => {
            Source::Files(Vec::new())
        }
        other => other?,
    };
    match source {
        Source::InCluster => {
            let mut config = kube::Config::incluster().map_err(|e| ClusterError::InCluster {
                reason: e.to_string(),
            })?;
            let proxy = proxy::choose(&config.cluster_url, "in-cluster", None, &env_var)
                .map_err(|reason| ClusterError::InCluster { reason })?;
            config.proxy_url = None;
            Ok(LoadedConfig {
                config,
                context: "in-cluster".to_string(),
                user: "service account".to_string(),
                proxy,
            })
        }
        Source::Files(ref paths) => {
            let kubeconfig = read_merged(paths)?;
            from_kubeconfig(kubeconfig, selection, &source.describe()).await
        }
    }
}

/// Reads and merges kubeconfig files in order; the first file to set a value wins.
pub fn read_merged(paths: &[PathBuf]) -> Result<Kubeconfig, ClusterError> {
    let mut merged: Option<Kubeconfig> = None;
    for path in paths {
        // The parser's first line says what and where; the lines after it quote the file,
        // which may hold a token.
        let next = Kubeconfig::read_from(path).map_err(|e| ClusterError::KubeconfigInvalid {
            path: path.display().to_string(),
            reason: innermost(&e).lines().next().unwrap_or_default().to_string(),
        })?;
        // Another kind of manifest (a CRD's) reads as a kubeconfig with nothing in it; kubectl
        // refuses any kind but Config, and so does this.
        if let Some(kind) = next
            .kind
            .as_deref()
            .filter(|k| !k.is_empty() && *k != "Config")
        {
            return Err(ClusterError::KubeconfigUnusable {
                source_desc: path.display().to_string(),
                reason: format!(
                    "it is not a kubeconfig (its kind is {kind}, not Config): {NAME_A_KUBECONFIG}"
                ),
            });
        }
        merged = Some(match merged {
            None => next,
            Some(m) => m.merge(next).map_err(|e| ClusterError::KubeconfigInvalid {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?,
        });
    }
    Ok(merged.unwrap_or_default())
}

/// Checks the selection against a parsed kubeconfig and builds the client configuration.
pub async fn from_kubeconfig(
    kubeconfig: Kubeconfig,
    selection: &KubeconfigSelection,
    source_desc: &str,
) -> Result<LoadedConfig, ClusterError> {
    let mut kubeconfig = kubeconfig;
    let overrides = &selection.overrides;
    let context_name = choose_context(&mut kubeconfig, selection, source_desc)?;
    let (cluster_name, user_name) =
        cluster_and_user(&kubeconfig, selection, &context_name, source_desc)?;
    let mut user_entry = Some(user_name.clone()).filter(|u| !u.is_empty());
    if *overrides != Overrides::default() {
        // A context without a user (or flags alone) still gets an entry for --token and --as.
        let user = user_entry.get_or_insert_with(|| FLAGS_CONTEXT.to_string());
        overrides.apply(&mut kubeconfig, &cluster_name, user);
    }
    // The proxy is chosen here, with client-go's rules (kube would take HTTPS_PROXY without
    // NO_PROXY, and refuses any proxy without its proxy features).
    let proxy_url = kubeconfig
        .clusters
        .iter_mut()
        .find(|c| c.name == cluster_name)
        .and_then(|c| c.cluster.as_mut())
        .and_then(|c| c.proxy_url.take());
    let options = KubeConfigOptions {
        context: Some(context_name.clone()),
        cluster: Some(cluster_name.clone()),
        user: user_entry,
    };
    let unusable = |reason: String| ClusterError::KubeconfigUnusable {
        source_desc: source_desc.to_string(),
        reason,
    };
    let mut config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| unusable(innermost(&e)))?;
    let proxy = proxy::choose(
        &config.cluster_url,
        &cluster_name,
        proxy_url.as_deref(),
        &env_var,
    )
    .map_err(unusable)?;
    config.proxy_url = None;
    Ok(LoadedConfig {
        config,
        context: context_name,
        user: user_name,
        proxy,
    })
}

/// The context to use: `--context`, else the kubeconfig's current-context, else, when flags
/// name a server, a context of the flags' own, added to `kubeconfig`.
fn choose_context(
    kubeconfig: &mut Kubeconfig,
    selection: &KubeconfigSelection,
    source_desc: &str,
) -> Result<String, ClusterError> {
    match selection
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())
    {
        Some(name) if !name.is_empty() => Ok(name),
        // `kubectl --server URL --token T` works with no kubeconfig at all: the flags are the
        // whole configuration, in a context of their own.
        _ if selection.overrides.server.is_some() => {
            add_flags_context(kubeconfig);
            Ok(FLAGS_CONTEXT.to_string())
        }
        _ if kubeconfig.contexts.is_empty()
            && kubeconfig.clusters.is_empty()
            && kubeconfig.auth_infos.is_empty() =>
        {
            Err(ClusterError::KubeconfigUnusable {
                source_desc: source_desc.to_string(),
                reason: format!(
                    "it is not a kubeconfig, or an empty one (it defines no clusters, contexts or \
                     users): {NAME_A_KUBECONFIG}, or give --server with credentials"
                ),
            })
        }
        _ => Err(ClusterError::KubeconfigUnusable {
            source_desc: source_desc.to_string(),
            reason: "it has no current-context: pass --context (see kubectl config get-contexts)"
                .to_string(),
        }),
    }
}

/// What to do about a file that is not a kubeconfig.
const NAME_A_KUBECONFIG: &str =
    "pass a kubeconfig with --kubeconfig (kubectl config view --raw prints the one in use)";

/// Adds the context, cluster and user [`FLAGS_CONTEXT`], empty, for the flags to fill.
fn add_flags_context(kubeconfig: &mut Kubeconfig) {
    kubeconfig.contexts.push(NamedContext {
        name: FLAGS_CONTEXT.to_string(),
        context: Some(Context {
            cluster: FLAGS_CONTEXT.to_string(),
            user: Some(FLAGS_CONTEXT.to_string()),
            ..Default::default()
        }),
        ..Default::default()
    });
    kubeconfig.clusters.push(NamedCluster {
        name: FLAGS_CONTEXT.to_string(),
        ..Default::default()
    });
    kubeconfig.auth_infos.push(NamedAuthInfo {
        name: FLAGS_CONTEXT.to_string(),
        ..Default::default()
    });
}

/// The names of the cluster and the user (empty for none) to use: `--cluster` and `--user`, else
/// the context's; each must be in the kubeconfig, except a cluster that `--server` describes.
fn cluster_and_user(
    kubeconfig: &Kubeconfig,
    selection: &KubeconfigSelection,
    context_name: &str,
    source_desc: &str,
) -> Result<(String, String), ClusterError> {
    let context = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context_name)
        .ok_or_else(|| ClusterError::NotInKubeconfig {
            what: "context",
            name: context_name.to_string(),
            source_desc: source_desc.to_string(),
            hint: available("contexts", kubeconfig.contexts.iter().map(|c| &c.name)),
        })?;
    let ctx = context.context.clone().unwrap_or_default();
    let cluster_name = selection.cluster.clone().unwrap_or(ctx.cluster.clone());
    if !kubeconfig.clusters.iter().any(|c| c.name == cluster_name)
        && selection.overrides.server.is_none()
    {
        return Err(ClusterError::NotInKubeconfig {
            what: "cluster",
            name: cluster_name,
            source_desc: source_desc.to_string(),
            hint: available("clusters", kubeconfig.clusters.iter().map(|c| &c.name)),
        });
    }
    let user_name = selection
        .user
        .clone()
        .or(ctx.user.clone())
        .unwrap_or_default();
    if !user_name.is_empty() && !kubeconfig.auth_infos.iter().any(|u| u.name == user_name) {
        return Err(ClusterError::NotInKubeconfig {
            what: "user",
            name: user_name,
            source_desc: source_desc.to_string(),
            hint: available("users", kubeconfig.auth_infos.iter().map(|u| &u.name)),
        });
    }
    Ok((cluster_name, user_name))
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The context names of a kubeconfig found as kubectl would find it (for completion).
pub fn context_names(explicit: Option<&Path>) -> Vec<String> {
    let env = std::env::var("KUBECONFIG").ok();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    match find_source(explicit, env.as_deref(), home.as_deref(), false) {
        Ok(Source::Files(paths)) => read_merged(&paths)
            .map(|k| k.contexts.into_iter().map(|c| c.name).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn available<'a>(what: &str, names: impl Iterator<Item = &'a String>) -> String {
    let names: Vec<&str> = names.map(String::as_str).collect();
    if names.is_empty() {
        format!("it defines no {what}")
    } else {
        format!(
            "available {what}: {} (see kubectl config get-contexts)",
            names.join(", ")
        )
    }
}

#[cfg(test)]
mod tests;
