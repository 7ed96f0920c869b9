//! `subterminator scan`: the real binary over the scan crate's fixtures.
//! The table and its totals, JSON Lines, exit 2 for what cannot be read,
//! a malformed line skipped by number, `--cancel` handing exactly the
//! matched services to the batch (or nothing, at a no), and the privacy
//! promise: at the most verbose logging, no amount or descriptor of any
//! fixture reaches stderr or a file under the home, and stdout shows them
//! only in the table.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Output;

use subterminator_practice::{FlowSite, flow};
use subterminator_tests::e2e;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../host/scan/fixtures")
}

fn fixture(name: &str) -> String {
    fixtures().join(name).display().to_string()
}

/// The options the generic fixture needs (its expectation file gives them).
const GENERIC_COLUMNS: &str =
    "date=Buchungstag,amount=Betrag,description=Begünstigter/Zahlungspflichtiger,currency=Währung";

async fn scan(home: &Path, args: &[&str], input: &str) -> Output {
    let mut command = e2e::command(home);
    command.arg("scan").args(args);
    e2e::run(command, input).await.unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The table on stdout, cut into cells at the header's column starts.
struct Table {
    rows: Vec<Vec<String>>,
}

const HEADER: [&str; 9] = [
    "SERVICE",
    "CHARGED AS",
    "EVERY",
    "LAST CHARGE",
    "AMOUNT",
    "PER YEAR",
    "PRICE CHANGE",
    "STATUS",
    "WHAT TO DO",
];

impl Table {
    fn parse(stdout: &str) -> Table {
        let mut lines = stdout.lines().skip_while(|l| !l.starts_with("SERVICE"));
        let header: Vec<char> = lines.next().expect("a header line").chars().collect();
        let header_text: String = header.iter().collect();
        let starts: Vec<usize> = HEADER
            .iter()
            .map(|title| {
                let at = header_text.find(title).expect(title);
                header_text[..at].chars().count()
            })
            .collect();
        let rows = lines
            .take_while(|l| !l.starts_with("Read "))
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let chars: Vec<char> = line.chars().collect();
                (0..starts.len())
                    .map(|i| {
                        let from = starts[i].min(chars.len());
                        let to = starts
                            .get(i + 1)
                            .map_or(chars.len(), |s| (*s).min(chars.len()));
                        chars[from..to].iter().collect::<String>().trim().to_owned()
                    })
                    .collect()
            })
            .collect();
        Table { rows }
    }

    /// The row charged as `descriptor` at `amount`.
    fn row(&self, descriptor: &str, amount: &str) -> &[String] {
        self.rows
            .iter()
            .find(|r| r[1] == descriptor && r[4] == amount)
            .unwrap_or_else(|| panic!("no row {descriptor} at {amount} in {:#?}", self.rows))
    }

    /// The total row of `currency`.
    fn total(&self, currency: &str) -> &[String] {
        let label = format!("Total {currency}");
        self.rows
            .iter()
            .find(|r| r[0] == label)
            .unwrap_or_else(|| panic!("no {label} in {:#?}", self.rows))
    }
}

/// One row expected: service, charged as, every, amount, per year, and how
/// "what to do" begins.
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
);

/// A total expected: currency, how many, per month, per year.
type Total = (&'static str, &'static str, &'static str, &'static str);

/// Statements, extra flags, rows and totals.
type Case = (
    &'static [&'static str],
    &'static [&'static str],
    &'static [Row],
    &'static [Total],
);

