//! Human checkpoints: whether a call needs a human's yes, and asking for it.
//!
//! The policy fails closed. A call runs unasked only when a rule positively
//! says it is safe; a plugin that errors, or that cannot be consulted, means
//! "ask". Answers come from stdin whether or not it is a terminal, so a pipe
//! of `y` lines works; end of input means no. Nothing ever approves silently.

mod console;

use std::path::PathBuf;

pub use console::Console;

use crate::plugin::PluginError;

/// Whether a call may run without a human.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Ask the human first, for this reason.
    Ask { reason: String },
    /// Run it; the reason is recorded in the run record.
    Proceed { reason: String },
}

impl Default for Decision {
    fn default() -> Self {
        Decision::Ask {
            reason: "no rule said this action is safe".into(),
        }
    }
}

/// The host's rule over the plugin's answer: `checkpoint` errors mean ask.
pub fn decide(
    checkpoints_enabled: bool,
    plugin_says: Result<Option<String>, PluginError>,
) -> Decision {
    if !checkpoints_enabled {
        return Decision::Proceed {
            reason: "checkpoints are off (--no-checkpoint, for testing only)".into(),
        };
    }
    match plugin_says {
        Ok(Some(reason)) => Decision::Ask { reason },
        Ok(None) => Decision::Proceed {
            reason: "the service plugin saw nothing irreversible".into(),
        },
        Err(e) => Decision::Ask {
            reason: format!(
                "the service plugin could not judge this action ({e}), so asking to be safe"
            ),
        },
    }
}

/// What the human is shown (seed 000 §2.5.4).
#[derive(Debug, Clone, serde::Serialize)]
pub struct ApprovalRequest {
    pub reason: String,
    /// e.g. `browser_click`
    pub action: String,
    /// The element as resolved from the page: `button "Finish Cancellation"`.
    pub target: Option<String>,
    pub url: String,
    pub screenshot: Option<PathBuf>,
}

impl ApprovalRequest {
    /// The lines shown before `Approve? [y/N]: `.
    pub fn render(&self) -> String {
        let mut text = String::from("⚠️  Human approval required\n");
        text.push_str(&format!("  Reason: {}\n", self.reason));
        match &self.target {
            Some(target) => text.push_str(&format!("  Action: {} {target}\n", self.action)),
            None => text.push_str(&format!("  Action: {}\n", self.action)),
        }
        text.push_str(&format!("  URL: {}\n", self.url));
        match &self.screenshot {
            Some(path) => text.push_str(&format!("  Screenshot: {}\n", path.display())),
            None => text.push_str("  Screenshot: (could not be taken)\n"),
        }
        text
    }
}

/// The human's answer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "answer", content = "feedback", rename_all = "snake_case")]
pub enum Answer {
    Approved,
    /// `n`, an empty line, or end of input: the run ends.
    Rejected,
    /// Anything else: a no, with words for the model; the run goes on.
    Feedback(String),
}

impl Answer {
    /// `None` is end of input.
    pub fn parse(line: Option<&str>) -> Self {
        let Some(line) = line else {
            return Answer::Rejected;
        };
        match line.trim() {
            "y" | "Y" | "yes" | "Yes" | "YES" => Answer::Approved,
            "" | "n" | "N" | "no" | "No" | "NO" => Answer::Rejected,
            other => Answer::Feedback(other.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_table() {
        let cases = [
            (Some("y"), Answer::Approved),
            (Some("Y\n"), Answer::Approved),
            (Some(" yes "), Answer::Approved),
            (Some("n"), Answer::Rejected),
            (Some(""), Answer::Rejected),
            (Some("   "), Answer::Rejected),
            (None, Answer::Rejected),
            (Some("yy"), Answer::Feedback("yy".into())),
            (
                Some("try the other button"),
                Answer::Feedback("try the other button".into()),
            ),
        ];
        for (line, want) in cases {
            assert_eq!(Answer::parse(line), want, "{line:?}");
        }
    }

    #[test]
    fn the_default_decision_is_to_ask() {
        assert!(matches!(Decision::default(), Decision::Ask { .. }));
    }

    #[test]
    fn a_failing_plugin_means_ask() {
        let err = PluginError::Worker("boom".into());
        assert!(
            matches!(decide(true, Err(err)), Decision::Ask { reason } if reason.contains("boom"))
        );
        assert!(matches!(
            decide(true, Ok(Some("final".into()))),
            Decision::Ask { .. }
        ));
        assert!(matches!(decide(true, Ok(None)), Decision::Proceed { .. }));
        assert!(matches!(
            decide(false, Ok(Some("final".into()))),
            Decision::Proceed { .. }
        ));
    }
}
