//! The answer: the subscriptions found, what each costs and what to do about
//! it, with totals per currency. Data only, serialisable for `--json`: how
//! it looks (a table, a page) is the caller's. Nothing here prints.

use std::collections::BTreeMap;
use std::fmt;

use chrono::NaiveDate;
use serde::Serialize;

use crate::address;
use crate::cadence::Cadence;
use crate::money::{Currency, Money};
use crate::recurring::{self, Series, same_price};
use crate::services::{Action, Matched, Matcher, ServiceDescriptors};
use crate::shops::is_shop;
use crate::statement::{Format, SkipReason, Skipped, Statement};

/// Months in a year, for the monthly total.
const MONTHS_PER_YEAR: i64 = 12;

/// Subscriptions found in a set of statements.
#[derive(Clone, Serialize)]
pub struct Report {
    /// The date "ended?" is judged against: the one given, or the latest
    /// transaction in the statements; `None` only when there were none.
    pub as_of: Option<NaiveDate>,
    /// The subscriptions: current ones first, then by currency and by
    /// yearly cost, dearest first.
    pub subscriptions: Vec<Subscription>,
    /// Per currency, what the subscriptions not marked ended cost; never
    /// converted between currencies.
    pub totals: Vec<Total>,
    /// Each statement read.
    pub files: Vec<FileSummary>,
    /// Data lines read, over all statements.
    pub lines_read: usize,
    /// Lines skipped as unreadable, over all statements.
    pub lines_skipped: usize,
    /// Transactions found in more than one (overlapping) statement, counted once.
    pub duplicates: usize,
    /// Where the skipped lines are: file and line number only.
    pub skipped: Vec<Skipped>,
    /// What the report had to skip, decide or guess, to be said above the
    /// table rather than only under it: lines left out, the order of day
    /// and month read from the rows, a date far ahead set aside, amounts
    /// with no currency. File names, line numbers and counts only.
    pub notes: Vec<String>,
}

/// One subscription.
#[derive(Clone, Serialize)]
pub struct Subscription {
    /// The service id, if a service's descriptors matched.
    pub service: Option<String>,
    /// The service's name, likewise.
    pub service_name: Option<String>,
    /// The descriptor as the latest charge shows it.
    pub descriptor: String,
    /// How often it charges.
    pub cadence: Cadence,
    /// The first charge seen.
    pub first_charge: NaiveDate,
    /// The latest charge.
    pub last_charge: NaiveDate,
    /// When the next charge is due.
    pub next_charge: NaiveDate,
    /// Charges seen.
    pub charges: usize,
    /// The latest charge's amount.
    pub amount: Money,
    /// The latest amount times the charges in a year.
    pub yearly_cost: Money,
    /// The latest price change, once the new price has been charged twice.
    pub price_change: Option<PriceChange>,
    /// "Ended?": the next charge is overdue by more than half a period at
    /// the report's `as_of` date. A guess: the statement may simply end
    /// early, or the card may have changed.
    pub ended: bool,
    /// What to do about it.
    pub action: Action,
    /// Where to cancel it, when no plugin knows the service and its
    /// descriptor names a web address: `https://adobe.com`. Never a
    /// payment company's or app store's address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cancel_at: Option<String>,
    /// Every charge of the series, oldest first, for the HTML report's
    /// chart; left out of the JSON, which has the figures that matter.
    #[serde(skip)]
    pub charged: Vec<(NaiveDate, Money)>,
}

/// Redacted: the descriptor and amounts are the private part.
impl fmt::Debug for Subscription {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not even the service: "netflix" is as telling as the descriptor.
        f.debug_struct("Subscription")
            .field("cadence", &self.cadence)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

/// Redacted: counts only.
impl fmt::Debug for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Report")
            .field("as_of", &self.as_of)
            .field("subscriptions", &self.subscriptions.len())
            .field("totals", &self.totals)
            .field("files", &self.files)
            .field("lines_read", &self.lines_read)
            .field("lines_skipped", &self.lines_skipped)
            .field("duplicates", &self.duplicates)
            .finish_non_exhaustive()
    }
}

