//! `scan --html`: the report as one self-contained HTML page a person can
//! look at: the subscriptions, a chart of what each cost per month over the
//! statements' months, and the totals. No script, no outside resource; all
//! text escaped (statement text is made inert before it gets here).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::{Datelike, NaiveDate};

use crate::money::{Currency, Money};
use crate::report::{Report, table_rows};

/// Chart size in SVG units.
const WIDTH: i64 = 720;
const HEIGHT: i64 = 240;
const MARGIN: i64 = 40;

/// Colours the series cycle through.
const COLOURS: &[&str] = &[
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Text safe inside HTML elements and attributes.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn month_of(date: NaiveDate) -> (i32, u32) {
    (date.year(), date.month())
}

/// The months from the first charge in `currency` to the last, in order:
/// a pound account's chart does not start with a dollar card's first year.
fn months(report: &Report, currency: Currency) -> Vec<(i32, u32)> {
    let dates = report
        .subscriptions
        .iter()
        .filter(|s| s.amount.currency == currency)
        .flat_map(|s| s.charged.iter().map(|(d, _)| *d));
    let (Some(first), Some(last)) = (dates.clone().min(), dates.max()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut year, mut month) = month_of(first);
    while (year, month) <= month_of(last) {
        out.push((year, month));
        (year, month) = if month == 12 {
            (year + 1, 1)
        } else {
            (year, month + 1)
        };
    }
    out
}

/// One stacked-bar chart per currency: each month's charges, per
/// subscription.
fn chart(report: &Report, currency: Currency) -> String {
    let months = &months(report, currency);
    let mut per_month: Vec<Vec<(usize, i64)>> = vec![Vec::new(); months.len()];
    for (index, s) in report.subscriptions.iter().enumerate() {
        if s.amount.currency != currency {
            continue;
        }
        let mut sums: BTreeMap<(i32, u32), i64> = BTreeMap::new();
        for (date, money) in &s.charged {
            *sums.entry(month_of(*date)).or_insert(0) += money.minor;
        }
        for (at, month) in months.iter().enumerate() {
            if let (Some(sum), Some(bars)) = (sums.get(month), per_month.get_mut(at)) {
                bars.push((index, *sum));
            }
        }
    }
    let top = per_month
        .iter()
        .map(|bars| bars.iter().map(|(_, m)| m).sum::<i64>())
        .max()
        .unwrap_or(0)
        .max(1);
    let count = i64::try_from(months.len()).unwrap_or(1).max(1);
    let slot = (WIDTH - MARGIN) / count;
    let mut svg = format!(
        "<svg data-chart=\"monthly-spend\" data-currency=\"{currency}\" viewBox=\"0 0 {WIDTH} {}\" role=\"img\" aria-label=\"Monthly spend per subscription in {currency}\">",
        HEIGHT + 30
    );
    let _ = write!(
        svg,
        "<text x=\"0\" y=\"12\" font-size=\"11\">{}</text>",
        escape(&Money::new(top, currency).to_string())
    );
    for (at, bars) in per_month.iter().enumerate() {
        let x = MARGIN + i64::try_from(at).unwrap_or(0) * slot;
        let mut y = HEIGHT;
        for (index, minor) in bars {
            let h = minor * (HEIGHT - 20) / top;
            y -= h;
            let colour = COLOURS[index % COLOURS.len()];
            let label = report
                .subscriptions
                .get(*index)
                .map(|s| {
                    s.service_name
                        .clone()
                        .unwrap_or_else(|| s.descriptor.clone())
                })
                .unwrap_or_default();
            let _ = write!(
                svg,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{h}\" fill=\"{colour}\"><title>{} {}</title></rect>",
                (slot - 2).max(1),
                escape(&label),
                escape(&Money::new(*minor, currency).to_string())
            );
        }
        if let Some((year, month)) = months.get(at) {
            let _ = write!(
                svg,
                "<text x=\"{x}\" y=\"{}\" font-size=\"9\">{year}-{month:02}</text>",
                HEIGHT + 14
            );
        }
    }
    svg.push_str("</svg>\n<p>");
    // The legend: which colour is which subscription.
    for (index, s) in report.subscriptions.iter().enumerate() {
        if s.amount.currency != currency {
            continue;
        }
        let label = s
            .service_name
            .clone()
            .unwrap_or_else(|| s.descriptor.clone());
        // With its price: one merchant can bill two subscriptions.
        let _ = write!(
            svg,
            "<span style=\"background:{};padding:0 0.6em;margin-right:0.3em\"></span>{} ({}) &nbsp; ",
            COLOURS[index % COLOURS.len()],
            escape(&label),
            escape(&s.amount.to_string())
        );
    }
    svg.push_str("</p>");
    svg
}

/// The report as an HTML page.
pub fn html_report(report: &Report) -> String {
    let mut page = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>Subscriptions found</title><style>body{font-family:sans-serif;margin:2em}\
         table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}\
         .note{background:#fff4ce;padding:6px}</style></head><body>\n<h1>Subscriptions found</h1>\n",
    );
    for note in &report.notes {
        let _ = writeln!(page, "<p class=\"note\">Note: {}.</p>", escape(note));
    }
    let currencies: Vec<Currency> = report.totals.iter().map(|t| t.currency).collect();
    for currency in &currencies {
        let _ = writeln!(
            page,
            "<h2>Monthly spend per subscription, {}</h2>\n{}",
            escape(currency.code()),
            chart(report, *currency)
        );
    }
    page.push_str("<h2>The subscriptions</h2>\n<table class=\"subscriptions\">\n");
    for (i, row) in table_rows(report).iter().enumerate() {
        let cell = if i == 0 { "th" } else { "td" };
        page.push_str("<tr>");
        for text in row {
            let _ = write!(page, "<{cell}>{}</{cell}>", escape(text));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>\n");
    for total in &report.totals {
        let _ = writeln!(
            page,
            "<p class=\"total\"><strong>{} a year</strong> ({} a month) in {}, {} subscriptions.</p>",
            escape(&total.per_year.to_string()),
            escape(&total.per_month.to_string()),
            escape(total.currency.code()),
            total.subscriptions
        );
    }
    page.push_str("</body></html>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn html_is_escaped() {
        assert_eq!(
            escape("<script>\"a\" & 'b'</script>"),
            "&lt;script&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/script&gt;"
        );
    }
}
