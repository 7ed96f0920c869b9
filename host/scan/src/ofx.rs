//! OFX and QFX statements. Both versions carry the same elements; 2.x is XML
//! (read with quick-xml), 1.x is SGML whose leaf tags are never closed (read
//! by [`sgml`]). Each reader turns its markup into the same three
//! calls on [`OfxBuilder`]: an aggregate opens, a leaf has a value, an
//! aggregate closes.

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::dates::parse_ofx_date;
use crate::error::ScanError;
use crate::lines::LineCounter;
use crate::money::{Currency, DecimalMark, Money, parse_amount};
mod sgml;
use crate::statement::{Format, ScanOptions, SkipReason, Skipped, Statement, Transaction};
use crate::xml_text::resolve_entity;

/// Reads OFX 1.x (SGML).
pub(crate) fn read_sgml(name: &str, text: &str, options: &ScanOptions, quicken: bool) -> Statement {
    let mut builder = OfxBuilder::new(
        name,
        options,
        if quicken { Format::Qfx } else { Format::Ofx1 },
    );
    sgml::walk(text, &mut builder);
    builder.finish()
}

/// Reads OFX 2.x (XML).
pub(crate) fn read_xml(
    name: &str,
    text: &str,
    options: &ScanOptions,
    quicken: bool,
) -> Result<Statement, ScanError> {
    let mut builder = OfxBuilder::new(
        name,
        options,
        if quicken { Format::Qfx } else { Format::Ofx2 },
    );
    let mut reader = Reader::from_str(text);
    let mut lines = LineCounter::new(text);
    // Elements open above the current point: name, whether it has been
    // announced to the builder as an aggregate (it has a child), and its text.
    let mut open: Vec<OpenElement> = Vec::new();
    loop {
        let event = reader.read_event().map_err(|_| ScanError::BrokenXml {
            name: name.to_owned(),
            line: lines.line_at(reader.error_position()),
        })?;
        match event {
            Event::Start(start) => {
                if let Some(parent) = open.last_mut()
                    && !parent.announced
                {
                    parent.announced = true;
                    builder.open(&parent.tag, parent.line);
                }
                open.push(OpenElement {
                    tag: start.local_name().into_inner().to_ascii_uppercase(),
                    line: lines.line_at(reader.buffer_position()),
                    announced: false,
                    text: String::new(),
                });
            }
            Event::Text(text) => {
                if let Some(element) = open.last_mut() {
                    element.text.push_str(&text);
                }
            }
            Event::CData(data) => {
                if let Some(element) = open.last_mut() {
                    element.text.push_str(&data);
                }
            }
            Event::GeneralRef(reference) => {
                if let Some(element) = open.last_mut() {
                    element.text.push_str(&resolve_entity(&reference));
                }
            }
            Event::End(_) => {
                if let Some(element) = open.pop() {
                    if element.announced {
                        builder.close(&element.tag);
                    } else {
                        builder.value(&element.tag, element.text.trim());
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(builder.finish())
}

/// An XML element open above the current point. Whether it is an aggregate
/// or a leaf is known only when its first child starts (or it ends without
/// one), so it is announced to the builder late, with the line it began on.
struct OpenElement {
    tag: String,
    line: usize,
    announced: bool,
    text: String,
}

/// One `STMTTRN` being read.
#[derive(Default)]
struct PendingTransaction {
    line: usize,
    amount: Option<String>,
    posted: Option<String>,
    name: Option<String>,
    memo: Option<String>,
    currency: Option<String>,
}

/// Builds a statement from OFX elements, whichever syntax they came in.
pub(crate) struct OfxBuilder<'o> {
    statement: Statement,
    options: &'o ScanOptions,
    /// Aggregates open above the current point.
    stack: Vec<String>,
    pending: Option<PendingTransaction>,
    /// Transactions of the statement aggregate being read, waiting for its
    /// currency (`CURDEF` may come before or after the transaction list).
    waiting: Vec<PendingTransaction>,
    default_currency: Option<String>,
}

impl<'o> OfxBuilder<'o> {
    fn new(name: &str, options: &'o ScanOptions, format: Format) -> Self {
        OfxBuilder {
            statement: Statement {
                name: name.to_owned(),
                format,
                transactions: Vec::new(),
                lines_read: 0,
                skipped: Vec::new(),
            },
            options,
            stack: Vec::new(),
            pending: None,
            waiting: Vec::new(),
            default_currency: None,
        }
    }

    /// An aggregate opens at `line`.
    pub(crate) fn open(&mut self, tag: &str, line: usize) {
        if tag == "STMTTRN" {
            self.statement.lines_read += 1;
            self.pending = Some(PendingTransaction {
                line,
                ..PendingTransaction::default()
            });
        }
        self.stack.push(tag.to_owned());
    }

    /// A leaf element has a value.
    pub(crate) fn value(&mut self, tag: &str, value: &str) {
        // The nearest aggregate that gives a leaf its meaning; anything open
        // in between (an empty leaf the SGML reader took for an aggregate)
        // is looked through.
        const CONTEXTS: &[&str] = &["STMTTRN", "PAYEE", "CURRENCY", "ORIGCURRENCY"];
        let parent = self
            .stack
            .iter()
            .rev()
            .map(String::as_str)
            .find(|t| CONTEXTS.contains(t));
        if tag == "CURDEF" {
            self.default_currency = Some(value.to_owned());
            return;
        }
        let Some(pending) = self.pending.as_mut() else {
            return;
        };
        let slot = match (parent, tag) {
            (Some("STMTTRN"), "TRNAMT") => &mut pending.amount,
            (Some("STMTTRN"), "DTPOSTED") => &mut pending.posted,
            (Some("STMTTRN"), "NAME") => &mut pending.name,
            (Some("PAYEE"), "NAME") => &mut pending.name,
            (Some("STMTTRN"), "MEMO") => &mut pending.memo,
            // CURRENCY (not ORIGCURRENCY): the amount itself is in CURSYM.
            (Some("CURRENCY"), "CURSYM") => &mut pending.currency,
            _ => return,
        };
        if slot.is_none() && !value.is_empty() {
            *slot = Some(value.to_owned());
        }
    }

    /// An aggregate closes.
    pub(crate) fn close(&mut self, tag: &str) {
        self.stack.pop();
        match tag {
            "STMTTRN" => {
                if let Some(pending) = self.pending.take() {
                    self.waiting.push(pending);
                }
            }
            "STMTRS" | "CCSTMTRS" => self.settle(),
            _ => {}
        }
    }

    /// Turns the waiting transactions into real ones, now that their
    /// statement's currency is known.
    fn settle(&mut self) {
        let currency = self
            .default_currency
            .take()
            .and_then(|c| Currency::parse(&c))
            .or(self.options.currency)
            .unwrap_or(Currency::UNKNOWN);
        for pending in std::mem::take(&mut self.waiting) {
            match transaction(&pending, currency) {
                Ok(transaction) => self.statement.transactions.push(transaction),
                Err(reason) => self.statement.skipped.push(Skipped {
                    file: self.statement.name.clone(),
                    line: pending.line,
                    reason,
                }),
            }
        }
    }

    fn finish(mut self) -> Statement {
        // A file cut off before its statement aggregate closed still yields
        // the transactions read so far.
        if let Some(pending) = self.pending.take() {
            self.waiting.push(pending);
        }
        self.settle();
        self.statement
    }
}

fn transaction(
    pending: &PendingTransaction,
    currency: Currency,
) -> Result<Transaction, SkipReason> {
    let currency = match &pending.currency {
        Some(code) => Currency::parse(code).ok_or(SkipReason::BadCurrency)?,
        None => currency,
    };
    let date = pending
        .posted
        .as_deref()
        .and_then(parse_ofx_date)
        .ok_or(SkipReason::BadDate)?;
    let text = pending.amount.as_deref().ok_or(SkipReason::BadAmount)?;
    // The OFX spec says a point; some European banks write a comma anyway.
    let mark = if text.contains(',') && !text.contains('.') {
        DecimalMark::Comma
    } else {
        DecimalMark::Point
    };
    let amount = parse_amount(text, mark, currency.decimals()).ok_or(SkipReason::BadAmount)?;
    let description = pending
        .name
        .as_deref()
        .or(pending.memo.as_deref())
        .ok_or(SkipReason::NoDescription)?;
    Ok(Transaction {
        date,
        // OFX signs amounts from the account's side: a debit is negative.
        amount: Money::new(-amount, currency),
        description: description.to_owned(),
        line: pending.line,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS>
<CURDEF>USD</CURDEF>
<BANKTRANLIST>
<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20240105120000</DTPOSTED><TRNAMT>-11.99</TRNAMT><FITID>1</FITID><NAME>SPOTIFY USA</NAME></STMTTRN>
<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20240106</DTPOSTED><TRNAMT>-5.00</TRNAMT><NAME>AT&amp;T<![CDATA[ BILL]]></NAME><CURRENCY><CURRATE>1.1</CURRATE><CURSYM>EUR</CURSYM></CURRENCY></STMTTRN>
<STMTTRN><DTPOSTED>2024-01-07</DTPOSTED><TRNAMT>-1.00</TRNAMT><NAME>X</NAME></STMTTRN>
</BANKTRANLIST>
</STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>"#;

    #[test]
    fn ofx2_reads_with_signs_currencies_and_entities() {
        let s = read_xml("a.ofx", XML, &ScanOptions::default(), false).unwrap();
        assert_eq!(s.format, Format::Ofx2);
        assert_eq!(s.lines_read, 3);
        assert_eq!(s.transactions.len(), 2);
        assert_eq!(s.transactions[0].amount.to_string(), "11.99 USD");
        assert_eq!(s.transactions[0].line, 6);
        assert_eq!(s.transactions[1].description, "AT&T BILL");
        assert_eq!(s.transactions[1].amount.to_string(), "5.00 EUR");
        assert_eq!(s.skipped.len(), 1);
        assert_eq!(s.skipped[0].reason, SkipReason::BadDate);
        assert_eq!(s.skipped[0].line, 8);
    }

    #[test]
    fn broken_xml_is_an_error_with_a_line() {
        let broken = XML.replace("<NAME>X</NAME>", "<NAME>X</NAMEX>");
        let Err(ScanError::BrokenXml { line, .. }) =
            read_xml("a.ofx", &broken, &ScanOptions::default(), false)
        else {
            panic!()
        };
        assert_eq!(line, 8);
    }
}
