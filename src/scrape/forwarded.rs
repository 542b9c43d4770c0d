//! A pod's metrics port read through a port-forward ([`Cluster::port_forward`]), as a
//! kubebuilder operator serves it: HTTPS with the pod's own certificate (controller-runtime
//! makes a self-signed one when given none), behind a filter that checks the bearer token with
//! the API server (a TokenReview, then a SubjectAccessReview for `get` on the non-resource URL
//! `/metrics`); or plain HTTP.
//!
//! The pod's certificate cannot be checked against anything the user has: it is accepted for
//! the connection it came on only (the handshake's signature is still checked), which the
//! caller says. The connection is kept between scrapes (HTTP/1.1 keep-alive), one WebSocket
//! through the API server for as long as the pod keeps it open.
//!
//! Whether the port speaks TLS is found by trying: a ClientHello answered with plain HTTP (Go's
//! `Client sent an HTTP request to an HTTPS server` the other way round) fails the handshake at
//! once, and the port is then read in plain HTTP. Every step is bounded: a port-forward passes
//! the pod's close of a connection on late or never, so an answer is read by its length.

use crate::cluster::{Bearer, Cluster, ClusterError, Operation, PodConnection};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::client::conn::http1::SendRequest;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long the node's word on a connection that ended is waited for.
const WORD_LIMIT: Duration = Duration::from_secs(1);
/// How long a TLS handshake with the pod may take.
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);
/// How long the pod's answer may take: its headers, then its whole body (a metrics page is
/// written at once), as a request to the API server waits for its headers by default.
const ANSWER_LIMIT: Duration = crate::cluster::DEFAULT_RESPONSE_HEADERS;
/// The largest metrics page read (kube-controller-manager's is ~1 MB).
const MAX_BODY: usize = 64 << 20;
/// How long a service account's token is asked for (the API's minimum is 10 minutes).
const TOKEN_LIFETIME: Duration = Duration::from_secs(600);

/// How the port is spoken to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    Https,
    Http,
}

/// Whose token the scrapes carry.
pub enum Credential {
    /// The kubeconfig user's token; `None` when it has none (a client certificate).
    User {
        bearer: Option<Bearer>,
        /// The kubeconfig's user name, to say whose token was refused.
        name: String,
    },
    /// A token of a service account, asked for with the TokenRequest API and renewed before
    /// it expires (`--metrics-token-from sa/NAME`).
    ServiceAccount {
        namespace: String,
        name: String,
        token: tokio::sync::Mutex<Option<(http::HeaderValue, Instant)>>,
    },
}

impl Credential {
    pub fn service_account(namespace: &str, name: &str) -> Credential {
        Credential::ServiceAccount {
            namespace: namespace.to_string(),
            name: name.to_string(),
            token: tokio::sync::Mutex::new(None),
        }
    }

    /// Who the token says the scraper is, in a message.
    pub fn identity(&self) -> String {
        match self {
            Credential::User { name, .. } => format!("the kubeconfig user \"{name}\""),
            Credential::ServiceAccount {
                namespace, name, ..
            } => format!("system:serviceaccount:{namespace}:{name}"),
        }
    }

    /// The `Authorization` header to send, if any.
    async fn header(&self, cluster: &Cluster) -> Result<Option<http::HeaderValue>, ClusterError> {
        match self {
            Credential::User { bearer: None, .. } => Ok(None),
            Credential::User {
                bearer: Some(bearer),
                name,
            } => bearer
                .header()
                .await
                .map_err(|reason| ClusterError::KubeconfigUnusable {
                    source_desc: format!("user \"{name}\""),
                    reason,
                }),
            Credential::ServiceAccount {
                namespace,
                name,
                token,
            } => {
                let mut token = token.lock().await;
                if let Some((header, renew_at)) = token.as_ref() {
                    if Instant::now() < *renew_at {
                        return Ok(Some(header.clone()));
                    }
                }
                let (header, lifetime) = request_token(cluster, namespace, name).await?;
                // Renewed when four fifths of its life have passed, as kubelet renews
                // projected tokens.
                *token = Some((header.clone(), Instant::now() + lifetime.mul_f64(0.8)));
                Ok(Some(header))
            }
        }
    }
}

