//! Money as whole minor units (cents, pence) of one currency. Sums of charges
//! must come out to the cent, so nothing here touches a float.

use std::fmt;

use serde::Serialize;
use serde::ser::SerializeStruct;

/// An ISO 4217 currency code, three ASCII capitals.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency([u8; 3]);

impl Currency {
    /// ISO 4217's "no currency": for a statement that never says which one it
    /// is in and was given none. Totals still add up; they just carry no name.
    pub const UNKNOWN: Currency = Currency(*b"XXX");

    /// The code for `text` (`"usd"`, `" EUR "`), or `None` unless it is
    /// exactly three ASCII letters.
    pub fn parse(text: &str) -> Option<Currency> {
        match text.trim().as_bytes() {
            [a, b, c] if [a, b, c].iter().all(|x| x.is_ascii_alphabetic()) => Some(Currency([
                a.to_ascii_uppercase(),
                b.to_ascii_uppercase(),
                c.to_ascii_uppercase(),
            ])),
            _ => None,
        }
    }

    /// The three letters.
    pub fn code(&self) -> &str {
        // Only ASCII letters are ever stored, so this cannot fail; the fallback
        // keeps the no-panic rule without an `expect`.
        std::str::from_utf8(&self.0).unwrap_or("XXX")
    }

    /// Digits after the decimal mark in this currency's minor unit, as ISO
    /// 4217 lists it (the `iso_currency` crate's table: 0 for the yen and
    /// the Burundian franc, 3 for the Gulf dinars, 4 for the Chilean
    /// Unidad de Fomento). A code it does not know, and XXX (no currency),
    /// have 2: what a statement that never names its currency writes.
    pub fn decimals(self) -> u32 {
        iso_currency::Currency::from_code(self.code())
            .and_then(iso_currency::Currency::exponent)
            .map_or(2, u32::from)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

// A currency code says nothing about what anyone bought, so Debug shows it.
impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for Currency {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// An amount of one currency, in its minor units (1549 USD is $15.49).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Money {
    /// Whole minor units; see [`Currency::decimals`].
    pub minor: i64,
    /// What the units are of.
    pub currency: Currency,
}

impl Money {
    /// `minor` units of `currency`.
    pub fn new(minor: i64, currency: Currency) -> Money {
        Money { minor, currency }
    }

    /// The amount as a plain decimal, without the currency: `"15.49"`, `"-3.00"`, `"1500"` (yen).
    pub fn decimal(&self) -> String {
        let decimals = self.currency.decimals();
        let sign = if self.minor < 0 { "-" } else { "" };
        let units = self.minor.unsigned_abs();
        if decimals == 0 {
            return format!("{sign}{units}");
        }
        let scale = 10u64.pow(decimals);
        format!(
            "{sign}{}.{:0width$}",
            units / scale,
            units % scale,
            width = decimals as usize
        )
    }
}

/// `15.49 USD`: the code rather than a symbol, because `$` alone is also the
/// Canadian and Australian dollar.
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.decimal(), self.currency)
    }
}

/// Redacted: an amount is part of someone's bank statement, and Debug output
/// ends up in logs and panic messages.
impl fmt::Debug for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Money({}, ..)", self.currency)
    }
}

/// `{"amount": "15.49", "currency": "USD"}`: a decimal string, so JSON
/// readers that parse numbers as floats cannot round it.
impl Serialize for Money {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Money", 2)?;
        s.serialize_field("amount", &self.decimal())?;
        s.serialize_field("currency", &self.currency)?;
        s.end()
    }
}

/// Which character separates the units from the cents in a statement.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum DecimalMark {
    /// `1,234.56`: the US, the UK, and every export that follows them.
    Point,
    /// `1.234,56`: most of continental Europe.
    Comma,
}

impl DecimalMark {
    fn char(self) -> char {
        match self {
            DecimalMark::Point => '.',
            DecimalMark::Comma => ',',
        }
    }

    fn group_char(self) -> char {
        match self {
            DecimalMark::Point => ',',
            DecimalMark::Comma => '.',
        }
    }
}

