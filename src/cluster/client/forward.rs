//! A connection to a pod's port through the API server, as `kubectl port-forward` makes one:
//! the `pods/NAME/portforward` subresource, upgraded to a WebSocket (HTTP/1.1 only: an upgrade
//! has no HTTP/2 form here), with the user's credentials; no local port, no extra process. The
//! API server passes the stream to the pod's node, whose kubelet connects to the port inside the
//! pod's network. It needs `create` on `pods/portforward`.

use super::{Cluster, Operation};
use crate::cluster::credentials::{self, Bearer};
use crate::cluster::transport::Phase;
use crate::cluster::{kubeconfig, ClusterError};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};

impl Cluster {
    /// The same cluster and user over connections that speak HTTP/1.1 only, on which requests
    /// can be upgraded (see [`Cluster::port_forward`]).
    pub async fn for_upgrades(&self) -> Result<Cluster, ClusterError> {
        let loaded = kubeconfig::load(&self.selection).await?;
        let mut cluster = Cluster::built(loaded, &self.selection, self.transport, true)?
            .with_verbosity(self.verbose.0);
        cluster.origin = self.origin.clone();
        Ok(cluster)
    }

    /// One connection to `port` of the pod `pod`, through the API server. The opening is bounded
    /// as a request's response headers are; the connection is then the caller's to bound.
    /// `self` must come from [`Cluster::for_upgrades`].
    pub async fn port_forward(
        &self,
        namespace: &str,
        pod: &str,
        port: u16,
    ) -> Result<PodConnection, ClusterError> {
        let op = Operation::new("create", "pods/portforward", Some(namespace));
        let path = format!("/api/v1/namespaces/{namespace}/pods/{pod}/portforward?ports={port}");
        let url = self.url(&path);
        if let Some(signer) = &self.signer {
            // kube builds the request: its layer signs it, and finds the token renewed.
            let _renewing = self.progress.begin(Phase::Credential, signer.plugin());
            let renewed = signer.renew().await;
            renewed.map_err(|reason| self.unusable(reason))?;
        }
        let started = std::time::Instant::now();
        let waiting = self.progress.begin(Phase::ResponseHeaders, &url);
        let api: kube::Api<k8s_openapi::api::core::v1::Pod> =
            kube::Api::namespaced(self.client.clone(), namespace);
        let ports = [port];
        let opening = api.portforward(pod, &ports);
        let opened = match self.transport.response_headers {
            Some(limit) => match tokio::time::timeout(limit, opening).await {
                Ok(opened) => opened,
                Err(_) => {
                    drop(waiting);
                    self.log_response(&http::Method::GET, &path, "failed", started);
                    return Err(self.headers_not_in_time(limit, url, &op));
                }
            },
            None => opening.await,
        };
        drop(waiting);
        let outcome = match &opened {
            Ok(_) => "101 Switching Protocols".to_string(),
            Err(kube::Error::Api(status)) => status.code.to_string(),
            Err(_) => "failed".to_string(),
        };
        self.log_response(&http::Method::GET, &path, &outcome, started);
        let mut forwarder = opened.map_err(|e| self.classify(e, &op))?;
        let (Some(stream), Some(error)) = (forwarder.take_stream(port), forwarder.take_error(port))
        else {
            forwarder.abort();
            return Err(ClusterError::Transport {
                what: op.describe(),
                reason: format!("the forwarded connection has no stream for port {port}"),
            });
        };
        Ok(PodConnection {
            stream,
            error: Some(Box::pin(error)),
            forwarder,
        })
    }
}

/// A connection to a pod's port (see [`Cluster::port_forward`]): bytes in and out. Dropping it
/// ends the WebSocket.
pub struct PodConnection {
    stream: DuplexStream,
    /// What the node said when it could not connect to the port or lost the connection.
    error: Option<Pin<Box<dyn Future<Output = Option<String>> + Send>>>,
    forwarder: kube::api::Portforwarder,
}

impl PodConnection {
    /// Why the node ended the connection, when it said so (`connection refused` on the pod's
    /// port, a pod that is gone): waits at most `within` for its word.
    pub async fn why_ended(&mut self, within: std::time::Duration) -> Option<String> {
        let error = self.error.take()?;
        tokio::time::timeout(within, error)
            .await
            .ok()
            .flatten()
            .map(|e| crate::format::one_line(e.trim(), 300))
    }
}

impl Drop for PodConnection {
    fn drop(&mut self) {
        self.forwarder.abort();
    }
}

impl AsyncRead for PodConnection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for PodConnection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

impl Cluster {
    /// The user's bearer token, as [`Bearer`] sends it to a server other than the API server;
    /// `None` when the user has no token.
    pub async fn bearer(&self) -> Result<Option<Bearer>, ClusterError> {
        let loaded = kubeconfig::load(&self.selection).await?;
        let unusable = |reason| ClusterError::KubeconfigUnusable {
            source_desc: format!("context \"{}\"", loaded.context),
            reason,
        };
        let config = credentials::with_exec_decided(&loaded.config).map_err(unusable)?;
        let limit = self.transport.response_headers;
        credentials::within_plugin_limit(&config, limit, move |c| Bearer::of(c, limit))
            .map_err(unusable)
    }
}
