//! The page as the compact toolset shows it: the elements
//! worth acting on or reading, ranked and capped, numbered `@e0…` in
//! document order, as one JSON object.

use std::collections::HashMap;

use serde::Serialize;

use super::geometry::{BBox, Viewport, Visibility, visibility};
use crate::agent::history::estimate_tokens;
use crate::page::{Element, Snapshot};

/// At most this many elements per snapshot; the lowest-ranked are dropped.
pub const MAX_ELEMENTS: usize = 100;
/// Accessible names are cut at this many characters.
pub const MAX_NAME_CHARS: usize = 200;
/// The hard limit for a snapshot's elements (2,000 tokens), kept with a
/// margin because [`estimate_tokens`] only approximates a real tokenizer.
pub const SNAPSHOT_TOKEN_LIMIT: usize = 1800;
/// Options listed per dropdown; the rest are counted, not named.
pub const MAX_OPTIONS: usize = 25;

/// Roles always kept, plus the inputs that are natively focusable (the
/// tree has no tabindex, so focusable roles stand in for focusability).
const INTERACTIVE: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "textbox",
    "combobox",
    "listbox",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "tab",
    "switch",
    "slider",
    "searchbox",
    "spinbutton",
    "treeitem",
];
/// Landmarks, always kept.
const LANDMARKS: &[&str] = &["region", "dialog", "alert", "alertdialog"];
/// Headings deeper than this are left out.
const MAX_HEADING_LEVEL: u8 = 3;
/// Roles that carry their own checked state.
const CHECKABLE: &[&str] = &[
    "checkbox",
    "radio",
    "switch",
    "menuitemcheckbox",
    "menuitemradio",
];

/// One element the model can name, with what it needs to pick it.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    #[serde(rename = "ref")]
    pub reference: String,
    pub role: String,
    pub name: String,
    /// Only what differs from the default "visible, enabled": the state
    /// values, minus the two every element would repeat.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub state: Vec<String>,
    /// `[x, y, width, height]` in viewport CSS pixels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bbox: Option<[i64; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// For dropdowns: what `browser_select` can choose.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// For landmarks: the refs inside them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PageInfo {
    pub url: String,
    pub title: String,
}

/// The snapshot the model sees; `snapshot_id` comes first so old copies can
/// be found and shrunk in the history.
#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub snapshot_id: String,
    pub page: PageInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Viewport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub focused: Option<String>,
    pub elements: Vec<Item>,
    /// Text and structure left out because it is off screen
    /// (viewport_only); off-screen controls are listed, marked `offscreen`.
    #[serde(skip_serializing_if = "is_zero")]
    pub offscreen: usize,
    /// Elements left out by the element and token caps.
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated: usize,
    /// Path of the screenshot, only under `--vision`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What [`build`] works from besides the tree.
#[derive(Debug, Clone, Default)]
pub struct Layout<'a> {
    pub boxes: Option<&'a HashMap<String, BBox>>,
    pub viewport: Option<Viewport>,
    pub pointer: &'a [String],
    pub viewport_only: bool,
}

/// The view of `snapshot` and, for each `@eN`, the element it names.
pub fn build(snapshot: &Snapshot, layout: &Layout<'_>, id: String) -> (View, Vec<Element>) {
    let elements = &snapshot.elements;
    let mut offscreen = 0;
    let mut candidates: Vec<Candidate> = Vec::new();
    for (index, element) in elements.iter().enumerate() {
        let Some(reference) = &element.reference else {
            // Playwright gives every element it can see a ref; no ref means
            // hidden or zero-sized, nothing the model can act on.
            continue;
        };
        if !included(element, layout.pointer.contains(reference)) {
            continue;
        }
        let bbox = layout.boxes.and_then(|b| b.get(reference)).copied();
        let seen = visibility(bbox.as_ref(), layout.viewport.as_ref());
        // A control below the fold is listed, without its box: a click
        // scrolls it into view, so the model needs no scroll turn to find
        // it. Text and structure off screen are only counted.
        let mut bbox = bbox;
        if layout.viewport_only && seen == Visibility::Offscreen {
            if !INTERACTIVE.contains(&element.role.as_str()) {
                offscreen += 1;
                continue;
            }
            bbox = None;
        }
        candidates.push(Candidate {
            index,
            seen,
            priority: priority(&element.role),
            bbox,
        });
    }
    let total = candidates.len();
    let mut ranked: Vec<usize> = (0..candidates.len()).collect();
    ranked.sort_by_key(|&c| {
        let c = &candidates[c];
        (c.seen, c.priority, c.index)
    });
    ranked.truncate(MAX_ELEMENTS);

    let mut view = View {
        snapshot_id: id,
        page: PageInfo {
            url: snapshot.url.clone(),
            title: cut(&snapshot.title),
        },
        viewport: layout.viewport,
        focused: None,
        elements: Vec::new(),
        offscreen,
        truncated: 0,
        screenshot: None,
    };
    // Spend the token budget in rank order; the placeholder ref is as long
    // as any real one.
    let mut spent = estimate_tokens(&serde_json::to_string(&view).unwrap_or_default());
    let mut kept = Vec::new();
    for c in ranked {
        let item = item(
            elements,
            &candidates[c],
            "@e99".into(),
            layout.viewport.is_some(),
        );
        let cost = estimate_tokens(&serde_json::to_string(&item).unwrap_or_default()) + 1;
        if spent + cost > SNAPSHOT_TOKEN_LIMIT {
            continue;
        }
        spent += cost;
        kept.push(c);
    }
    kept.sort_unstable();
    view.truncated = total - kept.len();

    let mut targets = Vec::with_capacity(kept.len());
    let mut ref_of: HashMap<usize, String> = HashMap::new();
    for (n, &c) in kept.iter().enumerate() {
        let candidate = &candidates[c];
        let reference = format!("@e{n}");
        ref_of.insert(candidate.index, reference.clone());
        let item = item(elements, candidate, reference, layout.viewport.is_some());
        if item.state.iter().any(|s| s == "focused") {
            view.focused = Some(item.reference.clone());
        }
        view.elements.push(item);
        targets.push(elements[candidate.index].clone());
    }
    for (n, &c) in kept.iter().enumerate() {
        let index = candidates[c].index;
        if LANDMARKS.contains(&elements[index].role.as_str()) {
            view.elements[n].children = subtree(elements, index)
                .filter_map(|i| ref_of.get(&i).cloned())
                .collect();
        }
    }
    (view, targets)
}

