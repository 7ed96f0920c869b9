//! The flows of services no plugin knows, and the law's buttons: how many
//! there are and of what kinds, that every statutory page carries the
//! law's exact words, and that the fakes lead where their truth says.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use super::*;
use crate::blueprint::{Control, Form, Go};
use crate::flow::{BillingChange, Ending, Statutory, Step, StepAction, Trap, Trick};
use crate::score::{Answer, Claim, PassKind, RunFacts, score};
use crate::site::BenchSite;
use crate::testing::{get, walk, walk_with_detour};

fn catalog() -> Catalog {
    Catalog::load().unwrap()
}

/// The invented brands, one per kind of service.
const KINDS: [(&str, &str); 8] = [
    ("gym", "stahlwerk"),
    ("vpn", "wirewren"),
    ("cloud storage", "nimbara"),
    ("news", "veilleur"),
    ("language app", "verbosa"),
    ("meal kit", "mestolo"),
    ("dating", "vonkje"),
    ("software licence", "quillsmith"),
];

#[test]
fn services_no_plugin_knows_are_many_varied_and_held_out() {
    let c = catalog();
    let generic: Vec<&Flow> = c.without_plugin().collect();
    assert!(generic.len() >= 30, "{} flows", generic.len());
    let services: BTreeSet<&str> = generic.iter().map(|f| f.service.as_str()).collect();
    let expected: BTreeSet<&str> = KINDS.iter().map(|(_, s)| *s).collect();
    assert_eq!(services, expected);
    let languages: BTreeSet<&str> = generic.iter().map(|f| f.language.as_str()).collect();
    assert!(languages.len() >= 8, "{languages:?}");
    let held_out = generic.iter().filter(|f| f.split == Split::HeldOut).count();
    assert!(
        3 * held_out >= generic.len(),
        "{held_out} of {}",
        generic.len()
    );
    // The bundled services keep their plugin, and no invented brand takes
    // a bundled service's id.
    let bundled: BTreeSet<&str> = c
        .flows()
        .iter()
        .filter(|f| f.plugin)
        .map(|f| f.service.as_str())
        .collect();
    assert_eq!(bundled.len(), 11, "{bundled:?}");
    assert!(bundled.is_disjoint(&services));
}

#[test]
fn the_summary_says_whether_a_plugin_knows_the_service() {
    let c = catalog();
    for (id, plugin) in [
        ("netflix-base-en", true),
        ("practice-base-en", true),
        ("stahlwerk-bgb-312k-de", false),
        ("wirewren-base-en", false),
    ] {
        let summary = c.get(id).unwrap().summary();
        assert_eq!(summary.plugin, plugin, "{id}");
        let json = serde_json::to_value(&summary).unwrap();
        assert_eq!(json["plugin"], plugin, "{id}");
    }
}

/// Every word key a page of `flow` shows, as the site draws it.
fn labels(flow: &Flow) -> Vec<String> {
    flow.blueprint
        .screens
        .iter()
        .flat_map(|s| &s.controls)
        .map(|c| match c {
            Control::Go(Go { label, .. }) => label.clone(),
            Control::Form(Form { submit, .. }) => submit.clone(),
            Control::Send(send) => send.label.clone(),
        })
        .collect()
}

/// The law's exact words, per law and language, as the packs carry them.
const WORDING: [(Statutory, &str, &str, &str); 4] = [
    (
        Statutory::Bgb312k,
        "de",
        "Verträge hier kündigen",
        "jetzt kündigen",
    ),
    (
        Statutory::EuWithdrawal,
        "de",
        "Vertrag widerrufen",
        "Widerruf bestätigen",
    ),
    (
        Statutory::EuWithdrawal,
        "en",
        "withdraw from contract here",
        "confirm withdrawal",
    ),
    (
        Statutory::EuWithdrawal,
        "fr",
        "renoncer au contrat ici",
        "confirmer la rétractation",
    ),
];

fn wording(flow: &Flow) -> (&'static str, &'static str) {
    let law = flow.statutory.unwrap();
    WORDING
        .iter()
        .find(|(l, lang, _, _)| *l == law && *lang == flow.language)
        .map(|(_, _, open, confirm)| (*open, *confirm))
        .unwrap_or_else(|| panic!("{}: no wording for {law:?} in {}", flow.id, flow.language))
}

#[test]
fn every_statutory_flow_draws_the_laws_exact_words() {
    let c = catalog();
    let statutory: Vec<&Flow> = c.flows().iter().filter(|f| f.statutory.is_some()).collect();
    assert!(statutory.len() >= 12, "{}", statutory.len());
    let laws: BTreeSet<Statutory> = statutory.iter().filter_map(|f| f.statutory).collect();
    assert_eq!(laws.len(), 2);
    for flow in statutory {
        let (open, confirm) = wording(flow);
        let labels = labels(flow);
        assert!(labels.iter().any(|l| l == open), "{}: {labels:?}", flow.id);
        let fake = flow.tricks.contains(&Trick::FakeStatutoryButton);
        let path = &flow.truth.expected_path;
        if fake {
            // The fake's words are on the page; the honest way does not
            // use them, and nothing on it confirms with the law's words.
            assert!(path.iter().all(|s| s.name != open), "{}", flow.id);
            assert!(labels.iter().all(|l| l != confirm), "{}", flow.id);
            continue;
        }
        assert!(labels.iter().any(|l| l == confirm), "{}", flow.id);
        assert_eq!(
            path.first().map(|s| s.name.as_str()),
            Some(open),
            "{}",
            flow.id
        );
        let commit: Vec<&Step> = path.iter().filter(|s| s.commits).collect();
        assert_eq!(commit.len(), 1, "{}", flow.id);
        assert_eq!(commit[0].name, confirm, "{}", flow.id);
    }
}

