//! What a verified run did, read back from its record: the pages it saw
//! (the trees the browser server saved, each put with the URL the host
//! reported for it), the actions that worked on them in order, where it
//! waited for a sign-in, the step a person approved, the request that yes
//! let through, and the confirmation the host verified.
//!
//! The transcript is read through the audit's view, which checks its hash
//! chain first: a record edited after the run is refused, not drafted from.

use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};
use subterminator_core::audit::{BROWSER_DIR, Moment, RecordView};
use subterminator_core::browser::tools;
use subterminator_core::record::SEALED_EVENT;

use super::DraftError;

/// The file the host writes beside the transcript with the text of the
/// confirmation it verified (`URL:` and `Title:` lines, then the page text).
const CONFIRMATION_FILE: &str = "confirmation.txt";

/// A run, as the draft needs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Walk {
    pub service: String,
    pub display_name: String,
    pub start_url: String,
    /// The RunStarted event's `billing_descriptors` (a run started from
    /// `scan` may carry the statement's), absent in older records.
    pub billing_descriptors: Vec<String>,
    pub pages: Vec<Page>,
    /// The actions that worked, in order, up to the approved one.
    pub steps: Vec<Step>,
    /// The request the approved step's yes let through, if the record says.
    pub commit: Option<Request>,
    /// The text of the confirmation the host verified.
    pub confirmation: String,
}

/// One page the run saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Page {
    pub url: String,
    pub title: String,
    /// The latest accessibility tree saved while it was shown.
    pub tree: Option<String>,
    /// The run waited here for the person to sign in.
    pub sign_in: bool,
}

/// One action that worked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub action: Action,
    pub role: String,
    pub name: String,
    /// A selected option (a fill's text is never kept).
    pub option: Option<String>,
    /// Index into [`Walk::pages`] of the page it acted on.
    pub page: usize,
    /// The step a person approved: the one that commits.
    pub approved: bool,
    /// The run's turn it was taken in.
    pub turn: u64,
}

/// What a step did to its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    Click,
    Select,
    Fill,
}

impl Action {
    fn of(tool: &str) -> Option<Action> {
        match tool {
            tools::CLICK => Some(Action::Click),
            tools::SELECT_OPTION => Some(Action::Select),
            tools::TYPE => Some(Action::Fill),
            _ => None,
        }
    }

    /// The browser tool, as a fixture's checkpoint names it.
    pub fn tool(self) -> &'static str {
        match self {
            Action::Click => tools::CLICK,
            Action::Select => tools::SELECT_OPTION,
            Action::Fill => tools::TYPE,
        }
    }

    /// As `service.toml` names it.
    pub fn word(self) -> &'static str {
        match self {
            Action::Click => "click",
            Action::Select => "select",
            Action::Fill => "fill",
        }
    }
}

/// A request: method and URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Request {
    pub method: String,
    pub url: String,
}

impl Walk {
    /// Reads the run in `dir`.
    pub fn read(dir: &Path) -> Result<Walk, DraftError> {
        let view = RecordView::read(dir).map_err(|e| DraftError::Record(e.to_string()))?;
        check_sealed(dir, &view.moments)?;
        let mut walk = Walk::from_moments(&view.moments)?;
        let path = dir.join(CONFIRMATION_FILE);
        walk.confirmation = std::fs::read_to_string(&path).map_err(|e| {
            DraftError::Record(format!(
                "{}: {e}; a verified run keeps the confirmation it read there",
                path.display()
            ))
        })?;
        Ok(walk)
    }

