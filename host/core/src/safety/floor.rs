//! The host's own commit detector: the floor under every plugin.
//!
//! A plugin may say a click is harmless; the host still reads the words on
//! the target and on the page and decides for itself whether the click could
//! commit something the person has not agreed to. The tables below are
//! written as a hostile page or a careless plugin author would be read:
//! generous where a miss costs money, quiet on the ordinary steps of a flow
//! (survey answers, "Continue", "Back") so that the prompts keep meaning
//! something.
//!
//! Text is compared as words: Unicode-lowercased, accents folded, look-alike
//! letters from other scripts mapped to Latin, invisible characters dropped,
//! punctuation turned into word breaks. A table phrase is a list of words in
//! which `cancel*` matches any word that starts with `cancel`, `~` stands for
//! up to [`GAP_WORDS_MAX`] words, and `#` for a number.
//!
//! The phrase tables are in [`phrases`], the word matcher in [`matcher`],
//! and the Unicode folding every text goes through first in
//! [`crate::text::fold`].

mod matcher;
mod phrases;
mod request;

use std::sync::LazyLock;

use serde::Serialize;

use crate::text::fold::url_words;
pub(crate) use crate::text::fold::words;
pub(crate) use matcher::Pattern;
use matcher::{compile, find_first};
use phrases::{
    BILLING_CHANGE, GO_AHEAD, INFORMATIONAL, REQUEST_COMMIT_STEMS, RETREATS, STRONG,
    STRONG_ON_PAGE, STRONG_URL_WORDS, STRONG_WHOLE_TARGET, WEAK,
};
pub use request::{
    RequestReading, RequestWords, read_request, request_tokens, request_words, url_request_text,
};

/// How strongly some text says "this commits something irreversible".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strength {
    /// Part of a cancellation flow, or "confirm" on a page that commits.
    Weak,
    /// Changes what the person pays (pause, switch plan, accept an offer):
    /// not what they asked for.
    BillingChange,
    /// The final, irreversible step.
    Strong,
}

/// Where a sign was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Place {
    Target,
    Heading,
    Title,
    Url,
}

/// One reason to think an action commits something.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sign {
    pub strength: Strength,
    /// The phrase that matched, as written in the table.
    pub phrase: &'static str,
    /// Where it was seen.
    pub place: Place,
}

/// The target's sign and the page's sign, kept apart so that a caller can
/// apply its own rule for clicks on a page that commits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Judgement {
    /// The strongest sign in the target's own texts; on a page with a Strong
    /// sign, a go-ahead word ("Confirm", "Continue", "Yes") counts as Weak.
    pub target: Option<Sign>,
    /// The strongest sign in the title, the headings and the URL.
    pub page: Option<Sign>,
}

impl Judgement {
    /// The strongest sign overall; the target's when strengths tie.
    pub fn strongest(&self) -> Option<Sign> {
        match (&self.target, &self.page) {
            (Some(t), Some(p)) if p.strength > t.strength => Some(p.clone()),
            (Some(t), _) => Some(t.clone()),
            (None, p) => p.clone(),
        }
    }
}

struct Tables {
    retreats: Vec<Pattern>,
    informational: Vec<Pattern>,
    strong: Vec<Pattern>,
    strong_on_page: Vec<Pattern>,
    strong_whole_target: Vec<Pattern>,
    strong_url_words: Vec<Pattern>,
    billing_change: Vec<Pattern>,
    weak: Vec<Pattern>,
    go_ahead: Vec<Pattern>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| Tables {
    retreats: compile(RETREATS),
    informational: compile(INFORMATIONAL),
    strong: compile(STRONG),
    strong_on_page: compile(STRONG_ON_PAGE),
    strong_whole_target: compile(STRONG_WHOLE_TARGET),
    strong_url_words: compile(STRONG_URL_WORDS),
    billing_change: compile(BILLING_CHANGE),
    weak: compile(WEAK),
    go_ahead: compile(GO_AHEAD),
});

