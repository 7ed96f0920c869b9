//! Issue 17's figures, from outside, with the binary this profile builds and
//! an instant scripted model: start → first model request, model requests,
//! request characters and input tokens (o200k) summed, tokens the prompt
//! cache served, and the peak RSS of our own process (its `VmHWM`, polled),
//! on the practice site in both toolsets and on the Spotify practice
//! flow with its interruptions. Warm plugin cache (one home per flow and
//! profile, a first run unmeasured) and warm npm cache. Medians over RUNS.
//!
//! Run: `cargo bench -p subterminator-tests --bench startup`
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use subterminator_practice::{FlowSite, PracticeSite, SiteOptions, flow};
use subterminator_tests::e2e;
use subterminator_tests::flow_script::Script;
use subterminator_tests::model_server::{ModelServer, RecordedRequest, Reply};
use subterminator_tests::scripted::{SCRIPTED_ANTHROPIC_KEY, canceller_for};

const RUNS: usize = 5;
const POLL: Duration = Duration::from_millis(20);

fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_with_special_tokens(text)
        .len()
}

fn median<T: Ord + Copy + Default>(mut v: Vec<T>) -> T {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Peak resident memory of `pid` so far, in KiB.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[derive(Default, Clone, Copy)]
struct Measured {
    first_ms: u64,
    requests: usize,
    chars: usize,
    tokens: usize,
    /// System prompt and tool schemas of one request.
    fixed: usize,
    cached: u64,
    turns: u64,
    peak_kib: u64,
}

type Handler = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

async fn once(home: &Path, url: &str, service: &str, tools: &str, handler: Handler) -> Measured {
    let first: Arc<Mutex<Option<Instant>>> = Arc::default();
    let seen = Arc::clone(&first);
    let model = ModelServer::start(move |r| {
        seen.lock().unwrap().get_or_insert_with(Instant::now);
        handler(r)
    })
    .await
    .unwrap();
    let mut command = e2e::command(home);
    command
        .args(["cancel", service, "--start-url", url, "--tools", tools])
        .args(["--headless", "--isolated", "--model", "claude-opus-4-6"])
        // What the model path costs: it takes every step here.
        .arg("--model-drives")
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let pid = child.id().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stdin, b"y\n")
        .await
        .unwrap();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = peak_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        tokio::time::sleep(POLL).await;
    };
    assert!(status.success(), "{service} {tools}: {status}");
    let requests = model.requests();
    if let Ok(dir) = std::env::var("DUMP_REQUESTS") {
        for (i, r) in requests.iter().enumerate() {
            std::fs::write(
                format!("{dir}/{service}-{tools}-{i}.json"),
                r.body.to_string(),
            )
            .unwrap();
        }
    }
    let result = e2e::last_result(home).unwrap();
    let first_ms = first
        .lock()
        .unwrap()
        .map_or(0, |t| t.duration_since(started).as_millis() as u64);
    Measured {
        first_ms,
        requests: requests.len(),
        chars: requests.iter().map(|r| r.body.to_string().len()).sum(),
        tokens: requests
            .iter()
            .map(|r| {
                count(&r.system().unwrap_or_default())
                    + count(&r.body["tools"].to_string())
                    + count(&r.body["messages"].to_string())
            })
            .sum(),
        fixed: requests
            .first()
            .map(|r| count(&r.system().unwrap_or_default()) + count(&r.body["tools"].to_string()))
            .unwrap_or_default(),
        cached: result["usage"]["cached"].as_u64().unwrap_or_default(),
        turns: result["turns"].as_u64().unwrap_or_default(),
        peak_kib: peak,
    }
}

async fn flow(name: &str, service: &str, variant: Option<&str>, tools: &str, handler: Handler) {
    let home = tempfile::tempdir().unwrap();
    let mut all = Vec::new();
    for run in 0..=RUNS {
        let handler = Arc::clone(&handler);
        let m = if service == "netflix" {
            let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
            once(home.path(), &site.url(), service, tools, handler).await
        } else {
            let site = FlowSite::serve(flow::load(service, variant).unwrap())
                .await
                .unwrap();
            once(home.path(), &site.url(), service, tools, handler).await
        };
        // Memory would turn later runs into hinted ones: each run starts
        // from the same knowledge. The first run warms the caches.
        let _ = std::fs::remove_dir_all(home.path().join("data/memory"));
        if run > 0 {
            all.push(m);
        }
    }
    let pick = |f: fn(&Measured) -> u64| median(all.iter().map(f).collect::<Vec<_>>());
    println!(
        "| {name} | {tools} | {} ms | {} | {} | {} | {} | {} | {} | {:.1} MiB |",
        pick(|m| m.first_ms),
        pick(|m| m.requests as u64),
        pick(|m| m.turns),
        pick(|m| m.chars as u64),
        pick(|m| m.tokens as u64),
        pick(|m| m.fixed as u64),
        pick(|m| m.cached),
        pick(|m| m.peak_kib) as f64 / 1024.0,
    );
}

#[tokio::main]
async fn main() {
    println!(
        "| flow | profile | start → first model request | requests | turns | request chars | input tokens (o200k) | of one request: system + tools | cached (as reported) | peak RSS, ours |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for tools in ["compact", "full"] {
        flow(
            "practice site (Netflix plugin)",
            "netflix",
            None,
            tools,
            Arc::new(canceller_for(tools)),
        )
        .await;
    }
    let script: Handler = Arc::new(Script::load("spotify").unwrap().handler());
    flow(
        "Spotify with banner, promotion, chat",
        "spotify",
        Some("interruptions"),
        "compact",
        Arc::clone(&script),
    )
    .await;
    // The long way, like the prototype's pages: the cancel button and a
    // survey below the fold, two offers; ideally 7 actions + complete_task.
    flow(
        "Spotify, the long way (7 actions)",
        "spotify",
        Some("long"),
        "compact",
        script,
    )
    .await;
}
