//! Seed 002 §1.1.3's five browser tools, with the descriptions §1.5.1 asks
//! for (purpose, ref warning, when to use, errors, an example) kept terse:
//! they are resent on every turn, and with the two virtual tools and the
//! system prompt they must stay under 1,500 tokens.

use serde_json::{Value, json};

use crate::llm::ToolSpec;

pub const GET_SNAPSHOT: &str = "get_snapshot";
pub const CLICK: &str = "browser_click";
pub const FILL: &str = "browser_fill";
pub const SELECT: &str = "browser_select";
pub const SCROLL: &str = "browser_scroll";
/// Playwright MCP's own name: a dialog is answered the same way in both profiles.
pub const DIALOG: &str = crate::browser::tools::HANDLE_DIALOG;

/// Seed 002's default for `browser_scroll.amount`, in CSS pixels.
pub const DEFAULT_SCROLL_PX: i64 = 300;

/// Every error code the browser tools answer with (seed 002 §1.1.2).
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

fn reference(what: &str) -> Value {
    json!({"type": "string", "pattern": "^@e\\d+$", "description": what})
}

pub fn specs() -> Vec<ToolSpec> {
    let spec = |name: &str, description: &str, input_schema: Value| ToolSpec {
        name: name.into(),
        description: description.into(),
        input_schema,
    };
    vec![
        spec(
            GET_SNAPSHOT,
            "Look at the page again without acting. Every browser tool answers \
             {success, error, message?, snapshot}; snapshot = {snapshot_id, page{url,title}, viewport, focused, \
             elements[{ref,role,name,state?,bbox[x,y,w,h],value?,level?,options?,children?}], offscreen?, truncated?}. \
             state lists only exceptions to visible+enabled; controls below the fold are listed with state \
             offscreen and no bbox, and clicking one scrolls it into view. Refs (@e0…) are valid for that snapshot \
             only; every call returns a new one. Use when the page may have changed by itself, or with \
             viewport_only=false to list off-screen text too. Errors: none. Example: {} → {\"success\":true,\"error\":null,\"snapshot\":{…}}",
            json!({
                "type": "object",
                "properties": {
                    "viewport_only": {"type": "boolean", "default": true, "description": "Only elements in the viewport"}
                }
            }),
        ),
        spec(
            CLICK,
            "Click an element by its ref from the latest snapshot (buttons, links, checkboxes, tabs). \
             All refs become invalid after this: use the fresh snapshot's. Irreversible clicks wait for a human. \
             Errors: ref_invalid, element_disabled, element_obscured (close the dialog first), element_not_visible, \
             timeout, action_failed, human_rejected (read message). Example: {\"ref\":\"@e7\"}",
            json!({
                "type": "object",
                "properties": {"ref": reference("Element ref, e.g. @e7")},
                "required": ["ref"]
            }),
        ),
        spec(
            FILL,
            "Type a value into a textbox by ref, replacing its text unless clear_first=false. Refs become invalid \
             after this. Use for text, email, search fields. Errors: ref_invalid, element_disabled, action_failed \
             (not a text field), timeout. Example: {\"ref\":\"@e3\",\"value\":\"me@example.com\"}",
            json!({
                "type": "object",
                "properties": {
                    "ref": reference("The input field"),
                    "value": {"type": "string", "description": "Text to enter"},
                    "clear_first": {"type": "boolean", "default": true, "description": "Clear existing text first"}
                },
                "required": ["ref", "value"]
            }),
        ),
        spec(
            SELECT,
            "Choose an option of a dropdown (combobox/listbox) by ref; the snapshot lists its options. Refs become \
             invalid after this. Errors: ref_invalid, element_disabled, action_failed (no such option), timeout. \
             Example: {\"ref\":\"@e5\",\"value\":\"Too expensive\"}",
            json!({
                "type": "object",
                "properties": {
                    "ref": reference("The dropdown"),
                    "value": {"type": "string", "description": "Option text or value"}
                },
                "required": ["ref", "value"]
            }),
        ),
        spec(
            SCROLL,
            "Scroll an element into view (ref) or the page (direction, amount px) to see off-screen elements \
             (snapshot.offscreen > 0 counts text left out). Refs become invalid after this. Errors: invalid_params (neither ref nor \
             direction), ref_invalid. Example: {\"direction\":\"down\",\"amount\":600}",
            json!({
                "type": "object",
                "properties": {
                    "ref": reference("Element to bring into view; direction is then ignored"),
                    "direction": {"type": "string", "enum": ["up", "down", "top", "bottom"], "description": "Required without ref"},
                    "amount": {"type": "integer", "default": DEFAULT_SCROLL_PX, "minimum": 1, "description": "Pixels, with direction"}
                }
            }),
        ),
        spec(
            DIALOG,
            "Answer the dialog (confirm, prompt) the page has open; nothing else works until then. Refs become \
             invalid after this. Accepting one after an irreversible step waits for a human. Errors: \
             action_failed (no dialog open), human_rejected. Example: {\"accept\":false}",
            json!({
                "type": "object",
                "properties": {
                    "accept": {"type": "boolean", "description": "OK (true) or Cancel (false)"},
                    "prompt_text": {"type": "string", "description": "Text for a prompt dialog"}
                },
                "required": ["accept"]
            }),
        ),
    ]
}
