//! ISO 20022 CAMT.053 (bank-to-customer statement), CAMT.052 (account
//! report) and CAMT.054 (debit/credit notification), the XML that European
//! banks export. All three hold the same `Ntry` elements (under `Stmt`,
//! `Rpt` and `Ntfctn`): an amount with its currency as an attribute, a
//! credit/debit indicator instead of a sign, a booking date, and the other
//! party's name deep in its details.
//!
//! Element names are matched without their namespace prefix, so versions
//! .001.02 to .001.13 read alike. A file that ends inside an element is
//! refused (it was cut short), and so is nesting deeper than
//! [`MAX_DEPTH`].

mod payee;

use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::Event;

use crate::dates::parse_iso_date;
use crate::error::ScanError;
use crate::lines::LineCounter;
use crate::money::{Currency, DecimalMark, Money, parse_amount};
use crate::statement::{Format, ScanOptions, SkipReason, Skipped, Statement, Transaction};
use crate::xml_text::resolve_entity;

/// One `Ntry` being read.
#[derive(Default)]
struct Entry {
    line: usize,
    amount: Option<String>,
    currency: Option<String>,
    direction: Option<String>,
    status: Option<String>,
    booked: Option<String>,
    value_date: Option<String>,
    creditor: Option<String>,
    debtor: Option<String>,
    remittance: Option<String>,
    info: Option<String>,
    id: Option<String>,
}

/// Deepest nesting read: real CAMT nests about fifteen deep. Each element
/// costs its depth (its path is compared), so the limit also keeps a file
/// nested a million deep from taking minutes.
const MAX_DEPTH: usize = 100;

/// The account's currency and its bank's name, read before the entries.
#[derive(Default)]
struct Account {
    currency: Option<Currency>,
    servicer: Option<String>,
}

