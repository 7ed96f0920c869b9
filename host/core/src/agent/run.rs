//! Stage five of an action: running it under the network guard — its
//! requests released for an approved action (each recorded: the evidence a
//! cancellation needs) and the guard re-armed in the same call that says
//! what it sent; held or stopped otherwise — and collecting what the guard
//! held, stopped and released; releasing or aborting what it holds once
//! the person answered (one call each, the guard re-armed first, so only
//! what the person was shown goes under their yes); then settling the
//! dialogs the action opened. A guard that cannot be re-armed ends the run.
//!
//! An unapproved action is watched while its call runs
//! ([`NetworkGuard::watch`], beside it): the moment the guard holds a
//! request, the run returns with the call still in flight, so the person
//! is asked at once and the answer goes beside the call, which Playwright
//! MCP would otherwise hold up to 5 s waiting for the held request.

use std::future::Future;
use std::pin::Pin;
use std::time::Instant;

use super::ctx::Ctx;
use super::resolve::Resolved;
use super::state::{OpenDialog, Released, State, timed};
use super::yes::{Approval, Spent};
use crate::browser::guard::{
    self, BlockedRequest, GuardMode, HeldRequest, NetworkGuard, Shown, Taken,
};
use crate::browser::{Browser, BrowserError, ToolOutput, tools as mcp};
use crate::error::Error;
use crate::exit::ErrorClass;
use crate::feed::event::Event;

/// Under which guard an action runs.
pub(super) enum Clearance {
    /// Unapproved: the guard the decision chose.
    Unapproved(GuardMode),
    /// Approved: the guard lets this one action's requests through, and is
    /// re-armed as soon as it has run. [`run`] spends the yes.
    Approved(Approval),
}

/// How long a watch beside an action's call waits for a held request: past
/// Playwright MCP's own waits for an action (5 s for its requests, 10 s
/// for the page a navigation loads), so a call outlives its watch only when
/// it ends by its timeout.
const WATCH_MS: u64 = 16_000;

/// An action's call still in flight: it waits on a request the guard holds.
pub(super) type InFlight<'a> =
    Pin<Box<dyn Future<Output = Result<ToolOutput, BrowserError>> + Send + 'a>>;

/// What running the action left.
#[derive(Default)]
pub(super) struct Ran<'a> {
    /// The action's call, when the guard held a request before it ended:
    /// [`finish`] waits for it once the person answered.
    pub(super) in_flight: Option<InFlight<'a>>,
    /// The yes the action ran under, spent ([`Clearance::Approved`]).
    pub(super) approved: Option<Spent>,
    pub(super) output: Option<ToolOutput>,
    /// The browser could not do it (the model hears why).
    pub(super) failure: Option<BrowserError>,
    /// Requests to other sites the guard stopped while it ran unapproved.
    pub(super) stopped: Vec<BlockedRequest>,
    /// Requests the guard holds, waiting for the person's answer (for an
    /// approved action: a redirect of it that reads as a commit, which the
    /// yes did not cover).
    pub(super) held: Vec<HeldRequest>,
    /// The guard could not be re-armed after an approved action: it may
    /// still be open, so the run must end.
    pub(super) rearm_failed: Option<String>,
}

impl Ran<'_> {
    pub(super) fn opened_dialog(&self) -> bool {
        self.output.as_ref().is_some_and(|o| !o.dialogs.is_empty())
    }
}

