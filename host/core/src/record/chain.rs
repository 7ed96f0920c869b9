//! The transcript's hash chain. Every line is
//! `{"hash":"H","prev":"P","seq":N,"time":"T","event":{…}}`, where `H` is the
//! SHA-256 of everything after `{"hash":"H",` and `P` is the line before's
//! `H` (64 zeros for the first). A changed byte breaks its own line's hash;
//! a removed, added or re-hashed line breaks the next line's `prev`; and
//! `result.json` holds the last `H`, so a cut tail shows too.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `prev` of the first line.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Characters of a hex SHA-256.
const HASH_HEX: usize = 64;
const HEAD: &str = "{\"hash\":\"";
const AFTER_HASH: &str = "\",";

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// One line, written: its text (no newline) and its hash.
pub fn seal(prev: &str, seq: u64, time: &str, event: &Value) -> (String, String) {
    let time = Value::String(time.to_owned());
    let tail = format!("\"prev\":\"{prev}\",\"seq\":{seq},\"time\":{time},\"event\":{event}}}");
    let hash = sha256_hex(tail.as_bytes());
    (format!("{HEAD}{hash}{AFTER_HASH}{tail}"), hash)
}

/// A line as read back and checked on its own.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub hash: String,
    pub prev: String,
    pub seq: u64,
    pub time: String,
    pub event: Value,
}

/// Why one line fails on its own, before its place in the chain is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineFault {
    /// Not a chained record line at all (no leading hash, not JSON).
    NotALine,
    /// The line's content does not hash to the hash it carries.
    Changed,
}

/// Reads one line and checks its own hash.
pub fn open(line: &str) -> Result<Link, LineFault> {
    let rest = line.strip_prefix(HEAD).ok_or(LineFault::NotALine)?;
    let hash = rest.get(..HASH_HEX).ok_or(LineFault::NotALine)?;
    if !hash
        .bytes()
        .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return Err(LineFault::NotALine);
    }
    let tail = rest[HASH_HEX..]
        .strip_prefix(AFTER_HASH)
        .ok_or(LineFault::NotALine)?;
    if sha256_hex(tail.as_bytes()) != hash {
        return Err(LineFault::Changed);
    }
    // The hash matched, so the tail is what was written; a line that does
    // not parse was written wrong, which a check must still report.
    let value: Value = serde_json::from_str(line).map_err(|_| LineFault::NotALine)?;
    let field = |name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
    Ok(Link {
        hash: hash.to_owned(),
        prev: field("prev").ok_or(LineFault::NotALine)?,
        seq: value
            .get("seq")
            .and_then(Value::as_u64)
            .ok_or(LineFault::NotALine)?,
        time: field("time").unwrap_or_default(),
        event: value.get("event").cloned().unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn a_sealed_line_opens_to_what_was_written() {
        let event =
            serde_json::json!({"type": "tool_call", "tool": "browser_click", "quote": "a \"b\"\n"});
        let (text, hash) = seal(GENESIS, 1, "2026-11-23T10:00:00.000Z", &event);
        let link = open(&text).unwrap();
        assert_eq!(link.hash, hash);
        assert_eq!(link.prev, GENESIS);
        assert_eq!(link.seq, 1);
        assert_eq!(link.event, event);
        assert!(!text.contains('\n'));
    }

    #[test]
    fn every_changed_byte_is_caught_by_its_own_line() {
        let event = serde_json::json!({"type": "finished", "result": {"turns": 3}});
        let (text, _) = seal(GENESIS, 1, "2026-11-23T10:00:00.000Z", &event);
        for at in 0..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
            let changed = String::from_utf8(bytes).unwrap();
            assert!(
                open(&changed).is_err(),
                "byte {at} changed and still opens: {changed}"
            );
        }
    }

    #[test]
    fn lines_that_are_not_record_lines_are_named_so() {
        let cases = [
            "",
            "{\"time\":\"t\",\"event\":{}}",
            "{\"hash\":\"xyz\",\"prev\":\"\"}",
            &format!("{{\"hash\":\"{}\",", "A".repeat(64)),
        ];
        for case in cases {
            assert_eq!(open(case), Err(LineFault::NotALine), "{case}");
        }
    }
}
