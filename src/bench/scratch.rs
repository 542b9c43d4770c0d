//! Where bench makes its load (and conform its writes): a scratch namespace, named by the
//! command (so that a Ctrl-C during its create still knows what to delete), labelled, and always
//! deleted: [`around`] runs the rest of the run inside it and deletes it however that ends (done,
//! failed, or Ctrl-C); or a namespace the user named, for someone whose rights end at it, where
//! every object the run makes carries the run's label and is deleted at the end
//! ([`labelled_in`]), and nothing else is touched.

use crate::cluster::{ApiResource, Cluster, ClusterError, Operation};
use crate::informer::listwatch::{ListOptions, ListWatch};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The label key on the scratch namespaces, whose value names the command
/// (`kubectl-informer-bench`): find leftovers with `-l`.
const SCRATCH_LABEL_KEY: &str = "app.kubernetes.io/managed-by";

/// How long bench tries to delete its scratch namespace before it says how to do it by hand.
const DELETE_LIMIT: Duration = Duration::from_secs(30);

/// A namespace a command created and must delete.
#[derive(Debug, Clone)]
pub struct ScratchNamespace {
    pub name: String,
    /// `kubectl-informer-bench`: the name's prefix and the label's value.
    owner: String,
}

impl ScratchNamespace {
    /// `kubectl-informer-COMMAND-xxxxxx`, chosen here rather than by the server (generateName),
    /// so that a Ctrl-C during the create still knows which namespace to delete.
    pub fn new_name(command: &str) -> ScratchNamespace {
        let owner = format!("kubectl-informer-{command}");
        ScratchNamespace {
            name: format!("{owner}-{}", suffix()),
            owner,
        }
    }

    /// Namespace `name`, made by `command` (its label says so).
    pub fn named(name: String, command: &str) -> ScratchNamespace {
        ScratchNamespace {
            name,
            owner: format!("kubectl-informer-{command}"),
        }
    }

    /// The label the namespace carries: `app.kubernetes.io/managed-by=kubectl-informer-bench`.
    pub fn label(&self) -> String {
        format!("{SCRATCH_LABEL_KEY}={}", self.owner)
    }

    /// Creates the namespace.
    pub async fn create(&self, cluster: &Cluster) -> Result<(), ClusterError> {
        let body = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": self.name, "labels": {SCRATCH_LABEL_KEY: self.owner}},
        });
        let op = Operation::new("create", "namespaces", None);
        cluster
            .send(
                http::Method::POST,
                "/api/v1/namespaces",
                "application/json",
                body.to_string().into_bytes(),
                &op,
            )
            .await
            .map(|_| ())
    }

    /// Deletes the namespace (the server removes its objects in the background).
    pub async fn delete(&self, cluster: &Cluster) -> Result<(), ClusterError> {
        let op = Operation::new("delete", "namespaces", None);
        cluster
            .send(
                http::Method::DELETE,
                &format!("/api/v1/namespaces/{}", self.name),
                "application/json",
                Vec::new(),
                &op,
            )
            .await
            .map(|_| ())
    }
}

/// Six random characters that read as no word, to tell runs apart.
fn suffix() -> String {
    let mut rng = crate::rng::Rng::from_clock();
    let letters = crate::rng::NAME_SUFFIX_LETTERS.as_bytes();
    (0..6)
        .map(|_| letters[rng.below(letters.len())] as char)
        .collect()
}

/// The label on every object a command makes in a namespace the user named (`-n`): its value
/// names the run, so that the run deletes exactly its own objects and its informer sees only
/// them.
pub const RUN_LABEL_KEY: &str = "kubectl-informer/run";

/// A run's objects in an existing namespace: named `RUN-...` and labelled
/// `kubectl-informer/run=RUN`, where RUN is `bench-x7k2q9`.
#[derive(Debug, Clone)]
pub struct Labelled {
    pub namespace: String,
    /// `bench-x7k2q9`: the label's value and the objects' name prefix.
    pub run: String,
    /// Shared by every clone: whether the run's first create is about to be sent (until then
    /// there is nothing of the run's to delete, and nothing is said of deleting it), and the
    /// line that says where the writes go, said just before the first.
    writes: Arc<Writes>,
}