    /// The walk the record's moments describe.
    pub fn from_moments(moments: &[Moment]) -> Result<Walk, DraftError> {
        let mut walk = Walk::default();
        let mut approved_turns: Vec<u64> = Vec::new();
        let mut released: Vec<(u64, Request)> = Vec::new();
        let mut held: Vec<(u64, Request)> = Vec::new();
        let mut asked: Vec<(u64, Request)> = Vec::new();
        // The action proposed and not yet seen to work.
        let mut pending: Option<Step> = None;
        // A tree after an action (or a sign-in) is a new page; before, the
        // same page seen again (an overlay dismissed, a field filled).
        let mut moved = true;
        for moment in moments {
            let event = match moment {
                Moment::Tree(tree) => {
                    if moved || walk.pages.is_empty() {
                        walk.pages.push(Page::default());
                        moved = false;
                    }
                    if let Some(page) = walk.pages.last_mut() {
                        page.tree = Some(tree.clone());
                    }
                    continue;
                }
                Moment::Event(event) => event,
            };
            let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or_default();
            let turn = event.get("turn").and_then(Value::as_u64).unwrap_or(0);
            match text("type") {
                "run_started" => {
                    walk.service = text("service").to_owned();
                    walk.display_name = text("display_name").to_owned();
                    walk.start_url = text("start_url").to_owned();
                    walk.billing_descriptors = strings(event.get("billing_descriptors"));
                }
                "tool_call" => {
                    let Some(action) = Action::of(text("tool")) else {
                        continue;
                    };
                    if walk.pages.is_empty() {
                        walk.pages.push(Page::default());
                    }
                    let Some((role, name)) = event
                        .get("target")
                        .and_then(Value::as_str)
                        .and_then(split_target)
                    else {
                        continue;
                    };
                    let option = (action == Action::Select)
                        .then(|| {
                            strings(event.pointer("/arguments/values"))
                                .into_iter()
                                .next()
                        })
                        .flatten();
                    pending = Some(Step {
                        action,
                        role,
                        name,
                        option,
                        page: walk.pages.len() - 1,
                        approved: false,
                        turn,
                    });
                    moved = true;
                }
                "tool_result" => {
                    let ok = event.get("ok").and_then(Value::as_bool) == Some(true);
                    if let Some(done) = pending.take_if(|p| p.turn == turn)
                        && ok
                    {
                        walk.steps.push(done);
                    }
                    // The tree saved during the call is the page it led to.
                    if let Some(page) = walk.pages.last_mut()
                        && !moved
                    {
                        page.url = text("url").to_owned();
                        page.title = title_of(text("page"));
                    }
                }
                "auth_required" => {
                    if let Some(page) = walk.pages.last_mut() {
                        page.sign_in = true;
                        page.url = text("url").to_owned();
                    }
                    moved = true;
                }
                "approval_asked" => {
                    if let Some(request) = event
                        .pointer("/request/details")
                        .and_then(Value::as_str)
                        .and_then(form_submission)
                    {
                        asked.push((turn, request));
                    }
                }
                "approval_answered"
                    if event.pointer("/answer/answer").and_then(Value::as_str)
                        == Some("approved") =>
                {
                    approved_turns.push(turn);
                }
                // What a yes let through: the record's own word for it
                // (records from before it existed fall back on the held
                // requests and the question's words).
                "released" => released.extend(requests_of(event).map(|r| (turn, r))),
                "guard_held" => held.extend(requests_of(event).map(|r| (turn, r))),
                _ => {}
            }
        }
        if let Some(first) = walk.pages.first_mut()
            && first.url.is_empty()
        {
            first.url = walk.start_url.clone();
        }
        walk.mark_approved(&approved_turns)?;
        let final_turn = walk.steps.last().map(|step| step.turn);
        // What the yes released, as recorded; else the requests it held and
        // let go, else the form the approved element submits, as the
        // question showed it.
        walk.commit = released
            .into_iter()
            .chain(held)
            .chain(asked)
            .find(|(turn, request)| Some(*turn) == final_turn && !is_safe_method(&request.method))
            .map(|(_, request)| request);
        Ok(walk)
    }

