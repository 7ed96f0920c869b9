//! One action, start to end, whatever proposed it: resolve the target →
//! read its facts → decide → ask → run under the guard → look again. Every
//! way to act goes through here; what differs by [`Origin`] is only what is
//! reported and that the host never asks for its own moves (a retry or a
//! dismissal the decision would not let run unasked is not made).
//!
//! A yes is given to what the person was shown: if the element changed
//! between the question and the answer, it is judged and asked about again.

use std::time::Instant;

use super::action::{Action, Origin};
use super::ask::{self, Reply, rejected};
use super::ctx::Ctx;
use super::decide::{accepts_dialog, decide, final_step};
use super::facts::{self, Gathered};
use super::look::{self, Watch};
use super::question;
use super::remember;
use super::resolve::{Resolved, resolve};
use super::run::{self, Clearance, Ran};
use super::state::{OpenDialog, State};
use super::toolset::{Refusal, describe};
use super::trouble::{Trouble, trouble_of};
use super::yes::{Approval, Spent};
use crate::browser::guard::HeldRequest;
use crate::browser::{BrowserError, ToolOutput, tools as mcp};
use crate::error::Error;
use crate::feed::event::Event;
use crate::feed::result::{TaskReason, TaskResult};
use crate::safety::{Decision, RefusalCode, floor};

/// How many times one action is put to the person again because its
/// element changed between the question and the answer; then the run ends.
const MAX_REASKS: u32 = 2;

/// How an action ended.
pub(super) enum Acted {
    /// It did not run: the host's rules refused it, the person answered
    /// with words instead of a yes, or the guard could not be set. Its
    /// driver hears why.
    Refused(Refusal),
    /// A move of the host's own that would need the person's yes: not
    /// made, for this reason.
    WouldAsk(String),
    /// The run is over (a no, nobody to ask, a sign-in wall).
    Ended(Box<TaskResult>),
    /// It ran, or the browser could not do it.
    Ran(Box<Outcome>),
}

/// What an action that ran left.
pub(super) struct Outcome {
    pub(super) resolved: Resolved,
    pub(super) output: Option<ToolOutput>,
    /// Why the browser could not do it.
    pub(super) failure: Option<BrowserError>,
    /// Set when it failed on something in the way while unapproved, with
    /// nothing stopped by the guard: worth one more try (`recover.rs`).
    pub(super) trouble: Option<Trouble>,
    /// The person's words about requests the guard held, for the driver.
    pub(super) guard_note: Option<String>,
    /// A dialog the page has open now.
    pub(super) dialog: Option<OpenDialog>,
}

