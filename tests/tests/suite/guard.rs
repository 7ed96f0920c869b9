//! The network guard against the real Playwright MCP server and Chromium: the
//! site's own request log proves what reached the server and what did not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use subterminator_core::browser::guard::{
    GuardMode, GuardRules, Harmless, HeldRequest, INITIAL_MODE, NetworkGuard, Taken,
};
use subterminator_core::browser::{Browser, BrowserOptions};
use subterminator_core::page::Snapshot;
use subterminator_tests::site::{Site, site_dir};

const CHROMIUM: &str = "/usr/bin/chromium";

/// One browser at a time: the machine has two cores, and timings matter.
pub(super) static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub(super) const GUARDED: GuardMode = INITIAL_MODE;

pub(super) async fn start(run: &Path) -> Browser {
    let opts = BrowserOptions {
        executable_path: Some(PathBuf::from(CHROMIUM)),
        ..BrowserOptions::headless_isolated(run.join("browser"))
    };
    Browser::start(opts).await.unwrap()
}

fn rules(site: &Site) -> GuardRules {
    GuardRules {
        origins: vec![site.base_url()],
        commit_requests: vec![("POST".into(), "*/api/cancel*".into())],
        commit_urls: vec!["*/commit.html?x".into()],
        commit_words: subterminator_core::safety::floor::url_commit_words(),
        reading: subterminator_core::safety::floor::request_words().pairs(),
        harmless: vec![Harmless {
            step: 0,
            method: "POST".into(),
            host: site.addr().to_string(),
            // A glob whose `*` could stand for a commit word.
            path: "/api/settings*".into(),
        }],
        sites: Vec::new(),
    }
}

pub(super) fn reference(snap: &Snapshot, role: &str, name: &str) -> String {
    snap.elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .and_then(|e| e.reference.clone())
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", snap.content))
}

/// Clicks by ref; the page it leaves behind.
pub(super) async fn click(browser: &Browser, target: &str) -> Snapshot {
    browser
        .call("browser_click", json!({ "target": target }))
        .await
        .unwrap();
    browser.snapshot().await.unwrap()
}

/// Clicks by ref where the guard holds the navigation: Playwright gives up
/// waiting for it (no failure of the test), and no snapshot can be taken
/// until the held request is decided.
pub(super) async fn click_held(browser: &Browser, target: &str) {
    if let Err(e) = browser
        .call("browser_click", json!({ "target": target }))
        .await
    {
        assert!(
            e.to_string().contains("waiting for scheduled navigations"),
            "{e}"
        );
    }
}

/// The site's log of requests for `path` (query ignored), as `METHOD target`.
pub(super) fn logged(site: &Site, path: &str) -> Vec<String> {
    site.requests()
        .iter()
        .filter(|r| r.path() == path)
        .map(|r| format!("{} {}", r.method, r.target))
        .collect()
}

/// Nothing held, stopped or released since the last call.
pub(super) fn quiet(taken: &Taken) {
    assert!(
        taken.held.is_empty() && taken.stopped.is_empty() && taken.released.is_empty(),
        "{taken:#?}"
    );
}

pub(super) fn one_held(taken: &Taken) -> &HeldRequest {
    assert_eq!(taken.held.len(), 1, "{taken:#?}");
    assert!(taken.stopped.is_empty(), "{taken:#?}");
    &taken.held[0]
}

