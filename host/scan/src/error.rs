//! What can stop a statement from being read at all. A bad line is not among
//! them: it is skipped and counted ([`crate::Skipped`]), because one odd row
//! should not hide a year of charges.
//!
//! No error carries a transaction: file names, header names and line numbers
//! only. A header line is shown only when none of its cells has a digit in
//! it, so a headerless file's first row (a date, an amount) never lands in a
//! message.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::inert::echo;

/// Header names an error repeats at most; a "header" of thousands of cells
/// is not one a person needs to see whole.
const MAX_NAMES_SHOWN: usize = 20;

/// The formats this crate reads, for the "unknown format" message.
pub const KNOWN_FORMATS: &str = "CSV from Chase, Bank of America, American Express, Capital One, \
Monzo, Revolut or N26 (recognised by the header line), any CSV with explicit columns, \
OFX 1.x (SGML), OFX 2.x (XML), QFX, ISO 20022 CAMT.053, CAMT.052 and CAMT.054";

/// Why a statement could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The file could not be opened or read.
    #[error("cannot read {}: {source}", shown(path))]
    Unreadable {
        /// The file asked for.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// Not a format this crate knows.
    #[error("{name}: not a statement format this reads ({header}); known: {KNOWN_FORMATS}")]
    UnknownFormat {
        /// The statement's file name.
        name: String,
        /// What its first line looked like.
        header: HeaderSeen,
    },

    /// A CSV whose header lacks a column named in the explicit column map.
    #[error("{name}: no column {column:?} in the header ({header})")]
    MissingColumn {
        /// The statement's file name.
        name: String,
        /// The column that was asked for.
        column: String,
        /// What its header looked like.
        header: HeaderSeen,
    },

    /// An XML statement (OFX 2.x, CAMT.053) whose markup breaks off; the line
    /// is where the XML reader gave up.
    #[error("{name}: the XML is broken near line {line}")]
    BrokenXml {
        /// The statement's file name.
        name: String,
        /// One-based line number.
        line: usize,
    },

    /// Not a regular file: a FIFO, a device, a socket or a directory. A
    /// statement is read whole, and a pipe or `/dev/zero` never ends.
    #[error(
        "{}: {what}, not a statement file: save the export to a file and scan that",
        shown(path)
    )]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is instead: "a FIFO", "a device", "a directory".
        what: &'static str,
    },

    /// Larger than the limit (`--max-bytes`): years of a busy account's
    /// exports are a few megabytes, so this is most likely not a statement.
    #[error(
        "{name}: larger than {limit} bytes; if it really is one statement, raise the limit with --max-bytes"
    )]
    TooLarge {
        /// The statement's file name.
        name: String,
        /// The limit in bytes.
        limit: u64,
    },

    /// A markup statement that stops before its last element closes: a
    /// download cut short. Reading the part that arrived would show totals
    /// that look whole and are not.
    #[error(
        "{name}: the file ends early, at line {line}, inside an unclosed element: download the statement again"
    )]
    Truncated {
        /// The statement's file name.
        name: String,
        /// One-based line number of the end of the file.
        line: usize,
    },

    /// Markup nested deeper than any statement format is.
    #[error("{name}: elements nested more than {limit} deep at line {line}: not a bank statement")]
    TooDeep {
        /// The statement's file name.
        name: String,
        /// One-based line number where the limit was passed.
        line: usize,
        /// The limit.
        limit: usize,
    },

    /// Something the statement does not settle and a flag does: the order
    /// of day and month when no date has a day above 12, the sign of a
    /// charge when money in and out are as many.
    #[error("{name}: {what}; say which with {flag}")]
    Ambiguous {
        /// The statement's file name.
        name: String,
        /// What is undecided, with the choices.
        what: String,
        /// The flag that settles it, with an example.
        flag: String,
    },

    /// A `--columns` spec that does not parse.
    #[error("bad column map: {reason} (expected e.g. date=Posted,amount=Amount,description=Payee)")]
    BadColumns {
        /// What is wrong with it.
        reason: String,
    },

    /// A strftime date format that chrono cannot use.
    #[error("bad date format {format:?}: use strftime, e.g. %d/%m/%Y")]
    BadDateFormat {
        /// The format given.
        format: String,
    },

    /// A currency that is not three letters.
    #[error("bad currency {code:?}: use an ISO 4217 code such as EUR")]
    BadCurrency {
        /// The code given.
        code: String,
    },
}

