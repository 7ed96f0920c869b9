//! An honest scripted model for CancelBench flows: it knows the flow's
//! ground truth (`Truth::expected_path`, each step's action, role,
//! accessible name and option) and, at each model request, reads the page
//! in the latest input and takes the next expected step that is on it. It
//! claims success only when the flow's confirmation words are on the page,
//! and hands over (a failure claim) where a sign-in wall shows or the flow
//! cannot be cancelled online; past a wall the person signed in at
//! (`Truth::after_sign_in`), it goes on.
//!
//! Honest means it never tries to get around the host: it asks for nothing
//! itself, never answers a question for the person, never types a
//! password, and takes no offer. Where the host refuses or asks, it simply
//! goes on from the page it is shown next.
//!
//! ```ignore
//! let flow = Catalog::load()?.get("practice-base-en")?.clone();
//! let model = ModelServer::start(honest(&flow, "compact")).await?;
//! ```

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use subterminator_bench::{Flow, Step, StepAction};
use subterminator_core::browser::parse_tree;

use crate::compact_script::snapshot_in;
use crate::model_server::{RecordedRequest, Reply};

/// Times the same step is tried on an unchanged page before the model
/// says it is stuck: once more covers a click the host mended or refused.
const MAX_TRIES_PER_STEP: u32 = 3;

/// A model handler that walks `flow`'s expected path with the `tools`
/// toolset (`compact`, the default, or `full`). One handler per run: it
/// remembers how far along the path it is.
pub fn honest(
    flow: &Flow,
    tools: &str,
) -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
    honest_watched(flow, tools).0
}

/// The steps of the expected path the honest model passed over because
/// their target was not in what it was sent, each as "step N: role
/// \"name\"". Where the model takes every step (`--model-drives`), an
/// entry means the host left out of a page something the model needed.
pub type Missed = Arc<Mutex<Vec<String>>>;

/// [`honest`], and the steps it [`Missed`].
pub fn honest_watched(
    flow: &Flow,
    tools: &str,
) -> (
    impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    Missed,
) {
    let missed = Missed::default();
    let walker = Honest {
        missed: Arc::clone(&missed),
        // Past a sign-in wall, the steps once the person has signed in.
        steps: [
            flow.truth.expected_path.as_slice(),
            flow.truth.after_sign_in.as_slice(),
        ]
        .concat(),
        confirmation: flow
            .truth
            .confirmation
            .iter()
            .map(|c| c.to_lowercase())
            .collect(),
        full: tools == "full",
        progress: Mutex::new(Progress::default()),
    };
    (
        move |request: &RecordedRequest| walker.answer(request),
        missed,
    )
}

struct Honest {
    steps: Vec<Step>,
    /// The flow's confirmation phrases, lower-cased.
    confirmation: Vec<String>,
    /// Playwright MCP's own tools (`--tools full`) rather than the compact set.
    full: bool,
    progress: Mutex<Progress>,
    missed: Missed,
}

#[derive(Default)]
struct Progress {
    /// The next step of the expected path.
    next: usize,
    /// The step last sent, and how many times in a row.
    last: Option<(usize, u32)>,
}

/// One element of the page as the model reads it.
struct Seen {
    reference: String,
    role: String,
    name: String,
    value: Option<String>,
    checked: bool,
}

/// The page in the latest input.
struct Page {
    elements: Vec<Seen>,
    /// The input's text, lower-cased: where the confirmation words are
    /// looked for.
    text: String,
    /// The host said a dialog is open.
    dialog: bool,
    /// The compact view left controls below the fold.
    offscreen: bool,
}

impl Page {
    fn read(input: &str, full: bool) -> Page {
        let (elements, offscreen) = if full {
            (yaml_elements(input), false)
        } else {
            compact_elements(input)
        };
        let text = input.to_lowercase();
        Page {
            elements,
            dialog: text.contains("dialog is open"),
            text,
            offscreen,
        }
    }

    /// The element a step names: its role and accessible name, as the
    /// person sees it (case and spacing aside).
    fn find(&self, step: &Step) -> Option<&Seen> {
        let same = |a: &str, b: &str| a.trim().eq_ignore_ascii_case(b.trim());
        self.elements
            .iter()
            .find(|e| e.role == step.role && e.name == step.name)
            .or_else(|| {
                self.elements
                    .iter()
                    .find(|e| e.role == step.role && same(&e.name, &step.name))
            })
    }
}

fn compact_elements(input: &str) -> (Vec<Seen>, bool) {
    let Some(view) = snapshot_in(input) else {
        return (Vec::new(), false);
    };
    let text = |v: &Value, key: &str| v[key].as_str().map(str::to_owned);
    let elements = view["elements"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|e| Seen {
            reference: text(e, "ref").unwrap_or_default(),
            role: text(e, "role").unwrap_or_default(),
            name: text(e, "name").unwrap_or_default(),
            value: text(e, "value"),
            checked: e["state"]
                .as_array()
                .is_some_and(|s| s.iter().any(|v| v == "checked")),
        })
        .collect();
    (elements, view["offscreen"].as_u64().unwrap_or(0) > 0)
}

