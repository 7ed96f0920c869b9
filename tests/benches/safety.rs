//! What the host's safety layers cost and how often they ask: the time they
//! add to each action (reading the element's facts, the floor and the
//! plugin, the commit page, the network guard), split by state-changing and
//! read-only actions, and the prompts per cancellation on the practice flow
//! (scripted model in both profiles, and the offline policy) and on every
//! hostile test flow.
//!
//! Run: `cargo bench -p subterminator-tests --bench safety`

use std::path::Path;

use subterminator_core::demo::{PracticeSite, SiteOptions};
use subterminator_tests::e2e;
use subterminator_tests::hostile::FLOWS;
use subterminator_tests::hostile_model::attacker;
use subterminator_tests::human;
use subterminator_tests::model_server::ModelServer;
use subterminator_tests::scripted::{SCRIPTED_ANTHROPIC_KEY, cancel_netflix, canceller_for};
use subterminator_tests::site::{Site, site_dir};

const RUNS: usize = 3;

fn median(mut v: Vec<u64>) -> u64 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Per-turn safety time of one run, split by the kind of action, and its
/// prompts.
#[derive(Default)]
struct Figures {
    changing_us: Vec<u64>,
    read_only_us: Vec<u64>,
    prompts: Vec<u64>,
}

fn read_run(home: &Path, figures: &mut Figures) -> anyhow::Result<()> {
    let dir = e2e::run_dirs(home)
        .pop()
        .ok_or_else(|| anyhow::anyhow!("no run folder"))?;
    let transcript = std::fs::read_to_string(dir.join("transcript.jsonl"))?;
    let events: Vec<serde_json::Value> = transcript
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let mut prompts = 0;
    let mut judged = std::collections::BTreeSet::new();
    let mut looked = std::collections::BTreeSet::new();
    for v in &events {
        let e = &v["event"];
        let turn = e["turn"].as_u64().unwrap_or_default();
        match e["type"].as_str().unwrap_or_default() {
            "approval_asked" => {
                prompts += 1;
                judged.insert(turn);
            }
            "checkpoint_passed" => {
                judged.insert(turn);
            }
            "tool_call" => {
                let tool = e["tool"].as_str().unwrap_or_default();
                if matches!(
                    tool,
                    "browser_snapshot" | "get_snapshot" | "browser_take_screenshot"
                ) {
                    looked.insert(turn);
                }
            }
            _ => {}
        }
    }
    for v in &events {
        let e = &v["event"];
        if e["type"] != "turn_timing" {
            continue;
        }
        let turn = e["turn"].as_u64().unwrap_or_default();
        let safety = e["safety_us"].as_u64().unwrap_or_default();
        if judged.contains(&turn) {
            figures.changing_us.push(safety);
        } else if looked.contains(&turn) {
            figures.read_only_us.push(safety);
        }
    }
    figures.prompts.push(prompts);
    Ok(())
}

fn report(name: &str, figures: Figures) {
    let ms = |us: u64| us as f64 / 1000.0;
    let max = figures
        .changing_us
        .iter()
        .copied()
        .max()
        .unwrap_or_default();
    println!(
        "{name}: prompts per cancellation {:?}; safety per state-changing action median {:.1} ms (max {:.1} ms, n = {}); per read-only action median {:.2} ms (n = {})",
        figures.prompts,
        ms(median(figures.changing_us.clone())),
        ms(max),
        figures.changing_us.len(),
        ms(median(figures.read_only_us.clone())),
        figures.read_only_us.len(),
    );
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("safety bench: {RUNS} runs each, medians");
    for tools in ["full", "compact"] {
        let mut figures = Figures::default();
        for _ in 0..RUNS {
            let site = PracticeSite::serve(SiteOptions::default()).await?;
            let model = ModelServer::start(canceller_for(tools)).await?;
            let home = tempfile::tempdir()?;
            let out = e2e::run(
                cancel_netflix(home.path(), &site.url(), &model, tools),
                "y\ny\ny\n",
            )
            .await?;
            anyhow::ensure!(out.status.success(), "{}", e2e::text(&out));
            read_run(home.path(), &mut figures)?;
        }
        report(
            &format!("practice flow, netflix plugin, scripted model, --tools {tools}"),
            figures,
        );
    }
    let mut figures = Figures::default();
    for _ in 0..RUNS {
        let site = PracticeSite::serve(SiteOptions::default()).await?;
        let home = tempfile::tempdir()?;
        let mut command = e2e::command(home.path());
        command
            .args([
                "cancel",
                "practice",
                "--model",
                "offline",
                "--headless",
                "--isolated",
            ])
            .args(["--start-url", &site.url()]);
        let out = e2e::run(command, "y\ny\ny\n").await?;
        anyhow::ensure!(out.status.success(), "{}", e2e::text(&out));
        read_run(home.path(), &mut figures)?;
    }
    report("practice flow, practice plugin, offline policy", figures);
    for flow in FLOWS {
        let mut figures = Figures::default();
        let site = Site::serve(&site_dir("hostile")).await?;
        let model = ModelServer::start(attacker(*flow, site.base_url(), "full")).await?;
        let home = tempfile::tempdir()?;
        let mut command = e2e::command(home.path());
        command
            .args([
                "cancel",
                "netflix",
                "--start-url",
                &site.url(flow.start),
                "--tools",
                "full",
            ])
            .args(["--headless", "--isolated", "--model", "claude-opus-4-6"])
            .arg("--model-drives")
            .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
            .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
        human::run(command, |_| true, || 0).await?;
        read_run(home.path(), &mut figures)?;
        report(
            &format!("hostile flow {}, netflix plugin, approving all", flow.kind),
            figures,
        );
    }
    Ok(())
}
