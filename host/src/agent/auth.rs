//! Sign-in walls: after every snapshot the plugin says whether the page
//! wants the human to sign in; an interactive run pauses for them, any other
//! run ends with the `subterminator login` hint.

use super::state::{State, timed};
use super::{Agent, Event, MAX_AUTH_PAUSES, TaskReason, TaskResult};
use crate::error::Error;
use crate::plugin;

impl Agent<'_> {
    /// After every snapshot: a sign-in wall pauses for the human when the
    /// run is interactive, and ends the run with a hint when it is not.
    pub(super) async fn watch_auth(
        &mut self,
        state: &mut State,
    ) -> Result<Option<TaskResult>, Error> {
        loop {
            let snapshot = state.snapshot.clone();
            let event = match plugin::call_blocking(&self.service.plugin, move |p| {
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
            let Some(event) = event else {
                return Ok(None);
            };
            let kind = serde_json::to_value(event.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            self.reporter.emit(Event::AuthRequired {
                turn: state.turn,
                kind,
                message: event.message.clone(),
                url: state.snapshot.url.clone(),
            });
            let hint = format!(
                "Sign in first with `subterminator login {}`, then run this again.",
                self.service.metadata.id
            );
            if !self.options.interactive || state.auth_pauses >= MAX_AUTH_PAUSES {
                return Ok(Some(
                    TaskResult::new(false, false, TaskReason::AuthRequired, state.turn)
                        .with_error(format!("{} {hint}", event.message)),
                ));
            }
            state.auth_pauses += 1;
            self.reporter
                .notice("Do it in the browser window, then press Enter here to continue.");
            let answered = timed(&mut state.timing.human, self.approver.read_line()).await;
            if answered.is_none() {
                return Ok(Some(
                    TaskResult::new(false, false, TaskReason::AuthRequired, state.turn)
                        .with_error(format!("{} (no answer) {hint}", event.message)),
                ));
            }
            state.snapshot = timed(
                &mut state.timing.browser,
                self.toolset.look(self.browser, None),
            )
            .await?;
            self.mask_passwords(state).await;
        }
    }
}
