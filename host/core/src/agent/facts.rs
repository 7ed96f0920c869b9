//! Stage two of an action: what the host learns about it before deciding,
//! with its own calls — the element's facts from the DOM, the plugin's
//! word, and whether the page is a commit page (once per page) — and, after
//! a yes, whether the element is still what the person was shown.

use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use super::action::Action;
use super::ctx::Ctx;
use super::resolve::Resolved;
use super::state::{State, timed};
use super::toolset::{BrowserAction, describe};
use crate::browser::{facts, tools as mcp};
use crate::error::Error;
use crate::exit::ErrorClass;
use crate::page::{ElementFacts, Snapshot};
use crate::plugin::{self, ToolCallView};
use crate::safety::PluginAnswer;
use crate::safety::commit_page::{self, CommitPage};

/// What the host learned about an action before deciding.
#[derive(Debug, Default, Clone)]
pub(super) struct Gathered {
    /// The target's (or the focused element's) facts from the DOM.
    pub(super) dom: Option<ElementFacts>,
    /// Words the action carries: text typed, options, the key.
    pub(super) carried: Vec<String>,
    pub(super) plugin: PluginAnswer,
    pub(super) commit_page: Option<CommitPage>,
}

/// Reads the facts a state-changing action is judged on, with the
/// host's own calls. A read-only action costs nothing here.
pub(super) async fn gather(
    cx: &mut Ctx<'_>,
    state: &mut State,
    action: &Action,
    resolved: &Resolved,
) -> Result<Gathered, Error> {
    let Resolved {
        action: browser,
        runs,
    } = resolved;
    if browser.read_only || !cx.options.checkpoints {
        return Ok(Gathered::default());
    }
    let dom = dom_facts(cx, runs, browser).await?;
    let view = ToolCallView {
        action: action.tool.clone(),
        arguments: action.args.clone(),
        target: browser.target.clone(),
        facts: dom.clone(),
    };
    let plugin = checkpoint(cx, view, state).await;
    let commit_page = commit_page(cx, state).await;
    Ok(Gathered {
        carried: carried(&browser.mcp_args),
        dom,
        plugin,
        commit_page,
    })
}

