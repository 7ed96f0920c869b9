//! Reading a CSV export: find the header line (some banks put a summary
//! block above it), pick the layout it belongs to, or the caller's explicit
//! columns, and turn each row into a transaction with money out positive.
//!
//! Rows are read twice, streaming from the [`Source`], and never held: once
//! for what the file as a whole decides (the decimal mark, the order of day
//! and month, the currency), once to turn each into a transaction.

use chrono::NaiveDate;

mod evidence;

use crate::columns::{AmountColumns, ChargeSign, ColumnMap};
use crate::csv_layouts::{self, Amount, Layout, same_header};
use crate::dates::parse_date;
use crate::error::{HeaderSeen, ScanError};
use crate::money::{
    Currency, DecimalMark, Direction, Money, guess_mark, parse_amount, parse_marked_amount,
};
use crate::source::Source;
use crate::statement::{Format, ScanOptions, SkipReason, Skipped, Statement, Transaction};
use evidence::{
    CurrencyEvidence, DATE_SAMPLE_ROWS, DateEvidence, SignCount, date_shape, settle_date_order,
};

/// How far down to look for the header: Bank of America's checking export
/// has a seven-line balance summary above it; thirty leaves room for others
/// without reading a whole headerless file twice.
const HEADER_SEARCH_RECORDS: usize = 30;

/// Rows sampled to guess a generic file's decimal mark: enough to outvote a
/// few whole-number amounts, few enough to cost nothing.
const MARK_SAMPLE_ROWS: usize = 200;

/// Separators tried, in order: banks write commas, or semicolons where the
/// comma is the decimal mark, and the odd tab.
const DELIMITERS: [u8; 3] = [b',', b';', b'\t'];

/// Explicit columns with no row to read a date from: ISO, the one order
/// nobody misreads.
const DEFAULT_DATE_FORMAT: &str = "%Y-%m-%d";

/// A layout with its columns found in this file's header.
struct Resolved {
    label: String,
    date: Vec<usize>,
    date_formats: Vec<String>,
    description: Vec<usize>,
    amount: ResolvedAmount,
    currency: Option<usize>,
    original: Option<(usize, usize)>,
    fallback_currency: Currency,
    ignored_rows: Vec<(usize, &'static [&'static str])>,
    mark: Option<DecimalMark>,
    id: Option<usize>,
    either_date_order: bool,
    /// Explicit columns without `--date-format`: the dates' shape and
    /// order are the rows' to say.
    dates_inferred: bool,
    /// The currency an amount column's header names (`Amount (EUR)`).
    header_currency: Option<Currency>,
}

enum ResolvedAmount {
    Signed(usize, ChargeSign),
    DebitCredit(usize, usize),
}

/// A header line found: which record it is, with what delimiter, and how to
/// read the rows under it.
struct Found {
    delimiter: u8,
    header_index: usize,
    resolved: Resolved,
}

/// Bytes of the text an error about its first line looks at.
const FIRST_LINE_BYTES: usize = 64 * 1024;

