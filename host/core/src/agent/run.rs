//! Stage five of an action: running it under the network guard — its
//! requests released for an approved action (each recorded: the evidence a
//! cancellation needs) and the guard re-armed at once after; held or stopped
//! otherwise — and collecting what the guard held, stopped and released;
//! releasing or aborting what it holds once the person answered; then
//! settling the dialogs the action opened.

use std::time::Instant;

use super::Event;
use super::approval::Approval;
use super::ctx::Ctx;
use super::resolve::Resolved;
use super::state::{OpenDialog, Released, State, timed};
use crate::browser::guard::{self, BlockedRequest, GuardMode, HeldRequest, Taken};
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
    /// Requests to other sites the guard stopped while it ran unapproved.
    pub(super) stopped: Vec<BlockedRequest>,
    /// Requests the guard holds, waiting for the person's answer.
    pub(super) held: Vec<HeldRequest>,
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
        Clearance::Approved(_) => GuardMode::Approved { turn: state.turn },
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
    // Nothing can be asked of the guard until a dialog is answered; the
    // answer's own turn takes what the action left.
    if !changes || dialog_opened {
        return Ok(Ok(ran));
    }
    let taken = take(cx, state).await?;
    match clearance {
        Clearance::Approved(approval) => {
            tracing::debug!("ran under {approval}");
            if ran.failure.is_none() {
                state.approved.push(approval.clone());
            }
            record_released(state, &taken, approval);
            // Re-armed at once, so that a page's timer cannot post later
            // under this one action's yes.
            if let Err(why) = set_guard(cx, state, guard::INITIAL_MODE).await? {
                tracing::warn!("{why}");
            }
        }
        Clearance::Unapproved(_) => {
            ran.stopped = taken.stopped;
            ran.held = taken.held;
        }
    }
    Ok(Ok(ran))
}

/// The person said yes to the requests `held`, which an unapproved action
/// sent: each continues, and so do the rest of that one action's requests
/// until it settles (a redirect's page, a script's follow-up), all recorded
/// as released by `approval`; then the guard is re-armed.
pub(super) async fn release(
    cx: &mut Ctx<'_>,
    state: &mut State,
    held: &[HeldRequest],
    approval: &Approval,
) -> Result<(), Error> {
    if let Err(why) = set_guard(cx, state, GuardMode::Approved { turn: state.turn }).await? {
        tracing::warn!("{why}");
    }
    for request in held {
        decide(cx, state, request.id, true).await?;
        state.released.push(Released {
            turn: state.turn,
            method: request.method.clone(),
            url: request.url.clone(),
            approval: approval.to_string(),
        });
    }
    let taken = take(cx, state).await?;
    record_released(state, &taken, approval);
    state.approved.push(approval.clone());
    if let Err(why) = set_guard(cx, state, guard::INITIAL_MODE).await? {
        tracing::warn!("{why}");
    }
    Ok(())
}

/// The person did not say yes: every request `held` is aborted.
pub(super) async fn abort(
    cx: &mut Ctx<'_>,
    state: &State,
    held: &[HeldRequest],
) -> Result<(), Error> {
    for request in held {
        decide(cx, state, request.id, false).await?;
    }
    Ok(())
}

/// Puts what an approved action released into the run's evidence.
fn record_released(state: &mut State, taken: &Taken, approval: &Approval) {
    for request in &taken.released {
        state.released.push(Released {
            turn: state.turn,
            method: request.method.clone(),
            url: request.url.clone(),
            approval: approval.to_string(),
        });
    }
}

async fn decide(cx: &mut Ctx<'_>, state: &State, id: u64, allow: bool) -> Result<(), Error> {
    let Some(guard) = &state.guard else {
        return Ok(());
    };
    let started = Instant::now();
    let decided = timed(&mut cx.clocks.browser, guard.decide(cx.browser, id, allow)).await;
    cx.clocks.safety += started.elapsed();
    match decided {
        Ok(_) => Ok(()),
        // The page went away with the request: nothing is waiting any more.
        Err(e) if e.class() == ErrorClass::Failure => {
            tracing::warn!("the guard could not decide request {id}: {e}");
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
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
    approval: Option<&Approval>,
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
                opened_under: approval.cloned(),
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

/// Puts `mode` in force before an action (or around the sign-in pause,
/// `auth.rs`). `Ok(Err(why))` when it could not be: the action must not run
/// unguarded.
pub(super) async fn set_guard(
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

/// What the guard saw during the action just run. A guard that cannot say
/// counts as having held something unknown: the person is asked (and the
/// answer cannot release anything) rather than the run going on as if
/// nothing happened.
async fn take(cx: &mut Ctx<'_>, state: &State) -> Result<Taken, Error> {
    let Some(guard) = &state.guard else {
        return Ok(Taken::default());
    };
    let started = Instant::now();
    let taken = timed(&mut cx.clocks.browser, guard.take(cx.browser)).await;
    cx.clocks.safety += started.elapsed();
    match taken {
        Ok(taken) => Ok(taken),
        Err(e) if e.class() == ErrorClass::Failure => Ok(Taken {
            held: vec![HeldRequest {
                id: 0,
                method: "?".into(),
                url: state.snapshot.url.clone(),
                why: format!("requests the guard could not report ({e})"),
                navigation: false,
                body: String::new(),
            }],
            ..Taken::default()
        }),
        Err(e) => Err(e.into()),
    }
}

/// How many alerts in a row the host answers by itself before it lets the
/// next look fail: a page that opens alerts forever must not hold the run.
const MAX_AUTO_DIALOGS: usize = 5;
