//! `subterminator bench`: CancelBench's flows run with any driver — the
//! offline policy, a model, a remembered path — each twice (a person who
//! says yes to everything, and one who says no at the committing step),
//! scored from the practice site's own request log; a scorecard, one JSON
//! line per run as it ends, and an HTML report. The runs are always taken
//! against a served bench, as any outside agent's are: one served in this
//! process (`serve::Here`), or a `bench serve` (`host/bench/README.md`)
//! named by `--bench-url`; its person answers and its scorer judges, so
//! this side holds neither. `--shard` and `bench merge` split and join a
//! run.

mod ask;
mod browsers;
mod merge;
mod runner;
mod serve;
mod served;
mod shard;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use tokio::task::JoinSet;

use subterminator_bench::serve::Here;
use subterminator_bench::{FlowSummary, PassKind, RunRecord, scorecard};
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::llm;
use subterminator_core::paths::Dirs;
use subterminator_core::session::{self, OFFLINE_MODEL, SessionSpec, Tools};

use crate::cancel::ToolsArg;
use browsers::Browsers;
use runner::Setup;
use served::Served;
use shard::Shard;

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
    subterminator bench --json > runs.jsonl                  one JSON line per run, as each ends\n  \
    subterminator bench --shard 2/4 --json > shard-2.jsonl   a quarter of the flows\n  \
    subterminator bench --bench-url http://127.0.0.1:8722    against a `bench serve`\n  \
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

    /// One shard of the flows the filters leave: every N-th from the I-th
    /// (`--shard 2/4`), for a CI matrix or a cluster's indexed jobs;
    /// `bench merge` joins the shards' `--json` output.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,

    /// Run against a `bench serve` (the agent's address it prints), as any
    /// outside agent is: its flows, its sites, its person; the verdicts
    /// stay with its scorer.
    #[arg(long, value_name = "URL", conflicts_with = "replay")]
    pub bench_url: Option<String>,

    /// With --bench-url: this agent's name in the served bench's records
    /// (default: "subterminator <driver>").
    #[arg(long, requires = "bench_url")]
    pub agent: Option<String>,

    /// Drive a browser that already runs (a grid's, or a Chrome started
    /// with --remote-debugging-port) instead of launching one per run;
    /// each run opens a context of its own in it.
    #[arg(long, value_name = "URL")]
    pub cdp_endpoint: Option<String>,

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
    /// Serve the flows on loopback for any agent (list, start, ask, claim,
    /// end), and the scorer's side (truth, verdicts, logs, scorecard) on a
    /// port of its own.
    #[command(after_help = "Examples:\n  \
        subterminator bench serve                   agent 127.0.0.1:8722, scorer 127.0.0.1:8723\n  \
        subterminator bench serve --out runs/       every finished run kept, with its scorecard\n  \
        subterminator bench serve --addr 127.0.0.1:0 --scorer 127.0.0.1:0 --json   free ports")]
    Serve(serve::ServeArgs),
    /// Merge the run records of several shards (or serve folders) into one
    /// scorecard and report.
    #[command(after_help = "Examples:\n  \
        subterminator bench merge shard-*.jsonl --out merged/   the scorecard and report\n  \
        subterminator bench merge a/records.jsonl b/records.jsonl --json")]
    Merge(merge::MergeArgs),
}