pub(crate) fn read(
    name: &str,
    text: &str,
    options: &ScanOptions,
    format: Format,
) -> Result<Statement, ScanError> {
    let mut statement = Statement {
        name: name.to_owned(),
        format,
        transactions: Vec::new(),
        lines_read: 0,
        skipped: Vec::new(),
        notes: Vec::new(),
    };
    let mut reader = Reader::from_str(text);
    let mut lines = LineCounter::new(text);
    let mut path: Vec<String> = Vec::new();
    let mut content = String::new();
    let mut entry: Option<(usize, Entry)> = None;
    let mut account = Account::default();

    loop {
        let event = reader.read_event().map_err(|_| ScanError::BrokenXml {
            name: name.to_owned(),
            line: lines.line_at(reader.error_position()),
        })?;
        match event {
            Event::Start(start) => {
                if path.len() >= MAX_DEPTH {
                    return Err(ScanError::TooDeep {
                        name: name.to_owned(),
                        line: lines.line_at(reader.buffer_position()),
                        limit: MAX_DEPTH,
                    });
                }
                let tag = start.local_name().into_inner().to_owned();
                content.clear();
                if tag == "Ntry" && entry.is_none() {
                    statement.lines_read += 1;
                    let line = lines.line_at(reader.buffer_position());
                    entry = Some((
                        path.len() + 1,
                        Entry {
                            line,
                            ..Entry::default()
                        },
                    ));
                }
                if let Some((depth, entry)) = entry.as_mut()
                    && tag == "Amt"
                    && path.len() == *depth
                    && let Ok(Some(attribute)) = start.try_get_attribute("Ccy")
                    && let Ok(code) = attribute.normalized_value(XmlVersion::Implicit1_0)
                {
                    entry.currency = Some(code.into_owned());
                }
                path.push(tag);
            }
            Event::Text(text) => content.push_str(&text),
            Event::CData(data) => content.push_str(&data),
            Event::GeneralRef(reference) => content.push_str(&resolve_entity(&reference)),
            Event::End(_) => {
                let value = content.trim();
                match entry.as_mut() {
                    Some((depth, _)) if path.len() == *depth => {
                        // The entry itself ends.
                        if let Some((_, done)) = entry.take() {
                            finish(&mut statement, done, &account, options.currency);
                        }
                    }
                    Some((depth, current)) => {
                        // Bounded by MAX_DEPTH: an entry's own path is short.
                        let relative: Vec<&str> = path
                            .get(*depth..)
                            .unwrap_or_default()
                            .iter()
                            .map(String::as_str)
                            .collect();
                        note(current, &relative, value);
                    }
                    None => note_account(&mut account, &path, value),
                }
                path.pop();
                content.clear();
            }
            Event::Eof => {
                if !path.is_empty() {
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
    Ok(statement)
}

/// Records what an entry needs from the account: its currency and its
/// bank's name (a card payment's creditor is often the bank itself).
fn note_account(account: &mut Account, path: &[String], value: &str) {
    let tail = |want: &[&str]| {
        path.len() >= want.len()
            && path[path.len() - want.len()..]
                .iter()
                .zip(want)
                .all(|(a, b)| a == b)
    };
    let report = ["Stmt", "Rpt", "Ntfctn"];
    let under_report = |rest: &[&str]| {
        report.iter().any(|r| {
            let mut want = vec![*r];
            want.extend_from_slice(rest);
            tail(&want)
        })
    };
    if under_report(&["Acct", "Ccy"]) {
        account.currency = Currency::parse(value);
    } else if under_report(&["Acct", "Svcr", "FinInstnId", "Nm"]) && !value.is_empty() {
        account.servicer = Some(value.to_owned());
    }
}

/// Records a leaf inside an entry, by its path below `Ntry`.
fn note(entry: &mut Entry, relative: &[&str], value: &str) {
    if value.is_empty() {
        return;
    }
    let slot = match relative {
        ["Amt"] => &mut entry.amount,
        ["CdtDbtInd"] => &mut entry.direction,
        ["Sts"] | ["Sts", "Cd"] => &mut entry.status,
        ["BookgDt", "Dt" | "DtTm"] => &mut entry.booked,
        ["ValDt", "Dt" | "DtTm"] => &mut entry.value_date,
        ["AddtlNtryInf"] => &mut entry.info,
        [.., "RltdPties", "Cdtr", "Nm"] | [.., "RltdPties", "Cdtr", "Pty", "Nm"] => {
            &mut entry.creditor
        }
        [.., "RltdPties", "Dbtr", "Nm"] | [.., "RltdPties", "Dbtr", "Pty", "Nm"] => {
            &mut entry.debtor
        }
        [.., "RmtInf", "Ustrd"] => &mut entry.remittance,
        ["AcctSvcrRef"] => &mut entry.id,
        _ => return,
    };
    if slot.is_none() {
        *slot = Some(value.to_owned());
    }
}

fn finish(
    statement: &mut Statement,
    entry: Entry,
    account: &Account,
    fallback_currency: Option<Currency>,
) {
    // Pending entries may still be cancelled or rebooked on another day.
    if entry
        .status
        .as_deref()
        .is_some_and(|s| s.eq_ignore_ascii_case("PDNG"))
    {
        return;
    }
    match transaction(
        &entry,
        account.currency.or(fallback_currency),
        account.servicer.as_deref(),
    ) {
        Ok(transaction) => statement.transactions.push(transaction),
        Err(reason) => statement.skipped.push(Skipped {
            file: statement.name.clone(),
            line: entry.line,
            reason,
        }),
    }
}

fn transaction(
    entry: &Entry,
    account_currency: Option<Currency>,
    servicer: Option<&str>,
) -> Result<Transaction, SkipReason> {
    let currency = match &entry.currency {
        Some(code) => Currency::parse(code).ok_or(SkipReason::BadCurrency)?,
        None => account_currency.unwrap_or(Currency::UNKNOWN),
    };
    let amount = entry
        .amount
        .as_deref()
        .and_then(|a| parse_amount(a, DecimalMark::Point, currency.decimals()))
        .ok_or(SkipReason::BadAmount)?;
    // CAMT amounts are unsigned; the indicator says which way money went.
    let (charge, counterparty) = match entry.direction.as_deref() {
        Some("DBIT") => (amount, &entry.creditor),
        Some("CRDT") => (-amount, &entry.debtor),
        _ => return Err(SkipReason::BadAmount),
    };
    let date = entry
        .booked
        .as_deref()
        .or(entry.value_date.as_deref())
        .and_then(parse_iso_date)
        .ok_or(SkipReason::BadDate)?;
    // The other party's name is what stays the same from month to month;
    // the remittance line often carries a new reference each time. Unless
    // the other party only passed the money on (PayPal, the bank itself):
    // then the remittance line names the merchant.
    let description = payee::describe(
        counterparty.as_deref(),
        entry.remittance.as_deref(),
        entry.info.as_deref(),
        servicer,
    )
    .ok_or(SkipReason::NoDescription)?;
    Ok(Transaction {
        date,
        amount: Money::new(charge, currency),
        description,
        line: entry.line,
        id: entry.id.clone(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const CAMT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
<BkToCstmrStmt><Stmt><Acct><Id><IBAN>DE00</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Bal><Amt Ccy="EUR">100.00</Amt></Bal>
<Ntry><Amt Ccy="EUR">10.99</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2024-01-05</Dt></BookgDt>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Spotify AB</Nm></Cdtr></RltdPties><RmtInf><Ustrd>P123 Spotify</Ustrd></RmtInf></TxDtls></NtryDtls>
</Ntry>
<Ntry><Amt>2500.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><DtTm>2024-01-28T09:00:00+01:00</DtTm></BookgDt>
<NtryDtls><TxDtls><RltdPties><Dbtr><Pty><Nm>Arbeitgeber GmbH</Nm></Pty></Dbtr><Cdtr><Nm>Me</Nm></Cdtr></RltdPties></TxDtls></NtryDtls></Ntry>
<Ntry><Amt Ccy="EUR">5.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>PDNG</Sts><BookgDt><Dt>2024-01-29</Dt></BookgDt><AddtlNtryInf>Pending</AddtlNtryInf></Ntry>
<Ntry><Amt Ccy="EUR">abc</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-29</Dt></BookgDt><AddtlNtryInf>X</AddtlNtryInf></Ntry>
</Stmt></BkToCstmrStmt></Document>"#;

    #[test]
    fn entries_read_with_direction_and_counterparty() {
        let s = read("s.xml", CAMT, &ScanOptions::default(), Format::Camt053).unwrap();
        assert_eq!(s.lines_read, 4);
        let got: Vec<(String, String, String, usize)> = s
            .transactions
            .iter()
            .map(|t| {
                (
                    t.date.to_string(),
                    t.description.clone(),
                    t.amount.to_string(),
                    t.line,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "2024-01-05".into(),
                    "Spotify AB".into(),
                    "10.99 EUR".into(),
                    5
                ),
                (
                    "2024-01-28".into(),
                    "Arbeitgeber GmbH".into(),
                    "-2500.00 EUR".into(),
                    9
                ),
            ]
        );
        assert_eq!(s.skipped.len(), 1);
        assert_eq!(s.skipped[0].line, 12);
        assert_eq!(s.skipped[0].reason, SkipReason::BadAmount);
    }
}