/// Rows and totals checked against the fixtures' hand-written expectations
/// (`host/scan/fixtures/*.expected.toml`).
#[tokio::test(flavor = "multi_thread")]
async fn the_table_shows_each_subscription_and_the_totals_per_currency() {
    let cases: &[Case] = &[
        (
            &["chase_credit_2024a.csv", "chase_credit_2024b.csv"],
            &[],
            &[
                (
                    "Netflix",
                    "NETFLIX.COM",
                    "monthly",
                    "17.99 USD",
                    "215.88 USD",
                    "subterminator cancel netflix",
                ),
                (
                    "Spotify Premium",
                    "Spotify USA",
                    "monthly",
                    "11.99 USD",
                    "143.88 USD",
                    "subterminator cancel spotify",
                ),
                (
                    "-",
                    "APPLE.COM/BILL 866-712-7753 CA",
                    "monthly",
                    "9.99 USD",
                    "119.88 USD",
                    "billed through Apple: cancel in your Apple account",
                ),
                (
                    "-",
                    "APPLE.COM/BILL 866-712-7753 CA",
                    "monthly",
                    "2.99 USD",
                    "35.88 USD",
                    "billed through Apple: cancel in your Apple account",
                ),
                (
                    "Hulu",
                    "HLU*HULU 1234567-U",
                    "monthly",
                    "7.99 USD",
                    "95.88 USD",
                    "subterminator cancel hulu",
                ),
            ],
            &[("USD", "5 subscriptions", "57.95 USD a month", "695.40 USD")],
        ),
        (
            &["bank_of_america_checking.csv"],
            &[],
            &[
                (
                    "-",
                    "T-MOBILE DES:PCS SVC ID:XXXXX4415 INDN:JANE DOE CO ID:XXXXX00459 WEB",
                    "monthly",
                    "90.00 USD",
                    "1080.00 USD",
                    "billed through T-Mobile",
                ),
                (
                    "Max",
                    "CHECKCARD 0610 MAX.COM 855-442-6629 NY 24492150160700987654326",
                    "monthly",
                    "16.99 USD",
                    "203.88 USD",
                    "subterminator cancel max",
                ),
                (
                    "-",
                    "PLANET FITNESS DES:CLUB FEES ID:XXXXX7767 INDN:DOE JANE CO ID:XXXXX12004 WEB",
                    "monthly",
                    "10.00 USD",
                    "120.00 USD",
                    "no plugin",
                ),
            ],
            &[(
                "USD",
                "3 subscriptions",
                "116.99 USD a month",
                "1403.88 USD",
            )],
        ),
        (
            &["monzo.csv"],
            &[],
            &[
                (
                    "Spotify Premium",
                    "Spotify P2D9R1T6W3",
                    "monthly",
                    "11.99 GBP",
                    "143.88 GBP",
                    "subterminator cancel spotify",
                ),
                (
                    "-",
                    "PATREON* MEMBERSHIP INTERNET GBR",
                    "monthly",
                    "3.00 GBP",
                    "36.00 GBP",
                    "no plugin",
                ),
                (
                    "-",
                    "OPENAI *CHATGPT SUBSCR SAN FRANCISCO USA",
                    "monthly",
                    "20.00 USD",
                    "240.00 USD",
                    "no plugin",
                ),
            ],
            &[
                ("GBP", "4 subscriptions", "30.98 GBP a month", "371.76 GBP"),
                ("USD", "1 subscriptions", "20.00 USD a month", "240.00 USD"),
            ],
        ),
        (
            &["credit_card.qfx"],
            &[],
            &[
                (
                    "The New York Times",
                    "NYTIMES*NYTIMES SUB",
                    "monthly",
                    "25.00 USD",
                    "300.00 USD",
                    "subterminator cancel nytimes",
                ),
                (
                    "-",
                    "Amazon Channels*Z5X6C7V8B",
                    "monthly",
                    "8.99 USD",
                    "107.88 USD",
                    "billed through Amazon",
                ),
            ],
            &[("USD", "3 subscriptions", "48.98 USD a month", "587.76 USD")],
        ),
        (
            &["generic_latin1_semicolons.csv"],
            &["--columns", GENERIC_COLUMNS, "--date-format", "%d.%m.%y"],
            &[
                (
                    "-",
                    "Vodafone GmbH",
                    "monthly",
                    "39.99 EUR",
                    "479.88 EUR",
                    "no plugin",
                ),
                (
                    "Netflix",
                    "Netflix International B.V.",
                    "monthly",
                    "13.99 EUR",
                    "167.88 EUR",
                    "subterminator cancel netflix",
                ),
            ],
            &[],
        ),
    ];
    let home = tempfile::tempdir().unwrap();
    for (files, options, rows, totals) in cases {
        let mut args: Vec<String> = files.iter().map(|f| fixture(f)).collect();
        args.extend(options.iter().map(|o| (*o).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = scan(home.path(), &args, "").await;
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(0), "{said}");
        let table = Table::parse(&stdout(&out));
        for (service, descriptor, every, amount, yearly, what) in *rows {
            let row = table.row(descriptor, amount);
            assert_eq!(row[0], *service, "{files:?} {descriptor}: {row:?}");
            assert_eq!(row[2], *every, "{files:?} {descriptor}: {row:?}");
            assert_eq!(row[5], *yearly, "{files:?} {descriptor}: {row:?}");
            assert!(row[8].starts_with(what), "{files:?} {descriptor}: {row:?}");
        }
        for (currency, count, per_month, per_year) in *totals {
            let total = table.total(currency);
            assert_eq!(
                [&total[1], &total[4], &total[5]],
                [count, per_month, per_year],
                "{files:?}: {total:?}"
            );
        }
    }
}

/// The details a row carries beyond price: a price change, an ended
/// subscription, and the line on what was read.
#[tokio::test(flavor = "multi_thread")]
async fn price_changes_ended_subscriptions_and_overlaps_are_shown() {
    let home = tempfile::tempdir().unwrap();
    let files = [
        fixture("chase_credit_2024a.csv"),
        fixture("chase_credit_2024b.csv"),
    ];
    let out = scan(home.path(), &[&files[0], &files[1]], "").await;
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let table = Table::parse(&stdout(&out));
    let netflix = table.row("NETFLIX.COM", "17.99 USD");
    assert_eq!(netflix[3], "2024-06-03");
    assert_eq!(netflix[6], "15.49 → 17.99 USD on 2024-05-03");
    assert_eq!(netflix[7], "active");
    assert_eq!(table.row("HLU*HULU 1234567-U", "7.99 USD")[7], "ended?");
    let text = stdout(&out);
    assert!(
        text.contains(
            "Read 53 lines from 2 statements: 0 skipped, 5 duplicates across overlapping exports counted once."
        ),
        "{said}"
    );
    assert!(
        text.contains("ended ones are left out of the totals"),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_gives_one_object_per_subscription_then_the_totals() {
    let home = tempfile::tempdir().unwrap();
    let out = scan(home.path(), &[&fixture("monzo.csv"), "--json"], "").await;
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let objects: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let (last, subscriptions) = objects.split_last().unwrap();
    assert_eq!(subscriptions.len(), 5, "{said}");
    let spotify = &subscriptions[0];
    assert_eq!(spotify["service"], "spotify");
    assert_eq!(spotify["descriptor"], "Spotify P2D9R1T6W3");
    assert_eq!(spotify["cadence"], "monthly");
    assert_eq!(spotify["amount"]["amount"], "11.99");
    assert_eq!(spotify["amount"]["currency"], "GBP");
    assert_eq!(spotify["yearly_cost"]["amount"], "143.88");
    assert_eq!(spotify["action"]["kind"], "cancel");
    assert!(subscriptions.iter().all(|s| s.get("totals").is_none()));
    assert_eq!(last["subscriptions"], 5);
    assert_eq!(last["totals"][0]["currency"], "GBP");
    assert_eq!(last["totals"][0]["per_month"]["amount"], "30.98");
    assert_eq!(last["totals"][0]["per_year"]["amount"], "371.76");
    assert_eq!(last["totals"][1]["currency"], "USD");
    assert_eq!(last["lines_read"], 45);
    assert_eq!(last["lines_skipped"], 0);
    assert_eq!(last["duplicates"], 0);
    assert_eq!(last["as_of"], "2024-04-28");
}

/// Whatever cannot be read exits 2 with what to do about it: the path and
/// the reason, the known formats and the header names found, the flag.
#[tokio::test(flavor = "multi_thread")]
async fn what_cannot_be_read_exits_2_saying_why() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let unknown = dir.path().join("mystery-bank.csv");
    std::fs::write(&unknown, "Buchung,Gegenkonto,Wert\n01.02.2024,Acme,-9.99\n").unwrap();
    let pdf = dir.path().join("statement.pdf");
    std::fs::write(&pdf, b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n").unwrap();
    let missing = dir.path().join("gone.csv");
    let (unknown, pdf, missing, folder) = (
        unknown.display().to_string(),
        pdf.display().to_string(),
        missing.display().to_string(),
        dir.path().display().to_string(),
    );
    let monzo = fixture("monzo.csv");
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec![&unknown],
            vec![
                "mystery-bank.csv: not a statement format this reads",
                "found header names: \"Buchung\", \"Gegenkonto\", \"Wert\"",
                "known: CSV from Chase, Bank of America, American Express, Capital One, Monzo, Revolut or N26",
                "OFX 1.x (SGML), OFX 2.x (XML), QFX, ISO 20022 CAMT.053",
                "--columns date=",
            ],
        ),
        (vec![&pdf], vec!["this is a PDF", "known: CSV from Chase"]),
        (
            vec![&monzo, &missing],
            vec![&missing, "No such file or directory", "check the path"],
        ),
        (vec![&folder], vec![&folder, "Is a directory"]),
        (
            vec![&monzo, "--columns", "date=Date,amount"],
            vec!["bad column map", "\"amount\" is not key=column"],
        ),
        (
            vec![
                &monzo,
                "--columns",
                "date=Posted,amount=Amount,description=Payee",
            ],
            vec![
                "no column \"Posted\"",
                "found header names: \"Transaction ID\"",
            ],
        ),
        (
            vec![&monzo, "--date-format", "%Q"],
            vec!["bad date format \"%Q\""],
        ),
        (
            vec![&monzo, "--currency", "euro"],
            vec!["bad currency \"euro\""],
        ),
        (vec![&monzo, "--as-of", "2024-13-01"], vec!["--as-of"]),
        (vec![&monzo, "--yes"], vec!["--cancel"]),
        (
            vec![&monzo, "--model", "offline"],
            vec!["--model is for the runs of --cancel"],
        ),
    ];
    for (args, wants) in cases {
        let out = scan(home.path(), &args, "").await;
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: nothing printed before: {said}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        for want in wants {
            assert!(stderr.contains(want), "{args:?} wants {want:?}: {said}");
        }
        // A transaction of the unknown file is not repeated.
        assert!(
            !stderr.contains("Acme") && !stderr.contains("9.99"),
            "{said}"
        );
    }
    // A file its reader may not open (not as root, who may open anything).
    if !nix::unistd::geteuid().is_root() {
        use std::os::unix::fs::PermissionsExt;
        let locked = dir.path().join("locked.csv");
        std::fs::copy(fixtures().join("monzo.csv"), &locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        let out = scan(home.path(), &[&locked.display().to_string()], "").await;
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(2), "{said}");
        assert!(
            said.contains("Permission denied") && said.contains("locked.csv"),
            "{said}"
        );
    }
}

/// Lines 3 and 22 of the generic fixture are broken (an amount, a date):
/// each is named by file and number, its content is not, and the rest of
/// the statement is read.
#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_line_is_skipped_and_named_by_its_number() {
    let home = tempfile::tempdir().unwrap();
    let generic = fixture("generic_latin1_semicolons.csv");
    let args = [
        generic.as_str(),
        "--columns",
        GENERIC_COLUMNS,
        "--date-format",
        "%d.%m.%y",
    ];
    let out = scan(home.path(), &args, "").await;
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        stdout(&out).contains(
            "Read 32 lines from 1 statement: 2 skipped (generic_latin1_semicolons.csv line 3: unreadable amount, line 22: unreadable date)"
        ),
        "{said}"
    );
    // What the broken lines said: a café, its amount, a bakery.
    for content in ["Kränzler", "12,3,4", "Bäckerei", "Schäfer"] {
        assert!(!said.contains(content), "{content}: {said}");
    }
    let table = Table::parse(&stdout(&out));
    assert_eq!(table.row("Vodafone GmbH", "39.99 EUR")[2], "monthly");

    // The JSON lists the skipped lines the same way.
    let mut json_args = args.to_vec();
    json_args.push("--json");
    let out = scan(home.path(), &json_args, "").await;
    let last: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().last().unwrap()).unwrap();
    assert_eq!(
        last["skipped"],
        serde_json::json!([
            {"file": "generic_latin1_semicolons.csv", "line": 3, "reason": "bad_amount"},
            {"file": "generic_latin1_semicolons.csv", "line": 22, "reason": "bad_date"},
        ])
    );
}

