//! How often a subscription charges, with the slack real billing has:
//! a monthly plan billed on the 31st lands on the 28th in February, and a
//! charge made on a Saturday posts on Monday.

use chrono::{Days, Months, NaiveDate};
use serde::Serialize;

/// How often a subscription charges.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cadence {
    /// Every seven days.
    Weekly,
    /// Once a calendar month.
    Monthly,
    /// Once a year.
    Yearly,
}

impl Cadence {
    /// Every cadence, in the order ties are broken in (the commonest first).
    pub(crate) const ALL: [Cadence; 3] = [Cadence::Monthly, Cadence::Weekly, Cadence::Yearly];

    /// Days two consecutive charges may lie apart and still be one period:
    /// weekly ±2 days of posting delay; monthly 28–31 days of month length
    /// plus 3 of posting delay; yearly 365–366 plus two weeks (annual plans
    /// are often renewed a little early or charged a few days late).
    pub(crate) fn gap_days(self) -> std::ops::RangeInclusive<i64> {
        match self {
            Cadence::Weekly => 5..=9,
            Cadence::Monthly => 25..=34,
            Cadence::Yearly => 351..=380,
        }
    }

    /// The period in days, for "overdue by half a period".
    pub(crate) fn nominal_days(self) -> i64 {
        match self {
            Cadence::Weekly => 7,
            Cadence::Monthly => 30,
            Cadence::Yearly => 365,
        }
    }

    /// Charges a year at this cadence. Weekly is 52 rather than 52.18: the
    /// year's total is then exactly 52 charges, a figure a person can check.
    pub(crate) fn per_year(self) -> i64 {
        match self {
            Cadence::Weekly => 52,
            Cadence::Monthly => 12,
            Cadence::Yearly => 1,
        }
    }

    /// Fewest charges that make a subscription of a merchant no known
    /// service pattern matches: three for monthly (two equal amounts a
    /// month apart are too often chance: a haircut, a tank of fuel), four
    /// for weekly (habits repeat weekly too), two for yearly (three would
    /// need three years of statements). A matched merchant needs two.
    pub(crate) fn min_charges(self) -> usize {
        match self {
            Cadence::Weekly => 4,
            Cadence::Monthly => 3,
            Cadence::Yearly => 2,
        }
    }

    /// When the charge after one on `last` is due.
    pub(crate) fn next_after(self, last: NaiveDate) -> NaiveDate {
        let next = match self {
            Cadence::Weekly => last.checked_add_days(Days::new(7)),
            Cadence::Monthly => last.checked_add_months(Months::new(1)),
            Cadence::Yearly => last.checked_add_months(Months::new(12)),
        };
        next.unwrap_or(NaiveDate::MAX)
    }

    /// A word for tables: `weekly`, `monthly`, `yearly`.
    pub fn as_str(self) -> &'static str {
        match self {
            Cadence::Weekly => "weekly",
            Cadence::Monthly => "monthly",
            Cadence::Yearly => "yearly",
        }
    }
}