/// Takes `action` through every stage.
pub(super) async fn act(
    cx: &mut Ctx<'_>,
    state: &mut State,
    action: &Action,
) -> Result<Acted, Error> {
    let resolved = match resolve(cx, state, action) {
        Ok(resolved) => resolved,
        Err(refusal) => return Ok(Acted::Refused(refusal)),
    };
    let target = resolved.action.target.as_ref().map(describe);
    let what = format!("{} {}", resolved.runs, target.clone().unwrap_or_default());
    let mut changed: Option<String> = None;
    let mut reasks = 0;
    if let Some((approval, reason)) = covered_dialog(state, &resolved) {
        let gathered = facts::gather(cx, state, action, &resolved).await?;
        if !action.origin.is_hosts() {
            cx.reporter.emit(Event::CheckpointPassed {
                turn: state.turn,
                reason,
            });
            cx.reporter.emit(Event::ToolCall {
                turn: state.turn,
                tool: resolved.runs.clone(),
                target,
                arguments: resolved.action.mcp_args.clone(),
                origin: Some(action.origin),
            });
        }
        let clearance = Clearance::Approved(approval);
        return run_and_look(cx, state, action, resolved, &gathered, clearance).await;
    }
    // Each pass judges the element as it is now; a yes is checked against
    // what its question showed, and a change is judged afresh.
    let (gathered, clearance) = loop {
        let judging = Instant::now();
        let gathered = facts::gather(cx, state, action, &resolved).await?;
        let decision = decide(cx, state, action, &resolved, &gathered);
        cx.clocks.safety += judging.elapsed();
        match decision {
            Decision::Refuse { code, message } => {
                return Ok(Acted::Refused(Refusal::new(code, message)));
            }
            Decision::Proceed { reason, guard } => {
                if !resolved.action.read_only && !action.origin.is_hosts() {
                    cx.reporter.emit(Event::CheckpointPassed {
                        turn: state.turn,
                        reason,
                    });
                }
                break (gathered, Clearance::Unapproved(guard));
            }
            Decision::Ask { reason } if action.origin.is_hosts() => {
                return Ok(Acted::WouldAsk(reason));
            }
            // What the run knows never changes what the person pays: a plan
            // or remembered step whose form or link says it does (an offer
            // page's "jetzt kündigen" that posts to `/offer/accept`) is not
            // put to the person at all; the driver finds the other way.
            Decision::Ask { .. }
                if matches!(action.origin, Origin::Plan | Origin::Replay)
                    && facts::sends_billing_change(gathered.dom.as_ref()) =>
            {
                return Ok(Acted::Refused(Refusal::new(
                    RefusalCode::ActionFailed,
                    "This element's form or link changes what the person pays (an offer, a pause or another plan); the plan never takes it. Find the way to cancel instead.",
                )));
            }
            Decision::Ask { reason } => {
                let url = state.snapshot.url.clone();
                let request =
                    question::before_action(cx, &resolved, &gathered, reason, changed.take(), &url);
                // A yes to going on at another site (a run with no plugin) is
                // that and nothing more: the origin joins, and the action is
                // judged afresh there, asked on its own if it commits.
                let leaving = leaving(cx, state, &resolved);
                let final_step = leaving.is_none() && final_step(cx, state, &resolved, &gathered);
                match ask::ask(cx, state, request, &what, final_step).await {
                    Reply::Yes(_) if leaving.is_some() => {
                        if let Some(origin) = leaving {
                            widen(cx, state, origin);
                        }
                    }
                    Reply::Yes(approval) => {
                        match facts::changed_since(cx, &resolved.action, &gathered).await? {
                            None => break (gathered, Clearance::Approved(approval)),
                            Some(_) if reasks >= MAX_REASKS => {
                                return Ok(Acted::Ended(Box::new(rejected(
                                    state.turn,
                                    "the element kept changing after each approval",
                                ))));
                            }
                            Some(now) => {
                                reasks += 1;
                                changed = Some(now);
                            }
                        }
                    }
                    Reply::Feedback(refusal) => return Ok(Acted::Refused(refusal)),
                    Reply::Ended(result) => return Ok(Acted::Ended(Box::new(result))),
                }
            }
        }
    };
    if !action.origin.is_hosts() {
        cx.reporter.emit(Event::ToolCall {
            turn: state.turn,
            tool: resolved.runs.clone(),
            target,
            arguments: resolved.action.mcp_args.clone(),
            origin: Some(action.origin),
        });
    }
    run_and_look(cx, state, action, resolved, &gathered, clearance).await
}

/// The other site `resolved` would act on, in a run with no plugin: where
/// it navigates, or the page it acts on, when that is outside the site and
/// the origins the person let it onto (the question is
/// `safety::leaving`'s).
fn leaving(cx: &Ctx<'_>, state: &State, resolved: &Resolved) -> Option<String> {
    let site = cx.service.generic.as_ref()?;
    let url = resolved
        .action
        .navigate_to
        .as_deref()
        .unwrap_or(&state.snapshot.url);
    let origin = crate::page::origin_of(url)?;
    (!state.allowed_origins.contains(&origin) && !site.covers(&origin)).then_some(origin)
}