/// The run flags `--cancel` passes on: offline (no key here), no window,
/// throwaway profiles, a short run. The tests using them start no run (a
/// no, or nothing to cancel), so no site is needed.
const RUN_FLAGS: [&str; 7] = [
    "--cancel",
    "--model",
    "offline",
    "--headless",
    "--isolated",
    "--max-turns",
    "2",
];

fn chase() -> [String; 2] {
    [
        fixture("chase_credit_2024a.csv"),
        fixture("chase_credit_2024b.csv"),
    ]
}

/// The service of each run folder, from its name (`<stamp>-<id>-<short>`).
fn services_run(home: &Path) -> Vec<String> {
    let mut ids: Vec<String> = e2e::run_dirs(home)
        .iter()
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let (rest, _short) = name.rsplit_once('-').unwrap();
            ["netflix", "amazon-prime", "spotify", "hulu", "max"]
                .into_iter()
                .find(|id| rest.ends_with(id))
                .unwrap_or(rest)
                .to_owned()
        })
        .collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread")]
async fn cancel_answered_no_starts_nothing() {
    let [a, b] = chase();
    let question = "Cancel these 3 subscriptions here: netflix, amazon-prime, spotify? [y/N]";
    for (answer, json) in [("n\n", false), ("", false), ("no\n", true)] {
        let home = tempfile::tempdir().unwrap();
        let mut args = vec![a.as_str(), b.as_str()];
        args.extend(RUN_FLAGS);
        if json {
            args.push("--json");
        }
        let out = scan(home.path(), &args, answer).await;
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(0), "{answer:?}: {said}");
        assert!(said.contains(question), "{said}");
        assert!(said.contains("Nothing was cancelled."), "{said}");
        assert!(e2e::run_dirs(home.path()).is_empty(), "{answer:?}: {said}");
        assert!(!home.path().join("data/runs").exists(), "{said}");
        if json {
            // The question went to stderr; stdout is JSON Lines still.
            assert!(String::from_utf8_lossy(&out.stderr).contains(question));
            for line in stdout(&out).lines() {
                serde_json::from_str::<serde_json::Value>(line).unwrap();
            }
        }
    }
}

