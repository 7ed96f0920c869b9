//! `subterminator scan <statement>…`: the subscriptions in a person's own
//! bank statements, found on this machine, and with `--cancel` handed to the
//! same batch `cancel a b c` runs. With `--since-cancel`, also the charges
//! dated after a verified cancellation in this machine's runs
//! (`since_cancel.rs`).
//!
//! Privacy is the point of doing this locally: statements are read into
//! memory and nothing of them is written or sent. What they say reaches
//! stdout (the table or the JSON, which is the answer asked for) and nowhere
//! else: no log line here names a transaction, an amount or a descriptor,
//! only file names, formats and counts.

mod ask;
mod html;
mod print;
mod rows;
mod since_cancel;

#[cfg(test)]
mod tests;

use std::path::PathBuf;

use chrono::NaiveDate;
use clap::Args;

use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::{Registry, load_registry};
use subterminator_scan::{
    Currency, ErrorKind, ScanError, ScanOptions, ServiceDescriptors, Statement, find_subscriptions,
    known_descriptors, parse_columns, read_statement, service_charges,
};

use crate::cancel::RunArgs;

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator scan chase.csv                     the subscriptions in one statement\n  \
    subterminator scan jan-jun.csv may-dec.csv       overlapping exports: each charge counted once\n  \
    subterminator scan export.csv --columns date=Posted,amount=Amount,description=Payee\n  \
    subterminator scan export.csv --columns date=Day,amount=Sum,description=Text,currency=Cur\n  \
    subterminator scan export.csv --columns date=Day,debit=Out,credit=In,description=Text\n  \
    subterminator scan amex-uk.csv --date-format %d/%m/%Y   day-first dates\n  \
    subterminator scan big.csv --max-bytes 200000000   a statement over 64 MiB\n  \
    subterminator scan chase.csv --html report.html   also a page with a chart of monthly spend\n  \
    subterminator scan export.csv --columns date=D,amount=A,description=P --currency EUR\n  \
    subterminator scan statement.ofx --as-of 2024-06-30     judge \"ended?\" on that day\n  \
    subterminator scan statement.qfx --json          one JSON object a subscription, then the totals\n  \
    subterminator scan chase.csv --since-cancel      also charges dated after a verified cancellation\n  \
    subterminator scan camt053.xml --cancel          then cancel those a plugin can, after one yes\n  \
    subterminator scan chase.csv --cancel --yes --model gpt-4o --headless --max-turns 30\n  \
    subterminator scan chase.csv --cancel --isolated --jobs 3   throwaway profiles, three at once\n  \
    subterminator scan chase.csv --cancel --start-url spotify=http://127.0.0.1:8080/  a local copy\n  \
    subterminator scan chase.csv -v                  also which format each file was read as\n\n\
    Formats: CSV exports of Chase, Bank of America, American Express, Capital One, Monzo,\n\
    Revolut and N26 (recognised by their header line); any other CSV with --columns (commas\n\
    or semicolons, decimal points or commas, UTF-8 or Latin-1); OFX 1.x and 2.x; QFX;\n\
    CAMT.052, CAMT.053 and CAMT.054. Day-first or month-first dates are read from the rows\n\
    (a day above 12); when they do not say, the scan stops and asks for --date-format.\n\n\
    Privacy: the statements are read on this machine and nothing of them is sent anywhere or\n\
    written anywhere; only the table (or JSON) you asked for shows what they say.\n\n\
    Exit codes: 0 read (also when --since-cancel names charges; with --cancel: declined, nothing\n\
    to cancel, or every run verified); 1 a run failed or was not verified; 2 a file that cannot be\n\
    read or is in no known format, or a bad option; 3 connection; 130 Ctrl+C.")]
pub struct ScanArgs {
    /// Bank statements exported as CSV, OFX, QFX or CAMT.053; charges found
    /// in more than one (overlapping exports) are counted once.
    #[arg(value_name = "STATEMENT", required = true, num_args = 1..)]
    pub statements: Vec<PathBuf>,

    /// The columns of a CSV whose bank is not recognised, by header name:
    /// date=…,amount=…,description=…[,currency=…]; debit=… and credit=…
    /// instead of amount= for two unsigned columns; charges=positive when
    /// money out is positive.
    #[arg(long, value_name = "SPEC")]
    pub columns: Option<String>,

    /// The CSV's date format (strftime), e.g. %d/%m/%Y. Without it the rows
    /// decide the order of day and month (a day above 12), or the scan
    /// stops and asks for this flag.
    #[arg(long, value_name = "FORMAT")]
    pub date_format: Option<String>,

