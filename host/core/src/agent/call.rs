//! One call of a driver, from validation to the result it gets back: its
//! arguments checked against the tool's schema, the host's own tools
//! answered here, and a browser action taken through the pipeline — tried
//! once more when something was in the way (`recover.rs`), with the overlays
//! on the new page cleared before the driver sees it.

use std::time::Instant;

use serde_json::{Value, json};

use super::action::{Action, Origin};
use super::ask::{self, rejected, unavailable};
use super::claim;
use super::ctx::Ctx;
use super::overlays;
use super::pipeline::{self, Acted, Outcome as ActionOutcome};
use super::question;
use super::recover;
use super::schema;
use super::state::{State, millis};
use super::toolset::{Outcome, Refusal};
use super::trouble::Trouble;
use super::turn::{Turn, end};
use super::virtual_tools::{self, COMPLETE_TASK, REQUEST_HUMAN_APPROVAL};
use crate::approval::Answer;
use crate::browser::ToolOutput;
use crate::error::Error;
use crate::feed::event::Event;
use crate::llm::ToolCall;
use crate::page::origin_of;
use crate::safety::RefusalCode;

/// Takes `call`, proposed by a driver of `origin`.
pub(super) async fn take(
    cx: &mut Ctx<'_>,
    state: &mut State,
    call: &ToolCall,
    origin: Origin,
) -> Result<Turn, Error> {
    let args = match &call.arguments {
        Ok(args) => args.clone(),
        Err(invalid) => {
            let refusal = Refusal::new(
                RefusalCode::InvalidParams,
                format!(
                    "Your arguments were not valid JSON ({invalid}). Send one JSON object that matches the tool's schema."
                ),
            );
            return Ok(refuse(cx, state, &call.name, &refusal));
        }
    };
    let specs = match call.name.as_str() {
        COMPLETE_TASK | REQUEST_HUMAN_APPROVAL => virtual_tools::specs(),
        _ => cx.toolset.tools(),
    };
    let Some(spec) = specs.iter().find(|s| s.name == call.name) else {
        let mut names: Vec<String> = cx.toolset.tools().into_iter().map(|s| s.name).collect();
        names.extend(virtual_tools::specs().into_iter().map(|s| s.name));
        let refusal = Refusal::new(
            RefusalCode::InvalidParams,
            format!(
                "There is no tool called {}. The tools are: {}.",
                call.name,
                names.join(", ")
            ),
        );
        return Ok(refuse(cx, state, &call.name, &refusal));
    };
    if let Err(problems) = schema::validate(&args, &spec.input_schema) {
        let refusal = Refusal::new(
            RefusalCode::InvalidParams,
            format!(
                "Invalid arguments for {}: {}. Nothing was done; call it again with valid arguments.",
                call.name,
                problems.join("; ")
            ),
        );
        return Ok(refuse(cx, state, &call.name, &refusal));
    }
    match call.name.as_str() {
        COMPLETE_TASK => claim::complete(cx, state, &args, origin).await,
        REQUEST_HUMAN_APPROVAL => requested_approval(cx, state, &args, origin).await,
        tool => browser(cx, state, Action::call(origin, tool, args)).await,
    }
}

/// Refused before the browser: the driver hears why, with the page as it is.
pub(super) fn refuse(cx: &mut Ctx<'_>, state: &State, tool: &str, refusal: &Refusal) -> Turn {
    cx.reporter.emit(Event::Refused {
        turn: state.turn,
        tool: tool.to_owned(),
        code: refusal.code.as_str().to_owned(),
        why: refusal.message.clone(),
    });
    let page = cx.toolset.observe(&state.snapshot);
    Turn::Continue {
        content: cx.toolset.report(&Outcome::Refused(refusal), &page),
        is_error: true,
    }
}

/// A browser action: through the pipeline, retried once where something
/// was in the way, then the new page cleared of overlays and reported.
async fn browser(cx: &mut Ctx<'_>, state: &mut State, action: Action) -> Result<Turn, Error> {
    let started = Instant::now();
    let outcome = match pipeline::act(cx, state, &action).await? {
        Acted::Ran(outcome) => *outcome,
        Acted::Refused(refusal) => return Ok(refuse(cx, state, &action.tool, &refusal)),
        // A driver's action is asked about, never declined unasked.
        Acted::WouldAsk(reason) => {
            let refusal = Refusal::new(RefusalCode::ActionFailed, reason);
            return Ok(refuse(cx, state, &action.tool, &refusal));
        }
        Acted::Ended(result) => return Ok(Turn::End(result)),
    };
    let outcome = match outcome.trouble {
        Some(trouble) => match retry(cx, state, &action, outcome, trouble).await? {
            Ok(outcome) => outcome,
            Err(ended) => return Ok(end(ended)),
        },
        None => outcome,
    };
    let mut notes = Vec::new();
    if outcome.dialog.is_none() {
        let cleared = overlays::clear(cx, state).await?;
        if let Some(ended) = cleared.ended {
            return Ok(end(ended));
        }
        notes = cleared.notes;
    }
    Ok(report(cx, state, &action.tool, &outcome, &notes, started))
}

