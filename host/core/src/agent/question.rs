//! The one builder of what a person is asked: before an action the
//! decision would not let run unasked, about requests the guard stopped,
//! and when the model itself asks. Everything an action carries is shown,
//! and whatever a plugin or the model said is labelled as theirs.

use serde_json::Value;

use super::ctx::Ctx;
use super::facts::Gathered;
use super::resolve::Resolved;
use super::toolset::{BrowserAction, describe};
use crate::approval::{ApprovalRequest, Said};
use crate::browser::guard::BlockedRequest;
use crate::browser::tools as mcp;
use crate::safety::PluginAnswer;

/// Stopped requests named in a question; the rest are counted.
const MAX_BLOCKED_SHOWN: usize = 3;

/// Before `resolved` runs, for `reason`; `changed` says how the element
/// changed since the person was last asked about it.
pub(super) fn before_action(
    cx: &Ctx<'_>,
    resolved: &Resolved,
    gathered: &Gathered,
    reason: String,
    changed: Option<String>,
    url: &str,
) -> ApprovalRequest {
    let reason = match changed {
        Some(what) => {
            format!("the element changed after you were asked ({what}); asking again: {reason}")
        }
        None => reason,
    };
    ApprovalRequest {
        reason,
        said: match &gathered.plugin {
            PluginAnswer::Ask(words) => Some(Said {
                who: format!("{} plugin", cx.display_name()),
                words: words.clone(),
            }),
            _ => None,
        },
        ..shown(resolved, gathered, url)
    }
}

/// After the guard stopped `blocked` during an unapproved `resolved`: a yes
/// runs the action again with them let through.
pub(super) fn after_blocked(
    resolved: &Resolved,
    gathered: &Gathered,
    blocked: &[BlockedRequest],
    url: &str,
) -> ApprovalRequest {
    ApprovalRequest {
        reason: format!(
            "the browser stopped {} this action sent without your yes; nothing reached the site. Approve to run the action again and let it through",
            describe_blocked(blocked)
        ),
        ..shown(resolved, gathered, url)
    }
}

/// The model's own `request_human_approval`: its words, labelled as its.
pub(super) fn from_model(args: &Value, url: &str) -> ApprovalRequest {
    let text = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    ApprovalRequest {
        reason: "the model asks for your approval".into(),
        said: Some(Said {
            who: "The model".into(),
            words: text("reason"),
        }),
        action: text("action"),
        url: url.to_owned(),
        ..ApprovalRequest::default()
    }
}

/// What every question about an action shows of it.
fn shown(resolved: &Resolved, gathered: &Gathered, url: &str) -> ApprovalRequest {
    ApprovalRequest {
        action: resolved.runs.clone(),
        target: resolved.action.target.as_ref().map(describe),
        shows: gathered.dom.as_ref().map(|d| d.visible_text.clone()),
        details: details(&resolved.runs, &resolved.action, gathered),
        url: url.to_owned(),
        ..ApprovalRequest::default()
    }
}

/// The action's arguments in words, for the question.
fn details(runs: &str, action: &BrowserAction, gathered: &Gathered) -> Option<String> {
    let args = &action.mcp_args;
    let mut parts = Vec::new();
    if let Some(text) = args.get("text").and_then(Value::as_str) {
        parts.push(format!("text \"{text}\""));
    }
    if args.get("submit").and_then(Value::as_bool) == Some(true) {
        parts.push("then Enter (submits)".to_owned());
    }
    if let Some(key) = args.get("key").and_then(Value::as_str) {
        parts.push(format!("key \"{key}\""));
    }
    if let Some(values) = args.get("values").and_then(Value::as_array) {
        let values: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        parts.push(format!("option \"{}\"", values.join("\", \"")));
    }
    if let Some(url) = &action.navigate_to {
        parts.push(format!("destination {url}"));
    }
    if runs == mcp::HANDLE_DIALOG {
        let accept = args.get("accept").and_then(Value::as_bool) == Some(true);
        parts.push(if accept { "accept" } else { "dismiss" }.to_owned());
    }
    if let Some(dom) = &gathered.dom {
        if let Some(action) = &dom.form_action {
            let method = dom.form_method.as_deref().unwrap_or("get").to_uppercase();
            parts.push(format!("submits a form: {method} {action}"));
        } else if let Some(href) = &dom.href {
            parts.push(format!("leads to {href}"));
        }
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The stopped requests in words, for the person.
pub(super) fn describe_blocked(blocked: &[BlockedRequest]) -> String {
    let parts: Vec<String> = blocked
        .iter()
        .take(MAX_BLOCKED_SHOWN)
        .map(|b| format!("{} ({} {})", b.why, b.method, b.url))
        .collect();
    let more = blocked.len().saturating_sub(MAX_BLOCKED_SHOWN);
    if more > 0 {
        format!("{} and {more} more", parts.join(", "))
    } else {
        parts.join(", ")
    }
}
