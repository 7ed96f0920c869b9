//! Stage five of an action: running it under the network guard — open for
//! an approved action and re-armed at once after, guarded otherwise — and
//! collecting what the guard stopped; then settling the dialogs it opened.

use std::time::Instant;

use super::Event;
use super::approval::Approval;
use super::ctx::Ctx;
use super::resolve::Resolved;
use super::state::{OpenDialog, State, timed};
use crate::browser::guard::{self, BlockedRequest, GuardMode};
use crate::browser::{BrowserError, ToolOutput, tools as mcp};
use crate::error::Error;
use crate::exit::ErrorClass;

/// Under which guard an action runs.
pub(super) enum Clearance {
    /// Unapproved: the guard the decision chose.
    Unapproved(GuardMode),
    /// Approved: the guard lets this one action's requests through, and is
    /// re-armed as soon as it has run.
    Approved(Approval),
}

/// What running the action left.
#[derive(Debug, Default)]
pub(super) struct Ran {
    pub(super) output: Option<ToolOutput>,
    /// The browser could not do it (the model hears why).
    pub(super) failure: Option<BrowserError>,
    /// What the guard stopped while an unapproved action ran.
    pub(super) blocked: Vec<BlockedRequest>,
}

impl Ran {
    pub(super) fn opened_dialog(&self) -> bool {
        self.output.as_ref().is_some_and(|o| !o.dialogs.is_empty())
    }
}

/// Runs `resolved` under `clearance`. `Ok(Err(why))` when the guard could
/// not be set: the action did not run, for it must not run unguarded.
pub(super) async fn run(
    cx: &mut Ctx<'_>,
    state: &mut State,
    resolved: &Resolved,
    clearance: &Clearance,
) -> Result<Result<Ran, String>, Error> {
    let action = &resolved.action;
    let changes = changes(resolved);
    // While a dialog is open the server runs nothing but the answer to it,
    // the guard's calls included: the guard stays as the action that opened
    // the dialog left it (open, when that action was approved).
    let answers_dialog = resolved.runs == mcp::HANDLE_DIALOG;
    let mode = match clearance {
        Clearance::Unapproved(mode) => *mode,
        Clearance::Approved(_) => GuardMode::Open,
    };
    if changes
        && !answers_dialog
        && let Err(why) = set_guard(cx, state, mode).await?
    {
        return Ok(Err(why));
    }
    cx.reporter.busy("Working in the browser…");
    let mut ran = Ran::default();
    if let Some(tool) = &action.mcp_tool {
        let called = timed(
            &mut cx.clocks.browser,
            cx.browser.call(tool, action.mcp_args.clone()),
        )
        .await;
        match called {
            Ok(output) => ran.output = Some(output),
            Err(e) if e.class() == ErrorClass::Failure => ran.failure = Some(e),
            Err(e) => return Err(e.into()),
        }
    }
    let dialog_opened = ran.opened_dialog();
    match clearance {
        Clearance::Approved(approval) => {
            tracing::debug!("ran under {approval}");
            if changes && ran.failure.is_none() {
                state.approved.push(approval.clone());
            }
            // Re-armed at once, so that a page's timer cannot post later
            // under this one action's yes; after the dialog it opened, when
            // it opened one.
            if !dialog_opened && let Err(why) = set_guard(cx, state, guard::INITIAL_MODE).await? {
                tracing::warn!("{why}");
            }
        }
        // Nothing can be asked of the guard until a dialog is answered; the
        // answer's own turn takes what it stopped.
        Clearance::Unapproved(_) if changes && !dialog_opened => {
            ran.blocked = take_blocked(cx, state).await?;
        }
        Clearance::Unapproved(_) => {}
    }
    Ok(Ok(ran))
}

/// Whether `resolved` may change the page (and so runs under the guard).
pub(super) fn changes(resolved: &Resolved) -> bool {
    !resolved.action.read_only && resolved.action.mcp_tool.is_some()
}

/// Dialogs an action left open. An alert only informs and a
/// `beforeunload` only asks to leave: the host answers both itself, so
/// neither stalls a run. A confirm or prompt is page state the driver sees
/// and answers, through the same decision as any action.
pub(super) async fn settle_dialogs(
    cx: &mut Ctx<'_>,
    state: &mut State,
    output: Option<&ToolOutput>,
    approved: bool,
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
        cx.reporter.emit(Event::DialogAnswered {
            turn: state.turn,
            kind: first.kind.clone(),
            message: first.message.clone(),
            accepted: true,
        });
        let answered = timed(
            &mut cx.clocks.browser,
            cx.browser
                .call(mcp::HANDLE_DIALOG, serde_json::json!({ "accept": true })),
        )
        .await?;
        dialogs = answered.dialogs;
    }
    Ok(None)
}

/// Puts `mode` in force before an action. `Ok(Err(why))` when it could
/// not be: the action must not run unguarded.
async fn set_guard(
    cx: &mut Ctx<'_>,
    state: &State,
    mode: GuardMode,
) -> Result<Result<(), String>, Error> {
    let Some(guard) = &state.guard else {
        return Ok(Ok(()));
    };
    let started = Instant::now();
    let set = timed(&mut cx.clocks.browser, guard.set_mode(cx.browser, mode)).await;
    cx.clocks.safety += started.elapsed();
    match set {
        Ok(()) => Ok(Ok(())),
        Err(e) if e.class() == ErrorClass::Failure => Ok(Err(format!(
            "The network guard could not be set ({e}); nothing was done. Try the action again."
        ))),
        Err(e) => Err(e.into()),
    }
}

/// What the guard stopped during the action just run. A guard that cannot
/// say counts as having stopped something unknown: the person is asked
/// rather than the run going on as if nothing happened.
async fn take_blocked(cx: &mut Ctx<'_>, state: &State) -> Result<Vec<BlockedRequest>, Error> {
    let Some(guard) = &state.guard else {
        return Ok(Vec::new());
    };
    let started = Instant::now();
    let taken = timed(&mut cx.clocks.browser, guard.take_blocked(cx.browser)).await;
    cx.clocks.safety += started.elapsed();
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

/// How many alerts in a row the host answers by itself before it lets the
/// next look fail: a page that opens alerts forever must not hold the run.
const MAX_AUTO_DIALOGS: usize = 5;