    /// Marks the last step a person approved and drops any after it: the
    /// plan ends where the cancellation was committed.
    fn mark_approved(&mut self, turns: &[u64]) -> Result<(), DraftError> {
        let at = self
            .steps
            .iter()
            .rposition(|step| turns.contains(&step.turn))
            .ok_or_else(|| {
                DraftError::Record(
                    "the record shows no step a person approved, so nothing to mark irreversible"
                        .into(),
                )
            })?;
        self.steps.truncate(at + 1);
        if let Some(step) = self.steps.last_mut() {
            step.approved = true;
        }
        Ok(())
    }
}

/// The chain proves the transcript; the pages and the confirmation the
/// draft copies are proved by the hashes its sealing line lists. A file
/// changed, added or missing since the run is refused.
fn check_sealed(dir: &Path, moments: &[Moment]) -> Result<(), DraftError> {
    let sealed = moments.iter().rev().find_map(|m| match m {
        Moment::Event(e) if e.get("type").and_then(Value::as_str) == Some(SEALED_EVENT) => {
            e.get("files").and_then(Value::as_array)
        }
        _ => None,
    });
    let Some(sealed) = sealed else {
        return Err(DraftError::Record(
            "the record was never sealed (the run did not finish)".into(),
        ));
    };
    let read_here = |path: &str| {
        path == CONFIRMATION_FILE || (path.starts_with(BROWSER_DIR) && path.ends_with(".yml"))
    };
    let mut listed: Vec<&str> = Vec::new();
    for entry in sealed {
        let field = |k: &str| entry.get(k).and_then(Value::as_str).unwrap_or_default();
        let path = field("path");
        if !read_here(path) {
            continue;
        }
        listed.push(path);
        let bytes = std::fs::read(dir.join(path))
            .map_err(|e| DraftError::Record(format!("{path}: {e}")))?;
        if hex::encode(Sha256::digest(&bytes)) != field("sha256") {
            return Err(DraftError::Record(format!("{path} changed after the run")));
        }
    }
    let saved = std::fs::read_dir(dir.join(BROWSER_DIR))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| format!("{BROWSER_DIR}/{}", e.file_name().to_string_lossy()))
        .filter(|p| read_here(p));
    for path in saved {
        if !listed.contains(&path.as_str()) {
            return Err(DraftError::Record(format!(
                "{path} was added after the run"
            )));
        }
    }
    Ok(())
}

/// `button "Cancel Membership"` → (`button`, `Cancel Membership`), as the
/// host writes a target (`toolset::describe`). An element with no name is
/// no target a plan can find again.
pub(crate) fn split_target(target: &str) -> Option<(String, String)> {
    let (role, rest) = target.trim().split_once(' ')?;
    let name = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let role_ok = !role.is_empty() && role.chars().all(|c| c.is_ascii_alphabetic());
    (role_ok && !name.trim().is_empty()).then(|| (role.to_owned(), name.to_owned()))
}

/// The `requests` an event lists (`released`, `guard_held`), each its
/// method and address.
fn requests_of(event: &Value) -> impl Iterator<Item = Request> + '_ {
    event
        .get("requests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|request| {
            let field = |k: &str| request.get(k).and_then(Value::as_str).unwrap_or_default();
            Request {
                method: field("method").to_owned(),
                url: field("url").to_owned(),
            }
        })
}

/// `submits a form: POST http://…/cancel/complete` in a question's details.
fn form_submission(details: &str) -> Option<Request> {
    let after = details.split("submits a form: ").nth(1)?;
    let mut words = after.split([' ', ';']).filter(|w| !w.is_empty());
    let method = words.next()?.to_uppercase();
    let url = words.next()?.to_owned();
    Some(Request { method, url })
}

fn is_safe_method(method: &str) -> bool {
    matches!(method.to_uppercase().as_str(), "GET" | "HEAD" | "OPTIONS")
}

/// The page title in a compact tool result (`{"page": {"title": …}}`);
/// the full toolset's text has none to read.
fn title_of(page: &str) -> String {
    serde_json::from_str::<Value>(page)
        .ok()
        .and_then(|v| {
            v.pointer("/page/title")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}
