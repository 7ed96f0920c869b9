#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use subterminator_core::exit::ErrorClass;
use subterminator_scan::{
    ScanOptions, find_subscriptions, known_descriptors, read_statement, read_statement_bytes,
};

use super::ask::{Pick, cancellable, is_yes, question, start_url_pairs, start_urls_for};
use super::print::summary;
use super::{refused, run_flag_without_cancel};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scan/fixtures")
        .join(name)
}

fn report(files: &[&str], options: &ScanOptions) -> subterminator_scan::Report {
    let statements: Vec<_> = files
        .iter()
        .map(|f| read_statement(&fixture(f), options).unwrap())
        .collect();
    find_subscriptions(&statements, &known_descriptors(), None)
}

#[test]
fn the_summary_says_what_was_read_skipped_and_counted_once() {
    let generic = ScanOptions {
        columns: Some(
            subterminator_scan::parse_columns(
                "date=Buchungstag,amount=Betrag,description=Begünstigter/Zahlungspflichtiger,currency=Währung",
            )
            .unwrap(),
        ),
        date_format: Some("%d.%m.%y".into()),
        currency: None,
        max_bytes: None,
    };
    let cases: &[(&[&str], &ScanOptions, &[&str])] = &[
        (
            &["chase_credit_2024a.csv", "chase_credit_2024b.csv"],
            &ScanOptions::default(),
            &[
                "Read 53 lines from 2 statements: 0 skipped, 5 duplicates across overlapping exports counted once.",
                // Hulu ended in these exports: what that means is said.
                "\"ended?\": the next charge was more than half a period overdue on 2024-06-28 (--as-of); ended ones are left out of the totals.",
            ],
        ),
        (
            &["generic_latin1_semicolons.csv"],
            &generic,
            &[
                "Read 32 lines from 1 statement: 2 skipped (generic_latin1_semicolons.csv line 3: unreadable amount, line 22: unreadable date), 0 duplicates across overlapping exports counted once.",
            ],
        ),
        (
            &["monzo.csv"],
            &ScanOptions::default(),
            &[
                "Read 45 lines from 1 statement: 0 skipped, 0 duplicates across overlapping exports counted once.",
            ],
        ),
    ];
    for (files, options, want) in cases {
        assert_eq!(summary(&report(files, options)), *want, "{files:?}");
    }
}

#[test]
fn skipped_lines_past_the_limit_are_counted_not_listed() {
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    for _ in 0..12 {
        csv.push_str("13/45/2024,01/01/2024,X,,Sale,-1.00,\n");
    }
    let statement =
        read_statement_bytes("many.csv", csv.as_bytes(), &ScanOptions::default()).unwrap();
    let lines = summary(&find_subscriptions(
        &[statement],
        &known_descriptors(),
        None,
    ));
    assert!(
        lines[0].contains("12 skipped (many.csv line 2: unreadable date, line 3:"),
        "{lines:?}"
    );
    assert!(
        lines[0].contains("line 11: unreadable date; 2 more (--json lists them all))"),
        "{lines:?}"
    );
}

#[test]
fn current_subscriptions_with_a_plugin_or_an_address_are_offered_each_once() {
    let cases: &[(&[&str], &[&str])] = &[
        // Hulu ended; Apple's two are billed through Apple.
        (
            &["chase_credit_2024a.csv", "chase_credit_2024b.csv"],
            &["netflix", "amazon-prime", "spotify"],
        ),
        // T-Mobile, a gym and Peacock (ended) are nobody's here.
        (&["bank_of_america_checking.csv"], &["max"]),
        (&["monzo.csv"], &["spotify", "netflix"]),
        // ChatGPT has no plugin, and its descriptor names openai.com: it
        // comes after the plugins' services; the other OpenAI charge names
        // no address, and Patreon is only a name.
        (
            &["american_express.csv"],
            &["disney-plus", "amazon-prime", "https://openai.com"],
        ),
    ];
    for (files, want) in cases {
        let got: Vec<String> = cancellable(&report(files, &ScanOptions::default()))
            .iter()
            .map(|pick| match pick {
                Pick::Service(id) => id.clone(),
                Pick::Address { url, .. } => url.clone(),
            })
            .collect();
        assert_eq!(got, *want, "{files:?}");
    }
}

#[test]
fn the_question_names_the_services_and_addresses_and_only_a_yes_is_yes() {
    let service = |id: &str| Pick::Service(id.to_owned());
    let adobe = Pick::Address {
        site: "adobe.com".into(),
        url: "https://adobe.com".into(),
    };
    let cases = [
        (
            vec![service("netflix"), service("spotify")],
            "Cancel these 2 subscriptions here: netflix, spotify? [y/N] ",
        ),
        (
            vec![service("netflix")],
            "Cancel this subscription here: netflix? [y/N] ",
        ),
        (
            vec![adobe.clone()],
            "Cancel this subscription here: adobe.com (no plugin; cancel at https://adobe.com)? [y/N] ",
        ),
        (
            vec![service("netflix"), adobe],
            "Cancel these 2 subscriptions here: netflix, adobe.com (no plugin; cancel at https://adobe.com)? [y/N] ",
        ),
    ];
    for (picks, want) in cases {
        assert_eq!(question(&picks), want);
    }
    let answers = [
        ("y\n", true),
        ("Y", true),
        (" yes \n", true),
        ("", false),
        ("\n", false),
        ("n\n", false),
        ("no", false),
        ("yep", false),
    ];
    for (answer, want) in answers {
        assert_eq!(is_yes(answer), want, "{answer:?}");
    }
}

