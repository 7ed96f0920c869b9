//! OFX and QFX statements. Both versions carry the same elements; 2.x is XML
//! (read with quick-xml), 1.x is SGML whose leaf tags are never closed (read
//! by [`sgml`]). Each reader turns its markup into the same three
//! calls on [`OfxBuilder`]: an aggregate opens, a leaf has a value, an
//! aggregate closes.

use std::collections::{HashMap, HashSet};

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::dates::parse_ofx_date;
use crate::descriptor::{names_no_one, normalise};
use crate::error::ScanError;
use crate::lines::LineCounter;
use crate::money::{Currency, DecimalMark, Money, parse_amount};
mod sgml;
use crate::statement::{Format, ScanOptions, SkipReason, Skipped, Statement, Transaction};
use crate::xml_text::resolve_entity;

/// Deepest nesting read. OFX aggregates nest about ten deep; the limit
/// keeps a hostile file from making each element cost its depth.
pub(crate) const MAX_DEPTH: usize = 100;

/// Characters OFX 1.x allows in `NAME`: banks cut the descriptor there and
/// put the rest, or the whole, in `MEMO`.
const OFX1_NAME_CHARS: usize = 32;

/// Distinct merchants (by `MEMO`) and amounts under one `NAME` that mark
/// it a placeholder rather than a payee: a bank that writes "POS" or
/// "Card purchase" in every `NAME` would otherwise merge every merchant.
const PLACEHOLDER_SPREAD: usize = 3;

/// Reads OFX 1.x (SGML).
pub(crate) fn read_sgml(
    name: &str,
    text: &str,
    options: &ScanOptions,
    quicken: bool,
) -> Result<Statement, ScanError> {
    let mut builder = OfxBuilder::new(
        name,
        options,
        if quicken { Format::Qfx } else { Format::Ofx1 },
    );
    sgml::walk(text, &mut builder)?;
    Ok(builder.finish())
}

