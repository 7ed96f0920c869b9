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

use std::sync::LazyLock;

use serde::Serialize;

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

/// Most words a `~` in a table phrase stands for: enough for "finish *my*
/// cancellation" or "accept *this special* offer", too few to join words
/// from different sentences.
const GAP_WORDS_MAX: usize = 3;

/// Ways out of a flow: their words are blanked before the Strong and Weak
/// tables are read, so "Don't cancel" is not a cancel button. Billing-change
/// phrases are read on the unblanked words: "Keep my membership at $7.99"
/// accepts an offer.
const RETREATS: &[&str] = &[
    "don't cancel*",
    "do not cancel*",
    // No gaps here: "keep? no, cancel my membership" must not be blanked.
    "keep membership",
    "keep my membership",
    "keep your membership",
    "keep subscription",
    "keep my subscription",
    "keep plan",
    "keep my plan",
    "keep my account",
    "never mind",
    "nevermind",
    "go back",
    "take me back",
    "back to",
    "not now",
    "no thanks",
    "no thank you",
    "changed my mind",
    "nicht kündigen",
    "ne pas résilier",
    "ne pas annuler",
    "no cancelar",
    "non annullare",
    "niet opzeggen",
];

/// Links to help and terms pages: reading them commits nothing.
const INFORMATIONAL: &[&str] = &[
    "cancellation polic*",
    "cancellation terms",
    "cancellation faq*",
    "cancellation help",
    "terms of cancellation",
    "refund polic*",
    "termination polic*",
    "how to cancel",
    "how do i cancel",
    "cancel anytime",
    "cancel any time",
    "cancel at any time",
    "about cancellation",
    "kündigungsbedingungen",
    "kündigungsfrist*",
];

/// The final step, in the words services use for it (any place).
const STRONG: &[&str] = &[
    // English: the verbs of the last button.
    "finish ~ cancel*",
    "complete ~ cancel*",
    "confirm ~ cancel*",
    "cancel* confirm",
    "cancel* confirmation",
    "submit ~ cancel*",
    "yes ~ cancel*",
    "cancel now",
    "cancel ~ now",
    "are you sure ~ cancel*",
    "end membership",
    "end my membership",
    "end your membership",
    "end subscription",
    "end my subscription",
    "end your subscription",
    "stop ~ membership",
    "stop ~ subscription",
    "unsubscrib*",
    "deactivat*",
    "terminat*",
    "close ~ account",
    "delete ~ account",
    // Turning off renewal is how some services spell "cancel".
    "turn off auto ~ renew*",
    "turn off autorenew*",
    "turn off ~ renewal",
    "disable auto ~ renew*",
    "disable autorenew*",
    "cancel auto ~ renew*",
    "stop auto ~ renew*",
    // German.
    "kündigen",
    "kuendigen",
    "kündigung ~ bestätigen",
    "kündigung ~ abschließen",
    "mitgliedschaft ~ beenden",
    "abo* ~ beenden",
    "vertrag ~ beenden",
    // French.
    "résilier",
    "confirmer ~ annulation",
    "confirmer ~ résiliation",
    "annuler ~ abonnement",
    "désabonner",
    // Spanish.
    "cancelar ~ suscripción",
    "confirmar ~ cancelación",
    "dar* de baja",
    // Italian.
    "disdici",
    "disdire",
    "annulla ~ abbonamento",
    "conferma ~ disdetta",
    "conferma ~ annullamento",
    "conferma ~ cancellazione",
    // Portuguese.
    "cancelar ~ assinatura",
    "confirmar ~ cancelamento",
    // Dutch.
    "opzeggen",
    "lidmaatschap ~ beëindigen",
    "abonnement ~ beëindigen",
    "bevestig* ~ opzegging",
];

/// A target whose whole text is one of these is the last button of a flow;
/// inside longer text ("finish setting up") the word means nothing.
const STRONG_WHOLE_TARGET: &[&str] = &["finish", "finish now"];

/// Path segments written as one word ("/confirmCancel", "/cancelnow").
const STRONG_URL_WORDS: &[&str] = &[
    "confirmcancel*",
    "cancelconfirm*",
    "cancellationconfirm*",
    "finishcancel*",
    "completecancel*",
    "submitcancel*",
    "cancelnow",
    "endmembership",
    "endsubscription",
];

