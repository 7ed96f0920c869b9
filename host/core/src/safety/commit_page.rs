//! The commit-page rule. A page that offers the step that commits — an
//! element whose words say it is the final step, the plan's irreversible
//! step, one the plugin asks about — or whose title, headings or address say
//! it commits, is a commit page, and there every state-changing action needs
//! a yes: typing, keys, selects and fills, and following a link away, not
//! only the click on the final button. The one exception is a choice the
//! plugin's plan names as not irreversible, such as a survey answer (what it
//! sends is still held by the guard).
//!
//! Words that only open the flow ("Cancel membership", "Continue to cancel")
//! ask nothing by themselves: what such a step sends is held by the network
//! guard and put to the person at the effect. Words that change what the
//! person pays (pause, switch plan, accept an offer) ask before the action.

use serde::Serialize;

use super::PluginAnswer;
use super::floor::{self, Strength};
use super::plan::{self, PlanKnowledge, PlanMark};
use crate::page::{Element, ElementFacts, Snapshot};

/// Roles a person acts on; every other element is text or structure.
pub const ACTIONABLE_ROLES: &[&str] = &[
    "button",
    "link",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "radio",
    "checkbox",
    "switch",
    "tab",
    "combobox",
    "listbox",
    "textbox",
    "searchbox",
    "spinbutton",
    "slider",
];

/// Why a page commits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitPage {
    /// The element that would need a yes (`button "Finish Cancellation"`),
    /// or the page itself.
    pub because_of: String,
    pub reason: String,
    /// The page offers the final step itself (its words, the plan's
    /// irreversible step), rather than something the plugin asks about:
    /// only then are navigations away from it held by the guard.
    #[serde(default)]
    pub final_step: bool,
}

/// The page's own words: its title and headings, as the floor reads them.
pub fn headings(snapshot: &Snapshot) -> Vec<&str> {
    snapshot
        .elements
        .iter()
        .filter(|e| e.role == "heading" && !e.name.is_empty())
        .map(|e| e.name.as_str())
        .collect()
}

/// Whether the element is one a person acts on.
pub fn is_actionable(element: &Element) -> bool {
    ACTIONABLE_ROLES.contains(&element.role.as_str())
}

/// The host's reason when the plugin is what asks; the plugin's own words
/// are shown apart, under its name (see `ApprovalRequest::plugin_says`).
pub const PLUGIN_ASKS: &str = "the service's plugin asks before this action";

/// Why acting on an element needs a yes by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// The plan's irreversible step.
    Irreversible,
    /// Its words say it is the final step.
    Strong,
    /// Its words say it changes what the person pays.
    BillingChange,
    /// The plugin asks, or could not answer.
    Plugin,
}

/// Why acting on `element` needs a yes by itself (the commit-page rule
/// aside), or `None`. `extra` holds words the action carries: text typed, an
/// option chosen.
pub fn element_needs_yes(
    element: &Element,
    dom: Option<&ElementFacts>,
    extra: &[&str],
    page: &Snapshot,
    plan_knowledge: PlanKnowledge<'_>,
    plugin: &PluginAnswer,
) -> Option<String> {
    judge_element(element, dom, extra, page, plan_knowledge, plugin).map(|(_, reason)| reason)
}

fn judge_element(
    element: &Element,
    dom: Option<&ElementFacts>,
    extra: &[&str],
    page: &Snapshot,
    plan_knowledge: PlanKnowledge<'_>,
    plugin: &PluginAnswer,
) -> Option<(Why, String)> {
    let mark = plan::mark(plan_knowledge, element, dom);
    if mark == PlanMark::Irreversible {
        return Some((
            Why::Irreversible,
            "the plan marks this step as the one that commits".into(),
        ));
    }
    let mut texts = vec![element.name.as_str()];
    if let Some(dom) = dom {
        texts.push(dom.visible_text.as_str());
    }
    texts.extend_from_slice(extra);
    let heads = headings(page);
    let judged = floor::judge_each(&texts, &page.title, &heads, &page.url);
    if let Some(sign) = &judged.target {
        let said = said_by(&texts, sign.strength);
        match sign.strength {
            Strength::Strong => {
                return Some((
                    Why::Strong,
                    format!("\"{said}\" reads as the step that commits"),
                ));
            }
            Strength::BillingChange if mark != PlanMark::NotIrreversible => {
                return Some((
                    Why::BillingChange,
                    format!("\"{said}\" changes what you pay, which is not what you asked for"),
                ));
            }
            // A weak sign only opens the flow: what the step sends, if
            // anything, the guard holds for the person.
            Strength::BillingChange | Strength::Weak => {}
        }
    }
    match plugin {
        PluginAnswer::Ask(_) => Some((Why::Plugin, PLUGIN_ASKS.into())),
        PluginAnswer::Failed(why) => Some((
            Why::Plugin,
            format!("the service plugin could not judge it ({why}), so asking to be safe"),
        )),
        PluginAnswer::NoObjection | PluginAnswer::NotAsked => None,
    }
}