/// What the guard saw, once it saw something (a beacon or a fetch may
/// leave after the click's settle time), or after a while.
pub(super) async fn taken(guard: &NetworkGuard, browser: &Browser) -> Taken {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let taken = guard.take(browser).await.unwrap();
        let empty = taken.held.is_empty() && taken.stopped.is_empty() && taken.released.is_empty();
        if !empty || Instant::now() >= deadline {
            return taken;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Each way the page offers to commit, clicked while guarded: each is held
/// in the browser (nothing reaches the server) and reported with why; a no
/// aborts it, and the page (with its refs) stays.
#[tokio::test]
async fn guarded_holds_every_way_to_commit_and_says_which() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    quiet(&guard.take(&browser).await.unwrap());

    // The form post: held as a form submission to the service.
    click_held(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        (
            h.method.as_str(),
            h.url.as_str(),
            h.why.as_str(),
            h.navigation,
            h.body.as_str()
        ),
        (
            "POST",
            site.url("/commit.html").as_str(),
            "a form submission to the service",
            true,
            "confirm=yes"
        )
    );
    assert!(guard.answer(&browser, h.id, false).await.unwrap());
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    assert_eq!(
        browser.snapshot().await.unwrap().url,
        site.url("/"),
        "the page stays"
    );

    // A GET link to the commit URL: the plugin's pattern holds it.
    click_held(&browser, &reference(&page, "link", "Commit link")).await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        (h.method.as_str(), h.url.as_str(), h.why.as_str()),
        (
            "GET",
            site.url("/commit.html?x").as_str(),
            "a request to the plugin's commit URL */commit.html?x"
        )
    );
    guard.answer(&browser, h.id, false).await.unwrap();
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());

    // The same commit URL behind a redirect from a harmless link: the first
    // hop reaches the site, the second is judged on its own and held; a no
    // leaves the page (and its refs) where it was.
    click_held(&browser, &reference(&page, "link", "See your plan")).await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        (h.method.as_str(), h.url.as_str(), h.why.as_str()),
        (
            "GET",
            site.url("/commit.html?x").as_str(),
            "a request to the plugin's commit URL */commit.html?x (a redirect)"
        )
    );
    guard.answer(&browser, h.id, false).await.unwrap();
    // The first hop went (the browser's own GET: nothing probes ahead).
    assert_eq!(logged(&site, "/go/plan"), ["GET /go/plan"]);
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());

    // fetch POSTs: the commit pattern, its percent-encoded spelling, an
    // ordinary POST to the service (harmless only for its plan step, which
    // does not run), and a billing provider's cancellation on another site.
    for (button, url, why) in [
        (
            "Cancel by API",
            site.url("/api/cancel"),
            "a request matching the plugin's commit pattern POST */api/cancel*",
        ),
        (
            "Cancel by encoded API",
            site.url("/api/%63ancel"),
            "a request matching the plugin's commit pattern POST */api/cancel*",
        ),
        (
            "Save settings",
            site.url("/api/settings"),
            "a POST request to the service",
        ),
        (
            "Cancel at billing",
            format!("http://localhost:{}/billing/cancel", site.addr().port()),
            "a POST request to another site that reads as a commit",
        ),
    ] {
        click(&browser, &reference(&page, "button", button)).await;
        let t = taken(&guard, &browser).await;
        let h = one_held(&t);
        assert_eq!(
            (h.method.as_str(), h.why.as_str()),
            ("POST", why),
            "{button}"
        );
        assert_eq!(h.url, url, "{button}");
        assert!(!h.navigation);
        guard.answer(&browser, h.id, false).await.unwrap();
    }
    for path in [
        "/api/cancel",
        "/api/%63ancel",
        "/api/settings",
        "/billing/cancel",
    ] {
        assert_eq!(logged(&site, path), Vec::<String>::new(), "{path}");
    }

    // An analytics post to another site, no commit in it: stopped, not held.
    click(&browser, &reference(&page, "button", "Send analytics")).await;
    let t = taken(&guard, &browser).await;
    assert!(t.held.is_empty(), "{t:#?}");
    assert_eq!(t.stopped.len(), 1, "{t:#?}");
    assert_eq!(t.stopped[0].why, "a POST request to another site");
    assert_eq!(logged(&site, "/collect"), Vec::<String>::new());

    // A cross-origin frame posting to the service.
    let frame_button = reference(&page, "button", "Confirm in frame");
    assert!(
        frame_button.starts_with('f'),
        "a frame's ref: {frame_button}"
    );
    click(&browser, &frame_button).await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(h.url, site.url("/commit.html?from=frame"));
    assert_eq!(h.why, "a form submission to the service");
    assert!(!h.navigation, "the frame's, not the page's");
    guard.answer(&browser, h.id, false).await.unwrap();
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());

    // Nothing is reported twice, and a decided request cannot be decided again.
    quiet(&guard.take(&browser).await.unwrap());
    assert!(!guard.answer(&browser, h.id, true).await.unwrap());
    browser.shutdown().await.unwrap();
}

