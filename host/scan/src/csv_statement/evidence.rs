//! What a CSV's rows decide together, before any is read as a transaction:
//! the order of day and month (a number above 12 can only be a day) and,
//! for `--columns` without `charges=`, the sign of money out (the commoner
//! one). Where the rows do not settle it and a wrong guess would make a
//! confident, wrong table, the scan stops and names the flag.

use super::Resolved;
use crate::columns::ChargeSign;
use crate::error::ScanError;
use crate::money::{Currency, currency_in_cell};

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

    pub(super) fn charge_sign(&self, name: &str) -> Result<ChargeSign, ScanError> {
        match self.negative.cmp(&self.positive) {
            std::cmp::Ordering::Greater => Ok(ChargeSign::Negative),
            std::cmp::Ordering::Less => Ok(ChargeSign::Positive),
            std::cmp::Ordering::Equal => Err(ScanError::Ambiguous {
                name: name.to_owned(),
                what: format!(
                    "as many amounts are negative as positive ({} each), so the sign of a charge is not clear",
                    self.negative
                ),
                flag: "charges=negative or charges=positive in --columns".to_owned(),
            }),
        }
    }
}

/// The currencies amount cells name beside their numbers (`12,99 €`,
/// `GBP 4.99`), for a file with no currency column and no flag.
#[derive(Default)]
pub(super) struct CurrencyEvidence {
    seen: std::collections::BTreeMap<Currency, usize>,
}

impl CurrencyEvidence {
    pub(super) fn look_at(&mut self, cell: &str) {
        if let Some(currency) = currency_in_cell(cell) {
            *self.seen.entry(currency).or_default() += 1;
        }
    }

    /// The one currency named, with why, for the note; none when the cells
    /// name none or several (the read then asks for `--currency`).
    pub(super) fn decided(&self) -> Option<(Currency, String)> {
        let mut seen = self.seen.iter();
        let (currency, count) = seen.next()?;
        if seen.next().is_some() {
            return None;
        }
        let s = if *count == 1 { "" } else { "s" };
        Some((*currency, format!("{count} amount{s} written with it")))
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
/// header that comes with either order (or dates whose shape was found in
/// the rows) and rows that prove neither, stops and asks for
/// `--date-format`.
pub(super) fn settle_date_order(
    name: &str,
    resolved: &mut Resolved,
    order: &DateEvidence,
    notes: &mut Vec<String>,
) -> Result<(), ScanError> {
    // Only numbers can be read in either order: "05 Jan 2024" cannot.
    let numeric = |f: &&String| f.contains("%m") && f.contains("%d");
    let formats = || resolved.date_formats.iter().filter(numeric);
    let month_first = formats().clone().any(|f| f.starts_with("%m"));
    let day_first = formats().clone().any(|f| f.starts_with("%d"));
    if !(month_first || day_first) {
        return Ok(());
    }
    let ambiguous = |what: String, formats: &[String]| ScanError::Ambiguous {
        name: name.to_owned(),
        what,
        flag: date_flag(formats),
    };
    match (order.day_first, order.month_first) {
        // Said when the rows overturn the layout's own order, and always
        // for an order found in the rows alone.
        (Some(line), None) if month_first || resolved.dates_inferred => {
            if month_first {
                resolved.date_formats = swap_day_month(&resolved.date_formats);
            }
            notes.push(format!(
                "{name}: dates read day first (line {line} has a day above 12)"
            ));
        }
        (None, Some(line)) if day_first || resolved.dates_inferred => {
            if day_first {
                resolved.date_formats = swap_day_month(&resolved.date_formats);
            }
            notes.push(format!(
                "{name}: dates read month first (line {line} has a day above 12 second)"
            ));
        }
        (None, None) if resolved.either_date_order || resolved.dates_inferred => {
            return Err(ambiguous(
                format!(
                    "its {} dates could be day first or month first, and no day above 12 settles it",
                    resolved.label
                ),
                &resolved.date_formats,
            ));
        }
        // A layout's order stands against a stray row; dates whose shape
        // only the rows gave have no order to stand on.
        (Some(first), Some(second)) if resolved.dates_inferred => {
            return Err(ambiguous(
                format!(
                    "its dates disagree: line {first} has a day above 12 first, line {second} second"
                ),
                &resolved.date_formats,
            ));
        }
        // The layout's order proved, both proved, or neither where the
        // layout's order is certain: the layout stands, and rows that do
        // not fit it are skipped and said.
        _ => {}
    }
    Ok(())
}

fn swap_day_month(formats: &[String]) -> Vec<String> {
    formats.iter().map(|f| swap_one(f)).collect()
}

fn swap_one(format: &str) -> String {
    format
        .replace("%m", "\u{0}")
        .replace("%d", "%m")
        .replace("\u{0}", "%d")
}

/// `--date-format` with both orders of the shape the file has, so the
/// person only has to say which.
fn date_flag(formats: &[String]) -> String {
    let numeric = formats
        .iter()
        .filter(|f| f.starts_with("%d") || f.starts_with("%m"));
    // A four-digit year is what a person sees in most exports.
    let shape = numeric
        .clone()
        .find(|f| f.contains("%Y"))
        .or_else(|| numeric.clone().next())
        .cloned()
        .unwrap_or_else(|| "%d/%m/%Y".to_owned());
    let (day, month) = if shape.starts_with("%d") {
        (shape.clone(), swap_one(&shape))
    } else {
        (swap_one(&shape), shape)
    };
    format!("--date-format {day} (day first) or --date-format {month} (month first)")
}

/// Date shapes real exports use, each one format; a day-and-month shape is
/// written month first and its day-first twin found by swapping. Tried in
/// order, so a four-digit year is preferred to a two-digit one.
const DATE_SHAPES: &[&str] = &[
    "%Y-%m-%d",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y/%m/%d",
    "%Y.%m.%d",
    "%Y%m%d",
    "%m/%d/%Y",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%m.%d.%Y",
    "%m.%d.%Y %H:%M",
    "%m-%d-%Y",
    "%m/%d/%y",
    "%m.%d.%y",
    "%m-%d-%y",
    "%d %b %Y",
    "%d-%b-%Y",
    "%d-%b-%y",
    "%d %B %Y",
    "%b %d, %Y",
    "%b %d %Y",
];

/// Date cells sampled to find their shape.
pub(super) const DATE_SAMPLE_ROWS: usize = 200;

/// The shape that reads the most of `samples`, counting a day-and-month
/// shape as read when either order reads a cell (the order is the rows'
/// to settle, in [`settle_date_order`]); `None` when no shape reads any.
pub(super) fn date_shape(samples: &[String]) -> Option<String> {
    let reads = |format: &str| {
        let twin = [swap_one(format)];
        samples
            .iter()
            .filter(|cell| {
                crate::dates::parse_date(cell, &[format]).is_some()
                    || (format.starts_with("%m") && crate::dates::parse_date(cell, &twin).is_some())
            })
            .count()
    };
    let mut best: Option<(&str, usize)> = None;
    for &shape in DATE_SHAPES {
        let count = reads(shape);
        if count > best.map_or(0, |(_, c)| c) {
            best = Some((shape, count));
        }
    }
    best.map(|(shape, _)| shape.to_owned())
}
