#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use chrono::{DateTime, Days, FixedOffset, NaiveDate, Utc};
use serde_json::{Value, json};

use subterminator_core::paths::Dirs;
use subterminator_core::record::RunRecord;
use subterminator_core::record::runs;
use subterminator_scan::{
    Currency, Money, ScanOptions, ServiceCharge, known_descriptors, read_statement, service_charges,
};

use super::{Cancellation, Cancellations, Contradiction, json_lines, last_day, lines};

const CHASE_HEADER: &str = "Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n";

/// A run of `service` written by the real record writer, as a run ends: a
/// `finished` event (unless `finished` is false, as when a run is killed
/// after its result was written) and `result.json`. Returns its id.
fn run(dirs: &Dirs, service: &str, result: &Value, finished: bool) -> String {
    let mut record = RunRecord::create(&dirs.runs(), service).unwrap();
    record
        .append(&json!({"type": "run_started", "service": service, "model": "offline"}))
        .unwrap();
    if finished {
        record
            .append(&json!({"type": "finished", "result": result}))
            .unwrap();
    }
    record.finish(result).unwrap();
    record
        .dir()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

fn verified() -> Value {
    json!({"success": true, "verified": true, "reason": "completed", "turns": 4})
}

/// A Chase credit-card export of `rows` (date, descriptor, amount as the
/// bank writes it: a charge negative), written to a file as a bank gives it.
fn chase(dir: &Path, rows: &[(NaiveDate, &str, &str)]) -> std::path::PathBuf {
    let mut csv = String::from(CHASE_HEADER);
    for (date, descriptor, amount) in rows {
        let day = date.format("%m/%d/%Y");
        let kind = if amount.starts_with('-') {
            "Sale"
        } else {
            "Return"
        };
        csv.push_str(&format!(
            "{day},{day},{descriptor},Entertainment,{kind},{amount},\n"
        ));
    }
    let path = dir.join("chase.csv");
    std::fs::write(&path, csv).unwrap();
    path
}

fn days(day: NaiveDate, n: i64) -> NaiveDate {
    if n >= 0 {
        day.checked_add_days(Days::new(n.unsigned_abs())).unwrap()
    } else {
        day.checked_sub_days(Days::new(n.unsigned_abs())).unwrap()
    }
}

/// The whole path on real files: runs written by the record writer under a
/// data directory, a statement file read as the scan reads it. Only
/// Netflix's charges dated after its cancellation's day are named, each
/// with Netflix's run: not the one before, not the one on the day, not a
/// refund, not Spotify's (its run failed), not Hulu's (never cancelled),
/// not Peacock's (its run has a verified result but no `finished` time).
#[test]
fn charges_after_a_verified_cancellation_name_its_run() {
    let home = tempfile::tempdir().unwrap();
    let dirs = Dirs::under(home.path());
    let netflix = run(&dirs, "netflix", &verified(), true);
    let spotify = run(
        &dirs,
        "spotify",
        &json!({"success": false, "verified": false, "reason": "human_rejected"}),
        true,
    );
    run(&dirs, "peacock", &verified(), false);

    let cancellations = Cancellations::read(&dirs).unwrap();
    assert_eq!(cancellations.len(), 1, "{cancellations:?}");
    let cancelled = &cancellations.0[0];
    assert_eq!(
        (cancelled.service.as_str(), cancelled.run.as_str()),
        ("netflix", netflix.as_str())
    );
    let listed = runs::list(&dirs.runs()).unwrap();
    assert!(
        listed
            .iter()
            .any(|r| r.id == spotify && !r.verified_success())
    );
    let day = cancelled.day;

    let statement = chase(
        home.path(),
        &[
            (days(day, -30), "NETFLIX.COM", "-15.49"),
            (day, "NETFLIX.COM", "-15.49"),
            (days(day, 1), "NETFLIX.COM", "-15.49"),
            (days(day, 2), "NETFLIX.COM", "15.49"),
            (days(day, 31), "NETFLIX.COM 866-579-7172 CA", "-17.99"),
            (days(day, 1), "Spotify USA", "-11.99"),
            (days(day, 1), "HLU*HULU 1234567-U", "-7.99"),
            (days(day, 3), "PEACOCK 8EB2B PREMIUM", "-5.99"),
            (days(day, 4), "SQ *BLUE BOTTLE COFFEE", "-5.75"),
        ],
    );
    let statements = [read_statement(&statement, &ScanOptions::default()).unwrap()];
    let found = cancellations.contradicted_by(&service_charges(&statements, &known_descriptors()));

    let got: Vec<(NaiveDate, String, String, String)> = found
        .iter()
        .map(|c| {
            (
                c.date,
                c.amount.to_string(),
                c.descriptor.clone(),
                c.run.clone(),
            )
        })
        .collect();
    let want = vec![
        (
            days(day, 1),
            "15.49 USD".to_owned(),
            "NETFLIX.COM".to_owned(),
            netflix.clone(),
        ),
        (
            days(day, 31),
            "17.99 USD".to_owned(),
            "NETFLIX.COM 866-579-7172 CA".to_owned(),
            netflix.clone(),
        ),
    ];
    assert_eq!(got, want);

    // The section: the title, a row a charge, one dispute hint for the run.
    let shown = lines(&found, cancellations.len());
    assert_eq!(shown[0], "Charges after a verified cancellation:");
    let hint = format!("  subterminator runs dispute {netflix} --to bank");
    assert_eq!(
        shown.iter().filter(|l| **l == hint).count(),
        1,
        "{shown:#?}"
    );
    let rows: Vec<&String> = shown.iter().filter(|l| l.contains("Netflix")).collect();
    assert_eq!(rows.len(), 2, "{shown:#?}");
    assert!(
        rows[0].starts_with(&days(day, 1).to_string()) && rows[0].ends_with(&netflix),
        "{shown:#?}"
    );

    // The JSON: one object a charge, under `since_cancel`.
    let json: Vec<Value> = json_lines(&found)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(json.len(), 2);
    let first = &json[0]["since_cancel"];
    assert_eq!(first["date"], days(day, 1).to_string());
    assert_eq!(
        first["amount"],
        json!({"amount": "15.49", "currency": "USD"})
    );
    assert_eq!(first["service"], "netflix");
    assert_eq!(first["descriptor"], "NETFLIX.COM");
    assert_eq!(first["run"], netflix.as_str());
    assert_eq!(
        first["cancelled_at"],
        serde_json::to_value(cancelled.at).unwrap()
    );
}

fn at(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().into()
}

fn date(text: &str) -> NaiveDate {
    text.parse().unwrap()
}

fn cancellation(service: &str, run: &str, ended: &str) -> Cancellation {
    let at = at(ended);
    Cancellation {
        service: service.into(),
        run: run.into(),
        at,
        day: last_day(at, &Utc),
    }
}

fn charge(service: &str, on: &str) -> ServiceCharge {
    ServiceCharge {
        service: service.into(),
        service_name: service.into(),
        date: date(on),
        amount: Money::new(999, Currency::parse("USD").unwrap()),
        descriptor: service.to_uppercase(),
    }
}

/// A service cancelled twice: each charge is measured against the latest
/// cancellation of its own service dated before it, and a charge on a
/// cancellation's day is measured against the one before that, if any.
#[test]
fn each_charge_is_measured_against_the_latest_cancellation_before_it() {
    let cancellations = Cancellations(vec![
        cancellation("netflix", "first", "2024-01-10T23:59:00Z"),
        cancellation("netflix", "second", "2024-03-10T00:01:00Z"),
        cancellation("hulu", "hulu-run", "2024-02-01T12:00:00Z"),
    ]);
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("netflix", "2024-01-09", None),
        ("netflix", "2024-01-10", None),
        ("netflix", "2024-01-11", Some("first")),
        ("netflix", "2024-03-10", Some("first")),
        ("netflix", "2024-03-11", Some("second")),
        ("netflix", "2025-01-01", Some("second")),
        ("hulu", "2024-01-11", None),
        ("hulu", "2024-02-02", Some("hulu-run")),
        ("spotify", "2024-12-31", None),
    ];
    for (service, on, want) in cases {
        let found = cancellations.contradicted_by(&[charge(service, on)]);
        let got: Vec<&str> = found.iter().map(|c| c.run.as_str()).collect();
        assert_eq!(
            got,
            want.iter().copied().collect::<Vec<_>>(),
            "{service} {on}"
        );
    }
}

