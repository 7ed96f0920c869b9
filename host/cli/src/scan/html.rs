//! `scan --html`: the report as one self-contained HTML page a person can
//! look at: the notes, a chart of what each subscription cost per month
//! over the statements' months (`chart.rs`), the table and the totals. No
//! script, no outside resource (the page's policy allows neither), and
//! every value escaped by the template: a descriptor is statement text,
//! which anyone who can put a charge on a card can write.

mod chart;

#[cfg(test)]
mod tests;

use maud::{DOCTYPE, PreEscaped, html};
use subterminator_scan::Report;

use super::rows::{HEADER, table_rows};

/// Nothing is fetched and nothing runs: the style is inline, the chart is
/// inline SVG.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'";

const STYLE: &str = "body{font-family:sans-serif;margin:2em}\
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}\
.note{background:#fff4ce;padding:6px}";

/// The report as an HTML page, ending in a newline as a text file does.
pub(super) fn html_report(report: &Report) -> String {
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(POLICY);
                title { "Subscriptions found" }
                // Our own constant stylesheet.
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { "Subscriptions found" }
                @for note in &report.notes {
                    p.note { "Note: " (note) "." }
                }
                @for total in &report.totals {
                    h2 { "Monthly spend per subscription, " (total.currency) }
                    (chart::chart(report, total.currency))
                }
                h2 { "The subscriptions" }
                table.subscriptions {
                    tr { @for title in HEADER { th { (title) } } }
                    @for row in table_rows(report) {
                        tr { @for text in row { td { (text) } } }
                    }
                }
                @for total in &report.totals {
                    p.total {
                        strong { (total.per_year) " a year" }
                        " (" (total.per_month) " a month) in " (total.currency) ", "
                        (total.subscriptions) " subscriptions."
                    }
                }
            }
        }
    };
    page.into_string() + "\n"
}
