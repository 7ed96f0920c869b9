//! What the agent does with memory (`crate::memory`): load the path that
//! worked last time, hand it to the model as hints or replay it as the
//! first choice of the offline policy, of plan first and of `--replay`, note each step this run
//! takes, and remember the path once the run is verified.

use serde_json::Value;

use super::ctx::Ctx;
use super::driver::Driver;
use super::replay::Replay;
use super::resolve::Resolved;
use super::state::State;
use crate::browser::tools as mcp;
use crate::feed::event::Event;
use crate::feed::result::{TaskReason, TaskResult};
use crate::memory::{self, Step};
use crate::plugin::HintAction;

/// Loads the remembered path into `state`, and arms the replay when
/// `--replay` asked for it or the offline policy drives.
pub(super) fn recall(cx: &Ctx<'_>, driver: &Driver, state: &mut State) {
    let m = &cx.service.metadata;
    let Some(remembered) =
        cx.options.memory.as_ref().and_then(|memory| {
            memory.load(&m.id, &m.version, &memory::site_of(&cx.options.start_url))
        })
    else {
        return;
    };
    // Plan first, the path that worked goes before the plan.
    let replays = cx.options.replay
        || matches!(driver, Driver::Offline(_))
        || super::plan_first::briefs(cx, driver);
    if replays {
        state.replay = Some(Replay::new(remembered.steps.clone()));
    }
    state.remembered = Some(remembered);
}

/// The remembered path in words, for a model's first message.
pub(super) fn hints(driver: &Driver, state: &State) -> Option<String> {
    if !matches!(driver, Driver::Model(_)) {
        return None;
    }
    let remembered = state.remembered.as_ref()?;
    let steps: Vec<String> = remembered
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}. {}", i + 1, s.describe()))
        .collect();
    Some(format!(
        "Hints: this path worked on {} (they are hints, not facts: the page above is what is true, and refs come only from it):\n{}",
        remembered.saved_at,
        steps.join("\n")
    ))
}

/// Notes a state-changing action that worked, on the page at `url`.
pub(super) fn took(url: &str, resolved: &Resolved, state: &mut State) {
    let Resolved { action, runs } = resolved;
    let Some(target) = &action.target else {
        return;
    };
    let (kind, value) = match runs.as_str() {
        mcp::CLICK => (HintAction::Click, None),
        mcp::SELECT_OPTION => (
            HintAction::Select,
            action
                .mcp_args
                .get("values")
                .and_then(Value::as_array)
                .and_then(|v| v.first())
                .and_then(Value::as_str)
                .and_then(memory::keepable),
        ),
        mcp::TYPE => (
            HintAction::Fill,
            action
                .mcp_args
                .get("text")
                .and_then(Value::as_str)
                .and_then(memory::keepable),
        ),
        _ => return,
    };
    let Some(url) = memory::url_pattern(url) else {
        return;
    };
    state.path.push(Step {
        url: Some(url),
        action: kind,
        role: target.role.clone(),
        name: target.name.clone(),
        value,
    });
}

/// After a verified cancellation, the path this run took becomes the
/// one remembered.
pub(super) fn remember(cx: &mut Ctx<'_>, result: &TaskResult, state: &State) {
    let worked = result.success && result.verified && result.reason == TaskReason::Completed;
    let Some(memory) = &cx.options.memory else {
        return;
    };
    if !worked || state.path.is_empty() {
        return;
    }
    let m = &cx.service.metadata;
    let site = memory::site_of(&cx.options.start_url);
    match memory.save(&m.id, &m.version, &site, state.path.clone()) {
        Ok(file) => cx.reporter.emit(Event::Remembered {
            steps: state.path.len(),
            file: file.display().to_string(),
        }),
        Err(e) => tracing::warn!("the path that worked was not remembered: {e}"),
    }
}