/// A price that moved by more than 2% and stayed there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PriceChange {
    /// The price before.
    pub from: Money,
    /// The price since.
    pub to: Money,
    /// The first charge at the new price.
    pub date: NaiveDate,
}

/// What one currency's current subscriptions cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Total {
    /// The currency.
    pub currency: Currency,
    /// A year's cost divided by twelve, rounded half up to the minor unit.
    pub per_month: Money,
    /// The yearly costs added up, exactly.
    pub per_year: Money,
    /// How many subscriptions it adds up.
    pub subscriptions: usize,
}

/// One statement, as read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileSummary {
    /// Its name.
    pub name: String,
    /// The format it was read as.
    pub format: Format,
    /// Data lines read.
    pub lines_read: usize,
    /// Transactions found.
    pub transactions: usize,
    /// Lines skipped.
    pub skipped: usize,
}

/// Finds the subscriptions in `statements`, matched against `services`'
/// descriptors. `as_of` is the day to judge "ended?" on; without it, the
/// latest transaction date in the statements (never today's date: the same
/// statements give the same report whenever they are read).
pub fn find_subscriptions(
    statements: &[Statement],
    services: &[ServiceDescriptors],
    as_of: Option<NaiveDate>,
) -> Report {
    let detected = recurring::detect(statements);
    let as_of = as_of.or(detected.latest);
    let matcher = Matcher::new(services);

    let mut subscriptions: Vec<Subscription> = detected
        .series
        .iter()
        .filter_map(|series| subscription(series, &matcher, as_of))
        .collect();
    subscriptions.sort_by(|a, b| {
        (
            a.ended,
            a.amount.currency,
            std::cmp::Reverse(a.yearly_cost.minor),
            &a.descriptor,
        )
            .cmp(&(
                b.ended,
                b.amount.currency,
                std::cmp::Reverse(b.yearly_cost.minor),
                &b.descriptor,
            ))
    });

    let mut sums: BTreeMap<Currency, (i64, usize)> = BTreeMap::new();
    for current in subscriptions.iter().filter(|s| !s.ended) {
        let sum = sums.entry(current.yearly_cost.currency).or_insert((0, 0));
        sum.0 = sum.0.saturating_add(current.yearly_cost.minor);
        sum.1 += 1;
    }
    let totals = sums
        .into_iter()
        .map(|(currency, (yearly, count))| Total {
            currency,
            per_month: Money::new(divide_rounding(yearly, MONTHS_PER_YEAR), currency),
            per_year: Money::new(yearly, currency),
            subscriptions: count,
        })
        .collect();

    let mut skipped: Vec<Skipped> = statements
        .iter()
        .flat_map(|s| s.skipped.iter().cloned())
        .collect();
    skipped.extend(detected.far_ahead.iter().map(|(file, line)| Skipped {
        file: file.clone(),
        line: *line,
        reason: SkipReason::FarAhead,
    }));
    let notes = notes(statements, &detected.far_ahead, skipped.len(), as_of);
    Report {
        as_of,
        subscriptions,
        totals,
        files: statements
            .iter()
            .map(|s| FileSummary {
                name: s.name.clone(),
                format: s.format.clone(),
                lines_read: s.lines_read,
                transactions: s.transactions.len(),
                skipped: s.skipped.len(),
            })
            .collect(),
        lines_read: statements.iter().map(|s| s.lines_read).sum(),
        lines_skipped: skipped.len(),
        duplicates: detected.duplicates,
        skipped,
        notes,
    }
}

