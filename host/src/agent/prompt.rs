//! The system prompt: the host's rules, the service's goal and the plugin's
//! plan as hints.

use crate::plugin::{Metadata, PlanStep};

/// The system prompt for one service.
pub(super) fn system_prompt(m: &Metadata, plan: &[PlanStep]) -> String {
    let mut prompt = format!(
        "You are controlling a web browser to accomplish a task.\n\n\
         IMPORTANT RULES:\n\
         1. Element refs are only valid for the latest page snapshot. After any action, you get a fresh page with new refs.\n\
         2. Call one tool at a time. Wait for the result before deciding what to do next.\n\
         3. Always check the page carefully before acting.\n\
         4. Call complete_task when done or when you determine the goal cannot be achieved.\n\
         5. Stay on {}'s own pages. A human approves irreversible steps; if a step is refused, follow the human's feedback.\n\n\
         CURRENT GOAL: {}\n",
        m.display_name, m.goal
    );
    if !m.system_prompt_addition.is_empty() {
        prompt.push_str(&format!("\n{}\n", m.system_prompt_addition));
    }
    if !plan.is_empty() {
        prompt.push_str("\nThe usual steps (hints, not a script; trust the page):\n");
        for (i, step) in plan.iter().enumerate() {
            prompt.push_str(&format!(
                "{}. {} (done when: {})\n",
                i + 1,
                step.description,
                step.done_when
            ));
        }
    }
    prompt
}
