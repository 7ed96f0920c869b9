//! The browser layer against the real Playwright MCP server and Debian's
//! Chromium, on pages served from 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use subterminator_core::ErrorClass;
use subterminator_core::browser::procfs::{is_alive, members_of_group};
use subterminator_core::browser::{
    Browser, BrowserError, BrowserOptions, ProcessInfo, REQUIRED_TOOLS, SHUTDOWN_TIMEOUT, UserData,
};
use subterminator_core::page::Snapshot;
use subterminator_tests::e2e;
use subterminator_tests::site::{Site, site_dir};

const CHROMIUM: &str = "/usr/bin/chromium";

/// One browser at a time: the machine has two cores, and timings matter.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn options(run: &Path, user_data: UserData) -> BrowserOptions {
    BrowserOptions {
        headless: true,
        executable_path: Some(PathBuf::from(CHROMIUM)),
        ..BrowserOptions::new(user_data, run.join("browser"))
    }
}

async fn start(run: &Path) -> Browser {
    Browser::start(options(run, UserData::Isolated))
        .await
        .unwrap()
}

fn find<'a>(snap: &'a Snapshot, role: &str, name: &str) -> &'a subterminator_core::page::Element {
    snap.elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", snap.content))
}

fn reference(snap: &Snapshot, role: &str, name: &str) -> String {
    find(snap, role, name).reference.clone().unwrap()
}

/// Fails if any process of the session still runs.
fn assert_all_gone(info: &ProcessInfo) {
    assert!(
        info.pids.len() >= 2,
        "expected the server and the browser: {info:?}"
    );
    let alive: Vec<i32> = info.pids.iter().copied().filter(|p| is_alive(*p)).collect();
    assert!(alive.is_empty(), "still running: {alive:?} of {info:?}");
    for group in &info.groups {
        let members = members_of_group(*group);
        assert!(members.is_empty(), "group {group} still has {members:?}");
    }
}

fn command_name(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .unwrap_or_default()
        .trim()
        .to_owned()
}

