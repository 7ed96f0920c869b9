//! What can go wrong talking to a model. Every message that came from a server
//! has been through the transport's redaction before it lands here, so no
//! variant can carry an API key.

use std::time::Duration;

use crate::exit::ErrorClass;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// Missing key, unsupported model, bad base URL, unusable tool list.
    #[error("{0}")]
    Configuration(String),

    /// One attempt ran past the per-call limit. Not retried: a model that
    /// needs more than a minute to answer will most likely need it again, and
    /// the provider bills the abandoned generation.
    #[error("{provider} API call timed out after {}s", timeout.as_secs_f64())]
    Timeout { provider: String, timeout: Duration },

    /// No HTTP answer at all (refused, reset, DNS, TLS), on every attempt.
    #[error("Could not reach the {provider} API at {url} ({attempts} attempts): {message}")]
    Unreachable {
        provider: String,
        url: String,
        attempts: u32,
        message: String,
    },

    /// The server kept answering 408, 429 or 5xx until the attempts ran out,
    /// or asked us to wait longer than we are willing to.
    #[error("{provider} API unavailable (HTTP {status}, {attempts} attempts): {message}")]
    Unavailable {
        provider: String,
        status: u16,
        attempts: u32,
        message: String,
    },

    /// A 4xx that retrying cannot fix, with the provider's own message.
    #[error("{provider} API rejected the request (HTTP {status}): {message}")]
    Rejected {
        provider: String,
        status: u16,
        message: String,
    },

    /// A 2xx whose body is not the format we asked for.
    #[error("{provider} API sent a response we cannot read: {message}")]
    InvalidResponse { provider: String, message: String },
}

impl LlmError {
    /// Which exit code this failure means.
    ///
    /// 401 and 403 are a bad or unauthorised key, and 404 a model name or base
    /// URL the server does not know: all three are fixed in the configuration,
    /// so they exit 2. Other 4xx (400 above all) mean the request itself was
    /// wrong, which is our failure (exit 1). Everything that is about getting
    /// an answer at all is a connection failure (exit 3).
    pub fn class(&self) -> ErrorClass {
        match self {
            LlmError::Configuration(_) => ErrorClass::Configuration,
            LlmError::Rejected {
                status: 401 | 403 | 404,
                ..
            } => ErrorClass::Configuration,
            LlmError::Rejected { .. } | LlmError::InvalidResponse { .. } => ErrorClass::Failure,
            LlmError::Timeout { .. }
            | LlmError::Unreachable { .. }
            | LlmError::Unavailable { .. } => ErrorClass::Connection,
        }
    }
}
