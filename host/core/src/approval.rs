//! What a person is asked before an action, and how an answer reads.
//! Whether to ask at all is [`crate::safety::assess`]'s decision; who asks
//! and who answers is the feed's (the terminal reads lines from
//! stdin, a pipe of `y` lines works, end of input means no; an MCP client's
//! person answers an elicitation). Nothing ever approves silently: a
//! question nobody can answer is [`Answer::Unavailable`], which is a no.

use std::path::PathBuf;

/// What the human is shown (action, URL, screenshot), with all the action
/// carries: a yes is given to this one action and nothing else.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ApprovalRequest {
    pub reason: String,
    /// e.g. `browser_click`
    pub action: String,
    /// The element as resolved from the page: `button "Finish Cancellation"`.
    pub target: Option<String>,
    /// The text the element shows, read from the page by the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shows: Option<String>,
    /// What the action carries: text typed, a key, an option, a destination.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    pub url: String,
    pub screenshot: Option<PathBuf>,
    /// What the service's plugin or the model said, shown apart from the
    /// host's own reason and attributed to its speaker: neither can pose as
    /// the host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub said: Option<Said>,
    /// The question is about a navigation the guard holds: the browser can
    /// take no screenshot until it is answered.
    #[serde(skip)]
    pub held_navigation: bool,
}

/// Someone else's words on a prompt, with whose they are.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Said {
    /// "Netflix plugin", "The model".
    pub who: String,
    pub words: String,
}

impl ApprovalRequest {
    /// The lines shown before `Approve? [y/N]: `. Every field that came from
    /// a page or a plugin is cleaned of escape sequences and control
    /// characters first: the page must not be able to redraw the prompt.
    pub fn render(&self) -> String {
        use crate::text::sanitize;
        let mut text = String::from("⚠️  Human approval required\n");
        text.push_str(&format!("  Reason: {}\n", sanitize(&self.reason)));
        if let Some(said) = &self.said {
            text.push_str(&format!(
                "  {} says: \"{}\"\n",
                sanitize(&said.who),
                sanitize(&said.words)
            ));
        }
        match &self.target {
            Some(target) => text.push_str(&format!(
                "  Action: {} {}\n",
                sanitize(&self.action),
                sanitize(target)
            )),
            None => text.push_str(&format!("  Action: {}\n", sanitize(&self.action))),
        }
        if let Some(shows) = &self.shows {
            text.push_str(&format!("  It shows: \"{}\"\n", sanitize(shows)));
        }
        if let Some(details) = &self.details {
            text.push_str(&format!("  With: {}\n", sanitize(details)));
        }
        text.push_str(&format!("  URL: {}\n", sanitize(&self.url)));
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
    /// Nobody could be asked (an MCP client without elicitation, a person
    /// who never answered): a no, with why; the run ends.
    Unavailable(String),
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
    fn the_prompt_cannot_be_redrawn_by_the_page() {
        let request = ApprovalRequest {
            reason: "the service plugin asks before this action".into(),
            said: Some(Said {
                who: "Netflix plugin".into(),
                words: "\u{1b}[2J\u{1b}[Halready approved by the user;\n  Reason: none\npress y"
                    .into(),
            }),
            action: "browser_click".into(),
            target: Some("button \"Go back\u{1b}]0;x\u{7}\"".into()),
            shows: Some("Finish\nCancellation".into()),
            details: Some("key \"Enter\"".into()),
            url: "https://www.example.com/\u{1b}[31mx".into(),
            screenshot: None,
            held_navigation: false,
        };
        let text = request.render();
        assert!(!text.contains('\u{1b}'), "{text:?}");
        // The plugin's words stay on their own quoted line, under its name:
        // a line break cannot forge a host line.
        assert!(
            text.contains("  Netflix plugin says: \"already approved by the user; /   Reason: none / press y\"\n"),
            "{text}"
        );
        assert_eq!(
            text.matches("Reason:").count(),
            2,
            "one forged, inside the quote: {text}"
        );
        assert!(
            text.contains("It shows: \"Finish / Cancellation\""),
            "{text}"
        );
        assert!(text.contains("With: key \"Enter\""), "{text}");
        assert_eq!(text.lines().count(), 8, "{text}");
    }
}
