//! The turn loop: the first look at the start page, then, turn after turn,
//! the driver's next move (a model's reply, the offline policy's or a
//! replayed step, an MCP client's call) taken by `call.rs`, until a turn
//! ends the run. The loop owns the run's state.

use std::time::Instant;

use base64::Engine as _;

use super::action::Origin;
use super::call;
use super::claim;
use super::ctx::Ctx;
use super::driver::{self, Driver};
use super::history;
use super::image::{SCREENSHOT_MEDIA_TYPE, read_image};
use super::look::{self, Watch};
use super::metrics::{request_chars, request_images};
use super::options::{MAX_NO_ACTION_REPLIES, MAX_REPLY_TOKENS, NUDGE};
use super::overlays;
use super::plan_first;
use super::prompt;
use super::remember;
use super::state::{Clocks, State, millis, timed};
use super::toolset::{ModelScreenshot, describe};
use super::turn::Turn;
use super::virtual_tools;
use crate::browser::guard::NetworkGuard;
use crate::error::Error;
use crate::feed::event::Event;
use crate::feed::result::{TaskReason, TaskResult, Tokens};
use crate::llm::textcall::{self, TextCall};
use crate::llm::{Completion, Message, Request, ToolCall, ToolSpec};

/// Runs the loop from the start page to the run's end.
pub(super) async fn run(
    cx: &mut Ctx<'_>,
    state: &mut State,
    driver: &mut Driver,
) -> Result<TaskResult, Error> {
    cx.reporter.busy("Opening the browser…");
    if let Some(ended) = open_start(cx, state).await? {
        return Ok(ended);
    }
    if let Some(ended) = look::look(cx, state, None, Watch::SignIn).await? {
        return Ok(ended);
    }
    let cleared = overlays::clear(cx, state).await?;
    if let Some(ended) = cleared.ended {
        return Ok(ended);
    }
    let page = cx.toolset.observe(&state.snapshot);
    // The goal is in the system prompt; this message is the page.
    let mut first = format!("Current page:\n{page}");
    for note in cleared.notes {
        first.push_str(&format!("\n{note}"));
    }
    if let Some(hints) = remember::hints(driver, state) {
        first.push_str(&format!("\n\n{hints}"));
    }
    state.history.push(Message::User(first));
    attach_screenshot(cx, state).await;
    let system = prompt::system_prompt(&cx.service.metadata, &cx.service.plan);
    let mut tools = cx.toolset.tools();
    tools.extend(virtual_tools::specs());
    let mut no_action = 0;
    loop {
        let verdict = claim::plugin_verdict(cx, &state.snapshot).await;
        if let Some(ended) = claim::dead_end(&verdict, state) {
            return Ok(ended);
        }
        if let Some(ended) = claim::unverified_change(cx, &verdict, state).await {
            return Ok(ended);
        }
        if state.turn >= cx.options.max_turns {
            return Ok(
                TaskResult::new(false, false, TaskReason::MaxTurnsExceeded, state.turn)
                    .with_error(format!("no result after {} turns", cx.options.max_turns)),
            );
        }
        state.turn += 1;
        // The clocks run for the whole run; a turn's share is the
        // difference from here.
        let turn_clocks = cx.clocks;
        let turn_started = Instant::now();
        // The path and the plan trust the host's verification alone; so
        // does a model's run, which ends without another request (a whole
        // page and the fixed prefix, to be told what the host already knows).
        let model = matches!(driver, Driver::Model(_));
        let verified = if model || plan_first::knows_way(driver, state) {
            plan_first::verified(cx, state, verdict).await
        } else {
            false
        };
        let Some((mut completion, origin)) =
            choose_move(cx, state, driver, verified, &system, &tools).await?
        else {
            return Ok(
                TaskResult::new(false, false, TaskReason::Closed, state.turn)
                    .with_error("the MCP client closed the session before the run ended"),
            );
        };
        // Told instead of shown: the model hears of these steps in a brief.
        let briefed =
            matches!(origin, Origin::Plan | Origin::Replay) && plan_first::briefs(cx, driver);
        state.known_drove_last = matches!(origin, Origin::Plan | Origin::Replay);
        let repair = call_in_text(cx, driver, &mut completion, &tools, state.turn);
        if completion.tool_calls.is_empty() {
            report_timing(cx, state, &turn_clocks, turn_started);
        }
        let Some(call) = completion.tool_calls.first().cloned() else {
            no_action += 1;
            if no_action >= MAX_NO_ACTION_REPLIES {
                return Ok(
                    TaskResult::new(false, false, TaskReason::LlmNoAction, state.turn)
                        .with_error("the model answered three times without calling a tool"),
                );
            }
            state.history.push(Message::Assistant {
                text: completion.text.clone(),
                tool_calls: Vec::new(),
            });
            let prompt = repair.map_or_else(|| NUDGE.to_owned(), |p| textcall::repair_prompt(&p));
            state.history.push(Message::User(prompt));
            continue;
        };
        no_action = 0;
        if completion.tool_calls.len() > 1 {
            tracing::debug!(
                "Ignoring {} additional tool calls",
                completion.tool_calls.len() - 1
            );
        }
        // Only the executed call enters the history: providers require a
        // result for every call they see.
        if !briefed {
            state.history.push(Message::Assistant {
                text: completion.text.clone(),
                tool_calls: vec![call.clone()],
            });
        }
        if cx.options.dry_run {
            return Ok(dry_run(cx, &call, state));
        }
        let outcome = call::take(cx, state, &call, origin).await?;
        plan_first::count(state, &call, origin);
        report_timing(cx, state, &turn_clocks, turn_started);
        match outcome {
            Turn::Continue { content, is_error } => {
                if let Driver::Client(client) = driver {
                    client.deliver(&content, is_error);
                }
                if briefed {
                    plan_first::took(state, &completion, &content, is_error);
                } else {
                    state.history.push(Message::ToolResult {
                        call_id: call.id.clone(),
                        content,
                        is_error,
                    });
                    attach_screenshot(cx, state).await;
                }
            }
            Turn::End(result) => return Ok(*result),
        }
    }
}

