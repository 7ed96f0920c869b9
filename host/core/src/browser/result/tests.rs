#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use super::*;
use crate::exit::ErrorClass;

/// The raw outputs recorded from the real server.
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/playwright-mcp-0.0.83")
}

/// The first text item of a recorded JSON-RPC response, and its isError flag.
fn fixture(name: &str) -> (String, bool) {
    let raw = std::fs::read_to_string(fixtures().join(name))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    let value: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let result = &value["result"];
    let text = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    (text, result["isError"].as_bool().unwrap_or(false))
}

/// The snapshot files are recorded under `snapshots/` while results link to
/// `out/…`: a base directory where `out` is that folder. A fresh one each
/// time: a folder named by the process id could be an earlier process's
/// with the same id, its link dangling into a checkout since removed.
fn base_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(fixtures().join("snapshots"), dir.path().join("out")).unwrap();
    dir
}

#[test]
fn strip_ansi_removes_colour_codes_only() {
    let cases = [
        ("plain", "plain"),
        ("\u{1b}[2m  - waiting\u{1b}[22m\n", "  - waiting\n"),
        ("\u{1b}[31;1mred\u{1b}[0m ok", "red ok"),
        ("\u{1b}]0;title\u{7}after", "after"),
        ("× é \u{2192}", "× é \u{2192}"),
        ("trailing \u{1b}", "trailing "),
    ];
    for (input, want) in cases {
        assert_eq!(strip_ansi(input), want, "input {input:?}");
    }
}

#[test]
fn sections_split_on_headings_outside_code() {
    let (text, _) = fixture("01_navigate.json");
    let headings: Vec<_> = sections(&text).iter().map(|s| s.heading).collect();
    assert_eq!(
        headings,
        ["Ran Playwright code", "Page", "Snapshot", "Events"]
    );
    let fenced = "### Result\nx\n```js\n### not a heading\n```\n### Page\n- Page URL: a";
    let headings: Vec<_> = sections(fenced).iter().map(|s| s.heading).collect();
    assert_eq!(headings, ["Result", "Page"]);
}

