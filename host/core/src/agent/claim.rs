//! A driver's word on how the run ended (`complete_task`), checked against
//! the page: success is believed only when the host verifies it; a failure
//! is trusted. Also the plugin's verdict on every page, which can end a run
//! early where it cannot succeed (billed elsewhere, phone only).

use serde_json::Value;

use super::ctx::Ctx;
use super::look::{self, Watch};
use super::state::{State, timed};
use super::turn::{Turn, end};
use super::virtual_tools::{self, COMPLETE_TASK};
use super::yes::Spent;
use crate::browser::sight::{self, Sight};
use crate::error::Error;
use crate::feed::event::Event;
use crate::feed::result::{TaskReason, TaskResult};
use crate::page::Snapshot;
use crate::plugin::{self, Verdict};
use crate::safety::{self, Evidence, Verification};

/// Success claims refused in a row before the run ends as not verified,
/// instead of spending its remaining turns.
pub const MAX_REFUSED_CLAIMS: u32 = 3;

/// How much of the page a "not verified" ending quotes, in characters.
const QUOTE_CHARS: usize = 300;

/// The plugin's verdict, or why it could not give one.
pub(super) async fn plugin_verdict(cx: &Ctx<'_>, snapshot: &Snapshot) -> Result<Verdict, String> {
    let snapshot = snapshot.clone();
    plugin::call_blocking(&cx.service.plugin, move |p| p.verify(&snapshot))
        .await
        .map_err(|e| e.to_string())
}

/// A plugin that fails to answer has not verified anything.
pub(super) fn could_not_verify(error: String) -> Verdict {
    Verdict::Failure(format!("the plugin could not verify: {error}"))
}

/// Whether the page in `state` claims anything about the cancellation at
/// all, read cheaply from its tree: only then is what a person can see of
/// it read from the DOM.
pub(super) fn claims_something(state: &State) -> bool {
    let tree_text = safety::success::visible_text(&state.snapshot.content);
    safety::success::success_claim(&tree_text) != safety::success::Claim::Absent
}

/// The host's verification of the page in `state`, with the plugin's
/// verdict in hand: what a person can see of the page (read from the DOM),
/// the run's evidence, and whether the page still offers a step that needs
/// a yes.
pub(super) async fn judge(cx: &mut Ctx<'_>, verdict: Verdict, state: &State) -> Verification {
    let still = safety::commit_page::final_step_offered(&state.snapshot, cx.plan_knowledge());
    let seen = timed(&mut cx.clocks.browser, sight::visible(cx.browser)).await;
    let sight = match seen {
        Ok(sight) => sight,
        Err(e) => {
            return Verification::NotVerified(format!(
                "what the page shows could not be read ({e})"
            ));
        }
    };
    let evidence = Evidence {
        released: state.released.len(),
        final_step_approved: state.approved.iter().any(Spent::final_step),
        released_add_ons: state
            .released
            .iter()
            .filter(|r| safety::ended::url_names_add_on(&r.url))
            .count(),
    };
    safety::judge_success(
        &verdict,
        &sight.text,
        evidence,
        // The generic service knows no confirmation page: the host's own
        // reader decides in every language, English too.
        cx.service.generic.is_some() || plugin_cannot_read(&sight),
        still.as_ref(),
    )
}

/// Whether the page is in a language the bundled plugins do not read: it
/// declares one that is not English, or declares none and shows mostly
/// letters outside Latin script. Then a plugin's "unknown" leaves the
/// decision to the host's own reader.
fn plugin_cannot_read(sight: &Sight) -> bool {
    if !sight.lang.is_empty() {
        return !sight.lang.starts_with("en");
    }
    let letters = sight.text.chars().filter(|c| c.is_alphabetic());
    let (latin, other) = letters.fold((0usize, 0usize), |(l, o), c| {
        if c.is_ascii_alphabetic() || ('\u{c0}'..='\u{24f}').contains(&c) {
            (l + 1, o)
        } else {
            (l, o + 1)
        }
    });
    other > latin
}

/// Ends the run where the page says it is cancelled but nothing this run
/// let through with a yes can have done it: a change to check by hand, and
/// never a success.
pub(super) async fn unverified_change(
    cx: &mut Ctx<'_>,
    verdict: &Result<Verdict, String>,
    state: &State,
) -> Option<TaskResult> {
    // Words never end a run that has not acted: a page that mentions a
    // cancellation before anything happened (an account page's "Cancelled
    // State" link) is where the run starts, not a change it made.
    if state.dialog.is_some() || state.path.is_empty() || !claims_something(state) {
        return None;
    }
    let verdict = match verdict {
        Ok(verdict) => verdict.clone(),
        Err(_) => return None,
    };
    match judge(cx, verdict, state).await {
        Verification::UnverifiedChange(why) => Some(
            TaskResult::new(false, false, TaskReason::UnverifiedChange, state.turn).with_error(
                format!(
                    "{why}. Nothing this run sent can have cancelled it: check your account yourself; no receipt was written"
                ),
            ),
        ),
        _ => None,
    }
}

