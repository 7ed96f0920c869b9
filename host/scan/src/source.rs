//! A CSV statement's text as a stream, opened once per pass: the rows are
//! read twice (what they decide together, then each as a transaction) and
//! never held, so memory does not grow with the file, only with what is
//! kept of it. Each pass decodes the bytes to UTF-8 and writes every line
//! ending as `\n`, which is what lets the csv crate count lines right.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use encoding_rs::{Decoder, Encoding};

use crate::encoding::Detected;
use crate::error::ScanError;

/// Raw bytes read from the file per call: a few pages.
const CHUNK: usize = 64 * 1024;

/// Where the bytes are.
enum Origin<'a> {
    /// An open regular file, rewound for each pass: the same file that was
    /// checked, never the path opened again (it could be swapped for a FIFO).
    File { file: &'a File, path: &'a Path },
    /// A statement already in memory.
    Bytes(&'a [u8]),
}

/// A statement's text, readable from the start as often as needed.
pub(crate) struct Source<'a> {
    origin: Origin<'a>,
    detected: Detected,
    /// Bytes read at most per pass, so a file that grows while it is read
    /// still costs no more than the limit it was checked against.
    limit: u64,
}

impl<'a> Source<'a> {
    pub(crate) fn file(file: &'a File, path: &'a Path, detected: Detected, limit: u64) -> Self {
        Source {
            origin: Origin::File { file, path },
            detected,
            limit,
        }
    }

    pub(crate) fn bytes(bytes: &'a [u8], detected: Detected) -> Self {
        Source {
            origin: Origin::Bytes(bytes),
            detected,
            limit: u64::MAX,
        }
    }

    /// The text from its start: UTF-8, line endings as `\n`.
    pub(crate) fn open(&self) -> io::Result<Box<dyn Read + 'a>> {
        let raw: Box<dyn Read + 'a> = match &self.origin {
            Origin::File { file, .. } => {
                let mut file: &File = file;
                file.seek(SeekFrom::Start(0))?;
                Box::new(file.take(self.limit))
            }
            Origin::Bytes(bytes) => Box::new(*bytes),
        };
        let mut raw = raw;
        // The byte-order mark is not text.
        io::copy(
            &mut raw.by_ref().take(self.detected.bom_length as u64),
            &mut io::sink(),
        )?;
        let decoded: Box<dyn Read + 'a> = match self.detected.encoding {
            None => raw,
            Some(encoding) => Box::new(Decoding::new(raw, encoding)),
        };
        Ok(Box::new(OneNewline::new(decoded)))
    }

    /// The first `max` bytes of the text (fewer at a character's edge), for
    /// an error that shows what the file begins with.
    pub(crate) fn head(&self, max: usize) -> io::Result<String> {
        let mut bytes = Vec::with_capacity(max.min(CHUNK));
        self.open()?.take(max as u64).read_to_end(&mut bytes)?;
        let valid = match std::str::from_utf8(&bytes) {
            Ok(_) => bytes.len(),
            Err(error) => error.valid_up_to(),
        };
        bytes.truncate(valid);
        Ok(String::from_utf8(bytes).unwrap_or_default())
    }

    /// The error for a read that failed half-way: the file's path, or the
    /// statement's name for one in memory.
    pub(crate) fn unreadable(&self, name: &str, source: io::Error) -> ScanError {
        let path = match &self.origin {
            Origin::File { path, .. } => path.to_path_buf(),
            Origin::Bytes(_) => PathBuf::from(name),
        };
        ScanError::Unreadable { path, source }
    }
}

/// Another encoding's bytes as UTF-8, a chunk at a time.
struct Decoding<R> {
    inner: R,
    decoder: Decoder,
    raw: Vec<u8>,
    raw_start: usize,
    raw_end: usize,
    done: bool,
    out: Vec<u8>,
    out_start: usize,
    out_end: usize,
}

