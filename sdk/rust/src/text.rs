//! Case-insensitive text and URL matching: a leaf that both the records and
//! the predicate helpers build on, so the records need not reach into the
//! predicates that read them.

/// Whether `haystack` contains `needle`, ignoring case. Predicates run on
/// every action, over pages of tens of kilobytes: ASCII needles (nearly all)
/// are matched without allocating.
pub fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    let Some(&first) = needle.as_bytes().first() else {
        return true;
    };
    if !needle.is_ascii() {
        return haystack.to_lowercase().contains(&needle.to_lowercase());
    }
    let (hay, needle) = (haystack.as_bytes(), needle.as_bytes());
    let first = first.to_ascii_lowercase();
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

/// Glob match of a URL against a pattern where `*` stands for any run of
/// characters (`"*/login*"`), ignoring case: [`crate::glob::Glob`].
pub fn url_matches(url: &str, pattern: &str) -> bool {
    crate::glob::Glob::new(pattern).matches(url)
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
    fn contains_any_ignores_case() {
        assert!(contains_any("Finish Cancellation", &["finish"]));
        assert!(!contains_any("Continue", &["finish", "confirm"]));
    }
}
