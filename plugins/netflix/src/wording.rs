//! What a sentence on the page says about the membership, read word by word.
//!
//! Substring tables alone cannot tell "your membership was cancelled" from
//! "your membership was not cancelled", nor an offer page's "your membership
//! ends on …" from a confirmation. So each clause is split into words, a
//! statement counts only when it is about the membership (plan, subscription)
//! and is neither negated nor conditional in the words just before it.

/// What the membership is called on Netflix's pages.
const SUBJECTS: &[&str] = &["membership", "plan", "subscription"];
const CANCELLED: &[&str] = &["cancelled", "canceled"];
const EXPIRES: &[&str] = &["expires", "expire", "expired"];
/// Words that close a cancellation statement: "cancellation confirmed".
const DONE: &[&str] = &["confirmed", "complete", "completed", "successful"];
/// Words allowed between "cancellation" and its closing word, so that "your
/// cancellation is complete" counts and "finish your cancellation to
/// complete" does not.
const LINKING: &[&str] = &["is", "was", "has", "been", "now", "successfully"];
const NEGATIONS: &[&str] = &["not", "never", "cannot", "no", "unable", "failed"];
/// A statement under a condition ("if your plan is cancelled, …") asserts
/// nothing about this page.
const CONDITIONALS: &[&str] = &["if", "unless", "once", "whether"];
/// How far back a negation or condition still governs a statement: enough
/// for "has not yet been cancelled", short enough that "don't worry, your
/// membership has been cancelled" is not read as negated.
const LOOK_BACK_WORDS: usize = 4;
/// A negated clause is quoted in the failure reason; pages can be long.
const MAX_QUOTE_CHARS: usize = 120;

/// The statements found in one text.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// "Your membership has been cancelled", "we've canceled your plan".
    pub cancelled: bool,
    /// "Cancellation confirmed", "your cancellation is complete".
    pub confirmed: bool,
    /// "Your plan ends on …", "will end on …", "expires …".
    pub ends: bool,
    /// "We've processed your request", "your request has been processed".
    pub processed: bool,
    /// The first clause whose statement is negated, quoted.
    pub negated: Option<String>,
}

#[derive(Debug, Clone, Copy)]
enum Statement {
    Cancelled,
    Confirmed,
    Ends,
    Processed,
}

pub fn read(text: &str) -> Reading {
    let mut reading = Reading::default();
    // Quotes end a clause too: the tree's text puts each name in quotes.
    for clause in text.split(['\n', '.', '!', '?', ';', '"']) {
        read_clause(clause, &mut reading);
    }
    reading
}

fn read_clause(clause: &str, reading: &mut Reading) {
    let words: Vec<&str> = clause
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .collect();
    let about_membership = words.iter().any(|w| is(w, SUBJECTS));
    for (at, word) in words.iter().enumerate() {
        let Some(statement) = statement_at(&words, at, word, about_membership) else {
            continue;
        };
        let before = &words[at.saturating_sub(LOOK_BACK_WORDS)..at];
        if before.iter().any(|w| is(w, CONDITIONALS)) {
            continue;
        }
        if before.iter().any(|w| negates(w)) {
            if reading.negated.is_none() {
                reading.negated = Some(quote(clause));
            }
            continue;
        }
        match statement {
            Statement::Cancelled => reading.cancelled = true,
            Statement::Confirmed => reading.confirmed = true,
            Statement::Ends => reading.ends = true,
            Statement::Processed => reading.processed = true,
        }
    }
}

/// The statement whose key word is `words[at]`, if any.
fn statement_at(
    words: &[&str],
    at: usize,
    word: &str,
    about_membership: bool,
) -> Option<Statement> {
    let next = |n: usize| words.get(at + n).copied().unwrap_or_default();
    let recent = &words[at.saturating_sub(3)..at];
    if about_membership && is(word, CANCELLED) {
        return Some(Statement::Cancelled);
    }
    // "ends on" and "will end on", not "ends 12 June if you cancel" (offer
    // pages quote the date that way) nor "end your membership".
    if about_membership
        && (is(word, EXPIRES) || (is(word, &["ends", "end"]) && is(next(1), &["on"])))
    {
        return Some(Statement::Ends);
    }
    if is(word, &["processed"])
        && ((is(next(1), &["your"]) && is(next(2), &["request"]))
            || recent.iter().any(|w| is(w, &["request"])))
    {
        return Some(Statement::Processed);
    }
    if is(word, DONE)
        && let Some(start) = recent.iter().rposition(|w| is(w, &["cancellation"]))
        && recent[start + 1..]
            .iter()
            .all(|w| is(w, LINKING) || negates(w))
    {
        return Some(Statement::Confirmed);
    }
    None
}

