//! Sign-in walls: after every snapshot the plugin says whether the page
//! wants the human to sign in, and where it does not know, the host reads
//! the page itself (an empty password field asks for the account holder,
//! in any language). An interactive run pauses for them, with the network
//! guard letting the person's own sign-in through; any other run ends with
//! the `subterminator login` hint.

use serde_json::json;

use super::ctx::Ctx;
use super::passwords::mask_passwords;
use super::state::{State, timed};
use super::{Event, MAX_AUTH_PAUSES, TaskReason, TaskResult};
use crate::approval::Answer;
use crate::browser::guard::{self, GuardMode};
use crate::browser::tools as mcp;
use crate::error::Error;
use crate::feed::Ask;
use crate::page::{mask, password_wall};
use crate::plugin;
use crate::plugin::{AuthEvent, AuthKind};

/// After every snapshot: a sign-in wall pauses for the human when the run
/// is interactive, and ends the run with a hint when it is not.
pub(super) async fn watch(
    cx: &mut Ctx<'_>,
    state: &mut State,
) -> Result<Option<TaskResult>, Error> {
    loop {
        let snapshot = state.snapshot.clone();
        let event = match plugin::call_blocking(&cx.service.plugin, move |p| {
            p.detect_auth(&snapshot)
        })
        .await
        {
            Ok(event) => event,
            Err(e) => {
                tracing::warn!("{e}; treating the page as signed in");
                None
            }
        };
        let event = match event {
            Some(event) => Some(event),
            None => password_wall(cx, state).await,
        };
        let Some(event) = event else {
            return Ok(None);
        };
        let kind = serde_json::to_value(event.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        cx.reporter.emit(Event::AuthRequired {
            turn: state.turn,
            kind,
            message: event.message.clone(),
            url: state.snapshot.url.clone(),
        });
        let hint = format!(
            "Sign in first with `subterminator login {}`, then run this again.",
            cx.service.metadata.id
        );
        if !cx.options.interactive || state.auth_pauses >= MAX_AUTH_PAUSES {
            return Ok(Some(
                TaskResult::new(false, false, TaskReason::AuthRequired, state.turn)
                    .with_error(format!("{} {hint}", event.message)),
            ));
        }
        state.auth_pauses += 1;
        let feed = cx.reporter.feed().clone();
        let ask = Ask::SignIn {
            message: event.message.clone(),
        };
        // The person signs in at the browser while the host waits: their
        // own requests go (`GuardMode::Person`), and the guard is back to
        // holding before anything else runs.
        set_guard(cx, state, GuardMode::Person).await?;
        let answered = timed(&mut cx.clocks.human, feed.ask(ask)).await;
        set_guard(cx, state, guard::INITIAL_MODE).await?;
        if answered != Answer::Approved {
            return Ok(Some(
                TaskResult::new(false, false, TaskReason::AuthRequired, state.turn)
                    .with_error(format!("{} (no answer) {hint}", event.message)),
            ));
        }
        state.snapshot = timed(&mut cx.clocks.browser, cx.toolset.look(cx.browser, None)).await?;
        mask_passwords(cx, state).await;
    }
}

/// The host's own reading, where the plugin knows no wall: an empty
/// password field a person can type into. Asked of the page only when the
/// tree shows a field at all; a page that cannot be asked is no wall.
async fn password_wall(cx: &mut Ctx<'_>, state: &State) -> Option<AuthEvent> {
    if !mask::has_typed_field(&state.snapshot.content) {
        return None;
    }
    let asked = timed(
        &mut cx.clocks.browser,
        cx.browser.call(
            mcp::EVALUATE,
            json!({ "function": password_wall::PASSWORD_FIELDS_JS }),
        ),
    )
    .await;
    let count = match asked {
        Ok(output) => password_wall::parse_count(output.result.as_deref()),
        Err(e) => {
            tracing::warn!("cannot ask the page for its password fields: {e}");
            None
        }
    };
    (count? > 0).then(|| AuthEvent {
        kind: AuthKind::LoginRequired,
        message: password_wall::MESSAGE.to_owned(),
    })
}

/// Puts `mode` in force; a guard that cannot be set ends the run, as it
/// would before an action.
async fn set_guard(cx: &mut Ctx<'_>, state: &State, mode: GuardMode) -> Result<(), Error> {
    if let Some(guard) = &state.guard {
        timed(&mut cx.clocks.browser, guard.set_mode(cx.browser, mode)).await?;
    }
    Ok(())
}
