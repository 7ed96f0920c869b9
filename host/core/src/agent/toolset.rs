//! What the model sees and how its calls become browser calls. The `full`
//! toolset passes Playwright MCP's own tools through; the `compact` one
//! shows seven tools over pruned snapshots.

pub mod compact;
pub mod full;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use serde_json::Value;

use crate::browser::{Browser, BrowserError, ToolOutput, ToolSchema};
use crate::llm::ToolSpec;
use crate::page::{Element, Snapshot};
use crate::plugin::HintAction;
use crate::safety::RefusalCode;

/// A model call translated for the browser.
#[derive(Debug, Clone)]
pub struct BrowserAction {
    /// The Playwright MCP tool to run; `None` when the answer is just a
    /// fresh look at the page.
    pub mcp_tool: Option<String>,
    pub mcp_args: Value,
    /// The element the call acts on, resolved from the latest snapshot.
    pub target: Option<Element>,
    /// For navigation: where to; the agent checks it against the allowed origins.
    pub navigate_to: Option<String>,
    /// Whether the call changes nothing (a snapshot, a screenshot): no checkpoint.
    pub read_only: bool,
}

/// Why a call is refused before it reaches the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: RefusalCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: RefusalCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

/// How a browser call ended.
#[derive(Debug)]
pub enum Outcome<'a> {
    Done(&'a ToolOutput),
    Failed(&'a BrowserError),
    Refused(&'a Refusal),
}

/// What a look left for the model to see of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelScreenshot {
    /// The PNG of the page as it is now.
    Taken(PathBuf),
    /// The screenshot failed: an older picture would show a page that is
    /// no longer there, so none is sent until the next one.
    Failed,
}

/// What [`Toolset::look`] hands back, boxed so the trait stays usable as
/// `dyn Toolset`.
pub type Look<'a> = Pin<Box<dyn Future<Output = Result<Snapshot, BrowserError>> + Send + 'a>>;

/// `Sync` as well as `Send`: a run's agent may be driven from a spawned task
/// (the MCP server's sessions).
pub trait Toolset: Send + Sync {
    /// `full` or `compact`.
    fn name(&self) -> &'static str;

    /// The browser tools the model may call (the agent adds the virtual ones).
    fn tools(&self) -> Vec<ToolSpec>;

    /// Takes in a fresh snapshot (older refs become invalid) and returns the
    /// page as the model sees it.
    fn observe(&mut self, snapshot: &Snapshot) -> String;

    /// What a call means for the browser, or why it is refused. `snapshot`
    /// is the latest one, the one [`Toolset::observe`] last saw.
    fn translate(
        &self,
        tool: &str,
        args: &Value,
        snapshot: &Snapshot,
    ) -> Result<BrowserAction, Refusal>;

    /// The tool result the model gets; `page` is [`Toolset::observe`]'s
    /// text for the snapshot taken after the call.
    fn report(&self, outcome: &Outcome<'_>, page: &str) -> String;

    /// Takes the page after `after` (the action just run, if any). The
    /// default reuses the snapshot the action's result carries; a toolset
    /// that needs more (compact: bounding boxes, the viewport) takes its own.
    fn look<'a>(&'a mut self, browser: &'a Browser, after: Option<&'a ToolOutput>) -> Look<'a> {
        let carried = after.and_then(|o| o.snapshot.clone());
        Box::pin(async move {
            match carried {
                Some(snapshot) => Ok(snapshot),
                None => browser.snapshot().await,
            }
        })
    }

    /// `complete_task`'s answer when the page does not prove success: an
    /// error the model can act on, with the page as it is now.
    fn unverified(&self, message: &str, page: &str) -> String {
        format!(
            "{}\n{page}",
            serde_json::json!({ "error": true, "message": message })
        )
    }

    /// The latest page, sent apart: `content` with its snapshot replaced by
    /// a stub that names it, and the snapshot itself. The history then
    /// never changes once sent (a provider's prompt cache reads it again on
    /// every turn) and only the page, sent last, is paid in full. `None`
    /// keeps every message whole (the Python prototype's behaviour).
    fn page_apart(&self, _content: &str) -> Option<(String, String)> {
        None
    }

    /// How many of the latest turns are sent whole, the older ones as one
    /// "Previous actions" line each; `None` sends every turn whole until
    /// the history's token budget is reached.
    fn turns_kept_whole(&self) -> Option<usize> {
        None
    }

    /// The picture of the page the latest [`Toolset::look`] took for
    /// the model, once: a second call gives `None` until the next look.
    /// Only toolsets that picture the page (compact under `--vision`) have
    /// one; `None` otherwise.
    fn take_screenshot_for_model(&mut self) -> Option<ModelScreenshot> {
        None
    }

    /// The call the offline policy makes to act on `element` of the latest snapshot.
    fn offline_call(
        &self,
        action: HintAction,
        element: &Element,
        value: Option<&str>,
    ) -> (String, Value);
}

/// Turns an MCP tool description into a model tool.
pub fn spec_of(tool: &ToolSchema) -> ToolSpec {
    ToolSpec {
        name: tool.name.clone(),
        description: tool.description.clone(),
        input_schema: tool.input_schema.clone(),
    }
}

/// `button "Finish Cancellation"`: how an element is named to humans.
pub fn describe(element: &Element) -> String {
    if element.name.is_empty() {
        element.role.clone()
    } else {
        format!("{} \"{}\"", element.role, element.name)
    }
}
