//! Recovery from common UI failures before the driver hears of them: an
//! action that failed because its element was covered, not visible,
//! detached or slow is tried once more, after the host has cleared what was
//! in the way, scrolled the element into view or let the page settle. The
//! retry is an action of its own ([`Origin::Retry`]) through the one
//! pipeline: judged afresh, run only if the decision lets it through without
//! a yes; an approved action is never repeated.

use std::time::Duration;

use serde_json::json;

use super::action::{Action, Origin};
use super::ctx::Ctx;
use super::look::{self, Watch};
use super::overlays;
use super::resolve::{Resolved, again};
use super::state::{State, timed};
use super::toolset::describe;
use super::trouble::Trouble;
use crate::browser::tools as mcp;
use crate::error::Error;

/// How long the host lets the page settle before a retry.
pub const SETTLE: Duration = Duration::from_millis(1000);

/// Mends what `trouble` says on the page just looked at — dismisses what
/// covers the element, scrolls it into view, or lets the page settle —
/// looks again, and returns the retry: the same action, to be aimed again at
/// its element, with what the host did first. `None` when nothing can be
/// tried. The retry goes through the pipeline like any action, and runs
/// only where the decision would not ask.
pub(super) async fn mend(
    cx: &mut Ctx<'_>,
    state: &mut State,
    tool: &str,
    args: &serde_json::Value,
    failed: &Resolved,
    trouble: Trouble,
) -> Result<Option<(Action, String)>, Error> {
    let Some(target) = failed.action.target.clone() else {
        return Ok(None);
    };
    let mut after = Vec::new();
    if trouble == Trouble::Obscured {
        let cleared = overlays::clear(cx, state).await?;
        if !cleared.notes.is_empty() {
            after.push("dismissing what covered it".to_owned());
        }
        if let Some(ended) = cleared.ended {
            tracing::debug!("the run ended while clearing the way: {:?}", ended.reason);
            return Ok(None);
        }
    }
    if after.is_empty()
        && matches!(trouble, Trouble::Obscured | Trouble::NotVisible)
        && let Some(reference) =
            again(&state.snapshot.elements, &target).and_then(|e| e.reference.clone())
    {
        let scrolled = timed(
            &mut cx.clocks.browser,
            cx.browser.call(
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
            &mut cx.clocks.browser,
            cx.browser
                .call(mcp::WAIT_FOR, json!({ "time": SETTLE.as_secs_f64() })),
        )
        .await;
        if waited.is_ok() {
            after.push("letting the page settle".to_owned());
        }
    }
    if look::look(cx, state, None, Watch::Nothing).await?.is_some() {
        return Ok(None);
    }
    let _ = cx.toolset.observe(&state.snapshot);
    let retry = Action {
        origin: Origin::Retry,
        tool: tool.to_owned(),
        args: args.clone(),
        again: Some(failed.action.clone()),
    };
    Ok(Some((retry, after.join(" and "))))
}
