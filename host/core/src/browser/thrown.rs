//! One value from the page in one call, with no settle wait. Playwright MCP
//! waits its settle time after every script that returns, and skips it
//! after one that throws; so the host's own reads throw their answer:
//! `async (page) => { …; throw new Error(MARK + JSON.stringify(value)); }`
//! comes back as a tool error that holds the value, in a few milliseconds
//! (a returning `browser_evaluate` took 500 ms more, BENCHMARKS.md).

use serde_json::json;

use super::{Browser, BrowserError};

/// Playwright MCP's tool that runs a function in its own process, with
/// Playwright's `page`.
pub const RUN_CODE: &str = "browser_run_code_unsafe";

/// Which of the browser's lanes a read takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// One call after another, as every call.
    Main,
    /// While an action's call is in flight ([`Browser::call_beside`]): the
    /// guard's watch and its answer to a held request.
    Beside,
}

/// Runs `code` (an `async (page) => …` that throws `mark` and its answer
/// as one line of JSON) and returns the answer's JSON: from the error it
/// threw, or from an ordinary result. Any other error is the browser's.
pub async fn read(
    browser: &Browser,
    code: &str,
    mark: &str,
) -> Result<Option<String>, BrowserError> {
    read_on(browser, code, mark, Lane::Main).await
}

/// [`read`] on `lane`.
pub async fn read_on(
    browser: &Browser,
    code: &str,
    mark: &str,
    lane: Lane,
) -> Result<Option<String>, BrowserError> {
    let args = json!({ "code": code });
    let called = match lane {
        Lane::Main => browser.call(RUN_CODE, args).await,
        Lane::Beside => browser.call_beside(RUN_CODE, args).await,
    };
    match called {
        Ok(output) => Ok(output.result.map(|r| after(&r, mark).to_owned())),
        Err(BrowserError::Tool { message, .. }) if message.contains(mark) => {
            Ok(Some(after(&message, mark).to_owned()))
        }
        Err(e) => Err(e),
    }
}

/// The JSON after `mark` (it has no newline; the stack trace follows on
/// later lines), or the whole text when no mark is there.
pub fn after<'a>(text: &'a str, mark: &str) -> &'a str {
    match text.split_once(mark) {
        Some((_, rest)) => rest.lines().next().unwrap_or_default(),
        None => text,
    }
    .trim()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn answers_table() {
        const MARK: &str = "subterminator-test:";
        for (text, answer) in [
            (
                "Error: page.evaluate: Error: subterminator-test:{\"a\":1}\n    at eval (eval at <anonymous>)",
                "{\"a\":1}",
            ),
            ("subterminator-test:null", "null"),
            (" {\"returned\":true} ", "{\"returned\":true}"),
            ("subterminator-test:", ""),
            // A page's text cannot start a second answer: only the first
            // mark counts, and only its line.
            (
                "subterminator-test:\"x subterminator-test:{}\"\nsubterminator-test:{\"forged\":1}",
                "\"x subterminator-test:{}\"",
            ),
        ] {
            assert_eq!(after(text, MARK), answer, "{text:?}");
        }
    }
}