/// Runs `resolved` under `clearance`. `shown`: the request the action's
/// question showed (`question::shown_request`), which an approved action's yes
/// still covers, once, should the page send it after the call ended.
/// `Ok(Err(why))` when the guard could not be set: the action did not
/// run, for it must not run unguarded.
pub(super) async fn run<'a>(
    cx: &mut Ctx<'a>,
    state: &mut State,
    resolved: &Resolved,
    clearance: Clearance,
    shown: Option<Shown>,
) -> Result<Result<Ran<'a>, String>, Error> {
    let action = &resolved.action;
    let changes = changes(resolved);
    // While a dialog is open the server runs nothing but the answer to it,
    // the guard's calls included: the guard stays as the action that opened
    // the dialog left it (open, when that action was approved).
    let answers_dialog = resolved.runs == mcp::HANDLE_DIALOG;
    // The yes is spent here, as the guard opens for it: whatever follows,
    // it opens nothing again.
    let (mode, approved) = match clearance {
        Clearance::Unapproved(mode) => (mode, None),
        Clearance::Approved(approval) => (
            GuardMode::Approved {
                turn: state.turn,
                commits: approval.final_step(),
            },
            Some(approval.spend()),
        ),
    };
    if changes
        && !answers_dialog
        && let Err(why) = set_guard(cx, state, mode).await?
    {
        return Ok(Err(why));
    }
    cx.reporter.busy("Working in the browser…");
    let mut ran = Ran {
        approved,
        ..Ran::default()
    };
    if let Some(tool) = &action.mcp_tool {
        let browser: &'a Browser = cx.browser;
        let (tool, args) = (tool.clone(), action.mcp_args.clone());
        let mut call: InFlight<'a> = Box::pin(async move { browser.call(&tool, args).await });
        let started = Instant::now();
        let watched = match (&state.guard, &ran.approved) {
            (Some(guard), None) if changes && !answers_dialog => {
                watch_beside(browser, guard, &mut call).await
            }
            _ => Watched::Ended(Box::new(call.as_mut().await)),
        };
        cx.clocks.browser += started.elapsed();
        match watched {
            Watched::Held(held) => {
                ran.held = held;
                ran.in_flight = Some(call);
                state.in_flight = true;
                return Ok(Ok(ran));
            }
            Watched::Ended(called) => land(&mut ran, *called)?,
        }
    }
    let dialog_opened = ran.opened_dialog();
    // Nothing can be asked of the guard until a dialog is answered; the
    // answer's own turn takes what the action left.
    if !changes || dialog_opened {
        return Ok(Ok(ran));
    }
    match ran.approved.clone() {
        Some(approval) => {
            tracing::debug!("ran under {approval}");
            // Re-armed in the same call that says what the action sent, so
            // that a page's timer cannot post later under this one yes; only
            // the request the person was shown may still go, once.
            let owed = shown.as_ref();
            let taken = match take_and_set(cx, state, guard::INITIAL_MODE, owed).await? {
                Ok(taken) => taken,
                Err(why) => {
                    ran.rearm_failed = Some(why);
                    return Ok(Ok(ran));
                }
            };
            state.owed = owed.map(|_| approval.clone());
            record_released(cx, state, &taken, &approval);
            if ran.failure.is_none() {
                state.approved.push(approval);
            }
            ran.stopped = taken.stopped;
            ran.held = taken.held;
        }
        None => {
            let taken = take(cx, state).await?;
            ran.stopped = taken.stopped;
            ran.held = taken.held;
        }
    }
    Ok(Ok(ran))
}

/// How an action's call went while it was watched.
enum Watched {
    /// It ended (the guard held nothing meanwhile, or not in time).
    Ended(Box<Result<ToolOutput, BrowserError>>),
    /// The guard holds these while the call still waits.
    Held(Vec<HeldRequest>),
}

/// Runs the action's `call` with a watch beside it: whichever comes first,
/// the call's end or a request held. A watch that fails or sees nothing in
/// time leaves the call to end as it would have (its requests are taken
/// after, as ever). A watch dropped unread loses nothing: it takes nothing.
async fn watch_beside(browser: &Browser, guard: &NetworkGuard, call: &mut InFlight<'_>) -> Watched {
    let watch = guard.watch(browser, WATCH_MS);
    tokio::pin!(watch);
    tokio::select! {
        biased;
        called = call.as_mut() => Watched::Ended(Box::new(called)),
        watched = &mut watch => match watched {
            Ok(held) if !held.is_empty() => Watched::Held(held),
            Ok(_) => Watched::Ended(Box::new(call.as_mut().await)),
            Err(e) => {
                tracing::debug!("the watch beside the action failed: {e}");
                Watched::Ended(Box::new(call.as_mut().await))
            }
        },
    }
}

