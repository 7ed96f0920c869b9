#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;

use super::*;
use crate::record::RunRecord;
use crate::signing::Keyring;

/// A finished, sealed and signed run with `result`, the confirmation saved
/// when it is a success.
fn run(root: &Path, result: serde_json::Value, page_text: &str) -> PathBuf {
    let keys = Keyring::open_or_create(&root.join("config")).unwrap();
    let mut record = RunRecord::create(&root.join("runs"), "nytimes").unwrap();
    record.sign_with(std::sync::Arc::new(keys.current));
    let shot = record.next_screenshot();
    std::fs::write(&shot, b"\x89PNG\r\n\x1a\n").unwrap();
    for event in [
        json!({"type": "run_started", "service": "nytimes", "display_name": "The <b>Times</b>",
               "start_url": "https://www.nytimes.com/subscription",
               "plugin": {"id": "nytimes", "version": "0.1.0", "sha256": "ab"}}),
        json!({"type": "approval_asked", "request": {"reason": "commits", "action": "browser_click",
               "url": "https://www.nytimes.com/cancel", "screenshot": shot}}),
        json!({"type": "approval_answered", "answer": {"answer": "approved"}}),
        json!({"type": "finished", "result": result.clone()}),
    ] {
        record.append(&event).unwrap();
    }
    let dir = record.dir().to_path_buf();
    if result["success"] == true {
        std::fs::write(
            dir.join(receipt::CONFIRMATION_TXT),
            format!("URL: https://www.nytimes.com/cancelled\nTitle: Done\n\n{page_text}\n"),
        )
        .unwrap();
    }
    record.finish(&result).unwrap();
    dir
}

fn cancelled(root: &Path, page_text: &str) -> PathBuf {
    run(
        root,
        json!({"success": true, "verified": true, "reason": "completed", "turns": 3}),
        page_text,
    )
}

fn phone_only(root: &Path) -> PathBuf {
    run(
        root,
        json!({"success": false, "verified": true, "reason": "cannot_cancel_here", "turns": 1,
               "final_url": "https://www.nytimes.com/subscription",
               "error": "cancellation is by chat or phone only: call 1-800-555-0199"}),
        "",
    )
}

fn today() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339("2026-12-07T10:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc)
}

#[test]
fn every_letter_states_the_facts_the_record_shows_in_its_language() {
    let root = tempfile::tempdir().unwrap();
    let done = Facts::read(&cancelled(
        root.path(),
        "Your subscription has been canceled.",
    ))
    .unwrap();
    let phone = Facts::read(&phone_only(root.path())).unwrap();
    assert!(matches!(
        done.ending,
        Ending::Cancelled {
            approved_at: Some(_),
            ..
        }
    ));
    assert!(matches!(phone.ending, Ending::NoWayOut { .. }));
    // (recipient, language, facts, words the letter must hold)
    let cases: [(Recipient, Language, &Facts, &[&str]); 8] = [
        (
            Recipient::Bank,
            Language::En,
            &done,
            &[
                "Dispute of charges",
                "Visa reason code 13.2",
                "Your subscription has been canceled.",
                "Available on request",
            ],
        ),
        (
            Recipient::Bank,
            Language::De,
            &done,
            &[
                "Reklamation von Belastungen",
                "§ 675x",
                "Your subscription has been canceled.",
            ],
        ),
        (
            Recipient::Merchant,
            Language::En,
            &done,
            &["refund every charge dated after the cancellation"],
        ),
        (
            Recipient::Merchant,
            Language::De,
            &phone,
            &["hiermit kündige ich", "Telefon oder Chat", "1-800-555-0199"],
        ),
        (
            Recipient::Regulator,
            Language::En,
            &phone,
            &[
                "I report",
                "Office of the Attorney General",
                "1-800-555-0199",
            ],
        ),
        (
            Recipient::Regulator,
            Language::De,
            &phone,
            &[
                "ich möchte mich über",
                "Verbraucherzentrale",
                "Telefon oder Chat",
            ],
        ),
        (
            Recipient::Bank,
            Language::En,
            &phone,
            &[
                "could not stop online",
                "blocking payments does not end the contract",
            ],
        ),
        (
            Recipient::Regulator,
            Language::En,
            &done,
            &["nothing in the way"],
        ),
    ];
    for (to, language, facts, expected) in cases {
        let jurisdiction = match language {
            Language::De => Jurisdiction::De,
            Language::En => Jurisdiction::UsCa,
        };
        let request = Request::new(to, Some(jurisdiction), Some(language));
        let letter = letter(facts, &request, today());
        let said = format!("{to:?} {language:?}");
        assert!(
            letter.contains(&format!("<html lang=\"{}\"", language.code())),
            "{said}"
        );
        for words in expected {
            assert!(letter.contains(words), "{said}: no {words:?}\n{letter}");
        }
        let signed = facts.proof.signed.as_ref().unwrap();
        assert!(
            letter.contains(&signed.signature()),
            "{said}: the signature"
        );
        assert!(letter.contains(&facts.proof.head), "{said}: the head");
        assert!(
            letter.contains("The &lt;b&gt;Times&lt;/b&gt;"),
            "{said}: the name escaped"
        );
        let day = match language {
            Language::En => "7 December 2026",
            Language::De => "7. Dezember 2026",
        };
        assert!(letter.contains(day), "{said}: dated");
    }
}