pub(crate) fn read(
    name: &str,
    source: &Source<'_>,
    options: &ScanOptions,
) -> Result<Statement, ScanError> {
    let unreadable = |error| source.unreadable(name, error);
    let mut found = None;
    for &delimiter in &DELIMITERS {
        found = find_header(source, delimiter, options).map_err(unreadable)?;
        if found.is_some() {
            break;
        }
    }
    let Some(found) = found else {
        let head = source.head(FIRST_LINE_BYTES).map_err(unreadable)?;
        return Err(not_understood(name, &head, options));
    };
    let Found {
        delimiter,
        header_index,
        resolved,
    } = found;

    let mut resolved = resolved;
    let mut statement = Statement {
        name: name.to_owned(),
        format: Format::Csv {
            layout: resolved.label.clone(),
        },
        transactions: Vec::new(),
        lines_read: 0,
        skipped: Vec::new(),
        notes: Vec::new(),
    };

    // First pass: what the rows decide together.
    let mut samples: Vec<String> = Vec::new();
    let mut date_samples: Vec<String> = Vec::new();
    let mut order = DateEvidence::default();
    let mut signs = SignCount::default();
    let mut currencies = CurrencyEvidence::default();
    for record in reader(source, delimiter)
        .map_err(unreadable)?
        .into_records()
        .skip(header_index + 1)
    {
        let record = match record {
            Ok(record) => record,
            Err(error) if error.is_io_error() => return Err(unreadable(io_error(error))),
            Err(_) => continue,
        };
        if resolved.mark.is_none() && samples.len() < MARK_SAMPLE_ROWS {
            samples.extend(
                amount_cells(&resolved.amount)
                    .into_iter()
                    .filter_map(|i| record.get(i).map(str::to_owned)),
            );
        }
        if let ResolvedAmount::Signed(index, ChargeSign::FromRows) = resolved.amount
            && let Some(cell) = record.get(index)
        {
            signs.look_at(cell);
        }
        if resolved.fallback_currency == Currency::UNKNOWN {
            for index in amount_cells(&resolved.amount) {
                if let Some(cell) = record.get(index) {
                    currencies.look_at(cell);
                }
            }
        }
        if let Some(date) = first_filled(&record, &resolved.date) {
            if resolved.dates_inferred && date_samples.len() < DATE_SAMPLE_ROWS {
                date_samples.push(date.to_owned());
            }
            order.look_at(date, line_of(record.position()));
        }
    }
    let mark = match resolved.mark {
        Some(mark) => mark,
        None => guess_mark(samples.iter().map(String::as_str), delimiter == b';'),
    };
    if resolved.dates_inferred {
        resolved.date_formats = match date_shape(&date_samples) {
            Some(shape) => vec![shape],
            None if date_samples.is_empty() => vec![DEFAULT_DATE_FORMAT.to_owned()],
            None => {
                return Err(ScanError::Ambiguous {
                    name: name.to_owned(),
                    what: "its dates are in no shape this reader knows".to_owned(),
                    flag: "--date-format (strftime, e.g. --date-format %d.%m.%Y)".to_owned(),
                });
            }
        };
    }
    if options.date_format.is_none() {
        let was_month_first = resolved.date_formats.iter().any(|f| f.starts_with("%m"));
        settle_date_order(name, &mut resolved, &order, &mut statement.notes)?;
        let now_day_first = resolved.date_formats.iter().any(|f| f.starts_with("%d"));
        // A US layout's dollars came with its US dates: a file that proves
        // day-first came from another country's site (Amex UK, Australia),
        // whose currency the file does not say.
        if was_month_first && now_day_first && options.currency.is_none() {
            resolved.fallback_currency = Currency::UNKNOWN;
        }
    }

    if resolved.fallback_currency == Currency::UNKNOWN
        && let Some((currency, why)) = resolved
            .header_currency
            .map(|c| (c, "the amount column's header names it".to_owned()))
            .or_else(|| currencies.decided())
    {
        resolved.fallback_currency = currency;
        statement
            .notes
            .push(format!("{name}: amounts read as {currency} ({why})"));
    }

    if let ResolvedAmount::Signed(index, ChargeSign::FromRows) = resolved.amount {
        let sign = signs.charge_sign(name)?;
        resolved.amount = ResolvedAmount::Signed(index, sign);
        let which = if sign == ChargeSign::Negative {
            "negative"
        } else {
            "positive"
        };
        statement.notes.push(format!(
            "{name}: money out read as the {which} amounts, the commoner sign ({} of {} rows); charges= in --columns says otherwise",
            signs.negative.max(signs.positive),
            signs.negative + signs.positive
        ));
    }

    // Second pass: each row, straight into a transaction.
    for record in reader(source, delimiter)
        .map_err(unreadable)?
        .into_records()
        .skip(header_index + 1)
    {
        statement.lines_read += 1;
        let (line, outcome) = match record {
            Ok(record) => {
                if record.iter().all(|cell| cell.trim().is_empty()) {
                    continue;
                }
                (line_of(record.position()), row(&record, &resolved, mark))
            }
            Err(error) if error.is_io_error() => return Err(unreadable(io_error(error))),
            Err(error) => (line_of(error.position()), Err(SkipReason::BadRecord)),
        };
        match outcome {
            Ok(Some(read)) => statement.transactions.push(Transaction {
                date: read.date,
                amount: read.amount,
                description: read.description,
                line,
                id: read.id,
            }),
            Ok(None) => {}
            Err(reason) => statement.skipped.push(Skipped {
                file: name.to_owned(),
                line,
                reason,
            }),
        }
    }
    Ok(statement)
}