/// The person let the run onto `origin`: it may act there from now on, and
/// the guard counts that site's requests as the service's.
fn widen(cx: &Ctx<'_>, state: &mut State, origin: String) {
    state.allowed_origins.push(origin);
    let rules = super::guard_rules::of(cx, state);
    if let Some(guard) = &state.guard {
        guard.set_rules(&rules);
    }
}

/// The yes an accepted dialog is answered under, with why (see [`covers`]).
fn covered_dialog(state: &State, resolved: &Resolved) -> Option<(Approval, String)> {
    covers(state.dialog.as_ref()?, accepts_dialog(resolved))
}

/// Whether accepting `open` is covered by the yes of the action that opened
/// it: a yes given to the final step (the person was told it commits), and
/// the page's own "are you sure?" whose words speak of the cancellation and
/// of nothing that changes what the person pays. Any other dialog is
/// decided like every action (`safety::assess`), and asked about.
fn covers(open: &OpenDialog, accepts: bool) -> Option<(Approval, String)> {
    let approval = open
        .opened_under
        .as_ref()
        .filter(|a| accepts && a.final_step())?;
    if open.dialog.kind != "confirm" {
        return None;
    }
    let sign = floor::sign_in_text(&open.dialog.message, floor::Place::Target)?;
    if sign.strength == floor::Strength::BillingChange {
        return None;
    }
    Some((
        approval.for_its_dialog(),
        format!(
            "accepting the confirmation (\"{}\") that the approved final step opened, under the same yes",
            open.dialog.message
        ),
    ))
}

/// Whether a held request reads as a change to what the person pays (a
/// downgrade, a pause, an accepted offer) rather than a cancellation: by
/// its address, or by the guard's own reading of what it sends.
fn reads_as_billing_change(request: &HeldRequest) -> bool {
    floor::sign_in_url(&request.url)
        .is_some_and(|sign| sign.strength == floor::Strength::BillingChange)
        || guard_reads_billing(request)
}

/// Whether the guard's own reading of what a request sends (its fields, a
/// beacon's body, a message) says it changes what the person pays. An
/// address alone does not: `/account/pause` with `choice=cancel` is a
/// pause form's way to the cancellation.
fn guard_reads_billing(request: &HeldRequest) -> bool {
    request.why.contains(BILLING_WHY)
}

/// How `guard.js` says a request reads as a billing change.
const BILLING_WHY: &str = "reads as a change to what the person pays";

/// How many times, after a yes, the page's further requests are put to the
/// person before the rest are aborted: a page that sends one after each
/// answer must not hold the run.
const MAX_FOLLOW_UPS: usize = 3;

/// The run ends: the guard may be open after a yes.
fn guard_failed(turn: u32, why: &str) -> TaskResult {
    TaskResult::new(false, false, TaskReason::McpError, turn).with_error(why.to_owned())
}