/// Changes to what the person pays instead of the cancellation they asked for.
const BILLING_CHANGE: &[&str] = &[
    // Pausing.
    "pause",
    "pausieren",
    "pausar",
    "pausa",
    // Switching plan.
    "switch ~ plan",
    "switch to",
    "change ~ plan",
    "downgrad*",
    "upgrad*",
    "tarif wechseln",
    // Accepting an offer.
    "accept* ~ offer",
    "accept* ~ discount",
    "claim ~ offer",
    "claim ~ discount",
    "redeem*",
    "# off",
    "stay and save",
    "apply ~ discount",
    "apply ~ offer",
    "keep ~ membership at #",
    "keep ~ membership for #",
    "keep ~ subscription at #",
    "keep ~ subscription for #",
    "keep ~ plan at #",
    "keep ~ plan for #",
    "# month* free",
    "free month*",
    "angebot annehmen",
    "accepter ~ offre",
    "aceptar ~ oferta",
    "accetta ~ offerta",
    "aceitar ~ oferta",
    "aanbieding ~ accepteren",
    // Signing up again, which a page after the cancellation invites.
    "restart ~ membership",
    "restart ~ subscription",
    "resume ~ membership",
    "resume ~ subscription",
    "undo ~ cancel*",
    "rejoin",
    "reactivat*",
    "resubscrib*",
    "subscribe",
    "join now",
    "buy",
    "buy now",
    "purchase",
    "pay now",
];

/// Steps of a cancellation flow, and "Cancel" closing a dialog: the caller
/// lets these through only when the plugin's plan names them.
const WEAK: &[&str] = &[
    "cancel ~ membership",
    "cancel ~ subscription",
    "cancel ~ plan",
    "continue ~ cancel*",
    "cancel*",
    "kündigung",
    "abbrechen",
    "stornieren",
    "annuler",
    "annulla",
    "annuleren",
];

/// Words that go ahead with whatever the page is about: Weak on a page with
/// a Strong sign, nothing elsewhere.
const GO_AHEAD: &[&str] = &[
    "confirm",
    "submit",
    "continue",
    "proceed",
    "yes",
    "ok",
    "okay",
    "done",
    "next",
    "agree",
    "i understand",
    "understood",
    "bestätigen",
    "weiter",
    "ja",
    "confirmer",
    "continuer",
    "oui",
    "confirmar",
    "continuar",
    "sí",
    "sim",
    "conferma",
    "continua",
    "bevestig*",
    "doorgaan",
    "volgende",
];

/// French and Italian elisions ("l'abonnement", "dell'abbonamento") break a
/// word; other apostrophes join it ("don't" is one word, "dont").
const ELISIONS: &[&str] = &[
    "qu", "dell", "all", "nell", "dall", "sull", "quell", "jusqu", "lorsqu", "puisqu", "quelqu",
];

struct Tables {
    retreats: Vec<Pattern>,
    informational: Vec<Pattern>,
    strong: Vec<Pattern>,
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
    strong_whole_target: compile(STRONG_WHOLE_TARGET),
    strong_url_words: compile(STRONG_URL_WORDS),
    billing_change: compile(BILLING_CHANGE),
    weak: compile(WEAK),
    go_ahead: compile(GO_AHEAD),
});

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

/// The first pattern of `table`, in table order, found anywhere in `tokens`.
fn find_first<'t>(table: &'t [Pattern], tokens: &[String]) -> Option<&'t Pattern> {
    table.iter().find(|p| p.find(tokens, 0).is_some())
}

fn compile(table: &'static [&'static str]) -> Vec<Pattern> {
    table.iter().map(|phrase| Pattern::new(phrase)).collect()
}

/// One word of a table phrase.
#[derive(Debug, Clone)]
enum Word {
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
    fn blank(&self, tokens: &[String], out: &mut [String]) {
        for (start, end) in self.find_all(tokens) {
            for token in out.iter_mut().take(end).skip(start) {
                token.clear();
            }
        }
    }
}

