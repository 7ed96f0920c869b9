//! The scripted end-to-end cancellation, timed: wall time with its
//! breakdown (process start to first turn, model, browser, human, host),
//! and the per-turn host overhead: everything except waiting for the model,
//! the browser's own work and the human. Medians over RUNS runs.
//!
//! Run: `cargo bench -p subterminator-tests --bench e2e`

use std::time::{Duration, Instant};

use subterminator_practice::{PracticeSite, SiteOptions};
use subterminator_tests::e2e;
use subterminator_tests::model_server::ModelServer;
use subterminator_tests::scripted::{cancel_netflix, canceller};

const RUNS: usize = 5;

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

#[derive(Default)]
struct Totals {
    wall: Vec<u64>,
    turns_total: Vec<u64>,
    model: Vec<u64>,
    browser: Vec<u64>,
    human: Vec<u64>,
    host_per_turn: Vec<u64>,
    turns: Vec<u64>,
    startup: Vec<u64>,
    browser_start: Vec<u64>,
    shutdown: Vec<u64>,
}

/// Microseconds since the epoch of an event's `time`.
fn at(event: &serde_json::Value) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(event["time"].as_str()?)
        .ok()
        .map(|t| t.timestamp_micros())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut totals = Totals::default();
    for _ in 0..RUNS {
        let site = PracticeSite::serve(SiteOptions::default()).await?;
        let model = ModelServer::start(canceller).await?;
        let home = tempfile::tempdir()?;
        let command = cancel_netflix(home.path(), &site.url(), &model, "full");
        let started = Instant::now();
        let started_at = chrono::Utc::now().timestamp_micros();
        let out = e2e::run(command, "y\n").await?;
        let wall = started.elapsed();
        let ended_at = chrono::Utc::now().timestamp_micros();
        anyhow::ensure!(out.status.success(), "run failed: {}", e2e::text(&out));
        let dir = e2e::run_dirs(home.path())
            .pop()
            .ok_or_else(|| anyhow::anyhow!("no run folder"))?;
        let transcript = std::fs::read_to_string(dir.join("transcript.jsonl"))?;
        let (mut model_us, mut browser_us, mut human_us, mut total_us, mut turns) = (0, 0, 0, 0, 0);
        let events: Vec<serde_json::Value> = transcript
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        let run_started = events.first().and_then(at).unwrap_or(started_at);
        let first_request = events
            .iter()
            .find(|v| v["event"]["type"] == "model_request")
            .and_then(at)
            .unwrap_or(run_started);
        let finished = events.last().and_then(at).unwrap_or(ended_at);
        let us = |d: i64| u64::try_from(d).unwrap_or_default();
        totals.startup.push(us(run_started - started_at));
        totals.browser_start.push(us(first_request - run_started));
        totals.shutdown.push(us(ended_at - finished));
        for v in &events {
            let e = &v["event"];
            if e["type"] == "turn_timing" {
                let n = |k: &str| e[k].as_u64().unwrap_or_default();
                model_us += n("model_us");
                browser_us += n("browser_us");
                human_us += n("human_us");
                total_us += n("total_us");
                totals.host_per_turn.push(n("host_us"));
                turns += 1;
            }
        }
        totals.wall.push(u64::try_from(wall.as_micros())?);
        totals.turns_total.push(total_us);
        totals.model.push(model_us);
        totals.browser.push(browser_us);
        totals.human.push(human_us);
        totals.turns.push(turns);
    }
    let ms = |us: u64| Duration::from_micros(us).as_secs_f64() * 1000.0;
    let wall = median(totals.wall);
    let in_turns = median(totals.turns_total);
    println!(
        "e2e bench: scripted cancellation on the practice site, netflix plugin, --tools full, {RUNS} runs (medians)"
    );
    println!(
        "turns per run:                       {}",
        median(totals.turns)
    );
    println!("wall time, process start to exit:    {:.0} ms", ms(wall));
    println!(
        "  before the first turn (start, browser launch, first page): {:.0} ms",
        ms(wall.saturating_sub(in_turns))
    );
    println!(
        "    process start to run start (plugins compiled on a cold cache, Playwright MCP started): {:.0} ms",
        ms(median(totals.startup))
    );
    println!(
        "    run start to first model request (Chromium launched, first page, snapshot): {:.0} ms",
        ms(median(totals.browser_start))
    );
    println!(
        "  in turns:                          {:.0} ms",
        ms(in_turns)
    );
    println!(
        "    model (local scripted server):   {:.1} ms",
        ms(median(totals.model))
    );
    println!(
        "    browser (Playwright MCP actions, snapshots, screenshots): {:.0} ms",
        ms(median(totals.browser))
    );
    println!(
        "    human (piped `y`):               {:.1} ms",
        ms(median(totals.human))
    );
    println!(
        "  last event to exit (browser_close, server and Chromium stopped): {:.0} ms",
        ms(median(totals.shutdown))
    );
    let host = totals.host_per_turn.clone();
    println!(
        "per-turn host overhead: median {:.2} ms, max {:.2} ms over {} turns",
        ms(median(host.clone())),
        ms(host.iter().copied().max().unwrap_or_default()),
        host.len()
    );
    Ok(())
}