/// Guesses the decimal mark from sample amount cells: whichever of `.` and
/// `,` is followed by one or two final digits more often. With no evidence, a
/// semicolon-separated file is taken to be European (that is why it uses
/// semicolons: the comma is its decimal mark).
pub(crate) fn guess_mark<'a>(
    samples: impl IntoIterator<Item = &'a str>,
    semicolons: bool,
) -> DecimalMark {
    let (mut points, mut commas) = (0usize, 0usize);
    for sample in samples {
        let sample = sample
            .trim()
            .trim_end_matches(|c: char| !c.is_ascii_digit());
        let Some(at) = sample.rfind(['.', ',']) else {
            continue;
        };
        let tail = &sample[at + 1..];
        if (1..=2).contains(&tail.len()) && tail.bytes().all(|b| b.is_ascii_digit()) {
            if sample[at..].starts_with('.') {
                points += 1;
            } else {
                commas += 1;
            }
        }
    }
    match commas.cmp(&points) {
        std::cmp::Ordering::Greater => DecimalMark::Comma,
        std::cmp::Ordering::Less => DecimalMark::Point,
        std::cmp::Ordering::Equal if semicolons => DecimalMark::Comma,
        std::cmp::Ordering::Equal => DecimalMark::Point,
    }
}

/// A word beside an amount that says which way the money went, whatever the
/// column's sign convention: `30.00 CR` is money in on a card statement
/// that writes charges positive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    /// `CR`: money in.
    Credit,
    /// `DR`: money out.
    Debit,
}

/// Parses a statement's amount cell into minor units with `decimals` digits
/// of cents: `-15.49`, `(15.49)`, `15.49-`, `$1,234.56`, `1.234,56 €`,
/// `+12`. `None` for anything else, including an empty cell, a cell with
/// more cents than the currency has (`1.234` dollars is not a price) and a
/// cell with letters that are neither a currency code nor `CR`/`DR`
/// (`-12abc` is no amount, not twelve).
pub(crate) fn parse_amount(text: &str, mark: DecimalMark, decimals: u32) -> Option<i64> {
    parse_marked_amount(text, mark, decimals).map(|(minor, _)| minor)
}

/// [`parse_amount`], with the `CR`/`DR` word if the cell has one.
pub(crate) fn parse_marked_amount(
    text: &str,
    mark: DecimalMark,
    decimals: u32,
) -> Option<(i64, Option<Direction>)> {
    // Currency symbols and codes around the number carry no information here:
    // the currency comes from its own column or the statement.
    let (mut body, mut direction) = trim_decoration(text)?;
    let mut negative = false;
    if let Some(inner) = body.strip_prefix('(').and_then(|b| b.strip_suffix(')')) {
        negative = true;
        body = inner.trim();
    }
    if let Some(rest) = body.strip_prefix('-') {
        negative = !negative;
        body = rest.trim_start();
    } else if let Some(rest) = body.strip_suffix('-') {
        // Some German and Dutch banks write the sign after the number.
        negative = !negative;
        body = rest.trim_end();
    } else if let Some(rest) = body.strip_prefix('+') {
        body = rest.trim_start();
    }
    let (inner, inner_direction) = trim_decoration(body)?;
    body = inner;
    direction = direction.or(inner_direction);
    let (whole, cents) = match body.split_once(mark.char()) {
        Some((whole, cents)) => (whole, cents),
        None => (body, ""),
    };
    if !cents.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole = whole_digits(whole, mark)?;
    let cents = cents.trim_end_matches('0');
    if cents.len() > decimals as usize {
        return None;
    }
    let scale = 10i64.checked_pow(decimals)?;
    let mut minor = whole.checked_mul(scale)?;
    if !cents.is_empty() {
        let padded = format!("{cents:0<width$}", width = decimals as usize);
        minor = minor.checked_add(padded.parse::<i64>().ok()?)?;
    }
    Some((if negative { -minor } else { minor }, direction))
}