#[derive(Debug, Default)]
struct Writes {
    begun: AtomicBool,
    announcement: Mutex<Option<String>>,
}

impl Labelled {
    pub fn new(command: &str, namespace: &str) -> Labelled {
        Labelled {
            namespace: namespace.to_string(),
            run: format!("{command}-{}", suffix()),
            writes: Arc::default(),
        }
    }

    /// Called before the run sends its first create: says (once) where the writes go, and
    /// makes the run's end delete what carries its label.
    pub fn begin_writing(&self, notice: &(dyn Fn(String) + Sync)) {
        if !self.writes.begun.swap(true, Ordering::SeqCst) {
            let announcement = self
                .writes
                .announcement
                .lock()
                .ok()
                .and_then(|mut a| a.take());
            if let Some(line) = announcement {
                notice(line);
            }
        }
    }

    /// Whether any create may have reached the server.
    fn wrote(&self) -> bool {
        self.writes.begun.load(Ordering::SeqCst)
    }

    /// `kubectl-informer/run=bench-x7k2q9`.
    pub fn selector(&self) -> String {
        format!("{RUN_LABEL_KEY}={}", self.run)
    }
}

/// Runs `body` with the run's objects of `resource` in `labelled`'s namespace (which exists),
/// then deletes every object of `resource` that carries the run's label, whatever happened:
/// `None` when `interrupt` came first. Nothing else in the namespace is touched. Where the
/// writes go is said just before the first ([`Labelled::begin_writing`]); when the body never
/// began to write, there is nothing to delete and nothing is said at all: the body's own error
/// is what happened.
pub async fn labelled_in<T, F: Future<Output = T>>(
    cluster: &Cluster,
    resource: &ApiResource,
    labelled: Labelled,
    what: &str,
    interrupt: &mut (impl Future + Unpin),
    notice: &(dyn Fn(String) + Sync),
    body: impl FnOnce(Labelled) -> F,
) -> Option<T> {
    // Said before the first write (`begin_writing`), not before a refusal that comes first.
    let announcement = format!(
        "writing to context \"{}\" (server {}, {}): {what} in namespace {}, each \
         object labelled {} and deleted at the end",
        cluster.context,
        cluster.server,
        cluster.acting(),
        labelled.namespace,
        labelled.selector()
    );
    if let Ok(mut slot) = labelled.writes.announcement.lock() {
        *slot = Some(announcement);
    }
    let result = tokio::select! {
        r = body(labelled.clone()) => Some(r),
        _ = &mut *interrupt => None,
    };
    if labelled.wrote() {
        remove_labelled(cluster, resource, &labelled, notice).await;
    }
    result
}

