#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use subterminator_scan::{
    Report, ScanOptions, ServiceDescriptors, Statement, find_subscriptions, known_descriptors,
    read_statement, read_statement_bytes,
};

use super::{POLICY, html_report};

fn fixture(name: &str) -> Statement {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scan/fixtures")
        .join(name);
    read_statement(&path, &ScanOptions::default()).unwrap()
}

/// Every element the page is made of: a descriptor must never add one.
const ELEMENTS: &[&str] = &[
    "html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "svg", "text", "rect",
    "span", "table", "tr", "th", "td", "strong",
];

/// Every attribute the page's elements carry: a descriptor must never add
/// one (an `onload`, above all).
const ATTRIBUTES: &[&str] = &[
    "lang",
    "charset",
    "http-equiv",
    "content",
    "class",
    "data-chart",
    "data-currency",
    "viewBox",
    "role",
    "aria-label",
    "x",
    "y",
    "font-size",
    "width",
    "height",
    "fill",
    "style",
];

/// Each tag of `page` as `(element, attribute names)`, read the way a
/// browser starts to: every `<` opens a tag (text holds `&lt;`, never `<`),
/// attribute values are double-quoted (and hold `&quot;`, never `"`).
fn tags(page: &str) -> Vec<(String, Vec<String>)> {
    let mut tags = Vec::new();
    for (at, _) in page.match_indices('<') {
        let rest = &page[at + 1..];
        let inner = &rest[..rest.find('>').expect("a tag closes")];
        if inner.starts_with('!') {
            assert_eq!(at, 0, "only the doctype is a declaration");
            continue;
        }
        let inner = inner.strip_prefix('/').unwrap_or(inner);
        let name_end = inner
            .find(|c: char| c.is_whitespace())
            .unwrap_or(inner.len());
        let (name, mut attrs) = inner.split_at(name_end);
        let mut names = Vec::new();
        loop {
            attrs = attrs.trim_start();
            if attrs.is_empty() {
                break;
            }
            let end = attrs
                .find(|c: char| c == '=' || c.is_whitespace())
                .unwrap_or(attrs.len());
            if end == 0 {
                // No name before `=`: not the template's; the rest as a
                // name no list holds.
                names.push(attrs.to_owned());
                break;
            }
            names.push(attrs[..end].to_owned());
            attrs = &attrs[end..];
            if let Some(value) = attrs.strip_prefix("=\"") {
                attrs = value.find('"').map_or("", |at| &value[at + 1..]);
            } else if let Some(value) = attrs.strip_prefix('=') {
                // Unquoted, which the template never writes.
                attrs = value
                    .find(char::is_whitespace)
                    .map_or("", |at| &value[at..]);
            }
        }
        tags.push((name.to_owned(), names));
    }
    tags
}

/// The page is made of the template's own elements and attributes only.
fn only_the_templates_markup(page: &str) {
    for (element, attributes) in tags(page) {
        assert!(
            ELEMENTS.contains(&element.as_str()),
            "<{element}> in {page}"
        );
        for attribute in attributes {
            assert!(
                ATTRIBUTES.contains(&attribute.as_str()),
                "{attribute} on <{element}> in {page}"
            );
        }
    }
}

/// `scan --html`: the subscriptions, a chart of monthly spend per
/// subscription over the statements' months, the yearly total.
#[test]
fn the_page_has_the_table_a_chart_and_the_totals() {
    let statements = [
        fixture("chase_credit_2024a.csv"),
        fixture("chase_credit_2024b.csv"),
    ];
    let report = find_subscriptions(&statements, &known_descriptors(), None);
    let page = html_report(&report);
    assert!(page.to_lowercase().starts_with("<!doctype html>"));
    assert!(page.contains(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">"
    )));
    assert!(page.contains("<title>Subscriptions found</title>"));
    assert!(page.contains("<table class=\"subscriptions\">"));
    assert!(page.contains("<th>Service</th>"));
    assert!(page.contains("<td>Netflix</td>"));
    assert!(page.contains("<svg data-chart=\"monthly-spend\" data-currency=\"USD\""));
    // One bar per subscription per month charged, January to June.
    assert!(page.contains("2024-01") && page.contains("2024-06"));
    assert!(page.matches("<rect").count() >= 20, "{page}");
    assert!(
        page.contains("<p class=\"total\"><strong>695.40 USD a year</strong>"),
        "{page}"
    );
    assert!(!page.contains("<script"));
    only_the_templates_markup(&page);
}

