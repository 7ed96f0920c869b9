//! `subterminator mcp`, driven by an MCP client we did not write (the
//! official Python SDK): tools, cancellations approved and refused through
//! elicitation, a scripted client's hostile steps, sessions side by side,
//! the signed-in profile and the cap, idle clean-up, no process left
//! behind, and HTTP behind a token. The site's own request log proves what
//! reached it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subterminator_practice::{FINISH_REQUEST, PracticeSite, SiteOptions};
use subterminator_tests::e2e;
use subterminator_tests::mcp_client::{self, Client, calls, names};
use subterminator_tests::site::{Site, site_dir};

fn plan(home: &std::path::Path, server_args: &[&str], elicitation: &str, steps: Value) -> Value {
    let mut plan = mcp_client::server(home, server_args);
    plan["elicitation"] = elicitation.into();
    plan["steps"] = steps;
    plan
}

const SERVER: &[&str] = &["--headless", "--model", "offline"];

fn finished(site: &PracticeSite) -> bool {
    site.requests().iter().any(|r| r == FINISH_REQUEST)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_lists_tools_it_can_understand_and_the_services() {
    let home = tempfile::tempdir().unwrap();
    let steps = json!([{"list_tools": true}, {"call": "list_services"}]);
    let lines = Client::start(&plan(home.path(), SERVER, "none", steps))
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    let tools = lines.iter().find_map(|l| l.get("tools")).unwrap();
    let listed: BTreeSet<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let want: BTreeSet<&str> = [
        "list_services",
        "cancel_subscription",
        "browser_snapshot",
        "browser_click",
        "browser_fill",
        "browser_select",
        "browser_scroll",
        "browser_handle_dialog",
        "browser_screenshot",
        "finish_cancellation",
        "browser_close",
    ]
    .into();
    assert_eq!(listed, want);
    for tool in tools.as_array().unwrap() {
        assert_eq!(tool["input_schema"]["type"], "object", "{tool}");
        assert!(tool["title"].as_str().is_some(), "{tool}");
        assert!(tool["description"].as_str().unwrap().len() > 40, "{tool}");
    }
    let cancel = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "cancel_subscription")
        .unwrap();
    assert_eq!(cancel["input_schema"]["required"], json!(["service"]));

    let services = &calls(&lines, "list_services")[0]["structured"];
    assert_eq!(services["status"], "ok");
    let ids: Vec<&str> = services["data"]["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"netflix") && ids.contains(&"practice"),
        "{ids:?}"
    );
}

/// The person answers yes at the prompt: the site saw nothing of the final
/// step before, the commit after, and the client got progress each turn,
/// the outcome, the record and the receipt.
#[tokio::test(flavor = "multi_thread")]
async fn cancel_subscription_commits_only_after_the_yes() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let steps = json!([{"call": "cancel_subscription",
        "args": {"service": "practice", "start_url": site.url(), "isolated": true}}]);
    let mut client = Client::start(&plan(home.path(), SERVER, "ask", steps))
        .await
        .unwrap();
    let asked = client.until("elicitation").await.unwrap();
    let asked = &asked["elicitation"];
    assert!(
        !finished(&site),
        "committed before the yes: {:?}",
        site.requests()
    );
    let message = asked["message"].as_str().unwrap();
    assert!(
        message.contains("Action: browser_click button \"Finish Cancellation\""),
        "{message}"
    );
    assert!(message.contains("Human approval required"), "{message}");
    assert_eq!(asked["image_mime"], "image/png");
    assert_eq!(asked["image_is_png"], true, "{asked}");
    assert_eq!(asked["schema"]["required"], json!(["approve"]));
    client.say("yes").await.unwrap();
    let lines = client.finish().await.unwrap();
    let call = calls(&lines, "cancel_subscription")[0];
    let result = &call["structured"];
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(result["data"]["outcome"], "cancelled", "{result}");
    assert_eq!(result["data"]["verified"], true);
    assert!(finished(&site));
    let progress: Vec<&str> = call["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(
        progress.contains(&"[Turn 1] browser_click button \"Cancel Membership\""),
        "{progress:?}"
    );
    assert!(
        progress.iter().any(|p| p
            .contains("waiting for your approval: browser_click button \"Finish Cancellation\"")),
        "{progress:?}"
    );
    let turns = result["data"]["turns"].as_u64().unwrap();
    assert!(
        progress.iter().filter(|p| p.starts_with("[Turn")).count() as u64 >= turns,
        "a notification each turn: {progress:?}"
    );
    let record = std::path::PathBuf::from(result["data"]["run_record"].as_str().unwrap());
    assert!(record.join("result.json").is_file());
    assert!(
        std::path::Path::new(result["data"]["receipt"].as_str().unwrap()).is_file(),
        "{result}"
    );
    let transcript = std::fs::read_to_string(record.join("transcript.jsonl")).unwrap();
    assert!(transcript.contains("the MCP client") || transcript.contains("offline policy"));
    assert!(transcript.contains("\"approval_answered\""), "{transcript}");
}

