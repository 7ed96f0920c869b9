//! The ten bundled services, each on its own practice flow (the binary's
//! `plugins/<id>/practice/`, served here so the test reads the site's own
//! request log): the real binary, Playwright MCP, Chromium and the plugin
//! in its sandbox, driven by the offline policy and by a scripted model, and
//! every variant. An ordinary run asks exactly once; a billed-elsewhere or
//! phone-only run ends with its clear failure, asks nothing and sends no
//! commit. Each service's fixtures cover every predicate both ways.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::path::Path;

use subterminator_core::fixture;
use subterminator_core::plugin::{PluginEngine, Registry};
use subterminator_practice::{FlowSite, flow};
use subterminator_tests::e2e::{self, ServedBrowser};
use subterminator_tests::flow_script::{FLOW_SERVICES, Script, plugins_dir};
use subterminator_tests::model_server::ModelServer;
use subterminator_tests::scripted::SCRIPTED_ANTHROPIC_KEY;

fn cancel(home: &Path, service: &str, url: &str, model: &str) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command.args(["cancel", service, "--start-url", url, "--model", model]);
    if model != "offline" {
        // A scripted model's steps are the test: it takes every one.
        command.arg("--model-drives");
    }
    command.args(["--headless", "--isolated"]);
    command
}

/// Approvals the run asked for, from its transcript.
fn approvals(home: &Path) -> usize {
    let Some(dir) = e2e::run_dirs(home).pop() else {
        return 0;
    };
    std::fs::read_to_string(dir.join("transcript.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"approval_asked\""))
        .count()
}

/// A run that cancelled: exit 0, verified, one yes, one commit request.
fn assert_cancelled(out: &std::process::Output, home: &Path, site: &FlowSite, what: &str) {
    let said = e2e::text(out);
    assert_eq!(out.status.code(), Some(0), "{what}: {said}");
    assert!(
        said.contains("cancellation completed successfully"),
        "{what}: {said}"
    );
    assert_eq!(
        e2e::last_result(home).unwrap()["verified"],
        true,
        "{what}: {said}"
    );
    assert_eq!(approvals(home), 1, "{what}: exactly one yes\n{said}");
    let commits = site
        .requests()
        .iter()
        .filter(|r| r.starts_with(&site.flow().commit_request()))
        .count();
    assert_eq!(commits, 1, "{what}: {:?}", site.requests());
}

async fn offline(service: &str) {
    let site = FlowSite::serve(flow::load(service, None).unwrap())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = e2e::run(cancel(home.path(), service, &site.url(), "offline"), "y\n")
        .await
        .unwrap();
    assert_cancelled(&out, home.path(), &site, &format!("{service} offline"));
}

async fn scripted_model(service: &str) {
    let script = Script::load(service).unwrap();
    let model = ModelServer::start(script.handler()).await.unwrap();
    let site = FlowSite::serve(flow::load(service, None).unwrap())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = cancel(home.path(), service, &site.url(), "claude-opus-4-6");
    command
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    let out = e2e::run(command, "y\n").await.unwrap();
    assert_cancelled(&out, home.path(), &site, &format!("{service} scripted"));
    assert!(
        model.request_count() >= 3,
        "{service}: the model drove ({} requests)",
        model.request_count()
    );
}

/// Every variant the script lists, offline, on a fresh home each, the runs
/// sessions of one served browser.
async fn variants(service: &str) {
    let script = Script::load(service).unwrap();
    let listed: BTreeSet<String> = script.variant.iter().map(|v| v.name.clone()).collect();
    let served: BTreeSet<String> = flow::catalogue()
        .into_iter()
        .find(|(s, _)| s == service)
        .map(|(_, v)| v.into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default();
    assert_eq!(listed, served, "{service}: script.toml lists every variant");
    assert!(
        script.variant.iter().any(|v| v.fails_with.is_some()),
        "{service}: a variant that cannot be cancelled online"
    );
    // The variants share one served browser, each run a context of its
    // own; `offline` and `scripted_model` above take a person's path.
    let browser = ServedBrowser::start().await.unwrap();
    for variant in &script.variant {
        let what = format!("{service} --variant {}", variant.name);
        let site = FlowSite::serve(flow::load(service, Some(&variant.name)).unwrap())
            .await
            .unwrap();
        let home = tempfile::tempdir().unwrap();
        let mut command = cancel(home.path(), service, &site.url(), "offline");
        command.args(browser.args());
        let out = e2e::run(command, "y\n").await.unwrap();
        let Some(words) = &variant.fails_with else {
            assert_cancelled(&out, home.path(), &site, &what);
            continue;
        };
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(1), "{what}: {said}");
        assert!(said.contains("cannot be cancelled here"), "{what}: {said}");
        assert!(said.contains(words.as_str()), "{what}: {said}");
        assert_eq!(approvals(home.path()), 0, "{what}: no yes asked\n{said}");
        let result = e2e::last_result(home.path()).unwrap();
        assert_eq!(result["reason"], "cannot_cancel_here", "{what}: {result}");
        assert!(
            !site
                .requests()
                .iter()
                .any(|r| r.starts_with(&site.flow().commit_request())),
            "{what}: {:?}",
            site.requests()
        );
    }
}

