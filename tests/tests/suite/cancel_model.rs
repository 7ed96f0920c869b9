//! End-to-end runs driven by a scripted model over HTTP, in both providers'
//! formats: the real binary, Playwright MCP, Chromium, the wasm Netflix
//! plugin, and the practice site as a local copy of the service.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;
use subterminator_practice::{FINISH_REQUEST, PracticeSite, SiteOptions};
use subterminator_tests::e2e;
use subterminator_tests::model_server::{ModelServer, RecordedRequest, Reply};
use subterminator_tests::scripted::canceller;

const ANTHROPIC_KEY: &str = "sk-ant-e2e-NEVER-WRITE-ME";
const OPENAI_KEY: &str = "sk-openai-e2e-NEVER-WRITE-ME";

#[derive(Clone, Copy)]
enum Provider {
    Anthropic,
    OpenAi,
}

struct Setup {
    site: PracticeSite,
    model: ModelServer,
    home: tempfile::TempDir,
    provider: Provider,
}

async fn setup(
    provider: Provider,
    handler: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
) -> Setup {
    Setup {
        site: PracticeSite::serve(SiteOptions::default()).await.unwrap(),
        model: ModelServer::start(handler).await.unwrap(),
        home: tempfile::tempdir().unwrap(),
        provider,
    }
}

