//! The error taxonomy at the top of the library. Each layer has its own typed
//! error (`PluginError`, `BrowserError`, `LlmError`); this one gathers them and
//! knows which exit code each kind of failure means.

use std::path::PathBuf;

use crate::browser::BrowserError;
use crate::llm::LlmError;
use crate::plugin::PluginError;

/// What kind of failure an error is, which decides the process's exit code
/// (seed 000 §2.8.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The task failed, was not verified or was rejected: exit 1.
    Failure,
    /// Missing key, unknown service, bad setting, nothing to run with: exit 2.
    Configuration,
    /// The MCP server or the model could not be reached: exit 3.
    Connection,
    /// The user pressed Ctrl+C: exit 130.
    Interrupted,
}

impl ErrorClass {
    pub const fn exit_code(self) -> u8 {
        match self {
            ErrorClass::Failure => 1,
            ErrorClass::Configuration => 2,
            ErrorClass::Connection => 3,
            ErrorClass::Interrupted => 130,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Configuration(String),

    #[error("Unknown service '{name}'. Available services: {}", available.join(", "))]
    ServiceNotFound {
        name: String,
        available: Vec<String>,
    },

    #[error(transparent)]
    Plugin(#[from] PluginError),

    #[error(transparent)]
    Browser(#[from] BrowserError),

    #[error(transparent)]
    Llm(#[from] LlmError),

    #[error("{context}: {path}: {source}")]
    Io {
        context: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Configuration(_) | Error::ServiceNotFound { .. } => ErrorClass::Configuration,
            Error::Plugin(e) => e.class(),
            Error::Browser(e) => e.class(),
            Error::Llm(e) => e.class(),
            Error::Io { .. } => ErrorClass::Failure,
            Error::Interrupted => ErrorClass::Interrupted,
        }
    }

    pub fn io(context: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            context,
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
