//! `cancel <address>`: a site no plugin knows, run by the built-in generic
//! service under the host's own rules. The real binary, Playwright MCP,
//! Chromium and the interpreter; the site's own request log is the proof.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use subterminator_practice::{FlowSite, flow};
use subterminator_tests::e2e;
use subterminator_tests::site::{Site, site_dir};

/// `cancel <address>` offline, headless, in a throwaway profile.
fn cancel(home: &std::path::Path, address: &str) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command.args([
        "cancel",
        address,
        "--model",
        "offline",
        "--headless",
        "--isolated",
    ]);
    command
}

/// The gym with §312k BGB's buttons: "Verträge hier kündigen" and "jetzt
/// kündigen", found by the plan every site shares; one yes, and the post
/// reaches the site only after it. No: nothing is posted.
#[tokio::test(flavor = "multi_thread")]
async fn any_address_cancels_with_one_yes_and_no_means_nothing_is_sent() {
    for approve in [true, false] {
        let site = FlowSite::serve(flow::load("kraftwerk", None).unwrap())
            .await
            .unwrap();
        let home = tempfile::tempdir().unwrap();
        let answer = if approve { "y\n" } else { "n\n" };
        let out = e2e::run(cancel(home.path(), &site.url()), answer)
            .await
            .unwrap();
        let said = e2e::text(&out);
        let commits: Vec<String> = site
            .requests()
            .into_iter()
            .filter(|r| r.starts_with("POST /kuendigung/absenden"))
            .collect();
        assert_eq!(said.matches("Approve? [y/N]").count(), 1, "{said}");
        assert!(
            said.contains("browser_click button \"jetzt kündigen\""),
            "{said}"
        );
        assert!(said.contains("The plan every site shares says"), "{said}");
        if approve {
            assert_eq!(out.status.code(), Some(0), "{said}");
            assert_eq!(commits.len(), 1, "{:?}", site.requests());
            let result = e2e::last_result(home.path()).unwrap();
            assert_eq!(result["verified"], true, "{result}");
        } else {
            assert_ne!(out.status.code(), Some(0), "{said}");
            assert!(commits.is_empty(), "{:?}", site.requests());
        }
        assert!(
            !site
                .requests()
                .iter()
                .any(|r| r.starts_with("POST /mein-konto/pause")),
            "paused: {:?}",
            site.requests()
        );
        site.stop();
    }
}

/// An offer to pause stands between the statutory button and the form: the
/// plan declines it ("Weiter zur Kündigung"), nothing is paused.
#[tokio::test(flavor = "multi_thread")]
async fn the_pause_offer_is_declined_with_no_plugin() {
    let site = FlowSite::serve(flow::load("kraftwerk", Some("pause-offer")).unwrap())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = e2e::run(cancel(home.path(), &site.url()), "y\n")
        .await
        .unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let log = site.requests();
    assert!(
        log.iter()
            .any(|r| r.starts_with("POST /kuendigung/absenden")),
        "{log:?}"
    );
    assert!(
        !log.iter().any(|r| r.starts_with("POST /mein-konto/pause")),
        "{log:?}"
    );
    site.stop();
}

/// The subscription is billed by a payment provider on another site. Going
/// on there is asked first, with why that can be right; the yes lets the
/// run act there and nothing more: the provider's own "Confirm
/// cancellation" is asked on its own. A no: nothing reaches the provider.
#[tokio::test(flavor = "multi_thread")]
async fn leaving_the_site_is_asked_and_that_yes_commits_nothing() {
    for approve in [true, false] {
        let service = Site::serve(&site_dir("generic")).await.unwrap();
        let provider = Site::serve(&site_dir("generic")).await.unwrap();
        let start = format!(
            "{}?billing={}",
            service.url("/account.html"),
            provider.url("/billing.html")
        );
        let home = tempfile::tempdir().unwrap();
        let answers = if approve { "y\ny\n" } else { "n\n" };
        let out = e2e::run(cancel(home.path(), &start), answers)
            .await
            .unwrap();
        let said = e2e::text(&out);
        assert!(
            said.contains(&format!("This goes on at {}", provider.base_url())),
            "{said}"
        );
        assert!(said.contains("PayPal's automatic payments"), "{said}");
        let posted = provider
            .requests()
            .iter()
            .any(|r| r.method == "POST" && r.path() == "/billing-cancelled.html");
        if approve {
            // Two questions: going on there, then the step that commits.
            assert_eq!(said.matches("Approve? [y/N]").count(), 2, "{said}");
            assert!(posted, "{:?}", provider.requests());
            assert_eq!(out.status.code(), Some(0), "{said}");
        } else {
            assert_eq!(said.matches("Approve? [y/N]").count(), 1, "{said}");
            assert!(!posted, "{:?}", provider.requests());
            assert_ne!(out.status.code(), Some(0), "{said}");
        }
        assert!(!service.requests().iter().any(|r| r.method == "POST"));
    }
}

