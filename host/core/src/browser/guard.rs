//! The network guard, the last line of defence: while an action the human did
//! not approve runs, the requests that would commit the cancellation are
//! stopped inside Playwright, before they leave the browser.
//!
//! One context-level route, installed through `browser_run_code_unsafe` in
//! the server's Node process (`guard.js`). The page's own scripts can neither
//! see nor remove it; it covers every frame (cross-origin ones too), popups,
//! fetch/XHR and navigations. Its state (rules, mode, what it stopped) lives
//! on Playwright's `BrowserContext` object, which outlives each call's fresh
//! script context. Every call also reinstalls the guard when the context lost
//! it (the server relaunches the browser after its idle timeout), and says so
//! as an error: requests of that gap went unguarded.
//!
//! Outside its reach: requests a service worker makes itself, WebSockets, and
//! the later hops of a redirect (Playwright routes see only the first URL).

use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Browser, BrowserError};

/// Playwright MCP's tool that runs a function in its own Node process, where
/// the route lives. Never offered to a model: it could remove the route.
pub const RUN_CODE: &str = "browser_run_code_unsafe";

/// Stopped requests kept between two [`NetworkGuard::take_blocked`] calls: a
/// page that fires requests in a loop must not grow the server's memory or
/// our result without bound; the rest are only counted.
pub const MAX_BLOCKED_KEPT: usize = 100;

/// Longest URL kept for a stopped request, in characters: enough to tell what
/// it was, bounded for a hostile page.
pub const MAX_URL_CHARS: usize = 2000;

/// The mode the guard starts in: form posts stopped, links followed.
pub const INITIAL_MODE: GuardMode = GuardMode::Guarded {
    block_posts: true,
    block_navigations: false,
};

/// Starts the guard's answer inside the error text the server reports (see
/// `reply` in `guard.js`); no other error says it.
pub const ANSWER_MARK: &str = "subterminator-guard-answer:";

/// The route and its state, a function of `page`; placeholders filled by
/// [`code`].
const GUARD_JS: &str = include_str!("guard.js");

/// What the guard stops.
#[derive(Debug, Clone, Default)]
pub struct GuardRules {
    /// `scheme://host:port` origins of the service (the guard's "service's origins").
    pub origins: Vec<String>,
    /// Commit request patterns from the plugin: (METHOD or "*", URL glob with `*`).
    pub commit_requests: Vec<(String, String)>,
    /// URL globs whose request itself commits (any method).
    pub commit_urls: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardMode {
    /// An approved action is running: nothing is stopped.
    Open,
    /// An unapproved action: commit patterns are always stopped; also form
    /// submissions / any non-GET request to the service's origins when
    /// `block_posts`, and top-level (main-frame document) navigations to the
    /// service's origins when `block_navigations`.
    Guarded {
        block_posts: bool,
        block_navigations: bool,
    },
}

/// One request the guard stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockedRequest {
    pub method: String,
    /// At most [`MAX_URL_CHARS`] characters of it.
    pub url: String,
    /// "a form submission", "a navigation", "a request matching the plugin's
    /// commit pattern POST */api/cancel*"
    pub why: String,
    /// It would have replaced the page in a tab (a main-frame document).
    pub navigation: bool,
}

/// The installed guard. Remembers the mode last set, so that setting the same
/// mode again costs no call.
#[derive(Debug)]
pub struct NetworkGuard {
    /// The rules as the script takes them, built once.
    rules: String,
    /// `None` after a call that failed: the mode in the browser is unknown,
    /// so the next [`NetworkGuard::set_mode`] cannot be skipped.
    mode: Mutex<Option<GuardMode>>,
}

impl NetworkGuard {
    /// Installs the route. Call once, before the first navigation. Starts
    /// [`INITIAL_MODE`]: `Guarded { block_posts: true, block_navigations: false }`.
    pub async fn install(
        browser: &Browser,
        rules: &GuardRules,
    ) -> Result<NetworkGuard, BrowserError> {
        let guard = NetworkGuard {
            rules: wire_rules(rules),
            mode: Mutex::new(None),
        };
        guard.run(browser, Op::Install, INITIAL_MODE).await?;
        guard.remember(Some(INITIAL_MODE));
        Ok(guard)
    }

