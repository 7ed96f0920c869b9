//! `subterminator mcp` at protocol 2026-07-28, driven by the official Python
//! SDK over stateless HTTP (`server/discover`, no session header): the
//! approval before the committing step is one `input_required` result, the
//! client calls again with the person's answer, and the run goes on where
//! it waited. The practice site's own request log proves what reached it:
//! a yes commits exactly once, after the answer; anything else, nothing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};
use subterminator_practice::{FINISH_REQUEST, PracticeSite, SiteOptions};
use subterminator_tests::mcp_client::http::HttpServer;
use subterminator_tests::mcp_client::{Client, calls, names};

const MODERN: &str = "2026-07-28";
const SERVER: &[&str] = &["--headless", "--model", "offline"];

fn commits(site: &PracticeSite) -> usize {
    site.requests()
        .iter()
        .filter(|r| *r == FINISH_REQUEST)
        .count()
}

fn cancel(site: &PracticeSite) -> Value {
    json!([{"call": "cancel_subscription",
        "args": {"service": "practice", "start_url": site.url(), "isolated": true}}])
}

fn lines_with<'a>(lines: &'a [Value], key: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l.get(key).is_some()).collect()
}

/// The committing step is one `input_required`, carrying what the
/// elicitation carries (the prompt and the screenshot); nothing reaches the
/// site before the answer, and the yes commits exactly once.
#[tokio::test(flavor = "multi_thread")]
async fn at_2026_07_28_the_committing_step_is_one_input_required_and_a_yes_commits_once() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = HttpServer::start(home.path(), SERVER).await.unwrap();
    let mut client = Client::start(&server.plan(MODERN, "ask", cancel(&site)))
        .await
        .unwrap();
    let connected = client.until("connected").await.unwrap();
    assert_eq!(connected["connected"]["protocol_version"], MODERN);
    assert!(
        connected["connected"]["supported"]
            .as_array()
            .unwrap()
            .contains(&json!("2025-11-25")),
        "{connected}"
    );
    let asked = client.until("input_required").await.unwrap();
    assert_eq!(
        commits(&site),
        0,
        "committed before the answer: {:?}",
        site.requests()
    );
    let asked = &asked["input_required"];
    let keys = asked["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 1, "{asked}");
    let key = keys[0].as_str().unwrap();
    assert!(
        asked["state"].as_str().unwrap().ends_with(key),
        "the state names the question: {asked}"
    );
    let shown = &asked["elicitation"][0];
    let message = shown["message"].as_str().unwrap();
    assert!(message.contains("Human approval required"), "{message}");
    assert!(
        message.contains("Action: browser_click button \"Finish Cancellation\""),
        "{message}"
    );
    assert_eq!(shown["image_is_png"], true, "{shown}");
    assert_eq!(shown["schema"]["required"], json!(["approve"]));
    client.say("yes").await.unwrap();
    let lines = client.finish().await.unwrap();

    assert_eq!(lines_with(&lines, "input_required").len(), 1, "{lines:#?}");
    let call = calls(&lines, "cancel_subscription")[0];
    assert_eq!(call["rounds"], 1);
    let result = &call["structured"];
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(result["data"]["outcome"], "cancelled", "{result}");
    assert_eq!(result["data"]["verified"], true);
    assert!(
        result["data"]["session_id"]
            .as_str()
            .unwrap()
            .starts_with("s-"),
        "a stateless session gets an id of the server's: {result}"
    );
    assert_eq!(commits(&site), 1, "{:?}", site.requests());
    // Progress came with the exchange that ran the turns after the yes.
    assert!(
        call["progress"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p.as_str().unwrap().contains("verified on the page")),
        "{call}"
    );
    assert_eq!(server.stop().await.unwrap(), Some(0));
}

/// A no, a declined or cancelled question, and a client that cannot show
/// one (it declares no elicitation): nothing commits, and the result says
/// why. Four clients at once against one server.
#[tokio::test(flavor = "multi_thread")]
async fn at_2026_07_28_without_a_yes_nothing_commits() {
    let home = tempfile::tempdir().unwrap();
    let server = HttpServer::start(home.path(), SERVER).await.unwrap();
    let cases = [
        ("no", "the human did not approve", 1),
        ("decline", "the human did not approve", 1),
        ("cancel", "the human did not approve", 1),
        ("none", "does not support elicitation", 0),
    ];
    let mut runs = Vec::new();
    for (answer, says, asked) in cases {
        let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
        let plan = server.plan(MODERN, answer, cancel(&site));
        runs.push(async move {
            let lines = Client::start(&plan).await.unwrap().finish().await.unwrap();
            (answer, says, asked, site, lines)
        });
    }
    for (answer, says, asked, site, lines) in futures_join(runs).await {
        let call = calls(&lines, "cancel_subscription")[0];
        let result = &call["structured"];
        assert_eq!(result["status"], "failed", "{answer}: {result}");
        assert_eq!(result["data"]["reason"], "human_rejected", "{answer}");
        assert!(
            result["error"].as_str().unwrap().contains(says),
            "{answer}: {result}"
        );
        assert_eq!(
            lines_with(&lines, "input_required").len(),
            asked,
            "{answer}: {lines:#?}"
        );
        assert_eq!(commits(&site), 0, "{answer}: {:?}", site.requests());
        assert!(!site.cancelled(), "{answer}");
    }
}

