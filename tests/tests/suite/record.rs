//! Proof of cancellation (issue 14): the hash-chained record, the receipt,
//! `runs` and what a record must never hold. Real binary, Playwright MCP,
//! Chromium and the practice site on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use subterminator_core::browser::{Browser, BrowserOptions};
use subterminator_core::record::RunRecord;
use subterminator_tests::e2e;
use subterminator_tests::model_server::{ModelServer, Reply};
use subterminator_tests::scripted::find_ref;
use subterminator_tests::site::{Site, site_dir};

async fn sub(home: &Path, args: &[&str]) -> (Option<i32>, String) {
    e2e::sub(home, args).await.unwrap()
}

async fn offline_run(home: &Path, answer: &str) -> (Option<i32>, String, PathBuf) {
    e2e::offline_netflix(home, answer).await.unwrap()
}

/// The width a PNG's header gives.
fn png_width(path: &Path) -> u32 {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    u32::from_be_bytes(bytes[16..20].try_into().unwrap())
}

/// Replaces the byte at `at` with one that differs.
fn flip(path: &Path, at: usize) -> Vec<u8> {
    let original = std::fs::read(path).unwrap();
    let mut bytes = original.clone();
    bytes[at] = if bytes[at] == b'7' { b'8' } else { b'7' };
    std::fs::write(path, bytes).unwrap();
    original
}