/// A card statement in Chase's layout: Spotify and Hulu current, an app
/// billed through Apple, a gym, Peacock ended in March, a one-off purchase.
/// Odd amounts and reference numbers, so that a run record showing one of
/// them is caught (the practice sites show prices of their own).
fn practice_statement(dir: &Path) -> PathBuf {
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    for month in 1..=5 {
        let row = |day: u32, what: &str, amount: &str| {
            format!(
                "{month:02}/{day:02}/2024,{month:02}/{day:02}/2024,{what},Shopping,Sale,-{amount},\n"
            )
        };
        csv.push_str(&row(3, "SPOTIFY P0C4E7ST", "13.37"));
        csv.push_str(&row(7, "HLU*HULU 8675309-U", "8.21"));
        csv.push_str(&row(9, "APPLE.COM/BILL 866-712-7753 CA", "4.73"));
        csv.push_str(&row(5, "PLANET FITNESS 4471", "24.61"));
        if month <= 3 {
            csv.push_str(&row(2, "PEACOCK 2290 NEW YORK NY", "7.97"));
        }
    }
    csv.push_str("04/18/2024,04/18/2024,WHOLE FOODS 10233,Groceries,Sale,-84.12,\n");
    let path = dir.join("card.csv");
    std::fs::write(&path, csv).unwrap();
    path
}