impl Setup {
    fn command(&self, extra: &[&str]) -> tokio::process::Command {
        let mut command = e2e::command(self.home.path());
        let site = self.site.url();
        command.args([
            "cancel",
            "netflix",
            "--start-url",
            &site,
            "--tools",
            "full",
            "--headless",
            "--isolated",
            // These runs test the model's driving: it takes every step.
            "--model-drives",
        ]);
        match self.provider {
            Provider::Anthropic => {
                command
                    .args(["--model", "claude-opus-4-6"])
                    .env("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
                    .env("ANTHROPIC_BASE_URL", self.model.anthropic_base_url());
            }
            Provider::OpenAi => {
                command
                    .args(["--model", "gpt-4o"])
                    .env("OPENAI_API_KEY", OPENAI_KEY)
                    .env("OPENAI_BASE_URL", self.model.openai_base_url());
            }
        }
        command.args(extra);
        command
    }

    fn finished(&self) -> bool {
        self.site.requests().iter().any(|r| r == FINISH_REQUEST)
    }
}

/// No file of the run, and no output, holds either key.
fn assert_no_key(home: &Path, output: &str) {
    for key in [ANTHROPIC_KEY, OPENAI_KEY] {
        assert!(!output.contains(key), "key in the output");
        for dir in e2e::run_dirs(home) {
            for entry in walk(&dir) {
                let bytes = std::fs::read(&entry).unwrap();
                assert!(
                    !String::from_utf8_lossy(&bytes).contains(key),
                    "key in {}",
                    entry.display()
                );
            }
        }
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_model_cancels_in_both_formats() {
    for provider in [Provider::Anthropic, Provider::OpenAi] {
        let s = setup(provider, canceller).await;
        let out = e2e::run(s.command(&[]), "y\n").await.unwrap();
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(s.finished(), "{:?}", s.site.requests());
        assert!(
            said.contains("[Turn 1] browser_click button \"Cancel Membership\""),
            "{said}"
        );
        assert!(
            said.contains("✓ Netflix cancellation completed successfully"),
            "{said}"
        );
        let first = &s.model.requests()[0];
        let tools = first.tool_names();
        for tool in ["browser_click", "complete_task", "request_human_approval"] {
            assert!(tools.iter().any(|t| t == tool), "{tools:?}");
        }
        assert!(
            !tools
                .iter()
                .any(|t| t == "browser_run_code_unsafe" || t == "browser_evaluate"),
            "{tools:?}"
        );
        let result = e2e::last_result(s.home.path()).unwrap();
        assert!(result["usage"]["input"].as_u64().unwrap() > 0, "{result}");
        assert_no_key(s.home.path(), &said);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_early_success_claim_is_checked_and_the_run_goes_on() {
    let claimed = Mutex::new(false);
    let s = setup(Provider::Anthropic, move |request| {
        let mut claimed = claimed.lock().unwrap();
        if !*claimed {
            *claimed = true;
            return Reply::tool(
                "complete_task",
                json!({"status": "success", "reason": "Done already!"}),
            );
        }
        canceller(request)
    })
    .await;
    let out = e2e::run(s.command(&[]), "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let told = s.model.requests()[1].latest_input().unwrap_or_default();
    assert!(
        told.contains(
            "Cannot verify success. Page does not show expected cancellation confirmation."
        ),
        "{told}"
    );
    assert!(s.finished());
}

#[tokio::test(flavor = "multi_thread")]
async fn feedback_at_the_checkpoint_reaches_the_model() {
    let s = setup(Provider::OpenAi, canceller).await;
    let out = e2e::run(s.command(&[]), "wait, take a screenshot first\ny\n")
        .await
        .unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let heard = s.model.requests().iter().any(|r| {
        r.latest_input()
            .unwrap_or_default()
            .contains("User feedback: wait, take a screenshot first")
    });
    assert!(heard, "the feedback never reached the model");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_models_mistakes_go_back_to_it() {
    let step = Mutex::new(0);
    let s = setup(Provider::Anthropic, move |request| {
        let mut step = step.lock().unwrap();
        *step += 1;
        match *step {
            1 => Reply::tool("browser_click", json!({"element": "Cancel Membership"})),
            2 => Reply::tool("browser_click", json!({"element": "x", "target": "e999"})),
            3 => Reply::tool(
                "browser_click",
                json!({"element": "x", "target": "#cancel"}),
            ),
            4 => Reply::tool(
                "browser_navigate",
                json!({"url": "https://evil.example/steal"}),
            ),
            5 => Reply::tool(
                "browser_run_code_unsafe",
                json!({"code": "async (page) => page.click('text=Finish')"}),
            ),
            6 => Reply::ToolCallRawArgs("browser_click".into(), "{not json".into()),
            7 => Reply::ToolCalls(vec![
                ("browser_snapshot".into(), json!({})),
                (
                    "browser_navigate".into(),
                    json!({"url": "https://evil.example/second"}),
                ),
            ]),
            _ => canceller(request),
        }
    })
    .await;
    let out = e2e::run(s.command(&[]), "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let inputs: Vec<String> = s
        .model
        .requests()
        .iter()
        .map(|r| r.latest_input().unwrap_or_default())
        .collect();
    assert!(
        inputs[1].contains("missing required property \\\"target\\\""),
        "{}",
        inputs[1]
    );
    assert!(inputs[2].contains("ref_invalid"), "{}", inputs[2]);
    assert!(inputs[3].contains("not a ref"), "{}", inputs[3]);
    assert!(inputs[4].contains("is not allowed"), "{}", inputs[4]);
    assert!(
        inputs[5].contains("There is no tool called browser_run_code_unsafe"),
        "{}",
        inputs[5]
    );
    assert!(inputs[6].contains("not valid JSON"), "{}", inputs[6]);
    assert!(!s.site.requests().iter().any(|r| r.contains("evil")));
    assert!(s.finished());
}

#[tokio::test(flavor = "multi_thread")]
async fn max_turns_and_no_action_end_the_run() {
    let s = setup(Provider::Anthropic, |_| {
        Reply::tool("browser_snapshot", json!({}))
    })
    .await;
    let out = e2e::run(s.command(&["--max-turns", "3"]), "")
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", e2e::text(&out));
    assert_eq!(
        e2e::last_result(s.home.path()).unwrap()["reason"],
        "max_turns_exceeded"
    );
    assert_eq!(s.model.request_count(), 3);

    let s = setup(Provider::OpenAi, |_| Reply::text("I would rather chat.")).await;
    let out = e2e::run(s.command(&[]), "").await.unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", e2e::text(&out));
    assert_eq!(
        e2e::last_result(s.home.path()).unwrap()["reason"],
        "llm_no_action"
    );
    let nudged = s.model.requests()[1].latest_input().unwrap_or_default();
    assert_eq!(nudged, "Call a tool or complete_task.");
}

#[tokio::test(flavor = "multi_thread")]
async fn dry_run_shows_the_first_action_and_does_nothing() {
    let s = setup(Provider::Anthropic, canceller).await;
    let out = e2e::run(s.command(&["--dry-run"]), "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains(
            "Dry run: the model's first action would be browser_click button \"Cancel Membership\""
        ),
        "{said}"
    );
    assert!(
        !s.site
            .requests()
            .iter()
            .any(|r| r.starts_with("GET /cancel")),
        "{:?}",
        s.site.requests()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_model_exits_3() {
    let s = setup(Provider::Anthropic, canceller).await;
    let mut command = s.command(&[]);
    // A port nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    command.env("ANTHROPIC_BASE_URL", format!("http://{closed}"));
    let started = std::time::Instant::now();
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(
        e2e::last_result(s.home.path()).unwrap()["reason"],
        "llm_error"
    );
    assert_no_key(s.home.path(), &said);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_demo_reaches_a_verified_success_with_a_scripted_model() {
    let model = ModelServer::start(canceller).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command
        .args(["demo", "--headless", "--tools", "full", "--model", "gpt-4o"])
        .arg("--model-drives")
        .env("OPENAI_API_KEY", OPENAI_KEY)
        .env("OPENAI_BASE_URL", model.openai_base_url());
    let out = e2e::run(command, "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("✓ StreamFlix (practice site) cancellation completed successfully"),
        "{said}"
    );
    assert_eq!(e2e::last_result(home.path()).unwrap()["verified"], true);
    assert!(
        model.request_count() >= 5,
        "the model drove: {} requests",
        model.request_count()
    );
    let transcript = std::fs::read_to_string(
        e2e::run_dirs(home.path())
            .pop()
            .unwrap()
            .join("transcript.jsonl"),
    )
    .unwrap();
    assert!(transcript.contains("\"model_request\"") && transcript.contains("\"turn_timing\""));
}
