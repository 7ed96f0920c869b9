//! Recurring charges: which of a statement's charges come back at a steady
//! cadence.
//!
//! 1. **Once each.** Overlapping exports hold the same charges twice. A
//!    charge is the same as one in an earlier file when date, amount,
//!    currency and normalised descriptor agree *and* it is no more frequent
//!    in its own file: two genuine identical charges on one day in one file
//!    stay two, while the copy of either in the next export is dropped.
//! 2. **By merchant.** Charges (money out) are grouped by normalised
//!    descriptor and currency; refunds and other money in never are.
//! 3. **By price.** Within a merchant, a charge joins the chain whose last
//!    amount is within [`PRICE_BAND_PERCENT`] of its own, the nearest one if
//!    several. Two Apple subscriptions at different prices make two chains;
//!    so does Amazon Prime beside Amazon's shop, whose descriptors differ
//!    anyway.
//! 4. **By cadence.** Each chain's charges are tried against each cadence:
//!    consecutive charges must lie a period apart (with slack); a charge too
//!    soon after the last is a one-off at the same price and left out; a gap
//!    too long ends a series and starts another. The latest series of the
//!    cadence that covers most charges wins.
//! 5. **Price changes.** A series that stops, followed within one period by
//!    a chain at another price (no more than [`MAX_PRICE_FACTOR`] times
//!    apart) that goes on at the same cadence, is the same subscription at a
//!    new price, and the two are joined.
//!
//! 6. **Mostly this.** A series at a merchant no pattern matches must make
//!    up at least [`MIN_SHARE_PERCENT`] of that merchant's charges over its
//!    span (applied in the report, where matching happens). A shop, a
//!    petrol station or Amazon's marketplace, where the same few prices
//!    come round by chance, otherwise yields "monthly" series out of
//!    hundreds of purchases; a real subscription's merchant mostly charges
//!    the subscription (memberships that come with purchases, Uber One or
//!    Amazon Prime, carry descriptors of their own).
//!
//! A merchant that charges twice a month at two prices is two subscriptions
//! here, each monthly: the two prices are nearly always two things (two
//! creators on Patreon, a plan and an add-on), each cancelled on its own,
//! and the totals come out the same either way. Twice a month at one price
//! fits no cadence and is not reported.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;

use crate::cadence::Cadence;
use crate::descriptor::normalise;
use crate::money::Currency;
use crate::statement::{Statement, Transaction};

/// Amounts within this many percent of each other are one price: a sales
/// tax rounding or a currency's cent moving is not a price change.
pub(crate) const PRICE_BAND_PERCENT: i128 = 2;

/// The least share of its merchant's charges over its span that a series
/// must be, when no pattern names the merchant.
pub(crate) const MIN_SHARE_PERCENT: usize = 25;

/// A price change more than this factor up or down is a different thing at
/// the same merchant (a monthly plan replaced by a yearly one), not a new
/// price for the same plan...
const MAX_PRICE_FACTOR: i128 = 2;

/// ...unless the price goes up by no more than this and the new price goes
/// on at the same cadence: an introductory price ending (4.00 for three
/// months, then 25.00) is the same subscription at its full price.
const MAX_INTRO_FACTOR: i128 = 20;

/// A transaction dated more than this many days after every other one is a
/// typo (2099 for 2024), not the statement's last day: taken as "as of",
/// it would mark every subscription ended.
const FAR_AHEAD_DAYS: i64 = 366;

/// Fewest transactions before one can be called far ahead of the rest.
const MIN_DATES_FOR_FAR_AHEAD: usize = 10;

/// Distinct other amounts at a merchant, beside a series, that make it a
/// shop with varying baskets when they also outnumber the series.
const VARYING_BASKETS: usize = 3;

/// One charge, pointing back into its statement.
#[derive(Clone, Copy)]
pub(crate) struct Charge<'s> {
    pub date: NaiveDate,
    pub minor: i64,
    pub raw: &'s str,
}