/// A no, a declined or cancelled elicitation, and a client that cannot
/// elicit at all: nothing commits, and the result says why and what to do.
/// A dry run shows the first step and asks nothing.
#[tokio::test(flavor = "multi_thread")]
async fn cancel_subscription_without_a_yes_commits_nothing() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let steps = json!([{"call": "cancel_subscription",
        "args": {"service": "practice", "start_url": site.url(), "isolated": true, "dry_run": true}}]);
    let lines = Client::start(&plan(home.path(), SERVER, "yes", steps))
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    let result = &calls(&lines, "cancel_subscription")[0]["structured"];
    assert_eq!(result["status"], "ok", "{result}");
    assert_eq!(result["data"]["reason"], "dry_run", "{result}");
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("Would execute browser_click"),
        "{result}"
    );
    assert!(
        // Reads only: the pages, and the HEAD a navigation's redirects
        // are walked with.
        site.requests()
            .iter()
            .all(|r| r.starts_with("GET") || r.starts_with("HEAD")),
        "{:?}",
        site.requests()
    );

    let cases = [
        ("no", "the human did not approve"),
        ("decline", "the human did not approve"),
        ("cancel", "the human did not approve"),
        ("none", "does not support elicitation"),
    ];
    for (answer, says) in cases {
        let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let steps = json!([{"call": "cancel_subscription",
            "args": {"service": "practice", "start_url": site.url(), "isolated": true}}]);
        let lines = Client::start(&plan(home.path(), SERVER, answer, steps))
            .await
            .unwrap()
            .finish()
            .await
            .unwrap();
        let result = &calls(&lines, "cancel_subscription")[0]["structured"];
        assert_eq!(result["status"], "failed", "{answer}: {result}");
        assert_eq!(result["data"]["outcome"], "not_cancelled", "{answer}");
        assert_eq!(result["data"]["reason"], "human_rejected", "{answer}");
        assert!(
            result["error"].as_str().unwrap().contains(says),
            "{answer}: {result}"
        );
        assert!(result["remediation"].as_str().is_some(), "{result}");
        assert!(!finished(&site), "{answer}: {:?}", site.requests());
        assert!(!site.cancelled());
        let asked = lines
            .iter()
            .filter(|l| l.get("elicitation").is_some())
            .count();
        assert_eq!(asked, usize::from(answer != "none"), "{answer}: {lines:#?}");
    }
}

