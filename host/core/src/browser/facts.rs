//! The facts of an element as the DOM has them, read with the host's own
//! browser call. A page can give a button any accessible name ("Go back") and
//! any visible text ("Finish Cancellation"); the host judges both, and where
//! the element leads (its link, its form's action and method).

use serde_json::Value;

use super::thrown::{self, Target};
use super::{Browser, BrowserError};
use crate::page::ElementFacts;

/// Longest visible text read back, in characters: enough for any button or
/// link, bounded for a hostile page.
pub const MAX_VISIBLE_TEXT_CHARS: usize = 500;

/// Longest URL read back (a link's or a form's), in characters.
pub const MAX_URL_CHARS: usize = 2_000;

/// Starts the facts inside the error the script throws (`thrown.rs`): they
/// come back in about 5 ms, with no settle wait.
pub const ANSWER_MARK: &str = "subterminator-facts:";

/// Reads [`ElementFacts`] of the element it is given. `innerText` leaves out
/// what CSS hides; inputs show their value instead. A button's `formAction`
/// wins over its form's `action`, as the browser itself does.
const FACTS_JS: &str = r#"(el) => {
  if (!el) return null;
  const tag = (el.tagName || '').toLowerCase();
  let text = '';
  if (tag === 'select') text = Array.from(el.selectedOptions || []).map(o => o.text).join(', ');
  else if (tag === 'input' && String(el.type).toLowerCase() === 'password') text = el.value ? '••••••••' : '';
  else if (tag === 'input' || tag === 'textarea') text = String(el.value || '');
  else text = el.innerText || '';
  text = text.trim();
  if (!text && tag === 'button') text = String(el.value || '').trim();
  const link = el.closest ? el.closest('a[href]') : null;
  const form = el.form || (el.closest ? el.closest('form') : null);
  let action = null, method = null;
  if (form) {
    action = (el.formAction && el.hasAttribute && el.hasAttribute('formaction')) ? el.formAction : form.action;
    method = ((el.hasAttribute && el.hasAttribute('formmethod')) ? el.formMethod : form.method || 'get').toLowerCase();
  }
  const url = (u) => (u == null ? null : String(u).slice(0, URL_LIMIT));
  return {
    visible_text: text.slice(0, LIMIT),
    tag,
    input_type: el.type ? String(el.type).toLowerCase() : null,
    href: url(link ? link.href : null),
    form_action: url(action),
    form_method: method,
  };
}"#;

/// The facts of the element Playwright calls `reference` in the latest
/// snapshot.
pub async fn of_element(
    browser: &Browser,
    reference: &str,
    description: &str,
) -> Result<ElementFacts, BrowserError> {
    // A ref is Playwright's own (`e12`, `f1e4`); anything else would be
    // code in the server's process.
    if !is_ref(reference) {
        return Err(BrowserError::Tool {
            tool: thrown::RUN_CODE.to_owned(),
            message: format!("{description}: {reference:?} is not a snapshot ref"),
        });
    }
    let selector = format!("aria-ref={reference}");
    let code = format!(
        "async (page) => {{ const frame = page.mainFrame(); const read = async () => {read}; let f = await read(); if (f === null) {{ await page.locator({selector:?}).waitFor({{ state: 'attached', timeout: {LOCATE_TIMEOUT_MS} }}); f = await read(); }} throw new Error({mark:?} + f); }}",
        read = thrown::in_utility_world(
            Target::Selector(&selector),
            &format!(
                "(els) => els[0] ? JSON.stringify(({})(els[0])) : null",
                script()
            ),
        ),
        mark = ANSWER_MARK
    );
    let answer = thrown::read(browser, &code, ANSWER_MARK).await?;
    Ok(parse(answer.as_deref()).unwrap_or_default())
}

/// How long the host waits for the element to be found, in milliseconds: it
/// is on the page the latest snapshot showed, or gone.
const LOCATE_TIMEOUT_MS: u64 = 3_000;

