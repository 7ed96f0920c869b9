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

/// Where [`in_utility_world`] finds its element.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// The frame's document: the function takes no argument.
    Document,
    /// The elements a Playwright selector finds (`aria-ref=e12`), as an
    /// array, in the frame the selector names.
    Selector(&'a str),
}

/// JavaScript for `browser_run_code_unsafe`, with a Playwright `frame` in
/// scope, that runs `function` in the frame's utility world and resolves to
/// the string it returns, or `null`.
///
/// That world is Playwright's isolated one. The page's own scripts cannot
/// reach it, so a page that redefines `innerText`, `closest`,
/// `getComputedStyle` or a form's `action` for its own code cannot change
/// what the host reads there; and it already holds the script that found
/// the snapshot's refs, so a read is one evaluation, where a locator's
/// `evaluate` in the page's world takes several round trips (BENCHMARKS.md).
/// The client's `$eval` and `evaluate` have no world to choose, so the
/// frame's protocol methods are called as they call them; the pinned
/// release takes `world` on both.
pub fn in_utility_world(target: Target<'_>, function: &str) -> String {
    let (method, selector) = match target {
        Target::Document => ("evaluateExpression", String::new()),
        Target::Selector(selector) => ("evalOnSelectorAll", format!("selector: {selector:?}, ")),
    };
    format!(
        "frame._channel.{method}({{ {selector}expression: {function:?}, isFunction: true, arg: {{ value: {{ v: 'undefined' }}, handles: [] }}, world: 'utility' }}).then((r) => (r && r.value && typeof r.value.s === 'string') ? r.value.s : null)"
    )
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
