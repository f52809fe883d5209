//! TLS: the server configuration from PEM files or a self-signed certificate, and the
//! accept loop serving the routes over HTTPS (HTTP/1.1 and HTTP/2, by ALPN).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rustls::crypto::CryptoProvider;
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// How long a client may take to complete the TLS handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A problem with the certificate, the key or the TLS configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsError(pub String);

impl fmt::Display for TlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsError {}

/// The cryptography used: rustls with *ring*.
pub fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A server configuration from a PEM certificate chain (leaf first) and a PEM private key
/// (PKCS#8, PKCS#1 or SEC1), offering HTTP/2 and HTTP/1.1 by ALPN.
pub fn server_config(cert_pem: &[u8], key_pem: &[u8]) -> Result<ServerConfig, TlsError> {
    let certs = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError(format!("certificate: {e}")))?;
    if certs.is_empty() {
        return Err(TlsError("certificate: no CERTIFICATE block found".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| TlsError(format!("private key: {e}")))?;
    let mut config = ServerConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError(e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| TlsError(format!("certificate and key: {e}")))?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// A generated self-signed certificate and its key.
#[derive(Debug, Clone)]
pub struct SelfSigned {
    /// The certificate, PEM (also the CA a client trusts).
    pub cert_pem: String,
    /// The private key, PEM (PKCS#8).
    pub key_pem: String,
}

/// Generates a self-signed certificate for the names (DNS names or IP addresses).
pub fn self_signed(names: &[String]) -> Result<SelfSigned, TlsError> {
    let generated = rcgen::generate_simple_self_signed(names.to_vec())
        .map_err(|e| TlsError(format!("self-signed certificate: {e}")))?;
    Ok(SelfSigned {
        cert_pem: generated.cert.pem(),
        key_pem: generated.signing_key.serialize_pem(),
    })
}

/// Serves `app` over TLS on `listener` until `shutdown` completes. Each connection is
/// served on its own task; a failed handshake or connection is logged and ends only that
/// connection.
pub async fn serve(
    listener: TcpListener,
    config: Arc<ServerConfig>,
    app: Router,
    shutdown: impl Future<Output = ()>,
) {
    let acceptor = TlsAcceptor::from(config);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors and the like: wait a little, then go on.
                eprintln!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let acceptor = acceptor.clone();
        let app = app.clone();
        tokio::spawn(async move {
            let tls = match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                Ok(Ok(tls)) => tls,
                Ok(Err(e)) => {
                    eprintln!("{peer}: TLS handshake failed: {e}");
                    return;
                }
                Err(_) => {
                    eprintln!("{peer}: TLS handshake timed out");
                    return;
                }
            };
            let service = TowerToHyperService::new(app);
            if let Err(e) = auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(tls), service)
                .await
            {
                eprintln!("{peer}: {e}");
            }
        });
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn certificate_and_key_problems() {
        let generated = self_signed(&["localhost".to_owned()]).unwrap();
        assert!(generated
            .cert_pem
            .starts_with("-----BEGIN CERTIFICATE-----\n"));
        assert!(generated
            .key_pem
            .starts_with("-----BEGIN PRIVATE KEY-----\n"));
        let config =
            server_config(generated.cert_pem.as_bytes(), generated.key_pem.as_bytes()).unwrap();
        assert_eq!(
            config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        assert_eq!(
            server_config(b"", generated.key_pem.as_bytes()).unwrap_err(),
            TlsError("certificate: no CERTIFICATE block found".into())
        );
        assert_eq!(
            server_config(generated.cert_pem.as_bytes(), b"no key here").unwrap_err(),
            TlsError("private key: no items found".into())
        );
        // A key that is not the certificate's.
        let other = self_signed(&["localhost".to_owned()]).unwrap();
        let err =
            server_config(generated.cert_pem.as_bytes(), other.key_pem.as_bytes()).unwrap_err();
        assert!(err.0.starts_with("certificate and key: "), "{err}");
        assert!(self_signed(&["bücher.example".to_owned()]).is_err());
    }
}
