#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;

#[test]
fn every_pack_is_whole() {
    let packs = LangPack::all().unwrap();
    assert!(packs.len() >= 12);
    for pack in &packs {
        let gaps = pack.gaps();
        assert!(gaps.is_empty(), "{}: {gaps:?}", pack.code);
        assert!(
            chrono::format::StrftimeItems::new(&pack.date_format)
                .all(|i| !matches!(i, chrono::format::Item::Error)),
            "{}: bad date format",
            pack.code
        );
    }
}

/// A negation that keeps must never read as the word that cancels,
/// and the double negative must differ from both.
#[test]
fn negations_are_not_their_opposites() {
    for pack in LangPack::all().unwrap() {
        let w = |k: Word| pack.word("", k, &[]).unwrap();
        let keep = w(Word::DnKeep);
        let commit = w(Word::DnCommit);
        assert_ne!(keep, commit, "{}", pack.code);
        assert_ne!(keep, w(Word::OpenCancel), "{}", pack.code);
        assert_ne!(
            w(Word::ShameDecline),
            w(Word::ContinueCancel),
            "{}",
            pack.code
        );
        assert_ne!(w(Word::PauseOption), w(Word::CancelOption), "{}", pack.code);
    }
}

#[test]
fn service_words_win_and_placeholders_fill() {
    let de = LangPack::get("de").unwrap();
    assert_eq!(
        de.word("netflix", Word::Final, &[]).unwrap(),
        "Kündigung abschließen"
    );
    assert_ne!(
        de.word("hulu", Word::Final, &[]).unwrap(),
        "Kündigung abschließen"
    );
    assert_eq!(fill("a {x} {y}", &[("x", "1")]), "a 1 {y}");
    assert!(LangPack::get("xx").is_err());
}

/// A pack with a key no flow draws does not load: the error names the
/// pack and the key, in whichever table it is.
#[test]
fn a_misspelt_key_is_refused_naming_it() {
    let cases = [
        ("[words]\nopne_cancel = \"x\"\n[lists]", "opne_cancel"),
        (
            "[words]\n[lists]\n[service.netflix]\nfinall = \"x\"",
            "finall",
        ),
        (
            "[words]\n[lists]\n[held-out.words]\nopne_cancel = \"x\"",
            "opne_cancel",
        ),
        (
            "[words]\n[lists]\n[statutory]\nterminate_her = \"x\"",
            "terminate_her",
        ),
        ("[words]\n[lists]\nreason = [\"a\"]", "reason"),
    ];
    for (tables, key) in cases {
        let text = format!("code = \"xx\"\nname = \"X\"\ndate-format = \"%d\"\n{tables}\n");
        let err = parse("xx", &text).unwrap_err().to_string();
        assert!(err.contains("the xx language pack"), "{err}");
        assert!(err.contains(&format!("{key:?}")), "{err}");
    }
    // The same pack with the key spelt right loads.
    let text = "code = \"xx\"\nname = \"X\"\ndate-format = \"%d\"\n[words]\nopen_cancel = \"x\"\n[lists]\n";
    assert_eq!(
        parse("xx", text)
            .unwrap()
            .word("", Word::OpenCancel, &[])
            .unwrap(),
        "x"
    );
}

/// Each key reads as its variant's name in snake case, and parses back.
#[test]
fn every_key_is_its_name_in_snake_case() {
    let names = |keys: &[(String, &str)]| {
        for (debug, key) in keys {
            let snake: String = debug
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let sep = (i > 0 && c.is_uppercase()).then_some('_');
                    sep.into_iter().chain(c.to_lowercase())
                })
                .collect();
            assert_eq!(&snake, key);
        }
    };
    let words: Vec<(String, &str)> = [Word::BASE, Word::SHAPE, Word::STATUTORY]
        .concat()
        .into_iter()
        .inspect(|w| assert_eq!(Word::from_key(w.as_str()), Some(*w)))
        .map(|w| (format!("{w:?}"), w.as_str()))
        .collect();
    names(&words);
    let laws: Vec<(String, &str)> = StatutoryWord::ALL
        .iter()
        .inspect(|w| assert_eq!(StatutoryWord::from_key(w.as_str()), Some(**w)))
        .map(|w| (format!("{w:?}"), w.as_str()))
        .collect();
    names(&laws);
    let lists: Vec<(String, &str)> = List::ALL
        .iter()
        .map(|l| (format!("{l:?}"), l.as_str()))
        .collect();
    names(&lists);
    assert_eq!(
        LISTS.to_vec(),
        lists.iter().map(|(_, k)| *k).collect::<Vec<_>>()
    );
    assert_eq!(
        Key::parse("statutory.terminate_now").unwrap(),
        Key::Statutory(StatutoryWord::TerminateNow)
    );
    assert!(Key::parse("statutory.open_cancel").is_err());
    assert!(Key::parse("opne_cancel").is_err());
}
