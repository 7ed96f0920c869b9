//! The offline policy: drives a run with no model by following the plugin's
//! plan, matching each step's target hints against the elements of the fresh
//! snapshot. It never guesses: when the page matches no remaining step it
//! stops and says which step it expected.

use crate::page::{Element, Snapshot};
use crate::plugin::{HintAction, PlanStep, TargetHint};
use crate::text::fold;

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
    /// Open one of the site's account pages (a service with no plugin,
    /// started at its home page, whose page shows no step of the plan).
    Visit { url: String },
    /// End the run: `success` asks the host to verify.
    Complete { success: bool, reason: String },
}

#[derive(Debug, Clone)]
pub struct OfflinePolicy {
    plan: Vec<PlanStep>,
    step: usize,
    hint: usize,
    /// Earlier steps taken again, each once at most (see `next`).
    retaken: Vec<usize>,
    /// Account pages still to look at while no step has been taken, whole
    /// addresses, in order (see [`OfflinePolicy::visiting`]).
    visits: std::collections::VecDeque<String>,
}

impl OfflinePolicy {
    pub fn new(plan: Vec<PlanStep>) -> Self {
        Self {
            plan,
            step: 0,
            hint: 0,
            retaken: Vec::new(),
            visits: std::collections::VecDeque::new(),
        }
    }

