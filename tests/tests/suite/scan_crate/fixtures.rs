//! Every statement under `fixtures/` against the result written beside it
//! (`<name>.expected.toml`): the formats recognised, the lines read and
//! skipped, each subscription found and the totals.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;

use super::common::{
    ExpectedSubscription, ExpectedTotal, ExpectedTransaction, expectations, fixtures, scan,
};
use subterminator_scan::{Action, Subscription};

fn short_action(action: &Action) -> String {
    match action {
        Action::Cancel { service } => format!("cancel {service}"),
        Action::BilledThrough { company, .. } => format!("billed through {company}"),
        Action::NoPlugin => "no plugin".to_owned(),
    }
}

fn as_expected(s: &Subscription) -> ExpectedSubscription {
    ExpectedSubscription {
        descriptor: s.descriptor.clone(),
        service: s.service.clone(),
        cadence: s.cadence.as_str().to_owned(),
        charges: s.charges,
        first_charge: s.first_charge,
        last_charge: s.last_charge,
        amount: s.amount.to_string(),
        yearly: s.yearly_cost.to_string(),
        price_change: s
            .price_change
            .as_ref()
            .map(|c| format!("{} -> {} on {}", c.from, c.to, c.date)),
        ended: s.ended,
        action: short_action(&s.action),
        cancel_at: s.cancel_at.clone(),
    }
}

#[test]
fn every_fixture_gives_its_expected_result() {
    let all = expectations();
    assert!(all.len() >= 10, "expectations: {all:?}");
    let mut failures = Vec::new();
    for path in &all {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (expected, report) = scan(path);
        let mut problems = Vec::new();

        let formats: Vec<String> = report.files.iter().map(|f| f.format.to_string()).collect();
        if formats != expected.read.formats {
            problems.push(format!(
                "formats {formats:?}, expected {:?}",
                expected.read.formats
            ));
        }
        let read = (
            report.lines_read,
            report.lines_skipped,
            report.duplicates,
            report.as_of,
        );
        let want = (
            expected.read.lines_read,
            expected.read.lines_skipped,
            expected.read.duplicates,
            Some(expected.read.as_of),
        );
        if read != want {
            problems.push(format!(
                "(lines read, skipped, duplicates, as of) {read:?}, expected {want:?}"
            ));
        }
        let skipped_lines: Vec<usize> = report.skipped.iter().map(|s| s.line).collect();
        if !expected.read.skipped_lines.is_empty() && skipped_lines != expected.read.skipped_lines {
            problems.push(format!(
                "skipped lines {skipped_lines:?}, expected {:?}",
                expected.read.skipped_lines
            ));
        }

        if let Some(want) = &expected.transaction {
            let (_, statements) = super::common::read(path);
            let rows: Vec<ExpectedTransaction> = statements
                .iter()
                .flat_map(|s| &s.transactions)
                .map(|t| ExpectedTransaction {
                    date: t.date,
                    amount: t.amount.to_string(),
                    description: t.description.clone(),
                    line: t.line,
                })
                .collect();
            if rows != *want {
                problems.push(format!("transactions {rows:?}, expected {want:?}"));
            }
        }
        if let Some(notes) = &expected.read.notes
            && *notes != report.notes
        {
            problems.push(format!("notes {:?}, expected {notes:?}", report.notes));
        }

        let got: Vec<ExpectedSubscription> = report.subscriptions.iter().map(as_expected).collect();
        for (i, want) in expected.subscription.iter().enumerate() {
            match got.get(i) {
                Some(g) if g == want => {}
                Some(g) => {
                    problems.push(format!("subscription {i}:\n  got  {g:?}\n  want {want:?}"))
                }
                None => problems.push(format!("subscription {i} missing: want {want:?}")),
            }
        }
        for extra in got.iter().skip(expected.subscription.len()) {
            problems.push(format!("unexpected subscription {extra:?}"));
        }

        let totals: Vec<ExpectedTotal> = report
            .totals
            .iter()
            .map(|t| ExpectedTotal {
                currency: t.currency.to_string(),
                per_month: t.per_month.to_string(),
                per_year: t.per_year.to_string(),
            })
            .collect();
        if totals != expected.total {
            problems.push(format!("totals {totals:?}, expected {:?}", expected.total));
        }
        if !problems.is_empty() {
            failures.push(format!("{name}:\n{}", problems.join("\n")));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// A statement read from its file (a CSV streamed, twice) and from memory
/// gives the same rows, skips and notes.
#[test]
fn a_file_streamed_reads_as_the_same_bytes_in_memory() {
    for path in expectations() {
        let (expected, from_files) = super::common::read(&path);
        let options = super::common::options(&expected);
        for (file, streamed) in expected.files.iter().zip(&from_files) {
            let bytes = std::fs::read(fixtures().join(file)).unwrap();
            let in_memory = subterminator_scan::read_statement_bytes(file, &bytes, &options)
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert!(
                in_memory.transactions == streamed.transactions
                    && in_memory.skipped == streamed.skipped
                    && in_memory.notes == streamed.notes
                    && in_memory.lines_read == streamed.lines_read,
                "{file}: {in_memory:?} != {streamed:?}"
            );
        }
    }
}

/// Every statement in `fixtures/` has an expectation that reads it.
#[test]
fn every_statement_has_an_expectation() {
    let mut covered = BTreeSet::new();
    for path in expectations() {
        let (expected, _) = scan(&path);
        covered.extend(expected.files);
    }
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".toml") || name.ends_with(".md") {
            continue;
        }
        assert!(covered.contains(&name), "{name} has no expectation");
    }
}