#[tokio::test(flavor = "multi_thread")]
async fn a_verified_success_has_a_receipt_and_a_record_that_verifies() {
    let home = tempfile::tempdir().unwrap();
    let (code, said, run) = offline_run(home.path(), "y\n").await;
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(&format!("Receipt: {}", run.join("receipt.html").display())),
        "{said}"
    );

    let (code, said) = sub(home.path(), &["runs", "verify", "last"]).await;
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("the record is as written"), "{said}");
    for file in [
        "confirmation.png",
        "receipt.html",
        "receipt.pdf",
        "screenshot-001.png",
    ] {
        assert!(said.contains(file), "{file} not listed: {said}");
    }

    // The PDF is a PDF with at least one page.
    let pdf = std::fs::read(run.join("receipt.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let text = String::from_utf8_lossy(&pdf);
    let pages = text.matches("/Type /Page").count() - text.matches("/Type /Pages").count();
    assert!(pages >= 1, "no page in the PDF");
    let md = std::fs::read_to_string(run.join("receipt.md")).unwrap();
    assert!(md.contains("Your membership ends on"), "{md}");
    // Prose escaped, the target a code span (`receipt/markdown.rs`).
    assert!(
        md.contains("browser\\_click `button \"Finish Cancellation\"`"),
        "{md}"
    );

    // The HTML, rendered by the real browser, shows the confirmation
    // screenshot at its own size, from inside the file (nothing fetched).
    let served = Site::serve(&run).await.unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let browser = Browser::start(BrowserOptions {
        executable_path: Some(PathBuf::from("/usr/bin/chromium")),
        ..BrowserOptions::headless_isolated(scratch.path().join("browser"))
    })
    .await
    .unwrap();
    browser
        .navigate(&served.url("/receipt.html"))
        .await
        .unwrap();
    let shown = browser
        .call(
            "browser_evaluate",
            json!({"function": "async () => { const i = document.getElementById('confirmation'); if (i) await i.decode().catch(() => null); return JSON.stringify({ width: i ? i.naturalWidth : 0, src: i ? i.src.slice(0, 22) : '', text: document.body.innerText }); }"}),
        )
        .await
        .unwrap();
    browser.shutdown().await.unwrap();
    let answer: Value = serde_json::from_str(shown.result.as_deref().unwrap().trim()).unwrap();
    let answer: Value = serde_json::from_str(answer.as_str().unwrap()).unwrap();
    assert_eq!(
        answer["width"],
        png_width(&run.join("confirmation.png")),
        "{answer}"
    );
    assert_eq!(answer["src"], "data:image/png;base64,");
    let body = answer["text"].as_str().unwrap();
    assert!(body.contains("cancellation confirmed"), "{body}");
    assert!(body.contains("approved"), "{body}");
    let fetched: Vec<String> = served
        .requests()
        .iter()
        .map(|r| r.path().to_owned())
        .collect();
    assert_eq!(
        fetched,
        ["/receipt.html"],
        "the receipt fetched more than itself"
    );

    // Any changed byte of the transcript, result.json or a screenshot is named.
    let transcript = run.join("transcript.jsonl");
    let lines = std::fs::read_to_string(&transcript).unwrap();
    let third = lines.match_indices('\n').nth(1).unwrap().0 + 40;
    let cases = [
        (
            transcript.clone(),
            third,
            "transcript.jsonl line 3 was changed",
        ),
        (run.join("result.json"), 20, "result.json was changed"),
        (
            run.join("confirmation.png"),
            200,
            "confirmation.png was changed",
        ),
        (
            run.join("screenshot-001.png"),
            300,
            "screenshot-001.png was changed",
        ),
    ];
    let run_arg = run.display().to_string();
    for (path, at, named) in cases {
        let original = flip(&path, at);
        let (code, said) = sub(home.path(), &["runs", "verify", &run_arg]).await;
        std::fs::write(&path, original).unwrap();
        assert_eq!(code, Some(1), "{said}");
        assert!(said.contains(named), "{named}: {said}");
    }
    let (code, said) = sub(home.path(), &["runs", "verify", &run_arg, "--json"]).await;
    assert_eq!(code, Some(0), "restored: {said}");
}

/// A finished record made by the library, under an older name.
fn fabricated(runs: &Path, name: &str, success: bool) {
    let mut record = RunRecord::create(runs, "x").unwrap();
    let result = json!({"success": success, "verified": success,
        "reason": if success { "completed" } else { "human_rejected" }, "turns": 4,
        "usage": {"input": 1000, "output": 50}, "cost_usd": 0.0037});
    record
        .append(&json!({"type": "run_started", "model": "claude-sonnet-4 (anthropic)"}))
        .unwrap();
    record
        .append(&json!({"type": "finished", "result": result}))
        .unwrap();
    record.finish(&result).unwrap();
    std::fs::rename(record.dir(), runs.join(name)).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rejected_run_has_no_receipt_and_runs_lists_shows_and_prunes() {
    let home = tempfile::tempdir().unwrap();
    let (code, said, run) = offline_run(home.path(), "n\n").await;
    assert_eq!(code, Some(1), "{said}");
    for receipt in [
        "receipt.html",
        "receipt.pdf",
        "receipt.md",
        "confirmation.png",
    ] {
        assert!(!run.join(receipt).exists(), "{receipt} for a rejected run");
    }
    let (code, said) = sub(home.path(), &["runs", "verify", "last"]).await;
    assert_eq!(code, Some(0), "a rejected run's record verifies: {said}");
    let (code, said) = sub(home.path(), &["runs", "open", "last"]).await;
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("has no receipt"), "{said}");

    let runs = home.path().join("data/runs");
    let cases = [
        ("20250101T000000Z-netflix-0000000a", true),
        ("20250102T000000Z-netflix-0000000b", false),
        ("20250103T000000Z-netflix-0000000c", true),
        ("20250104T000000Z-spotify-0000000d", true),
    ];
    for (name, success) in cases {
        fabricated(&runs, name, success);
    }
    let rejected = run.file_name().unwrap().to_str().unwrap().to_owned();

    let (code, said) = sub(home.path(), &["runs", "--json"]).await;
    assert_eq!(code, Some(0), "{said}");
    let listed: Value = serde_json::from_str(said.lines().nth(2).unwrap()).unwrap();
    let ids: Vec<&str> = listed["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids[0], rejected, "newest first");
    assert_eq!(
        &ids[1..],
        [
            "20250104T000000Z-spotify-0000000d",
            "20250103T000000Z-netflix-0000000c",
            "20250102T000000Z-netflix-0000000b",
            "20250101T000000Z-netflix-0000000a"
        ]
    );
    assert_eq!(listed["runs"][1]["cost_usd"], 0.0037);

    let (code, said) = sub(home.path(), &["runs"]).await;
    assert_eq!(code, Some(0), "{said}");
    let table: Vec<&str> = said
        .lines()
        .skip_while(|l| !l.starts_with("DATE"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(table.len(), 6, "{said}");
    assert!(
        table[1].contains("human_rejected") && table[1].contains(&rejected),
        "{said}"
    );
    assert!(
        table[2].contains("spotify")
            && table[2].contains("✓ cancelled")
            && table[2].contains("1050")
            && table[2].contains("$0.0037"),
        "{said}"
    );

    let (code, said) = sub(home.path(), &["runs", "show", "0000000c"]).await;
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(
            "Outcome:  ✓ cancelled (4 turns, 1000 input + 50 output tokens, cost $0.0037)"
        ),
        "{said}"
    );
    assert!(said.contains("Record:   intact"), "{said}");
    let (code, said) = sub(home.path(), &["runs", "show", "netflix"]).await;
    assert_eq!(code, Some(2), "ambiguous: {said}");
    assert!(said.contains("give more of the name"), "{said}");

    // Older than 30 days: 0a and 0b go; 0c (netflix's last proof) and 0d
    // (spotify's) stay unless forced; the new run is too young.
    let (code, said) = sub(
        home.path(),
        &["runs", "prune", "--older-than", "30", "--json"],
    )
    .await;
    assert_eq!(code, Some(0), "{said}");
    let pruned: Value = serde_json::from_str(said.lines().nth(2).unwrap()).unwrap();
    assert_eq!(
        pruned["deleted"],
        json!([
            "20250102T000000Z-netflix-0000000b",
            "20250101T000000Z-netflix-0000000a"
        ])
    );
    assert_eq!(
        pruned["kept"],
        json!([
            "20250104T000000Z-spotify-0000000d",
            "20250103T000000Z-netflix-0000000c"
        ])
    );
    let (_, said) = sub(
        home.path(),
        &["runs", "prune", "--older-than", "30", "--force"],
    )
    .await;
    assert!(
        said.contains("2 run(s) older than 30 days deleted, 0 kept."),
        "{said}"
    );
    let left: Vec<PathBuf> = e2e::run_dirs(home.path());
    assert_eq!(left, [run], "only the new run is left");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_key_cookie_or_password_reaches_the_record_or_the_model() {
    const KEY: &str = "sk-ant-NEVER-RECORDED-key";
    const SECRETS: &[&str] = &[
        KEY,
        "COOKIE-NEVER-RECORDED",
        "hunter2-NEVER-RECORDED",
        "typed-NEVER-RECORDED",
        // In a password field whose name says nothing: found by asking the page.
        "unlabelled-NEVER-RECORDED",
    ];
    let site = Site::serve(&site_dir("secrets")).await.unwrap();
    let turn = AtomicUsize::new(0);
    // A model that tries every way to put a password into the page.
    let model = ModelServer::start(move |request| {
        let page = request.latest_input().unwrap_or_default();
        let password = find_ref(&page, "textbox", "Password").unwrap_or_default();
        let account = find_ref(&page, "textbox", "Account").unwrap_or_default();
        match turn.fetch_add(1, Ordering::SeqCst) {
            0 => Reply::tool(
                "browser_type",
                json!({"element": "Password", "target": password, "text": "typed-NEVER-RECORDED"}),
            ),
            1 => Reply::tool(
                "browser_type",
                json!({"element": "Account", "target": account, "text": "typed-NEVER-RECORDED"}),
            ),
            2 => Reply::tool(
                "browser_click",
                json!({"element": "Account", "target": account}),
            ),
            3 => Reply::tool("browser_press_key", json!({"key": "t"})),
            _ => Reply::tool(
                "complete_task",
                json!({"status": "failed", "reason": "The page wants a password."}),
            ),
        }
    })
    .await
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command
        .args([
            "cancel",
            "netflix",
            "--start-url",
            &site.url("/account.html"),
            "--tools",
            "full",
            "--model",
            "claude-sonnet-4-5",
            "--model-drives",
            "--headless",
            "--isolated",
        ])
        .env("ANTHROPIC_API_KEY", KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    let run = e2e::run_dirs(home.path()).pop().unwrap();
    let transcript = std::fs::read_to_string(run.join("transcript.jsonl")).unwrap();
    let refused = transcript.matches("This is a password field").count();
    assert_eq!(
        refused, 3,
        "two typings and a key press refused: {transcript}"
    );
    assert!(
        transcript.contains("textbox \\\"Password\\\" [ref="),
        "the field is still shown"
    );

    // Nothing in the run folder, at any depth, holds a secret.
    let mut pending = vec![run.clone()];
    let mut files = 0;
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            files += 1;
            let bytes = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            for secret in SECRETS {
                assert!(!bytes.contains(secret), "{secret} in {}", path.display());
            }
        }
    }
    assert!(files >= 4, "the record holds its files");
    // The provider never saw the typed password either.
    for request in model.requests() {
        let sent = format!("{:?}", request.messages());
        assert!(
            !sent.contains("hunter2-NEVER-RECORDED") && !sent.contains("unlabelled-NEVER-RECORDED")
        );
    }
    // The site's own log: the page was only ever read, nothing was sent to it.
    let sent: Vec<String> = site
        .requests()
        .iter()
        .filter(|r| !["GET", "HEAD"].contains(&r.method.as_str()))
        .map(|r| format!("{} {}", r.method, r.target))
        .collect();
    assert!(sent.is_empty(), "the page received {sent:?}");
    let (code, said) = sub(home.path(), &["runs", "verify", "last"]).await;
    assert_eq!(code, Some(0), "{said}");
}
