//! The terminal's side of a batch (`cancel a b c`): the one place approvals
//! are asked, one at a time with the asking service named, and the summary
//! at the end (a table, or a JSON array with `--json`).

use anstream::println;
use tokio_util::sync::CancellationToken;

use crate::console::Console;
use crate::terminal;
use subterminator_core::batch::{self, Job, Outcome};
use subterminator_core::config::Config;
use subterminator_core::error::Result;
use subterminator_core::feed;
use subterminator_core::paths::Dirs;
use subterminator_core::session::interrupted;

/// Runs `jobs`, answers their questions from stdin, prints the summary and
/// returns the batch's exit code.
pub async fn run(
    dirs: &Dirs,
    config: &Config,
    jobs: Vec<Job>,
    parallel: usize,
    json: bool,
    verbose: bool,
) -> Result<u8> {
    let (feed, updates) = feed::feed();
    let options = terminal::Options {
        human: !json,
        verbose,
        batch: true,
    };
    let showing = tokio::spawn(terminal::serve(updates, Console::stdin(), options));
    let stop = CancellationToken::new();
    let watching = {
        let stop = stop.clone();
        tokio::spawn(async move {
            interrupted().await;
            stop.cancel();
        })
    };
    let outcomes = batch::run(dirs, config, jobs, parallel, &feed, &stop).await;
    watching.abort();
    drop(feed);
    if let Err(e) = showing.await {
        tracing::warn!("the terminal's reader ended abnormally: {e}");
    }
    if json {
        println!(
            "{}",
            serde_json::Value::Array(outcomes.iter().map(as_json).collect())
        );
    } else {
        if stop.is_cancelled() {
            println!("\n⚠️  Interrupted: every run was stopped and its browser shut down.");
        }
        println!();
        super::table::print_table(
            &[
                "SERVICE", "OUTCOME", "TURNS", "TOKENS", "COST", "TIME", "RECORD",
            ],
            &outcomes.iter().map(row).collect::<Vec<_>>(),
        );
    }
    Ok(batch::exit_code(&outcomes))
}

fn outcome_word(o: &Outcome) -> String {
    let r = &o.result;
    if r.success && r.verified {
        "verified".into()
    } else {
        r.reason.to_string()
    }
}

fn row(o: &Outcome) -> [String; 7] {
    let r = &o.result;
    let tokens = if r.usage.input + r.usage.output == 0 {
        "-".to_owned()
    } else {
        format!("{} in, {} out", r.usage.input, r.usage.output)
    };
    [
        o.service.clone(),
        outcome_word(o),
        r.turns.to_string(),
        tokens,
        r.cost_usd
            .map_or_else(|| "-".to_owned(), |c| format!("${c:.4}")),
        format!("{:.1} s", r.time.total_ms as f64 / 1000.0),
        o.finished
            .as_ref()
            .map_or_else(|| "-".to_owned(), |f| f.run_dir.display().to_string()),
    ]
}

fn as_json(o: &Outcome) -> serde_json::Value {
    serde_json::json!({
        "service": o.service,
        "result": o.result,
        "run_dir": o.finished.as_ref().map(|f| &f.run_dir),
        "receipt": o.finished.as_ref().and_then(|f| f.receipt.as_ref()),
    })
}