    /// Puts `mode` in force for the requests from now on.
    pub async fn set_mode(&self, browser: &Browser, mode: GuardMode) -> Result<(), BrowserError> {
        if self.remembered() == Some(mode) {
            return Ok(());
        }
        // Until the call answers, the mode in the browser is unknown.
        self.remember(None);
        let taken = self.run(browser, Op::Mode, mode).await?;
        self.remember(Some(mode));
        if taken.fresh {
            return Err(reinstalled(mode));
        }
        Ok(())
    }

    /// Requests stopped since the last call, oldest first (and forgets them).
    pub async fn take_blocked(
        &self,
        browser: &Browser,
    ) -> Result<Vec<BlockedRequest>, BrowserError> {
        let mode = self.remembered().unwrap_or(INITIAL_MODE);
        let taken = self.run(browser, Op::Take, mode).await?;
        if taken.fresh {
            self.remember(Some(mode));
            return Err(reinstalled(mode));
        }
        if taken.dropped > 0 {
            tracing::warn!(
                kept = taken.blocked.len(),
                dropped = taken.dropped,
                "the network guard stopped more requests than it keeps"
            );
        }
        Ok(taken.blocked)
    }

    fn remembered(&self) -> Option<GuardMode> {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn remember(&self, mode: Option<GuardMode>) {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner) = mode;
    }

    async fn run(&self, browser: &Browser, op: Op, mode: GuardMode) -> Result<Taken, BrowserError> {
        let answer = match browser
            .call(RUN_CODE, json!({ "code": code(&self.rules, op, mode) }))
            .await
        {
            Ok(output) => output.result,
            Err(BrowserError::Tool { message, .. }) if message.contains(ANSWER_MARK) => {
                Some(message)
            }
            Err(e) => return Err(e),
        };
        parse_taken(answer.as_deref()).map_err(|message| BrowserError::Tool {
            tool: RUN_CODE.to_owned(),
            message,
        })
    }
}

/// The guard was gone from the browser context (the server relaunches the
/// browser after its idle timeout): whatever ran since the last guard call
/// ran unguarded, which the caller must know even though the guard is back.
fn reinstalled(mode: GuardMode) -> BrowserError {
    BrowserError::Tool {
        tool: RUN_CODE.to_owned(),
        message: format!(
            "the network guard was missing from the browser (relaunched?) and is now \
             reinstalled in mode {mode:?}; requests before this call were not guarded"
        ),
    }
}

/// What a call of the script does after making sure the guard is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// Sets the mode and forgets what was stopped before.
    Install,
    Mode,
    Take,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Install => "install",
            Op::Mode => "mode",
            Op::Take => "take",
        }
    }
}

/// The code that installs the guard with `rules` in [`INITIAL_MODE`].
pub fn install_code(rules: &GuardRules) -> String {
    code(&wire_rules(rules), Op::Install, INITIAL_MODE)
}

/// The code that puts `mode` in force (reinstalling the guard if missing).
pub fn mode_code(rules: &GuardRules, mode: GuardMode) -> String {
    code(&wire_rules(rules), Op::Mode, mode)
}

/// The code that returns and forgets what was stopped; `mode` is used only
/// if the guard must be reinstalled.
pub fn take_code(rules: &GuardRules, mode: GuardMode) -> String {
    code(&wire_rules(rules), Op::Take, mode)
}

fn code(rules: &str, op: Op, mode: GuardMode) -> String {
    let (open, posts, navs) = match mode {
        GuardMode::Open => (true, false, false),
        GuardMode::Guarded {
            block_posts,
            block_navigations,
        } => (false, block_posts, block_navigations),
    };
    let op = json!({ "op": op.name(), "mode": { "open": open, "posts": posts, "navs": navs } });
    GUARD_JS
        .replace("/*RULES*/null", rules)
        .replace("/*OP*/null", &op.to_string())
        .replace("/*KEEP*/0", &MAX_BLOCKED_KEPT.to_string())
        .replace("/*URL_CHARS*/0", &MAX_URL_CHARS.to_string())
        .replace("/*MARK*/''", &json!(ANSWER_MARK).to_string())
}