/// Ends the run when, before anything was committed, the plugin says the
/// page cannot lead to a cancellation here: billed through another
/// company, cancellable only by phone, an error. Its reason says where to
/// cancel instead; going on could only guess. A plugin that fails to
/// answer ends nothing: its silence is not a verdict.
pub(super) fn dead_end(verdict: &Result<Verdict, String>, state: &State) -> Option<TaskResult> {
    if state.approved_commit() || state.dialog.is_some() {
        return None;
    }
    let Ok(Verdict::Failure(why)) = verdict else {
        return None;
    };
    Some(
        TaskResult::new(false, true, TaskReason::CannotCancelHere, state.turn)
            .with_error(why.clone()),
    )
}

/// `complete_task`: a failure is trusted; a success is looked for on the
/// page as it is now.
pub(super) async fn complete(
    cx: &mut Ctx<'_>,
    state: &mut State,
    args: &Value,
    origin: super::action::Origin,
) -> Result<Turn, Error> {
    let status = args
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let reason = args
        .get("reason")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    cx.reporter.emit(Event::ToolCall {
        turn: state.turn,
        tool: COMPLETE_TASK.into(),
        target: None,
        arguments: args.clone(),
        origin: Some(origin),
    });
    if status == "failed" {
        // The driver's judgement that the goal cannot be reached is trusted.
        return Ok(end(TaskResult::new(
            false,
            true,
            TaskReason::Completed,
            state.turn,
        )
        .with_error(reason)));
    }
    let verification = match &state.dialog {
        Some(open) => Verification::NotVerified(format!(
            "a {} dialog is still open (\"{}\")",
            open.dialog.kind, open.dialog.message
        )),
        None => {
            // The look for a claim does not pause for sign-in: the claim is
            // judged on the page as it is.
            let _ = look::look(cx, state, None, Watch::Nothing).await?;
            let verdict = plugin_verdict(cx, &state.snapshot)
                .await
                .unwrap_or_else(could_not_verify);
            judge(cx, verdict, state).await
        }
    };
    let detail = match &verification {
        Verification::Verified => String::new(),
        Verification::AlreadyCancelled => "it was already cancelled before this run".into(),
        Verification::UnverifiedChange(why) | Verification::NotVerified(why) => why.clone(),
    };
    cx.reporter.emit(Event::Verification {
        turn: state.turn,
        verified: matches!(
            verification,
            Verification::Verified | Verification::AlreadyCancelled
        ),
        detail: detail.clone(),
    });
    match verification {
        Verification::Verified => {
            return Ok(end(TaskResult::new(
                true,
                true,
                TaskReason::Completed,
                state.turn,
            )));
        }
        Verification::AlreadyCancelled => {
            return Ok(end(TaskResult::new(
                true,
                true,
                TaskReason::AlreadyCancelled,
                state.turn,
            )
            .with_error(
                "nothing was cancelled by this run: the page shows it was already cancelled",
            )));
        }
        Verification::UnverifiedChange(why) => {
            return Ok(end(TaskResult::new(
                false,
                false,
                TaskReason::UnverifiedChange,
                state.turn,
            )
            .with_error(format!(
                "{why}. Nothing this run sent can have cancelled it: check your account yourself; no receipt was written"
            ))));
        }
        Verification::NotVerified(_) => {}
    }
    state.refused_claims += 1;
    if state.refused_claims >= MAX_REFUSED_CLAIMS {
        let says = crate::text::truncate(
            &safety::success::visible_text(&state.snapshot.content),
            QUOTE_CHARS,
            crate::text::ELLIPSIS,
        )
        .into_owned();
        return Ok(end(TaskResult::new(
            false,
            false,
            TaskReason::VerificationFailed,
            state.turn,
        )
        .with_error(format!(
            "not verified after {MAX_REFUSED_CLAIMS} success claims ({detail}); the page says: \"{says}\""
        ))));
    }
    let page = cx.toolset.observe(&state.snapshot);
    let message = virtual_tools::cannot_verify(&state.snapshot.url, &detail);
    Ok(Turn::Continue {
        content: cx.toolset.unverified(&message, &page),
        is_error: true,
    })
}
