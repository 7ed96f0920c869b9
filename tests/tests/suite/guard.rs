//! The network guard against the real Playwright MCP server and Chromium: the
//! site's own request log proves what reached the server and what did not.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use subterminator_core::browser::guard::{BlockedRequest, GuardMode, GuardRules, NetworkGuard};
use subterminator_core::browser::{Browser, BrowserOptions};
use subterminator_core::page::Snapshot;
use subterminator_tests::site::{Site, site_dir};

const CHROMIUM: &str = "/usr/bin/chromium";

/// One browser at a time: the machine has two cores, and timings matter.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const GUARDED: GuardMode = GuardMode::Guarded {
    block_posts: true,
    block_navigations: false,
};

async fn start(run: &Path) -> Browser {
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
    }
}

fn reference(snap: &Snapshot, role: &str, name: &str) -> String {
    snap.elements
        .iter()
        .find(|e| e.role == role && e.name == name)
        .and_then(|e| e.reference.clone())
        .unwrap_or_else(|| panic!("no {role} {name:?} in\n{}", snap.content))
}

/// Clicks by ref; the page it leaves behind.
async fn click(browser: &Browser, target: &str) -> Snapshot {
    browser
        .call("browser_click", json!({ "target": target }))
        .await
        .unwrap();
    browser.snapshot().await.unwrap()
}

/// The site's log of requests for `path` (query ignored), as `METHOD target`.
fn logged(site: &Site, path: &str) -> Vec<String> {
    site.requests()
        .iter()
        .filter(|r| r.path() == path)
        .map(|r| format!("{} {}", r.method, r.target))
        .collect()
}

fn one(blocked: &[BlockedRequest]) -> &BlockedRequest {
    assert_eq!(blocked.len(), 1, "{blocked:#?}");
    &blocked[0]
}

/// Each way the page offers to commit, clicked while guarded: none reaches
/// the server, each is reported, and the page (with its refs) stays.
#[tokio::test]
async fn guarded_stops_every_way_to_commit_and_says_which() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    assert!(guard.take_blocked(&browser).await.unwrap().is_empty());

    // The form post: stopped as a form submission, the page stays.
    let after = click(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    assert_eq!(after.url, site.url("/"), "the page stays");
    let b = guard.take_blocked(&browser).await.unwrap();
    let b = one(&b);
    assert_eq!(
        (
            b.method.as_str(),
            b.url.as_str(),
            b.why.as_str(),
            b.navigation
        ),
        (
            "POST",
            site.url("/commit.html").as_str(),
            "a form submission",
            true
        )
    );

    // A GET link to the commit URL, with a ref from the snapshot taken before
    // the aborted post: refs survive it.
    let after = click(&browser, &reference(&page, "link", "Commit link")).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    assert_eq!(after.url, site.url("/"));
    let b = guard.take_blocked(&browser).await.unwrap();
    let b = one(&b);
    assert_eq!(b.method, "GET");
    assert_eq!(b.url, site.url("/commit.html?x"));
    assert_eq!(
        b.why,
        "a request to the plugin's commit URL */commit.html?x"
    );
    assert!(b.navigation);

    // fetch POSTs: the commit pattern, its percent-encoded spelling, and an
    // ordinary POST to the service.
    for (button, path, why) in [
        (
            "Cancel by API",
            "/api/cancel",
            "a request matching the plugin's commit pattern POST */api/cancel*",
        ),
        (
            "Cancel by encoded API",
            "/api/%63ancel",
            "a request matching the plugin's commit pattern POST */api/cancel*",
        ),
        (
            "Save settings",
            "/api/settings",
            "a POST request to the service",
        ),
    ] {
        let after = click(&browser, &reference(&page, "button", button)).await;
        assert_eq!(logged(&site, path), Vec::<String>::new(), "{button}");
        assert!(
            after.content.contains("Status: failed"),
            "the page's fetch fails: {}",
            after.content
        );
        let b = guard.take_blocked(&browser).await.unwrap();
        let b = one(&b);
        assert_eq!(
            (b.method.as_str(), b.why.as_str()),
            ("POST", why),
            "{button}"
        );
        assert_eq!(b.url, site.url(path));
        assert!(!b.navigation);
    }

    // A cross-origin frame posting to the service.
    let frame_button = reference(&page, "button", "Confirm in frame");
    assert!(
        frame_button.starts_with('f'),
        "a frame's ref: {frame_button}"
    );
    click(&browser, &frame_button).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    let b = guard.take_blocked(&browser).await.unwrap();
    let b = one(&b);
    assert_eq!(b.url, site.url("/commit.html?from=frame"));
    assert_eq!(b.why, "a form submission");
    assert!(!b.navigation, "the frame's, not the page's");

    // Nothing is reported twice.
    assert!(guard.take_blocked(&browser).await.unwrap().is_empty());
    browser.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_beacon_is_stopped_too() {
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
    // A beacon may leave after the click's settle time: ask the guard
    // until it has stopped something, or a while has passed.
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut b = guard.take_blocked(&browser).await.unwrap();
    while b.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        b = guard.take_blocked(&browser).await.unwrap();
    }
    assert_eq!(logged(&site, "/api/beacon-cancel"), Vec::<String>::new());
    let b = one(&b);
    assert_eq!(
        (b.method.as_str(), b.why.as_str()),
        ("POST", "a POST request to the service")
    );
    browser.shutdown().await.unwrap();
}

