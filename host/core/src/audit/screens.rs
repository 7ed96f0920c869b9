//! The run as the screens it passed through: each page (one URL path) with
//! every view of it the record holds, what the run did there, and what the
//! host's DOM probe measured there; and where the approved step was taken.

use serde_json::Value;

use super::view::{Moment, RecordView};
use crate::browser::parse_tree;
use crate::page::Element;
use crate::safety::floor::{self, Place, Strength};

/// Tools the host answers itself: they neither act on the page nor bring a
/// new view of it.
const HOST_TOOLS: &[&str] = &["complete_task", "request_human_approval"];

/// What the run did on a screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Acted {
    pub tool: String,
    /// The element as the host resolved it: `button "Continue"`.
    pub target: Option<String>,
}

/// A measurement of the host's DOM probe (an `observed` event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Observed {
    pub kind: String,
    pub target: String,
    pub detail: String,
}

/// One page of the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Screen {
    pub url: String,
    /// Every view of the page, the first as it arrived, before the run
    /// touched anything on it.
    pub views: Vec<Vec<Element>>,
    pub acted: Vec<Acted>,
    pub observed: Vec<Observed>,
    /// Errors the run's actions met here.
    pub errors: Vec<String>,
    /// Reached after the run pressed a cancel control, or a cancel page by
    /// its URL: the cancellation flow itself, not the account pages before.
    pub in_flow: bool,
}

impl Screen {
    fn new(url: &str, in_flow: bool) -> Self {
        let in_flow = in_flow || cancel_sign(floor::sign_in_url(url));
        Screen {
            url: url.to_owned(),
            in_flow,
            ..Screen::default()
        }
    }

    /// The page's name as a person saw it: its first heading, else its URL.
    pub fn name(&self) -> String {
        self.views
            .iter()
            .flatten()
            .find(|e| e.role == "heading" && !e.name.trim().is_empty())
            .map_or_else(|| self.url.clone(), |e| e.name.trim().to_owned())
    }

    /// Every element of the first `views` views, each `role "name"` once,
    /// in order.
    pub fn elements(&self, views: usize) -> Vec<&Element> {
        let mut seen = std::collections::HashSet::new();
        self.views
            .iter()
            .take(views)
            .flatten()
            .filter(|e| seen.insert((e.role.as_str(), e.name.as_str())))
            .collect()
    }

    /// Whether the run acted on `element` here.
    pub fn touched(&self, element: &Element) -> bool {
        let described = describe(element);
        self.acted
            .iter()
            .any(|a| a.target.as_deref() == Some(described.as_str()))
    }
}

/// An element as the host's targets name it: `button "Continue"`.
pub(super) fn describe(element: &Element) -> String {
    format!("{} \"{}\"", element.role, element.name)
}

/// The screens of a run and where its approved step was taken.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Walk {
    pub screens: Vec<Screen>,
    /// The screen on which the last approved action ran. The host may ask
    /// early, where a page's words predict a commit that is a step or two
    /// away (a plan that does not read the page's language asks at each
    /// likely step); the last yes is the one nearest the commit, so the
    /// flow's obstacles are read up to it.
    pub commit: Option<usize>,
    /// Views of that screen before the approved action: what came after
    /// it on the same page (a single-page app's done section) is not in
    /// the way.
    pub commit_views: usize,
    /// The `finished` event's result.
    pub finished: Option<Value>,
}

impl Walk {
    /// The screens up to and including the committing one; all of them
    /// when nothing was approved.
    pub fn before_commit(&self) -> &[Screen] {
        let end = self.commit.map_or(self.screens.len(), |c| c + 1);
        &self.screens[..end.min(self.screens.len())]
    }

    /// The views of screen `at` the audit reads: all of them, but for the
    /// committing screen only those before the approved action.
    pub fn views_before_commit(&self, at: usize) -> usize {
        if self.commit == Some(at) {
            self.commit_views
        } else {
            usize::MAX
        }
    }

    /// Whether the run went on from screen `at`: to a later screen, or by
    /// the approved step taken on it.
    pub fn went_past(&self, at: usize) -> bool {
        at + 1 < self.screens.len() || self.commit == Some(at)
    }
}

fn cancel_sign(sign: Option<floor::Sign>) -> bool {
    sign.is_some_and(|s| matches!(s.strength, Strength::Weak | Strength::Strong))
}

fn text<'a>(event: &'a Value, key: &str) -> Option<&'a str> {
    event.get(key).and_then(Value::as_str)
}

/// The path of a URL without its query and fragment: the page, whatever
/// its state.
fn page_of(url: &str) -> &str {
    url.split(['?', '#']).next().unwrap_or(url)
}

/// Walks the record. Trees saved while an action ran belong to the page
/// its result names; trees saved between actions to the page the run is on.
pub(super) fn walk(record: &RecordView) -> Walk {
    let mut walker = Walker::default();
    for moment in &record.moments {
        match moment {
            Moment::Tree(tree) => walker.tree(parse_tree(tree)),
            Moment::Event(event) => walker.event(event),
        }
    }
    walker.finish()
}

