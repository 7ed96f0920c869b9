//! Bounds on what a plugin says. A plugin is untrusted code: its metadata
//! and plan are refused at load when they break a bound, with the field
//! named, and the text it returns during a run (reasons, messages) is cleaned
//! and cut before anyone reads it. A megabyte goal would fill the model's
//! context, an escape sequence in a reason could rewrite the terminal, and a
//! plain-http origin would let the agent off onto a page anyone can spoof.

mod harmless;
mod overlays;

use super::types::{HintAction, Metadata, PlanStep, TargetHint};
use crate::text::{ELLIPSIS, sanitize, truncate};

pub use harmless::{HARMLESS_MAX_ENTRIES, HARMLESS_SEGMENT_MIN_CHARS};

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
/// Most billing descriptors: a service bills under a few names, and the
/// statement scanner tries each on every line.
pub const BILLING_DESCRIPTORS_MAX_ENTRIES: usize = 16;
/// Shortest billing descriptor, in characters besides `*` and spaces: one
/// letter would name any charge.
pub const BILLING_DESCRIPTOR_MIN_CHARS: usize = 2;
/// Longest billing descriptor, in characters: banks print a few dozen.
pub const BILLING_DESCRIPTOR_MAX_CHARS: usize = 64;

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
    check_billing_descriptors(&m.billing_descriptors)
}

/// Checks what the metadata says about the plan, once both are known and
/// each is within its own bounds: harmless requests name steps that do not
/// commit and paths that name no commit, and no overlay names a commit. The
/// error names the field.
pub fn check_with_plan(m: &Metadata, plan: &[PlanStep]) -> Result<(), String> {
    harmless::check(m, plan)?;
    overlays::check(m, plan)
}

/// Descriptors only name the service on a statement, but a blank or
/// all-wildcard one would claim every charge, and the scanner prints them.
fn check_billing_descriptors(descriptors: &[String]) -> Result<(), String> {
    count_at_most(
        "billing-descriptors",
        descriptors.len(),
        BILLING_DESCRIPTORS_MAX_ENTRIES,
    )?;
    for (i, d) in descriptors.iter().enumerate() {
        let field = format!("billing-descriptors[{i}]");
        line(&field, d, BILLING_DESCRIPTOR_MAX_CHARS)?;
        let printed = d
            .chars()
            .filter(|c| *c != '*' && !c.is_whitespace())
            .count();
        if printed < BILLING_DESCRIPTOR_MIN_CHARS {
            return Err(format!(
                "{field}: {d:?} needs at least {BILLING_DESCRIPTOR_MIN_CHARS} characters besides '*' \
                 and spaces, or it would name any charge"
            ));
        }
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
    count_at_most(field, n, LIST_MAX_ENTRIES)
}

fn count_at_most(field: &str, n: usize, max: usize) -> Result<(), String> {
    if n > max {
        return Err(format!(
            "{field}: {n} entries is over the {max} entry limit"
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
mod tests;
