//! The `full` toolset: Playwright MCP's own tools and YAML snapshots, as the
//! Python prototype showed them, minus the tools that would let the model
//! act without the host seeing the target (scripts, file access, tabs).

use crate::safety::RefusalCode;
use serde_json::{Value, json};

use super::{BrowserAction, Outcome, Refusal, Toolset, describe, spec_of};
use crate::browser::ToolSchema;
use crate::browser::tools as mcp;
use crate::llm::ToolSpec;
use crate::page::{Element, Snapshot};
use crate::plugin::HintAction;

/// Tools the model may use; anything else (`browser_evaluate`,
/// `browser_run_code_unsafe`, `browser_file_upload`, `browser_tabs`, …) could
/// act on the page without a target the checkpoints can see.
const ALLOWED: &[&str] = &[
    mcp::NAVIGATE,
    mcp::NAVIGATE_BACK,
    mcp::SNAPSHOT,
    mcp::CLICK,
    mcp::TYPE,
    mcp::SELECT_OPTION,
    mcp::HOVER,
    mcp::PRESS_KEY,
    mcp::WAIT_FOR,
    mcp::TAKE_SCREENSHOT,
    mcp::HANDLE_DIALOG,
];

const READ_ONLY: &[&str] = &[
    mcp::SNAPSHOT,
    mcp::TAKE_SCREENSHOT,
    mcp::WAIT_FOR,
    mcp::HOVER,
];

#[derive(Debug)]
pub struct FullToolset {
    tools: Vec<ToolSchema>,
}

impl FullToolset {
    pub fn new(server_tools: &[ToolSchema]) -> Self {
        Self {
            tools: server_tools
                .iter()
                .filter(|t| ALLOWED.contains(&t.name.as_str()))
                .cloned()
                .collect(),
        }
    }
}

/// Playwright's refs: `e8`, or `f1e4` inside frames.
fn is_ref(s: &str) -> bool {
    let rest = match s.strip_prefix('f') {
        Some(frame) => match frame.find('e') {
            Some(at) if at > 0 && frame[..at].bytes().all(|b| b.is_ascii_digit()) => &frame[at..],
            _ => return false,
        },
        None => s,
    };
    rest.strip_prefix('e')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

pub fn render_page(snapshot: &Snapshot) -> String {
    format!(
        "### Page\n- Page URL: {}\n- Page Title: {}\n### Snapshot\n```yaml\n{}\n```",
        snapshot.url, snapshot.title, snapshot.content
    )
}

impl Toolset for FullToolset {
    fn name(&self) -> &'static str {
        "full"
    }

    fn tools(&self) -> Vec<ToolSpec> {
        self.tools.iter().map(spec_of).collect()
    }

    fn observe(&mut self, snapshot: &Snapshot) -> String {
        render_page(snapshot)
    }

    fn translate(
        &self,
        tool: &str,
        args: &Value,
        snapshot: &Snapshot,
    ) -> Result<BrowserAction, Refusal> {
        if !self.tools.iter().any(|t| t.name == tool) {
            let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
            return Err(Refusal::new(
                RefusalCode::InvalidParams,
                format!(
                    "Unknown tool {tool}. The tools are: {}, complete_task, request_human_approval.",
                    names.join(", ")
                ),
            ));
        }
        let target = match args.get("target").and_then(Value::as_str) {
            Some(reference) if tool != mcp::SNAPSHOT && tool != mcp::TAKE_SCREENSHOT => {
                Some(resolve(reference, snapshot)?)
            }
            _ => None,
        };
        // The host judges every action on the whole page: a snapshot narrowed
        // by depth, subtree or file would hide the final button from the
        // commit-page rule and from the plugin, so the model's narrowing
        // options are dropped.
        let mcp_args = if tool == mcp::SNAPSHOT {
            Value::Object(serde_json::Map::new())
        } else {
            args.clone()
        };
        Ok(BrowserAction {
            mcp_tool: Some(tool.to_owned()),
            mcp_args,
            target,
            navigate_to: (tool == mcp::NAVIGATE).then(|| {
                args.get("url")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            }),
            read_only: READ_ONLY.contains(&tool),
        })
    }

    fn report(&self, outcome: &Outcome<'_>, page: &str) -> String {
        match outcome {
            Outcome::Done(output) => {
                let said = output
                    .result
                    .as_deref()
                    .map(|r| format!("### Result\n{r}\n"))
                    .unwrap_or_default();
                format!("{said}{page}")
            }
            Outcome::Failed(error) => {
                json!({ "error": true, "message": error.to_string() }).to_string() + "\n" + page
            }
            Outcome::Refused(refusal) => {
                json!({ "error": true, "code": refusal.code, "message": refusal.message })
                    .to_string()
                    + "\n"
                    + page
            }
        }
    }

    fn offline_call(
        &self,
        action: HintAction,
        element: &Element,
        value: Option<&str>,
    ) -> (String, Value) {
        let reference = element.reference.clone().unwrap_or_default();
        let description = describe(element);
        match action {
            HintAction::Click => (
                mcp::CLICK.into(),
                json!({ "target": reference, "element": description }),
            ),
            HintAction::Select => (
                mcp::SELECT_OPTION.into(),
                json!({ "target": reference, "element": description, "values": [value.unwrap_or_default()] }),
            ),
            HintAction::Fill => (
                mcp::TYPE.into(),
                json!({ "target": reference, "element": description, "text": value.unwrap_or_default() }),
            ),
        }
    }
}

/// The element `reference` names in the latest snapshot; selectors and refs
/// from older pages are refused, so every action has a target the
/// checkpoints can judge.
fn resolve(reference: &str, snapshot: &Snapshot) -> Result<Element, Refusal> {
    if !is_ref(reference) {
        return Err(Refusal::new(
            RefusalCode::InvalidParams,
            format!(
                "\"{reference}\" is not a ref. Use a ref such as e12 from the latest page snapshot, not a selector."
            ),
        ));
    }
    snapshot.element(reference).cloned().ok_or_else(|| {
        Refusal::new(
            RefusalCode::RefInvalid,
            format!(
                "Ref {reference} is not on the latest page snapshot (it is from an older one or does not exist). \
                 Look at the latest snapshot below and use one of its refs."
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_table() {
        for (text, want) in [
            ("e8", true),
            ("f1e4", true),
            ("f12e400", true),
            ("e", false),
            ("fe4", false),
            ("#cancel", false),
            ("button:has-text('x')", false),
            ("E8", false),
        ] {
            assert_eq!(is_ref(text), want, "{text}");
        }
    }

    #[test]
    fn stale_and_selector_targets_are_refused() {
        let snapshot = Snapshot {
            elements: vec![Element {
                reference: Some("e3".into()),
                role: "button".into(),
                name: "Go".into(),
                ..Element::default()
            }],
            ..Snapshot::default()
        };
        assert_eq!(
            resolve("e3", &snapshot).map(|e| e.name),
            Ok("Go".to_owned())
        );
        assert_eq!(
            resolve("e9", &snapshot).map_err(|r| r.code),
            Err(RefusalCode::RefInvalid)
        );
        assert_eq!(
            resolve("#go", &snapshot).map_err(|r| r.code),
            Err(RefusalCode::InvalidParams)
        );
    }
}
