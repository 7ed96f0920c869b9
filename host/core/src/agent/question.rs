//! The one builder of what a person is asked: before an action the
//! decision would not let run unasked, at the effect about requests the
//! guard holds, and when the model itself asks. Everything an action carries is shown,
//! and whatever a plugin or the model said is labelled as theirs.

use serde_json::Value;

use super::ctx::Ctx;
use super::facts::Gathered;
use super::resolve::Resolved;
use super::toolset::{BrowserAction, describe};
use crate::approval::{ApprovalRequest, Said};
use crate::browser::guard::{HeldRequest, Shown};
use crate::browser::tools as mcp;
use crate::safety::PluginAnswer;

/// Held requests named in a question; the rest are counted.
const MAX_HELD_SHOWN: usize = 3;

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
                who: if cx.service.generic.is_some() {
                    "The plan every site shares".to_owned()
                } else {
                    format!("{} plugin", cx.display_name())
                },
                words: words.clone(),
            }),
            _ => None,
        },
        ..shown(resolved, gathered, url)
    }
}

/// At the effect: the guard holds `held`, which an unapproved `resolved`
/// sent; nothing has reached the site. A yes lets them (and the rest of
/// this one action's requests) through.
pub(super) fn held(
    resolved: &Resolved,
    gathered: &Gathered,
    held: &[HeldRequest],
    url: &str,
    also: bool,
) -> ApprovalRequest {
    let sends: Vec<String> = held
        .iter()
        .take(MAX_HELD_SHOWN)
        .map(|h| {
            let body = if h.body.is_empty() {
                String::new()
            } else {
                format!(" with \"{}\"", h.body)
            };
            format!("{} {}{body} ({})", h.method, host_and_path(&h.url), h.why)
        })
        .collect();
    let more = held.len().saturating_sub(MAX_HELD_SHOWN);
    let mut sends = sends.join("; ");
    if more > 0 {
        sends.push_str(&format!("; and {more} more"));
    }
    let mut shown = shown(resolved, gathered, url);
    shown.details = Some(match shown.details {
        Some(details) => format!("sends {sends}; {details}"),
        None => format!("sends {sends}"),
    });
    ApprovalRequest {
        reason: if also {
            format!(
                "after the request you approved, this page also tried to send {}; your yes did not cover it, so it is held in the browser and nothing of it has reached the site. Approve to let it through",
                describe_held(held)
            )
        } else {
            format!(
                "this action sent {}; it is held in the browser and nothing has reached the site. Approve to let it through",
                describe_held(held)
            )
        },
        held_navigation: held.iter().any(|h| h.navigation),
        ..shown
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

/// The request the question shows the element sends ([`details`]: its
/// form's submission, else the link it follows). What a yes to the action
/// is given to, so the guard may still let exactly this go should it leave
/// after the action's call (`run::run`).
pub(super) fn shown_request(gathered: &Gathered) -> Option<Shown> {
    let dom = gathered.dom.as_ref()?;
    let (method, url) = match (&dom.form_action, &dom.href) {
        (Some(action), _) => (
            dom.form_method.as_deref().unwrap_or("get").to_uppercase(),
            action,
        ),
        (None, Some(href)) => ("GET".to_owned(), href),
        (None, None) => return None,
    };
    let url = url.split_once('#').map_or(url.as_str(), |(bare, _)| bare);
    Some(Shown {
        any_query: dom.form_action.is_some() && method == "GET",
        method,
        url: url.to_owned(),
    })
}

/// The held requests in words: `a form submission to the service (POST
/// www.example.com/cancel)`.
pub(super) fn describe_held(held: &[HeldRequest]) -> String {
    let parts: Vec<String> = held
        .iter()
        .take(MAX_HELD_SHOWN)
        .map(|h| format!("{} ({} {})", h.why, h.method, host_and_path(&h.url)))
        .collect();
    let more = held.len().saturating_sub(MAX_HELD_SHOWN);
    if more > 0 {
        format!("{} and {more} more", parts.join(", "))
    } else {
        parts.join(", ")
    }
}

/// `host/path?query` of a URL, as a person reads where a request goes.
fn host_and_path(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => {
            let host = parsed.host_str().unwrap_or_default();
            let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
            let query = parsed.query().map(|q| format!("?{q}")).unwrap_or_default();
            format!("{host}{port}{}{query}", parsed.path())
        }
        Err(_) => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::ElementFacts;

    fn facts(action: Option<&str>, method: Option<&str>, href: Option<&str>) -> Gathered {
        Gathered {
            dom: Some(ElementFacts {
                form_action: action.map(str::to_owned),
                form_method: method.map(str::to_owned),
                href: href.map(str::to_owned),
                ..ElementFacts::default()
            }),
            ..Gathered::default()
        }
    }

    /// The request a yes covers is the one the question names: the form
    /// before the link, its method (GET when unsaid), no fragment, and a
    /// GET form's query left open (its fields are the query).
    #[test]
    fn the_shown_request_is_the_one_the_question_names() {
        // The element's facts, and the method, address and open query shown.
        type Case = (Gathered, Option<(&'static str, &'static str, bool)>);
        let cases: &[Case] = &[
            (
                facts(
                    Some("https://x.test/cancel#top"),
                    Some("post"),
                    Some("https://x.test/a"),
                ),
                Some(("POST", "https://x.test/cancel", false)),
            ),
            (
                facts(Some("https://x.test/leave?k=1"), None, None),
                Some(("GET", "https://x.test/leave?k=1", true)),
            ),
            (
                facts(None, None, Some("https://x.test/end?id=7#x")),
                Some(("GET", "https://x.test/end?id=7", false)),
            ),
            (facts(None, None, None), None),
            (Gathered::default(), None),
        ];
        for (gathered, want) in cases {
            let got = shown_request(gathered);
            let got = got
                .as_ref()
                .map(|s| (s.method.as_str(), s.url.as_str(), s.any_query));
            assert_eq!(got, *want, "{:?}", gathered.dom);
        }
    }
}