fn yaml_elements(input: &str) -> Vec<Seen> {
    parse_tree(input)
        .into_iter()
        .filter_map(|e| {
            Some(Seen {
                checked: e.has_state("checked"),
                reference: e.reference?,
                role: e.role,
                name: e.name,
                value: e.value,
            })
        })
        .collect()
}

impl Honest {
    fn answer(&self, request: &RecordedRequest) -> Reply {
        let input = request.latest_input().unwrap_or_default();
        let page = Page::read(&input, self.full);
        if self
            .confirmation
            .iter()
            .any(|c| !c.is_empty() && page.text.contains(c.as_str()))
        {
            return complete("success", "The page confirms the cancellation.");
        }
        if page.elements.is_empty() && !page.dialog {
            return self.look();
        }
        let mut progress = self
            .progress
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if progress.next >= self.steps.len() {
            return complete(
                "failed",
                "Every step of the way out is done and the page does not confirm a cancellation.",
            );
        }
        for at in progress.next..self.steps.len() {
            let step = &self.steps[at];
            // The wall is the person's: it hands over while the wall shows,
            // and goes on once the person has signed in.
            if step.action == StepAction::HandOver {
                if page.find(step).is_none() {
                    continue;
                }
                progress.next = self.steps.len();
                return complete(
                    "failed",
                    "The site asks for the account password: the account holder has to sign in themselves.",
                );
            }
            if step.action == StepAction::AcceptDialog {
                if page.dialog {
                    return self.send(
                        &mut progress,
                        at,
                        Reply::tool("browser_handle_dialog", json!({"accept": true})),
                    );
                }
                continue;
            }
            let Some(element) = page.find(step) else {
                continue;
            };
            let done = match step.action {
                StepAction::Select => element.value.as_deref() == step.option.as_deref(),
                StepAction::Check => element.checked,
                _ => false,
            };
            if done {
                progress.next = at + 1;
                progress.last = None;
                continue;
            }
            self.passed_over(&page, progress.next..at);
            let reply = self.act(step, element);
            return self.send(&mut progress, at, reply);
        }
        // Nothing ahead is on the page. The step just sent may not have
        // worked (the host refused it, or mended it and the page did not
        // move): once more, as a person would.
        if let Some((last, _)) = progress.last
            && let Some(element) = page.find(&self.steps[last])
        {
            let reply = self.act(&self.steps[last], element);
            return self.send(&mut progress, last, reply);
        }
        // What it wants may be below the fold.
        if page.offscreen {
            return Reply::tool(
                "browser_scroll",
                json!({"direction": "down", "amount": 800}),
            );
        }
        Reply::text("I do not see the next step of the way out on this page.")
    }

    /// Notes the element steps in `skipped` whose target `page` lacks: the
    /// model goes on past them to a later step it does see.
    fn passed_over(&self, page: &Page, skipped: std::ops::Range<usize>) {
        let mut missed = self
            .missed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for at in skipped {
            let step = &self.steps[at];
            if !matches!(step.action, StepAction::AcceptDialog | StepAction::HandOver)
                && page.find(step).is_none()
            {
                missed.push(format!("step {}: {} \"{}\"", at + 1, step.role, step.name));
            }
        }
    }

    /// Sends step `at`'s reply, moving on past a click or a dialog (a
    /// select or a check is looked at again next time), and gives up on a
    /// step tried too often.
    fn send(&self, progress: &mut Progress, at: usize, reply: Reply) -> Reply {
        let tries = match progress.last {
            Some((last, n)) if last == at => n + 1,
            _ => 1,
        };
        if tries > MAX_TRIES_PER_STEP {
            return Reply::text("The same step keeps failing; I stop here.");
        }
        progress.last = Some((at, tries));
        if !matches!(
            self.steps[at].action,
            StepAction::Select | StepAction::Check
        ) {
            progress.next = at + 1;
        }
        reply
    }

    fn look(&self) -> Reply {
        if self.full {
            Reply::tool("browser_snapshot", json!({}))
        } else {
            Reply::tool("get_snapshot", json!({}))
        }
    }

    fn act(&self, step: &Step, element: &Seen) -> Reply {
        let described = format!("{} \"{}\"", element.role, element.name);
        let option = step.option.clone().unwrap_or_default();
        match (step.action, self.full) {
            (StepAction::Select, false) => Reply::tool(
                "browser_select",
                json!({"ref": element.reference, "value": option}),
            ),
            (StepAction::Select, true) => Reply::tool(
                "browser_select_option",
                json!({"element": described, "target": element.reference, "values": [option]}),
            ),
            (_, false) => Reply::tool("browser_click", json!({"ref": element.reference})),
            (_, true) => Reply::tool(
                "browser_click",
                json!({"element": described, "target": element.reference}),
            ),
        }
    }
}

fn complete(status: &str, reason: &str) -> Reply {
    Reply::tool("complete_task", json!({"status": status, "reason": reason}))
}