/// What the report says above its table: everything it skipped, decided
/// or guessed, so that a table that is not the whole story never looks it.
fn notes(
    statements: &[Statement],
    far_ahead: &[(String, usize)],
    skipped: usize,
    as_of: Option<NaiveDate>,
) -> Vec<String> {
    let mut notes: Vec<String> = statements
        .iter()
        .flat_map(|s| s.notes.iter().cloned())
        .collect();
    for (file, line) in far_ahead {
        let as_of = as_of.map_or_else(String::new, |d| format!("; \"as of\" is {d}"));
        notes.push(format!(
            "{file} line {line} is dated more than a year after every other line (a typo?): left out{as_of}"
        ));
    }
    let unreadable = skipped - far_ahead.len();
    if unreadable > 0 {
        notes.push(format!(
            "{unreadable} line{} could not be read and {} left out: charges on {} are missing from the table (where: below)",
            if unreadable == 1 { "" } else { "s" },
            if unreadable == 1 { "is" } else { "are" },
            if unreadable == 1 { "it" } else { "them" },
        ));
    }
    for statement in statements {
        if statement
            .transactions
            .iter()
            .any(|t| t.amount.currency == Currency::UNKNOWN)
        {
            notes.push(format!(
                "{}: the statement does not say its currency, shown as XXX: pass --currency (e.g. --currency EUR)",
                statement.name
            ));
        }
    }
    notes
}

/// Half up, for the non-negative sums it is used on.
fn divide_rounding(amount: i64, by: i64) -> i64 {
    if amount >= 0 {
        amount.saturating_add(by / 2) / by
    } else {
        amount.saturating_sub(by / 2) / by
    }
}

fn subscription(
    series: &Series<'_>,
    matcher: &Matcher,
    as_of: Option<NaiveDate>,
) -> Option<Subscription> {
    let first = series.charges.first()?;
    let last = series.charges.last()?;
    let matched = matcher.find(&series.normalised, last.raw);
    let needed = if matched.is_some() {
        2
    } else {
        series.cadence.min_charges()
    };
    let not_recurring_here = !series.is_most_of_its_merchant() || is_shop(&series.normalised);
    if series.charges.len() < needed || (matched.is_none() && not_recurring_here) {
        return None;
    }

    let amount = Money::new(last.minor, series.currency);
    let next_charge = series.cadence.next_after(last.date);
    let ended =
        as_of.is_some_and(|day| (day - next_charge).num_days() * 2 > series.cadence.nominal_days());
    let (service, service_name, action) = match matched {
        Some(Matched::Service { id, name }) => (
            Some(id.clone()),
            Some(name.clone()),
            Action::Cancel {
                service: id.clone(),
            },
        ),
        Some(Matched::Route { company, how }) => (
            None,
            None,
            Action::BilledThrough {
                company: company.clone(),
                how: how.clone(),
            },
        ),
        None | Some(Matched::Direct) => (None, None, Action::NoPlugin),
    };
    Some(Subscription {
        service,
        service_name,
        descriptor: last.raw.trim().to_owned(),
        cadence: series.cadence,
        first_charge: first.date,
        last_charge: last.date,
        next_charge,
        charges: series.charges.len(),
        amount,
        yearly_cost: Money::new(
            last.minor.saturating_mul(series.cadence.per_year()),
            series.currency,
        ),
        price_change: price_change(series),
        charged: series
            .charges
            .iter()
            .map(|c| (c.date, Money::new(c.minor, series.currency)))
            .collect(),
        ended,
        cancel_at: (action == Action::NoPlugin)
            .then(|| address::cancel_at(last.raw))
            .flatten(),
        action,
    })
}

/// The latest move to the current price, if the current price has held for
/// at least two charges: a single charge at a new amount may be a one-off
/// (a prorated month, a tax correction) and is not yet called a change.
fn price_change(series: &Series<'_>) -> Option<PriceChange> {
    let charges = &series.charges;
    let current = charges.last()?.minor;
    let since = charges
        .iter()
        .rposition(|c| !same_price(c.minor, current))
        .map(|i| i + 1)?;
    let held = charges.len() - since;
    if held < 2 {
        return None;
    }
    let before = charges.get(since - 1)?;
    let first_new = charges.get(since)?;
    Some(PriceChange {
        from: Money::new(before.minor, series.currency),
        to: Money::new(current, series.currency),
        date: first_new.date,
    })
}
