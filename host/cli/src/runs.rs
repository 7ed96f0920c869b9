//! `subterminator runs`: past runs, their records and receipts.

use anstream::{eprintln, println};
use chrono::Local;
use clap::Subcommand;

use subterminator_core::audit::{self, Audit, NOT_ADVICE, RecordView};
use subterminator_core::error::Result;
use subterminator_core::exit::{EXIT_SUCCESS, ErrorClass};
use subterminator_core::paths::Dirs;
use subterminator_core::receipt::{RECEIPT_MD, RECEIPT_PDF};
use subterminator_core::record::integrity::{self, Verified};
use subterminator_core::record::runs::{self, RunSummary};

mod dispute;
mod verify;

/// Days are whole days of 24 hours before now.
const SECONDS_PER_DAY: i64 = 86_400;

#[derive(Debug, Subcommand)]
pub enum RunsAction {
    /// Print one run's summary: outcome, approvals, cost, record and receipt.
    #[command(after_help = "Examples:\n  \
        subterminator runs show last                  the newest run\n  \
        subterminator runs show 20261123T101500Z      a run by (part of) its name\n  \
        subterminator runs show last --json           the same as one JSON object")]
    Show {
        /// The run: its folder name, a unique part of it, a path, or `last`.
        run: String,
    },
    /// Open a verified cancellation's receipt (receipt.html).
    #[command(after_help = "Examples:\n  \
        subterminator runs open last       the newest run's receipt, in your browser\n  \
        subterminator runs open netflix    the receipt of the one run named like netflix")]
    Open {
        /// The run: its folder name, a unique part of it, a path, or `last`.
        run: String,
    },
    /// Check a run (its hash chain, every file, its signature and its
    /// receipts' seals) or one receipt file on its own, and say who signed.
    #[command(after_help = "Examples:\n  \
        subterminator runs verify last           exit 0 when the record is as written and signed\n  \
        subterminator runs verify last --json    the verdict as one JSON object\n  \
        subterminator runs verify receipt.pdf --key ed25519:Qm9…   a receipt from another machine\n\n\
        A receipt file (HTML, Markdown or PDF) carries its run's record and a seal signed over\n\
        every byte, so it is checked alone. A signature counts when its key is one you name\n\
        with --key (whoever sent the receipt gets theirs from `subterminator key`), or else\n\
        one of this machine's keys, current or retired. Exit 0 when everything checks, 1 when\n\
        anything does not (the reason is printed).")]
    Verify {
        /// The run (its folder name, a unique part of it, a path, or `last`),
        /// or a receipt file.
        run: String,
        /// The public key the signature must be by (`ed25519:…`); more than
        /// one allows any of them.
        #[arg(long = "key", value_name = "PUBLIC_KEY")]
        keys: Vec<String>,
    },
    /// Write the letter for a charge after a cancellation, or a way out
    /// that was not there: to the bank, a regulator or the merchant.
    #[command(after_help = "Examples:\n  \
        subterminator runs dispute last --to bank --charge \"2026-12-05 USD 15.49\"\n  \
        subterminator runs dispute last --to regulator --jurisdiction us-ca\n  \
        subterminator runs dispute last --to merchant --lang de --name \"Jana Beispiel\"\n  \
        subterminator runs dispute last --to regulator --jurisdiction de --out letters/\n\n\
        From a verified cancellation (the date and time of your yes and of the service's\n\
        confirmation, its words, the screenshots, the signed record), or from a run that\n\
        stopped at a phone-only, chat-only or sign-in page (what the run saw there). A\n\
        regulator's letter lists each obstacle the audit found with the rules of the\n\
        jurisdiction that speak to it. Written as HTML and PDF, in English or German; a\n\
        record that does not verify gets no letter. Not legal advice.")]
    Dispute(dispute::DisputeArgs),
    /// Delete runs older than some days, keeping each service's last proof.
    #[command(after_help = "Examples:\n  \
        subterminator runs prune --older-than 90            keeps each service's last cancellation\n  \
        subterminator runs prune --older-than 90 --force    deletes those too\n  \
        subterminator runs prune --older-than 30 --json     what was deleted, as JSON")]
    Prune {
        /// Delete runs started more than this many days ago.
        #[arg(long, value_name = "DAYS")]
        older_than: u32,
        /// Also delete each service's last verified cancellation.
        #[arg(long)]
        force: bool,
    },
}

