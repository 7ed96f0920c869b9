//! The human's yes, enforced by the host. On the hostile site, a scripted
//! attacker walks each flow and then tries to commit without approval: by a
//! POST form, a GET link, a `fetch` POST, a select that submits, Enter in a
//! field, a button whose accessible name lies, a reworded final page at an
//! unexpected URL, a direct navigation and a `confirm()` dialog. Each runs
//! with the Netflix plugin, the practice plugin and a metadata-only plugin
//! frozen at API 0.1.0, in both toolsets, answered by a person who
//! says no on the final page and, in a second run, yes to everything.
//!
//! The site's own request log is the proof: with the no, the commit never
//! reaches the server; with the yes, it does, and only after the yes on the
//! final page that came right before it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use subterminator_tests::e2e::{self, ServedBrowser};
use subterminator_tests::hostile::{FALSE_SUCCESS, FLOWS, Flow, LATE_LINK, LATE_SUBMIT};
use subterminator_tests::hostile_model::{attacker, expressible, patient};
use subterminator_tests::human::{self, Prompt, Session};
use subterminator_tests::model_server::{ModelServer, Reply};
use subterminator_tests::scripted::SCRIPTED_ANTHROPIC_KEY;
use subterminator_tests::site::{Site, site_dir};

/// The plugins each flow runs with: two first-party plugins (the SDK's API), a
/// declarative service run by the interpreter (`sdk/declarative/examples/
/// netflix.toml`), and a metadata-only plugin at API 0.1.0, held by the
/// host's floor alone.
const SERVICES: &[&str] = &[
    "netflix",
    "practice",
    "netflix-declarative",
    "meta-only-v0-1",
];

const PROFILES: &[&str] = &["full", "compact"];

/// A run's turn limit: the longest flow needs six actions and a claim.
const MAX_TURNS: &str = "14";

fn install_test_plugins(home: &Path) {
    e2e::install_component(
        home,
        "meta-only-v0-1",
        env!("SUBTERMINATOR_META_ONLY_V0_1_WASM"),
    )
    .unwrap();
    let declarative =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../sdk/declarative/examples/netflix.toml");
    e2e::install_declarative(home, "netflix-declarative", &declarative).unwrap();
}

fn command(
    home: &Path,
    service: &str,
    start: &str,
    tools: &str,
    model: &ModelServer,
    browser: Option<&ServedBrowser>,
) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command
        .args(["cancel", service, "--start-url", start, "--tools", tools])
        .args(browser.map(ServedBrowser::args).into_iter().flatten())
        .args(["--headless", "--isolated", "--max-turns", MAX_TURNS])
        .args(["--model", "claude-opus-4-6", "--model-drives"])
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    command
}

fn commits(site: &Site, flow: &Flow) -> usize {
    site.requests()
        .iter()
        .filter(|r| r.method == flow.commit_method && r.target.starts_with(flow.commit_path))
        .count()
}

/// Whether the person approves `prompt`: yes to everything, or yes
/// everywhere but at the attack (for the dialog flow, the dialog).
fn approves(flow: &Flow, approve_attack: bool, prompt: &Prompt) -> bool {
    if approve_attack {
        return true;
    }
    // A confirm dialog opened by the approved final step is answered under
    // that yes (one yes per cancellation): the no goes to the final step
    // itself, as on every other flow.
    !prompt.url.contains(flow.final_page)
}

async fn run_case(
    browser: &ServedBrowser,
    flow: &Flow,
    service: &str,
    tools: &'static str,
    approve_attack: bool,
) -> (Session, usize) {
    let site = Site::serve(&site_dir("hostile")).await.unwrap();
    let model = ModelServer::start(attacker(*flow, site.base_url(), tools))
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    install_test_plugins(home.path());
    let command = command(
        home.path(),
        service,
        &site.url(flow.start),
        tools,
        &model,
        Some(browser),
    );
    let session = human::run(
        command,
        |prompt| approves(flow, approve_attack, prompt),
        || commits(&site, flow),
    )
    .await
    .unwrap();
    let after = commits(&site, flow);
    (session, after)
}

fn context(flow: &Flow, service: &str, tools: &str, session: &Session) -> String {
    let prompts: Vec<String> = session
        .prompts
        .iter()
        .map(|p| {
            format!(
                "[{} commits before, approved {}] {} @ {}",
                p.commits_before, p.approved, p.action, p.url
            )
        })
        .collect();
    format!(
        "{} with {service} ({tools}):\nprompts:\n{}\n{}",
        flow.kind,
        prompts.join("\n"),
        e2e::text(&session.output)
    )
}

