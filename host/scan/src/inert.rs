//! Statement text made safe to print. Whoever sends a person money picks the
//! reference text that lands in their statement, so a descriptor may carry
//! terminal escape sequences (clear the screen, retitle the window, turn
//! "SPOTIFY USA" into a link elsewhere) or bidi overrides that reorder what
//! is shown. Every string taken from a statement passes through [`inert`]
//! before it leaves this crate: in the report, its JSON and its errors.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Longest piece of a statement an error message repeats, in characters: a
/// header name is short; a 50 MB "header" is a file that is not a CSV.
pub(crate) const MAX_ECHO_CHARS: usize = 60;

/// Whether `c` changes how text is shown rather than being shown: C0 and C1
/// controls (ESC starts every terminal sequence), DEL, and Unicode's format
/// characters that reorder or hide text (bidi embeddings, overrides and
/// isolates, marks, zero-width joiners and spaces, the BOM).
fn is_active(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
        )
}

/// `text` with every active character written out as `\u{1b}`, so a person
/// sees that it was there and nothing acts on it. Tabs and line breaks
/// become a space: they only move text, and a table cell has one line.
pub(crate) fn inert(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_active) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' | '\n' | '\r' => out.push(' '),
            c if is_active(c) => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`inert`], cut to [`MAX_ECHO_CHARS`] with `…` where it was cut: for
/// error messages, which repeat a piece of a file that was not understood.
/// Cut before it is made inert, so a 50 MB line costs nothing to echo.
pub(crate) fn echo(text: &str) -> String {
    match text.char_indices().nth(MAX_ECHO_CHARS) {
        Some((at, _)) => format!("{}…", inert(&text[..at])),
        None => inert(text).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn active_characters_are_shown_escaped() {
        let cases = [
            ("SPOTIFY USA", "SPOTIFY USA"),
            (
                "\u{1b}[2J\u{1b}]0;pwned\u{7}NETFLIX",
                "\\u{1b}[2J\\u{1b}]0;pwned\\u{7}NETFLIX",
            ),
            (
                "\u{1b}]8;;https://evil.example/\u{1b}\\SPOTIFY USA\u{1b}]8;;\u{1b}\\",
                "\\u{1b}]8;;https://evil.example/\\u{1b}\\SPOTIFY USA\\u{1b}]8;;\\u{1b}\\",
            ),
            ("PAY\u{202e}XILFTEN", "PAY\\u{202e}XILFTEN"),
            ("a\u{2066}b\u{2069}", "a\\u{2066}b\\u{2069}"),
            ("C1\u{9b}31m", "C1\\u{9b}31m"),
            ("tab\there\r\nnext", "tab here  next"),
            ("Müller Straße €", "Müller Straße €"),
        ];
        for (raw, want) in cases {
            assert_eq!(inert(raw), want, "{raw:?}");
        }
    }

    #[test]
    fn echoes_are_bounded() {
        let long = "x".repeat(5_000_000);
        let shown = echo(&long);
        assert_eq!(shown.chars().count(), MAX_ECHO_CHARS + 1);
        assert!(shown.ends_with('…'));
        assert_eq!(echo("Date"), "Date");
    }
}
