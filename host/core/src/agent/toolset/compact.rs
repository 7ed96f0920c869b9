//! The `compact` toolset, the default: seven tools instead of
//! Playwright MCP's twenty-five, and pruned JSON snapshots with `@eN` refs
//! that live for one snapshot, instead of the raw YAML tree.
//!
//! - [`tools`]: the schemas and descriptions the model sees;
//! - [`view`]: pruning, ranking and the snapshot JSON;
//! - [`geometry`]: bounding boxes and the viewport, as cheaply as the server allows;
//! - [`errors`]: Playwright's failures as the tools' error codes.

pub mod errors;
pub mod geometry;
pub mod tools;
pub mod view;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::safety::RefusalCode;
use serde_json::{Value, json};

use super::{BrowserAction, Look, ModelScreenshot, Outcome, Refusal, Toolset, describe};
use crate::browser::VIEWPORT_PX;
use crate::browser::tools as mcp;
use crate::browser::{Browser, BrowserError, ToolOutput, parse_snapshot};
use crate::llm::ToolSpec;
use crate::page::{Element, Snapshot};
use crate::plugin::HintAction;
use geometry::{BBox, MEASURE_JS, Tracker, Viewport};
use tools::{CLICK, DEFAULT_SCROLL_PX, DIALOG, FILL, GET_SNAPSHOT, MAX_SCROLL_PX, SCROLL, SELECT};
use view::{Layout, View};

/// Roles `browser_fill` types into.
const FILLABLE: &[&str] = &["textbox", "searchbox", "combobox", "spinbutton"];
/// Roles `browser_select` chooses in.
const SELECTABLE: &[&str] = &["combobox", "listbox"];
/// Roles that sit on top of the page while they are open.
const OVERLAYS: &[&str] = &["dialog", "alertdialog"];

/// What the host says instead of a snapshot that a later one replaced.
pub const SUPERSEDED: &str = "(old)";

/// Turns sent whole; see [`Toolset::turns_kept_whole`].
pub const TURNS_KEPT_WHOLE: usize = 0;

#[derive(Debug, Default)]
pub struct CompactToolset {
    vision: bool,
    /// `targets[n]` is what `@en` names in the latest view.
    targets: Vec<Element>,
    /// Boxes of the latest snapshot, by Playwright ref.
    boxes: HashMap<String, BBox>,
    viewport: Tracker,
    latest_viewport: Option<Viewport>,
    /// Set by `get_snapshot(viewport_only=false)` for the next view only.
    wide: AtomicBool,
    /// Every view lists the whole page, not just the viewport: for the
    /// offline policy, which reads no tokens and finds its target anywhere
    /// on the page (a click scrolls it into view).
    always_wide: bool,
    screenshot: Option<PathBuf>,
    /// The latest look's picture until the agent takes it for the model;
    /// kept apart from `screenshot`, which every view of the page still names.
    for_model: Option<ModelScreenshot>,
    shots: u32,
    /// Views built so far, for their ids.
    views: u32,
}

impl CompactToolset {
    /// `vision`: a screenshot goes with every snapshot (`--vision`).
    pub fn new(vision: bool) -> Self {
        Self {
            vision,
            ..Self::default()
        }
    }

    /// Views of the whole page (see `always_wide`).
    pub fn whole_page(mut self) -> Self {
        self.always_wide = true;
        self
    }

