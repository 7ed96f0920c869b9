//! What part of the conversation the model is sent each turn. Two rules
//! keep it small:
//! - a snapshot is sent in full once: when a later one exists, the toolset
//!   shrinks the old copies to their id and page (compact does; `full`
//!   keeps the Python prototype's behaviour of resending everything);
//! - past [`HISTORY_TOKEN_BUDGET`], only the goal and the last
//!   [`KEPT_TURNS`] turns stay, and the turns dropped are listed in a
//!   system-generated "Previous actions" summary after the goal.
//!
//! A toolset may ask for the summary from the first turn on
//! ([`Toolset::turns_kept_whole`]): compact keeps no turn whole (issue 32),
//! so every request is the goal, a line per action taken (the last one's
//! result quoted when it was not a plain success), and the page now. A past
//! turn costs some 340 characters whole and 30 as a line, resent on every
//! later request. What stays the same from request to request, and what a
//! provider's prompt cache could read back, is the system prompt and the
//! tools; the conversation it no longer caches is the part no longer sent.
//!
//! And one for pictures (`--vision`): only the latest image is sent, since
//! an image costs far more tokens than the snapshot text beside it; older
//! ones are dropped, and token counts and summaries pass over images.

use serde_json::Value;

use super::toolset::Toolset;
use crate::llm::{Message, ToolCall};

/// Truncation starts when the history exceeds this many tokens.
pub const HISTORY_TOKEN_BUDGET: usize = 10_000;
/// Turns kept whole when truncating.
pub const KEPT_TURNS: usize = 10;
/// Bytes per ten tokens for [`estimate_tokens`]: o200k_base measured 2.8
/// bytes per token on our snapshot JSON (ids, boxes and numbers tokenize
/// densely) and ~4 on English, so 2.5 errs on the high side.
pub const BYTES_PER_TEN_TOKENS: usize = 25;
/// Longest argument value quoted in a summary line, in characters.
const MAX_SUMMARY_ARG_CHARS: usize = 40;
/// Longest text of a turn (what it said it was for) kept in its summary
/// line, in characters.
const MAX_SUMMARY_TEXT_CHARS: usize = 120;
/// Longest last result quoted whole in a summary, in characters: an error
/// and its message fit; the page is never in it (it is sent apart).
const MAX_QUOTED_RESULT_CHARS: usize = 2_000;

/// A cheap upper estimate of the tokens in `text`; the host enforces
/// budgets with it, and the token benchmark checks it against a real tokenizer.
pub fn estimate_tokens(text: &str) -> usize {
    (text.len() * 10).div_ceil(BYTES_PER_TEN_TOKENS)
}

/// The messages to send for `history`; its first message is the goal.
pub fn for_request(history: &[Message], toolset: &dyn Toolset) -> Vec<Message> {
    let messages = latest_in_full(history, toolset);
    match toolset.turns_kept_whole() {
        Some(kept) => summarized(messages, kept),
        None if tokens(&messages) <= HISTORY_TOKEN_BUDGET => messages,
        None => summarized(messages, KEPT_TURNS),
    }
}

/// `messages` with every turn but the last `kept` replaced by one
/// "Previous actions" line each, appended to the goal. With `kept` 0 every
/// turn is a line, the last one's result in full unless it was a plain
/// success, and a last reply with no call stays whole; what followed it (a
/// note of the host's, the page) stays.
fn summarized(mut messages: Vec<Message>, kept: usize) -> Vec<Message> {
    let turns: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::Assistant { .. }))
        .map(|(i, _)| i)
        .collect();
    let (Some(&first), Some(&last)) = (turns.first(), turns.last()) else {
        return messages;
    };
    let cut = match (kept, &messages[last]) {
        // A reply with no call stays whole: what the host said to it (a
        // repair prompt) refers to it.
        (0, Message::Assistant { tool_calls, .. }) if tool_calls.is_empty() => last,
        (0, _) => messages[last + 1..]
            .iter()
            .position(|m| !matches!(m, Message::ToolResult { .. }))
            .map_or(messages.len(), |i| last + 1 + i),
        _ if turns.len() <= kept => return messages,
        _ => turns[turns.len() - kept],
    };
    if cut <= first {
        return messages;
    }
    let summary = summary_of(&messages[first..cut], kept == 0);
    let kept = messages.split_off(cut);
    // The one picture still sent may predate the cut (a refused call takes
    // none): it stays, after the goal, as the page the model last saw.
    let picture = messages
        .drain(first..)
        .rev()
        .find(|m| matches!(m, Message::Image { .. }));
    let mut goal = messages;
    // The goal's own picture may follow its text.
    let goal_text = goal.iter_mut().rev().find_map(|m| match m {
        Message::User(text) => Some(text),
        _ => None,
    });
    match goal_text {
        // Appended to the goal rather than sent as a message of its own:
        // providers want user and assistant messages to alternate.
        Some(text) => {
            text.push_str("\n\n");
            text.push_str(&summary);
        }
        None => goal.push(Message::User(summary)),
    }
    goal.extend(picture);
    goal.extend(kept);
    goal
}