/// A token of the service account `name`, from the TokenRequest API: its header and lifetime.
async fn request_token(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
) -> Result<(http::HeaderValue, Duration), ClusterError> {
    let op = Operation::new("create", "serviceaccounts/token", Some(namespace));
    let path = format!("/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token");
    let body = serde_json::json!({
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": TOKEN_LIFETIME.as_secs()},
    });
    let answer = cluster
        .send(
            http::Method::POST,
            &path,
            "application/json",
            body.to_string().into_bytes(),
            &op,
        )
        .await?;
    let decode = |reason: &str| ClusterError::Decode {
        what: format!("the token of serviceaccount \"{name}\""),
        reason: reason.to_string(),
    };
    let answer: serde_json::Value =
        serde_json::from_slice(&answer).map_err(|e| decode(&e.to_string()))?;
    let token = answer["status"]["token"]
        .as_str()
        .ok_or_else(|| decode("the answer has no status.token"))?;
    let mut header = http::HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| decode("the token cannot be sent in a header"))?;
    header.set_sensitive(true);
    let lifetime = answer["spec"]["expirationSeconds"]
        .as_u64()
        .map_or(TOKEN_LIFETIME, Duration::from_secs);
    Ok((header, lifetime))
}

/// An answer of the pod: its status, media type and body.
pub struct Answer {
    pub status: http::StatusCode,
    pub content_type: String,
    pub body: Bytes,
}

/// Why a pod's port could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    #[error(transparent)]
    Cluster(#[from] ClusterError),
    /// The pod's side: the node could not connect to the port, or the connection ended.
    #[error("{0}")]
    Port(String),
    #[error("TLS handshake with the pod failed: {0}")]
    Tls(String),
}

/// Reads `path` from one pod's port, through the API server.
pub struct PodScrape {
    /// A connection to the API server that can upgrade requests.
    cluster: Cluster,
    namespace: String,
    pub pod: String,
    pub port: u16,
    path: String,
    state: tokio::sync::Mutex<Connected>,
}

#[derive(Default)]
struct Connected {
    scheme: Option<Scheme>,
    sender: Option<SendRequest<Empty<Bytes>>>,
}

impl PodScrape {
    /// Prepares reading `path` from `port` of `pod`; `cluster` from [`Cluster::for_upgrades`].
    /// No request is made yet.
    pub fn new(cluster: Cluster, namespace: &str, pod: &str, port: u16, path: &str) -> Self {
        PodScrape {
            cluster,
            namespace: namespace.to_string(),
            pod: pod.to_string(),
            port,
            path: path.to_string(),
            state: tokio::sync::Mutex::new(Connected::default()),
        }
    }

    /// How the port was spoken to, once it was.
    pub async fn scheme(&self) -> Option<Scheme> {
        self.state.lock().await.scheme
    }

    /// One GET of the path, with `credential`'s token; the connection kept for the next.
    pub async fn get(&self, accept: &str, credential: &Credential) -> Result<Answer, ForwardError> {
        let authorization = credential.header(&self.cluster).await?;
        let mut state = self.state.lock().await;
        let mut sender = match state.sender.take() {
            Some(s) if !s.is_closed() => s,
            _ => self.connect(&mut state).await?,
        };
        let mut request = http::Request::builder()
            .uri(self.path.as_str())
            .header(http::header::HOST, format!("{}:{}", self.pod, self.port))
            .header(http::header::ACCEPT, accept);
        if let Some(value) = authorization {
            request = request.header(http::header::AUTHORIZATION, value);
        }
        let request = request
            .body(Empty::<Bytes>::new())
            .map_err(|e| ForwardError::Port(e.to_string()))?;
        let not_in_time = |what: &str| {
            ForwardError::Port(format!(
                "{what} within {}",
                crate::format::wait(ANSWER_LIMIT)
            ))
        };
        let asked = async {
            sender
                .ready()
                .await
                .map_err(|e| ForwardError::Port(format!("the connection ended: {e}")))?;
            sender.send_request(request).await.map_err(|e| {
                ForwardError::Port(format!("no answer: {}", crate::cluster::innermost(&e)))
            })
        };
        let response = tokio::time::timeout(ANSWER_LIMIT, asked)
            .await
            .map_err(|_| not_in_time("no answer"))??;
        let status = response.status();
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body = http_body_util::Limited::new(response.into_body(), MAX_BODY).collect();
        let body = tokio::time::timeout(ANSWER_LIMIT, body)
            .await
            .map_err(|_| not_in_time("the answer did not end"))?
            .map_err(|e| ForwardError::Port(format!("the answer was cut: {e}")))?
            .to_bytes();
        state.sender = Some(sender);
        Ok(Answer {
            status,
            content_type,
            body,
        })
    }

