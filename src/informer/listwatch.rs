//! The wire protocol of LIST and WATCH for one resource: URLs and query parameters, LIST pages,
//! and the watch stream's JSON lines (or protobuf frames, in `frames`, or CBOR data items, in
//! `items`) decoded into events.

mod frames;
mod items;
mod lines;

use lines::{Lines, Read};

use super::object::{Encoding, RawObject};
use crate::cluster::{cbor, protobuf};
use crate::cluster::{ApiResource, Cluster, ClusterError, Operation};
use futures::{AsyncBufRead, Stream, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::pin::Pin;

/// What a reflector lists and watches, as client-go's `ListerWatcher`: the cluster's
/// [`ListWatch`], or in tests a scripted source run in process on tokio's paused clock.
pub trait ListerWatcher: Send + Sync + 'static {
    /// Fetches one LIST page.
    fn list_page(
        &self,
        opts: &ListOptions,
    ) -> impl std::future::Future<Output = Result<ListPage, ClusterError>> + Send;
    /// Opens a WATCH; errors at open time (401, 403, 410 ...) come back here.
    fn watch(
        &self,
        opts: &WatchOptions,
    ) -> impl std::future::Future<Output = Result<WatchStream, ClusterError>> + Send;
    /// The resource's name as messages give it (`configmaps`, `deployments.apps`).
    fn resource_name(&self) -> String;
}

/// One resource in one scope with its selectors: what a reflector lists and watches.
#[derive(Clone)]
pub struct ListWatch {
    pub cluster: Cluster,
    pub resource: ApiResource,
    /// `None` for all namespaces or a cluster-scoped resource.
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// Ask for `PartialObjectMetadata` instead of whole objects (always in JSON).
    pub metadata_only: bool,
    /// The encoding asked for: with `Protobuf`, protobuf where the server offers it (built-in
    /// types) and JSON where it does not (custom resources); objects then have no JSON text.
    pub encoding: Encoding,
}

/// A LIST page's body as it arrives: JSON, collected whole (serde reads a document), or
/// protobuf, whose items are made into objects as soon as each is in, so that neither the
/// whole body nor its items' bytes are ever held.
enum PageBody<'a> {
    Json(Vec<u8>),
    /// CBOR, collected whole: a LIST is one data item.
    Cbor(Vec<u8>),
    Protobuf {
        reader: protobuf::ListReader,
        type_meta: (&'a str, &'a str),
        items: Vec<RawObject>,
    },
}

impl crate::cluster::Sink for PageBody<'_> {
    fn push(&mut self, piece: &[u8]) -> Result<(), String> {
        match self {
            PageBody::Json(body) | PageBody::Cbor(body) => {
                body.extend_from_slice(piece);
                Ok(())
            }
            PageBody::Protobuf {
                reader,
                type_meta,
                items,
            } => reader.push(piece, &mut |item| {
                items.push(RawObject::from_protobuf(item, *type_meta).map_err(|e| e.to_string())?);
                Ok(())
            }),
        }
    }
}

/// Objects per LIST page unless `--chunk-size` says otherwise: 5000, not kubectl's 500. Measured
/// on 100,000 ConfigMaps of kube-apiserver v1.34 (BENCHMARKS.md, "Page size"): a consistent
/// paginated LIST in pages of 500 made the server allocate 1.9-2.6 GB and took 2.7-4.8 s to
/// sync; pages of 5000, 0.5 GB and 1.3-1.45 s; one unpaginated LIST, 0.35 GB and 1.2-1.55 s.
/// A page of 5000 is one response of about 6 MB (protobuf) to 7 MB (JSON) of such objects,
/// which is what the server and we hold per request, where an unpaginated LIST of a large
/// collection would be hundreds.
pub const DEFAULT_CHUNK_SIZE: u32 = 5000;

/// What a LIST or WATCH accepts when protobuf is wanted: the server picks protobuf where it can
/// encode the type in it, and JSON otherwise.
const ACCEPT_PROTOBUF: &str = "application/vnd.kubernetes.protobuf, application/json";