/// A recurring series: one subscription's charges, oldest first.
pub(crate) struct Series<'s> {
    pub normalised: String,
    pub currency: Currency,
    pub cadence: Cadence,
    pub charges: Vec<Charge<'s>>,
    /// All the merchant's charges (same currency) from this series' first
    /// charge to its last, the series' own included.
    pub merchant_charges_in_span: usize,
    /// Distinct amounts among those charges that are not the series'
    /// price, counted up to [`VARYING_BASKETS`].
    pub other_amounts_in_span: usize,
}

impl Series<'_> {
    /// Whether the series is at least [`MIN_SHARE_PERCENT`] of its
    /// merchant's charges over its span, and the merchant is not a shop
    /// whose varying baskets outnumber it (a pharmacy refill at one price
    /// among a year of CVS purchases is not a subscription to CVS).
    pub(crate) fn is_most_of_its_merchant(&self) -> bool {
        let series = self.charges.len();
        let others = self.merchant_charges_in_span.saturating_sub(series);
        let shop = others > series && self.other_amounts_in_span >= VARYING_BASKETS;
        series * 100 >= MIN_SHARE_PERCENT * self.merchant_charges_in_span && !shop
    }
}

/// What detection found across all statements.
pub(crate) struct Detected<'s> {
    pub series: Vec<Series<'s>>,
    /// Transactions dropped as copies from an overlapping export.
    pub duplicates: usize,
    /// The latest date of any transaction, charge or not, but for those
    /// set aside.
    pub latest: Option<NaiveDate>,
    /// Transactions left out as dated far after every other (statement
    /// name, line): a typo in a year.
    pub far_ahead: Vec<(String, usize)>,
}

/// A merchant, as an index into the list of normalised descriptors: keys
/// that are hashed once per transaction stay small.
pub(crate) type MerchantId = usize;

/// With the bank's own id where there is one: identical charges on one day
/// with two ids are two, the same id in two exports is one.
type DedupeKey<'s> = (NaiveDate, i64, Currency, MerchantId, Option<&'s str>);

/// The last date that is not far ahead of all the others, when some are:
/// dates after it are typos. A few at most (one in a hundred), after a gap
/// of more than [`FAR_AHEAD_DAYS`].
fn far_ahead_cutoff(statements: &[Statement]) -> Option<NaiveDate> {
    let mut dates: Vec<NaiveDate> = statements
        .iter()
        .flat_map(|s| s.transactions.iter().map(|t| t.date))
        .collect();
    dates.sort_unstable();
    let n = dates.len();
    // A statement's range is known from a few dozen dates, not from two:
    // two files years apart are two statements, not a typo.
    if n < MIN_DATES_FOR_FAR_AHEAD {
        return None;
    }
    let most = (n / 100).max(1);
    (1..=most).rev().find_map(|k| {
        let before = *dates.get(n.checked_sub(k + 1)?)?;
        let after = *dates.get(n - k)?;
        ((after - before).num_days() > FAR_AHEAD_DAYS).then_some(before)
    })
}

/// What [`walk`] saw besides the transactions it handed on.
pub(crate) struct Walked {
    /// Each merchant's normalised descriptor, at its [`MerchantId`].
    pub merchants: Vec<String>,
    /// Transactions dropped as copies from an overlapping export.
    pub duplicates: usize,
    /// The latest date of any transaction but those set aside.
    pub latest: Option<NaiveDate>,
    /// Transactions left out as dated far after every other (statement
    /// name, line).
    pub far_ahead: Vec<(String, usize)>,
}