/// Every kind of scan error is the person's to fix: exit 2, with a hint.
#[test]
fn scan_errors_exit_2_with_their_fix() {
    let options = ScanOptions::default();
    let cases: Vec<(subterminator_scan::ScanError, &str)> = vec![
        (
            read_statement(Path::new("/no/such/file.csv"), &options).unwrap_err(),
            "check the path",
        ),
        (
            read_statement_bytes("x.csv", b"Foo,Bar\n", &options).unwrap_err(),
            "--columns date=",
        ),
        (
            read_statement_bytes(
                "x.ofx",
                b"<?xml version=\"1.0\"?>\n<?OFX OFXHEADER=\"200\"?>\n<OFX><STMTRS>\n</OFX>",
                &options,
            )
            .unwrap_err(),
            "download the statement again",
        ),
        (
            subterminator_scan::parse_columns("date").unwrap_err(),
            "scan --help",
        ),
    ];
    for (error, hint) in cases {
        let shown = error.to_string();
        let refused = refused(error);
        assert_eq!(refused.class(), ErrorClass::Configuration, "{refused}");
        assert_eq!(refused.class().exit_code(), 2);
        let text = refused.to_string();
        assert!(text.starts_with(&shown) && text.contains(hint), "{text}");
    }
}

#[test]
fn start_urls_say_whose_they_are_and_go_to_the_services_found() {
    let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
    let refused: &[(&[&str], &str)] = &[
        (&["http://127.0.0.1:8000/"], "say whose it is"),
        (&["=http://127.0.0.1:8000/"], "say whose it is"),
        (&["hulu=http://a/", "hulu=http://b/"], "hulu has two"),
    ];
    for (given, want) in refused {
        let error = start_url_pairs(&s(given)).unwrap_err().to_string();
        assert!(error.contains(want), "{given:?}: {error}");
    }
    // A URL may hold `=` of its own: only the first one splits.
    let pairs = start_url_pairs(&s(&["hulu=http://h/?a=b", "peacock=http://p/"])).unwrap();
    // Services found, each one's URL, the services given one not found.
    type Case<'a> = (&'a [&'a str], &'a [Option<&'a str>], &'a [&'a str]);
    let cases: &[Case] = &[
        (
            &["spotify", "hulu"],
            &[None, Some("http://h/?a=b")],
            &["peacock"],
        ),
        (
            &["peacock", "hulu"],
            &[Some("http://p/"), Some("http://h/?a=b")],
            &[],
        ),
        (&[], &[], &["hulu", "peacock"]),
    ];
    for (ids, urls, unused) in cases {
        let (got_urls, got_unused) = start_urls_for(&s(ids), &pairs);
        let urls: Vec<Option<String>> = urls.iter().map(|u| u.map(str::to_owned)).collect();
        assert_eq!((got_urls, got_unused), (urls, s(unused)), "{ids:?}");
    }
}

#[test]
fn a_run_flag_without_cancel_is_named() {
    use clap::Parser;
    let cases: &[(&[&str], Option<&str>)] = &[
        (&[], None),
        (&["--json"], None),
        (&["--model", "offline"], Some("--model")),
        (&["--headless"], Some("--headless")),
        (&["--max-turns", "3", "--vision"], Some("--max-turns")),
        (
            &["--cdp-endpoint", "http://127.0.0.1:9222"],
            Some("--cdp-endpoint"),
        ),
        (&["--replay"], Some("--replay")),
    ];
    for (flags, want) in cases {
        let mut argv = vec!["subterminator", "scan", "a.csv"];
        argv.extend(*flags);
        let cli = crate::Cli::try_parse_from(&argv).unwrap();
        let crate::Command::Scan(args) = cli.command else {
            panic!("{argv:?} is not a scan");
        };
        assert_eq!(run_flag_without_cancel(&args.run), *want, "{flags:?}");
    }
}

/// Issue 42: what the scan decided from the rows (day-first dates) is
/// said above the table (the currency it could not know is asked for
/// before any table: the scan crate's tests).
#[test]
fn notes_above_the_table_say_what_was_decided_or_guessed() {
    let gbp = ScanOptions {
        currency: subterminator_scan::Currency::parse("GBP"),
        ..ScanOptions::default()
    };
    let lines = super::print::notes(&report(&["amex_uk_day_first.csv"], &gbp));
    assert_eq!(
        lines,
        ["Note: amex_uk_day_first.csv: dates read day first (line 2 has a day above 12)."]
    );
    assert!(super::print::notes(&report(&["monzo.csv"], &ScanOptions::default())).is_empty());
}