    /// The currency of amounts when the statement does not say (a CSV with
    /// no currency column, whose amounts are written without €, £ or a
    /// code), e.g. EUR; the scan stops and asks for it rather than guess.
    #[arg(long, value_name = "CODE")]
    pub currency: Option<String>,

    /// Also write the report as an HTML page to this file: the
    /// subscriptions, a chart of monthly spend per subscription, the yearly
    /// total. The one file the scan writes, because it is asked for.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// The largest statement read, in bytes (default 64 MiB, far more than
    /// years of any real export); a larger file is refused, not read in part.
    #[arg(long, value_name = "BYTES")]
    pub max_bytes: Option<u64>,

    /// The day "ended?" is judged on: a subscription whose next charge is
    /// more than half a period overdue by then is marked ended. Default:
    /// the latest date in the statements.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub as_of: Option<NaiveDate>,

    /// After the table, cancel the subscriptions a plugin can cancel here,
    /// once you say yes, as `subterminator cancel a b c` would.
    #[arg(long)]
    pub cancel: bool,

    /// After the report, every charge of a service dated after its verified
    /// cancellation on this machine (`subterminator runs`), with the run it
    /// contradicts and how to dispute it. After means a later day than the
    /// cancellation's: a charge dated the same day may have been made before
    /// it. The exit code stays 0 when it names charges: the scan read.
    #[arg(long)]
    pub since_cancel: bool,

    /// With --cancel: start the cancellations without asking first (each
    /// run still asks before the step that commits).
    #[arg(long, requires = "cancel")]
    pub yes: bool,

    /// With --cancel: throwaway browser profiles instead of your signed-in ones.
    #[arg(long, requires = "cancel")]
    pub isolated: bool,

    /// With --cancel: how many cancellations run at once (default 2).
    #[arg(long, value_name = "N", requires = "cancel")]
    pub jobs: Option<usize>,

    /// With --cancel: run a service's plugin against a local copy of its
    /// site (plugin development and tests), as SERVICE=URL, once per service.
    #[arg(long, value_name = "SERVICE=URL", requires = "cancel")]
    pub start_url: Vec<String>,

    #[command(flatten, next_help_heading = "With --cancel, as for `cancel`")]
    pub run: RunArgs,
}

/// Reads the statements, prints what they pay for, and with `--cancel`
/// offers to cancel it. The exit code is 0, or the batch's.
pub async fn run(args: ScanArgs, dirs: &Dirs, json: bool, verbose: bool) -> Result<u8> {
    if !args.cancel
        && let Some(flag) = run_flag_without_cancel(&args.run)
    {
        return Err(Error::Configuration(format!(
            "{flag} is for the runs of --cancel; add --cancel, or leave {flag} out"
        )));
    }
    let options = options(&args).map_err(refused)?;
    // A bad flag for the runs is said before any statement is read.
    let plan = args
        .cancel
        .then(|| ask::Plan::new(&args, dirs, json, verbose))
        .transpose()?;
    let cancellations = args
        .since_cancel
        .then(|| since_cancel::Cancellations::read(dirs))
        .transpose()?;
    let statements = read_all(&args.statements, &options)?;
    let registry = load_registry(dirs).await?;
    crate::print_broken(&registry);
    let services = descriptors(&registry);
    let report = find_subscriptions(&statements, &services, args.as_of);
    // Any charge of a cancelled service, recurring or not: taken from the
    // transactions while they are here, and only the ones asked for kept.
    let contradictions = cancellations
        .as_ref()
        .map(|c| c.contradicted_by(&service_charges(&statements, &services)));
    // The transactions are not needed past this point; the report holds
    // only what the answer shows.
    drop(statements);
    if json {
        print::json_lines(&report);
    } else {
        print::table(&report);
    }
    if let Some(path) = &args.html {
        std::fs::write(path, html::html_report(&report))
            .map_err(|source| Error::io("writing the HTML report", path, source))?;
        // A path the person gave, never a transaction.
        tracing::info!("wrote the HTML report to {}", path.display());
        if !json {
            let shown = crate::open::in_browser(path);
            let said = crate::open::said(path, &shown);
            match shown {
                crate::open::Shown::Opened => println!("\n{said}"),
                _ => println!("\nThe report as a page: {said}"),
            }
        }
    }
    if let (Some(cancellations), Some(found)) = (&cancellations, &contradictions) {
        // Counts only: the charges themselves are the answer, not a log's.
        tracing::info!(
            "--since-cancel: {} verified cancellations checked, {} charges after one",
            cancellations.len(),
            found.len()
        );
        since_cancel::print(found, cancellations.len(), json);
    }
    match plan {
        Some(plan) => plan.offer(&report, &registry, dirs).await,
        None => Ok(0),
    }
}

