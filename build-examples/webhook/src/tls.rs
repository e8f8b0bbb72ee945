//! TLS as a cluster calls webhooks (the apiserver calls them over HTTPS only): the serving
//! certificate and its key from PEM files, as a Secret mounted as a volume gives them
//! (`tls.crt`, `tls.key`; cert-manager writes such a Secret). The files are read again when
//! they change, looked at once per `reload_every` at most, so a certificate rotated in place
//! is served without a restart; a rotation that cannot be read keeps the certificate in use.
//!
//! The CRD (or the webhook configuration) names the CA that signed the certificate in
//! `caBundle`, base64 of its PEM: `base64 -w0 ca.crt`, or cert-manager's CA injector
//! (`cert-manager.io/inject-ca-from: <namespace>/<certificate>` on the CRD).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use tokio_rustls::rustls;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;

/// A serving certificate and key, from files, read again when they change.
pub struct CertFiles {
    cert: PathBuf,
    key: PathBuf,
    reload_every: Duration,
    current: Mutex<Current>,
}

struct Current {
    key: Arc<CertifiedKey>,
    checked: Instant,
    modified: (Option<SystemTime>, Option<SystemTime>),
}

impl fmt::Debug for CertFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CertFiles").field("cert", &self.cert).field("key", &self.key).finish_non_exhaustive()
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The certificate chain in `cert` and the private key in `key` (PEM), checked to belong
/// together; an error names the file and what is wrong with it.
fn read(cert: &Path, key: &Path) -> Result<CertifiedKey, String> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| format!("{}: {e}", cert.display()))?
        .collect::<Result<_, _>>()
        .map_err(|e| format!("{}: {e}", cert.display()))?;
    if chain.is_empty() {
        return Err(format!("{}: no PEM `CERTIFICATE` block", cert.display()));
    }
    let der = PrivateKeyDer::from_pem_file(key).map_err(|e| format!("{}: {e}", key.display()))?;
    let signing = provider().key_provider.load_private_key(der).map_err(|e| format!("{}: {e}", key.display()))?;
    let certified = CertifiedKey::new(chain, signing);
    certified
        .keys_match()
        .map_err(|e| format!("the key in {} is not the certificate's in {}: {e}", key.display(), cert.display()))?;
    Ok(certified)
}

impl CertFiles {
    /// The certificate in `cert` and the key in `key`, read now (an error says which file and
    /// why), looked at again every 10 s.
    pub fn load(cert: impl Into<PathBuf>, key: impl Into<PathBuf>) -> Result<CertFiles, String> {
        let (cert, key) = (cert.into(), key.into());
        let certified = read(&cert, &key)?;
        let current =
            Current { key: Arc::new(certified), checked: Instant::now(), modified: (modified(&cert), modified(&key)) };
        Ok(CertFiles { cert, key, reload_every: Duration::from_secs(10), current: Mutex::new(current) })
    }

    /// Looks at the files again at most once per `every`.
    pub fn reload_every(mut self, every: Duration) -> CertFiles {
        self.reload_every = every;
        self
    }

    /// The server configuration serving these files (HTTP/1.1, TLS 1.2 and 1.3).
    pub fn server_config(self) -> Result<Arc<ServerConfig>, String> {
        let mut config = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_cert_resolver(Arc::new(self));
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Arc::new(config))
    }

    fn key(&self) -> Arc<CertifiedKey> {
        let mut current = self.current.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if current.checked.elapsed() >= self.reload_every {
            current.checked = Instant::now();
            let now = (modified(&self.cert), modified(&self.key));
            if now != current.modified {
                // A half-written rotation fails to read (or to match): the next look retries.
                if let Ok(certified) = read(&self.cert, &self.key) {
                    current.key = Arc::new(certified);
                    current.modified = now;
                }
            }
        }
        current.key.clone()
    }
}

impl ResolvesServerCert for CertFiles {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.key())
    }
}
