//! The page's chart: per currency, a stacked bar a month, one colour per
//! subscription, each bar's title naming the subscription and its sum for
//! that month; then a legend. An SVG inline in the page, written by the
//! template, so a descriptor is text in a `<title>`, never markup.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};
use maud::{Markup, html};
use subterminator_scan::{Currency, Money, Report, Subscription};

/// Chart size in SVG units.
const WIDTH: i64 = 720;
const HEIGHT: i64 = 240;
const MARGIN: i64 = 40;
/// Room under the bars for the month labels.
const LABELS: i64 = 30;
/// Room above the tallest bar for the scale's label (its sum).
const HEADROOM: i64 = 20;

/// Colours the series cycle through.
const COLOURS: &[&str] = &[
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// A year and a month.
type Month = (i32, u32);

fn month_of(date: NaiveDate) -> Month {
    (date.year(), date.month())
}

/// Subscription `index`'s colour: by its place in the report, so that its
/// bars and its legend entry agree.
fn colour(index: usize) -> &'static str {
    COLOURS[index % COLOURS.len()]
}

/// What a bar and the legend call a subscription: its service, else how
/// the statement names it.
fn label(s: &Subscription) -> &str {
    s.service_name.as_deref().unwrap_or(&s.descriptor)
}

/// The months from the first charge in `currency` to the last, in order:
/// a pound account's chart does not start with a dollar card's first year.
fn months(report: &Report, currency: Currency) -> Vec<Month> {
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

/// Per month of [`months`], what each subscription in `currency` charged
/// in it, in minor units: `(index in the report, sum)`, in report order.
fn per_month(report: &Report, currency: Currency, months: &[Month]) -> Vec<Vec<(usize, i64)>> {
    let mut per_month: Vec<Vec<(usize, i64)>> = vec![Vec::new(); months.len()];
    for (index, s) in report.subscriptions.iter().enumerate() {
        if s.amount.currency != currency {
            continue;
        }
        let mut sums: BTreeMap<Month, i64> = BTreeMap::new();
        for (date, money) in &s.charged {
            *sums.entry(month_of(*date)).or_insert(0) += money.minor;
        }
        for (at, month) in months.iter().enumerate() {
            if let (Some(sum), Some(bars)) = (sums.get(month), per_month.get_mut(at)) {
                bars.push((index, *sum));
            }
        }
    }
    per_month
}

/// One subscription's part of a month's bar.
struct Block {
    y: i64,
    height: i64,
    /// The subscription's index in the report.
    index: usize,
    /// What it charged that month, in minor units.
    minor: i64,
}

/// A month's bar, stacked bottom up, scaled so that `top` fills the chart.
fn stack(bars: &[(usize, i64)], top: i64) -> Vec<Block> {
    let mut y = HEIGHT;
    bars.iter()
        .map(|&(index, minor)| {
            let height = minor * (HEIGHT - HEADROOM) / top;
            y -= height;
            Block {
                y,
                height,
                index,
                minor,
            }
        })
        .collect()
}

/// One stacked-bar chart for `currency`, then its legend.
pub(super) fn chart(report: &Report, currency: Currency) -> Markup {
    let months = months(report, currency);
    let per_month = per_month(report, currency, &months);
    let top = per_month
        .iter()
        .map(|bars| bars.iter().map(|(_, m)| m).sum::<i64>())
        .max()
        .unwrap_or(0)
        .max(1);
    let count = i64::try_from(months.len()).unwrap_or(1).max(1);
    let slot = (WIDTH - MARGIN) / count;
    let width = (slot - 2).max(1);
    let name = |index: usize| {
        report
            .subscriptions
            .get(index)
            .map(label)
            .unwrap_or_default()
    };
    html! {
        svg data-chart="monthly-spend" data-currency=(currency)
            viewBox={ "0 0 " (WIDTH) " " (HEIGHT + LABELS) } role="img"
            aria-label={ "Monthly spend per subscription in " (currency) } {
            text x="0" y="12" font-size="11" { (Money::new(top, currency)) }
            @for (at, (bars, (year, month))) in per_month.iter().zip(&months).enumerate() {
                @let x = MARGIN + i64::try_from(at).unwrap_or(0) * slot;
                @for b in stack(bars, top) {
                    rect x=(x) y=(b.y) width=(width) height=(b.height) fill=(colour(b.index)) {
                        title { (name(b.index)) " " (Money::new(b.minor, currency)) }
                    }
                }
                text x=(x) y=(HEIGHT + 14) font-size="9" { (year) "-" (format!("{month:02}")) }
            }
        }
        // The legend: which colour is which subscription, with its price:
        // one merchant can bill two subscriptions.
        p {
            @for (index, s) in report.subscriptions.iter().enumerate() {
                @if s.amount.currency == currency {
                    span style={ "background:" (colour(index)) ";padding:0 0.6em;margin-right:0.3em" } {}
                    (label(s)) " (" (s.amount) ") \u{a0} "
                }
            }
        }
    }
}
