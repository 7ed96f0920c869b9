//! The plugin ecosystem, end to end through the real binary: a declarative
//! service and a Rust plugin are each created by `plugin new`, given fixtures
//! by `plugin record` on a site served here, checked by `plugin test`,
//! installed by `plugin install`, and used to cancel on that site with a
//! scripted model and exactly one approval. Then every way an install or a
//! load must refuse: tampered bytes, a wrong hash, an API mismatch, an index
//! entry whose hash does not match, a malformed `service.toml`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use serde_json::json;
use subterminator_tests::e2e;
use subterminator_tests::human;
use subterminator_tests::model_server::{ModelServer, RecordedRequest, Reply};
use subterminator_tests::scripted::{SCRIPTED_ANTHROPIC_KEY, find_ref};
use subterminator_tests::site::{Site, site_dir};

/// The workspace this test was built from: its SDK, lock file and target.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Where scaffolded Rust plugins build: the folder the build of this test
/// crate compiled its own wasm plugins in, from the same lock file, so their
/// dependencies (wit-bindgen and the proc macros behind it) are compiled
/// already. From nothing that was 38.8 CPU-s of this test's 43.
fn scaffold_target() -> PathBuf {
    PathBuf::from(env!("SUBTERMINATOR_WASM_PLUGINS_TARGET"))
}

/// The binary with a fresh home, and builds of scaffolded crates pointed at
/// the shared target folder.
fn command(home: &Path, args: &[&str]) -> tokio::process::Command {
    let mut command = e2e::command(home);
    command
        .args(args)
        .env("CARGO_TARGET_DIR", scaffold_target());
    command
}

async fn run(home: &Path, args: &[&str]) -> (i32, String) {
    let output = e2e::run(command(home, args), "").await.unwrap();
    (output.status.code().unwrap_or(-1), e2e::text(&output))
}

/// Clicks through the example flow as a model would with `--tools full`.
fn example_canceller(request: &RecordedRequest) -> Reply {
    let page = request.latest_input().unwrap_or_default();
    if page.contains("has been cancelled") {
        return Reply::tool(
            "complete_task",
            json!({"status": "success", "reason": "The page says it is cancelled."}),
        );
    }
    for name in ["Finish cancellation", "Cancel subscription"] {
        if let Some(target) = find_ref(&page, "button", name) {
            return Reply::tool("browser_click", json!({"element": name, "target": target}));
        }
    }
    Reply::text("I do not know what to do on this page.")
}

const WALK: &str = r#"
[[step]]
click = { role = "button", name = "Cancel subscription" }

[[step]]
click = { role = "button", name = "Finish cancellation" }
"#;

/// Fills in what the plugin must say about each recorded page, as an author
/// would after `plugin record`.
fn expect_recorded(fixtures: &Path) -> usize {
    let mut recorded = 0;
    for entry in std::fs::read_dir(fixtures).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let Some(url) = text
            .lines()
            .find_map(|l| l.strip_prefix("url = "))
            .map(|u| u.trim_matches('"').to_owned())
        else {
            continue;
        };
        if !url.starts_with("http://127.0.0.1") {
            continue;
        }
        recorded += 1;
        let expect = if url.contains("/cancelled.html") {
            "verify = \"success\"\nauth = \"none\"\n"
        } else if url.contains("/confirm.html") {
            "verify = \"unknown\"\n\n[[expect.checkpoint]]\naction = \"browser_click\"\nrole = \"button\"\nname = \"Finish cancellation\"\nask = true\n"
        } else {
            "verify = \"unknown\"\n\n[[expect.checkpoint]]\naction = \"browser_click\"\nrole = \"button\"\nname = \"Cancel subscription\"\nask = false\n"
        };
        assert!(
            text.trim_end().lines().any(|l| l.trim() == "[expect]"),
            "a recorded fixture ends in its [expect] table:\n{text}"
        );
        std::fs::write(&path, format!("{}\n{expect}", text.trim_end())).unwrap();
    }
    recorded
}