/// What a LIST or WATCH accepts when CBOR is wanted: the server picks CBOR where it serves it
/// (with its `CBORServingAndStorage` gate on), and JSON otherwise.
const ACCEPT_CBOR: &str = "application/cbor, application/json";

/// Accept headers for metadata-only LIST and WATCH (server-side conversion to meta.k8s.io/v1).
pub const ACCEPT_METADATA_LIST: &str =
    "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
const ACCEPT_METADATA: &str =
    "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/// Query options of one LIST page.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    pub limit: Option<u32>,
    pub continue_token: Option<String>,
    /// `None` is a consistent read ("" on the wire).
    pub resource_version: Option<String>,
    /// `Exact` or `NotOlderThan`, with `resource_version`.
    pub version_match: Option<&'static str>,
}

/// One page of a LIST.
#[derive(Debug)]
pub struct ListPage {
    pub items: Vec<RawObject>,
    pub resource_version: String,
    pub continue_token: Option<String>,
    pub remaining_item_count: Option<i64>,
}

/// Query options of a WATCH.
#[derive(Debug, Clone, Default)]
pub struct WatchOptions {
    /// Events after this RV; "" with `send_initial_events` for a consistent watch-list.
    pub resource_version: String,
    pub timeout_seconds: Option<u64>,
    pub bookmarks: bool,
    pub send_initial_events: bool,
}

/// A decoded watch event.
#[derive(Debug, Clone)]
pub enum WatchEvent {
    Added(RawObject),
    Modified(RawObject),
    Deleted(RawObject),
    Bookmark {
        resource_version: String,
        initial_events_end: bool,
    },
    /// An ERROR event: a `Status` inside the 200 stream (410 Expired, most often).
    Error(ApiStatus),
}

impl From<crate::cluster::protobuf::Status> for ApiStatus {
    /// A Status read from protobuf or CBOR.
    fn from(status: crate::cluster::protobuf::Status) -> Self {
        ApiStatus {
            code: status.code,
            reason: status.reason,
            message: status.message,
        }
    }
}

/// The fields of a `metav1.Status` that matter to a reflector.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
pub struct ApiStatus {
    #[serde(default)]
    pub code: u16,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
}

/// The longest watch event (one JSON line) a [`WatchStream`] takes: 64 MiB. Real objects are far
/// smaller (etcd refuses a write over 1.5 MiB by default), so only a broken or hostile peer sends
/// more; a longer line is refused by size as it arrives, holding at most this much of it.
pub const MAX_EVENT_BYTES: usize = 64 << 20;

/// How much of an undecodable line, and of the decoder's reason, an error quotes.
const SNIPPET_CHARS: usize = 120;
const REASON_CHARS: usize = 200;

/// Why reading a watch stream failed. Each message is one line, however hostile the bytes.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StreamError {
    #[error("the connection failed while reading the watch: {0}")]
    Io(String),
    #[error("the server sent an event that cannot be decoded ({reason}): {snippet}")]
    Malformed { reason: String, snippet: String },
    /// A line longer than the stream's limit ([`MAX_EVENT_BYTES`]), refused before it was read
    /// whole.
    #[error("a watch event of more than {} was refused by size", size(*limit))]
    TooLarge { limit: usize },
}

impl StreamError {
    /// A decoder's refusal of `line`, both quoted short, on one line, with control characters
    /// escaped and invalid UTF-8 replaced.
    fn malformed(reason: impl std::fmt::Display, line: &[u8]) -> Self {
        let snippet = &line[..line.len().min(SNIPPET_CHARS * 4)];
        StreamError::Malformed {
            reason: crate::format::one_line(&reason.to_string(), REASON_CHARS),
            snippet: crate::format::one_line(
                String::from_utf8_lossy(snippet).trim(),
                SNIPPET_CHARS,
            ),
        }
    }
}

/// A byte count as the limit is documented: `64 MiB`, or `300 bytes`.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