#[test]
fn a_page_cannot_write_markup_into_a_letter() {
    let root = tempfile::tempdir().unwrap();
    let facts = Facts::read(&cancelled(
        root.path(),
        "<script>alert(1)</script><img src=https://evil.example/x>{service}",
    ))
    .unwrap();
    for language in [Language::En, Language::De] {
        let request = Request::new(Recipient::Merchant, None, Some(language));
        let letter = letter(&facts, &request, today());
        assert!(!letter.contains("<script"), "{letter}");
        assert!(!letter.contains("<img src=https"), "{letter}");
        assert!(letter.contains("&lt;script&gt;"), "{letter}");
        assert!(
            letter.contains("{service}"),
            "a value is not a template: {letter}"
        );
    }
}

#[test]
fn runs_a_letter_cannot_state_are_refused_with_why() {
    let root = tempfile::tempdir().unwrap();
    let rejected = run(
        root.path(),
        json!({"success": false, "verified": false, "reason": "human_rejected", "turns": 3}),
        "",
    );
    assert!(matches!(
        Facts::read(&rejected),
        Err(DisputeError::Nothing(_))
    ));
    let changed = cancelled(root.path(), "Cancelled.");
    let path = changed.join(receipt::CONFIRMATION_TXT);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("Cancelled.", "Cancelled on 1 January.")).unwrap();
    let refused = Facts::read(&changed).unwrap_err();
    assert!(
        matches!(refused, DisputeError::RecordChanged(_)),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("confirmation.txt"),
        "{refused}"
    );
}

#[test]
fn the_defaults_go_together_and_bad_names_say_what_is_accepted() {
    let de = Request::new(Recipient::Bank, Some(Jurisdiction::De), None);
    assert_eq!(de.language, Language::De);
    let german = Request::new(Recipient::Bank, None, Some(Language::De));
    assert_eq!(german.jurisdiction, Jurisdiction::De);
    let plain = Request::new(Recipient::Bank, None, None);
    assert_eq!(
        (plain.jurisdiction, plain.language),
        (Jurisdiction::Us, Language::En)
    );
    assert!(
        "court"
            .parse::<Recipient>()
            .unwrap_err()
            .contains("bank, regulator or merchant")
    );
    assert!("fr".parse::<Language>().unwrap_err().contains("en or de"));
    assert!("ca".parse::<Jurisdiction>().unwrap_err().contains("us-ca"));
    assert_eq!(file_name(&de, "pdf"), "dispute-bank-de.pdf");
}

#[test]
fn each_jurisdiction_cites_its_own_rules() {
    use crate::audit::Kind;
    let cases = [
        (
            Jurisdiction::Us,
            Kind::SaveOffer,
            "FTC v. Amazon",
            "California",
        ),
        (
            Jurisdiction::UsCa,
            Kind::PhoneOrChatOnly,
            "California Automatic Renewal Law",
            "UK Digital",
        ),
        (
            Jurisdiction::Uk,
            Kind::Confirmshaming,
            "UK Digital Markets",
            "FTC",
        ),
        (
            Jurisdiction::Eu,
            Kind::HardToSee,
            "Digital Services Act",
            "BGB",
        ),
        (
            Jurisdiction::De,
            Kind::PhoneOrChatOnly,
            "§ 312k",
            "California",
        ),
    ];
    for (jurisdiction, kind, cited, not_cited) in cases {
        let names: Vec<&str> = law::citations(kind, jurisdiction, Language::En)
            .iter()
            .map(|c| c.name)
            .collect();
        assert!(
            names.iter().any(|n| n.contains(cited)),
            "{jurisdiction:?}: {names:?}"
        );
        assert!(
            !names.iter().any(|n| n.contains(not_cited)),
            "{jurisdiction:?}: {names:?}"
        );
        let german = law::citations(kind, jurisdiction, Language::De);
        assert_eq!(german.len(), names.len(), "{jurisdiction:?} in German");
    }
}