/// The end of a match of `words` that starts at `at`; gaps take the fewest
/// words that work and never cross a blanked word.
fn match_at(words: &[Word], tokens: &[String], at: usize) -> Option<usize> {
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

/// Text as words, for the tables: lowercased, accents and look-alikes
/// folded, "cancell…" spelled "cancel…" (British and American spellings are
/// one word), punctuation a word break.
pub(crate) fn words(text: &str) -> Vec<String> {
    let mut folded = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        match fold(c) {
            Fold::Keep(k) => folded.push(k),
            Fold::Text(t) => folded.push_str(t),
            Fold::Apostrophe => folded.push('\''),
            Fold::Break => folded.push(' '),
            Fold::Drop => {}
        }
    }
    let mut out = Vec::new();
    for token in folded.split(' ').filter(|t| !t.is_empty()) {
        split_apostrophes(token, &mut out);
    }
    for token in &mut out {
        if let Some(rest) = token.strip_prefix("cancell") {
            *token = format!("cancel{rest}");
        }
    }
    out
}

fn split_apostrophes(token: &str, out: &mut Vec<String>) {
    let mut current = String::new();
    let mut previous = "";
    for part in token.split('\'').filter(|p| !p.is_empty()) {
        let elides = previous.chars().count() <= 2 || ELISIONS.contains(&previous);
        if !current.is_empty() && elides {
            out.push(std::mem::take(&mut current));
        }
        current.push_str(part);
        previous = part;
    }
    if !current.is_empty() {
        out.push(current);
    }
}

/// A URL's path, query and fragment as words: percent-escapes decoded,
/// camelCase split ("confirmCancel" is "confirm cancel").
fn url_words(url: &str) -> Vec<String> {
    let rest = match url.split_once("://") {
        Some((_, after_scheme)) => after_scheme
            .find(['/', '?', '#'])
            .map_or("", |i| &after_scheme[i..]),
        None => url,
    };
    let decoded = percent_decode(rest);
    let mut split = String::with_capacity(decoded.len());
    let mut previous_lower = false;
    for c in decoded.chars() {
        if previous_lower && c.is_uppercase() {
            split.push(' ');
        }
        previous_lower = c.is_lowercase();
        split.push(c);
    }
    words(&split)
}

