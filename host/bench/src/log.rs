//! The site's request log: every request on either origin, stamped on the
//! site's own clock, with a short body summary whose secrets are masked,
//! and what the site did with it. Scores are read from here, never from
//! what an agent says it did.

use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::request::{BillingChange, Origin};

/// How much of a body the log keeps: enough to tell a survey answer from a
/// pause, short enough that a log of a long run stays small.
pub const BODY_SUMMARY_BYTES: usize = 200;

/// Field names whose values are never written down.
const SECRET_FIELDS: &[&str] = &["pass", "pwd", "card", "cc-", "cvc", "cvv", "iban", "token"];
const MASK: &str = "***";

/// What the site did with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "change")]
pub enum RequestKind {
    /// A page, a frame, a preflight, a miss: changes nothing.
    Read,
    /// Moved the flow on (a survey or a "cancel" radio posted).
    Navigate,
    /// The cancellation.
    Commit,
    /// A billing change nobody asked for.
    Unwanted(BillingChange),
    /// A password was sent.
    Credential,
    /// The account holder signed in at a wall themselves: their password
    /// ([`crate::site::PERSON_PASSWORD`]), which an agent is never given.
    SignedIn,
}

/// One request as the site saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LoggedRequest {
    /// Milliseconds since the site started ([`crate::BenchSite::now_ms`]).
    pub at_ms: u64,
    pub method: String,
    pub origin: Origin,
    /// Path and query.
    pub target: String,
    /// The first bytes of the body, secrets masked.
    pub body: String,
    /// The body's fields, secrets masked, for the scorer's patterns.
    pub fields: Vec<(String, String)>,
    pub kind: RequestKind,
    pub status: u16,
}

impl LoggedRequest {
    /// The path without its query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }
}

/// The log and its clock.
#[derive(Debug)]
pub struct RequestLog {
    started: Instant,
    entries: Mutex<Vec<LoggedRequest>>,
}

impl Default for RequestLog {
    fn default() -> Self {
        RequestLog {
            started: Instant::now(),
            entries: Mutex::new(Vec::new()),
        }
    }
}

impl RequestLog {
    /// Milliseconds since the log (the site) started.
    pub fn now_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    pub fn push(&self, entry: LoggedRequest) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.push(entry);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.lock().map(|e| e.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn entries(&self) -> Vec<LoggedRequest> {
        self.entries.lock().map(|e| e.clone()).unwrap_or_default()
    }
}

/// A body's fields: a form's pairs, or a flat JSON object's members (what
/// the single-page apps send). Any other body has none.
pub fn fields(body: &[u8], content_type: &str) -> Vec<(String, String)> {
    if content_type.starts_with("application/json") {
        let Ok(serde_json::Value::Object(map)) = serde_json::from_slice(body) else {
            return Vec::new();
        };
        return map
            .into_iter()
            .map(|(k, v)| {
                let v = match v {
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (k, v)
            })
            .collect();
    }
    if !content_type.starts_with("application/x-www-form-urlencoded") {
        return Vec::new();
    }
    url::form_urlencoded::parse(body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// The fields with their secrets masked: by name, and any long run of
/// digits (a card number typed into a field of any name).
pub fn mask(fields: &[(String, String)]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(k, v)| {
            let lower = k.to_ascii_lowercase();
            if SECRET_FIELDS.iter().any(|s| lower.contains(s)) {
                (k.clone(), MASK.to_owned())
            } else {
                (k.clone(), mask_digits(v))
            }
        })
        .collect()
}

/// The summary the log keeps: masked fields as `k=v&…`, or the raw body's
/// first bytes (digits masked) when it has no fields.
pub fn summary(body: &[u8], masked: &[(String, String)]) -> String {
    let text = if masked.is_empty() {
        mask_digits(&String::from_utf8_lossy(body))
    } else {
        masked
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    };
    truncate(&text, BODY_SUMMARY_BYTES)
}

/// Runs of 12 or more digits (spaces and dashes between them allowed)
/// become `***`: card and account numbers.
fn mask_digits(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let mut digits = 0;
    let flush = |run: &mut String, digits: &mut usize, out: &mut String| {
        if *digits >= 12 {
            out.push_str(MASK);
            // Keep a trailing separator out of the mask's reach.
            if run.ends_with([' ', '-']) {
                out.push(' ');
            }
        } else {
            out.push_str(run);
        }
        run.clear();
        *digits = 0;
    };
    for c in text.chars() {
        if c.is_ascii_digit() {
            run.push(c);
            digits += 1;
        } else if (c == ' ' || c == '-') && digits > 0 {
            run.push(c);
        } else {
            flush(&mut run, &mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut digits, &mut out);
    out
}

fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests;
