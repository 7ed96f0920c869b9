#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::json;
use subterminator_core::audit::Moment;
use subterminator_core::exit::ErrorClass;
use subterminator_core::paths::Dirs;

use super::service_file::{FILL_PLACEHOLDER, path_glob};
use super::walk::{Action, Walk, split_target};
use super::{Request, draft, run};

/// A real verified run: `subterminator demo spotify --variant long --model
/// offline --headless`, answered yes, on the practice site (its offer,
/// cheaper plans, a reasons survey with a select, then the final step).
/// Receipts and screenshots left out; the transcript, `result.json`, the
/// confirmation and the saved page trees as the run wrote them.
const RUN: &str = "20261128T141238Z-spotify-f38c4f71";

fn recorded_run() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/runs")
        .join(RUN)
}

/// A copy of the recorded run in a fresh home, so a test may change it.
fn home_with_run() -> (tempfile::TempDir, Dirs, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let dirs = Dirs::under(home.path());
    let run = dirs.runs().join(RUN);
    copy_dir(&recorded_run(), &run);
    (home, dirs, run)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn read_all(dir: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            text.push_str(&read_all(&entry.path()));
        } else {
            text.push_str(&std::fs::read_to_string(entry.path()).unwrap());
        }
    }
    text
}

#[tokio::test(flavor = "multi_thread")]
async fn a_real_verified_run_drafts_a_plugin_that_passes_plugin_test() {
    let (home, dirs, run_dir) = home_with_run();
    let out = home.path().join("acme");
    let descriptors = ["ACME*".to_owned()];
    let drafted = run(
        Request {
            id: "acme",
            run: run_dir.to_str().unwrap(),
            dir: out.clone(),
            descriptors: &descriptors,
            force: false,
        },
        &dirs,
    )
    .await
    .unwrap();
    assert_eq!(
        (drafted.steps, drafted.fixtures, drafted.commit_request),
        (7, 8, true)
    );

    let text = std::fs::read_to_string(out.join("service.toml")).unwrap();
    let file = subterminator_declarative::parse(&text).unwrap();
    assert_eq!(file.api, "0.4.0");
    assert_eq!(file.service.id, "acme");
    assert_eq!(file.service.version, "0.1.0");
    assert_eq!(
        file.service.initial_url,
        "http://127.0.0.1:45913/account/overview/"
    );
    assert_eq!(file.service.allowed_origins, ["http://127.0.0.1:45913"]);
    assert_eq!(file.service.billing_descriptors, ["ACME*"]);
    let commit = &file.service.commit_requests[0];
    assert_eq!(
        (commit.method.as_str(), commit.url_pattern.as_str()),
        ("POST", "*/account/subscription/cancel/complete*")
    );
    assert!(file.service.harmless_requests.is_empty());
    let steps: Vec<(String, bool)> = file
        .plan
        .iter()
        .map(|s| (s.targets[0].name[0].clone(), s.irreversible))
        .collect();
    let want = [
        ("manage your subscription", false),
        ("cancel subscription", false),
        ("continue to cancel", false),
        ("no thanks, continue to cancel", false),
        ("reason for leaving", false),
        ("continue", false),
        ("yes, cancel premium", true),
    ];
    assert_eq!(
        steps,
        want.map(|(n, i)| (n.to_owned(), i)).to_vec(),
        "{text}"
    );
    assert_eq!(
        file.plan[4].targets[0].value.as_deref(),
        Some("Something else")
    );
    assert_eq!(
        file.success[0].when.content.as_deref(),
        Some(&["your premium subscription has been cancelled".to_owned()][..])
    );
    assert_eq!(file.checkpoint.len(), 1);

    // Never a ref, never the person's e-mail address.
    let all = read_all(&out);
    assert!(!text.contains("ref="), "{text}");
    assert!(!all.contains("alex@example.com"));
    assert!(all.contains("someone@example.com"));

    // The same checks `plugin test` runs, on the folder written.
    // (The sandbox runs its own runtime: off the test's.)
    let (rows, _) =
        tokio::task::spawn_blocking(move || crate::plugin::test::check(&dirs, &out, true))
            .await
            .unwrap()
            .unwrap();
    let failed: Vec<_> = rows.iter().filter(|r| !r.pass).collect();
    assert!(failed.is_empty(), "{failed:?}");
    assert_eq!(rows.len(), 26);
}

