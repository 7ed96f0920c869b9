//! Overlays: cookie and consent banners, newsletter and app
//! promotions, chat widgets — things on top of a page that have nothing to
//! do with the cancellation and are dismissed with the choice that commits
//! least. Found here from the snapshot alone; whether the host may press
//! the button is the safety decision's, in the agent.
//!
//! Never an overlay: anything that speaks of the membership, the plan
//! or the subscription (a retention offer, a "before you go"), which is the
//! model's or the plan's to answer.

use super::{Element, Snapshot};

/// What kind of thing is in the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Cookies and consent: rejected, never accepted.
    Consent,
    /// A newsletter, an app, a sale: closed.
    Promotion,
    /// A chat or help widget: closed or minimised.
    Chat,
    /// One the service's plugin names.
    Service,
}

impl Kind {
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Consent => "a cookie and consent banner",
            Kind::Promotion => "a promotion",
            Kind::Chat => "a chat widget",
            Kind::Service => "an overlay the plugin knows",
        }
    }
}

/// One overlay and the button that dismisses it.
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    pub kind: Kind,
    /// The button (or link) to press.
    pub button: Element,
    /// Words of the box it sits in, for the record.
    pub context: String,
}

/// Words that make a box a consent banner.
const CONSENT_WORDS: &[&str] = &[
    "cookie",
    "consent",
    "privacy choices",
    "privacy preferences",
    "your privacy",
    "tracking technologies",
    "gdpr",
];

const PROMOTION_WORDS: &[&str] = &[
    "newsletter",
    "subscribe to our",
    "sign up for our",
    "sign up for emails",
    "join our mailing list",
    "get the app",
    "download the app",
    "download our app",
    "exclusive deals",
    "limited time",
];

const CHAT_WORDS: &[&str] = &[
    "chat",
    "live support",
    "how can we help",
    "virtual assistant",
    "message us",
];

/// Words that make a box the cancellation's own business: never dismissed
/// by the host, whatever else it says.
const CANCELLATION_WORDS: &[&str] = &[
    "cancel",
    "membership",
    "subscription",
    "your plan",
    "billing",
    "before you go",
    "pause",
    "offer",
    "discount",
    "keep your",
    "end your",
];

/// Dismissing choices, least committing first, by kind. Names are matched
/// whole, ignoring case and surrounding space.
const REJECT: &[&str] = &[
    "reject non-essential",
    "reject non-essential cookies",
    "reject all",
    "reject all cookies",
    "reject optional cookies",
    "necessary only",
    "only necessary",
    "necessary cookies only",
    "use necessary cookies only",
    "decline optional cookies",
    "reject",
];
const CLOSE: &[&str] = &[
    "close",
    "×",
    "✕",
    "x",
    "dismiss",
    "close dialog",
    "close banner",
    "close chat",
    "minimize chat",
    "minimise chat",
    "minimize",
    "minimise",
    "hide chat",
];
const NOT_NOW: &[&str] = &["not now", "no thanks", "no, thanks", "maybe later"];

/// The largest box (in elements) read as one overlay: beyond it, the
/// "box" is the page.
const MAX_BOX_ELEMENTS: usize = 40;

/// Roles that close a box: climbing past one reads the page beneath it.
const BOX_ROLES: &[&str] = &["dialog", "alertdialog"];

/// How far up from a button the box around it is looked for.
const MAX_LEVELS_UP: usize = 4;

/// The choices that dismiss `kind`, least committing first.
fn choices(kind: Kind) -> [&'static [&'static str]; 2] {
    match kind {
        Kind::Consent => [REJECT, CLOSE],
        Kind::Promotion | Kind::Service => [CLOSE, NOT_NOW],
        Kind::Chat => [CLOSE, &[]],
    }
}

fn normalised(name: &str) -> String {
    name.trim().to_lowercase()
}

/// The index of the element `index` sits in, one level up.
fn parent(elements: &[Element], index: usize) -> Option<usize> {
    let depth = elements.get(index)?.depth;
    (0..index).rev().find(|&i| elements[i].depth < depth)
}

/// The indices of `at`'s subtree, itself first.
fn subtree(elements: &[Element], at: usize) -> std::ops::Range<usize> {
    let depth = elements.get(at).map_or(0, |e| e.depth);
    let end = elements[at + 1..]
        .iter()
        .position(|e| e.depth <= depth)
        .map_or(elements.len(), |n| at + 1 + n);
    at..end
}

