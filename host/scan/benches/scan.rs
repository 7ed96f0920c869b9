//! How long a big statement takes: a 50,000-line Chase CSV (four years of a
//! busy card: 34 subscriptions among tens of thousands of one-off purchases,
//! most of them at Amazon with a new order reference each) is written to a
//! temporary directory, then read and scanned for recurring charges several
//! times. Prints the median wall time; the target is under a second.
//!
//! `cargo bench -p subterminator-scan`
//!
//! `SCAN_BENCH_LINES=1000000 cargo bench -p subterminator-scan` writes and
//! scans a statement of that many lines once instead. Either way the bench
//! then runs itself on the file to read and scan it alone, and reports
//! that process's peak resident memory.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use chrono::{Days, NaiveDate};
use subterminator_scan::{ScanOptions, find_subscriptions, known_descriptors, read_statement};

/// Lines of the statement, header not counted, unless `SCAN_BENCH_LINES`
/// says otherwise.
const LINES: usize = 50_000;
/// Timed runs; the median is reported.
const RUNS: usize = 7;
/// The figure the issue asks for.
const TARGET: Duration = Duration::from_secs(1);
/// Monthly subscriptions at merchants no pattern knows, beside the four at
/// known ones (Netflix, Spotify, two at Apple).
const PLANTED_ELSEWHERE: u64 = 30;

/// A merchant name without digits (digits are stripped from descriptors
/// as store and reference numbers, so `SERVICE 1` and `SERVICE 2` would be
/// one merchant): `STREAMING BRAVO`, `CLOUD DELTA`, …
fn merchant_name(i: u64) -> String {
    const KINDS: [&str; 5] = ["STREAMING", "CLOUD", "NEWS", "FITNESS", "GAMES"];
    const NAMES: [&str; 6] = ["ALPHA", "BRAVO", "CHARLIE", "DELTA", "ECHO", "FOXTROT"];
    format!(
        "{} {}",
        KINDS[(i % 5) as usize],
        NAMES[(i / 5) as usize % 6]
    )
}

/// A small deterministic generator, so every run scans the same statement.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn reference(&mut self) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
        (0..9)
            .map(|_| char::from(ALPHABET[self.below(ALPHABET.len() as u64) as usize]))
            .collect()
    }
}

/// The statement: subscriptions on fixed days, one-offs filling the rest.
fn statement(lines: usize) -> String {
    let subscriptions: Vec<(String, u64, u32)> = (0..PLANTED_ELSEWHERE)
        .map(|i| {
            (
                format!("{} 800-555-01{i:02} CA", merchant_name(i)),
                499 + 100 * i,
                (i % 28 + 1) as u32,
            )
        })
        .chain([
            ("NETFLIX.COM".to_owned(), 1549, 3),
            ("Spotify USA".to_owned(), 1199, 15),
            ("APPLE.COM/BILL 866-712-7753 CA".to_owned(), 299, 8),
            ("APPLE.COM/BILL 866-712-7753 CA".to_owned(), 999, 22),
        ])
        .collect();
    let start = NaiveDate::from_ymd_opt(2021, 1, 1).unwrap();
    let days = 4 * 365;
    let mut rng = Lcg(0x5eed);
    let mut rows: Vec<(NaiveDate, String, i64)> = Vec::with_capacity(lines);
    for day in 0..days {
        let date = start.checked_add_days(Days::new(day)).unwrap();
        for (descriptor, cents, on) in &subscriptions {
            if date.format("%d").to_string().parse::<u32>().unwrap() == *on {
                rows.push((date, descriptor.clone(), -(*cents as i64)));
            }
        }
    }
    let one_offs = lines - rows.len();
    for _ in 0..one_offs {
        let date = start.checked_add_days(Days::new(rng.below(days))).unwrap();
        let cents = 100 + rng.below(25_000) as i64;
        let descriptor = match rng.below(10) {
            0..=3 => format!("AMZN Mktp US*{}", rng.reference()),
            4 => format!("SQ *CAFE NUMBER {}", rng.below(300)),
            5 => format!("TST* DINER {} {}", rng.below(200), rng.below(9999)),
            6 => format!("SHELL OIL {}", 10_000 + rng.below(90_000)),
            7 => "UBER TRIP HELP.UBER.COM CA".to_owned(),
            8 => format!("WHOLEFDS MKT {}", 10_000 + rng.below(500)),
            _ => format!("MERCHANT {} STORE #{}", rng.below(2000), rng.below(999)),
        };
        let amount = if rng.below(40) == 0 { cents } else { -cents };
        rows.push((date, descriptor, amount));
    }
    rows.sort_by_key(|row| std::cmp::Reverse(row.0));
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    for (date, descriptor, cents) in &rows {
        let day = date.format("%m/%d/%Y");
        let sign = if *cents < 0 { "-" } else { "" };
        let units = cents.unsigned_abs();
        let kind = if *cents < 0 { "Sale" } else { "Return" };
        writeln!(
            csv,
            "{day},{day},{descriptor},Shopping,{kind},{sign}{}.{:02},",
            units / 100,
            units % 100
        )
        .unwrap();
    }
    csv
}