#[tokio::test]
async fn tools_are_listed_and_the_required_ones_present() {
    let _one = ONE_AT_A_TIME.lock().await;
    let run = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let browser = start(run.path()).await;
    let connect = started.elapsed();
    assert!(connect < Duration::from_secs(10), "{connect:?}");
    let names: Vec<&str> = browser.tools().iter().map(|t| t.name.as_str()).collect();
    for required in REQUIRED_TOOLS {
        assert!(names.contains(required), "{required} in {names:?}");
    }
    let click = browser
        .tools()
        .iter()
        .find(|t| t.name == "browser_click")
        .unwrap();
    assert_eq!(click.input_schema["required"][0], "target");
    // Either npx with the pinned release, or node running that release's
    // cli.js from npm's cache (checked pinned by its package.json).
    let line = browser.command_line();
    assert!(
        line.contains("@playwright/mcp@0.0.83") || line.contains("@playwright/mcp/cli.js"),
        "{line}"
    );
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn navigate_snapshot_and_act_by_ref() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;

    let nav = browser.navigate(&site.url("/")).await.unwrap();
    assert_eq!(nav.page_url.as_deref(), Some(site.url("/").as_str()));
    assert_eq!(nav.page_title.as_deref(), Some("StreamFlix - Account"));
    // The action's tree comes through the linked file.
    assert!(nav.snapshot.is_some(), "{}", nav.text);

    let snap = browser.snapshot().await.unwrap();
    assert_eq!(snap.title, "StreamFlix - Account");
    assert_eq!(
        find(&snap, "heading", "Your StreamFlix Account").level,
        Some(1)
    );
    assert_eq!(
        find(&snap, "combobox", "Change plan").value.as_deref(),
        Some("Premium")
    );

    let email = reference(&snap, "textbox", "Email");
    browser
        .type_text(&email, "user@example.com", false)
        .await
        .unwrap();
    let plan = reference(&snap, "combobox", "Change plan");
    let selected = browser.select_option(&plan, &["standard"]).await.unwrap();
    let after = selected.snapshot.expect("select returns the page");
    assert!(
        after.content.contains("Selected plan: standard"),
        "{}",
        after.content
    );
    assert_eq!(
        find(&after, "textbox", "Email").value.as_deref(),
        Some("user@example.com")
    );
    assert_eq!(
        find(&after, "combobox", "Change plan").value.as_deref(),
        Some("Standard")
    );

    let cancel = reference(&snap, "button", "Cancel Membership");
    let clicked = browser.click(&cancel).await.unwrap();
    let retention = clicked.snapshot.expect("click returns the page");
    assert_eq!(retention.url, site.url("/retention.html"));
    assert_eq!(retention.title, "StreamFlix - Before you go");
    find(&retention, "button", "Finish Cancellation");

    // The site saw the navigation, and never the final step.
    assert!(site.was_requested("/retention.html"));
    assert!(!site.was_requested("/cancelled.html"));
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_stale_ref_is_a_tool_error() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();
    let old = browser.snapshot().await.unwrap();
    let cancel = reference(&old, "button", "Cancel Membership");
    browser
        .navigate(&site.url("/cancelled.html"))
        .await
        .unwrap();
    browser.snapshot().await.unwrap();

    let err = browser.click(&cancel).await.unwrap_err();
    assert!(err.is_stale_ref(), "{err}");
    assert_eq!(err.class(), ErrorClass::Failure);
    assert!(
        matches!(&err, BrowserError::Tool { tool, .. } if tool == "browser_click"),
        "{err:?}"
    );
    assert!(!err.to_string().contains('\u{1b}'));
    // The session is still usable afterwards.
    assert_eq!(
        browser.snapshot().await.unwrap().title,
        "StreamFlix - Cancelled"
    );
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn clicking_a_disabled_button_times_out_in_the_server_not_here() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/disabled.html")).await.unwrap();
    let snap = browser.snapshot().await.unwrap();
    let locked = find(&snap, "button", "Locked");
    assert!(locked.has_state("disabled"), "{locked:?}");
    let err = browser
        .click(locked.reference.as_deref().unwrap())
        .await
        .unwrap_err();
    assert_eq!(err.class(), ErrorClass::Failure, "{err}");
    assert!(err.to_string().contains("not enabled"), "{err}");
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn screenshot_is_a_png_file_in_the_run_folder() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();

    let wanted = run.path().join("screenshots/step-1.png");
    let saved = browser.screenshot(&wanted).await.unwrap();
    assert_eq!(saved, wanted);
    let bytes = std::fs::read(&saved).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert!(bytes.len() > 1000, "{} bytes", bytes.len());

    let relative = browser.screenshot(Path::new("second.png")).await.unwrap();
    assert_eq!(relative, run.path().join("browser/second.png"));
    assert!(relative.exists());
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_page_without_title_is_reported_not_guessed() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let nav = browser.navigate(&site.url("/notitle.html")).await.unwrap();
    assert_eq!(
        nav.page_url.as_deref(),
        Some(site.url("/notitle.html").as_str())
    );
    // Playwright MCP leaves the `- Page Title:` line out for an untitled
    // page; a snapshot needs a title, so its absence is a validation error.
    match browser.snapshot().await {
        Err(BrowserError::SnapshotValidation { missing, present }) => {
            assert_eq!(missing, ["the page title"]);
            // The server adds `### Events` when the page logged to the
            // console (a favicon 404, say); that varies from run to run.
            for section in ["Page", "Snapshot"] {
                assert!(present.iter().any(|p| p == section), "{present:?}");
            }
        }
        other => panic!("{other:?}"),
    }
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_cookie_survives_into_the_next_session_on_the_same_profile() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let profile = run.path().join("profile");

    let first = Browser::start(options(
        &run.path().join("run1"),
        UserData::Persistent(profile.clone()),
    ))
    .await
    .unwrap();
    first.navigate(&site.url("/storage.html")).await.unwrap();
    let snap = first.snapshot().await.unwrap();
    assert!(snap.content.contains("cookie=[]"), "{}", snap.content);
    let remember = reference(&snap, "button", "Remember me");
    let after = first.click(&remember).await.unwrap().snapshot.unwrap();
    assert!(after.content.contains("persist=yes"), "{}", after.content);
    first.shutdown().await.unwrap();

    let second = Browser::start(options(
        &run.path().join("run2"),
        UserData::Persistent(profile),
    ))
    .await
    .unwrap();
    second.navigate(&site.url("/storage.html")).await.unwrap();
    let snap = second.snapshot().await.unwrap();
    assert!(
        snap.content.contains("cookie=[persist=yes]"),
        "{}",
        snap.content
    );
    second.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_profile_in_use_is_a_clear_error() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let profile = run.path().join("profile");
    let holder = Browser::start(options(
        &run.path().join("run1"),
        UserData::Persistent(profile.clone()),
    ))
    .await
    .unwrap();
    holder.navigate(&site.url("/")).await.unwrap();

    let started = Instant::now();
    let err = Browser::start(options(
        &run.path().join("run2"),
        UserData::Persistent(profile.clone()),
    ))
    .await
    .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(err, BrowserError::ProfileInUse { .. }), "{err:?}");
    assert_eq!(err.class(), ErrorClass::Configuration);
    assert!(
        err.to_string().contains(&profile.display().to_string()),
        "{err}"
    );
    holder.shutdown().await.unwrap();
}