/// A yes at the effect: the held request goes on to the server, once, and
/// the page it loads is there when the host looks again.
#[tokio::test]
async fn a_held_request_goes_on_with_a_yes() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click_held(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    let t = taken(&guard, &browser).await;
    let h = one_held(&t).clone();
    assert!(guard.answer(&browser, h.id, true).await.unwrap());
    assert_eq!(logged(&site, "/commit.html"), ["POST /commit.html"]);
    let after = browser.snapshot().await.unwrap();
    assert_eq!(after.title, "Guard - Committed");
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_beacon_is_held_too() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click(&browser, &reference(&page, "button", "Send beacon")).await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        (h.method.as_str(), h.why.as_str()),
        ("POST", "a POST request to the service")
    );
    guard.answer(&browser, h.id, false).await.unwrap();
    assert_eq!(logged(&site, "/api/beacon-cancel"), Vec::<String>::new());
    browser.shutdown().await.unwrap();
}

/// An ordinary link is followed in the default guarded mode; on a page that
/// commits (`hold_navigations`) it is held; a commit URL is held even so.
/// A harmless request the plan declares passes only while its step runs.
#[tokio::test]
async fn links_pass_unless_the_page_commits_and_harmless_requests_need_their_step() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();

    let page = browser.snapshot().await.unwrap();
    // A page loads as the browser loads it: no probe ahead of it.
    let after = click(&browser, &reference(&page, "link", "Other page")).await;
    assert_eq!(after.url, site.url("/other.html"));
    assert_eq!(logged(&site, "/other.html"), ["GET /other.html"]);
    quiet(&guard.take(&browser).await.unwrap());
    // An ordinary redirect, walked hop by hop, lands where it always did.
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    let after = click(&browser, &reference(&page, "link", "Plan details")).await;
    assert_eq!(after.url, site.url("/other.html"));
    assert_eq!(logged(&site, "/go/details"), ["GET /go/details"]);
    assert_eq!(logged(&site, "/other.html").len(), 2);
    quiet(&guard.take(&browser).await.unwrap());

    let commits = GuardMode::Guarded {
        hold_navigations: true,
        step: None,
    };
    guard.set_mode(&browser, commits).await.unwrap();
    let back = reference(&after, "link", "Back to account");
    click_held(&browser, &back).await;
    assert_eq!(logged(&site, "/index.html"), Vec::<String>::new());
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        (h.method.as_str(), h.why.as_str(), h.navigation),
        ("GET", "a navigation away from a page that commits", true)
    );
    guard.answer(&browser, h.id, false).await.unwrap();

    // The plan's harmless request: held without its step, passed with it.
    guard.set_mode(&browser, GUARDED).await.unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click(&browser, &reference(&page, "button", "Save settings")).await;
    let t = taken(&guard, &browser).await;
    guard
        .answer(&browser, one_held(&t).id, false)
        .await
        .unwrap();
    assert_eq!(logged(&site, "/api/settings"), Vec::<String>::new());
    let survey_step = GuardMode::Guarded {
        hold_navigations: false,
        step: Some(0),
    };
    guard.set_mode(&browser, survey_step).await.unwrap();
    click(&browser, &reference(&page, "button", "Save settings")).await;
    assert_eq!(logged(&site, "/api/settings"), ["POST /api/settings"]);
    // The escape through the declaration's own `*`: a URL it covers that
    // reads as a commit is held all the same, with its step running.
    click(
        &browser,
        &reference(&page, "button", "Save settings and leave"),
    )
    .await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        (h.url.as_str(), h.why.as_str()),
        (
            site.url("/api/settings?next=unsubscribe").as_str(),
            "a POST request to the service"
        )
    );
    guard.answer(&browser, h.id, false).await.unwrap();
    assert_eq!(logged(&site, "/api/settings"), ["POST /api/settings"]);
    // Its step's declaration lets nothing else through.
    click(&browser, &reference(&page, "button", "Cancel by API")).await;
    let t = taken(&guard, &browser).await;
    guard
        .answer(&browser, one_held(&t).id, false)
        .await
        .unwrap();
    assert_eq!(logged(&site, "/api/cancel"), Vec::<String>::new());
    browser.shutdown().await.unwrap();
}

