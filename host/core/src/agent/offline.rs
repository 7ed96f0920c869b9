//! The offline policy: drives a run with no model by following the plugin's
//! plan, matching each step's target hints against the elements of the fresh
//! snapshot. It never guesses: when the page matches no remaining step it
//! stops and says which step it expected.

use crate::page::{Element, Snapshot};
use crate::plugin::{PlanStep, TargetHint};

/// What the policy does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Move {
    /// Act on `element` as `hint` says; `step` is 1-based, for messages.
    Act {
        step: usize,
        description: String,
        hint: Box<TargetHint>,
        element: Box<Element>,
    },
    /// End the run: `success` asks the host to verify.
    Complete { success: bool, reason: String },
}

#[derive(Debug, Clone)]
pub struct OfflinePolicy {
    plan: Vec<PlanStep>,
    step: usize,
    hint: usize,
}

impl OfflinePolicy {
    pub fn new(plan: Vec<PlanStep>) -> Self {
        Self {
            plan,
            step: 0,
            hint: 0,
        }
    }

    /// The next move on `snapshot`; `verified` is the plugin's verdict on it.
    pub fn next(&mut self, snapshot: &Snapshot, verified: bool) -> Move {
        if verified {
            return Move::Complete {
                success: true,
                reason: "The page shows the goal is reached.".into(),
            };
        }
        if self.plan.is_empty() {
            return Move::Complete {
                success: false,
                reason: "This service's plugin has no plan for the offline policy to follow; use a model.".into(),
            };
        }
        // A required hint that is missing may mean the page is already past
        // that step (an optional offer did not show): look at later steps.
        for s in self.step..self.plan.len() {
            let start = if s == self.step { self.hint } else { 0 };
            let targets = &self.plan[s].targets;
            for h in start..targets.len() {
                let hint = &targets[h];
                if let Some(element) = find(snapshot, hint) {
                    (self.step, self.hint) = if h + 1 >= targets.len() {
                        (s + 1, 0)
                    } else {
                        (s, h + 1)
                    };
                    return Move::Act {
                        step: s + 1,
                        description: self.plan[s].description.clone(),
                        hint: Box::new(hint.clone()),
                        element: Box::new(element.clone()),
                    };
                }
                if !hint.optional {
                    break;
                }
            }
        }
        let reason = match self.plan.get(self.step) {
            Some(step) => format!(
                "The page does not match step {} ({}): {} not found on {}.",
                self.step + 1,
                step.description,
                expected(step.targets.get(self.hint)),
                snapshot.url
            ),
            None => format!(
                "Every step of the plan is done, but {} does not show the goal reached.",
                snapshot.url
            ),
        };
        Move::Complete {
            success: false,
            reason,
        }
    }
}

/// Roles that only show text: a hint with no role never means them (a
/// heading "Manage membership" above the link of that name).
const TEXT_ROLES: &[&str] = &[
    "heading",
    "paragraph",
    "text",
    "generic",
    "strong",
    "emphasis",
    "listitem",
    "list",
    "img",
    "banner",
    "main",
    "contentinfo",
    "region",
    "article",
    "caption",
    "cell",
];

/// The first enabled element with a ref that the hint describes.
fn find<'a>(snapshot: &'a Snapshot, hint: &TargetHint) -> Option<&'a Element> {
    snapshot.elements.iter().find(|e| {
        e.reference.is_some()
            && !e.has_state("disabled")
            && (hint.role.is_some() || !TEXT_ROLES.contains(&e.role.as_str()))
            && hint.matches(e)
    })
}