/// The text, of those the floor read, in which it found a sign this strong:
/// the person is shown the page's own words, not the floor's table.
fn said_by<'t>(texts: &[&'t str], strength: Strength) -> &'t str {
    texts
        .iter()
        .copied()
        .find(|t| {
            floor::sign_in_text(t, floor::Place::Target).is_some_and(|s| s.strength == strength)
        })
        .or_else(|| texts.first().copied())
        .unwrap_or_default()
}

/// Whether `page` is a commit page. `plugin` holds the plugin's answer for
/// each element of `page.elements`, by index (NotAsked where it was not
/// consulted).
pub fn commit_page(
    page: &Snapshot,
    plan_knowledge: PlanKnowledge<'_>,
    plugin: &[PluginAnswer],
) -> Option<CommitPage> {
    let heads = headings(page);
    let judged = floor::judge_each(&[], &page.title, &heads, &page.url);
    if let Some(sign) = judged.page.filter(|s| s.strength == Strength::Strong) {
        let words = match sign.place {
            floor::Place::Title => format!("its title \"{}\"", page.title),
            floor::Place::Url => format!("its address {}", page.url),
            _ => {
                let heading = heads
                    .iter()
                    .find(|h| floor::sign_in_text(h, floor::Place::Heading).is_some())
                    .copied()
                    .unwrap_or_default();
                format!("its heading \"{heading}\"")
            }
        };
        return Some(CommitPage {
            because_of: "the page itself".into(),
            reason: format!("{words} reads as the step that commits"),
            final_step: true,
        });
    }
    // A billing change on the page (an offer's "Accept") asks before it is
    // pressed, but does not make the page the one that commits.
    page.elements
        .iter()
        .enumerate()
        .filter(|(_, e)| is_actionable(e))
        .find_map(|(i, e)| {
            let answer = plugin.get(i).unwrap_or(&PluginAnswer::NotAsked);
            judge_element(e, None, &[], page, plan_knowledge, answer)
                .filter(|(why, _)| *why != Why::BillingChange)
                .map(|(why, reason)| CommitPage {
                    because_of: format!("{} \"{}\"", e.role, e.name),
                    reason,
                    final_step: matches!(why, Why::Strong | Why::Irreversible),
                })
        })
}