/// Hands `keep` every transaction the report counts, in file order, with
/// its merchant: all but the copies from an overlapping export (step 1)
/// and those dated far after every other. One walk for the subscriptions
/// and for any other question asked of the same statements
/// ([`crate::service_charges`]), so that both count a charge alike.
pub(crate) fn walk<'s>(
    statements: &'s [Statement],
    mut keep: impl FnMut(&'s Transaction, MerchantId),
) -> Walked {
    let mut merchant_of_raw: HashMap<&str, MerchantId> = HashMap::new();
    let mut merchant_of_name: HashMap<String, MerchantId> = HashMap::new();
    let mut earlier: HashMap<DedupeKey, usize> = HashMap::new();
    let mut duplicates = 0;
    let mut latest: Option<NaiveDate> = None;
    let cutoff = far_ahead_cutoff(statements);
    let mut far_ahead = Vec::new();

    let last = statements.len().saturating_sub(1);
    for (index, statement) in statements.iter().enumerate() {
        // Copies are counted only where two exports could overlap: a key
        // is remembered for a later statement, or looked up in an earlier
        // one. A single statement (the common case, and the big one) keeps
        // no key at all.
        let feeds_later = index < last;
        let mut here: HashMap<DedupeKey, usize> = HashMap::new();
        for transaction in &statement.transactions {
            if cutoff.is_some_and(|c| transaction.date > c) {
                far_ahead.push((statement.name.clone(), transaction.line));
                continue;
            }
            latest = latest.max(Some(transaction.date));
            let raw = transaction.description.as_str();
            let merchant = *merchant_of_raw.entry(raw).or_insert_with(|| {
                let name = normalise(raw);
                let next = merchant_of_name.len();
                *merchant_of_name.entry(name).or_insert(next)
            });
            let key = (
                transaction.date,
                transaction.amount.minor,
                transaction.amount.currency,
                merchant,
                transaction.id.as_deref(),
            );
            let before = earlier.get(&key).copied().unwrap_or(0);
            let occurrence = if feeds_later || before > 0 {
                let seen_here = here.entry(key).or_insert(0);
                *seen_here += 1;
                *seen_here - 1
            } else {
                0
            };
            if occurrence < before {
                duplicates += 1;
                continue;
            }
            keep(transaction, merchant);
        }
        if feeds_later {
            for (key, count) in here {
                let most = earlier.entry(key).or_insert(0);
                *most = (*most).max(count);
            }
        }
    }
    // Each name held once, in the order the ids were given.
    let mut merchants = vec![String::new(); merchant_of_name.len()];
    for (name, id) in merchant_of_name {
        if let Some(slot) = merchants.get_mut(id) {
            *slot = name;
        }
    }
    Walked {
        merchants,
        duplicates,
        latest,
        far_ahead,
    }
}

pub(crate) fn detect(statements: &[Statement]) -> Detected<'_> {
    let mut groups: HashMap<(MerchantId, Currency), Vec<Charge<'_>>> = HashMap::new();
    let Walked {
        merchants,
        duplicates,
        latest,
        far_ahead,
    } = walk(statements, |transaction, merchant| {
        if transaction.amount.minor > 0 {
            groups
                .entry((merchant, transaction.amount.currency))
                .or_default()
                .push(Charge {
                    date: transaction.date,
                    minor: transaction.amount.minor,
                    raw: transaction.description.as_str(),
                });
        }
    });

    // By name, so the same statements always give series in the same order.
    let mut groups: Vec<((MerchantId, Currency), Vec<Charge<'_>>)> = groups.into_iter().collect();
    groups.sort_by(|((a, a_currency), _), ((b, b_currency), _)| {
        (merchants.get(*a), a_currency).cmp(&(merchants.get(*b), b_currency))
    });
    let mut series = Vec::new();
    for ((merchant, currency), mut charges) in groups {
        charges.sort_by_key(|c| c.date);
        for (cadence, found) in merchant_series(&charges) {
            let (Some(first), Some(last)) = (found.first(), found.last()) else {
                continue;
            };
            let from = charges.partition_point(|c| c.date < first.date);
            let to = charges.partition_point(|c| c.date <= last.date);
            let span = charges.get(from..to).unwrap_or_default();
            // Counted only as far as the verdict needs: a shop's span holds
            // thousands of baskets, and a few distinct ones decide it.
            let mut prices: Vec<i64> = found.iter().map(|c| c.minor).collect();
            prices.sort_unstable();
            prices.dedup();
            let mut others: Vec<i64> = Vec::new();
            for minor in span.iter().map(|c| c.minor) {
                if others.len() >= VARYING_BASKETS {
                    break;
                }
                if !prices.iter().any(|&p| same_price(minor, p)) && !others.contains(&minor) {
                    others.push(minor);
                }
            }
            series.push(Series {
                normalised: merchants.get(merchant).cloned().unwrap_or_default(),
                currency,
                cadence,
                merchant_charges_in_span: span.len(),
                other_amounts_in_span: others.len(),
                charges: found,
            });
        }
    }
    Detected {
        series,
        duplicates,
        latest,
        far_ahead,
    }
}

