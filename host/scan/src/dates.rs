//! Dates as statements write them.

use chrono::{Datelike, NaiveDate, NaiveDateTime};

/// Years outside this range are a misread (a two-digit year taken as AD 24,
/// a reference number that happened to parse), not a transaction.
const PLAUSIBLE_YEARS: std::ops::RangeInclusive<i32> = 1970..=2200;

/// The first of `formats` (strftime) that reads `text` whole, date or
/// date-and-time; `None` if none does.
pub(crate) fn parse_date<S: AsRef<str>>(text: &str, formats: &[S]) -> Option<NaiveDate> {
    let text = text.trim();
    formats
        .iter()
        .find_map(|format| {
            let format = format.as_ref();
            NaiveDate::parse_from_str(text, format)
                .or_else(|_| NaiveDateTime::parse_from_str(text, format).map(|t| t.date()))
                .ok()
        })
        .filter(|date| PLAUSIBLE_YEARS.contains(&date.year()))
}

/// OFX dates: `YYYYMMDD`, optionally followed by a time and a zone
/// (`20240105120000.000[-5:EST]`). The calendar day as written is kept:
/// moving it across a time zone would shift charges by a day for nothing.
pub(crate) fn parse_ofx_date(text: &str) -> Option<NaiveDate> {
    let day = text.trim().get(..8)?;
    parse_date(day, &["%Y%m%d"])
}

/// ISO 8601 dates as CAMT writes them: `2024-01-05` or
/// `2024-01-05T10:00:00+01:00`, whose calendar day is kept as written.
pub(crate) fn parse_iso_date(text: &str) -> Option<NaiveDate> {
    let day = text.trim().get(..10)?;
    parse_date(day, &["%Y-%m-%d"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_parse() {
        let us = ["%m/%d/%y", "%m/%d/%Y"];
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d);
        let cases: &[(&str, &[&str], Option<NaiveDate>)] = &[
            ("01/05/2024", &us, day(2024, 1, 5)),
            ("01/05/24", &us, day(2024, 1, 5)),
            ("13/05/2024", &us, None),
            (
                "2024-01-05 10:12:33",
                &["%Y-%m-%d %H:%M:%S"],
                day(2024, 1, 5),
            ),
            ("05.01.2024", &["%d.%m.%Y"], day(2024, 1, 5)),
            ("2024-01-05", &["%Y-%m-%d"], day(2024, 1, 5)),
            ("0024-01-05", &["%Y-%m-%d"], None),
            ("", &["%Y-%m-%d"], None),
        ];
        for (text, formats, want) in cases {
            assert_eq!(parse_date(text, formats), *want, "{text}");
        }
        assert_eq!(
            parse_ofx_date("20240105120000.000[-5:EST]"),
            day(2024, 1, 5)
        );
        assert_eq!(parse_ofx_date("20240105"), day(2024, 1, 5));
        assert_eq!(parse_ofx_date("2024010"), None);
        assert_eq!(parse_iso_date("2024-01-05T10:00:00+01:00"), day(2024, 1, 5));
    }
}