/// Every successful result in the folder: what `parse_result` must find.
#[test]
fn every_successful_result_kind() {
    struct Case {
        file: &'static str,
        url: Option<&'static str>,
        title: Option<&'static str>,
        snapshot: bool,
        result: bool,
        files: usize,
    }
    let case = |file, url, title, snapshot, result, files| Case {
        file,
        url,
        title,
        snapshot,
        result,
        files,
    };
    let account = Some("http://127.0.0.1:8765/");
    let account_title = Some("StreamFlix - Account");
    let retention = Some("http://127.0.0.1:8765/retention.html");
    let retention_title = Some("StreamFlix - Before you go");
    let cases = [
        case("01_navigate.json", account, account_title, true, false, 0),
        case("02_snapshot.json", account, account_title, true, false, 0),
        case("03_type.json", None, None, false, false, 0),
        case(
            "03b_type_submit.json",
            account,
            account_title,
            true,
            false,
            0,
        ),
        case("04_select.json", account, account_title, true, false, 0),
        case("05_screenshot.json", None, None, false, true, 1),
        case("05b_screenshot_noscale.json", None, None, false, true, 1),
        case("05c_screenshot_named.json", None, None, false, true, 1),
        case(
            "06_click_cancel.json",
            retention,
            retention_title,
            true,
            false,
            0,
        ),
        case(
            "08_click_offer.json",
            retention,
            retention_title,
            true,
            false,
            0,
        ),
        case(
            "09_select_reason.json",
            retention,
            retention_title,
            true,
            false,
            0,
        ),
        case(
            "10_click_finish.json",
            Some("http://127.0.0.1:8765/cancelled.html?reason=price"),
            Some("StreamFlix - Cancelled"),
            true,
            false,
            0,
        ),
        case(
            "10b_snapshot_final.json",
            Some("http://127.0.0.1:8765/cancelled.html?reason=price"),
            Some("StreamFlix - Cancelled"),
            true,
            false,
            0,
        ),
        case(
            "11_click_by_selector.json",
            account,
            Some("StreamFlix - Account"),
            true,
            false,
            0,
        ),
        case("13c_snapshot_json_meta.json", None, None, false, false, 0),
        case("14_close.json", None, None, false, true, 0),
        case(
            "15_snapshot_after_close.json",
            Some("about:blank"),
            None,
            false,
            false,
            0,
        ),
        case(
            "16_navigate_after_close.json",
            Some("http://127.0.0.1:8765/cancelled.html"),
            Some("StreamFlix - Cancelled"),
            true,
            false,
            0,
        ),
        case(
            "step5_run1_read.json",
            Some("http://127.0.0.1:8765/storage.html"),
            Some("Storage test"),
            false,
            true,
            0,
        ),
        case("step5_run1_set.json", None, None, false, true, 0),
        case("step5_run2_read.json", None, None, false, true, 0),
        case(
            "step7_big_depth3.json",
            Some("http://127.0.0.1:8765/big.html"),
            Some("Big page"),
            true,
            false,
            0,
        ),
        case(
            "step7_big_snapshot.json",
            Some("http://127.0.0.1:8765/big.html"),
            Some("Big page"),
            true,
            false,
            0,
        ),
        case("step7_find.json", None, None, false, true, 0),
    ];
    let base = base_dir();
    let base = base.path();
    for c in cases {
        let (text, is_error) = fixture(c.file);
        assert!(!is_error, "{}", c.file);
        let out = parse_result(&text, Some(base));
        assert_eq!(out.page_url.as_deref(), c.url, "{}", c.file);
        assert_eq!(out.page_title.as_deref(), c.title, "{}", c.file);
        assert_eq!(out.snapshot.is_some(), c.snapshot, "{}", c.file);
        assert_eq!(out.result.is_some(), c.result, "{}", c.file);
        assert_eq!(out.files.len(), c.files, "{}", c.file);
        assert!(!out.text.contains('\u{1b}'), "{}", c.file);
        if let Some(snap) = &out.snapshot {
            assert_eq!(Some(snap.url.as_str()), c.url, "{}", c.file);
            assert!(!snap.elements.is_empty(), "{}", c.file);
            assert!(snap.content.starts_with("- "), "{}", c.file);
        }
    }
}

#[test]
fn inline_snapshot_of_the_account_page() {
    let (text, _) = fixture("02_snapshot.json");
    let snap = parse_snapshot(&text, None).unwrap();
    assert_eq!(snap.url, "http://127.0.0.1:8765/");
    assert_eq!(snap.title, "StreamFlix - Account");
    assert!(snap.content.starts_with("- generic [active] [ref=e1]:"));
    assert!(
        snap.content
            .ends_with("- button \"Cancel Membership\" [ref=e11]")
    );
    let button = snap.element("e11").unwrap();
    assert_eq!(
        (button.role.as_str(), button.name.as_str()),
        ("button", "Cancel Membership")
    );
    let link = snap.element("e10").unwrap();
    assert_eq!(link.url.as_deref(), Some("/retention.html"));
    let plan = snap.element("e9").unwrap();
    assert_eq!(plan.value.as_deref(), Some("Premium"));
}

#[test]
fn linked_snapshot_is_read_relative_to_the_base_dir() {
    let (text, _) = fixture("06_click_cancel.json");
    let base = base_dir();
    let out = parse_result(&text, Some(base.path()));
    let snap = out.snapshot.unwrap();
    assert_eq!(snap.title, "StreamFlix - Before you go");
    let offer = snap
        .elements
        .iter()
        .find(|e| e.name == "Get 50% off")
        .unwrap();
    assert_eq!(offer.reference.as_deref(), Some("f1e4"));
    // Without a base directory the relative link cannot be followed.
    assert!(parse_result(&text, None).snapshot.is_none());
}

