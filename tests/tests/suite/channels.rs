//! Every way a page can commit, against the real Playwright MCP server and
//! Chromium, with no plugin pattern at all (the guard's rules are the
//! host's own: the site's origin and the floor's words). The site's own log
//! is the proof: what it never received was never sent.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::json;
use subterminator_core::browser::Browser;
use subterminator_core::browser::guard::{
    GuardMode, GuardRules, INITIAL_MODE, NetworkGuard, Shown, Taken,
};
use subterminator_core::safety::floor::{read_request, request_words, url_commit_words};
use subterminator_tests::site::{Site, site_dir};

use super::guard::{
    GUARDED, ONE_AT_A_TIME, click, click_held, logged, one_held, reference, start, taken,
};

/// The host's rules alone: what a run on a site no plugin knows has.
fn bare(site: &Site) -> GuardRules {
    GuardRules {
        origins: vec![site.base_url()],
        commit_words: url_commit_words(),
        reading: request_words().pairs(),
        ..GuardRules::default()
    }
}

async fn open(site: &Site, run: &std::path::Path) -> (Browser, NetworkGuard) {
    let browser = start(run).await;
    let guard = NetworkGuard::install(&browser, &bare(site)).await.unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    (browser, guard)
}

/// Every request the site received, as `METHOD target`.
fn everything(site: &Site) -> Vec<String> {
    site.requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.target))
        .collect()
}

/// A GET is judged by what it says: a survey's GET form to
/// `/membership/cancel/complete` and a link there are held, with no plugin
/// pattern; a no leaves the page. An ordinary GET of the page's own goes.
#[tokio::test]
async fn a_get_that_reads_as_a_commit_is_held_with_no_plugin() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    let page = browser.snapshot().await.unwrap();
    for (role, name) in [("button", "Submit survey"), ("link", "Done here")] {
        click_held(&browser, &reference(&page, role, name)).await;
        let t = taken(&guard, &browser).await;
        let h = one_held(&t);
        assert_eq!(
            (h.method.as_str(), h.why.as_str()),
            ("GET", "a GET request that reads as a commit"),
            "{name}"
        );
        assert!(h.url.contains("/membership/cancel/complete"), "{h:?}");
        guard.answer(&browser, h.id, false).await.unwrap();
    }
    assert_eq!(
        logged(&site, "/membership/cancel/complete"),
        Vec::<String>::new()
    );
    let after = click(&browser, &reference(&page, "button", "Read status")).await;
    assert!(after.content.contains("answered 404"), "{}", after.content);
    assert_eq!(logged(&site, "/account/status"), ["GET /account/status"]);
    assert_eq!(after.title, "Channels - Account");
    browser.shutdown().await.unwrap();
}

/// Each hop of a redirect is judged before anything is sent to it: the
/// walk's HEAD goes only to URLs judged reads, so the commit two hops away
/// receives nothing, not even a HEAD; and an approved navigation's hops
/// are judged too (the yes was for going back, not for what it redirects
/// to). An ordinary chain lands where it did.
#[tokio::test]
async fn every_hop_of_a_redirect_is_judged_before_anything_is_sent_to_it() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    let page = browser.snapshot().await.unwrap();

    click_held(&browser, &reference(&page, "link", "Continue")).await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        h.why,
        "a GET request that reads as confirming the cancellation (a redirect)"
    );
    assert!(h.url.ends_with("/membership/cancel/confirm"), "{h:?}");
    guard.answer(&browser, h.id, false).await.unwrap();
    assert_eq!(
        logged(&site, "/membership/cancel/confirm"),
        Vec::<String>::new()
    );
    // The hops before it went, as the browser sent them: nothing probed
    // ahead (a HEAD to a commit URL is the commit on many servers).
    assert_eq!(logged(&site, "/go/continue"), ["GET /go/continue"]);
    assert_eq!(logged(&site, "/go/step2"), ["GET /go/step2"]);

    // Approved: the action's own request goes, its redirect is judged.
    guard
        .set_mode(
            &browser,
            GuardMode::Approved {
                turn: 3,
                commits: false,
            },
        )
        .await
        .unwrap();
    click_held(&browser, &reference(&page, "link", "Go back")).await;
    let t = guard.take_and_set(&browser, GUARDED, None).await.unwrap();
    let h = one_held(&t);
    assert_eq!(
        h.why, "a GET request that reads as a commit (a redirect)",
        "{t:#?}"
    );
    let left = guard
        .settle(&browser, &[h.id], false, GUARDED)
        .await
        .unwrap();
    assert!(left.held.is_empty(), "{left:#?}");
    assert_eq!(
        logged(&site, "/account/cancel/complete"),
        Vec::<String>::new()
    );

    // An ordinary chain lands where it always did.
    let page = browser.snapshot().await.unwrap();
    let after = click(&browser, &reference(&page, "link", "Plan details")).await;
    assert_eq!(after.title, "Channels - Plan", "{}", after.content);
    browser.shutdown().await.unwrap();
}

