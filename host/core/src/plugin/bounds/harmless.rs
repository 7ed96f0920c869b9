//! Bounds on the harmless requests a plugin declares (API 0.4.0): the one
//! place a plugin can spare a question the network guard would put, so the
//! one place a lying plugin would aim for. An entry is refused, and the
//! plugin with it, unless it names one step that does not commit, one
//! state-changing method, exactly one host of the plugin's own origins, and
//! a path narrow enough to name no commit: not the host's commit words, not
//! the plugin's own commit patterns. What remains is held by the guard
//! anyway: a commit pattern is matched before a harmless one, and nothing
//! passes on a page that commits.

use std::sync::LazyLock;

use regex::Regex;
use subterminator_sdk::glob::Glob;

use super::{URL_MAX_CHARS, count_at_most, line};
use crate::plugin::types::{HarmlessRequest, Metadata, PlanStep};
use crate::safety::floor;

/// Most harmless requests one plugin declares: a flow posts a survey or
/// two, and each entry is a question spared.
pub const HARMLESS_MAX_ENTRIES: usize = 16;

/// Shortest literal start of a path segment a harmless path must have:
/// `/*`, `/**` and `/a*` name every path of the host.
pub const HARMLESS_SEGMENT_MIN_CHARS: usize = 2;

/// Longest method, in characters (`PROPPATCH` and friends fit).
const METHOD_MAX_CHARS: usize = 16;

/// Methods the guard lets pass anyway; declaring one says nothing.
const SAFE_METHODS: &[&str] = &["GET", "HEAD", "OPTIONS"];

/// What each `*` of a harmless path becomes in the URLs tried against the
/// plugin's commit patterns: a request the entry would let pass.
const SAMPLE_SEGMENTS: &[&str] = &["x", ""];

/// The host's commit words as one case-insensitive regex; `None` if they
/// do not compile, and then every harmless request is refused (fail closed).
static COMMIT_WORDS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    let words = floor::url_commit_words();
    Regex::new(&format!("(?i)(?:{})", words.join("|"))).ok()
});

/// Checks every harmless request against the plan and the rest of the
/// metadata; the error names the entry and its field.
pub fn check(m: &Metadata, plan: &[PlanStep]) -> Result<(), String> {
    count_at_most("harmless-requests", m.harmless.len(), HARMLESS_MAX_ENTRIES)?;
    for (i, request) in m.harmless.iter().enumerate() {
        let at = format!("harmless-requests[{i}]");
        step(&at, request.step, plan)?;
        method(&at, &request.method)?;
        let scheme = host(&at, &request.host, &m.allowed_origins)?;
        path(&at, request, scheme, m)?;
    }
    Ok(())
}

/// A step of the plan that does not commit: the guard never spares a
/// question on the step the person must say yes to.
fn step(at: &str, index: u32, plan: &[PlanStep]) -> Result<(), String> {
    let found = usize::try_from(index).ok().and_then(|i| plan.get(i));
    match found {
        None => Err(format!(
            "{at}.step: {index} is not a step of the plan, which has {} (counted from 0)",
            plan.len()
        )),
        Some(s) if s.irreversible => Err(format!(
            "{at}.step: {index} is marked irreversible: its requests always wait for the person's yes"
        )),
        Some(_) => Ok(()),
    }
}

fn method(at: &str, method: &str) -> Result<(), String> {
    let field = format!("{at}.method");
    line(&field, method, METHOD_MAX_CHARS)?;
    if SAFE_METHODS.contains(&method) {
        return Err(format!(
            "{field}: {method} changes nothing and passes anyway; name the state-changing method"
        ));
    }
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(format!(
            "{field}: {method:?} is not one HTTP method (\"*\" is not allowed here)"
        ));
    }
    Ok(())
}

/// Exactly the `host[:port]` of one allowed origin, as a browser's
/// `URL.host` writes it (lower case, no default port): the guard compares
/// it as it is. Returns that origin's scheme.
fn host(at: &str, host: &str, origins: &[String]) -> Result<&'static str, String> {
    let field = format!("{at}.host");
    line(&field, host, URL_MAX_CHARS)?;
    if host.contains('*') {
        return Err(format!(
            "{field}: {host:?} has a wildcard; name exactly one host"
        ));
    }
    let known: Vec<(String, &'static str)> =
        origins.iter().filter_map(|o| origin_host(o)).collect();
    let wanted = host.to_ascii_lowercase();
    match known.iter().find(|(h, _)| *h == wanted) {
        Some((_, scheme)) => Ok(*scheme),
        None => {
            let names: Vec<&str> = known.iter().map(|(h, _)| h.as_str()).collect();
            Err(format!(
                "{field}: {host:?} is not the host of any of allowed-origins ({})",
                names.join(", ")
            ))
        }
    }
}

