//! Stage six of an action, and the run's first sight of a page: the page
//! looked at (the toolset's snapshot), its passwords masked, and, unless the
//! host only closed an overlay, a sign-in wall watched for. Overlays are
//! cleared by the caller afterwards (`overlays.rs`), each through the
//! pipeline like any action.

use std::time::Duration;

use super::auth;
use super::ctx::Ctx;
use super::passwords::mask_passwords;
use super::state::{State, timed};
use crate::browser::{BrowserError, ToolOutput};
use crate::error::Error;
use crate::feed::result::TaskResult;

/// A page still loading (a navigation the guard let go a moment ago) gives
/// a snapshot without its title: the host looks again this many times,
/// this long apart, before the run ends on it.
const LOADING_LOOKS: u32 = 3;
const LOADING_WAIT: Duration = Duration::from_millis(300);

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
