//! Bounds on what a plugin says. A plugin is untrusted code: its metadata
//! and plan are refused at load when they break a bound, with the field
//! named, and the text it returns during a run (reasons, messages) is cleaned
//! and cut before anyone reads it. A megabyte goal would fill the model's
//! context, an escape sequence in a reason could rewrite the terminal, and a
//! plain-http origin would let the agent off onto a page anyone can spoof.

use super::types::{HintAction, Metadata, PlanStep, TargetHint};
use crate::text::{ELLIPSIS, sanitize, truncate};

/// Longest id, in characters of `a-z`, `0-9` and `-`.
pub const ID_MAX_CHARS: usize = 64;
/// Longest display name, in characters.
pub const DISPLAY_NAME_MAX_CHARS: usize = 80;
/// Longest version string, in characters.
pub const VERSION_MAX_CHARS: usize = 32;
/// Longest URL, origin or URL pattern, in characters.
pub const URL_MAX_CHARS: usize = 2_048;
/// Longest goal, in characters: it goes into every model request.
pub const GOAL_MAX_CHARS: usize = 2_000;
/// Longest system-prompt addition, in characters.
pub const PROMPT_ADDITION_MAX_CHARS: usize = 4_000;
/// Longest name pattern or target value, in characters.
pub const PATTERN_MAX_CHARS: usize = 200;
/// Longest step description, done-when text, reason or message, in characters.
pub const SHORT_TEXT_MAX_CHARS: usize = 300;
/// Most entries in any one list the plugin returns.
pub const LIST_MAX_ENTRIES: usize = 64;
/// Most steps in a plan.
pub const PLAN_MAX_STEPS: usize = 32;

/// Checks metadata against every bound; the error names the field.
pub fn check_metadata(m: &Metadata) -> Result<(), String> {
    let id_ok = !m.id.is_empty()
        && m.id.len() <= ID_MAX_CHARS
        && m.id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !id_ok {
        return Err(format!(
            "id {:?}: must be 1-{ID_MAX_CHARS} characters of a-z, 0-9 and '-'",
            truncate(&m.id, 80, ELLIPSIS)
        ));
    }
    line("display-name", &m.display_name, DISPLAY_NAME_MAX_CHARS)?;
    if m.display_name.trim().is_empty() {
        return Err("display-name: is empty".into());
    }
    line("version", &m.version, VERSION_MAX_CHARS)?;
    page_url("initial-url", &m.initial_url)?;
    text("goal", &m.goal, GOAL_MAX_CHARS)?;
    text(
        "system-prompt-addition",
        &m.system_prompt_addition,
        PROMPT_ADDITION_MAX_CHARS,
    )?;
    if m.allowed_origins.is_empty() {
        return Err("allowed-origins: empty, so the agent could visit nothing".into());
    }
    count("allowed-origins", m.allowed_origins.len())?;
    for (i, origin) in m.allowed_origins.iter().enumerate() {
        page_url(&format!("allowed-origins[{i}]"), origin)?;
    }
    for (field, list) in [
        ("login-url-patterns", &m.login_url_patterns),
        ("commit-url-patterns", &m.commit_url_patterns),
    ] {
        count(field, list.len())?;
        for (i, pattern) in list.iter().enumerate() {
            line(&format!("{field}[{i}]"), pattern, URL_MAX_CHARS)?;
        }
    }
    count("commit-requests", m.commit_requests.len())?;
    for (i, request) in m.commit_requests.iter().enumerate() {
        line(&format!("commit-requests[{i}].method"), &request.method, 16)?;
        line(
            &format!("commit-requests[{i}].url-pattern"),
            &request.url_pattern,
            URL_MAX_CHARS,
        )?;
    }
    count("interruptions", m.overlays.len())?;
    for (i, hint) in m.overlays.iter().enumerate() {
        check_interruption(&format!("interruptions[{i}]"), hint)?;
    }
    Ok(())
}

/// An interruption is dismissed by a click on a button it names; a blank
/// pattern is in every name, so it would name every button on the page.
fn check_interruption(at: &str, hint: &TargetHint) -> Result<(), String> {
    check_target(at, hint)?;
    if hint.action != HintAction::Click {
        return Err(format!(
            "{at}.action: an interruption is dismissed by a click"
        ));
    }
    if hint.name_patterns.is_empty() || hint.name_patterns.iter().any(|p| p.trim().is_empty()) {
        return Err(format!(
            "{at}.name-patterns: needs at least one pattern, none blank, or it would name every button"
        ));
    }
    Ok(())
}

/// Checks a plan against every bound; the error names the step and field.
pub fn check_plan(plan: &[PlanStep]) -> Result<(), String> {
    if plan.len() > PLAN_MAX_STEPS {
        return Err(format!(
            "plan: {} steps is over the {PLAN_MAX_STEPS} step limit",
            plan.len()
        ));
    }
    for (i, step) in plan.iter().enumerate() {
        text(
            &format!("plan[{i}].description"),
            &step.description,
            SHORT_TEXT_MAX_CHARS,
        )?;
        text(
            &format!("plan[{i}].done-when"),
            &step.done_when,
            SHORT_TEXT_MAX_CHARS,
        )?;
        count(&format!("plan[{i}].targets"), step.targets.len())?;
        for (j, target) in step.targets.iter().enumerate() {
            check_target(&format!("plan[{i}].targets[{j}]"), target)?;
        }
    }
    Ok(())
}