/// A WebSocket message is read like a request: a chat's "Close" that sends
/// the cancellation is held and reaches the site only with a yes; an
/// ordinary message goes at once.
#[tokio::test]
async fn a_websocket_message_that_reads_as_a_commit_is_held() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    let page = browser.snapshot().await.unwrap();
    let hello = reference(&page, "button", "Say hello");
    let close = reference(&page, "button", "Close chat");
    click(&browser, &hello).await;
    click(&browser, &close).await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    assert_eq!(
        (h.method.as_str(), h.why.as_str()),
        (
            "WS",
            "a WebSocket message that reads as confirming the cancellation"
        )
    );
    assert!(h.url.ends_with("/ws"), "{h:?}");
    assert!(h.body.contains("membership.cancel"), "{h:?}");
    let ws = |site: &Site| -> Vec<String> {
        everything(site)
            .into_iter()
            .filter(|r| r.starts_with("WS "))
            .collect()
    };
    assert_eq!(ws(&site), ["WS hello, I have a question about my bill"]);
    guard
        .settle(&browser, &[h.id], false, GUARDED)
        .await
        .unwrap();
    assert_eq!(ws(&site).len(), 1);

    // Asked again, and let go: it reaches the site.
    click(&browser, &close).await;
    let t = taken(&guard, &browser).await;
    let h = one_held(&t);
    guard
        .settle(&browser, &[h.id], true, GUARDED)
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while ws(&site).len() < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        ws(&site)[1],
        r#"WS {"intent":"membership.cancel","confirm":true}"#
    );
    browser.shutdown().await.unwrap();
}

/// Leaving a page sends nothing unjudged: the beacon its `pagehide` sends
/// (accepting an offer) and the keepalive fetch of its `visibilitychange`
/// (switching the plan) are held as the page unloads — a route never sees
/// either — and reach the site only with a yes.
#[tokio::test]
async fn what_a_page_sends_as_it_unloads_is_held() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    browser.navigate(&site.url("/leave.html")).await.unwrap();
    let page = browser.snapshot().await.unwrap();
    let after = click(&browser, &reference(&page, "link", "Back to account")).await;
    assert_eq!(after.title, "Channels - Account");
    let mut held = Vec::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while held.len() < 2 && std::time::Instant::now() < deadline {
        held.extend(guard.take(&browser).await.unwrap().held);
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut seen: Vec<(String, String)> = held
        .iter()
        .map(|h| {
            let path = h.url.trim_start_matches(&site.base_url()).to_owned();
            (format!("{} {path}", h.method), h.why.clone())
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            (
                "POST /account/plan/switch/confirm".to_owned(),
                "a POST request to the service that reads as a change to what the person pays"
                    .to_owned()
            ),
            (
                "POST /offer/accept".to_owned(),
                "a POST request to the service that reads as a change to what the person pays"
                    .to_owned()
            ),
        ]
    );
    let ids: Vec<u64> = held.iter().map(|h| h.id).collect();
    guard.settle(&browser, &ids, false, GUARDED).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(logged(&site, "/offer/accept"), Vec::<String>::new());
    assert_eq!(
        logged(&site, "/account/plan/switch/confirm"),
        Vec::<String>::new()
    );
    browser.shutdown().await.unwrap();
}