/// While the person signs in (the run paused at a wall, no action running):
/// their sign-in goes, its return address to the cancellation pages and
/// all; nothing else that changes state does, since nobody is asked then.
/// The site's log is the proof.
#[tokio::test]
async fn while_the_person_signs_in_only_their_sign_in_goes() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    guard.set_mode(&browser, GuardMode::Person).await.unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();

    // Only the sign-in goes: the page's other posts, to the service and
    // elsewhere, are stopped, never asked (nobody is asked now); and what
    // commits is stopped too (the plugin's commit patterns, a post that
    // reads as a commit).
    for (button, why) in [
        (
            "Save settings",
            "a POST request that is not the sign-in, sent while the person signed in",
        ),
        (
            "Send analytics",
            "a POST request that is not the sign-in, sent while the person signed in",
        ),
        (
            "Cancel by API",
            "a request matching the plugin's commit pattern POST */api/cancel*, sent while the person signed in",
        ),
        (
            "Save settings and leave",
            "a POST request that reads as a commit, sent while the person signed in",
        ),
        (
            "Cancel at billing",
            "a POST request that is not the sign-in, sent while the person signed in",
        ),
    ] {
        click(&browser, &reference(&page, "button", button)).await;
        let t = taken(&guard, &browser).await;
        assert!(t.held.is_empty(), "{button}: {t:#?}");
        assert_eq!(t.stopped.len(), 1, "{button}: {t:#?}");
        assert_eq!(t.stopped[0].why, why, "{button}");
    }
    for path in [
        "/api/cancel",
        "/api/settings",
        "/collect",
        "/billing/cancel",
    ] {
        assert_eq!(logged(&site, path), Vec::<String>::new(), "{path}");
    }
    // The commit link too: stopped, the page stays.
    click(&browser, &reference(&page, "link", "Commit link")).await;
    let t = taken(&guard, &browser).await;
    assert_eq!(t.stopped.len(), 1, "{t:#?}");
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    // The sign-in itself goes, its return address to the cancellation
    // pages and all.
    let field = reference(&page, "textbox", "Password");
    browser
        .call(
            "browser_type",
            json!({ "target": field, "text": "hunter2", "submit": true }),
        )
        .await
        .unwrap();
    let after = browser.snapshot().await.unwrap();
    let t = taken(&guard, &browser).await;
    assert!(t.held.is_empty() && t.stopped.is_empty(), "{t:#?}");
    assert_eq!(after.title, "Guard - Signed in", "{}", after.content);
    assert_eq!(
        logged(&site, "/signin.html"),
        ["POST /signin.html?return_to=%2Faccount%2Fcancel"]
    );
    browser.shutdown().await.unwrap();
}

/// An approved mode whose re-arm never comes closes itself: the host set
/// it and then fell silent (a lost server, a dead host), and once its time
/// is up the page's commit is held, not released under the old yes; the
/// site's log shows nothing. (With the expiry taken out of `guard.js`, the
/// post reaches the site and this fails.)
#[tokio::test]
async fn an_approval_never_re_armed_closes_itself() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let rules = rules(&site);
    let guard = NetworkGuard::install(&browser, &rules).await.unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    // Opened for 300 ms behind the guard object's back, as a host would
    // that then never made its next call.
    let code = subterminator_core::browser::guard::approved_code_lasting(&rules, 7, 300);
    let _ = browser
        .call("browser_run_code_unsafe", json!({ "code": code }))
        .await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    click_held(&browser, &reference(&page, "button", "Cancel by API")).await;
    let t = taken(&guard, &browser).await;
    let held = one_held(&t);
    assert!(held.url.ends_with("/api/cancel"), "{t:#?}");
    assert!(t.released.is_empty(), "{t:#?}");
    assert_eq!(logged(&site, "/api/cancel"), Vec::<String>::new());
    browser.shutdown().await.unwrap();
}

