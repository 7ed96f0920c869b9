//! Bytes of an exported statement to text. Banks write UTF-8, UTF-8 with a
//! byte-order mark (Excel's habit), UTF-16 with one (a few Windows exports),
//! or Latin-1 (older European banks, and OFX 1.x files that say
//! `CHARSET:1252`).

use std::borrow::Cow;

use encoding_rs::{Encoding, WINDOWS_1252};

/// Decodes a statement: a byte-order mark wins and is dropped; otherwise
/// valid UTF-8 is taken as it is, and anything else is read as Latin-1.
///
/// Latin-1 is read as Windows-1252, as browsers do for a page labelled
/// ISO-8859-1: the two agree on every printable Latin-1 character, and 1252
/// also has the `€` and curly quotes that such files carry in 0x80–0x9F.
/// Windows-1252 maps every byte, so decoding never fails.
pub(crate) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    if let Some((encoding, bom_length)) = Encoding::for_bom(bytes) {
        let rest = bytes.get(bom_length..).unwrap_or_default();
        let (text, _had_errors) = encoding.decode_without_bom_handling(rest);
        return text;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => WINDOWS_1252.decode_without_bom_handling(bytes).0,
    }
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn encodings_are_detected() {
        let cases: &[(&[u8], &str)] = &[
            (b"Date,Amount", "Date,Amount"),
            (b"\xEF\xBB\xBFDate,Amount", "Date,Amount"),
            ("Währung;€".as_bytes(), "Währung;€"),
            (b"W\xe4hrung;\x80", "Währung;€"),
            (b"\xFF\xFED\x00a\x00", "Da"),
            (b"\xFE\xFF\x00D\x00a", "Da"),
            (b"", ""),
        ];
        for (bytes, want) in cases {
            assert_eq!(decode(bytes), *want, "{bytes:?}");
        }
    }
}
