//! A `when` or `unless`, prepared once when the file is loaded and then
//! tested on every call: every key given must hold; within one list any one
//! entry is enough.

use std::cell::OnceCell;

use subterminator_declarative as decl;
use subterminator_sdk::prelude::*;

/// Which side of a rule a condition is on. It only matters for
/// `target-name`, which reads two texts and takes the reading that asks more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    When,
    Unless,
}

/// Case-insensitive substrings, split by how they are best matched: ASCII
/// ones (nearly all) against the page folded once per call, the rest with
/// the SDK's Unicode-aware match, which a plain ASCII fold would miss
/// ("KÜNDIGUNG" for "kündigung").
#[derive(Debug, Clone)]
struct Needles {
    /// ASCII entries, already folded to lower case.
    folded: Vec<String>,
    /// Other entries, as written.
    other: Vec<String>,
}

impl Needles {
    fn new(entries: &[String]) -> Self {
        let (ascii, other): (Vec<&String>, Vec<&String>) =
            entries.iter().partition(|e| e.is_ascii());
        Self {
            folded: ascii.iter().map(|e| e.to_ascii_lowercase()).collect(),
            other: other.into_iter().cloned().collect(),
        }
    }
}

/// An `element` entry: a role (any when `None`) and names.
#[derive(Debug, Clone)]
struct ElementTest {
    role: Option<String>,
    names: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Condition {
    url: Option<Needles>,
    url_glob: Option<Vec<String>>,
    title: Option<Needles>,
    content: Option<Needles>,
    elements: Option<Vec<ElementTest>>,
    target_role: Option<String>,
    target_name: Option<Vec<String>>,
    action: Option<Vec<String>>,
    side: Side,
}

/// A page as the rules read it: folded to lower case at most once, and only
/// when a rule asks about its text.
pub struct Page<'a> {
    snapshot: &'a Snapshot,
    folded: OnceCell<FoldedPage<'a>>,
}

impl<'a> Page<'a> {
    pub fn new(snapshot: &'a Snapshot) -> Self {
        Self {
            snapshot,
            folded: OnceCell::new(),
        }
    }

    fn folded(&self) -> &FoldedPage<'a> {
        self.folded.get_or_init(|| FoldedPage::of(self.snapshot))
    }
}

impl Condition {
    pub fn new(c: &decl::Condition, side: Side) -> Self {
        Self {
            url: c.url.as_deref().map(Needles::new),
            url_glob: c.url_glob.clone(),
            title: c.title.as_deref().map(Needles::new),
            content: c.content.as_deref().map(Needles::new),
            elements: c.element.as_ref().map(|entries| {
                entries
                    .iter()
                    .map(|e| ElementTest {
                        role: e.role.clone(),
                        names: e.name.clone(),
                    })
                    .collect()
            }),
            target_role: c.target_role.clone(),
            target_name: c.target_name.clone(),
            action: c.action.clone(),
            side,
        }
    }

    /// Whether every key given holds for `call` (none for a page-only rule)
    /// on `page`. The call's keys come first, then the page's from cheap to
    /// dear: the content is the longest text and is read last.
    pub fn holds(&self, call: Option<&ToolCall>, page: &Page<'_>) -> bool {
        self.holds_for_call(call)
            && self.url.as_ref().is_none_or(|n| {
                page.folded().url_has_any(&n.folded) || url_contains_any(page.snapshot, &n.other)
            })
            && self
                .url_glob
                .as_ref()
                .is_none_or(|globs| globs.iter().any(|g| url_matches(&page.snapshot.url, g)))
            && self.title.as_ref().is_none_or(|n| {
                page.folded().title_has_any(&n.folded)
                    || title_contains_any(page.snapshot, &n.other)
            })
            && self
                .elements
                .as_ref()
                .is_none_or(|entries| entries.iter().all(|e| has_element_named(page.snapshot, e)))
            && self.content.as_ref().is_none_or(|n| {
                page.folded().content_has_any(&n.folded)
                    || content_contains_any(page.snapshot, &n.other)
            })
    }

    fn holds_for_call(&self, call: Option<&ToolCall>) -> bool {
        if self.action.is_none() && self.target_role.is_none() && self.target_name.is_none() {
            return true;
        }
        // The file's checks keep call keys to checkpoint rules, which always
        // have a call; without one they cannot hold.
        let Some(call) = call else {
            return false;
        };
        let target = call.target.as_ref();
        self.action
            .as_ref()
            .is_none_or(|actions| actions.contains(&call.action))
            && self
                .target_role
                .as_ref()
                .is_none_or(|role| target.is_some_and(|t| t.role == *role))
            && self
                .target_name
                .as_ref()
                .is_none_or(|names| target_named(call, names, self.side))
    }
}

/// For every `element` entry, some element of its role (any when none) whose
/// name contains any of its names.
fn has_element_named(snapshot: &Snapshot, e: &ElementTest) -> bool {
    match &e.role {
        Some(role) => has_element(snapshot, role, &e.names),
        None => snapshot
            .elements
            .iter()
            .any(|el| contains_any(&el.name, &e.names)),
    }
}

/// Whether the call's target is named any of `names`. A page can label an
/// element for assistive technology ("Go back") while showing another text
/// ("Finish cancellation"); both are read, in the direction that asks more:
/// on the `when` side either text is enough, on the `unless` side both must
/// match (the shown text only when the host could read it).
fn target_named(call: &ToolCall, names: &[String], side: Side) -> bool {
    let Some(target) = &call.target else {
        return false;
    };
    let by_name = contains_any(&target.name, names);
    let shown = call
        .facts
        .as_ref()
        .map(|f| contains_any(&f.visible_text, names));
    match side {
        Side::When => by_name || shown == Some(true),
        Side::Unless => by_name && shown != Some(false),
    }
}