fn first_filled<'r>(record: &'r csv::StringRecord, columns: &[usize]) -> Option<&'r str> {
    columns
        .iter()
        .filter_map(|&i| record.get(i).map(str::trim))
        .find(|text| !text.is_empty())
}

/// The csv crate's reader over one pass of the text.
fn reader<'s>(
    source: &Source<'s>,
    delimiter: u8,
) -> std::io::Result<csv::Reader<Box<dyn std::io::Read + 's>>> {
    Ok(reader_of(source.open()?, delimiter))
}

fn reader_of<R: std::io::Read>(input: R, delimiter: u8) -> csv::Reader<R> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .buffer_capacity(64 * 1024)
        .from_reader(input)
}

/// The one-based line a record starts on. The source writes every line
/// ending as `\n`, so the csv crate's own count is right.
fn line_of(position: Option<&csv::Position>) -> usize {
    position.map_or(0, |p| usize::try_from(p.line()).unwrap_or(usize::MAX))
}

/// The I/O error inside a csv error, for [`Source::unreadable`].
fn io_error(error: csv::Error) -> std::io::Error {
    match error.into_kind() {
        csv::ErrorKind::Io(error) => error,
        other => std::io::Error::other(format!("{other:?}")),
    }
}

/// The one currency code the amount columns' headers name, as in
/// `Amount (EUR)` or `Betrag in EUR`.
fn header_currency(cells: &[&str], amount: &ResolvedAmount) -> Option<Currency> {
    let mut named = amount_cells(amount).into_iter().flat_map(|i| {
        cells
            .get(i)
            .map(|c| c.split(|ch: char| !ch.is_ascii_alphabetic()))
            .into_iter()
            .flatten()
            .filter(|w| w.len() == 3 && w.bytes().all(|b| b.is_ascii_uppercase()))
            .filter_map(Currency::parse)
    });
    let first = named.next()?;
    named.all(|c| c == first).then_some(first)
}

fn amount_cells(amount: &ResolvedAmount) -> Vec<usize> {
    match amount {
        ResolvedAmount::Signed(i, _) => vec![*i],
        ResolvedAmount::DebitCredit(d, c) => vec![*d, *c],
    }
}

/// Looks for a header line in the first records read with `delimiter`.
fn find_header(
    source: &Source<'_>,
    delimiter: u8,
    options: &ScanOptions,
) -> std::io::Result<Option<Found>> {
    for (index, record) in reader(source, delimiter)?
        .into_records()
        .take(HEADER_SEARCH_RECORDS)
        .enumerate()
    {
        let record = match record {
            Ok(record) => record,
            Err(error) if error.is_io_error() => return Err(io_error(error)),
            Err(_) => continue,
        };
        let cells: Vec<&str> = record.iter().collect();
        if cells.len() < 2 {
            continue;
        }
        let resolved = match &options.columns {
            Some(map) => resolve_map(map, &cells, options),
            None => csv_layouts::recognise(&cells).and_then(|l| resolve_layout(l, &cells, options)),
        };
        if let Some(resolved) = resolved {
            return Ok(Some(Found {
                delimiter,
                header_index: index,
                resolved,
            }));
        }
    }
    Ok(None)
}

fn position(cells: &[&str], name: &str) -> Option<usize> {
    cells.iter().position(|cell| same_header(cell, name))
}

