//! What the run already knows moves first (issue 32): the remembered path,
//! then the plugin's plan, take every turn whose next step they find on the
//! page, at no token cost. With a model configured (and not
//! `--model-drives`), the model is asked only on a page where neither finds
//! its step, and is then told in a few lines what was done since it last
//! looked and why the plan stopped, not shown every turn; the plan takes
//! back over when the page matches one of its later steps again.
//!
//! Their calls are actions like any other (origins `Replay` and `Plan`)
//! through the one pipeline: a plan step on a committing element is asked
//! like any other, and the guard holds what it sends the same way. Knowing
//! the way buys no authority, only tokens and seconds.

use super::action::Origin;
use super::claim;
use super::ctx::Ctx;
use super::driver::{self, Driver};
use super::offline::OfflinePolicy;
use super::replay::Next;
use super::state::State;
use super::virtual_tools::{COMPLETE_TASK, REQUEST_HUMAN_APPROVAL};
use crate::feed::event::Event;
use crate::llm::{Completion, Message, ToolCall, Usage};
use crate::plugin::Verdict;
use crate::safety;

/// Who the plan hands over to, and takes back from, in the record.
const PLAN: &str = "the plan";
const PATH: &str = "the remembered path";

/// Arms the plan when a model is configured and does not drive alone.
pub(super) fn arm(cx: &Ctx<'_>, driver: &Driver, state: &mut State) {
    if briefs(cx, driver) && !cx.service.plan.is_empty() {
        state.plan = Some(OfflinePolicy::for_service(
            cx.service,
            &cx.options.start_url,
        ));
    }
}

/// How a brief starts; the history's summary finds the steps by it.
pub(super) const BRIEF_OPENING: &str = "The host took ";

/// Whether the model is told about the path's and the plan's steps rather
/// than shown them turn by turn: plan first, with a model.
pub(super) fn briefs(cx: &Ctx<'_>, driver: &Driver) -> bool {
    matches!(driver, Driver::Model(_)) && !cx.options.model_drives
}

/// Whether anything that trusts only the host's verification may move this
/// turn: the replay before it hands over, the plan, the offline policy.
pub(super) fn knows_way(driver: &Driver, state: &State) -> bool {
    state.replay.as_ref().is_some_and(|r| !r.handed_over())
        || state.plan.is_some()
        || matches!(driver, Driver::Offline(_))
}

/// Whether the page shows the goal reached, as the host verifies it: the
/// path and the plan believe nothing else.
pub(super) async fn verified(
    cx: &mut Ctx<'_>,
    state: &State,
    verdict: Result<Verdict, String>,
) -> bool {
    state.dialog.is_none()
        && claim::claims_something(state)
        && matches!(
            claim::judge(cx, verdict.unwrap_or_else(claim::could_not_verify), state).await,
            safety::Verification::Verified | safety::Verification::AlreadyCancelled
        )
}

/// This turn's move by the remembered path or the plan, or `None` when the
/// driver takes it.
pub(super) fn next(
    cx: &mut Ctx<'_>,
    state: &mut State,
    driver: &Driver,
    verified: bool,
) -> Option<(Completion, Origin)> {
    if let Some(completion) = replayed(cx, state, driver, verified) {
        return Some((completion, Origin::Replay));
    }
    let policy = state.plan.as_mut()?;
    // A dialog the model's step opened is the model's to answer.
    let dialog = state.dialog.as_ref();
    if dialog.is_some() && !state.known_drove_last {
        return None;
    }
    match driver::plan_completion(
        policy,
        &*cx.toolset,
        &state.snapshot,
        dialog,
        verified,
        state.turn,
    ) {
        Ok(completion) => {
            if !state.known_drove_last && state.steps.model > 0 {
                let took =
                    state.steps.model - state.model_steps_at_hand_over.min(state.steps.model);
                cx.reporter.emit(Event::HandedOver {
                    turn: state.turn,
                    from: driver.label(),
                    replayed: usize::try_from(took).unwrap_or(usize::MAX),
                    why: "the page matches a step of the plan again".into(),
                    to: PLAN.into(),
                });
            }
            Some((completion, Origin::Plan))
        }
        Err(why) => {
            if state.known_drove_last {
                hand_over(cx, state, PLAN, why, driver.label());
            }
            None
        }
    }
}