/// `%C3%BC` → `ü`, `+` → space; malformed escapes are kept as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escaped = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (escaped, b) {
            (Some(decoded), _) => {
                out.push(decoded);
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

enum Fold {
    Keep(char),
    Text(&'static str),
    Apostrophe,
    Break,
    Drop,
}

/// One lowercased character as the tables read it. A page that writes
/// "Fіnish" with a Cyrillic і, "ﬁnish" with a ligature, "𝐅𝐢𝐧𝐢𝐬𝐡" in
/// mathematical bold or "fin\u{200b}ish" with a zero-width space shows the
/// person "finish", so the floor must read "finish" too.
fn fold(c: char) -> Fold {
    let keep = Fold::Keep;
    match c {
        '\'' | '’' | '‘' | 'ʼ' | '`' | '´' | '′' => Fold::Apostrophe,
        // Invisible: soft hyphen, zero-width and joiner characters, BOM,
        // variation selectors, combining marks (a decomposed "ü").
        '\u{00ad}'
        | '\u{034f}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{2060}'..='\u{2064}'
        | '\u{feff}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{0300}'..='\u{036f}' => Fold::Drop,
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => keep('a'),
        'ç' | 'ć' | 'č' => keep('c'),
        'ď' | 'đ' => keep('d'),
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => keep('e'),
        'ğ' => keep('g'),
        'ì' | 'í' | 'î' | 'ï' | 'ī' | 'į' | 'ı' => keep('i'),
        'ł' => keep('l'),
        'ñ' | 'ń' | 'ň' => keep('n'),
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => keep('o'),
        'ř' => keep('r'),
        'ś' | 'š' | 'ş' => keep('s'),
        'ť' | 'ţ' => keep('t'),
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => keep('u'),
        'ý' | 'ÿ' => keep('y'),
        'ź' | 'ż' | 'ž' => keep('z'),
        'ß' => Fold::Text("ss"),
        'æ' => Fold::Text("ae"),
        'œ' => Fold::Text("oe"),
        'ﬀ' => Fold::Text("ff"),
        'ﬁ' => Fold::Text("fi"),
        'ﬂ' => Fold::Text("fl"),
        'ﬃ' => Fold::Text("ffi"),
        'ﬄ' => Fold::Text("ffl"),
        'ﬅ' | 'ﬆ' => Fold::Text("st"),
        // Cyrillic and Greek letters that look Latin (lowercased already).
        'а' | 'α' => keep('a'),
        'в' | 'β' => keep('b'),
        'с' | 'ϲ' => keep('c'),
        'ԁ' => keep('d'),
        'е' | 'ё' | 'ε' => keep('e'),
        'һ' | 'η' => keep('h'),
        'і' | 'ї' | 'ι' => keep('i'),
        'ј' => keep('j'),
        'к' | 'κ' => keep('k'),
        'ӏ' => keep('l'),
        'м' | 'μ' => keep('m'),
        'н' => keep('h'),
        'о' | 'ο' => keep('o'),
        'р' | 'ρ' => keep('p'),
        'ԛ' => keep('q'),
        'ѕ' => keep('s'),
        'т' | 'τ' => keep('t'),
        'υ' => keep('u'),
        'у' => keep('y'),
        'ԝ' => keep('w'),
        'х' | 'χ' => keep('x'),
        'ａ'..='ｚ' | '０'..='９' => keep(char::from_u32(u32::from(c) - 0xfee0).unwrap_or(' ')),
        '\u{1d400}'..='\u{1d6a3}' => {
            // Mathematical alphanumerics: thirteen alphabets of A–Z a–z.
            let index = (u32::from(c) - 0x1d400) % 52 % 26;
            keep(char::from_u32(u32::from('a') + index).unwrap_or(' '))
        }
        '\u{1d7ce}'..='\u{1d7ff}' => {
            let digit = (u32::from(c) - 0x1d7ce) % 10;
            keep(char::from_digit(digit, 10).unwrap_or(' '))
        }
        c if c.is_alphanumeric() => keep(c),
        _ => Fold::Break,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use Strength::{BillingChange, Strong, Weak};

    /// Checks every row and reports all mismatches at once.
    fn check<T: std::fmt::Debug + PartialEq>(rows: impl Iterator<Item = (String, T, T)>) {
        let wrong: Vec<String> = rows
            .filter(|(_, got, want)| got != want)
            .map(|(input, got, want)| format!("{input:?}: got {got:?}, want {want:?}"))
            .collect();
        assert!(
            wrong.is_empty(),
            "{} wrong:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }

    /// An element's accessible name or visible text, read alone.
    const TARGETS: &[(&str, Option<Strength>)] = &[
        // The final button, in its many English spellings.
        ("Finish Cancellation", Some(Strong)),
        ("Finish cancelation", Some(Strong)),
        ("FINISH MY CANCELLATION", Some(Strong)),
        ("Complete cancellation", Some(Strong)),
        ("Confirm Cancellation", Some(Strong)),
        ("Confirm and cancel", Some(Strong)),
        ("Cancellation: confirm", Some(Strong)),
        ("Submit cancellation", Some(Strong)),
        ("Yes, cancel", Some(Strong)),
        ("Yes cancel my subscription", Some(Strong)),
        ("Yes, I want to cancel", Some(Strong)),
        ("End membership now", Some(Strong)),
        ("End my membership", Some(Strong)),
        ("End subscription", Some(Strong)),
        ("Cancel now", Some(Strong)),
        ("Cancel subscription now", Some(Strong)),
        ("Unsubscribe", Some(Strong)),
        ("Deactivate account", Some(Strong)),
        ("Terminate contract", Some(Strong)),
        ("Close my account", Some(Strong)),
        ("Delete account", Some(Strong)),
        ("Turn off auto-renew", Some(Strong)),
        ("Finish", Some(Strong)),
        // Disguises that show the person "finish cancellation".
        ("Fіnish cancellation", Some(Strong)),
        ("ﬁnish cancellation", Some(Strong)),
        ("𝐅𝐢𝐧𝐢𝐬𝐡 𝐜𝐚𝐧𝐜𝐞𝐥𝐥𝐚𝐭𝐢𝐨𝐧", Some(Strong)),
        ("Fin\u{200b}ish cancel\u{ad}lation", Some(Strong)),
        ("Ｆｉｎｉｓｈ ｃａｎｃｅｌｌａｔｉｏｎ", Some(Strong)),
        // A way out in the same text does not hide the commit.
        ("Keep my membership (cancel now)", Some(Strong)),
        ("Never mind — finish cancellation", Some(Strong)),
        ("Keep? No — cancel my membership now", Some(Strong)),
        ("Keep it, cancel membership", Some(Weak)),
        // Other languages.
        ("Kündigen", Some(Strong)),
        ("Jetzt kündigen", Some(Strong)),
        ("Kündigung bestätigen", Some(Strong)),
        ("Mitgliedschaft beenden", Some(Strong)),
        ("jetzt ku\u{308}ndigen", Some(Strong)),
        ("Jetzt kuendigen", Some(Strong)),
        ("Résilier", Some(Strong)),
        ("Confirmer l’annulation", Some(Strong)),
        ("Annuler l'abonnement", Some(Strong)),
        ("Se désabonner", Some(Strong)),
        ("Cancelar suscripción", Some(Strong)),
        ("Confirmar cancelación", Some(Strong)),
        ("Darme de baja", Some(Strong)),
        ("Disdici", Some(Strong)),
        ("Annulla l'abbonamento", Some(Strong)),
        ("Cancelar assinatura", Some(Strong)),
        ("Opzeggen", Some(Strong)),
        ("Lidmaatschap beëindigen", Some(Strong)),
        // Changes to what the person pays.
        ("Pause membership", Some(BillingChange)),
        ("Pause", Some(BillingChange)),
        ("Switch plan", Some(BillingChange)),
        ("Change plan", Some(BillingChange)),
        ("Downgrade to Basic", Some(BillingChange)),
        ("Upgrade", Some(BillingChange)),
        ("Accept offer", Some(BillingChange)),
        ("Accept this special offer", Some(BillingChange)),
        ("Claim offer", Some(BillingChange)),
        ("Redeem", Some(BillingChange)),
        ("Get 50% off", Some(BillingChange)),
        ("Keep my membership at $7.99", Some(BillingChange)),
        (
            "No thanks, keep my membership at $7.99/month",
            Some(BillingChange),
        ),
        ("Stay and save", Some(BillingChange)),
        ("Apply discount", Some(BillingChange)),
        ("Get 1 month free", Some(BillingChange)),
        ("Mitgliedschaft pausieren", Some(BillingChange)),
        ("Restart membership", Some(BillingChange)),
        ("Undo cancellation", Some(BillingChange)),
        ("Subscribe", Some(BillingChange)),
        // Steps of the flow, and "Cancel" closing a dialog.
        ("Cancel Membership", Some(Weak)),
        ("Cancel subscription", Some(Weak)),
        ("Cancel plan", Some(Weak)),
        ("Cancel my plan", Some(Weak)),
        ("Cancel", Some(Weak)),
        ("Continue to cancel", Some(Weak)),
        ("Continue cancellation", Some(Weak)),
        ("Annuler", Some(Weak)),
        ("Abbrechen", Some(Weak)),
        // Ways out, help pages and the ordinary steps: no prompt.
        ("Don't cancel", None),
        ("Don’t cancel my membership", None),
        ("No, do not cancel", None),
        ("Keep membership", None),
        ("Keep my membership", None),
        ("Never mind", None),
        ("Go back", None),
        ("Back to account", None),
        ("Nicht kündigen", None),
        ("Cancellation policy", None),
        ("Cancellation terms", None),
        ("Refund policy", None),
        ("How to cancel", None),
        ("Cancel anytime", None),
        ("Too expensive", None),
        ("I'm not using it", None),
        ("Other", None),
        ("Continue", None),
        ("Confirm", None),
        ("Submit", None),
        ("Next", None),
        ("Back", None),
        ("Help", None),
        ("Account", None),
        ("Sign out", None),
        ("Finish setting up your profile", None),
        ("At the end of your plan", None),
        ("Episode 3", None),
        ("", None),
    ];

    #[test]
    fn target_texts() {
        check(TARGETS.iter().map(|(text, want)| {
            let got = sign_in_text(text, Place::Target).map(|s| s.strength);
            ((*text).to_owned(), got, *want)
        }));
    }

    /// Titles and headings: the page's own words.
    const PAGE_TEXTS: &[(Place, &str, Option<Strength>)] = &[
        (Place::Heading, "Confirm your cancellation", Some(Strong)),
        (
            Place::Heading,
            "Are you sure you want to cancel?",
            Some(Strong),
        ),
        (Place::Heading, "End your membership?", Some(Strong)),
        (Place::Title, "Finish cancellation", Some(Strong)),
        (Place::Title, "Netflix - Cancel membership", Some(Weak)),
        // "Finish" alone is a button's word, not a page's.
        (Place::Title, "Finish", None),
        (Place::Heading, "Membership", None),
        (Place::Heading, "Wait! Before you go...", None),
        (
            Place::Heading,
            "You keep access until the end of your plan",
            None,
        ),
    ];

    #[test]
    fn page_texts() {
        check(PAGE_TEXTS.iter().map(|(place, text, want)| {
            let got = sign_in_text(text, *place).map(|s| (s.strength, s.place));
            ((*text).to_owned(), got, want.map(|w| (w, *place)))
        }));
    }

    const URLS: &[(&str, Option<Strength>)] = &[
        ("https://www.netflix.com/cancelplan/confirm", Some(Strong)),
        ("https://example.com/account/cancel/confirm", Some(Strong)),
        ("https://example.com/account/confirmCancel", Some(Strong)),
        ("https://example.com/account/confirmcancel", Some(Strong)),
        (
            "https://example.com/account/cancellationConfirmation",
            Some(Strong),
        ),
        ("https://example.com/unsubscribe?id=3", Some(Strong)),
        ("https://example.com/account/finish-cancel", Some(Strong)),
        ("https://example.com/#/cancel/confirm", Some(Strong)),
        ("https://example.de/konto/k%C3%BCndigen", Some(Strong)),
        ("/cancel/confirm", Some(Strong)),
        ("https://example.com/account?action=cancel", Some(Weak)),
        ("https://example.com/account/pause", Some(BillingChange)),
        ("https://example.com/help/cancellation-policy", None),
        ("http://127.0.0.1:8765/retention.html", None),
        // The host names the site, not the step.
        ("https://unsubscribe.example.com/home", None),
        ("", None),
    ];

    #[test]
    fn urls() {
        check(URLS.iter().map(|(url, want)| {
            let got = sign_in_url(url).map(|s| (s.strength, s.place));
            ((*url).to_owned(), got, want.map(|w| (w, Place::Url)))
        }));
    }

    struct Case {
        targets: &'static [&'static str],
        title: &'static str,
        headings: &'static [&'static str],
        url: &'static str,
        /// What `judge` answers.
        want: Option<(Strength, Place)>,
        /// What `judge_each` says of the target alone.
        want_target: Option<Strength>,
    }

    const BENIGN_URL: &str = "https://example.com/account";

    const JUDGE: &[Case] = &[
        // A benign accessible name never hides the visible text, in either order.
        Case {
            targets: &["Go back", "Finish cancellation"],
            title: "Account",
            headings: &[],
            url: BENIGN_URL,
            want: Some((Strong, Place::Target)),
            want_target: Some(Strong),
        },
        Case {
            targets: &["Finish cancellation", "Go back"],
            title: "Account",
            headings: &[],
            url: BENIGN_URL,
            want: Some((Strong, Place::Target)),
            want_target: Some(Strong),
        },
        Case {
            targets: &["Keep membership", "Get 50% off"],
            title: "Before you go",
            headings: &[],
            url: BENIGN_URL,
            want: Some((BillingChange, Place::Target)),
            want_target: Some(BillingChange),
        },
        // A way out on a page that commits: the page's sign, for the caller's rule.
        Case {
            targets: &["Back to account"],
            title: "Account",
            headings: &["Confirm your cancellation"],
            url: BENIGN_URL,
            want: Some((Strong, Place::Heading)),
            want_target: None,
        },
        // A go-ahead word on a page that commits is Weak on the target.
        Case {
            targets: &["Confirm"],
            title: "Account",
            headings: &["Confirm your cancellation"],
            url: BENIGN_URL,
            want: Some((Strong, Place::Heading)),
            want_target: Some(Weak),
        },
        Case {
            targets: &["Next"],
            title: "Account",
            headings: &[],
            url: "https://example.com/unsubscribe",
            want: Some((Strong, Place::Url)),
            want_target: Some(Weak),
        },
        Case {
            targets: &["Cancel"],
            title: "Finish cancellation",
            headings: &[],
            url: BENIGN_URL,
            want: Some((Strong, Place::Title)),
            want_target: Some(Weak),
        },
        // Ties go to the target.
        Case {
            targets: &["Finish cancellation"],
            title: "Finish cancellation",
            headings: &[],
            url: BENIGN_URL,
            want: Some((Strong, Place::Target)),
            want_target: Some(Strong),
        },
        Case {
            targets: &["Get 50% off"],
            title: "Account",
            headings: &[],
            url: "https://example.com/cancel/confirm",
            want: Some((Strong, Place::Url)),
            want_target: Some(BillingChange),
        },
        Case {
            targets: &["Cancel membership"],
            title: "Account",
            headings: &["Membership"],
            url: BENIGN_URL,
            want: Some((Weak, Place::Target)),
            want_target: Some(Weak),
        },
        // The ordinary steps of a flow: nothing to ask.
        Case {
            targets: &["Continue"],
            title: "Account",
            headings: &["Why are you leaving?"],
            url: BENIGN_URL,
            want: None,
            want_target: None,
        },
        Case {
            targets: &["Too expensive"],
            title: "StreamFlix - Before you go",
            headings: &["Wait! Before you go..."],
            url: "http://127.0.0.1:8765/retention.html",
            want: None,
            want_target: None,
        },
        Case {
            targets: &[],
            title: "",
            headings: &["Confirm your cancellation"],
            url: "",
            want: Some((Strong, Place::Heading)),
            want_target: None,
        },
    ];

    #[test]
    fn judge_takes_the_strongest_and_the_target_on_ties() {
        check(JUDGE.iter().map(|c| {
            let each = judge_each(c.targets, c.title, c.headings, c.url);
            let got = (
                judge(c.targets, c.title, c.headings, c.url).map(|s| (s.strength, s.place)),
                each.target.map(|s| s.strength),
            );
            let input = format!("{:?} {:?} {:?} {:?}", c.targets, c.title, c.headings, c.url);
            (input, got, (c.want, c.want_target))
        }));
    }

    #[test]
    fn signs_name_the_phrase_as_written() {
        let rows = [
            ("Finish Cancellation", Some("finish ~ cancel*")),
            ("Get 50% off", Some("# off")),
            ("Jetzt kündigen", Some("kündigen")),
            ("Cancel Membership", Some("cancel ~ membership")),
            ("Help", None),
        ];
        check(rows.into_iter().map(|(text, want)| {
            let got = sign_in_text(text, Place::Target).map(|s| s.phrase);
            (text.to_owned(), got, want)
        }));
    }

    #[test]
    fn words_fold_spelling_apostrophes_and_case() {
        let rows: [(&str, &[&str]); 6] = [
            ("Don’t CANCEL", &["dont", "cancel"]),
            ("Confirmer l'annulation", &["confirmer", "l", "annulation"]),
            ("Cancelled, cancellation", &["canceled", "cancelation"]),
            ("Kündigung bestätigen", &["kundigung", "bestatigen"]),
            ("Straße", &["strasse"]),
            ("auto-renew: off!", &["auto", "renew", "off"]),
        ];
        check(rows.into_iter().map(|(text, want)| {
            let want: Vec<String> = want.iter().map(|w| (*w).to_owned()).collect();
            (text.to_owned(), words(text), want)
        }));
    }
}