/// The regexes of the stems that make a request's URL or body read as a
/// commit, for the network guard (`browser::guard::GuardRules::commit_words`).
pub fn url_commit_words() -> Vec<String> {
    REQUEST_COMMIT_STEMS
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

/// The strongest sign in one piece of text (an element's accessible name or
/// visible text, a heading, a title).
pub fn sign_in_text(text: &str, place: Place) -> Option<Sign> {
    sign_in_words(&words(text), place)
}

/// Signs in a URL's path, query and fragment ("/cancel/confirm",
/// "/unsubscribe", "action=cancel"). The host is left out: it names the
/// site, not the step.
pub fn sign_in_url(url: &str) -> Option<Sign> {
    let tokens = url_words(url);
    let tables = &*TABLES;
    let joined = find_first(&tables.strong_url_words, &tokens).map(|p| Sign {
        strength: Strength::Strong,
        phrase: p.phrase,
        place: Place::Url,
    });
    joined.or_else(|| sign_in_words(&tokens, Place::Url))
}

/// The strongest sign over the target's texts (accessible name and, when
/// known, visible text), the title, the headings and the URL; the target's
/// when strengths tie. Page-level signs keep their place, so a caller can
/// tell "this button says finish" from "this page says finish".
pub fn judge(target_texts: &[&str], title: &str, headings: &[&str], url: &str) -> Option<Sign> {
    judge_each(target_texts, title, headings, url).strongest()
}

/// [`judge`], with the target's and the page's signs kept apart.
pub fn judge_each(target_texts: &[&str], title: &str, headings: &[&str], url: &str) -> Judgement {
    let page_signs = headings
        .iter()
        .map(|h| sign_in_text(h, Place::Heading))
        .chain([sign_in_text(title, Place::Title), sign_in_url(url)]);
    let page = strongest(page_signs);
    // Every text is read and the strongest kept: a benign accessible name
    // ("Go back") never hides what the visible text says ("Finish
    // cancellation").
    let mut target = strongest(target_texts.iter().map(|t| sign_in_text(t, Place::Target)));
    if target.is_none()
        && page
            .as_ref()
            .is_some_and(|p| p.strength == Strength::Strong)
    {
        target = target_texts.iter().find_map(|t| go_ahead(&words(t)));
    }
    Judgement { target, page }
}

/// The first of the strongest signs.
fn strongest(signs: impl Iterator<Item = Option<Sign>>) -> Option<Sign> {
    signs
        .flatten()
        .fold(None, |best: Option<Sign>, sign| match best {
            Some(b) if b.strength >= sign.strength => Some(b),
            _ => Some(sign),
        })
}

fn sign_in_words(tokens: &[String], place: Place) -> Option<Sign> {
    let tables = &*TABLES;
    let mut blanked = tokens.to_vec();
    for pattern in tables.retreats.iter().chain(&tables.informational) {
        pattern.blank(tokens, &mut blanked);
    }
    let sign = |strength, pattern: &Pattern| Sign {
        strength,
        phrase: pattern.phrase,
        place,
    };
    let whole = |p: &&Pattern| p.find(&blanked, 0) == Some((0, blanked.len()));
    if place == Place::Target
        && let Some(p) = tables.strong_whole_target.iter().find(whole)
    {
        return Some(sign(Strength::Strong, p));
    }
    if let Some(p) = find_first(&tables.strong, &blanked) {
        return Some(sign(Strength::Strong, p));
    }
    if place != Place::Target
        && let Some(p) = find_first(&tables.strong_on_page, &blanked)
    {
        return Some(sign(Strength::Strong, p));
    }
    if let Some(p) = find_first(&tables.billing_change, tokens) {
        return Some(sign(Strength::BillingChange, p));
    }
    find_first(&tables.weak, &blanked).map(|p| sign(Strength::Weak, p))
}

fn go_ahead(tokens: &[String]) -> Option<Sign> {
    find_first(&TABLES.go_ahead, tokens).map(|p| Sign {
        strength: Strength::Weak,
        phrase: p.phrase,
        place: Place::Target,
    })
}

#[cfg(test)]
mod tests;
