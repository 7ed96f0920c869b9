//! Sign-in walls: after every snapshot the plugin says whether the page
//! wants the human to sign in, and where it does not know, the host reads
//! the page itself (an empty password field asks for the account holder,
//! in any language). An interactive run pauses for them, with the network
//! guard letting the person's own sign-in through; any other run ends with
//! the `subterminator login` hint.

use super::ctx::Ctx;
use super::options::MAX_AUTH_PAUSES;
use super::passwords::{mask_passwords, password_wall};
use super::run::set_guard;
use super::state::{State, timed};
use crate::approval::Answer;
use crate::browser::guard::{self, GuardMode};
use crate::error::Error;
use crate::feed::Ask;
use crate::feed::event::Event;
use crate::feed::result::{TaskReason, TaskResult};
use crate::plugin;

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
        if let Err(why) = set_guard(cx, state, GuardMode::Person).await? {
            // The guard stays as it was: the person's sign-in is held, never
            // a commit let through.
            tracing::warn!("{why}");
        }
        let answered = timed(&mut cx.clocks.human, feed.ask(ask)).await;
        if let Err(why) = set_guard(cx, state, guard::INITIAL_MODE).await? {
            // Not set, and not remembered as set: the next action's own
            // `set_guard` puts its mode in force before it runs.
            tracing::warn!("{why}");
        }
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
