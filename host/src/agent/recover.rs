//! Recovery from common UI failures before the model hears of them (seed
//! 003): an action that failed because its element was covered, not visible,
//! detached or slow is tried once more, after the host has cleared what was
//! in the way, scrolled the element into view or let the page settle. The
//! retry is judged afresh by the one decision and runs only if that lets it
//! through without a yes; an approved action is never repeated.

use std::time::Duration;

use serde_json::json;

use super::gather::Gathered;
use super::state::{State, timed};
use super::toolset::{BrowserAction, describe};
use super::{Agent, Event};
use crate::browser::guard::GuardMode;
use crate::browser::{BrowserError, tools as mcp};
use crate::error::Error;
use crate::page::Element;
use crate::safety::Decision;

/// How long the host lets the page settle before a retry.
pub const SETTLE: Duration = Duration::from_millis(1000);

/// Why an action failed, when it is worth one more try.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trouble {
    /// Something else was on top of it.
    Obscured,
    /// Not visible, or outside the viewport.
    NotVisible,
    /// Taken out of the page and put back (a re-render).
    Detached,
    /// Not ready in time (not stable, still loading).
    Slow,
}

/// Call-log phrases and what they mean, checked from the log's end.
const TROUBLES: &[(&str, Trouble)] = &[
    ("intercepts pointer events", Trouble::Obscured),
    ("outside of the viewport", Trouble::NotVisible),
    ("element is not visible", Trouble::NotVisible),
    ("not attached to the dom", Trouble::Detached),
    ("element was detached", Trouble::Detached),
    ("element is not stable", Trouble::Slow),
];

/// The trouble a failed browser call shows, if a retry might mend it.
pub fn trouble_of(error: &BrowserError) -> Option<Trouble> {
    let BrowserError::Tool { message, .. } = error else {
        return None;
    };
    let lower = message.to_lowercase();
    // A disabled element stays disabled: waiting for it only costs time.
    if lower.contains("element is not enabled") || lower.contains("element is disabled") {
        return None;
    }
    lower
        .lines()
        .rev()
        .find_map(|line| {
            TROUBLES
                .iter()
                .find(|(phrase, _)| line.contains(phrase))
                .map(|(_, t)| *t)
        })
        .or_else(|| {
            (lower.contains("timeout") && lower.contains("exceeded")).then_some(Trouble::Slow)
        })
}

/// The action to try again: the same, aimed at the element as it is now.
pub(super) struct Retry {
    pub(super) action: BrowserAction,
    pub(super) gathered: Gathered,
    pub(super) mode: GuardMode,
    pub(super) after: String,
}

/// The element `target` was, in the page as it is now: the same ref with
/// the same role and name, or else the first element with that role and
/// name.
fn again<'a>(elements: &'a [Element], target: &Element) -> Option<&'a Element> {
    let same = |e: &&Element| e.role == target.role && e.name == target.name;
    elements
        .iter()
        .filter(same)
        .find(|e| e.reference == target.reference)
        .or_else(|| elements.iter().filter(same).find(|e| e.reference.is_some()))
}

