//! What the checks are made of: LISTs and WATCHes that note what they sent and got as evidence,
//! the writer of conform's own objects, and the verdicts.

use super::Skip;
use crate::cluster::resource_version::ResourceVersion;
use crate::cluster::{ApiResource, Cluster, ClusterError, Operation};
use crate::informer::listwatch::{
    ListOptions, ListPage, ListWatch, StreamError, WatchEvent, WatchOptions, WatchStream,
};
use crate::informer::object::RawObject;
use crate::template::Template;
use std::time::Duration;
use tokio::time::Instant;

/// How a check ends early: `?` on a step turns its failure into the check's verdict.
#[derive(Debug)]
pub enum Verdict {
    Pass(String),
    Fail(String),
    Skip(Skip, String),
}

impl Verdict {
    /// What it says, whichever it is.
    pub fn into_text(self) -> String {
        match self {
            Verdict::Pass(text) | Verdict::Fail(text) | Verdict::Skip(_, text) => text,
        }
    }
}

/// A request that failed: forbidden or unauthorized means the check cannot run here (SKIP,
/// saying which verb was refused to whom); anything else is the server breaking the contract
/// (FAIL).
pub fn refused(e: ClusterError) -> Verdict {
    match &e {
        ClusterError::Forbidden(f) => Verdict::Skip(
            Skip::Forbidden,
            format!(
                "{verb} forbidden for user \"{user}\": {resource}{scope} (check with `kubectl \
                 auth can-i {verb} {resource}{can_i}`)",
                verb = f.verb,
                user = f.user,
                resource = f.resource,
                scope = f.scope,
                can_i = f.can_i_scope,
            ),
        ),
        _ if e.status_code() == Some(401) => Verdict::Skip(Skip::Forbidden, e.to_string()),
        _ => Verdict::Fail(e.to_string()),
    }
}

/// A resourceVersion as the integer KEP-5504 makes it.
pub fn rv_number(rv: &str) -> Result<ResourceVersion, Verdict> {
    ResourceVersion::parse(rv)
        .map_err(|e| Verdict::Skip(Skip::Inconclusive, format!("{e} (see watch-rv-order)")))
}

/// The evidence of one check: a line per request and per answer.
#[derive(Default)]
pub struct Evidence {
    pub lines: Vec<String>,
    /// What the check waited for, and how long.
    pub waited: Option<Duration>,
}

