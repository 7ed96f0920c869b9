//! What a page looks like to the rest of the host: the normalised snapshot
//! (seed 000 §2.5.2) that the browser layer produces, the plugins judge, and
//! the agent shows the model.

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
}
