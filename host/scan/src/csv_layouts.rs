//! The CSV exports this crate recognises, by their header lines. Each entry
//! says which columns hold what and which sign a charge has, because every
//! bank picked its own. Where each header comes from: `fixtures/README.md`.
//!
//! Order matters: a layout is tried before any whose header names are a
//! subset of its own, so the more specific one wins.

use crate::columns::ChargeSign;

/// One bank's export.
pub(crate) struct Layout {
    /// Shown as the statement's format: `"Chase credit card"`.
    pub name: &'static str,
    /// Header names that must all be present.
    pub required: &'static [&'static str],
    /// Header names of which at least one must be present (none: no such
    /// condition). Tells American Express apart from any plain
    /// Date/Description/Amount file, whose sign convention is unknown.
    pub any_of: &'static [&'static str],
    /// Date columns, the first non-empty one wins.
    pub date: &'static [&'static str],
    /// Formats tried on the date, in order.
    pub date_formats: &'static [&'static str],
    /// Description columns, the first non-empty one wins.
    pub description: &'static [&'static str],
    /// Where the amount is.
    pub amount: Amount,
    /// A column with each row's currency.
    pub currency: Option<&'static str>,
    /// Amount and currency columns for a charge made in another currency.
    /// When filled they are used (with the sign of the main amount): the
    /// merchant's price holds still from month to month, the converted
    /// amount moves with the exchange rate and would read as a price change.
    pub original: Option<(&'static str, &'static str)>,
    /// The currency when no column says: the account's.
    pub default_currency: Option<&'static str>,
    /// Rows to pass over, by a column's value: payments that moved no
    /// money (declined, reverted), that may yet change (pending), or that
    /// only moved it between the person's own pots and currencies.
    pub ignored_rows: &'static [(&'static str, &'static [&'static str])],
    /// A column with the bank's own id for each row: two identical charges
    /// on one day with two ids are two charges.
    pub id: Option<&'static str>,
    /// Whether the same header comes with either date order: American
    /// Express writes `MM/DD/YYYY` on its US site and `DD/MM/YYYY` on its
    /// UK one. The rows then decide (a day above 12), or the person does.
    pub either_date_order: bool,
}

/// Where a layout keeps its amount.
pub(crate) enum Amount {
    /// One signed column.
    Signed(&'static str, ChargeSign),
    /// Unsigned money-out and money-in columns.
    DebitCredit {
        debit: &'static str,
        credit: &'static str,
    },
}

// Two-digit years first: "%Y" would read "24" as the year 24.
const US_DATE: &[&str] = &["%m/%d/%y", "%m/%d/%Y"];
const ISO_DATE: &[&str] = &["%Y-%m-%d"];

/// Every known layout, most specific first.
pub(crate) const LAYOUTS: &[Layout] = &[
    Layout {
        name: "Chase credit card",
        required: &["Transaction Date", "Post Date", "Description", "Amount"],
        any_of: &[],
        date: &["Transaction Date", "Post Date"],
        date_formats: US_DATE,
        description: &["Description"],
        amount: Amount::Signed("Amount", ChargeSign::Negative),
        currency: None,
        original: None,
        default_currency: Some("USD"),
        ignored_rows: &[],
        id: None,
        either_date_order: false,
    },
    Layout {
        name: "Chase checking",
        required: &["Details", "Posting Date", "Description", "Amount"],
        any_of: &[],
        date: &["Posting Date"],
        date_formats: US_DATE,
        description: &["Description"],
        amount: Amount::Signed("Amount", ChargeSign::Negative),
        currency: None,
        original: None,
        default_currency: Some("USD"),
        ignored_rows: &[],
        id: None,
        either_date_order: false,
    },
    Layout {
        name: "Bank of America checking",
        required: &["Date", "Description", "Amount", "Running Bal."],
        any_of: &[],
        date: &["Date"],
        date_formats: US_DATE,
        description: &["Description"],
        amount: Amount::Signed("Amount", ChargeSign::Negative),
        currency: None,
        original: None,
        default_currency: Some("USD"),
        ignored_rows: &[],
        id: None,
        either_date_order: false,
    },
    Layout {
        name: "Bank of America credit card",
        required: &["Posted Date", "Reference Number", "Payee", "Amount"],
        any_of: &[],
        date: &["Posted Date"],
        date_formats: US_DATE,
        description: &["Payee"],
        amount: Amount::Signed("Amount", ChargeSign::Negative),
        currency: None,
        original: None,
        default_currency: Some("USD"),
        ignored_rows: &[],
        id: None,
        either_date_order: false,
    },
    Layout {
        name: "American Express",
        required: &["Date", "Description", "Amount"],
        any_of: &[
            "Card Member",
            "Account #",
            "Extended Details",
            "Appears On Your Statement As",
        ],
        date: &["Date"],
        date_formats: US_DATE,
        // The descriptor the card network carried, when the export has it;
        // "Description" is Amex's tidied name.
        description: &["Appears On Your Statement As", "Description"],
        amount: Amount::Signed("Amount", ChargeSign::Positive),
        currency: None,
        original: None,
        default_currency: Some("USD"),
        ignored_rows: &[],
        id: Some("Reference"),
        either_date_order: true,
    },
    Layout {
        name: "Capital One",
        required: &[
            "Transaction Date",
            "Posted Date",
            "Card No.",
            "Description",
            "Debit",
            "Credit",
        ],
        any_of: &[],
        date: &["Transaction Date", "Posted Date"],
        date_formats: ISO_DATE,
        description: &["Description"],
        amount: Amount::DebitCredit {
            debit: "Debit",
            credit: "Credit",
        },
        currency: None,
        original: None,
        default_currency: Some("USD"),
        ignored_rows: &[],
        id: None,
        either_date_order: false,
    },
    Layout {
        name: "Monzo",
        required: &["Transaction ID", "Date", "Name", "Amount", "Currency"],
        any_of: &[],
        date: &["Date"],
        date_formats: &["%d/%m/%Y"],
        // Description is the raw card descriptor; Name is Monzo's tidied
        // merchant name, there for transfers that have no descriptor.
        description: &["Description", "Name"],
        amount: Amount::Signed("Amount", ChargeSign::Negative),
        currency: Some("Currency"),
        original: Some(("Local amount", "Local currency")),
        default_currency: Some("GBP"),
        // Money put into or taken out of the person's own savings pots: a
        // monthly transfer to a pot would otherwise look like a subscription.
        ignored_rows: &[("Type", &["Pot transfer"])],
        id: Some("Transaction ID"),
        either_date_order: false,
    },
    Layout {
        name: "Revolut",
        required: &[
            "Type",
            "Started Date",
            "Completed Date",
            "Description",
            "Amount",
            "Currency",
            "State",
        ],
        any_of: &[],
        date: &["Completed Date", "Started Date"],
        date_formats: &["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d"],
        description: &["Description"],
        amount: Amount::Signed("Amount", ChargeSign::Negative),
        currency: Some("Currency"),
        original: None,
        default_currency: None,
        // A pending row reappears as completed in the next export, possibly
        // on another date, and would then count twice. An exchange moves
        // money between the person's own currency pockets.
        ignored_rows: &[
            ("State", &["REVERTED", "DECLINED", "FAILED", "PENDING"]),
            ("Type", &["EXCHANGE"]),
        ],
        id: None,
        either_date_order: false,
    },
    Layout {
        name: "N26",
        required: &["Booking Date", "Partner Name", "Amount (EUR)"],
        any_of: &[],
        date: &["Booking Date", "Value Date"],
        date_formats: ISO_DATE,
        description: &["Partner Name", "Payment Reference"],
        amount: Amount::Signed("Amount (EUR)", ChargeSign::Negative),
        currency: None,
        original: Some(("Original Amount", "Original Currency")),
        default_currency: Some("EUR"),
        ignored_rows: &[],
        id: None,
        either_date_order: false,
    },
    Layout {
        name: "N26 (before 2024)",
        required: &["Date", "Payee", "Amount (EUR)"],
        any_of: &[],
        date: &["Date"],
        date_formats: ISO_DATE,
        description: &["Payee", "Payment reference"],
        amount: Amount::Signed("Amount (EUR)", ChargeSign::Negative),
        currency: None,
        original: Some(("Amount (Foreign Currency)", "Type Foreign Currency")),
        default_currency: Some("EUR"),
        ignored_rows: &[],
        id: None,
        either_date_order: false,
    },
];

/// Compares header names as banks vary them: case, surrounding spaces.
pub(crate) fn same_header(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// The first layout whose header this is.
pub(crate) fn recognise(header: &[&str]) -> Option<&'static Layout> {
    let has = |name: &str| header.iter().any(|cell| same_header(cell, name));
    LAYOUTS.iter().find(|layout| {
        layout.required.iter().all(|name| has(name))
            && (layout.any_of.is_empty() || layout.any_of.iter().any(|name| has(name)))
    })
}

#[cfg(test)]
mod tests {
    use super::recognise;

