//! A plugin's fixtures: recorded pages, each with what the plugin must say
//! about it, checked by `subterminator plugin test` against the component
//! users will install, inside the real sandbox.
//!
//! One fixture is `fixtures/<page>.toml` beside `fixtures/<page>.yaml`:
//!
//! ```toml
//! snapshot = "confirm.yaml"
//! url = "https://www.example.com/account/cancel/confirm"
//! title = "Cancel your subscription"
//!
//! [expect]
//! verify = "unknown"
//! auth = "none"
//!
//! [[expect.checkpoint]]
//! action = "browser_click"
//! role = "button"
//! name = "Finish cancellation"
//! ask = true
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::browser::parse_tree;
use crate::page::{Element, Snapshot};
use crate::plugin::{AuthKind, Plugin, ToolCallView, Verdict};

/// Largest fixture or snapshot file read, in bytes.
pub const FIXTURE_MAX_BYTES: u64 = 4 * 1024 * 1024;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    snapshot: String,
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    expect: Expect,
}

/// What the plugin must say; a key left out is not checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    pub verify: Option<VerifyExpect>,
    pub auth: Option<AuthExpect>,
    #[serde(default)]
    pub checkpoint: Vec<CheckpointExpect>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerifyExpect {
    Success,
    Failure,
    Unknown,
    AlreadyCancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuthExpect {
    None,
    LoginRequired,
    TwoFactor,
    Captcha,
    SessionExpired,
}

/// A browser call on a named element, and whether the plugin must ask.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointExpect {
    pub action: String,
    pub role: String,
    pub name: String,
    pub ask: bool,
}

/// One fixture, loaded.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The file name without `.toml`.
    pub name: String,
    pub snapshot: Snapshot,
    pub expect: Expect,
}

/// One check's outcome, a row of `plugin test`'s table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckRow {
    pub fixture: String,
    pub check: String,
    pub expected: String,
    pub got: String,
    pub pass: bool,
}

/// Every `*.toml` fixture in `dir`, sorted by name. No folder is no fixtures.
pub fn load_dir(dir: &Path) -> Result<Vec<Fixture>, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths.iter().map(|p| load(p)).collect()
}

/// One fixture file and the snapshot it names.
pub fn load(path: &Path) -> Result<Fixture, String> {
    let text = read_bounded(path)?;
    let file: FixtureFile =
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let snapshot_path = path.parent().unwrap_or(Path::new(".")).join(&file.snapshot);
    if Path::new(&file.snapshot).components().count() != 1 {
        return Err(format!(
            "{}: snapshot {:?} must be a file name beside the fixture",
            path.display(),
            file.snapshot
        ));
    }
    let yaml = read_bounded(&snapshot_path)?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Fixture {
        name,
        snapshot: Snapshot {
            url: file.url,
            title: file.title,
            elements: parse_tree(&yaml),
            content: yaml,
            screenshot_path: None,
        },
        expect: file.expect,
    })
}