/// Each refusal says why, exits 2 and leaves nothing behind.
#[tokio::test(flavor = "multi_thread")]
async fn refused_drafts_write_nothing() {
    type Spoil = fn(&Path);
    let cases: &[(&str, Spoil, &str)] = &[
        (
            "unverified",
            |run| {
                let path = run.join("result.json");
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(
                    &path,
                    text.replace("\"verified\": true", "\"verified\": false"),
                )
                .unwrap();
            },
            "ended completed (not verified): a plugin is drafted only from a verified cancellation",
        ),
        (
            "failed",
            |run| {
                let path = run.join("result.json");
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(
                    &path,
                    text.replace("\"success\": true", "\"success\": false")
                        .replace("\"completed\"", "\"human_rejected\""),
                )
                .unwrap();
            },
            "ended human_rejected: a plugin is drafted only",
        ),
        (
            "a page changed",
            |run| {
                let path = run.join("confirmation.txt");
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(&path, text.replace("cancelled", "canceled")).unwrap();
            },
            "confirmation.txt changed after the run; nothing was written",
        ),
        (
            "a transcript line changed",
            |run| {
                let path = run.join("transcript.jsonl");
                let text = std::fs::read_to_string(&path).unwrap();
                std::fs::write(&path, text.replacen("Continue to cancel", "Continue", 1)).unwrap();
            },
            "line",
        ),
    ];
    for (what, spoil, want) in cases {
        let (home, dirs, run_dir) = home_with_run();
        spoil(&run_dir);
        let out = home.path().join("acme");
        let error = run(
            Request {
                id: "acme",
                run: run_dir.to_str().unwrap(),
                dir: out.clone(),
                descriptors: &[],
                force: false,
            },
            &dirs,
        )
        .await
        .unwrap_err();
        assert_eq!(error.class(), ErrorClass::Configuration, "{what}");
        assert_eq!(error.class().exit_code(), 2, "{what}");
        assert!(error.to_string().contains(want), "{what}: {error}");
        assert!(!out.exists(), "{what}");
        let leftovers: Vec<_> = std::fs::read_dir(home.path())
            .unwrap()
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(".subterminator")
            })
            .collect();
        assert!(leftovers.is_empty(), "{what}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_existing_folder_is_replaced_only_with_force() {
    let (home, dirs, _) = home_with_run();
    let out = home.path().join("acme");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let request = |force| Request {
        id: "acme",
        run: RUN,
        dir: out.clone(),
        descriptors: &[],
        force,
    };
    let error = run(request(false), &dirs).await.unwrap_err();
    assert!(error.to_string().contains("--force"), "{error}");
    assert!(out.join("notes.txt").is_file());
    run(request(true), &dirs).await.unwrap();
    assert!(!out.join("notes.txt").exists());
    assert!(out.join("service.toml").is_file());
}

fn event(value: serde_json::Value) -> Moment {
    Moment::Event(value)
}

fn tree(text: &str) -> Moment {
    Moment::Tree(text.to_owned())
}

fn call(turn: u64, tool: &str, target: &str, arguments: serde_json::Value) -> Moment {
    event(
        json!({ "type": "tool_call", "turn": turn, "tool": tool, "target": target, "arguments": arguments }),
    )
}

fn result(turn: u64, ok: bool, url: &str) -> Moment {
    event(json!({ "type": "tool_result", "turn": turn, "ok": ok, "url": url, "page": null }))
}

fn approved(turn: u64) -> Moment {
    event(json!({ "type": "approval_answered", "turn": turn, "answer": { "answer": "approved" } }))
}

fn started() -> Moment {
    event(
        json!({ "type": "run_started", "service": "acme", "display_name": "Acme",
                  "start_url": "https://www.acme.test/account",
                  "billing_descriptors": ["ACME *TV*"] }),
    )
}

