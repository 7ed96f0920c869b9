//! Stage six of an action, and the run's first sight of a page: the page
//! looked at (the toolset's snapshot), its passwords masked, and, unless the
//! host only closed an overlay, a sign-in wall watched for. Overlays are
//! cleared by the caller afterwards (`overlays.rs`), each through the
//! pipeline like any action.

use std::time::{Duration, Instant};

use super::auth;
use super::ctx::Ctx;
use super::passwords::mask_passwords;
use super::run;
use super::state::{State, timed};
use crate::browser::{BrowserError, ToolOutput};
use crate::error::Error;
use crate::feed::event::Event;
use crate::feed::result::TaskResult;

/// A page still loading (a navigation the guard let go a moment ago) gives
/// a snapshot without its title: the host looks again this many times,
/// this long apart, before the run ends on it.
const LOADING_LOOKS: u32 = 3;
const LOADING_WAIT: Duration = Duration::from_millis(300);

/// How long the host waits, once, for a page that still shows the step an
/// action was taken on. Playwright MCP answers an action after its settle
/// time (`browser::SETTLE_TIME`) and the requests begun within it; a step
/// a page draws later, at the end of a slide or a debounce with no request
/// before it, is not there yet, and a plan would find its next step
/// missing. Half a second covers a CSS transition of common length.
pub(super) const LATE_STEP_WAIT: Duration = Duration::from_millis(500);

/// Whether a look also watches for a sign-in wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Watch {
    SignIn,
    /// The host's own press on an overlay: the page stays where it was.
    Nothing,
}

/// Takes the page after `after` (the action just run, if any) into
/// `state`. `Some` ends the run: a sign-in wall it cannot pause for.
pub(super) async fn look(
    cx: &mut Ctx<'_>,
    state: &mut State,
    after: Option<&ToolOutput>,
    watch: Watch,
) -> Result<Option<TaskResult>, Error> {
    let mut again = 0;
    state.snapshot = loop {
        match timed(&mut cx.clocks.browser, cx.toolset.look(cx.browser, after)).await {
            Err(BrowserError::SnapshotValidation { .. }) if again < LOADING_LOOKS => {
                again += 1;
                tokio::time::sleep(LOADING_WAIT).await;
            }
            looked => break looked?,
        }
    };
    mask_passwords(cx, state).await;
    if watch == Watch::SignIn {
        return auth::watch(cx, state).await;
    }
    Ok(None)
}

/// [`look`] after an action that changes something and ran without a
/// request held or stopped: if the page is still the very step the action
/// was taken on ([`crate::page::Snapshot::same_step`]), the host waits
/// [`LATE_STEP_WAIT`] and looks once more, and the record says so. A click
/// that changes nothing costs the wait once; every other look costs
/// nothing more.
pub(super) async fn look_after_action(
    cx: &mut Ctx<'_>,
    state: &mut State,
    after: Option<&ToolOutput>,
    watch: Watch,
) -> Result<Option<TaskResult>, Error> {
    let before = state.snapshot.clone();
    if let Some(ended) = look(cx, state, after, watch).await? {
        return Ok(Some(ended));
    }
    if !state.snapshot.same_step(&before) {
        return Ok(None);
    }
    let started = Instant::now();
    tokio::time::sleep(LATE_STEP_WAIT).await;
    refuse_held(cx, state, "sent while the host waited for the page").await?;
    let ended = look(cx, state, None, watch).await?;
    cx.reporter.emit(Event::PageWaitedFor {
        turn: state.turn,
        waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        changed: !state.snapshot.same_step(&before),
    });
    Ok(ended)
}

/// What the page sent by itself while the host waited, which the guard
/// held: no action of the run's sent it and no question covers it, so it is
/// refused, and the record names it (`guard_blocked`), each request's why
/// ending with `when`. Left held, a navigation would also keep the next
/// look waiting on a page that never loads. A request that needed no yes
/// went through already.
async fn refuse_held(cx: &mut Ctx<'_>, state: &mut State, when: &str) -> Result<(), Error> {
    let taken = run::take(cx, state).await?;
    if !taken.stopped.is_empty() {
        cx.reporter.emit(Event::GuardBlocked {
            turn: state.turn,
            requests: taken.stopped,
        });
    }
    run::refuse(cx, state, &taken.held, when).await
}

/// The run's last word with the guard: what the page sent after the last
/// take (a timer that fired while the host looked, or as the run ended)
/// and the guard still holds is refused and named in the record, instead
/// of vanishing unrecorded with the browser. Best effort: a browser that
/// is gone holds nothing any more, and a call still in flight is left to
/// end with the browser rather than overlapped.
pub(super) async fn refuse_left_held(cx: &mut Ctx<'_>, state: &mut State) {
    if state.in_flight || state.guard.is_none() {
        return;
    }
    if let Err(e) = refuse_held(cx, state, "held when the run ended").await {
        tracing::debug!(error = %e, "the guard could not be asked at the run's end");
    }
}