/// Whether `amount` is the same price as `reference`.
pub(crate) fn same_price(amount: i64, reference: i64) -> bool {
    i128::from(amount - reference).abs() * 100 <= PRICE_BAND_PERCENT * i128::from(reference).abs()
}

/// A run of charges at one price, with its cadence if it has one.
struct Run<'s> {
    charges: Vec<Charge<'s>>,
    cadence: Option<Cadence>,
}

/// Every series of one merchant's charges (sorted by date).
fn merchant_series<'s>(charges: &[Charge<'s>]) -> Vec<(Cadence, Vec<Charge<'s>>)> {
    // Chains by price, found through an index of each chain's last amount:
    // a shop's thousands of purchases make hundreds of chains.
    let mut chains: Vec<Vec<Charge<'s>>> = Vec::new();
    let mut by_last_amount: BTreeSet<(i64, usize)> = BTreeSet::new();
    for charge in charges {
        let amount = charge.minor;
        // Every last amount `b` with `same_price(amount, b)` lies in here.
        let low = amount.saturating_mul(100) / (100 + PRICE_BAND_PERCENT as i64) - 1;
        let high = amount.saturating_mul(100) / (100 - PRICE_BAND_PERCENT as i64) + 1;
        // A chain already charged this day is passed over: two identical
        // charges on one day are two subscriptions (two apps at 0.99),
        // not one charge and a one-off.
        let nearest = by_last_amount
            .range((low, 0)..=(high, usize::MAX))
            .filter(|(last, _)| same_price(amount, *last))
            .filter(|(_, index)| {
                chains
                    .get(*index)
                    .and_then(|chain| chain.last())
                    .is_none_or(|c| c.date != charge.date)
            })
            .min_by_key(|(last, _)| (amount - last).abs())
            .copied();
        match nearest.and_then(|(last, index)| Some((last, index, chains.get_mut(index)?))) {
            Some((last, index, chain)) => {
                chain.push(*charge);
                by_last_amount.remove(&(last, index));
                by_last_amount.insert((amount, index));
            }
            None => {
                by_last_amount.insert((amount, chains.len()));
                chains.push(vec![*charge]);
            }
        }
    }

    // Each chain's best series; a chain with none offers its charges one by
    // one, as possible first charges at a new price.
    let mut runs: Vec<Run<'s>> = Vec::new();
    for chain in chains {
        match best_series(&chain) {
            Some((cadence, picked)) => runs.push(Run {
                charges: picked
                    .into_iter()
                    .filter_map(|i| chain.get(i).copied())
                    .collect(),
                cadence: Some(cadence),
            }),
            None => runs.extend(chain.into_iter().map(|charge| Run {
                charges: vec![charge],
                cadence: None,
            })),
        }
    }
    runs.sort_by_key(|run| run.charges.first().map(|c| c.date));

    // Price changes: join a series to the run that carries on after it.
    // Runs are sorted by first charge, and a run's first charge never
    // changes (only the run it joins grows), so the runs that may carry on
    // after a date are found by binary search: a shop's hundred thousand
    // one-off runs are not each looked at for every series.
    let firsts: Vec<Option<NaiveDate>> = runs
        .iter()
        .map(|run| run.charges.first().map(|c| c.date))
        .collect();
    let mut consumed = vec![false; runs.len()];
    for i in 0..runs.len() {
        let Some(cadence) = runs[i].cadence else {
            continue;
        };
        if consumed[i] {
            continue;
        }
        while let Some(last) = runs[i].charges.last().copied() {
            let gaps = cadence.gap_days();
            let after = |days: &i64| {
                last.date
                    .checked_add_days(chrono::Days::new(days.unsigned_abs()))
                    .unwrap_or(NaiveDate::MAX)
            };
            let (from, to) = (after(gaps.start()), after(gaps.end()));
            let start = firsts.partition_point(|f| f.is_none_or(|d| d < from));
            let end = firsts.partition_point(|f| f.is_none_or(|d| d <= to));
            let next = (start..end)
                .filter(|&j| j != i && !consumed[j])
                .filter(|&j| runs[j].cadence.is_none_or(|c| c == cadence))
                .filter_map(|j| Some((j, *runs[j].charges.first()?)))
                .filter(|(j, first)| {
                    let goes_on = runs[*j].cadence == Some(cadence);
                    cadence
                        .gap_days()
                        .contains(&(first.date - last.date).num_days())
                        && !same_price(first.minor, last.minor)
                        && (within_factor(first.minor, last.minor)
                            || goes_on && intro_price_ending(last.minor, first.minor))
                })
                .min_by_key(|(_, first)| first.date)
                .map(|(j, _)| j);
            let Some(j) = next else { break };
            consumed[j] = true;
            let more = std::mem::take(&mut runs[j].charges);
            runs[i].charges.extend(more);
        }
    }

    runs.into_iter()
        .zip(consumed)
        .filter(|(run, consumed)| !consumed && run.charges.len() >= 2)
        .filter_map(|(run, _)| Some((run.cadence?, run.charges)))
        .collect()
}

