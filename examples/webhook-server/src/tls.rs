//! TLS: the serving certificate from PEM files (reloaded when they change) or
//! self-signed (generated, or reused from the files it was written to), offering HTTP/2
//! and HTTP/1.1 by ALPN.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::ServerConfig;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};

use crate::metrics::Metrics;

/// A problem with the certificate, the key or the TLS configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TlsError(pub String);

/// The cryptography used: rustls with *ring*.
pub fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate chain (PEM, leaf first) with its private key (PEM: PKCS#8, PKCS#1 or
/// SEC1), checked to belong together.
pub fn certified_key(cert_pem: &[u8], key_pem: &[u8]) -> Result<CertifiedKey, TlsError> {
    let certs = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError(format!("certificate: {e}")))?;
    if certs.is_empty() {
        return Err(TlsError("certificate: no CERTIFICATE block found".into()));
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| TlsError(format!("private key: {e}")))?;
    CertifiedKey::from_der(certs, key, &crypto_provider())
        .map_err(|e| TlsError(format!("certificate and key: {e}")))
}

/// The serving certificate, replaceable while the server runs.
#[derive(Debug)]
pub struct CertStore {
    current: RwLock<Arc<CertifiedKey>>,
}

impl CertStore {
    /// A store serving `key`.
    pub fn new(key: CertifiedKey) -> Arc<CertStore> {
        Arc::new(CertStore {
            current: RwLock::new(Arc::new(key)),
        })
    }

    /// Serves `key` from the next handshake on.
    pub fn replace(&self, key: CertifiedKey) {
        let key = Arc::new(key);
        match self.current.write() {
            Ok(mut current) => *current = key,
            Err(poisoned) => *poisoned.into_inner() = key,
        }
    }

