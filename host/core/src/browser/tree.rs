//! Playwright's accessibility tree (its YAML form) into [`Element`]s.
//!
//! A line is `- role "name" [attr] [attr=value]`, optionally followed by
//! `: text` or by `:` and indented children; properties are children written
//! `- /url: …`, `- /placeholder: …`; bare text is `- text: …`. Keys that need
//! it are single-quoted, names are JSON strings, values YAML scalars. The
//! format is line-oriented, so this is a line parser rather than a YAML one:
//! it is ten times faster and never fails.

use crate::page::Element;
use crate::page::yaml::{json_string, scalar, single_quoted, split_key};

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

#[cfg(test)]
mod tests;
