//! Everything about reaching a cluster: kubeconfig, client, discovery and resource names,
//! the small queries (a namespace's existence, the server's version),
//! selectors, resourceVersions as comparable numbers, the protobuf encoding of built-in types, the
//! CBOR encoding of custom resources, which encoding a response is in, a watch body cut into its
//! events, and the errors of each.

pub mod cbor;
mod client;
mod credentials;
pub mod discovery;
pub mod encoding;
mod error;
mod framing;
pub mod kubeconfig;
pub mod openapi;
pub mod outbound_proxy;
pub mod protobuf;
pub mod queries;
pub mod resolve;
pub mod resource_version;
pub mod selector;
mod transport;

pub use client::{innermost, Cluster, Operation, PodConnection, Sink, REQUEST_LEVEL};
pub use credentials::Bearer;
pub use encoding::Encoding;
pub use error::ClusterError;
pub use framing::{FrameError, Framer};
pub use kubeconfig::{KubeconfigSelection, Overrides};
pub use resolve::{resolve, resolve_each, ApiResource};
pub use transport::{
    Phase, PhaseTimeout, Transport, DEFAULT_HEALTH_CHECK, DEFAULT_RESPONSE_HEADERS, PING_TIMEOUT,
};