/// Stages five and six: the action run under the guard (the person asked
/// about what the guard stopped, the action run again on a yes), then the
/// page looked at again.
async fn run_and_look(
    cx: &mut Ctx<'_>,
    state: &mut State,
    action: &Action,
    resolved: Resolved,
    gathered: &Gathered,
    clearance: Clearance,
) -> Result<Acted, Error> {
    let url_before = state.snapshot.url.clone();
    let changes = run::changes(&resolved);
    let dismissal = action.origin == Origin::Dismissal;
    let unapproved = matches!(clearance, Clearance::Unapproved(_));
    let shown = question::shown_request(gathered);
    let mut ran = match run::run(cx, state, &resolved, clearance, shown).await? {
        Ok(ran) => ran,
        Err(why) => return Ok(Acted::Refused(Refusal::new(RefusalCode::ActionFailed, why))),
    };
    if !ran.stopped.is_empty() {
        cx.reporter.emit(Event::GuardBlocked {
            turn: state.turn,
            requests: ran.stopped.clone(),
        });
    }
    if let Some(why) = &ran.rearm_failed {
        return Ok(Acted::Ended(Box::new(guard_failed(state.turn, why))));
    }
    let Answered {
        guard_note,
        released,
    } = match answer_held(cx, state, action, &resolved, gathered, &mut ran).await? {
        Ok(answered) => answered,
        Err(acted) => return Ok(acted),
    };
    // Past the follow-ups allowed, the action's call may still be ending.
    run::wait_in_flight(cx, state, &mut ran).await?;
    // A retry is for something in the way, not for a request the guard
    // held or stopped.
    let stopped_any = !ran.stopped.is_empty() || !ran.held.is_empty();
    // Playwright gives up on a click whose navigation the guard held: the
    // action did run, and its effect was put to the person.
    if !ran.held.is_empty()
        && ran
            .failure
            .as_ref()
            .is_some_and(|e| e.to_string().contains("waiting for scheduled navigations"))
    {
        ran.failure = None;
    }
    if dismissal && let Some(e) = &ran.failure {
        return Ok(Acted::Refused(Refusal::new(
            RefusalCode::ActionFailed,
            format!("pressing it failed: {e}"),
        )));
    }
    let approval = ran.approved.clone().or(released);
    let trouble = match &ran.failure {
        Some(e) if unapproved && changes && !stopped_any && !action.origin.is_hosts() => {
            trouble_of(e)
        }
        _ => None,
    };
    if resolved.runs == mcp::HANDLE_DIALOG && ran.failure.is_none() {
        state.dialog = None;
    }
    if changes && ran.failure.is_none() && !dismissal {
        remember::took(&url_before, &resolved, state);
    }
    let dialog = run::settle_dialogs(cx, state, ran.output.as_ref(), approval.as_ref()).await?;
    if dialog.is_none() {
        let watch = if dismissal {
            Watch::Nothing
        } else {
            Watch::SignIn
        };
        let output = ran.output.as_ref();
        let looked = if changes && ran.failure.is_none() && !stopped_any && !dismissal {
            look::look_after_action(cx, state, output, watch).await?
        } else {
            look::look(cx, state, output, watch).await?
        };
        if let Some(ended) = looked {
            return Ok(Acted::Ended(Box::new(ended)));
        }
    }
    Ok(Acted::Ran(Box::new(Outcome {
        resolved,
        output: ran.output,
        failure: ran.failure,
        trouble,
        guard_note,
        dialog,
    })))
}

/// What [`answer_held`] leaves for the rest of the action.
struct Answered {
    /// What the driver is told the guard did besides.
    guard_note: Option<String>,
    /// The yes spent releasing a held request.
    released: Option<Spent>,
}

