//! `--cdp-endpoint`: a Chromium that already runs (started here with
//! `--remote-debugging-port` on 127.0.0.1, as a person's own Chrome or a
//! grid's would be) driven through Playwright MCP's own CDP support. Every
//! safety layer holds as when we start the browser, the grid's token never
//! reaches a command line or a record, and the browser outlives the run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use subterminator_practice::{FINISH_REQUEST, PracticeSite, SiteOptions};
use subterminator_tests::e2e;
use subterminator_tests::remote_chromium::RemoteChromium;

/// A grid token, sent as a header; it must show up nowhere we write.
const TOKEN: &str = "GRID-TOKEN-NEVER-WRITTEN";

/// The config naming the header's variable, as a grid's user writes it.
fn configure(home: &Path) {
    std::fs::create_dir_all(home.join("config")).unwrap();
    std::fs::write(
        home.join("config/config.toml"),
        "[browser]\ncdp-headers-env = \"TEST_GRID_HEADER\"\n",
    )
    .unwrap();
}

fn cancel(home: &Path, site: &PracticeSite, chromium: &RemoteChromium) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command
        .args(["cancel", "practice", "--start-url", &site.url()])
        .args(["--cdp-endpoint", &chromium.endpoint()])
        .args(["--model", "offline", "--headless"])
        .env("TEST_GRID_HEADER", format!("Authorization: Bearer {TOKEN}"));
    command
}

/// Every file under `dir`, read whole.
fn every_byte(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                out.push((path, bytes));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancellation_through_an_attached_chromium_leaves_it_running() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    let mut chromium = RemoteChromium::start("about:blank").unwrap();
    let tabs_before = chromium.tabs().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    configure(home.path());

    // doctor attaches as a run would.
    let mut doctor = e2e::command(home.path());
    doctor
        .args(["doctor", "--cdp-endpoint", &chromium.endpoint()])
        .env("TEST_GRID_HEADER", format!("Authorization: Bearer {TOKEN}"));
    let said = e2e::text(&e2e::run(doctor, "").await.unwrap());
    assert!(
        said.contains("✓ Attached browser: http://127.0.0.1:"),
        "{said}"
    );

    // A "no" first: the final click never happens, attached or not.
    let out = e2e::run(cancel(home.path(), &site, &chromium), "n\n")
        .await
        .unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        !site.requests().iter().any(|r| r == FINISH_REQUEST),
        "{said}"
    );

    // Then a yes: one commit, after it, verified.
    let out = e2e::run(cancel(home.path(), &site, &chromium), "y\n")
        .await
        .unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("completed successfully"), "{said}");
    assert_eq!(e2e::last_result(home.path()).unwrap()["verified"], true);
    let commits = site
        .requests()
        .iter()
        .filter(|r| *r == FINISH_REQUEST)
        .count();
    assert_eq!(commits, 1, "{:?}", site.requests());

    // The browser is not ours: it runs on, with the tab it had, and none
    // of our run's own pages left in it.
    assert!(chromium.running(), "the attached browser was closed");
    let tabs_after = chromium.tabs().await.unwrap();
    assert_eq!(tabs_after, tabs_before, "the person's tabs, untouched");

    // The token went only into the server's environment: not into any
    // file of ours (records, the server's config, logs).
    for (path, bytes) in every_byte(home.path()) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(TOKEN),
            "{} holds the token",
            path.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endpoint_that_does_not_answer_is_a_clear_connection_error() {
    let site = PracticeSite::serve(SiteOptions::default()).await.unwrap();
    // A port nobody listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command
        .args(["cancel", "practice", "--start-url", &site.url()])
        .args(["--cdp-endpoint", &format!("http://127.0.0.1:{port}")])
        .args(["--model", "offline", "--headless"]);
    let out = e2e::run(command, "").await.unwrap();
    let said = e2e::text(&out);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(
        said.contains(&format!(
            "Could not attach to the browser at http://127.0.0.1:{port}"
        )),
        "{said}"
    );
    assert!(said.contains("--remote-debugging-port"), "{said}");

    // A malformed endpoint or header is refused before anything starts.
    for (endpoint, header, want) in [
        ("127.0.0.1:9222", None, "is not a URL"),
        ("ftp://grid/", None, "must be a ws://"),
        ("http://127.0.0.1:9/", Some("no colon here"), "has no `:`"),
    ] {
        let mut command = e2e::command(home.path());
        configure(home.path());
        command
            .args(["cancel", "practice", "--cdp-endpoint", endpoint])
            .args(["--model", "offline", "--headless"]);
        match header {
            Some(h) => command.env("TEST_GRID_HEADER", h),
            None => command.env("TEST_GRID_HEADER", "Authorization: Bearer x"),
        };
        let out = e2e::run(command, "").await.unwrap();
        let said = e2e::text(&out);
        assert_eq!(out.status.code(), Some(2), "{endpoint}: {said}");
        assert!(said.contains(want), "{endpoint}: {said}");
    }
}
