//! The interpreter: one plugin component that runs any declarative
//! `service.toml` (the format in `declarative/README.md`) inside the same
//! sandbox as a Rust plugin. The rules are evaluated here, never in the host.
//!
//! The host hands each instance the file's text on WASI stdin, a bounded
//! in-memory pipe; the component has no other input and no other authority.
//! The file is read and parsed once per instance, on the first call (that is
//! when [`register_service!`] builds the instance).

mod condition;
mod interpreted;

use std::io::Read;

use subterminator_declarative::MAX_FILE_BYTES;
use subterminator_sdk::prelude::*;

pub use interpreted::{EFFECT_FREE_ACTIONS, Interpreted};

/// The plugin: a parsed file, or why there is none.
pub struct Interpreter {
    loaded: Result<Interpreted, String>,
}

impl Interpreter {
    /// A plugin for `text`; a refused file leaves it answering with the
    /// error, so that the host can show it.
    pub fn from_text(text: &str) -> Self {
        Self::loaded(Interpreted::from_text(text).map_err(|e| format!("service.toml: {e}")))
    }

    fn loaded(loaded: Result<Interpreted, String>) -> Self {
        if let Err(error) = &loaded {
            log(LogLevel::Error, error);
        }
        Self { loaded }
    }
}

/// The file's text from stdin, read to one byte past the limit so that a
/// longer one is refused without being held.
fn read_stdin() -> Result<String, String> {
    let limit = u64::try_from(MAX_FILE_BYTES).unwrap_or(u64::MAX);
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("service.toml could not be read from stdin: {e}"))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!(
            "service.toml: the file is over the {MAX_FILE_BYTES}-byte limit"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "service.toml: not UTF-8 text (bad byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

impl Service for Interpreter {
    fn new() -> Self {
        match read_stdin() {
            Ok(text) => Self::from_text(&text),
            Err(error) => Self::loaded(Err(error)),
        }
    }

    /// A refused file answers with an empty id, which the host refuses,
    /// showing the display name: the error.
    fn metadata(&self) -> Metadata {
        match &self.loaded {
            Ok(service) => service.metadata(),
            Err(error) => Metadata {
                display_name: error.clone(),
                ..Metadata::default()
            },
        }
    }

    fn plan(&self) -> Vec<PlanStep> {
        self.loaded
            .as_ref()
            .map(Interpreted::plan)
            .unwrap_or_default()
    }

    fn checkpoint(&self, call: &ToolCall, snapshot: &Snapshot) -> Option<String> {
        self.loaded.as_ref().ok()?.checkpoint(call, snapshot)
    }

    fn verify(&self, snapshot: &Snapshot) -> Verdict {
        self.loaded
            .as_ref()
            .map_or(Verdict::Unknown, |s| s.verify(snapshot))
    }

    fn detect_auth(&self, snapshot: &Snapshot) -> Option<AuthEvent> {
        self.loaded.as_ref().ok()?.detect_auth(snapshot)
    }
}

register_service!(Interpreter);

#[cfg(test)]
mod tests;
