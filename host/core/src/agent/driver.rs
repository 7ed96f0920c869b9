//! Who decides each turn: a model, the offline policy acting as one, or an
//! MCP client's model whose calls arrive one at a time.

use tokio::sync::{mpsc, oneshot};

use super::offline::{self, OfflinePolicy};
use super::state::OpenDialog;
use super::toolset::Toolset;
use crate::llm::{Completion, Provider, ToolCall, Usage};
use crate::page::Snapshot;

/// Who decides each turn.
pub enum Driver {
    Model(Box<dyn Provider>),
    Offline(OfflinePolicy),
    /// The client's model, to the host just another model: each call it
    /// makes is one turn, through the same steps as any other.
    Client(ClientModel),
}

impl Driver {
    pub fn label(&self) -> String {
        match self {
            Driver::Model(p) => format!("{} ({})", p.model(), p.name()),
            Driver::Offline(_) => "offline policy (no model)".into(),
            Driver::Client(client) => client.label.clone(),
        }
    }

    /// What `tokens` cost with this driver; the offline policy costs nothing.
    pub fn cost_usd(
        &self,
        tokens: crate::feed::result::Tokens,
        prices: &std::collections::BTreeMap<String, crate::llm::pricing::Price>,
    ) -> Option<f64> {
        match self {
            Driver::Model(p) => crate::llm::pricing::cost_usd(
                p.name(),
                p.model(),
                crate::llm::Usage::from(tokens),
                prices,
            ),
            // Neither spends anything of the host's: the client pays its own model.
            Driver::Offline(_) | Driver::Client(_) => Some(0.0),
        }
    }
}

/// The plan's move where it knows the way: `None` when no remaining step
/// of the plan matches the page (the model takes this turn), with why.
pub(super) fn plan_completion(
    policy: &mut OfflinePolicy,
    toolset: &dyn Toolset,
    snapshot: &Snapshot,
    dialog: Option<&OpenDialog>,
    verified: bool,
    turn: u32,
) -> Result<Completion, String> {
    if let Some(open) = dialog {
        return dialog_answer(open, turn, "plan");
    }
    match policy.next(snapshot, verified) {
        offline::Move::Complete {
            success: false,
            reason,
        } => Err(reason),
        other => Ok(completion_of(other, toolset, turn, "plan")),
    }
}

/// The offline policy's move as a model would have made it.
pub(super) fn offline_completion(
    policy: &mut OfflinePolicy,
    toolset: &dyn Toolset,
    snapshot: &Snapshot,
    dialog: Option<&OpenDialog>,
    verified: bool,
    turn: u32,
) -> Completion {
    if let Some(open) = dialog {
        return dialog_answer(open, turn, "offline").unwrap_or_else(|reason| {
            completion_of(
                offline::Move::Complete {
                    success: false,
                    reason,
                },
                toolset,
                turn,
                "offline",
            )
        });
    }
    completion_of(policy.next(snapshot, verified), toolset, turn, "offline")
}

/// The host's claim of success for a model's run, once the host has
/// verified the page itself: the claim the model would make next, without
/// asking it (the claim is judged again like any other).
pub(super) fn verified_completion(toolset: &dyn Toolset, turn: u32) -> Completion {
    completion_of(
        offline::Move::Complete {
            success: true,
            reason: "The page confirms the cancellation, as the host verified it".to_owned(),
        },
        toolset,
        turn,
        "host",
    )
}

/// The plan's answer to a dialog the page has open: it accepts the site's
/// own confirmation that its approved step opened (the pipeline still
/// judges whether that yes covers it, and asks if not); it knows nothing of
/// any other dialog.
fn dialog_answer(open: &OpenDialog, turn: u32, prefix: &str) -> Result<Completion, String> {
    if open.opened_under.is_none() {
        return Err(format!(
            "a {} dialog is open (\"{}\") that no step of the plan opened",
            open.dialog.kind, open.dialog.message
        ));
    }
    Ok(Completion {
        text: Some(format!(
            "The page asks \"{}\" about the step the human approved: accept it",
            open.dialog.message
        )),
        tool_calls: vec![ToolCall {
            id: format!("{prefix}-{turn}"),
            name: crate::browser::tools::HANDLE_DIALOG.to_owned(),
            arguments: Ok(serde_json::json!({ "accept": true })),
        }],
        usage: Usage::default(),
        stop_reason: Some("tool_use".into()),
    })
}

/// A move of the plan as a model's reply, its call's id starting `prefix`.
fn completion_of(
    next: offline::Move,
    toolset: &dyn Toolset,
    turn: u32,
    prefix: &str,
) -> Completion {
    let (text, name, arguments) = match next {
        offline::Move::Act {
            step,
            description,
            hint,
            element,
        } => {
            let (name, args) = toolset.offline_call(hint.action, &element, hint.value.as_deref());
            let verb = match hint.action {
                crate::plugin::HintAction::Click => "click",
                crate::plugin::HintAction::Select => "choose in",
                crate::plugin::HintAction::Fill => "fill in",
            };
            let text = format!(
                "Step {step} of the plan ({description}): {verb} {} \"{}\"",
                element.role, element.name
            );
            (text, name, args)
        }
        offline::Move::Visit { url } => (
            format!("The plan looks for the account at {url}"),
            crate::browser::tools::NAVIGATE.to_owned(),
            serde_json::json!({ "url": url }),
        ),
        offline::Move::Complete { success, reason } => (
            reason.clone(),
            "complete_task".to_owned(),
            serde_json::json!({ "status": if success { "success" } else { "failed" }, "reason": reason }),
        ),
    };
    Completion {
        text: Some(text),
        tool_calls: vec![ToolCall {
            id: format!("{prefix}-{turn}"),
            name,
            arguments: Ok(arguments),
        }],
        usage: Usage::default(),
        stop_reason: Some("tool_use".into()),
    }
}

/// One call of the client's model, and where its result goes.
#[derive(Debug)]
pub struct ClientCall {
    pub call: ToolCall,
    pub reply: oneshot::Sender<ClientReply>,
}

/// What the host answered a client's call: the same tool result a model
/// would get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientReply {
    pub content: String,
    pub is_error: bool,
}

/// The run's end of an MCP client's model.
#[derive(Debug)]
pub struct ClientModel {
    label: String,
    calls: mpsc::Receiver<ClientCall>,
    /// Where the result of the call being worked on goes.
    waiting: Option<oneshot::Sender<ClientReply>>,
}

/// The server's end: it sends each call the client makes.
pub type ClientCalls = mpsc::Sender<ClientCall>;

/// A client model named `label` (for the record) and the end that feeds it.
pub fn client_model(label: impl Into<String>) -> (ClientCalls, ClientModel) {
    // One call at a time: the server waits for each result before the next.
    let (tx, rx) = mpsc::channel(1);
    let model = ClientModel {
        label: label.into(),
        calls: rx,
        waiting: None,
    };
    (tx, model)
}

impl ClientModel {
    /// The client's next call as a model's reply; `None` once the client
    /// has closed the session.
    pub(super) async fn next(&mut self) -> Option<Completion> {
        let ClientCall { call, reply } = self.calls.recv().await?;
        self.waiting = Some(reply);
        Some(Completion {
            text: None,
            tool_calls: vec![call],
            usage: Usage::default(),
            stop_reason: Some("tool_use".into()),
        })
    }

    /// The result of the call just worked on, to the client waiting for it.
    pub(super) fn deliver(&mut self, content: &str, is_error: bool) {
        if let Some(reply) = self.waiting.take() {
            let _ = reply.send(ClientReply {
                content: content.to_owned(),
                is_error,
            });
        }
    }
}
