//! Text helpers every layer shares. A leaf: it imports nothing from the crate.

pub mod fold;

use std::borrow::Cow;

/// `text` cut to at most `max_chars` characters, with `marker` appended when
/// anything was cut. Counts characters, not bytes, so it never splits one.
pub fn truncate<'a>(text: &'a str, max_chars: usize, marker: &str) -> Cow<'a, str> {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => Cow::Owned(format!("{}{marker}", &text[..at])),
        None => Cow::Borrowed(text),
    }
}

/// The ellipsis most messages end a cut with.
pub const ELLIPSIS: &str = "…";

/// `text` made safe to print on a terminal: escape sequences (CSI, OSC and
/// the rest) and control characters are removed, a tab becomes a space, and
/// line breaks become " / " so one field stays on one line. Text from a page
/// or a plugin goes through this before a person reads it: an escape sequence
/// could otherwise move the cursor, rewrite the prompt, or set the window
/// title.
pub fn sanitize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => skip_escape(&mut chars),
            // C1 CSI and OSC open sequences of their own.
            '\u{9b}' => skip_until_final(&mut chars),
            '\u{9d}' => skip_until_string_end(&mut chars),
            '\n' | '\r' => {
                if !out.ends_with(" / ") && !out.is_empty() {
                    out.push_str(" / ");
                }
            }
            '\t' => out.push(' '),
            c if c.is_control() => {}
            // Bidirectional overrides can make text read other than it is.
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {}
            c => out.push(c),
        }
    }
    out.trim_end_matches(" / ").to_owned()
}

fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => skip_until_final(chars),
        Some(']' | 'P' | 'X' | '^' | '_') => skip_until_string_end(chars),
        // Two-character escapes (ESC c, ESC 7, …): already consumed.
        _ => {}
    }
}

/// A CSI sequence ends at its first byte in `@`..=`~`.
fn skip_until_final(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            break;
        }
    }
}

/// OSC, DCS and friends end at BEL or ST (`ESC \\`).
fn skip_until_string_end(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(c) = chars.next() {
        match c {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_table() {
        let cases = [
            ("", 3, "…", ""),
            ("abc", 3, "…", "abc"),
            ("abcd", 3, "…", "abc…"),
            ("ééé", 2, "…", "éé…"),
            ("a long name", 4, "...", "a lo..."),
        ];
        for (text, max, marker, want) in cases {
            assert_eq!(truncate(text, max, marker), want, "{text:?} {max}");
        }
    }

    #[test]
    fn sanitize_table() {
        let cases = [
            ("Finish Cancellation", "Finish Cancellation"),
            ("\u{1b}[2J\u{1b}[Happroved", "approved"),
            ("red \u{1b}[31mtext\u{1b}[0m", "red text"),
            ("title\u{1b}]0;pwned\u{7} after", "title after"),
            ("st\u{1b}]8;;http://x\u{1b}\\link", "stlink"),
            ("line one\nline two\r\n", "line one / line two"),
            ("bell\u{7}\u{8}\u{0}", "bell"),
            ("tab\there", "tab here"),
            ("c1 \u{9b}31mcsi", "c1 csi"),
            ("rtl \u{202e}lanigiro", "rtl lanigiro"),
            ("press y\u{1b}7\u{1b}8", "press y"),
        ];
        for (text, want) in cases {
            assert_eq!(sanitize(text), want, "{text:?}");
        }
    }
}
