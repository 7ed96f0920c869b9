//! The partner's name as the Account page says it, and where to cancel.

use crate::partner::{NAME_MAX_CHARS, billed_elsewhere, partner_named, reason};

#[test]
fn names_read_from_the_page() {
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("plain", "You're billed through Roku.", Some("Roku")),
        (
            "curly apostrophe",
            "You\u{2019}re billed through Roku.",
            Some("Roku"),
        ),
        (
            "in the tree's text",
            "- paragraph [ref=e10]: You're billed through Roku.",
            Some("Roku"),
        ),
        (
            "a heading",
            "- heading \"Billed through Amazon\" [level=2] [ref=e7]",
            Some("Amazon"),
        ),
        (
            "billed by",
            "Your subscription is billed by Verizon Fios.",
            Some("Verizon Fios"),
        ),
        ("billed via", "Billed via Google Play", Some("Google Play")),
        (
            "a colon",
            "Billed through: Apple iTunes",
            Some("Apple iTunes"),
        ),
        (
            "ends at a clause word",
            "Your subscription is billed through Disney+ as part of the Disney Bundle.",
            Some("Disney+"),
        ),
        (
            "ends at on",
            "Billed by T-Mobile on your monthly statement",
            Some("T-Mobile"),
        ),
        (
            "keeps a domain whole",
            "You're billed through Amazon.com. Go there to cancel.",
            Some("Amazon.com"),
        ),
        (
            "an ampersand",
            "Billed through AT&T, your carrier.",
            Some("AT&T"),
        ),
        (
            "the name in the next element",
            "- paragraph [ref=e10]:\n  - text: You're billed through\n  - strong [ref=e11]: Roku\n  - text: .",
            Some("Roku"),
        ),
        (
            "a generic partner",
            "Your plan is billed through a partner.",
            Some("a partner"),
        ),
        (
            "an unknown partner",
            "You're billed through Mint Mobile.",
            Some("Mint Mobile"),
        ),
        ("Hulu itself", "You're billed by Hulu.", None),
        ("a card", "Billed through Visa ending in 4242", None),
        ("PayPal", "Billed via PayPal", None),
        (
            "a gift card",
            "Billed through your Hulu gift card balance",
            None,
        ),
        (
            "conditional",
            "If you're billed through Roku, cancel with Roku.",
            None,
        ),
        (
            "when",
            "When you're billed by a partner, changes are made there.",
            None,
        ),
        ("negated", "You're no longer billed through Roku.", None),
        (
            "a later plain sentence counts",
            "If so, see below. You're billed through Roku.",
            Some("Roku"),
        ),
        ("not a word start", "Unbilled by anyone.", None),
        (
            "no statement",
            "Your next bill is on December 16, 2026.",
            None,
        ),
        ("nothing after the phrase", "Billed through", None),
    ];
    for (name, text, want) in cases {
        assert_eq!(partner_named(text).as_deref(), *want, "{name}: {text:?}");
    }
}

#[test]
fn reasons_say_where_to_cancel() {
    let cases: &[(&str, &str)] = &[
        (
            "Roku",
            "billed through Roku: cancel it in your Roku account (my.roku.com → Manage your subscriptions → Hulu), not on hulu.com",
        ),
        (
            "Apple iTunes",
            "billed through Apple: cancel it in your Apple account (iPhone or iPad: Settings → your name → Subscriptions → Hulu), not on hulu.com",
        ),
        (
            "the App Store",
            "billed through Apple: cancel it in your Apple account",
        ),
        (
            "Google Play",
            "billed through Google Play: cancel it in Google Play (play.google.com → Payments & subscriptions → Subscriptions → Hulu), not on hulu.com",
        ),
        (
            "Amazon.com",
            "billed through Amazon: cancel it in your Amazon account (amazon.com → Your Memberships & Subscriptions → Hulu), not on hulu.com",
        ),
        (
            "Disney+",
            "billed through Disney+: cancel it in your Disney+ account (disneyplus.com",
        ),
        ("the Disney Bundle", "billed through Disney+:"),
        (
            "Spotify",
            "billed through Spotify: change your Spotify plan in your Spotify account (spotify.com/account",
        ),
        (
            "Verizon Fios",
            "billed through Verizon: cancel it in your account with Verizon, not on hulu.com",
        ),
        (
            "T-Mobile",
            "billed through T-Mobile: cancel it in your account with T-Mobile, not on hulu.com",
        ),
        (
            "AT&T",
            "billed through AT&T: cancel it in your account with AT&T",
        ),
        (
            "Comcast Xfinity",
            "billed through Xfinity: cancel it in your account with Xfinity",
        ),
        (
            "Walmart+",
            "billed through Walmart+: cancel it in your account with Walmart+",
        ),
        (
            "Instacart+",
            "billed through Instacart: cancel it in your account with Instacart",
        ),
        (
            "a partner",
            "billed through a partner: cancel it with the company that bills you, not on hulu.com",
        ),
        (
            "your mobile carrier",
            "billed through your mobile carrier: cancel it with the company that bills you",
        ),
        (
            "Mint Mobile",
            "billed through Mint Mobile: cancel it with Mint Mobile, not on hulu.com",
        ),
    ];
    for (name, want) in cases {
        let got = reason(name);
        assert!(got.starts_with(want), "{name}: {got}");
    }
}

#[test]
fn names_are_whole_words_only() {
    // "Coxswain" is not Cox, "Dishonest Co" is not DISH.
    for name in ["Coxswain Media", "Dishonest Co", "Sprinter Tel"] {
        let got = reason(name);
        assert_eq!(
            got,
            format!("billed through {name}: cancel it with {name}, not on hulu.com")
        );
    }
}

#[test]
fn a_hostile_name_is_cleaned_and_bounded() {
    let cases: &[(&str, &str)] = &[
        (
            "markup and control characters",
            "You're billed through <b>Evil\u{202e}Corp</b>\u{0007}",
        ),
        ("quotes end the name", "You're billed through Evil\" Corp"),
        (
            "a paragraph where a name goes",
            "You're billed through Zzzzzzzzzz Yyyyyyyyyy Xxxxxxxxxx Wwwwwwwwww Vvvvvvvvvv Uuuuuuuuuu Tttttttttt",
        ),
        (
            "one endless word",
            &format!("You're billed through {}", "A".repeat(500)),
        ),
    ];
    for (name, text) in cases {
        let got = partner_named(text).unwrap_or_default();
        assert!(!got.is_empty(), "{name}");
        assert!(got.chars().count() <= NAME_MAX_CHARS, "{name}: {got}");
        assert!(
            got.chars()
                .all(|c| c.is_alphanumeric() || " +&'.-".contains(c)),
            "{name}: {got:?}"
        );
    }
    assert_eq!(
        partner_named("You're billed through Evil\" Corp").as_deref(),
        Some("Evil")
    );
    assert_eq!(
        partner_named("You're billed through <b>Evil\u{202e}Corp</b>").as_deref(),
        Some("bEvilCorp")
    );
}

#[test]
fn the_first_text_that_names_a_partner_gives_the_reason() {
    let texts = [
        "Your next bill is on December 16.",
        "You're billed through Roku.",
    ];
    let got = billed_elsewhere(&texts).unwrap_or_default();
    assert!(got.starts_with("billed through Roku:"), "{got}");
    assert_eq!(billed_elsewhere(&["Visa ending in 4242"]), None);
}