/// What kind of failure an error is, for the caller's exit code: whether the
/// file could not be read at all, was read and not understood, or the
/// options were wrong before any file was looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Opening or reading the file failed (missing, permissions, I/O).
    Unreadable,
    /// Read, but not a known statement format, or its columns are missing.
    UnknownFormat,
    /// A known format whose structure is broken.
    Malformed,
    /// The options given (column map, date format, currency) are wrong.
    BadOptions,
    /// The statement leaves something open (date order, sign, size) that a
    /// flag settles; the message names the flag.
    NeedsFlag,
}

impl ScanError {
    /// The kind of failure, so the CLI can map it to an exit code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ScanError::Unreadable { .. } | ScanError::NotAFile { .. } => ErrorKind::Unreadable,
            ScanError::UnknownFormat { .. } | ScanError::MissingColumn { .. } => {
                ErrorKind::UnknownFormat
            }
            ScanError::BrokenXml { .. }
            | ScanError::Truncated { .. }
            | ScanError::TooDeep { .. } => ErrorKind::Malformed,
            ScanError::TooLarge { .. } | ScanError::Ambiguous { .. } => ErrorKind::NeedsFlag,
            ScanError::BadColumns { .. }
            | ScanError::BadDateFormat { .. }
            | ScanError::BadCurrency { .. } => ErrorKind::BadOptions,
        }
    }
}

/// A path as an error shows it: inert, and cut if absurdly long.
fn shown(path: &Path) -> String {
    echo(&path.display().to_string())
}

/// The first line of a file that was not understood, as far as it is safe
/// to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderSeen {
    /// Header names, in file order.
    Names(Vec<String>),
    /// The first line has digits in it, so it is probably a transaction and
    /// is not repeated.
    LooksLikeData,
    /// The file is empty, or markup this crate does not read.
    Nothing,
    /// Not text at all, but a document the bank also offers: `"a PDF"`,
    /// `"an Excel workbook"`.
    Document(&'static str),
}

impl HeaderSeen {
    /// Classifies a first line's cells, keeping them only if none has a
    /// digit; kept names are made inert and cut to a readable length.
    pub(crate) fn from_cells<'a>(cells: impl IntoIterator<Item = &'a str>) -> HeaderSeen {
        let cells: Vec<&str> = cells.into_iter().map(str::trim).collect();
        if cells.iter().all(|c| c.is_empty()) {
            HeaderSeen::Nothing
        } else if cells
            .iter()
            .any(|c| c.chars().any(|ch| ch.is_ascii_digit()))
        {
            HeaderSeen::LooksLikeData
        } else {
            let mut names: Vec<String> = cells
                .iter()
                .take(MAX_NAMES_SHOWN)
                .map(|c| echo(c))
                .collect();
            if cells.len() > MAX_NAMES_SHOWN {
                names.push(format!("… {} more", cells.len() - MAX_NAMES_SHOWN));
            }
            HeaderSeen::Names(names)
        }
    }
}

impl fmt::Display for HeaderSeen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderSeen::Names(names) => {
                f.write_str("found header names: ")?;
                for (i, name) in names.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{name:?}")?;
                }
                Ok(())
            }
            HeaderSeen::LooksLikeData => {
                f.write_str("no header line: the first line looks like a transaction")
            }
            HeaderSeen::Nothing => f.write_str("no header line found"),
            HeaderSeen::Document(what) => write!(
                f,
                "this is {what}, not an export: download the CSV, OFX or CAMT version instead"
            ),
        }
    }
}
