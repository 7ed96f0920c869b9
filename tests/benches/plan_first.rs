//! Issue 32's figures: what plan first saves, over CancelBench flows in the
//! ten services' shapes and in other shapes, with the honest scripted model
//! (it walks each flow's expected path, clicking only what the page it was
//! sent shows). Per flow, plan first (the default) against `--model-drives`:
//! model requests, request characters (every character of every request:
//! system prompt, tool schemas, messages), input tokens (o200k), and wall
//! time with an instant model and with one that takes 2 s per reply. One
//! run each; every run must verify with one yes or the bench stops.
//!
//! Then the flows of services no plugin knows (the development split's,
//! each cancelled by its address as `cancel <address>` does): the same
//! measures, and the median request characters of each mode, beside the
//! long StreamFlix flow's (issue 43).
//!
//! Run: `cargo bench -p subterminator-tests --bench plan_first`
//! (`FLOWS=id,id` for some flows only; `PART=known` or `PART=unknown` for
//! one table).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use subterminator_bench::{BenchSite, Catalog, Ending, Split};
use subterminator_tests::e2e;
use subterminator_tests::honest_model::honest;
use subterminator_tests::model_server::{ModelServer, RecordedRequest, Reply};
use subterminator_tests::scripted::SCRIPTED_ANTHROPIC_KEY;

/// What a person waits for a real model's reply, as the issue sets it.
const SLOW_REPLY: Duration = Duration::from_secs(2);

/// The base flow of each of the ten services and StreamFlix, then the long
/// StreamFlix flow (an offer, an add-on sold in the flow, the survey: issue
/// 32's measure), then flows in other shapes: links, an API on another
/// origin, shadow DOM, a confirm dialog, and one whose plan stops (a buried
/// cancel link).
const FLOWS: &[&str] = &[
    "practice-base-en",
    "practice-cross-sell-en",
    "netflix-base-en",
    "spotify-base-en",
    "hulu-base-en",
    "disney-plus-base-en",
    "max-base-en",
    "youtube-premium-base-en",
    "amazon-prime-base-en",
    "paramount-plus-base-en",
    "peacock-base-en",
    "nytimes-base-en",
    "practice-links-de",
    "hulu-spa-api-origin-en",
    "disney-plus-shadow-dom-en",
    "youtube-premium-confirm-dialog-en",
    "paramount-plus-buried-cancel-en",
];

fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

struct Measured {
    requests: usize,
    /// As the host counts them: system prompt, messages, tool schemas.
    chars: usize,
    /// Every byte of every request body as sent (JSON included).
    body: usize,
    tokens: usize,
    wall_ms: u128,
    verified: bool,
    prompts: usize,
    /// At list price, with the prompt cache as the scripted server reports
    /// it (Anthropic's rules: breakpoints, a 1,024-token minimum).
    cost_usd: f64,
}

async fn once(id: &str, model_drives: bool, delay: Option<Duration>) -> Measured {
    let flow = Catalog::load().unwrap().get(id).unwrap().clone();
    let site = BenchSite::serve(&flow).await.unwrap();
    let walker = Arc::new(honest(&flow, "compact"));
    let model = ModelServer::start(move |r: &RecordedRequest| {
        let reply = walker(r);
        match delay {
            Some(d) => Reply::delayed(d, reply),
            None => reply,
        }
    })
    .await
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    if flow.plugin {
        command.args(["cancel", &flow.service, "--start-url", &site.url()]);
    } else {
        // A site no plugin knows is cancelled by its address.
        command.args(["cancel", &site.url()]);
    }
    command
        .args(["--tools", "compact", "--headless", "--isolated"])
        .args(["--model", "claude-opus-4-6"])
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    if model_drives {
        command.arg("--model-drives");
    }
    let started = Instant::now();
    let out = e2e::run(command, "y\ny\ny\ny\ny\n").await.unwrap();
    let wall_ms = started.elapsed().as_millis();
    let said = e2e::text(&out);
    let result = e2e::last_result(home.path()).unwrap();
    let requests = model.requests();
    if let Ok(dir) = std::env::var("DUMP_REQUESTS") {
        for (i, r) in requests.iter().enumerate() {
            let mode = if model_drives { "drives" } else { "plan" };
            std::fs::write(format!("{dir}/{id}-{mode}-{i}.json"), r.body.to_string()).unwrap();
        }
    }
    Measured {
        requests: requests.len(),
        body: requests.iter().map(|r| r.body.to_string().len()).sum(),
        chars: usize::try_from(result["asked"]["chars"].as_u64().unwrap_or_default()).unwrap(),
        tokens: requests
            .iter()
            .map(|r| {
                count(&r.system().unwrap_or_default())
                    + count(&r.body["tools"].to_string())
                    + count(&r.body["messages"].to_string())
            })
            .sum(),
        wall_ms,
        verified: result["success"] == true && result["verified"] == true,
        prompts: said.matches("Approve? [y/N]").count(),
        cost_usd: result["cost_usd"].as_f64().unwrap_or_default(),
    }
}