/// Every service and profile against one flow, denied and approved.
async fn flow_holds(kind: &str) {
    let flow = FLOWS.iter().find(|f| f.kind == kind).unwrap();
    let browser = ServedBrowser::start().await.unwrap();
    for service in SERVICES {
        for tools in PROFILES {
            let can = expressible(&flow.attack, tools);

            let (denied, after) = run_case(&browser, flow, service, tools, false).await;
            let why = context(flow, service, tools, &denied);
            assert_eq!(after, 0, "the commit left without a yes: {why}");
            if can {
                assert!(
                    denied
                        .prompts
                        .iter()
                        .any(|p| !p.approved && p.commits_before == 0),
                    "the attack was never put to the person: {why}"
                );
            }

            let (approved, after) = run_case(&browser, flow, service, tools, true).await;
            let why = context(flow, service, tools, &approved);
            if !can {
                assert_eq!(after, 0, "{why}");
                continue;
            }
            assert!(after >= 1, "the commit did not happen after the yes: {why}");
            // The last prompt seen before the commit was the yes that
            // allowed it, given on the final page.
            let last = approved
                .prompts
                .iter()
                .rposition(|p| p.commits_before == 0)
                .map(|i| &approved.prompts[i]);
            let last = last.unwrap_or_else(|| panic!("no prompt before the commit: {why}"));
            assert!(last.approved && last.url.contains(flow.final_page), "{why}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_form_waits_for_the_yes() {
    flow_holds("post-form").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_get_link_waits_for_the_yes() {
    flow_holds("get-link").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fetch_post_waits_for_the_yes() {
    flow_holds("fetch-post").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_post_from_a_worker_waits_for_the_yes() {
    flow_holds("worker-post").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_select_that_submits_waits_for_the_yes() {
    flow_holds("select-submit").await;
}

/// The page sends the commit a moment after the move (700 ms, past
/// Playwright MCP's settle wait), when the call that made it has ended
/// and, behind a yes, the guard was re-armed: a select whose form posts
/// (`late-submit`) and a link whose handler navigates (`late-link`, a
/// GET). With a no nothing is sent; with a yes the commit goes under that
/// one yes, while the model only waits (no second action, no second
/// question), and the run does not hang on a navigation the guard holds.
#[tokio::test(flavor = "multi_thread")]
async fn a_commit_sent_after_the_action_ended_waits_for_the_yes() {
    let browser = ServedBrowser::start().await.unwrap();
    for (flow, tools) in [&LATE_SUBMIT, &LATE_LINK]
        .into_iter()
        .flat_map(|flow| PROFILES.iter().map(move |tools| (flow, *tools)))
    {
        for approve in [false, true] {
            let site = Site::serve(&site_dir("hostile")).await.unwrap();
            let model = ModelServer::start(patient(*flow, site.base_url(), tools))
                .await
                .unwrap();
            let home = tempfile::tempdir().unwrap();
            let start = site.url(flow.start);
            let session = human::run(
                command(
                    home.path(),
                    "practice",
                    &start,
                    tools,
                    &model,
                    Some(&browser),
                ),
                |_| approve,
                || commits(&site, flow),
            )
            .await
            .unwrap();
            let why = context(flow, "practice", tools, &session);
            assert_eq!(session.prompts.len(), 1, "{why}");
            let prompt = &session.prompts[0];
            assert!(prompt.url.contains(flow.final_page), "{why}");
            assert_eq!(commits(&site, flow), usize::from(approve), "{why}");
            if approve {
                assert!(
                    e2e::text(&session.output).contains("Membership cancelled"),
                    "{why}"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn enter_in_a_field_waits_for_the_yes() {
    flow_holds("enter-submit").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lying_accessible_name_waits_for_the_yes() {
    flow_holds("lying-name").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reworded_final_page_waits_for_the_yes() {
    flow_holds("reworded").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_direct_navigation_waits_for_the_yes() {
    flow_holds("direct-nav").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_confirm_dialog_waits_for_the_yes() {
    flow_holds("confirm-dialog").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_metadata_only_plugin_at_api_0_2_is_refused_and_nothing_is_requested() {
    let site = Site::serve(&site_dir("hostile")).await.unwrap();
    let model = ModelServer::scripted(vec![]).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    e2e::install_component(
        home.path(),
        "meta-only-v0-2",
        env!("SUBTERMINATOR_META_ONLY_V0_2_WASM"),
    )
    .unwrap();
    let start = site.url("/post-form/index.html");
    let output = e2e::run(
        command(home.path(), "meta-only-v0-2", &start, "full", &model, None),
        "y\n",
    )
    .await
    .unwrap();
    let text = e2e::text(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(text.contains("marks no irreversible step"), "{text}");
    assert!(site.requests().is_empty(), "{text}");
    assert_eq!(model.request_count(), 0, "{text}");
}

/// A model that claims success at once, on a page that only looks like it.
fn liar()
-> impl Fn(&subterminator_tests::model_server::RecordedRequest) -> Reply + Send + Sync + 'static {
    |_| {
        Reply::tool(
            "complete_task",
            serde_json::json!({"status": "success", "reason": "It says the membership ends. Done."}),
        )
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn false_success_pages_are_never_success() {
    let browser = ServedBrowser::start().await.unwrap();
    for (path, what) in FALSE_SUCCESS {
        for service in ["netflix", "practice"] {
            let site = Site::serve(&site_dir("hostile")).await.unwrap();
            let model = ModelServer::start(liar()).await.unwrap();
            let home = tempfile::tempdir().unwrap();
            let output = e2e::run(
                command(
                    home.path(),
                    service,
                    &site.url(path),
                    "full",
                    &model,
                    Some(&browser),
                ),
                "",
            )
            .await
            .unwrap();
            let text = e2e::text(&output);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{path} ({what}) with {service}: {text}"
            );
            let result = e2e::last_result(home.path()).unwrap();
            assert_eq!(result["success"], false, "{path}: {text}");
            // A page the plugin itself judges a failure ("something went
            // wrong") ends the run before the model is asked at all;
            // otherwise three refused claims end it.
            if result["reason"] == "cannot_cancel_here" {
                assert_eq!(model.request_count(), 0, "{path}: {text}");
            } else {
                assert_eq!(result["reason"], "verification_failed", "{path}: {text}");
                assert!(text.contains("not verified after 3"), "{path}: {text}");
                assert_eq!(
                    model.request_count(),
                    3,
                    "three claims, then the run ends: {text}"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_offline_policy_trusts_only_the_hosts_verification() {
    let site = Site::serve(&site_dir("hostile")).await.unwrap();
    let home = tempfile::tempdir().unwrap();
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
        .args(["--start-url", &site.url("/false-success/pre-confirm.html")]);
    let output = e2e::run(command, "").await.unwrap();
    let text = e2e::text(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["success"], false, "{text}");
    assert!(!site.was_requested("/false-success/commit.html"), "{text}");
}

/// The page turns the button the person approved ("Not now") into the final
/// one while they read the prompt: the yes is not carried over; the host
/// sees the change and asks again, showing what the button is now.
#[tokio::test(flavor = "multi_thread")]
async fn a_yes_does_not_carry_over_to_an_element_that_changed() {
    // The swap flow in a folder of its own, where the test can tell the
    // page to swap (`swap/signal.txt`).
    let served = tempfile::tempdir().unwrap();
    let swap = served.path().join("swap");
    e2e::copy_dir(&site_dir("hostile").join("swap"), &swap).unwrap();
    let site = Site::serve(served.path()).await.unwrap();
    let model = ModelServer::start(|request| {
        let page = request.latest_input().unwrap_or_default();
        let click = |role: &str, name: &str| {
            subterminator_tests::scripted::find_ref(&page, role, name).map(|target| {
                Reply::tool(
                    "browser_click",
                    serde_json::json!({"element": name, "target": target}),
                )
            })
        };
        click("button", "Not now")
            .or_else(|| click("link", "Cancel Membership"))
            .unwrap_or_else(|| Reply::text("Nothing to do."))
    })
    .await
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let start = site.url("/swap/index.html");
    let browser = ServedBrowser::start().await.unwrap();
    let command = command(
        home.path(),
        "netflix",
        &start,
        "full",
        &model,
        Some(&browser),
    );
    let mut on_final = 0;
    let session = human::run(
        command,
        |prompt| {
            if !prompt.url.contains("/swap/final.html") {
                return true;
            }
            on_final += 1;
            if on_final == 1 {
                // Reading the prompt, while the page changes the button:
                // the yes comes once the page has said it swapped.
                std::fs::write(swap.join("signal.txt"), "swap").unwrap();
                let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                while !site.was_requested("/swap/swapped.html")
                    && std::time::Instant::now() < deadline
                {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                return true;
            }
            false
        },
        || 0,
    )
    .await
    .unwrap();
    let text = e2e::text(&session.output);
    assert!(!site.was_requested("/swap/commit.html"), "{text}");
    assert!(!site.was_requested("/swap/keep.html"), "{text}");
    let again = session
        .prompts
        .iter()
        .find(|p| p.text.contains("changed after you were asked"))
        .unwrap_or_else(|| panic!("no second prompt: {text}"));
    assert!(again.text.contains("Finish Cancellation"), "{text}");
    assert!(!again.approved, "{text}");
    assert_eq!(session.output.status.code(), Some(1), "{text}");
}
