//! `runs dispute`: the letter to a bank, a regulator or the merchant, from
//! a run's verified record, written as HTML and printed to PDF by the same
//! headless browser the receipts use.

use std::path::{Path, PathBuf};

use anstream::{eprintln, println};
use clap::Args;

use subterminator_core::browser::BrowserOptions;
use subterminator_core::dispute::{self, Facts, Jurisdiction, Language, Recipient, Request};
use subterminator_core::error::{Error, Result};
use subterminator_core::exit::EXIT_SUCCESS;
use subterminator_core::paths::Dirs;
use subterminator_core::receipt;
use subterminator_core::record::runs;

#[derive(Debug, Args)]
pub struct DisputeArgs {
    /// The run: its folder name, a unique part of it, a path, or `last`.
    pub run: String,
    /// Who the letter is to: bank (a charge after the cancellation, or
    /// payments that could not be stopped), regulator (each obstacle, with
    /// the rule that names it) or merchant.
    #[arg(long, value_name = "bank|regulator|merchant", value_parser = parse::<Recipient>)]
    pub to: Recipient,
    /// Whose rules a regulator's letter names, and where it is addressed:
    /// us-ca, us, eu, uk or de (default: de for a German letter, else us).
    #[arg(long, value_name = "us-ca|us|eu|uk|de", value_parser = parse::<Jurisdiction>)]
    pub jurisdiction: Option<Jurisdiction>,
    /// The letter's language: en or de (default: de for --jurisdiction de,
    /// else en).
    #[arg(long, value_name = "en|de", value_parser = parse::<Language>)]
    pub lang: Option<Language>,
    /// Your name, for the letter's head and signature (else a blank to fill in).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// A charge you dispute, as you want it written (repeatable), e.g.
    /// "2026-12-05 EUR 15.49"; `scan --since-cancel` lists them.
    #[arg(long, value_name = "TEXT")]
    pub charge: Vec<String>,
    /// The folder the letter is written to (default: the current folder).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Write the HTML only; do not start a browser to print the PDF.
    #[arg(long)]
    pub no_pdf: bool,
}

fn parse<T: std::str::FromStr<Err = String>>(text: &str) -> std::result::Result<T, String> {
    text.parse()
}

pub async fn run(args: DisputeArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    let run = runs::find(&dirs.runs(), &args.run)?;
    let facts = Facts::read(&run.dir).map_err(|e| {
        Error::Configuration(format!("no letter can be written from {}: {e}", run.id))
    })?;
    let mut request = Request::new(args.to, args.jurisdiction, args.lang);
    request.name = args.name;
    request.charges = args.charge;
    let out = match args.out {
        Some(dir) => dir,
        None => std::env::current_dir()
            .map_err(|e| Error::io("cannot find the current folder", ".", e))?,
    };
    std::fs::create_dir_all(&out)
        .map_err(|e| Error::io("cannot make the letter's folder", &out, e))?;
    let html = dispute::letter(&facts, &request, chrono::Utc::now());
    let html_path = out.join(dispute::file_name(&request, "html"));
    std::fs::write(&html_path, &html)
        .map_err(|e| Error::io("cannot write the letter", &html_path, e))?;
    let pdf_path = out.join(dispute::file_name(&request, "pdf"));
    let printed = if args.no_pdf {
        None
    } else {
        Some(print(&html, &pdf_path, dirs).await)
    };
    let receipt = run.dir.join(receipt::RECEIPT_PDF);
    let enclose = receipt.is_file().then_some(receipt);
    if json {
        println!(
            "{}",
            serde_json::json!({
                "run": run.id,
                "html": html_path,
                "pdf": printed.as_ref().and_then(|p| p.as_ref().ok()).map(|()| &pdf_path),
                "pdf_problem": printed.as_ref().and_then(|p| p.as_ref().err()),
                "enclose": enclose,
            })
        );
        return Ok(EXIT_SUCCESS);
    }
    println!("Letter: {}", html_path.display());
    match &printed {
        Some(Ok(())) => println!("        {}", pdf_path.display()),
        Some(Err(why)) => {
            eprintln!("warning: the PDF could not be printed ({why}); the HTML is written")
        }
        None => {}
    }
    if let Some(receipt) = &enclose {
        println!(
            "Enclose: {} (it carries the signed record)",
            receipt.display()
        );
    }
    println!("Read it, fill in what is in [brackets], sign it, and send it with what it encloses.");
    Ok(EXIT_SUCCESS)
}

/// Prints the letter in a headless browser of its own.
async fn print(html: &str, dest: &Path, dirs: &Dirs) -> std::result::Result<(), String> {
    // A fresh folder each time, never one named by the process id: an
    // earlier process's folder (a locked profile, a dangling link) must
    // not be taken for this one's.
    std::fs::create_dir_all(&dirs.cache)
        .map_err(|e| format!("cannot make {}: {e}", dirs.cache.display()))?;
    let scratch = tempfile::Builder::new()
        .prefix("letter-printer-")
        .tempdir_in(&dirs.cache)
        .map_err(|e| format!("cannot make a folder in {}: {e}", dirs.cache.display()))?;
    let options = BrowserOptions::headless_isolated(scratch.path().join("output"));
    // The printer removes its folder when done; the guard removes it too
    // if printing stopped first.
    receipt::print_pdf_headless(&options, html, dest, scratch.path().to_path_buf())
        .await
        .map_err(|e| e.to_string())
}
