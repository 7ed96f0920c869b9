//! The compact toolset against the real Playwright MCP and
//! Chromium: every error code on real pages, scrolling, and the scripted
//! cancellation end to end in both toolsets.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;

use base64::Engine as _;
use serde_json::{Value, json};
use subterminator_core::agent::CompactToolset;
use subterminator_core::agent::toolset::compact::SUPERSEDED;
use subterminator_core::agent::toolset::{Outcome, Toolset};
use subterminator_core::browser::{Browser, BrowserOptions, UserData};
use subterminator_core::page::Snapshot;
use subterminator_practice::{FINISH_REQUEST, PracticeSite, SiteOptions};
use subterminator_tests::compact_script::{compact_canceller, find, snapshot_in};
use subterminator_tests::e2e;
use subterminator_tests::model_server::{ModelServer, RecordedRequest};
use subterminator_tests::scripted::{cancel_netflix, canceller_for};
use subterminator_tests::site::{Site, site_dir};

/// What the agent does with one call, without the agent: translate,
/// refuse or run, look again, report.
struct Harness {
    browser: Browser,
    toolset: CompactToolset,
    snapshot: Snapshot,
    page: Value,
}

impl Harness {
    async fn open(url: &str, run: &std::path::Path) -> Harness {
        let options = BrowserOptions {
            headless: true,
            executable_path: Some(PathBuf::from("/usr/bin/chromium")),
            ..BrowserOptions::new(UserData::Isolated, run.join("browser"))
        };
        let browser = Browser::start(options).await.unwrap();
        browser.navigate(url).await.unwrap();
        let mut toolset = CompactToolset::new(false);
        let snapshot = toolset.look(&browser, None).await.unwrap();
        let page = serde_json::from_str(&toolset.observe(&snapshot)).unwrap();
        Harness {
            browser,
            toolset,
            snapshot,
            page,
        }
    }

    async fn call(&mut self, tool: &str, args: Value) -> Value {
        let text = match self.toolset.translate(tool, &args, &self.snapshot) {
            Err(refusal) => {
                let page = self.toolset.observe(&self.snapshot);
                self.toolset.report(&Outcome::Refused(&refusal), &page)
            }
            Ok(action) => {
                let ran = match &action.mcp_tool {
                    Some(t) => Some(self.browser.call(t, action.mcp_args.clone()).await),
                    None => None,
                };
                let output = ran.as_ref().and_then(|r| r.as_ref().ok());
                self.snapshot = self.toolset.look(&self.browser, output).await.unwrap();
                let page = self.toolset.observe(&self.snapshot);
                let done = subterminator_core::browser::ToolOutput::default();
                let outcome = match &ran {
                    Some(Err(e)) => Outcome::Failed(e),
                    Some(Ok(o)) => Outcome::Done(o),
                    None => Outcome::Done(&done),
                };
                self.toolset.report(&outcome, &page)
            }
        };
        let result: Value = serde_json::from_str(&text).unwrap();
        assert!(result["snapshot"]["snapshot_id"].is_string(), "{text}");
        self.page = result["snapshot"].clone();
        result
    }