struct Candidate {
    index: usize,
    seen: Visibility,
    priority: u8,
    bbox: Option<BBox>,
}

/// Whether the view keeps an element: controls, landmarks, top headings
/// and what shows a pointer cursor; never layout roles or bare text.
fn included(element: &Element, pointer: bool) -> bool {
    let role = element.role.as_str();
    match role {
        "generic" | "presentation" | "none" | "separator" | "text" => false,
        "heading" => element.level.is_none_or(|l| l <= MAX_HEADING_LEVEL),
        _ => INTERACTIVE.contains(&role) || LANDMARKS.contains(&role) || pointer,
    }
}

/// Role priority when elements must go, lower kept first.
fn priority(role: &str) -> u8 {
    match role {
        "button" | "link" => 0,
        "checkbox" | "radio" | "textbox" | "searchbox" | "spinbutton" | "switch" => 1,
        "combobox" | "listbox" => 2,
        "heading" => 3,
        "region" | "dialog" | "alert" | "alertdialog" => 4,
        _ => 5,
    }
}

fn item(elements: &[Element], c: &Candidate, reference: String, geometry: bool) -> Item {
    let element = &elements[c.index];
    let mut state = states(element);
    if geometry && c.seen == Visibility::Offscreen {
        state.insert(0, "offscreen".into());
    }
    let options: Vec<&Element> = if matches!(element.role.as_str(), "combobox" | "listbox") {
        subtree(elements, c.index)
            .map(|i| &elements[i])
            .filter(|e| e.role == "option")
            .collect()
    } else {
        Vec::new()
    };
    let mut listed: Vec<String> = options
        .iter()
        .take(MAX_OPTIONS)
        .map(|o| cut(&o.name))
        .collect();
    if options.len() > MAX_OPTIONS {
        listed.push(format!("…{} more", options.len() - MAX_OPTIONS));
    }
    Item {
        reference,
        role: element.role.clone(),
        name: cut(&element.name),
        state,
        bbox: c.bbox.map(|b| [b.x, b.y, b.width, b.height]),
        value: element.value.as_deref().map(cut),
        level: element.level,
        options: listed,
        children: Vec::new(),
    }
}

/// The element's states, from Playwright's attributes.
fn states(element: &Element) -> Vec<String> {
    let mut out = Vec::new();
    for s in &element.states {
        let mapped = match s.as_str() {
            "disabled" => "disabled",
            "checked" | "checked=true" => "checked",
            "checked=mixed" => "mixed",
            "expanded" | "expanded=true" => "expanded",
            "expanded=false" => "collapsed",
            "active" => "focused",
            "readonly" => "readonly",
            "busy" => "busy",
            "selected" => "selected",
            "pressed" => "pressed",
            _ => continue,
        };
        out.push(mapped.to_owned());
    }
    if CHECKABLE.contains(&element.role.as_str())
        && !out.iter().any(|s| s == "checked" || s == "mixed")
    {
        out.push("unchecked".into());
    }
    out
}

/// Indices of the elements nested under `index`.
fn subtree(elements: &[Element], index: usize) -> impl Iterator<Item = usize> + '_ {
    let depth = elements[index].depth;
    (index + 1..elements.len()).take_while(move |&i| elements[i].depth > depth)
}

/// At most [`MAX_NAME_CHARS`] characters, then "...".
pub fn cut(text: &str) -> String {
    crate::text::truncate(text, MAX_NAME_CHARS, "...").into_owned()
}

/// Whether the element at `index` is inside `ancestor` (both indices of
/// `elements`).
pub fn is_inside(elements: &[Element], ancestor: usize, index: usize) -> bool {
    index > ancestor && subtree(elements, ancestor).any(|i| i == index)
}

#[cfg(test)]
mod tests;
