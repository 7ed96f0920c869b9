//! Nothing a statement says leaks through `Debug` or an error: scan every
//! fixture, format the `Debug` of every statement, transaction, skip record
//! and of the report and its parts, and the `Debug` and `Display` of the
//! errors that broken copies of the fixtures raise, and look in all of it
//! for any fixture descriptor or amount.
//!
//! The answer itself (the report's fields, its JSON, its table rows) is
//! where descriptors and amounts belong, and is not looked at here.

#![allow(clippy::unwrap_used, clippy::panic)]

use super::common::{expectations, fixtures, options, read};
use subterminator_scan::{
    ScanError, ScanOptions, Statement, find_subscriptions, known_descriptors, read_statement_bytes,
};

/// What a statement must not let out: each descriptor (whole), each amount
/// as the statement could have written it.
fn secrets(statements: &[Statement]) -> Vec<String> {
    let mut found = Vec::new();
    for statement in statements {
        for t in &statement.transactions {
            found.push(t.description.to_lowercase());
            let amount = t.amount.decimal().trim_start_matches('-').to_owned();
            found.push(amount.replace('.', ","));
            found.push(amount);
        }
    }
    found.sort();
    found.dedup();
    found
}

fn assert_clean(what: &str, shown: &str, secrets: &[String]) {
    let lower = shown.to_lowercase();
    for secret in secrets {
        assert!(
            !lower.contains(secret.as_str()),
            "{what} shows {secret:?}:\n{shown}"
        );
    }
}

/// Copies of a statement broken in the ways a person's files break: the
/// header line gone, cut off halfway.
fn broken_copies(bytes: &[u8]) -> Vec<Vec<u8>> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    let mut copies = Vec::new();
    if let Some(header) = lines.iter().position(|l| {
        l.contains("Date") || l.contains("Buchungstag") || l.contains("Transaction ID")
    }) {
        let without: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != header)
            .map(|(_, l)| *l)
            .collect();
        copies.push(without.join("\n").into_bytes());
    }
    copies.push(bytes[..bytes.len() / 2].to_vec());
    copies.push(bytes[bytes.len() / 3..].to_vec());
    copies
}

#[test]
fn debug_output_and_errors_hold_no_descriptor_or_amount() {
    let mut errors_seen = 0;
    for path in expectations() {
        let (expected, statements) = read(&path);
        let secrets = secrets(&statements);
        assert!(!secrets.is_empty());

        for statement in &statements {
            assert_clean("Statement", &format!("{statement:?}"), &secrets);
            for transaction in &statement.transactions {
                assert_clean("Transaction", &format!("{transaction:?}"), &secrets);
                assert_clean("Money", &format!("{:?}", transaction.amount), &secrets);
            }
            for skipped in &statement.skipped {
                assert_clean("Skipped", &format!("{skipped:?}"), &secrets);
            }
        }

        let report = find_subscriptions(&statements, &known_descriptors(), None);
        assert_clean("Report", &format!("{report:?}"), &secrets);
        assert_clean("Report (pretty)", &format!("{report:#?}"), &secrets);
        for subscription in &report.subscriptions {
            assert_clean("Subscription", &format!("{subscription:?}"), &secrets);
            assert_clean(
                "PriceChange",
                &format!("{:?}", subscription.price_change),
                &secrets,
            );
        }
        for total in &report.totals {
            assert_clean("Total", &format!("{total:?}"), &secrets);
        }
        for skipped in &report.skipped {
            assert_clean("Skipped", &format!("{skipped:?}"), &secrets);
        }

        // Broken copies, read with and without the expectation's options,
        // and with explicit columns the file does not have.
        let wrong_columns = ScanOptions {
            columns: Some(
                subterminator_scan::parse_columns("date=Posted,amount=Value,description=Payee")
                    .unwrap(),
            ),
            ..ScanOptions::default()
        };
        for file in &expected.files {
            let bytes = std::fs::read(fixtures().join(file)).unwrap();
            let mut attempts = broken_copies(&bytes);
            attempts.push(bytes.clone());
            for copy in &attempts {
                for opts in [&options(&expected), &ScanOptions::default(), &wrong_columns] {
                    match read_statement_bytes(file, copy, opts) {
                        Err(error) => {
                            errors_seen += 1;
                            check_error(&error, &secrets);
                        }
                        Ok(statement) => {
                            assert_clean("Statement", &format!("{statement:?}"), &secrets);
                            for skipped in &statement.skipped {
                                assert_clean("Skipped", &format!("{skipped:?}"), &secrets);
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(errors_seen >= 10, "only {errors_seen} errors were provoked");
}

fn check_error(error: &ScanError, secrets: &[String]) {
    assert_clean("error (Display)", &error.to_string(), secrets);
    assert_clean("error (Debug)", &format!("{error:?}"), secrets);
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        assert_clean("error source", &inner.to_string(), secrets);
        source = inner.source();
    }
}