/// A yes releases only what it was shown: the survey's post goes, and the
/// cancellation its script sends the moment the post answers is held and
/// returned to be asked about, never released under the same yes.
#[tokio::test]
async fn a_yes_releases_only_what_it_was_shown() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    let page = browser.snapshot().await.unwrap();
    click(&browser, &reference(&page, "button", "Send survey")).await;
    let t = taken(&guard, &browser).await;
    let survey = one_held(&t);
    assert!(survey.url.ends_with("/survey"), "{survey:?}");
    let after = guard
        .settle(&browser, &[survey.id], true, GUARDED)
        .await
        .unwrap();
    assert_eq!(logged(&site, "/survey"), ["POST /survey"]);
    let also = one_held(&after);
    assert!(also.url.ends_with("/api/membership"), "{after:#?}");
    assert_eq!(also.why, "a POST (as DELETE) request to the service");
    guard
        .settle(&browser, &[also.id], false, GUARDED)
        .await
        .unwrap();
    assert_eq!(logged(&site, "/api/membership"), Vec::<String>::new());
    browser.shutdown().await.unwrap();
}

/// Has the page send `posts` (paths on its own origin, one body each) 400
/// ms from now, after the call that asks it has ended, as a script that
/// submits a moment after the choice does; then waits until they are in.
async fn post_late(browser: &Browser, posts: &[(&str, &str)]) {
    let sends: Vec<String> = posts
        .iter()
        .map(|(path, body)| {
            format!("fetch({path:?}, {{ method: 'POST', body: {body:?} }}).catch(() => {{}});")
        })
        .collect();
    let function = format!(
        "() => {{ setTimeout(() => {{ {} }}, 400); return 1; }}",
        sends.join(" ")
    );
    browser
        .call("browser_evaluate", json!({ "function": function }))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
}

/// After an approved action, the request its question showed may still
/// leave late, once, as that yes's; what else the page sends then is held,
/// and so is the shown request a second time, or once the next action's
/// mode is set (even the same mode). The site's log is the proof.
#[tokio::test]
async fn a_yes_covers_its_shown_request_once_when_it_leaves_late() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    let shown = Shown {
        method: "POST".into(),
        url: site.url("/account/cancel"),
        any_query: false,
    };
    let approved = GuardMode::Approved {
        turn: 3,
        commits: true,
    };

    // The approved action sent nothing in its call.
    guard.set_mode(&browser, approved).await.unwrap();
    let t = guard
        .take_and_set(&browser, GUARDED, Some(&shown))
        .await
        .unwrap();
    assert!(t.released.is_empty() && t.held.is_empty(), "{t:#?}");
    post_late(
        &browser,
        &[
            ("/account/plan", "plan=premium&_method=put"),
            ("/account/cancel", "first"),
            ("/account/cancel", "second"),
        ],
    )
    .await;
    let t = guard.take(&browser).await.unwrap();
    assert!(t.released.is_empty(), "{t:#?}");
    assert_eq!(t.late.len(), 1, "{t:#?}");
    assert!(t.late[0].url.ends_with("/account/cancel"), "{t:#?}");
    assert_eq!(t.held.len(), 2, "{t:#?}");
    assert_eq!(logged(&site, "/account/cancel"), ["POST /account/cancel"]);
    assert_eq!(logged(&site, "/account/plan"), Vec::<String>::new());
    let ids: Vec<u64> = t.held.iter().map(|h| h.id).collect();
    guard.settle(&browser, &ids, false, GUARDED).await.unwrap();
    assert_eq!(logged(&site, "/account/cancel").len(), 1);

    // Owed again, but the next action's mode (the same one) is set first.
    guard.set_mode(&browser, approved).await.unwrap();
    guard
        .take_and_set(&browser, GUARDED, Some(&shown))
        .await
        .unwrap();
    guard.set_mode(&browser, GUARDED).await.unwrap();
    post_late(&browser, &[("/account/cancel", "third")]).await;
    let t = guard.take(&browser).await.unwrap();
    assert!(t.released.is_empty() && t.late.is_empty(), "{t:#?}");
    let held = one_held(&t);
    guard
        .settle(&browser, &[held.id], false, GUARDED)
        .await
        .unwrap();
    assert_eq!(logged(&site, "/account/cancel").len(), 1);
    browser.shutdown().await.unwrap();
}

