//! The error taxonomy at the top of the library. Each layer has its own typed
//! error (`PluginError`, `BrowserError`, `LlmError`); this one gathers them and
//! knows which exit code each kind of failure means.

use std::path::PathBuf;

use crate::browser::BrowserError;
use crate::exit::ErrorClass;
use crate::llm::LlmError;
use crate::plugin::PluginError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The text comes whole from the call site, which must name the fix.
    #[error("{0}")]
    Configuration(String),

    #[error(transparent)]
    Plugin(#[from] PluginError),

    #[error(transparent)]
    Browser(#[from] BrowserError),

    #[error(transparent)]
    Llm(#[from] LlmError),

    #[error("{context}: {path}: {source}; check the path, its permissions and the free disk space")]
    Io {
        context: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("interrupted (Ctrl+C); run the command again when you are ready")]
    Interrupted,
}

impl Error {
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Configuration(_) => ErrorClass::Configuration,
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

#[cfg(test)]
mod tests;