/// The cancellation's day is the later of its UTC day and its day on this
/// machine's clock: never one a bank in either zone could date the same
/// instant after.
#[test]
fn the_cancellations_day_is_the_later_of_utc_and_local() {
    let zone = |hours: i32| FixedOffset::east_opt(hours * 3600).unwrap();
    let cases = [
        ("2024-03-10T23:30:00Z", 0, "2024-03-10"),
        ("2024-03-10T23:30:00Z", 2, "2024-03-11"),
        ("2024-03-10T01:00:00Z", -5, "2024-03-10"),
        ("2024-03-10T12:00:00Z", 14, "2024-03-11"),
    ];
    for (instant, hours, want) in cases {
        assert_eq!(
            last_day(at(instant), &zone(hours)),
            date(want),
            "{instant} {hours}"
        );
    }
}

#[test]
fn none_found_says_how_many_were_checked() {
    let cases = [
        (0, "(0 verified cancellations checked)"),
        (1, "(1 verified cancellation checked)"),
        (3, "(3 verified cancellations checked)"),
    ];
    for (checked, want) in cases {
        let shown = lines(&[], checked);
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert!(
            shown[0]
                .starts_with("No charge of a cancelled service is dated after its cancellation")
                && shown[0].ends_with(&format!("{want}.")),
            "{shown:?}"
        );
        assert!(json_lines(&[]).is_empty());
    }
}

