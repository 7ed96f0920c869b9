//! Shared by the fixture and privacy tests: the expectation files' shape,
//! and scanning the statements an expectation names.

#![allow(dead_code, clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::Deserialize;
use subterminator_scan::{
    Currency, Report, ScanOptions, Statement, find_subscriptions, known_descriptors, parse_columns,
    read_statement,
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    pub files: Vec<String>,
    pub columns: Option<String>,
    pub date_format: Option<String>,
    pub currency: Option<String>,
    pub as_of: Option<NaiveDate>,
    pub read: Read,
    #[serde(default)]
    pub subscription: Vec<ExpectedSubscription>,
    #[serde(default)]
    pub total: Vec<ExpectedTotal>,
    /// Every transaction read, in file order, when given: for the real
    /// files, whose rows are checked one by one.
    pub transaction: Option<Vec<ExpectedTransaction>>,
}

#[derive(Deserialize, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExpectedTransaction {
    pub date: NaiveDate,
    pub amount: String,
    pub description: String,
    pub line: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Read {
    pub formats: Vec<String>,
    pub lines_read: usize,
    pub lines_skipped: usize,
    #[serde(default)]
    pub skipped_lines: Vec<usize>,
    #[serde(default)]
    pub duplicates: usize,
    pub as_of: NaiveDate,
    /// What the report must say above its table, when given.
    pub notes: Option<Vec<String>>,
}

#[derive(Deserialize, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExpectedSubscription {
    pub descriptor: String,
    pub service: Option<String>,
    pub cadence: String,
    pub charges: usize,
    pub first_charge: NaiveDate,
    pub last_charge: NaiveDate,
    pub amount: String,
    pub yearly: String,
    pub price_change: Option<String>,
    #[serde(default)]
    pub ended: bool,
    pub action: String,
    /// Where to cancel, for a charge no plugin knows whose descriptor
    /// names a web address.
    #[serde(default)]
    pub cancel_at: Option<String>,
}

#[derive(Deserialize, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ExpectedTotal {
    pub currency: String,
    pub per_month: String,
    pub per_year: String,
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/scan/fixtures")
}

pub fn expectations() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().path())
        // `.rows.toml`: real files with no subscription in them, checked
        // row by row; kept apart from `.expected.toml`, which the
        // end-to-end suite runs expecting a table of subscriptions.
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".expected.toml") || name.ends_with(".rows.toml")
        })
        .collect();
    found.sort();
    found
}

/// Reads an expectation's files as it says.
pub fn read(expected_path: &Path) -> (Expected, Vec<Statement>) {
    let text = std::fs::read_to_string(expected_path).unwrap();
    let expected: Expected =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
    let options = options(&expected);
    let statements: Vec<_> = expected
        .files
        .iter()
        .map(|f| {
            read_statement(&fixtures().join(f), &options).unwrap_or_else(|e| panic!("{f}: {e}"))
        })
        .collect();
    (expected, statements)
}

/// The scan options an expectation asks for.
pub fn options(expected: &Expected) -> ScanOptions {
    ScanOptions {
        columns: expected
            .columns
            .as_deref()
            .map(|c| parse_columns(c).unwrap()),
        date_format: expected.date_format.clone(),
        currency: expected
            .currency
            .as_deref()
            .map(|c| Currency::parse(c).unwrap()),
        max_bytes: None,
    }
}

/// Reads an expectation's files and scans them as it says.
pub fn scan(expected_path: &Path) -> (Expected, Report) {
    let (expected, statements) = read(expected_path);
    let report = find_subscriptions(&statements, &known_descriptors(), expected.as_of);
    (expected, report)
}
