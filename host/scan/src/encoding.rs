//! Bytes of an exported statement to text. Banks write UTF-8, UTF-8 with a
//! byte-order mark (Excel's habit), UTF-16 with one (a few Windows exports),
//! or Latin-1 (older European banks, and OFX 1.x files that say
//! `CHARSET:1252`).

use std::borrow::Cow;
use std::io::{self, Read};

use encoding_rs::{Encoding, WINDOWS_1252};

/// How a statement's bytes are to be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Detected {
    /// `None` for UTF-8 as it is; otherwise the encoding to decode from.
    pub(crate) encoding: Option<&'static Encoding>,
    /// Bytes of byte-order mark to drop first.
    pub(crate) bom_length: usize,
}

/// The rule of [`decode`], for a statement in memory.
pub(crate) fn detect(bytes: &[u8]) -> Detected {
    detect_with(bytes, || Ok(std::str::from_utf8(bytes).is_ok())).unwrap_or(Detected {
        encoding: Some(WINDOWS_1252),
        bom_length: 0,
    })
}

/// The rule of [`decode`], for a file read as a stream: `head` is its first
/// bytes and `whole` the whole of it, read once to check that it is UTF-8
/// (nothing of it kept).
pub(crate) fn detect_stream(head: &[u8], whole: impl Read) -> io::Result<Detected> {
    detect_with(head, || is_utf8(whole))
}

fn detect_with(head: &[u8], is_utf8: impl FnOnce() -> io::Result<bool>) -> io::Result<Detected> {
    if let Some((encoding, bom_length)) = Encoding::for_bom(head) {
        let encoding = (encoding != encoding_rs::UTF_8).then_some(encoding);
        return Ok(Detected {
            encoding,
            bom_length,
        });
    }
    Ok(Detected {
        encoding: if is_utf8()? { None } else { Some(WINDOWS_1252) },
        bom_length: 0,
    })
}

/// Whether a stream is UTF-8 throughout, a chunk at a time; a character cut
/// by a chunk's end is carried into the next.
fn is_utf8(mut reader: impl Read) -> io::Result<bool> {
    const CHUNK: usize = 64 * 1024;
    let mut buffer = vec![0; CHUNK + 4];
    let mut carried = 0;
    loop {
        let n = reader.read(&mut buffer[carried..])?;
        if n == 0 {
            return Ok(carried == 0);
        }
        let filled = carried + n;
        carried = match std::str::from_utf8(&buffer[..filled]) {
            Ok(_) => 0,
            // Not UTF-8 here, whatever follows.
            Err(error) if error.error_len().is_some() => return Ok(false),
            Err(error) => {
                let valid = error.valid_up_to();
                buffer.copy_within(valid..filled, 0);
                filled - valid
            }
        };
    }
}

/// Decodes a statement: a byte-order mark wins and is dropped; otherwise
/// valid UTF-8 is taken as it is, and anything else is read as Latin-1.
///
/// Latin-1 is read as Windows-1252, as browsers do for a page labelled
/// ISO-8859-1: the two agree on every printable Latin-1 character, and 1252
/// also has the `€` and curly quotes that such files carry in 0x80–0x9F.
/// Windows-1252 maps every byte, so decoding never fails.
pub(crate) fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let detected = detect(bytes);
    let rest = bytes.get(detected.bom_length..).unwrap_or_default();
    match detected.encoding {
        Some(encoding) => encoding.decode_without_bom_handling(rest).0,
        None => String::from_utf8_lossy(rest),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

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

    /// The streaming check agrees with the whole-slice one, whatever the
    /// chunk edges cut.
    #[test]
    fn the_stream_is_judged_as_the_slice_is() {
        let long_utf8 = "é".repeat(70_000);
        let mut bad_late = long_utf8.clone().into_bytes();
        bad_late.push(0xE9);
        let cases: &[&[u8]] = &[
            b"Date,Amount",
            "Währung;€".as_bytes(),
            b"W\xe4hrung",
            long_utf8.as_bytes(),
            &bad_late,
            b"\xEF\xBB\xBFDate",
            b"ab\xE2\x82",
        ];
        for bytes in cases {
            let head = &bytes[..bytes.len().min(16)];
            assert_eq!(
                super::detect_stream(head, *bytes).unwrap(),
                super::detect(bytes),
                "{:?}",
                &bytes[..bytes.len().min(20)]
            );
        }
    }
}