/// The billing descriptors of every service with a plugin, as its plugin
/// declares them (contract 0.4.0, Rust and declarative plugins alike). A
/// plugin from before 0.4.0 declares none: the scan crate's own table
/// stands in for it where it has that id, so an older installed plugin
/// still finds its charges.
pub fn descriptors(registry: &Registry) -> Vec<ServiceDescriptors> {
    let table = known_descriptors();
    registry
        .services()
        .iter()
        .filter_map(|entry| {
            let id = &entry.metadata.id;
            let patterns = if entry.metadata.billing_descriptors.is_empty() {
                table.iter().find(|t| &t.id == id)?.patterns.clone()
            } else {
                entry.metadata.billing_descriptors.clone()
            };
            Some(ServiceDescriptors {
                id: id.clone(),
                name: entry.metadata.display_name.clone(),
                patterns,
            })
        })
        .collect()
}

/// The first of `cancel`'s run flags given, if any. Without `--cancel`
/// nothing runs, and a flag silently ignored reads as a flag obeyed.
/// (The scan's own run flags say `requires = "cancel"` to clap; these are
/// `cancel`'s, shared, so they are checked here.)
fn run_flag_without_cancel(run: &RunArgs) -> Option<&'static str> {
    let given = [
        ("--model", run.model.is_some()),
        ("--base-url", run.base_url.is_some()),
        ("--max-turns", run.max_turns.is_some()),
        ("--dry-run", run.dry_run),
        ("--headless", run.headless),
        ("--no-checkpoint", run.no_checkpoint),
        ("--tools", run.tools.is_some()),
        ("--vision", run.vision),
        ("--browser", run.browser.is_some()),
        ("--replay", run.replay),
        ("--model-drives", run.model_drives),
        ("--cdp-endpoint", run.cdp_endpoint.is_some()),
    ];
    given
        .into_iter()
        .find(|(_, set)| *set)
        .map(|(flag, _)| flag)
}

/// The flags that say how to read a statement, checked before any file is.
fn options(args: &ScanArgs) -> Result<ScanOptions, ScanError> {
    let currency = match &args.currency {
        None => None,
        Some(code) => Some(
            Currency::parse(code).ok_or_else(|| ScanError::BadCurrency { code: code.clone() })?,
        ),
    };
    let options = ScanOptions {
        columns: args.columns.as_deref().map(parse_columns).transpose()?,
        date_format: args.date_format.clone(),
        currency,
        max_bytes: args.max_bytes,
    };
    options.validate()?;
    Ok(options)
}

/// Every statement, or the first that cannot be read: a scan that left a
/// file out would show totals that look whole and are not.
fn read_all(paths: &[PathBuf], options: &ScanOptions) -> Result<Vec<Statement>> {
    let mut statements = Vec::with_capacity(paths.len());
    for path in paths {
        let statement = read_statement(path, options).map_err(refused)?;
        // Names, formats and counts only: never a line's content.
        tracing::info!(
            "read {} as {}: {} lines, {} transactions, {} skipped",
            statement.name,
            statement.format,
            statement.lines_read,
            statement.transactions.len(),
            statement.skipped.len()
        );
        statements.push(statement);
    }
    Ok(statements)
}

/// A statement or an option the scan cannot use, as the error the command
/// line exits with: each kind is the person's to fix (exit 2), and the
/// message says how. The library's message names the file and, for an
/// unknown CSV, its header names; it never holds a transaction.
fn refused(error: ScanError) -> Error {
    let hint = match error.kind() {
        ErrorKind::Unreadable => "check the path and its permissions",
        ErrorKind::UnknownFormat => match &error {
            ScanError::MissingColumn { .. } => {
                "name the header's own columns in --columns, e.g. --columns date=Posted,amount=Amount,description=Payee"
            }
            _ => {
                "for another bank's CSV, name its columns: --columns date=…,amount=…,description=… (see subterminator scan --help)"
            }
        },
        ErrorKind::Malformed => "download the statement again; the file looks cut short or edited",
        ErrorKind::BadOptions => "see subterminator scan --help",
        // The message names the flag that settles it.
        ErrorKind::NeedsFlag => "see subterminator scan --help",
    };
    // The unknown-format message is long already: its fix gets a line.
    let separator = if error.kind() == ErrorKind::UnknownFormat {
        "\n"
    } else {
        "; "
    };
    Error::Configuration(format!("{error}{separator}{hint}"))
}
