//! `scan --since-cancel`: the charges of a service dated after its verified
//! cancellation on this machine, each with the run it contradicts: the
//! evidence a bank asks for when a cancelled service keeps charging.
//!
//! Any charge of the service counts, not only those the report calls
//! recurring: one charge after a cancellation is the one that matters. The
//! charges are the scan crate's (`service_charges`: the report's walk and
//! its descriptor matching), so a charge is the same service here as in
//! the table above.
//!
//! Statement dates are days, a cancellation is an instant: a charge is
//! after a cancellation when its day is later than the cancellation's. One
//! dated the same day may have been made before it, and is not named:
//! a dispute that names a charge the run did not precede is a false claim.

#[cfg(test)]
mod tests;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use serde::Serialize;

use subterminator_core::error::Result;
use subterminator_core::paths::Dirs;
use subterminator_core::record::runs::{self, RunSummary};
use subterminator_core::text::sanitize;
use subterminator_scan::{Money, ServiceCharge};

use super::print::plural;
use crate::table::render;

/// Columns of the section's table: date, amount, service, charged as, run.
const COLUMNS: usize = 5;

/// One verified cancellation: the run that proves it, and the day after
/// which a charge contradicts it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Cancellation {
    pub service: String,
    /// The run's id (its folder's name).
    pub run: String,
    /// When the run ended: its `finished` event.
    pub at: DateTime<Utc>,
    /// The cancellation's day: see [`last_day`].
    pub day: NaiveDate,
}

/// The day `at` falls on in UTC or in `zone`, whichever is later. A bank
/// dates a charge in its own zone, which is likelier this machine's than
/// UTC but not surely: taking the later day never calls a charge made on
/// the day of the cancellation "after" it.
pub(super) fn last_day<Tz: TimeZone>(at: DateTime<Utc>, zone: &Tz) -> NaiveDate {
    at.date_naive().max(at.with_timezone(zone).date_naive())
}

/// This machine's verified cancellations.
#[derive(Debug, Default)]
pub(super) struct Cancellations(Vec<Cancellation>);

impl Cancellations {
    /// Read from the runs folder before any statement is, so that a runs
    /// folder that cannot be listed stops the scan before it prints.
    pub(super) fn read(dirs: &Dirs) -> Result<Self> {
        Ok(Self::of(&runs::list(&dirs.runs())?, &chrono::Local))
    }

    /// The verified successes among `runs`, with their days in `zone`. A
    /// run with no `finished` time has no instant to measure from; the
    /// start would be earlier than the cancellation, and a charge between
    /// the two would be named wrongly, so it is left out.
    pub(super) fn of<Tz: TimeZone>(runs: &[RunSummary], zone: &Tz) -> Self {
        Self(
            runs.iter()
                .filter(|run| run.verified_success())
                .filter_map(|run| {
                    let at = run.ended?;
                    Some(Cancellation {
                        service: run.service.clone(),
                        run: run.id.clone(),
                        at,
                        day: last_day(at, zone),
                    })
                })
                .collect(),
        )
    }

    /// How many were checked.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Each charge dated after a cancellation of its service, measured
    /// against the latest such cancellation before it (a service cancelled
    /// twice is contradicted by a charge after the second only from then).
    pub(super) fn contradicted_by(&self, charges: &[ServiceCharge]) -> Vec<Contradiction> {
        charges
            .iter()
            .filter_map(|charge| {
                let cancelled = self
                    .0
                    .iter()
                    .filter(|c| c.service == charge.service && c.day < charge.date)
                    .max_by_key(|c| (c.at, &c.run))?;
                Some(Contradiction {
                    date: charge.date,
                    amount: charge.amount,
                    service: charge.service.clone(),
                    service_name: charge.service_name.clone(),
                    descriptor: charge.descriptor.clone(),
                    run: cancelled.run.clone(),
                    cancelled_at: cancelled.at,
                })
            })
            .collect()
    }
}

/// A charge dated after its service's verified cancellation.
#[derive(Clone, PartialEq, Eq, Serialize)]
pub(super) struct Contradiction {
    pub date: NaiveDate,
    pub amount: Money,
    /// The service id.
    pub service: String,
    pub service_name: String,
    /// As the statement gives it (inert, as every string the scan crate
    /// hands out).
    pub descriptor: String,
    /// The run whose verified cancellation the charge contradicts.
    pub run: String,
    /// When that run ended.
    pub cancelled_at: DateTime<Utc>,
}

/// Redacted: date, descriptor and amount are the statement's.
impl std::fmt::Debug for Contradiction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Contradiction {{ service: {}, run: {}, .. }}",
            self.service, self.run
        )
    }
}

/// The section under the report, as lines: the charges with the run each
/// contradicts and a dispute hint per run, or one line saying there are
/// none and how many cancellations were checked.
pub(super) fn lines(found: &[Contradiction], checked: usize) -> Vec<String> {
    if found.is_empty() {
        return vec![format!(
            "No charge of a cancelled service is dated after its cancellation ({} checked).",
            plural(checked, "verified cancellation")
        )];
    }
    let header = ["DATE", "AMOUNT", "SERVICE", "CHARGED AS", "CONTRADICTS RUN"];
    let rows: Vec<[String; COLUMNS]> = found.iter().map(row).collect();
    let mut lines = vec!["Charges after a verified cancellation:".to_owned()];
    lines.extend(render(&header, &rows).lines().map(str::to_owned));
    lines.push(
        "Each is dated after the day of its cancellation; a charge dated that day itself may have been made before it, and is not listed."
            .to_owned(),
    );
    lines.push(String::new());
    lines.push("To dispute them with your bank, with the run as proof:".to_owned());
    let mut runs: Vec<&str> = Vec::new();
    for contradiction in found {
        if !runs.contains(&contradiction.run.as_str()) {
            runs.push(&contradiction.run);
        }
    }
    lines.extend(
        runs.iter()
            .map(|run| format!("  subterminator runs dispute {} --to bank", sanitize(run))),
    );
    lines
}

/// One table row. The descriptor is the statement's, made inert by the
/// scan crate when it was read (escapes shown as `\u{1b}`, as in the
/// report's table) and single-spaced as the report's is; the run id and the
/// service's name come from folder names and plugins, and are sanitized
/// as the command line's other such text is.
fn row(found: &Contradiction) -> [String; COLUMNS] {
    [
        found.date.to_string(),
        found.amount.to_string(),
        sanitize(&found.service_name),
        found
            .descriptor
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        sanitize(&found.run),
    ]
}

/// The section as JSON Lines, one `{"since_cancel": {…}}` a charge.
pub(super) fn json_lines(found: &[Contradiction]) -> Vec<String> {
    #[derive(Serialize)]
    struct Line<'a> {
        since_cancel: &'a Contradiction,
    }
    // Plain data always serialises; the fallback only keeps the no-panic
    // rule.
    found
        .iter()
        .map(|since_cancel| serde_json::to_string(&Line { since_cancel }).unwrap_or_default())
        .collect()
}

/// Prints the section under the report: a blank line and [`lines`], or
/// with `json` the [`json_lines`] after the report's.
pub(super) fn print(found: &[Contradiction], checked: usize, json: bool) {
    if json {
        for line in json_lines(found) {
            anstream::println!("{line}");
        }
        return;
    }
    anstream::println!();
    for line in lines(found, checked) {
        anstream::println!("{line}");
    }
}