/// While the person signs in only the sign-in goes: a "Sign in" form that
/// posts `_method=delete` to the membership, a `PUT` that changes the plan
/// and the page's other posts are stopped; the real sign-in (a password
/// field, posting where it says) and the pages the person loads go.
#[tokio::test]
async fn while_the_person_signs_in_only_the_sign_in_goes() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let browser = start(run.path()).await;
    let guard = NetworkGuard::install(&browser, &bare(&site)).await.unwrap();
    guard.set_mode(&browser, GuardMode::Person).await.unwrap();
    browser.navigate(&site.url("/")).await.unwrap();
    let page = browser.snapshot().await.unwrap();

    // The form's navigation is stopped: the call may say so.
    let field = reference(&page, "textbox", "Password here");
    let _ = browser
        .call(
            "browser_type",
            json!({ "target": field, "text": "hunter2", "submit": true }),
        )
        .await;
    click(&browser, &reference(&page, "button", "Update plan")).await;
    click(&browser, &reference(&page, "button", "Send survey")).await;
    let t = taken(&guard, &browser).await;
    assert!(t.held.is_empty(), "{t:#?}");
    let why: Vec<&str> = t.stopped.iter().map(|s| s.why.as_str()).collect();
    assert!(
        why.contains(
            &"a POST (as DELETE) request that is not the sign-in, sent while the person signed in"
        ),
        "{why:#?}"
    );
    assert!(
        why.contains(&"a PUT request that is not the sign-in, sent while the person signed in"),
        "{why:#?}"
    );
    assert!(
        why.contains(&"a POST request that is not the sign-in, sent while the person signed in"),
        "{why:#?}"
    );
    for path in ["/account/membership", "/account/plan", "/survey"] {
        assert_eq!(logged(&site, path), Vec::<String>::new(), "{path}");
    }

    let field = reference(&page, "textbox", "Password");
    browser
        .call(
            "browser_type",
            json!({ "target": field, "text": "hunter2", "submit": true }),
        )
        .await
        .unwrap();
    let after = browser.snapshot().await.unwrap();
    assert_eq!(after.title, "Channels - Signed in", "{}", after.content);
    assert_eq!(
        logged(&site, "/signin.html"),
        ["POST /signin.html?return_to=%2Fmembership%2Fcancel"]
    );
    guard.set_mode(&browser, INITIAL_MODE).await.unwrap();
    browser.shutdown().await.unwrap();
}

