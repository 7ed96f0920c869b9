//! `subterminator bench`: CancelBench's flows run with any driver — the
//! offline policy, a model, a remembered path — each twice (a person who
//! says yes to everything, and one who says no at the committing step),
//! scored from the practice site's own request log; a scorecard, one JSON
//! object per run, and an HTML report. `bench serve` serves the flows for
//! any agent (`host/bench/README.md`).

mod person;
mod runner;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use tokio::task::JoinSet;

use subterminator_bench::{Catalog, Flow, PassKind, RunRecord, scorecard};
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::llm;
use subterminator_core::paths::Dirs;
use subterminator_core::session::{OFFLINE_MODEL, SessionSpec, Tools};

use crate::cancel::ToolsArg;
use runner::Setup;

/// Runs at once unless `--jobs` says otherwise (each is a browser).
const DEFAULT_JOBS: usize = 2;
/// Most runs at once: each is a Chromium.
const MAX_JOBS: usize = 8;
/// Turns one bench run may take: a buried flow needs a dozen.
const BENCH_MAX_TURNS: u32 = 30;
/// What one model run costs in tokens, for the estimate before a paid
/// bench: the long Netflix-shaped flow measured ~9.4k request tokens per
/// run (BENCHMARKS.md); rounded up for the longer flows.
const ESTIMATED_TOKENS_PER_RUN: u64 = 15_000;

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator bench --model offline --jobs 2             every flow, the plugins' plans driving\n  \
    subterminator bench --model offline --language ja        the Japanese flows\n  \
    subterminator bench --trick confirmshaming --split held-out --model claude-opus-4-6\n  \
    subterminator bench --json > runs.jsonl                  one JSON object per run\n  \
    subterminator bench --list                               the flows and their tricks\n  \
    subterminator bench serve                                the flows for any agent, on loopback")]
pub struct BenchArgs {
    #[command(subcommand)]
    pub action: Option<BenchAction>,

    /// Who drives: `offline` (the plugins' plans, no model) or a model name.
    #[arg(long, default_value = OFFLINE_MODEL)]
    pub model: String,

    /// An OpenAI-compatible server's base URL, for a local model.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Learn each flow once (yes to all), then score runs that follow the
    /// remembered path with no model.
    #[arg(long)]
    pub replay: bool,

    /// The model takes every step (the plan only a hint), as under
    /// `subterminator cancel --model-drives`.
    #[arg(long)]
    pub model_drives: bool,

    /// Runs at once; each is a browser of its own.
    #[arg(long, default_value_t = DEFAULT_JOBS)]
    pub jobs: usize,

    /// What the model sees: compact or full.
    #[arg(long)]
    pub tools: Option<ToolsArg>,

    /// Only these flows (ids; repeatable).
    #[arg(long = "flow", value_name = "ID")]
    pub flows: Vec<String>,
    /// Only flows with this trick (repeatable), e.g. confirmshaming.
    #[arg(long = "trick")]
    pub tricks: Vec<String>,
    /// Only flows of this shape (repeatable), e.g. spa-api-origin.
    #[arg(long = "shape")]
    pub shapes: Vec<String>,
    /// Only flows in this language (repeatable), e.g. ja.
    #[arg(long = "language")]
    pub languages: Vec<String>,
    /// Only this service's flows (repeatable), e.g. netflix.
    #[arg(long = "service")]
    pub services: Vec<String>,
    /// Only the development or the held-out flows.
    #[arg(long)]
    pub split: Option<String>,

    /// Only the pass that says yes to everything (half the time; the
    /// commits-without-a-yes measure then rests on that pass alone).
    #[arg(long)]
    pub yes_pass_only: bool,

    /// Where the HTML report goes (default: the bench's folder in the data
    /// directory).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// List the flows that match and run nothing.
    #[arg(long)]
    pub list: bool,

    /// Start a paid run without asking about its estimated cost.
    #[arg(long)]
    pub yes: bool,

    /// Refuse to start when the estimated cost is above this, in US dollars.
    #[arg(long, value_name = "USD")]
    pub max_cost: Option<f64>,
}

#[derive(Debug, Subcommand)]
pub enum BenchAction {
    /// Serve the flows on loopback for any agent: list, start, claim, verdict.
    #[command(after_help = "Examples:\n  \
        subterminator bench serve                       on 127.0.0.1:8722\n  \
        subterminator bench serve --addr 127.0.0.1:0    on a free port (printed)")]
    Serve {
        /// Where to listen (loopback only).
        #[arg(long, default_value = "127.0.0.1:8722")]
        addr: String,
    },
}

