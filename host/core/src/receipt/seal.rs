//! A receipt file that proves itself: the record it was made from, and one
//! seal line signing every other byte of the file, inside the file.
//!
//! `receipt.html` and `receipt.md` carry both in HTML comments after their
//! text (no browser or Markdown viewer shows them); `receipt.pdf` carries
//! them as PDF comment lines before its `startxref`, where every reader
//! skips them and the cross-reference table's offsets stay true. So a
//! receipt mailed alone to a bank can be checked alone: the seal's
//! signature, then the file's bytes against the seal, then the carried
//! record's hash chain against the head the seal names.

use base64::Engine as _;

use crate::record::chain::{self, Link};
use crate::record::integrity::{self, Mismatch};
use crate::signing::{Signed, Signer, Statement, StatementError};

const RECORD_MARK: &str = "subterminator-record v1";
const SEAL_MARK: &str = "subterminator-seal v1 ";
/// Base64 characters a carried-record line holds.
const RECORD_LINE: usize = 76;
const PDF_MAGIC: &[u8] = b"%PDF-";
const STARTXREF: &[u8] = b"\nstartxref";

/// How a file carries the record and the seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Carrier {
    /// HTML comments: HTML and Markdown alike.
    Comment,
    /// PDF comment lines.
    Pdf,
}

impl Carrier {
    fn of(bytes: &[u8]) -> Self {
        if bytes.starts_with(PDF_MAGIC) {
            Carrier::Pdf
        } else {
            Carrier::Comment
        }
    }

    fn record_block(self, record: &str) -> String {
        let encoded = base64::engine::general_purpose::STANDARD.encode(record);
        let chunks: Vec<&str> = encoded
            .as_bytes()
            .chunks(RECORD_LINE)
            .filter_map(|c| std::str::from_utf8(c).ok())
            .collect();
        match self {
            Carrier::Comment => format!("<!-- {RECORD_MARK}\n{}\n-->\n", chunks.join("\n")),
            Carrier::Pdf => chunks
                .iter()
                .map(|c| format!("%{RECORD_MARK} {c}\n"))
                .collect(),
        }
    }

    fn seal_line(self, signed: &Signed) -> String {
        let encoded = base64::engine::general_purpose::STANDARD.encode(signed.text());
        match self {
            Carrier::Comment => format!("<!-- {SEAL_MARK}{encoded} -->\n"),
            Carrier::Pdf => format!("%{SEAL_MARK}{encoded}\n"),
        }
    }

    /// Where the record and the seal go: a text's end, or a PDF's last
    /// `startxref` line (its end when it has none).
    fn insert_at(self, bytes: &[u8]) -> usize {
        match self {
            Carrier::Comment => bytes.len(),
            Carrier::Pdf => rfind(bytes, STARTXREF).map_or(bytes.len(), |at| at + 1),
        }
    }
}

/// Why a receipt file does not prove what it says.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealFault {
    #[error(
        "it carries no seal: it was not signed (made before receipts were signed, or without a key), or its seal line was removed"
    )]
    NoSeal,
    #[error("its seal {0}")]
    Statement(#[from] StatementError),
    #[error("its seal vouches for no file content: it is a record's statement, not a receipt's")]
    NotForAFile,
    #[error(
        "its content was changed after it was signed: its bytes do not hash to what the seal names"
    )]
    ContentChanged,
    #[error("it carries no record, so its chain cannot be checked")]
    NoRecord,
    #[error("the record it carries is broken: {0}")]
    RecordBroken(Mismatch),
    #[error(
        "the record it carries ends at line {lines} with hash {head}, not at the head its seal names"
    )]
    NotTheSignedRecord { lines: u64, head: String },
}

/// A receipt file that checked out.
#[derive(Debug, Clone, PartialEq)]
pub struct Sealed {
    /// What its signer vouched for.
    pub signed: Signed,
    /// The record it carries, checked line by line.
    pub record: Vec<Link>,
}

