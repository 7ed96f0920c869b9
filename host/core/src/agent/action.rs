//! One browser action and who proposed it. Every way to act — a model's
//! call, the offline policy's, a replayed step, a retry, an overlay the host
//! dismisses, an MCP client's call — is an [`Action`] with its [`Origin`],
//! and goes through the one pipeline (`pipeline.rs`). A new way to act is a
//! new origin, never a new path.

use serde::Serialize;
use serde_json::Value;

use super::toolset::BrowserAction;

/// Who proposed an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A model the host talks to.
    Model,
    /// The plugin's plan: the offline policy, or plan first before a model.
    Plan,
    /// A step of a remembered path (`--replay`, or the offline policy's
    /// first choice).
    Replay,
    /// The host's second try of an action that failed on something in the
    /// way; it runs only where the decision would not ask.
    Retry,
    /// The host's press on the button that closes an overlay; it runs only
    /// where the decision would not ask.
    Dismissal,
    /// An MCP client's own model, one call a turn.
    Client,
}

impl Origin {
    /// Whether the host itself proposed it. The host never asks the person
    /// for its own moves: where one would need a yes it is not made.
    pub fn is_hosts(self) -> bool {
        matches!(self, Origin::Retry | Origin::Dismissal)
    }
}

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
