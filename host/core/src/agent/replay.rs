//! Replay without a model: the remembered path followed step by
//! step, each step's element found anew on the page by role and name (a
//! ref is never remembered). When a step's page or element is not there,
//! the run is handed to the model, or to the plugin's plan when offline,
//! from that page on: the path heals itself, and the run remembers the new
//! one once it is verified. Approvals are asked exactly as always: a
//! replayed click on the final button asks like any other.

use serde_json::Value;

use super::toolset::Toolset;
use crate::memory::Step;
use crate::page::{Element, Snapshot};

/// What the replay does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Make this call (the toolset's own words for the step).
    Call {
        step: usize,
        text: String,
        name: String,
        arguments: Value,
    },
    /// The path is done or the page is not the one remembered: the driver
    /// takes over from here, for good.
    HandOver(String),
}

/// A remembered path being followed.
#[derive(Debug, Clone)]
pub struct Replay {
    steps: Vec<Step>,
    next: usize,
    handed_over: bool,
}

impl Replay {
    pub fn new(steps: Vec<Step>) -> Self {
        Self {
            steps,
            next: 0,
            handed_over: false,
        }
    }

    /// Whether the driver has taken over.
    pub fn handed_over(&self) -> bool {
        self.handed_over
    }

    /// Steps replayed so far.
    pub fn replayed(&self) -> usize {
        self.next
    }

    /// The next step on `snapshot`, or the hand-over.
    pub fn next(&mut self, toolset: &dyn Toolset, snapshot: &Snapshot) -> Next {
        let Some(step) = self.steps.get(self.next) else {
            return self.hand_over(format!(
                "all {} remembered steps were taken and the page does not show the goal reached",
                self.steps.len()
            ));
        };
        if !step.on(&snapshot.url) {
            let why = format!(
                "step {} was taken on {}, and this page is {}",
                self.next + 1,
                step.url.as_deref().unwrap_or("any page"),
                crate::memory::url_pattern(&snapshot.url).unwrap_or_default()
            );
            return self.hand_over(why);
        }
        let Some(element) = find(snapshot, step) else {
            let why = format!(
                "step {} ({}) finds no {} \"{}\" on the page",
                self.next + 1,
                step.describe(),
                step.role,
                step.name
            );
            return self.hand_over(why);
        };
        let (name, arguments) = toolset.offline_call(step.action, element, step.value.as_deref());
        self.next += 1;
        Next::Call {
            step: self.next,
            text: format!("Replaying step {}: {}", self.next, step.describe()),
            name,
            arguments,
        }
    }

    fn hand_over(&mut self, why: String) -> Next {
        self.handed_over = true;
        Next::HandOver(why)
    }
}

/// The enabled element with the step's role and name (ignoring case and
/// surrounding space), with a ref.
fn find<'a>(snapshot: &'a Snapshot, step: &Step) -> Option<&'a Element> {
    let name = step.name.trim().to_lowercase();
    snapshot.elements.iter().find(|e| {
        e.role == step.role
            && e.reference.is_some()
            && !e.has_state("disabled")
            && e.name.trim().to_lowercase() == name
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use crate::agent::CompactToolset;
    use crate::browser::parse_tree;
    use crate::plugin::HintAction;

    fn page(url: &str, tree: &str) -> Snapshot {
        Snapshot {
            url: url.into(),
            title: "t".into(),
            content: tree.into(),
            screenshot_path: None,
            elements: parse_tree(tree),
        }
    }

    fn step(url: &str, action: HintAction, role: &str, name: &str, value: Option<&str>) -> Step {
        Step {
            url: Some(url.into()),
            action,
            role: role.into(),
            name: name.into(),
            value: value.map(str::to_owned),
        }
    }

    #[test]
    fn follows_the_path_then_hands_over_where_the_page_differs() {
        let mut toolset = CompactToolset::new(false).whole_page();
        let mut replay = Replay::new(vec![
            step(
                "/account",
                HintAction::Click,
                "button",
                "Cancel Membership",
                None,
            ),
            step(
                "/survey",
                HintAction::Select,
                "combobox",
                "Reason",
                Some("Other"),
            ),
            step(
                "/offer",
                HintAction::Click,
                "button",
                "Continue to Cancel",
                None,
            ),
        ]);
        let account = page(
            "http://127.0.0.1:1/account",
            "- heading \"Account\" [ref=e1]\n- button \"Cancel membership\" [ref=e2]\n",
        );
        let _ = toolset.observe(&account);
        let Next::Call {
            name,
            arguments,
            step,
            ..
        } = replay.next(&toolset, &account)
        else {
            panic!("the first step is on the page")
        };
        assert_eq!((name.as_str(), step), ("browser_click", 1));
        assert_eq!(
            arguments["ref"], "@e1",
            "the ref comes from this page's view"
        );

        let survey = page(
            "http://127.0.0.1:1/survey",
            "- combobox \"Reason\" [ref=e7]:\n  - option \"Other\" [ref=e8]\n",
        );
        let _ = toolset.observe(&survey);
        let Next::Call {
            name, arguments, ..
        } = replay.next(&toolset, &survey)
        else {
            panic!("the second step is on the page")
        };
        assert_eq!(name, "browser_select");
        assert_eq!(arguments["value"], "Other");

        let reworded = page(
            "http://127.0.0.1:1/offer",
            "- button \"Continue to cancellation\" [ref=e3]\n",
        );
        let _ = toolset.observe(&reworded);
        let Next::HandOver(why) = replay.next(&toolset, &reworded) else {
            panic!("a reworded button is not the remembered one")
        };
        assert!(why.contains("Continue to Cancel"), "{why}");
        assert!(replay.handed_over());
        assert_eq!(replay.replayed(), 2);
    }

    #[test]
    fn another_page_or_the_end_of_the_path_hands_over() {
        let toolset = CompactToolset::new(false).whole_page();
        let mut replay = Replay::new(vec![step(
            "/account",
            HintAction::Click,
            "button",
            "Cancel Membership",
            None,
        )]);
        let elsewhere = page(
            "http://127.0.0.1:1/login",
            "- button \"Cancel Membership\" [ref=e2]\n",
        );
        assert!(
            matches!(replay.next(&toolset, &elsewhere), Next::HandOver(why) if why.contains("/login"))
        );
        let mut done = Replay::new(Vec::new());
        assert!(matches!(done.next(&toolset, &elsewhere), Next::HandOver(_)));
    }
}