/// Per currency a chart of its own (Monzo: pounds, and a merchant's
/// dollars), never one sum over two currencies.
#[test]
fn each_currency_has_a_chart_of_its_own() {
    let report = find_subscriptions(&[fixture("monzo.csv")], &known_descriptors(), None);
    assert_eq!(report.totals.len(), 2, "{:?}", report.totals);
    let page = html_report(&report);
    assert_eq!(page.matches("<svg ").count(), 2, "{page}");
    for total in &report.totals {
        let code = total.currency.code();
        assert!(
            page.contains(&format!(
                "<h2>Monthly spend per subscription, {code}</h2>\
                 <svg data-chart=\"monthly-spend\" data-currency=\"{code}\""
            )),
            "{page}"
        );
        assert!(
            page.contains(&format!(
                "aria-label=\"Monthly spend per subscription in {code}\""
            )),
            "{page}"
        );
    }
    only_the_templates_markup(&page);
}

/// Markup meant to break out of the page's `<title>`, of an attribute
/// and into an SVG element.
const HOSTILE: [&str; 3] = [
    "</title><script>alert(1)</script>",
    "\"onload=x",
    "<svg onload=1>",
];

/// The same, as the template writes it.
const ESCAPED: [&str; 3] = [
    "&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;",
    "&quot;onload=x",
    "&lt;svg onload=1&gt;",
];

/// A statement (named with markup too) where each hostile descriptor is a
/// monthly charge, plus `NETFLIX.COM`, whose service a plugin names with
/// all three; and one charge far ahead, so that a note names the file.
fn hostile_report() -> Report {
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    let charges = [
        (3, HOSTILE[0], "15.49"),
        (9, HOSTILE[1], "7.00"),
        (15, HOSTILE[2], "11.99"),
        (20, "NETFLIX.COM", "22.99"),
    ];
    for month in 1..=6 {
        for (day, descriptor, amount) in charges {
            let quoted = descriptor.replace('"', "\"\"");
            csv.push_str(&format!(
                "{month:02}/{day:02}/2024,{month:02}/{day:02}/2024,\"{quoted}\",,Sale,-{amount},\n"
            ));
        }
    }
    csv.push_str("01/01/2027,01/01/2027,ONE OFF,,Sale,-3.00,\n");
    let name = format!("{}.csv", HOSTILE.concat());
    let statement = read_statement_bytes(&name, csv.as_bytes(), &ScanOptions::default()).unwrap();
    let services = [ServiceDescriptors {
        id: "netflix".into(),
        name: HOSTILE.concat(),
        patterns: vec!["NETFLIX*".into()],
    }];
    find_subscriptions(&[statement], &services, None)
}

/// Statement text (a descriptor, a file name) and a plugin's service name
/// are text wherever the page shows them: the table, the chart's bar
/// titles and legend, the notes. None adds an element or an attribute,
/// and none closes the page's `<title>`.
#[test]
fn markup_in_a_descriptor_or_a_service_name_is_only_ever_text() {
    let report = hostile_report();
    assert_eq!(report.subscriptions.len(), 4, "{report:?}");
    assert!(!report.notes.is_empty(), "{report:?}");
    let page = html_report(&report);
    only_the_templates_markup(&page);
    assert!(!page.contains("<script"), "{page}");
    assert!(!page.contains("<svg onload"), "{page}");
    assert!(!page.contains("\"onload"), "{page}");
    assert_eq!(page.matches("<svg").count(), 1, "{page}");
    // The page's title, and one per bar: six months of four.
    assert_eq!(page.matches("<title>").count(), 1 + 24, "{page}");
    assert_eq!(page.matches("</title>").count(), 1 + 24, "{page}");
    assert!(
        page.contains("<title>Subscriptions found</title>"),
        "{page}"
    );

    let service = ESCAPED.concat();
    for (escaped, amount) in ESCAPED.iter().zip(["15.49", "7.00", "11.99"]) {
        // The table, a bar's title, the legend.
        assert!(page.contains(&format!("<td>{escaped}</td>")), "{page}");
        assert!(
            page.contains(&format!("<title>{escaped} {amount} USD</title>")),
            "{page}"
        );
        assert!(
            page.contains(&format!("</span>{escaped} ({amount} USD)")),
            "{page}"
        );
    }
    assert!(page.contains(&format!("<td>{service}</td>")), "{page}");
    assert!(
        page.contains(&format!("<title>{service} 22.99 USD</title>")),
        "{page}"
    );
    assert!(
        page.contains(&format!("</span>{service} (22.99 USD)")),
        "{page}"
    );
    // The note names the file.
    assert!(
        page.contains(&format!("<p class=\"note\">Note: {service}.csv line ")),
        "{page}"
    );
}
