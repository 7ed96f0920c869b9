//! Token budgets of the compact toolset, measured with a real
//! BPE tokenizer (tiktoken-rs o200k_base, GPT-4o's): the scripted practice
//! site cancellation in both toolsets, per turn and in total, and the
//! snapshot sizes of the practice pages, the test pages and the 42 KB
//! fixture. Run: `cargo bench -p subterminator-tests --bench tokens`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::Value;
use subterminator_core::agent::CompactToolset;
use subterminator_core::agent::history::estimate_tokens;
use subterminator_core::agent::toolset::Toolset;
use subterminator_core::browser::{Browser, BrowserOptions, UserData, parse_tree};
use subterminator_core::page::Snapshot;
use subterminator_practice::{PracticeSite, SiteOptions};
use subterminator_tests::compact_script::snapshot_in;
use subterminator_tests::e2e;
use subterminator_tests::model_server::{ModelServer, RecordedRequest};
use subterminator_tests::scripted::{cancel_netflix, canceller_for};
use subterminator_tests::site::{Site, site_dir};

fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

/// Input tokens of one request: system prompt, tool schemas and messages as
/// sent on the wire.
fn input_tokens(r: &RecordedRequest) -> (usize, usize) {
    let fixed = count(&r.system().unwrap_or_default()) + count(&r.body["tools"].to_string());
    (fixed, fixed + count(&r.body["messages"].to_string()))
}