/// A hostile statement: a descriptor that would clear the screen, retitle
/// the window and hide a link still matches Netflix, and reaches the
/// section's lines and JSON with every escape written out, none live.
#[test]
fn a_descriptors_escapes_never_reach_the_terminal() {
    let home = tempfile::tempdir().unwrap();
    let hostile =
        "NETFLIX.COM \u{1b}[2J\u{1b}]0;pwned\u{7}\u{1b}]8;;https://evil.example/\u{1b}\\x\u{202e}";
    let path = chase(home.path(), &[(date("2024-05-04"), hostile, "-15.49")]);
    let statements = [read_statement(&path, &ScanOptions::default()).unwrap()];
    let cancellations = Cancellations(vec![cancellation(
        "netflix",
        "20240503T101500Z-netflix-1a2b3c4d",
        "2024-05-03T10:20:00Z",
    )]);
    let found: Vec<Contradiction> =
        cancellations.contradicted_by(&service_charges(&statements, &known_descriptors()));
    assert_eq!(found.len(), 1);
    let shown = lines(&found, 1).join("\n");
    let live = |text: &str| {
        text.chars()
            .any(|c| (c.is_control() && c != '\n') || c == '\u{202e}')
    };
    assert!(!live(&shown), "{shown:?}");
    assert!(
        shown.contains("NETFLIX.COM \\u{1b}[2J\\u{1b}]0;pwned\\u{7}"),
        "{shown}"
    );
    assert!(shown.contains("\\u{202e}"), "{shown}");
    for line in json_lines(&found) {
        let value: Value = serde_json::from_str(&line).unwrap();
        let descriptor = value["since_cancel"]["descriptor"].as_str().unwrap();
        assert!(!live(descriptor), "{descriptor:?}");
    }
}

/// `Debug` (what a log or a panic shows) names the service and the run,
/// never the statement's date, amount or descriptor.
#[test]
fn debug_is_redacted() {
    let cancellations = Cancellations(vec![cancellation(
        "netflix",
        "run-1",
        "2024-05-03T10:20:00Z",
    )]);
    let found = cancellations.contradicted_by(&[charge("netflix", "2024-05-04")]);
    let shown = format!("{found:?}");
    assert!(
        shown.contains("netflix") && shown.contains("run-1"),
        "{shown}"
    );
    for private in ["NETFLIX", "9.99", "2024-05-04"] {
        assert!(!shown.contains(private), "{shown}");
    }
}