pub async fn run(args: BenchArgs, dirs: &Dirs, json: bool) -> Result<u8> {
    match args.action {
        Some(BenchAction::Serve(serve_args)) => return serve::run(serve_args, json).await,
        Some(BenchAction::Merge(merge_args)) => return merge::run(&merge_args, json),
        None => {}
    }
    // With no `--bench-url`, the bench is served in this process and taken
    // as any served bench is: its person answers, its scorer judges, and
    // this side knows none of a flow's truth (`serve::Here`).
    let here = match &args.bench_url {
        Some(_) => None,
        None => Some(
            Here::start()
                .await
                .map_err(|e| Error::Configuration(format!("cannot serve the bench here: {e}")))?,
        ),
    };
    let url = match &here {
        Some(here) => here.url().to_owned(),
        None => args.bench_url.clone().unwrap_or_default(),
    };
    let bench = Served::at(&url)?;
    let all = bench.flows().await?;
    let flows = shard::take(select(&all, &args)?, args.shard);
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
    let spec = spec(&args);
    // The runs attach to a browser that already runs (`--cdp-endpoint`),
    // else to one of `jobs` started here for the bench and ended with it:
    // each run a context of its own (`browsers.rs`).
    // (A `cdp-endpoint` in the config is the person's own browser, for
    // their runs; the bench uses one only when the flag names it.)
    let given = match args.cdp_endpoint.as_deref() {
        Some(endpoint) => session::attach(Some(endpoint), &config.browser)?,
        None => None,
    };
    let browsers = match given {
        Some(attach) => Browsers::attached(attach, args.jobs),
        None => {
            let executable = subterminator_core::browser::detect_executable(
                config.browser.executable.as_deref(),
            )?;
            Browsers::start(args.jobs, executable).await?
        }
    };
    let driver = if args.model == OFFLINE_MODEL {
        "offline".to_owned()
    } else {
        format!("model:{}", args.model)
    };
    let setup = Arc::new(Setup {
        shared: dirs.clone(),
        config,
        registry,
        spec,
        runs: folder.join("runs"),
        driver,
        browsers,
    });
    let agent = args.agent.clone().unwrap_or_else(|| match here {
        Some(_) => setup.driver.clone(),
        None => format!("subterminator {}", setup.driver),
    });
    let work: Vec<(FlowSummary, PassKind)> = flows
        .iter()
        .flat_map(|f| passes.iter().map(move |p| ((*f).clone(), *p)))
        .collect();
    let ran = run_all(&setup, &bench, here.as_ref(), work, &agent, args.jobs, json).await;
    let Some(records) = ran.records else {
        anstream::eprintln!(
            "{} runs ended at {}; their verdicts are the scorer's (GET /scorecard, or the serve's --out folder)",
            ran.ended,
            args.bench_url.as_deref().unwrap_or_default()
        );
        return Ok(0);
    };
    let card = scorecard(&records);
    if !json {
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
        served: None,
        isolated: true,
        json: true,
        verbose: false,
    }
}

/// What a bench's runs left: how many ended, and, where the bench was
/// served here, their records in the order of the work.
struct Ended {
    ended: usize,
    records: Option<Vec<RunRecord>>,
}

/// Runs every (flow, pass) against a served bench, `jobs` at a time, with a
/// progress bar on a terminal; with `--json`, one line per run as it ends
/// (its record where the bench is served here, else what this side knows
/// of it). A run that cannot start is reported and left out.
async fn run_all(
    setup: &Arc<Setup>,
    bench: &Served,
    here: Option<&Here>,
    work: Vec<(FlowSummary, PassKind)>,
    agent: &str,
    jobs: usize,
    json: bool,
) -> Ended {
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
        let (setup, slots, bench, agent) = (
            Arc::clone(setup),
            Arc::clone(&slots),
            bench.clone(),
            agent.to_owned(),
        );
        running.spawn(async move {
            let _permit = slots.acquire_owned().await;
            let ran = bench.one(&setup, &flow, pass, &agent).await;
            (index, flow.id, ran)
        });
    }
    let mut ended = 0;
    let mut records: Vec<(usize, RunRecord)> = Vec::new();
    while let Some(joined) = running.join_next().await {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
        let (index, id, ran) = match joined {
            Ok(done) => done,
            Err(e) => {
                anstream::eprintln!("a bench run ended abnormally: {e}");
                continue;
            }
        };
        let ran = match ran {
            Ok(ran) => ran,
            Err(e) => {
                anstream::eprintln!("{id}: not run: {e}");
                continue;
            }
        };
        ended += 1;
        if let Some(bar) = &bar {
            bar.set_message(id);
        }
        let line = match here {
            None => serde_json::to_string(&ran),
            Some(here) => match here.record(&ran.run).await {
                Some(record) => {
                    let line = serde_json::to_string(&record);
                    records.push((index, record));
                    line
                }
                None => {
                    anstream::eprintln!("{}: ended with no record", ran.flow);
                    continue;
                }
            },
        };
        if json {
            // One line per run as it ends, so a reader (a shard's
            // collector, `bench merge`) sees progress.
            anstream::println!("{}", line.unwrap_or_default());
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    records.sort_by_key(|(index, _)| *index);
    Ended {
        ended,
        records: here.map(|_| records.into_iter().map(|(_, r)| r).collect()),
    }
}

/// The flows the filters leave, in catalogue order.
fn select<'c>(all: &'c [FlowSummary], args: &BenchArgs) -> Result<Vec<&'c FlowSummary>> {
    let word = |v: serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    for id in &args.flows {
        if !all.iter().any(|f| &f.id == id) {
            return Err(Error::Configuration(format!(
                "there is no flow {id:?}; `subterminator bench --list` shows them"
            )));
        }
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
    Ok(all
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

/// The flows chosen, as the bench lists them: one JSON line each, or a
/// table.
fn list(flows: &[&FlowSummary], json: bool) {
    if json {
        for flow in flows {
            anstream::println!("{}", serde_json::to_string(flow).unwrap_or_default());
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