    fn find(&self, role: &str, name: &str) -> String {
        find(&self.page, role, name)
            .unwrap_or_else(|| panic!("no {role} {name:?} in {}", self.page))
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_error_code_on_a_real_page() {
    let site = Site::serve(&site_dir("compact")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let mut h = Harness::open(&site.url("/errors.html"), run.path()).await;
    let first_id = h.page["snapshot_id"].clone();
    // Unscrolled and without --vision the viewport is the one the host
    // set, so it is left out.
    assert!(h.page["viewport"].is_null(), "{}", h.page);
    // Controls below the fold are listed, marked, without a box.
    let below: Vec<&Value> = h.page["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| {
            e["state"]
                .as_array()
                .is_some_and(|s| s.contains(&json!("offscreen")))
        })
        .collect();
    assert!(below.len() >= 2, "{}", h.page);
    assert!(below.iter().all(|e| e["bbox"].is_null()), "{}", h.page);

    let locked = h.find("button", "Locked");
    let covered = h.find("button", "Covered");
    let reason = h.find("combobox", "Reason");
    let jumpy = h.find("button", "Jumpy");
    let cases: Vec<(&str, Value, &str)> = vec![
        ("browser_click", json!({"ref": "@e99"}), "ref_invalid"),
        ("browser_click", json!({"ref": locked}), "element_disabled"),
        ("browser_click", json!({"ref": covered}), "element_obscured"),
        (
            "browser_fill",
            json!({"ref": h.find("button", "Locked")}),
            "action_failed",
        ),
        ("browser_scroll", json!({}), "invalid_params"),
        (
            "browser_select",
            json!({"ref": reason, "value": "Gamma"}),
            "action_failed",
        ),
        ("browser_click", json!({"ref": jumpy}), "timeout"),
    ];
    for (tool, args, want) in cases {
        let result = h.call(tool, args.clone()).await;
        assert_eq!(result["success"], false, "{tool} {args}: {result}");
        assert_eq!(result["error"], want, "{tool} {args}: {result}");
        assert!(result["message"].is_string(), "{result}");
    }
    assert_ne!(h.page["snapshot_id"], first_id);

    // Off-canvas: Playwright cannot bring it into view.
    let wide = h
        .call("get_snapshot", json!({"viewport_only": false}))
        .await;
    assert_eq!(wide["success"], true);
    let off = h.find("button", "Off canvas");
    let result = h.call("browser_click", json!({"ref": off})).await;
    assert_eq!(result["error"], "element_not_visible", "{result}");

    // The successes: fill, select, and a click once the dialog is gone.
    // Refs of earlier snapshots are stale now; look them up again.
    let result = h
        .call(
            "browser_fill",
            json!({"ref": h.find("textbox", "Name"), "value": "new", "clear_first": false}),
        )
        .await;
    assert_eq!(result["success"], true, "{result}");
    let name = h.find("textbox", "Name");
    assert_eq!(
        h.page["elements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["ref"] == name.as_str())
            .unwrap()["value"],
        "oldnew"
    );
    let result = h
        .call(
            "browser_select",
            json!({"ref": h.find("combobox", "Reason"), "value": "beta"}),
        )
        .await;
    assert_eq!(result["success"], true, "{result}");
    let accept = h.find("button", "Accept cookies");
    assert_eq!(
        h.call("browser_click", json!({"ref": accept})).await["success"],
        true
    );
    let result = h
        .call("browser_click", json!({"ref": h.find("button", "Covered")}))
        .await;
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(result["snapshot"]["page"]["title"], "covered clicked");
    h.browser.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn scrolling_moves_the_viewport_and_the_refs() {
    let site = Site::serve(&site_dir("compact")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let mut h = Harness::open(&site.url("/errors.html"), run.path()).await;
    // Listed below the fold, without a box, before any scroll.
    let below = find(&h.page, "button", "At the bottom").expect("listed off screen");
    let listed = h.page["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["ref"] == below.as_str())
        .unwrap();
    assert_eq!(listed["state"], json!(["offscreen"]), "{listed}");
    assert!(listed["bbox"].is_null(), "{listed}");
    let result = h
        .call(
            "browser_scroll",
            json!({"direction": "down", "amount": 400}),
        )
        .await;
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(h.page["viewport"]["scroll_y"], 400, "{}", h.page);
    let result = h
        .call("browser_scroll", json!({"direction": "bottom"}))
        .await;
    let bottom = h.find("button", "At the bottom");
    assert!(result["snapshot"]["viewport"]["scroll_y"].as_i64().unwrap() > 2000);
    // Scroll offsets survive a click on the same page without measuring.
    let scrolled = h.page["viewport"]["scroll_y"].clone();
    let result = h.call("browser_click", json!({"ref": bottom})).await;
    assert_eq!(
        result["snapshot"]["page"]["title"], "bottom clicked",
        "{result}"
    );
    assert_eq!(result["snapshot"]["viewport"]["scroll_y"], scrolled);
    let top = h.call("browser_scroll", json!({"direction": "top"})).await;
    assert!(top["snapshot"]["viewport"].is_null(), "{top}");
    let result = h
        .call("browser_scroll", json!({"ref": h.find("button", "Locked")}))
        .await;
    assert_eq!(result["success"], true, "{result}");
    h.browser.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_scripted_cancellation_passes_in_both_profiles() {
    for tools in ["compact", "full"] {
        let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
        let model = ModelServer::start(canceller_for(tools)).await.unwrap();
        let home = tempfile::tempdir().unwrap();
        // Feedback at the first checkpoint, then yes.
        let out = e2e::run(
            cancel_netflix(home.path(), &site.url(), &model, tools),
            "not yet, look again\ny\n",
        )
        .await
        .unwrap();
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(0), "{tools}: {said}");
        assert!(
            site.requests().iter().any(|r| r == FINISH_REQUEST),
            "{tools}"
        );
        let requests = model.requests();
        for r in &requests {
            assert!(
                images_in(r).is_empty(),
                "{tools}: an image without --vision"
            );
        }
        let tool_names = requests[0].tool_names();
        if tools == "compact" {
            assert_eq!(
                tool_names,
                [
                    "get_snapshot",
                    "browser_click",
                    "browser_fill",
                    "browser_select",
                    "browser_scroll",
                    "browser_handle_dialog",
                    "complete_task",
                    "request_human_approval"
                ]
            );
            // The last action's result is quoted whole in the summary of
            // what was done when it says more than "success".
            const QUOTED: &str = "failed (human_rejected): ";
            let (heard, rejected) = requests
                .iter()
                .find_map(|r| {
                    let input = r.latest_input()?;
                    let at = input.find(QUOTED)? + QUOTED.len();
                    let line = input[at..].lines().next()?.to_owned();
                    Some((r, line))
                })
                .expect("the model heard the feedback");
            let v: Value = serde_json::from_str(&rejected).unwrap();
            assert_eq!(v["success"], false);
            assert_eq!(v["error"], "human_rejected");
            assert_eq!(v["message"], "User feedback: not yet, look again");
            // The page comes after the summary, sent apart; the result
            // names it.
            assert!(
                v["snapshot"]
                    .as_str()
                    .is_some_and(|s| s.contains(SUPERSEDED)),
                "{rejected}"
            );
            let page_now = heard.latest_input().unwrap();
            assert!(snapshot_in(&page_now).is_some(), "{page_now}");
            for r in &requests {
                let body = r.body.to_string();
                assert!(!body.contains("```yaml"), "raw YAML sent in compact");
                // Only the latest snapshot is sent whole.
                assert!(body.matches("\\\"elements\\\":[").count() <= 1, "{body}");
            }
        } else {
            assert!(
                tool_names.iter().any(|t| t == "browser_select_option"),
                "{tool_names:?}"
            );
        }
        let result = e2e::last_result(home.path()).unwrap();
        assert_eq!(result["verified"], true, "{tools}: {said}");
    }
}

/// The PNG signature every screenshot starts with.
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The Anthropic image blocks of a request, in order.
fn images_in(request: &RecordedRequest) -> Vec<Value> {
    request
        .messages()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|block| block["type"] == "image")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn under_vision_every_request_carries_the_latest_screenshot() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let model = ModelServer::start(compact_canceller).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = cancel_netflix(home.path(), &site.url(), &model, "compact");
    command.arg("--vision");
    let out = e2e::run(command, "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let requests = model.requests();
    assert!(requests.len() >= 3, "{said}");
    let mut sent = Vec::new();
    for r in &requests {
        let images = images_in(r);
        assert_eq!(
            images.len(),
            1,
            "request {}: only the latest image",
            r.index
        );
        let source = &images[0]["source"];
        assert_eq!(source["type"], "base64");
        assert_eq!(source["media_type"], "image/png");
        let data = source["data"].as_str().unwrap();
        let png = base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap();
        assert!(png.starts_with(PNG_SIGNATURE), "request {}", r.index);
        // The image sits in the last user turn, after its tool results.
        let last = r.messages().last().unwrap();
        assert_eq!(last["role"], "user");
        let blocks = last["content"].as_array().unwrap();
        let at = blocks.iter().position(|b| b["type"] == "image").unwrap();
        assert!(
            blocks[..at].iter().all(|b| b["type"] == "tool_result"),
            "{last}"
        );
        sent.push(data.to_owned());
    }
    sent.dedup();
    assert!(sent.len() >= 2, "each new page brings a new picture");
    // The run record counts the pictures but never holds them.
    let transcript = std::fs::read_to_string(
        e2e::run_dirs(home.path())
            .pop()
            .unwrap()
            .join("transcript.jsonl"),
    )
    .unwrap();
    assert!(transcript.contains("\"images\":1"), "{transcript}");
    assert!(
        !transcript.contains(&sent[0][..64]),
        "image data in the transcript"
    );
    assert_eq!(e2e::last_result(home.path()).unwrap()["verified"], true);
}