fn expected(hint: Option<&TargetHint>) -> String {
    match hint {
        Some(hint) => format!(
            "{} named like {}",
            match hint.role.as_deref() {
                Some(role) if role.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {role}"),
                Some(role) => format!("a {role}"),
                None => "an element".to_owned(),
            },
            hint.name_patterns
                .iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        None => "a target".into(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;
    use crate::plugin::HintAction;

    fn hint(role: &str, pattern: &str, optional: bool) -> TargetHint {
        TargetHint {
            role: Some(role.into()),
            name_patterns: vec![pattern.into()],
            action: HintAction::Click,
            value: None,
            optional,
        }
    }

    fn plan() -> Vec<PlanStep> {
        let step = |d: &str, targets| PlanStep {
            description: d.into(),
            done_when: String::new(),
            targets,
            irreversible: d == "Finish",
        };
        vec![
            step("Open", vec![hint("button", "cancel membership", false)]),
            step("Decline", vec![hint("button", "continue to cancel", false)]),
            step(
                "Survey",
                vec![
                    hint("combobox", "reason", true),
                    hint("button", "continue", false),
                ],
            ),
            step("Finish", vec![hint("button", "finish cancellation", false)]),
        ]
    }

    fn page(elements: &[(&str, &str)]) -> Snapshot {
        Snapshot {
            url: "http://127.0.0.1:1/x".into(),
            elements: elements
                .iter()
                .enumerate()
                .map(|(i, (role, name))| Element {
                    reference: Some(format!("e{i}")),
                    role: (*role).into(),
                    name: (*name).into(),
                    ..Element::default()
                })
                .collect(),
            ..Snapshot::default()
        }
    }

    fn acted_on(m: &Move) -> Option<(usize, String)> {
        match m {
            Move::Act { step, element, .. } => Some((*step, element.name.clone())),
            Move::Complete { .. } => None,
        }
    }

    #[test]
    fn a_hint_without_a_role_skips_text_to_reach_the_control() {
        let mut any_role = hint("button", "manage membership", false);
        any_role.role = None;
        let mut policy = OfflinePolicy::new(vec![PlanStep {
            description: "Open".into(),
            done_when: String::new(),
            targets: vec![any_role],
            irreversible: false,
        }]);
        let got = policy.next(
            &page(&[
                ("heading", "Manage membership"),
                ("link", "Manage membership"),
            ]),
            false,
        );
        assert_eq!(acted_on(&got), Some((1, "Manage membership".into())));
        let Move::Act { element, .. } = got else {
            panic!("no act")
        };
        assert_eq!(element.role, "link");
    }

    #[test]
    fn follows_the_whole_flow() {
        let mut policy = OfflinePolicy::new(plan());
        let cases = [
            (
                page(&[("button", "Cancel Membership")]),
                (1, "Cancel Membership"),
            ),
            (
                page(&[("button", "Accept Offer"), ("button", "Continue to Cancel")]),
                (2, "Continue to Cancel"),
            ),
            (
                page(&[("combobox", "Reason for leaving"), ("button", "Continue")]),
                (3, "Reason for leaving"),
            ),
            (
                page(&[("combobox", "Reason for leaving"), ("button", "Continue")]),
                (3, "Continue"),
            ),
            (
                page(&[("button", "Finish Cancellation"), ("button", "Go Back")]),
                (4, "Finish Cancellation"),
            ),
        ];
        for (snapshot, (step, name)) in cases {
            assert_eq!(
                acted_on(&policy.next(&snapshot, false)),
                Some((step, name.to_owned()))
            );
        }
        let done = policy.next(&page(&[]), true);
        assert!(matches!(done, Move::Complete { success: true, .. }));
    }

    #[test]
    fn skips_an_offer_that_did_not_show() {
        let mut policy = OfflinePolicy::new(plan());
        policy.next(&page(&[("button", "Cancel Membership")]), false);
        let m = policy.next(&page(&[("button", "Continue")]), false);
        assert_eq!(acted_on(&m), Some((3, "Continue".to_owned())));
    }

    #[test]
    fn never_accepts_the_offer_and_stops_on_a_strange_page() {
        let mut policy = OfflinePolicy::new(plan());
        policy.next(&page(&[("button", "Cancel Membership")]), false);
        let m = policy.next(
            &page(&[("button", "Accept Offer"), ("link", "Help")]),
            false,
        );
        match m {
            Move::Complete {
                success: false,
                reason,
            } => {
                assert!(reason.contains("does not match step 2"), "{reason}");
                assert!(reason.contains("continue to cancel"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn disabled_elements_are_not_targets() {
        let mut policy = OfflinePolicy::new(plan());
        let mut snapshot = page(&[("button", "Cancel Membership")]);
        snapshot.elements[0].states.push("disabled".into());
        assert!(matches!(
            policy.next(&snapshot, false),
            Move::Complete { success: false, .. }
        ));
    }
}