/// Deletes each object of `resource` labelled with the run, within `DELETE_LIMIT`; a second
/// Ctrl-C (or SIGTERM), a failure or the limit leave a line that says how to do it by hand.
async fn remove_labelled(
    cluster: &Cluster,
    resource: &ApiResource,
    labelled: &Labelled,
    notice: &(dyn Fn(String) + Sync),
) {
    let by_hand = format!(
        "delete them with `kubectl delete {} -n {} -l {}`",
        resource.qualified_name(),
        labelled.namespace,
        labelled.selector()
    );
    let removal = async {
        let lw = ListWatch {
            cluster: cluster.clone(),
            resource: resource.clone(),
            namespace: Some(labelled.namespace.clone()),
            label_selector: Some(labelled.selector()),
            field_selector: None,
            metadata_only: true,
            encoding: crate::informer::object::Encoding::Json,
            keep: crate::informer::object::Keep::Digest,
        };
        let mut names = Vec::new();
        let mut opts = ListOptions::default();
        loop {
            let page = lw.list_page(&opts).await?;
            names.extend(page.items.iter().map(|o| o.name().to_string()));
            match page.continue_token {
                Some(token) => opts.continue_token = Some(token),
                None => break,
            }
        }
        let collection = resource.collection_path(Some(&labelled.namespace));
        let op = Operation::new(
            "delete",
            resource.qualified_name(),
            Some(&labelled.namespace),
        );
        for name in &names {
            let deleted = cluster
                .send(
                    http::Method::DELETE,
                    &format!("{collection}/{name}"),
                    "application/json",
                    Vec::new(),
                    &op,
                )
                .await;
            match deleted {
                Ok(_) | Err(ClusterError::Api { code: 404, .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok::<usize, ClusterError>(names.len())
    };
    let result = tokio::select! {
        r = tokio::time::timeout(DELETE_LIMIT, removal) => r,
        _ = crate::stop::requested() => {
            notice(format!("interrupted while deleting the objects: {by_hand}"));
            return;
        }
    };
    match result {
        Ok(Ok(n)) => notice(format!(
            "deleted {} labelled {} in namespace {}",
            crate::format::count(n as u64, "object"),
            labelled.selector(),
            labelled.namespace
        )),
        Ok(Err(e)) => notice(format!("could not delete the objects: {e}: {by_hand}")),
        Err(_) => notice(format!(
            "the objects were not deleted within {}s: {by_hand}",
            DELETE_LIMIT.as_secs()
        )),
    }
}

/// Creates a scratch namespace for `command` (`bench`) to write `what` in (`the load`), runs
/// `body` in it, and deletes it whatever happens: `Ok(None)` when `interrupt` came first (during
/// the create or the run), `Err` when the create failed.
pub async fn around<T, F: Future<Output = T>>(
    cluster: &Cluster,
    (command, what): (&str, &str),
    interrupt: &mut (impl Future + Unpin),
    notice: &(dyn Fn(String) + Sync),
    body: impl FnOnce(String) -> F,
) -> Result<Option<T>, ClusterError> {
    let ns = ScratchNamespace::new_name(command);
    // Before the first write, where it goes: the current context may not be the cluster the
    // user had in mind.
    notice(format!(
        "writing to context \"{}\" (server {}, {}): creating namespace {} for {what}",
        cluster.context,
        cluster.server,
        cluster.acting(),
        ns.name
    ));
    let created = tokio::select! {
        r = ns.create(cluster) => Some(r),
        _ = &mut *interrupt => None,
    };
    match created {
        Some(Ok(())) => {}
        Some(Err(e)) => return Err(e),
        None => {
            // The create may have reached the server: the name is ours, so deleting it is safe
            // either way.
            remove(&ns, cluster, notice, true).await;
            return Ok(None);
        }
    }
    notice(format!(
        "created namespace {} (label {}); it is deleted at the end",
        ns.name,
        ns.label()
    ));
    let result = tokio::select! {
        r = body(ns.name.clone()) => Some(r),
        _ = &mut *interrupt => None,
    };
    remove(&ns, cluster, notice, false).await;
    Ok(result)
}

/// Deletes the scratch namespace within `DELETE_LIMIT`; a second Ctrl-C (or SIGTERM), a failure or the limit
/// leave a line that says how to delete it by hand. With `quiet_if_absent` (a Ctrl-C came during
/// its create, which may not have happened) a 404 says nothing.
async fn remove(
    ns: &ScratchNamespace,
    cluster: &Cluster,
    notice: &(dyn Fn(String) + Sync),
    quiet_if_absent: bool,
) {
    let by_hand = format!("delete it with `kubectl delete namespace {}`", ns.name);
    let result = tokio::select! {
        r = tokio::time::timeout(DELETE_LIMIT, ns.delete(cluster)) => r,
        _ = crate::stop::requested() => {
            notice(format!("interrupted while deleting namespace {}: {by_hand}", ns.name));
            return;
        }
    };
    match result {
        Ok(Ok(())) => notice(format!("deleted namespace {}", ns.name)),
        Ok(Err(ClusterError::Api { code: 404, .. })) if quiet_if_absent => {}
        Ok(Err(e)) => notice(format!(
            "could not delete namespace {}: {e}: {by_hand}",
            ns.name
        )),
        Err(_) => notice(format!(
            "namespace {} was not deleted within {}s: {by_hand}",
            ns.name,
            DELETE_LIMIT.as_secs()
        )),
    }
}
