#![allow(clippy::panic)]

//! The recorded pages in `plugins/hulu/fixtures/`, checked natively: the
//! same expectations `subterminator plugin test` checks on the wasm
//! component, read with a small parser of the tree's text.

use std::path::{Path, PathBuf};

use super::*;

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The elements of the tree's text that carry a quoted name:
/// `- button "Cancel Subscription" [ref=e9]`.
fn elements(yaml: &str) -> Vec<Element> {
    yaml.lines()
        .filter_map(|line| {
            let line = line.trim_start().strip_prefix("- ")?;
            let (role, rest) = line.split_once(" \"")?;
            let name = rest.rsplit_once('"').map(|(name, _)| name)?;
            Some(el(role, &name.replace("\\\"", "\"")))
        })
        .collect()
}

fn verdict_name(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Success => "success",
        Verdict::Failure(_) => "failure",
        Verdict::Unknown => "unknown",
        Verdict::AlreadyCancelled => "already-cancelled",
    }
}

fn auth_name(kind: Option<AuthKind>) -> &'static str {
    match kind {
        None => "none",
        Some(AuthKind::LoginRequired) => "login-required",
        Some(AuthKind::TwoFactor) => "two-factor",
        Some(AuthKind::Captcha) => "captcha",
        Some(AuthKind::SessionExpired) => "session-expired",
    }
}

#[test]
fn every_fixture_meets_its_expectations() {
    let dir = fixtures_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let fixture: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        let get = |key: &str| {
            fixture
                .get(key)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
        };
        let yaml = std::fs::read_to_string(dir.join(get("snapshot"))).unwrap_or_default();
        let snapshot = page(get("url"), get("title"), &yaml, elements(&yaml));
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(expect) = fixture.get("expect").and_then(|v| v.as_table()) else {
            continue;
        };
        if let Some(want) = expect.get("verify").and_then(|v| v.as_str()) {
            let got = Hulu.verify(&snapshot);
            if verdict_name(&got) != want {
                failures.push(format!("{name}: verify {got:?}, want {want}"));
            }
        }
        if let Some(want) = expect.get("auth").and_then(|v| v.as_str()) {
            let got = auth_name(Hulu.detect_auth(&snapshot).map(|e| e.kind));
            if got != want {
                failures.push(format!("{name}: auth {got}, want {want}"));
            }
        }
        for check in expect
            .get("checkpoint")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
        {
            let field = |key: &str| check.get(key).and_then(|v| v.as_str()).unwrap_or_default();
            let call = ToolCall {
                action: field("action").into(),
                arguments_json: "{}".into(),
                target: Some(el(field("role"), field("name"))),
                facts: None,
            };
            let want = check
                .get("ask")
                .and_then(|v| v.as_bool())
                .unwrap_or_default();
            let got = Hulu.checkpoint(&call, &snapshot);
            if got.is_some() != want {
                failures.push(format!(
                    "{name}: checkpoint {} {got:?}, want ask = {want}",
                    field("name")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
