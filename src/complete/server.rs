//! What completion asks the server, connected as the real command would be with the global
//! flags typed (`--kubeconfig`, `--context`, `-n`, `-A`, `--server`, `--as`, ...): resource
//! types, namespaces, object names. Each answer comes within [`LIMIT`] in all, or is empty, as
//! is any failure: a shell's <TAB> neither hangs nor shows an error.

use crate::cli::GlobalArgs;
use crate::cluster::{self, Cluster, Encoding, KubeconfigSelection, Transport};
use crate::informer::listwatch::{ListOptions, ListWatch};
use crate::informer::object::Keep;
use std::future::Future;
use std::time::Duration;

/// How long one completion may wait on the server, from connecting to the last page (kubectl's
/// own completion waits as long as a request may take; this is well under a person's patience).
pub const LIMIT: Duration = Duration::from_secs(5);

/// Objects per LIST page, as kubectl's `get` asks for them.
const PAGE: u32 = 500;

/// The global flags typed before the cursor, checked as a real command checks them: where it
/// connects, as whom, and in which namespaces it watches.
#[derive(Debug, Clone)]
pub struct Connection {
    pub selection: KubeconfigSelection,
    pub transport: Transport,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
}

impl Connection {
    /// `None` when the flags are not what a command would accept.
    pub fn from_args(args: &GlobalArgs) -> Option<Self> {
        Some(Connection {
            selection: args.selection().ok()?,
            transport: args.transport(),
            namespace: args.checked_namespace().ok()?,
            all_namespaces: args.all_namespaces,
        })
    }
}

/// `answer`, or nothing once [`LIMIT`] has passed.
async fn within_limit(answer: impl Future<Output = Option<Vec<String>>>) -> Vec<String> {
    tokio::time::timeout(LIMIT, answer)
        .await
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Connects as the real command would with the same global flags, each request limited too.
async fn connect(global: &Connection) -> Option<Cluster> {
    let mut transport = global.transport;
    let limited = |t: Option<Duration>| Some(t.map_or(LIMIT, |t| t.min(LIMIT)));
    transport.request_timeout = limited(transport.request_timeout);
    transport.response_headers = limited(transport.response_headers);
    Cluster::connect(&global.selection, transport).await.ok()
}

/// Resource types that can be listed and watched, named as `kubectl api-resources -o name`.
pub async fn resource_types(global: Option<Connection>) -> Vec<String> {
    within_limit(async {
        let cluster = connect(&global?).await?;
        let resources = cluster.discover().await.ok()?;
        let mut names: Vec<String> = resources
            .iter()
            .filter(|r| r.preferred && r.supports("list") && r.supports("watch"))
            .map(|r| r.qualified_name())
            .collect();
        names.sort();
        names.dedup();
        Some(names)
    })
    .await
}

/// The namespaces' names.
pub async fn namespaces(global: Option<Connection>) -> Vec<String> {
    within_limit(async {
        let global = global?;
        let cluster = connect(&global).await?;
        let resources = cluster.discover().await.ok()?;
        let namespaces = cluster::resolve("namespaces", &resources).ok()?;
        list_names(cluster, namespaces.clone(), None).await
    })
    .await
}

/// The names of the objects of `resource` (as kubectl names it: `cm`, `deployments.apps`) in
/// the namespace the command would watch: `-n`'s, else the context's; with `-A`, in every
/// namespace (each name once), where the command would watch them all.
pub async fn object_names(global: Option<Connection>, resource: &str) -> Vec<String> {
    within_limit(async {
        let global = global?;
        let cluster = connect(&global).await?;
        let resources = cluster.discover().await.ok()?;
        let resource = cluster::resolve(resource, &resources).ok()?.clone();
        let namespace = cluster.scope_of(
            &resource,
            global.namespace.as_deref(),
            global.all_namespaces,
        );
        list_names(cluster, resource, namespace).await
    })
    .await
}

/// Every object's name, page by page (metadata only), sorted, each once.
async fn list_names(
    cluster: Cluster,
    resource: cluster::ApiResource,
    namespace: Option<String>,
) -> Option<Vec<String>> {
    if !resource.supports("list") {
        return None;
    }
    let lw = ListWatch {
        cluster,
        resource,
        namespace,
        label_selector: None,
        field_selector: None,
        metadata_only: true,
        encoding: Encoding::Json,
        keep: Keep::Digest,
    };
    let mut names = Vec::new();
    let mut opts = ListOptions {
        limit: Some(PAGE),
        ..ListOptions::default()
    };
    loop {
        let page = lw.list_page(&opts).await.ok()?;
        names.extend(page.items.iter().map(|o| o.name().to_string()));
        match page.continue_token.filter(|t| !t.is_empty()) {
            Some(token) => opts.continue_token = Some(token),
            None => break,
        }
    }
    names.sort();
    names.dedup();
    Some(names)
}