fn resolve_layout(
    layout: &'static Layout,
    cells: &[&str],
    options: &ScanOptions,
) -> Option<Resolved> {
    let find_all = |names: &[&str]| -> Vec<usize> {
        names.iter().filter_map(|n| position(cells, n)).collect()
    };
    let amount = match layout.amount {
        Amount::Signed(column, sign) => ResolvedAmount::Signed(position(cells, column)?, sign),
        Amount::DebitCredit { debit, credit } => {
            ResolvedAmount::DebitCredit(position(cells, debit)?, position(cells, credit)?)
        }
    };
    let header_currency = header_currency(cells, &amount);
    let date_formats = match &options.date_format {
        Some(format) => vec![format.clone()],
        None => layout
            .date_formats
            .iter()
            .map(|f| (*f).to_owned())
            .collect(),
    };
    Some(Resolved {
        label: layout.name.to_owned(),
        date: find_all(layout.date),
        date_formats,
        description: find_all(layout.description),
        amount,
        currency: layout.currency.and_then(|c| position(cells, c)),
        original: layout
            .original
            .and_then(|(a, c)| Some((position(cells, a)?, position(cells, c)?))),
        fallback_currency: options
            .currency
            .or_else(|| layout.default_currency.and_then(Currency::parse))
            .unwrap_or(Currency::UNKNOWN),
        ignored_rows: layout
            .ignored_rows
            .iter()
            .filter_map(|(column, values)| Some((position(cells, column)?, *values)))
            .collect(),
        mark: Some(DecimalMark::Point),
        id: layout.id.and_then(|c| position(cells, c)),
        either_date_order: layout.either_date_order,
        dates_inferred: false,
        header_currency,
    })
}

fn resolve_map(map: &ColumnMap, cells: &[&str], options: &ScanOptions) -> Option<Resolved> {
    let amount = match &map.amount {
        AmountColumns::Signed { column, charges } => {
            ResolvedAmount::Signed(position(cells, column)?, *charges)
        }
        AmountColumns::DebitCredit { debit, credit } => {
            ResolvedAmount::DebitCredit(position(cells, debit)?, position(cells, credit)?)
        }
    };
    let header_currency = header_currency(cells, &amount);
    let currency = match &map.currency {
        Some(column) => Some(position(cells, column)?),
        None => None,
    };
    Some(Resolved {
        label: "explicit columns".to_owned(),
        date: vec![position(cells, &map.date)?],
        date_formats: vec![
            options
                .date_format
                .clone()
                .unwrap_or_else(|| DEFAULT_DATE_FORMAT.to_owned()),
        ],
        dates_inferred: options.date_format.is_none(),
        header_currency,
        description: vec![position(cells, &map.description)?],
        amount,
        currency,
        original: None,
        fallback_currency: options.currency.unwrap_or(Currency::UNKNOWN),
        ignored_rows: Vec::new(),
        mark: None,
        id: None,
        either_date_order: false,
    })
}

/// The error for a CSV whose header was not found: the first line's names
/// (if they look like names), and with explicit columns, the first column
/// that line lacks.
fn not_understood(name: &str, text: &str, options: &ScanOptions) -> ScanError {
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let delimiter = DELIMITERS
        .iter()
        .copied()
        .max_by_key(|d| first_line.bytes().filter(|b| b == d).count())
        .unwrap_or(b',');
    let cells: Vec<String> = reader_of(first_line.as_bytes(), delimiter)
        .records()
        .next()
        .and_then(Result::ok)
        .map(|r| r.iter().map(str::to_owned).collect())
        .unwrap_or_default();
    let header = HeaderSeen::from_cells(cells.iter().map(String::as_str));
    match &options.columns {
        Some(map) => {
            let cells: Vec<&str> = match &header {
                HeaderSeen::Names(names) => names.iter().map(String::as_str).collect(),
                _ => Vec::new(),
            };
            let wanted = [
                Some(&map.date),
                Some(&map.description),
                map.currency.as_ref(),
            ]
            .into_iter()
            .flatten()
            .chain(match &map.amount {
                AmountColumns::Signed { column, .. } => vec![column],
                AmountColumns::DebitCredit { debit, credit } => vec![debit, credit],
            });
            let column = wanted
                .clone()
                .find(|c| position(&cells, c).is_none())
                .or_else(|| wanted.clone().next())
                .cloned()
                .unwrap_or_default();
            ScanError::MissingColumn {
                name: name.to_owned(),
                column,
                header,
            }
        }
        None => ScanError::UnknownFormat {
            name: name.to_owned(),
            header,
        },
    }
}