/// An action's call's end, into `ran`: its output, or why the browser could
/// not do it. A lost connection or a timeout ends the run.
fn land(ran: &mut Ran<'_>, called: Result<ToolOutput, BrowserError>) -> Result<(), Error> {
    match called {
        Ok(output) => ran.output = Some(output),
        Err(e) if e.class() == ErrorClass::Failure => ran.failure = Some(e),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// Waits for the action's call left in flight by [`run`] (it ends once its
/// held requests are answered) and takes what the guard saw since the
/// answer: what the action sent after it, to be asked about like any
/// follow-up. Nothing to do when no call is in flight.
pub(super) async fn finish(
    cx: &mut Ctx<'_>,
    state: &mut State,
    ran: &mut Ran<'_>,
) -> Result<Taken, Error> {
    if !wait_in_flight(cx, state, ran).await? {
        return Ok(Taken::default());
    }
    if ran.opened_dialog() {
        // Nothing can be asked of the guard until the dialog is answered;
        // the answer's own turn takes what the action left.
        return Ok(Taken::default());
    }
    take(cx, state).await
}

/// Waits for the action's call left in flight, if any (`true` then), so
/// that no call of the host's overlaps its end; what it sent after is left
/// to the guard's next take.
pub(super) async fn wait_in_flight(
    cx: &mut Ctx<'_>,
    state: &mut State,
    ran: &mut Ran<'_>,
) -> Result<bool, Error> {
    let Some(call) = ran.in_flight.take() else {
        return Ok(false);
    };
    let called = timed(&mut cx.clocks.browser, call).await;
    state.in_flight = false;
    land(ran, called)?;
    Ok(true)
}

/// The person said yes to the requests `held`, which an unapproved action
/// sent: in one guard call the guard is re-armed, each of them continues
/// (recorded as released by `approval`: the evidence a cancellation needs)
/// and the page they lead to loads. What else the page sent meanwhile is
/// returned: held requests the yes did not cover (to be asked about) and
/// stopped ones, with the yes, spent. `Ok(Err(why))` when the guard could
/// not say: the run ends, for it may be open.
pub(super) async fn release(
    cx: &mut Ctx<'_>,
    state: &mut State,
    held: &[HeldRequest],
    approval: Approval,
) -> Result<Result<(Taken, Spent), String>, Error> {
    let approval = approval.spend();
    let ids: Vec<u64> = held.iter().map(|h| h.id).collect();
    let settled = settle(cx, state, &ids, true).await?;
    let taken = match settled {
        Ok(taken) => taken,
        Err(why) => return Ok(Err(why)),
    };
    let before = state.released.len();
    for request in held {
        state.released.push(Released {
            turn: state.turn,
            method: request.method.clone(),
            url: request.url.clone(),
            approval: approval.to_string(),
        });
    }
    emit_released(cx, state, before);
    record_released(cx, state, &taken, &approval);
    state.approved.push(approval.clone());
    Ok(Ok((taken, approval)))
}

/// No yes covers them: every request `held` is aborted (and the guard
/// left as the run's default), and the record names each
/// (`guard_blocked`), its why followed by `when`. Nothing the guard held
/// leaves the run unrecorded, whoever refused it. A guard that cannot be
/// reached has nothing waiting any more.
pub(super) async fn refuse(
    cx: &mut Ctx<'_>,
    state: &mut State,
    held: &[HeldRequest],
    when: &str,
) -> Result<(), Error> {
    if held.is_empty() {
        return Ok(());
    }
    let ids: Vec<u64> = held.iter().map(|h| h.id).collect();
    if let Err(why) = settle(cx, state, &ids, false).await? {
        tracing::warn!("{why}");
    }
    cx.reporter.emit(Event::GuardBlocked {
        turn: state.turn,
        requests: held
            .iter()
            .map(|h| BlockedRequest {
                method: h.method.clone(),
                url: h.url.clone(),
                why: format!("{}, {when}", h.why),
                navigation: h.navigation,
            })
            .collect(),
    });
    Ok(())
}

/// One guard call: re-armed, `ids` released or aborted, settled.
async fn settle(
    cx: &mut Ctx<'_>,
    state: &mut State,
    ids: &[u64],
    allow: bool,
) -> Result<Result<Taken, String>, Error> {
    let Some(guard) = &state.guard else {
        return Ok(Ok(Taken::default()));
    };
    let started = Instant::now();
    let settled = if state.in_flight {
        let settling = guard.settle_beside(cx.browser, ids, allow, guard::INITIAL_MODE);
        timed(&mut cx.clocks.browser, settling).await
    } else {
        let settling = guard.settle(cx.browser, ids, allow, guard::INITIAL_MODE);
        timed(&mut cx.clocks.browser, settling).await
    };
    cx.clocks.safety += started.elapsed();
    match settled {
        Ok(taken) => {
            record_late(cx, state, &taken);
            Ok(Ok(taken))
        }
        Err(e) if e.class() == ErrorClass::Failure => Ok(Err(format!(
            "the network guard could not release or re-arm ({e}); the run ends, for it may be open"
        ))),
        Err(e) => Err(e.into()),
    }
}

/// What the action sent, with the guard put back to `mode` in the same
/// call. `Ok(Err(why))` when that failed: the guard may still be open.
async fn take_and_set(
    cx: &mut Ctx<'_>,
    state: &mut State,
    mode: GuardMode,
    owed: Option<&Shown>,
) -> Result<Result<Taken, String>, Error> {
    let Some(guard) = &state.guard else {
        return Ok(Ok(Taken::default()));
    };
    let started = Instant::now();
    let rearming = guard.take_and_set(cx.browser, mode, owed);
    let taken = timed(&mut cx.clocks.browser, rearming).await;
    cx.clocks.safety += started.elapsed();
    match taken {
        Ok(taken) => {
            record_late(cx, state, &taken);
            Ok(Ok(taken))
        }
        Err(e) if e.class() == ErrorClass::Failure => Ok(Err(format!(
            "the network guard could not be re-armed after the approved action ({e}); the run ends, for it may still be open"
        ))),
        Err(e) => Err(e.into()),
    }
}

/// Puts the request an earlier yes was shown, which its action sent after
/// its call ended ([`Shown`], `Taken::late`), into the run's evidence as
/// that yes's. Every guard call that says what was released comes here.
fn record_late(cx: &mut Ctx<'_>, state: &mut State, taken: &Taken) {
    if taken.late.is_empty() {
        return;
    }
    let Some(owed) = state.owed.take() else {
        // Only a re-arm that set `owed` makes the guard owe a request.
        tracing::warn!("the guard released a late request no yes was owed");
        return;
    };
    let late = Taken {
        released: taken.late.clone(),
        ..Taken::default()
    };
    record_released(cx, state, &late, &owed);
}

/// Puts what an approved action released into the run's evidence.
fn record_released(cx: &mut Ctx<'_>, state: &mut State, taken: &Taken, approval: &Spent) {
    let before = state.released.len();
    for request in &taken.released {
        state.released.push(Released {
            turn: state.turn,
            method: request.method.clone(),
            url: request.url.clone(),
            approval: approval.to_string(),
        });
    }
    emit_released(cx, state, before);
}

/// Records what a yes let through since `from`: the evidence, in the run
/// record as well as in the run (`plugin new --from-run` drafts the commit
/// request from it).
fn emit_released(cx: &mut Ctx<'_>, state: &State, from: usize) {
    let requests: Vec<crate::feed::event::ReleasedRequest> = state.released[from..]
        .iter()
        .map(|r| crate::feed::event::ReleasedRequest {
            method: r.method.clone(),
            url: r.url.clone(),
        })
        .collect();
    if !requests.is_empty() {
        cx.reporter.emit(Event::Released {
            turn: state.turn,
            requests,
        });
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
    approval: Option<&Spent>,
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
pub(super) async fn take(cx: &mut Ctx<'_>, state: &mut State) -> Result<Taken, Error> {
    let Some(guard) = &state.guard else {
        return Ok(Taken::default());
    };
    let started = Instant::now();
    let taken = timed(&mut cx.clocks.browser, guard.take(cx.browser)).await;
    cx.clocks.safety += started.elapsed();
    match taken {
        Ok(taken) => {
            record_late(cx, state, &taken);
            Ok(taken)
        }
        Err(e) if e.class() == ErrorClass::Failure => Ok(Taken {
            held: vec![HeldRequest {
                id: 0,
                method: "?".into(),
                url: state.snapshot.url.clone(),
                why: format!("requests the guard could not report ({e})"),
                navigation: false,
                body: String::new(),
                held_at_ms: 0,
            }],
            ..Taken::default()
        }),
        Err(e) => Err(e.into()),
    }
}

/// How many alerts in a row the host answers by itself before it lets the
/// next look fail: a page that opens alerts forever must not hold the run.
const MAX_AUTO_DIALOGS: usize = 5;
