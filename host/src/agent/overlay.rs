//! Overlays cleared before the next move (seed 003's overlay
//! handler): after every look, a cookie banner, a promotion or a chat widget
//! in the way is dismissed with its least committing choice, so that neither
//! the model nor the offline policy spends a turn on it.
//!
//! The host presses only what the one safety decision lets through without
//! a yes, under the network guard: a button that would need the person's
//! yes, or that sends anything the guard stops, is left for the model with
//! a note in the record. The plan's own steps (an offer the plan declines)
//! are never the handler's.

use super::state::{State, timed};
use super::toolset::{BrowserAction, describe};
use super::{Agent, Event};
use crate::browser::guard::GuardMode;
use crate::error::Error;
use crate::exit::ErrorClass;
use crate::page::overlay::{self, Overlay};
use crate::plugin::HintAction;
use crate::safety::Decision;

/// Overlays dismissed after one look, at most: a page that keeps
/// opening them must not hold the run.
pub const MAX_DISMISSALS_PER_LOOK: usize = 3;

/// Why the handler left an overlay alone.
enum Left {
    /// Pressing it would need the person's yes, or is refused.
    Decision(String),
    /// The press sent something the guard stopped, or failed.
    Pressing(String),
}

impl Agent<'_> {
    /// Dismisses what is in the way on the page just looked at, looking
    /// again after each. Returns a line for the model per dismissal.
    pub(super) async fn clear_overlays(&mut self, state: &mut State) -> Result<Vec<String>, Error> {
        let mut notes = Vec::new();
        if !self.options.dismiss_overlays || state.dialog.is_some() {
            return Ok(notes);
        }
        let mut tried: Vec<(String, String)> = Vec::new();
        for _ in 0..MAX_DISMISSALS_PER_LOOK {
            let Some(found) = self.next_overlay(state, &tried) else {
                break;
            };
            tried.push((found.button.role.clone(), found.button.name.clone()));
            let left = match self.dismiss(&found, state).await? {
                Ok(()) => {
                    notes.push(format!(
                        "The host dismissed {} on this page by pressing {}.",
                        found.kind.describe(),
                        describe(&found.button)
                    ));
                    None
                }
                Err(Left::Decision(why) | Left::Pressing(why)) => Some(why),
            };
            self.reporter.emit(Event::Overlay {
                turn: state.turn,
                kind: found.kind,
                button: describe(&found.button),
                context: found.context.clone(),
                url: state.snapshot.url.clone(),
                dismissed: left.is_none(),
                left: left.clone(),
            });
        }
        Ok(notes)
    }

    /// The first overlay not tried yet whose button no step of the
    /// plugin's plan names.
    fn next_overlay(&self, state: &State, tried: &[(String, String)]) -> Option<Overlay> {
        let plan = &self.service.plan;
        let in_plan = |e: &crate::page::Element| {
            plan.iter()
                .flat_map(|s| s.targets.iter())
                .any(|hint| hint.matches(e))
        };
        let service = self.service.metadata.overlays.iter();
        let named = service.clone().find_map(|hint| {
            overlay::named_by_service(&state.snapshot, |e| {
                hint.matches(e) && !tried.contains(&(e.role.clone(), e.name.clone()))
            })
        });
        named
            .into_iter()
            .chain(overlay::find(&state.snapshot))
            .find(|i| {
                !in_plan(&i.button)
                    && !tried.contains(&(i.button.role.clone(), i.button.name.clone()))
            })
    }

    /// Presses the overlay's button if the decision lets it through
    /// without a yes; the page is looked at again after.
    async fn dismiss(
        &mut self,
        found: &Overlay,
        state: &mut State,
    ) -> Result<Result<(), Left>, Error> {
        // Refs come from the latest view: refresh it for this snapshot.
        let _ = self.toolset.observe(&state.snapshot);
        let (tool, args) = self
            .toolset
            .offline_call(HintAction::Click, &found.button, None);
        let action = match self.toolset.translate(&tool, &args, &state.snapshot) {
            Ok(action) => action,
            Err(refusal) => return Ok(Err(Left::Decision(refusal.message))),
        };
        let runs = action.mcp_tool.clone().unwrap_or_else(|| tool.clone());
        let gathered = self.gather(&tool, &args, &runs, &action, state).await?;
        let (decision, mode) = self.decide_for(&runs, &action, &gathered, state, true);
        match decision {
            Decision::Proceed { .. } => {}
            Decision::Ask { reason } => {
                return Ok(Err(Left::Decision(format!(
                    "pressing it would need your yes ({reason}); left for the model"
                ))));
            }
            Decision::Refuse { message, .. } => return Ok(Err(Left::Decision(message))),
        }
        self.press(&runs, &action, mode, state).await
    }

    /// Runs a dismissal under the guard, unapproved. Anything the guard
    /// stopped means it was no dismissal: nothing more is pressed.
    async fn press(
        &mut self,
        runs: &str,
        action: &BrowserAction,
        mode: GuardMode,
        state: &mut State,
    ) -> Result<Result<(), Left>, Error> {
        if let Err(why) = self.set_guard(mode, state).await? {
            return Ok(Err(Left::Pressing(why)));
        }
        let called = timed(
            &mut state.timing.browser,
            self.browser.call(runs, action.mcp_args.clone()),
        )
        .await;
        let output = match called {
            Ok(output) => output,
            Err(e) if e.class() == ErrorClass::Failure => {
                return Ok(Err(Left::Pressing(format!("pressing it failed: {e}"))));
            }
            Err(e) => return Err(e.into()),
        };
        let blocked = self.take_blocked(state).await?;
        if !blocked.is_empty() {
            self.reporter.emit(Event::GuardBlocked {
                turn: state.turn,
                requests: blocked.clone(),
            });
            return Ok(Err(Left::Pressing(format!(
                "pressing it sent {} request(s) the guard stopped; nothing reached the site",
                blocked.len()
            ))));
        }
        let dialog = self.settle_dialogs(Some(&output), false, state).await?;
        if dialog.is_none() {
            state.snapshot = timed(
                &mut state.timing.browser,
                self.toolset.look(self.browser, Some(&output)),
            )
            .await?;
            self.mask_passwords(state).await;
        }
        Ok(Ok(()))
    }
}
