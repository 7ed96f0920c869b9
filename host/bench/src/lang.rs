//! Language packs: the words for every control and text the flows draw, in
//! one language, with that language's own negations and confirmshaming, and
//! each service's own wording where the service ships in that language.
//!
//! ```toml
//! code = "de"
//! name = "Deutsch"
//! date-format = "%d.%m.%Y"          # chrono writes month names in English only
//!
//! [words]
//! open_cancel = "Abo kündigen"
//! dn_keep = "Nicht kündigen"        # keeps: a negation, not a cancel
//! …
//! [lists]
//! reasons = ["Zu teuer", …, "Sonstiges"]   # the last is the one chosen
//!
//! [service.netflix]                 # the service's own words win
//! open_cancel = "Mitgliedschaft kündigen"
//! final = "Kündigung abschließen"
//!
//! [held-out.words]                  # held-out flows only: other real phrasings
//! open_cancel = "Vertrag kündigen"
//! ```
//!
//! Every key of these tables is typed ([`Word`], [`List`],
//! [`StatutoryWord`]): a pack with a key no flow draws does not load, and
//! a call site cannot ask for a word no pack can have.
//!
//! A pack's `[held-out.words]` replace its generic words on held-out flows
//! only, so those flows are worded in phrasings no plan or host table was
//! written from; a pack that says `held-out-only = true` is a language
//! only held-out flows use, and no plan learns its words (`plan_words`).

use std::collections::BTreeMap;

use serde::Deserialize;
/// Each `{name}` of a word's vars filled in one pass.
pub(crate) use subterminator_sdk::text::fill;

use crate::error::{Error, Result};

mod keys;

pub(crate) use keys::STATUTORY_PREFIX;
pub use keys::{Key, List, StatutoryWord, Word};

/// Every pack the crate carries, as `(code, text)`.
const PACKS: &[(&str, &str)] = &[
    ("en", include_str!("../lang/en.toml")),
    ("de", include_str!("../lang/de.toml")),
    ("fr", include_str!("../lang/fr.toml")),
    ("es", include_str!("../lang/es.toml")),
    ("it", include_str!("../lang/it.toml")),
    ("pt-BR", include_str!("../lang/pt-BR.toml")),
    ("nl", include_str!("../lang/nl.toml")),
    ("ja", include_str!("../lang/ja.toml")),
    ("ko", include_str!("../lang/ko.toml")),
    ("zh-Hans", include_str!("../lang/zh-Hans.toml")),
    ("pl", include_str!("../lang/pl.toml")),
    ("sv", include_str!("../lang/sv.toml")),
    ("tr", include_str!("../lang/tr.toml")),
    ("ar", include_str!("../lang/ar.toml")),
    // Held-out flows only: no plan or host table was written from it.
    ("id", include_str!("../lang/id.toml")),
];

/// Whether a flow may draw the word `key` (a family's own words are
/// checked against this).
pub(crate) fn is_word(key: &str) -> bool {
    Word::from_key(key).is_some()
}

/// The lists every pack must have, as a family's own `[lists.X]` name
/// them.
pub(crate) const LISTS: [&str; 2] = [List::Reasons.as_str(), List::ReturnOptions.as_str()];

/// Which of a pack's wordings a flow's pages are drawn in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wording {
    /// The pack's generic words: the ones plans may learn.
    Development,
    /// Its `[held-out.words]` first, where it has them: phrasings kept
    /// from every plan and host table so held-out flows test unseen words.
    HeldOut,
}