impl Agent<'_> {
    /// Mends what `trouble` says, looks again, and returns the action to
    /// retry if the decision lets it run without a yes; `None` otherwise.
    pub(super) async fn recover(
        &mut self,
        tool: &str,
        args: &serde_json::Value,
        runs: &str,
        action: &BrowserAction,
        trouble: Trouble,
        state: &mut State,
    ) -> Result<Option<Retry>, Error> {
        let Some(target) = action.target.clone() else {
            return Ok(None);
        };
        let mut after = Vec::new();
        state.snapshot = timed(
            &mut state.timing.browser,
            self.toolset.look(self.browser, None),
        )
        .await?;
        self.mask_passwords(state).await;
        if trouble == Trouble::Obscured {
            let dismissed = self.clear_overlays(state).await?;
            if !dismissed.is_empty() {
                after.push("dismissing what covered it".to_owned());
            }
        }
        if after.is_empty()
            && matches!(trouble, Trouble::Obscured | Trouble::NotVisible)
            && let Some(reference) =
                again(&state.snapshot.elements, &target).and_then(|e| e.reference.clone())
        {
            let scrolled = timed(
                &mut state.timing.browser,
                self.browser.call(
                    mcp::EVALUATE,
                    json!({
                        "target": reference,
                        "element": describe(&target),
                        "function": "(el) => el.scrollIntoView({block: 'center', inline: 'center'})",
                    }),
                ),
            )
            .await;
            if scrolled.is_ok() {
                after.push("scrolling it into view".to_owned());
            }
        }
        if after.is_empty() {
            let waited = timed(
                &mut state.timing.browser,
                self.browser
                    .call(mcp::WAIT_FOR, json!({ "time": SETTLE.as_secs_f64() })),
            )
            .await;
            if waited.is_ok() {
                after.push("letting the page settle".to_owned());
            }
        }
        state.snapshot = timed(
            &mut state.timing.browser,
            self.toolset.look(self.browser, None),
        )
        .await?;
        self.mask_passwords(state).await;
        let _ = self.toolset.observe(&state.snapshot);
        let Some(now) = again(&state.snapshot.elements, &target).cloned() else {
            return Ok(None);
        };
        let mut retried = action.clone();
        if let (Some(reference), Some(args)) = (&now.reference, retried.mcp_args.as_object_mut())
            && args.contains_key("target")
        {
            args.insert("target".into(), reference.clone().into());
        }
        retried.target = Some(now);
        let gathered = self.gather(tool, args, runs, &retried, state).await?;
        let (decision, mode) = self.decide(runs, &retried, &gathered, state);
        if !matches!(decision, Decision::Proceed { .. }) {
            return Ok(None);
        }
        Ok(Some(Retry {
            action: retried,
            gathered,
            mode,
            after: after.join(" and "),
        }))
    }

    pub(super) fn report_recovery(
        &mut self,
        state: &State,
        tool: &str,
        trouble: Trouble,
        after: &str,
        ok: bool,
    ) {
        self.reporter.emit(Event::Recovered {
            turn: state.turn,
            tool: tool.to_owned(),
            trouble,
            after: after.to_owned(),
            ok,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(message: &str) -> BrowserError {
        BrowserError::Tool {
            tool: mcp::CLICK.into(),
            message: message.into(),
        }
    }

    #[test]
    fn which_failures_are_worth_one_more_try() {
        let cases = [
            (
                "TimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for element\n  - <div id=\"footer\">…</div> intercepts pointer events\n  - retrying click action",
                Some(Trouble::Obscured),
            ),
            (
                "Error: element is not visible\n  - retrying",
                Some(Trouble::NotVisible),
            ),
            (
                "Error: Element is not attached to the DOM",
                Some(Trouble::Detached),
            ),
            (
                "TimeoutError: Timeout 5000ms exceeded.\n  - element is not stable",
                Some(Trouble::Slow),
            ),
            (
                "TimeoutError: Timeout 5000ms exceeded.",
                Some(Trouble::Slow),
            ),
            ("Error: Ref e9 not found in the current page snapshot", None),
            ("Error: element is disabled", None),
            (
                "TimeoutError: Timeout 5000ms exceeded.\n  - element is not enabled\n  - retrying click action",
                None,
            ),
        ];
        for (message, want) in cases {
            assert_eq!(trouble_of(&tool(message)), want, "{message}");
        }
        let lost = BrowserError::ConnectionLost {
            tool: mcp::CLICK.into(),
            detail: "x".into(),
            reconnected: false,
        };
        assert_eq!(trouble_of(&lost), None);
    }

    #[test]
    fn the_element_again_is_the_same_one_or_its_namesake() {
        let el = |r: &str, role: &str, name: &str| Element {
            reference: Some(r.into()),
            role: role.into(),
            name: name.into(),
            ..Element::default()
        };
        let target = el("e5", "button", "Continue");
        let same_ref = [
            el("e4", "button", "Continue"),
            el("e5", "button", "Continue"),
        ];
        assert_eq!(
            again(&same_ref, &target).and_then(|e| e.reference.as_deref()),
            Some("e5")
        );
        let moved = [el("e9", "link", "Continue"), el("e7", "button", "Continue")];
        assert_eq!(
            again(&moved, &target).and_then(|e| e.reference.as_deref()),
            Some("e7")
        );
        let gone = [el("e5", "button", "Finish")];
        assert!(
            again(&gone, &target).is_none(),
            "a ref now naming another element is not it"
        );
    }
}