/// Runs the futures at once, in order.
async fn futures_join<T: Send + 'static>(
    runs: Vec<impl Future<Output = T> + Send + 'static>,
) -> Vec<T> {
    let handles: Vec<_> = runs.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

/// An answer is bound to the question it answers: a tampered state is
/// refused (-32602), an answer filed under another id is no answer (the
/// same question comes back), and the yes replayed once the run has moved
/// on is refused; the site commits once, for the one real yes.
#[tokio::test(flavor = "multi_thread")]
async fn a_stale_or_foreign_answer_is_refused_and_never_a_yes() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = HttpServer::start(home.path(), SERVER).await.unwrap();
    let mut steps = cancel(&site);
    steps[0]["replay"] = true.into();
    let mut client = Client::start(&server.plan(MODERN, "ask", steps))
        .await
        .unwrap();
    let asked = client.until("input_required").await.unwrap();
    let key = asked["input_required"]["keys"][0]
        .as_str()
        .unwrap()
        .to_owned();

    client.say("tamper-state:yes").await.unwrap();
    let refused = client.until("retry_refused").await.unwrap();
    assert_eq!(refused["retry_refused"]["code"], -32602, "{refused}");
    assert_eq!(refused["retry_refused"]["data"]["argument"], "requestState");
    assert_eq!(commits(&site), 0);

    client.say("foreign-key:yes").await.unwrap();
    let again = client.until("retry_answered").await.unwrap();
    assert_eq!(again["retry_answered"]["input_required"], true, "{again}");
    assert_eq!(again["retry_answered"]["keys"], json!([key]), "{again}");
    assert_eq!(commits(&site), 0, "{:?}", site.requests());

    client.say("yes").await.unwrap();
    let replayed = client.until("replay_refused").await.unwrap();
    assert_eq!(replayed["replay_refused"]["code"], -32602, "{replayed}");
    let lines = client.finish().await.unwrap();
    let result = &calls(&lines, "cancel_subscription")[0]["structured"];
    assert_eq!(result["data"]["outcome"], "cancelled", "{result}");
    assert_eq!(commits(&site), 1, "{:?}", site.requests());
}

/// The client's own model at 2026-07-28: the first browser_snapshot opens a
/// session and names it; later calls name it (a call that does not is told
/// to); the final click is one `input_required`, answered yes, and commits
/// once; the success claim is verified.
#[tokio::test(flavor = "multi_thread")]
async fn a_2026_07_28_client_drives_a_session_named_by_the_server() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = HttpServer::start(home.path(), SERVER).await.unwrap();
    let click = |name: &str| json!({"call": "browser_click", "args": {"ref": {"named": name}}, "same_session": true});
    let steps = json!([
        {"call": "browser_snapshot", "args": {"service": "practice", "start_url": site.url(), "isolated": true}},
        {"call": "browser_click", "args": {"ref": "@e1"}},
        click("Cancel Membership"),
        click("Continue to Cancel"),
        {"call": "browser_select", "args": {"ref": {"named": "Reason for leaving"}, "value": "Too expensive"}, "same_session": true},
        click("Continue"),
        click("Finish Cancellation"),
        {"call": "finish_cancellation", "args": {"status": "success", "reason": "the page says cancelled"}, "same_session": true},
        {"call": "browser_close", "args": {}, "same_session": true},
    ]);
    let lines = Client::start(&server.plan(MODERN, "yes", steps))
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    let results: Vec<&Value> = lines.iter().filter(|l| l.get("call").is_some()).collect();
    let opened = &results[0]["structured"];
    assert_eq!(opened["status"], "ok", "{opened}");
    let session = opened["data"]["session_id"].as_str().unwrap();
    assert!(session.starts_with("s-"), "{opened}");
    assert!(names(results[0]).contains(&"Cancel Membership".to_owned()));
    let unnamed = &results[1]["structured"];
    assert_eq!(unnamed["status"], "error", "{unnamed}");
    assert!(
        unnamed["error"]
            .as_str()
            .unwrap()
            .contains("`session_id` is missing"),
        "{unnamed}"
    );
    for result in &results[2..6] {
        assert_eq!(result["structured"]["status"], "ok", "{result}");
        assert_eq!(result["structured"]["data"]["session_id"], session);
    }
    assert_eq!(results[6]["rounds"], 1, "{}", results[6]);
    assert_eq!(results[6]["structured"]["status"], "ok", "{}", results[6]);
    assert_eq!(lines_with(&lines, "input_required").len(), 1);
    let verified = &results[7]["structured"];
    assert_eq!(verified["data"]["outcome"], "cancelled", "{verified}");
    assert_eq!(commits(&site), 1, "{:?}", site.requests());
}
