//! Playwright's accessibility tree (its YAML form) into [`Element`]s.
//!
//! A line is `- role "name" [attr] [attr=value]`, optionally followed by
//! `: text` or by `:` and indented children; properties are children written
//! `- /url: …`, `- /placeholder: …`; bare text is `- text: …`. Keys that need
//! it are single-quoted, names are JSON strings, values YAML scalars. The
//! format is line-oriented, so this is a line parser rather than a YAML one:
//! it is ten times faster and never fails.

use crate::page::Element;

/// Roles whose inline text or `text` child is the value the user typed or chose.
const INPUT_ROLES: &[&str] = &[
    "textbox",
    "searchbox",
    "combobox",
    "spinbutton",
    "slider",
    "listbox",
];

/// Attributes that carry no meaning for the host.
const IGNORED_ATTRS: &[&str] = &["cursor", "box"];

/// All elements of the tree, in document order.
pub fn parse_tree(yaml: &str) -> Vec<Element> {
    let mut elements: Vec<Element> = Vec::new();
    // (depth, index) of the elements that may still receive children.
    let mut open: Vec<(u16, usize)> = Vec::new();
    for line in yaml.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let Some(item) = rest.strip_prefix("- ") else {
            continue;
        };
        let depth = u16::try_from(indent / 2).unwrap_or(u16::MAX);
        while open.last().is_some_and(|(d, _)| *d >= depth) {
            open.pop();
        }
        let parent = open.last().map(|(_, i)| *i);
        match parse_entry(item) {
            Entry::Property { name, value } => {
                if let Some(p) = parent.and_then(|p| elements.get_mut(p))
                    && name == "url"
                {
                    p.url = Some(value);
                }
            }
            Entry::Text(text) => {
                let parent = parent.and_then(|p| elements.get_mut(p));
                match parent {
                    Some(p) if is_input(&p.role) && p.value.is_none() => p.value = Some(text),
                    _ => elements.push(Element {
                        role: "text".to_owned(),
                        name: text,
                        depth,
                        ..Element::default()
                    }),
                }
            }
            Entry::Node(mut element) => {
                element.depth = depth;
                if element.role == "option"
                    && element.has_state("selected")
                    && let Some(p) = parent.and_then(|p| elements.get_mut(p))
                    && is_input(&p.role)
                    && p.value.is_none()
                {
                    p.value = Some(element.name.clone());
                }
                open.push((depth, elements.len()));
                elements.push(element);
            }
            Entry::Unknown => {}
        }
    }
    elements
}

fn is_input(role: &str) -> bool {
    INPUT_ROLES.contains(&role)
}

#[derive(Debug, PartialEq)]
enum Entry {
    Node(Element),
    Property { name: String, value: String },
    Text(String),
    Unknown,
}

fn parse_entry(item: &str) -> Entry {
    if let Some(prop) = item.strip_prefix('/') {
        let (name, value) = prop.split_once(':').unwrap_or((prop, ""));
        return Entry::Property {
            name: name.to_owned(),
            value: scalar(value),
        };
    }
    let unquoted;
    let (key, value) = if item.starts_with('\'') {
        let Some((key, after)) = single_quoted(item) else {
            return Entry::Unknown;
        };
        unquoted = key;
        (unquoted.as_str(), after.strip_prefix(':'))
    } else {
        split_key(item)
    };
    let Some(mut element) = parse_key(key) else {
        return Entry::Unknown;
    };
    let value = value.map(scalar).filter(|v| !v.is_empty());
    if element.role == "text" && element.name.is_empty() && element.reference.is_none() {
        return Entry::Text(value.unwrap_or_default());
    }
    element.value = value;
    Entry::Node(element)
}

/// Splits an unquoted `key: value` / `key:` / `key` at the colon that ends the
/// key, skipping colons inside the JSON-quoted name and the `[…]` attributes.
fn split_key(item: &str) -> (&str, Option<&str>) {
    let bytes = item.as_bytes();
    let mut i = 0;
    let mut in_string = false;
    let mut in_attr = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' if !in_attr => in_string = !in_string,
            b'[' if !in_string => in_attr = true,
            b']' if !in_string => in_attr = false,
            b':' if !in_string && !in_attr => return (&item[..i], Some(&item[i + 1..])),
            _ => {}
        }
        i += 1;
    }
    (item, None)
}

