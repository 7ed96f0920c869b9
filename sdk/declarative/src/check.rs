//! The README's bounds, checked on a file serde has already shaped. Each
//! check names the key it refuses by its dotted path, which the caller turns
//! into a line.

mod v0_4;

use crate::error::{is_forbidden_char, printable};
use crate::limits::*;
use crate::schema::*;

/// A broken bound: the key's path and what is wrong with it.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub key: String,
    pub message: String,
}

type Checked = Result<(), Refusal>;

fn refuse(key: &str, message: impl Into<String>) -> Refusal {
    Refusal {
        key: key.to_owned(),
        message: message.into(),
    }
}

/// Whether `api` is the version this build reads. Checked before the shape,
/// so that a file for a newer API is told so rather than shown the keys it
/// added as unknown.
pub(crate) fn api(value: &str) -> Checked {
    if API_VERSIONS.contains(&value) {
        return Ok(());
    }
    let known: Vec<String> = API_VERSIONS.iter().map(|v| format!("\"{v}\"")).collect();
    Err(refuse(
        "api",
        format!(
            "\"{}\" is not supported: this build reads api = {}",
            printable(value),
            known.join(" or ")
        ),
    ))
}

pub(crate) fn file(f: &ServiceFile) -> Checked {
    service(&f.service)?;
    interruptions(&f.api, &f.service.interruptions)?;
    plan(&f.plan)?;
    v0_4::harmless_requests(&f.api, &f.service, &f.plan)?;
    v0_4::billing_descriptors(&f.api, &f.service.billing_descriptors)?;
    section("checkpoint", &f.checkpoint, |key, rule| {
        text(&format!("{key}.reason"), &rule.reason, MAX_TEXT_CHARS)?;
        rule_conditions(key, &rule.when, rule.unless.as_ref(), Scope::Call)
    })?;
    section("success", &f.success, |key, rule| {
        rule_conditions(key, &rule.when, rule.unless.as_ref(), Scope::Page)
    })?;
    section("failure", &f.failure, |key, rule| {
        text(&format!("{key}.reason"), &rule.reason, MAX_TEXT_CHARS)?;
        rule_conditions(key, &rule.when, rule.unless.as_ref(), Scope::Page)
    })?;
    section("already-cancelled", &f.already_cancelled, |key, rule| {
        rule_conditions(key, &rule.when, rule.unless.as_ref(), Scope::Page)
    })?;
    section("auth", &f.auth, |key, rule| {
        text(&format!("{key}.message"), &rule.message, MAX_TEXT_CHARS)?;
        rule_conditions(key, &rule.when, rule.unless.as_ref(), Scope::Page)
    })
}

fn service(s: &ServiceInfo) -> Checked {
    id("service.id", &s.id)?;
    text(
        "service.display-name",
        &s.display_name,
        MAX_DISPLAY_NAME_CHARS,
    )?;
    if s.display_name.trim().is_empty() {
        return Err(refuse("service.display-name", "is blank"));
    }
    version("service.version", &s.version)?;
    web_address("service.initial-url", &s.initial_url, Address::Page)?;
    prose("service.goal", &s.goal, MAX_GOAL_CHARS)?;
    if s.goal.trim().is_empty() {
        return Err(refuse("service.goal", "is blank"));
    }
    prose(
        "service.system-prompt-addition",
        &s.system_prompt_addition,
        MAX_SYSTEM_PROMPT_ADDITION_CHARS,
    )?;
    if s.allowed_origins.is_empty() {
        return Err(refuse(
            "service.allowed-origins",
            "is empty: the agent could visit nothing",
        ));
    }
    list("service.allowed-origins", &s.allowed_origins, |key, o| {
        web_address(key, o, Address::Origin)
    })?;
    list(
        "service.login-url-patterns",
        &s.login_url_patterns,
        |k, p| pattern(k, p),
    )?;
    list(
        "service.commit-url-patterns",
        &s.commit_url_patterns,
        |k, p| pattern(k, p),
    )?;
    list("service.commit-requests", &s.commit_requests, |key, r| {
        method(&format!("{key}.method"), &r.method)?;
        pattern(&format!("{key}.url-pattern"), &r.url_pattern)
    })
}