#[derive(Deserialize)]
struct WireEvent<'a> {
    /// Borrowed unless the server escaped a character of it.
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireList<'a> {
    #[serde(default)]
    metadata: WireListMeta,
    /// `null` in an empty `PartialObjectMetadataList` (`--metadata-only`), as the API server
    /// sends it.
    #[serde(default, borrow)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct WireListMeta {
    #[serde(default)]
    resource_version: String,
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
    #[serde(default)]
    remaining_item_count: Option<i64>,
}

impl ListWatch {
    /// The operation a request makes, for error messages.
    pub fn operation(&self, verb: &'static str) -> Operation {
        Operation::new(
            verb,
            self.resource.qualified_name(),
            self.namespace.as_deref(),
        )
    }

    fn path(&self) -> String {
        self.resource.collection_path(self.namespace.as_deref())
    }

    fn selectors(&self, q: &mut form_urlencoded::Serializer<String>) {
        if let Some(l) = self.label_selector.as_deref().filter(|s| !s.is_empty()) {
            q.append_pair("labelSelector", l);
        }
        if let Some(f) = self.field_selector.as_deref().filter(|s| !s.is_empty()) {
            q.append_pair("fieldSelector", f);
        }
    }

    /// The path and query of a LIST page.
    pub fn list_url(&self, opts: &ListOptions) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        self.selectors(&mut q);
        if let Some(limit) = opts.limit.filter(|l| *l > 0) {
            q.append_pair("limit", &limit.to_string());
        }
        if let Some(token) = &opts.continue_token {
            // The continue token carries the RV; sending both is rejected.
            q.append_pair("continue", token);
        } else if let Some(rv) = &opts.resource_version {
            q.append_pair("resourceVersion", rv);
            if let Some(m) = opts.version_match {
                q.append_pair("resourceVersionMatch", m);
            }
        }
        join(self.path(), q.finish())
    }

    /// The path and query of a WATCH.
    pub fn watch_url(&self, opts: &WatchOptions) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        q.append_pair("watch", "true");
        self.selectors(&mut q);
        q.append_pair("resourceVersion", &opts.resource_version);
        if let Some(t) = opts.timeout_seconds {
            q.append_pair("timeoutSeconds", &t.to_string());
        }
        if opts.bookmarks || opts.send_initial_events {
            q.append_pair("allowWatchBookmarks", "true");
        }
        if opts.send_initial_events {
            q.append_pair("sendInitialEvents", "true");
            q.append_pair("resourceVersionMatch", "NotOlderThan");
        }
        join(self.path(), q.finish())
    }

    /// Fetches one LIST page.
    pub async fn list_page(&self, opts: &ListOptions) -> Result<ListPage, ClusterError> {
        let op = self.operation("list");
        let api_version = self.resource.api_version();
        let type_meta = (self.resource.kind.as_str(), api_version.as_str());
        let page = self
            .cluster
            .get_into(&self.list_url(opts), self.accept(), &op, |content_type| {
                if opts.continue_token.is_none() {
                    self.said("list", content_type);
                }
                if content_type.starts_with(protobuf::MEDIA_TYPE) {
                    PageBody::Protobuf {
                        reader: protobuf::ListReader::default(),
                        type_meta,
                        items: Vec::new(),
                    }
                } else if content_type.starts_with(cbor::MEDIA_TYPE) {
                    PageBody::Cbor(Vec::new())
                } else {
                    PageBody::Json(Vec::new())
                }
            })
            .await?;
        let decode = |e: &dyn std::fmt::Display| ClusterError::Decode {
            what: format!("list {}", self.resource.qualified_name()),
            reason: crate::format::one_line(&e.to_string(), REASON_CHARS),
        };
        let body = match page {
            PageBody::Json(body) => body,
            PageBody::Cbor(body) => {
                let list = cbor::list(&body).map_err(|e| decode(&e))?;
                let items = list
                    .items
                    .into_iter()
                    .map(|item| RawObject::from_cbor(item, Some(type_meta)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| decode(&e))?;
                return Ok(ListPage {
                    items,
                    resource_version: list.meta.resource_version,
                    continue_token: list.meta.continue_token,
                    remaining_item_count: list.meta.remaining_item_count,
                });
            }
            PageBody::Protobuf { reader, items, .. } => {
                reader.finish().map_err(|e| decode(&e))?;
                return Ok(ListPage {
                    items,
                    resource_version: reader.meta.resource_version,
                    continue_token: reader.meta.continue_token,
                    remaining_item_count: reader.meta.remaining_item_count,
                });
            }
        };
        let decode = |e: serde_json::Error| decode(&e);
        let list: WireList = serde_json::from_slice(&body).map_err(decode)?;
        let hint = if self.metadata_only {
            Some(("PartialObjectMetadata", "meta.k8s.io/v1"))
        } else {
            Some((self.resource.kind.as_str(), api_version.as_str()))
        };
        let items = list
            .items
            .unwrap_or_default()
            .into_iter()
            .map(|raw| RawObject::parse_borrowed(raw, hint))
            .collect::<Result<Vec<_>, _>>()
            .map_err(decode)?;
        Ok(ListPage {
            items,
            resource_version: list.metadata.resource_version,
            continue_token: list.metadata.continue_token.filter(|c| !c.is_empty()),
            remaining_item_count: list.metadata.remaining_item_count,
        })
    }

    /// Opens a WATCH; errors at open time (401, 403, 410 ...) come back here.
    pub async fn watch(&self, opts: &WatchOptions) -> Result<WatchStream, ClusterError> {
        let op = self.operation("watch");
        let accept = if self.metadata_only {
            ACCEPT_METADATA
        } else {
            self.accept()
        };
        let (content_type, reader) = self
            .cluster
            .stream(&self.watch_url(opts), accept, opts.send_initial_events, &op)
            .await?;
        self.said("watch", &content_type);
        Ok(if content_type.starts_with(protobuf::MEDIA_TYPE) {
            WatchStream::frames(Box::pin(reader), MAX_EVENT_BYTES)
        } else if content_type.starts_with(cbor::MEDIA_TYPE) {
            // `application/cbor-seq`, or `application/cbor` from a server that names it so.
            WatchStream::items(Box::pin(reader), MAX_EVENT_BYTES)
        } else {
            WatchStream::new(Box::pin(reader))
        })
    }

    /// What a LIST accepts.
    fn accept(&self) -> &'static str {
        match (self.metadata_only, self.encoding) {
            (true, _) => ACCEPT_METADATA_LIST,
            (false, Encoding::Json) => "application/json",
            (false, Encoding::Protobuf) => ACCEPT_PROTOBUF,
            (false, Encoding::Cbor) => ACCEPT_CBOR,
        }
    }

    /// Says at -v=1 which encoding the server answered a LIST or WATCH in.
    fn said(&self, verb: &str, content_type: &str) {
        self.cluster.verbosity().say(1, || {
            let encoding = if content_type.starts_with(protobuf::MEDIA_TYPE) {
                Encoding::Protobuf
            } else if content_type.starts_with(cbor::MEDIA_TYPE) {
                Encoding::Cbor
            } else {
                Encoding::Json
            };
            format!(
                "{verb} {}: the server answered in {} ({})",
                self.resource.qualified_name(),
                encoding.name(),
                if content_type.is_empty() {
                    "no Content-Type"
                } else {
                    content_type
                }
            )
        });
    }
}

