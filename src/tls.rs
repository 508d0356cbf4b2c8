//! The process-wide TLS crypto provider (ring), installed once before any HTTPS client.
//!
//! reqwest is built without a default provider so the binary does not carry aws-lc; rustls
//! then needs one installed explicitly.

use std::sync::Once;

pub fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // An error means another provider is already installed, which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
