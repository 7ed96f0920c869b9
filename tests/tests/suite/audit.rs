//! The dark-pattern audit on CancelBench flows: the real binary, Playwright
//! MCP, Chromium and the bundled plugins, driven by the honest scripted
//! model from each flow's ground truth, with the one approval answered
//! "y". The site's own log proves the commit came after that yes; the
//! run's receipt (and `runs show`) carries the audit.
//!
//! `practice-confirmshaming-en` (a save offer declined with "No, I don't
//! want to save money") is verified and its receipt lists both;
//! `netflix-base-en` (no offer) is verified and its receipt lists nothing.
//! The French confirmshaming flow ends unverified (the practice plugin
//! reads English), so its audit is read through `runs show`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use subterminator_tests::bench_run::{Ran, cancel as run_flow};
use subterminator_tests::e2e;

async fn cancel(id: &str, tools: &str) -> Ran {
    run_flow(id, tools).await.unwrap()
}

/// `runs show last`, as printed.
async fn runs_show(home: &Path) -> String {
    let mut command = e2e::command(home);
    command.args(["runs", "show", "last"]);
    let out = e2e::run(command, "").await.unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", e2e::text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Exit 0, one question asked before the one commit, a receipt written.
fn assert_verified(ran: &Ran) -> String {
    let said = ran.said();
    assert_eq!(ran.session.output.status.code(), Some(0), "{said}");
    assert_eq!(ran.session.prompts.len(), 1, "{said}");
    assert_eq!(ran.session.prompts[0].commits_before, 0, "{said}");
    assert_eq!(ran.commits(), 1, "{said}");
    std::fs::read_to_string(ran.run_dir().unwrap().join("receipt.md"))
        .unwrap_or_else(|e| panic!("no receipt.md ({e}): {said}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_verified_receipt_lists_the_save_offer_and_the_confirmshaming() {
    let ran = cancel("practice-confirmshaming-en", "compact").await;
    let receipt = assert_verified(&ran);
    assert!(receipt.contains("## What stood in the way"), "{receipt}");
    assert!(
        receipt.contains("**Save offer on the way out**"),
        "{receipt}"
    );
    assert!(receipt.contains("**Confirmshaming**"), "{receipt}");
    assert!(
        receipt.contains("No, I don't want to save money"),
        "{receipt}"
    );
    assert!(
        receipt.contains("California Automatic Renewal Law"),
        "{receipt}"
    );
    assert!(
        receipt.contains("UK Digital Markets, Competition and Consumers Act 2024"),
        "{receipt}"
    );
    assert!(!receipt.contains("Nothing in the way."), "{receipt}");
    assert!(receipt.contains("not legal advice"), "{receipt}");
    let html = std::fs::read_to_string(ran.run_dir().unwrap().join("receipt.html")).unwrap();
    assert!(html.contains("data-kind=\"save-offer\""), "{html}");
    assert!(html.contains("data-kind=\"confirmshaming\""), "{html}");

    let shown = runs_show(ran.home.path()).await;
    assert!(shown.contains("screen(s) before the final step"), "{shown}");
    assert!(shown.contains("• Save offer on the way out"), "{shown}");
    assert!(shown.contains("• Confirmshaming"), "{shown}");
    assert!(shown.contains("not legal advice"), "{shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_verified_receipt_from_a_clean_flow_lists_nothing() {
    let ran = cancel("netflix-base-en", "full").await;
    let receipt = assert_verified(&ran);
    assert!(receipt.contains("## What stood in the way"), "{receipt}");
    assert!(receipt.contains("Nothing in the way."), "{receipt}");
    assert!(
        !receipt.contains("**"),
        "a finding in a clean flow: {receipt}"
    );
    let html = std::fs::read_to_string(ran.run_dir().unwrap().join("receipt.html")).unwrap();
    assert!(html.contains("id=\"audit-clean\""), "{html}");
    assert!(!html.contains("data-kind="), "{html}");

    let shown = runs_show(ran.home.path()).await;
    assert!(shown.contains("nothing in the way"), "{shown}");
}

/// The French flow with a save offer and a shaming way on: both are listed,
/// in the receipt of its verified run and by `runs show`.
#[tokio::test(flavor = "multi_thread")]
async fn the_confirmshaming_flow_lists_the_offer_and_the_shaming() {
    let ran = cancel("practice-confirmshaming-fr", "compact").await;
    let said = ran.said();
    assert_eq!(ran.commits(), 1, "the honest run committed: {said}");
    assert!(
        ran.session.prompts.iter().all(|p| p.commits_before == 0),
        "{said}"
    );
    let receipt = std::fs::read_to_string(ran.run_dir().unwrap().join("receipt.md")).expect(&said);
    assert!(receipt.contains("Confirmshaming"), "{receipt}");
    assert!(receipt.contains("Save offer on the way out"), "{receipt}");

    let shown = runs_show(ran.home.path()).await;
    assert!(shown.contains("• Save offer on the way out"), "{shown}");
    assert!(
        shown.contains("button \"Oui, je garde ma réduction\""),
        "{shown}"
    );
    assert!(shown.contains("• Confirmshaming"), "{shown}");
    assert!(
        shown.contains("Non, je ne veux pas faire d'économies"),
        "{shown}"
    );
    assert!(
        shown.contains("UK Digital Markets, Competition and Consumers Act 2024"),
        "{shown}"
    );
}
