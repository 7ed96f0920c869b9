//! The held-out wording stays held out: no phrase a held-out flow is worded
//! in (a pack's `[held-out.words]`, every word of a held-out-only language,
//! a family's own words in it) occurs in a plan or word table of the host,
//! so a plan edited later cannot learn it without this test failing.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

use super::*;

/// The host's plans and word tables, relative to this crate's directory
/// (`host/bench`); each is named in the doc comment of
/// `no_host_plan_or_table_holds_held_out_wording`, which checks it is.
const HOST_TABLES: &[&str] = &[
    "../../plugins/amazon-prime/service.toml",
    "../../plugins/disney-plus/service.toml",
    "../../plugins/max/service.toml",
    "../../plugins/nytimes/service.toml",
    "../../plugins/paramount-plus/service.toml",
    "../../plugins/peacock/service.toml",
    "../../plugins/spotify/service.toml",
    "../../plugins/youtube-premium/service.toml",
    "../../plugins/hulu/src/lib.rs",
    "../../plugins/hulu/src/partner.rs",
    "../../plugins/netflix/src/lib.rs",
    "../../plugins/netflix/src/wording.rs",
    "../../plugins/practice/src/lib.rs",
    "../core/src/plugin/generic/plan.toml",
    "../core/src/plugin/generic.rs",
    "../core/src/plugin/types.rs",
    "../core/src/safety/success.rs",
    "../core/src/safety/ended.rs",
    "../core/src/safety/verification.rs",
    "../core/src/safety/commit_page.rs",
    "../core/src/safety/plan.rs",
    "../core/src/safety.rs",
    "../core/src/safety/floor/phrases.rs",
    "../core/src/safety/floor/request.rs",
    "../core/src/safety/floor/matcher.rs",
    "../core/src/agent/offline.rs",
    "../core/src/agent/pipeline.rs",
    "../core/src/agent/facts.rs",
    "../core/src/agent/claim.rs",
    "../core/src/agent/guard_rules.rs",
    "../core/src/audit.rs",
    "../core/src/audit/phrases.rs",
    "../core/src/page/overlay.rs",
    "../core/src/page/mask.rs",
    "../core/src/page/password_wall.rs",
    "../core/src/text.rs",
    "../core/src/text/fold.rs",
    "../core/src/browser/guard.js",
    "../../sdk/rust/src/text.rs",
    "../../sdk/rust/src/predicates.rs",
];

/// Fragments of held-out wording that are not the language's own words
/// but spelled the same in the languages the host knows: a hit on them
/// says nothing about a plan having learnt the wording.
const SHARED: &[&str] = &["e-mail"];