/// What [`practice_statement`] says, none of which a run may record.
const PRACTICE_DESCRIPTORS: &[&str] = &[
    "P0C4E7ST",
    "HLU*HULU",
    "APPLE.COM",
    "PLANET FITNESS",
    "PEACOCK 2290",
    "WHOLE FOODS",
];
const PRACTICE_AMOUNTS: &[&str] = &["13.37", "8.21", "4.73", "24.61", "7.97", "84.12"];

async fn practice_site(service: &str) -> FlowSite {
    FlowSite::serve(flow::load(service, None).unwrap())
        .await
        .unwrap()
}

fn commits(site: &FlowSite) -> usize {
    let commit = site.flow().commit_request();
    site.requests()
        .iter()
        .filter(|r| r.starts_with(&commit))
        .count()
}

/// A yes to scan's question, then a yes to each run's own: the real
/// binary, Playwright MCP and Chromium cancel exactly the two current
/// subscriptions a plugin can, each on its practice site, and no run
/// records anything of the statement.
#[tokio::test(flavor = "multi_thread")]
async fn cancel_answered_yes_cancels_the_matched_services_on_their_practice_sites() {
    let (spotify, hulu, peacock) = (
        practice_site("spotify").await,
        practice_site("hulu").await,
        practice_site("peacock").await,
    );
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let statement = practice_statement(dir.path()).display().to_string();
    let urls = [
        format!("spotify={}", spotify.url()),
        format!("hulu={}", hulu.url()),
        // Peacock ended: its site must hear nothing.
        format!("peacock={}", peacock.url()),
    ];
    let mut args = vec![statement.as_str()];
    args.extend(["--cancel", "--model", "offline", "--headless", "--isolated"]);
    for url in &urls {
        args.extend(["--start-url", url.as_str()]);
    }
    let out = scan(home.path(), &args, "y\ny\ny\n").await;
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("Cancel these 2 subscriptions here: spotify, hulu? [y/N]"),
        "{said}"
    );
    assert!(
        said.contains("--start-url peacock=…: peacock is not among the subscriptions to cancel"),
        "{said}"
    );
    assert_eq!(services_run(home.path()), ["hulu", "spotify"], "{said}");
    for dir in e2e::run_dirs(home.path()) {
        let result: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap())
                .unwrap();
        assert_eq!(result["verified"], true, "{}: {said}", dir.display());
    }
    assert_eq!(commits(&spotify), 1, "{:?}", spotify.requests());
    assert_eq!(commits(&hulu), 1, "{:?}", hulu.requests());
    assert!(peacock.requests().is_empty(), "{:?}", peacock.requests());
    // The batch's table after the scan's, a verified row each.
    let text = stdout(&out);
    let summary = text.rsplit("SERVICE").next().unwrap();
    for id in ["spotify", "hulu"] {
        assert!(
            summary
                .lines()
                .any(|l| l.starts_with(id) && l.contains("verified")),
            "{said}"
        );
    }
    // Run records name the services, never the statement's lines.
    let mut written = Vec::new();
    files_under(home.path(), &mut written);
    assert!(!written.is_empty());
    for file in &written {
        let text = String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned();
        for secret in PRACTICE_DESCRIPTORS {
            assert!(
                !text.contains(secret),
                "{} holds {secret:?}",
                file.display()
            );
        }
        for amount in PRACTICE_AMOUNTS {
            assert!(
                !shows_amount(&text, amount),
                "{} holds {amount}",
                file.display()
            );
        }
    }
}

