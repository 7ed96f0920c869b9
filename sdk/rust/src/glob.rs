//! The one glob every part of subterminator reads: `*` stands for any run
//! of characters (none included), every other character for itself, and a
//! glob matches a text whole, ignoring case. Plugins' URL patterns, the
//! safety layer's commit patterns, the plan's harmless requests, the
//! network guard (which runs [`Glob::regex`] in the browser), CancelBench's
//! scorer and `scan`'s billing descriptors all read globs through this type,
//! so a pattern means the same wherever it is written.

/// A glob, compiled: its pattern lowered, split at the stars.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob {
    /// The pattern as written, lowered.
    pattern: String,
    /// The literal pieces between stars, the empty ones included, so that
    /// the first is anchored at the start and the last at the end.
    pieces: Vec<String>,
}

impl Glob {
    /// Reads `pattern`. Every string is a glob; there is nothing to reject.
    pub fn new(pattern: &str) -> Glob {
        let pattern = pattern.to_lowercase();
        let pieces = pattern.split('*').map(str::to_owned).collect();
        Glob { pattern, pieces }
    }

    /// The pattern, lowered.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether `text` matches the whole glob, ignoring case.
    pub fn matches(&self, text: &str) -> bool {
        let text = text.to_lowercase();
        let [first, middle @ .., last] = self.pieces.as_slice() else {
            // No star: the one piece is the whole text.
            return self.pattern == text;
        };
        let Some(mut rest) = text.strip_prefix(first.as_str()) else {
            return false;
        };
        // Each middle piece as early as it comes: exact for globs whose
        // only wildcard is `*`, since any later match leaves less room.
        for piece in middle {
            match rest.find(piece.as_str()) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        rest.ends_with(last.as_str())
    }

    /// How many characters must match literally: the more, the more
    /// specific the glob (`GOOGLE *YOUTUBEPREMIUM*` beats `GOOGLE *`).
    pub fn literal_len(&self) -> usize {
        self.pieces.iter().map(|p| p.chars().count()).sum()
    }

    /// The glob as a regular expression that matches whole texts, written
    /// in the syntax JavaScript's `RegExp` and the `regex` crate read
    /// alike; both must be told to ignore case (`i`). The network guard
    /// runs it in the browser; the tests run the same cases through both.
    pub fn regex(&self) -> String {
        let mut out = String::with_capacity(self.pattern.len() + 8);
        out.push('^');
        for c in self.pattern.chars() {
            match c {
                '*' => out.push_str(".*"),
                // The characters with a meaning in either syntax.
                '\\' | '^' | '$' | '.' | '|' | '?' | '+' | '(' | ')' | '[' | ']' | '{' | '}' => {
                    out.push('\\');
                    out.push(c);
                }
                _ => out.push(c),
            }
        }
        out.push('$');
        out
    }
}

impl std::fmt::Display for Glob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.pattern)
    }
}

/// The cases every reader of a glob must agree on: (glob, text, match).
/// Public so that the tests beside the network guard run the very same
/// table through [`Glob::regex`], with the `regex` crate and in a real
/// browser.
#[doc(hidden)]
pub const CASES: &[(&str, &str, bool)] = &[
    ("https://a.com/x", "https://a.com/x", true),
    ("https://a.com/x", "https://a.com/xy", false),
    ("https://a.com/x", "HTTPS://A.COM/X", true),
    ("*/login*", "https://www.netflix.com/login?next=x", true),
    ("*/login*", "https://www.netflix.com/account", false),
    ("https://a.com/*/z", "https://a.com/x/y/z", true),
    ("https://a.com/*/z", "https://a.com/z", false),
    ("/a/*", "/a/b/c", true),
    ("/a/b", "/a/b/", false),
    ("*/cancel", "https://a.test/cancel/x", false),
    ("/survey*", "/survey", true),
    ("/a*b*c", "/axxbyyc", true),
    ("/a*b*c", "/axxbyy", false),
    ("*", "", true),
    ("", "", true),
    ("", "x", false),
    ("a*b*", "ab", true),
    ("a*a", "a", false),
    ("ab*b", "ab", false),
    ("*.com/cancel?now=1", "https://x.com/cancel?now=1", true),
    ("*.com/cancel?now=1", "https://xcom/cancel?now=1", false),
    ("*.com/cancel?now=1", "https://x.com/cancelXnow=1", false),
    ("*(x)[y]{z}+|^$\\", "a(x)[y]{z}+|^$\\", true),
    (
        "GOOGLE *YOUTUBEPREMIUM*",
        "google *youtubepremium g.co/helppay",
        true,
    ),
    ("*kündigen*", "https://x.de/KÜNDIGEN", true),
    // Whole URLs: no match in the middle without a `*`.
    ("/api/cancel", "https://x.test/api/cancel", false),
    ("*/api/cancel*", "https://x.test/API/Cancel", true),
    // Characters with a meaning in a regex are literal.
    ("*/commit.html?x", "https://x.test/commit.html?x", true),
    ("*/commit.html?x", "https://x.test/commitAhtml?x", false),
    ("*/commit.html?x", "https://x.test/commit.htm?x", false),
    ("*(a|b)+[c]{1}^$\\*", "z(a|b)+[c]{1}^$\\q", true),
    ("*(a|b)+[c]{1}^$\\*", "zab", false),
    ("*/Cancel?Now=1", "https://x.test/CANCEL?now=1", true),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_table() {
        for (pattern, text, want) in CASES {
            assert_eq!(
                Glob::new(pattern).matches(text),
                *want,
                "{pattern:?} ~ {text:?}"
            );
        }
    }

    #[test]
    fn literal_characters_measure_specificity() {
        assert_eq!(Glob::new("GOOGLE *").literal_len(), 7);
        assert_eq!(Glob::new("GOOGLE *YOUTUBEPREMIUM*").literal_len(), 21);
        assert_eq!(Glob::new("*").literal_len(), 0);
    }
}