pub async fn run(action: Option<RunsAction>, dirs: &Dirs, json: bool) -> Result<u8> {
    let folder = dirs.runs();
    match action {
        None => list(&runs::list(&folder)?, json, &folder),
        Some(RunsAction::Show { run }) => show(&runs::find(&folder, &run)?, json),
        Some(RunsAction::Open { run }) => open(&runs::find(&folder, &run)?, json),
        Some(RunsAction::Verify { run, keys }) => verify::run(&run, &keys, dirs, json),
        Some(RunsAction::Dispute(args)) => dispute::run(args, dirs, json).await,
        Some(RunsAction::Prune { older_than, force }) => {
            prune(&runs::list(&folder)?, older_than, force, json)
        }
    }
}

/// 0 when all went well, else the failure code.
fn exit_code(ok: bool) -> u8 {
    if ok {
        EXIT_SUCCESS
    } else {
        ErrorClass::Failure.exit_code()
    }
}

fn outcome(run: &RunSummary) -> String {
    if run.verified_success() {
        "✓ cancelled".to_owned()
    } else {
        run.outcome.clone()
    }
}

fn cost(run: &RunSummary) -> String {
    run.cost_usd
        .map_or_else(|| "?".to_owned(), |c| format!("${c:.4}"))
}

fn local_time(run: &RunSummary) -> String {
    run.started
        .with_timezone(&Local)
        .format("%Y-%m-%d %H:%M")
        .to_string()
}

fn list(all: &[RunSummary], json: bool, folder: &std::path::Path) -> Result<u8> {
    if json {
        println!("{}", serde_json::json!({ "runs": all }));
        return Ok(EXIT_SUCCESS);
    }
    if all.is_empty() {
        println!(
            "No runs yet in {}. `subterminator demo` makes one.",
            folder.display()
        );
        return Ok(EXIT_SUCCESS);
    }
    let rows: Vec<[String; 7]> = all
        .iter()
        .map(|r| {
            [
                local_time(r),
                r.service.clone(),
                outcome(r),
                r.turns.to_string(),
                (r.input_tokens + r.output_tokens).to_string(),
                cost(r),
                r.id.clone(),
            ]
        })
        .collect();
    super::table::print_table(
        &[
            "DATE", "SERVICE", "OUTCOME", "TURNS", "TOKENS", "COST", "RUN",
        ],
        &rows,
    );
    Ok(EXIT_SUCCESS)
}

fn show(run: &RunSummary, json: bool) -> Result<u8> {
    let checked = integrity::verify(&run.dir);
    let audited = RecordView::read(&run.dir).map(|view| audit::audit(&view));
    if json {
        let audit = match &audited {
            Ok(a) => serde_json::json!(a),
            Err(e) => serde_json::json!({ "problem": e.to_string() }),
        };
        println!(
            "{}",
            serde_json::json!({ "run": run, "record": verdict_json(&checked), "audit": audit })
        );
        return Ok(EXIT_SUCCESS);
    }
    println!("Run:      {}", run.id);
    println!("Folder:   {}", run.dir.display());
    println!(
        "Started:  {} ({} UTC)",
        local_time(run),
        run.started.format("%Y-%m-%d %H:%M:%S")
    );
    println!("Service:  {}", run.service);
    if let Some(model) = &run.model {
        println!("Driven by: {model}");
    }
    println!(
        "Outcome:  {} ({} turns, {} input + {} output tokens, cost {})",
        outcome(run),
        run.turns,
        run.input_tokens,
        run.output_tokens,
        cost(run)
    );
    match &checked {
        Ok(v) => {
            println!(
                "Record:   intact: {} lines, head {}, {} files match",
                v.lines,
                v.head,
                v.files.len()
            );
            match &v.signed {
                Some(signed) => println!(
                    "Signed:   by {} ({}) at {}",
                    signed.statement.key,
                    subterminator_core::text::sanitize(&signed.statement.signer),
                    signed.statement.signed_at
                ),
                None => {
                    println!("Signed:   no (made before records were signed, or without a key)")
                }
            }
        }
        Err(m) => println!("Record:   DOES NOT VERIFY: {m}"),
    }
    match &run.receipt {
        Some(html) => {
            println!("Receipt:  {}", html.display());
            for other in [RECEIPT_PDF, RECEIPT_MD] {
                let path = run.dir.join(other);
                if path.is_file() {
                    println!("          {}", path.display());
                }
            }
        }
        None => println!("Receipt:  none (only a verified cancellation has one)"),
    }
    match &audited {
        Ok(audit) => print_audit(audit),
        Err(e) => println!("Audit:    cannot be read: {e}"),
    }
    Ok(EXIT_SUCCESS)
}