macro_rules! service_tests {
    ($($module:ident => $id:literal),* $(,)?) => {$(
        mod $module {
            #[tokio::test(flavor = "multi_thread")]
            async fn offline() {
                super::offline($id).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            async fn scripted_model() {
                super::scripted_model($id).await;
            }

            #[tokio::test(flavor = "multi_thread")]
            async fn variants() {
                super::variants($id).await;
            }
        }
    )*};
}

service_tests!(
    spotify => "spotify",
    hulu => "hulu",
    disney_plus => "disney-plus",
    max => "max",
    youtube_premium => "youtube-premium",
    amazon_prime => "amazon-prime",
    paramount_plus => "paramount-plus",
    peacock => "peacock",
    nytimes => "nytimes",
);

/// Each service's fixtures pass, and between them hold every predicate both
/// ways: each verdict, a sign-in wall and none, a click that asks and one
/// that does not.
#[test]
fn every_services_fixtures_pass_and_cover_every_predicate() {
    let registry = Registry::load(&PluginEngine::new().unwrap(), None);
    assert!(registry.broken().is_empty(), "{:?}", registry.broken());
    let mut failures = Vec::new();
    for service in FLOW_SERVICES {
        let entry = registry.get(service).unwrap();
        let fixtures = fixture::load_dir(&plugins_dir().join(service).join("fixtures")).unwrap();
        let rows = {
            let mut plugin = entry.plugin.lock().unwrap();
            fixture::check(&mut plugin, &fixtures)
        };
        for row in rows.iter().filter(|r| !r.pass) {
            failures.push(format!(
                "{service} {} {}: expected {}, got {}",
                row.fixture, row.check, row.expected, row.got
            ));
        }
        let seen: BTreeSet<(String, String)> = rows
            .iter()
            .map(|r| {
                let kind = r.check.split(' ').next().unwrap_or_default().to_owned();
                let expected = match kind.as_str() {
                    "detect-auth" if r.expected != "none" => "a wall".to_owned(),
                    _ => r.expected.clone(),
                };
                (kind, expected)
            })
            .collect();
        for (kind, expected) in [
            ("verify", "success"),
            ("verify", "failure"),
            ("verify", "unknown"),
            ("verify", "already-cancelled"),
            ("detect-auth", "a wall"),
            ("detect-auth", "none"),
            ("checkpoint", "asks"),
            ("checkpoint", "does not ask"),
        ] {
            if !seen.contains(&(kind.to_owned(), expected.to_owned())) {
                failures.push(format!("{service}: no fixture expects {kind} {expected}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Whether `text` matches `glob` whole, ignoring case: the statement
/// scanner's reading of a billing descriptor.
fn descriptor_matches(glob: &str, text: &str) -> bool {
    fn go(g: &[char], t: &[char]) -> bool {
        match g.split_first() {
            None => t.is_empty(),
            Some(('*', rest)) => (0..=t.len()).any(|skip| go(rest, &t[skip..])),
            Some((c, rest)) => t.first() == Some(c) && go(rest, &t[1..]),
        }
    }
    let g: Vec<char> = glob.to_uppercase().chars().collect();
    let t: Vec<char> = text.to_uppercase().chars().collect();
    go(&g, &t)
}

/// Every bundled plugin speaks API 0.4.0, names how its charges read on a
/// statement (what the scanner's own table knew), and declares no harmless
/// request: no practice flow posts anything harmless on its honest path
/// (surveys and reasons are GET forms; every other post changes the
/// billing), so none would spare a question.
#[test]
fn bundled_plugins_name_their_charges_and_spare_no_question() {
    let registry = Registry::load(&PluginEngine::new().unwrap(), None);
    // As a bank prints each one.
    let cases = [
        ("netflix", "NETFLIX.COM 866-579-7172 CA"),
        ("spotify", "Spotify P2A1B3C4D5 Stockholm"),
        ("hulu", "HLU*HULU 12345-ABCDE"),
        ("disney-plus", "DISNEY PLUS 888-905-7888 CA"),
        ("max", "HBO MAX NEW YORK NY"),
        ("youtube-premium", "GOOGLE *YouTubePremium g.co/helppay#"),
        ("amazon-prime", "Amazon Prime*2K4LM0TT3 Amzn.com/bill WA"),
        ("paramount-plus", "PARAMOUNT+ 888-274-5343 CA"),
        ("peacock", "PEACOCK 1A2B3C NEW YORK NY"),
        ("nytimes", "NYTIMES*NYTIMES SUBSCR 800-698-4637 NY"),
        ("practice", "STREAMFLIX*MEMBERSHIP"),
    ];
    let bundled: BTreeSet<&str> = registry
        .services()
        .iter()
        .map(|s| s.metadata.id.as_str())
        .collect();
    let named: BTreeSet<&str> = cases.iter().map(|(id, _)| *id).collect();
    assert_eq!(bundled, named, "every bundled plugin, and only those");
    for (id, printed) in cases {
        let entry = registry.get(id).unwrap();
        let m = &entry.metadata;
        assert_eq!(entry.api_version, "0.4.0", "{id}");
        assert!(m.harmless.is_empty(), "{id}: {:?}", m.harmless);
        assert!(
            m.billing_descriptors
                .iter()
                .any(|d| descriptor_matches(d, printed)),
            "{id}: {:?} names no {printed:?}",
            m.billing_descriptors
        );
    }
}

/// `services` and `demo --list` name all ten.
#[tokio::test(flavor = "multi_thread")]
async fn services_and_demo_list_name_all_ten() {
    let home = tempfile::tempdir().unwrap();
    for args in [&["services"][..], &["demo", "--list"][..]] {
        let mut command = e2e::command(home.path());
        command.args(args);
        let out = e2e::run(command, "").await.unwrap();
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {said}");
        for service in FLOW_SERVICES.iter().chain(["netflix"].iter()) {
            assert!(said.contains(service), "{args:?} lacks {service}: {said}");
        }
    }
}

/// `demo <service>` serves the flow itself and runs the service's plugin.
#[tokio::test(flavor = "multi_thread")]
async fn the_demo_runs_a_services_own_flow() {
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command.args(["demo", "spotify", "--headless"]);
    let out = e2e::run(command, "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("✓ Spotify Premium cancellation completed successfully"),
        "{said}"
    );
    assert_eq!(approvals(home.path()), 1, "{said}");

    let mut command = e2e::command(home.path());
    command.args(["demo", "spotify", "--variant", "nosuch"]);
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains(
            "its variants are: billed-elsewhere, interruptions, long, retention, reworded"
        ),
        "{said}"
    );
}

/// A page the plugin knows cannot be cancelled here ends the run before the
/// model is asked anything: it cannot talk its way past, nothing is sent.
#[tokio::test(flavor = "multi_thread")]
async fn a_model_never_acts_on_a_billed_elsewhere_page() {
    let script = Script::load("spotify").unwrap();
    let model = ModelServer::start(script.handler()).await.unwrap();
    let site = FlowSite::serve(flow::load("spotify", Some("billed-elsewhere")).unwrap())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut command = cancel(home.path(), "spotify", &site.url(), "claude-opus-4-6");
    command
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    let out = e2e::run(command, "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("✗ Spotify Premium cannot be cancelled here: billed through Apple: cancel it in your Apple account"),
        "{said}"
    );
    assert_eq!(model.request_count(), 0, "the model was asked");
    assert_eq!(approvals(home.path()), 0, "{said}");
    // Reads only: the page, and the HEAD its redirects are walked with.
    assert!(
        site.requests()
            .iter()
            .all(|r| r.starts_with("GET ") || r.starts_with("HEAD ")),
        "{:?}",
        site.requests()
    );
}