fn cell(record: &csv::StringRecord, index: usize) -> Result<&str, SkipReason> {
    record
        .get(index)
        .map(str::trim)
        .ok_or(SkipReason::MissingCells)
}

/// A row read.
struct Row {
    date: NaiveDate,
    amount: Money,
    description: String,
    id: Option<String>,
}

/// One data row: `Ok(None)` for a row that moved no money (a balance line,
/// a declined payment), `Err` for one that cannot be read.
fn row(
    record: &csv::StringRecord,
    layout: &Resolved,
    mark: DecimalMark,
) -> Result<Option<Row>, SkipReason> {
    for (index, ignored) in &layout.ignored_rows {
        let value = cell(record, *index)?;
        if ignored.iter().any(|s| s.eq_ignore_ascii_case(value)) {
            return Ok(None);
        }
    }

    let currency = match layout.currency {
        Some(index) => match cell(record, index)? {
            "" => layout.fallback_currency,
            code => Currency::parse(code).ok_or(SkipReason::BadCurrency)?,
        },
        None => layout.fallback_currency,
    };
    let decimals = currency.decimals();
    let parse = |text: &str| parse_amount(text, mark, decimals).ok_or(SkipReason::BadAmount);
    let charge = match layout.amount {
        ResolvedAmount::Signed(index, sign) => {
            let text = cell(record, index)?;
            if text.is_empty() {
                return Ok(None);
            }
            let (number, direction) =
                parse_marked_amount(text, mark, decimals).ok_or(SkipReason::BadAmount)?;
            // `30.00 CR` is money in whichever sign the column gives charges.
            match (direction, sign) {
                (Some(Direction::Credit), _) => -number.abs(),
                (Some(Direction::Debit), _) => number.abs(),
                // Decided from the rows before any row is read.
                (None, ChargeSign::Negative | ChargeSign::FromRows) => -number,
                (None, ChargeSign::Positive) => number,
            }
        }
        ResolvedAmount::DebitCredit(debit, credit) => {
            let (debit, credit) = (cell(record, debit)?, cell(record, credit)?);
            if debit.is_empty() && credit.is_empty() {
                return Ok(None);
            }
            let out = if debit.is_empty() {
                0
            } else {
                parse(debit)?.abs()
            };
            let back = if credit.is_empty() {
                0
            } else {
                parse(credit)?.abs()
            };
            out - back
        }
    };
    let mut amount = Money::new(charge, currency);
    if let Some((amount_index, currency_index)) = layout.original
        && let Some(original) = original_amount(record, amount_index, currency_index, mark)
    {
        amount = Money::new(original.minor.abs() * charge.signum(), original.currency);
    }

    let date_cell = layout
        .date
        .iter()
        .filter_map(|&i| record.get(i).map(str::trim))
        .find(|text| !text.is_empty())
        .ok_or(SkipReason::BadDate)?;
    let date = parse_date(date_cell, &layout.date_formats).ok_or(SkipReason::BadDate)?;

    let description = first_filled(record, &layout.description).ok_or(SkipReason::NoDescription)?;
    let id = layout
        .id
        .and_then(|i| record.get(i))
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned);
    Ok(Some(Row {
        date,
        amount,
        description: description.to_owned(),
        id,
    }))
}