/// The guard installed, then the start page opened through it, like any
/// other page: a start address that itself reads as a commit (a client's
/// `start_url`, a link pasted from a mail) is never loaded, and what its
/// loading sent that the guard held is aborted, nobody having asked for it.
/// `Some` ends the run there.
async fn open_start(cx: &mut Ctx<'_>, state: &mut State) -> Result<Option<TaskResult>, Error> {
    if cx.options.checkpoints {
        let rules = super::guard_rules::of(cx, state);
        let installed = timed(
            &mut cx.clocks.browser,
            NetworkGuard::install(cx.browser, &rules),
        )
        .await?;
        state.guard = Some(installed);
    }
    if let Some(why) = start_commits(&cx.options.start_url) {
        return Ok(Some(refused_start(&cx.options.start_url, &why)));
    }
    let opened = timed(
        &mut cx.clocks.browser,
        cx.browser.navigate(&cx.options.start_url),
    )
    .await;
    if let Some(guard) = &state.guard {
        let taken = timed(&mut cx.clocks.browser, guard.take(cx.browser)).await?;
        if !taken.stopped.is_empty() {
            cx.reporter.emit(Event::GuardBlocked {
                turn: 0,
                requests: taken.stopped.clone(),
            });
        }
        if let Some(first) = taken.held.first() {
            let ids: Vec<u64> = taken.held.iter().map(|h| h.id).collect();
            let mode = crate::browser::guard::INITIAL_MODE;
            timed(
                &mut cx.clocks.browser,
                guard.settle(cx.browser, &ids, false, mode),
            )
            .await?;
            return Ok(Some(refused_start(
                &cx.options.start_url,
                &format!(
                    "its loading sent {} {} ({})",
                    first.method, first.url, first.why
                ),
            )));
        }
    }
    opened?;
    Ok(None)
}