/// Whether an OFX body is SGML (leaves left unclosed) whatever its header
/// says: some leaf among the first ones has text and is not closed right
/// after it.
pub(crate) fn sgml_body(text: &str) -> bool {
    // Enough leaves to meet a few inside the sign-on block.
    const LEAVES_LOOKED_AT: usize = 200;
    let upper_start = text
        .char_indices()
        .find(|&(i, _)| {
            text.get(i..i + 5)
                .is_some_and(|t| t.eq_ignore_ascii_case("<OFX>"))
        })
        .map(|(i, _)| i);
    let Some(mut at) = upper_start else {
        return false;
    };
    let mut leaves = 0;
    while leaves < LEAVES_LOOKED_AT {
        let Some(open) = text[at..].find('<').map(|i| at + i) else {
            return false;
        };
        let Some(close) = text[open..].find('>').map(|i| open + i) else {
            return false;
        };
        let inside = &text[open + 1..close];
        let after = close + 1;
        let next = text[after..].find('<').map_or(text.len(), |i| after + i);
        at = next;
        if inside.starts_with(['/', '!', '?']) || text[after..next].trim().is_empty() {
            if next >= text.len() {
                return false;
            }
            continue;
        }
        leaves += 1;
        let tag = inside.split_whitespace().next().unwrap_or_default();
        let closing = format!("</{tag}>");
        let closed = text
            .get(next..next + closing.len())
            .is_some_and(|t| t.eq_ignore_ascii_case(&closing));
        if !closed {
            return true;
        }
    }
    false
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
                if open.len() >= MAX_DEPTH {
                    return Err(ScanError::TooDeep {
                        name: name.to_owned(),
                        line: lines.line_at(reader.buffer_position()),
                        limit: MAX_DEPTH,
                    });
                }
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
            Event::Eof => {
                if !open.is_empty() {
                    return Err(ScanError::Truncated {
                        name: name.to_owned(),
                        line: lines.line_at(text.len()),
                    });
                }
                break;
            }
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
    id: Option<String>,
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
    /// The statement's name, for errors.
    pub(crate) fn name(&self) -> &str {
        &self.statement.name
    }

    fn new(name: &str, options: &'o ScanOptions, format: Format) -> Self {
        OfxBuilder {
            statement: Statement {
                name: name.to_owned(),
                format,
                transactions: Vec::new(),
                lines_read: 0,
                skipped: Vec::new(),
                notes: Vec::new(),
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
            (Some("STMTTRN"), "FITID") => &mut pending.id,
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
        let placeholders = placeholder_names(&self.waiting);
        for pending in std::mem::take(&mut self.waiting) {
            match transaction(&pending, currency, &placeholders) {
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
        // Only reached for a file whose markup closed (the readers refuse
        // one cut short); a statement aggregate missing its own close
        // inside it still yields its transactions.
        if let Some(pending) = self.pending.take() {
            self.waiting.push(pending);
        }
        self.settle();
        self.statement
    }
}

/// The `NAME`s that are placeholders: words that name no one ("POS",
/// "DEBIT"), or one name over several merchants (by `MEMO`) at several
/// amounts.
fn placeholder_names(waiting: &[PendingTransaction]) -> HashSet<String> {
    let mut spread: HashMap<&str, (HashSet<String>, HashSet<&str>)> = HashMap::new();
    let mut found = HashSet::new();
    for pending in waiting {
        let (Some(name), Some(memo)) = (pending.name.as_deref(), pending.memo.as_deref()) else {
            continue;
        };
        if names_no_one(name) {
            found.insert(name.to_owned());
            continue;
        }
        let (memos, amounts) = spread.entry(name).or_default();
        memos.insert(normalise(memo));
        if let Some(amount) = pending.amount.as_deref() {
            amounts.insert(amount);
        }
    }
    for (name, (memos, amounts)) in spread {
        if memos.len() >= PLACEHOLDER_SPREAD && amounts.len() >= PLACEHOLDER_SPREAD {
            found.insert(name.to_owned());
        }
    }
    found
}

/// The descriptor of an OFX transaction from its `NAME` and `MEMO`: the
/// `MEMO` when it repeats the name in full or the name is a placeholder;
/// both when the name fills OFX 1.x's 32 characters and was cut there
/// ("RECURRING PAYMENT AUTHORIZED ON" with the merchant in `MEMO`).
fn descriptor(pending: &PendingTransaction, placeholders: &HashSet<String>) -> Option<String> {
    let name = pending
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty());
    let memo = pending
        .memo
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty());
    Some(match (name, memo) {
        (None, None) => return None,
        (Some(name), None) => name.to_owned(),
        (None, Some(memo)) => memo.to_owned(),
        (Some(name), Some(memo)) => {
            let cut = pending
                .name
                .as_deref()
                .is_some_and(|n| n.chars().count() >= OFX1_NAME_CHARS - 1);
            if memo.to_uppercase().starts_with(&name.to_uppercase())
                || placeholders.contains(pending.name.as_deref().unwrap_or_default())
            {
                memo.to_owned()
            } else if cut {
                format!("{name} {memo}")
            } else {
                name.to_owned()
            }
        }
    })
}

fn transaction(
    pending: &PendingTransaction,
    currency: Currency,
    placeholders: &HashSet<String>,
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
    let description = descriptor(pending, placeholders).ok_or(SkipReason::NoDescription)?;
    Ok(Transaction {
        date,
        // OFX signs amounts from the account's side: a debit is negative.
        amount: Money::new(-amount, currency),
        description,
        line: pending.line,
        id: pending.id.clone(),
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

    /// Issue 42: the body, not the header, says SGML or XML; text around
    /// multi-byte characters is looked at without cutting one.
    #[test]
    fn an_sgml_body_is_told_from_an_xml_one() {
        let cases = [
            (
                "<?OFX?><OFX><SONRS><CODE>0\n<SEVERITY>INFO\n</SONRS></OFX>",
                true,
            ),
            ("<?OFX?><OFX><SONRS><CODE>0</CODE></SONRS></OFX>", false),
            ("<?OFX?>é€<OFX><NAME><![CDATA[Café]]></NAME></OFX>", false),
            ("<?OFX?>€€€", false),
        ];
        for (text, want) in cases {
            assert_eq!(sgml_body(text), want, "{text}");
        }
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