/// What comes before the latest page when it is sent apart.
pub const PAGE_NOW: &str = "Page now:";

/// `history` as it is sent before any truncation, in one pass and one copy:
/// images but the latest dropped. A toolset that sends the page apart has
/// every snapshot replaced by its stub and the latest sent once more, whole,
/// as the last message: everything before it is then the same from one turn
/// to the next, which is what a prompt cache reads back.
fn latest_in_full(history: &[Message], toolset: &dyn Toolset) -> Vec<Message> {
    let latest_image = history
        .iter()
        .rposition(|m| matches!(m, Message::Image { .. }));
    let mut apart: Vec<Option<(String, String)>> = history
        .iter()
        .map(|m| text_of(m).and_then(|t| toolset.page_apart(t)))
        .collect();
    let page_now = apart
        .iter_mut()
        .rev()
        .find_map(|a| a.as_mut().map(|(_, page)| std::mem::take(page)));
    let mut messages: Vec<Message> = history
        .iter()
        .zip(apart)
        .enumerate()
        .filter(|(i, (m, _))| !matches!(m, Message::Image { .. }) || Some(*i) == latest_image)
        .map(|(_, (message, apart))| match (apart, message) {
            (Some((stub, _)), Message::User(_)) => Message::User(stub),
            (
                Some((stub, _)),
                Message::ToolResult {
                    call_id, is_error, ..
                },
            ) => Message::ToolResult {
                call_id: call_id.clone(),
                content: stub,
                is_error: *is_error,
            },
            _ => message.clone(),
        })
        .collect();
    if let Some(page) = page_now {
        messages.push(Message::User(format!("{PAGE_NOW}\n{page}")));
    }
    messages
}

fn text_of(message: &Message) -> Option<&str> {
    match message {
        Message::User(text) => Some(text),
        Message::ToolResult { content, .. } => Some(content),
        Message::Assistant { .. } | Message::Image { .. } => None,
    }
}

/// The estimated tokens of `messages`.
pub fn tokens(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| match m {
            Message::User(text) => estimate_tokens(text),
            Message::ToolResult { content, .. } => estimate_tokens(content),
            // At most one image is sent, and it is the latest, which
            // truncation always keeps: the budget is for the text.
            Message::Image { .. } => 0,
            Message::Assistant { text, tool_calls } => {
                estimate_tokens(text.as_deref().unwrap_or_default())
                    + tool_calls
                        .iter()
                        .map(|c| estimate_tokens(&c.name) + estimate_tokens(&arguments(c)))
                        .sum::<usize>()
            }
        })
        .sum()
}

fn arguments(call: &ToolCall) -> String {
    match &call.arguments {
        Ok(args) => args.to_string(),
        Err(invalid) => invalid.raw.clone(),
    }
}

/// The "Previous actions" list that stands for the turns in `dropped`.
pub fn summarize(dropped: &[Message]) -> String {
    summary_of(dropped, false)
}