/// The element on `page` that would still take the final step: one whose
/// own words say it commits, or that the plan marks irreversible. A success
/// page may offer a billing change ("Restart membership"); that does not
/// undo the success, but a final button still on the page does.
pub fn final_step_offered(
    page: &Snapshot,
    plan_knowledge: PlanKnowledge<'_>,
) -> Option<CommitPage> {
    let heads = headings(page);
    page.elements
        .iter()
        .filter(|e| is_actionable(e))
        .find_map(|e| {
            if plan::mark(plan_knowledge, e, None) == PlanMark::Irreversible {
                return Some(CommitPage {
                    because_of: format!("{} \"{}\"", e.role, e.name),
                    reason: "the plugin's plan marks it as the irreversible step".into(),
                    final_step: true,
                });
            }
            let judged = floor::judge_each(&[e.name.as_str()], &page.title, &heads, &page.url);
            judged
                .target
                .filter(|s| s.strength == Strength::Strong)
                .map(|_| CommitPage {
                    because_of: format!("{} \"{}\"", e.role, e.name),
                    reason: "it reads as the step that commits".into(),
                    final_step: true,
                })
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::plugin::{HintAction, PlanStep, TargetHint};

    fn el(role: &str, name: &str) -> Element {
        Element {
            role: role.into(),
            name: name.into(),
            reference: Some("e1".into()),
            ..Element::default()
        }
    }

    fn page(title: &str, elements: Vec<Element>) -> Snapshot {
        Snapshot {
            url: "https://www.example.com/account".into(),
            title: title.into(),
            elements,
            ..Snapshot::default()
        }
    }

    fn steps() -> Vec<PlanStep> {
        let hint = |p: &str| TargetHint {
            role: None,
            name_patterns: vec![p.into()],
            action: HintAction::Click,
            value: None,
            optional: false,
        };
        vec![
            PlanStep {
                description: "open".into(),
                done_when: String::new(),
                targets: vec![hint("cancel membership"), hint("continue")],
                irreversible: false,
            },
            PlanStep {
                description: "finish".into(),
                done_when: String::new(),
                targets: vec![hint("finish cancellation")],
                irreversible: true,
            },
        ]
    }

    #[test]
    fn commit_pages_table() {
        let plan = steps();
        let marked = PlanKnowledge::Marked(&plan);
        let cases: Vec<(&str, Snapshot, PlanKnowledge, bool)> = vec![
            (
                "an ordinary account page",
                page(
                    "Account",
                    vec![
                        el("heading", "Account"),
                        el("link", "Help"),
                        el("button", "Cancel Membership"),
                    ],
                ),
                marked,
                false,
            ),
            (
                "the same page without a marked plan: a weak sign only opens the flow",
                page("Account", vec![el("button", "Cancel Membership")]),
                PlanKnowledge::None,
                false,
            ),
            (
                "a final button",
                page("Cancel", vec![el("button", "Finish Cancellation")]),
                marked,
                true,
            ),
            (
                "a retention offer asks before its accept, but does not commit the page",
                page(
                    "Before you go",
                    vec![
                        el("button", "Accept offer"),
                        el("button", "Continue to Cancel"),
                    ],
                ),
                marked,
                false,
            ),
            (
                "a survey",
                page(
                    "Why are you leaving?",
                    vec![
                        el("radio", "Too expensive"),
                        el("radio", "Other"),
                        el("button", "Continue"),
                    ],
                ),
                marked,
                false,
            ),
            (
                "an option that cancels",
                page(
                    "Confirm",
                    vec![
                        el("combobox", "confirm"),
                        el("option", "Yes, cancel my membership"),
                    ],
                ),
                marked,
                true,
            ),
            (
                "headings count",
                page(
                    "Step 3",
                    vec![
                        el("heading", "Confirm your cancellation"),
                        el("button", "OK"),
                    ],
                ),
                marked,
                true,
            ),
            (
                "text is not actionable",
                page(
                    "Help",
                    vec![el(
                        "paragraph",
                        "Finish cancellation by pressing the button",
                    )],
                ),
                marked,
                false,
            ),
        ];
        for (name, snapshot, plan, want) in cases {
            let answers = vec![PluginAnswer::NoObjection; snapshot.elements.len()];
            assert_eq!(
                commit_page(&snapshot, plan, &answers).is_some(),
                want,
                "{name}"
            );
        }
    }

    #[test]
    fn the_plugin_makes_a_page_commit() {
        let plan = steps();
        let snapshot = page("Plans", vec![el("button", "Save")]);
        let answers = vec![PluginAnswer::Ask("saving changes the plan".into())];
        let found = commit_page(&snapshot, PlanKnowledge::Marked(&plan), &answers).unwrap();
        assert_eq!(found.because_of, "button \"Save\"");
        // The host says the plugin asks; the plugin's own words go on the prompt
        // apart, under its name.
        assert_eq!(found.reason, PLUGIN_ASKS);
    }

    #[test]
    fn a_success_page_may_offer_a_restart_but_not_a_final_button() {
        let plan = steps();
        let marked = PlanKnowledge::Marked(&plan);
        let done = page(
            "Cancelled",
            vec![
                el("heading", "Your membership has been cancelled"),
                el("button", "Restart Membership"),
                el("link", "Back to account"),
            ],
        );
        assert_eq!(final_step_offered(&done, marked), None);
        let not_yet = page("Almost done", vec![el("button", "Finish Cancellation")]);
        assert!(final_step_offered(&not_yet, marked).is_some());
        assert!(final_step_offered(&not_yet, PlanKnowledge::None).is_some());
    }
}