/// A service's own interruptions: clicks on buttons named by non-blank
/// patterns (a blank one is in every name), and only in a file for the API
/// that knows them, so that an older host is never handed a key it drops.
fn interruptions(api: &str, buttons: &[Target]) -> Checked {
    if !buttons.is_empty() {
        since("service.interruptions", api, INTERRUPTIONS_SINCE)?;
    }
    list("service.interruptions", buttons, |key, t| {
        target(key, t)?;
        if t.action != TargetAction::Click {
            return Err(refuse(
                &format!("{key}.action"),
                "an interruption is dismissed by a click",
            ));
        }
        if t.name.is_empty() || t.name.iter().any(|n| n.trim().is_empty()) {
            return Err(refuse(
                &format!("{key}.name"),
                "needs at least one name, none blank, or it would name every button",
            ));
        }
        Ok(())
    })
}

/// A key given in a file whose `api` predates it: refused, so that an older
/// host is never handed a key it would drop.
fn since(key: &str, api: &str, first: &str) -> Checked {
    let at = |v: &str| API_VERSIONS.iter().position(|known| *known == v);
    // Newest first: a smaller index is a newer version.
    match (at(api), at(first)) {
        (Some(file), Some(first_at)) if file <= first_at => Ok(()),
        _ => Err(refuse(
            key,
            format!(
                "needs api = \"{first}\" or later; this file says \"{}\"",
                printable(api)
            ),
        )),
    }
}

fn plan(steps: &[PlanStep]) -> Checked {
    if steps.len() > MAX_PLAN_STEPS {
        return Err(refuse(
            "plan",
            format!("{} steps is over the {MAX_PLAN_STEPS} limit", steps.len()),
        ));
    }
    for (at, step) in steps.iter().enumerate() {
        let key = format!("plan[{at}]");
        text(
            &format!("{key}.description"),
            &step.description,
            MAX_TEXT_CHARS,
        )?;
        text(&format!("{key}.done-when"), &step.done_when, MAX_TEXT_CHARS)?;
        list(&format!("{key}.targets"), &step.targets, target)?;
    }
    // The host refuses such a plan too, but only once it has built and
    // instantiated the plugin; here the author learns it at the line.
    if !steps
        .iter()
        .any(|s| s.irreversible && !s.targets.is_empty())
    {
        return Err(refuse(
            "plan",
            "no step is marked irreversible with targets: mark the step that commits \
             (`irreversible = true`) and name what it acts on in its `targets`",
        ));
    }
    Ok(())
}

fn target(key: &str, t: &Target) -> Checked {
    if let Some(r) = &t.role {
        role(&format!("{key}.role"), r)?;
    }
    names(&format!("{key}.name"), &t.name)?;
    if let Some(value) = &t.value {
        line_text(&format!("{key}.value"), value, MAX_PATTERN_CHARS)?;
    }
    Ok(())
}

/// Whether a rule's conditions can be read where they are evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// `[[checkpoint]]`: a call and the page it acts on.
    Call,
    /// Every other section: a page alone.
    Page,
}

fn rule_conditions(
    key: &str,
    when: &Condition,
    unless: Option<&Condition>,
    scope: Scope,
) -> Checked {
    let when_key = format!("{key}.when");
    if when.is_empty() {
        let what = match scope {
            Scope::Call => "every call",
            Scope::Page => "every page",
        };
        return Err(refuse(
            &when_key,
            format!("has no key, so it would match {what}: give at least one"),
        ));
    }
    condition(&when_key, when, scope)?;
    if let Some(unless) = unless {
        let unless_key = format!("{key}.unless");
        if unless.is_empty() {
            return Err(refuse(
                &unless_key,
                "has no key, so it always holds and the rule never applies",
            ));
        }
        condition(&unless_key, unless, scope)?;
    }
    Ok(())
}