fn check_target(at: &str, t: &TargetHint) -> Result<(), String> {
    if let Some(role) = &t.role {
        line(&format!("{at}.role"), role, 40)?;
    }
    count(&format!("{at}.name-patterns"), t.name_patterns.len())?;
    for (k, pattern) in t.name_patterns.iter().enumerate() {
        line(
            &format!("{at}.name-patterns[{k}]"),
            pattern,
            PATTERN_MAX_CHARS,
        )?;
    }
    if let Some(value) = &t.value {
        line(&format!("{at}.value"), value, PATTERN_MAX_CHARS)?;
    }
    Ok(())
}

/// A reason or message a plugin returned during a run, made safe to show a
/// person and a model: escape sequences and control characters gone, one
/// line, at most [`SHORT_TEXT_MAX_CHARS`].
pub fn clean_said(said: &str) -> String {
    truncate(&sanitize(said), SHORT_TEXT_MAX_CHARS, ELLIPSIS).into_owned()
}

fn count(field: &str, n: usize) -> Result<(), String> {
    if n > LIST_MAX_ENTRIES {
        return Err(format!(
            "{field}: {n} entries is over the {LIST_MAX_ENTRIES} entry limit"
        ));
    }
    Ok(())
}

/// One-line text: no control characters at all.
fn line(field: &str, value: &str, max: usize) -> Result<(), String> {
    length(field, value, max)?;
    if let Some(c) = value.chars().find(|c| forbidden(*c, false)) {
        return Err(format!("{field}: contains the control character {c:?}"));
    }
    Ok(())
}

/// Prose: line breaks and tabs allowed, other control characters not.
fn text(field: &str, value: &str, max: usize) -> Result<(), String> {
    length(field, value, max)?;
    if let Some(c) = value.chars().find(|c| forbidden(*c, true)) {
        return Err(format!("{field}: contains the control character {c:?}"));
    }
    Ok(())
}

fn length(field: &str, value: &str, max: usize) -> Result<(), String> {
    let chars = value.chars().count();
    if chars > max {
        return Err(format!(
            "{field}: {chars} characters is over the {max} character limit"
        ));
    }
    Ok(())
}

/// Control characters, and the bidirectional overrides that make text read
/// other than it is.
fn forbidden(c: char, prose: bool) -> bool {
    if prose && matches!(c, '\n' | '\t') {
        return false;
    }
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A URL the agent may open: https, or plain http only on this machine
/// (practice sites and tests are served on loopback).
fn page_url(field: &str, value: &str) -> Result<(), String> {
    line(field, value, URL_MAX_CHARS)?;
    let parsed = url::Url::parse(value).map_err(|e| format!("{field}: {value:?}: {e}"))?;
    let Some(host) = parsed.host_str() else {
        return Err(format!("{field}: {value:?} has no host"));
    };
    match parsed.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(host) => Ok(()),
        scheme => Err(format!(
            "{field}: {value:?} is {scheme}, not https (plain http is allowed only on 127.0.0.1 and localhost)"
        )),
    }
}

