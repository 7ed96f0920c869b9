//! Several services in one command: each in a browser of its own, at the
//! same time; approvals through one queue, one at a time, each naming the
//! service; Ctrl+C stops them all with no process left; a table or a JSON
//! array at the end; exit 0 only when every run verified.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use subterminator_practice::{FlowSite, flow};
use subterminator_tests::e2e;

async fn serve(service: &str, variant: Option<&str>) -> FlowSite {
    FlowSite::serve(flow::load(service, variant).unwrap())
        .await
        .unwrap()
}

fn commits(site: &FlowSite) -> usize {
    let commit = site.flow().commit_request();
    site.requests()
        .iter()
        .filter(|r| r.starts_with(&commit))
        .count()
}

/// `cancel spotify hulu`, each on its local copy, offline, headless.
fn batch(home: &Path, sites: &[(&str, &FlowSite)], extra: &[&str]) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command.arg("cancel");
    command.args(sites.iter().map(|(id, _)| *id));
    for (id, site) in sites {
        command.args(["--start-url", &format!("{id}={}", site.url())]);
    }
    command.args(["--model", "offline", "--headless", "--isolated"]);
    command.args(extra);
    command
}

#[tokio::test(flavor = "multi_thread")]
async fn two_services_in_one_command_each_ask_once_in_turn() {
    let (spotify, hulu) = (serve("spotify", None).await, serve("hulu", None).await);
    let home = tempfile::tempdir().unwrap();
    let command = batch(home.path(), &[("spotify", &spotify), ("hulu", &hulu)], &[]);
    let out = e2e::run(command, "y\ny\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    // Both asked, each naming itself, one question at a time: the first
    // prompt ends with its answer before the second begins.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let asks: Vec<usize> = stdout.match_indices("] asks:").map(|(i, _)| i).collect();
    assert_eq!(asks.len(), 2, "{said}");
    assert!(stdout.contains("[Spotify Premium] asks:"), "{said}");
    assert!(stdout.contains("[Hulu] asks:"), "{said}");
    let between = &stdout[asks[0]..asks[1]];
    assert_eq!(between.matches("Approve? [y/N]").count(), 1, "{said}");
    // Each run's lines are labelled, and each kept its own record.
    assert!(stdout.contains("[Spotify Premium] [Turn 1]"), "{said}");
    assert!(stdout.contains("[Hulu] [Turn 1]"), "{said}");
    let runs = e2e::run_dirs(home.path());
    assert_eq!(runs.len(), 2, "{runs:?}");
    for dir in &runs {
        let result: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap())
                .unwrap();
        assert_eq!(result["verified"], true, "{}", dir.display());
    }
    // One commit on each site, after its yes.
    assert_eq!(commits(&spotify), 1, "{:?}", spotify.requests());
    assert_eq!(commits(&hulu), 1, "{:?}", hulu.requests());
    // The table, a row each.
    let table = stdout.rsplit("SERVICE").next().unwrap();
    for id in ["spotify", "hulu"] {
        assert!(
            table
                .lines()
                .any(|l| l.starts_with(id) && l.contains("verified")),
            "{said}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_and_a_verified_run_exit_1_and_json_gives_both() {
    let spotify = serve("spotify", None).await;
    let hulu = serve("hulu", Some("billed-elsewhere")).await;
    let home = tempfile::tempdir().unwrap();
    let command = batch(
        home.path(),
        &[("spotify", &spotify), ("hulu", &hulu)],
        &["--json", "--jobs", "1"],
    );
    let out = e2e::run(command, "y\n").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    // stdout is one JSON array, in the order the services were named.
    let all: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 2, "{said}");
    assert_eq!(all[0]["service"], "spotify");
    assert_eq!(all[0]["result"]["verified"], true, "{said}");
    assert_eq!(all[1]["service"], "hulu");
    assert_eq!(all[1]["result"]["reason"], "cannot_cancel_here", "{said}");
    assert_eq!(all[1]["result"]["exit_code"], 1);
    assert!(all[1]["run_dir"].is_string());
    // The prompt went to stderr, the billed-elsewhere run asked nothing.
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .matches("] asks:")
            .count(),
        1,
        "{said}"
    );
    assert_eq!(commits(&spotify), 1);
    assert_eq!(commits(&hulu), 0, "{:?}", hulu.requests());
}

#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_stops_every_run_of_a_batch_and_leaves_no_process() {
    let (spotify, hulu) = (serve("spotify", None).await, serve("hulu", None).await);
    let home = tempfile::tempdir().unwrap();
    let mut child = batch(home.path(), &[("spotify", &spotify), ("hulu", &hulu)], &[])
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    // Keep stdin open and answer nothing: one run waits at its question,
    // the other behind it in the queue.
    let _stdin = child.stdin.take().unwrap();
    let mut seen = Vec::new();
    let deadline = Instant::now() + e2e::RUN_TIMEOUT;
    let both_up = |seen: &[u8]| {
        let text = String::from_utf8_lossy(seen);
        text.contains("Approve? [y/N]")
            && text.contains("[Spotify Premium] [Turn 1]")
            && text.contains("[Hulu] [Turn 1]")
    };
    while !both_up(&seen) {
        assert!(
            Instant::now() < deadline,
            "{}",
            String::from_utf8_lossy(&seen)
        );
        let mut buf = [0u8; 4096];
        let n = tokio::io::AsyncReadExt::read(&mut stdout, &mut buf)
            .await
            .unwrap();
        assert!(n > 0, "ended early: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    let started = e2e::descendants(pid);
    assert!(started.len() >= 4, "two servers and browsers: {started:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let sent = Instant::now();
    let status = tokio::time::timeout(Duration::from_secs(15), child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(status.code(), Some(130));
    let left = e2e::still_alive(started, Duration::from_secs(2)).await;
    assert!(left.is_empty(), "processes left behind: {left:?}");
    assert_eq!(commits(&spotify) + commits(&hulu), 0);
    // Each run recorded how it ended.
    let runs = e2e::run_dirs(home.path());
    assert_eq!(runs.len(), 2, "{runs:?}");
    for dir in runs {
        let result = std::fs::read_to_string(dir.join("result.json")).unwrap();
        assert!(result.contains("\"interrupted\""), "{result}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_service_twice_on_its_signed_in_profile_is_refused_before_anything_starts() {
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command.args([
        "cancel",
        "spotify",
        "spotify",
        "--model",
        "offline",
        "--headless",
    ]);
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("spotify is listed twice"), "{said}");
    assert!(said.contains("--isolated"), "{said}");
    assert!(e2e::run_dirs(home.path()).is_empty(), "nothing started");
    // A start URL that names no listed service is refused as clearly.
    let mut command = e2e::command(home.path());
    command.args([
        "cancel",
        "spotify",
        "hulu",
        "--start-url",
        "http://127.0.0.1:9/",
    ]);
    command.args(["--model", "offline", "--headless"]);
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("say whose it is"), "{said}");
}
