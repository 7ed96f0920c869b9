//! The system prompt: the host's rules, the service's goal and the plugin's
//! plan as hints.

use crate::plugin::{Metadata, PlanStep};

/// The system prompt for one service.
pub(super) fn system_prompt(m: &Metadata, plan: &[PlanStep]) -> String {
    let mut prompt = format!(
        "You drive a browser for a person. Each action answers with the new page; its refs (@eN) \
         replace all earlier ones, and offscreen controls can be clicked directly. One tool call \
         at a time; stay on {}'s own pages. A human approves irreversible steps; if one is \
         refused, follow their words. Call complete_task when the goal is reached or cannot be.\n\n\
         GOAL: {}\n",
        m.display_name, m.goal
    );
    if !m.system_prompt_addition.is_empty() {
        prompt.push_str(&format!("\n{}\n", m.system_prompt_addition));
    }
    if !plan.is_empty() {
        // The steps alone: the page shows when one is done, and every word
        // here is resent each turn.
        prompt.push_str("\nUsual steps (hints; trust the page):\n");
        for (i, step) in plan.iter().enumerate() {
            prompt.push_str(&format!("{}. {}\n", i + 1, step.description));
        }
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the tools no longer repeat each turn is said here, once.
    #[test]
    fn the_prompt_says_once_what_every_tool_would_repeat() {
        let m = Metadata {
            display_name: "Netflix".into(),
            goal: "Cancel the Netflix subscription.".into(),
            ..Metadata::default()
        };
        let prompt = system_prompt(&m, &[]);
        for said in [
            "replace all earlier ones",
            "offscreen controls can be clicked directly",
            "One tool call at a time",
            "stay on Netflix's own pages",
            "A human approves irreversible steps",
            "complete_task",
            "GOAL: Cancel the Netflix subscription.",
        ] {
            assert!(prompt.contains(said), "{said}: {prompt}");
        }
    }
}