/// Shapes of record a real run can leave: a sign-in pause, a failed
/// action, a password, a typed answer, a held commit; each read as the
/// draft needs it.
#[test]
fn records_read_as_walks() {
    let sign_in = "- textbox \"Email\" [ref=e1]\n- textbox \"Password\" [ref=e2]\n- button \"Sign in\" [ref=e3]\n";
    let moments = vec![
        started(),
        tree(sign_in),
        event(
            json!({ "type": "auth_required", "turn": 0, "kind": "login-required", "message": "", "url": "https://login.acme.test/signin?next=/account" }),
        ),
        tree("- button \"Cancel plan\" [ref=e4]\n"),
        call(1, "browser_click", "button \"Cancel plan\"", json!({})),
        result(1, false, "https://www.acme.test/account"),
        call(2, "browser_click", "button \"Cancel plan\"", json!({})),
        tree(
            "- textbox \"Password\" [ref=e5]\n- textbox \"Why?\" [ref=e6]\n- button \"Finish\" [ref=e7]\n",
        ),
        result(2, true, "https://www.acme.test/account/cancel"),
        call(
            3,
            "browser_type",
            "textbox \"Password\"",
            json!({ "text": "hunter2" }),
        ),
        result(3, true, "https://www.acme.test/account/cancel"),
        call(
            4,
            "browser_type",
            "textbox \"Why?\"",
            json!({ "text": "Alex Doe moved" }),
        ),
        result(4, true, "https://www.acme.test/account/cancel"),
        call(5, "browser_click", "button \"Finish\"", json!({})),
        event(
            json!({ "type": "guard_held", "turn": 5, "requests": [{ "id": 1, "method": "POST", "url": "https://www.acme.test/api/v2/subscriptions/8f3a9c21/cancel?token=abc", "why": "", "navigation": false, "body": "" }] }),
        ),
        approved(5),
        tree("- heading \"Your plan is cancelled\" [level=1] [ref=e8]\n"),
        result(5, true, "https://www.acme.test/account/cancel/done"),
    ];
    let walk = Walk::from_moments(&moments).unwrap();
    assert_eq!(walk.billing_descriptors, ["ACME *TV*"]);
    let pages: Vec<(&str, bool)> = walk
        .pages
        .iter()
        .map(|p| (p.url.as_str(), p.sign_in))
        .collect();
    assert_eq!(
        pages,
        [
            ("https://login.acme.test/signin?next=/account", true),
            ("", false),
            ("https://www.acme.test/account/cancel", false),
            ("https://www.acme.test/account/cancel/done", false),
        ]
    );
    let steps: Vec<(Action, &str, usize, bool)> = walk
        .steps
        .iter()
        .map(|s| (s.action, s.name.as_str(), s.page, s.approved))
        .collect();
    // The failed first click is no step; the second is.
    assert_eq!(
        steps,
        [
            (Action::Click, "Cancel plan", 1, false),
            (Action::Fill, "Password", 2, false),
            (Action::Fill, "Why?", 2, false),
            (Action::Click, "Finish", 2, true),
        ]
    );
    let commit = walk.commit.as_ref().unwrap();
    assert_eq!(commit.method, "POST");
    assert_eq!(path_glob(&commit.url), "*/api/v2/subscriptions/*/cancel*");

    let mut walk = walk;
    walk.confirmation = "URL: x\nTitle: y\n\nYour plan is cancelled.\n".into();
    let files = draft(&walk, "acme", "run", &[]).unwrap();
    let text = &files[0].1;
    let file = subterminator_declarative::parse(text).unwrap();
    // The password field is never a step; the typed answer is a placeholder.
    let names: Vec<&str> = file
        .plan
        .iter()
        .map(|s| s.targets[0].name[0].as_str())
        .collect();
    assert_eq!(names, ["cancel plan", "why?", "finish"]);
    assert_eq!(
        file.plan[1].targets[0].value.as_deref(),
        Some(FILL_PLACEHOLDER)
    );
    assert!(
        !text.contains("hunter2") && !text.contains("Alex"),
        "{text}"
    );
    assert_eq!(file.service.login_url_patterns, ["*/signin*"]);
    assert_eq!(file.auth.len(), 1);
    assert_eq!(
        file.service.allowed_origins,
        ["https://www.acme.test", "https://login.acme.test"]
    );
    // The confirmation's words are the success rule's.
    assert_eq!(
        file.success[0].when.content.as_deref(),
        Some(&["your plan is cancelled".to_owned()][..])
    );
    // The sign-in page's fixture expects a sign-in wall.
    let sign_in_fixture = files
        .iter()
        .find(|(path, _)| path.ends_with("01-sign-in.toml"))
        .unwrap();
    assert!(sign_in_fixture.1.contains("auth = \"login-required\""));
}

#[test]
fn a_run_with_no_approved_step_is_refused() {
    let moments = vec![
        started(),
        tree("- button \"Cancel\" [ref=e1]\n"),
        call(1, "browser_click", "button \"Cancel\"", json!({})),
        result(1, true, "https://www.acme.test/done"),
    ];
    let error = Walk::from_moments(&moments).unwrap_err().to_string();
    assert!(error.contains("no step a person approved"), "{error}");
}

#[test]
fn targets_split_into_role_and_name() {
    let cases = [
        (
            "button \"Cancel Membership\"",
            Some(("button", "Cancel Membership")),
        ),
        (
            "link \"Say \"no\" to offers\"",
            Some(("link", "Say \"no\" to offers")),
        ),
        ("combobox \"Reason\"", Some(("combobox", "Reason"))),
        ("button", None),
        ("button \"\"", None),
        ("\"Cancel\"", None),
        ("e12", None),
    ];
    for (target, want) in cases {
        let got = split_target(target);
        assert_eq!(
            got.as_ref().map(|(r, n)| (r.as_str(), n.as_str())),
            want,
            "{target}"
        );
    }
}

#[test]
fn request_urls_become_globs_with_ids_and_tokens_wildcarded() {
    let cases = [
        (
            "http://127.0.0.1:45913/account/subscription/cancel/complete",
            "*/account/subscription/cancel/complete*",
        ),
        (
            "https://x.test/api/members/123456/cancel?csrf=deadbeef",
            "*/api/members/*/cancel*",
        ),
        ("https://x.test/", "*x.test*"),
        ("https://x.test/a/1", "*x.test/a/**"),
    ];
    for (url, want) in cases {
        assert_eq!(path_glob(url), want, "{url}");
    }
}
