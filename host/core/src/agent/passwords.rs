//! What the host asks the page about its password fields. Passwords a
//! person typed (signing in while the run waited) stay out of the model's
//! view and the run record: a field named like a password is masked as
//! every snapshot is read (`page::mask`), and [`mask_passwords`] catches the
//! rest (an unnamed field, a name in another language) by asking the page
//! what its password inputs hold, only when the tree shows a typed value at
//! all. And [`password_wall`] is the host's own reading of a sign-in wall.

use serde_json::json;

use super::ctx::Ctx;
use super::state::{State, timed};
use crate::browser::{parse_tree, tools as mcp};
use crate::page::{mask, password_wall as wall};
use crate::plugin::{AuthEvent, AuthKind};

/// Masks the password values the page's fields hold in `state`'s
/// snapshot, and keeps them out of the record.
pub(super) async fn mask_passwords(cx: &mut Ctx<'_>, state: &mut State) {
    if !mask::has_typed_value(&state.snapshot.content) {
        return;
    }
    let answer = ask_page(
        cx,
        mask::PASSWORD_VALUES_JS,
        "read the page's password fields",
    )
    .await;
    let values = mask::parse_secrets(answer.as_deref()).unwrap_or_default();
    if values.is_empty() {
        return;
    }
    let masked = mask::tree(&state.snapshot.content, &values);
    if masked != state.snapshot.content {
        state.snapshot.elements = parse_tree(&masked);
        state.snapshot.content = masked;
    }
    if let Some(record) = cx.reporter.record() {
        for value in &values {
            record.add_secret(value);
        }
    }
}

/// The host's own reading of a sign-in wall, where the plugin knows none:
/// an empty password field a person can type into. Asked of the page only
/// when the tree shows a field at all; a page that cannot be asked is no
/// wall.
pub(super) async fn password_wall(cx: &mut Ctx<'_>, state: &State) -> Option<AuthEvent> {
    if !mask::has_typed_field(&state.snapshot.content) {
        return None;
    }
    let answer = ask_page(
        cx,
        wall::PASSWORD_FIELDS_JS,
        "ask the page for its password fields",
    )
    .await;
    (wall::parse_count(answer.as_deref())? > 0).then(|| AuthEvent {
        kind: AuthKind::LoginRequired,
        message: wall::MESSAGE.to_owned(),
    })
}

/// `function` run in the page (`browser_evaluate`), its `### Result` text;
/// `None` when there is none, with a warning naming `what` it was for when
/// the page could not be asked.
async fn ask_page(cx: &mut Ctx<'_>, function: &str, what: &str) -> Option<String> {
    let asked = timed(
        &mut cx.clocks.browser,
        cx.browser
            .call(mcp::EVALUATE, json!({ "function": function })),
    )
    .await;
    match asked {
        Ok(output) => output.result,
        Err(e) => {
            tracing::warn!("cannot {what}: {e}");
            None
        }
    }
}