/// Chinese and Japanese are written without spaces: the host reads them a
/// character a word, so a phrase in them is found inside any longer run.
fn unspaced(c: char) -> bool {
    matches!(u32::from(c), 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

/// Whether `phrase` occurs in `text` as whole words, case-insensitively:
/// "Akun" is not found inside "Akuntansi", nor "No" inside "Nothing";
/// "解約" is found inside "解約する".
fn occurs(text: &str, phrase: &str) -> bool {
    let text = text.to_lowercase();
    let phrase = phrase.to_lowercase();
    // A neighbour cuts a word in two only between letters of spaced scripts.
    let joined = |outside: Option<char>, edge: Option<char>| match (outside, edge) {
        (Some(o), Some(e)) => o.is_alphanumeric() && !unspaced(o) && !unspaced(e),
        _ => false,
    };
    text.match_indices(&phrase).any(|(at, _)| {
        !joined(text[..at].chars().next_back(), phrase.chars().next())
            && !joined(
                text[at + phrase.len()..].chars().next(),
                phrase.chars().next_back(),
            )
    })
}

/// The phrases of one word: its text cut at each `{placeholder}`, each
/// piece trimmed of spaces and punctuation, the empty ones dropped.
fn phrases(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = word;
    loop {
        let (piece, after) = match rest.find('{') {
            Some(open) => (
                &rest[..open],
                rest[open..]
                    .find('}')
                    .map(|close| &rest[open + close + 1..]),
            ),
            None => (rest, None),
        };
        let piece = piece.trim_matches(|c: char| !c.is_alphanumeric());
        if piece.chars().any(char::is_alphabetic) {
            out.push(piece.to_owned());
        }
        match after {
            Some(after) => rest = after,
            None => break,
        }
    }
    out
}

/// Every held-out phrase, with where it comes from.
fn held_out_phrases() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for pack in LangPack::all().unwrap() {
        let words: Vec<(&str, &str)> = if pack.held_out_only {
            pack.every_word().into_iter().map(|w| ("", w)).collect()
        } else {
            pack.held_out_words()
                .iter()
                .map(|(k, w)| (k.as_str(), w.as_str()))
                .collect()
        };
        for (key, word) in words {
            for phrase in phrases(word) {
                out.push((format!("{} {key}", pack.code), phrase));
            }
        }
        if pack.held_out_only {
            for family in crate::family::all().unwrap() {
                let own = family
                    .words
                    .get(&pack.code)
                    .into_iter()
                    .flat_map(|w| w.values());
                let lists = family
                    .lists
                    .get(&pack.code)
                    .into_iter()
                    .flat_map(|l| l.values().flatten());
                for word in own.chain(lists) {
                    for phrase in phrases(word) {
                        out.push((format!("{} {}", pack.code, family.service), phrase));
                    }
                }
            }
        }
    }
    out.retain(|(_, p)| !SHARED.contains(&p.to_lowercase().as_str()));
    out
}

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

#[test]
fn a_phrase_occurs_as_whole_words_only() {
    let cases: &[(&str, &str, bool)] = &[
        ("name = [\"end membership\"]", "End membership", true),
        ("Akuntansi", "Akun", false),
        ("Nothing", "No", false),
        ("\"ya\", \"no\"", "No", true),
        ("KÜNDIGEN", "kündigen", true),
        ("nicht nicht kündigen", "nicht kündigen", true),
        ("\"解約手続きを完了\"", "解約手続き", true),
        ("解約する", "解約", true),
        ("해지하기", "해지", false),
        ("", "x", false),
    ];
    for (text, phrase, found) in cases {
        assert_eq!(occurs(text, phrase), *found, "{phrase:?} in {text:?}");
    }
}

#[test]
fn a_word_is_cut_at_its_placeholders() {
    let cases: &[(&str, &[&str])] = &[
        ("Beralih ke {cheaper}", &["Beralih ke"]),
        (
            "{plan} · {price}/bulan. Tagihan berikutnya {billing_date}.",
            &["bulan. Tagihan berikutnya"],
        ),
        ("Klik \"{accept}\" untuk", &["Klik", "untuk"]),
        ("{brand}", &[]),
        ("Lewati", &["Lewati"]),
    ];
    for (word, want) in cases {
        assert_eq!(phrases(word), *want, "{word:?}");
    }
}

/// Reads, as text, every plan and word table of the host:
///
/// - `plugins/amazon-prime/service.toml`
/// - `plugins/disney-plus/service.toml`
/// - `plugins/max/service.toml`
/// - `plugins/nytimes/service.toml`
/// - `plugins/paramount-plus/service.toml`
/// - `plugins/peacock/service.toml`
/// - `plugins/spotify/service.toml`
/// - `plugins/youtube-premium/service.toml`
/// - `plugins/hulu/src/lib.rs`
/// - `plugins/hulu/src/partner.rs`
/// - `plugins/netflix/src/lib.rs`
/// - `plugins/netflix/src/wording.rs`
/// - `plugins/practice/src/lib.rs`
/// - `host/core/src/plugin/generic/plan.toml`
/// - `host/core/src/plugin/generic.rs`
/// - `host/core/src/plugin/types.rs`
/// - `host/core/src/safety/success.rs`
/// - `host/core/src/safety/ended.rs`
/// - `host/core/src/safety/verification.rs`
/// - `host/core/src/safety/commit_page.rs`
/// - `host/core/src/safety/plan.rs`
/// - `host/core/src/safety.rs`
/// - `host/core/src/safety/floor/phrases.rs`
/// - `host/core/src/safety/floor/request.rs`
/// - `host/core/src/safety/floor/matcher.rs`
/// - `host/core/src/agent/offline.rs`
/// - `host/core/src/agent/pipeline.rs`
/// - `host/core/src/agent/facts.rs`
/// - `host/core/src/agent/claim.rs`
/// - `host/core/src/agent/guard_rules.rs`
/// - `host/core/src/audit.rs`
/// - `host/core/src/audit/phrases.rs`
/// - `host/core/src/page/overlay.rs`
/// - `host/core/src/page/mask.rs`
/// - `host/core/src/page/password_wall.rs`
/// - `host/core/src/text.rs`
/// - `host/core/src/text/fold.rs`
/// - `host/core/src/browser/guard.js`
/// - `sdk/rust/src/text.rs`
/// - `sdk/rust/src/predicates.rs`
///
/// and finds in none of them a held-out phrase, as whole words and
/// case-insensitively. Every plugin's `service.toml` and Rust source
/// (its tests aside) must be on the list, so a new plugin cannot slip by;
/// and the development wording is found in them, so the search works.
#[test]
fn no_host_plan_or_table_holds_held_out_wording() {
    let doc = include_str!("held_out_tests.rs");
    for path in HOST_TABLES {
        let named = format!(
            "/// - `{}`",
            path.trim_start_matches("../../")
                .replace("../core/", "host/core/")
        );
        assert!(doc.contains(&named), "the doc comment does not name {path}");
    }
    let plugins = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugins");
    for plugin in std::fs::read_dir(&plugins).unwrap() {
        let plugin = plugin.unwrap();
        if !plugin.file_type().unwrap().is_dir() {
            continue;
        }
        let name = plugin.file_name().to_string_lossy().into_owned();
        let mut theirs = vec![format!("{name}/service.toml")];
        if let Ok(src) = std::fs::read_dir(plugin.path().join("src")) {
            for file in src {
                let file = file.unwrap().file_name().to_string_lossy().into_owned();
                if file.ends_with(".rs") && file != "tests.rs" {
                    theirs.push(format!("{name}/src/{file}"));
                }
            }
        }
        for file in theirs {
            if plugin.path().join(file.split_once('/').unwrap().1).exists() {
                let listed = format!("../../plugins/{file}");
                assert!(
                    HOST_TABLES.contains(&listed.as_str()),
                    "{listed} is not checked"
                );
            }
        }
    }

    let tables: Vec<(&str, String)> = HOST_TABLES.iter().map(|p| (*p, read(p))).collect();
    let all: String = tables.iter().map(|(_, t)| t.as_str()).collect();
    // The search finds what plans were written from.
    for seen in [
        "Continue to cancel",
        "Abo kündigen",
        "résilier l'abonnement",
    ] {
        assert!(
            occurs(&all, seen),
            "{seen:?} is not found: the search is broken"
        );
    }

    let phrases = held_out_phrases();
    assert!(phrases.len() > 100, "{} held-out phrases", phrases.len());
    let mut leaks = BTreeSet::new();
    for (from, phrase) in &phrases {
        for (path, text) in &tables {
            if occurs(text, phrase) {
                leaks.insert(format!("{from}: {phrase:?} in {path}"));
            }
        }
    }
    assert!(
        leaks.is_empty(),
        "held-out wording in the host:\n{}",
        leaks.into_iter().collect::<Vec<_>>().join("\n")
    );
}