    /// The certificate served now.
    pub fn current(&self) -> Arc<CertifiedKey> {
        match self.current.read() {
            Ok(current) => current.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

impl ResolvesServerCert for CertStore {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// A server configuration serving the store's certificate, offering HTTP/2 and HTTP/1.1
/// by ALPN over TLS 1.2 and 1.3.
pub fn server_config_with(store: Arc<CertStore>) -> Result<ServerConfig, TlsError> {
    let mut config = ServerConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError(e.to_string()))?
        .with_no_client_auth()
        .with_cert_resolver(store);
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// A server configuration serving a fixed certificate chain and key (PEM).
pub fn server_config(cert_pem: &[u8], key_pem: &[u8]) -> Result<ServerConfig, TlsError> {
    server_config_with(CertStore::new(certified_key(cert_pem, key_pem)?))
}

/// A self-signed certificate and its key.
#[derive(Debug, Clone)]
pub struct SelfSigned {
    /// The certificate, PEM (also the CA a client trusts: the `caBundle`).
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

/// Where a self-signed certificate came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Generated now.
    Generated,
    /// Read back from the files a previous start wrote.
    Reused,
}

/// A self-signed certificate for the names, kept in files: when both `cert_path` and
/// `key_path` exist they are reused (the certificate must cover every name), so clients
/// keep trusting the same certificate across restarts; when neither exists a new one is
/// generated and written (the key readable by its owner only). With only `cert_path`, a
/// new certificate is generated and written on every start.
pub fn self_signed_files(
    names: &[String],
    cert_path: Option<&Path>,
    key_path: Option<&Path>,
) -> Result<(SelfSigned, Origin), TlsError> {
    let read = |p: &Path| {
        std::fs::read_to_string(p)
            .map_err(|e| TlsError(format!("{}: cannot read: {e}", p.display())))
    };
    if let (Some(cert_path), Some(key_path)) = (cert_path, key_path) {
        match (cert_path.exists(), key_path.exists()) {
            (true, true) => {
                let kept = SelfSigned {
                    cert_pem: read(cert_path)?,
                    key_pem: read(key_path)?,
                };
                let key = certified_key(kept.cert_pem.as_bytes(), kept.key_pem.as_bytes())
                    .map_err(|e| TlsError(format!("{}: {e}", cert_path.display())))?;
                covers(&key, names).map_err(|e| {
                    TlsError(format!(
                        "{}: {e}; remove it and {} to generate a new certificate",
                        cert_path.display(),
                        key_path.display()
                    ))
                })?;
                return Ok((kept, Origin::Reused));
            }
            (false, false) => {}
            (cert_exists, _) => {
                let (there, missing) = if cert_exists {
                    (cert_path, key_path)
                } else {
                    (key_path, cert_path)
                };
                return Err(TlsError(format!(
                    "{} exists but {} does not: restore it, or remove both to generate a new certificate",
                    there.display(),
                    missing.display()
                )));
            }
        }
    }
    let generated = self_signed(names)?;
    if let Some(key_path) = key_path {
        write_private(key_path, generated.key_pem.as_bytes())?;
    }
    if let Some(cert_path) = cert_path {
        std::fs::write(cert_path, &generated.cert_pem)
            .map_err(|e| TlsError(format!("{}: cannot write: {e}", cert_path.display())))?;
    }
    Ok((generated, Origin::Generated))
}

/// Checks that a certificate is valid for every name.
fn covers(key: &CertifiedKey, names: &[String]) -> Result<(), TlsError> {
    let leaf = key
        .end_entity_cert()
        .map_err(|e| TlsError(format!("certificate: {e}")))?;
    let cert =
        webpki::EndEntityCert::try_from(leaf).map_err(|e| TlsError(format!("certificate: {e}")))?;
    for name in names {
        let server_name = ServerName::try_from(name.as_str())
            .map_err(|e| TlsError(format!("--san {name:?}: {e}")))?;
        if cert.verify_is_valid_for_subject_name(&server_name).is_err() {
            return Err(TlsError(format!(
                "the certificate is not valid for {name:?}"
            )));
        }
    }
    Ok(())
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<(), TlsError> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options
        .open(path)
        .and_then(|mut f| f.write_all(bytes))
        .map_err(|e| TlsError(format!("{}: cannot write: {e}", path.display())))
}

/// Watches a certificate and key pair of files and serves a new pair once both read
/// back as a valid pair: every `every`, both files are read and, when their bytes
/// changed since the last look, loaded. A pair that does not load (say, the certificate
/// was replaced and the key is not yet) is logged and the current certificate is kept;
/// the next change is tried again. Runs until dropped.
pub async fn watch_files(
    store: Arc<CertStore>,
    cert_path: PathBuf,
    key_path: PathBuf,
    loaded: (Vec<u8>, Vec<u8>),
    every: Duration,
    metrics: Option<Arc<Metrics>>,
) {
    let mut last = (Some(loaded.0), Some(loaded.1));
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    tick.tick().await;
    loop {
        tick.tick().await;
        let now = (
            tokio::fs::read(&cert_path).await.ok(),
            tokio::fs::read(&key_path).await.ok(),
        );
        if now == last {
            continue;
        }
        let result = match &now {
            (Some(cert), Some(key)) => certified_key(cert, key),
            (None, _) => Err(TlsError(format!("{}: cannot read", cert_path.display()))),
            (_, None) => Err(TlsError(format!("{}: cannot read", key_path.display()))),
        };
        last = now;
        let ok = match result {
            Ok(key) => {
                store.replace(key);
                tracing::info!(cert = %cert_path.display(), "serving the renewed certificate");
                true
            }
            Err(e) => {
                tracing::warn!(cert = %cert_path.display(), "keeping the current certificate: the changed files do not load: {e}");
                false
            }
        };
        if let Some(m) = &metrics {
            m.reloaded(ok);
        }
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

    #[test]
    fn self_signed_files_are_reused() {
        let dir = std::env::temp_dir().join(format!(
            "matchcond-webhook-server-tls-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
        let names = ["localhost".to_owned(), "127.0.0.1".to_owned()];
        let (first, origin) = self_signed_files(&names, Some(&cert), Some(&key)).unwrap();
        assert_eq!(origin, Origin::Generated);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&key).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let (second, origin) = self_signed_files(&names, Some(&cert), Some(&key)).unwrap();
        assert_eq!(origin, Origin::Reused);
        assert_eq!(
            (second.cert_pem.as_str(), second.key_pem.as_str()),
            (first.cert_pem.as_str(), first.key_pem.as_str())
        );
        // A name the kept certificate does not cover.
        let err = self_signed_files(&["webhook.example.com".to_owned()], Some(&cert), Some(&key))
            .unwrap_err();
        assert_eq!(
            err.0,
            format!(
                "{}: the certificate is not valid for \"webhook.example.com\"; remove it and {} to generate a new certificate",
                cert.display(),
                key.display()
            )
        );
        // Only one of the two files.
        std::fs::remove_file(&key).unwrap();
        let err = self_signed_files(&names, Some(&cert), Some(&key)).unwrap_err();
        assert_eq!(
            err.0,
            format!(
                "{} exists but {} does not: restore it, or remove both to generate a new certificate",
                cert.display(),
                key.display()
            )
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
