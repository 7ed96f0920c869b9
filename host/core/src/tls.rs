//! The process's TLS crypto provider. reqwest is built without one (its
//! default, aws-lc, compiles C with cmake at every clean build), so before
//! any HTTPS client is made, ring is installed as the process default.

/// Makes ring the process's rustls crypto provider; calling it again, or
/// after another provider was installed, changes nothing.
pub fn ready() {
    // An error only says a provider is installed already: fine either way.
    let _ = rustls::crypto::ring::default_provider().install_default();
}