    /// Each bank's header line, as exported, against the layout it must be
    /// read as; and headers that must not be guessed at.
    #[test]
    fn headers_are_recognised() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Transaction Date,Post Date,Description,Category,Type,Amount,Memo",
                Some("Chase credit card"),
            ),
            (
                "Details,Posting Date,Description,Amount,Type,Balance,Check or Slip #",
                Some("Chase checking"),
            ),
            (
                "Date,Description,Amount,Running Bal.",
                Some("Bank of America checking"),
            ),
            (
                "Posted Date,Reference Number,Payee,Address,Amount",
                Some("Bank of America credit card"),
            ),
            (
                "Date,Description,Card Member,Account #,Amount",
                Some("American Express"),
            ),
            (
                "Date,Description,Amount,Extended Details,Appears On Your Statement As,Address,City/State,Zip Code,Country,Reference,Category",
                Some("American Express"),
            ),
            (
                "Transaction Date,Posted Date,Card No.,Description,Category,Debit,Credit",
                Some("Capital One"),
            ),
            (
                "Transaction ID,Date,Time,Type,Name,Emoji,Category,Amount,Currency,Local amount,Local currency,Notes and #tags,Address,Receipt,Description,Category split,Money Out,Money In",
                Some("Monzo"),
            ),
            (
                "Type,Product,Started Date,Completed Date,Description,Amount,Fee,Currency,State,Balance",
                Some("Revolut"),
            ),
            (
                "Booking Date,Value Date,Partner Name,Partner Iban,Type,Payment Reference,Account Name,Amount (EUR),Original Amount,Original Currency,Exchange Rate",
                Some("N26"),
            ),
            (
                "Date,Payee,Account number,Transaction type,Payment reference,Amount (EUR),Amount (Foreign Currency),Type Foreign Currency,Exchange Rate",
                Some("N26 (before 2024)"),
            ),
            (
                "date , DESCRIPTION,amount,running bal.",
                Some("Bank of America checking"),
            ),
            // Whose sign is a charge? Unknown: ask for explicit columns.
            ("Date,Description,Amount", None),
            ("Buchungstag;Betrag", None),
        ];
        for (header, want) in cases {
            let cells: Vec<&str> = header.split(',').collect();
            assert_eq!(recognise(&cells).map(|l| l.name), *want, "{header}");
        }
    }
}