#[tokio::test]
async fn shutdown_is_quick_and_leaves_no_process() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();
    let info = browser.processes().await;
    let names: Vec<String> = info.pids.iter().map(|p| command_name(*p)).collect();
    assert!(
        names
            .iter()
            .any(|n| n.contains("node") || n.contains("npm")),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.contains("chrom")), "{names:?}");
    // Chromium is started detached, in a group of its own.
    assert!(info.groups.len() >= 2, "{info:?}");

    let started = Instant::now();
    browser.shutdown().await.unwrap();
    let took = started.elapsed();
    assert!(took < SHUTDOWN_TIMEOUT, "{took:?}");
    assert_all_gone(&info);
}

#[tokio::test]
async fn dropping_without_shutdown_kills_everything() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();
    let info = browser.processes().await;
    drop(browser);
    // SIGKILL is immediate, but the kernel needs a moment to tear down.
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline && info.pids.iter().any(|p| is_alive(*p)) {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_all_gone(&info);
}

#[tokio::test]
async fn chromium_runs_with_the_quiet_network_switches() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();
    let info = browser.processes().await;
    let command_lines: Vec<String> = info
        .pids
        .iter()
        .map(|p| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .unwrap_or_default()
                .replace('\0', " ")
        })
        .collect();
    let browser_line = command_lines
        .iter()
        // The browser process, not a renderer, which carries the switch too.
        .find(|l| l.contains("--remote-debugging-pipe") && !l.contains("--type="))
        .unwrap_or_else(|| panic!("no browser in {command_lines:#?}"));
    for flag in [
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--no-sandbox",
        "--headless",
    ] {
        assert!(
            browser_line.contains(flag),
            "{flag} missing from {browser_line}"
        );
    }
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn reconnects_once_when_the_server_dies() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();

    let kill = |info: &ProcessInfo| {
        for group in &info.groups {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(*group),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    };
    let first = browser.processes().await;
    kill(&first);
    let left = e2e::still_alive(
        first.pids.iter().filter_map(|p| u32::try_from(*p).ok()),
        Duration::from_secs(2),
    )
    .await;
    assert!(left.is_empty(), "killed, yet alive: {left:?}");
    // Navigate is safe to repeat: it goes through on the new server.
    let nav = browser
        .navigate(&site.url("/cancelled.html"))
        .await
        .unwrap();
    assert_eq!(nav.page_title.as_deref(), Some("StreamFlix - Cancelled"));
    let second = browser.processes().await;
    assert_ne!(first.server_pid, second.server_pid);
    assert_all_gone(&first);

    kill(&second);
    let left = e2e::still_alive(
        second.pids.iter().filter_map(|p| u32::try_from(*p).ok()),
        Duration::from_secs(2),
    )
    .await;
    assert!(left.is_empty(), "killed, yet alive: {left:?}");
    let err = browser.snapshot().await.unwrap_err();
    assert!(
        matches!(
            err,
            BrowserError::ConnectionLost {
                reconnected: false,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Connection);
    browser.shutdown().await.unwrap();
    assert_all_gone(&second);
}

#[tokio::test]
async fn a_wrong_browser_path_is_a_clear_error() {
    let _one = ONE_AT_A_TIME.lock().await;
    let run = tempfile::tempdir().unwrap();

    // Caught before anything starts.
    let mut opts = options(run.path(), UserData::Isolated);
    opts.executable_path = Some(PathBuf::from("/nonexistent/chromium"));
    let err = Browser::start(opts).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::Configuration);
    let message = err.to_string();
    assert!(
        message.contains("/nonexistent/chromium") && message.contains("does not exist"),
        "{message}"
    );

    // A file that runs but is no browser: the server's launch error, on the
    // first call, as a configuration error naming the path.
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let mut opts = options(run.path(), UserData::Isolated);
    opts.executable_path = Some(PathBuf::from("/bin/false"));
    let browser = Browser::start(opts).await.unwrap();
    let err = browser.navigate(&site.url("/")).await.unwrap_err();
    assert!(matches!(err, BrowserError::BrowserLaunch { .. }), "{err:?}");
    assert_eq!(err.class(), ErrorClass::Configuration);
    assert!(err.to_string().contains("/bin/false"), "{err}");
    assert!(err.to_string().len() < 800, "{err}");
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_command_that_is_not_the_server_is_a_connection_error() {
    let _one = ONE_AT_A_TIME.lock().await;
    let run = tempfile::tempdir().unwrap();
    let mut opts = options(run.path(), UserData::Isolated);
    opts.command = Some(vec!["false".to_owned()]);
    let err = Browser::start(opts).await.unwrap_err();
    assert_eq!(err.class(), ErrorClass::Connection, "{err}");
    assert!(
        err.to_string()
            .starts_with("Failed to connect to Playwright MCP. Ensure Node.js is installed and run: npx @playwright/mcp@0.0.83"),
        "{err}"
    );
}

/// The bench's one browser (issue 43): runs attached to one Chromium each
/// get a context of their own, so what one run leaves on a site (a cookie,
/// local storage) is not there for another, whether that one runs beside
/// it or after it, on the very same origin.
#[tokio::test(flavor = "multi_thread")]
async fn runs_sharing_one_browser_share_no_state() {
    use subterminator_core::browser::{Attach, SharedChromium, tools::EVALUATE};

    let _one = ONE_AT_A_TIME.lock().await;
    let pages = tempfile::tempdir().unwrap();
    std::fs::write(pages.path().join("index.html"), "<p>account</p>").unwrap();
    let site = subterminator_tests::site::Site::serve(pages.path())
        .await
        .unwrap();
    let mut chromium = SharedChromium::start(Path::new(CHROMIUM), true, None).unwrap();
    let attach = Attach::parse(&chromium.endpoint(), None).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let run = |name: &str| BrowserOptions {
        attach: Some(attach.clone()),
        ..options(&runs.path().join(name), UserData::Isolated)
    };
    let url = site.url("/index.html");
    let first = Browser::start(run("first")).await.unwrap();
    first.navigate(&url).await.unwrap();
    let set = first
        .call(
            EVALUATE,
            serde_json::json!({ "function": "() => { document.cookie = 'left=behind; max-age=3600'; localStorage.setItem('left', 'behind'); return document.cookie + '|' + localStorage.getItem('left'); }" }),
        )
        .await
        .unwrap();
    assert!(
        set.result
            .as_deref()
            .unwrap_or_default()
            .contains("left=behind|behind"),
        "{set:?}"
    );
    // Its own state is still there for itself.
    assert!(seen(&first, &url).await.contains("left=behind|behind"));

    // Beside it: nothing of it.
    let beside = Browser::start(run("beside")).await.unwrap();
    let state = seen(&beside, &url).await;
    assert!(
        state.contains("|null") && !state.contains("left"),
        "{state}"
    );
    beside.shutdown().await.unwrap();
    first.shutdown().await.unwrap();

    // After it: nothing either, and the browser runs on for the next.
    assert!(chromium.running());
    let after = Browser::start(run("after")).await.unwrap();
    let state = seen(&after, &url).await;
    assert!(
        state.contains("|null") && !state.contains("left"),
        "{state}"
    );
    after.shutdown().await.unwrap();
    assert!(chromium.running());
}

/// What `browser` finds at `url`: its cookies and the `left` item of its
/// local storage.
async fn seen(browser: &Browser, url: &str) -> String {
    browser.navigate(url).await.unwrap();
    let look = "() => document.cookie + '|' + localStorage.getItem('left')";
    let out = browser
        .call(
            subterminator_core::browser::tools::EVALUATE,
            serde_json::json!({ "function": look }),
        )
        .await
        .unwrap();
    out.result.unwrap_or_default()
}

/// CancelBench's runs are sessions of one Playwright MCP server per job
/// (`ServedPlaywright`): what one run leaves (a cookie, local storage, the
/// network guard opened for a yes, a page) is not there for the next on
/// the same server, and its page is closed when its session ends, so a
/// timer on it cannot send anything later.
#[tokio::test(flavor = "multi_thread")]
async fn runs_on_one_served_server_share_no_state() {
    use subterminator_core::browser::guard::{GuardMode, GuardRules, NetworkGuard};
    use subterminator_core::browser::{Attach, ServedPlaywright, SharedChromium};

    let _one = ONE_AT_A_TIME.lock().await;
    let pages = tempfile::tempdir().unwrap();
    std::fs::write(
        pages.path().join("index.html"),
        "<title>Account</title><p>account</p>",
    )
    .unwrap();
    let site = Site::serve(pages.path()).await.unwrap();
    let mut chromium = SharedChromium::start(Path::new(CHROMIUM), true, None).unwrap();
    let attach = Attach::parse(&chromium.endpoint(), None).unwrap();
    let server = ServedPlaywright::start(&attach).await.unwrap();
    let runs = tempfile::tempdir().unwrap();
    let run = |name: &str| BrowserOptions {
        attach: Some(attach.clone()),
        served: Some(server.served().clone()),
        ..options(&runs.path().join(name), UserData::Isolated)
    };
    let url = site.url("/index.html");
    // What the guard's state is in the session's context, and how many
    // pages the context has.
    let guard_and_pages = async |browser: &Browser| {
        let code = "async (page) => { const g = page.context().__subterminatorGuard; return JSON.stringify({ guard: g ? JSON.stringify(g.mode || g.state || 'set') : null, pages: page.context().pages().length }); }";
        let out = browser
            .call(
                subterminator_core::browser::thrown::RUN_CODE,
                serde_json::json!({ "code": code }),
            )
            .await
            .unwrap();
        out.result.unwrap_or_default()
    };

    let first = Browser::start(run("first")).await.unwrap();
    first.navigate(&url).await.unwrap();
    first.snapshot().await.unwrap();
    // The page trees the server saved are the run's, in its own folder
    // (the receipt's audit reads them there), not the server's.
    let trees = |dir: &Path| {
        std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_string_lossy().ends_with(".yml"))
                    .count()
            })
            .unwrap_or(0)
    };
    assert!(trees(&runs.path().join("first").join("browser")) > 0);
    assert_eq!(trees(&server.served().dir), 0);
    let guard = NetworkGuard::install(&first, &GuardRules::default())
        .await
        .unwrap();
    guard
        .set_mode(
            &first,
            GuardMode::Approved {
                turn: 1,
                commits: true,
            },
        )
        .await
        .unwrap();
    let left = guard_and_pages(&first).await;
    assert!(!left.contains(r#"\"guard\":null"#), "{left}");
    first
        .call(
            subterminator_core::browser::tools::EVALUATE,
            serde_json::json!({ "function": "() => { document.cookie = 'left=behind; max-age=3600'; localStorage.setItem('left', 'behind'); }" }),
        )
        .await
        .unwrap();
    assert!(seen(&first, &url).await.contains("left=behind|behind"));
    first.shutdown().await.unwrap();

    // Its page is gone from the browser once its session ended.
    subterminator_core::tls::ready();
    let started = Instant::now();
    let listed = loop {
        let listed = reqwest::get(format!("{}/json/list", chromium.endpoint()))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if !listed.contains(&url) || started.elapsed() > Duration::from_secs(10) {
            break listed;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!listed.contains(&url), "{listed}");

    // The next session on the same server: nothing of the first.
    let next = Browser::start(run("next")).await.unwrap();
    let state = seen(&next, &url).await;
    assert!(
        state.contains("|null") && !state.contains("left"),
        "{state}"
    );
    let fresh = guard_and_pages(&next).await;
    assert!(
        fresh.contains(r#"\"guard\":null"#) && fresh.contains(r#"\"pages\":1"#),
        "{fresh}"
    );
    assert_eq!(
        next.processes().await,
        ProcessInfo::default(),
        "not its server"
    );
    next.shutdown().await.unwrap();
    assert!(chromium.running());
    assert!(is_alive(server.pid()), "the server serves the next run");
    server.stop().await;
}

/// Escape test for the served server (`ServedPlaywright`): it listens on a
/// loopback port the pages in its browser can reach, and its
/// `browser_run_code_unsafe` runs code in Node.js beside the network guard.
/// A page that knows the port (it could scan for it) tries every way a page
/// has to send to it (a POST whose content type only says JSON, as a fetch,
/// a beacon and a batch; a JSON POST, which needs a preflight; the legacy
/// SSE stream), with no guard to stop any of it: nothing it sends runs.
/// The control: the same call sent as an MCP client sends it runs, so the
/// payload would show if it ever got through.
#[tokio::test(flavor = "multi_thread")]
async fn a_page_cannot_drive_the_served_server() {
    use subterminator_core::browser::{Attach, ServedPlaywright, SharedChromium};

    let _one = ONE_AT_A_TIME.lock().await;
    let pages = tempfile::tempdir().unwrap();
    std::fs::write(
        pages.path().join("index.html"),
        r#"<title>Account</title><p id="state">trying</p>
<script>
const q = new URLSearchParams(location.search);
const port = q.get('port');
const call = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'browser_run_code_unsafe',
  arguments: { code: "async (page) => { await page.goto('" + location.origin + "/pwned'); }" } } });
const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18',
  capabilities: {}, clientInfo: { name: 'page', version: '1' } } };
