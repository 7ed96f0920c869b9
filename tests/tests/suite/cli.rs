//! The command line's promises that need no browser run: listings, exit
//! codes for configuration errors, doctor's verdicts, completions, help.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use subterminator_tests::e2e;

async fn run(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let home = tempfile::tempdir().unwrap();
    let mut command = e2e::command(home.path());
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    let out = e2e::run(command, "").await.unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn services_lists_the_bundled_plugins() {
    let (code, out, err) = run(&["services"], &[]).await;
    assert_eq!(code, Some(0), "{err}");
    let netflix = out
        .lines()
        .find(|l| l.starts_with("netflix"))
        .unwrap_or_default();
    assert!(
        netflix.contains("Netflix") && netflix.contains("0.1.0") && netflix.contains("bundled"),
        "{out}"
    );
    assert!(out.contains("practice"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn services_show_gives_metadata_and_plan() {
    let (code, out, err) = run(&["services", "show", "netflix"], &[]).await;
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("https://www.netflix.com/account"), "{out}");
    assert!(out.contains("1. Open the cancellation flow"), "{out}");
    let (code, out, _) = run(&["services", "show", "netflix", "--json"], &[]).await;
    assert_eq!(code, Some(0));
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value["metadata"]["id"], "netflix");
    assert_eq!(value["plan"].as_array().map(Vec::len), Some(4));
}

#[tokio::test(flavor = "multi_thread")]
async fn unknown_services_exit_2_naming_the_known_ones() {
    for args in [
        &["services", "show", "crunchyroll"][..],
        &["cancel", "crunchyroll"][..],
    ] {
        let (code, _, err) = run(args, &[]).await;
        assert_eq!(code, Some(2), "{args:?}: {err}");
        assert!(
            err.contains("Unknown service 'crunchyroll'. Available services: amazon-prime, disney-plus, hulu, max, netflix, nytimes, paramount-plus, peacock, practice, spotify, youtube-premium"),
            "{err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_key_exits_2_with_the_prototypes_message() {
    let (code, _, err) = run(&["cancel", "netflix", "--headless"], &[]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("Missing ANTHROPIC_API_KEY. Set it via environment variable or use --model gpt-4o with OPENAI_API_KEY."),
        "{err}"
    );
    let (code, _, err) = run(&["cancel", "netflix", "--model", "gpt-4o"], &[]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("Missing OPENAI_API_KEY"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unsupported_model_exits_2() {
    let (code, _, err) = run(&["cancel", "netflix", "--model", "llama-3"], &[]).await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("Unsupported model: llama-3"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_flags_are_clear() {
    let (code, _, err) = run(
        &[
            "cancel",
            "netflix",
            "--start-url",
            "ftp://x",
            "--model",
            "offline",
        ],
        &[],
    )
    .await;
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("must be an http(s) URL"), "{err}");
    let (code, _, err) = run(
        &[
            "cancel",
            "netflix",
            "--max-turns",
            "0",
            "--model",
            "offline",
        ],
        &[],
    )
    .await;
    assert_eq!(code, Some(2), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_reports_a_missing_browser() {
    let (code, out, err) = run(
        &["doctor"],
        &[("SUBTERMINATOR_BROWSER", "/nonexistent/chromium")],
    )
    .await;
    assert_eq!(code, Some(1), "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.contains("Browser:"))
        .unwrap_or_default();
    assert!(line.starts_with('✗'), "{out}");
    assert!(line.contains("/nonexistent/chromium"), "{out}");
    assert!(out.contains("fix:"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("✓ Node.js")), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn doctor_passes_on_this_machine_without_showing_keys() {
    let (code, out, err) = run(
        &["doctor"],
        &[("ANTHROPIC_API_KEY", "sk-ant-doctor-secret")],
    )
    .await;
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("ANTHROPIC_API_KEY: set"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("✓ MCP server: `subterminator mcp` answers: 11 tools")),
        "{out}"
    );
    assert!(!out.contains("sk-ant-doctor-secret") && !err.contains("sk-ant-doctor-secret"));
}

#[tokio::test(flavor = "multi_thread")]
async fn completions_and_help() {
    let (code, out, _) = run(&["completions", "bash"], &[]).await;
    assert_eq!(code, Some(0));
    assert!(out.contains("subterminator"), "{out}");
    for command in [
        "cancel",
        "demo",
        "login",
        "doctor",
        "services",
        "completions",
        "mcp",
    ] {
        let (code, out, _) = run(&[command, "--help"], &[]).await;
        assert_eq!(code, Some(0), "{command}");
        assert!(out.contains("Examples:"), "{command}: {out}");
    }
}

/// Escape sequences in what a command wrote to stderr.
fn escapes(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| **b == 0x1b).count()
}

#[tokio::test(flavor = "multi_thread")]
async fn logs_are_coloured_only_on_a_terminal_and_never_with_no_color() {
    let home = tempfile::tempdir().unwrap();
    // `-vv services` logs a few debug lines from the plugin loader.
    let args = ["-vv", "services"];
    let mut piped = e2e::command(home.path());
    piped.args(args).env_remove("NO_COLOR");
    let out = e2e::run(piped, "").await.unwrap();
    assert!(out.stderr.len() > 100, "some logs were written");
    assert_eq!(escapes(&out.stderr), 0, "a pipe gets no colour");

    // On a terminal (script gives one; its stdout carries stderr too) the
    // same logs are coloured, unless NO_COLOR says not to.
    let mut terminal = e2e::on_terminal(home.path(), &args);
    terminal.env_remove("NO_COLOR");
    let out = e2e::run(terminal, "").await.unwrap();
    assert!(escapes(&out.stdout) > 0, "a terminal gets colour");
    let terminal = e2e::on_terminal(home.path(), &args);
    let out = e2e::run(terminal, "").await.unwrap();
    assert_eq!(escapes(&out.stdout), 0, "NO_COLOR=1 is honoured");
}

#[tokio::test(flavor = "multi_thread")]
async fn services_columns_line_up_whatever_the_length_of_a_name() {
    let (code, out, err) = run(&["services"], &[]).await;
    assert_eq!(code, Some(0), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let at = |line: &str, word: &str| line.find(word).map(|i| line[..i].chars().count());
    let api = at(lines[0], "API").unwrap();
    for line in &lines[1..] {
        assert_eq!(at(line, "0.4.0"), Some(api), "{out}");
    }
}