/// Set to a statement's path: read and scan it once, print this process's
/// peak resident memory and stop. The bench runs itself so, for a figure
/// that holds the scan alone and not the generator's strings.
const ONLY: &str = "SCAN_BENCH_ONLY";

/// This process's peak resident set, from `/proc/self/status` (Linux).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn scan_only(path: &str) {
    let options = ScanOptions {
        max_bytes: Some(u64::MAX),
        ..ScanOptions::default()
    };
    let statement = read_statement(std::path::Path::new(path), &options).unwrap();
    let report = find_subscriptions(std::slice::from_ref(&statement), &known_descriptors(), None);
    assert!(!report.subscriptions.is_empty());
    println!("{}", peak_rss_kib().unwrap_or(0));
}

/// Peak resident memory of a process that only reads and scans `path`.
fn peak_of_scan_alone(path: &std::path::Path) -> Option<u64> {
    let output = std::process::Command::new(std::env::current_exe().ok()?)
        .env(ONLY, path)
        .output()
        .ok()?;
    String::from_utf8(output.stdout).ok()?.trim().parse().ok()
}

fn main() {
    if let Ok(path) = std::env::var(ONLY) {
        scan_only(&path);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chase-50000.csv");
    let wanted: usize = std::env::var("SCAN_BENCH_LINES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(LINES);
    let runs = if wanted > LINES { 1 } else { RUNS };
    let text = statement(wanted);
    std::fs::write(&path, &text).unwrap();
    // Only the file is scanned: the text written is not held meanwhile.
    let text_len = text.len();
    drop(text);
    let services = known_descriptors();
    let options = ScanOptions::default();

    let options = ScanOptions {
        max_bytes: Some(u64::MAX),
        ..options
    };
    let mut totals = Vec::with_capacity(runs);
    let mut reads = Vec::with_capacity(runs);
    let mut found = 0;
    let mut lines = 0;
    for _ in 0..runs {
        let started = Instant::now();
        let statement = read_statement(&path, &options).unwrap();
        let read = started.elapsed();
        let report = find_subscriptions(std::slice::from_ref(&statement), &services, None);
        totals.push(started.elapsed());
        reads.push(read);
        found = report.subscriptions.len();
        lines = report.lines_read;
    }
    totals.sort();
    reads.sort();
    let median = totals[runs / 2];
    let read = reads[runs / 2];
    println!(
        "scan: {lines} lines ({:.1} MB CSV), {runs} runs",
        text_len as f64 / 1e6
    );
    println!(
        "  read + find subscriptions: median {} ms (min {} ms, max {} ms)",
        median.as_millis(),
        totals[0].as_millis(),
        totals[runs - 1].as_millis()
    );
    println!(
        "  of which reading the CSV: median {} ms; finding: {} ms",
        read.as_millis(),
        median.saturating_sub(read).as_millis()
    );
    if let Some(kib) = peak_of_scan_alone(&path) {
        println!(
            "  peak resident memory of a process that only reads and scans it: {:.1} MiB ({:.1}x the file)",
            kib as f64 / 1024.0,
            (kib * 1024) as f64 / text_len as f64
        );
    }
    println!(
        "  subscriptions found: {found} (planted: {})",
        PLANTED_ELSEWHERE + 4
    );
    // The target is the 50,000-line statement's; a bigger one is run for
    // its memory figure.
    if wanted == LINES {
        println!(
            "  target {} ms: {}",
            TARGET.as_millis(),
            if median < TARGET { "met" } else { "MISSED" }
        );
    }
    assert_eq!(lines, wanted, "the statement has {wanted} lines");
}