fn condition(key: &str, c: &Condition, scope: Scope) -> Checked {
    if scope == Scope::Page && c.is_about_call() {
        let name = [
            ("target-role", c.target_role.is_some()),
            ("target-name", c.target_name.is_some()),
            ("action", c.action.is_some()),
        ]
        .into_iter()
        .find_map(|(name, given)| given.then_some(name))
        .unwrap_or("action");
        return Err(refuse(
            &format!("{key}.{name}"),
            "is about a browser call, which only [[checkpoint]] rules see: \
             this rule is judged on a page alone",
        ));
    }
    let lists = [
        ("url", &c.url),
        ("url-glob", &c.url_glob),
        ("title", &c.title),
        ("content", &c.content),
        ("target-name", &c.target_name),
        ("action", &c.action),
    ];
    for (name, given) in lists {
        if let Some(entries) = given {
            names(&format!("{key}.{name}"), entries)?;
        }
    }
    if let Some(elements) = &c.element {
        let elements_key = format!("{key}.element");
        non_empty(&elements_key, elements)?;
        list(&elements_key, elements, |key, e| {
            if let Some(r) = &e.role {
                role(&format!("{key}.role"), r)?;
            }
            names(&format!("{key}.name"), &e.name)
        })?;
    }
    if let Some(r) = &c.target_role {
        role(&format!("{key}.target-role"), r)?;
    }
    Ok(())
}

/// Each rule of a `[[section]]`, under the section's rule limit.
fn section<T>(name: &str, rules: &[T], each: impl Fn(&str, &T) -> Checked) -> Checked {
    if rules.len() > MAX_RULES_PER_SECTION {
        return Err(refuse(
            name,
            format!(
                "{} rules is over the {MAX_RULES_PER_SECTION} limit",
                rules.len()
            ),
        ));
    }
    for (at, rule) in rules.iter().enumerate() {
        each(&format!("{name}[{at}]"), rule)?;
    }
    Ok(())
}

/// Each entry of a list, under the list limit.
fn list<T>(key: &str, entries: &[T], each: impl Fn(&str, &T) -> Checked) -> Checked {
    if entries.len() > MAX_LIST_ENTRIES {
        return Err(refuse(
            key,
            format!(
                "{} entries is over the {MAX_LIST_ENTRIES} limit",
                entries.len()
            ),
        ));
    }
    for (at, entry) in entries.iter().enumerate() {
        each(&format!("{key}[{at}]"), entry)?;
    }
    Ok(())
}

fn non_empty<T>(key: &str, entries: &[T]) -> Checked {
    if entries.is_empty() {
        // Any one entry must match: an empty list never does.
        return Err(refuse(key, "is empty, so it never matches"));
    }
    Ok(())
}

/// A list of patterns any one of which is a match.
fn names(key: &str, entries: &[String]) -> Checked {
    non_empty(key, entries)?;
    list(key, entries, |k, p| pattern(k, p))
}

/// A substring, glob, role or tool name. An empty one is refused: every text
/// contains it, so it would match every page.
fn pattern(key: &str, value: &str) -> Checked {
    line_text(key, value, MAX_PATTERN_CHARS)?;
    if value.is_empty() {
        return Err(refuse(key, "is empty, so it would match everything"));
    }
    Ok(())
}

/// An ARIA role: a pattern, shorter.
fn role(key: &str, value: &str) -> Checked {
    line_text(key, value, MAX_ROLE_CHARS)?;
    pattern(key, value)
}

/// A one-line text that must say something.
fn text(key: &str, value: &str, max_chars: usize) -> Checked {
    line_text(key, value, max_chars)?;
    if value.trim().is_empty() {
        return Err(refuse(key, "is blank"));
    }
    Ok(())
}

/// A one-line text: no control character at all.
fn line_text(key: &str, value: &str, max_chars: usize) -> Checked {
    length(key, value, max_chars)?;
    chars(key, value, |_| false)
}

/// A text sent to the model as prose, where TOML's multi-line strings are
/// natural: line breaks and tabs are allowed, other controls are not.
fn prose(key: &str, value: &str, max_chars: usize) -> Checked {
    length(key, value, max_chars)?;
    chars(key, value, |c| matches!(c, '\n' | '\t'))
}

fn length(key: &str, value: &str, max_chars: usize) -> Checked {
    let count = value.chars().count();
    if count > max_chars {
        return Err(refuse(
            key,
            format!("{count} characters is over the {max_chars} limit"),
        ));
    }
    Ok(())
}

fn chars(key: &str, value: &str, allowed: impl Fn(char) -> bool) -> Checked {
    match value
        .chars()
        .enumerate()
        .find(|(_, c)| is_forbidden_char(*c) && !allowed(*c))
    {
        Some((at, c)) => {
            let what = if c.is_control() {
                "control character"
            } else {
                "bidirectional override"
            };
            Err(refuse(
                key,
                format!(
                    "holds the {what} U+{:04X} at character {}",
                    u32::from(c),
                    at + 1
                ),
            ))
        }
        None => Ok(()),
    }
}

