//! `subterminator mcp`, timed from an MCP client we did not write (the
//! official Python SDK): the cold first call of a session (Playwright MCP
//! started, Chromium launched, the first page and look), warm calls with
//! the page's own work told apart (the run record's `turn_timing`), and the
//! memory a session costs (PSS of every process under the server).
//!
//! Run: `cargo bench -p subterminator-tests --bench mcp` (the release binary
//! is not used: `cargo bench` builds the tests' own binary in the bench
//! profile).

use std::collections::BTreeSet;

use serde_json::{Value, json};
use subterminator_practice::{PracticeSite, SiteOptions};
use subterminator_tests::e2e;
use subterminator_tests::mcp_client::{self, Client, calls};

/// Cold starts measured, each a new session in one server.
const COLD_RUNS: usize = 5;
/// Warm calls of each kind.
const WARM_CALLS: usize = 20;
/// Sessions open at once for the memory figure.
const MEMORY_SESSIONS: usize = 4;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or_default()
}

fn elapsed(lines: &[Value], tool: &str) -> Vec<f64> {
    calls(lines, tool)
        .iter()
        .filter_map(|c| c["elapsed_ms"].as_f64())
        .collect()
}

fn open(site: &PracticeSite, session: &str) -> Value {
    json!({"call": "browser_snapshot", "args": {
        "service": "practice", "start_url": site.url(), "isolated": true, "session_id": session}})
}

/// PSS of everything under the client but the client itself, and of the
/// `subterminator mcp` process alone, in MiB.
fn server_mib(client: &Client) -> (f64, f64) {
    let pids: BTreeSet<u32> = e2e::descendants(client.pid().unwrap_or_default());
    let all = pids.iter().map(|p| e2e::pss_kib(*p)).sum::<u64>() as f64 / 1024.0;
    let ours = pids
        .iter()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.contains("subterminator") && c.contains("\0mcp"))
        })
        .map(|p| e2e::pss_kib(*p))
        .sum::<u64>() as f64
        / 1024.0;
    (all, ours)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let site = PracticeSite::serve(SiteOptions::default()).await?;
    let home = tempfile::tempdir()?;
    let server = mcp_client::server(home.path(), &["--headless", "--model", "offline"]);

    // Cold: one session after another in one server (plugins cached after
    // the first), each closed before the next.
    let mut steps = Vec::new();
    for i in 0..=COLD_RUNS {
        let id = format!("cold{i}");
        steps.push(open(&site, &id));
        steps.push(json!({"call": "browser_close", "args": {"session_id": id}}));
    }
    let mut plan = server.clone();
    plan["elicitation"] = "yes".into();
    plan["steps"] = Value::Array(steps);
    let lines = Client::start(&plan).await?.finish().await?;
    let cold = elapsed(&lines, "browser_snapshot");
    let first = cold.first().copied().unwrap_or_default();
    let cold_median = median(cold.into_iter().skip(1).collect());
    let close_median = median(elapsed(&lines, "browser_close"));

    // Warm: looks and small actions in one open session.
    let mut steps = vec![open(&site, "warm")];
    steps.extend(
        (0..WARM_CALLS)
            .map(|_| json!({"call": "browser_snapshot", "args": {"session_id": "warm"}})),
    );
    steps.extend((0..WARM_CALLS).map(|_| {
        json!({"call": "browser_scroll", "args": {"direction": "down", "amount": 40, "session_id": "warm"}})
    }));
    steps.push(json!({"call": "browser_close", "args": {"session_id": "warm"}}));
    plan["steps"] = Value::Array(steps);
    let lines = Client::start(&plan).await?.finish().await?;
    let looks: Vec<f64> = elapsed(&lines, "browser_snapshot")
        .into_iter()
        .skip(1)
        .collect();
    let scrolls = elapsed(&lines, "browser_scroll");
    let record = calls(&lines, "browser_close")
        .first()
        .and_then(|c| c["structured"]["data"]["run_record"].as_str())
        .map(std::path::PathBuf::from)
        .ok_or_else(|| anyhow::anyhow!("no run record"))?;
    let transcript = std::fs::read_to_string(record.join("transcript.jsonl"))?;
    let timings: Vec<Value> = transcript
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|l| l["event"].clone())
        .filter(|e| e["type"] == "turn_timing")
        .collect();
    // The page's own work (Playwright's calls) against the rest of a turn.
    let page_ms = |range: std::ops::Range<usize>| {
        median(
            timings
                .get(range)
                .unwrap_or_default()
                .iter()
                .filter_map(|t| t["browser_us"].as_f64())
                .map(|us| us / 1000.0)
                .collect(),
        )
    };
    let look_page = page_ms(1..1 + WARM_CALLS);
    let scroll_page = page_ms(1 + WARM_CALLS..1 + 2 * WARM_CALLS);

    // Memory: one session, then MEMORY_SESSIONS at once.
    let mut steps = vec![open(&site, "m0"), json!({"pause": "one"})];
    steps.extend((1..MEMORY_SESSIONS).map(|i| open(&site, &format!("m{i}"))));
    steps.push(json!({"pause": "all"}));
    plan["steps"] = Value::Array(steps);
    let mut client = Client::start(&plan).await?;
    client.until("paused").await?;
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let (one, ours_one) = server_mib(&client);
    client.say("go").await?;
    client.until("paused").await?;
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let (all, ours_all) = server_mib(&client);
    client.say("go").await?;
    client.finish().await?;
    let per_session = (all - one) / (MEMORY_SESSIONS - 1) as f64;
    let base = one - per_session;
    let total_mib = 24.0 * 1024.0;
    let fit = ((total_mib * 0.8 - base) / per_session).floor();

    println!(
        "mcp bench: the Python SDK client over stdio, practice site, headless Chromium, offline policy"
    );
    println!("cold first call of a session (server, Chromium, first page, first look):");
    println!("  very first (plugins compiled): {first:.0} ms");
    println!("  median of {COLD_RUNS} more: {cold_median:.0} ms");
    println!("browser_close (run ended, browser shut down): median {close_median:.0} ms");
    println!(
        "warm browser_snapshot: median {:.1} ms, of which the page's own work {look_page:.1} ms -> host and MCP {:.1} ms",
        median(looks.clone()),
        median(looks) - look_page
    );
    println!(
        "warm browser_scroll:   median {:.1} ms, of which the page's own work {scroll_page:.1} ms -> host and MCP {:.1} ms",
        median(scrolls.clone()),
        median(scrolls) - scroll_page
    );
    println!(
        "memory (PSS of the server and everything under it): 1 session {one:.0} MiB, {MEMORY_SESSIONS} sessions {all:.0} MiB"
    );
    println!(
        "  per session {per_session:.0} MiB; what the first session does not share, about {base:.0} MiB"
    );
    println!(
        "  the subterminator process itself: {ours_one:.0} MiB with 1 session, {ours_all:.0} MiB with {MEMORY_SESSIONS}"
    );
    println!("  sessions that fit in 80% of 24 GiB: {fit:.0}");
    Ok(())
}