/// The floor's reading of a request is the same in the crate and in the
/// browser: a table of script GETs, each held in Chromium exactly when
/// `read_request` says it reads as a commit (a script's GET, not a page
/// load: asking words count).
#[tokio::test]
async fn the_request_reading_agrees_in_rust_and_in_the_browser() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    let paths = [
        "/membership/cancel/complete",
        "/account/cancel",
        "/account/cancel/confirm",
        "/cancel/done",
        "/konto/k%C3%BCndigen/jetzt",
        "/konto/k%C3%BCndigen",
        "/abonnement/r%C3%A9silier/valider",
        "/api/v2/cancelSubscription?step=finish",
        "/settings?action=end_subscription",
        "/signin?return_to=%2Faccount%2Fcancel%2Fsubmit",
        "/offer/accept",
        "/offers",
        "/%E8%A7%A3%E7%B4%84/%E5%AE%8C%E4%BA%86",
        "/weekend/now-playing",
    ];
    browser
        .call(
            "browser_evaluate",
            json!({ "function": format!("() => window.fire({})", json!(paths)) }),
        )
        .await
        .unwrap();
    let t = taken(&guard, &browser).await;
    // Give the slower fetches their turn.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let more = guard.take(&browser).await.unwrap();
    let held: Vec<String> = t
        .held
        .iter()
        .chain(&more.held)
        .map(|h| h.url.trim_start_matches(&site.base_url()).to_owned())
        .collect();
    for path in paths {
        let rust = read_request(&subterminator_core::safety::floor::url_request_text(
            &site.url(path),
        ))
        .is_some();
        let browser_held = held.iter().any(|h| h == path);
        assert_eq!(browser_held, rust, "{path}: held in the browser {held:#?}");
        if !rust {
            assert_eq!(
                logged(&site, path.split('?').next().unwrap()).len(),
                1,
                "{path}"
            );
        }
    }
    let ids: Vec<u64> = t.held.iter().chain(&more.held).map(|h| h.id).collect();
    guard.settle(&browser, &ids, false, GUARDED).await.unwrap();
    browser.shutdown().await.unwrap();
}

/// A held request is seen and answered while the action that sent it still
/// waits: a watch beside the click reports the survey's post before the
/// click's call ends (Playwright MCP waits up to 5 s for it), a yes given
/// beside the click lets exactly that post go, and the click then ends;
/// the cancellation the page sends when the post answers is held like any
/// follow-up and never reaches the site. A watch that is dropped unread
/// takes nothing: what the guard held is still there for the next take.
#[tokio::test]
async fn a_held_request_is_answered_while_its_action_waits() {
    let _one = ONE_AT_A_TIME.lock().await;
    let site = Site::serve(&site_dir("channels")).await.unwrap();
    let run = tempfile::tempdir().unwrap();
    let (browser, guard) = open(&site, run.path()).await;
    let page = browser.snapshot().await.unwrap();
    let survey = reference(&page, "button", "Send survey");

    // A watch dropped unread (its wait runs out unseen) loses nothing.
    let dropped = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        guard.watch(&browser, 60_000),
    )
    .await;
    assert!(dropped.is_err(), "nothing was held yet: {dropped:?}");

    let click = browser.call("browser_click", json!({ "target": survey }));
    tokio::pin!(click);
    let held = tokio::select! {
        biased;
        watched = guard.watch(&browser, 16_000) => watched.unwrap(),
        clicked = &mut click => panic!("the click ended before the watch saw its request: {clicked:?}"),
    };
    let post = one_held(&Taken {
        held: held.clone(),
        ..Taken::default()
    })
    .clone();
    assert!(post.url.ends_with("/survey"), "{held:#?}");
    assert!(post.held_at_ms > 0, "{post:?}");
    assert_eq!(logged(&site, "/survey"), Vec::<String>::new());

    // The yes goes beside the click, which still waits on the post.
    let after = guard
        .settle_beside(&browser, &[post.id], true, GUARDED)
        .await
        .unwrap();
    assert_eq!(logged(&site, "/survey"), ["POST /survey"]);
    // Answered, the post is no news; the page's follow-up is.
    assert!(after.held.iter().all(|h| h.id != post.id), "{after:#?}");
    let follow_up = one_held(&after);
    assert!(follow_up.url.ends_with("/api/membership"), "{after:#?}");
    click.await.unwrap();
    guard
        .settle(&browser, &[follow_up.id], false, GUARDED)
        .await
        .unwrap();
    assert_eq!(logged(&site, "/api/membership"), Vec::<String>::new());
    browser.shutdown().await.unwrap();
}
