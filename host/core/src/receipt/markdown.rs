//! The receipt as a short Markdown note. Every string a page, a plugin or a
//! model supplied is written so that it shows as itself: prose escaped
//! (no emphasis, link, image, HTML tag or autolink can form, and no line
//! break can start a heading or a list), URLs and targets as code spans,
//! the page's text as a fenced block. A confirmation page titled
//! `[Restart](https://evil.example)` reads as those characters.

use std::fmt::Write as _;

use super::{Receipt, cost, excerpt, times};
use crate::audit::{Audit, NOT_ADVICE};

/// Characters with a meaning in Markdown inline text (CommonMark and
/// GitHub's extensions: tables, strikethrough, autolinks): each gets a
/// backslash. `#` and `>` only mean something at a line's start, which a
/// value never reaches (line breaks become spaces); they are escaped all
/// the same, as cheap insurance.
const INLINE_SPECIAL: &[char] = &[
    '\\', '`', '*', '_', '[', ']', '<', '>', '!', '|', '~', '&', '#', '@',
];

/// Line breaks of every kind a page can send.
fn is_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{0b}' | '\u{0c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// Page-supplied prose, shown literally on one line.
pub(super) fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    let chars: Vec<char> = value.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = |n: usize| chars.get(i + n).copied();
        if is_break(c) {
            out.push(' ');
            continue;
        }
        // GitHub links `https://…` and `www.…` by themselves; a backslash
        // before the `:` or the `.` leaves them plain text.
        let autolink_colon = c == ':' && next(1) == Some('/') && next(2) == Some('/');
        let autolink_dot = c == '.'
            && i >= 3
            && chars[i - 3..i]
                .iter()
                .collect::<String>()
                .eq_ignore_ascii_case("www");
        if INLINE_SPECIAL.contains(&c) || autolink_colon || autolink_dot {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The longest run of backticks in `value`.
fn longest_backtick_run(value: &str) -> usize {
    value.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// A URL or a target as an inline code span: nothing inside is read as
/// Markdown. The fence is longer than any run of backticks inside.
pub(super) fn code(value: &str) -> String {
    let one_line: String = value
        .chars()
        .map(|c| if is_break(c) { ' ' } else { c })
        .collect();
    if one_line.trim().is_empty() {
        // Two bare backticks are no code span; one space between reads as an empty one.
        return "` `".to_owned();
    }
    let fence = "`".repeat(longest_backtick_run(&one_line) + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{one_line}{pad}{fence}")
}

/// Page text as a fenced block: shown as it was, line by line, read as
/// nothing. The fence is longer than any run of backticks inside.
pub(super) fn block(value: &str) -> String {
    let lines: Vec<&str> = value.split(is_break).collect();
    let fence = "`".repeat(longest_backtick_run(value).max(2) + 1);
    format!("{fence}text\n{}\n{fence}", lines.join("\n"))
}

pub fn markdown(r: &Receipt) -> String {
    let (utc, local) = times(r);
    let c = &r.confirmation;
    let mut out = format!(
        "# {name}: cancellation confirmed\n\n\
         - Confirmed at: {utc} ({local})\n\
         - Confirmation page: {url}\n\
         - Page title: {title}\n",
        name = text(&r.display_name),
        url = code(&c.url),
        title = text(&c.title),
    );
    for (n, a) in r.approvals.iter().enumerate() {
        let target = a
            .target
            .as_deref()
            .map(|t| format!(" {}", code(t)))
            .unwrap_or_default();
        let shows = a
            .shows
            .as_deref()
            .map(|s| format!(", showing “{}”", text(s)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- Approval {}: {}{target} on {}{shows}: asked {}, {} {}",
            n + 1,
            text(&a.action),
            code(&a.url),
            text(&a.asked_at),
            text(&a.answer),
            text(&a.answered_at),
        );
    }
    let _ = write!(
        out,
        "- Plugin: {} {} (sha256 {})\n\
         - Model: {}; {} turns; {} input and {} output tokens; cost {}\n\
         - Steps taken: {}\n\
         - Run: {} (record fingerprint {})\n\n",
        text(&r.plugin_id),
        text(&r.plugin_version),
        code(&r.plugin_sha256),
        text(&r.model),
        r.turns,
        r.input_tokens,
        r.output_tokens,
        text(&cost(r)),
        text(&r.steps.describe()),
        code(&r.run_id),
        code(&r.fingerprint),
    );
    audit(&mut out, &r.audit);
    let _ = write!(
        out,
        "The page said:\n\n{}\n\n\
         Full receipt with screenshots: receipt.html (and receipt.pdf).\n\n",
        block(&excerpt(&c.text)),
    );
    signature(&mut out, r);
    out
}

/// Who signed, and how anyone checks it: the same words as the HTML's.
fn signature(out: &mut String, r: &Receipt) {
    let Some(signed) = &r.signed else {
        let _ = writeln!(
            out,
            "Not signed: this machine had no signing key. Check the record with {}.",
            code(&format!("subterminator runs verify {}", r.run_id))
        );
        return;
    };
    let s = &signed.statement;
    let _ = write!(
        out,
        "## Signature\n\n\
         - Signed by: {} with key {}\n\
         - Signed at: {}\n\
         - Record head: {} (transcript line {})\n\
         - Signature: {}\n\n\
         Anyone holding the public key can check this file, which carries the record: {}\n\n\
         The signature is over these words:\n\n{}\n",
        text(&s.signer),
        code(&s.key.to_string()),
        text(&s.signed_at),
        code(&s.head),
        s.lines,
        code(&signed.signature()),
        code(&format!(
            "subterminator runs verify receipt.md --key {}",
            s.key
        )),
        block(&s.text()),
    );
}

/// What stood in the way, as the HTML says it.
fn audit(out: &mut String, audit: &Audit) {
    let path: Vec<String> = audit.screens.iter().map(|s| text(&s.name)).collect();
    let _ = write!(
        out,
        "## What stood in the way\n\n{} screen(s) before the final step: {}.\n\n",
        audit.screens.len(),
        path.join(" → ")
    );
    if audit.is_clean() {
        out.push_str("Nothing in the way.\n\n");
    }
    for f in &audit.findings {
        let _ = writeln!(
            out,
            "- **{}** on “{}” ({}): {}",
            f.kind.title(),
            text(&f.screen),
            code(&f.url),
            text(&f.sentence())
        );
        for rule in &f.rules {
            let _ = writeln!(out, "  - {}: {}", rule.name(), rule.says());
        }
    }
    if !audit.is_clean() {
        out.push('\n');
    }
    let _ = write!(out, "_{NOT_ADVICE}_\n\n");
}
