//! Stage three of an action: the one safety decision. The facts gathered
//! become `safety::Facts`, and `safety::assess` returns everything running
//! the action needs: proceed under this guard, ask, or refuse.

use serde_json::Value;

use super::action::{Action, Origin};
use super::ctx::Ctx;
use super::facts::Gathered;
use super::resolve::Resolved;
use super::state::State;
use crate::browser::tools as mcp;
use crate::safety::plan::{self, PlanMark};
use crate::safety::{self, Decision, DialogFacts, Facts, Policy, floor};

/// Whether the action answers the page's dialog with "accept".
pub(super) fn accepts_dialog(resolved: &Resolved) -> bool {
    resolved.runs == mcp::HANDLE_DIALOG
        && resolved
            .action
            .mcp_args
            .get("accept")
            .and_then(Value::as_bool)
            == Some(true)
}

/// The decision on `action`, resolved as `resolved`, from what was gathered.
pub(super) fn decide(
    cx: &Ctx<'_>,
    state: &State,
    action: &Action,
    resolved: &Resolved,
    gathered: &Gathered,
) -> Decision {
    let Resolved {
        action: browser,
        runs,
    } = resolved;
    let dialog = state.dialog.as_ref().and_then(|open| {
        (runs == mcp::HANDLE_DIALOG).then(|| DialogFacts {
            accept: accepts_dialog(resolved),
            kind: &open.dialog.kind,
            message: &open.dialog.message,
            opened_by_commit: open.opened_under.is_some(),
        })
    });
    let facts = Facts {
        tool: runs,
        read_only: browser.read_only,
        target: browser.target.as_ref(),
        dom: gathered.dom.as_ref(),
        carried: gathered.carried.iter().map(String::as_str).collect(),
        navigate_to: browser.navigate_to.as_deref(),
        goes_back: runs == mcp::NAVIGATE_BACK,
        dialog,
        page: &state.snapshot,
        allowed_origins: &state.allowed_origins,
        site: cx.service.generic.as_ref(),
        start_url: &cx.options.start_url,
        service: cx.display_name(),
        plan: cx.plan_knowledge(),
        commit_urls: &cx.service.metadata.commit_url_patterns,
        plugin: gathered.plugin.clone(),
        commit_page: gathered.commit_page.as_ref(),
        dismissal: action.origin == Origin::Dismissal,
    };
    let policy = Policy {
        checkpoints: cx.options.checkpoints,
    };
    safety::assess(&facts, policy)
}

/// Whether `resolved` is the flow's final step by the host's own reading:
/// the plan's irreversible step, words that say it commits, or a link or
/// form to an address the plugin lists as committing. A yes to it that
/// ran is evidence for a flow that commits by navigation.
pub(super) fn final_step(
    cx: &Ctx<'_>,
    state: &State,
    resolved: &Resolved,
    gathered: &Gathered,
) -> bool {
    let browser = &resolved.action;
    let patterns = &cx.service.metadata.commit_url_patterns;
    let leads = gathered
        .dom
        .as_ref()
        .and_then(|d| d.form_action.as_deref().or(d.href.as_deref()))
        .or(browser.navigate_to.as_deref());
    if leads.is_some_and(|url| safety::matching_pattern(patterns, url).is_some()) {
        return true;
    }
    let Some(target) = &browser.target else {
        return false;
    };
    if plan::mark(cx.plan_knowledge(), target, gathered.dom.as_ref()) == PlanMark::Irreversible {
        return true;
    }
    let mut texts = vec![target.name.as_str()];
    if let Some(dom) = &gathered.dom {
        texts.push(dom.visible_text.as_str());
    }
    let heads = safety::commit_page::headings(&state.snapshot);
    let judged = floor::judge_each(&texts, &state.snapshot.title, &heads, &state.snapshot.url);
    judged
        .target
        .is_some_and(|sign| sign.strength == floor::Strength::Strong)
}
