//! An exec plugin's token on a client's requests, renewed before a request's own limits start.
//!
//! kube's layer runs the plugin again inside the request when its token expires within a
//! minute (kube-client's `RefreshableToken`), and waits for it without a limit: a renewal that
//! never ended was said as the server's silence once the response headers' limit passed. Here
//! [`Signer::sign`] renews it first, within the limit of the plugin's first run and with its
//! line, and the request carries the header; the [`SignerLayer`] in the client's stack signs
//! only what was not signed before it (a request kube builds itself: a port-forward).

use super::{auth_layer, plugin_in_use, Bearer, BoxError, TokenFileLayer};
use http::Request;
use std::sync::Arc;
use tower::util::Either;

/// The layer a client's stack signs its requests with (see [`client_auth`]).
pub type ClientAuthLayer =
    Either<Either<kube::client::middleware::AuthLayer, TokenFileLayer>, SignerLayer>;

/// The layer that sets `Authorization` on a client's requests for `config`'s user, and, when
/// the credential is an exec plugin's, the [`Signer`] to sign each request with before its
/// limits start (a renewal bounded by `limit`, as the plugin's first run is).
pub fn client_auth(
    config: &kube::Config,
    limit: Option<std::time::Duration>,
) -> Result<(Option<ClientAuthLayer>, Option<Signer>), String> {
    if plugin_in_use(&config.auth_info).is_none() {
        return Ok((auth_layer(config)?.map(Either::Left), None));
    }
    let Some(bearer) = Bearer::of(config, limit)? else {
        return Ok((None, None));
    };
    let plugin = plugin_in_use(&config.auth_info).and_then(|e| e.command.clone());
    let signer = Signer {
        bearer: Arc::new(bearer),
        plugin: format!(
            "the exec plugin {:?} (users[].user.exec)",
            plugin.unwrap_or_default()
        ),
    };
    Ok((
        Some(Either::Right(SignerLayer(signer.clone()))),
        Some(signer),
    ))
}

/// An exec plugin's token, shared by a client's layer and the code that sends its requests.
#[derive(Clone)]
pub struct Signer {
    bearer: Arc<Bearer>,
    /// The plugin, named as an error names it.
    plugin: String,
}

/// Marks a request a [`Signer`] signed: the client's layer leaves its header as it is.
#[derive(Clone, Copy)]
struct Signed;

impl Signer {
    /// Sets `request`'s `Authorization`, the token renewed first if it must be: within the
    /// plugin's limit, with the line of its first run.
    pub async fn sign<B>(&self, request: &mut Request<B>) -> Result<(), String> {
        if let Some(value) = self.bearer.header().await? {
            request
                .headers_mut()
                .insert(http::header::AUTHORIZATION, value);
        }
        request.extensions_mut().insert(Signed);
        Ok(())
    }

    /// The plugin, as an error names it: `the exec plugin "aws" (users[].user.exec)`.
    pub fn plugin(&self) -> &str {
        &self.plugin
    }

    /// Renews the token if it must be, before a request the client's layer signs (one kube
    /// builds): the layer then finds it fresh.
    pub async fn renew(&self) -> Result<(), String> {
        self.bearer.header().await.map(drop)
    }
}

/// Sets `Authorization` from a [`Signer`] on the requests it did not sign before.
#[derive(Clone)]
pub struct SignerLayer(Signer);

impl<S> tower::Layer<S> for SignerLayer {
    type Service = SignedService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        SignedService {
            inner,
            signer: self.0.clone(),
        }
    }
}

/// A service whose requests carry a [`Signer`]'s header.
#[derive(Clone)]
pub struct SignedService<S> {
    inner: S,
    signer: Signer,
}

impl<S, B> tower::Service<Request<B>> for SignedService<S>
where
    S: tower::Service<Request<B>> + Clone + Send + 'static,
    S::Future: Send,
    S::Error: Into<BoxError>,
    B: Send + 'static,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, BoxError>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        // The service made ready is the one called; a clone stays for the next request.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let signer = self.signer.clone();
        Box::pin(async move {
            if request.extensions().get::<Signed>().is_none() {
                signer.sign(&mut request).await?;
            }
            inner.call(request).await.map_err(Into::into)
        })
    }
}
