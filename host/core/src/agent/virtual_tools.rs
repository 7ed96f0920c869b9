//! The two tools the host answers itself, not Playwright MCP, in both
//! toolsets. When to call `complete_task` the system prompt says once;
//! the description adds only what the host does with it.

use serde_json::json;

use crate::llm::ToolSpec;

pub const COMPLETE_TASK: &str = "complete_task";
pub const REQUEST_HUMAN_APPROVAL: &str = "request_human_approval";

pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: COMPLETE_TASK.into(),
            description: "Success is checked on the page.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "status": {"type": "string", "enum": ["success", "failed"]},
                    "reason": {"type": "string"}
                },
                "required": ["status", "reason"]
            }),
        },
        ToolSpec {
            name: REQUEST_HUMAN_APPROVAL.into(),
            description: "Ask the human to approve something first.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string"},
                    "reason": {"type": "string"}
                },
                "required": ["action", "reason"]
            }),
        },
    ]
}

/// The message when a claimed success is not on the page: retry or fail.
pub fn cannot_verify(url: &str, detail: &str) -> String {
    format!(
        "Cannot verify success. Page does not show expected cancellation confirmation. Current URL: {url}. \
         Check page state and retry, or call complete_task(status='failed') if cancellation is not possible.{}",
        if detail.is_empty() {
            String::new()
        } else {
            format!(" ({detail})")
        }
    )
}