/// The flows of services no plugin knows whose cancellation can be
/// committed online, in the development split.
fn unknown_services() -> Vec<String> {
    Catalog::load()
        .unwrap()
        .flows()
        .iter()
        .filter(|f| !f.plugin && f.split == Split::Development && f.truth.ending == Ending::Commit)
        .map(|f| f.id.clone())
        .collect()
}

fn median(mut values: Vec<usize>) -> usize {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

#[tokio::main]
async fn main() {
    let part = std::env::var("PART").unwrap_or_default();
    if part != "unknown" {
        known().await;
    }
    if part != "known" {
        unknown().await;
    }
}

/// The services' own flows and other shapes, as issue 32 measured them.
async fn known() {
    let only = std::env::var("FLOWS").ok();
    let flows: Vec<&str> = match &only {
        Some(list) => list.split(',').collect(),
        None => FLOWS.to_vec(),
    };
    println!(
        "| flow | mode | model requests | request chars (host's count) | request bodies (bytes) | input tokens (o200k) | cost (list price, cache as reported) | wall, instant model | wall, 2 s a reply | verified | yeses |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for id in flows {
        for (mode, drives) in [("plan first", false), ("--model-drives", true)] {
            let fast = once(id, drives, None).await;
            let slow = once(id, drives, Some(SLOW_REPLY)).await;
            println!(
                "| {id} | {mode} | {} | {} | {} | {} | ${:.4} | {:.1} s | {:.1} s | {} | {} |",
                fast.requests,
                fast.chars,
                fast.body,
                fast.tokens,
                fast.cost_usd,
                fast.wall_ms as f64 / 1000.0,
                slow.wall_ms as f64 / 1000.0,
                if fast.verified && slow.verified {
                    "yes"
                } else {
                    "**no**"
                },
                fast.prompts,
            );
        }
    }
}

/// The services no plugin knows: each flow once per mode, an instant
/// model; the medians of the runs that verified.
async fn unknown() {
    let flows = match std::env::var("FLOWS") {
        Ok(list) => list.split(',').map(str::to_owned).collect(),
        Err(_) => unknown_services(),
    };
    println!();
    println!(
        "| flow (no plugin) | mode | model requests | request chars (host's count) | request bodies (bytes) | input tokens (o200k) | wall, instant model | verified | yeses |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut chars: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
    for id in &flows {
        for (i, (mode, drives)) in [("plan first", false), ("--model-drives", true)]
            .into_iter()
            .enumerate()
        {
            let run = once(id, drives, None).await;
            if run.verified {
                chars[i].push(run.chars);
            }
            println!(
                "| {id} | {mode} | {} | {} | {} | {} | {:.1} s | {} | {} |",
                run.requests,
                run.chars,
                run.body,
                run.tokens,
                run.wall_ms as f64 / 1000.0,
                if run.verified { "yes" } else { "**no**" },
                run.prompts,
            );
        }
    }
    println!();
    for (i, mode) in ["plan first", "--model-drives"].into_iter().enumerate() {
        println!(
            "median request chars, {mode}, over the {} of {} flows that verified: {}",
            chars[i].len(),
            flows.len(),
            median(chars[i].clone())
        );
    }
}
