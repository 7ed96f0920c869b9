//! What a page looks like to the rest of the host: the normalised snapshot
//! (URL, title and accessibility tree as text) that the browser layer
//! produces, the plugins judge, and the agent shows the model.

pub mod mask;
pub mod overlay;
pub mod password_wall;
pub(crate) mod yaml;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One element of the accessibility tree.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Element {
    /// Playwright's ref (`e8`, `f1e4`): valid for the snapshot it came from only.
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    pub role: String,
    /// Accessible name; empty when the element has none.
    pub name: String,
    /// disabled, checked, expanded, selected, active, …
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// Link target, for links.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Current text of an input, when the tree shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Depth in the tree, 0 for the root's children.
    #[serde(default)]
    pub depth: u16,
}

impl Element {
    pub fn has_state(&self, state: &str) -> bool {
        self.states.iter().any(|s| s == state)
    }
}

/// What the host read from the DOM itself about the target of a
/// state-changing action, with its own browser call: never the model's words,
/// and not the accessible name, which a page can set to anything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElementFacts {
    /// The text a person sees on the element (`innerText`, or an input's value).
    pub visible_text: String,
    /// Lower-case tag name: `button`, `a`, `input`, `select`.
    pub tag: String,
    /// An input's or button's `type`: `submit`, `text`, `checkbox`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_type: Option<String>,
    /// The absolute URL of the link the element is or sits in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub href: Option<String>,
    /// The absolute URL the element's form submits to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form_action: Option<String>,
    /// `get` or `post`, for an element inside a form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form_method: Option<String>,
}

/// A dialog the page opened (`alert`, `confirm`, `prompt`, `beforeunload`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dialog {
    pub kind: String,
    pub message: String,
}

/// The page at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub url: String,
    pub title: String,
    /// The accessibility tree as text (Playwright's YAML form).
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot_path: Option<PathBuf>,
    pub elements: Vec<Element>,
}

impl Snapshot {
    /// The element Playwright calls `reference` in this snapshot.
    pub fn element(&self, reference: &str) -> Option<&Element> {
        self.elements
            .iter()
            .find(|e| e.reference.as_deref() == Some(reference))
    }

    /// Whether `other` shows the same step of the page: the same address,
    /// title and elements (role, name, value, link, depth and state), where
    /// which element has focus does not count, since a click moves it.
    pub fn same_step(&self, other: &Snapshot) -> bool {
        fn unfocused(e: &Element) -> impl Iterator<Item = &String> {
            e.states
                .iter()
                .filter(|s| !FOCUS_STATES.contains(&s.as_str()))
        }
        self.url == other.url
            && self.title == other.title
            && self.elements.len() == other.elements.len()
            && self.elements.iter().zip(&other.elements).all(|(a, b)| {
                a.role == b.role
                    && a.name == b.name
                    && a.value == b.value
                    && a.url == b.url
                    && a.level == b.level
                    && a.depth == b.depth
                    && unfocused(a).eq(unfocused(b))
            })
    }
}

/// The states that say where focus is (Playwright's `[active]`).
const FOCUS_STATES: &[&str] = &["active", "focused"];

/// `scheme://host:port` of a URL, or `None` when it has no such origin.
pub fn origin_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    match parsed.origin() {
        origin @ url::Origin::Tuple(..) => Some(origin.ascii_serialization()),
        url::Origin::Opaque(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{Element, Snapshot};

    fn button(name: &str, states: &[&str]) -> Element {
        Element {
            reference: Some("e3".into()),
            role: "button".into(),
            name: name.into(),
            states: states.iter().map(|s| (*s).to_owned()).collect(),
            level: None,
            url: None,
            value: None,
            depth: 1,
        }
    }

    fn page(url: &str, elements: Vec<Element>) -> Snapshot {
        Snapshot {
            url: url.into(),
            title: "Account".into(),
            content: String::new(),
            screenshot_path: None,
            elements,
        }
    }

    #[test]
    fn the_same_step_is_told_apart_from_a_step_that_moved_on() {
        let clicked = page("http://127.0.0.1/a", vec![button("Cancel Membership", &[])]);
        let cases = [
            (
                "focus moved to the button",
                page(
                    "http://127.0.0.1/a",
                    vec![button("Cancel Membership", &["active"])],
                ),
                true,
            ),
            (
                "a ref renumbered only",
                page("http://127.0.0.1/a", {
                    let mut b = button("Cancel Membership", &[]);
                    b.reference = Some("e9".into());
                    vec![b]
                }),
                true,
            ),
            (
                "the next step drawn",
                page(
                    "http://127.0.0.1/a",
                    vec![button("Continue to cancel", &[])],
                ),
                false,
            ),
            (
                "the button disabled",
                page(
                    "http://127.0.0.1/a",
                    vec![button("Cancel Membership", &["disabled"])],
                ),
                false,
            ),
            (
                "another address",
                page("http://127.0.0.1/b", vec![button("Cancel Membership", &[])]),
                false,
            ),
            (
                "an element more",
                page(
                    "http://127.0.0.1/a",
                    vec![button("Cancel Membership", &[]), button("Keep", &[])],
                ),
                false,
            ),
        ];
        for (what, after, same) in cases {
            assert_eq!(clicked.same_step(&after), same, "{what}");
        }
    }
}