/// The turn's move: the remembered path's or the plan's step where it finds
/// one on the page (or a verified model run's completion), else the
/// driver's. `None` when an MCP client closed the session meanwhile.
async fn choose_move(
    cx: &mut Ctx<'_>,
    state: &mut State,
    driver: &mut Driver,
    verified: bool,
    system: &str,
    tools: &[ToolSpec],
) -> Result<Option<(Completion, Origin)>, Error> {
    let model = matches!(driver, Driver::Model(_));
    let started = Instant::now();
    let known = plan_first::next(cx, state, driver, verified).or_else(|| {
        (model && verified).then(|| {
            (
                driver::verified_completion(&*cx.toolset, state.turn),
                Origin::Model,
            )
        })
    });
    let chosen = match known {
        Some(known) => {
            emit_reply(cx, state.turn, &known.0, Tokens::default(), started);
            known
        }
        None => {
            if plan_first::brief(state) {
                attach_screenshot(cx, state).await;
            }
            let request = Request {
                system: system.to_owned(),
                messages: history::for_request(&state.history, &*cx.toolset),
                tools: tools.to_vec(),
                max_tokens: MAX_REPLY_TOKENS,
                cache_history: cx.toolset.turns_kept_whole().is_none(),
            };
            let Some(completion) = next_move(cx, state, driver, &request, verified).await? else {
                return Ok(None);
            };
            (completion, origin_of(driver))
        }
    };
    Ok(Some(chosen))
}

/// Who proposed the driver's call.
fn origin_of(driver: &Driver) -> Origin {
    match driver {
        Driver::Model(_) => Origin::Model,
        Driver::Offline(_) => Origin::Plan,
        Driver::Client(_) => Origin::Client,
    }
}

/// Why the start address reads as a commit, if it does: a page load's
/// reading (asking words name the page that asks).
fn start_commits(url: &str) -> Option<String> {
    use crate::safety::floor::{RequestReading, read_request, url_request_text};
    match read_request(&url_request_text(url))? {
        RequestReading::Commits => Some("reads as a commit".into()),
        RequestReading::ChangesBilling => Some("reads as a change to what the person pays".into()),
        RequestReading::Confirms => None,
    }
}

/// The run ends before its first page: nothing was sent.
fn refused_start(url: &str, why: &str) -> TaskResult {
    TaskResult::new(false, false, TaskReason::McpError, 0).with_error(format!(
        "The start address {url} was not opened: {why}, and a run starts on a page, not on a step that commits. Nothing was sent; start from the account page instead."
    ))
}

/// The driver's next move; `None` when an MCP client closed its session.
/// `verified`: the host verified the page, which is all the offline policy
/// goes by.
async fn next_move(
    cx: &mut Ctx<'_>,
    state: &mut State,
    driver: &mut Driver,
    request: &Request,
    verified: bool,
) -> Result<Option<Completion>, Error> {
    // A client's model is sent nothing by the host: its client already
    // holds the page the last result carried.
    if !matches!(driver, Driver::Client(_)) {
        let (images, image_chars) = request_images(request);
        let chars = request_chars(request);
        if matches!(driver, Driver::Model(_)) {
            state.asked.requests += 1;
            state.asked.chars += chars as u64;
        }
        cx.reporter.emit(Event::ModelRequest {
            turn: state.turn,
            messages: request.messages.len(),
            tools: request.tools.len(),
            chars,
            images,
            image_chars,
        });
    }
    let started = Instant::now();
    let completion = match driver {
        Driver::Model(provider) => {
            cx.reporter.busy("Waiting for the model…");
            provider.complete(request).await.map_err(Error::from)?
        }
        Driver::Offline(policy) => driver::offline_completion(
            policy,
            &*cx.toolset,
            &state.snapshot,
            state.dialog.as_ref(),
            verified,
            state.turn,
        ),
        Driver::Client(client) => {
            cx.reporter.busy("Waiting for the MCP client…");
            match client.next().await {
                Some(completion) => completion,
                None => return Ok(None),
            }
        }
    };
    cx.clocks.model += started.elapsed();
    let usage = Tokens::from(completion.usage);
    state.usage.add(usage);
    emit_reply(cx, state.turn, &completion, usage, started);
    Ok(Some(completion))
}

fn emit_reply(
    cx: &mut Ctx<'_>,
    turn: u32,
    completion: &Completion,
    usage: Tokens,
    started: Instant,
) {
    cx.reporter.emit(Event::ModelReply {
        turn,
        text: completion.text.clone(),
        tool_calls: completion
            .tool_calls
            .iter()
            .map(|c| c.name.clone())
            .collect(),
        usage,
        elapsed_ms: millis(started),
    });
}

