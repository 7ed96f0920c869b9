//! One browser action, start to end: the facts gathered (`gather.rs`), the
//! one safety decision, the human's yes bound to this action alone, then the
//! action run under the network guard (`execute.rs`).

use std::time::Instant;

use serde_json::Value;

use super::gather::Gathered;
use super::state::State;
use super::step::{Turn, end, rejected, unavailable};
use super::toolset::{BrowserAction, Refusal, describe};
use super::{Agent, Event};
use crate::approval::{Answer, ApprovalRequest, Said};
use crate::browser::guard::GuardMode;
use crate::browser::tools as mcp;
use crate::error::Error;
use crate::safety::{self, Decision, DialogFacts, Facts, PluginAnswer, Policy, RefusalCode};

/// How many times one action is put to the human again because its element
/// changed between the question and the answer; then the run ends.
const MAX_REASKS: u32 = 2;

impl Agent<'_> {
    pub(super) async fn browser_call(
        &mut self,
        tool: &str,
        args: &Value,
        state: &mut State,
    ) -> Result<Turn, Error> {
        let action = match self.toolset.translate(tool, args, &state.snapshot) {
            Ok(action) => action,
            Err(refusal) => return Ok(self.refuse(tool, &refusal, state)),
        };
        let runs = action.mcp_tool.clone().unwrap_or_else(|| tool.to_owned());
        if let Some(refusal) = dialog_refusal(&runs, &action, state) {
            return Ok(self.refuse(tool, &refusal, state));
        }
        let target = action.target.as_ref().map(describe);
        let mut changed: Option<String> = None;
        let mut reasks = 0;
        // Each pass judges the element as it is now; a yes is checked
        // against what its prompt showed, and a change is judged afresh.
        let (gathered, mode) = loop {
            let judging = Instant::now();
            let gathered = self.gather(tool, args, &runs, &action, state).await?;
            let (decision, unapproved) = self.decide(&runs, &action, &gathered, state);
            state.timing.safety += judging.elapsed();
            match decision {
                Decision::Refuse { code, message } => {
                    return Ok(self.refuse(tool, &Refusal::new(code, message), state));
                }
                Decision::Proceed { .. } if action.read_only => break (gathered, unapproved),
                Decision::Proceed { reason } => {
                    self.reporter.emit(Event::CheckpointPassed {
                        turn: state.turn,
                        reason,
                    });
                    break (gathered, unapproved);
                }
                Decision::Ask { reason } => {
                    let reason = match changed.take() {
                        Some(what) => format!(
                            "the element changed after you were asked ({what}); asking again: {reason}"
                        ),
                        None => reason,
                    };
                    let request = ApprovalRequest {
                        reason,
                        action: runs.clone(),
                        target: target.clone(),
                        shows: gathered.dom.as_ref().map(|d| d.visible_text.clone()),
                        details: details(&runs, &action, &gathered),
                        url: state.snapshot.url.clone(),
                        screenshot: self.screenshot(state).await,
                        said: match &gathered.plugin {
                            PluginAnswer::Ask(words) => Some(Said {
                                who: format!("{} plugin", self.service.metadata.display_name),
                                words: words.clone(),
                            }),
                            _ => None,
                        },
                    };
                    match self.ask(request, state).await {
                        Answer::Approved => {}
                        Answer::Rejected => {
                            let what = format!("{runs} {}", target.clone().unwrap_or_default());
                            return Ok(end(rejected(
                                state.turn,
                                &format!("the human did not approve {}", what.trim()),
                            )));
                        }
                        Answer::Unavailable(why) => {
                            return Ok(end(rejected(state.turn, &unavailable(&why))));
                        }
                        Answer::Feedback(feedback) => {
                            let refusal = Refusal::new(
                                RefusalCode::HumanRejected,
                                format!("User feedback: {feedback}"),
                            );
                            return Ok(self.refuse(tool, &refusal, state));
                        }
                    }
                    // The yes was given to what the human saw: if the page
                    // changed the element since, it is judged and asked again.
                    match self.changed_since(&action, &gathered, state).await? {
                        None => break (gathered, GuardMode::Open),
                        Some(_) if reasks >= MAX_REASKS => {
                            return Ok(end(rejected(
                                state.turn,
                                "the element kept changing after each approval",
                            )));
                        }
                        Some(what) => {
                            reasks += 1;
                            changed = Some(what);
                        }
                    }
                }
            }
        };
        self.reporter.emit(Event::ToolCall {
            turn: state.turn,
            tool: runs.clone(),
            target,
            arguments: action.mcp_args.clone(),
        });
        let call = Proposed {
            tool,
            args,
            runs: &runs,
        };
        self.execute(call, &action, mode, &gathered, state).await
    }

    /// The one safety decision, from the facts gathered, and what the
    /// network guard stops should the action run without a yes.
    pub(super) fn decide(
        &self,
        runs: &str,
        action: &BrowserAction,
        gathered: &Gathered,
        state: &State,
    ) -> (Decision, GuardMode) {
        self.decide_for(runs, action, gathered, state, false)
    }

    /// [`Self::decide`], saying whether the host itself presses the button
    /// that closes an overlay.
    pub(super) fn decide_for(
        &self,
        runs: &str,
        action: &BrowserAction,
        gathered: &Gathered,
        state: &State,
        dismissal: bool,
    ) -> (Decision, GuardMode) {
        let plan = self.plan_knowledge();
        let dialog = state.dialog.as_ref().and_then(|open| {
            (runs == mcp::HANDLE_DIALOG).then(|| DialogFacts {
                accept: action.mcp_args.get("accept").and_then(Value::as_bool) == Some(true),
                kind: &open.dialog.kind,
                message: &open.dialog.message,
                opened_by_commit: open.opened_by_commit,
            })
        });
        let facts = Facts {
            tool: runs,
            read_only: action.read_only,
            target: action.target.as_ref(),
            dom: gathered.dom.as_ref(),
            carried: gathered.carried.iter().map(String::as_str).collect(),
            navigate_to: action.navigate_to.as_deref(),
            goes_back: runs == mcp::NAVIGATE_BACK,
            dialog,
            page: &state.snapshot,
            allowed_origins: &state.allowed_origins,
            start_url: &self.options.start_url,
            service: &self.service.metadata.display_name,
            plan,
            commit_urls: &self.service.metadata.commit_url_patterns,
            plugin: gathered.plugin.clone(),
            commit_page: gathered.commit_page.as_ref(),
            dismissal,
        };
        let policy = Policy {
            checkpoints: self.options.checkpoints,
        };
        (
            safety::assess(&facts, policy),
            safety::unapproved_guard(&facts),
        )
    }
}