/// Approved: every request of the action reaches the server, and each that
/// changes state is reported as released; guarded again right after.
#[tokio::test]
async fn approved_releases_and_records_everything() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    guard
        .set_mode(
            &browser,
            GuardMode::Approved {
                turn: 7,
                commits: false,
            },
        )
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();

    for button in ["Cancel by API", "Cancel by encoded API", "Save settings"] {
        let after = click(&browser, &reference(&page, "button", button)).await;
        assert!(
            after.content.contains("Status: answered 404"),
            "{}",
            after.content
        );
    }
    click(&browser, &reference(&page, "button", "Confirm in frame")).await;
    let after = click(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(after.url, site.url("/commit.html"));
    assert_eq!(after.title, "Guard - Committed");
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    let after = click(&browser, &reference(&page, "link", "Commit link")).await;
    assert_eq!(after.url, site.url("/commit.html?x"));

    assert_eq!(logged(&site, "/api/cancel"), ["POST /api/cancel"]);
    assert_eq!(logged(&site, "/api/%63ancel"), ["POST /api/%63ancel"]);
    assert_eq!(logged(&site, "/api/settings"), ["POST /api/settings"]);
    assert_eq!(
        logged(&site, "/commit.html"),
        [
            "POST /commit.html?from=frame",
            "POST /commit.html",
            "GET /commit.html?x"
        ]
    );
    let t = guard.take(&browser).await.unwrap();
    assert!(t.held.is_empty() && t.stopped.is_empty(), "{t:#?}");
    let released: Vec<String> = t
        .released
        .iter()
        .map(|r| format!("{} {}", r.method, r.url))
        .collect();
    // The commit link's GET too: a GET that commits is evidence like a post.
    assert_eq!(released.len(), 6, "{released:#?}");
    assert!(released.contains(&format!("POST {}", site.url("/commit.html"))));
    assert!(released.contains(&format!("GET {}", site.url("/commit.html?x"))));

    // And guarded again right after.
    guard.set_mode(&browser, GUARDED).await.unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click_held(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(logged(&site, "/commit.html").len(), 3);
    let t = taken(&guard, &browser).await;
    assert_eq!(one_held(&t).why, "a form submission to the service");
    guard
        .answer(&browser, one_held(&t).id, false)
        .await
        .unwrap();
    browser.shutdown().await.unwrap();
}

/// The browser relaunched (here: closed; the next call opens a new one) has
/// no guard: the next guard call puts it back and says requests went
/// unguarded.
#[tokio::test]
async fn a_lost_guard_is_reinstalled_and_reported() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    browser.call("browser_close", json!({})).await.unwrap();
    let err = guard.take(&browser).await.unwrap_err();
    assert!(err.to_string().contains("not guarded"), "{err}");
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click_held(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    let t = taken(&guard, &browser).await;
    assert_eq!(one_held(&t).why, "a form submission to the service");
    guard
        .answer(&browser, one_held(&t).id, false)
        .await
        .unwrap();
    browser.shutdown().await.unwrap();
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The guard's costs, printed for BENCHMARKS.md:
/// `cargo test -p subterminator-tests --test all guard_costs -- --ignored --nocapture`.
#[tokio::test]
#[ignore = "a measurement, not a check; run it by name"]
async fn guard_costs() {
    const RUNS: usize = 10;
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let pages = ["/other.html", "/heavy.html"];

    // Page loads without the route.
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();
    let mut bare = vec![Vec::new(); pages.len()];
    for _ in 0..RUNS {
        for (i, page) in pages.iter().enumerate() {
            let started = Instant::now();
            browser.navigate(&site.url(page)).await.unwrap();
            bare[i].push(started.elapsed());
        }
    }
    browser.shutdown().await.unwrap();

    // The same with the route, guarded.
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let started = Instant::now();
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    let install = started.elapsed();
    browser.navigate(&site.url("/")).await.unwrap();
    let mut routed = vec![Vec::new(); pages.len()];
    for _ in 0..RUNS {
        for (i, page) in pages.iter().enumerate() {
            let started = Instant::now();
            browser.navigate(&site.url(page)).await.unwrap();
            routed[i].push(started.elapsed());
        }
    }

    let (mut set, mut same, mut take) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        for mode in [
            GuardMode::Approved {
                turn: 1,
                commits: false,
            },
            GUARDED,
        ] {
            let started = Instant::now();
            guard.set_mode(&browser, mode).await.unwrap();
            set.push(started.elapsed());
            let started = Instant::now();
            guard.set_mode(&browser, mode).await.unwrap();
            same.push(started.elapsed());
        }
        let started = Instant::now();
        guard.take(&browser).await.unwrap();
        take.push(started.elapsed());
    }
    // What holding costs an action: the click's own wait for the held
    // fetch (Playwright MCP waits up to 5 s for an action's requests), and
    // the decision after the person's answer.
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    let (mut held_click, mut decide) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        let started = Instant::now();
        browser
            .call(
                "browser_click",
                json!({ "target": reference(&page, "button", "Save settings") }),
            )
            .await
            .unwrap();
        held_click.push(started.elapsed());
        let t = taken(&guard, &browser).await;
        let started = Instant::now();
        guard
            .answer(&browser, one_held(&t).id, false)
            .await
            .unwrap();
        decide.push(started.elapsed());
    }
    let started = Instant::now();
    browser.snapshot().await.unwrap();
    let snapshot = started.elapsed();
    browser.shutdown().await.unwrap();

    println!("guard costs, median of {RUNS} (ms):");
    println!(
        "  install (first call, launches the browser): {:.1}",
        ms(install)
    );
    println!("  set_mode, a real change: {:.1}", ms(median(set)));
    println!("  set_mode, the same mode: {:.3}", ms(median(same)));
    println!("  take: {:.1}", ms(median(take)));
    println!(
        "  a click whose fetch is held (the click's own wait): {:.1}",
        ms(median(held_click))
    );
    println!(
        "  decide (abort) after the answer: {:.1}",
        ms(median(decide))
    );
    println!("  (one browser_snapshot, for scale: {:.1})", ms(snapshot));
    for (i, page) in pages.iter().enumerate() {
        let (b, r) = (median(bare[i].clone()), median(routed[i].clone()));
        println!(
            "  navigate {page}: {:.1} without the route, {:.1} with (+{:.1})",
            ms(b),
            ms(r),
            ms(r) - ms(b)
        );
    }
}