pub async fn run(args: BenchArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    if let Some(BenchAction::Serve { addr }) = args.action {
        return serve(&addr).await;
    }
    let catalog = Catalog::load().map_err(|e| Error::Configuration(e.to_string()))?;
    let flows = select(&catalog, &args)?;
    if flows.is_empty() {
        return Err(Error::Configuration(
            "no flow matches these filters; `subterminator bench --list` shows them".into(),
        ));
    }
    if args.list {
        list(&flows, json);
        return Ok(0);
    }
    if args.jobs == 0 || args.jobs > MAX_JOBS {
        return Err(Error::Configuration(format!(
            "--jobs must be between 1 and {MAX_JOBS}; each run is a browser of its own"
        )));
    }
    let passes: &[PassKind] = if args.yes_pass_only {
        &[PassKind::YesToAll]
    } else {
        &[PassKind::YesToAll, PassKind::NoAtCommit]
    };
    let config = Config::load(&dirs.config_file())?;
    if args.model != OFFLINE_MODEL && !confirm_cost(&args, flows.len() * passes.len())? {
        return Ok(1);
    }
    let started = chrono::Utc::now().format("%Y%m%dT%H%M%SZ").to_string();
    let folder = dirs.data.join("bench").join(&started);
    let registry = subterminator_core::plugin::load_registry(dirs).await?;
    let setup = Arc::new(Setup {
        shared: dirs.clone(),
        config,
        registry,
        spec: spec(&args),
        runs: folder.join("runs"),
        driver: if args.model == OFFLINE_MODEL {
            "offline".into()
        } else {
            format!("model:{}", args.model)
        },
    });
    let work: Vec<(Flow, PassKind)> = flows
        .iter()
        .flat_map(|f| passes.iter().map(move |p| ((*f).clone(), *p)))
        .collect();
    let records = run_all(&setup, work, args.jobs, json).await;
    let card = scorecard(&records);
    if json {
        for record in &records {
            anstream::println!("{}", serde_json::to_string(record).unwrap_or_default());
        }
    } else {
        print_rows(&card.rows());
    }
    let html = args
        .html
        .clone()
        .unwrap_or_else(|| folder.join("report.html"));
    if let Some(parent) = html.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::io("cannot make the report's folder", parent, e))?;
    }
    std::fs::write(&html, subterminator_bench::report::html(&records))
        .map_err(|e| Error::io("cannot write the report", &html, e))?;
    let line = format!("Report: {}", html.display());
    if json {
        anstream::eprintln!("{line}");
    } else {
        anstream::println!("\n{line}");
    }
    Ok(0)
}

/// The settings every bench run shares: headless, throwaway profiles,
/// nothing remembered from one flow to the next.
fn spec(args: &BenchArgs) -> SessionSpec {
    SessionSpec {
        model: Some(args.model.clone()),
        base_url: args.base_url.clone(),
        max_turns: BENCH_MAX_TURNS,
        dry_run: false,
        checkpoints: true,
        headless: true,
        start_url: None,
        tools: args.tools.map_or(Tools::Compact, Into::into),
        vision: false,
        dismiss_overlays: true,
        replay: args.replay,
        model_drives: args.model_drives,
        billing_descriptors: Vec::new(),
        browser: None,
        attach: None,
        isolated: true,
        json: true,
        verbose: false,
    }
}