/// An origin's `host[:port]` and scheme, the way a browser reads them.
fn origin_host(origin: &str) -> Option<(String, &'static str)> {
    let url = url::Url::parse(origin).ok()?;
    let scheme = match url.scheme() {
        "https" => "https",
        "http" => "http",
        _ => return None,
    };
    let host = url.host_str()?.to_ascii_lowercase();
    Some(match url.port() {
        Some(port) => (format!("{host}:{port}"), scheme),
        None => (host, scheme),
    })
}

fn path(at: &str, request: &HarmlessRequest, scheme: &str, m: &Metadata) -> Result<(), String> {
    let field = format!("{at}.path");
    let path = request.path.as_str();
    line(&field, path, URL_MAX_CHARS)?;
    // A path always starts with '/'; a leading '*' would let any path in
    // front of the literal part, "/account/cancel/" included.
    if !path.starts_with('/') {
        return Err(format!(
            "{field}: {path:?} must start with '/': it is matched against the path and query"
        ));
    }
    if !has_literal_segment(path) {
        return Err(format!(
            "{field}: {path:?} is too broad: it needs a path segment that starts with at least \
             {HARMLESS_SEGMENT_MIN_CHARS} literal characters, like \"/account/survey*\""
        ));
    }
    if let Some(word) = commit_word(path) {
        return Err(format!(
            "{field}: {path:?} holds {word:?}, which the host reads as a commit; a request that \
             might commit is always put to the person"
        ));
    }
    if let Some(commit) = overlapping_commit(request, scheme, m) {
        return Err(format!(
            "{field}: {path:?} overlaps the plugin's own commit pattern {commit}; a request \
             cannot be both"
        ));
    }
    Ok(())
}

/// Whether a segment of the path part (before any `?`) starts with enough
/// literal characters.
fn has_literal_segment(pattern: &str) -> bool {
    let path = pattern.split('?').next().unwrap_or_default();
    path.split('/').any(|segment| {
        segment.chars().take_while(|c| *c != '*').count() >= HARMLESS_SEGMENT_MIN_CHARS
    })
}

/// The first of the host's commit words in the pattern, as written, with
/// its wildcards dropped (`/can*cel`) or percent-decoded (`/%63ancel`): each
/// is a spelling a server may read as the word.
fn commit_word(pattern: &str) -> Option<String> {
    let Some(words) = COMMIT_WORDS.as_ref() else {
        return Some("(the host's commit words could not be read)".to_owned());
    };
    let joined = pattern.replace('*', "");
    spellings(pattern)
        .into_iter()
        .chain(spellings(&joined))
        .find_map(|text| words.find(&text).map(|m| m.as_str().to_owned()))
}

/// `text`, and its percent-decoded forms (a few passes undo double
/// encoding), as the guard reads a request's URL.
fn spellings(text: &str) -> Vec<String> {
    let mut out = vec![text.to_owned()];
    for _ in 0..3 {
        let Some(last) = out.last() else { break };
        let next = percent_decoded(last);
        if &next == last {
            break;
        }
        out.push(next);
    }
    out
}

fn percent_decoded(text: &str) -> String {
    String::from_utf8_lossy(&percent_decode_bytes(text)).into_owned()
}

fn percent_decode_bytes(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// The plugin's own commit pattern the entry overlaps, if any: a request
/// the entry lets pass (each `*` a sample segment) that the pattern names,
/// or the pattern's literal text that the entry lets pass.
fn overlapping_commit(request: &HarmlessRequest, scheme: &str, m: &Metadata) -> Option<String> {
    let commits = m
        .commit_url_patterns
        .iter()
        .map(|glob| (glob.as_str(), format!("{glob:?} (commit-url-patterns)")))
        .chain(
            m.commit_requests
                .iter()
                .filter(|r| r.method == "*" || r.method.eq_ignore_ascii_case(&request.method))
                .map(|r| {
                    (
                        r.url_pattern.as_str(),
                        format!("{} {:?} (commit-requests)", r.method, r.url_pattern),
                    )
                }),
        );
    for (glob, named) in commits {
        let sample_is_commit = SAMPLE_SEGMENTS.iter().any(|sample| {
            let url = format!(
                "{scheme}://{}{}",
                request.host,
                request.path.replace('*', sample)
            );
            Glob::new(glob).matches(&url)
        });
        let commit_is_harmless = Glob::new(&request.path).matches(&literal_path(glob));
        if sample_is_commit || commit_is_harmless {
            return Some(named);
        }
    }
    None
}

/// The path and query a commit glob names once its wildcards are dropped:
/// what follows the host of a full URL, or the text from its first '/'.
fn literal_path(glob: &str) -> String {
    let literal = glob.replace('*', "");
    let after_scheme = literal
        .split_once("://")
        .map_or(literal.as_str(), |(_, rest)| rest);
    let from_scheme = literal.contains("://");
    match after_scheme.find('/') {
        Some(at) => after_scheme[at..].to_owned(),
        None if from_scheme => "/".to_owned(),
        None => format!("/{after_scheme}"),
    }
}

#[cfg(test)]
mod tests;