/// What the action sent that the guard holds, then, after a yes, what the
/// page sent besides while the approved request settled, which the yes did
/// not cover: each asked about in turn, at most [`MAX_FOLLOW_UPS`] times.
/// `Err` ends the action there (refused, or the run ended).
async fn answer_held(
    cx: &mut Ctx<'_>,
    state: &mut State,
    action: &Action,
    resolved: &Resolved,
    gathered: &Gathered,
    ran: &mut Ran<'_>,
) -> Result<Result<Answered, Acted>, Error> {
    let dismissal = action.origin == Origin::Dismissal;
    let mut guard_note = None;
    let mut released = None;
    let mut pending = ran.held.clone();
    let mut also = false;
    for round in 0..=MAX_FOLLOW_UPS {
        if pending.is_empty() {
            // The action's call, held up by what was just answered, ends
            // now; what it sent after the answer is asked about in turn.
            if ran.in_flight.is_none() {
                break;
            }
            let taken = run::finish(cx, state, ran).await?;
            if !taken.stopped.is_empty() {
                cx.reporter.emit(Event::GuardBlocked {
                    turn: state.turn,
                    requests: taken.stopped.clone(),
                });
            }
            pending = taken.held;
            if pending.is_empty() {
                break;
            }
        }
        cx.reporter.emit(Event::GuardHeld {
            turn: state.turn,
            requests: pending.clone(),
            while_acting: state.in_flight,
        });
        if round == MAX_FOLLOW_UPS {
            run::refuse(
                cx,
                state,
                &pending,
                "sent after the follow-ups one yes allows",
            )
            .await?;
            guard_note = Some(format!(
                "After the approved request the page kept sending more ({}); they were held and nothing of them was sent.",
                question::describe_held(&pending)
            ));
            break;
        }
        if dismissal {
            // Anything the guard holds means it was no dismissal.
            run::refuse(cx, state, &pending, "sent by what was meant to dismiss").await?;
            run::wait_in_flight(cx, state, ran).await?;
            return Ok(Err(Acted::Refused(Refusal::new(
                RefusalCode::ActionFailed,
                format!(
                    "pressing it sent {} request(s) the guard held; nothing reached the site",
                    pending.len()
                ),
            ))));
        }
        match abort_billing(cx, state, action.origin, &mut pending).await? {
            Billing::StepRefused(refusal) => {
                run::wait_in_flight(cx, state, ran).await?;
                return Ok(Err(Acted::Refused(refusal)));
            }
            Billing::Aborted(note) => {
                guard_note = Some(note);
                if pending.is_empty() {
                    // What the action sends after it, if it still runs, next.
                    continue;
                }
            }
            Billing::None => {}
        }
        // Asked at the effect: what the action really sends.
        let sends = question::describe_held(&pending);
        let url = state.snapshot.url.clone();
        let request = question::held(resolved, gathered, &pending, &url, also);
        match ask::ask(cx, state, request, &sends, false).await {
            Reply::Yes(approval) => match run::release(cx, state, &pending, approval).await? {
                Ok((taken, spent)) => {
                    if !taken.stopped.is_empty() {
                        cx.reporter.emit(Event::GuardBlocked {
                            turn: state.turn,
                            requests: taken.stopped.clone(),
                        });
                    }
                    pending = taken.held;
                    released = Some(spent);
                    also = true;
                }
                Err(why) => {
                    return Ok(Err(Acted::Ended(Box::new(guard_failed(state.turn, &why)))));
                }
            },
            Reply::Ended(result) => {
                run::refuse(cx, state, &pending, "held when the run ended").await?;
                run::wait_in_flight(cx, state, ran).await?;
                return Ok(Err(Acted::Ended(Box::new(result))));
            }
            Reply::Feedback(refusal) => {
                run::refuse(cx, state, &pending, "not approved").await?;
                guard_note = Some(format!(
                    "The browser held {sends}, which this action sent without the human's approval; nothing was sent. {}",
                    refusal.message
                ));
                pending.clear();
            }
        }
    }
    Ok(Ok(Answered {
        guard_note,
        released,
    }))
}

/// What [`abort_billing`] did with the held requests.
enum Billing {
    /// None read as a billing change.
    None,
    /// Those that did were aborted; the note says which.
    Aborted(String),
    /// The plan's or the path's own step sent only such a change: it is no
    /// step towards cancelling, and its driver hears why.
    StepRefused(Refusal),
}

