//! Passwords a person typed (signing in while the run waited) stay out of
//! the model's view and the run record. A field named like a password is
//! masked as every snapshot is read (`page::mask`); this catches the rest —
//! an unnamed field, a name in another language — by asking the page what
//! its password inputs hold, only when the tree shows a typed value at all.

use serde_json::json;

use super::ctx::Ctx;
use super::state::{State, timed};
use crate::browser::{parse_tree, tools as mcp};
use crate::page::mask;

/// Masks the password values the page's fields hold in `state`'s
/// snapshot, and keeps them out of the record.
pub(super) async fn mask_passwords(cx: &mut Ctx<'_>, state: &mut State) {
    if !mask::has_typed_value(&state.snapshot.content) {
        return;
    }
    let asked = timed(
        &mut cx.clocks.browser,
        cx.browser.call(
            mcp::EVALUATE,
            json!({ "function": mask::PASSWORD_VALUES_JS }),
        ),
    )
    .await;
    let values = match asked {
        Ok(output) => mask::parse_secrets(output.result.as_deref()).unwrap_or_default(),
        Err(e) => {
            tracing::warn!("cannot read the page's password fields: {e}");
            return;
        }
    };
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