/// The client's own model, step by step. Its hostile steps (claiming
/// success early, another service in the same session, a stale ref, the
/// final click while the person says no) are refused by the same decision
/// as any model's; the site's log shows the commit only after the yes.
#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_client_drives_and_its_hostile_steps_are_refused() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let named = |name: &str| json!({"ref": {"named": name}});
    let steps = json!([
        {"call": "browser_snapshot", "args": {"service": "practice", "start_url": site.url(), "isolated": true}},
        {"call": "finish_cancellation", "args": {"status": "success", "reason": "done, trust me"}},
        {"call": "browser_snapshot", "args": {"service": "netflix"}},
        {"call": "browser_click", "args": named("Cancel Membership")},
        {"call": "browser_click", "args": {"ref": "@e999"}},
        {"call": "browser_click", "args": named("Continue to Cancel")},
        {"call": "browser_select", "args": {"ref": {"named": "Reason for leaving"}, "value": "Too expensive"}},
        {"call": "browser_click", "args": named("Continue")},
        {"call": "browser_screenshot", "args": {}},
        {"call": "browser_click", "args": named("Finish Cancellation")},
        {"call": "browser_click", "args": named("Finish Cancellation")},
        {"call": "finish_cancellation", "args": {"status": "success", "reason": "the page says cancelled"}},
        {"call": "browser_close", "args": {}},
    ]);
    let mut client = Client::start(&plan(home.path(), SERVER, "ask", steps))
        .await
        .unwrap();
    // The first final click: the person says no, with words.
    client.until("elicitation").await.unwrap();
    assert!(!finished(&site));
    client.say("note:keep my membership for now").await.unwrap();
    // The second: yes.
    client.until("elicitation").await.unwrap();
    assert!(
        !finished(&site),
        "committed before the yes: {:?}",
        site.requests()
    );
    client.say("yes").await.unwrap();
    let lines = client.finish().await.unwrap();
    let results: Vec<&Value> = lines.iter().filter(|l| l.get("call").is_some()).collect();
    let status = |i: usize| {
        results[i]["structured"]["status"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    assert_eq!(status(0), "ok", "{}", results[0]);
    assert!(names(results[0]).contains(&"Cancel Membership".to_owned()));
    // Claimed success before anything was approved: not believed.
    assert_eq!(status(1), "error");
    assert!(
        results[1]["structured"]["error"]
            .as_str()
            .unwrap()
            .contains("Cannot verify success"),
        "{}",
        results[1]
    );
    assert!(
        !results[1].to_string().contains("complete_task"),
        "the client hears its own tool names: {}",
        results[1]
    );
    // Another service in the same session.
    assert_eq!(status(2), "error");
    assert!(
        results[2]["structured"]["error"]
            .as_str()
            .unwrap()
            .contains("is cancelling practice")
    );
    assert_eq!(status(3), "ok", "{}", results[3]);
    // A ref of the page before: stale.
    assert_eq!(status(4), "error", "{}", results[4]);
    assert_eq!(results[4]["structured"]["data"]["error"], "ref_invalid");
    assert_eq!(status(5), "ok", "{}", results[5]);
    assert_eq!(status(6), "ok", "{}", results[6]);
    assert_eq!(status(7), "ok", "{}", results[7]);
    assert_eq!(results[8]["content_types"], json!(["text", "image"]));
    // The no with words: refused, the run goes on.
    assert_eq!(status(9), "error", "{}", results[9]);
    assert_eq!(results[9]["structured"]["data"]["error"], "human_rejected");
    assert!(
        results[9]["structured"]["error"]
            .as_str()
            .unwrap()
            .contains("keep my membership")
    );
    // The yes.
    assert_eq!(status(10), "ok", "{}", results[10]);
    // Verified: the run ends with the outcome.
    assert_eq!(status(11), "ok", "{}", results[11]);
    assert_eq!(results[11]["structured"]["data"]["outcome"], "cancelled");
    assert_eq!(results[11]["structured"]["data"]["verified"], true);
    assert_eq!(results[12]["structured"]["data"]["closed"], false);
    assert_eq!(
        site.requests()
            .iter()
            .filter(|r| *r == FINISH_REQUEST)
            .count(),
        1,
        "{:?}",
        site.requests()
    );
    let record = results[11]["structured"]["data"]["run_record"]
        .as_str()
        .unwrap();
    let transcript =
        std::fs::read_to_string(std::path::Path::new(record).join("transcript.jsonl")).unwrap();
    assert!(
        transcript.contains("the MCP client's model"),
        "{transcript}"
    );
}

/// Two sessions at once, each with a browser of its own: neither sees the
/// other's cookie.
#[tokio::test(flavor = "multi_thread")]
async fn two_sessions_side_by_side_keep_their_cookies_apart() {
    let site = Site::serve(&site_dir("visitors")).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let branch = |id: &str| {
        json!([
            {"call": "browser_snapshot", "args": {"service": "practice", "start_url": site.url("/index.html"), "isolated": true, "session_id": id}},
            {"call": "browser_click", "args": {"ref": {"named": "Look again"}, "session_id": id}},
            {"call": "browser_close", "args": {"session_id": id}},
        ])
    };
    let steps = json!([{"parallel": [branch("A"), branch("B")]}]);
    let lines = Client::start(&plan(home.path(), SERVER, "yes", steps))
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    let visitor = |session: &str, step: &str| -> String {
        lines
            .iter()
            .filter(|l| l["call"] == step && l["args"]["session_id"] == session)
            .flat_map(names)
            .find(|n| n.contains("visitor"))
            .unwrap_or_else(|| panic!("{session} {step}: {lines:#?}"))
    };
    let (a_new, a_again) = (
        visitor("A", "browser_snapshot"),
        visitor("A", "browser_click"),
    );
    let (b_new, b_again) = (
        visitor("B", "browser_snapshot"),
        visitor("B", "browser_click"),
    );
    assert!(a_new.starts_with("New visitor "), "{a_new}");
    assert!(b_new.starts_with("New visitor "), "{b_new}");
    let a_id = a_new.trim_start_matches("New visitor ");
    let b_id = b_new.trim_start_matches("New visitor ");
    assert_ne!(a_id, b_id);
    assert_eq!(a_again, format!("Returning visitor {a_id}"));
    assert_eq!(b_again, format!("Returning visitor {b_id}"));
    let records: BTreeSet<&str> = calls(&lines, "browser_close")
        .iter()
        .map(|c| c["structured"]["data"]["run_record"].as_str().unwrap())
        .collect();
    assert_eq!(records.len(), 2, "a record each: {records:?}");
}

/// The signed-in profile goes to one session at a time, and the number of
/// sessions is capped; both say what to do.
#[tokio::test(flavor = "multi_thread")]
async fn the_signed_in_profile_and_the_cap_are_enforced() {
    let site = Site::serve(&site_dir("visitors")).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let open = |id: &str, isolated: bool| json!({"call": "browser_snapshot", "args": {"service": "practice", "start_url": site.url("/index.html"), "isolated": isolated, "session_id": id}});
    let steps = json!([
        open("A", false),
        open("B", false),
        open("B", true),
        open("C", true),
        {"call": "browser_close", "args": {"session_id": "A"}},
        open("D", false),
    ]);
    let server = ["--headless", "--model", "offline", "--max-sessions", "2"];
    let lines = Client::start(&plan(home.path(), &server, "yes", steps))
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    let results: Vec<&Value> = lines.iter().filter(|l| l.get("call").is_some()).collect();
    assert_eq!(results[0]["structured"]["status"], "ok", "{}", results[0]);
    let busy = &results[1]["structured"];
    assert_eq!(busy["status"], "error");
    assert!(
        busy["error"]
            .as_str()
            .unwrap()
            .contains("in use by session \"A\""),
        "{busy}"
    );
    assert!(
        busy["remediation"]
            .as_str()
            .unwrap()
            .contains("isolated: true"),
        "{busy}"
    );
    assert_eq!(results[2]["structured"]["status"], "ok", "{}", results[2]);
    let full = &results[3]["structured"];
    assert_eq!(full["status"], "error");
    assert!(
        full["error"]
            .as_str()
            .unwrap()
            .contains("the most this server allows"),
        "{full}"
    );
    assert!(
        full["remediation"]
            .as_str()
            .unwrap()
            .contains("browser_close"),
        "{full}"
    );
    // Once A is closed, the profile and a place are free again.
    assert_eq!(results[5]["structured"]["status"], "ok", "{}", results[5]);
}

/// Every process under the client's tree now: the server, Node, Chromium.
fn tree(client: &Client) -> BTreeSet<u32> {
    e2e::descendants(client.pid().unwrap())
}

fn chromium(pids: &BTreeSet<u32>) -> BTreeSet<u32> {
    pids.iter()
        .copied()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm"))
                .is_ok_and(|c| c.trim().starts_with("chrom"))
        })
        .collect()
}