/// Bad input is one line with its fix, exit 2, before any browser starts.
#[tokio::test(flavor = "multi_thread")]
async fn bad_addresses_say_why_in_one_line_table() {
    let site = FlowSite::serve(flow::load("kraftwerk", None).unwrap())
        .await
        .unwrap();
    let free = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let missing = format!("{}/no-such-page", site.origin());
    let closed = format!("http://127.0.0.1:{free}/");
    let cases: Vec<(&str, &str)> = vec![
        ("file:///etc/passwd", "opens only web pages"),
        ("javascript:alert(document.cookie)", "opens only web pages"),
        ("data:text/html,<form>", "opens only web pages"),
        ("https://me:secret@example.com/", "without it"),
        ("http://10.1.2.3/", "names no site"),
        (missing.as_str(), "answers 404"),
        (closed.as_str(), "nothing answers"),
        ("crunchyroll", "give its address"),
        // No such domain (`.invalid` never resolves); where the machine has
        // no resolver at all, the same one line says nothing answers.
        ("no-such-site.invalid", "does not resolve|nothing answers"),
    ];
    for (address, want) in cases {
        let home = tempfile::tempdir().unwrap();
        let out = e2e::run(cancel(home.path(), address), "").await.unwrap();
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(2), "{address}: {said}");
        assert!(
            want.split('|').any(|w| said.contains(w)),
            "{address}: {said}"
        );
        assert!(
            e2e::run_dirs(home.path()).is_empty(),
            "{address}: a run started"
        );
        assert!(
            !said.contains("secret"),
            "{address}: the password was echoed: {said}"
        );
    }
    site.stop();
}

/// The path that worked is remembered for the site itself, with no plugin:
/// the next run at the same address follows it, `--replay`, and asks no
/// model (one that is asked fails the run).
#[tokio::test(flavor = "multi_thread")]
async fn the_remembered_path_serves_a_site_with_no_plugin() {
    use subterminator_tests::model_server::{ModelServer, Reply};
    use subterminator_tests::scripted::SCRIPTED_ANTHROPIC_KEY;

    // One static site for both runs: its address is the site's identity,
    // and it keeps no state, so the second run finds the same pages.
    let home = tempfile::tempdir().unwrap();
    let site = Site::serve(&site_dir("generic")).await.unwrap();
    let address = site.url("/billing.html");
    let posted = |site: &Site| {
        site.requests()
            .iter()
            .filter(|r| r.method == "POST" && r.path() == "/billing-cancelled.html")
            .count()
    };
    let out = e2e::run(cancel(home.path(), &address), "y\n")
        .await
        .unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(posted(&site), 1, "{:?}", site.requests());

    let model = ModelServer::start(|_| Reply::status(400, "no model may be asked"))
        .await
        .unwrap();
    let mut command = e2e::command(home.path());
    command
        .args(["cancel", &address, "--replay", "--headless", "--isolated"])
        .args(["--model", "claude-opus-4-6"])
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    let out = e2e::run(command, "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(
        model.request_count(),
        0,
        "the replay asked the model: {said}"
    );
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["verified"], true, "{result}");
    assert!(
        result["steps"]["remembered"].as_u64().unwrap_or(0) >= 1,
        "{result}"
    );
    assert_eq!(posted(&site), 2, "{:?}", site.requests());
}