/// One glob, read alike everywhere: the table every reader must agree on
/// (`subterminator_sdk::glob::CASES`), each glob's regex run by JavaScript
/// where the guard runs it (Playwright's Node process, through
/// `browser_run_code_unsafe`) and in the page (`browser_evaluate`), with
/// the `i` flag the guard compiles it with, against the Rust `Glob`.
#[tokio::test]
async fn globs_read_alike_in_rust_and_in_the_browser() {
    use subterminator_sdk::glob::{CASES, Glob};
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    browser.navigate(&site.url("/")).await.unwrap();
    let cases: Vec<(String, &str)> = CASES
        .iter()
        .map(|(glob, text, _)| (Glob::new(glob).regex(), *text))
        .collect();
    let cases = serde_json::to_string(&cases).unwrap();
    let test = "cases.map(([re, text]) => new RegExp(re, 'i').test(text))";
    let in_node = browser
        .call(
            "browser_run_code_unsafe",
            json!({ "code": format!("async (page) => {{ const cases = {cases}; return {test}; }}") }),
        )
        .await
        .unwrap();
    let in_page = browser
        .call(
            "browser_evaluate",
            json!({ "function": format!("() => {{ const cases = {cases}; return {test}; }}") }),
        )
        .await
        .unwrap();
    for (where_, output) in [("node", in_node), ("page", in_page)] {
        let text = output.result.unwrap_or_default();
        let read: Vec<bool> = serde_json::from_str(text.trim())
            .or_else(|_| {
                serde_json::from_str(&serde_json::from_str::<String>(text.trim()).unwrap())
            })
            .unwrap_or_else(|e| panic!("{where_}: {e}: {text}"));
        assert_eq!(read.len(), CASES.len(), "{where_}: {text}");
        for ((glob, text, want), got) in CASES.iter().zip(read) {
            assert_eq!(
                Glob::new(glob).matches(text),
                *want,
                "rust: {glob:?} ~ {text:?}"
            );
            assert_eq!(got, *want, "{where_}: {glob:?} ~ {text:?}");
        }
    }
    browser.shutdown().await.unwrap();
}