#[derive(Default)]
struct Walker {
    walk: Walk,
    /// The page the run is on.
    url: String,
    /// Trees saved while the current action ran.
    pending: Vec<Vec<Element>>,
    /// An action was called and its result is not in yet.
    acting: bool,
    /// The person approved the next action.
    approved: bool,
    /// The run has pressed a cancel control: what follows is the flow.
    into_flow: bool,
}

impl Walker {
    /// The screen the run is on, made on first need.
    fn here(&mut self) -> usize {
        if self.walk.screens.is_empty() {
            self.walk
                .screens
                .push(Screen::new(&self.url, self.into_flow));
        }
        self.walk.screens.len() - 1
    }

    fn commit_at(&mut self, at: usize) {
        self.walk.commit = Some(at);
        self.walk.commit_views = self.walk.screens[at].views.len();
    }

    fn tree(&mut self, elements: Vec<Element>) {
        if self.acting {
            self.pending.push(elements);
        } else {
            let at = self.here();
            self.walk.screens[at].views.push(elements);
        }
    }

    fn event(&mut self, event: &Value) {
        match text(event, "type").unwrap_or_default() {
            "run_started" => self.url = text(event, "start_url").unwrap_or_default().to_owned(),
            "approval_answered" => {
                let yes = event
                    .get("answer")
                    .and_then(|a| text(a, "answer"))
                    .is_some_and(|a| a == "approved");
                // A yes asked while an action runs (the guard stopped a
                // request) releases that action, here.
                if yes && self.acting {
                    let at = self.here();
                    self.commit_at(at);
                } else {
                    self.approved = yes;
                }
            }
            "tool_call" => self.call(event),
            "tool_result" => self.result(event),
            "refused" => self.acting = false,
            "observed" => {
                let at = self.here();
                self.walk.screens[at].observed.push(Observed {
                    kind: text(event, "kind").unwrap_or_default().to_owned(),
                    target: text(event, "target").unwrap_or_default().to_owned(),
                    detail: text(event, "detail").unwrap_or_default().to_owned(),
                });
            }
            "finished" => self.walk.finished = event.get("result").cloned(),
            _ => {}
        }
    }

    fn call(&mut self, event: &Value) {
        let tool = text(event, "tool").unwrap_or_default().to_owned();
        if HOST_TOOLS.contains(&tool.as_str()) {
            return;
        }
        let target = text(event, "target").map(str::to_owned);
        let at = self.here();
        if self.approved {
            self.commit_at(at);
        }
        self.approved = false;
        let sign = target
            .as_deref()
            .and_then(|t| floor::sign_in_text(t, Place::Target));
        if cancel_sign(sign) {
            self.into_flow = true;
        }
        self.walk.screens[at].acted.push(Acted { tool, target });
        self.acting = true;
    }

    fn result(&mut self, event: &Value) {
        let to = text(event, "url").unwrap_or_default();
        let at = self.here();
        if !to.is_empty() {
            if page_of(to) != page_of(&self.walk.screens[at].url) {
                self.walk.screens.push(Screen::new(to, self.into_flow));
            }
            self.url = to.to_owned();
        }
        let at = self.walk.screens.len() - 1;
        let screen = &mut self.walk.screens[at];
        if self.pending.is_empty()
            && let Some(page) = text(event, "page")
        {
            // No saved tree: the page as the model saw it.
            screen.views.push(page_elements(page));
        }
        screen.views.append(&mut self.pending);
        if let Some(error) = text(event, "error") {
            screen.errors.push(error.to_owned());
        }
        self.acting = false;
    }

    fn finish(mut self) -> Walk {
        if !self.pending.is_empty() {
            let at = self.here();
            let mut pending = std::mem::take(&mut self.pending);
            self.walk.screens[at].views.append(&mut pending);
        }
        self.walk
    }
}

/// The elements of a page as a tool result showed it: the compact
/// toolset's JSON view, or Playwright's YAML tree.
fn page_elements(page: &str) -> Vec<Element> {
    // The view may be followed by the host's notes (an open dialog).
    let view = page.find("{\"snapshot_id\":").and_then(|at| {
        serde_json::Deserializer::from_str(&page[at..])
            .into_iter::<Value>()
            .next()?
            .ok()
    });
    let Some(view) = view else {
        return parse_tree(page);
    };
    let items = view.get("elements").and_then(Value::as_array);
    items
        .into_iter()
        .flatten()
        .map(|item| Element {
            role: text(item, "role").unwrap_or_default().to_owned(),
            name: text(item, "name").unwrap_or_default().to_owned(),
            states: item
                .get("state")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            value: text(item, "value").map(str::to_owned),
            ..Element::default()
        })
        .collect()
}
