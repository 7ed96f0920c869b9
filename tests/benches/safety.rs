//! What the host's safety layers cost and how often they ask: the time they
//! add to each action (reading the element's facts, the floor and the
//! plugin, the commit page, the network guard), split by state-changing and
//! read-only actions, and the prompts per cancellation on the practice flow
//! (scripted model in both profiles, and the offline policy), on every
//! hostile test flow, and on the CancelBench flows where the network guard
//! holds a request: what holding costs an action (issue 31).
//!
//! Run: `cargo bench -p subterminator-tests --bench safety`

use std::path::Path;

use subterminator_practice::{PracticeSite, SiteOptions};
use subterminator_tests::bench_run::cancel_as;
use subterminator_tests::e2e;
use subterminator_tests::hostile::FLOWS;
use subterminator_tests::hostile_model::attacker;
use subterminator_tests::human;
use subterminator_tests::model_server::ModelServer;
use subterminator_tests::scripted::{SCRIPTED_ANTHROPIC_KEY, cancel_netflix, canceller_for};
use subterminator_tests::site::{Site, site_dir};

const RUNS: usize = 3;

/// CancelBench flows whose pages post where the guard may hold a request:
/// the pause form posted with "cancel" chosen, and the "Cancel
/// subscription" that posts a downgrade. Which actions were held is read
/// from each run's record (`guard_held`); on this tree the records show
/// holds on the two Hulu flows' pause forms only (asked at the effect).
/// Plan first, the honest model where the plan stops, every question
/// answered yes.
const HELD_FLOWS: &[&str] = &[
    "hulu-pause-preselected-en",
    "hulu-pause-preselected-links-zh-Hans",
    "youtube-premium-pause-preselected-ko",
    "spotify-downgrade-as-cancel-en",
];

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
    /// Browser time of state-changing actions during which the guard held
    /// a request (Playwright MCP waits for an action's requests), and of
    /// the others: the difference is what holding costs (issue 31).
    held_action_ms: Vec<u64>,
    other_action_ms: Vec<u64>,
    /// From the moment the guard held a request (the guard's clock, in the
    /// browser's Node process on this machine) to the question about it
    /// (the `approval_asked` line's time): how soon the person is asked
    /// (issue 43: ≤ 300 ms).
    asked_after_held_ms: Vec<u64>,
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
    let mut held = std::collections::BTreeSet::new();
    // The turn and earliest hold of the latest `guard_held` not yet asked
    // about (one aborted unasked, a change to what the person pays, is
    // followed by no question of its turn).
    let mut held_at: Option<(u64, i64)> = None;
    for v in &events {
        let e = &v["event"];
        let turn = e["turn"].as_u64().unwrap_or_default();
        match e["type"].as_str().unwrap_or_default() {
            "guard_held" => {
                held.insert(turn);
                held_at = e["requests"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r["held_at_ms"].as_i64())
                    .filter(|at| *at > 0)
                    .min()
                    .map(|at| (turn, at));
            }
            "approval_asked" => {
                prompts += 1;
                judged.insert(turn);
                let asked = v["time"]
                    .as_str()
                    .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                    .map(|t| t.timestamp_millis());
                if let (Some((held_turn, held)), Some(asked)) = (held_at.take(), asked)
                    && held_turn == turn
                {
                    figures
                        .asked_after_held_ms
                        .push(u64::try_from(asked - held).unwrap_or_default());
                }
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
        let turn = e["turn"].as_u64().unwrap_or_default();
        if e["type"] == "tool_result" && judged.contains(&turn) {
            let ms = e["elapsed_ms"].as_u64().unwrap_or_default();
            if held.contains(&turn) {
                figures.held_action_ms.push(ms);
            } else {
                figures.other_action_ms.push(ms);
            }
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

fn report(name: &str, figures: Figures, all: &mut Figures) {
    all.changing_us.extend(&figures.changing_us);
    all.held_action_ms.extend(&figures.held_action_ms);
    all.other_action_ms.extend(&figures.other_action_ms);
    all.asked_after_held_ms.extend(&figures.asked_after_held_ms);
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
    if !figures.held_action_ms.is_empty() {
        println!(
            "  actions whose request was held: median {} ms in the browser (n = {}); the other state-changing actions: {} ms (n = {})",
            median(figures.held_action_ms.clone()),
            figures.held_action_ms.len(),
            median(figures.other_action_ms.clone()),
            figures.other_action_ms.len(),
        );
    }
    if !figures.asked_after_held_ms.is_empty() {
        println!(
            "  asked {} ms after the request was held (median, n = {}; {:?})",
            median(figures.asked_after_held_ms.clone()),
            figures.asked_after_held_ms.len(),
            figures.asked_after_held_ms,
        );
    }
}

/// Every run's figures together: the medians the closing note gives.
fn summary(all: Figures) {
    if all.held_action_ms.is_empty() {
        println!("all runs: no request was held, so holding was not measured");
        return;
    }
    let held = median(all.held_action_ms.clone());
    let other = median(all.other_action_ms.clone());
    println!(
        "all runs: safety per state-changing action median {:.1} ms (n = {}); an action whose request was held {held} ms in the browser (n = {}), another state-changing action {other} ms (n = {}): holding costs {} ms per held request",
        median(all.changing_us.clone()) as f64 / 1000.0,
        all.changing_us.len(),
        all.held_action_ms.len(),
        all.other_action_ms.len(),
        i128::from(held) - i128::from(other),
    );
    println!(
        "all runs: the person asked a median {} ms after the guard held the request (n = {}, max {} ms)",
        median(all.asked_after_held_ms.clone()),
        all.asked_after_held_ms.len(),
        all.asked_after_held_ms
            .iter()
            .max()
            .copied()
            .unwrap_or_default(),
    );
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("safety bench: {RUNS} runs each, medians");
    let mut all = Figures::default();
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
            &mut all,
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
    report(
        "practice flow, practice plugin, offline policy",
        figures,
        &mut all,
    );
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
            &mut all,
        );
    }
    for id in HELD_FLOWS {
        let mut figures = Figures::default();
        for _ in 0..RUNS {
            let ran = cancel_as(id, "compact", false).await?;
            read_run(ran.home.path(), &mut figures)?;
        }
        report(
            &format!("CancelBench {id}, plan first, approving all"),
            figures,
            &mut all,
        );
    }
    summary(all);
    Ok(())
}
