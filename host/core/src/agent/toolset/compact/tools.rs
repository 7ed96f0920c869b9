//! The compact toolset's browser tools. Their descriptions say what each is
//! for and no more: they are resent on every request, and on a six-step
//! cancellation the tools are some 40% of all the model is sent (issue 32:
//! under 20,000 characters). What every tool would repeat (refs last one
//! page, `@eN`) the system prompt says once. Error codes are not listed
//! here; each error comes back with its code and a message that says what
//! to do, where the model reads it.

use serde_json::{Value, json};

use crate::llm::ToolSpec;

pub const GET_SNAPSHOT: &str = "get_snapshot";
pub const CLICK: &str = "browser_click";
pub const FILL: &str = "browser_fill";
pub const SELECT: &str = "browser_select";
pub const SCROLL: &str = "browser_scroll";
/// Playwright MCP's own name: a dialog is answered the same way in both profiles.
pub const DIALOG: &str = crate::browser::tools::HANDLE_DIALOG;

/// The default for `browser_scroll.amount`, in CSS pixels.
pub const DEFAULT_SCROLL_PX: i64 = 300;

/// The most one scroll moves, in CSS pixels: a page or two at a time keeps
/// a mistyped amount from flinging the page to its far end.
pub const MAX_SCROLL_PX: i64 = 5_000;

/// Every error code the browser tools answer with.
pub const ERROR_CODES: &[&str] = &[
    "ref_invalid",
    "element_disabled",
    "element_obscured",
    "element_not_visible",
    "action_failed",
    "timeout",
    "human_rejected",
    "invalid_params",
];

pub fn specs() -> Vec<ToolSpec> {
    let spec = |name: &str, description: &str, input_schema: Value| ToolSpec {
        name: name.into(),
        description: description.into(),
        input_schema,
    };
    let string = || json!({"type": "string"});
    let boolean = || json!({"type": "boolean"});
    let object = |properties: Value, required: &[&str]| {
        let mut schema = json!({"type": "object", "properties": properties});
        if !required.is_empty() {
            schema["required"] = json!(required);
        }
        schema
    };
    vec![
        spec(
            GET_SNAPSHOT,
            "Look again; viewport_only=false adds off-screen text.",
            object(json!({"viewport_only": boolean()}), &[]),
        ),
        spec(
            CLICK,
            "Click by ref.",
            object(json!({"ref": string()}), &["ref"]),
        ),
        spec(
            FILL,
            "Type into a field, replacing its text.",
            object(
                json!({"ref": string(), "value": string()}),
                &["ref", "value"],
            ),
        ),
        spec(
            SELECT,
            "Pick a dropdown option by its text.",
            object(
                json!({"ref": string(), "value": string()}),
                &["ref", "value"],
            ),
        ),
        spec(
            SCROLL,
            "Scroll (direction, px amount) or to a ref.",
            object(
                json!({
                    "ref": string(),
                    "direction": {"type": "string", "enum": ["up", "down", "top", "bottom"]},
                    "amount": {"type": "integer"}
                }),
                &[],
            ),
        ),
        spec(
            DIALOG,
            "Answer the open dialog; prompt_text for a prompt.",
            object(
                json!({"accept": boolean(), "prompt_text": string()}),
                &["accept"],
            ),
        ),
    ]
}
