//! Why a file was refused, with the line and key a person goes to fix.

use std::fmt;
use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::limits::{MAX_MESSAGE_CHARS, MAX_QUOTED_CHARS};

/// A `service.toml` the format refuses.
///
/// Displays as `line 12: unknown key `colour`: expected one of …` or
/// `line 4: service.goal: 2400 characters is over the 2000 limit`. Every part
/// taken from the file is quoted with control characters escaped and cut
/// short, so the text is safe to print as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct FileError {
    /// 1-based line the problem is on, when it can be placed.
    pub line: Option<usize>,
    /// The key, or dotted path to it (`service.goal`,
    /// `plan[2].targets[0].name`); for an unknown key, the key as written.
    pub key: Option<String>,
    /// What sort of problem it is; an unknown key displays differently.
    pub kind: ErrorKind,
    /// What is wrong, without the line and key.
    pub message: String,
}

/// What sort of problem a [`FileError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Over [`crate::MAX_FILE_BYTES`]; not parsed at all.
    TooLarge,
    /// Not TOML.
    Syntax,
    /// A key the format does not have.
    UnknownKey,
    /// TOML, but not this shape: a missing key, a wrong type, an unknown
    /// value of an enumerated key.
    Schema,
    /// A bound of the format broken: a length, a count, a scheme, the API
    /// version.
    Bound,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        match (&self.key, self.kind) {
            (Some(key), ErrorKind::UnknownKey) => {
                write!(f, "unknown key `{key}`: {}", self.message)
            }
            (Some(key), _) => write!(f, "{key}: {}", self.message),
            (None, _) => f.write_str(&self.message),
        }
    }
}

/// `text` made safe to show: control and bidirectional-override characters
/// escaped (a key can be any quoted string, and an error is printed on a
/// terminal), and cut to [`MAX_QUOTED_CHARS`].
pub(crate) fn printable(text: &str) -> String {
    cut_escaped(text, MAX_QUOTED_CHARS)
}

/// `text` with forbidden characters escaped, cut to `max_chars`.
fn cut_escaped(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == max_chars {
            out.push('…');
            break;
        }
        if is_forbidden_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// Characters no string in the file may hold: C0 and C1 controls (an escape
/// sequence can rewrite a terminal) and the bidirectional overrides, which
/// make a reason read other than it is at the prompt where a human decides.
pub(crate) fn is_forbidden_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// A `toml` error (syntax or schema) as a [`FileError`], placed by its span.
pub(crate) fn from_toml(
    text: &str,
    root: Option<&DeTable<'_>>,
    error: &toml::de::Error,
) -> FileError {
    let span = error.span();
    let line = span.as_ref().map(|s| line_of(text, s.start));
    let raw = error.message().trim();
    if let Some((key, expected)) = unknown_field(raw) {
        return FileError {
            line,
            key: Some(printable(key)),
            kind: ErrorKind::UnknownKey,
            message: printable_message(expected),
        };
    }
    let Some(root) = root else {
        return FileError {
            line,
            key: None,
            kind: ErrorKind::Syntax,
            message: printable_message(raw),
        };
    };
    if let Some(field) = between_ticks(raw, "missing field ") {
        // The span is the table's that lacks the key; the document's own
        // matches no table below it.
        let key = match span.and_then(|s| table_with_span(root, &s)) {
            Some(table) => format!("{table}.{field}"),
            None => field.to_owned(),
        };
        return FileError {
            line,
            key: Some(printable(&key)),
            kind: ErrorKind::Schema,
            message: "is required but missing".into(),
        };
    }
    // Serde's own messages name no key: the span does.
    let key = span.and_then(|s| path_at(root, s.start));
    FileError {
        line,
        key: key.map(|k| printable(&k)),
        kind: ErrorKind::Schema,
        message: printable_message(raw),
    }
}

/// A refusal by the bounds, placed by finding its key in the parsed text.
pub(crate) fn bound(text: &str, root: &DeTable<'_>, key: String, message: String) -> FileError {
    FileError {
        line: span_of(root, &key).map(|s| line_of(text, s.start)),
        key: Some(key),
        kind: ErrorKind::Bound,
        message,
    }
}

/// Serde's "unknown field `x`, expected one of `a`, `b`": the key, and what
/// follows it. Serde says "unknown field" for every struct key it does not
/// know, however deep.
fn unknown_field(message: &str) -> Option<(&str, &str)> {
    let key = between_ticks(message, "unknown field ")?;
    let rest = message
        .split_once(&format!("`{key}`"))
        .map_or("", |(_, rest)| rest);
    let expected = rest.trim_start_matches([',', ' ']);
    Some((
        key,
        if expected.is_empty() {
            "not a key here"
        } else {
            expected
        },
    ))
}

/// The text between backticks right after `prefix` in `message`.
fn between_ticks<'a>(message: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = message.strip_prefix(prefix)?.strip_prefix('`')?;
    rest.split_once('`').map(|(inner, _)| inner)
}

