#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use crate::browser::parse_tree;

fn page(tree: &str) -> Snapshot {
    Snapshot {
        url: "https://www.example.com/account".into(),
        title: "Account".into(),
        content: tree.into(),
        screenshot_path: None,
        elements: parse_tree(tree),
    }
}

const ACCOUNT: &str =
    "- heading \"Account\" [level=1] [ref=e1]\n- link \"Cancel Membership\" [ref=e2]\n";

/// What a case expects: the kind found and the button pressed, or nothing.
type Want = Option<(Kind, &'static str)>;

#[test]
fn each_kind_is_dismissed_by_its_least_committing_choice() {
    let cases: &[(&str, &str, Want)] = &[
        (
            "cookie dialog: reject, never accept",
            "- dialog \"Cookie consent\" [ref=e10]:\n  - paragraph [ref=e11]: We use cookies to run this site.\n  - button \"Accept all\" [ref=e12]\n  - button \"Reject non-essential\" [ref=e13]\n",
            Some((Kind::Consent, "Reject non-essential")),
        ),
        (
            "cookie banner with a close button but no reject",
            "- region \"Privacy\" [ref=e10]:\n  - text: This site uses cookies.\n  - button \"Accept all\" [ref=e12]\n  - button \"Close\" [ref=e13]\n",
            Some((Kind::Consent, "Close")),
        ),
        (
            "cookie banner that only accepts: left alone",
            "- dialog \"Cookies\" [ref=e10]:\n  - text: We use cookies.\n  - button \"Accept all\" [ref=e12]\n",
            None,
        ),
        (
            "newsletter: closed, not subscribed",
            "- dialog \"Stay in the loop\" [ref=e10]:\n  - text: Subscribe to our newsletter for exclusive deals.\n  - textbox \"Email\" [ref=e11]\n  - button \"Subscribe\" [ref=e12]\n  - button \"No thanks\" [ref=e13]\n  - button \"Close\" [ref=e14]\n",
            Some((Kind::Promotion, "Close")),
        ),
        (
            "app promotion: not now",
            "- dialog [ref=e10]:\n  - text: Get the app for faster streaming\n  - link \"Download\" [ref=e11]\n  - button \"Not now\" [ref=e12]\n",
            Some((Kind::Promotion, "Not now")),
        ),
        (
            "chat widget: minimised",
            "- complementary \"Chat with us\" [ref=e10]:\n  - text: Hi! How can we help?\n  - button \"Minimize chat\" [ref=e11]\n",
            Some((Kind::Chat, "Minimize chat")),
        ),
        (
            "a retention offer is never the host's to answer",
            "- dialog \"Before you go\" [ref=e10]:\n  - text: Keep your membership at 50% off for 3 months.\n  - button \"Accept offer\" [ref=e11]\n  - button \"No thanks\" [ref=e12]\n",
            None,
        ),
        (
            "an offer dressed as a newsletter",
            "- dialog [ref=e10]:\n  - text: Subscribe to our newsletter and get a discount on your plan\n  - button \"Close\" [ref=e11]\n",
            None,
        ),
        (
            "a close button with nothing around it",
            "- main [ref=e9]:\n  - heading \"Help\" [ref=e10]\n  - button \"Close\" [ref=e11]\n",
            None,
        ),
        (
            "a disabled close button",
            "- dialog \"Cookie consent\" [ref=e10]:\n  - text: We use cookies.\n  - button \"Reject all\" [disabled] [ref=e12]\n",
            None,
        ),
    ];
    for (what, overlay, want) in cases {
        let snapshot = page(&format!("{ACCOUNT}{overlay}"));
        let found = find(&snapshot);
        match want {
            Some((kind, button)) => {
                assert_eq!(found.len(), 1, "{what}: {found:#?}");
                assert_eq!(found[0].kind, *kind, "{what}");
                assert_eq!(found[0].button.name, *button, "{what}");
            }
            None => assert!(found.is_empty(), "{what}: {found:#?}"),
        }
    }
}

#[test]
fn several_on_one_page_are_found_in_order() {
    let snapshot = page(&format!(
        "{ACCOUNT}- dialog \"Cookie consent\" [ref=e10]:\n  - text: We use cookies.\n  - button \"Reject all\" [ref=e11]\n- complementary \"Chat\" [ref=e20]:\n  - text: Live support\n  - button \"Close chat\" [ref=e21]\n"
    ));
    let found: Vec<(Kind, String)> = find(&snapshot)
        .into_iter()
        .map(|i| (i.kind, i.button.name))
        .collect();
    assert_eq!(
        found,
        vec![
            (Kind::Consent, "Reject all".to_owned()),
            (Kind::Chat, "Close chat".to_owned())
        ]
    );
}

#[test]
fn a_plugin_named_overlay_is_found_unless_it_speaks_of_the_cancellation() {
    let profile_gate = page(&format!(
        "{ACCOUNT}- dialog [ref=e10]:\n  - text: Who's watching?\n  - button \"Not now\" [ref=e11]\n"
    ));
    let found = named_by_service(&profile_gate, |e| e.name == "Not now").unwrap();
    assert_eq!(found.kind, Kind::Service);
    assert_eq!(found.button.reference.as_deref(), Some("e11"));
    let offer = page(&format!(
        "{ACCOUNT}- dialog [ref=e10]:\n  - text: Before you go, 3 months at half price\n  - button \"Not now\" [ref=e11]\n"
    ));
    assert!(named_by_service(&offer, |e| e.name == "Not now").is_none());
    // A teaser dialog laid over an account page that speaks of the
    // subscription: the dialog is the box, the page beneath is not read.
    let teaser = page(
        "- main [ref=e1]:\n  - heading \"Your subscription\" [level=1] [ref=e2]\n  - link \"Cancel subscription\" [ref=e3]\n  - dialog \"Your 2026 Wrapped\" [ref=e10]:\n    - generic [ref=e11]:\n      - text: Your year in music\n      - button \"Later\" [ref=e12]\n",
    );
    let found = named_by_service(&teaser, |e| e.name == "Later").unwrap();
    assert_eq!(found.button.reference.as_deref(), Some("e12"));
    // The same button with no dialog around it is read with the page.
    let inline = page(
        "- main [ref=e1]:\n  - heading \"Your subscription\" [level=1] [ref=e2]\n  - generic [ref=e10]:\n    - text: Your year in music\n    - button \"Later\" [ref=e12]\n",
    );
    assert!(named_by_service(&inline, |e| e.name == "Later").is_none());
}
