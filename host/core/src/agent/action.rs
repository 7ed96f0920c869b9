//! One browser action and who proposed it. Every way to act — a model's
//! call, the offline policy's, a replayed step, a retry, an overlay the host
//! dismisses, an MCP client's call — is an [`Action`] with its [`Origin`],
//! and goes through the one pipeline (`pipeline.rs`). A new way to act is a
//! new origin, never a new path.

use serde_json::Value;

use super::toolset::BrowserAction;

pub use crate::feed::event::Origin;

/// A proposed browser action.
#[derive(Debug, Clone)]
pub struct Action {
    pub origin: Origin,
    /// The tool as its driver named it, and its arguments: what the toolset
    /// translates, and what the record shows.
    pub tool: String,
    pub args: Value,
    /// For a retry: the action that failed, to be aimed again at its
    /// element as the page has it now, instead of translating `tool` anew
    /// (the driver's refs belong to a page that is gone).
    pub again: Option<BrowserAction>,
}

impl Action {
    /// A driver's call.
    pub fn call(origin: Origin, tool: impl Into<String>, args: Value) -> Self {
        Action {
            origin,
            tool: tool.into(),
            args,
            again: None,
        }
    }
}