/// `--yes --json`: no question of scan's own (each run still asks before
/// it commits), and stdout stays JSON Lines: the subscriptions, the totals,
/// then the batch's array on a line of its own.
#[tokio::test(flavor = "multi_thread")]
async fn cancel_with_yes_and_json_asks_only_the_runs_and_stdout_stays_json_lines() {
    let (spotify, hulu) = (practice_site("spotify").await, practice_site("hulu").await);
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let statement = practice_statement(dir.path()).display().to_string();
    let urls = [
        format!("spotify={}", spotify.url()),
        format!("hulu={}", hulu.url()),
    ];
    let mut args = vec![statement.as_str(), "--json", "--yes", "--jobs", "1"];
    args.extend(["--cancel", "--model", "offline", "--headless", "--isolated"]);
    for url in &urls {
        args.extend(["--start-url", url.as_str()]);
    }
    let out = scan(home.path(), &args, "y\ny\n").await;
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(!said.contains("Cancel these"), "{said}");
    let lines: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{said}")))
        .collect();
    let (runs, report) = lines.split_last().unwrap();
    let (totals, subscriptions) = report.split_last().unwrap();
    assert_eq!(totals["subscriptions"], subscriptions.len(), "{said}");
    let runs = runs.as_array().unwrap();
    let ran: Vec<&str> = runs
        .iter()
        .map(|r| r["service"].as_str().unwrap())
        .collect();
    assert_eq!(ran, ["spotify", "hulu"], "{said}");
    assert!(
        runs.iter()
            .all(|r| r["result"]["success"] == true && r["result"]["verified"] == true),
        "{said}"
    );
    // Each run asked its one question, on stderr under --json.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("] asks:").count(), 2, "{said}");
    assert_eq!(commits(&spotify), 1, "{:?}", spotify.requests());
    assert_eq!(commits(&hulu), 1, "{:?}", hulu.requests());
}

#[tokio::test(flavor = "multi_thread")]
async fn with_nothing_a_plugin_can_cancel_cancel_says_so_and_exits_0() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A gym and an app billed through Apple: no plugin cancels either.
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    for month in 1..=4 {
        csv.push_str(&format!(
            "{month:02}/05/2024,{month:02}/06/2024,PLANET FITNESS,Health,Sale,-24.99,\n"
        ));
        csv.push_str(&format!("{month:02}/09/2024,{month:02}/10/2024,APPLE.COM/BILL 866-712-7753 CA,Shopping,Sale,-4.99,\n"));
    }
    let statement = dir.path().join("card.csv");
    std::fs::write(&statement, csv).unwrap();
    let mut args = vec![statement.to_str().unwrap()];
    args.extend(RUN_FLAGS);
    let out = scan(home.path(), &args, "y\n").await;
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("Nothing to cancel here"), "{said}");
    assert!(!said.contains("[y/N]"), "{said}");
    assert!(e2e::run_dirs(home.path()).is_empty(), "{said}");
}

/// Amounts as a statement may write them: `15.49`, `-15,49`, `1,812.40`,
/// `2.850,00`: digits, a decimal mark, two digits, and no more of a dotted
/// number on either side (a date `28.06.24` or a timestamp's `02.123456` is
/// none). Each is kept as written and as `1812.40` and `1812,40`, so that
/// a log or a file showing it any of these ways is caught.
fn amounts(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let digit = |i: usize| chars.get(i).is_some_and(char::is_ascii_digit);
    let at = |i: usize| chars.get(i).copied();
    let digits_before = |end: usize| (0..end).rev().take_while(|i| digit(*i)).count();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !digit(i) || (i > 0 && digit(i - 1)) {
            i += 1;
            continue;
        }
        let start = i;
        let end = start + (start..).take_while(|j| digit(*j)).count();
        i = end;
        let decimal = at(end);
        let cents_end = end + 3;
        let is_amount = matches!(decimal, Some('.' | ','))
            && digit(end + 1)
            && digit(end + 2)
            && !digit(cents_end)
            && !(at(cents_end) == Some('.') && digit(cents_end + 1));
        if !is_amount {
            continue;
        }
        let mut whole: String = chars[start..end].iter().collect();
        let cents: String = chars[end + 1..cents_end].iter().collect();
        let before = start.checked_sub(1).and_then(at);
        // One thousands group in front (`1,812.40`, `2.850,00`): its mark is
        // not the decimal one, and the group after it has three digits.
        let group = match before {
            Some('.' | ',') if before != decimal && end - start == 3 => {
                Some(digits_before(start - 1)).filter(|n| (1..=3).contains(n))
            }
            _ => None,
        };
        match (group, before) {
            (Some(n), _) => {
                let from = start - 1 - n;
                found.push(chars[from..cents_end].iter().collect());
                whole = format!(
                    "{}{whole}",
                    chars[from..start - 1].iter().collect::<String>()
                );
            }
            // The tail of a dotted number: a date, a version.
            (None, Some('.')) => continue,
            _ => {}
        }
        if whole.trim_start_matches('0').is_empty() && cents == "00" {
            continue; // 0.00: a fee column, not anyone's purchase
        }
        found.push(format!("{whole},{cents}"));
        found.push(format!("{whole}.{cents}"));
    }
    found
}

/// Whether `haystack` shows the amount `amount` as a number of its own:
/// `15.49` is in "15.49 USD", not in the timestamp "12:15.4900Z".
fn shows_amount(haystack: &str, amount: &str) -> bool {
    haystack.match_indices(amount).any(|(at, _)| {
        let before = haystack[..at].chars().next_back();
        let mut after = haystack[at + amount.len()..].chars();
        let next = after.next();
        let continues = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        let number_before = before.is_some_and(|c| c.is_ascii_digit() || c == '.' || c == ',');
        let number_after =
            continues(next) || (matches!(next, Some('.' | ',')) && continues(after.next()));
        !number_before && !number_after
    })
}

