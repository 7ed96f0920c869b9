#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use subterminator_scan::{
    ScanOptions, find_subscriptions, known_descriptors, read_statement, read_statement_bytes,
};

use super::{HEADER, table_rows};

fn fixture(name: &str) -> subterminator_scan::Statement {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scan/fixtures")
        .join(name);
    read_statement(&path, &ScanOptions::default()).unwrap()
}

#[test]
fn a_row_each_then_the_totals_under_the_header() {
    let report = find_subscriptions(
        &[fixture("bank_of_america_checking.csv")],
        &known_descriptors(),
        None,
    );
    assert_eq!(
        HEADER,
        [
            "Service",
            "Charged as",
            "Every",
            "Last charge",
            "Amount",
            "Per year",
            "Price change",
            "Status",
            "What to do"
        ]
    );
    let rows = table_rows(&report);
    assert_eq!(rows.len(), 4 + 1);
    assert_eq!(
        rows[0],
        [
            "-",
            "T-MOBILE DES:PCS SVC ID:XXXXX4415 INDN:JANE DOE CO ID:XXXXX00459 WEB",
            "monthly",
            "2024-06-18",
            "90.00 USD",
            "1080.00 USD",
            "85.00 → 90.00 USD on 2024-04-18",
            "active",
            "billed through T-Mobile: remove it from your phone plan in your T-Mobile account \
             (Account → Add-ons or Benefits), or call 611",
        ]
    );
    assert_eq!(rows[1][0], "Max");
    assert_eq!(rows[1][8], "subterminator cancel max");
    assert_eq!(rows[2][8], "no plugin: cancel with the merchant");
    assert_eq!(rows[3][7], "ended?");
    assert_eq!(
        rows[4],
        [
            "Total USD",
            "3 subscriptions",
            "",
            "",
            "116.99 USD a month",
            "1403.88 USD",
            "",
            "",
            ""
        ]
    );
}

#[test]
fn nothing_in_no_rows_out() {
    let report = find_subscriptions(&[], &known_descriptors(), None);
    assert!(table_rows(&report).is_empty());
}

/// A merchant no plugin knows, whose descriptor names a web address: the
/// row says where to cancel.
#[test]
fn a_row_without_a_plugin_says_where_to_cancel() {
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    for month in 1..=4 {
        csv.push_str(&format!(
            "{month:02}/07/2024,{month:02}/07/2024,ADOBE.COM/BILL,,Sale,-22.99,\n"
        ));
    }
    let statement = read_statement_bytes("a.csv", csv.as_bytes(), &ScanOptions::default()).unwrap();
    let rows = table_rows(&find_subscriptions(
        &[statement],
        &known_descriptors(),
        None,
    ));
    assert_eq!(
        rows[0][8], "no plugin: cancel at https://adobe.com",
        "{rows:?}"
    );
}

/// Statement text is made inert by the scan crate; the rows keep it so:
/// an escape sequence or a bidi override in a descriptor reaches the
/// terminal written out, never as the character.
#[test]
fn escape_sequences_in_a_descriptor_reach_the_table_written_out() {
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    for (day, descriptor) in [
        (5, "\u{1b}[2J\u{1b}]0;pwned\u{7}NETFLIX.COM"),
        (6, "HULU \u{202e}MOC.ULUH\u{202c}"),
    ] {
        for month in 1..=4 {
            csv.push_str(&format!(
                "{month:02}/{day:02}/2024,{month:02}/{day:02}/2024,{descriptor},,Sale,-9.99,\n"
            ));
        }
    }
    let statement = read_statement_bytes("e.csv", csv.as_bytes(), &ScanOptions::default()).unwrap();
    let report = find_subscriptions(&[statement], &known_descriptors(), None);
    let table: String = table_rows(&report).concat().concat();
    for raw in ['\u{1b}', '\u{7}', '\u{202e}'] {
        assert!(!table.contains(raw), "{table}");
    }
    assert!(table.contains("\\u{1b}[2J"), "{table}");
    assert!(table.contains("\\u{202e}"), "{table}");
}