impl ListerWatcher for ListWatch {
    async fn list_page(&self, opts: &ListOptions) -> Result<ListPage, ClusterError> {
        ListWatch::list_page(self, opts).await
    }

    async fn watch(&self, opts: &WatchOptions) -> Result<WatchStream, ClusterError> {
        ListWatch::watch(self, opts).await
    }

    fn resource_name(&self) -> String {
        self.resource.qualified_name()
    }
}

fn join(path: String, query: String) -> String {
    if query.is_empty() {
        path
    } else {
        format!("{path}?{query}")
    }
}

/// The body of a watch: newline-delimited JSON events, read one at a time; or, from a scripted
/// source, events already decoded.
pub struct WatchStream {
    source: Body,
}

enum Body {
    Lines(Lines),
    Frames(frames::Frames),
    Items(items::Items),
    Events(Pin<Box<dyn Stream<Item = Result<WatchEvent, StreamError>> + Send>>),
}

/// A line buffer grown past this by one big event is not kept for the next ones: real objects
/// stay under etcd's 1.5 MiB request limit, so only an outsized event pays for a new buffer.
const KEEP_CAPACITY: usize = 2 << 20;

/// Whether the bytes `reader` already holds make a whole item by `complete`: what the next
/// read returns without waiting. Polls the reader once without a task to wake: what it did not
/// have is asked for again, with the task's waker, by the next read. An error is kept in
/// `failed` (a reader returns its error once) for that read to report.
fn buffered_holds(
    reader: &mut Pin<Box<dyn AsyncBufRead + Send>>,
    failed: &mut Option<std::io::Error>,
    complete: impl Fn(&[u8]) -> bool,
) -> bool {
    if failed.is_some() {
        return false;
    }
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match reader.as_mut().poll_fill_buf(&mut cx) {
        std::task::Poll::Ready(Ok(available)) => complete(available),
        std::task::Poll::Ready(Err(e)) => {
            *failed = Some(e);
            false
        }
        std::task::Poll::Pending => false,
    }
}