/// While a dialog is open, nothing but answering it works; with none open,
/// there is nothing to answer.
fn dialog_refusal(runs: &str, action: &BrowserAction, state: &State) -> Option<Refusal> {
    match (&state.dialog, runs == mcp::HANDLE_DIALOG) {
        (Some(open), false) if !action.read_only || action.mcp_tool.is_some() => {
            Some(Refusal::new(
                RefusalCode::ActionFailed,
                format!(
                    "A {} dialog is open (\"{}\"). Answer it first: browser_handle_dialog with accept true or false.",
                    open.dialog.kind, open.dialog.message
                ),
            ))
        }
        (None, true) => Some(Refusal::new(
            RefusalCode::ActionFailed,
            "No dialog is open.",
        )),
        _ => None,
    }
}

/// The model's call as it came, and the Playwright tool it runs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Proposed<'a> {
    pub(super) tool: &'a str,
    pub(super) args: &'a serde_json::Value,
    pub(super) runs: &'a str,
}

/// The action's arguments in words, for the approval prompt.
pub(super) fn details(runs: &str, action: &BrowserAction, gathered: &Gathered) -> Option<String> {
    let args = &action.mcp_args;
    let mut parts = Vec::new();
    if let Some(text) = args.get("text").and_then(Value::as_str) {
        parts.push(format!("text \"{text}\""));
    }
    if args.get("submit").and_then(Value::as_bool) == Some(true) {
        parts.push("then Enter (submits)".to_owned());
    }
    if let Some(key) = args.get("key").and_then(Value::as_str) {
        parts.push(format!("key \"{key}\""));
    }
    if let Some(values) = args.get("values").and_then(Value::as_array) {
        let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        parts.push(format!("option \"{}\"", values.join("\", \"")));
    }
    if let Some(url) = &action.navigate_to {
        parts.push(format!("destination {url}"));
    }
    if runs == mcp::HANDLE_DIALOG {
        let accept = args.get("accept").and_then(Value::as_bool) == Some(true);
        parts.push(if accept { "accept" } else { "dismiss" }.to_owned());
    }
    if let Some(dom) = &gathered.dom {
        if let Some(action) = &dom.form_action {
            let method = dom.form_method.as_deref().unwrap_or("get").to_uppercase();
            parts.push(format!("submits a form: {method} {action}"));
        } else if let Some(href) = &dom.href {
            parts.push(format!("leads to {href}"));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
