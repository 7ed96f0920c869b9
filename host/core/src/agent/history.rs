//! What part of the conversation the model is sent each turn (seed 002
//! §2.1.3). Two rules keep it small:
//! - a snapshot is sent in full once: when a later one exists, the toolset
//!   shrinks the old copies to their id and page (compact does; `full`
//!   keeps seed 000's behaviour of resending everything);
//! - past [`HISTORY_TOKEN_BUDGET`], only the goal and the last
//!   [`KEPT_TURNS`] turns stay, and the turns dropped are listed in a
//!   system-generated "Previous actions" summary after the goal.
//!
//! And one for pictures (`--vision`): only the latest image is sent, since
//! an image costs far more tokens than the snapshot text beside it; older
//! ones are dropped, and token counts and summaries pass over images.

use serde_json::Value;

use super::toolset::Toolset;
use crate::llm::{Message, ToolCall};

/// Seed 002 §2.1.3: truncation starts when the history exceeds this.
pub const HISTORY_TOKEN_BUDGET: usize = 10_000;
/// Seed 002 §2.1.3: turns kept whole when truncating.
pub const KEPT_TURNS: usize = 10;
/// Bytes per ten tokens for [`estimate_tokens`]: o200k_base measured 2.8
/// bytes per token on our snapshot JSON (ids, boxes and numbers tokenize
/// densely) and ~4 on English, so 2.5 errs on the high side.
pub const BYTES_PER_TEN_TOKENS: usize = 25;
/// Longest argument value quoted in a summary line, in characters.
const MAX_SUMMARY_ARG_CHARS: usize = 40;

/// A cheap upper estimate of the tokens in `text`; the host enforces
/// budgets with it, and the token benchmark checks it against a real tokenizer.
pub fn estimate_tokens(text: &str) -> usize {
    (text.len() * 10).div_ceil(BYTES_PER_TEN_TOKENS)
}

/// The messages to send for `history`; its first message is the goal.
pub fn for_request(history: &[Message], toolset: &dyn Toolset) -> Vec<Message> {
    let mut messages = latest_in_full(history, toolset);
    if tokens(&messages) <= HISTORY_TOKEN_BUDGET {
        return messages;
    }
    let turns: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::Assistant { .. }))
        .map(|(i, _)| i)
        .collect();
    if turns.len() <= KEPT_TURNS {
        return messages;
    }
    let cut = turns[turns.len() - KEPT_TURNS];
    let first = turns[0];
    let summary = summarize(&messages[first..cut]);
    let kept = messages.split_off(cut);
    let mut goal: Vec<Message> = messages.into_iter().take(first).collect();
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

/// Seed 002 §2.1.3's "Previous actions" list for the turns in `dropped`.
pub fn summarize(dropped: &[Message]) -> String {
    let mut lines = vec!["Previous actions:".to_owned()];
    let mut pending: Option<String> = None;
    for message in dropped {
        match message {
            Message::Assistant { tool_calls, .. } => {
                if let Some(call) = pending.take() {
                    lines.push(format!("- {call}: no result"));
                }
                pending = Some(match tool_calls.first() {
                    Some(call) => describe_call(call),
                    None => "(no tool call)".to_owned(),
                });
            }
            Message::ToolResult {
                content, is_error, ..
            } => {
                let call = pending.take().unwrap_or_else(|| "(unknown call)".into());
                lines.push(format!("- {call}: {}", outcome(content, *is_error)));
            }
            Message::User(_) => {
                if let Some(call) = pending.take() {
                    lines.push(format!("- {call}"));
                }
            }
            Message::Image { .. } => {}
        }
    }
    if let Some(call) = pending {
        lines.push(format!("- {call}"));
    }
    lines.join("\n")
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