impl WatchStream {
    /// A watch body; lines over [`MAX_EVENT_BYTES`] are refused.
    pub fn new(reader: Pin<Box<dyn AsyncBufRead + Send>>) -> Self {
        Self::with_limit(reader, MAX_EVENT_BYTES)
    }

    /// A watch body whose lines over `limit` bytes (newline excluded) are refused with
    /// [`StreamError::TooLarge`], holding at most `limit + 1` bytes of one; the stream then goes
    /// on after that line.
    pub fn with_limit(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        WatchStream {
            source: Body::Lines(Lines {
                reader,
                line: Vec::with_capacity(4096.min(limit.saturating_add(1))),
                limit,
                skipping: false,
                failed: None,
            }),
        }
    }

    /// A watch body in the protobuf encoding: length-prefixed `WatchEvent` frames, those over
    /// `limit` bytes refused with [`StreamError::TooLarge`] (and skipped unread).
    pub fn frames(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        WatchStream {
            source: Body::Frames(frames::Frames::new(reader, limit)),
        }
    }

    /// A watch body in CBOR: a sequence of data items, one a `WatchEvent` (RFC 8742), those
    /// over `limit` bytes refused with [`StreamError::TooLarge`].
    pub fn items(reader: Pin<Box<dyn AsyncBufRead + Send>>, limit: usize) -> Self {
        WatchStream {
            source: Body::Items(items::Items::new(reader, limit)),
        }
    }

    /// A watch whose events are already decoded (a scripted source); the stream's end is the
    /// server's clean close.
    pub fn from_events(
        events: impl Stream<Item = Result<WatchEvent, StreamError>> + Send + 'static,
    ) -> Self {
        WatchStream {
            source: Body::Events(Box::pin(events)),
        }
    }

    /// Whether the next event has arrived whole, so that `next` returns it without waiting
    /// (a scripted source says no: its events come one by one).
    pub fn has_event(&mut self) -> bool {
        match &mut self.source {
            Body::Lines(lines) => lines.has_line(),
            Body::Frames(frames) => frames.has_frame(),
            Body::Items(items) => items.has_item(),
            Body::Events(_) => false,
        }
    }

    /// The next event; `Ok(None)` when the server closed the stream cleanly. After an error
    /// other than `Io` the stream can go on with the next line.
    pub async fn next(&mut self) -> Result<Option<WatchEvent>, StreamError> {
        let lines = match &mut self.source {
            Body::Lines(lines) => lines,
            Body::Frames(frames) => return frames.next().await,
            Body::Items(items) => return items.next().await,
            Body::Events(events) => return events.next().await.transpose(),
        };
        loop {
            match lines.read().await? {
                Read::End => return Ok(None),
                // The stream ended in the middle of an event: the connection was cut.
                Read::Cut => {
                    return Err(StreamError::Io(
                        "the stream ended in the middle of an event".to_string(),
                    ))
                }
                Read::TooLarge => return Err(StreamError::TooLarge { limit: lines.limit }),
                Read::Line if lines.line.iter().all(u8::is_ascii_whitespace) => continue,
                Read::Line => return decode_event(&lines.line).map(Some),
            }
        }
    }