    /// The element `@eN` names in the latest view.
    fn resolve(&self, args: &Value) -> Result<(usize, Element), Refusal> {
        let reference = args.get("ref").and_then(Value::as_str).unwrap_or_default();
        let n = reference
            .strip_prefix("@e")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| {
                Refusal::new(
                    RefusalCode::InvalidParams,
                    format!(
                        "\"{reference}\" is not a ref; use one like @e3 from the latest snapshot."
                    ),
                )
            })?;
        self.targets.get(n).cloned().map(|e| (n, e)).ok_or_else(|| {
            Refusal::new(
                RefusalCode::RefInvalid,
                format!(
                    "{reference} is not in the latest snapshot (refs last one snapshot; it has @e0..@e{}). \
                     Use a ref from the snapshot below.",
                    self.targets.len().saturating_sub(1)
                ),
            )
        })
    }

    /// Why acting on `target` cannot work, seen from the snapshot alone:
    /// cheaper than Playwright's five seconds of retries.
    fn blocked(&self, reference: &str, target: &Element, snapshot: &Snapshot) -> Option<Refusal> {
        if target.has_state("disabled") {
            return Some(Refusal::new(
                RefusalCode::ElementDisabled,
                format!("{reference} ({}) is disabled.", describe(target)),
            ));
        }
        let bbox = target.reference.as_ref().and_then(|r| self.boxes.get(r))?;
        if bbox.is_empty() {
            return Some(Refusal::new(
                RefusalCode::ElementNotVisible,
                format!("{reference} ({}) has no size on screen.", describe(target)),
            ));
        }
        let at = snapshot
            .elements
            .iter()
            .position(|e| e.reference == target.reference)?;
        let center = bbox.center();
        snapshot
            .elements
            .iter()
            .enumerate()
            .skip(at + 1)
            .find_map(|(i, e)| {
                let covers = OVERLAYS.contains(&e.role.as_str())
                    && !view::is_inside(&snapshot.elements, i, at)
                    && e.reference
                        .as_ref()
                        .and_then(|r| self.boxes.get(r))
                        .is_some_and(|b| b.contains(center));
                covers.then(|| {
                    Refusal::new(
                        RefusalCode::ElementObscured,
                        format!(
                            "{reference} ({}) is covered by {}; deal with that first.",
                            describe(target),
                            describe(e)
                        ),
                    )
                })
            })
    }

    fn action(&self, tool: &str, target: Element, args: Value, read_only: bool) -> BrowserAction {
        BrowserAction {
            mcp_tool: Some(tool.to_owned()),
            mcp_args: args,
            target: Some(target),
            navigate_to: None,
            read_only,
        }
    }

    fn scroll(&self, args: &Value) -> Result<BrowserAction, Refusal> {
        if args.get("ref").is_some() {
            let (_, target) = self.resolve(args)?;
            let script = format!(
                "(el) => {{ el.scrollIntoView({{ block: 'center', behavior: 'instant' }}); return ({})(); }}",
                MEASURE_JS
            );
            let reference = target.reference.clone().unwrap_or_default();
            return Ok(self.action(
                mcp::EVALUATE,
                target.clone(),
                json!({ "target": reference, "element": describe(&target), "function": script }),
                true,
            ));
        }
        let amount = args
            .get("amount")
            .and_then(Value::as_i64)
            .unwrap_or(DEFAULT_SCROLL_PX)
            .clamp(1, MAX_SCROLL_PX);
        let how = match args.get("direction").and_then(Value::as_str) {
            Some("down") => format!("scrollBy({{ top: {amount}, behavior: 'instant' }})"),
            Some("up") => format!("scrollBy({{ top: -{amount}, behavior: 'instant' }})"),
            Some("top") => "scrollTo({ top: 0, behavior: 'instant' })".to_owned(),
            Some("bottom") => {
                "scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' })"
                    .to_owned()
            }
            _ => {
                return Err(Refusal::new(
                    RefusalCode::InvalidParams,
                    "browser_scroll needs either ref or direction (up, down, top, bottom).",
                ));
            }
        };
        Ok(BrowserAction {
            mcp_tool: Some(mcp::EVALUATE.into()),
            mcp_args: json!({ "function": format!("() => {{ {how}; return ({MEASURE_JS})(); }}") }),
            target: None,
            navigate_to: None,
            read_only: true,
        })
    }

    fn render(&self, view: &View) -> String {
        serde_json::to_string(view).unwrap_or_default()
    }
}