/// What the page sent unasked that changes what the person pays (an offer
/// accepted by a beacon as the page unloads, a plan switched by a "cancel"
/// button) is never what a cancellation run makes without a yes before the
/// action: aborted, nobody asked, and taken out of `pending`. The plan and
/// the path move only towards cancelling: a step of theirs whose only
/// effect is such a change is no step of theirs.
async fn abort_billing(
    cx: &mut Ctx<'_>,
    state: &mut State,
    origin: Origin,
    pending: &mut Vec<HeldRequest>,
) -> Result<Billing, Error> {
    let known_step = matches!(origin, Origin::Plan | Origin::Replay);
    let (billing, rest): (Vec<HeldRequest>, Vec<HeldRequest>) = pending
        .drain(..)
        .partition(|r| guard_reads_billing(r) || (known_step && reads_as_billing_change(r)));
    *pending = rest;
    let Some(change) = billing.first() else {
        return Ok(Billing::None);
    };
    let what = format!("{} {}", change.method, change.url);
    run::refuse(
        cx,
        state,
        &billing,
        "refused unasked: it changes what the person pays",
    )
    .await?;
    // The step's own form sent it (not a beacon as the page left): the
    // step is no step towards cancelling.
    let own = billing.iter().any(|r| r.navigation);
    if own && pending.is_empty() && known_step {
        return Ok(Billing::StepRefused(Refusal::new(
            RefusalCode::ActionFailed,
            format!(
                "this step sent {what}, which reads as a change to what the person pays, not a step towards cancelling; nothing reached the site"
            ),
        )));
    }
    Ok(Billing::Aborted(format!(
        "The page also sent {what}, which reads as a change to what the person pays; the browser held it and nothing of it was sent."
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::Dialog;

    #[test]
    fn which_addresses_read_as_billing_changes_table() {
        let cases = [
            ("http://127.0.0.1:1/account/subscription/downgrade", true),
            ("https://example.com/plan/pause", true),
            ("https://example.com/offer/accept", true),
            ("https://example.com/cancel/finish", false),
            ("https://example.com/survey", false),
            ("https://example.com/account", false),
        ];
        let held = |url: &str, why: &str| HeldRequest {
            id: 1,
            method: "GET".into(),
            url: url.into(),
            why: why.into(),
            navigation: false,
            body: String::new(),
            held_at_ms: 0,
        };
        for (url, want) in cases {
            assert_eq!(
                reads_as_billing_change(&held(url, "a POST request to the service")),
                want,
                "{url}"
            );
        }
        // What the guard read in the request itself (its fields, a message).
        assert!(reads_as_billing_change(&held(
            "https://example.com/api",
            "a WS request that reads as a change to what the person pays"
        )));
    }

    #[test]
    fn which_dialogs_a_yes_covers_table() {
        let final_yes = || Some(Approval::new(3, "browser_click button \"Finish\"", true));
        let other_yes = || Some(Approval::new(3, "browser_click button \"Continue\"", false));
        let cases = [
            (
                "the site's own are-you-sure",
                "confirm",
                "Are you sure you want to cancel?",
                final_yes(),
                true,
                true,
            ),
            (
                "in German",
                "confirm",
                "Möchtest du dein Abo wirklich kündigen?",
                final_yes(),
                true,
                true,
            ),
            (
                "dismissing is no question anyway",
                "confirm",
                "Are you sure you want to cancel?",
                final_yes(),
                false,
                false,
            ),
            (
                "an offer in the dialog",
                "confirm",
                "Switch to the cheaper plan instead?",
                final_yes(),
                true,
                false,
            ),
            (
                "a pause in the dialog",
                "confirm",
                "Pause your membership for 3 months instead of cancelling?",
                final_yes(),
                true,
                false,
            ),
            (
                "words that say nothing",
                "confirm",
                "OK?",
                final_yes(),
                true,
                false,
            ),
            (
                "opened unasked",
                "confirm",
                "Are you sure you want to cancel?",
                None,
                true,
                false,
            ),
            (
                "opened by a yes to a step that was not the final one",
                "confirm",
                "Are you sure you want to cancel?",
                other_yes(),
                true,
                false,
            ),
            (
                "a prompt, which takes text",
                "prompt",
                "Type CANCEL to cancel",
                final_yes(),
                true,
                false,
            ),
        ];
        for (name, kind, message, approval, accepts, want) in cases {
            let open = OpenDialog {
                dialog: Dialog {
                    kind: kind.into(),
                    message: message.into(),
                },
                opened_under: approval.map(Approval::spend),
            };
            assert_eq!(covers(&open, accepts).is_some(), want, "{name}");
        }
    }
}
