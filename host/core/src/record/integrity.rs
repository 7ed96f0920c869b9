//! `runs verify`: checks a run's transcript chain, `result.json` and every
//! file the record lists, and names the first thing that does not match.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::chain::{self, LineFault};
use super::{
    ChainHead, FileEntry, RESULT_FILE, RESULT_RECORD_KEY, SEALED_EVENT, SIGNATURE_FILE,
    TRANSCRIPT_FILE,
};
use crate::signing::{Signed, StatementError};

/// The first thing in a record that does not match.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    #[error("{TRANSCRIPT_FILE} is missing or unreadable")]
    NoTranscript,
    #[error("{TRANSCRIPT_FILE} line {line} is not a record line (it lost its hash or is not JSON)")]
    NotALine { line: u64 },
    #[error("{TRANSCRIPT_FILE} line {line} was changed: its content does not match its hash")]
    LineChanged { line: u64 },
    #[error(
        "{TRANSCRIPT_FILE} line {line} does not follow line {}: lines were removed, added or re-hashed",
        line - 1
    )]
    LineOutOfChain { line: u64 },
    #[error(
        "{TRANSCRIPT_FILE} does not end with its sealing line: the run did not finish or lines were cut"
    )]
    NotSealed,
    #[error(
        "{RESULT_FILE} is missing: the run did not finish, so its record cannot be checked to the end"
    )]
    NoResult,
    #[error("{RESULT_FILE} was changed: {why}")]
    ResultChanged { why: String },
    #[error("{path} is missing; the record lists it")]
    FileMissing { path: String },
    #[error("{path} was changed: its SHA-256 does not match the record")]
    FileChanged { path: String },
    #[error("{SIGNATURE_FILE}: {0}")]
    Signature(StatementError),
    #[error(
        "{SIGNATURE_FILE} signs line {lines} with hash {head}, not the sealed record's head: it belongs to another record"
    )]
    SignatureOfAnother { lines: u64, head: String },
}

/// A record that checked out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub lines: u64,
    pub head: String,
    pub files: Vec<FileEntry>,
    /// The signer's statement of the head, checked; none for a record
    /// made without a key (before receipts were signed).
    pub signed: Option<Signed>,
}

/// Checks the record in `dir`.
pub fn verify(dir: &Path) -> Result<Verified, Mismatch> {
    let text =
        std::fs::read_to_string(dir.join(TRANSCRIPT_FILE)).map_err(|_| Mismatch::NoTranscript)?;
    let links = read_chain(&text)?;
    let last = links.last().ok_or(Mismatch::NotSealed)?;
    let sealed = (last.event.get("type").and_then(Value::as_str) == Some(SEALED_EVENT))
        .then(|| last.event.get("files").cloned())
        .flatten()
        .and_then(|f| serde_json::from_value::<Vec<FileEntry>>(f).ok())
        .ok_or(Mismatch::NotSealed)?;
    check_result(dir, &links)?;
    for file in &sealed {
        let path = file_path(dir, &file.path).ok_or_else(|| Mismatch::FileChanged {
            path: file.path.clone(),
        })?;
        let bytes = std::fs::read(&path).map_err(|_| Mismatch::FileMissing {
            path: file.path.clone(),
        })?;
        if chain::sha256_hex(&bytes) != file.sha256 {
            return Err(Mismatch::FileChanged {
                path: file.path.clone(),
            });
        }
    }
    let signed = check_signature(dir, last)?;
    Ok(Verified {
        lines: last.seq,
        head: last.hash.clone(),
        files: sealed,
        signed,
    })
}

/// `record.sig`, when there is one, must be a good signature of this
/// record's head.
fn check_signature(dir: &Path, last: &chain::Link) -> Result<Option<Signed>, Mismatch> {
    let Ok(bytes) = std::fs::read(dir.join(SIGNATURE_FILE)) else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| Mismatch::Signature(StatementError::Malformed("it is not text".to_owned())))?;
    let signed = Signed::parse(&text).map_err(Mismatch::Signature)?;
    signed.check().map_err(Mismatch::Signature)?;
    let s = &signed.statement;
    if s.head != last.hash || s.lines != last.seq || s.content_sha256.is_some() {
        return Err(Mismatch::SignatureOfAnother {
            lines: s.lines,
            head: s.head.clone(),
        });
    }
    Ok(Some(signed))
}

/// Every line checked on its own and against the one before.
pub fn read_chain(text: &str) -> Result<Vec<chain::Link>, Mismatch> {
    let mut links: Vec<chain::Link> = Vec::new();
    // A record always ends in a newline; text after the last one is a line
    // that was added or damaged.
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Err(Mismatch::NotSealed);
    }
    for (index, line) in body.split('\n').enumerate() {
        let number = index as u64 + 1;
        let link = chain::open(line).map_err(|fault| match fault {
            LineFault::NotALine => Mismatch::NotALine { line: number },
            LineFault::Changed => Mismatch::LineChanged { line: number },
        })?;
        let prev = links.last().map_or(chain::GENESIS, |l| l.hash.as_str());
        if link.prev != prev || link.seq != number {
            return Err(Mismatch::LineOutOfChain { line: number });
        }
        links.push(link);
    }
    Ok(links)
}

/// `result.json` must be byte for byte as written, name the transcript's
/// last hash, and say what the transcript's `finished` event says.
fn check_result(dir: &Path, links: &[chain::Link]) -> Result<(), Mismatch> {
    let changed = |why: &str| Mismatch::ResultChanged {
        why: why.to_owned(),
    };
    let text = std::fs::read_to_string(dir.join(RESULT_FILE)).map_err(|_| Mismatch::NoResult)?;
    let mut value: Value =
        serde_json::from_str(&text).map_err(|_| changed("it is not valid JSON"))?;
    if super::result_text(&value) != text {
        return Err(changed("it is not byte for byte as written"));
    }
    let head = value
        .as_object_mut()
        .and_then(|m| m.remove(RESULT_RECORD_KEY))
        .and_then(|h| serde_json::from_value::<ChainHead>(h).ok())
        .ok_or_else(|| changed("it no longer names the transcript's head"))?;
    let last = links.last().ok_or(Mismatch::NotSealed)?;
    if head.head != last.hash || head.lines != last.seq {
        return Err(changed(&format!(
            "it names line {} with hash {}, but the transcript ends at line {} with hash {}",
            head.lines, head.head, last.seq, last.hash
        )));
    }
    let finished = links
        .iter()
        .rev()
        .find(|l| l.event.get("type").and_then(Value::as_str) == Some("finished"))
        .and_then(|l| l.event.get("result"));
    if finished != Some(&value) {
        return Err(changed(
            "its result differs from the transcript's `finished` event",
        ));
    }
    Ok(())
}

/// A listed path inside the run folder; `None` for one that would leave it.
fn file_path(dir: &Path, listed: &str) -> Option<PathBuf> {
    let relative = Path::new(listed);
    relative
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)))
        .then(|| dir.join(relative))
}

#[cfg(test)]
mod tests;