fn is(word: &str, any: &[&str]) -> bool {
    any.iter().any(|a| word.eq_ignore_ascii_case(a))
}

fn negates(word: &str) -> bool {
    is(word, NEGATIONS)
        || ends_with_ignore_case(word, "n't")
        || ends_with_ignore_case(word, "n\u{2019}t")
}

fn ends_with_ignore_case(word: &str, suffix: &str) -> bool {
    word.len()
        .checked_sub(suffix.len())
        .and_then(|at| word.get(at..))
        .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix))
}

fn quote(clause: &str) -> String {
    let clause = clause.trim().trim_start_matches(['-', ' ']);
    clause.chars().take(MAX_QUOTE_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_table() {
        // (text, cancelled, confirmed, ends, processed, negated)
        let cases = [
            (
                "Your membership has been cancelled.",
                true,
                false,
                false,
                false,
                false,
            ),
            ("We've canceled your plan", true, false, false, false, false),
            ("Cancellation confirmed", false, true, false, false, false),
            (
                "Your cancellation is complete",
                false,
                true,
                false,
                false,
                false,
            ),
            (
                "Finish your cancellation to complete it",
                false,
                false,
                false,
                false,
                false,
            ),
            ("Complete cancellation", false, false, false, false, false),
            (
                "Your subscription will end on 12 June",
                false,
                false,
                true,
                false,
                false,
            ),
            (
                "Your membership ends on 12 June",
                false,
                false,
                true,
                false,
                false,
            ),
            (
                "Your plan expires 12 June",
                false,
                false,
                true,
                false,
                false,
            ),
            (
                "Your membership ends 12 June if you cancel",
                false,
                false,
                false,
                false,
                false,
            ),
            ("End your membership?", false, false, false, false, false),
            (
                "We\u{2019}ve processed your request",
                false,
                false,
                false,
                true,
                false,
            ),
            (
                "Your request has been processed",
                false,
                false,
                false,
                true,
                false,
            ),
            (
                "Your membership was not cancelled",
                false,
                false,
                false,
                false,
                true,
            ),
            (
                "Your plan hasn't been canceled yet",
                false,
                false,
                false,
                false,
                true,
            ),
            (
                "Your cancellation is not complete",
                false,
                false,
                false,
                false,
                true,
            ),
            (
                "We haven\u{2019}t processed your request",
                false,
                false,
                false,
                false,
                true,
            ),
            (
                "Your membership will not end on 12 June",
                false,
                false,
                false,
                false,
                true,
            ),
            (
                "If your membership is cancelled you lose your profiles",
                false,
                false,
                false,
                false,
                false,
            ),
            (
                "Don't worry, your membership has been cancelled",
                true,
                false,
                false,
                false,
                false,
            ),
            (
                "- heading \"Membership Cancelled\" [level=1]",
                true,
                false,
                false,
                false,
                false,
            ),
            ("Cancelled", false, false, false, false, false),
        ];
        for (text, cancelled, confirmed, ends, processed, negated) in cases {
            let got = read(text);
            let want = (cancelled, confirmed, ends, processed, negated);
            let have = (
                got.cancelled,
                got.confirmed,
                got.ends,
                got.processed,
                got.negated.is_some(),
            );
            assert_eq!(have, want, "{text:?}: {got:?}");
        }
    }

    #[test]
    fn negated_clause_is_quoted_without_tree_marks() {
        let got = read("- paragraph: Your membership was not cancelled. Try again");
        assert_eq!(
            got.negated.as_deref(),
            Some("paragraph: Your membership was not cancelled")
        );
    }
}