fn collapse(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What must not leak from one expectation's statements: every amount in
/// the files, and the descriptor of every subscription it lists. A
/// descriptor that is just a bundled service's name ("Netflix", as Revolut
/// writes it) is left out: the plugin loader names its services anyway.
struct Secrets {
    amounts: Vec<String>,
    descriptors: Vec<String>,
}

const SERVICE_WORDS: &[&str] = &["netflix", "spotify", "hulu", "max", "peacock", "practice"];

impl Secrets {
    fn of(expectation: &toml::Value, files: &[String]) -> Secrets {
        let mut amounts = Vec::new();
        for file in files {
            let bytes = std::fs::read(fixtures().join(file)).unwrap();
            amounts.extend(amounts_of(&String::from_utf8_lossy(&bytes)));
        }
        let descriptors = expectation
            .get("subscription")
            .and_then(toml::Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|s| s.get("descriptor").and_then(toml::Value::as_str))
            .map(collapse)
            .filter(|d| !SERVICE_WORDS.contains(&d.as_str()))
            .collect();
        Secrets {
            amounts,
            descriptors,
        }
    }

    /// The first secret `text` shows, if any.
    fn shown_in(&self, text: &str) -> Option<String> {
        let collapsed = collapse(text);
        self.descriptors
            .iter()
            .find(|d| collapsed.contains(d.as_str()))
            .or_else(|| self.amounts.iter().find(|a| shows_amount(text, a)))
            .cloned()
    }
}

fn amounts_of(text: &str) -> Vec<String> {
    let mut found = amounts(text);
    found.sort();
    found.dedup();
    found
}

/// Every regular file under `dir`, symbolic links not followed (the shared
/// plugin cache is linked in, and is not this run's writing).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        if meta.is_dir() {
            files_under(&path, out);
        } else if meta.is_file() {
            out.push(path);
        }
    }
}

