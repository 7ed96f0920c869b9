//! A tolerant reader for OFX 1.x, which is SGML: leaf elements are written
//! `<NAME>NETFLIX.COM` and never closed, aggregates are closed
//! (`</STMTTRN>`), and real files break even that now and then. No XML
//! parser accepts it and the SGML crates are unmaintained, so this reads it
//! by the one rule that holds in practice: a tag followed by text is a leaf
//! with that value; a tag followed directly by another tag opens an
//! aggregate, which lasts until its closing tag (closing anything still open
//! inside it).

use super::{MAX_DEPTH, OfxBuilder};
use crate::error::ScanError;
use crate::lines::LineCounter;
use crate::xml_text::unescape;

/// Walks the markup of `text`, telling `builder` what it finds. The header
/// block (`OFXHEADER:100`, `CHARSET:1252`, …) before the first `<` carries
/// nothing a statement needs and is passed over.
///
/// A file that ends with an aggregate still open (no `</OFX>`) was cut
/// short, and is an error rather than a statement read in part.
pub(crate) fn walk(text: &str, builder: &mut OfxBuilder<'_>) -> Result<(), ScanError> {
    let mut lines = LineCounter::new(text);
    let mut open: Vec<String> = Vec::new();
    let mut at = match text.find('<') {
        Some(at) => at,
        None => return Ok(()),
    };
    while let Some(tag_length) = text[at..].find('>') {
        let inside = &text[at + 1..at + tag_length];
        let after_tag = at + tag_length + 1;
        let next = text[after_tag..]
            .find('<')
            .map_or(text.len(), |n| after_tag + n);
        let content = text[after_tag..next].trim();

        if let Some(closing) = inside.strip_prefix('/') {
            let tag = tag_name(closing);
            // Closing an aggregate closes whatever was left open inside it;
            // closing a leaf (OFX 1.x allows it) or a stray tag does nothing.
            if let Some(depth) = open.iter().rposition(|t| *t == tag) {
                while open.len() > depth {
                    if let Some(inner) = open.pop() {
                        builder.close(&inner);
                    }
                }
            }
        } else if !inside.starts_with(['!', '?']) {
            let tag = tag_name(inside);
            if content.is_empty() {
                if open.len() >= MAX_DEPTH {
                    return Err(ScanError::TooDeep {
                        name: builder.name().to_owned(),
                        line: lines.line_at(at),
                        limit: MAX_DEPTH,
                    });
                }
                builder.open(&tag, lines.line_at(at));
                open.push(tag);
            } else {
                builder.value(&tag, &unescape(content));
            }
        }
        if next >= text.len() {
            break;
        }
        at = next;
    }
    if !open.is_empty() {
        return Err(ScanError::Truncated {
            name: builder.name().to_owned(),
            line: lines.line_at(text.len()),
        });
    }
    Ok(())
}

fn tag_name(inside: &str) -> String {
    inside
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_uppercase()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use crate::statement::{Format, ScanOptions, SkipReason};

    const SGML: &str = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nCHARSET:1252\r\n\r\n\
<OFX>\r\n<CREDITCARDMSGSRSV1><CCSTMTTRNRS><CCSTMTRS>\r\n<CURDEF>USD\r\n<BANKTRANLIST>\r\n\
<STMTTRN>\r\n<TRNTYPE>DEBIT\r\n<DTPOSTED>20240103\r\n<TRNAMT>-15.49\r\n<FITID>1\r\n<NAME>NETFLIX.COM\r\n<MEMO>\r\n</STMTTRN>\r\n\
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240104<TRNAMT>-70.00</TRNAMT><NAME>AT&amp;T BILL</NAME></STMTTRN>\r\n\
<STMTTRN>\r\n<DTPOSTED>2024XX04\r\n<TRNAMT>-1.00\r\n<NAME>X\r\n</STMTTRN>\r\n\
<STMTTRN>\r\n<DTPOSTED>20240105\r\n<TRNAMT>25.00\r\n<NAME>REFUND\r\n\
</BANKTRANLIST></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>";

    #[test]
    fn unclosed_leaves_and_a_missing_close_are_tolerated() {
        let s = super::super::read_sgml("a.ofx", SGML, &ScanOptions::default(), false).unwrap();
        assert_eq!(s.format, Format::Ofx1);
        assert_eq!(s.lines_read, 4);
        let got: Vec<(String, String, usize)> = s
            .transactions
            .iter()
            .map(|t| (t.description.clone(), t.amount.to_string(), t.line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("NETFLIX.COM".into(), "15.49 USD".into(), 10),
                ("AT&T BILL".into(), "70.00 USD".into(), 18),
                ("REFUND".into(), "-25.00 USD".into(), 24),
            ]
        );
        assert_eq!(s.skipped.len(), 1);
        assert_eq!(s.skipped[0].reason, SkipReason::BadDate);
        assert_eq!(s.skipped[0].line, 19);
    }
}
