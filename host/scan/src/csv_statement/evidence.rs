//! What a CSV's rows decide together, before any is read as a transaction:
//! the order of day and month (a number above 12 can only be a day) and,
//! for `--columns` without `charges=`, the sign of money out (the commoner
//! one). Where the rows do not settle it and a wrong guess would make a
//! confident, wrong table, the scan stops and names the flag.

use super::Resolved;
use crate::columns::ChargeSign;
use crate::error::ScanError;

/// How many amounts are written negative and positive, for a `--columns`
/// that does not say which sign a charge has: on any account or card,
/// money goes out more often than it comes in.
#[derive(Default)]
pub(super) struct SignCount {
    pub(super) negative: usize,
    pub(super) positive: usize,
}

impl SignCount {
    pub(super) fn look_at(&mut self, cell: &str) {
        let cell = cell.trim();
        if cell.is_empty() || !cell.chars().any(|c| c.is_ascii_digit()) {
            return;
        }
        if cell.starts_with(['-', '(']) || cell.ends_with('-') || cell.contains(" -") {
            self.negative += 1;
        } else {
            self.positive += 1;
        }
    }

    pub(super) fn decide(&self, name: &str) -> Result<ChargeSign, ScanError> {
        match self.negative.cmp(&self.positive) {
            std::cmp::Ordering::Greater => Ok(ChargeSign::Negative),
            std::cmp::Ordering::Less => Ok(ChargeSign::Positive),
            std::cmp::Ordering::Equal => Err(ScanError::Ambiguous {
                name: name.to_owned(),
                what: format!(
                    "as many amounts are negative as positive ({} each), so the sign of a charge is not clear",
                    self.negative
                ),
                flag: "charges=negative or charges=positive in --columns",
            }),
        }
    }
}

/// What the date cells say about the order of day and month: a first
/// number above 12 can only be a day, and so can a second one.
#[derive(Default)]
pub(super) struct DateEvidence {
    /// The first line whose first number is above 12.
    day_first: Option<usize>,
    /// The first line whose second number is above 12.
    month_first: Option<usize>,
}

impl DateEvidence {
    pub(super) fn look_at(&mut self, cell: &str, line: usize) {
        let mut numbers = cell
            .split(['/', '.', '-', ' '])
            .map(|n| n.trim().parse::<u32>().ok());
        let (Some(Some(first)), Some(Some(second))) = (numbers.next(), numbers.next()) else {
            return;
        };
        // A year first (2024-01-05) says nothing about this.
        if first > 31 {
            return;
        }
        if first > 12 && self.day_first.is_none() {
            self.day_first = Some(line);
        }
        if second > 12 && second <= 31 && self.month_first.is_none() {
            self.month_first = Some(line);
        }
    }
}

/// Reads the layout's slash dates in the order the rows prove, or, for a
/// header that comes with either order and rows that prove neither, stops
/// and asks for `--date-format`.
pub(super) fn settle_date_order(
    name: &str,
    resolved: &mut Resolved,
    order: &DateEvidence,
    notes: &mut Vec<String>,
) -> Result<(), ScanError> {
    let month_first = resolved.date_formats.iter().any(|f| f.starts_with("%m"));
    let day_first = resolved.date_formats.iter().any(|f| f.starts_with("%d"));
    if !(month_first || day_first) {
        return Ok(());
    }
    let swap = |formats: &[String]| -> Vec<String> {
        formats
            .iter()
            .map(|f| {
                f.replace("%m", "\u{0}")
                    .replace("%d", "%m")
                    .replace("\u{0}", "%d")
            })
            .collect()
    };
    match (order.day_first, order.month_first) {
        // Said only when the rows overturn the layout's own order.
        (Some(line), None) if month_first => {
            resolved.date_formats = swap(&resolved.date_formats);
            notes.push(format!(
                "{name}: dates read day first (line {line} has a day above 12)"
            ));
        }
        (None, Some(line)) if day_first => {
            resolved.date_formats = swap(&resolved.date_formats);
            notes.push(format!(
                "{name}: dates read month first (line {line} has a day above 12 second)"
            ));
        }
        (None, None) if resolved.either_date_order => {
            return Err(ScanError::Ambiguous {
                name: name.to_owned(),
                what: format!(
                    "its {} dates could be day first or month first, and no day above 12 settles it",
                    resolved.label
                ),
                flag: "--date-format %d/%m/%Y (day first) or --date-format %m/%d/%Y (month first)",
            });
        }
        // The layout's order proved, both proved, or neither where the
        // layout's order is certain: the layout stands, and rows that do not fit it are skipped and said.
        _ => {}
    }
    Ok(())
}