    /// A new connection: TLS first, unless the port was found to speak plain HTTP.
    async fn connect(
        &self,
        state: &mut Connected,
    ) -> Result<SendRequest<Empty<Bytes>>, ForwardError> {
        let connection = self.open().await?;
        if state.scheme == Some(Scheme::Http) {
            return http1(connection).await;
        }
        match tls(connection, &self.pod).await {
            Ok(tls) => {
                state.scheme = Some(Scheme::Https);
                http1(tls).await
            }
            Err((e, _)) if state.scheme.is_none() && not_tls(&e) => {
                state.scheme = Some(Scheme::Http);
                http1(self.open().await?).await
            }
            // The node's word when it has one: it could not connect to the port.
            Err((e, Some(mut connection))) => match connection.why_ended(WORD_LIMIT).await {
                Some(word) => Err(ForwardError::Port(word)),
                None => Err(ForwardError::Tls(crate::cluster::innermost(&e))),
            },
            Err((e, None)) => Err(ForwardError::Tls(crate::cluster::innermost(&e))),
        }
    }

    async fn open(&self) -> Result<PodConnection, ForwardError> {
        Ok(self
            .cluster
            .port_forward(&self.namespace, &self.pod, self.port)
            .await?)
    }
}

/// An HTTP/1.1 client over `io`, its connection driven in the background.
async fn http1<T>(io: T) -> Result<SendRequest<Empty<Bytes>>, ForwardError>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(io))
            .await
            .map_err(|e| ForwardError::Port(crate::cluster::innermost(&e)))?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// A TLS session with the pod over `connection`, its certificate accepted for this connection;
/// on failure, the connection back when the handshake ended (not when it timed out).
async fn tls(
    connection: PodConnection,
    pod: &str,
) -> Result<tokio_rustls::client::TlsStream<PodConnection>, (std::io::Error, Option<PodConnection>)>
{
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| (std::io::Error::other(e), None))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    let name = rustls_pki_types::ServerName::try_from(pod.to_string()).unwrap_or(
        rustls_pki_types::ServerName::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()),
    );
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let handshake = connector.connect(name, connection).into_fallible();
    match tokio::time::timeout(HANDSHAKE_LIMIT, handshake).await {
        Ok(Ok(tls)) => Ok(tls),
        Ok(Err((e, connection))) => Err((e, Some(connection))),
        Err(_) => Err((
            std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no answer within {}", crate::format::wait(HANDSHAKE_LIMIT)),
            ),
            None,
        )),
    }
}

/// Whether a handshake failed because the peer does not speak TLS (it answered with bytes that
/// are no TLS record, as an HTTP server does).
fn not_tls(e: &std::io::Error) -> bool {
    let reason = crate::cluster::innermost(e);
    reason.contains("InvalidContentType")
        || reason.contains("corrupt message")
        || reason.contains("invalid message")
}

/// Accepts the pod's certificate, whatever signed it, for the one connection it came on; the
/// handshake's signatures are still checked with it.
#[derive(Debug)]
struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls_pki_types::CertificateDer<'_>,
        _intermediates: &[rustls_pki_types::CertificateDer<'_>],
        _server_name: &rustls_pki_types::ServerName<'_>,
        _ocsp_response: &[u8],
        _now: rustls_pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls_pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls_pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