/// Runs every (flow, pass), `jobs` at a time, with a progress bar on a
/// terminal; a run that cannot start is reported and left out.
async fn run_all(
    setup: &Arc<Setup>,
    work: Vec<(Flow, PassKind)>,
    jobs: usize,
    json: bool,
) -> Vec<RunRecord> {
    let total = work.len();
    let bar = (!json && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        bar.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let slots = Arc::new(tokio::sync::Semaphore::new(jobs));
    let mut running = JoinSet::new();
    for (index, (flow, pass)) in work.into_iter().enumerate() {
        let (setup, slots) = (Arc::clone(setup), Arc::clone(&slots));
        running.spawn(async move {
            let _permit = slots.acquire_owned().await;
            let record = runner::one(&setup, &flow, pass).await;
            (index, flow.id, record)
        });
    }
    let mut records: Vec<(usize, RunRecord)> = Vec::new();
    while let Some(joined) = running.join_next().await {
        match joined {
            Ok((index, id, Ok(record))) => {
                if let Some(bar) = &bar {
                    bar.set_message(id);
                    bar.inc(1);
                }
                records.push((index, record));
            }
            Ok((_, id, Err(e))) => {
                if let Some(bar) = &bar {
                    bar.inc(1);
                }
                anstream::eprintln!("{id}: not run: {e}");
            }
            Err(e) => anstream::eprintln!("a bench run ended abnormally: {e}"),
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    records.sort_by_key(|(index, _)| *index);
    records.into_iter().map(|(_, r)| r).collect()
}

/// The flows the filters leave, in catalogue order.
fn select<'c>(catalog: &'c Catalog, args: &BenchArgs) -> Result<Vec<&'c Flow>> {
    let word = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    for id in &args.flows {
        catalog
            .get(id)
            .map_err(|e| Error::Configuration(e.to_string()))?;
    }
    let split = match args.split.as_deref() {
        None => None,
        Some("development" | "dev") => Some(subterminator_bench::Split::Development),
        Some("held-out" | "heldout") => Some(subterminator_bench::Split::HeldOut),
        Some(other) => {
            return Err(Error::Configuration(format!(
                "--split {other:?}: give development or held-out"
            )));
        }
    };
    let any = |wanted: &[String], have: &[String]| {
        wanted.is_empty() || wanted.iter().any(|w| have.iter().any(|h| h == w))
    };
    Ok(catalog
        .flows()
        .iter()
        .filter(|f| args.flows.is_empty() || args.flows.contains(&f.id))
        .filter(|f| split.is_none_or(|s| f.split == s))
        .filter(|f| any(&args.services, std::slice::from_ref(&f.service)))
        .filter(|f| any(&args.languages, std::slice::from_ref(&f.language)))
        .filter(|f| {
            let tricks: Vec<String> = f
                .tricks
                .iter()
                .map(|t| word(serde_json::to_value(t).unwrap_or_default()))
                .collect();
            any(&args.tricks, &tricks)
        })
        .filter(|f| {
            let shapes: Vec<String> = f
                .shapes
                .iter()
                .map(|s| word(serde_json::to_value(s).unwrap_or_default()))
                .collect();
            any(&args.shapes, &shapes)
        })
        .collect())
}

fn list(flows: &[&Flow], json: bool) {
    if json {
        for flow in flows {
            anstream::println!(
                "{}",
                serde_json::to_string(&subterminator_bench::FlowMeta::from(*flow))
                    .unwrap_or_default()
            );
        }
        return;
    }
    let mut rows = vec![vec![
        "FLOW".to_owned(),
        "SPLIT".to_owned(),
        "TRICKS".to_owned(),
        "SHAPES".to_owned(),
    ]];
    let names = |v: serde_json::Value| match v {
        serde_json::Value::Array(items) => items
            .iter()
            .filter_map(|i| i.as_str())
            .collect::<Vec<_>>()
            .join(","),
        _ => String::new(),
    };
    for flow in flows {
        rows.push(vec![
            flow.id.clone(),
            flow.split.label().to_owned(),
            names(serde_json::to_value(&flow.tricks).unwrap_or_default()),
            names(serde_json::to_value(&flow.shapes).unwrap_or_default()),
        ]);
    }
    print_rows(&rows);
}

/// Rows of cells, aligned in columns; the first row is the header.
fn print_rows(rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| format!("{cell:<width$}", width = widths[c]))
            .collect();
        anstream::println!("{}", line.join("  ").trim_end());
    }
}

/// A paid run says what it may cost first; `--yes` skips the question and
/// `--max-cost` refuses a run estimated above it.
fn confirm_cost(args: &BenchArgs, runs: usize) -> Result<bool> {
    let tokens = ESTIMATED_TOKENS_PER_RUN.saturating_mul(runs as u64);
    let usage = llm::Usage {
        input_tokens: tokens,
        ..llm::Usage::default()
    };
    let cost = llm::pricing::cost_usd(
        provider_of(&args.model),
        &args.model,
        usage,
        &std::collections::BTreeMap::new(),
    );
    let estimate = cost.map_or_else(
        || "an unknown cost (no list price for this model)".to_owned(),
        |c| format!("about ${c:.2}"),
    );
    if let (Some(max), Some(cost)) = (args.max_cost, cost)
        && cost > max
    {
        return Err(Error::Configuration(format!(
            "{runs} runs with {} are estimated at {estimate}, above --max-cost {max:.2}; narrow the flows or raise the cap",
            args.model
        )));
    }
    if args.yes {
        return Ok(true);
    }
    anstream::eprint!(
        "{runs} runs with {} (~{tokens} input tokens): {estimate}. Start? [y/N]: ",
        args.model
    );
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    Ok(matches!(line.trim(), "y" | "Y" | "yes" | "Yes"))
}

/// The provider a model name goes to, for its list price.
fn provider_of(model: &str) -> &'static str {
    if model.starts_with("claude") {
        "anthropic"
    } else {
        "openai"
    }
}

/// `bench serve`: the flows for any agent, on loopback.
async fn serve(addr: &str) -> Result<u8> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::io("cannot listen", addr, e))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::io("cannot listen", addr, e))?;
    anstream::eprintln!(
        "CancelBench at http://{bound} (GET /flows, POST /runs, POST /runs/<run>/claim, GET /runs/<run>); Ctrl+C stops it"
    );
    tokio::select! {
        served = subterminator_bench::serve::serve(listener) => {
            served.map_err(|e| Error::Configuration(e.to_string()))?;
        }
        () = subterminator_core::session::interrupted() => {}
    }
    Ok(0)
}
