//! Reading a statement file: which format it is (sniffed from its first
//! bytes, never from its name), and the reader for that format. Apart from
//! `statement.rs`, which holds only what a statement is, so that the
//! readers (`csv_statement`, `ofx`, `camt`) and this dispatcher over them
//! import the types without importing each other.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use crate::error::{HeaderSeen, ScanError};
use crate::inert::inert;
use crate::money::Currency;
use crate::source::Source;
use crate::statement::{Format, ScanOptions, Statement};
use crate::{camt, csv_statement, encoding, ofx};

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