impl Toolset for CompactToolset {
    fn name(&self) -> &'static str {
        "compact"
    }

    fn tools(&self) -> Vec<ToolSpec> {
        tools::specs()
    }

    fn look<'a>(&'a mut self, browser: &'a Browser, after: Option<&'a ToolOutput>) -> Look<'a> {
        Box::pin(async move {
            let mut measured = geometry::measured(after.and_then(|o| o.result.as_deref()));
            if measured.is_none() && !self.viewport.known() {
                // The server was started with this size; boxes are relative
                // to the viewport, so the scroll offset is only reported,
                // and the tracker follows it from here.
                measured = Some(Viewport {
                    width: i64::from(VIEWPORT_PX.0),
                    height: i64::from(VIEWPORT_PX.1),
                    scroll_x: 0,
                    scroll_y: 0,
                });
            }
            let output = browser
                .call(mcp::SNAPSHOT, json!({ "boxes": true }))
                .await?;
            let snapshot = parse_snapshot(&output.text, Some(browser.output_dir()))?;
            self.boxes = geometry::boxes(&snapshot.content);
            self.latest_viewport = self.viewport.update(&snapshot, &self.boxes, measured);
            if self.vision {
                self.shots += 1;
                let path = PathBuf::from(format!("compact-view-{}.png", self.shots));
                self.screenshot = match browser.screenshot(&path).await {
                    Ok(path) => Some(path),
                    Err(e) => {
                        tracing::warn!("no screenshot for the model: {e}");
                        None
                    }
                };
                self.for_model = Some(match &self.screenshot {
                    Some(path) => ModelScreenshot::Taken(path.clone()),
                    None => ModelScreenshot::Failed,
                });
            }
            Ok::<_, BrowserError>(snapshot)
        })
    }

    fn observe(&mut self, snapshot: &Snapshot) -> String {
        if self.boxes.is_empty() && snapshot.content.contains("[box=") {
            self.boxes = geometry::boxes(&snapshot.content);
        }
        let pointer = geometry::pointer_refs(&snapshot.content);
        let layout = Layout {
            boxes: Some(&self.boxes),
            viewport: self.latest_viewport,
            pointer: &pointer,
            viewport_only: !(self.wide.swap(false, Ordering::Relaxed) || self.always_wide),
        };
        // Short and new each time: the model only needs to tell views
        // apart, and every character is resent on later turns.
        self.views += 1;
        let id = format!("s{}", self.views);
        let (mut view, targets) = view::build(snapshot, &layout, id);
        view.screenshot = self.screenshot.as_ref().map(|p| p.display().to_string());
        // Where things are on screen matters to a model that sees the
        // screenshot; without one, the boxes are numbers it does not use
        // (whether a control is off screen is in its state). The viewport's
        // size is always the one the host set; only a scroll is news.
        if !self.vision {
            if view
                .viewport
                .as_ref()
                .is_some_and(|v| v.scroll_x == 0 && v.scroll_y == 0)
            {
                view.viewport = None;
            }
            for item in &mut view.elements {
                item.bbox = None;
            }
        }
        self.targets = targets;
        self.render(&view)
    }

    fn translate(
        &self,
        tool: &str,
        args: &Value,
        snapshot: &Snapshot,
    ) -> Result<BrowserAction, Refusal> {
        let reference = args.get("ref").and_then(Value::as_str).unwrap_or_default();
        match tool {
            GET_SNAPSHOT => {
                let wide = args.get("viewport_only").and_then(Value::as_bool) == Some(false);
                self.wide.store(wide, Ordering::Relaxed);
                Ok(BrowserAction {
                    mcp_tool: None,
                    mcp_args: Value::Null,
                    target: None,
                    navigate_to: None,
                    read_only: true,
                })
            }
            // Not among the tools the model is shown: the plan's own visit to
            // a site's account page (a service with no plugin, started at its
            // home page). The address is checked like any navigation's.
            mcp::NAVIGATE => {
                let url = args.get("url").and_then(Value::as_str).unwrap_or_default();
                Ok(BrowserAction {
                    mcp_tool: Some(mcp::NAVIGATE.to_owned()),
                    mcp_args: json!({ "url": url }),
                    target: None,
                    navigate_to: Some(url.to_owned()),
                    read_only: false,
                })
            }
            CLICK => {
                let (_, target) = self.resolve(args)?;
                if let Some(refusal) = self.blocked(reference, &target, snapshot) {
                    return Err(refusal);
                }
                let pw = target.reference.clone().unwrap_or_default();
                let args = json!({ "target": pw, "element": describe(&target) });
                Ok(self.action(mcp::CLICK, target, args, false))
            }
            FILL => {
                let (_, target) = self.resolve(args)?;
                if !FILLABLE.contains(&target.role.as_str()) {
                    return Err(Refusal::new(
                        RefusalCode::ActionFailed,
                        format!(
                            "{reference} is a {}; browser_fill needs a textbox.",
                            target.role
                        ),
                    ));
                }
                if let Some(refusal) = self.blocked(reference, &target, snapshot) {
                    return Err(refusal);
                }
                let value = args
                    .get("value")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let keep = args.get("clear_first").and_then(Value::as_bool) == Some(false);
                // Playwright's fill always replaces; appending is filling
                // with the old text in front.
                let text = match (&target.value, keep) {
                    (Some(old), true) => format!("{old}{value}"),
                    _ => value.to_owned(),
                };
                let pw = target.reference.clone().unwrap_or_default();
                let args = json!({ "target": pw, "element": describe(&target), "text": text });
                Ok(self.action(mcp::TYPE, target, args, false))
            }
            SELECT => {
                let (_, target) = self.resolve(args)?;
                if !SELECTABLE.contains(&target.role.as_str()) {
                    return Err(Refusal::new(
                        RefusalCode::ActionFailed,
                        format!(
                            "{reference} is a {}; browser_select needs a dropdown.",
                            target.role
                        ),
                    ));
                }
                if let Some(refusal) = self.blocked(reference, &target, snapshot) {
                    return Err(refusal);
                }
                let wanted = args
                    .get("value")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let value = option_named(snapshot, &target, wanted).unwrap_or(wanted.to_owned());
                let pw = target.reference.clone().unwrap_or_default();
                let args = json!({ "target": pw, "element": describe(&target), "values": [value] });
                Ok(self.action(mcp::SELECT_OPTION, target, args, false))
            }
            SCROLL => self.scroll(args),
            DIALOG => {
                let mut mcp_args =
                    json!({ "accept": args.get("accept").and_then(Value::as_bool) == Some(true) });
                if let Some(text) = args.get("prompt_text").and_then(Value::as_str) {
                    mcp_args["promptText"] = json!(text);
                }
                Ok(BrowserAction {
                    mcp_tool: Some(mcp::HANDLE_DIALOG.into()),
                    mcp_args,
                    target: None,
                    navigate_to: None,
                    read_only: false,
                })
            }
            other => Err(Refusal::new(
                RefusalCode::InvalidParams,
                format!(
                    "Unknown tool {other}. The tools are: {}, complete_task, request_human_approval.",
                    tools::specs()
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    fn report(&self, outcome: &Outcome<'_>, page: &str) -> String {
        let (code, message) = match outcome {
            Outcome::Done(_) => return response(None, None, page),
            Outcome::Failed(error) => errors::classify(error),
            Outcome::Refused(refusal) => (refusal.code, refusal.message.clone()),
        };
        response(Some(code.as_str()), Some(&message), page)
    }

    /// `complete_task`'s `{acknowledged, message}`.
    fn unverified(&self, message: &str, page: &str) -> String {
        let mut text = json!({ "acknowledged": false, "message": message }).to_string();
        text.pop();
        format!("{text},\"snapshot\":{page}}}")
    }

    fn page_apart(&self, content: &str) -> Option<(String, String)> {
        page_apart(content)
    }

    /// No turn whole: each is a line, the last one's result quoted when it
    /// says more than "success" (an error's message, a person's words), and
    /// the page now follows. A turn whole is its call and its result, some
    /// 250 characters of framing on the wire, on every later request.
    fn turns_kept_whole(&self) -> Option<usize> {
        Some(TURNS_KEPT_WHOLE)
    }

    fn take_screenshot_for_model(&mut self) -> Option<ModelScreenshot> {
        self.for_model.take()
    }

    fn offline_call(
        &self,
        action: HintAction,
        element: &Element,
        value: Option<&str>,
    ) -> (String, Value) {
        let n = self
            .targets
            .iter()
            .position(|t| t.reference.is_some() && t.reference == element.reference);
        // An element the view left out has no @e ref; a ref past the end
        // makes the host answer ref_invalid rather than act on another one.
        let reference = format!("@e{}", n.unwrap_or(self.targets.len()));
        let value = value.unwrap_or_default();
        match action {
            HintAction::Click => (CLICK.into(), json!({ "ref": reference })),
            HintAction::Select => (SELECT.into(), json!({ "ref": reference, "value": value })),
            HintAction::Fill => (FILL.into(), json!({ "ref": reference, "value": value })),
        }
    }
}

/// Every browser tool's `{success, snapshot, error}`, plus a message on
/// errors (`human_rejected` carries the human's words; the others a hint).
fn response(code: Option<&str>, message: Option<&str>, page: &str) -> String {
    // `error` only when there is one: a null on every success is resent
    // with every later turn.
    let head = match code {
        None => json!({ "success": true }),
        Some(code) => json!({ "success": false, "error": code }),
    };
    let mut text = head.to_string();
    text.pop();
    if let Some(message) = message {
        text.push_str(&format!(",\"message\":{}", Value::from(message)));
    }
    format!("{text},\"snapshot\":{page}}}")
}

/// The exact option text for `wanted` (matched case-insensitively), since
/// Playwright matches values and labels exactly and retries for five seconds
/// when nothing matches.
fn option_named(snapshot: &Snapshot, target: &Element, wanted: &str) -> Option<String> {
    let at = snapshot
        .elements
        .iter()
        .position(|e| e.reference == target.reference)?;
    let depth = snapshot.elements[at].depth;
    snapshot.elements[at + 1..]
        .iter()
        .take_while(|e| e.depth > depth)
        .filter(|e| e.role == "option")
        .find(|e| e.name.trim().eq_ignore_ascii_case(wanted.trim()))
        .map(|e| e.name.clone())
}

/// `content` with its snapshot replaced by a stub (`"s4 (old)"`), and the
/// snapshot itself; `None` when `content` holds no whole snapshot. The stub
/// names the page and no more: no turn is sent whole
/// ([`TURNS_KEPT_WHOLE`]), and the page is sent after the summary.
pub fn page_apart(content: &str) -> Option<(String, String)> {
    const START: &str = "{\"snapshot_id\":";
    let at = content.find(START)?;
    let mut stream =
        serde_json::Deserializer::from_str(&content[at..]).into_iter::<serde_json::Value>();
    let value = stream.next()?.ok()?;
    let end = at + stream.byte_offset();
    // Only whole snapshots: the stubs left by an earlier pass have a string.
    value.get("elements")?.as_array()?;
    // Its id says which page it was; the page itself is sent after it,
    // and resent here it would be paid for on every later turn.
    let id = value
        .get("snapshot_id")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let stub = serde_json::Value::String(format!("{id} {SUPERSEDED}"));
    Some((
        format!("{}{}{}", &content[..at], stub, &content[end..]),
        content[at..end].to_owned(),
    ))
}

#[cfg(test)]
mod tests;
