//! What `api = "0.4.0"` adds: the harmless requests a plan expects and the
//! billing descriptors. The shape of each is checked here, where the author
//! learns it at the line; whether a harmless request could cover a commit
//! (the host's commit words, the plugin's own commit patterns) is the host's
//! to judge, with its own tables, when the plugin loads.

use super::{Checked, host_of, line_text, list, printable, refuse, since, text};
use crate::limits::*;
use crate::schema::{PlanStep, ServiceInfo};

/// Methods the network guard lets pass anyway: declaring one says nothing,
/// and `*` would name every request.
const SAFE_METHODS: &[&str] = &["GET", "HEAD", "OPTIONS"];

pub(super) fn harmless_requests(api: &str, s: &ServiceInfo, plan: &[PlanStep]) -> Checked {
    let key = "service.harmless-requests";
    if s.harmless_requests.is_empty() {
        return Ok(());
    }
    since(key, api, HARMLESS_REQUESTS_SINCE)?;
    if s.harmless_requests.len() > MAX_HARMLESS_REQUESTS {
        return Err(refuse(
            key,
            format!(
                "{} entries is over the {MAX_HARMLESS_REQUESTS} limit",
                s.harmless_requests.len()
            ),
        ));
    }
    list(key, &s.harmless_requests, |key, r| {
        step(&format!("{key}.step"), r.step, plan)?;
        method(&format!("{key}.method"), &r.method)?;
        host(&format!("{key}.host"), &r.host, &s.allowed_origins)?;
        path(&format!("{key}.path"), &r.path)
    })
}

/// A step of the plan that does not commit: the guard never spares a
/// question on the step the person must say yes to.
fn step(key: &str, at: u32, plan: &[PlanStep]) -> Checked {
    let step = usize::try_from(at).ok().and_then(|i| plan.get(i));
    match step {
        None => Err(refuse(
            key,
            format!(
                "{at} is not a step of the plan: it has {} ([[plan]] steps count from 0)",
                plan.len()
            ),
        )),
        Some(s) if s.irreversible => Err(refuse(
            key,
            format!("{at} is the irreversible step: its requests always wait for the person's yes"),
        )),
        Some(_) => Ok(()),
    }
}

fn method(key: &str, value: &str) -> Checked {
    let upper = value.to_ascii_uppercase();
    if SAFE_METHODS.contains(&upper.as_str()) {
        return Err(refuse(
            key,
            format!(
                "\"{upper}\" changes nothing and passes anyway: name the state-changing method"
            ),
        ));
    }
    let ok = (1..=MAX_METHOD_CHARS).contains(&value.len())
        && value.bytes().all(|b| b.is_ascii_alphabetic());
    if !ok {
        return Err(refuse(
            key,
            format!(
                "\"{}\" is not one HTTP method (\"*\" is not allowed here)",
                printable(value)
            ),
        ));
    }
    Ok(())
}

/// Exactly the `host[:port]` of one allowed origin, as a browser writes it
/// (no default port), so that the guard's comparison is exact.
fn host(key: &str, value: &str, origins: &[String]) -> Checked {
    line_text(key, value, MAX_URL_CHARS)?;
    if value.contains('*') {
        return Err(refuse(
            key,
            format!(
                "\"{}\" has a wildcard: name exactly one host",
                printable(value)
            ),
        ));
    }
    if host_of(value).is_none() {
        return Err(refuse(
            key,
            format!("\"{}\" is not a host[:port]", printable(value)),
        ));
    }
    let wanted = value.to_ascii_lowercase();
    let known: Vec<String> = origins.iter().filter_map(|o| origin_host(o)).collect();
    if !known.contains(&wanted) {
        return Err(refuse(
            key,
            format!(
                "\"{}\" is not the host of any of service.allowed-origins ({})",
                printable(value),
                known.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The `host[:port]` of an origin the way a browser's `URL.host` gives it:
/// lower case, the scheme's default port left out.
fn origin_host(origin: &str) -> Option<String> {
    let lower = origin.to_ascii_lowercase();
    let (rest, default_port) = match lower.strip_prefix("https://") {
        Some(rest) => (rest, ":443"),
        None => (lower.strip_prefix("http://")?, ":80"),
    };
    let authority = rest.trim_end_matches('/');
    Some(
        authority
            .strip_suffix(default_port)
            .unwrap_or(authority)
            .to_owned(),
    )
}

/// A glob over the path and query: from the leading `/` (a leading `*` would
/// let any path in front of it), with one segment that starts with at least
/// [`MIN_HARMLESS_SEGMENT_CHARS`] literal characters (`*`, `/*`, `/**` and
/// `/a*` name every path of the host).
fn path(key: &str, value: &str) -> Checked {
    text(key, value, MAX_URL_CHARS)?;
    if !value.starts_with('/') {
        return Err(refuse(
            key,
            format!(
                "\"{}\" must start with '/': it is matched against the path and query",
                printable(value)
            ),
        ));
    }
    if !has_literal_segment(value) {
        return Err(refuse(
            key,
            format!(
                "\"{}\" is too broad: it needs a path segment that starts with at least \
                 {MIN_HARMLESS_SEGMENT_CHARS} literal characters, like \"/account/survey*\"",
                printable(value)
            ),
        ));
    }
    Ok(())
}

/// Whether a segment of the path part (before any `?`) starts with enough
/// literal characters: the same rule as the host's.
fn has_literal_segment(pattern: &str) -> bool {
    let path = pattern.split('?').next().unwrap_or_default();
    path.split('/').any(|segment| {
        segment.chars().take_while(|c| *c != '*').count() >= MIN_HARMLESS_SEGMENT_CHARS
    })
}

pub(super) fn billing_descriptors(api: &str, descriptors: &[String]) -> Checked {
    let key = "service.billing-descriptors";
    if descriptors.is_empty() {
        return Ok(());
    }
    since(key, api, HARMLESS_REQUESTS_SINCE)?;
    if descriptors.len() > MAX_BILLING_DESCRIPTORS {
        return Err(refuse(
            key,
            format!(
                "{} entries is over the {MAX_BILLING_DESCRIPTORS} limit",
                descriptors.len()
            ),
        ));
    }
    list(key, descriptors, |key, d| {
        line_text(key, d, MAX_BILLING_DESCRIPTOR_CHARS)?;
        // Only what a statement prints counts: a descriptor of wildcards and
        // spaces would name every charge.
        let printed = d
            .chars()
            .filter(|c| *c != '*' && !c.is_whitespace())
            .count();
        if printed < MIN_BILLING_DESCRIPTOR_CHARS {
            return Err(refuse(
                key,
                format!(
                    "\"{}\" needs at least {MIN_BILLING_DESCRIPTOR_CHARS} characters besides '*' \
                     and spaces, or it would name any charge",
                    printable(d)
                ),
            ));
        }
        Ok(())
    })
}