/// The failed action tried once more, after mending what was in the way;
/// the first outcome stands when no retry can be made. `Err` ends the run.
async fn retry(
    cx: &mut Ctx<'_>,
    state: &mut State,
    action: &Action,
    failed: ActionOutcome,
    trouble: Trouble,
) -> Result<Result<ActionOutcome, crate::feed::result::TaskResult>, Error> {
    let mended = recover::mend(
        cx,
        state,
        &action.tool,
        &action.args,
        &failed.resolved,
        trouble,
    )
    .await?;
    let Some((again, after)) = mended else {
        return Ok(Ok(failed));
    };
    match pipeline::act(cx, state, &again).await? {
        Acted::Ran(outcome) => {
            let outcome = *outcome;
            cx.reporter.emit(Event::Recovered {
                turn: state.turn,
                tool: failed.resolved.runs.clone(),
                trouble,
                after,
                ok: outcome.failure.is_none(),
            });
            Ok(Ok(outcome))
        }
        Acted::Ended(result) => Ok(Err(*result)),
        Acted::Refused(_) | Acted::WouldAsk(_) => Ok(Ok(failed)),
    }
}

/// The driver's result for an action that ran, with the page after it.
fn report(
    cx: &mut Ctx<'_>,
    state: &State,
    tool: &str,
    outcome: &ActionOutcome,
    notes: &[String],
    started: Instant,
) -> Turn {
    let page = cx.toolset.observe(&state.snapshot);
    let default_output = ToolOutput::default();
    let report_on = match (&outcome.failure, &outcome.output) {
        (Some(e), _) => Outcome::Failed(e),
        (None, Some(o)) => Outcome::Done(o),
        (None, None) => Outcome::Done(&default_output),
    };
    let mut content = cx.toolset.report(&report_on, &page);
    if let Some(note) = &outcome.guard_note {
        content.push_str(&format!("\n{note}"));
    }
    for note in notes {
        content.push_str(&format!("\n{note}"));
    }
    if let Some(open) = &outcome.dialog {
        content.push_str(&format!(
            "\nA {} dialog is open: \"{}\". Nothing else works until it is answered: \
             call browser_handle_dialog with accept true or false.",
            open.dialog.kind, open.dialog.message
        ));
    }
    if let Some(origin) = origin_of(&state.snapshot.url)
        && !state.allowed_origins.contains(&origin)
        && !cx
            .service
            .generic
            .as_ref()
            .is_some_and(|g| g.covers(&origin))
    {
        content.push_str(&format!(
            "\nNote: this page is outside {}'s sites ({origin}). Go back.",
            cx.display_name()
        ));
    }
    cx.reporter.emit(Event::ToolResult {
        turn: state.turn,
        tool: tool.to_owned(),
        ok: outcome.failure.is_none(),
        error: outcome.failure.as_ref().map(ToString::to_string),
        url: state.snapshot.url.clone(),
        elapsed_ms: millis(started),
        page: Some(page),
    });
    Turn::Continue {
        content,
        is_error: outcome.failure.is_some(),
    }
}

/// `request_human_approval`: the model's own question, its words labelled
/// as its. A yes releases nothing by itself.
async fn requested_approval(
    cx: &mut Ctx<'_>,
    state: &mut State,
    args: &Value,
    origin: Origin,
) -> Result<Turn, Error> {
    cx.reporter.emit(Event::ToolCall {
        turn: state.turn,
        tool: REQUEST_HUMAN_APPROVAL.into(),
        target: None,
        arguments: args.clone(),
        origin: Some(origin),
    });
    let mut request = question::from_model(args, &state.snapshot.url);
    request.screenshot = ask::screenshot(cx, false).await;
    Ok(match ask::answer(cx, state, request).await {
        Answer::Approved => Turn::Continue {
            content: json!({ "approved": true, "message": null }).to_string(),
            is_error: false,
        },
        Answer::Rejected => end(rejected(state.turn, "the human said no")),
        Answer::Unavailable(why) => end(rejected(state.turn, &unavailable(&why))),
        Answer::Feedback(feedback) => Turn::Continue {
            content: json!({ "approved": false, "message": format!("User feedback: {feedback}") })
                .to_string(),
            is_error: true,
        },
    })
}
