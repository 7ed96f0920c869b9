//! The table phrases compiled to words: `cancel*` matches any word that
//! starts with `cancel`, `~` up to [`GAP_WORDS_MAX`] words, `#` a number.

use crate::text::fold::words;

/// Most words a `~` in a table phrase stands for: enough for "finish *my*
/// cancellation" or "accept *this special* offer", too few to join words
/// from different sentences.
pub(super) const GAP_WORDS_MAX: usize = 3;

/// The first pattern of `table`, in table order, found anywhere in `tokens`.
pub(super) fn find_first<'t>(table: &'t [Pattern], tokens: &[String]) -> Option<&'t Pattern> {
    table.iter().find(|p| p.find(tokens, 0).is_some())
}

pub(super) fn compile(table: &'static [&'static str]) -> Vec<Pattern> {
    table.iter().map(|phrase| Pattern::new(phrase)).collect()
}

/// One word of a table phrase.
#[derive(Debug, Clone)]
pub(super) enum Word {
    Exact(String),
    Prefix(String),
    /// Up to this many words (`~` is [`GAP_WORDS_MAX`]).
    Gap(usize),
    /// A number: "50" in "50% off".
    Number,
}

impl Word {
    /// Whether `token` is this word. Blanked tokens (empty) are no word.
    fn fits(&self, token: &str) -> bool {
        match self {
            Word::Exact(w) => token == w,
            Word::Prefix(p) => !token.is_empty() && token.starts_with(p.as_str()),
            Word::Number => !token.is_empty() && token.chars().all(|c| c.is_ascii_digit()),
            Word::Gap(_) => false,
        }
    }
}

/// A table phrase, compiled to words (see the module comment).
#[derive(Debug)]
pub(crate) struct Pattern {
    pub(crate) phrase: &'static str,
    words: Vec<Word>,
}

impl Pattern {
    pub(crate) fn new(phrase: &'static str) -> Self {
        let mut compiled = Vec::new();
        for raw in phrase.split_whitespace() {
            match raw {
                "~" => compiled.push(Word::Gap(GAP_WORDS_MAX)),
                "#" => compiled.push(Word::Number),
                _ => {
                    let stem = raw.strip_suffix('*');
                    let mut parts = words(stem.unwrap_or(raw));
                    let last = parts.pop();
                    compiled.extend(parts.into_iter().map(Word::Exact));
                    if let Some(last) = last {
                        compiled.push(if stem.is_some() {
                            Word::Prefix(last)
                        } else {
                            Word::Exact(last)
                        });
                    }
                }
            }
        }
        Pattern {
            phrase,
            words: compiled,
        }
    }

    /// Two patterns read as one: `first`, up to `gap` words, then `second`.
    pub(crate) fn pair(
        phrase: &'static str,
        first: &Pattern,
        gap: usize,
        second: &Pattern,
    ) -> Pattern {
        let words = first
            .words
            .iter()
            .cloned()
            .chain([Word::Gap(gap)])
            .chain(second.words.iter().cloned())
            .collect();
        Pattern { phrase, words }
    }

    /// The first match at or after `from`, as a token range.
    pub(crate) fn find(&self, tokens: &[String], from: usize) -> Option<(usize, usize)> {
        if self.words.is_empty() {
            return None;
        }
        (from..tokens.len())
            .find_map(|start| match_at(&self.words, tokens, start).map(|end| (start, end)))
    }

    /// Every match, left to right, not overlapping.
    pub(crate) fn find_all(&self, tokens: &[String]) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        let mut from = 0;
        while let Some((start, end)) = self.find(tokens, from) {
            found.push((start, end));
            from = end.max(start + 1);
        }
        found
    }

    /// Blanks in `out` every match found in `tokens`.
    pub(super) fn blank(&self, tokens: &[String], out: &mut [String]) {
        for (start, end) in self.find_all(tokens) {
            for token in out.iter_mut().take(end).skip(start) {
                token.clear();
            }
        }
    }
}

/// The end of a match of `words` that starts at `at`; gaps take the fewest
/// words that work and never cross a blanked word.
pub(super) fn match_at(words: &[Word], tokens: &[String], at: usize) -> Option<usize> {
    let Some((first, rest)) = words.split_first() else {
        return Some(at);
    };
    if let Word::Gap(most) = first {
        return (0..=*most).find_map(|skip| {
            let skipped = tokens.get(at..at + skip)?;
            if skipped.iter().any(String::is_empty) {
                return None;
            }
            match_at(rest, tokens, at + skip)
        });
    }
    let token = tokens.get(at)?;
    if first.fits(token) {
        match_at(rest, tokens, at + 1)
    } else {
        None
    }
}