/// The privacy promise, over every fixture at the most verbose logging:
/// no amount or descriptor in stderr or in any file under the home, and on
/// stdout only in the table's lines.
#[tokio::test(flavor = "multi_thread")]
async fn no_amount_or_descriptor_leaves_the_table_even_at_trace_level() {
    let home = tempfile::tempdir().unwrap();
    let mut expectations: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".expected.toml"))
        .collect();
    expectations.sort();
    assert!(expectations.len() >= 12, "{expectations:?}");
    let mut everything = Secrets {
        amounts: Vec::new(),
        descriptors: Vec::new(),
    };
    let mut logged = 0;
    for path in &expectations {
        let expectation: toml::Value =
            toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let files: Vec<String> = expectation["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_owned())
            .collect();
        let mut args: Vec<String> = vec!["-vv".into(), "scan".into()];
        args.extend(files.iter().map(|f| fixture(f)));
        for (key, flag) in [
            ("columns", "--columns"),
            ("date_format", "--date-format"),
            ("currency", "--currency"),
            ("as_of", "--as-of"),
        ] {
            if let Some(value) = expectation.get(key) {
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                args.extend([flag.to_owned(), value]);
            }
        }
        let mut command = e2e::command(home.path());
        command.args(&args).env("RUST_LOG", "trace");
        let out = e2e::run(command, "").await.unwrap();
        let said = e2e::text(&out);
        let name = path.file_name().unwrap().to_string_lossy();
        assert_eq!(out.status.code(), Some(0), "{name}: {said}");

        let secrets = Secrets::of(&expectation, &files);
        assert!(
            !secrets.amounts.is_empty() && !secrets.descriptors.is_empty(),
            "{name}"
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        logged += stderr.lines().count();
        if let Some(secret) = secrets.shown_in(&stderr) {
            panic!("{name}: stderr shows {secret:?}:\n{stderr}");
        }
        // stdout: the table (header to the line before "Read …") may show
        // them; the lines around it may not.
        let text = stdout(&out);
        let mut in_table = false;
        let mut table_lines = 0;
        for line in text.lines() {
            if line.starts_with("SERVICE") {
                in_table = true;
            } else if line.starts_with("Read ") {
                in_table = false;
            }
            if in_table {
                table_lines += 1;
            } else if let Some(secret) = secrets.shown_in(line) {
                panic!("{name}: stdout shows {secret:?} outside the table: {line}\n{text}");
            }
        }
        assert!(table_lines > 2, "{name}: {said}");
        // Something the secrets catch is in the table, or the check is blind.
        assert!(secrets.shown_in(&text).is_some(), "{name}: {said}");
        everything.amounts.extend(secrets.amounts);
        everything.descriptors.extend(secrets.descriptors);
    }
    assert!(logged > 20, "trace logging was on: {logged} lines");

    // Nothing written under the home holds any of it, and no statement was
    // copied there.
    let mut written = Vec::new();
    files_under(home.path(), &mut written);
    for file in &written {
        let bytes = std::fs::read(file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        if let Some(secret) = everything.shown_in(&text) {
            panic!("{} holds {secret:?}", file.display());
        }
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(
            !name.ends_with(".csv")
                && !name.ends_with(".ofx")
                && !name.ends_with(".qfx")
                && !name.ends_with(".xml"),
            "{}",
            file.display()
        );
    }
}

#[test]
fn amounts_are_found_as_statements_write_them() {
    let cases: &[(&str, &[&str])] = &[
        ("03/20/2024,WHOLE FOODS,84.12,x", &["84,12", "84.12"]),
        ("\"2.850,00\";\"EUR\"", &["2.850,00", "2850,00", "2850.00"]),
        (
            "Beginning balance,,\"1,812.40\"",
            &["1,812.40", "1812,40", "1812.40"],
        ),
        ("<TRNAMT>-15.49", &["15,49", "15.49"]),
        ("2024-02-01 10:00:02,0.00,EUR", &[]),
        ("<DTPOSTED>20240103120000.000[-5:EST]", &[]),
        ("\"-12,3,4\"", &[]),
        ("28.06.24;\"-13,99\"", &["13,99", "13.99"]),
        ("-13.99,0.00,EUR", &["13,99", "13.99"]),
    ];
    for (text, want) in cases {
        let mut want: Vec<String> = want.iter().map(|s| (*s).to_owned()).collect();
        want.sort();
        assert_eq!(amounts_of(text), want, "{text}");
    }
    let shows = [
        ("15.49 USD", "15.49", true),
        ("cost: -15.49", "15.49", true),
        ("at 17:45:12.3456Z", "12.34", false),
        ("115.49", "15.49", false),
        ("15.491", "15.49", false),
        ("15.49.2", "15.49", false),
        ("15.49.", "15.49", true),
    ];
    for (text, amount, want) in shows {
        assert_eq!(shows_amount(text, amount), want, "{amount} in {text}");
    }
}

/// `scan --html` (issue 42), rendered by Chromium as a person's browser
/// would: a chart of monthly spend per currency, a row per subscription,
/// the yearly total. A descriptor written as markup stays text, and the
/// page's own policy lets no script run. On a terminal with a display the
/// page is handed to the desktop's opener; in a pipe only its path is said.
#[tokio::test(flavor = "multi_thread")]
async fn the_html_report_renders_in_chromium_and_opens_on_a_screen() {
    let home = tempfile::tempdir().unwrap();
    let mut csv =
        String::from("Transaction Date,Post Date,Description,Category,Type,Amount,Memo\n");
    for month in 1..=6 {
        for (day, descriptor, amount) in [
            (3, "NETFLIX.COM", "15.49"),
            (9, "<img src=x onerror=document.title='owned'>", "7.00"),
            (15, "Spotify USA", "11.99"),
        ] {
            let date = format!("{month:02}/{day:02}/2024");
            csv.push_str(&format!(
                "{date},{date},\"{descriptor}\",Entertainment,Sale,-{amount},\n"
            ));
        }
    }
    let statement = home.path().join("chase.csv");
    std::fs::write(&statement, csv).unwrap();
    let page = home.path().join("report.html");
    let out = scan(
        home.path(),
        &[
            statement.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        "",
    )
    .await;
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        stdout(&out).contains(&format!("The report as a page: {}", page.display())),
        "{said}"
    );

    let dom = e2e::rendered(&page).await.unwrap();
    assert!(dom.contains("data-chart=\"monthly-spend\""), "{dom}");
    assert_eq!(
        dom.matches("<rect ").count(),
        18,
        "six months of three: {dom}"
    );
    let table = dom
        .split("<table class=\"subscriptions\">")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .unwrap();
    assert_eq!(
        table.matches("<tr>").count(),
        5,
        "a header, three and the total: {table}"
    );
    assert!(dom.contains("413.76 USD a year"), "{dom}");
    // The markup in a descriptor is text on the page, not an element.
    assert!(!dom.contains("<img"), "{dom}");
    assert!(dom.contains("&lt;img src=x onerror="), "{dom}");
    assert!(dom.contains("<title>Subscriptions found</title>"), "{dom}");

    // On a terminal with a display, the desktop's opener gets the page. It
    // takes its time, as a real one does: it must outlive the terminal's
    // hang-up when this command ends (it died to it before, in CI).
    let bin = home.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let opened = home.path().join("opened");
    let opener = bin.join("xdg-open");
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\nsleep 0.5\nprintf '%s' \"$1\" > '{}'\n",
            opened.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut command = e2e::on_terminal(
        home.path(),
        &[
            "scan",
            statement.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
    );
    command.env("PATH", path).env("DISPLAY", ":99");
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(stdout(&out).contains("in your browser"), "{said}");
    // The opener is started, not waited for.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !opened.exists() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        std::fs::read_to_string(&opened).unwrap(),
        page.display().to_string()
    );
}