/// One of `toml`'s messages made printable. Serde's quote the offending
/// value ("invalid type: string \"…\""), which can be long: each word is cut
/// like a key, and the whole to [`MAX_MESSAGE_CHARS`].
fn printable_message(message: &str) -> String {
    let words: Vec<String> = message.split_whitespace().map(printable).collect();
    cut_escaped(&words.join(" "), MAX_MESSAGE_CHARS)
}

/// The dotted path (`plan[1].targets[0].name`) to the key or value whose
/// span holds byte `offset`. A table's own span covers its header, not its
/// body, so every branch is searched; this runs only on a refused file.
fn path_at(table: &DeTable<'_>, offset: usize) -> Option<String> {
    table.iter().find_map(|(key, value)| {
        if key.span().contains(&offset) {
            return Some(key.get_ref().to_string());
        }
        path_in_value(value, offset).map(|rest| format!("{}{rest}", key.get_ref()))
    })
}

/// The rest of the path (`[0].name`, `.goal`, or nothing for the value
/// itself) to `offset` inside `value`.
fn path_in_value(value: &Spanned<DeValue<'_>>, offset: usize) -> Option<String> {
    let inner = match value.get_ref() {
        DeValue::Table(table) => path_at(table, offset).map(|rest| format!(".{rest}")),
        DeValue::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(at, item)| path_in_value(item, offset).map(|rest| format!("[{at}]{rest}"))),
        _ => None,
    };
    inner.or_else(|| value.span().contains(&offset).then(String::new))
}

/// The dotted path of the table whose own span is exactly `span`.
fn table_with_span(table: &DeTable<'_>, span: &Range<usize>) -> Option<String> {
    table.iter().find_map(|(key, value)| {
        table_in_value(value, span).map(|rest| format!("{}{rest}", key.get_ref()))
    })
}

fn table_in_value(value: &Spanned<DeValue<'_>>, span: &Range<usize>) -> Option<String> {
    match value.get_ref() {
        DeValue::Table(_) if value.span() == *span => Some(String::new()),
        DeValue::Table(table) => table_with_span(table, span).map(|rest| format!(".{rest}")),
        DeValue::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(at, item)| table_in_value(item, span).map(|rest| format!("[{at}]{rest}"))),
        _ => None,
    }
}

/// Span of the key (or list entry) a dotted path names, as far as the path
/// can be followed.
fn span_of(root: &DeTable<'_>, path: &str) -> Option<Range<usize>> {
    let mut found: Option<Range<usize>> = None;
    let mut current: Option<&Spanned<DeValue<'_>>> = None;
    for segment in path.split('.') {
        let (name, indices) = segment.split_once('[').unwrap_or((segment, ""));
        let table = match current.map(Spanned::get_ref) {
            None => root,
            Some(DeValue::Table(table)) => table,
            Some(_) => break,
        };
        let Some((key, value)) = table.iter().find(|(k, _)| k.get_ref() == name) else {
            break;
        };
        found = Some(key.span());
        current = Some(value);
        for index in indices.split('[').filter(|i| !i.is_empty()) {
            let Some(item) = index
                .trim_end_matches(']')
                .parse::<usize>()
                .ok()
                .and_then(|at| current?.get_ref().as_array()?.get(at))
            else {
                return found;
            };
            found = Some(item.span());
            current = Some(item);
        }
    }
    found
}
