//! Who decides each turn: a model, or the offline policy acting as one.

use super::offline::{self, OfflinePolicy};
use super::profile::ToolProfile;
use crate::llm::{Completion, Provider, ToolCall, Usage};
use crate::page::Snapshot;

/// Who decides each turn.
pub enum Driver {
    Model(Box<dyn Provider>),
    Offline(OfflinePolicy),
}

impl Driver {
    pub fn label(&self) -> String {
        match self {
            Driver::Model(p) => format!("{} ({})", p.model(), p.name()),
            Driver::Offline(_) => "offline policy (no model)".into(),
        }
    }

    /// What `tokens` cost with this driver; the offline policy costs nothing.
    pub fn cost_usd(&self, tokens: super::Tokens) -> Option<f64> {
        match self {
            Driver::Model(p) => crate::llm::pricing::cost_usd(
                p.name(),
                p.model(),
                crate::llm::Usage {
                    input_tokens: tokens.input,
                    output_tokens: tokens.output,
                },
            ),
            Driver::Offline(_) => Some(0.0),
        }
    }
}

/// The offline policy's move as a model would have made it.
pub(super) fn offline_completion(
    policy: &mut OfflinePolicy,
    profile: &dyn ToolProfile,
    snapshot: &Snapshot,
    verified: bool,
    turn: u32,
) -> Completion {
    let (text, name, arguments) = match policy.next(snapshot, verified) {
        offline::Move::Act {
            step,
            description,
            hint,
            element,
        } => {
            let (name, args) = profile.offline_call(hint.action, &element, hint.value.as_deref());
            (format!("Step {step}: {description}"), name, args)
        }
        offline::Move::Complete { success, reason } => (
            reason.clone(),
            "complete_task".to_owned(),
            serde_json::json!({ "status": if success { "success" } else { "failed" }, "reason": reason }),
        ),
    };
    Completion {
        text: Some(text),
        tool_calls: vec![ToolCall {
            id: format!("offline-{turn}"),
            name,
            arguments: Ok(arguments),
        }],
        usage: Usage::default(),
        stop_reason: Some("tool_use".into()),
    }
}