fn median(mut v: Vec<usize>) -> usize {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

struct Run {
    per_turn: Vec<usize>,
    fixed: usize,
    snapshots: Vec<(String, usize, usize)>,
}

async fn cancellation(tools: &str) -> Run {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let model = ModelServer::start(canceller_for(tools)).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let command = cancel_netflix(home.path(), &site.url(), &model, tools);
    let out = e2e::run(command, "y\n").await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{tools}: {}", e2e::text(&out));
    let requests = model.requests();
    let per_turn: Vec<usize> = requests.iter().map(|r| input_tokens(r).1).collect();
    let fixed = requests.first().map(|r| input_tokens(r).0).unwrap_or(0);
    let mut snapshots = Vec::new();
    for r in &requests {
        let latest = r.latest_input().unwrap_or_default();
        let (title, page) = if tools == "compact" {
            let Some(s) = snapshot_in(&latest) else {
                continue;
            };
            let title = s["page"]["title"].as_str().unwrap_or_default().to_owned();
            (title, s.to_string())
        } else {
            let title = latest
                .lines()
                .find_map(|l| l.strip_prefix("- Page Title: "))
                .unwrap_or_default()
                .to_owned();
            (title, latest.clone())
        };
        snapshots.push((title, count(&page), estimate_tokens(&page)));
    }
    Run {
        per_turn,
        fixed,
        snapshots,
    }
}

/// The compact view and the raw tree of `url`, in tokens.
async fn page_tokens(
    browser: &Browser,
    url: &str,
) -> Result<(String, usize, usize, usize), String> {
    browser.navigate(url).await.map_err(|e| e.to_string())?;
    let mut toolset = CompactToolset::new(false);
    let snapshot = toolset
        .look(browser, None)
        .await
        .map_err(|e| e.to_string())?;
    let view = toolset.observe(&snapshot);
    let raw = browser.snapshot().await.map_err(|e| e.to_string())?;
    Ok((
        raw.title.clone(),
        count(&view),
        estimate_tokens(&view),
        count(&raw.content),
    ))
}

fn print_page(name: &str, measured: Result<(String, usize, usize, usize), String>) {
    match measured {
        Ok((title, view, estimate, raw)) => {
            println!("{name:<24} compact {view:>5} (est {estimate:>5})  raw {raw:>6}  {title}")
        }
        Err(e) => println!("{name:<24} not measured: {e}"),
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/playwright-mcp-0.0.83/snapshots")
        .join(name)
}

#[tokio::main]
async fn main() {
    println!("tokenizer: tiktoken-rs 0.12 o200k_base (GPT-4o); estimate = host's bytes/2.5\n");
    let compact = cancellation("compact").await;
    let full = cancellation("full").await;
    println!("== scripted practice-site cancellation (Netflix plugin), input tokens per turn");
    println!("turn  compact     full");
    for i in 0..compact.per_turn.len().max(full.per_turn.len()) {
        let cell = |v: &Vec<usize>| v.get(i).map_or("-".to_owned(), ToString::to_string);
        println!(
            "{:>4}  {:>7}  {:>7}",
            i + 1,
            cell(&compact.per_turn),
            cell(&full.per_turn)
        );
    }
    let total = |r: &Run| r.per_turn.iter().sum::<usize>();
    println!(
        "total {:>7}  {:>7}   ratio full/compact {:.2}",
        total(&compact),
        total(&full),
        total(&full) as f64 / total(&compact).max(1) as f64
    );
    println!(
        "median {:>6}  {:>7}",
        median(compact.per_turn.clone()),
        median(full.per_turn.clone())
    );
    println!(
        "system prompt + tool schemas: compact {}, full {}",
        compact.fixed, full.fixed
    );
    println!("\n== snapshots as the model saw them (tokens, estimate)");
    for (name, run) in [("compact", &compact), ("full", &full)] {
        for (title, tokens, estimate) in &run.snapshots {
            println!("{name:>7}  {tokens:>6}  {estimate:>6}  {title}");
        }
    }

    println!("\n== test pages: compact view vs raw YAML tree (tokens)");
    let run = tempfile::tempdir().unwrap();
    let options = BrowserOptions {
        headless: true,
        executable_path: Some(PathBuf::from("/usr/bin/chromium")),
        ..BrowserOptions::new(UserData::Isolated, run.path().join("browser"))
    };
    let browser = Browser::start(options).await.unwrap();
    for dir in ["basic", "compact"] {
        let site = Site::serve(&site_dir(dir)).await.unwrap();
        let mut pages: Vec<String> = std::fs::read_dir(site_dir(dir))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".html"))
            .collect();
        pages.sort();
        for page in pages {
            let measured = page_tokens(&browser, &site.url(&format!("/{page}"))).await;
            print_page(&format!("{dir}/{page}"), measured);
        }
    }
    let practice = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    for path in ["", "offer", "survey", "error", "login"] {
        let measured = page_tokens(&browser, &format!("{}{path}", practice.url())).await;
        print_page(&format!("practice/{path}"), measured);
    }
    browser.shutdown().await.unwrap();

    println!("\n== recorded fixtures (no boxes: everything counts as visible)");
    let yaml = std::fs::read_to_string(fixture("big-snapshot.yml")).unwrap();
    let snapshot = Snapshot {
        url: "http://127.0.0.1/big".into(),
        title: "Big catalog".into(),
        elements: parse_tree(&yaml),
        content: yaml.clone(),
        ..Snapshot::default()
    };
    let view = CompactToolset::new(false).observe(&snapshot);
    let elements = serde_json::from_str::<Value>(&view).unwrap()["elements"]
        .as_array()
        .map_or(0, Vec::len);
    println!(
        "big-snapshot.yml ({} bytes): raw {} tokens -> compact {} tokens (est {}), {} elements",
        yaml.len(),
        count(&yaml),
        count(&view),
        estimate_tokens(&view),
        elements
    );
    let mut worst = (0, String::new());
    let mut sizes = Vec::new();
    for entry in std::fs::read_dir(fixture("")).unwrap().flatten() {
        let yaml = std::fs::read_to_string(entry.path()).unwrap();
        let snapshot = Snapshot {
            elements: parse_tree(&yaml),
            content: yaml,
            ..Snapshot::default()
        };
        let tokens = count(&CompactToolset::new(false).observe(&snapshot));
        sizes.push(tokens);
        if tokens > worst.0 {
            worst = (tokens, entry.file_name().to_string_lossy().into_owned());
        }
    }
    println!(
        "{} recorded snapshots: median {} tokens, largest {} ({})",
        sizes.len(),
        median(sizes.clone()),
        worst.0,
        worst.1
    );
}