#[test]
fn absolute_links_need_no_base_dir() {
    let file = fixtures().join("snapshots/page-2026-11-22T06-15-51-992Z.yml");
    let text = format!(
        "### Page\n- Page URL: http://x/\n- Page Title: T\n### Snapshot\n- [Snapshot]({})",
        file.display()
    );
    let snap = parse_snapshot(&text, None).unwrap();
    assert!(
        snap.elements
            .iter()
            .any(|e| e.name == "Finish Cancellation")
    );
}

#[test]
fn screenshot_links_resolve_against_the_base_dir() {
    let (text, _) = fixture("05_screenshot.json");
    let out = parse_result(&text, Some(Path::new("/run/browser")));
    assert_eq!(
        out.files,
        [PathBuf::from(
            "/run/browser/out/page-2026-11-22T06-15-51-166Z.png"
        )]
    );
    let (named, _) = fixture("05c_screenshot_named.json");
    let out = parse_result(&named, Some(Path::new("/run/browser")));
    assert_eq!(out.files, [PathBuf::from("/run/browser/./account.png")]);
}

/// What the validation error says for each incomplete page.
#[test]
fn snapshot_validation_names_what_is_missing_and_present() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        (
            "15_snapshot_after_close.json",
            &["the page title", "the accessibility tree"],
            &["Page", "Snapshot"],
        ),
        (
            "03_type.json",
            &["the page URL", "the page title", "the accessibility tree"],
            &["Ran Playwright code"],
        ),
        (
            "13c_snapshot_json_meta.json",
            &["the page URL", "the page title", "the accessibility tree"],
            &[],
        ),
        (
            "14_close.json",
            &["the page URL", "the page title", "the accessibility tree"],
            &["Result", "Ran Playwright code"],
        ),
    ];
    for (file, missing, present) in cases {
        let (text, _) = fixture(file);
        match parse_snapshot(&text, None) {
            Err(BrowserError::SnapshotValidation {
                missing: m,
                present: p,
            }) => {
                assert_eq!(&m, missing, "{file}");
                assert_eq!(&p, present, "{file}");
            }
            other => panic!("{file}: {other:?}"),
        }
    }
    let err = parse_snapshot("### Page\n- Page URL: about:blank", None).unwrap_err();
    assert_eq!(err.class(), ErrorClass::Failure);
    let message = err.to_string();
    assert!(
        message.contains("the page title") && message.contains("[Page]"),
        "{message}"
    );
}

/// Every error result in the folder: the class it maps to and what the
/// message keeps.
#[test]
fn every_error_kind() {
    let exe = Path::new("/usr/bin/chromium");
    let profile = Path::new("/data/browser-profile");
    let cases: &[(&str, ErrorClass, &str)] = &[
        (
            "07_click_bad_ref.json",
            ErrorClass::Failure,
            "Ref e999 not found in the current page snapshot",
        ),
        (
            "07b_click_stale_ref.json",
            ErrorClass::Failure,
            "Ref e11 not found",
        ),
        (
            "11b_click_selector_nomatch.json",
            ErrorClass::Failure,
            "does not match any elements",
        ),
        (
            "12_schema_violation.json",
            ErrorClass::Failure,
            "Invalid arguments for tool \"browser_click\"",
        ),
        (
            "13_unknown_tool.json",
            ErrorClass::Failure,
            "Tool \"browser_nope\" not found",
        ),
        (
            "13b_navigate_unreachable.json",
            ErrorClass::Failure,
            "net::ERR_UNSAFE_PORT",
        ),
        (
            "step9_click_disabled_timeout.json",
            ErrorClass::Failure,
            "element is not enabled",
        ),
        (
            "step9_nav_refused.json",
            ErrorClass::Failure,
            "net::ERR_CONNECTION_REFUSED",
        ),
        (
            "step5d_profile_in_use_error.json",
            ErrorClass::Configuration,
            "/data/browser-profile is already in use",
        ),
        (
            "step6_browser_chromium_no_exec_path.json",
            ErrorClass::Configuration,
            "is not installed",
        ),
        (
            "step6_chromium_without_no_sandbox.json",
            ErrorClass::Configuration,
            "Chromium sandboxing failed",
        ),
        (
            "step6_default_no_exec_path.json",
            ErrorClass::Configuration,
            "is not found at /opt/google/chrome/chrome",
        ),
        (
            "step6_exec_is_bin_false.json",
            ErrorClass::Configuration,
            "Target page, context or browser has been closed",
        ),
        (
            "step6_nonexistent_path.json",
            ErrorClass::Configuration,
            "executable doesn't exist at /nonexistent/chromium",
        ),
    ];
    for (file, class, needle) in cases {
        let (text, is_error) = fixture(file);
        assert!(is_error, "{file}");
        let err = classify_error("browser_click", &text, Some(exe), Some(profile));
        let message = err.to_string();
        assert_eq!(err.class(), *class, "{file}: {message}");
        assert!(message.contains(needle), "{file}: {message}");
        assert!(!message.contains('\u{1b}'), "{file}: {message}");
        assert!(!message.contains("### Error"), "{file}: {message}");
        assert!(
            message.len() < 1500,
            "{file}: the launch argv should be cut: {message}"
        );
    }
}