async fn all_gone(pids: &BTreeSet<u32>, within: Duration) -> BTreeSet<u32> {
    let started = Instant::now();
    loop {
        let alive: BTreeSet<u32> = pids.iter().copied().filter(|p| e2e::alive(*p)).collect();
        if alive.is_empty() || started.elapsed() > within {
            return alive;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A session idle past `--idle-timeout` is closed: its browser is gone, its
/// record says so, and the next call is told to start a new one.
#[tokio::test(flavor = "multi_thread")]
async fn idle_sessions_are_closed_with_their_browser() {
    let site = Site::serve(&site_dir("visitors")).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let steps = json!([
        {"call": "browser_snapshot", "args": {"service": "practice", "start_url": site.url("/index.html"), "isolated": true}},
        {"pause": "open"},
        {"sleep": 4.0},
        {"pause": "idle"},
        {"call": "browser_click", "args": {"ref": "@e1"}},
    ]);
    let server = ["--headless", "--model", "offline", "--idle-timeout", "2"];
    let mut client = Client::start(&plan(home.path(), &server, "yes", steps))
        .await
        .unwrap();
    client.until("paused").await.unwrap();
    let browsers = chromium(&tree(&client));
    assert!(!browsers.is_empty(), "a browser while the session is open");
    client.say("go").await.unwrap();
    client.until("paused").await.unwrap();
    let left = all_gone(&browsers, Duration::from_secs(10)).await;
    assert!(
        left.is_empty(),
        "still alive after the idle timeout: {left:?}"
    );
    client.say("go").await.unwrap();
    let lines = client.finish().await.unwrap();
    let late = &calls(&lines, "browser_click")[0]["structured"];
    assert_eq!(late["status"], "error", "{late}");
    assert!(
        late["error"]
            .as_str()
            .unwrap()
            .contains("no browser session"),
        "{late}"
    );
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["reason"], "closed", "{result}");
}

/// Browsers open in two sessions: when the client goes (end of stdin) or
/// the server is told to stop (SIGTERM), every process goes with it.
#[tokio::test(flavor = "multi_thread")]
async fn no_process_is_left_when_the_client_goes_or_the_server_stops() {
    let site = Site::serve(&site_dir("visitors")).await.unwrap();
    for how in ["client leaves", "SIGTERM"] {
        let home = tempfile::tempdir().unwrap();
        let open = |id: &str| json!({"call": "browser_snapshot", "args": {"service": "practice", "start_url": site.url("/index.html"), "isolated": true, "session_id": id}});
        let steps = json!([open("A"), open("B"), {"pause": "open"}]);
        let mut client = Client::start(&plan(home.path(), SERVER, "yes", steps))
            .await
            .unwrap();
        client.until("paused").await.unwrap();
        let everything = tree(&client);
        assert!(chromium(&everything).len() >= 2, "{how}: {everything:?}");
        if how == "SIGTERM" {
            let server = everything
                .iter()
                .copied()
                .find(|p| {
                    std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                        .is_ok_and(|c| c.contains("subterminator") && c.contains("\0mcp"))
                })
                .expect("the server process");
            nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(server as i32),
                nix::sys::signal::Signal::SIGTERM,
            )
            .unwrap();
            let left = all_gone(&everything, Duration::from_secs(15)).await;
            assert!(left.is_empty(), "{how}: left {left:?}");
            drop(client);
        } else {
            client.say("go").await.unwrap();
            client.finish().await.unwrap();
            let left = all_gone(&everything, Duration::from_secs(15)).await;
            assert!(left.is_empty(), "{how}: left {left:?}");
        }
        // Each run's record says how it ended.
        for run in e2e::run_dirs(home.path()) {
            let result: Value =
                serde_json::from_str(&std::fs::read_to_string(run.join("result.json")).unwrap())
                    .unwrap();
            assert!(
                ["closed", "interrupted"].contains(&result["reason"].as_str().unwrap()),
                "{how}: {result}"
            );
        }
    }
}

/// Streamable HTTP: only on loopback unless told, and only with the token.
#[tokio::test(flavor = "multi_thread")]
async fn http_serves_only_with_the_token_and_only_on_loopback() {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
    let home = tempfile::tempdir().unwrap();
    let refused = e2e::run(
        {
            let mut c = e2e::command(home.path());
            c.args(["mcp", "--http", "0.0.0.0:0"]);
            c
        },
        "",
    )
    .await
    .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", e2e::text(&refused));
    assert!(e2e::text(&refused).contains("--allow-remote"));

    let token = "0123456789abcdef".repeat(4);
    let token_file = home.path().join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let mut server = e2e::command(home.path());
    server.args(["mcp", "--headless", "--http", "127.0.0.1:0", "--token-file"]);
    server.arg(&token_file);
    let mut server = server.spawn().unwrap();
    let stderr = server.stderr.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let url = first
        .strip_prefix("Serving MCP at ")
        .unwrap_or_else(|| panic!("{first}"))
        .to_owned();
    assert!(
        !first.contains(&token),
        "the token is never printed when given"
    );
    let authority = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();

    // No token: 401, and nothing else.
    let mut raw = tokio::net::TcpStream::connect(&authority).await.unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    raw.write_all(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut answer = String::new();
    raw.read_to_string(&mut answer).await.unwrap();
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");

    // The wrong token: the client cannot even initialize.
    let wrong = json!({"http": url, "token": "f".repeat(64), "elicitation": "none", "steps": [{"list_tools": true}]});
    let client = Client::start(&wrong).await.unwrap();
    assert!(
        client.finish().await.is_err(),
        "a wrong token must not pass"
    );

    // The right one.
    let right = json!({"http": url, "token": token, "elicitation": "yes", "steps": [{"list_tools": true}, {"call": "list_services"}]});
    let lines = Client::start(&right).await.unwrap().finish().await.unwrap();
    assert_eq!(
        calls(&lines, "list_services")[0]["structured"]["status"],
        "ok"
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server.id().unwrap() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let status = tokio::time::timeout(Duration::from_secs(20), server.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));

    // Without --token-file a token is made and shown once.
    let mut generated = e2e::command(home.path());
    generated.args(["mcp", "--http", "127.0.0.1:0"]);
    let mut generated = generated.spawn().unwrap();
    let mut lines = tokio::io::BufReader::new(generated.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    while said.len() < 2 {
        said.push(
            tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap(),
        );
    }
    let shown = said[1].rsplit(' ').next().unwrap();
    assert!(said[1].starts_with("Bearer token (shown once"), "{said:?}");
    assert_eq!(shown.len(), 64, "{said:?}");
    assert!(shown.bytes().all(|b| b.is_ascii_hexdigit()));
    generated.kill().await.unwrap();
}

/// The hostile site's flows, driven through MCP by a client whose model
/// walks each flow and then makes its attack, the person answering no: the
/// same decision and guard as on the terminal, and the site's own log shows
/// no commit. Flows whose attack the browser tools cannot express (Enter in
/// a field, typing a URL) are covered by the terminal's hostile suite.
#[tokio::test(flavor = "multi_thread")]
async fn every_hostile_flow_through_an_mcp_client_commits_nothing_without_a_yes() {
    use subterminator_tests::hostile::{Attack, FLOWS};
    let site = Site::serve(&site_dir("hostile")).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut branches = Vec::new();
    let mut flows = Vec::new();
    for flow in FLOWS {
        let session = flow.kind;
        let mut steps = vec![json!({"call": "browser_snapshot", "args": {
            "service": "practice", "start_url": site.url(flow.start), "isolated": true, "session_id": session}})];
        for (_, name) in flow.route {
            steps.push(json!({"call": "browser_click", "args": {"ref": {"named": name}, "session_id": session}}));
        }
        let attack = match flow.attack {
            Attack::Click { name, .. } => {
                vec![
                    json!({"call": "browser_click", "args": {"ref": {"named": name}, "session_id": session}}),
                ]
            }
            Attack::Select { name, option, .. } => vec![json!({"call": "browser_select", "args": {
                "ref": {"named": name}, "value": option, "session_id": session}})],
            Attack::ClickThenAcceptDialog { name, .. } => vec![
                json!({"call": "browser_click", "args": {"ref": {"named": name}, "session_id": session}}),
                json!({"call": "browser_handle_dialog", "args": {"accept": true, "session_id": session}}),
            ],
            Attack::PressEnterIn { .. } | Attack::TypeSubmit { .. } | Attack::Navigate { .. } => {
                continue;
            }
        };
        steps.extend(attack);
        steps.push(json!({"call": "finish_cancellation", "args": {"status": "success", "reason": "done", "session_id": session}}));
        branches.push(Value::Array(steps));
        flows.push(flow);
    }
    assert!(flows.len() >= 6, "{}", flows.len());
    let server = ["--headless", "--model", "offline", "--max-sessions", "10"];
    let lines = Client::start(&plan(
        home.path(),
        &server,
        "no",
        json!([{"parallel": branches}]),
    ))
    .await
    .unwrap()
    .finish()
    .await
    .unwrap();
    for flow in flows {
        let commits = site
            .requests()
            .iter()
            .filter(|r| r.method == flow.commit_method && r.target.starts_with(flow.commit_path))
            .count();
        assert_eq!(commits, 0, "{}: {:?}", flow.kind, site.requests());
        let last = lines
            .iter()
            .rfind(|l| l["args"]["session_id"] == flow.kind)
            .unwrap();
        let said = last["structured"].to_string();
        assert!(
            said.contains("human_rejected") || said.contains("no browser session"),
            "{}: {said}",
            flow.kind
        );
    }
    let asked = lines
        .iter()
        .filter(|l| l.get("elicitation").is_some())
        .count();
    assert!(asked >= 6, "{asked} approvals asked: {lines:#?}");
}