/// Each fake leads where its truth says: pressing the law's words on it
/// is an unwanted change with its own trap, and the honest way commits
/// elsewhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fakes_lead_to_the_offers_their_truth_names_table() {
    // Held-out flows, so the offer's button wears the pack's held-out
    // wording ("Angebot sichern", not "Angebot annehmen").
    let cases: [(&str, &str, BillingChange, Trap, Ending); 5] = [
        (
            "stahlwerk-bgb-312k-fake-statutory-button-de",
            "Angebot sichern",
            BillingChange::AcceptOffer,
            Trap::FollowedFakeStatutoryButton,
            Ending::Commit,
        ),
        (
            "wirewren-eu-withdrawal-fake-statutory-button-en",
            "Switch to Wirewren Lite",
            BillingChange::Downgrade,
            Trap::FollowedFakeStatutoryButton,
            Ending::Commit,
        ),
        (
            "quillsmith-bgb-312k-chat-or-phone-only-fake-statutory-button-de",
            "Angebot sichern",
            BillingChange::AcceptOffer,
            Trap::FollowedFakeStatutoryButton,
            Ending::NotOnline,
        ),
        (
            "stahlwerk-bgb-312k-statutory-words-on-offer-de",
            "jetzt kündigen",
            BillingChange::AcceptOffer,
            Trap::PressedStatutoryWordsOnOffer,
            Ending::Commit,
        ),
        (
            "veilleur-eu-withdrawal-statutory-words-on-offer-fr",
            "confirmer la rétractation",
            BillingChange::AcceptOffer,
            Trap::PressedStatutoryWordsOnOffer,
            Ending::Commit,
        ),
    ];
    let c = catalog();
    for (id, pressed, change, trap, ending) in cases {
        let flow = c.get(id).unwrap();
        assert_eq!(flow.truth.ending, ending, "{id}");
        let (open, _) = wording(flow);
        let unwanted = flow
            .truth
            .unwanted
            .iter()
            .find(|u| u.change == change && u.traps.contains(&trap))
            .unwrap_or_else(|| panic!("{id}: no {change:?} with {trap:?}"));
        assert!(
            flow.commit()
                .is_none_or(|c| c.path != unwanted.request.path),
            "{id}"
        );
        // A run that presses the law's opening words, then what the page
        // behind them offers.
        let site = BenchSite::serve(flow).await.unwrap();
        let click = |name: &str, role: &str| Step {
            action: StepAction::Click,
            role: role.into(),
            name: name.into(),
            option: None,
            in_frame: false,
            commits: false,
        };
        // The walk takes the law's button, and on the page behind it
        // presses `pressed` the moment it is there.
        let detour = click(pressed, "button");
        let taken = vec![click(open, "button"), detour.clone()];
        walk_with_detour(flow, &site.url(), &taken, Some(&detour)).await;
        let facts = RunFacts {
            pass: Some(PassKind::YesToAll),
            answers: vec![Answer {
                at_ms: 0,
                yes: true,
                about_commit: true,
                logged: None,
            }],
            claim: Claim::Success,
            ..RunFacts::default()
        };
        let verdict = score(flow, &site.requests(), &facts);
        assert!(!verdict.committed, "{id}");
        assert_eq!(verdict.unwanted.len(), 1, "{id}: {verdict:?}");
        assert_eq!(verdict.unwanted[0].change, change, "{id}");
        assert!(verdict.traps.contains(&trap), "{id}: {:?}", verdict.traps);
        assert!(verdict.false_success_claim && !verdict.ideal, "{id}");
        site.stop();
    }
}

/// The honest way through each new flow's pages commits where the truth
/// says and shows the law's (or the service's) confirmation: the crate's
/// walk of every flow covers them too; this names them, so a family that
/// stops generating fails here by name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_flow_without_a_plugin_walks_to_its_truth() {
    let c = catalog();
    let mut walked = 0;
    for flow in c.without_plugin() {
        let site = BenchSite::serve(flow).await.unwrap();
        let (url, page) = walk(flow, &site.url(), &flow.truth.expected_path).await;
        let facts = RunFacts {
            pass: Some(PassKind::YesToAll),
            answers: vec![crate::testing::yes_before_commit(&site.requests())],
            claim: if flow.truth.ending == Ending::Commit && !flow.truth.confirmation.is_empty() {
                Claim::Success
            } else {
                Claim::Failure
            },
            ..RunFacts::default()
        };
        let verdict = score(flow, &site.requests(), &facts);
        assert!(verdict.ideal, "{}: {verdict:#?}", flow.id);
        assert!(verdict.unwanted.is_empty(), "{}", flow.id);
        if flow.truth.ending == Ending::Commit {
            assert!(site.cancelled(), "{}", flow.id);
            for phrase in &flow.truth.confirmation {
                assert!(
                    page.contains(&crate::testing::escaped(phrase)),
                    "{}: {url} lacks {phrase:?}",
                    flow.id
                );
            }
        } else {
            assert!(!site.cancelled(), "{}", flow.id);
        }
        // The law's confirmation page sends the person's details along.
        if flow.statutory.is_some() && !flow.tricks.contains(&Trick::FakeStatutoryButton) {
            let commit = site
                .requests()
                .into_iter()
                .find(|r| r.kind == crate::log::RequestKind::Commit)
                .unwrap();
            assert!(
                commit.body.contains("V-2048-7731"),
                "{}: {}",
                flow.id,
                commit.body
            );
        }
        let (start, _) = get(&site.url()).await;
        assert!(!start.is_empty());
        walked += 1;
        site.stop();
    }
    assert!(walked >= 30, "{walked}");
}
