//! Every origin of an action goes through the one pipeline. Each origin has
//! a test in which the site's own request log shows its state-changing
//! request held until the person's yes (or never sent without one):
//!
//! | origin | test |
//! |---|---|
//! | model | `hostile::a_fetch_post_waits_for_the_yes` and the other hostile flows |
//! | policy | `cancel_offline::no_means_the_final_button_is_never_pressed` |
//! | replay | `robust::a_remembered_path_is_replayed_without_a_model` |
//! | retry | [`a_retried_click_that_posts_waits_for_the_yes`] (here) |
//! | dismissal | `robust::a_banner_whose_close_commits_never_ends_anything` |
//! | client | `mcp::every_hostile_flow_through_an_mcp_client_commits_nothing_without_a_yes` |

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use serde_json::{Value, json};
use subterminator_tests::e2e;
use subterminator_tests::human;
use subterminator_tests::model_server::{ModelServer, Reply};
use subterminator_tests::scripted::{SCRIPTED_ANTHROPIC_KEY, find_ref};
use subterminator_tests::site::{Site, site_dir};

/// The last run's transcript events.
fn events(home: &Path) -> Vec<Value> {
    let Some(dir) = e2e::run_dirs(home).pop() else {
        return Vec::new();
    };
    std::fs::read_to_string(dir.join("transcript.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["event"].clone())
        .collect()
}

/// A model that clicks "Next step" once, then says it is done.
fn clicks_next(request: &subterminator_tests::model_server::RecordedRequest) -> Reply {
    let page = request.latest_input().unwrap_or_default();
    match find_ref(&page, "button", "Next step") {
        Some(target) if request.index == 0 => Reply::tool(
            "browser_click",
            json!({"element": "Next step", "target": target}),
        ),
        _ => Reply::tool(
            "complete_task",
            json!({"status": "failed", "reason": "done looking"}),
        ),
    }
}

/// The retry origin: a click taken by a late banner is tried again by the
/// host, unasked; that retry's post is held by the guard and put to the
/// person at the effect. No: nothing reaches the site. Yes: the post reaches it only
/// after the yes. (Checked by mutation: running the retry with the guard
/// open sends the post before any question, and both halves fail.)
#[tokio::test(flavor = "multi_thread")]
async fn a_retried_click_that_posts_waits_for_the_yes() {
    for approve in [false, true] {
        let site = Site::serve(&site_dir("robust")).await.unwrap();
        let model = ModelServer::start(clicks_next).await.unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut command = e2e::command(home.path());
        command.args([
            "cancel",
            "practice",
            "--start-url",
            &site.url("/late-banner-post.html"),
            "--tools",
            "full",
            "--headless",
            "--isolated",
            "--max-turns",
            "3",
            "--model-drives",
        ]);
        command
            .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
            .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
        let posts = || {
            site.requests()
                .iter()
                .filter(|r| r.method == "POST" && r.path().ends_with("/commit.html"))
                .count()
        };
        let session = human::run(command, |_| approve, posts).await.unwrap();
        let said = e2e::text(&session.output);
        let all = events(home.path());
        let of = |kind: &str| all.iter().filter(|e| e["type"] == kind).count();
        assert!(
            of("guard_held") >= 1,
            "the retry's post was not held: {said}\n{all:#?}"
        );
        // Asked while the click still waited on its post, not after the
        // browser gave up waiting for it.
        assert!(
            all.iter()
                .filter(|e| e["type"] == "guard_held")
                .all(|e| e["while_acting"] == true),
            "{all:#?}"
        );
        assert_eq!(session.prompts.len(), 1, "{said}");
        assert_eq!(
            session.prompts[0].commits_before, 0,
            "posted before the question: {said}"
        );
        if approve {
            assert!(posts() >= 1, "the post did not follow the yes: {said}");
            assert_eq!(of("recovered"), 1, "{said}\n{all:#?}");
        } else {
            assert_eq!(posts(), 0, "the post left without a yes: {said}");
        }
    }
}
