//! Playwright's failures as the tools' error codes. A failed action is a
//! `TimeoutError` or `Error` whose call log says, line by line, what it
//! waited for; the last reason it gave is why it failed.

use crate::browser::BrowserError;
use crate::safety::RefusalCode;

/// The longest error message passed on to the model, in characters; call
/// logs run to kilobytes and say the same thing ten times.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// Call-log phrases and the code each means, checked from the log's end.
const REASONS: &[(&str, RefusalCode)] = &[
    ("intercepts pointer events", RefusalCode::ElementObscured),
    ("element is not enabled", RefusalCode::ElementDisabled),
    ("element is disabled", RefusalCode::ElementDisabled),
    ("element is not editable", RefusalCode::ElementDisabled),
    ("outside of the viewport", RefusalCode::ElementNotVisible),
    ("element is not visible", RefusalCode::ElementNotVisible),
    (
        "not found in the current page snapshot",
        RefusalCode::RefInvalid,
    ),
    ("did not find some options", RefusalCode::ActionFailed),
    ("element is not stable", RefusalCode::Timeout),
];

/// The code and a short message for a failed browser call.
pub fn classify(error: &BrowserError) -> (RefusalCode, String) {
    match error {
        BrowserError::Tool { message, .. } => (code_of(message), summary(message)),
        BrowserError::Timeout { .. } => (RefusalCode::Timeout, error.to_string()),
        other => (RefusalCode::ActionFailed, summary(&other.to_string())),
    }
}

fn code_of(message: &str) -> RefusalCode {
    let reason = message.lines().rev().find_map(|line| {
        REASONS
            .iter()
            .find(|(phrase, _)| line.contains(phrase))
            .map(|(_, code)| *code)
    });
    match reason {
        Some(code) => code,
        None if message.contains("Timeout") && message.contains("exceeded") => RefusalCode::Timeout,
        None => RefusalCode::ActionFailed,
    }
}

/// The error's first line, without Playwright's internal prefixes, and the
/// last reason from its call log.
fn summary(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default();
    let first = first
        .replace("browserBackend.callTool: ", "")
        .replace("Error: Error: ", "Error: ");
    let reason = message
        .lines()
        .rev()
        .map(str::trim)
        .map(|l| l.trim_start_matches("- "))
        .find(|l| REASONS.iter().any(|(phrase, _)| l.contains(phrase)));
    let text = match reason {
        Some(reason) if !first.contains(reason) => format!("{first} ({reason})"),
        _ => first,
    };
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(message: &str) -> BrowserError {
        BrowserError::Tool {
            tool: crate::browser::tools::CLICK.into(),
            message: message.into(),
        }
    }

    const LOG: &str = "TimeoutError: browserBackend.callTool: Timeout 5000ms exceeded.\nCall log:\n  - waiting for locator('aria-ref=e3')\n";

    #[test]
    fn codes_table() {
        for (message, want) in [
            (format!("{LOG}    - element is not enabled\n  - retrying click action\n"), RefusalCode::ElementDisabled),
            (format!("{LOG}    - <div role=\"dialog\">…</div> intercepts pointer events\n  - retrying\n"), RefusalCode::ElementObscured),
            // The animation case: an early interception, then instability until the end.
            (format!("{LOG}    - <p>…</p> intercepts pointer events\n  - retrying\n    - element is not stable\n"), RefusalCode::Timeout),
            (format!("{LOG}    - did not find some options\n"), RefusalCode::ActionFailed),
            (format!("{LOG}    - element is not visible\n"), RefusalCode::ElementNotVisible),
            ("Error: Element is outside of the viewport".to_owned(), RefusalCode::ElementNotVisible),
            ("Error: Ref e15 not found in the current page snapshot. Try capturing new snapshot.".to_owned(), RefusalCode::RefInvalid),
            (LOG.to_owned(), RefusalCode::Timeout),
            ("Error: browserBackend.callTool: Error: Element is not an <input>, <textarea>, <select> or [contenteditable]".to_owned(), RefusalCode::ActionFailed),
        ] {
            assert_eq!(classify(&tool(&message)).0, want, "{message}");
        }
    }

    #[test]
    fn messages_are_short_and_say_why() {
        let long = format!("{LOG}{}", "    - element is not enabled\n".repeat(200));
        let (_, message) = classify(&tool(&long));
        assert!(
            message.chars().count() <= MAX_MESSAGE_CHARS + 3,
            "{message}"
        );
        assert_eq!(
            message,
            "TimeoutError: Timeout 5000ms exceeded. (element is not enabled)"
        );
    }
}
