//! The report on stdout: a table (`rows.rs`'s rows, in the command line's
//! own table printer) and a line on what was read, or JSON Lines.

use chrono::NaiveDate;
use serde::Serialize;
use subterminator_scan::{FileSummary, Report, Skipped, Total};

use super::rows::{HEADER, table_rows};
use crate::table::print_table;

/// Skipped lines named one by one; past this, a count (and `--json` has
/// them all). A file with hundreds of bad lines is one problem, not a page.
const MAX_SKIPS_LISTED: usize = 10;

/// What the report skipped, decided or guessed, above the table: a table
/// that is not the whole story must not look like it. The scan crate's
/// notes hold file names, line numbers and counts only.
pub(super) fn notes(report: &Report) -> Vec<String> {
    report
        .notes
        .iter()
        .map(|note| format!("Note: {note}."))
        .collect()
}

/// The notes, the table, totals per currency under it, then what was read.
pub(super) fn table(report: &Report) {
    for line in notes(report) {
        anstream::println!("{line}");
    }
    if !report.notes.is_empty() {
        anstream::println!();
    }
    if report.subscriptions.is_empty() {
        anstream::println!("No recurring charges found.");
    } else {
        // The command line's other tables shout their headers.
        let header = HEADER.map(str::to_uppercase);
        let mut rows = table_rows(report);
        // An empty row sets the totals (the last rows) apart.
        let totals_at = rows.len().saturating_sub(report.totals.len());
        rows.insert(totals_at, std::array::from_fn(|_| String::new()));
        print_table(&header.each_ref().map(String::as_str), &rows);
    }
    anstream::println!();
    for line in summary(report) {
        anstream::println!("{line}");
    }
}

/// What was read, what was skipped (file and line only, never the line),
/// what was counted once, and what "ended?" means when a row says it.
pub(super) fn summary(report: &Report) -> Vec<String> {
    let files = report.files.len();
    let mut lines = vec![format!(
        "Read {} from {}: {} skipped{}, {} across overlapping exports counted once.",
        plural(report.lines_read, "line"),
        plural(files, "statement"),
        report.lines_skipped,
        skipped_where(&report.skipped),
        plural(report.duplicates, "duplicate"),
    )];
    if report.subscriptions.iter().any(|s| s.ended) {
        let on = report
            .as_of
            .map_or_else(String::new, |day| format!(" on {day}"));
        lines.push(format!(
            "\"ended?\": the next charge was more than half a period overdue{on} (--as-of); ended ones are left out of the totals."
        ));
    }
    lines
}

/// ` (a.csv line 3: unreadable amount, line 22: unreadable date; b.ofx
/// line 73: unreadable date)`, or nothing when no line was skipped.
fn skipped_where(skipped: &[Skipped]) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut file: Option<&str> = None;
    for skip in skipped.iter().take(MAX_SKIPS_LISTED) {
        let at = format!("line {}: {}", skip.line, skip.reason);
        if file == Some(skip.file.as_str()) {
            parts.push(format!(", {at}"));
        } else {
            let separator = if file.is_some() { "; " } else { "" };
            parts.push(format!("{separator}{} {at}", skip.file));
            file = Some(skip.file.as_str());
        }
    }
    if skipped.len() > MAX_SKIPS_LISTED {
        parts.push(format!(
            "; {} more (--json lists them all)",
            skipped.len() - MAX_SKIPS_LISTED
        ));
    }
    format!(" ({})", parts.concat())
}

/// `1 line`, `2 lines`.
pub(super) fn plural(count: usize, word: &str) -> String {
    if count == 1 {
        format!("1 {word}")
    } else {
        format!("{count} {word}s")
    }
}

/// One JSON object per subscription, as the scan crate serialises it, then
/// one with the totals and what was read, each on a line of its own.
pub(super) fn json_lines(report: &Report) {
    // Plain data (strings, numbers, dates) always serialises; the fallback
    // only keeps the no-panic rule.
    for subscription in &report.subscriptions {
        anstream::println!(
            "{}",
            serde_json::to_string(subscription).unwrap_or_default()
        );
    }
    let totals = Totals {
        totals: &report.totals,
        notes: &report.notes,
        as_of: report.as_of,
        subscriptions: report.subscriptions.len(),
        files: &report.files,
        lines_read: report.lines_read,
        lines_skipped: report.lines_skipped,
        skipped: &report.skipped,
        duplicates: report.duplicates,
    };
    anstream::println!("{}", serde_json::to_string(&totals).unwrap_or_default());
}

/// The last JSON line: the report without its subscriptions, which came
/// one a line before it. `totals` first, so that the line reads as what it is.
#[derive(Serialize)]
struct Totals<'a> {
    totals: &'a [Total],
    /// What the report skipped, decided or guessed.
    notes: &'a [String],
    as_of: Option<NaiveDate>,
    /// How many lines came before this one.
    subscriptions: usize,
    files: &'a [FileSummary],
    lines_read: usize,
    lines_skipped: usize,
    skipped: &'a [Skipped],
    duplicates: usize,
}