#[test]
fn stale_refs_are_recognised() {
    let (text, _) = fixture("07b_click_stale_ref.json");
    assert!(classify_error("browser_click", &text, None, None).is_stale_ref());
    let (text, _) = fixture("13_unknown_tool.json");
    assert!(!classify_error("browser_nope", &text, None, None).is_stale_ref());
}

#[test]
fn profile_in_use_without_a_configured_profile_names_the_servers_path() {
    let (text, _) = fixture("step5d_profile_in_use_error.json");
    match classify_error("browser_navigate", &text, None, None) {
        BrowserError::ProfileInUse { path } => {
            assert_eq!(path, PathBuf::from("/home/user/work/profile_lock"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn links_and_tree_sources() {
    assert_eq!(
        links("- [Snapshot](out/a.yml)\n- [x](y) [not a link"),
        [("Snapshot", "out/a.yml"), ("x", "y")]
    );
    assert_eq!(
        tree_source("- [Snapshot](out/page.yml)"),
        Some(TreeSource::Linked("out/page.yml"))
    );
    assert_eq!(
        tree_source("```yaml\n- button \"A\"\n```"),
        Some(TreeSource::Inline("- button \"A\""))
    );
    assert_eq!(tree_source("nothing"), None);
    assert_eq!(
        resolve_path("out/console.log#L1", Some(Path::new("/b"))),
        Some(PathBuf::from("/b/out/console.log"))
    );
}

#[test]
fn the_big_fixture_parses_completely() {
    let (text, _) = fixture("step7_big_snapshot.json");
    assert!(text.len() > 40_000);
    let snap = parse_snapshot(&text, None).unwrap();
    let links = snap.elements.iter().filter(|e| e.role == "link").count();
    let buttons = snap.elements.iter().filter(|e| e.role == "button").count();
    assert!(links >= 100, "{links} links");
    assert!(buttons >= 49, "{buttons} buttons");
    assert!(
        snap.elements
            .iter()
            .all(|e| e.role != "link" || e.url.is_some())
    );
}

#[test]
fn modal_states_become_dialogs() {
    let text = "### Modal state\n\
                - [\"confirm\" dialog with message \"Are you sure you want to cancel?\"]: can be handled by browser_handle_dialog\n\
                - [\"alert\" dialog with message \"Saved \\\"x\\\"\"]: can be handled by browser_handle_dialog\n\
                - [File chooser]: can be handled by browser_file_upload\n\
                \n### Page\n- Page URL: http://127.0.0.1/x\n";
    let out = parse_result(text, None);
    let kinds: Vec<(&str, &str)> = out
        .dialogs
        .iter()
        .map(|d| (d.kind.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("confirm", "Are you sure you want to cancel?"),
            ("alert", "Saved \\\"x\\\"")
        ]
    );
    assert!(
        parse_result("### Page\n- Page URL: http://x/\n", None)
            .dialogs
            .is_empty()
    );
}
