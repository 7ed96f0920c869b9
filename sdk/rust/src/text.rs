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

/// `template` with each placeholder `open name close` replaced by what
/// `value` writes for `name`, in one pass: what a value writes is never read
/// again, so a value that holds a placeholder stays as it is. Where `value`
/// returns false (a name it does not know) the placeholder stays as
/// written. The one placeholder filler of the workspace: a practice page's
/// `{{email}}`, a language pack's `{price}`, a dispute letter's `{date}`.
pub fn fill_placeholders(
    template: &str,
    open: &str,
    close: &str,
    mut value: impl FnMut(&str, &mut String) -> bool,
) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        let after = &rest[at + open.len()..];
        let Some(end) = after.find(close) else {
            out.push_str(open);
            rest = after;
            continue;
        };
        let name = &after[..end];
        // An opening inside the name means this one was not a placeholder:
        // `{a {b}` keeps `{a ` and fills `{b}`.
        if name.contains(open) || !value(name, &mut out) {
            out.push_str(open);
            rest = after;
            continue;
        }
        rest = &after[end + close.len()..];
    }
    out.push_str(rest);
    out
}

/// [`fill_placeholders`] with `{name}` and plain values.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    fill_placeholders(template, "{", "}", |name, out| {
        match values.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => {
                out.push_str(v);
                true
            }
            None => false,
        }
    })
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

    #[test]
    fn placeholders_are_filled_in_one_pass() {
        let values = [("a", "1"), ("b", "{a}"), ("c", "")];
        let cases = [
            ("{a}", "1"),
            ("x{a}y{a}", "x1y1"),
            // A value that holds a placeholder is not read again.
            ("{b}", "{a}"),
            ("{c}", ""),
            ("{unknown} {a}", "{unknown} 1"),
            ("{a {a}", "{a 1"),
            ("{", "{"),
            ("}{a", "}{a"),
            ("", ""),
            ("héllo {a}", "héllo 1"),
        ];
        for (template, want) in cases {
            assert_eq!(fill(template, &values), want, "{template}");
        }
        let doubled = fill_placeholders("<p>{{x}} {{y}} {x}</p>", "{{", "}}", |name, out| {
            name == "x" && {
                out.push_str("&lt;");
                true
            }
        });
        assert_eq!(doubled, "<p>&lt; {{y}} {x}</p>");
    }
}
