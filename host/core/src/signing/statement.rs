//! What a signature vouches for, as plain lines a person can read:
//!
//! ```text
//! subterminator signed statement v1
//! run: 20261129T031500Z-practice-ab12cd34
//! service: practice
//! head: 3f1c…(64 hex)
//! lines: 57
//! signed-at: 2026-11-29T03:15:02.123Z
//! key: ed25519:Qm9…(43 characters)
//! signer: jane@laptop
//! content-sha256: 9a0e…(64 hex; only when one file is vouched for whole)
//! signature: …(86 characters)
//! ```
//!
//! The text is canonical: it is read back field by field, written again,
//! and must be the same bytes, so no changed space or reordered line
//! passes as the same statement.

use base64::Engine as _;

use super::{PublicKey, b64};

const TITLE: &str = "subterminator signed statement v1";
const HEX_HASH: usize = 64;

/// The facts a signature covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The run folder's name.
    pub run: String,
    pub service: String,
    /// The hash of the transcript's line `lines`: the record up to there.
    pub head: String,
    pub lines: u64,
    /// RFC 3339, UTC, milliseconds.
    pub signed_at: String,
    pub key: PublicKey,
    /// Who the key says it is.
    pub signer: String,
    /// When the statement vouches for one file whole (a receipt): the
    /// SHA-256 of that file without its seal line.
    pub content_sha256: Option<String>,
}

/// Why a statement or its signature does not stand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatementError {
    #[error("it is not a signed statement ({0})")]
    Malformed(String),
    #[error(
        "its signature does not match its words: it was changed after it was signed, or not signed by {key}"
    )]
    BadSignature { key: PublicKey },
}

impl Statement {
    /// The exact bytes the signature is over.
    pub fn text(&self) -> String {
        let mut text = format!(
            "{TITLE}\nrun: {}\nservice: {}\nhead: {}\nlines: {}\nsigned-at: {}\nkey: {}\nsigner: {}\n",
            self.run, self.service, self.head, self.lines, self.signed_at, self.key, self.signer
        );
        if let Some(sha) = &self.content_sha256 {
            text.push_str(&format!("content-sha256: {sha}\n"));
        }
        text
    }

    /// The same statement, vouching for one file whose content (without
    /// its seal) hashes to `sha256`.
    pub fn for_content(&self, sha256: String) -> Self {
        Self {
            content_sha256: Some(sha256),
            ..self.clone()
        }
    }
}

/// A statement and its signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub statement: Statement,
    signature: Vec<u8>,
}

impl Signed {
    pub(super) fn new(statement: Statement, signature: Vec<u8>) -> Self {
        Self {
            statement,
            signature,
        }
    }

    /// The signature as written: URL-safe base64.
    pub fn signature(&self) -> String {
        b64().encode(&self.signature)
    }

    /// The statement's lines, then `signature: …`.
    pub fn text(&self) -> String {
        format!("{}signature: {}\n", self.statement.text(), self.signature())
    }

    /// Reads [`Signed::text`]'s output back; anything else, even one more
    /// space, is refused.
    pub fn parse(text: &str) -> Result<Self, StatementError> {
        let bad = |why: &str| StatementError::Malformed(why.to_owned());
        let lines: Vec<&str> = text.split_terminator('\n').collect();
        if lines.first() != Some(&TITLE) {
            return Err(bad("its first line is not the statement's title"));
        }
        // Nine lines, or ten with the content hash.
        let with_content = lines.len() == 10;
        if lines.len() != 9 && !with_content {
            return Err(bad("it has lines missing or added"));
        }
        let field = |at: usize, name: &str| -> Result<String, StatementError> {
            lines
                .get(at)
                .and_then(|l| l.strip_prefix(name))
                .and_then(|l| l.strip_prefix(": "))
                .map(str::to_owned)
                .ok_or_else(|| StatementError::Malformed(format!("no `{name}` where it belongs")))
        };
        let content_sha256 = if with_content {
            let sha = field(8, "content-sha256")?;
            Some(hex_hash(sha).ok_or_else(|| bad("its content hash is not a SHA-256"))?)
        } else {
            None
        };
        let statement = Statement {
            run: field(1, "run")?,
            service: field(2, "service")?,
            head: hex_hash(field(3, "head")?).ok_or_else(|| bad("its head is not a SHA-256"))?,
            lines: field(4, "lines")?
                .parse()
                .map_err(|_| bad("its line count is not a number"))?,
            signed_at: field(5, "signed-at")?,
            key: PublicKey::parse(&field(6, "key")?)
                .ok_or_else(|| bad("its key is not an ed25519 key"))?,
            signer: field(7, "signer")?,
            content_sha256,
        };
        let signature = b64()
            .decode(field(lines.len() - 1, "signature")?)
            .map_err(|_| bad("its signature is not base64"))?;
        let signed = Self {
            statement,
            signature,
        };
        if signed.text() != text {
            return Err(bad("it is not written as it was signed"));
        }
        Ok(signed)
    }

    /// Whether the signature is the statement's key's over its words.
    pub fn check(&self) -> Result<(), StatementError> {
        let key = self.statement.key;
        if key.verifies(self.statement.text().as_bytes(), &self.signature) {
            Ok(())
        } else {
            Err(StatementError::BadSignature { key })
        }
    }
}

fn hex_hash(text: String) -> Option<String> {
    (text.len() == HEX_HASH
        && text
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()))
    .then_some(text)
}

/// A name on one line: what a signer calls itself must not add lines to
/// the statement.
pub(super) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_owned()
}