fn read_bounded(path: &Path) -> Result<String, String> {
    let size = std::fs::metadata(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if size > FIXTURE_MAX_BYTES {
        return Err(format!(
            "{}: {size} bytes is over the {} MiB fixture limit",
            path.display(),
            FIXTURE_MAX_BYTES / (1024 * 1024)
        ));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Runs every expectation of every fixture through `plugin`.
pub fn check(plugin: &mut Plugin, fixtures: &[Fixture]) -> Vec<CheckRow> {
    let mut rows = Vec::new();
    for fixture in fixtures {
        let row = |check: String, expected: String, got: String| CheckRow {
            fixture: fixture.name.clone(),
            pass: expected == got,
            check,
            expected,
            got,
        };
        if let Some(want) = fixture.expect.verify {
            let got = match plugin.verify(&fixture.snapshot) {
                Ok(v) => verdict_name(&v).to_owned(),
                Err(e) => format!("error: {e}"),
            };
            rows.push(row("verify".into(), name_of(&want), got));
        }
        if let Some(want) = fixture.expect.auth {
            let got = match plugin.detect_auth(&fixture.snapshot) {
                Ok(None) => "none".to_owned(),
                Ok(Some(event)) => auth_name(event.kind).to_owned(),
                Err(e) => format!("error: {e}"),
            };
            rows.push(row("detect-auth".into(), name_of(&want), got));
        }
        for want in &fixture.expect.checkpoint {
            let check = format!("checkpoint {} {} {:?}", want.action, want.role, want.name);
            let expected = asks(want.ask).to_owned();
            let Some(target) = find(&fixture.snapshot.elements, &want.role, &want.name) else {
                rows.push(row(
                    check,
                    expected,
                    format!("no {} named {:?} in the snapshot", want.role, want.name),
                ));
                continue;
            };
            let call = ToolCallView {
                action: want.action.clone(),
                arguments: serde_json::json!({
                    "element": target.name,
                    "ref": target.reference,
                }),
                target: Some(target.clone()),
                facts: None,
            };
            let got = match plugin.checkpoint(&call, &fixture.snapshot) {
                Ok(reason) => asks(reason.is_some()).to_owned(),
                Err(e) => format!("error: {e}"),
            };
            rows.push(row(check, expected, got));
        }
    }
    rows
}

fn find<'a>(elements: &'a [Element], role: &str, name: &str) -> Option<&'a Element> {
    elements
        .iter()
        .find(|e| e.role == role && e.name.trim().eq_ignore_ascii_case(name.trim()))
}

fn asks(ask: bool) -> &'static str {
    if ask { "asks" } else { "does not ask" }
}

fn name_of<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn verdict_name(v: &Verdict) -> &'static str {
    match v {
        Verdict::Success => "success",
        Verdict::Failure(_) => "failure",
        Verdict::Unknown => "unknown",
        Verdict::AlreadyCancelled => "already-cancelled",
    }
}

fn auth_name(kind: AuthKind) -> &'static str {
    match kind {
        AuthKind::LoginRequired => "login-required",
        AuthKind::TwoFactor => "two-factor",
        AuthKind::Captcha => "captcha",
        AuthKind::SessionExpired => "session-expired",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_fixture_loads_with_its_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("confirm.yaml"),
            "- heading \"Cancel\" [level=1] [ref=e2]\n- button \"Finish cancellation\" [ref=e4]\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("confirm.toml"),
            "snapshot = \"confirm.yaml\"\nurl = \"https://x.test/confirm\"\n[expect]\nverify = \"unknown\"\n[[expect.checkpoint]]\naction = \"browser_click\"\nrole = \"button\"\nname = \"finish cancellation\"\nask = true\n",
        )
        .unwrap();
        let fixtures = load_dir(dir.path()).unwrap();
        assert_eq!(fixtures.len(), 1);
        let f = &fixtures[0];
        assert_eq!(f.name, "confirm");
        assert_eq!(f.expect.verify, Some(VerifyExpect::Unknown));
        let target = find(&f.snapshot.elements, "button", "Finish Cancellation").unwrap();
        assert_eq!(target.reference.as_deref(), Some("e4"));
    }

    #[test]
    fn bad_fixtures_name_the_problem() {
        let cases = [
            (
                "snapshot = \"x.yaml\"\nurl = \"u\"\nexpected = 1\n",
                "expected",
            ),
            (
                "snapshot = \"../../etc/passwd\"\nurl = \"u\"\n",
                "must be a file name",
            ),
            ("snapshot = \"missing.yaml\"\nurl = \"u\"\n", "missing.yaml"),
            (
                "snapshot = \"x.yaml\"\nurl = \"u\"\n[expect]\nverify = \"maybe\"\n",
                "maybe",
            ),
        ];
        for (text, want) in cases {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("x.yaml"), "- button \"A\" [ref=e1]\n").unwrap();
            std::fs::write(dir.path().join("f.toml"), text).unwrap();
            let err = load_dir(dir.path()).unwrap_err();
            assert!(err.contains(want), "{want}: {err}");
        }
    }
}
