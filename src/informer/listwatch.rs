//! The wire protocol of LIST and WATCH for one resource: URLs and query parameters, LIST pages,
//! and the watch stream's events (JSON lines, protobuf frames or CBOR data items, as the
//! cluster's framer cuts them) decoded.

mod binary;
mod decode;
mod stream;

use super::object::{Keep, RawObject};
use crate::cluster::{cbor, protobuf};
use crate::cluster::{ApiResource, Cluster, ClusterError, Encoding, Operation};
use decode::{checked_event, KeptList, WireList, REASON_CHARS};

pub use binary::decode_framed;
pub use decode::{decode_event, decode_event_kept, ApiStatus, StreamError, WatchEvent};
pub use stream::{WatchStream, MAX_EVENT_BYTES};

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
    /// What is kept of an object the server answers in JSON (custom resources always, anything
    /// with `Encoding::Json`): its text, or its identity and a digest.
    pub keep: Keep,
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
    /// Which state of the collection the LIST reads (a continue token carries its own).
    pub at: ListAt,
}

/// Which state of the collection a LIST reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ListAt {
    /// The newest, a consistent read ("" on the wire): never "0", which the server may answer
    /// from its watch cache, older than what a client already saw.
    #[default]
    Newest,
    /// Exactly this resourceVersion (`resourceVersionMatch=Exact`); 410 once it is compacted.
    Exact(String),
    /// Not older than this resourceVersion (`resourceVersionMatch=NotOlderThan`): the server may
    /// answer from its watch cache once that has caught up with it.
    NotOlderThan(String),
}

impl ListAt {
    /// The resourceVersion asked for, if any.
    pub fn resource_version(&self) -> Option<&str> {
        match self {
            ListAt::Newest => None,
            ListAt::Exact(rv) | ListAt::NotOlderThan(rv) => Some(rv),
        }
    }
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

impl ListWatch {
    /// The operation a request makes, for error messages.
    pub fn operation(&self, verb: &'static str) -> Operation {
        let op = Operation::new(
            verb,
            self.resource.qualified_name(),
            self.namespace.as_deref(),
        );
        match self.namespace.is_none() && self.resource.namespaced {
            true => op.in_all_namespaces(),
            false => op,
        }
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
        } else if let ListAt::Exact(rv) | ListAt::NotOlderThan(rv) = &opts.at {
            q.append_pair("resourceVersion", rv);
            let exact = matches!(opts.at, ListAt::Exact(_));
            q.append_pair(
                "resourceVersionMatch",
                if exact { "Exact" } else { "NotOlderThan" },
            );
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
                let encoding = Encoding::of_content_type(content_type);
                if opts.continue_token.is_none() {
                    self.said("list", encoding, content_type);
                }
                match encoding {
                    Encoding::Protobuf => PageBody::Protobuf {
                        reader: protobuf::ListReader::default(),
                        type_meta,
                        items: Vec::new(),
                    },
                    Encoding::Cbor => PageBody::Cbor(Vec::new()),
                    Encoding::Json => PageBody::Json(Vec::new()),
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
        self.json_page(&body, api_version.as_str())
            .map_err(|e| decode(&e))
    }

    /// A LIST page's JSON body: its items kept as `keep` says, with their kind spliced in.
    fn json_page(&self, body: &[u8], api_version: &str) -> serde_json::Result<ListPage> {
        let hint = if self.metadata_only {
            Some(("PartialObjectMetadata", "meta.k8s.io/v1"))
        } else {
            Some((self.resource.kind.as_str(), api_version))
        };
        let (metadata, items) = match self.keep {
            Keep::Digest => {
                use serde::de::DeserializeSeed;
                let mut de = serde_json::Deserializer::from_slice(body);
                let page = KeptList(hint).deserialize(&mut de)?;
                de.end()?;
                page
            }
            Keep::Whole => {
                let list: WireList = serde_json::from_slice(body)?;
                let items = list
                    .items
                    .unwrap_or_default()
                    .into_iter()
                    .map(|raw| RawObject::parse_borrowed(raw, hint))
                    .collect::<Result<Vec<_>, _>>()?;
                (list.metadata, items)
            }
        };
        Ok(ListPage {
            items,
            resource_version: metadata.resource_version,
            continue_token: metadata.continue_token.filter(|c| !c.is_empty()),
            remaining_item_count: metadata.remaining_item_count,
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
        let encoding = Encoding::of_content_type(&content_type);
        self.said("watch", encoding, &content_type);
        Ok(WatchStream::encoded(Box::pin(reader), encoding, MAX_EVENT_BYTES).keeping(self.keep))
    }

    /// What a LIST accepts.
    fn accept(&self) -> &'static str {
        match (self.metadata_only, self.encoding) {
            (true, _) => ACCEPT_METADATA_LIST,
            (false, encoding) => encoding.accept(),
        }
    }

    /// Says at -v=1 which encoding the server answered a LIST or WATCH in (by its
    /// `content_type`).
    fn said(&self, verb: &str, encoding: Encoding, content_type: &str) {
        self.cluster.verbosity().say(1, || {
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

#[cfg(test)]
mod tests;