/// Whether `reference` is a snapshot ref: `e12`, or `f1e4` inside a frame.
fn is_ref(reference: &str) -> bool {
    let rest = match reference.strip_prefix('f') {
        Some(frame) => {
            let digits = frame.chars().take_while(char::is_ascii_digit).count();
            if digits == 0 {
                return false;
            }
            &frame[digits..]
        }
        None => reference,
    };
    rest.strip_prefix('e')
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// The facts of the element that has the keyboard focus: where a key press
/// lands. `None` when nothing but the page itself has it.
pub async fn of_focused(browser: &Browser) -> Result<Option<ElementFacts>, BrowserError> {
    let code = format!(
        "async (page) => {{ const frame = page.mainFrame(); const f = await {read}; throw new Error({mark:?} + f); }}",
        read = thrown::in_utility_world(
            Target::Document,
            &format!(
                "() => {{ const el = document.activeElement; return (!el || el === document.body) ? null : JSON.stringify(({})(el)); }}",
                script()
            ),
        ),
        mark = ANSWER_MARK
    );
    let answer = thrown::read(browser, &code, ANSWER_MARK).await?;
    Ok(parse(answer.as_deref()))
}

fn script() -> String {
    FACTS_JS
        .replace("URL_LIMIT", &MAX_URL_CHARS.to_string())
        .replace("LIMIT", &MAX_VISIBLE_TEXT_CHARS.to_string())
}

/// The facts from a script's answer (after [`ANSWER_MARK`] when it threw
/// them; the stack trace follows on later lines, the JSON has no newline);
/// anything else is none.
fn parse(answer: Option<&str>) -> Option<ElementFacts> {
    let value: Value = serde_json::from_str(thrown::after(answer?, ANSWER_MARK)).ok()?;
    if value.is_null() {
        return None;
    }
    let mut facts: ElementFacts = serde_json::from_value(value).ok()?;
    facts.visible_text =
        crate::text::truncate(&facts.visible_text, MAX_VISIBLE_TEXT_CHARS, "").into_owned();
    Some(facts)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn results_table() {
        let full = r#"{"visible_text":"Finish Cancellation","tag":"button","input_type":"submit","href":null,"form_action":"http://127.0.0.1:1/commit.html","form_method":"post"}"#;
        let facts = parse(Some(full)).unwrap();
        assert_eq!(facts.visible_text, "Finish Cancellation");
        assert_eq!(facts.form_method.as_deref(), Some("post"));
        assert_eq!(parse(Some("null")), None);
        let thrown = format!(
            "Error: page.evaluate: Error: {ANSWER_MARK}{full}\n    at eval (eval at <anonymous>)"
        );
        assert_eq!(parse(Some(&thrown)).unwrap().tag, "button");
        assert_eq!(parse(Some(&format!("{ANSWER_MARK}null"))), None);
        assert_eq!(parse(Some("not json")), None);
        assert_eq!(parse(None), None);
        let long = format!(
            r#"{{"visible_text":"{}","tag":"a"}}"#,
            "x".repeat(MAX_VISIBLE_TEXT_CHARS + 50)
        );
        assert_eq!(
            parse(Some(&long)).unwrap().visible_text.len(),
            MAX_VISIBLE_TEXT_CHARS
        );
    }

    #[test]
    fn refs_table() {
        for (reference, ok) in [
            ("e12", true),
            ("f1e4", true),
            ("e", false),
            ("f1", false),
            ("fe4", false),
            ("e1')+1;process.exit()//", false),
            ("#id", false),
            ("", false),
        ] {
            assert_eq!(is_ref(reference), ok, "{reference:?}");
        }
    }

    #[test]
    fn the_script_has_its_limit() {
        assert!(script().contains(&format!("slice(0, {MAX_VISIBLE_TEXT_CHARS})")));
        assert!(script().contains(&format!("slice(0, {MAX_URL_CHARS})")));
        assert!(!script().contains("LIMIT"));
    }
}