/// The "Previous actions" list; with `last_whole`, the last result that
/// says more than "success" (an error's message, a person's words) is
/// quoted after its line, since it is what the model acts on next.
fn summary_of(dropped: &[Message], last_whole: bool) -> String {
    let last_result = dropped
        .iter()
        .rposition(|m| matches!(m, Message::ToolResult { .. }));
    let mut lines = vec!["Previous actions:".to_owned()];
    let mut pending: Option<String> = None;
    for (i, message) in dropped.iter().enumerate() {
        match message {
            Message::Assistant { tool_calls, text } => {
                if let Some(call) = pending.take() {
                    lines.push(format!("- {call}: no result"));
                }
                let mut call = match tool_calls.first() {
                    Some(call) => describe_call(call),
                    None => "(no tool call)".to_owned(),
                };
                // What the turn said it was for: a step the host replayed
                // says so here ("Replaying step 2: …"), a model its reason.
                if let Some(said) = text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                    let short =
                        crate::text::truncate(said, MAX_SUMMARY_TEXT_CHARS, crate::text::ELLIPSIS);
                    call.push_str(&format!(" ({short})"));
                }
                pending = Some(call);
            }
            Message::ToolResult {
                content, is_error, ..
            } => {
                let call = pending.take().unwrap_or_else(|| "(unknown call)".into());
                let said = outcome(content, *is_error);
                let whole = last_whole && Some(i) == last_result && !bare_success(content);
                if whole {
                    let quoted = crate::text::truncate(
                        content,
                        MAX_QUOTED_RESULT_CHARS,
                        crate::text::ELLIPSIS,
                    );
                    lines.push(format!("- {call}: {said}: {quoted}"));
                } else {
                    lines.push(format!("- {call}: {said}"));
                }
            }
            Message::User(text) => {
                if let Some(call) = pending.take() {
                    lines.push(format!("- {call}"));
                }
                // Steps the host took between the model's turns (the plan,
                // a remembered path) are actions too: a line each.
                lines.extend(host_steps(text).map(|step| format!("- (the host) {step}")));
            }
            Message::Image { .. } => {}
        }
    }
    if let Some(call) = pending {
        lines.push(format!("- {call}"));
    }
    lines.join("\n")
}

/// The steps listed in a brief of what the host did for the model
/// ([`super::plan_first::brief`]), without their numbers.
fn host_steps(text: &str) -> impl Iterator<Item = &str> {
    let listed = text
        .strip_prefix(super::plan_first::BRIEF_OPENING)
        .map(|rest| rest.split("\nIt stopped:").next().unwrap_or_default());
    listed
        .into_iter()
        .flat_map(str::lines)
        .filter_map(|line| line.split_once(". ").map(|(_, step)| step))
}

/// `browser_fill(@e8, "test")`.
fn describe_call(call: &ToolCall) -> String {
    let Ok(args) = &call.arguments else {
        return format!("{}(invalid arguments)", call.name);
    };
    let mut parts = Vec::new();
    for key in ["ref", "target", "direction", "status"] {
        if let Some(v) = args.get(key).and_then(Value::as_str) {
            parts.push(v.to_owned());
        }
    }
    for key in ["value", "text", "url", "action"] {
        if let Some(v) = args.get(key).and_then(Value::as_str) {
            parts.push(quoted(v));
        }
    }
    if let Some(v) = args
        .get("values")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_str)
    {
        parts.push(quoted(v));
    }
    format!("{}({})", call.name, parts.join(", "))
}

fn quoted(text: &str) -> String {
    let short = crate::text::truncate(text, MAX_SUMMARY_ARG_CHARS, crate::text::ELLIPSIS);
    format!("\"{short}\"")
}

/// Whether a result says only that the call worked: its leading JSON
/// object has nothing but `success: true`, a snapshot (a stub by now) and
/// a null error, and no note follows it (a guard's, a dialog's, "outside
/// the service's sites").
fn bare_success(content: &str) -> bool {
    let mut stream = serde_json::Deserializer::from_str(content).into_iter::<Value>();
    let Some(Ok(Value::Object(head))) = stream.next() else {
        return false;
    };
    let rest = &content[stream.byte_offset()..];
    rest.trim().is_empty()
        && head.get("success") == Some(&Value::Bool(true))
        && head.iter().all(|(key, value)| match key.as_str() {
            "success" | "snapshot" => true,
            "error" => value.is_null(),
            _ => false,
        })
}

/// `success`, or `failed (code)` from the result's leading JSON object.
fn outcome(content: &str, is_error: bool) -> String {
    let head = serde_json::Deserializer::from_str(content)
        .into_iter::<Value>()
        .next()
        .and_then(Result::ok);
    let code = head.as_ref().and_then(|v| {
        v.get("error")
            .and_then(Value::as_str)
            .or_else(|| v.get("code").and_then(Value::as_str))
            .map(str::to_owned)
            .or_else(|| {
                (v.get("approved") == Some(&Value::Bool(false))).then(|| "human_rejected".into())
            })
    });
    match (is_error, code) {
        (_, Some(code)) => format!("failed ({code})"),
        (true, None) => "failed".into(),
        (false, None) => "success".into(),
    }
}

#[cfg(test)]
mod tests;