/// An ordinary link is followed in the default guarded mode; with
/// `block_navigations` it is stopped; a commit URL is stopped even so.
#[tokio::test]
async fn links_pass_unless_navigations_are_blocked() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();

    let page = browser.snapshot().await.unwrap();
    let after = click(&browser, &reference(&page, "link", "Other page")).await;
    assert_eq!(after.url, site.url("/other.html"));
    assert_eq!(logged(&site, "/other.html"), ["GET /other.html"]);
    assert!(guard.take_blocked(&browser).await.unwrap().is_empty());

    guard
        .set_mode(
            &browser,
            GuardMode::Guarded {
                block_posts: true,
                block_navigations: true,
            },
        )
        .await
        .unwrap();
    let back = reference(&after, "link", "Back to account");
    let stayed = click(&browser, &back).await;
    assert_eq!(stayed.url, site.url("/other.html"));
    assert_eq!(logged(&site, "/index.html"), Vec::<String>::new());
    let b = guard.take_blocked(&browser).await.unwrap();
    let b = one(&b);
    assert_eq!(
        (b.method.as_str(), b.why.as_str(), b.navigation),
        ("GET", "a navigation", true)
    );
    // The host's own navigation is stopped the same way while guarded.
    assert!(browser.navigate(&site.url("/index.html")).await.is_err());
    assert_eq!(logged(&site, "/index.html"), Vec::<String>::new());
    assert_eq!(
        one(&guard.take_blocked(&browser).await.unwrap()).why,
        "a navigation"
    );

    // Commit patterns need no post and no navigation rule.
    guard
        .set_mode(
            &browser,
            GuardMode::Guarded {
                block_posts: false,
                block_navigations: false,
            },
        )
        .await
        .unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click(&browser, &reference(&page, "link", "Commit link")).await;
    click(&browser, &reference(&page, "button", "Cancel by API")).await;
    click(&browser, &reference(&page, "button", "Save settings")).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    assert_eq!(logged(&site, "/api/cancel"), Vec::<String>::new());
    assert_eq!(logged(&site, "/api/settings"), ["POST /api/settings"]);
    let whys: Vec<String> = guard
        .take_blocked(&browser)
        .await
        .unwrap()
        .into_iter()
        .map(|b| b.why)
        .collect();
    assert_eq!(
        whys,
        [
            "a request to the plugin's commit URL */commit.html?x",
            "a request matching the plugin's commit pattern POST */api/cancel*"
        ]
    );
    browser.shutdown().await.unwrap();
}

/// Open: every one of them reaches the server, nothing is reported.
#[tokio::test]
async fn open_lets_everything_through() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("guard")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &rules(&site))
        .await
        .unwrap();
    guard.set_mode(&browser, GuardMode::Open).await.unwrap();
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
    assert!(guard.take_blocked(&browser).await.unwrap().is_empty());

    // And guarded again right after.
    guard.set_mode(&browser, GUARDED).await.unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(logged(&site, "/commit.html").len(), 3);
    assert_eq!(
        one(&guard.take_blocked(&browser).await.unwrap()).why,
        "a form submission"
    );
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
    let err = guard.take_blocked(&browser).await.unwrap_err();
    assert!(err.to_string().contains("not guarded"), "{err}");
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    click(&browser, &reference(&page, "button", "Finish Cancellation")).await;
    assert_eq!(logged(&site, "/commit.html"), Vec::<String>::new());
    assert_eq!(
        one(&guard.take_blocked(&browser).await.unwrap()).why,
        "a form submission"
    );
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
        for mode in [GuardMode::Open, GUARDED] {
            let started = Instant::now();
            guard.set_mode(&browser, mode).await.unwrap();
            set.push(started.elapsed());
            let started = Instant::now();
            guard.set_mode(&browser, mode).await.unwrap();
            same.push(started.elapsed());
        }
        let started = Instant::now();
        guard.take_blocked(&browser).await.unwrap();
        take.push(started.elapsed());
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
    println!("  take_blocked: {:.1}", ms(median(take)));
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
