//! One exported statement, read: its transactions, normalised so that money
//! out is a positive charge whatever the bank's sign convention, and the
//! lines that could not be read, by number only.

use std::fmt;

use chrono::NaiveDate;
use serde::Serialize;

use crate::columns::ColumnMap;
use crate::error::ScanError;
use crate::money::{Currency, Money};

/// The default `--max-bytes`: 64 MiB. Ten years of a busy card's CSV are
/// under 10 MB; a file this large is a mistake (a disk image, a log), and
/// reading it whole would take its size several times over in memory.
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// How to read statements whose format does not say everything.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// Explicit CSV columns, for a bank whose export this crate does not
    /// know; used instead of header recognition. See [`crate::parse_columns`].
    pub columns: Option<ColumnMap>,
    /// A strftime date format for CSV dates (`%d/%m/%Y`), replacing the
    /// layout's own: American Express UK writes day-first under the same
    /// header as the US site. Without it, explicit columns' dates are read
    /// in the shape and order their rows prove (a day above 12), or the
    /// read stops and asks for it.
    pub date_format: Option<String>,
    /// The currency of amounts when the statement does not say
    /// (no currency column, no OFX `CURDEF`); otherwise the layout's own
    /// (USD for the US banks) or the one the amounts are written with
    /// (`12,99 €`); with none of these the read stops and asks for it.
    pub currency: Option<Currency>,
    /// The largest statement read, in bytes; `None` for
    /// [`DEFAULT_MAX_BYTES`]. A larger file is refused, not read in part.
    pub max_bytes: Option<u64>,
}

impl ScanOptions {
    /// The size limit in force.
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes.unwrap_or(DEFAULT_MAX_BYTES)
    }

    /// Checks the options before any file is read, so a bad date format is
    /// reported once rather than as every line skipped.
    pub fn validate(&self) -> Result<(), ScanError> {
        if let Some(format) = &self.date_format {
            let broken = chrono::format::StrftimeItems::new(format)
                .any(|item| matches!(item, chrono::format::Item::Error));
            if broken || format.trim().is_empty() {
                return Err(ScanError::BadDateFormat {
                    format: format.clone(),
                });
            }
        }
        Ok(())
    }
}

/// Which format a statement was read as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// A CSV export, with the name of the layout recognised (`"Chase credit
    /// card"`), or `"explicit columns"`.
    Csv {
        /// The layout's name.
        layout: String,
    },
    /// OFX 1.x: SGML, leaf tags left unclosed.
    Ofx1,
    /// OFX 2.x: XML.
    Ofx2,
    /// Quicken's QFX: OFX (either version) with Intuit's tags.
    Qfx,
    /// ISO 20022 CAMT.052 account report (intraday or end of day).
    Camt052,
    /// ISO 20022 CAMT.053 bank-to-customer statement.
    Camt053,
    /// ISO 20022 CAMT.054 debit/credit notification.
    Camt054,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Csv { layout } => write!(f, "CSV ({layout})"),
            Format::Ofx1 => f.write_str("OFX 1.x"),
            Format::Ofx2 => f.write_str("OFX 2.x"),
            Format::Qfx => f.write_str("QFX"),
            Format::Camt052 => f.write_str("CAMT.052"),
            Format::Camt053 => f.write_str("CAMT.053"),
            Format::Camt054 => f.write_str("CAMT.054"),
        }
    }
}

/// One line of a statement: money that moved.
#[derive(Clone, PartialEq, Eq)]
pub struct Transaction {
    /// When it happened (the transaction date where the export has one,
    /// else the posting date): the merchant's billing day is what a cadence
    /// is measured on.
    pub date: NaiveDate,
    /// Positive for money out (a charge), negative for money in (a refund,
    /// a payment, a salary), whatever sign the bank used.
    pub amount: Money,
    /// The descriptor as the statement gives it, trimmed.
    pub description: String,
    /// One-based line where it was found: the CSV row, or the line where an
    /// OFX or CAMT entry starts.
    pub line: usize,
    /// The bank's own id for it, where the export has one (OFX `FITID`,
    /// CAMT `AcctSvcrRef`, Monzo's `Transaction ID`): two identical
    /// charges on one day with two ids are two charges, and the same id
    /// in two overlapping exports is one.
    pub id: Option<String>,
}

/// Redacted: descriptor and amount are the private part.
impl fmt::Debug for Transaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Transaction {{ line: {}, .. }}", self.line)
    }
}

/// Why a line was skipped. Says what was wrong, never what the line said.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// Fewer cells than the header promised.
    MissingCells,
    /// The date cell is not a date in the expected format.
    BadDate,
    /// The amount cell is not a number (or has more decimals than its
    /// currency).
    BadAmount,
    /// The currency cell is not an ISO 4217 code.
    BadCurrency,
    /// No description at all: nothing to recognise it by.
    NoDescription,
    /// The CSV reader could not split the line (an unclosed quote).
    BadRecord,
    /// Dated long after every other line (a typo such as 2099): left out,
    /// so that it neither marks every subscription ended nor moves "as of".
    FarAhead,
}

/// In words, for a person: what was wrong, never what the line said.
impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::MissingCells => "fewer cells than the header",
            SkipReason::BadDate => "unreadable date",
            SkipReason::BadAmount => "unreadable amount",
            SkipReason::BadCurrency => "unknown currency code",
            SkipReason::NoDescription => "no description",
            SkipReason::BadRecord => "cannot be split into cells",
            SkipReason::FarAhead => "dated long after every other line",
        })
    }
}

/// A line that could not be read: where, and why, and nothing of what it said.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The statement's name.
    pub file: String,
    /// One-based line number.
    pub line: usize,
    /// What was wrong with it.
    pub reason: SkipReason,
}

/// A statement, read.
#[derive(Clone)]
pub struct Statement {
    /// Its name (the file name given), for skip records and summaries.
    pub name: String,
    /// The format it was read as.
    pub format: Format,
    /// Its transactions, in file order.
    pub transactions: Vec<Transaction>,
    /// Data lines seen (CSV rows after the header) or entries (OFX
    /// `STMTTRN`, CAMT `Ntry`), whether kept, skipped or not transactions
    /// at all (a balance line, a declined card payment).
    pub lines_read: usize,
    /// Lines that could not be read.
    pub skipped: Vec<Skipped>,
    /// What the reader decided that the file did not say outright (the
    /// order of day and month, from a day above 12), for the report to
    /// say above its table. File names and line numbers only.
    pub notes: Vec<String>,
}

/// Redacted: counts only.
impl fmt::Debug for Statement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Statement")
            .field("name", &self.name)
            .field("format", &self.format)
            .field("transactions", &self.transactions.len())
            .field("lines_read", &self.lines_read)
            .field("skipped", &self.skipped)
            .field("notes", &self.notes)
            .finish()
    }
}
