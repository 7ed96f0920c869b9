//! A plugin's named overlays (the contract's `interruptions`, API 0.3.0 on)
//! are buttons the host presses itself, without a question, to get a pop-up
//! out of the way. One that reads as a commit is refused at load: the
//! host's decision would ask before pressing it anyway, so it could only be
//! a mistake or a lie, and a lie aimed at the one press the host makes
//! unasked. Two readings: the host's own floor sees a strong sign in a name
//! pattern ("Finish cancellation", "Confirm cancel"), or the overlay names
//! the button of one of the plan's irreversible steps.

use crate::plugin::types::{Metadata, PlanStep, TargetHint};
use crate::safety::floor::{self, Place, Strength};

/// Checks every overlay against the floor and the plan; the error names the
/// overlay (as `interruptions[i]`, the contract's word) and its pattern.
pub fn check(m: &Metadata, plan: &[PlanStep]) -> Result<(), String> {
    for (i, overlay) in m.overlays.iter().enumerate() {
        let at = format!("interruptions[{i}]");
        for (k, pattern) in overlay.name_patterns.iter().enumerate() {
            let sign = floor::sign_in_text(pattern, Place::Target);
            if let Some(sign) = sign.filter(|s| s.strength == Strength::Strong) {
                return Err(format!(
                    "{at}.name-patterns[{k}]: {pattern:?} reads as a commit to the host ({:?}); \
                     the host presses an overlay without asking, so it may never name one",
                    sign.phrase
                ));
            }
        }
        for (j, step) in plan.iter().enumerate().filter(|(_, s)| s.irreversible) {
            for (t, target) in step.targets.iter().enumerate() {
                if let Some((mine, theirs)) = same_button(overlay, target) {
                    return Err(format!(
                        "{at}.name-patterns: {mine:?} names the button of plan[{j}].targets[{t}] \
                         ({theirs:?}), the irreversible step's; the host presses an overlay \
                         without asking, so it may never name one"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The pair of patterns by which `overlay` and `target` name one button: the
/// roles agree (either may be any role), and one pattern contains the other,
/// ignoring case, so that every name the longer one finds the shorter finds
/// too.
fn same_button<'a>(overlay: &'a TargetHint, target: &'a TargetHint) -> Option<(&'a str, &'a str)> {
    let roles_agree = match (&overlay.role, &target.role) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        _ => true,
    };
    if !roles_agree {
        return None;
    }
    overlay.name_patterns.iter().find_map(|mine| {
        let m = mine.trim().to_lowercase();
        target.name_patterns.iter().find_map(|theirs| {
            let t = theirs.trim().to_lowercase();
            let overlap = !m.is_empty() && !t.is_empty() && (m.contains(&t) || t.contains(&m));
            overlap.then_some((mine.as_str(), theirs.as_str()))
        })
    })
}

#[cfg(test)]
mod tests;