/// The currency an amount cell names beside its number: a code (`EUR 9,90`,
/// `9.90 GBP`) or a symbol only one currency uses (`€`, `£`, `₹`, `₩`).
/// `$` and `¥` are several countries' and name none.
pub(crate) fn currency_in_cell(text: &str) -> Option<Currency> {
    let text = text.trim();
    for (symbol, code) in [
        ('€', *b"EUR"),
        ('£', *b"GBP"),
        ('₹', *b"INR"),
        ('₩', *b"KRW"),
    ] {
        if text.contains(symbol) {
            return Some(Currency(code));
        }
    }
    let is_code = |w: &str| w.len() == 3 && w.bytes().all(|b| b.is_ascii_uppercase());
    let first = text.split(|c: char| !c.is_alphabetic()).next()?;
    let last = text.rsplit(|c: char| !c.is_alphabetic()).next()?;
    [first, last]
        .into_iter()
        .find(|w| is_code(w))
        .and_then(Currency::parse)
}

/// Drops currency symbols, codes and spaces around a number (`-$15.49`,
/// `EUR 9,90`, `30.00 CR`). Only at the ends, and only words that are a
/// currency code (three capitals) or `CR`/`DR`: any other letters make the
/// cell no number, so `-12abc` is refused rather than read as 12.
fn trim_decoration(text: &str) -> Option<(&str, Option<Direction>)> {
    let is_symbol = |c: char| c.is_whitespace() || matches!(c, '$' | '€' | '£' | '¥' | '₩' | '₹');
    let mut direction = None;
    let mut rest = text.trim_matches(is_symbol);
    // At most one word at each end: `EUR 9,90`, `9,90 EUR`, `30.00 CR`.
    let head_end = rest
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(rest.len());
    let head = &rest[..head_end];
    if !head.is_empty() {
        direction = direction.or(word(head)?);
        rest = rest[head_end..].trim_matches(is_symbol);
    }
    let tail_start = rest.rfind(|c: char| !c.is_alphabetic()).map_or(0, |i| {
        i + rest[i..].chars().next().map_or(1, char::len_utf8)
    });
    let tail = &rest[tail_start..];
    if !tail.is_empty() {
        direction = direction.or(word(tail)?);
        rest = rest[..tail_start].trim_matches(is_symbol);
    }
    Some((rest, direction))
}

/// A word allowed beside an amount: `Some(None)` for a currency code,
/// `Some(Some(_))` for `CR`/`DR`, `None` for anything else.
fn word(word: &str) -> Option<Option<Direction>> {
    match word {
        "CR" | "Cr" | "cr" => Some(Some(Direction::Credit)),
        "DR" | "Dr" | "dr" => Some(Some(Direction::Debit)),
        _ if word.len() == 3 && word.bytes().all(|b| b.is_ascii_uppercase()) => Some(None),
        _ => None,
    }
}

