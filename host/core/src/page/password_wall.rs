//! The host's own reading of a sign-in wall: a page that shows a password
//! field asks for the account holder, in any language and whatever the
//! plugin knows. A plugin's `detect-auth` names the walls it knows by their
//! words; this catches the rest (a "confirm it's you" page in the middle of
//! a flow), by the one thing every such page has.

/// For `browser_evaluate`: how many empty password fields a person can
/// type into now (shown, enabled), in every same-origin frame. A field
/// already filled is one the person is typing into, not a wall.
pub const PASSWORD_FIELDS_JS: &str = r#"() => {
  let count = 0;
  const visit = (doc) => {
    for (const input of doc.querySelectorAll('input[type=password]')) {
      const box = input.getBoundingClientRect();
      const style = doc.defaultView ? doc.defaultView.getComputedStyle(input) : null;
      const shown = box.width > 0 && box.height > 0
        && (!style || (style.visibility !== 'hidden' && style.display !== 'none'));
      if (shown && !input.disabled && !input.readOnly && !input.value) count += 1;
    }
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      try { if (frame.contentDocument) visit(frame.contentDocument); } catch (e) {}
    }
  };
  visit(document);
  return count;
}"#;

/// What the page is told when the host pauses for it.
pub const MESSAGE: &str =
    "The page asks for the account's password: only the account holder types it.";

/// The count [`PASSWORD_FIELDS_JS`] returned, from the tool's `### Result`;
/// `None` when the answer is not a count.
pub fn parse_count(result: Option<&str>) -> Option<u64> {
    result?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_read_and_anything_else_is_not() {
        let cases = [
            (Some("1"), Some(1)),
            (Some(" 0\n"), Some(0)),
            (Some("\"1\""), None),
            (Some("[]"), None),
            (None, None),
        ];
        for (result, want) in cases {
            assert_eq!(parse_count(result), want, "{result:?}");
        }
    }
}
