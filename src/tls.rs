//! TLS for the GitLab client: the process-wide crypto provider (ring), and server
//! verification whose system roots are read only when a handshake needs them.
//!
//! reqwest is built without a default provider so the binary does not carry aws-lc; rustls
//! then needs one installed explicitly.
//!
//! Reading the system's roots is the slowest part of starting: on Debian the bundle and
//! the ~150 files of `/etc/ssl/certs` are opened and parsed (293 `statx`, 152 `openat`,
//! some milliseconds) before the first request could leave, and a GitLab on plain http
//! never needs them. So the verifier reads them on first use, and for an https GitLab a
//! thread starts reading them when the client is built, while the first connection is
//! still being opened.

use std::sync::{Arc, Once, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

pub fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // An error means another provider is already installed, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The client configuration for GitLab: HTTP/1.1, TLS 1.2 and 1.3, servers verified by
/// the platform's verifier against the system's roots and `extra` (GITLAB_CA_FILE).
/// `warm` starts reading the system's roots now, on a thread of its own.
pub fn client_config(extra: Vec<CertificateDer<'static>>, warm: bool) -> rustls::ClientConfig {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let verifier = Arc::new(RootsOnDemand {
        extra,
        provider: provider.clone(),
        verifier: OnceLock::new(),
    });
    if warm {
        let verifier = verifier.clone();
        // Without the thread the roots are read at the first handshake instead.
        let _ = std::thread::Builder::new()
            .name("tls-roots".into())
            .spawn(move || {
                let _ = verifier.verifier();
            });
    }
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("ring supports the default protocol versions")
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    // reqwest is built without HTTP/2, and sets this itself only for configurations it
    // builds.
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config
}

/// The platform's verifier, built (which reads the system's roots) on first use.
#[derive(Debug)]
struct RootsOnDemand {
    extra: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
    verifier: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>>,
}

impl RootsOnDemand {
    fn verifier(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        self.verifier
            .get_or_init(|| {
                rustls_platform_verifier::Verifier::new_with_extra_roots(
                    self.extra.iter().cloned(),
                    self.provider.clone(),
                )
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for RootsOnDemand {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
    }

    // The handshake's signatures are checked with the provider's algorithms alone, as the
    // platform's verifier does: no roots are needed for them.
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}