const simple = { 'Content-Type': 'text/plain;x=application/json', 'Accept': 'application/json, text/event-stream' };
const quietly = (p) => p.then(() => {}, () => {});
(async () => {
  for (const host of ['localhost', '127.0.0.1', '[::1]']) {
    const base = 'http://' + host + ':' + port;
    for (const body of [init, [init, call(2)], call(3), [call(4)]]) {
      await quietly(fetch(base + '/mcp', { method: 'POST', mode: 'no-cors', headers: simple, body: JSON.stringify(body) }));
    }
    await quietly(fetch(base + '/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json',
      'Accept': 'application/json, text/event-stream' }, body: JSON.stringify(init) }));
    navigator.sendBeacon(base + '/mcp', new Blob([JSON.stringify(call(5))], { type: 'text/plain;x=application/json' }));
    try { new EventSource(base + '/sse'); } catch (e) {}
    await quietly(fetch(base + '/sse', { mode: 'no-cors' }));
    await quietly(fetch(base + '/messages?sessionId=x', { method: 'POST', mode: 'no-cors', headers: simple, body: JSON.stringify(call(6)) }));
  }
  document.getElementById('state').textContent = 'tried';
})();
</script>"#,
    )
    .unwrap();
    let site = Site::serve(pages.path()).await.unwrap();
    let _chromium = SharedChromium::start(Path::new(CHROMIUM), true, None).unwrap();
    let attach = Attach::parse(&_chromium.endpoint(), None).unwrap();
    let server = ServedPlaywright::start(&attach).await.unwrap();
    let port = server
        .served()
        .url
        .trim_start_matches("http://localhost:")
        .trim_end_matches("/mcp")
        .to_owned();
    let runs = tempfile::tempdir().unwrap();
    let run = Browser::start(BrowserOptions {
        attach: Some(attach.clone()),
        served: Some(server.served().clone()),
        ..options(runs.path(), UserData::Isolated)
    })
    .await
    .unwrap();
    run.navigate(&site.url(&format!("/index.html?port={port}")))
        .await
        .unwrap();
    let started = Instant::now();
    while !run.snapshot().await.unwrap().content.contains("tried") {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the page never finished"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Time for anything that got through to arrive.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(!site.was_requested("/pwned"), "a page drove the server");
    // The page's posts do leave the browser (pointed at the site itself,
    // they arrive): what stops them is the server.
    let own_port = site.addr().port();
    run.navigate(&site.url(&format!("/index.html?port={own_port}")))
        .await
        .unwrap();
    let started = Instant::now();
    while !site
        .requests()
        .iter()
        .any(|r| r.method == "POST" && r.path() == "/mcp")
    {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no post left the page"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    run.shutdown().await.unwrap();

    // The control: the same call from an MCP client runs.
    let control = Browser::start(BrowserOptions {
        attach: Some(attach.clone()),
        served: Some(server.served().clone()),
        ..options(&runs.path().join("control"), UserData::Isolated)
    })
    .await
    .unwrap();
    let code = format!(
        "async (page) => {{ await page.goto('{}'); }}",
        site.url("/pwned")
    );
    let _ = control
        .call(
            subterminator_core::browser::thrown::RUN_CODE,
            serde_json::json!({ "code": code }),
        )
        .await;
    assert!(
        site.was_requested("/pwned"),
        "the control's call did not run"
    );
    control.shutdown().await.unwrap();
    server.stop().await;
}

/// The escape test for the element's facts: a page that redefines, for its
/// own scripts, every getter the facts read (`innerText`, a form's `action`
/// and `method`, a button's `form`, `closest`, a link's `href`, the focused
/// element) cannot change what the host reads, because the host reads in
/// Playwright's isolated world. The control: in the page's own world the
/// lies are in force.
#[tokio::test]
async fn a_page_that_redefines_the_dom_cannot_change_the_facts() {
    use subterminator_core::browser::facts;
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser
        .navigate(&site.url("/lying-dom.html"))
        .await
        .unwrap();

    let in_page = browser
        .call(
            "browser_evaluate",
            serde_json::json!({ "function": "() => [document.querySelector('#finish').innerText, document.querySelector('form').action, String(document.querySelector('#finish').form), document.activeElement === document.body].join('|')" }),
        )
        .await
        .unwrap();
    let lies = in_page.result.unwrap_or_default();
    assert!(
        lies.contains("Go back|") && lies.contains("/index.html|null|true"),
        "{lies}"
    );

    let snap = browser.snapshot().await.unwrap();
    let button = reference(&snap, "button", "Finish Cancellation");
    let read = facts::of_element(&browser, &button, "the button")
        .await
        .unwrap();
    assert_eq!(read.visible_text, "Finish Cancellation", "{read:?}");
    assert_eq!(read.tag, "button");
    assert_eq!(read.form_method.as_deref(), Some("post"), "{read:?}");
    assert_eq!(read.form_action, Some(site.url("/api/cancel")), "{read:?}");

    let link = reference(&snap, "link", "End membership");
    let read = facts::of_element(&browser, &link, "the link")
        .await
        .unwrap();
    assert_eq!(read.visible_text, "End membership", "{read:?}");
    assert_eq!(
        read.href,
        Some(site.url("/commit.html?plan=premium")),
        "{read:?}"
    );

    let field = reference(&snap, "textbox", "Reason");
    browser
        .call("browser_click", serde_json::json!({ "target": field }))
        .await
        .unwrap();
    let focused = facts::of_focused(&browser).await.unwrap();
    let focused = focused.expect("the field has the focus, whatever the page says");
    assert_eq!(
        (focused.tag.as_str(), focused.visible_text.as_str()),
        ("input", "Too expensive")
    );
    browser.shutdown().await.unwrap();
}

/// The escape test for what the host sees of a page: a page that hides its
/// "cancelled" lines (not displayed, transparent, off the page) and, for
/// its own scripts, redefines `getComputedStyle`, `getBoundingClientRect`
/// and `closest` to call them shown still has them read as hidden, because
/// the host reads in Playwright's isolated world. The control: in the page's
/// world the hidden line measures as shown.
#[tokio::test]
async fn a_page_that_redefines_styles_cannot_show_what_it_hides() {
    use subterminator_core::browser::sight;
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("basic")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser
        .navigate(&site.url("/lying-sight.html"))
        .await
        .unwrap();

    let in_page = browser
        .call(
            "browser_evaluate",
            serde_json::json!({ "function": "() => getComputedStyle(document.querySelector('#done')).display + '|' + document.querySelector('#done').getBoundingClientRect().width" }),
        )
        .await
        .unwrap();
    let lies = in_page.result.unwrap_or_default();
    assert!(lies.contains("block|390"), "{lies}");

    let seen = sight::visible(&browser).await.unwrap();
    assert!(seen.text.contains("Your membership is active"), "{seen:?}");
    for hidden in [
        "has been cancelled",
        "Cancellation confirmed",
        "not be charged",
        "Membership cancelled",
    ] {
        assert!(
            !seen.text.contains(hidden),
            "{hidden:?} read as seen: {seen:?}"
        );
    }
    assert_eq!(seen.lang, "en");
    browser.shutdown().await.unwrap();
}