impl<R: Read> Decoding<R> {
    fn new(inner: R, encoding: &'static Encoding) -> Self {
        Decoding {
            inner,
            decoder: encoding.new_decoder_without_bom_handling(),
            raw: vec![0; CHUNK],
            raw_start: 0,
            raw_end: 0,
            done: false,
            // Room for any chunk: UTF-16 and single-byte encodings take at
            // most three UTF-8 bytes per input byte.
            out: vec![0; 3 * CHUNK + 16],
            out_start: 0,
            out_end: 0,
        }
    }
}

impl<R: Read> Read for Decoding<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_start == self.out_end {
            if self.done {
                return Ok(0);
            }
            if self.raw_start == self.raw_end {
                self.raw_start = 0;
                self.raw_end = self.inner.read(&mut self.raw)?;
            }
            let last = self.raw_end == self.raw_start;
            let (_, read, written, _) = self.decoder.decode_to_utf8(
                self.raw
                    .get(self.raw_start..self.raw_end)
                    .unwrap_or_default(),
                &mut self.out,
                last,
            );
            self.raw_start += read;
            self.out_start = 0;
            self.out_end = written;
            self.done = last;
        }
        let available = self
            .out
            .get(self.out_start..self.out_end)
            .unwrap_or_default();
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.out_start += n;
        Ok(n)
    }
}

/// Every line ending (`\r\n`, or a lone `\r` as old Mac exports write)
/// as `\n`: the csv crate counts `\n`, and with CRLF it places each record
/// on the line before its own (rust-csv issue #395).
struct OneNewline<R> {
    inner: R,
    after_cr: bool,
}

impl<R: Read> OneNewline<R> {
    fn new(inner: R) -> Self {
        OneNewline {
            inner,
            after_cr: false,
        }
    }
}

impl<R: Read> Read for OneNewline<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.inner.read(buf)?;
            if n == 0 {
                return Ok(0);
            }
            let mut kept = 0;
            for i in 0..n {
                let byte = buf[i];
                let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
                if after_cr && byte == b'\n' {
                    continue;
                }
                buf[kept] = if byte == b'\r' { b'\n' } else { byte };
                kept += 1;
            }
            // A buffer that held only the `\n` of a `\r\n` yields nothing
            // yet, which is not the end.
            if kept > 0 {
                return Ok(kept);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::encoding::detect;

    fn text_of(bytes: &[u8]) -> String {
        let source = Source::bytes(bytes, detect(bytes));
        let mut text = String::new();
        source.open().unwrap().read_to_string(&mut text).unwrap();
        text
    }

    #[test]
    fn passes_read_utf8_text_with_one_kind_of_line_ending() {
        let cases: &[(&[u8], &str)] = &[
            (b"a\r\nb\r\n", "a\nb\n"),
            (b"a\rb\r", "a\nb\n"),
            (b"a\nb", "a\nb"),
            (b"\xEF\xBB\xBFDate\r\n", "Date\n"),
            (b"W\xe4hrung;\x80\r\n", "Währung;€\n"),
            (b"\xFF\xFED\x00\r\x00\n\x00a\x00", "D\na"),
            (b"", ""),
        ];
        for (bytes, want) in cases {
            assert_eq!(text_of(bytes), *want, "{bytes:?}");
        }
    }

    /// Chunk edges fall inside `\r\n` and inside a character: a reader
    /// that hands out one byte at a time must give the same text.
    #[test]
    fn edges_between_reads_change_nothing() {
        struct OneByte<'b>(&'b [u8]);
        impl Read for OneByte<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match (self.0.split_first(), buf.first_mut()) {
                    (Some((first, rest)), Some(slot)) => {
                        *slot = *first;
                        self.0 = rest;
                        Ok(1)
                    }
                    _ => Ok(0),
                }
            }
        }
        let latin1 = b"caf\xe9\r\n\r\nna\xefve\r";
        let mut text = String::new();
        OneNewline::new(Decoding::new(OneByte(latin1), encoding_rs::WINDOWS_1252))
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "café\n\nnaïve\n");
        let mut text = String::new();
        OneNewline::new(OneByte("a\r\nb\r".as_bytes()))
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "a\nb\n");
    }
}
