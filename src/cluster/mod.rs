//! Everything about reaching a cluster: kubeconfig, client, discovery and resource names,
//! selectors, resourceVersions as comparable numbers, the protobuf encoding of built-in types, the
//! CBOR encoding of custom resources, and the errors of each.

pub mod cbor;
mod client;
mod credentials;
pub mod discovery;
mod error;
pub mod kubeconfig;
pub mod openapi;
pub mod protobuf;
pub mod proxy;
pub mod resolve;
pub mod resource_version;
pub mod selector;
mod transport;

pub use client::{innermost, namespace_exists, Cluster, Operation, Sink, REQUEST_LEVEL};
pub use error::ClusterError;
pub use kubeconfig::{KubeconfigSelection, Overrides};
pub use resolve::{resolve, ApiResource};
pub use transport::{
    Phase, PhaseTimeout, Transport, DEFAULT_HEALTH_CHECK, DEFAULT_RESPONSE_HEADERS, PING_TIMEOUT,
};