/// The replay's move as a model's reply, or `None` once it hands over.
fn replayed(
    cx: &mut Ctx<'_>,
    state: &mut State,
    driver: &Driver,
    verified: bool,
) -> Option<Completion> {
    let replay = state.replay.as_mut().filter(|r| !r.handed_over())?;
    let (text, name, arguments) = if verified {
        let done = "The page shows the goal is reached.";
        (
            done.to_owned(),
            COMPLETE_TASK.to_owned(),
            serde_json::json!({"status": "success", "reason": done}),
        )
    } else {
        match replay.next(&*cx.toolset, &state.snapshot) {
            Next::Call {
                text,
                name,
                arguments,
                ..
            } => (text, name, arguments),
            Next::HandOver(why) => {
                let to = if state.plan.is_some() {
                    PLAN.to_owned()
                } else {
                    driver.label()
                };
                hand_over(cx, state, PATH, why, to);
                return None;
            }
        }
    };
    Some(Completion {
        text: Some(text),
        tool_calls: vec![ToolCall {
            id: format!("replay-{}", state.turn),
            name,
            arguments: Ok(arguments),
        }],
        usage: Usage::default(),
        stop_reason: Some("tool_use".into()),
    })
}

/// Records the hand-over, with why, and keeps `why` for the model's brief.
fn hand_over(cx: &mut Ctx<'_>, state: &mut State, from: &str, why: String, to: String) {
    // How many steps it took before stopping: the remembered path's are
    // counted apart from the plan's.
    let replayed = if from == PATH {
        usize::try_from(state.steps.remembered).unwrap_or(usize::MAX)
    } else {
        state.known.len() - state.told.min(state.known.len())
    };
    cx.reporter.emit(Event::HandedOver {
        turn: state.turn,
        from: from.to_owned(),
        replayed,
        why: why.clone(),
        to,
    });
    state.stopped = Some(why);
    state.model_steps_at_hand_over = state.steps.model;
}

/// Notes a step the path or the plan took, for the model's brief: the line
/// says what it was, `content` is what it answered (the page after it).
pub(super) fn took(state: &mut State, completion: &Completion, content: &str, is_error: bool) {
    let mut line = completion.text.clone().unwrap_or_default();
    if is_error {
        line.push_str(" (it failed)");
    }
    state.known.push(line);
    state.known_page = Some(content.to_owned());
}

/// Counts a browser step by who proposed it.
pub(super) fn count(state: &mut State, call: &ToolCall, origin: Origin) {
    if call.name == COMPLETE_TASK || call.name == REQUEST_HUMAN_APPROVAL {
        return;
    }
    match origin {
        Origin::Plan => state.steps.plan += 1,
        Origin::Replay => state.steps.remembered += 1,
        Origin::Model | Origin::Client => state.steps.model += 1,
        Origin::Retry | Origin::Dismissal => {}
    }
}

/// Before the model's turn: when the path or the plan took steps since it
/// last looked, it is told what they were, why they stopped and the page
/// now. A model that has not yet been asked gets this instead of the start
/// page: all it needs is where the run is. Returns whether it was told.
pub(super) fn brief(state: &mut State) -> bool {
    if state.told >= state.known.len() {
        return false;
    }
    let Some(page) = state.known_page.take() else {
        return false;
    };
    let steps: Vec<String> = state.known[state.told..]
        .iter()
        .enumerate()
        .map(|(i, line)| format!("{}. {line}", i + 1))
        .collect();
    state.told = state.known.len();
    let why = state
        .stopped
        .take()
        .unwrap_or_else(|| "the page does not match its next step".into());
    let text = format!(
        "{BRIEF_OPENING}{} step(s) for you, from what it knew of this service (do not repeat them):\n{}\nIt stopped: {why}\nGo on from this page.\n\nCurrent page:\n{page}",
        steps.len(),
        steps.join("\n")
    );
    let asked_before = state
        .history
        .iter()
        .any(|m| matches!(m, Message::Assistant { .. }));
    if !asked_before {
        state.history.clear();
    }
    state.history.push(Message::User(text));
    true
}
