//! The report as the CLI will use it: its fields, JSON, an explicit "as of"
//! date, services supplied by the caller, errors told apart by kind. (How
//! the CLI lays it out, as table rows and as a page, is tested beside that
//! code: `host/cli/src/scan/rows/tests.rs` and `html/tests.rs`.)

#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use chrono::NaiveDate;
use subterminator_scan::{
    Action, ErrorKind, ScanError, ScanOptions, ServiceDescriptors, find_subscriptions,
    known_descriptors, read_statement, read_statement_bytes,
};

fn fixture(name: &str) -> subterminator_scan::Statement {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../host/scan/fixtures")
        .join(name);
    read_statement(&path, &ScanOptions::default()).unwrap()
}

#[test]
fn json_has_one_object_per_subscription_and_the_totals() {
    let report = find_subscriptions(&[fixture("monzo.csv")], &known_descriptors(), None);
    let json = serde_json::to_value(&report).unwrap();
    let subscriptions = json["subscriptions"].as_array().unwrap();
    assert_eq!(subscriptions.len(), 5);
    let spotify = &subscriptions[0];
    assert_eq!(spotify["service"], "spotify");
    assert_eq!(spotify["cadence"], "monthly");
    assert_eq!(spotify["amount"]["amount"], "11.99");
    assert_eq!(spotify["amount"]["currency"], "GBP");
    assert_eq!(spotify["yearly_cost"]["amount"], "143.88");
    assert_eq!(spotify["ended"], false);
    assert_eq!(spotify["action"]["kind"], "cancel");
    assert_eq!(spotify["action"]["service"], "spotify");
    assert_eq!(subscriptions[2]["action"]["kind"], "no_plugin");
    assert_eq!(json["totals"][0]["currency"], "GBP");
    assert_eq!(json["totals"][0]["per_year"]["amount"], "371.76");
    assert_eq!(json["totals"][1]["per_month"]["amount"], "20.00");
    assert_eq!(json["lines_read"], 45);
    assert_eq!(json["files"][0]["format"]["csv"]["layout"], "Monzo");
}

#[test]
fn an_explicit_as_of_date_decides_what_has_ended() {
    let statements = [fixture("bank_of_america_checking.csv")];
    let peacock_ended = |as_of: Option<NaiveDate>| {
        let report = find_subscriptions(&statements, &known_descriptors(), as_of);
        let peacock = report
            .subscriptions
            .iter()
            .find(|s| s.service.as_deref() == Some("peacock"))
            .unwrap();
        (peacock.ended, report.totals[0].per_year.to_string())
    };
    // The March charge was due on 5 March: half a month later it is overdue.
    let cases = [
        (None, true, "1403.88 USD"),
        (NaiveDate::from_ymd_opt(2024, 3, 20), false, "1475.76 USD"),
        (NaiveDate::from_ymd_opt(2024, 3, 21), true, "1403.88 USD"),
    ];
    for (as_of, ended, total) in cases {
        assert_eq!(peacock_ended(as_of), (ended, total.to_owned()), "{as_of:?}");
    }
}

#[test]
fn services_come_from_the_caller() {
    let statements = [fixture("bank_of_america_checking.csv")];
    let gym = ServiceDescriptors {
        id: "planet-fitness".into(),
        name: "Planet Fitness".into(),
        patterns: vec!["PLANET FITNESS*".into()],
    };
    let report = find_subscriptions(&statements, &[gym], None);
    let actions: Vec<&Action> = report.subscriptions.iter().map(|s| &s.action).collect();
    assert!(actions.contains(&&Action::Cancel {
        service: "planet-fitness".into()
    }));
    // Without the bundled table, Max and Peacock are nobody's: Peacock's
    // two charges are then too few for a merchant no pattern knows.
    assert_eq!(report.subscriptions.len(), 3);
    assert!(!actions.contains(&&Action::Cancel {
        service: "max".into()
    }));
}

#[test]
fn nothing_in_nothing_out() {
    let report = find_subscriptions(&[], &known_descriptors(), None);
    assert!(report.subscriptions.is_empty() && report.totals.is_empty());
    assert_eq!(report.as_of, None);
}

#[test]
fn errors_say_what_kind_of_failure_they_are() {
    let missing = read_statement(Path::new("/no/such/statement.csv"), &ScanOptions::default());
    let Err(missing) = missing else { panic!() };
    assert_eq!(missing.kind(), ErrorKind::Unreadable);
    assert!(missing.to_string().contains("/no/such/statement.csv"));

    let unknown = read_statement_bytes("x.csv", b"Foo,Bar\n1,2\n", &ScanOptions::default());
    let Err(unknown) = unknown else { panic!() };
    assert_eq!(unknown.kind(), ErrorKind::UnknownFormat);
    assert!(
        unknown.to_string().contains("\"Foo\", \"Bar\""),
        "{unknown}"
    );
    assert!(unknown.to_string().contains("Monzo"), "{unknown}");

    let pdf = read_statement_bytes("x.pdf", b"%PDF-1.7\n%\xE2\xE3", &ScanOptions::default());
    let Err(pdf) = pdf else { panic!() };
    assert_eq!(pdf.kind(), ErrorKind::UnknownFormat);
    assert!(pdf.to_string().contains("this is a PDF"), "{pdf}");

    let empty = read_statement_bytes("x.csv", b"", &ScanOptions::default());
    assert_eq!(empty.unwrap_err().kind(), ErrorKind::UnknownFormat);

    let other_xml = read_statement_bytes("x.xml", b"<html><body/></html>", &ScanOptions::default());
    assert_eq!(other_xml.unwrap_err().kind(), ErrorKind::UnknownFormat);

    let broken = read_statement_bytes(
        "x.ofx",
        b"<?xml version=\"1.0\"?>\n<?OFX OFXHEADER=\"200\"?>\n<OFX><STMTRS>\n</OFX>",
        &ScanOptions::default(),
    );
    let Err(broken) = broken else { panic!() };
    assert_eq!(broken.kind(), ErrorKind::Malformed);
    assert!(
        matches!(broken, ScanError::BrokenXml { line: 4, .. }),
        "{broken:?}"
    );

    let bad_format = ScanOptions {
        date_format: Some("%Q".into()),
        ..ScanOptions::default()
    };
    let bad = read_statement_bytes("x.csv", b"a,b\n", &bad_format);
    assert_eq!(bad.unwrap_err().kind(), ErrorKind::BadOptions);
}