fn words(elements: &[Element], range: std::ops::Range<usize>) -> String {
    elements[range]
        .iter()
        .map(|e| e.name.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ")
}

fn kind_of(text: &str) -> Option<Kind> {
    let has = |list: &[&str]| list.iter().any(|w| text.contains(w));
    if has(CANCELLATION_WORDS) {
        return None;
    }
    if has(CONSENT_WORDS) {
        Some(Kind::Consent)
    } else if has(CHAT_WORDS) {
        Some(Kind::Chat)
    } else if has(PROMOTION_WORDS) {
        Some(Kind::Promotion)
    } else {
        None
    }
}

/// The box around `button`: the smallest ancestor, a few levels up at most
/// and not the whole page, whose words name an overlay; with its kind.
/// A box that speaks of the cancellation stops the search: it is not ours.
fn around(elements: &[Element], button: usize) -> Option<(Kind, String)> {
    let mut at = button;
    for _ in 0..MAX_LEVELS_UP {
        at = parent(elements, at)?;
        let range = subtree(elements, at);
        if range.len() > MAX_BOX_ELEMENTS {
            return None;
        }
        let text = words(elements, range);
        if CANCELLATION_WORDS.iter().any(|w| text.contains(w)) {
            return None;
        }
        if let Some(kind) = kind_of(&text) {
            return Some((kind, text));
        }
    }
    None
}

fn pressable(element: &Element) -> bool {
    matches!(element.role.as_str(), "button" | "link")
        && element.reference.is_some()
        && !element.has_state("disabled")
}

/// Every overlay on the page, each with its least committing choice,
/// in page order.
pub fn find(snapshot: &Snapshot) -> Vec<Overlay> {
    let elements = &snapshot.elements;
    let mut found: Vec<(usize, Overlay)> = Vec::new();
    for (i, element) in elements.iter().enumerate() {
        if !pressable(element) {
            continue;
        }
        let name = normalised(&element.name);
        let dismisses = [REJECT, CLOSE, NOT_NOW]
            .iter()
            .any(|l| l.contains(&name.as_str()));
        if !dismisses {
            continue;
        }
        let Some((kind, context)) = around(elements, i) else {
            continue;
        };
        let Some(rank) = choices(kind)
            .iter()
            .position(|list| list.contains(&name.as_str()))
        else {
            continue;
        };
        let container = parent(elements, i).unwrap_or(i);
        // One button per box: the least committing.
        match found.iter_mut().find(|(c, _)| *c == container) {
            Some((_, there)) => {
                let there_rank = choices(kind)
                    .iter()
                    .position(|l| l.contains(&normalised(&there.button.name).as_str()))
                    .unwrap_or(usize::MAX);
                if rank < there_rank {
                    there.button = element.clone();
                }
            }
            None => found.push((
                container,
                Overlay {
                    kind,
                    button: element.clone(),
                    context: crate::text::truncate(&context, 160, "…").into_owned(),
                },
            )),
        }
    }
    found.into_iter().map(|(_, i)| i).collect()
}

/// The overlay a plugin names: a button matched by one of its hints
/// (`matches`), unless the box around it speaks of the cancellation.
pub fn named_by_service(
    snapshot: &Snapshot,
    matches: impl Fn(&Element) -> bool,
) -> Option<Overlay> {
    let elements = &snapshot.elements;
    elements.iter().enumerate().find_map(|(i, e)| {
        if !pressable(e) || !matches(e) {
            return None;
        }
        let mut at = i;
        let mut context = String::new();
        for _ in 0..MAX_LEVELS_UP {
            let Some(up) = parent(elements, at) else {
                break;
            };
            at = up;
            let range = subtree(elements, at);
            if range.len() > MAX_BOX_ELEMENTS {
                break;
            }
            context = words(elements, range);
            if CANCELLATION_WORDS.iter().any(|w| context.contains(w)) {
                return None;
            }
            // A dialog is the overlay's own box: what lies around it is
            // the page underneath, whose words (an account page speaks of the
            // subscription) say nothing of the pop-up.
            if BOX_ROLES.contains(&elements[at].role.as_str()) {
                break;
            }
        }
        Some(Overlay {
            kind: Kind::Service,
            button: e.clone(),
            context: crate::text::truncate(&context, 160, "…").into_owned(),
        })
    })
}

#[cfg(test)]
mod tests;