/// What the flow put in the way, as the receipt says it. Page-supplied
/// words are made safe for the terminal first.
fn print_audit(audit: &Audit) {
    use subterminator_core::text::sanitize;
    const INDENT: &str = "          ";
    let path: Vec<String> = audit.screens.iter().map(|s| sanitize(&s.name)).collect();
    let screens = if audit.committed {
        "screen(s) before the final step"
    } else {
        "screen(s) visited; no step was approved"
    };
    println!("Audit:    {} {screens}: {}", path.len(), path.join(" → "));
    if audit.is_clean() {
        println!("{INDENT}nothing in the way");
        return;
    }
    for f in &audit.findings {
        println!(
            "{INDENT}• {} on \"{}\" ({})",
            f.kind.title(),
            sanitize(&f.screen),
            sanitize(&f.url)
        );
        println!("{INDENT}  {}", sanitize(&f.sentence()));
        let rules: Vec<&str> = f.rules.iter().map(|r| r.name()).collect();
        println!("{INDENT}  {}", rules.join("; "));
    }
    println!("{INDENT}{NOT_ADVICE}");
}

fn verdict_json(checked: &std::result::Result<Verified, integrity::Mismatch>) -> serde_json::Value {
    match checked {
        Ok(v) => serde_json::json!({
            "intact": true, "lines": v.lines, "head": v.head, "files": v.files,
            "signed_by": v.signed.as_ref().map(|s| s.statement.key.to_string()),
            "signed_at": v.signed.as_ref().map(|s| s.statement.signed_at.clone()),
        }),
        Err(m) => serde_json::json!({ "intact": false, "problem": m.to_string() }),
    }
}

fn open(run: &RunSummary, json: bool) -> Result<u8> {
    let Some(receipt) = &run.receipt else {
        eprintln!(
            "error: {} has no receipt: only a verified cancellation has one (this run ended: {})",
            run.id, run.outcome
        );
        return Ok(ErrorClass::Failure.exit_code());
    };
    if json {
        println!("{}", serde_json::json!({ "receipt": receipt }));
        return Ok(EXIT_SUCCESS);
    }
    println!(
        "{}",
        crate::open::said(receipt, &crate::open::in_browser(receipt))
    );
    Ok(EXIT_SUCCESS)
}

fn prune(all: &[RunSummary], days: u32, force: bool, json: bool) -> Result<u8> {
    let cutoff = chrono::Utc::now() - chrono::Duration::seconds(i64::from(days) * SECONDS_PER_DAY);
    let plan = runs::plan_prune(all, cutoff, force);
    let mut deleted = Vec::new();
    let mut failed = Vec::new();
    for run in &plan.delete {
        match std::fs::remove_dir_all(&run.dir) {
            Ok(()) => deleted.push(run.id.clone()),
            Err(e) => failed.push(format!("{}: {e}", run.dir.display())),
        }
    }
    let kept: Vec<&str> = plan.kept.iter().map(|r| r.id.as_str()).collect();
    let code = exit_code(failed.is_empty());
    if json {
        println!(
            "{}",
            serde_json::json!({ "deleted": deleted, "kept": kept, "failed": failed })
        );
        return Ok(code);
    }
    for id in &deleted {
        println!("deleted  {id}");
    }
    for run in &plan.kept {
        println!(
            "kept     {} (the last verified cancellation of {}; --force deletes it too)",
            run.id, run.service
        );
    }
    for failure in &failed {
        eprintln!("error: cannot delete {failure}");
    }
    println!(
        "{} run(s) older than {days} days deleted, {} kept.",
        deleted.len(),
        kept.len()
    );
    Ok(code)
}
