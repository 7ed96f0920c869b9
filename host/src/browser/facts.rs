//! The facts of an element as the DOM has them, read with the host's own
//! browser call. A page can give a button any accessible name ("Go back") and
//! any visible text ("Finish Cancellation"); the host judges both, and where
//! the element leads (its link, its form's action and method).

use serde_json::{Value, json};

use super::tools as mcp;
use super::{Browser, BrowserError};
use crate::page::ElementFacts;

/// Longest visible text read back, in characters: enough for any button or
/// link, bounded for a hostile page.
pub const MAX_VISIBLE_TEXT_CHARS: usize = 500;

/// Reads [`ElementFacts`] of the element it is given. `innerText` leaves out
/// what CSS hides; inputs show their value instead. A button's `formAction`
/// wins over its form's `action`, as the browser itself does.
const FACTS_JS: &str = r#"(el) => {
  if (!el) return null;
  const tag = (el.tagName || '').toLowerCase();
  let text = '';
  if (tag === 'select') text = Array.from(el.selectedOptions || []).map(o => o.text).join(', ');
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
  return {
    visible_text: text.slice(0, LIMIT),
    tag,
    input_type: el.type ? String(el.type).toLowerCase() : null,
    href: link ? link.href : null,
    form_action: action,
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
    let output = browser
        .call(
            mcp::EVALUATE,
            json!({ "target": reference, "element": description, "function": script() }),
        )
        .await?;
    Ok(parse(output.result.as_deref()).unwrap_or_default())
}

/// The facts of the element that has the keyboard focus: where a key press
/// lands. `None` when nothing but the page itself has it.
pub async fn of_focused(browser: &Browser) -> Result<Option<ElementFacts>, BrowserError> {
    let function = format!(
        "() => {{ const el = document.activeElement; if (!el || el === document.body) return null; return ({})(el); }}",
        script()
    );
    let output = browser
        .call(mcp::EVALUATE, json!({ "function": function }))
        .await?;
    Ok(parse(output.result.as_deref()))
}

fn script() -> String {
    FACTS_JS.replace("LIMIT", &MAX_VISIBLE_TEXT_CHARS.to_string())
}

/// The facts from a script's result; anything else is none.
fn parse(result: Option<&str>) -> Option<ElementFacts> {
    let value: Value = serde_json::from_str(result?.trim()).ok()?;
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
    fn the_script_has_its_limit() {
        assert!(script().contains(&format!("slice(0, {MAX_VISIBLE_TEXT_CHARS})")));
        assert!(!script().contains("LIMIT"));
    }
}
