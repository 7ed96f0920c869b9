//! Helpers for the predicates most services need. All matching is
//! case-insensitive, because sites change the case of their copy freely.

use crate::types::{Element, Snapshot};

/// Whether `haystack` contains `needle`, ignoring case. Predicates run on
/// every action, over pages of tens of kilobytes: ASCII needles (nearly all)
/// are matched without allocating.
pub fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if !needle.is_ascii() {
        return haystack.to_lowercase().contains(&needle.to_lowercase());
    }
    let (hay, needle) = (haystack.as_bytes(), needle.as_bytes());
    let first = needle[0].to_ascii_lowercase();
    hay.len() >= needle.len()
        && (0..=hay.len() - needle.len()).any(|at| {
            hay[at].to_ascii_lowercase() == first
                && hay[at..at + needle.len()].eq_ignore_ascii_case(needle)
        })
}

/// Whether `haystack` contains any of `needles`, ignoring case.
pub fn contains_any<S: AsRef<str>>(haystack: &str, needles: &[S]) -> bool {
    needles
        .iter()
        .any(|n| contains_ignore_case(haystack, n.as_ref()))
}

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

/// Glob match of a URL against a pattern where `*` stands for any run of
/// characters (`"*/login*"`). Case-insensitive.
pub fn url_matches(url: &str, pattern: &str) -> bool {
    let url = url.to_lowercase();
    let pattern = pattern.to_lowercase();
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return url == pattern;
    };
    if !url.starts_with(first) {
        return false;
    }
    let mut rest = &url[first.len()..];
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
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
    fn url_glob_table() {
        let cases = [
            ("https://www.netflix.com/login?next=x", "*/login*", true),
            ("https://www.netflix.com/LOGIN", "*/login*", true),
            ("https://www.netflix.com/account", "*/login*", false),
            ("https://a.com/x", "https://a.com/x", true),
            ("https://a.com/xy", "https://a.com/x", false),
            ("https://a.com/x/y/z", "https://a.com/*/z", true),
            ("https://a.com/z", "https://a.com/*/z", false),
            ("ab", "a*b*", true),
            ("aXb", "*", true),
        ];
        for (url, pattern, want) in cases {
            assert_eq!(url_matches(url, pattern), want, "{url} ~ {pattern}");
        }
    }

    #[test]
    fn contains_ignore_case_table() {
        let cases = [
            ("Finish Cancellation", "finish", true),
            ("finish", "FINISH CANCELLATION", false),
            ("Your membership ENDS on", "membership ends", true),
            ("abc", "", true),
            ("", "a", false),
            ("naïve Kündigung", "kündigung", true),
            ("KÜNDIGUNG", "kündigung", true),
            ("ümlaut first", "first", true),
            ("aaab", "aab", true),
        ];
        for (haystack, needle, want) in cases {
            assert_eq!(
                contains_ignore_case(haystack, needle),
                want,
                "{haystack:?} ~ {needle:?}"
            );
        }
    }

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
    fn contains_any_ignores_case() {
        assert!(contains_any("Finish Cancellation", &["finish"]));
        assert!(!contains_any("Continue", &["finish", "confirm"]));
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
