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
        let w = |k: &str| pack.word("", k, &[]).unwrap();
        let keep = w("dn_keep");
        let commit = w("dn_commit");
        assert_ne!(keep, commit, "{}", pack.code);
        assert_ne!(keep, w("open_cancel"), "{}", pack.code);
        assert_ne!(w("shame_decline"), w("continue_cancel"), "{}", pack.code);
        assert_ne!(w("pause_option"), w("cancel_option"), "{}", pack.code);
    }
}

#[test]
fn service_words_win_and_placeholders_fill() {
    let de = LangPack::get("de").unwrap();
    assert_eq!(
        de.word("netflix", "final", &[]).unwrap(),
        "Kündigung abschließen"
    );
    assert_ne!(
        de.word("hulu", "final", &[]).unwrap(),
        "Kündigung abschließen"
    );
    assert_eq!(fill("a {x} {y}", &[("x", "1")]), "a 1 {y}");
    assert!(LangPack::get("xx").is_err());
}