/// `'it''s a key': value` → (`it's a key`, `: value`).
fn single_quoted(item: &str) -> Option<(String, &str)> {
    let body = item.strip_prefix('\'')?;
    let mut key = String::new();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' {
            if chars.peek().is_some_and(|(_, n)| *n == '\'') {
                chars.next();
                key.push('\'');
                continue;
            }
            return Some((key, &body[i + 1..]));
        }
        key.push(c);
    }
    None
}

/// `role "name" [attr] [attr=value]` into an element (without value/depth).
fn parse_key(key: &str) -> Option<Element> {
    let key = key.trim();
    let role_end = key.find([' ', '"', '[']).unwrap_or(key.len());
    let role = &key[..role_end];
    if role.is_empty() {
        return None;
    }
    let mut element = Element {
        role: role.to_owned(),
        ..Element::default()
    };
    let mut rest = key[role_end..].trim_start();
    if rest.starts_with('"') {
        let (name, after) = json_string(rest)?;
        element.name = name;
        rest = after.trim_start();
    } else if let Some(regex) = rest.strip_prefix('/') {
        // Regex names appear in templates, not snapshots; keep the source.
        let end = regex.find("/ ").or_else(|| regex.rfind('/'))?;
        element.name = regex[..end].to_owned();
        rest = regex[end + 1..].trim_start();
    }
    while let Some(attr) = rest.strip_prefix('[') {
        let end = attr.find(']')?;
        apply_attr(&mut element, &attr[..end]);
        rest = attr[end + 1..].trim_start();
    }
    Some(element)
}

fn apply_attr(element: &mut Element, attr: &str) {
    match attr.split_once('=') {
        Some(("ref", r)) => element.reference = Some(r.to_owned()),
        Some(("level", l)) => element.level = l.parse().ok(),
        Some((name, _)) if IGNORED_ATTRS.contains(&name) => {}
        _ => element.states.push(attr.to_owned()),
    }
}

/// A YAML scalar as Playwright writes it: plain, `"double"` or `'single'`.
fn scalar(raw: &str) -> String {
    let raw = raw.trim();
    let unquoted = if raw.starts_with('"') {
        json_string(raw).map(|(s, _)| s)
    } else if raw.starts_with('\'') {
        single_quoted(raw).map(|(s, _)| s)
    } else {
        None
    };
    unquoted.unwrap_or_else(|| raw.to_owned())
}

/// A double-quoted string at the start of `s` (JSON escapes plus YAML's
/// `\xNN`), and what follows it.
fn json_string(s: &str) -> Option<(String, &str)> {
    let body = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &body[i + 1..])),
            '\\' => {
                let (_, e) = chars.next()?;
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    '0' => out.push('\0'),
                    'x' => out.push(hex_char(&mut chars, 2)?),
                    'u' => {
                        let high = hex_code(&mut chars, 4)?;
                        if (0xD800..0xDC00).contains(&high) {
                            // A surrogate pair: `\uD83D\uDE00`.
                            let (_, b) = chars.next()?;
                            let (_, u) = chars.next()?;
                            if b != '\\' || u != 'u' {
                                return None;
                            }
                            let low = hex_code(&mut chars, 4)?;
                            let code =
                                0x10000 + ((high - 0xD800) << 10) + (low.checked_sub(0xDC00)?);
                            out.push(char::from_u32(code)?);
                        } else {
                            out.push(char::from_u32(high).unwrap_or('\u{fffd}'));
                        }
                    }
                    other => out.push(other),
                }
            }
            c => out.push(c),
        }
    }
    None
}

fn hex_code(chars: &mut std::str::CharIndices<'_>, digits: usize) -> Option<u32> {
    let mut code = 0;
    for _ in 0..digits {
        let (_, c) = chars.next()?;
        code = code * 16 + c.to_digit(16)?;
    }
    Some(code)
}

fn hex_char(chars: &mut std::str::CharIndices<'_>, digits: usize) -> Option<char> {
    char::from_u32(hex_code(chars, digits)?)
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