/// The rules as JSON for the script: every glob already a regex, with the
/// words that say why it stops a request.
fn wire_rules(rules: &GuardRules) -> String {
    #[derive(Serialize)]
    struct Commit {
        method: String,
        regex: String,
        why: String,
    }
    let requests = rules.commit_requests.iter().map(|(method, glob)| {
        let method = method.trim().to_uppercase();
        let why = format!("a request matching the plugin's commit pattern {method} {glob}");
        Commit {
            method,
            regex: glob_regex(glob),
            why,
        }
    });
    let urls = rules.commit_urls.iter().map(|glob| Commit {
        method: "*".to_owned(),
        regex: glob_regex(glob),
        why: format!("a request to the plugin's commit URL {glob}"),
    });
    let commit: Vec<Commit> = requests.chain(urls).collect();
    json!({ "origins": rules.origins, "commit": commit }).to_string()
}

/// A glob (`*` = any run of characters, the rest literal) as a regex that
/// matches whole URLs, written in the syntax JavaScript's `RegExp` and the
/// `regex` crate read alike; both engines are told to ignore case.
pub fn glob_regex(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len() + 8);
    out.push('^');
    for c in glob.chars() {
        match c {
            '*' => out.push_str(".*"),
            // The characters with a meaning in either syntax.
            '\\' | '^' | '$' | '.' | '|' | '?' | '+' | '(' | ')' | '[' | ']' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push('$');
    out
}

/// What one call of the script returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taken {
    /// The guard had to be installed by this call.
    pub fresh: bool,
    pub blocked: Vec<BlockedRequest>,
    /// Stopped beyond [`MAX_BLOCKED_KEPT`], counted only.
    pub dropped: u64,
}