/// Whether `host` (as a URL gives it) is this machine.
pub fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::plugin::types::{HintAction, RequestPattern};

    fn good() -> Metadata {
        Metadata {
            id: "acme".into(),
            display_name: "Acme".into(),
            version: "1.0.0".into(),
            initial_url: "https://www.acme.test/account".into(),
            goal: "Cancel the Acme plan.\nThen stop.".into(),
            system_prompt_addition: String::new(),
            allowed_origins: vec!["https://www.acme.test".into()],
            login_url_patterns: vec!["*/login*".into()],
            commit_url_patterns: Vec::new(),
            commit_requests: vec![RequestPattern {
                method: "POST".into(),
                url_pattern: "*/cancel*".into(),
            }],
            overlays: Vec::new(),
        }
    }

    fn interruption(action: HintAction, names: &[&str]) -> TargetHint {
        TargetHint {
            role: Some("button".into()),
            name_patterns: names.iter().map(|n| (*n).to_owned()).collect(),
            action,
            value: None,
            optional: false,
        }
    }

    #[test]
    fn metadata_bounds_name_the_field() {
        type Break = fn(&mut Metadata);
        let cases: &[(&str, Break, Option<&str>)] = &[
            ("as written", |_| {}, None),
            (
                "megabyte goal",
                |m| m.goal = "x".repeat(1 << 20),
                Some("goal: 1048576 characters"),
            ),
            (
                "escape in goal",
                |m| m.goal = "press y\u{1b}[2J".into(),
                Some("goal: contains the control character"),
            ),
            (
                "newline in display name",
                |m| m.display_name = "Acme\nalready approved".into(),
                Some("display-name: contains"),
            ),
            (
                "bidi override in display name",
                |m| m.display_name = "Acme\u{202e}".into(),
                Some("display-name: contains"),
            ),
            (
                "http origin",
                |m| m.allowed_origins = vec!["http://www.acme.test".into()],
                Some("allowed-origins[0]: \"http://www.acme.test\" is http, not https"),
            ),
            (
                "javascript initial url",
                |m| m.initial_url = "javascript:alert(1)".into(),
                Some("initial-url"),
            ),
            (
                "file origin",
                |m| m.allowed_origins = vec!["file:///etc".into()],
                Some("allowed-origins[0]"),
            ),
            (
                "loopback http is the practice sites'",
                |m| m.allowed_origins = vec!["http://127.0.0.1".into(), "http://[::1]".into()],
                None,
            ),
            (
                "no origins",
                |m| m.allowed_origins.clear(),
                Some("allowed-origins: empty"),
            ),
            (
                "thousand login patterns",
                |m| m.login_url_patterns = vec!["*/x*".into(); 1000],
                Some("login-url-patterns: 1000 entries"),
            ),
            (
                "long url pattern",
                |m| m.commit_requests[0].url_pattern = "*".repeat(5000),
                Some("commit-requests[0].url-pattern: 5000 characters"),
            ),
            ("bad id", |m| m.id = "Acme!".into(), Some("id \"Acme!\"")),
            (
                "long id",
                |m| m.id = "a".repeat(65),
                Some("must be 1-64 characters"),
            ),
            (
                "huge version",
                |m| m.version = "1".repeat(100),
                Some("version: 100 characters"),
            ),
            (
                "an interruption closed by a click",
                |m| m.overlays = vec![interruption(HintAction::Click, &["close help"])],
                None,
            ),
            (
                "an interruption filled in",
                |m| m.overlays = vec![interruption(HintAction::Fill, &["email"])],
                Some("interruptions[0].action: an interruption is dismissed by a click"),
            ),
            (
                "a blank interruption pattern names every button",
                |m| m.overlays = vec![interruption(HintAction::Click, &["close", " "])],
                Some("interruptions[0].name-patterns: needs at least one pattern"),
            ),
            (
                "an interruption with no pattern",
                |m| m.overlays = vec![interruption(HintAction::Click, &[])],
                Some("interruptions[0].name-patterns"),
            ),
            (
                "a hundred interruptions",
                |m| m.overlays = vec![interruption(HintAction::Click, &["x"]); 100],
                Some("interruptions: 100 entries"),
            ),
        ];
        for (name, breaks, want) in cases {
            let mut m = good();
            breaks(&mut m);
            let got = check_metadata(&m);
            match want {
                None => assert_eq!(got, Ok(()), "{name}"),
                Some(want) => {
                    let e = got.expect_err(name);
                    assert!(e.contains(want), "{name}: {e}");
                }
            }
        }
    }

    fn step(description: &str, patterns: Vec<String>) -> PlanStep {
        PlanStep {
            description: description.into(),
            done_when: "done".into(),
            targets: vec![TargetHint {
                role: Some("button".into()),
                name_patterns: patterns,
                action: HintAction::Click,
                value: None,
                optional: false,
            }],
            irreversible: true,
        }
    }

    #[test]
    fn plan_bounds_name_the_step() {
        let cases: Vec<(&str, Vec<PlanStep>, Option<&str>)> = vec![
            ("fine", vec![step("Finish", vec!["finish".into()])], None),
            (
                "hundred steps",
                vec![step("s", vec!["x".into()]); 100],
                Some("plan: 100 steps"),
            ),
            (
                "long pattern",
                vec![step("s", vec!["x".repeat(10_000)])],
                Some("plan[0].targets[0].name-patterns[0]: 10000 characters"),
            ),
            (
                "escape in description",
                vec![step("\u{1b}]0;owned\u{7}", vec!["x".into()])],
                Some("plan[0].description: contains"),
            ),
        ];
        for (name, plan, want) in cases {
            let got = check_plan(&plan);
            match want {
                None => assert_eq!(got, Ok(()), "{name}"),
                Some(want) => {
                    let e = got.expect_err(name);
                    assert!(e.contains(want), "{name}: {e}");
                }
            }
        }
    }

    #[test]
    fn said_text_is_cleaned_and_cut() {
        let cases = [
            ("plain", "This click cancels", "This click cancels"),
            (
                "escape sequences",
                "\u{1b}[2J\u{1b}]0;title\u{7}Already approved",
                "Already approved",
            ),
            ("lines", "one\ntwo", "one / two"),
        ];
        for (name, said, want) in cases {
            assert_eq!(clean_said(said), want, "{name}");
        }
        let long = clean_said(&"y".repeat(1 << 20));
        assert_eq!(
            long.chars().count(),
            SHORT_TEXT_MAX_CHARS + 1,
            "cut, with …"
        );
    }

    #[test]
    fn loopback_hosts() {
        for (host, want) in [
            ("127.0.0.1", true),
            ("localhost", true),
            ("[::1]", true),
            ("127.9.9.9", true),
            ("10.0.0.1", false),
            ("localhost.evil.test", false),
        ] {
            assert_eq!(is_loopback(host), want, "{host}");
        }
    }
}