/// The units before the decimal mark, with thousands separators checked to
/// sit every three digits: with the mark guessed wrong, `12,99` must fail
/// rather than read as 1299.
fn whole_digits(text: &str, mark: DecimalMark) -> Option<i64> {
    let is_group =
        |c: char| c == mark.group_char() || matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\'' | '’');
    let mut groups = text.split(is_group);
    let first = groups.next().unwrap_or("");
    let mut digits = String::with_capacity(text.len());
    digits.push_str(first);
    let mut grouped = false;
    for group in groups {
        if group.len() != 3 {
            return None;
        }
        digits.push_str(group);
        grouped = true;
    }
    if (grouped && !(1..=3).contains(&first.len()))
        || digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_currency_has_iso_4217s_minor_unit() {
        // Those the old hand-written table missed among them.
        let cases = [
            ("USD", 2),
            ("EUR", 2),
            ("JPY", 0),
            ("BIF", 0),
            ("DJF", 0),
            ("GNF", 0),
            ("KMF", 0),
            ("RWF", 0),
            ("VUV", 0),
            ("XPF", 0),
            ("BHD", 3),
            ("TND", 3),
            ("CLF", 4),
            ("XXX", 2),
            ("QQQ", 2),
        ];
        for (code, decimals) in cases {
            let decimals_of = Currency::parse(code).map(Currency::decimals);
            assert_eq!(decimals_of, Some(decimals), "{code}");
        }
        assert_eq!(Money::new(1500, Currency(*b"BIF")).decimal(), "1500");
    }

    #[test]
    fn amounts_parse_to_minor_units() {
        let cases: &[(&str, DecimalMark, u32, Option<i64>)] = &[
            ("15.49", DecimalMark::Point, 2, Some(1549)),
            ("-15.49", DecimalMark::Point, 2, Some(-1549)),
            ("(15.49)", DecimalMark::Point, 2, Some(-1549)),
            ("15.49-", DecimalMark::Point, 2, Some(-1549)),
            ("+12", DecimalMark::Point, 2, Some(1200)),
            ("$1,234.56", DecimalMark::Point, 2, Some(123_456)),
            ("1.234,56 €", DecimalMark::Comma, 2, Some(123_456)),
            ("-12,99", DecimalMark::Comma, 2, Some(-1299)),
            ("1 234,5", DecimalMark::Comma, 2, Some(123_450)),
            ("EUR -9,9", DecimalMark::Comma, 2, Some(-990)),
            ("1500", DecimalMark::Point, 0, Some(1500)),
            ("1.500", DecimalMark::Point, 3, Some(1500)),
            ("2.50", DecimalMark::Point, 2, Some(250)),
            ("2.500", DecimalMark::Point, 2, Some(250)),
            // Wrong mark: must fail, not read 12,99 as 1299.
            ("12,99", DecimalMark::Point, 2, None),
            ("1.234", DecimalMark::Point, 2, None),
            ("", DecimalMark::Point, 2, None),
            ("-", DecimalMark::Point, 2, None),
            ("1.2.3", DecimalMark::Point, 2, None),
            ("12a34", DecimalMark::Point, 2, None),
            ("USD 12.00", DecimalMark::Point, 2, Some(1200)),
            ("-$15.49", DecimalMark::Point, 2, Some(-1549)),
            ("99999999999999999999", DecimalMark::Point, 2, None),
            // Issue 42: letters that are no currency code make no number.
            ("-12abc", DecimalMark::Point, 2, None),
            ("12 dollars", DecimalMark::Point, 2, None),
            ("30.00 CR", DecimalMark::Point, 2, Some(3000)),
            ("9,90 EUR", DecimalMark::Comma, 2, Some(990)),
        ];
        for (text, mark, decimals, want) in cases {
            assert_eq!(parse_amount(text, *mark, *decimals), *want, "{text:?}");
        }
    }

    #[test]
    fn cr_and_dr_say_which_way_the_money_went() {
        type Parsed = Option<(i64, Option<Direction>)>;
        let cases: &[(&str, Parsed)] = &[
            ("30.00 CR", Some((3000, Some(Direction::Credit)))),
            ("30.00CR", Some((3000, Some(Direction::Credit)))),
            ("CR 30.00", Some((3000, Some(Direction::Credit)))),
            ("12.50 DR", Some((1250, Some(Direction::Debit)))),
            ("$12.50", Some((1250, None))),
            ("12.50 XY", None),
        ];
        for (text, want) in cases {
            assert_eq!(
                parse_marked_amount(text, DecimalMark::Point, 2),
                *want,
                "{text:?}"
            );
        }
    }

    #[test]
    fn decimal_mark_is_guessed_from_the_cells() {
        assert_eq!(
            guess_mark(["-12,99", "3,50", "1.200,00"], false),
            DecimalMark::Comma
        );
        assert_eq!(guess_mark(["-12.99", "1,200.00"], true), DecimalMark::Point);
        assert_eq!(guess_mark(["12", "3"], true), DecimalMark::Comma);
        assert_eq!(guess_mark(["12", "3"], false), DecimalMark::Point);
    }

    #[test]
    fn money_formats_exactly() {
        let usd = Currency::parse("usd");
        assert_eq!(usd.map(|c| c.code().to_owned()).as_deref(), Some("USD"));
        let Some(usd) = usd else { return };
        assert_eq!(Money::new(1549, usd).to_string(), "15.49 USD");
        assert_eq!(Money::new(-5, usd).decimal(), "-0.05");
        assert_eq!(Money::new(1500, Currency(*b"JPY")).decimal(), "1500");
        assert_eq!(Money::new(1500, Currency(*b"KWD")).decimal(), "1.500");
        assert_eq!(format!("{:?}", Money::new(1549, usd)), "Money(USD, ..)");
        assert!(Currency::parse("US").is_none());
        assert!(Currency::parse("U$D").is_none());
    }
}
