//! What a plugin's plan says about one element: the one way a plugin can
//! make the host ask less before an action. A step the plan marks
//! irreversible always needs a yes; a step it marks as not irreversible lets
//! the host skip the commit-page rule for that step's elements. Never the
//! strong signs, and never the network guard: whatever such a step sends is
//! held and put to the person, but for the harmless requests the plugin
//! declares for that very step (API 0.4.0), on a page that does not commit.

use serde::Serialize;

use crate::page::{Element, ElementFacts};
use crate::plugin::PlanStep;

/// What the plan knows.
#[derive(Debug, Clone, Copy)]
pub enum PlanKnowledge<'a> {
    /// API 0.1.0 (no irreversible marks) or no plan: the floor applies in full.
    None,
    /// A plan with its irreversible steps marked (API 0.2.0 and later).
    Marked(&'a [PlanStep]),
}

/// The plan's word on one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanMark {
    /// A target of a step marked irreversible.
    Irreversible,
    /// A target of a step the plan says is not irreversible.
    NotIrreversible,
    /// The plan does not name it.
    Unnamed,
}

/// How the plan sees `element`. Irreversible wins over everything: an element
/// that matches both kinds of step is irreversible. The element's visible
/// text, when known, is matched too, so a final button cannot hide behind a
/// harmless accessible name; a not-irreversible mark needs the name.
pub fn mark(plan: PlanKnowledge<'_>, element: &Element, dom: Option<&ElementFacts>) -> PlanMark {
    let PlanKnowledge::Marked(steps) = plan else {
        return PlanMark::Unnamed;
    };
    let seen_as_text = dom.map(|d| Element {
        name: d.visible_text.clone(),
        ..element.clone()
    });
    let named_by = |step: &PlanStep, el: &Element| step.targets.iter().any(|h| h.names_step(el));
    // Named with the very role the step gives (a click's roles otherwise
    // stand for one another).
    let named_exactly = |step: &PlanStep, el: &Element| {
        step.targets
            .iter()
            .any(|h| h.role.as_deref().is_none_or(|r| r == el.role) && h.names_step(el))
    };
    let irreversible = |named: &dyn Fn(&PlanStep, &Element) -> bool| {
        steps
            .iter()
            .filter(|s| s.irreversible)
            .any(|s| named(s, element) || seen_as_text.as_ref().is_some_and(|el| named(s, el)))
    };
    if irreversible(&named_by) {
        // A plan may name its opening link and its final button alike
        // ("Cancel Plan"): an element the irreversible step names only by
        // a swapped role, and a step that is not irreversible names with
        // its own role, is that step. What it sends is still held by the
        // guard, and on a page that commits its navigation too.
        let other_step = steps
            .iter()
            .filter(|s| !s.irreversible)
            .any(|s| named_exactly(s, element));
        if irreversible(&named_exactly) || !other_step {
            return PlanMark::Irreversible;
        }
        return PlanMark::NotIrreversible;
    }
    let safe = steps
        .iter()
        .filter(|s| !s.irreversible)
        .any(|s| named_by(s, element));
    if safe {
        PlanMark::NotIrreversible
    } else {
        PlanMark::Unnamed
    }
}

/// The index of the first step, not marked irreversible, that names
/// `element` — the step whose harmless requests (API 0.4.0) may pass while
/// it runs. `None` when the element is no such step's, or is also an
/// irreversible step's.
pub fn step_of(
    plan: PlanKnowledge<'_>,
    element: &Element,
    dom: Option<&ElementFacts>,
) -> Option<u32> {
    let PlanKnowledge::Marked(steps) = plan else {
        return None;
    };
    if mark(plan, element, dom) != PlanMark::NotIrreversible {
        return None;
    }
    steps
        .iter()
        .position(|s| !s.irreversible && s.targets.iter().any(|h| h.names_step(element)))
        .and_then(|i| u32::try_from(i).ok())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::plugin::{HintAction, TargetHint};

    fn step(pattern: &str, irreversible: bool) -> PlanStep {
        PlanStep {
            description: pattern.into(),
            done_when: String::new(),
            targets: vec![TargetHint {
                role: Some("button".into()),
                name_patterns: vec![pattern.into()],
                action: HintAction::Click,
                value: None,
                optional: false,
            }],
            irreversible,
        }
    }

    fn button(name: &str) -> Element {
        Element {
            role: "button".into(),
            name: name.into(),
            ..Element::default()
        }
    }

    #[test]
    fn marks_table() {
        let steps = vec![
            step("cancel membership", false),
            step("continue", false),
            step("finish cancellation", true),
        ];
        let marked = PlanKnowledge::Marked(&steps);
        let text = |t: &str| ElementFacts {
            visible_text: t.into(),
            ..ElementFacts::default()
        };
        let lying = text("Finish Cancellation");
        let cases: Vec<(
            &str,
            PlanKnowledge,
            Element,
            Option<&ElementFacts>,
            PlanMark,
        )> = vec![
            (
                "irreversible by name",
                marked,
                button("Finish Cancellation"),
                None,
                PlanMark::Irreversible,
            ),
            (
                "safe by name",
                marked,
                button("Cancel Membership"),
                None,
                PlanMark::NotIrreversible,
            ),
            (
                "unnamed",
                marked,
                button("Accept offer"),
                None,
                PlanMark::Unnamed,
            ),
            (
                "a lying name is seen through its visible text",
                marked,
                button("Go back"),
                Some(&lying),
                PlanMark::Irreversible,
            ),
            (
                "no plan knowledge: nothing is named",
                PlanKnowledge::None,
                button("Cancel Membership"),
                None,
                PlanMark::Unnamed,
            ),
        ];
        for (name, plan, element, dom, want) in cases {
            assert_eq!(mark(plan, &element, dom), want, "{name}");
        }
    }

    /// Peacock's shape: the opening link and the final button share a name.
    #[test]
    fn a_shared_name_is_told_apart_by_role_table() {
        let mut open = step("cancel plan", false);
        open.targets[0].role = Some("link".into());
        let steps = vec![open, step("cancel plan", true)];
        let only_final = vec![step("cancel plan", true)];
        let link = Element {
            role: "link".into(),
            ..button("Cancel Plan")
        };
        let cases = [
            (
                "the link is the opening step",
                &steps,
                link.clone(),
                PlanMark::NotIrreversible,
            ),
            (
                "the button is the final step",
                &steps,
                button("Cancel Plan"),
                PlanMark::Irreversible,
            ),
            // With no other step of that name, a link still counts as the
            // final button it is named like.
            (
                "a link named like the final button",
                &only_final,
                link,
                PlanMark::Irreversible,
            ),
        ];
        for (name, steps, element, want) in cases {
            assert_eq!(
                mark(PlanKnowledge::Marked(steps), &element, None),
                want,
                "{name}"
            );
        }
    }

    #[test]
    fn a_plan_needs_a_marked_step_with_targets() {
        use crate::plugin::has_irreversible_step;
        assert!(!has_irreversible_step(&[]));
        assert!(!has_irreversible_step(&[step("x", false)]));
        assert!(has_irreversible_step(&[step("x", false), step("y", true)]));
        let mut empty = step("z", true);
        empty.targets.clear();
        assert!(!has_irreversible_step(&[empty]));
    }
}