    /// The policy for `service`: its plan, and for the generic service the
    /// account pages to look at on the start address's origin.
    pub fn for_service(service: &crate::plugin::ServiceEntry, start_url: &str) -> Self {
        let mut policy = Self::new(service.plan.clone());
        if let (Some(generic), Ok(start)) = (&service.generic, url::Url::parse(start_url)) {
            policy.visits = generic
                .paths
                .iter()
                .filter_map(|path| start.join(path).ok().map(String::from))
                .collect();
        }
        policy
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
                if let Some(at) = find(snapshot, hint) {
                    (self.step, self.hint) = if h + 1 >= targets.len() {
                        (s + 1, 0)
                    } else {
                        (s, h + 1)
                    };
                    let mut hint = hint.clone();
                    if hint.action == HintAction::Select {
                        hint.value = choice(snapshot, at, hint.value.as_deref());
                    }
                    return Move::Act {
                        step: s + 1,
                        description: self.plan[s].description.clone(),
                        hint: Box::new(hint),
                        element: Box::new(snapshot.elements[at].clone()),
                    };
                }
                if !hint.optional {
                    break;
                }
            }
        }
        // A flow in another order (the survey before the offer, as the
        // Python prototype's Netflix pages have it): an earlier step the
        // page shows now is taken again, once at most, and never a step
        // that commits; the cursor stays where it was.
        for s in 0..self.step.min(self.plan.len()) {
            if self.plan[s].irreversible || self.retaken.contains(&s) || s == 0 {
                continue;
            }
            let found = self.plan[s]
                .targets
                .iter()
                .filter(|hint| hint.action == HintAction::Click)
                .find_map(|hint| find(snapshot, hint).map(|at| (hint, at)));
            if let Some((hint, at)) = found {
                self.retaken.push(s);
                return Move::Act {
                    step: s + 1,
                    description: self.plan[s].description.clone(),
                    hint: Box::new(hint.clone()),
                    element: Box::new(snapshot.elements[at].clone()),
                };
            }
        }
        // Nothing of the plan on this page and nothing taken yet: the next of
        // the site's common account pages, while any is left.
        if self.step == 0 && self.hint == 0 && self.retaken.is_empty() {
            while let Some(url) = self.visits.pop_front() {
                if url != snapshot.url {
                    return Move::Visit { url };
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

/// The first few of a hint's names, quoted: a plan that knows a service in
/// twenty languages would otherwise fill the reason with all of them.
fn named_like(patterns: &[String]) -> String {
    const SHOWN: usize = 3;
    let mut named = patterns
        .iter()
        .take(SHOWN)
        .map(|p| format!("\"{p}\""))
        .collect::<Vec<_>>()
        .join(" or ");
    if patterns.len() > SHOWN {
        named.push_str(&format!(" (or {} more)", patterns.len() - SHOWN));
    }
    named
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

/// The index of the first enabled element with a ref that the hint
/// describes.
fn find(snapshot: &Snapshot, hint: &TargetHint) -> Option<usize> {
    snapshot.elements.iter().position(|e| {
        e.reference.is_some()
            && !e.has_state("disabled")
            && (hint.role.is_some() || !TEXT_ROLES.contains(&e.role.as_str()))
            && hint.names_step(e)
    })
}

/// The option to choose in the select at `at`: the plan's value when the
/// select offers it; else the page's own "other", in whatever language it
/// is written in (a survey's answer commits nothing, and "other" says the
/// least); else the plan's value as it is, for the browser to refuse.
fn choice(snapshot: &Snapshot, at: usize, value: Option<&str>) -> Option<String> {
    let value = value?;
    let depth = snapshot.elements[at].depth;
    let options: Vec<&str> = snapshot.elements[at + 1..]
        .iter()
        .take_while(|e| e.depth > depth)
        .filter(|e| e.role == "option")
        .map(|e| e.name.as_str())
        .collect();
    let folded = |text: &str| fold::words(text).join(" ");
    let wanted = folded(value);
    if options.is_empty() || options.iter().any(|o| folded(o) == wanted) {
        return Some(value.to_owned());
    }
    let other = |text: &str| {
        let text = format!(" {} ", folded(text));
        OTHER
            .iter()
            .any(|w| text.contains(&format!(" {} ", folded(w))))
    };
    Some(
        options
            .iter()
            .find(|o| other(o))
            .map_or(value, |o| *o)
            .to_owned(),
    )
}

/// "Other" as a reason's option says it, in the languages the host reads;
/// matched folded, as whole words (scripts written without spaces as the
/// characters in a row).
const OTHER: &[&str] = &[
    "other",
    "something",
    "sonstiges",
    "andere",
    "anderes",
    "autre",
    "otro",
    "otra",
    "altro",
    "outro",
    "outra",
    "anders",
    "overig",
    "annat",
    "övrigt",
    "inny",
    "inne",
    "diğer",
    "başka",
    "другое",
    "інше",
    "آخر",
    "أخرى",
    "אחר",
    "अन्य",
    "lainnya",
    "khác",
    "อื่นๆ",
    "기타",
    "その他",
    "其他",
    "其它",
];

fn expected(hint: Option<&TargetHint>) -> String {
    match hint {
        Some(hint) => format!(
            "{} named like {}",
            match hint.role.as_deref() {
                Some(role) if role.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {role}"),
                Some(role) => format!("a {role}"),
                None => "an element".to_owned(),
            },
            named_like(&hint.name_patterns)
        ),
        None => "a target".into(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::panic)]
    use super::*;

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
                    TargetHint {
                        action: HintAction::Select,
                        ..hint("combobox", "reason", true)
                    },
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
            Move::Visit { .. } | Move::Complete { .. } => None,
        }
    }

    /// The survey before the offer (the Python prototype's Netflix order):
    /// the offer's "Continue to cancel", a step already passed, is taken
    /// once when nothing later is on the page; never the opening step, never
    /// the final one, and not twice.
    #[test]
    fn an_earlier_step_is_taken_again_once_in_a_flow_of_another_order() {
        let mut policy = OfflinePolicy::new(plan());
        let steps = [
            (
                page(&[("button", "Cancel membership")]),
                Some((1, "Cancel membership")),
            ),
            (page(&[("button", "Continue")]), Some((3, "Continue"))),
            (
                page(&[("button", "Continue to cancel")]),
                Some((2, "Continue to cancel")),
            ),
            (page(&[("button", "Continue to cancel")]), None),
        ];
        for (i, (snapshot, want)) in steps.iter().enumerate() {
            let got = policy.next(snapshot, false);
            let want = want.map(|(n, name)| (n, name.to_owned()));
            assert_eq!(acted_on(&got), want, "page {i}");
        }
        let mut policy = OfflinePolicy::new(plan());
        policy.next(&page(&[("button", "Cancel membership")]), false);
        policy.next(&page(&[("button", "Continue to cancel")]), false);
        // The opening step is never taken again by this rule.
        let back = policy.next(&page(&[("button", "Cancel membership")]), false);
        assert_eq!(acted_on(&back), None);
        let done = policy.next(&page(&[("button", "Finish cancellation")]), false);
        assert_eq!(acted_on(&done), Some((4, "Finish cancellation".into())));
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

    /// A combobox at depth 0 with its options below it.
    fn select_page(options: &[&str]) -> Snapshot {
        let mut elements = vec![Element {
            reference: Some("e1".into()),
            role: "combobox".into(),
            name: "Reason".into(),
            ..Element::default()
        }];
        elements.extend(options.iter().map(|o| Element {
            role: "option".into(),
            name: (*o).into(),
            depth: 1,
            ..Element::default()
        }));
        elements.push(Element {
            reference: Some("e9".into()),
            role: "button".into(),
            name: "Other things".into(),
            ..Element::default()
        });
        Snapshot {
            elements,
            ..Snapshot::default()
        }
    }

    #[test]
    fn the_choice_in_a_select_table() {
        // (case, the select's options, the plan's value, the choice)
        type Case<'a> = (&'a str, &'a [&'a str], Option<&'a str>, Option<&'a str>);
        let cases: &[Case] = &[
            (
                "the plan's value offered",
                &["Price", "Other"],
                Some("Other"),
                Some("Other"),
            ),
            (
                "offered folded",
                &["Price", "OTHER"],
                Some("other"),
                Some("other"),
            ),
            (
                "German other",
                &["Preis", "Sonstiges"],
                Some("Other"),
                Some("Sonstiges"),
            ),
            (
                "Japanese other",
                &["価格", "その他"],
                Some("Other"),
                Some("その他"),
            ),
            (
                "Korean other",
                &["가격", "기타"],
                Some("Something else"),
                Some("기타"),
            ),
            (
                "Arabic another reason",
                &["السعر", "سبب آخر"],
                Some("Other"),
                Some("سبب آخر"),
            ),
            ("Turkish", &["Fiyat", "Diğer"], Some("Other"), Some("Diğer")),
            (
                "a reason not offered",
                &["Prix", "Autre"],
                Some("Too expensive"),
                Some("Autre"),
            ),
            (
                "no other offered",
                &["Prix", "Trop cher"],
                Some("Other"),
                Some("Other"),
            ),
            // Options outside the select (the button after it) are not its.
            (
                "only its own options",
                &["Prix"],
                Some("Other"),
                Some("Other"),
            ),
            ("no value", &["Other"], None, None),
            ("options unknown", &[], Some("Other"), Some("Other")),
        ];
        for (name, options, value, want) in cases {
            let page = select_page(options);
            assert_eq!(choice(&page, 0, *value).as_deref(), *want, "{name}");
        }
    }

    #[test]
    fn a_one_word_pattern_names_the_whole_element_table() {
        let cases: &[(&str, &str, bool)] = &[
            ("continue", "Continue", true),
            ("continue", "Continue Premium", false),
            ("continue", "Continue to cancel", false),
            ("weiter", "Weiter", true),
            ("weiter", "Weiter zur Kündigung", false),
            ("続ける", "続ける", true),
            ("続ける", "Premiumを続ける", false),
            ("계속", "계속", true),
            ("계속", "멤버십 계속 유지", false),
            // Longer patterns are found inside longer names.
            ("no thanks", "No thanks, continue to cancel", true),
            ("continue to cancel", "Continue to Cancel →", true),
            ("解約手続きを続ける", "今すぐ解約手続きを続ける", true),
            ("プランを管理", "プランを管理する", true),
        ];
        for (pattern, name, want) in cases {
            let got = hint("button", pattern, false).names_step(&Element {
                role: "button".into(),
                name: (*name).into(),
                ..Element::default()
            });
            assert_eq!(got, *want, "{pattern} on {name}");
        }
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
