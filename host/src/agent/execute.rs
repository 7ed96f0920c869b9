//! Running an action once it is decided: under the network guard (open for
//! an approved action, guarded otherwise, re-armed at once after), asking
//! the human when the guard stopped something, then settling the dialogs the
//! page opened and looking at the page again.

use std::time::Instant;

use super::act::{Proposed, details};
use super::gather::Gathered;
use super::state::{OpenDialog, State, millis, timed};
use super::step::{Turn, end, rejected, unavailable};
use super::toolset::{BrowserAction, Outcome, Refusal, describe};
use super::{Agent, Event};
use crate::approval::{Answer, ApprovalRequest};
use crate::browser::guard::{self, BlockedRequest, GuardMode};
use crate::browser::{ToolOutput, tools as mcp};
use crate::error::Error;
use crate::exit::ErrorClass;
use crate::page::origin_of;
use crate::safety::RefusalCode;

impl Agent<'_> {
    pub(super) async fn execute(
        &mut self,
        call: Proposed<'_>,
        action: &BrowserAction,
        mode: GuardMode,
        gathered: &Gathered,
        state: &mut State,
    ) -> Result<Turn, Error> {
        let Proposed { tool, args, runs } = call;
        let started = Instant::now();
        let url_before = state.snapshot.url.clone();
        let changes = !action.read_only && action.mcp_tool.is_some();
        // While a dialog is open the server runs nothing but the answer to
        // it, the guard's calls included: the guard stays as the action that
        // opened the dialog left it (open, when that action was approved).
        let answers_dialog = runs == mcp::HANDLE_DIALOG;
        let mut mode = mode;
        let mut guard_note = None;
        // A failed unapproved action may be tried once more (`recover.rs`),
        // aimed at the element as it is then, judged afresh.
        let mut action = action.clone();
        let mut gathered = gathered.clone();
        let mut retried = false;
        let mut blocked_before_retry = Vec::new();
        let (output, failure) = loop {
            if changes
                && !answers_dialog
                && let Err(why) = self.set_guard(mode, state).await?
            {
                let refusal = Refusal::new(RefusalCode::ActionFailed, why);
                return Ok(self.refuse(tool, &refusal, state));
            }
            self.reporter.busy("Working in the browser…");
            let outcome = match &action.mcp_tool {
                Some(mcp_tool) => Some(
                    timed(
                        &mut state.timing.browser,
                        self.browser.call(mcp_tool, action.mcp_args.clone()),
                    )
                    .await,
                ),
                None => None,
            };
            let (mut output, mut failure) = match outcome {
                Some(Ok(output)) => (Some(output), None),
                Some(Err(e)) if e.class() == ErrorClass::Failure => (None, Some(e)),
                Some(Err(e)) => return Err(e.into()),
                None => (None, None),
            };
            let trouble = failure.as_ref().and_then(super::recover::trouble_of);
            if let Some(trouble) = trouble
                && changes
                && mode != GuardMode::Open
                && !retried
            {
                retried = true;
                blocked_before_retry = self.take_blocked(state).await?;
                let retry = if blocked_before_retry.is_empty() {
                    self.recover(tool, args, runs, &action, trouble, state)
                        .await?
                } else {
                    None
                };
                if let Some(retry) = retry {
                    if let Err(why) = self.set_guard(retry.mode, state).await? {
                        let refusal = Refusal::new(RefusalCode::ActionFailed, why);
                        return Ok(self.refuse(tool, &refusal, state));
                    }
                    mode = retry.mode;
                    action = retry.action;
                    gathered = retry.gathered;
                    let again = match &action.mcp_tool {
                        Some(mcp_tool) => {
                            timed(
                                &mut state.timing.browser,
                                self.browser.call(mcp_tool, action.mcp_args.clone()),
                            )
                            .await
                        }
                        None => Ok(ToolOutput::default()),
                    };
                    (output, failure) = match again {
                        Ok(out) => (Some(out), None),
                        Err(e) if e.class() == ErrorClass::Failure => (None, Some(e)),
                        Err(e) => return Err(e.into()),
                    };
                    self.report_recovery(state, runs, trouble, &retry.after, failure.is_none());
                }
            }
            let dialog_opened = output.as_ref().is_some_and(|o| !o.dialogs.is_empty());
            if mode == GuardMode::Open {
                if changes && failure.is_none() {
                    state.approved_commit = true;
                }
                // Re-armed at once, so that a page's timer cannot post later
                // under this one action's yes; after the dialog it opened,
                // when it opened one.
                if !dialog_opened
                    && let Err(why) = self.set_guard(guard::INITIAL_MODE, state).await?
                {
                    tracing::warn!("{why}");
                }
                break (output, failure);
            }
            if dialog_opened {
                // Nothing can be asked of the guard until the dialog is
                // answered; the answer's own turn takes what it stopped.
                break (output, failure);
            }
            let mut blocked = std::mem::take(&mut blocked_before_retry);
            if changes {
                blocked.extend(self.take_blocked(state).await?);
            }
            if blocked.is_empty() {
                break (output, failure);
            }
            self.reporter.emit(Event::GuardBlocked {
                turn: state.turn,
                requests: blocked.clone(),
            });
            let request = ApprovalRequest {
                reason: format!(
                    "the browser stopped {} this action sent without your yes; nothing reached the site. Approve to run the action again and let it through",
                    describe_blocked(&blocked)
                ),
                action: runs.to_owned(),
                target: action.target.as_ref().map(describe),
                shows: gathered.dom.as_ref().map(|d| d.visible_text.clone()),
                details: details(runs, &action, &gathered),
                url: state.snapshot.url.clone(),
                screenshot: self.screenshot(state).await,
                said: None,
            };
            match self.ask(request, state).await {
                Answer::Approved => mode = GuardMode::Open,
                Answer::Rejected => {
                    return Ok(end(rejected(
                        state.turn,
                        &format!("the human did not approve {}", describe_blocked(&blocked)),
                    )));
                }
                Answer::Unavailable(why) => {
                    return Ok(end(rejected(state.turn, &unavailable(&why))));
                }
                Answer::Feedback(feedback) => {
                    guard_note = Some(format!(
                        "The browser stopped {} that this action sent without the human's approval; nothing was sent. User feedback: {feedback}",
                        describe_blocked(&blocked)
                    ));
                    break (output, failure);
                }
            }
        };
        if answers_dialog && failure.is_none() {
            state.dialog = None;
        }
        if changes && failure.is_none() {
            self.took(&url_before, runs, &action, state);
        }
        let dialog = self
            .settle_dialogs(output.as_ref(), mode == GuardMode::Open, state)
            .await?;
        let mut dismissed = Vec::new();
        if dialog.is_none() {
            state.snapshot = timed(
                &mut state.timing.browser,
                self.toolset.look(self.browser, output.as_ref()),
            )
            .await?;
            self.mask_passwords(state).await;
            if let Some(ended) = self.watch_auth(state).await? {
                return Ok(end(ended));
            }
            dismissed = self.clear_overlays(state).await?;
        }
        let page = self.toolset.observe(&state.snapshot);
        let default_output = ToolOutput::default();
        let report_on = match (&failure, &output) {
            (Some(e), _) => Outcome::Failed(e),
            (None, Some(o)) => Outcome::Done(o),
            (None, None) => Outcome::Done(&default_output),
        };
        let mut content = self.toolset.report(&report_on, &page);
        if let Some(note) = guard_note {
            content.push_str(&format!("\n{note}"));
        }
        for note in dismissed {
            content.push_str(&format!("\n{note}"));
        }
        if let Some(open) = &dialog {
            content.push_str(&format!(
                "\nA {} dialog is open: \"{}\". Nothing else works until it is answered: \
                 call browser_handle_dialog with accept true or false.",
                open.dialog.kind, open.dialog.message
            ));
        }
        if let Some(origin) = origin_of(&state.snapshot.url)
            && !state.allowed_origins.contains(&origin)
        {
            content.push_str(&format!(
                "\nNote: this page is outside {}'s sites ({origin}). Go back.",
                self.service.metadata.display_name
            ));
        }
        self.reporter.emit(Event::ToolResult {
            turn: state.turn,
            tool: tool.to_owned(),
            ok: failure.is_none(),
            error: failure.as_ref().map(ToString::to_string),
            url: state.snapshot.url.clone(),
            elapsed_ms: millis(started),
            page: Some(page),
        });
        Ok(Turn::Continue {
            content,
            is_error: failure.is_some(),
        })
    }

    /// Dialogs an action left open. An alert only informs and a
    /// `beforeunload` only asks to leave: the host answers both itself, so
    /// neither stalls a run. A confirm or prompt is page state the model sees
    /// and answers, through the same decision as any action.
    pub(super) async fn settle_dialogs(
        &mut self,
        output: Option<&ToolOutput>,
        approved: bool,
        state: &mut State,
    ) -> Result<Option<OpenDialog>, Error> {
        let Some(output) = output else {
            return Ok(state.dialog.clone());
        };
        let mut dialogs = output.dialogs.clone();
        for _ in 0..MAX_AUTO_DIALOGS {
            let Some(first) = dialogs.first().cloned() else {
                state.dialog = None;
                return Ok(None);
            };
            if !matches!(first.kind.as_str(), "alert" | "beforeunload") {
                let open = OpenDialog {
                    dialog: first,
                    opened_by_commit: approved,
                };
                state.dialog = Some(open.clone());
                return Ok(Some(open));
            }
            self.reporter.emit(Event::DialogAnswered {
                turn: state.turn,
                kind: first.kind.clone(),
                message: first.message.clone(),
                accepted: true,
            });
            let answered = timed(
                &mut state.timing.browser,
                self.browser
                    .call(mcp::HANDLE_DIALOG, serde_json::json!({ "accept": true })),
            )
            .await?;
            dialogs = answered.dialogs;
        }
        Ok(None)
    }
}