/// The target's facts, or the focused element's for a key press. A
/// failure to read them is a fact too (`None`), and `assess` asks.
async fn dom_facts(
    cx: &mut Ctx<'_>,
    runs: &str,
    action: &BrowserAction,
) -> Result<Option<ElementFacts>, Error> {
    let read = match &action.target {
        Some(target) => match &target.reference {
            Some(reference) => {
                let description = describe(target);
                timed(
                    &mut cx.clocks.browser,
                    facts::of_element(cx.browser, reference, &description),
                )
                .await
                .map(Some)
            }
            None => Ok(None),
        },
        None if runs == mcp::PRESS_KEY => {
            timed(&mut cx.clocks.browser, facts::of_focused(cx.browser)).await
        }
        None => Ok(None),
    };
    match read {
        Ok(facts) => Ok(facts),
        Err(e) if e.class() == ErrorClass::Failure => {
            tracing::debug!("cannot read the element's facts: {e}");
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// The plugin's word on one call; a failure is a fact too.
async fn checkpoint(cx: &Ctx<'_>, view: ToolCallView, state: &State) -> PluginAnswer {
    let snapshot = state.snapshot.clone();
    let said =
        plugin::call_blocking(&cx.service.plugin, move |p| p.checkpoint(&view, &snapshot)).await;
    plugin_answer(said)
}

/// A plugin's reason is shown as the plugin's words, apart from the
/// host's own: a plugin cannot pose as the host.
fn plugin_answer(said: Result<Option<String>, crate::plugin::PluginError>) -> PluginAnswer {
    match said {
        // The words stay the plugin's: the prompt shows them apart from
        // the host's reason, under the plugin's name.
        Ok(Some(reason)) => PluginAnswer::Ask(reason),
        Ok(None) => PluginAnswer::NoObjection,
        Err(e) => PluginAnswer::Failed(e.to_string()),
    }
}

/// Whether the page is a commit page: every actionable element put to
/// the floor and to the plugin, once per page.
pub(super) async fn commit_page(cx: &Ctx<'_>, state: &mut State) -> Option<CommitPage> {
    let print = fingerprint(&state.snapshot);
    if let Some((seen, verdict)) = &state.commit_page
        && *seen == print
    {
        return verdict.clone();
    }
    let snapshot = state.snapshot.clone();
    let views: Vec<(usize, ToolCallView)> = snapshot
        .elements
        .iter()
        .enumerate()
        .filter(|(_, e)| commit_page::is_actionable(e))
        .map(|(i, e)| {
            let action = if e.role == "combobox" || e.role == "listbox" {
                mcp::SELECT_OPTION
            } else {
                mcp::CLICK
            };
            let view = ToolCallView {
                action: action.to_owned(),
                arguments: Value::Object(serde_json::Map::new()),
                target: Some(e.clone()),
                facts: None,
            };
            (i, view)
        })
        .collect();
    let count = snapshot.elements.len();
    let answers = plugin::call_blocking(&cx.service.plugin, move |p| {
        let answers: Vec<_> = views
            .into_iter()
            .map(|(i, view)| (i, p.checkpoint(&view, &snapshot)))
            .collect();
        Ok(answers)
    })
    .await;
    let mut by_element = vec![PluginAnswer::NotAsked; count];
    match answers {
        Ok(answers) => {
            for (i, said) in answers {
                if let Some(slot) = by_element.get_mut(i) {
                    *slot = plugin_answer(said);
                }
            }
        }
        Err(e) => by_element.fill(PluginAnswer::Failed(e.to_string())),
    }
    let verdict = commit_page::commit_page(&state.snapshot, cx.plan_knowledge(), &by_element);
    state.commit_page = Some((print, verdict.clone()));
    verdict
}

/// Why the element no longer is what the human approved, if it is not.
pub(super) async fn changed_since(
    cx: &mut Ctx<'_>,
    action: &BrowserAction,
    gathered: &Gathered,
) -> Result<Option<String>, Error> {
    let (Some(before), Some(target)) = (&gathered.dom, &action.target) else {
        return Ok(None);
    };
    let Some(reference) = &target.reference else {
        return Ok(None);
    };
    let description = describe(target);
    let now = timed(
        &mut cx.clocks.browser,
        facts::of_element(cx.browser, reference, &description),
    )
    .await;
    let now = match now {
        Ok(now) => now,
        Err(e) if e.class() == ErrorClass::Failure => {
            return Ok(Some(format!("it can no longer be read: {e}")));
        }
        Err(e) => return Err(e.into()),
    };
    Ok(facts_changed(before, &now))
}

/// Identifies a page's state: the same address and tree mean the same
/// commit-page verdict.
fn fingerprint(snapshot: &Snapshot) -> u64 {
    let mut hasher = DefaultHasher::new();
    snapshot.url.hash(&mut hasher);
    snapshot.title.hash(&mut hasher);
    snapshot.content.hash(&mut hasher);
    hasher.finish()
}

/// The words an action carries, from its Playwright arguments.
fn carried(args: &Value) -> Vec<String> {
    let mut words = Vec::new();
    for key in ["text", "key", "promptText"] {
        if let Some(text) = args.get(key).and_then(Value::as_str) {
            words.push(text.to_owned());
        }
    }
    if let Some(values) = args.get("values").and_then(Value::as_array) {
        words.extend(values.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    if args.get("submit").and_then(Value::as_bool) == Some(true) {
        words.push("Enter".to_owned());
    }
    words
}

/// What changed between two readings of an element, if anything a person
/// would care about did.
fn facts_changed(before: &ElementFacts, now: &ElementFacts) -> Option<String> {
    if before.visible_text != now.visible_text {
        return Some(format!(
            "it showed \"{}\", now \"{}\"",
            before.visible_text, now.visible_text
        ));
    }
    if before.href != now.href {
        return Some("the link now leads elsewhere".into());
    }
    if before.form_action != now.form_action || before.form_method != now.form_method {
        return Some("its form now submits elsewhere".into());
    }
    None
}

/// Whether the address an element's form or link sends to (`dom`, read
/// from the page) reads as a change to what the person pays, by the
/// floor's request reading.
pub(super) fn sends_billing_change(dom: Option<&ElementFacts>) -> bool {
    let Some(dom) = dom else {
        return false;
    };
    dom.form_action.iter().chain(dom.href.iter()).any(|url| {
        crate::safety::floor::read_request(&crate::safety::floor::url_request_text(url))
            == Some(crate::safety::floor::RequestReading::ChangesBilling)
            || crate::safety::floor::sign_in_url(url)
                .is_some_and(|sign| sign.strength == crate::safety::floor::Strength::BillingChange)
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    #[test]
    fn carried_words_table() {
        let cases = [
            (
                json!({"text": "hello", "submit": true}),
                vec!["hello", "Enter"],
            ),
            (json!({"key": "Enter"}), vec!["Enter"]),
            (
                json!({"values": ["Yes, cancel", "x"]}),
                vec!["Yes, cancel", "x"],
            ),
            (json!({"target": "e1"}), vec![]),
        ];
        for (args, want) in cases {
            assert_eq!(carried(&args), want, "{args}");
        }
    }

    #[test]
    fn changes_that_matter() {
        let before = ElementFacts {
            visible_text: "Keep membership".into(),
            tag: "button".into(),
            form_action: Some("https://x/keep".into()),
            form_method: Some("post".into()),
            ..ElementFacts::default()
        };
        assert_eq!(facts_changed(&before, &before.clone()), None);
        let reworded = ElementFacts {
            visible_text: "Finish Cancellation".into(),
            ..before.clone()
        };
        assert!(facts_changed(&before, &reworded).is_some());
        let moved = ElementFacts {
            form_action: Some("https://x/cancel".into()),
            ..before.clone()
        };
        assert!(facts_changed(&before, &moved).is_some());
    }
    /// What an element's own form or link says decides whether a plan step
    /// on it would change what the person pays (the plan never takes one).
    #[test]
    fn which_forms_and_links_change_billing_table() {
        let cases: &[(Option<&str>, Option<&str>, bool)] = &[
            // The address alone reads as the cancellation: only what the
            // form sends tells it is an offer (the guard reads that).
            (Some("https://x.example/cancel/accept"), None, false),
            // Unless it names the retention offer it accepts (the held-out
            // statutory-words-on-offer flows: a "jetzt kündigen" button).
            (Some("https://x.example/cancel/loyalty/accept"), None, true),
            (Some("https://x.example/offer/accept"), None, true),
            (Some("https://x.example/plan/switch/confirm"), None, true),
            (None, Some("https://x.example/account/pause/confirm"), true),
            (Some("https://x.example/account/cancel/submit"), None, false),
            (Some("https://x.example/kuendigung/absenden"), None, false),
            (None, Some("https://x.example/account/cancel"), false),
            (None, None, false),
        ];
        for (form, link, want) in cases {
            let dom = ElementFacts {
                form_action: form.map(str::to_owned),
                href: link.map(str::to_owned),
                ..ElementFacts::default()
            };
            assert_eq!(sends_billing_change(Some(&dom)), *want, "{form:?} {link:?}");
        }
    }
}
