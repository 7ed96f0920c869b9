//! One exported statement, read: its transactions, normalised so that money
//! out is a positive charge whatever the bank's sign convention, and the
//! lines that could not be read, by number only.

use std::fmt;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use chrono::NaiveDate;
use serde::Serialize;

use crate::columns::ColumnMap;
use crate::error::{HeaderSeen, ScanError};
use crate::inert::inert;
use crate::money::{Currency, Money};
use crate::source::Source;
use crate::{camt, csv_statement, encoding, ofx};

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

/// Reads a statement file, at most [`ScanOptions::max_bytes`] of it, and
/// only a regular file: a FIFO or a device (`/dev/zero`) may never end.
/// Nothing of it is written anywhere.
pub fn read_statement(path: &Path, options: &ScanOptions) -> Result<Statement, ScanError> {
    let unreadable = |source| ScanError::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    // Asked of the path first, because opening a FIFO blocks until someone
    // writes to it; then of the open file, so that what is read is what
    // was checked.
    // A directory is left to the read, whose own error ("Is a directory")
    // says it best.
    let refuse = |kind: std::fs::FileType| -> Result<(), ScanError> {
        if kind.is_file() || kind.is_dir() {
            Ok(())
        } else {
            Err(ScanError::NotAFile {
                path: path.to_path_buf(),
                what: not_a_file(&kind),
            })
        }
    };
    refuse(std::fs::metadata(path).map_err(unreadable)?.file_type())?;
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let metadata = file.metadata().map_err(unreadable)?;
    refuse(metadata.file_type())?;
    options.validate()?;
    let limit = options.max_bytes();
    if metadata.len() > limit {
        return Err(ScanError::TooLarge {
            name: inert(&name).into_owned(),
            limit,
        });
    }
    let mut head = Vec::with_capacity(HEAD_BYTES);
    (&file)
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(unreadable)?;
    if document_kind(&head).is_some() || !matches!(sniff(&encoding::decode(&head)), Sniffed::Csv) {
        // Markup is read whole, within the limit: its readers need the
        // text, and no bank writes years of OFX or CAMT into one file.
        let mut bytes = Vec::new();
        file.seek(SeekFrom::Start(0)).map_err(unreadable)?;
        // One byte past the limit tells "exactly the limit" from "more".
        file.take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
        return read_statement_bytes(&name, &bytes, options);
    }
    // A CSV is read as a stream, twice, and never held: memory grows with
    // the transactions kept, not with the file.
    file.seek(SeekFrom::Start(0)).map_err(unreadable)?;
    let detected = encoding::detect_stream(&head, (&file).take(limit)).map_err(unreadable)?;
    let name = inert(&name);
    let source = Source::file(&file, path, detected, limit);
    finish(&name, csv_statement::read(&name, &source, options)?)
}

/// Bytes read first from a file, to tell its format: as much as [`sniff`]
/// looks at, and room for a UTF-16 file's wider characters.
const HEAD_BYTES: usize = 8192;

fn not_a_file(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// Reads a statement already in memory; `name` is used in skip records and
/// errors (and its `.qfx` extension marks Quicken's flavour).
pub fn read_statement_bytes(
    name: &str,
    bytes: &[u8],
    options: &ScanOptions,
) -> Result<Statement, ScanError> {
    options.validate()?;
    // A file name can hold escape sequences as well as a descriptor can.
    let name = inert(name);
    let name = name.as_ref();
    let limit = options.max_bytes();
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(ScanError::TooLarge {
            name: name.to_owned(),
            limit,
        });
    }
    finish(name, read_text(name, bytes, options)?)
}

/// What every statement goes through once read: a currency it never says
/// is asked for, and every descriptor is made inert.
fn finish(name: &str, mut statement: Statement) -> Result<Statement, ScanError> {
    // A total in "XXX" is a table nobody can act on, and guessing the
    // currency would make it confidently wrong: the person says it.
    if let Some(first) = statement
        .transactions
        .iter()
        .find(|t| t.amount.currency == Currency::UNKNOWN)
    {
        return Err(ScanError::Ambiguous {
            name: name.to_owned(),
            what: format!(
                "it does not say the currency of its amounts (line {} is the first)",
                first.line
            ),
            flag: "--currency (e.g. --currency EUR)".to_owned(),
        });
    }
    for transaction in &mut statement.transactions {
        if let std::borrow::Cow::Owned(safe) = inert(&transaction.description) {
            transaction.description = safe;
        }
    }
    Ok(statement)
}

fn read_text(name: &str, bytes: &[u8], options: &ScanOptions) -> Result<Statement, ScanError> {
    if let Some(document) = document_kind(bytes) {
        return Err(ScanError::UnknownFormat {
            name: name.to_owned(),
            header: HeaderSeen::Document(document),
        });
    }
    let head = encoding::decode(bytes.get(..HEAD_BYTES).unwrap_or(bytes));
    if matches!(sniff(&head), Sniffed::Csv) {
        let source = Source::bytes(bytes, encoding::detect(bytes));
        return csv_statement::read(name, &source, options);
    }
    let text = encoding::decode(bytes);
    let quicken = name.to_ascii_lowercase().ends_with(".qfx") || text.contains("<INTU.BID>");
    match sniff(&text) {
        Sniffed::Ofx1 => ofx::read_sgml(name, &text, options, quicken),
        Sniffed::Ofx2 => ofx::read_xml(name, &text, options, quicken),
        Sniffed::Camt(format) => camt::read(name, &text, options, format),
        Sniffed::OtherMarkup => Err(ScanError::UnknownFormat {
            name: name.to_owned(),
            header: HeaderSeen::Nothing,
        }),
        Sniffed::Csv => {
            let source = Source::bytes(bytes, encoding::detect(bytes));
            csv_statement::read(name, &source, options)
        }
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
    Camt(Format),
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
        // ANZ writes an OFX 2 header over an OFX 1 body (leaves left
        // unclosed); the body decides, since downloading again cannot help.
        return if ofx::sgml_body(text) {
            Sniffed::Ofx1
        } else {
            Sniffed::Ofx2
        };
    }
    let camt = [
        ("CAMT.052", "<BkToCstmrAcctRpt", Format::Camt052),
        ("CAMT.053", "<BkToCstmrStmt", Format::Camt053),
        ("CAMT.054", "<BkToCstmrDbtCdtNtfctn", Format::Camt054),
    ];
    for (namespace, root, format) in camt {
        if upper.contains(namespace) || head.contains(root) {
            return Sniffed::Camt(format);
        }
    }
    if upper.contains("<OFX>") {
        // OFX without its header block: XML if it declares itself so, else
        // the tolerant SGML reader, which also copes with well-formed tags.
        return if upper.starts_with("<?XML") && !ofx::sgml_body(text) {
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