/// `bytes` (a receipt as written) with `record` and a seal by `signer`
/// over `head` and every other byte.
pub fn seal(mut bytes: Vec<u8>, record: &str, head: &Statement, signer: &Signer) -> Vec<u8> {
    let carrier = Carrier::of(&bytes);
    if carrier == Carrier::Comment && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    let at = carrier.insert_at(&bytes);
    let block = carrier.record_block(record);
    bytes.splice(at..at, block.bytes());
    let sealed_at = at + block.len();
    let signed = signer.sign(head.for_content(chain::sha256_hex(&bytes)));
    let line = carrier.seal_line(&signed);
    bytes.splice(sealed_at..sealed_at, line.bytes());
    bytes
}

/// Checks a receipt file from its bytes alone.
pub fn open(bytes: &[u8]) -> Result<Sealed, SealFault> {
    let carrier = Carrier::of(bytes);
    let (start, end) = seal_line(bytes, carrier).ok_or(SealFault::NoSeal)?;
    let line = std::str::from_utf8(&bytes[start..end]).map_err(|_| SealFault::NoSeal)?;
    let encoded = match carrier {
        Carrier::Comment => line
            .strip_prefix("<!-- ")
            .and_then(|l| l.strip_prefix(SEAL_MARK))
            .and_then(|l| l.strip_suffix(" -->\n")),
        Carrier::Pdf => line
            .strip_prefix('%')
            .and_then(|l| l.strip_prefix(SEAL_MARK))
            .and_then(|l| l.strip_suffix('\n')),
    }
    .ok_or(SealFault::NoSeal)?;
    let text = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()
        .and_then(|t| String::from_utf8(t).ok())
        .ok_or_else(|| StatementError::Malformed("its seal line is not base64 text".to_owned()))?;
    let signed = Signed::parse(&text)?;
    signed.check()?;
    let named = signed
        .statement
        .content_sha256
        .as_deref()
        .ok_or(SealFault::NotForAFile)?;
    let mut content = Vec::with_capacity(bytes.len());
    content.extend_from_slice(&bytes[..start]);
    content.extend_from_slice(&bytes[end..]);
    if chain::sha256_hex(&content) != named {
        return Err(SealFault::ContentChanged);
    }
    // Only now is the carried record read: every byte of it is the
    // signer's.
    let record = carried_record(&content[..start], carrier).ok_or(SealFault::NoRecord)?;
    let links = integrity::read_chain(&record).map_err(SealFault::RecordBroken)?;
    let last = links.last().ok_or(SealFault::NoRecord)?;
    if last.hash != signed.statement.head || last.seq != signed.statement.lines {
        return Err(SealFault::NotTheSignedRecord {
            lines: last.seq,
            head: last.hash.clone(),
        });
    }
    Ok(Sealed {
        signed,
        record: links,
    })
}

/// The seal line's byte range, newline included: the last line that
/// starts with the carrier's seal mark.
fn seal_line(bytes: &[u8], carrier: Carrier) -> Option<(usize, usize)> {
    let mark = match carrier {
        Carrier::Comment => format!("\n<!-- {SEAL_MARK}"),
        Carrier::Pdf => format!("\n%{SEAL_MARK}"),
    };
    let start = rfind(bytes, mark.as_bytes())? + 1;
    let end = bytes[start..].iter().position(|b| *b == b'\n')? + start + 1;
    Some((start, end))
}

/// The record carried in `before` (the bytes before the seal line).
fn carried_record(before: &[u8], carrier: Carrier) -> Option<String> {
    let text = std::str::from_utf8(before).ok();
    let encoded: String = match carrier {
        Carrier::Comment => {
            let text = text?;
            let open = format!("<!-- {RECORD_MARK}\n");
            let from = text.rfind(&open)? + open.len();
            let body = text[from..].strip_suffix("\n-->\n")?;
            body.split('\n').collect()
        }
        // A PDF's bytes before the seal are not text; its record lines are.
        Carrier::Pdf => {
            let mark = format!("\n%{RECORD_MARK} ");
            let mut found = String::new();
            let mut rest = before;
            while let Some(at) = find(rest, mark.as_bytes()) {
                let from = at + mark.len();
                let len = rest[from..].iter().position(|b| *b == b'\n')?;
                found.push_str(std::str::from_utf8(&rest[from..from + len]).ok()?);
                rest = &rest[from + len..];
            }
            found
        }
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .ok()?;
    String::from_utf8(bytes).ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}