/// `new` → `record` → `test` → `install` → `cancel`, for one kind.
async fn from_new_to_cancel(declarative: bool) {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("acme");
    let dir_arg = dir.display().to_string();
    let site = Site::serve(&site_dir("example")).await.unwrap();

    // 1. new
    let mut new = vec!["plugin", "new", "acme", "--dir", &dir_arg];
    if declarative {
        new.push("--declarative");
    }
    let (code, text) = run(home.path(), &new).await;
    assert_eq!(code, 0, "plugin new: {text}");
    if !declarative {
        // Build with the workspace's own dependency versions, already
        // compiled for the plugin target.
        std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    }

    // 2. record, driven by a scripted walker
    let walk = work.path().join("walk.toml");
    std::fs::write(&walk, WALK).unwrap();
    let start = site.url("/account.html");
    let (code, text) = run(
        home.path(),
        &[
            "plugin",
            "record",
            "acme",
            "--start-url",
            &start,
            "--headless",
            "--walk",
            &walk.display().to_string(),
            "--out",
            &dir_arg,
        ],
    )
    .await;
    assert_eq!(code, 0, "plugin record: {text}");
    assert_eq!(
        expect_recorded(&dir.join("fixtures")),
        3,
        "account, confirm and cancelled pages recorded: {text}"
    );

    // 3. test, inside the sandbox
    let (code, text) = run(home.path(), &["plugin", "test", &dir_arg]).await;
    assert_eq!(code, 0, "plugin test: {text}");
    assert!(text.contains(" 0 failed"), "{text}");
    assert!(text.contains("Finish cancellation"), "{text}");

    // 4. install
    let (code, text) = run(home.path(), &["plugin", "install", &dir_arg, "--yes"]).await;
    assert_eq!(code, 0, "plugin install: {text}");
    assert!(text.contains("may visit"), "permissions shown: {text}");
    let output = e2e::run(command(home.path(), &["plugin", "list", "--json"]), "")
        .await
        .unwrap();
    let text = e2e::text(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let listed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let acme = listed["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == "acme")
        .unwrap_or_else(|| panic!("acme listed: {text}"));
    assert_eq!(
        acme["kind"],
        if declarative {
            "declarative"
        } else {
            "component"
        }
    );
    assert_eq!(acme["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(acme["source"]["kind"], "installed");

    // 5. cancel with the scripted model: exactly one approval, and the
    // commit reaches the site only after it.
    let model = ModelServer::start(example_canceller).await.unwrap();
    let mut cancel = command(
        home.path(),
        &[
            "cancel",
            "acme",
            "--start-url",
            &start,
            "--tools",
            "full",
            "--headless",
            "--isolated",
            "--model",
            "claude-opus-4-6",
            "--model-drives",
        ],
    );
    cancel
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    // The recorder's walk committed once already; count from here.
    let posts = || {
        site.requests()
            .iter()
            .filter(|r| r.method == "POST" && r.path() == "/cancelled.html")
            .count()
    };
    let recorded = posts();
    let commits = || posts() - recorded;
    let session = human::run(cancel, |_| true, commits).await.unwrap();
    let text = e2e::text(&session.output);
    assert_eq!(session.output.status.code(), Some(0), "{text}");
    assert_eq!(session.prompts.len(), 1, "one approval: {text}");
    assert!(
        session.prompts[0].text.contains("Finish cancellation"),
        "{text}"
    );
    assert_eq!(session.prompts[0].commits_before, 0);
    assert_eq!(commits(), 1);
    let result = e2e::last_result(home.path()).unwrap();
    assert_eq!(result["verified"], true, "{result}");
    // The run's record says which plugin ran: its exact bytes and origin.
    let run = e2e::run_dirs(home.path()).pop().unwrap();
    let transcript = std::fs::read_to_string(run.join("transcript.jsonl")).unwrap();
    let line: serde_json::Value = serde_json::from_str(transcript.lines().next().unwrap()).unwrap();
    let started = &line["event"];
    assert_eq!(started["type"], "run_started", "{started}");
    assert_eq!(started["plugin"]["sha256"], acme["sha256"], "{started}");
    assert_eq!(
        started["plugin"]["source"]["kind"], "installed",
        "{started}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declarative_service_goes_from_new_to_a_verified_cancellation() {
    from_new_to_cancel(true).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rust_plugin_goes_from_new_to_a_verified_cancellation() {
    from_new_to_cancel(false).await;
}

/// A declarative plugin folder made by `plugin new`, in `work`.
async fn new_declarative(home: &Path, work: &Path, id: &str) -> PathBuf {
    let dir = work.join(id);
    let (code, text) = run(
        home,
        &[
            "plugin",
            "new",
            id,
            "--declarative",
            "--dir",
            &dir.display().to_string(),
        ],
    )
    .await;
    assert_eq!(code, 0, "{text}");
    dir.join("service.toml")
}

fn sha256(bytes: &[u8]) -> String {
    subterminator_core::plugin::sha256_hex(bytes)
}

#[tokio::test(flavor = "multi_thread")]
async fn tampered_bytes_are_refused_at_load() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let service = new_declarative(home.path(), work.path(), "acme").await;
    let (code, text) = run(
        home.path(),
        &["plugin", "install", &service.display().to_string(), "--yes"],
    )
    .await;
    assert_eq!(code, 0, "{text}");
    let installed = home.path().join("data/plugins/acme.toml");
    let mut bytes = std::fs::read(&installed).unwrap();
    bytes.extend_from_slice(b"\n# one more line\n");
    std::fs::write(&installed, bytes).unwrap();

    let (code, text) = run(home.path(), &["services"]).await;
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("no longer match its manifest entry"),
        "{text}"
    );
    assert!(!text.lines().any(|l| l.starts_with("acme ")), "{text}");
    let (code, text) = run(
        home.path(),
        &["cancel", "acme", "--headless", "--isolated", "--dry-run"],
    )
    .await;
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("'acme' is installed but was not loaded") && text.contains("no longer match"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn installs_that_must_refuse() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let service = new_declarative(home.path(), work.path(), "acme").await;
    let service_arg = service.display().to_string();
    let good_sha = sha256(&std::fs::read(&service).unwrap());
    let wrong_sha = "0".repeat(64);
    let practice = new_declarative(home.path(), work.path(), "practice").await;

    // An index served on 127.0.0.1: one entry whose hash matches, one not.
    let served = tempfile::tempdir().unwrap();
    std::fs::copy(&service, served.path().join("acme.toml")).unwrap();
    std::fs::write(
        served.path().join("index.toml"),
        format!(
            "[[plugin]]\nid = \"acme\"\nversion = \"0.1.0\"\napi = \">=0.2.0, <0.3.0\"\nurl = \"acme.toml\"\nsha256 = \"{good_sha}\"\n\n\
             [[plugin]]\nid = \"evil\"\nversion = \"0.1.0\"\napi = \">=0.2.0, <0.3.0\"\nurl = \"acme.toml\"\nsha256 = \"{wrong_sha}\"\n\n\
             [[plugin]]\nid = \"future\"\nversion = \"9.0.0\"\napi = \">=0.9.0\"\nurl = \"acme.toml\"\nsha256 = \"{good_sha}\"\n"
        ),
    )
    .unwrap();
    let index_site = Site::serve(served.path()).await.unwrap();
    std::fs::create_dir_all(home.path().join("config")).unwrap();
    std::fs::write(
        home.path().join("config/config.toml"),
        format!("[plugins]\nindex = \"{}\"\n", index_site.url("/index.toml")),
    )
    .unwrap();
    let url = index_site.url("/acme.toml");

    let future = env!("SUBTERMINATOR_FUTURE_API_WASM");
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        (
            "a wrong hash",
            vec![&service_arg, "--sha256", &wrong_sha, "--yes"],
            "was expected",
        ),
        (
            "an API mismatch",
            vec![future, "--yes"],
            "speaks plugin API 0.9.0",
        ),
        (
            "an index entry whose hash does not match",
            vec!["evil", "--yes"],
            "the index entry for 'evil' 0.1.0",
        ),
        (
            "an index with no version for this API",
            vec!["future", "--yes"],
            "runs on plugin API",
        ),
        (
            "a URL without --sha256",
            vec![&url, "--yes"],
            "needs --sha256",
        ),
        (
            "a bundled plugin's id",
            vec![practice.to_str().unwrap(), "--yes"],
            "is the id of a bundled plugin; pass --replace",
        ),
        ("no yes and no terminal", vec![&service_arg], "pass --yes"),
    ];
    for (name, args, want) in &cases {
        let mut full = vec!["plugin", "install"];
        full.extend(args);
        let (code, text) = run(home.path(), &full).await;
        assert_eq!(code, 2, "{name}: {text}");
        assert!(text.contains(want), "{name}: wanted {want:?} in:\n{text}");
    }
    let manifest = home.path().join("data/plugins/installed.toml");
    assert!(!manifest.exists(), "nothing was installed");

    // The same index installs the entry whose hash matches, and a URL with
    // its hash installs too.
    let (code, text) = run(home.path(), &["plugin", "install", "acme", "--yes"]).await;
    assert_eq!(code, 0, "{text}");
    let (code, text) = run(home.path(), &["plugin", "info", "acme"]).await;
    assert_eq!(code, 0, "{text}");
    assert!(text.contains(&good_sha), "{text}");
    assert!(text.contains("index "), "{text}");
    let (code, text) = run(
        home.path(),
        &[
            "plugin",
            "install",
            &url,
            "--sha256",
            &good_sha,
            "--replace",
            "--yes",
        ],
    )
    .await;
    assert_eq!(code, 0, "{text}");
    let (code, text) = run(home.path(), &["plugin", "remove", "acme"]).await;
    assert_eq!(code, 0, "{text}");
    let (code, text) = run(home.path(), &["plugin", "remove", "netflix"]).await;
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("bundled"), "{text}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_service_file_names_the_line_and_the_key() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let service = new_declarative(home.path(), work.path(), "acme").await;
    let text = std::fs::read_to_string(&service).unwrap();
    // An unknown key on a line of its own, right after the [service] header.
    let header = text.find("\n[service]").unwrap() + 1;
    let at = header + text[header..].find('\n').unwrap() + 1;
    let line = text[..at].lines().count() + 1;
    let broken = format!("{}colour = \"red\"\n{}", &text[..at], &text[at..]);
    std::fs::write(&service, broken).unwrap();
    for command in [vec!["plugin", "test"], vec!["plugin", "install"]] {
        let mut args = command.clone();
        let path = service.display().to_string();
        args.push(&path);
        args.push("--yes");
        if command[1] == "test" {
            args.pop();
        }
        let (code, out) = run(home.path(), &args).await;
        assert_ne!(code, 0, "{out}");
        assert!(
            out.contains(&format!("line {line}")) && out.contains("colour"),
            "{command:?}: wanted line {line} and the key:\n{out}"
        );
    }
}

/// Before its yes, `plugin install` shows the requests a plugin lets pass
/// unasked (step, method, host, path) and its billing descriptors; `services
/// show` shows them too, each under its plan step; and a plugin that would
/// let a commit pass unasked is not installed.
#[tokio::test(flavor = "multi_thread")]
async fn install_and_show_list_harmless_requests_and_descriptors() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let service = new_declarative(home.path(), work.path(), "acme").await;
    let scaffolded = std::fs::read_to_string(&service).unwrap();
    let declared = "harmless-requests = [{ step = 0, method = \"POST\", host = \"www.example.com\", path = \"/account/survey*\" }]";
    let with_survey = scaffolded.replacen("harmless-requests = []", declared, 1);
    assert_ne!(
        with_survey, scaffolded,
        "the scaffold writes harmless-requests"
    );
    std::fs::write(&service, &with_survey).unwrap();
    let path = service.display().to_string();

    let (code, text) = run(home.path(), &["plugin", "install", &path, "--yes"]).await;
    assert_eq!(code, 0, "{text}");
    for want in [
        "passes unasked:  POST www.example.com/account/survey*, while plan step 1 (\"Open the cancellation flow\") runs",
        "on statements:   EXAMPLE.COM*",
    ] {
        assert!(text.contains(want), "wanted {want:?} in:\n{text}");
    }
    let (code, text) = run(home.path(), &["services", "show", "acme"]).await;
    assert_eq!(code, 0, "{text}");
    for want in [
        "1. Open the cancellation flow",
        "passes unasked: POST www.example.com/account/survey*",
        "on statements:   EXAMPLE.COM*",
    ] {
        assert!(text.contains(want), "wanted {want:?} in:\n{text}");
    }
    let step = text.find("1. Open the cancellation flow").unwrap();
    let next = text.find("2. Finish the cancellation").unwrap();
    let listed = text.find("passes unasked").unwrap();
    assert!(step < listed && listed < next, "under its step:\n{text}");

    // The same plugin claiming any POST of its first step: refused, and
    // what was installed stays as it was.
    let lying = scaffolded.replacen(
        "harmless-requests = []",
        "harmless-requests = [{ step = 0, method = \"POST\", host = \"www.example.com\", path = \"/account/cancel*\" }]",
        1,
    );
    std::fs::write(&service, lying).unwrap();
    let (code, text) = run(
        home.path(),
        &["plugin", "install", &path, "--replace", "--yes"],
    )
    .await;
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("harmless-requests[0].path: \"/account/cancel*\" holds \"cancel\""),
        "{text}"
    );
    let (code, text) = run(home.path(), &["services", "show", "acme"]).await;
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("/account/survey*"), "{text}");
}