/// The amount in the merchant's currency, when the row has a readable one;
/// otherwise the main amount stands.
fn original_amount(
    record: &csv::StringRecord,
    amount_index: usize,
    currency_index: usize,
    mark: DecimalMark,
) -> Option<Money> {
    let currency = Currency::parse(record.get(currency_index)?)?;
    let minor = parse_amount(record.get(amount_index)?, mark, currency.decimals())?;
    Some(Money::new(minor, currency))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;
    use crate::columns::parse_columns;

    fn read_text(text: &str, options: &ScanOptions) -> Result<Statement, ScanError> {
        let bytes = text.as_bytes();
        read(
            "test.csv",
            &Source::bytes(bytes, crate::encoding::detect(bytes)),
            options,
        )
    }

    #[test]
    fn chase_rows_become_charges() {
        let text = "Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n\
                    01/03/2024,01/04/2024,NETFLIX.COM,Entertainment,Sale,-15.49,\n\
                    01/05/2024,01/06/2024,Payment Thank You,,Payment,500.00,\n\
                    bad,01/06/2024,X,,Sale,-1.00,\n";
        let s = read_text(text, &ScanOptions::default()).unwrap();
        assert_eq!(s.format.to_string(), "CSV (Chase credit card)");
        assert_eq!(s.lines_read, 3);
        assert_eq!(s.transactions.len(), 2);
        assert_eq!(s.transactions[0].amount.to_string(), "15.49 USD");
        assert_eq!(s.transactions[0].line, 2);
        assert_eq!(s.transactions[1].amount.minor, -50000);
        assert_eq!(
            s.skipped,
            vec![Skipped {
                file: "test.csv".into(),
                line: 4,
                reason: SkipReason::BadDate
            }]
        );
    }

    /// Line numbers are the ones an editor shows, whatever the line
    /// endings, with a quoted cell spanning two lines.
    #[test]
    fn lines_are_counted_alike_for_every_line_ending() {
        for ending in ["\n", "\r\n", "\r"] {
            let text = [
                "Transaction Date,Post Date,Description,Category,Type,Amount,Memo",
                "01/03/2024,01/04/2024,\"NETFLIX.COM",
                "LOS GATOS\",Entertainment,Sale,-15.49,",
                "bad,01/06/2024,X,,Sale,-1.00,",
                "01/05/2024,01/06/2024,SPOTIFY,,Sale,-9.99,",
            ]
            .join(ending);
            let s = read_text(&text, &ScanOptions::default()).unwrap();
            let lines: Vec<usize> = s.transactions.iter().map(|t| t.line).collect();
            assert_eq!(lines, [2, 5], "{ending:?}");
            assert_eq!(s.skipped[0].line, 4, "{ending:?}");
        }
    }

    #[test]
    fn summary_block_above_the_header_is_passed_over() {
        let text = "Description,,Summary Amt.\n\
                    Beginning balance as of 01/01/2024,,\"1,000.00\"\n\
                    \n\
                    Date,Description,Amount,Running Bal.\n\
                    01/01/2024,Beginning balance as of 01/01/2024,,\"1,000.00\"\n\
                    01/02/2024,\"HLU*HULU 1234567\",\"-7.99\",\"992.01\"\n";
        let s = read_text(text, &ScanOptions::default()).unwrap();
        assert_eq!(s.lines_read, 2);
        assert_eq!(s.transactions.len(), 1);
        assert_eq!(s.transactions[0].amount.minor, 799);
        assert!(s.skipped.is_empty());
    }

    /// Issue 42: without `charges=`, the commoner sign is money out, said
    /// in a note; as many of each, the scan asks.
    #[test]
    fn the_sign_of_a_charge_is_read_from_the_rows_or_asked_for() {
        let options = ScanOptions {
            columns: Some(parse_columns("date=D,amount=A,description=P").unwrap()),
            ..ScanOptions::default()
        };
        let cases: &[(&str, Option<i64>)] = &[
            (
                "D,P,A\n2024-01-05,Spotify,-10.99\n2024-01-06,Pay,2500.00\n2024-01-07,Cafe,-3.50\n",
                Some(1099),
            ),
            (
                "D,P,A\n2024-01-05,Spotify,10.99\n2024-01-06,Pay,-2500.00\n2024-01-07,Cafe,3.50\n",
                Some(1099),
            ),
            (
                "D,P,A\n2024-01-05,Spotify,-10.99\n2024-01-06,Pay,2500.00\n",
                None,
            ),
        ];
        for (text, want) in cases {
            match (read_text(text, &options), want) {
                (Ok(s), Some(minor)) => {
                    assert_eq!(s.transactions[0].amount.minor, *minor, "{text}");
                    assert!(
                        s.notes[0].contains("money out read as the"),
                        "{:?}",
                        s.notes
                    );
                }
                (Err(e), None) => assert!(e.to_string().contains("charges=negative"), "{e}"),
                (got, _) => unreachable!("{text}: {got:?}"),
            }
        }
    }

    #[test]
    fn explicit_columns_with_semicolons_and_decimal_commas() {
        let options = ScanOptions {
            columns: Some(
                parse_columns("date=Datum,amount=Betrag,description=Empfänger,charges=negative")
                    .unwrap(),
            ),
            date_format: Some("%d.%m.%Y".into()),
            currency: Currency::parse("EUR"),
            max_bytes: None,
        };
        let text = "Konto;123\nDatum;Empfänger;Betrag\n05.01.2024;Spotify AB;-10,99\n06.01.2024;Gehalt;2.500,00\n";
        let s = read_text(text, &options).unwrap();
        assert_eq!(s.transactions.len(), 2);
        assert_eq!(s.transactions[0].amount.to_string(), "10.99 EUR");
        assert_eq!(s.transactions[1].amount.minor, -250_000);
    }

    #[test]
    fn debit_and_credit_columns() {
        let text = "Transaction Date,Posted Date,Card No.,Description,Category,Debit,Credit\n\
                    2024-01-02,2024-01-03,1234,PEACOCK,Entertainment,5.99,\n\
                    2024-01-04,2024-01-05,1234,REFUND,Other,,5.99\n";
        let s = read_text(text, &ScanOptions::default()).unwrap();
        let amounts: Vec<i64> = s.transactions.iter().map(|t| t.amount.minor).collect();
        assert_eq!(amounts, vec![599, -599]);
    }

    #[test]
    fn original_currency_is_kept_with_the_sign_of_the_main_amount() {
        let text = "Transaction ID,Date,Time,Type,Name,Emoji,Category,Amount,Currency,Local amount,Local currency,Notes and #tags,Address,Receipt,Description\n\
                    tx_1,03/01/2024,10:00:00,Card payment,OpenAI,,Shopping,-16.12,GBP,-20.00,USD,,,,OPENAI *CHATGPT SUBSCR\n";
        let s = read_text(text, &ScanOptions::default()).unwrap();
        assert_eq!(s.transactions[0].amount.to_string(), "20.00 USD");
        assert_eq!(s.transactions[0].description, "OPENAI *CHATGPT SUBSCR");
    }

    #[test]
    fn unknown_headers_are_named_but_data_never_is() {
        let unknown = read_text(
            "Date,Description,Amount\n2024-01-01,X,1\n",
            &ScanOptions::default(),
        );
        let Err(ScanError::UnknownFormat { header, .. }) = unknown else {
            panic!("{unknown:?}")
        };
        assert_eq!(
            header,
            HeaderSeen::Names(vec!["Date".into(), "Description".into(), "Amount".into()])
        );
        let headerless = read_text("01/02/2024,NETFLIX.COM,-15.49\n", &ScanOptions::default());
        let Err(error) = headerless else { panic!() };
        let shown = format!("{error} {error:?}");
        assert!(
            !shown.contains("NETFLIX") && !shown.contains("15.49"),
            "{shown}"
        );

        let options = ScanOptions {
            columns: Some(parse_columns("date=Posted,amount=Amount,description=Payee").unwrap()),
            ..ScanOptions::default()
        };
        let missing = read_text("Posted,Amount,Memo\n", &options);
        let Err(ScanError::MissingColumn { column, .. }) = missing else {
            panic!("{missing:?}")
        };
        assert_eq!(column, "Payee");
    }
}
