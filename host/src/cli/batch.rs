//! The terminal's side of a batch (`cancel a b c`): the one place approvals
//! are asked, one at a time with the asking service named, and the summary
//! at the end (a table, or a JSON array with `--json`).

use anstream::{eprint, println};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::approval::{self, Answer, Console, Question};
use crate::batch::{self, Job, Outcome};
use crate::config::Config;
use crate::error::Result;
use crate::paths::Dirs;
use crate::session::interrupted;

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
    let (questions, asked) = approval::questions(jobs.len());
    let console = Console::stdin();
    let answering = tokio::spawn(answer(asked, console, json));
    let stop = CancellationToken::new();
    let watching = {
        let stop = stop.clone();
        tokio::spawn(async move {
            interrupted().await;
            stop.cancel();
        })
    };
    let options = batch::BatchOptions {
        parallel,
        human: !json,
        verbose,
    };
    let outcomes = batch::run(dirs, config, jobs, options, &questions, &stop).await;
    watching.abort();
    drop(questions);
    answering.abort();
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

/// Shows each question with the service that asks and reads the answer,
/// one at a time, in the order they came. The prompt goes to stderr under
/// `--json`, so stdout stays one JSON array.
async fn answer(mut asked: mpsc::Receiver<Question>, mut console: Console, json: bool) {
    while let Some(question) = asked.recv().await {
        let who = question.asker.clone().unwrap_or_else(|| "A run".into());
        let text = format!(
            "\n[{}] asks:\n{}Approve? [y/N]: ",
            crate::text::sanitize(&who),
            question.request.render()
        );
        if json {
            eprint!("{text}");
        } else {
            anstream::print!("{text}");
            let _ = std::io::Write::flush(&mut std::io::stdout());
        }
        let line = console.read_answer().await;
        question.answer(Answer::parse(line.as_deref()));
    }
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
