//! Overlays cleared before the next move: after every look, a cookie
//! banner, a promotion or a chat widget in the way is dismissed with its
//! least committing choice, so that neither the model nor the offline
//! policy spends a turn on it.
//!
//! Each press is an action of its own ([`Origin::Dismissal`]) through the
//! one pipeline: the host presses only what the safety decision lets through
//! without a yes, under the network guard; a button that would need the
//! person's yes, or that sends anything the guard stops, is left for the
//! model with a note in the record. The plan's own steps (an offer the plan
//! declines) are never the handler's.

use super::action::{Action, Origin};
use super::ctx::Ctx;
use super::pipeline::{self, Acted};
use super::state::State;
use super::toolset::describe;
use crate::error::Error;
use crate::feed::event::Event;
use crate::feed::result::TaskResult;
use crate::page::overlay::{self, Overlay};
use crate::plugin::HintAction;

/// Overlays dismissed after one look, at most: a page that keeps
/// opening them must not hold the run.
pub const MAX_DISMISSALS_PER_LOOK: usize = 3;

/// What clearing a page left.
#[derive(Debug, Default)]
pub(super) struct Cleared {
    /// A line for the driver per overlay dismissed.
    pub(super) notes: Vec<String>,
    /// Set should the run end on the way (it cannot, for a press the host
    /// makes unasked and looks after without watching for sign-in; kept
    /// rather than lost).
    pub(super) ended: Option<TaskResult>,
}

/// Dismisses what is in the way on the page just looked at, looking again
/// after each.
pub(super) async fn clear(cx: &mut Ctx<'_>, state: &mut State) -> Result<Cleared, Error> {
    let mut cleared = Cleared::default();
    if !cx.options.dismiss_overlays || state.dialog.is_some() {
        return Ok(cleared);
    }
    // Nothing is pressed unasked on a page that offers the final step: the
    // guard sees every request and the page's own WebSockets, but not a
    // socket a worker opens, and a chat widget's "Close" there may send the
    // cancellation through one. The model (and the person) meet the
    // overlay instead, and the record says why.
    if let Some(page) = super::facts::commit_page(cx, state).await
        && page.final_step
        && let Some(found) = next_overlay(cx, state, &[])
    {
        let why = format!(
            "not pressed: this page offers the final step ({}), and a press here could send through a channel the guard cannot see (a worker's WebSocket)",
            page.reason
        );
        cleared.notes.push(format!(
            "The host left {} on this page: {why}.",
            found.kind.describe()
        ));
        report(cx, state, &found, Some(why));
        return Ok(cleared);
    }
    let mut tried: Vec<(String, String)> = Vec::new();
    for _ in 0..MAX_DISMISSALS_PER_LOOK {
        let Some(found) = next_overlay(cx, state, &tried) else {
            break;
        };
        tried.push((found.button.role.clone(), found.button.name.clone()));
        // Refs come from the latest view: refresh it for this snapshot.
        let _ = cx.toolset.observe(&state.snapshot);
        let (tool, args) = cx
            .toolset
            .offline_call(HintAction::Click, &found.button, None);
        let press = Action::call(Origin::Dismissal, tool, args);
        let left = match pipeline::act(cx, state, &press).await? {
            Acted::Ran(_) => {
                cleared.notes.push(format!(
                    "The host dismissed {} on this page by pressing {}.",
                    found.kind.describe(),
                    describe(&found.button)
                ));
                None
            }
            Acted::WouldAsk(reason) => Some(format!(
                "pressing it would need your yes ({reason}); left for the model"
            )),
            Acted::Refused(refusal) => Some(refusal.message),
            Acted::Ended(result) => {
                cleared.ended = Some(*result);
                Some("the run ended".to_owned())
            }
        };
        report(cx, state, &found, left);
        if cleared.ended.is_some() {
            break;
        }
    }
    Ok(cleared)
}

/// Records an overlay: pressed (`left` is none) or left, and why.
fn report(cx: &mut Ctx<'_>, state: &State, found: &Overlay, left: Option<String>) {
    cx.reporter.emit(Event::Overlay {
        turn: state.turn,
        kind: found.kind,
        button: describe(&found.button),
        context: found.context.clone(),
        url: state.snapshot.url.clone(),
        dismissed: left.is_none(),
        left,
    });
}

/// The first overlay not tried yet whose button no step of the plugin's
/// plan names.
fn next_overlay(cx: &Ctx<'_>, state: &State, tried: &[(String, String)]) -> Option<Overlay> {
    let plan = &cx.service.plan;
    let in_plan = |e: &crate::page::Element| {
        plan.iter()
            .flat_map(|s| s.targets.iter())
            .any(|hint| hint.matches(e))
    };
    let service = cx.service.metadata.overlays.iter();
    let named = service.clone().find_map(|hint| {
        overlay::named_by_service(&state.snapshot, |e| {
            hint.matches(e) && !tried.contains(&(e.role.clone(), e.name.clone()))
        })
    });
    named
        .into_iter()
        .chain(overlay::find(&state.snapshot))
        .find(|i| {
            !in_plan(&i.button) && !tried.contains(&(i.button.role.clone(), i.button.name.clone()))
        })
}