/// A word and whether a held-out variant gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worded {
    pub text: String,
    pub unseen: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeldOutFile {
    #[serde(default)]
    words: BTreeMap<Word, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct PackFile {
    code: String,
    name: String,
    #[serde(default)]
    held_out_only: bool,
    #[serde(default)]
    held_out: HeldOutFile,
    #[serde(default)]
    rtl: bool,
    date_format: String,
    words: BTreeMap<Word, String>,
    lists: BTreeMap<List, Vec<String>>,
    #[serde(default)]
    service: BTreeMap<String, BTreeMap<Word, String>>,
    #[serde(default)]
    statutory: BTreeMap<StatutoryWord, String>,
}

/// One language's words.
#[derive(Debug, Clone)]
pub struct LangPack {
    pub code: String,
    /// The language's name in itself.
    pub name: String,
    /// Only held-out flows are in this language: no plan learns it.
    pub held_out_only: bool,
    pub rtl: bool,
    pub date_format: String,
    words: BTreeMap<Word, String>,
    lists: BTreeMap<List, Vec<String>>,
    service: BTreeMap<String, BTreeMap<Word, String>>,
    /// The law's words for its buttons in this language, where the law's
    /// official text in it was found (see the pack's `[statutory]`).
    statutory: BTreeMap<StatutoryWord, String>,
    /// Other real phrasings of generic words, drawn on held-out flows only.
    held_out: BTreeMap<Word, String>,
}

impl LangPack {
    /// The pack for `code` (exactly as the flows name it: `pt-BR`).
    pub fn get(code: &str) -> Result<LangPack> {
        let (_, text) = PACKS
            .iter()
            .find(|(c, _)| *c == code)
            .ok_or_else(|| Error::Data(format!("there is no language pack {code:?}")))?;
        parse(code, text)
    }

    /// Every pack the crate carries.
    pub fn all() -> Result<Vec<LangPack>> {
        PACKS.iter().map(|(code, text)| parse(code, text)).collect()
    }

    /// `key` in this language, `service`'s own wording first, with each
    /// `{name}` of `vars` filled in (other placeholders stay for later).
    pub fn word(&self, service: &str, key: Word, vars: &[(&str, &str)]) -> Result<String> {
        Ok(self.word_in(Wording::Development, service, key, vars)?.text)
    }

    /// `key` in `wording`: the service's own words first (plans may know a
    /// service's real words), then, for held-out wording, the pack's
    /// held-out variant, then its generic word.
    pub fn word_in(
        &self,
        wording: Wording,
        service: &str,
        key: Word,
        vars: &[(&str, &str)],
    ) -> Result<Worded> {
        if let Some(raw) = self.service.get(service).and_then(|words| words.get(&key)) {
            return Ok(Worded {
                text: fill(raw, vars),
                unseen: false,
            });
        }
        if let (Wording::HeldOut, Some(raw)) = (wording, self.held_out.get(&key)) {
            return Ok(Worded {
                text: fill(raw, vars),
                unseen: true,
            });
        }
        let raw = self.words.get(&key).ok_or_else(|| {
            Error::Data(format!(
                "the {} language pack has no word {:?}",
                self.code,
                key.as_str()
            ))
        })?;
        Ok(Worded {
            text: fill(raw, vars),
            unseen: false,
        })
    }

    /// The pack's held-out variants, by key.
    pub fn held_out_words(&self) -> &BTreeMap<Word, String> {
        &self.held_out
    }

    /// Every word and list entry of the pack, service words included.
    #[cfg(test)]
    pub(crate) fn every_word(&self) -> Vec<&str> {
        self.words
            .values()
            .chain(self.service.values().flat_map(|w| w.values()))
            .chain(self.held_out.values())
            .map(String::as_str)
            .chain(self.lists.values().flatten().map(String::as_str))
            .collect()
    }

    /// The law's own words for `key` (`terminate_here`…) in this language;
    /// an error where the pack has none (the law's text in this language
    /// was not found, so no flow may invent it).
    pub fn statutory(&self, key: StatutoryWord) -> Result<String> {
        self.statutory.get(&key).cloned().ok_or_else(|| {
            Error::Data(format!(
                "the {} language pack has no statutory wording {:?}",
                self.code,
                key.as_str()
            ))
        })
    }

    pub fn list(&self, key: List) -> Result<&[String]> {
        self.lists.get(&key).map(Vec::as_slice).ok_or_else(|| {
            Error::Data(format!(
                "the {} language pack has no list {:?}",
                self.code,
                key.as_str()
            ))
        })
    }

    /// The words `service` has of its own in this language, by key.
    pub fn service_words(&self, service: &str) -> BTreeMap<Word, String> {
        self.service.get(service).cloned().unwrap_or_default()
    }

    /// The keys a pack must have and lacks, and held-out variants that
    /// hold nothing out. (A key no flow draws does not get this far: the
    /// pack does not parse.)
    pub(crate) fn gaps(&self) -> Vec<String> {
        let mut gaps: Vec<String> = Word::BASE
            .iter()
            .filter(|k| !self.words.contains_key(*k))
            .map(|k| format!("missing word {}", k.as_str()))
            .collect();
        gaps.extend(
            List::ALL
                .iter()
                .filter(|k| self.lists.get(*k).is_none_or(|l| l.len() < 3))
                .map(|k| format!("missing or short list {}", k.as_str())),
        );
        gaps.extend(
            self.held_out
                .keys()
                .filter(|k| !Word::BASE.contains(*k))
                .map(|k| {
                    format!(
                        "held-out variant of {}, which is not a generic word",
                        k.as_str()
                    )
                }),
        );
        // A variant that says what the generic word says holds nothing out.
        gaps.extend(
            self.held_out
                .iter()
                .filter(|(k, v)| {
                    self.words
                        .get(*k)
                        .is_some_and(|w| w.to_lowercase() == v.to_lowercase())
                })
                .map(|(k, _)| {
                    format!(
                        "held-out variant of {} repeats the generic word",
                        k.as_str()
                    )
                }),
        );
        if self.held_out_only && !self.held_out.is_empty() {
            gaps.push("a held-out-only pack needs no held-out variants".to_owned());
        }
        gaps
    }
}

fn parse(code: &str, text: &str) -> Result<LangPack> {
    let file: PackFile = toml::from_str(text)
        .map_err(|e| Error::Data(format!("the {code} language pack is broken: {e}")))?;
    if file.code != code {
        return Err(Error::Data(format!(
            "the {code} language pack says it is {:?}",
            file.code
        )));
    }
    Ok(LangPack {
        code: file.code,
        name: file.name,
        held_out_only: file.held_out_only,
        rtl: file.rtl,
        date_format: file.date_format,
        words: file.words,
        lists: file.lists,
        service: file.service,
        statutory: file.statutory,
        held_out: file.held_out.words,
    })
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod held_out_tests;