fn id(key: &str, value: &str) -> Checked {
    let count = value.chars().count();
    let ok = (1..=MAX_ID_CHARS).contains(&count)
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !ok {
        return Err(refuse(
            key,
            format!(
                "\"{}\" must be 1-{MAX_ID_CHARS} characters of a-z, 0-9 and '-'",
                printable(value)
            ),
        ));
    }
    Ok(())
}

/// Semver: `MAJOR.MINOR.PATCH`, then an optional `-pre-release` and
/// `+build` of ASCII letters, digits, '.' and '-'.
fn version(key: &str, value: &str) -> Checked {
    length(key, value, MAX_VERSION_CHARS)?;
    let (core, _) = value.split_once('+').unwrap_or((value, ""));
    let (core, _) = core.split_once('-').unwrap_or((core, ""));
    let numbers: Vec<&str> = core.split('.').collect();
    let core_ok = numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    let tail_ok = value[core.len()..]
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
    if !(core_ok && tail_ok) {
        return Err(refuse(
            key,
            format!(
                "\"{}\" is not a semver version like \"0.1.0\"",
                printable(value)
            ),
        ));
    }
    Ok(())
}

fn method(key: &str, value: &str) -> Checked {
    let ok = value == "*"
        || ((1..=MAX_METHOD_CHARS).contains(&value.len())
            && value.bytes().all(|b| b.is_ascii_alphabetic()));
    if !ok {
        return Err(refuse(
            key,
            format!(
                "\"{}\" is not an HTTP method (or \"*\" for any)",
                printable(value)
            ),
        ));
    }
    Ok(())
}

/// What a web address in the file stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Address {
    /// `scheme://host[:port]`, nothing after.
    Origin,
    /// A page to open.
    Page,
}

/// An https address, or plain http on a loopback host. Read by hand rather
/// than with a URL library to keep the crate small; anything a browser might
/// read differently (a user name before the host, a backslash, a
/// percent-encoded or non-ASCII host) is refused rather than interpreted.
fn web_address(key: &str, value: &str, kind: Address) -> Checked {
    line_text(key, value, MAX_URL_CHARS)?;
    let shown = printable(value);
    let bad = |why: &str| Err(refuse(key, format!("\"{shown}\" {why}")));
    if value.chars().any(|c| c.is_whitespace() || c == '\\') {
        return bad("holds a space or a backslash");
    }
    let lower = value.to_ascii_lowercase();
    let (secure, rest) = match (
        lower.strip_prefix("https://"),
        lower.strip_prefix("http://"),
    ) {
        (Some(rest), _) => (true, rest),
        (None, Some(rest)) => (false, rest),
        (None, None) => return bad("is not an https:// address"),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, after) = rest.split_at(end);
    if authority.contains('@') {
        return bad("names a user before the host ('@'), which hides the real host");
    }
    let Some(host) = host_of(authority) else {
        return bad("has no valid host[:port]");
    };
    if !secure && !LOOPBACK_HOSTS.contains(&host) {
        return bad(
            "is plain http: use https (http is allowed only on 127.0.0.1, localhost and [::1])",
        );
    }
    if kind == Address::Origin && !(after.is_empty() || after == "/") {
        return bad("is not an origin: give scheme://host[:port] with no path");
    }
    Ok(())
}

/// The host of `host[:port]`: a name of ASCII letters, digits, '-' and '.',
/// or a bracketed IPv6 address; the port, when given, is a number.
fn host_of(authority: &str) -> Option<&str> {
    let (host, port) = if authority.starts_with('[') {
        let close = authority.find(']')?;
        let (host, port) = authority.split_at(close + 1);
        let inner = &host[1..close];
        if inner.is_empty()
            || !inner
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'))
        {
            return None;
        }
        (host, port)
    } else {
        let (host, port) = authority.split_at(authority.find(':').unwrap_or(authority.len()));
        if host.is_empty()
            || !host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        {
            return None;
        }
        (host, port)
    };
    if let Some(number) = port.strip_prefix(':') {
        let valid = number.parse::<u16>().is_ok_and(|p| p > 0)
            && number.bytes().all(|b| b.is_ascii_digit());
        if !valid {
            return None;
        }
    } else if !port.is_empty() {
        return None;
    }
    Some(host)
}