impl Evidence {
    pub fn note(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    /// One LIST page, noted.
    pub async fn list(&mut self, lw: &ListWatch, opts: &ListOptions) -> Result<ListPage, Verdict> {
        let url = lw.list_url(opts);
        match lw.list_page(opts).await {
            Ok(page) => {
                self.note(format!("GET {url} -> {}", describe_page(&page)));
                Ok(page)
            }
            Err(e) => {
                self.note(format!("GET {url} -> {e}"));
                Err(refused(e))
            }
        }
    }

    /// Every page of a LIST from `opts` (at most 500 objects each), as one.
    pub async fn list_all(
        &mut self,
        lw: &ListWatch,
        mut opts: ListOptions,
    ) -> Result<ListPage, Verdict> {
        opts.limit = Some(500);
        let mut all = self.list(lw, &opts).await?;
        while let Some(token) = all.continue_token.take() {
            opts.continue_token = Some(token);
            let page = self.list(lw, &opts).await?;
            all.items.extend(page.items);
            all.continue_token = page.continue_token;
        }
        Ok(all)
    }

    /// Opens a WATCH, noted.
    pub async fn watch(
        &mut self,
        lw: &ListWatch,
        opts: &WatchOptions,
    ) -> Result<Watch, ClusterError> {
        let url = lw.watch_url(opts);
        let opened = Instant::now();
        match lw.watch(opts).await {
            Ok(stream) => {
                self.note(format!("GET {url} -> 200, streaming"));
                Ok(Watch { stream, opened })
            }
            Err(e) => {
                self.note(format!("GET {url} -> {e}"));
                Err(e)
            }
        }
    }
}

/// A page as evidence: `RV 1870, 3 items, continue`.
pub fn describe_page(page: &ListPage) -> String {
    let more = if page.continue_token.is_some() {
        ", continue"
    } else {
        ""
    };
    format!(
        "RV {}, {}{more}",
        page.resource_version,
        crate::format::count(page.items.len() as u64, "item")
    )
}

/// An event as evidence: `MODIFIED conform-1 RV 1871`.
pub fn describe_event(event: &WatchEvent) -> String {
    match event {
        WatchEvent::Added(o) => format!("ADDED {} RV {}", o.name(), o.resource_version()),
        WatchEvent::Modified(o) => format!("MODIFIED {} RV {}", o.name(), o.resource_version()),
        WatchEvent::Deleted(o) => format!("DELETED {} RV {}", o.name(), o.resource_version()),
        WatchEvent::Bookmark {
            resource_version,
            initial_events_end,
        } => {
            let end = if *initial_events_end {
                " (k8s.io/initial-events-end)"
            } else {
                ""
            };
            format!("BOOKMARK RV {resource_version}{end}")
        }
        WatchEvent::Error(status) => format!(
            "ERROR {} {}: {}",
            status.code, status.reason, status.message
        ),
    }
}

/// The object of an ADDED, MODIFIED or DELETED.
pub fn object_of(event: &WatchEvent) -> Option<&RawObject> {
    match event {
        WatchEvent::Added(o) | WatchEvent::Modified(o) | WatchEvent::Deleted(o) => Some(o),
        _ => None,
    }
}

/// An open watch and when it opened.
pub struct Watch {
    stream: WatchStream,
    pub opened: Instant,
}

/// What reading a watch until a deadline gave.
pub enum Next {
    Event(WatchEvent),
    /// The server ended the stream cleanly.
    Closed,
    /// The connection failed, or a line could not be decoded.
    Broken(StreamError),
    /// Nothing came before the deadline.
    Quiet,
}

impl Watch {
    /// The next event, unless the deadline comes first.
    pub async fn next_until(&mut self, deadline: Instant) -> Next {
        match tokio::time::timeout_at(deadline, self.stream.next()).await {
            Err(_) => Next::Quiet,
            Ok(Ok(Some(event))) => Next::Event(event),
            Ok(Ok(None)) => Next::Closed,
            Ok(Err(e)) => Next::Broken(e),
        }
    }

    /// Reads until `wanted` accepts an event (noted) or the deadline, the end of the stream or
    /// an error comes first; every event before it is noted and kept.
    pub async fn until(
        &mut self,
        ev: &mut Evidence,
        deadline: Instant,
        mut wanted: impl FnMut(&WatchEvent) -> bool,
    ) -> (Option<WatchEvent>, Vec<WatchEvent>, Next) {
        let mut before = Vec::new();
        loop {
            match self.next_until(deadline).await {
                Next::Event(event) => {
                    ev.note(format!(
                        "{}: {}",
                        seconds(self.opened.elapsed()),
                        describe_event(&event)
                    ));
                    if wanted(&event) {
                        return (Some(event), before, Next::Quiet);
                    }
                    before.push(event);
                }
                other => {
                    match &other {
                        Next::Closed => ev.note(format!(
                            "{}: the server ended the watch",
                            seconds(self.opened.elapsed())
                        )),
                        Next::Broken(e) => {
                            ev.note(format!("{}: {e}", seconds(self.opened.elapsed())))
                        }
                        _ => {}
                    }
                    return (None, before, other);
                }
            }
        }
    }
}

/// A duration in evidence and details, as every command writes one for people.
pub fn seconds(d: Duration) -> String {
    crate::format::human(d)
}

/// Writes conform's own objects, from a template, in the scratch namespace (or labelled, in a
/// namespace the user named).
pub struct Writer {
    pub cluster: Cluster,
    pub resource: ApiResource,
    pub namespace: String,
    pub template: Template,
    /// The objects conform created that exist now.
    pub names: Vec<String>,
    /// In a namespace the user named: the label each object conform creates carries, whose
    /// value (the run, `conform-x7k2q9`) also starts its name.
    pub run_label: Option<(String, String)>,
    /// Writes made: each update sets an annotation to the next one.
    seq: u64,
}

/// The annotation each update of conform's objects sets.
const SEQ_ANNOTATION: &str = "conform.kubectl-informer.io/seq";

impl Writer {
    pub fn new(
        cluster: Cluster,
        resource: ApiResource,
        namespace: String,
        template: Template,
    ) -> Self {
        Writer {
            cluster,
            resource,
            namespace,
            template,
            names: Vec::new(),
            run_label: None,
            seq: 0,
        }
    }

