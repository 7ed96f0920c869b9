//! What a failed browser call means, when one more try might mend it: the
//! element was covered, not visible, taken out of the page and put back, or
//! not ready in time (Playwright's call log says which).

use crate::browser::BrowserError;

pub use crate::feed::event::Trouble;

/// Call-log phrases and what they mean, checked from the log's end.
const TROUBLES: &[(&str, Trouble)] = &[
    ("intercepts pointer events", Trouble::Obscured),
    ("outside of the viewport", Trouble::NotVisible),
    ("element is not visible", Trouble::NotVisible),
    ("not attached to the dom", Trouble::Detached),
    ("element was detached", Trouble::Detached),
    ("element is not stable", Trouble::Slow),
];

/// The trouble a failed browser call shows, if a retry might mend it.
pub fn trouble_of(error: &BrowserError) -> Option<Trouble> {
    let BrowserError::Tool { message, .. } = error else {
        return None;
    };
    let lower = message.to_lowercase();
    // A disabled element stays disabled: waiting for it only costs time.
    if lower.contains("element is not enabled") || lower.contains("element is disabled") {
        return None;
    }
    lower
        .lines()
        .rev()
        .find_map(|line| {
            TROUBLES
                .iter()
                .find(|(phrase, _)| line.contains(phrase))
                .map(|(_, t)| *t)
        })
        .or_else(|| {
            (lower.contains("timeout") && lower.contains("exceeded")).then_some(Trouble::Slow)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::tools as mcp;

    fn tool(message: &str) -> BrowserError {
        BrowserError::Tool {
            tool: mcp::CLICK.into(),
            message: message.into(),
        }
    }

    #[test]
    fn which_failures_are_worth_one_more_try() {
        let cases = [
            (
                "TimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for element\n  - <div id=\"footer\">…</div> intercepts pointer events\n  - retrying click action",
                Some(Trouble::Obscured),
            ),
            (
                "Error: element is not visible\n  - retrying",
                Some(Trouble::NotVisible),
            ),
            (
                "Error: Element is not attached to the DOM",
                Some(Trouble::Detached),
            ),
            (
                "TimeoutError: Timeout 5000ms exceeded.\n  - element is not stable",
                Some(Trouble::Slow),
            ),
            (
                "TimeoutError: Timeout 5000ms exceeded.",
                Some(Trouble::Slow),
            ),
            ("Error: Ref e9 not found in the current page snapshot", None),
            ("Error: element is disabled", None),
            (
                "TimeoutError: Timeout 5000ms exceeded.\n  - element is not enabled\n  - retrying click action",
                None,
            ),
        ];
        for (message, want) in cases {
            assert_eq!(trouble_of(&tool(message)), want, "{message}");
        }
        let lost = BrowserError::ConnectionLost {
            tool: mcp::CLICK.into(),
            detail: "x".into(),
            reconnected: false,
        };
        assert_eq!(trouble_of(&lost), None);
    }
}
