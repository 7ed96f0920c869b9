//! Plan first (issue 32): with a model configured, the plugin's plan takes
//! every step it finds on the page at no token cost; the model is asked
//! only where the plan does not know the way, told in a brief what was done,
//! and the plan takes back over when the page matches it again. Every step
//! still goes through the one pipeline: the committing one is asked.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use serde_json::Value;
use subterminator_practice::{FINISH_REQUEST, PracticeSite, SiteOptions};
use subterminator_tests::bench_run::cancel_as;
use subterminator_tests::compact_script::compact_canceller;
use subterminator_tests::e2e;
use subterminator_tests::model_server::{ModelServer, RecordedRequest, Reply};
use subterminator_tests::scripted::SCRIPTED_ANTHROPIC_KEY;

fn cancel(home: &Path, service: &str, site: &str, model: &ModelServer) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command
        .args(["cancel", service, "--start-url", site, "--tools", "compact"])
        .args(["--headless", "--isolated", "--max-turns", "14"])
        .args(["--model", "claude-opus-4-6"])
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    command
}

fn events(home: &Path) -> Vec<Value> {
    let dir = e2e::run_dirs(home).pop().expect("a run folder");
    std::fs::read_to_string(dir.join("transcript.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["event"].clone())
        .collect()
}

fn of_type<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

fn finished(site: &PracticeSite) -> bool {
    site.requests().iter().any(|r| r == FINISH_REQUEST)
}

/// A model that must not be needed: it answers nothing useful, so a run
/// that asked it could not have finished.
fn never(_: &RecordedRequest) -> Reply {
    Reply::text("I should not have been asked.")
}

#[tokio::test(flavor = "multi_thread")]
async fn where_the_plan_knows_the_way_the_model_is_never_asked() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let model = ModelServer::start(never).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = e2e::run(cancel(home.path(), "netflix", &site.url(), &model), "y\n")
        .await
        .unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(finished(&site), "{:?}", site.requests());
    assert_eq!(model.request_count(), 0, "{said}");
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["verified"], true, "{result}");
    assert_eq!(result["steps"]["model"], 0, "{result}");
    assert!(result["steps"]["plan"].as_u64().unwrap() >= 3, "{result}");
    assert_eq!(result["asked"]["requests"], 0, "{result}");
    assert_eq!(result["usage"]["input"], 0, "{result}");
    let all = events(home.path());
    assert_eq!(of_type(&all, "approval_asked").len(), 1, "{said}");
    assert!(of_type(&all, "model_request").is_empty(), "{all:#?}");
}

/// A community service file gone stale at one step: the plan opens the
/// flow, the model is asked for the step it no longer knows (with a brief,
/// not the history), and the plan takes the rest, the committing step
/// asked once as ever.
#[tokio::test(flavor = "multi_thread")]
async fn the_model_takes_only_the_step_the_plan_does_not_know() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let model = ModelServer::start(compact_canceller).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let stale = std::fs::read_to_string(root.join("sdk/declarative/examples/netflix.toml"))
        .unwrap()
        .replacen("id = \"netflix-declarative\"", "id = \"stale\"", 1)
        .replacen(
            "name = [\"continue to cancel\", \"continue cancellation\", \"no thanks\", \"decline\"]",
            "name = [\"proceed with the cancellation\"]",
            1,
        );
    assert!(stale.contains("\"stale\"") && stale.contains("proceed with the cancellation"));
    let file = home.path().join("stale.toml");
    std::fs::write(&file, stale).unwrap();
    e2e::install_declarative(home.path(), "stale", &file).unwrap();

    let out = e2e::run(cancel(home.path(), "stale", &site.url(), &model), "y\n")
        .await
        .unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(finished(&site), "{:?}", site.requests());
    let asked = model.requests();
    assert_eq!(asked.len(), 1, "{said}");
    let brief = asked[0].latest_input().unwrap_or_default();
    assert!(brief.contains("The host took 1 step(s)"), "{brief}");
    assert!(brief.contains("Cancel Membership"), "{brief}");
    assert!(brief.contains("It stopped:"), "{brief}");
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["verified"], true, "{result}");
    assert_eq!(result["steps"]["model"], 1, "{result}");
    assert!(result["steps"]["plan"].as_u64().unwrap() >= 2, "{result}");
    assert_eq!(result["asked"]["requests"], 1, "{result}");
    let all = events(home.path());
    let handed = of_type(&all, "handed_over");
    assert!(
        handed.iter().any(|e| e["from"] == "the plan"),
        "{handed:#?}"
    );
    assert!(handed.iter().any(|e| e["to"] == "the plan"), "{handed:#?}");
    assert_eq!(of_type(&all, "approval_asked").len(), 1, "{said}");
}

/// `--model-drives` keeps the model on every step, the plan a hint.
#[tokio::test(flavor = "multi_thread")]
async fn model_drives_asks_the_model_for_every_step() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let model = ModelServer::start(compact_canceller).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = cancel(home.path(), "netflix", &site.url(), &model);
    command.arg("--model-drives");
    let out = e2e::run(command, "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(finished(&site));
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["steps"]["plan"], 0, "{result}");
    assert!(result["steps"]["model"].as_u64().unwrap() >= 3, "{result}");
    assert!(model.request_count() >= 4, "{said}");
    // The host verifies the confirmation itself: the model's last request
    // was for the final click, and no request follows to hear it claimed.
    let asked = model.requests();
    let last = asked.last().unwrap().latest_input().unwrap_or_default();
    assert!(last.contains("Finish Cancellation"), "{last}");
    assert_eq!(result["verified"], true, "{result}");
}

/// Issue 32's budget: on CancelBench's long StreamFlix flow (an offer, an
/// add-on sold inside the flow, the survey, the final step), a model that
/// drives every step is sent at most 20,000 characters in all, every byte
/// of every request body counted (system prompt, tool schemas, the JSON
/// around them), and still finds every step's target in what it is sent.
#[tokio::test(flavor = "multi_thread")]
async fn the_long_flow_driven_by_the_model_is_sent_under_20000_characters() {
    let ran = cancel_as("practice-cross-sell-en", "compact", true)
        .await
        .unwrap();
    let result = e2e::last_result(ran.home.path()).unwrap();
    assert_eq!(result["verified"], true, "{}", ran.said());
    assert_eq!(ran.commits(), 1, "{}", ran.said());
    assert_eq!(ran.session.prompts.len(), 1, "{}", ran.said());
    assert_eq!(result["asked"]["requests"], 6, "{result}");
    assert!(ran.missed.is_empty(), "{:?}", ran.missed);
    assert!(
        ran.sent_bytes <= 20_000,
        "{} bytes sent to the model",
        ran.sent_bytes
    );
}