    /// The name of conform's object `base` (`1`, `order`): `conform-1`, or in a namespace the
    /// user named, the run's `conform-x7k2q9-1`.
    pub fn name(&self, base: &str) -> String {
        let run = self.run_label.as_ref().map(|(_, run)| run.as_str());
        format!("{}-{base}", run.unwrap_or("conform"))
    }

    fn object_path(&self, name: &str) -> String {
        format!(
            "{}/{name}",
            self.resource.collection_path(Some(&self.namespace))
        )
    }

    /// Sends one write and returns the object's new RV, noting both.
    async fn write(
        &self,
        ev: &mut Evidence,
        verb: &'static str,
        (method, path, content_type): (http::Method, String, &str),
        body: Vec<u8>,
    ) -> Result<String, Verdict> {
        let op = Operation::new(verb, self.resource.qualified_name(), Some(&self.namespace));
        let line = format!("{method} {path}");
        match self
            .cluster
            .send(method, &path, content_type, body, &op)
            .await
        {
            Ok(answer) => {
                let rv = serde_json::from_slice::<serde_json::Value>(&answer)
                    .ok()
                    .and_then(|o| {
                        o["metadata"]["resourceVersion"]
                            .as_str()
                            .map(str::to_string)
                    })
                    .unwrap_or_default();
                ev.note(format!("{line} -> RV {rv}"));
                Ok(rv)
            }
            Err(e) => {
                ev.note(format!("{line} -> {e}"));
                Err(refused(e))
            }
        }
    }

    /// Creates `name` from the template; its RV.
    pub async fn create(&mut self, ev: &mut Evidence, name: &str) -> Result<String, Verdict> {
        let mut object = self.template.instance(name, &[(SEQ_ANNOTATION, "0")]);
        if let Some((key, run)) = &self.run_label {
            object["metadata"]["labels"][key] = serde_json::Value::String(run.clone());
        }
        let path = self.resource.collection_path(Some(&self.namespace));
        let rv = self
            .write(
                ev,
                "create",
                (http::Method::POST, path, "application/json"),
                object.to_string().into_bytes(),
            )
            .await?;
        self.names.push(name.to_string());
        Ok(rv)
    }

    /// Updates `name` (a merge patch of its annotation); its new RV.
    pub async fn touch(&mut self, ev: &mut Evidence, name: &str) -> Result<String, Verdict> {
        self.seq += 1;
        let patch = serde_json::json!({"metadata": {"annotations": {SEQ_ANNOTATION: self.seq.to_string()}}});
        self.write(
            ev,
            "patch",
            (
                http::Method::PATCH,
                self.object_path(name),
                "application/merge-patch+json",
            ),
            patch.to_string().into_bytes(),
        )
        .await
    }

    /// Deletes `name`; the RV of the deletion as the answer gives it (the object's last RV for
    /// most resources: the server answers with the object or a Status).
    pub async fn delete(&mut self, ev: &mut Evidence, name: &str) -> Result<String, Verdict> {
        let rv = self
            .write(
                ev,
                "delete",
                (
                    http::Method::DELETE,
                    self.object_path(name),
                    "application/json",
                ),
                // At once, without a grace period (a Pod would linger, Terminating).
                br#"{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}"#.to_vec(),
            )
            .await?;
        self.names.retain(|n| n != name);
        Ok(rv)
    }

    /// The first object conform made (each check updates one of the first three).
    pub fn object(&self, i: usize) -> String {
        self.names
            .get(i % self.names.len().max(1))
            .cloned()
            .unwrap_or_default()
    }
}

/// Waits that have a reason to be this long: a write's event through a slow server or proxy.
pub const EVENT_LIMIT: Duration = Duration::from_secs(30);