/// Reads the script's answer, `{"fresh":…,"blocked":[…],"dropped":…}`: the
/// line after [`ANSWER_MARK`] in the error text, or the whole `### Result`
/// text when no mark is there. Anything else is an error naming what came.
pub fn parse_taken(result: Option<&str>) -> Result<Taken, String> {
    #[derive(Deserialize)]
    struct Wire {
        fresh: bool,
        #[serde(default)]
        blocked: Vec<WireBlocked>,
        #[serde(default)]
        dropped: u64,
    }
    #[derive(Deserialize)]
    struct WireBlocked {
        method: String,
        url: String,
        why: String,
        #[serde(default)]
        navigation: bool,
    }
    let text = result.unwrap_or_default();
    let text = match text.split_once(ANSWER_MARK) {
        // The stack trace follows on the next lines; the JSON has no newline.
        Some((_, rest)) => rest.lines().next().unwrap_or_default(),
        None => text,
    }
    .trim();
    let wire: Wire = serde_json::from_str(text).map_err(|e| {
        format!(
            "the network guard answered something unreadable ({e}): {}",
            crate::text::truncate(text, 200, "…")
        )
    })?;
    let blocked = wire
        .blocked
        .into_iter()
        .map(|b| BlockedRequest {
            method: b.method,
            url: crate::text::truncate(&b.url, MAX_URL_CHARS, "").into_owned(),
            why: b.why,
            navigation: b.navigation,
        })
        .collect();
    Ok(Taken {
        fresh: wire.fresh,
        blocked,
        dropped: wire.dropped,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// The script compiles with the `i` flag; the crate here is built
    /// without Unicode case tables, so both sides are lowered instead.
    fn matches(glob: &str, url: &str) -> bool {
        regex::Regex::new(&glob_regex(&glob.to_lowercase()))
            .unwrap()
            .is_match(&url.to_lowercase())
    }

    #[test]
    fn globs_table() {
        let table: &[(&str, &str, bool)] = &[
            ("*/api/cancel*", "https://x.test/api/cancel", true),
            ("*/api/cancel*", "https://x.test/api/cancel?now=1", true),
            ("*/api/cancel*", "https://x.test/API/Cancel", true),
            ("*/api/cancel*", "https://x.test/api/other", false),
            // Whole URLs: no match in the middle without a `*`.
            ("/api/cancel", "https://x.test/api/cancel", false),
            (
                "https://x.test/commit.html",
                "https://x.test/commit.html",
                true,
            ),
            (
                "https://x.test/commit.html",
                "https://x.test/commit.html?x",
                false,
            ),
            // Regex characters are literal.
            ("*/commit.html?x", "https://x.test/commit.html?x", true),
            ("*/commit.html?x", "https://x.test/commitAhtml?x", false),
            ("*/commit.html?x", "https://x.test/commit.htm?x", false),
            ("*(a|b)+[c]{1}^$\\*", "z(a|b)+[c]{1}^$\\q", true),
            ("*(a|b)+[c]{1}^$\\*", "zab", false),
            ("*", "", true),
            ("", "", true),
            ("", "x", false),
            (
                "*/cancel-membership/*",
                "https://x.test/cancel-membership/confirm",
                true,
            ),
            ("*/Cancel?Now=1", "https://x.test/CANCEL?now=1", true),
        ];
        for (glob, url, expected) in table {
            assert_eq!(matches(glob, url), *expected, "{glob:?} vs {url:?}");
        }
    }

    #[test]
    fn results_table() {
        let full = r#"{"fresh":false,"blocked":[
            {"method":"POST","url":"http://127.0.0.1:1/commit.html","why":"a form submission","navigation":true},
            {"method":"GET","url":"http://127.0.0.1:1/x","why":"a navigation","navigation":true}],"dropped":3}"#;
        let taken = parse_taken(Some(full)).unwrap();
        assert!(!taken.fresh);
        assert_eq!(taken.dropped, 3);
        assert_eq!(
            taken.blocked[0],
            BlockedRequest {
                method: "POST".into(),
                url: "http://127.0.0.1:1/commit.html".into(),
                why: "a form submission".into(),
                navigation: true
            }
        );
        assert_eq!(taken.blocked[1].why, "a navigation");
        assert_eq!(
            parse_taken(Some(" {\"fresh\":true}\n")).unwrap(),
            Taken {
                fresh: true,
                ..Taken::default()
            }
        );
        let long = format!(
            r#"{{"fresh":false,"blocked":[{{"method":"GET","url":"{}","why":"w"}}]}}"#,
            "u".repeat(MAX_URL_CHARS + 10)
        );
        let taken = parse_taken(Some(&long)).unwrap();
        assert_eq!(taken.blocked[0].url.chars().count(), MAX_URL_CHARS);
        assert!(!taken.blocked[0].navigation);
        for bad in [
            None,
            Some(""),
            Some("undefined"),
            Some("null"),
            Some("[1]"),
            Some("{}"),
        ] {
            let e = parse_taken(bad).unwrap_err();
            assert!(e.contains("unreadable"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn the_code_has_its_rules_and_mode() {
        let rules = GuardRules {
            origins: vec!["https://www.netflix.com:443".into()],
            commit_requests: vec![("post".into(), "*/api/cancel*".into())],
            commit_urls: vec!["*/commit.html?x".into()],
        };
        let code = mode_code(
            &rules,
            GuardMode::Guarded {
                block_posts: false,
                block_navigations: true,
            },
        );
        assert!(code.starts_with("async (page) =>"), "{code}");
        for placeholder in [
            "/*RULES*/",
            "/*OP*/",
            "/*KEEP*/",
            "/*URL_CHARS*/",
            "/*MARK*/",
        ] {
            assert!(!code.contains(placeholder), "{placeholder} left in");
        }
        assert!(code.contains(r#"{"mode":{"navs":true,"open":false,"posts":false},"op":"mode"}"#));
        assert!(code.contains(r#""method":"POST","regex":"^.*/api/cancel.*$""#));
        assert!(code.contains(r#""regex":"^.*/commit\\.html\\?x$""#));
        assert!(code.contains("the plugin's commit pattern POST */api/cancel*"));
        assert!(code.contains(&format!("const KEEP = {MAX_BLOCKED_KEPT};")));
        assert!(code.contains(&format!("const MARK = \"{ANSWER_MARK}\";")));
        assert!(install_code(&rules).contains(r#""posts":true"#));
        assert!(install_code(&rules).contains(r#""op":"install""#));
        assert!(take_code(&rules, GuardMode::Open).contains(r#""open":true"#));
    }
}
