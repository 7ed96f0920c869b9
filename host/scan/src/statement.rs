//! One exported statement, read: its transactions, normalised so that money
//! out is a positive charge whatever the bank's sign convention, and the
//! lines that could not be read, by number only.

use std::fmt;
use std::path::Path;

use chrono::NaiveDate;
use serde::Serialize;

use crate::columns::ColumnMap;
use crate::error::{HeaderSeen, ScanError};
use crate::money::{Currency, Money};
use crate::{camt, csv_statement, encoding, ofx};

/// How to read statements whose format does not say everything.
#[derive(Clone, Debug, Default)]
pub struct ScanOptions {
    /// Explicit CSV columns, for a bank whose export this crate does not
    /// know; used instead of header recognition. See [`crate::parse_columns`].
    pub columns: Option<ColumnMap>,
    /// A strftime date format for CSV dates (`%d/%m/%Y`), replacing the
    /// layout's own: American Express UK writes day-first under the same
    /// header as the US site. Explicit columns default to `%Y-%m-%d`.
    pub date_format: Option<String>,
    /// The currency of amounts when the statement does not say
    /// (no currency column, no OFX `CURDEF`); otherwise the layout's own
    /// (USD for the US banks), else ISO 4217's `XXX`.
    pub currency: Option<Currency>,
}

impl ScanOptions {
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
    /// ISO 20022 CAMT.053 bank-to-customer statement.
    Camt053,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Format::Csv { layout } => write!(f, "CSV ({layout})"),
            Format::Ofx1 => f.write_str("OFX 1.x"),
            Format::Ofx2 => f.write_str("OFX 2.x"),
            Format::Qfx => f.write_str("QFX"),
            Format::Camt053 => f.write_str("CAMT.053"),
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
            .finish()
    }
}

/// Reads a statement file. The file is read once, into memory, and nothing
/// of it is written anywhere.
pub fn read_statement(path: &Path, options: &ScanOptions) -> Result<Statement, ScanError> {
    let bytes = std::fs::read(path).map_err(|source| ScanError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    read_statement_bytes(&name, &bytes, options)
}

/// Reads a statement already in memory; `name` is used in skip records and
/// errors (and its `.qfx` extension marks Quicken's flavour).
pub fn read_statement_bytes(
    name: &str,
    bytes: &[u8],
    options: &ScanOptions,
) -> Result<Statement, ScanError> {
    options.validate()?;
    if let Some(document) = document_kind(bytes) {
        return Err(ScanError::UnknownFormat {
            name: name.to_owned(),
            header: HeaderSeen::Document(document),
        });
    }
    let text = encoding::decode(bytes);
    let quicken = name.to_ascii_lowercase().ends_with(".qfx") || text.contains("<INTU.BID>");
    match sniff(&text) {
        Sniffed::Ofx1 => Ok(ofx::read_sgml(name, &text, options, quicken)),
        Sniffed::Ofx2 => ofx::read_xml(name, &text, options, quicken),
        Sniffed::Camt053 => camt::read(name, &text, options),
        Sniffed::OtherMarkup => Err(ScanError::UnknownFormat {
            name: name.to_owned(),
            header: HeaderSeen::Nothing,
        }),
        Sniffed::Csv => csv_statement::read(name, &text, options),
    }
}

/// The documents banks offer beside their exports, by their first bytes:
/// read as text they would only make a confusing "unknown header" error.
fn document_kind(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"%PDF") {
        Some("a PDF")
    } else if bytes.starts_with(b"PK\x03\x04") {
        Some("an Excel workbook (or another zip file)")
    } else if bytes.starts_with(b"\xD0\xCF\x11\xE0") {
        Some("an old Excel workbook (.xls)")
    } else {
        None
    }
}

enum Sniffed {
    Ofx1,
    Ofx2,
    Camt053,
    OtherMarkup,
    Csv,
}

/// Tells the formats apart by their first few kilobytes: each XML or SGML
/// format announces itself early, and anything else is taken for a CSV.
fn sniff(text: &str) -> Sniffed {
    // Enough for any OFX header block or XML prologue; a whole statement
    // need not be scanned to know what it is.
    const SNIFF_BYTES: usize = 4096;
    let mut end = text.len().min(SNIFF_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = text[..end].trim_start();
    let upper = head.to_ascii_uppercase();
    if upper.starts_with("OFXHEADER:") {
        return Sniffed::Ofx1;
    }
    if upper.contains("<?OFX") {
        return Sniffed::Ofx2;
    }
    if upper.contains("CAMT.053") || head.contains("<BkToCstmrStmt") {
        return Sniffed::Camt053;
    }
    if upper.contains("<OFX>") {
        // OFX without its header block: XML if it declares itself so, else
        // the tolerant SGML reader, which also copes with well-formed tags.
        return if upper.starts_with("<?XML") {
            Sniffed::Ofx2
        } else {
            Sniffed::Ofx1
        };
    }
    if head.starts_with('<') {
        return Sniffed::OtherMarkup;
    }
    Sniffed::Csv
}