    /// The bytes the stream holds for the line it reads: what a hostile line costs.
    #[doc(hidden)]
    pub fn buffer_capacity(&self) -> usize {
        match &self.source {
            Body::Lines(lines) => lines.line.capacity(),
            Body::Frames(frames) => frames.capacity(),
            Body::Items(items) => items.capacity(),
            Body::Events(_) => 0,
        }
    }
}

fn io_reason(e: &std::io::Error) -> String {
    crate::cluster::innermost(e)
}

/// Decodes one line of a watch stream. Whatever the bytes, the answer is an event or a
/// [`StreamError::Malformed`] of one short line; an object event must name its object and its
/// resourceVersion (the reflector resumes from it), a BOOKMARK must carry a resourceVersion, and
/// an ERROR's object must be a Status.
pub fn decode_event(line: &[u8]) -> Result<WatchEvent, StreamError> {
    let malformed = |reason: &dyn std::fmt::Display| StreamError::malformed(reason, line);
    let wire: WireEvent = serde_json::from_slice(line).map_err(|e| malformed(&e))?;
    checked_event(
        &wire.kind,
        || RawObject::parse_borrowed(wire.object, None).map_err(|e| e.to_string()),
        || status(wire.object).map_err(|e| e.to_string()),
        &malformed,
    )
}

/// The event of type `kind`, its object (or, for ERROR, its Status) decoded by the functions
/// given: an object event must name its object and its resourceVersion (the reflector resumes
/// from it), a BOOKMARK must carry a resourceVersion.
fn checked_event(
    kind: &str,
    decode_object: impl FnOnce() -> Result<RawObject, String>,
    decode_status: impl FnOnce() -> Result<ApiStatus, String>,
    malformed: &dyn Fn(&dyn std::fmt::Display) -> StreamError,
) -> Result<WatchEvent, StreamError> {
    let object = || {
        let object = decode_object().map_err(|e| malformed(&e))?;
        if object.resource_version().is_empty() {
            return Err(malformed(&format_args!(
                "a {kind} event whose object has no metadata.resourceVersion"
            )));
        }
        Ok(object)
    };
    let named = |object: RawObject| {
        if object.name().is_empty() {
            return Err(malformed(&format_args!(
                "a {kind} event whose object has no metadata.name"
            )));
        }
        Ok(object)
    };
    Ok(match kind {
        "ADDED" => WatchEvent::Added(named(object()?)?),
        "MODIFIED" => WatchEvent::Modified(named(object()?)?),
        "DELETED" => WatchEvent::Deleted(named(object()?)?),
        "BOOKMARK" => {
            let obj = object()?;
            WatchEvent::Bookmark {
                initial_events_end: obj.initial_events_end(),
                resource_version: obj.resource_version().to_string(),
            }
        }
        "ERROR" => WatchEvent::Error(decode_status().map_err(|e| malformed(&e))?),
        other => {
            return Err(malformed(&format_args!(
                "unknown event type \"{}\"",
                crate::format::one_line(other, 40)
            )))
        }
    })
}

/// The Status of an ERROR event: a JSON object, of kind Status if it names one.
fn status(object: &RawValue) -> serde_json::Result<ApiStatus> {
    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(default, borrow)]
        kind: Option<Cow<'a, str>>,
    }
    use serde::de::Error;
    if !object.get().starts_with('{') {
        return Err(serde_json::Error::custom(
            "an ERROR event whose object is not a Status",
        ));
    }
    match serde_json::from_str::<Head>(object.get())?.kind.as_deref() {
        None | Some("Status") => serde_json::from_str(object.get()),
        Some(kind) => Err(serde_json::Error::custom(format_args!(
            "an ERROR event whose object is a {}, not a Status",
            crate::format::one_line(kind, 40)
        ))),
    }
}

#[cfg(test)]
mod tests;
