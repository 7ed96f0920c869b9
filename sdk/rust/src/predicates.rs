//! Helpers for the predicates most services need. All matching is
//! case-insensitive, because sites change the case of their copy freely.

pub use crate::text::{contains_any, contains_ignore_case, url_matches};
use crate::types::{Element, Snapshot};

/// Whether the page's content contains any of `needles`, ignoring case.
pub fn content_contains_any<S: AsRef<str>>(snapshot: &Snapshot, needles: &[S]) -> bool {
    contains_any(&snapshot.content, needles)
}

/// Whether the page's title contains any of `needles`, ignoring case.
pub fn title_contains_any<S: AsRef<str>>(snapshot: &Snapshot, needles: &[S]) -> bool {
    contains_any(&snapshot.title, needles)
}

/// Whether the page's URL contains any of `needles`, ignoring case.
pub fn url_contains_any<S: AsRef<str>>(snapshot: &Snapshot, needles: &[S]) -> bool {
    contains_any(&snapshot.url, needles)
}

/// A page's text folded to ASCII lower case once, for predicates that check
/// many words: each check is then a plain substring search, not a fold per
/// check. Element names are matched in place, without copies.
#[derive(Debug, Clone)]
pub struct FoldedPage<'a> {
    pub url: String,
    pub title: String,
    pub content: String,
    elements: &'a [Element],
}

impl<'a> FoldedPage<'a> {
    pub fn of(snapshot: &'a Snapshot) -> Self {
        Self {
            url: snapshot.url.to_ascii_lowercase(),
            title: snapshot.title.to_ascii_lowercase(),
            content: snapshot.content.to_ascii_lowercase(),
            elements: &snapshot.elements,
        }
    }

    pub fn url_has_any<S: AsRef<str>>(&self, needles: &[S]) -> bool {
        has_any(&self.url, needles)
    }

    pub fn title_has_any<S: AsRef<str>>(&self, needles: &[S]) -> bool {
        has_any(&self.title, needles)
    }

    pub fn content_has_any<S: AsRef<str>>(&self, needles: &[S]) -> bool {
        has_any(&self.content, needles)
    }

    /// The name of the first element whose role is one of `roles` (any role
    /// when empty) and whose name contains any of `needles`, ignoring case.
    pub fn element_named<S: AsRef<str>>(&self, roles: &[&str], needles: &[S]) -> Option<&'a str> {
        self.elements
            .iter()
            .find(|e| {
                (roles.is_empty() || roles.contains(&e.role.as_str()))
                    && contains_any(&e.name, needles)
            })
            .map(|e| e.name.as_str())
    }
}

/// `folded` holds no ASCII capitals; a needle that does is folded first.
fn has_any<S: AsRef<str>>(folded: &str, needles: &[S]) -> bool {
    needles.iter().any(|n| {
        let n = n.as_ref();
        if n.bytes().any(|b| b.is_ascii_uppercase()) {
            folded.contains(&n.to_ascii_lowercase())
        } else {
            folded.contains(n)
        }
    })
}

/// The first element of `role` whose accessible name contains any of
/// `patterns`, ignoring case.
pub fn find_element<'a, S: AsRef<str>>(
    snapshot: &'a Snapshot,
    role: &str,
    patterns: &[S],
) -> Option<&'a Element> {
    snapshot
        .elements
        .iter()
        .find(|e| e.role == role && contains_any(&e.name, patterns))
}

/// Whether some element of `role` has a name containing any of `patterns`.
pub fn has_element<S: AsRef<str>>(snapshot: &Snapshot, role: &str, patterns: &[S]) -> bool {
    find_element(snapshot, role, patterns).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folded_page_matches_like_contains_any() {
        let snap = Snapshot {
            url: "https://www.Netflix.com/CancelPlan".into(),
            title: "Membership Cancelled".into(),
            content: "Your membership ENDS on 12 June".into(),
            elements: vec![
                Element::new("button", "Restart Membership"),
                Element::new("link", "Help"),
            ],
            ..Snapshot::default()
        };
        let page = FoldedPage::of(&snap);
        assert!(page.url_has_any(&["/cancelplan"]));
        assert!(page.title_has_any(&["CANCELLED"]));
        assert!(page.content_has_any(&["membership ends"]));
        assert!(!page.content_has_any(&["finish"]));
        assert_eq!(
            page.element_named(&["button"], &["restart"]),
            Some("Restart Membership")
        );
        assert_eq!(page.element_named(&["link"], &["restart"]), None);
        assert_eq!(page.element_named(&[], &["HELP"]), Some("Help"));
    }

    #[test]
    fn find_element_needs_role_and_name() {
        let snap = Snapshot {
            elements: vec![
                Element::new("link", "Cancel Membership"),
                Element::new("button", "Cancel Membership"),
            ],
            ..Snapshot::default()
        };
        let found = find_element(&snap, "button", &["cancel membership"]);
        assert_eq!(found.map(|e| e.role.as_str()), Some("button"));
        assert!(find_element(&snap, "heading", &["cancel"]).is_none());
    }
}