/// A model that wrote its call as text instead of calling the tool: the
/// call is read from the text (and checked like any call). Returns what was
/// wrong when the text meant a call that cannot be used.
fn call_in_text(
    cx: &mut Ctx<'_>,
    driver: &Driver,
    completion: &mut Completion,
    tools: &[ToolSpec],
    turn: u32,
) -> Option<String> {
    if !completion.tool_calls.is_empty() || !matches!(driver, Driver::Model(_)) {
        return None;
    }
    let read = textcall::read(completion.text.as_deref()?, tools);
    let (tool, problem) = match read {
        TextCall::None => return None,
        TextCall::Call(mut call) => {
            call.id = format!("text-{turn}");
            let tool = call.name.clone();
            completion.tool_calls.push(call);
            (Some(tool), None)
        }
        TextCall::Invalid(problem) => (None, Some(problem)),
    };
    cx.reporter.emit(Event::CallInText {
        turn,
        tool,
        problem: problem.clone(),
    });
    problem
}

/// Puts the screenshot of the latest look (`--vision`) in the history
/// after the message that described the page. Without a new look (a
/// refused call) the last picture still shows the page, so it stays. A
/// picture that cannot be taken, read or sent only costs the model the
/// picture, but then the older ones go too: they show a page that is gone.
async fn attach_screenshot(cx: &mut Ctx<'_>, state: &mut State) {
    let image = match cx.toolset.take_screenshot_for_model() {
        None => return,
        Some(ModelScreenshot::Failed) => None,
        Some(ModelScreenshot::Taken(path)) => match read_image(&path).await {
            Ok(data) => Some(data),
            Err(why) => {
                tracing::warn!("screenshot {} not sent to the model: {why}", path.display());
                None
            }
        },
    };
    state
        .history
        .retain(|m| !matches!(m, Message::Image { .. }));
    if let Some(data) = image {
        state.history.push(Message::Image {
            media_type: SCREENSHOT_MEDIA_TYPE.to_owned(),
            data_base64: base64::engine::general_purpose::STANDARD.encode(data),
        });
    }
}

fn report_timing(cx: &mut Ctx<'_>, state: &State, before: &Clocks, started: Instant) {
    let total = started.elapsed();
    let t = cx.clocks.since(before);
    let host = total.saturating_sub(t.model + t.browser + t.human);
    let us = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    cx.reporter.emit(Event::TurnTiming {
        turn: state.turn,
        total_us: us(total),
        model_us: us(t.model),
        browser_us: us(t.browser),
        human_us: us(t.human),
        host_us: us(host),
        safety_us: us(t.safety),
    });
}

fn dry_run(cx: &mut Ctx<'_>, call: &ToolCall, state: &State) -> TaskResult {
    let arguments = call.arguments.clone().unwrap_or(serde_json::Value::Null);
    let target = cx
        .toolset
        .translate(&call.name, &arguments, &state.snapshot)
        .ok()
        .and_then(|a| a.target)
        .map(|e| describe(&e));
    cx.reporter.emit(Event::DryRun {
        tool: call.name.clone(),
        target: target.clone(),
        arguments: arguments.clone(),
    });
    TaskResult::new(false, false, TaskReason::DryRun, state.turn).with_error(format!(
        "DRY-RUN: Would execute {}({arguments}){}",
        call.name,
        target.map(|t| format!(" on {t}")).unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::start_commits;

    /// A start address is a page: one that itself reads as a commit (a
    /// client's `start_url`, a link from a mail) is never opened; an
    /// account page, a flow's opener or the page that asks to confirm is.
    #[test]
    fn which_start_addresses_are_refused_table() {
        for (url, refused) in [
            ("http://127.0.0.1:8080/membership/cancel/complete", true),
            (
                "https://www.example.com/account?action=end_subscription",
                true,
            ),
            ("https://www.example.com/offer/accept?offer=half", true),
            ("https://www.netflix.com/cancelplan", false),
            ("https://www.example.com/account", false),
            ("https://www.example.com/account/cancel/confirm", false),
            ("http://127.0.0.1:8931/account.html", false),
        ] {
            assert_eq!(start_commits(url).is_some(), refused, "{url}");
        }
    }
}