impl Agent<'_> {
    /// Puts `mode` in force before an action. `Ok(Err(why))` when it could
    /// not be: the action must not run unguarded.
    pub(super) async fn set_guard(
        &mut self,
        mode: GuardMode,
        state: &mut State,
    ) -> Result<Result<(), String>, Error> {
        let Some(guard) = &state.guard else {
            return Ok(Ok(()));
        };
        let started = Instant::now();
        let set = timed(
            &mut state.timing.browser,
            guard.set_mode(self.browser, mode),
        )
        .await;
        state.timing.safety += started.elapsed();
        match set {
            Ok(()) => Ok(Ok(())),
            Err(e) if e.class() == ErrorClass::Failure => Ok(Err(format!(
                "The network guard could not be set ({e}); nothing was done. Try the action again."
            ))),
            Err(e) => Err(e.into()),
        }
    }

    /// What the guard stopped during the action just run. A guard that
    /// cannot say counts as having stopped something unknown: the human is
    /// asked rather than the run going on as if nothing happened.
    pub(super) async fn take_blocked(
        &mut self,
        state: &mut State,
    ) -> Result<Vec<BlockedRequest>, Error> {
        let Some(guard) = &state.guard else {
            return Ok(Vec::new());
        };
        let started = Instant::now();
        let taken = timed(&mut state.timing.browser, guard.take_blocked(self.browser)).await;
        state.timing.safety += started.elapsed();
        match taken {
            Ok(blocked) => Ok(blocked),
            Err(e) if e.class() == ErrorClass::Failure => Ok(vec![BlockedRequest {
                method: "?".into(),
                url: state.snapshot.url.clone(),
                why: format!("requests the guard could not report ({e})"),
                navigation: false,
            }]),
            Err(e) => Err(e.into()),
        }
    }
}

/// The stopped requests in words, for the person.
fn describe_blocked(blocked: &[BlockedRequest]) -> String {
    let parts: Vec<String> = blocked
        .iter()
        .take(MAX_BLOCKED_SHOWN)
        .map(|b| format!("{} ({} {})", b.why, b.method, b.url))
        .collect();
    let more = blocked.len().saturating_sub(MAX_BLOCKED_SHOWN);
    if more > 0 {
        format!("{} and {more} more", parts.join(", "))
    } else {
        parts.join(", ")
    }
}

/// Stopped requests named in a prompt; the rest are counted.
const MAX_BLOCKED_SHOWN: usize = 3;

/// How many alerts in a row the host answers by itself before it lets the
/// next look fail: a page that opens alerts forever must not hold the run.
const MAX_AUTO_DIALOGS: usize = 5;
