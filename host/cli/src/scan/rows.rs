//! The report laid out as rows of text under one header: a row per
//! subscription, then a total row per currency. The terminal's table
//! (`print.rs`) and the HTML page's (`html.rs`) are the same rows.

#[cfg(test)]
mod tests;

use subterminator_scan::{Action, Report};

/// What each column of [`table_rows`] holds.
pub(super) const HEADER: [&str; COLUMNS] = [
    "Service",
    "Charged as",
    "Every",
    "Last charge",
    "Amount",
    "Per year",
    "Price change",
    "Status",
    "What to do",
];

/// Columns of every row.
pub(super) const COLUMNS: usize = 9;

/// The report as table rows under [`HEADER`]: one row per subscription,
/// then one total row per currency.
pub(super) fn table_rows(report: &Report) -> Vec<[String; COLUMNS]> {
    let mut rows = Vec::with_capacity(report.subscriptions.len() + report.totals.len());
    for s in &report.subscriptions {
        rows.push([
            s.service_name.clone().unwrap_or_else(|| "-".to_owned()),
            s.descriptor
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            s.cadence.as_str().to_owned(),
            s.last_charge.to_string(),
            s.amount.to_string(),
            s.yearly_cost.to_string(),
            s.price_change
                .as_ref()
                .map(|c| format!("{} → {} on {}", c.from.decimal(), c.to, c.date))
                .unwrap_or_default(),
            if s.ended { "ended?" } else { "active" }.to_owned(),
            what_to_do(&s.action, s.cancel_at.as_deref()),
        ]);
    }
    for total in &report.totals {
        rows.push([
            format!("Total {}", total.currency),
            format!("{} subscriptions", total.subscriptions),
            String::new(),
            String::new(),
            format!("{} a month", total.per_month),
            total.per_year.to_string(),
            String::new(),
            String::new(),
            String::new(),
        ]);
    }
    rows
}

/// The action in words, with where to cancel when no plugin knows it.
fn what_to_do(action: &Action, cancel_at: Option<&str>) -> String {
    match (action, cancel_at) {
        (Action::Cancel { service }, _) => format!("subterminator cancel {service}"),
        (Action::BilledThrough { company, how }, _) => format!("billed through {company}: {how}"),
        (Action::NoPlugin, Some(address)) => format!("no plugin: cancel at {address}"),
        (Action::NoPlugin, None) => "no plugin: cancel with the merchant".to_owned(),
    }
}
