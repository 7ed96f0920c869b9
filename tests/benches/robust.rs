//! What robust runs (issue 16) save and cost, measured on the bundled
//! Spotify practice flow with the scripted model:
//! - the `interruptions` variant with the host's handler on and off: model
//!   requests, input tokens (o200k, as sent), yeses asked, wall time;
//! - the ordinary flow driven by the model, by `--replay` of its remembered
//!   path, and offline: wall time and model requests;
//! - a click taken by a late banner: what the one retry costs.
//!
//! Medians over RUNS runs. Run: `cargo bench -p subterminator-tests --bench robust`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::Instant;

use subterminator_practice::{FlowSite, flow};
use subterminator_tests::e2e;
use subterminator_tests::flow_script::Script;
use subterminator_tests::model_server::{ModelServer, RecordedRequest, Reply};
use subterminator_tests::scripted::SCRIPTED_ANTHROPIC_KEY;
use subterminator_tests::site::{Site, site_dir};

const RUNS: usize = 3;

fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

/// Input tokens of one request: system prompt, tool schemas and messages.
fn input_tokens(r: &RecordedRequest) -> usize {
    count(&r.system().unwrap_or_default())
        + count(&r.body["tools"].to_string())
        + count(&r.body["messages"].to_string())
}

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn events(home: &Path, kind: &str) -> Vec<serde_json::Value> {
    let dir = e2e::run_dirs(home).pop().unwrap();
    std::fs::read_to_string(dir.join("transcript.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["event"].clone())
        .filter(|e| e["type"] == kind)
        .collect()
}

fn cancel(home: &Path, url: &str, model: Option<&ModelServer>) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command.args([
        "cancel",
        "spotify",
        "--start-url",
        url,
        "--headless",
        "--isolated",
    ]);
    match model {
        Some(model) => {
            command
                .args(["--model", "claude-opus-4-6", "--model-drives"])
                .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
                .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
        }
        None => {
            command.args(["--model", "offline"]);
        }
    }
    command
}

struct Measured {
    wall_ms: u64,
    requests: usize,
    tokens: usize,
    asked: usize,
}

/// One run on a fresh site; `home` may hold a remembered path.
async fn run(
    home: &Path,
    variant: Option<&str>,
    model: Option<ModelServer>,
    extra: &[&str],
) -> Measured {
    let site = FlowSite::serve(flow::load("spotify", variant).unwrap())
        .await
        .unwrap();
    let mut command = cancel(home, &site.url(), model.as_ref());
    command.args(extra);
    let started = Instant::now();
    let out = e2e::run(command, "y\ny\ny\ny\n").await.unwrap();
    let wall_ms = started.elapsed().as_millis() as u64;
    assert_eq!(out.status.code(), Some(0), "{}", e2e::text(&out));
    let requests = model.as_ref().map(|m| m.requests()).unwrap_or_default();
    Measured {
        wall_ms,
        requests: requests.len(),
        tokens: requests.iter().map(input_tokens).sum(),
        asked: events(home, "approval_asked").len(),
    }
}

fn scripted() -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
    Script::load("spotify").unwrap().handler()
}

async fn interruptions(handler: bool) -> (Measured, u64) {
    let mut walls = Vec::new();
    let mut last = None;
    for _ in 0..RUNS {
        let home = tempfile::tempdir().unwrap();
        if !handler {
            std::fs::create_dir_all(home.path().join("config")).unwrap();
            std::fs::write(
                home.path().join("config/config.toml"),
                "[agent]\ndismiss-interruptions = false\n",
            )
            .unwrap();
        }
        let model = ModelServer::start(scripted()).await.unwrap();
        let m = run(home.path(), Some("interruptions"), Some(model), &[]).await;
        walls.push(m.wall_ms);
        last = Some(m);
    }
    (last.unwrap(), median(walls))
}

#[tokio::main]
async fn main() {
    println!("## interruptions variant, scripted model (compact)\n");
    println!(
        "| handler | model requests | input tokens (o200k) | yeses asked | wall ms (median of {RUNS}) |"
    );
    println!("|---|---|---|---|---|");
    for handler in [true, false] {
        let (m, wall) = interruptions(handler).await;
        println!(
            "| {} | {} | {} | {} | {wall} |",
            if handler { "on" } else { "off" },
            m.requests,
            m.tokens,
            m.asked
        );
    }

    println!("\n## ordinary flow: model, replay, offline\n");
    println!("| driver | model requests | input tokens | wall ms (median of {RUNS}) |");
    println!("|---|---|---|---|");
    let mut rows: Vec<(&str, Vec<u64>, usize, usize)> = vec![
        ("scripted model, no memory", Vec::new(), 0, 0),
        ("scripted model, with hints", Vec::new(), 0, 0),
        ("--replay (model never asked)", Vec::new(), 0, 0),
        ("offline (replays first)", Vec::new(), 0, 0),
    ];
    for _ in 0..RUNS {
        let home = tempfile::tempdir().unwrap();
        let model = ModelServer::start(scripted()).await.unwrap();
        let first = run(home.path(), None, Some(model), &[]).await;
        let model = ModelServer::start(scripted()).await.unwrap();
        let hinted = run(home.path(), None, Some(model), &[]).await;
        let model = ModelServer::start(|_| Reply::status(400, "no model may be asked"))
            .await
            .unwrap();
        let replayed = run(home.path(), None, Some(model), &["--replay"]).await;
        let offline = run(home.path(), None, None, &[]).await;
        for (row, m) in rows.iter_mut().zip([first, hinted, replayed, offline]) {
            row.1.push(m.wall_ms);
            row.2 = m.requests;
            row.3 = m.tokens;
        }
    }
    for (name, walls, requests, tokens) in rows {
        println!("| {name} | {requests} | {tokens} | {} |", median(walls));
    }

    println!("\n## a click taken by a late banner (practice plugin, offline)\n");
    let mut walls = Vec::new();
    let mut retried = Vec::new();
    for _ in 0..RUNS {
        let site = Site::serve(&site_dir("robust")).await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut command = e2e::command(home.path());
        command
            .args([
                "cancel",
                "practice",
                "--start-url",
                &site.url("/late-banner.html"),
            ])
            .args([
                "--model",
                "offline",
                "--headless",
                "--isolated",
                "--max-turns",
                "2",
            ]);
        let started = Instant::now();
        let _ = e2e::run(command, "").await.unwrap();
        walls.push(started.elapsed().as_millis() as u64);
        let result = events(home.path(), "tool_result")
            .into_iter()
            .find(|e| e["tool"] == "browser_click")
            .unwrap();
        retried.push(result["elapsed_ms"].as_u64().unwrap_or_default());
        assert!(site.was_requested("/offer.html"));
    }
    println!("| what | ms (median of {RUNS}) |");
    println!("|---|---|");
    println!(
        "| the click, its failure and the retry | {} |",
        median(retried)
    );
    println!("| the whole run | {} |", median(walls));
}
