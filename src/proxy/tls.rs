//! The proxy's own certificate authority, made afresh for each run and kept in memory only (its
//! key is never written anywhere), and the serving certificate it signs for the loopback names
//! (`127.0.0.1`, `::1`, `localhost`). The CA goes into the kubeconfig the proxy writes, so a
//! controller started with it trusts the proxy as it trusts an API server. The server offers
//! HTTP/2 and HTTP/1.1 by ALPN, h2 first, as kube-apiserver does: client-go's HTTP/2 health
//! check, which is what notices a dead connection, runs only over h2.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::sync::Arc;

/// The names the serving certificate is valid for.
const LOOPBACK: [&str; 3] = ["127.0.0.1", "::1", "localhost"];

/// The CA (PEM, for the kubeconfig) and the TLS server configuration that serves with the
/// certificate it signed.
pub struct Authority {
    pub ca_pem: String,
    pub server: Arc<rustls::ServerConfig>,
}

/// Why the certificates or the TLS configuration could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot make the proxy's certificates: {0}")]
    Certificate(#[from] rcgen::Error),
    #[error("cannot set up TLS: {0}")]
    Tls(#[from] rustls::Error),
}

impl Authority {
    /// A new CA and a serving certificate for the loopback names, both ECDSA P-256.
    pub fn new() -> Result<Authority, TlsError> {
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "kubectl-informer proxy CA");
        ca_params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
        ];
        let ca_key = KeyPair::generate()?;
        let ca = ca_params.self_signed(&ca_key)?;
        let issuer = Issuer::new(ca_params, ca_key);

        let mut leaf_params = CertificateParams::new(LOOPBACK.map(str::to_string).to_vec())?;
        leaf_params
            .distinguished_name
            .push(DnType::CommonName, "kubectl-informer proxy");
        leaf_params.use_authority_key_identifier_extension = true;
        leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let leaf_key = KeyPair::generate()?;
        let leaf = leaf_params.signed_by(&leaf_key, &issuer)?;

        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
        let chain: Vec<CertificateDer<'static>> = vec![leaf.der().clone()];
        let mut server = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
        server.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(Authority {
            ca_pem: ca.pem(),
            server: Arc::new(server),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustls::pki_types::ServerName;
    use tokio::net::{TcpListener, TcpStream};

    /// Connects to `port` as `name`, trusting only `ca_pem`, offering `alpn`; the protocol
    /// the server chose.
    async fn handshake(
        port: u16,
        ca_pem: &str,
        name: &str,
        alpn: &[&[u8]],
    ) -> Result<Option<Vec<u8>>, std::io::Error> {
        let mut roots = rustls::RootCertStore::empty();
        let ca = rustls::pki_types::pem::PemObject::from_pem_slice(ca_pem.as_bytes()).unwrap();
        roots.add(ca).unwrap();
        let mut config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let tcp = TcpStream::connect(("127.0.0.1", port)).await?;
        let name = ServerName::try_from(name.to_string()).unwrap();
        let tls = connector.connect(name, tcp).await?;
        Ok(tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec))
    }

    /// Serves TLS handshakes with `authority` on a loopback port until dropped.
    async fn serve(authority: &Authority) -> (u16, tokio::task::JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let acceptor = tokio_rustls::TlsAcceptor::from(authority.server.clone());
        let task = tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    if let Ok(mut tls) = acceptor.accept(tcp).await {
                        use tokio::io::AsyncReadExt;
                        let _ = tls.read(&mut [0u8; 1]).await;
                    }
                });
            }
        });
        (port, task)
    }

    #[tokio::test]
    async fn a_client_that_trusts_the_ca_gets_h2_for_every_loopback_name_and_http1_if_it_asks() {
        let authority = Authority::new().unwrap();
        assert!(authority.ca_pem.starts_with("-----BEGIN CERTIFICATE-----"));
        let (port, server) = serve(&authority).await;
        for name in LOOPBACK {
            let chosen = handshake(port, &authority.ca_pem, name, &[b"h2", b"http/1.1"]).await;
            assert_eq!(chosen.unwrap().as_deref(), Some(&b"h2"[..]), "{name}");
        }
        let chosen = handshake(port, &authority.ca_pem, "localhost", &[b"http/1.1"]).await;
        assert_eq!(chosen.unwrap().as_deref(), Some(&b"http/1.1"[..]));
        // Another name, or another run's CA, is refused.
        assert!(handshake(port, &authority.ca_pem, "example.com", &[b"h2"])
            .await
            .is_err());
        let other = Authority::new().unwrap();
        assert!(handshake(port, &other.ca_pem, "localhost", &[b"h2"])
            .await
            .is_err());
        server.abort();
    }
}