/// A rise from `before` to `after` of the size an introductory price's end
/// makes.
fn intro_price_ending(before: i64, after: i64) -> bool {
    let (before, after) = (i128::from(before), i128::from(after));
    before > 0 && after > before && after <= before * MAX_INTRO_FACTOR
}

fn within_factor(a: i64, b: i64) -> bool {
    let (a, b) = (i128::from(a), i128::from(b));
    a <= b * MAX_PRICE_FACTOR && b <= a * MAX_PRICE_FACTOR
}

/// The cadence that explains most of a chain's charges, with the indices
/// of the charges in its latest series (at least two).
fn best_series(chain: &[Charge<'_>]) -> Option<(Cadence, Vec<usize>)> {
    let mut best: Option<(Cadence, Vec<usize>)> = None;
    for cadence in Cadence::ALL {
        if let Some(series) = latest_series(chain, cadence)
            && best.as_ref().is_none_or(|(_, b)| series.len() > b.len())
        {
            best = Some((cadence, series));
        }
    }
    best
}

/// The latest run of charges a period apart, skipping charges that come too
/// soon (one-offs at the same price) and starting over after a gap.
fn latest_series(chain: &[Charge<'_>], cadence: Cadence) -> Option<Vec<usize>> {
    let gaps = cadence.gap_days();
    let mut latest = None;
    let mut current = vec![0];
    for (i, charge) in chain.iter().enumerate().skip(1) {
        let Some(last) = current.last().and_then(|&l| chain.get(l)) else {
            break;
        };
        let gap = (charge.date - last.date).num_days();
        if gap < *gaps.start() {
            continue;
        }
        if gap <= *gaps.end() {
            current.push(i);
        } else {
            if current.len() >= 2 {
                latest = Some(std::mem::take(&mut current));
            }
            current = vec![i];
        }
    }
    if current.len() >= 2 {
        latest = Some(current);
    }
    latest
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn charges(list: &[(&str, i64)]) -> Vec<Charge<'static>> {
        list.iter()
            .map(|(date, minor)| Charge {
                date: date.parse().unwrap(),
                minor: *minor,
                raw: "X",
            })
            .collect()
    }

    fn summary(found: &[(Cadence, Vec<Charge<'_>>)]) -> Vec<(Cadence, Vec<i64>)> {
        found
            .iter()
            .map(|(c, list)| (*c, list.iter().map(|x| x.minor).collect()))
            .collect()
    }

    #[test]
    fn cadences_price_changes_and_one_offs() {
        use Cadence::*;
        type Case<'a> = (&'a str, &'a [(&'a str, i64)], &'a [(Cadence, &'a [i64])]);
        let cases: &[Case] = &[
            (
                "monthly with month-end jitter",
                &[
                    ("2024-01-31", 999),
                    ("2024-02-29", 999),
                    ("2024-03-31", 999),
                    ("2024-05-01", 999),
                ],
                &[(Monthly, &[999, 999, 999, 999])],
            ),
            (
                "weekly",
                &[
                    ("2024-01-01", 500),
                    ("2024-01-08", 500),
                    ("2024-01-15", 500),
                    ("2024-01-23", 500),
                ],
                &[(Weekly, &[500, 500, 500, 500])],
            ),
            (
                "yearly",
                &[("2023-02-14", 13900), ("2024-02-13", 13900)],
                &[(Yearly, &[13900, 13900])],
            ),
            (
                "price change joins the old and new price",
                &[
                    ("2024-01-03", 1549),
                    ("2024-02-03", 1549),
                    ("2024-03-03", 1799),
                    ("2024-04-03", 1799),
                ],
                &[(Monthly, &[1549, 1549, 1799, 1799])],
            ),
            (
                "two prices interleaved stay two",
                &[
                    ("2024-01-01", 299),
                    ("2024-01-15", 999),
                    ("2024-02-01", 299),
                    ("2024-02-15", 999),
                    ("2024-03-01", 299),
                    ("2024-03-15", 999),
                ],
                &[(Monthly, &[299, 299, 299]), (Monthly, &[999, 999, 999])],
            ),
            (
                "a same-price one-off between charges is left out",
                &[
                    ("2024-01-05", 1000),
                    ("2024-01-20", 1000),
                    ("2024-02-05", 1000),
                    ("2024-03-05", 1000),
                ],
                &[(Monthly, &[1000, 1000, 1000])],
            ),
            (
                "irregular purchases are nothing",
                &[
                    ("2024-01-05", 2312),
                    ("2024-01-20", 1899),
                    ("2024-03-02", 2312),
                ],
                &[],
            ),
            (
                "tiny drift is one price",
                &[
                    ("2024-01-05", 1000),
                    ("2024-02-05", 1010),
                    ("2024-03-05", 1015),
                ],
                &[(Monthly, &[1000, 1010, 1015])],
            ),
            (
                "an introductory price ending is a price change",
                &[
                    ("2024-01-10", 400),
                    ("2024-02-10", 400),
                    ("2024-03-10", 400),
                    ("2024-04-10", 2500),
                    ("2024-05-10", 2500),
                    ("2024-06-10", 2500),
                ],
                &[(Monthly, &[400, 400, 400, 2500, 2500, 2500])],
            ),
            (
                "two identical charges a day stay two",
                &[
                    ("2024-01-10", 99),
                    ("2024-01-10", 99),
                    ("2024-02-10", 99),
                    ("2024-02-10", 99),
                    ("2024-03-10", 99),
                    ("2024-03-10", 99),
                ],
                &[(Monthly, &[99, 99, 99]), (Monthly, &[99, 99, 99])],
            ),
            (
                "monthly then yearly is not a price change",
                &[
                    ("2024-01-05", 1499),
                    ("2024-02-05", 1499),
                    ("2024-03-05", 13900),
                ],
                &[(Monthly, &[1499, 1499])],
            ),
        ];
        for (name, input, want) in cases {
            let got = summary(&merchant_series(&charges(input)));
            let want: Vec<(Cadence, Vec<i64>)> =
                want.iter().map(|(c, a)| (*c, a.to_vec())).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn bands_are_two_percent() {
        assert!(same_price(1020, 1000));
        assert!(!same_price(1021, 1000));
        assert!(same_price(980, 1000));
        assert!(!same_price(979, 1000));
    }
}
