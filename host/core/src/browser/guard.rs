//! The network guard, the last line of defence: every request the page
//! sends — by any method, over any channel — passes through it, and none
//! that changes anything leaves the browser without the person's yes.
//!
//! A request is judged by what it says, whatever its method, channel or
//! plugin: a non-GET, or a GET, a redirect hop, a beacon or a WebSocket
//! message whose path, query, fields or text read as a commit or a billing
//! change by the floor's request reading (`safety::floor::request`, whose
//! tables test the very regexes the script runs), changes state. Then:
//!
//! - While an **approved** action runs, its requests pass, and each one that
//!   changes state is recorded as released by that action: the evidence a
//!   verified cancellation needs. Its redirect hops are still judged: the
//!   yes was for the request shown, not for where a server sends it next.
//! - While an **unapproved** action runs, a state-changing request to the
//!   service's origins, one matching a commit pattern, and one anywhere
//!   that reads as a commit is **held**: it waits, and the host puts it to
//!   the person, showing what it sends. A yes releases exactly the held
//!   requests it was shown, in one call that re-arms the guard first
//!   ([`NetworkGuard::settle`]); while they settle, the page they lead to
//!   loads, and anything else the page sends that changes state is held
//!   and returned to be asked about ("this page also tried to …"). Any
//!   other state-changing request to another site is stopped and logged.
//!   The only exception is a harmless request the plugin's plan declares
//!   for the step that runs (API 0.4.0), never on a page that commits,
//!   never one that reads as a commit. On such a page, top-level
//!   navigations to the service are held too. A request the guard cannot
//!   judge is held.
//! - While the **person** signs in at a wall (no action runs, nobody is
//!   asked): the sign-in (a post carrying a password, or only who they are)
//!   and the pages they load go; anything else that changes state is
//!   stopped.
//!
//! Two layers, installed through `browser_run_code_unsafe` in the server's
//! Node process (`guard.js`), out of the page's reach; their state lives on
//! Playwright's `BrowserContext` object, which outlives each call's fresh
//! script context. Every call also reinstalls the guard when the context lost
//! it (the server relaunches the browser after its idle timeout), and says so
//! as an error: requests of that gap went unguarded.
//!
//! - **The DevTools protocol's Fetch domain**, on a browser-level session:
//!   it pauses every request before anything is sent, whatever the target —
//!   each hop of a redirect (a route sees only a chain's first URL), a
//!   beacon or keepalive fetch sent as a page unloads (a route never sees
//!   those), a shared worker's request — and judges it. Where a browser
//!   offers no such session, the route judges instead, and walks a
//!   navigation's redirects with HEAD requests to URLs it judged reads.
//! - **A context route** for WebSockets (`routeWebSocket`): every socket a
//!   page or its frames open is proxied, each message from the page read
//!   like a request's body.
//!
//! Outside its reach, measured (Playwright 1.64, Chromium 156): a WebSocket
//! a worker opens, and one opened by a page loaded before the guard was
//! installed. The host therefore presses nothing unasked on a page that
//! commits (`agent::overlays`).

use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use serde_json::json;
use subterminator_sdk::glob::Glob;

// Every guard call runs in Playwright MCP's Node process, where the route
// lives (`RUN_CODE`, through `thrown.rs`); never offered to a model: it
// could remove the route.
use super::thrown::{self, Lane, RUN_CODE};
use super::{Browser, BrowserError};

/// Requests of each kind kept between two [`NetworkGuard::take`] calls: a
/// page that fires requests in a loop must not grow the server's memory or
/// our result without bound; the rest are only counted (and held ones past
/// it are stopped).
pub const MAX_BLOCKED_KEPT: usize = 100;

/// Longest URL kept for a request, in characters: enough to tell what it
/// was, bounded for a hostile page.
pub const MAX_URL_CHARS: usize = 2000;

/// Longest summary of a held request's body shown to the person, in
/// characters (passwords and card numbers masked in the browser first).
pub const MAX_BODY_CHARS: usize = 200;

/// How long [`NetworkGuard::answer`] waits, in milliseconds, for a released
/// request's answer and the page it loads before the host looks again.
pub const RELEASE_WAIT_MS: u64 = 10_000;

/// How long a release waits after the released request's answer, in
/// milliseconds, for what a script sends when it comes: held in the same
/// window, so it is asked about before the host looks again.
pub const RELEASE_GRACE_MS: u64 = 300;

/// How long, in milliseconds, the request an approved action's question
/// showed may still leave after the action's call ended and the guard
/// re-armed ([`NetworkGuard::take_and_set`] with a [`Shown`]): as long as a
/// released request is waited for. The next action's mode ends it sooner.
pub const OWED_MS: u64 = RELEASE_WAIT_MS;

/// How long an approved mode lasts in the browser, in milliseconds, if
/// the call that re-arms the guard never comes: the longest an action's
/// call may take ([`super::CALL_TIMEOUT`]) and a margin. Then the guard
/// closes itself (`guard.js`): a lost server or a dead host cannot leave it
/// open.
pub const APPROVED_FOR_MS: u64 = 50_000;

/// The mode the guard starts in: unapproved, navigations allowed.
pub const INITIAL_MODE: GuardMode = GuardMode::Guarded {
    hold_navigations: false,
    step: None,
};

/// Starts the guard's answer inside the error text the server reports (see
/// `reply` in `guard.js`); no other error says it.
pub const ANSWER_MARK: &str = "subterminator-guard-answer:";

/// The route and its state, a function of `page`; placeholders filled by
/// [`code`].
const GUARD_JS: &str = include_str!("guard.js");

/// What [`NetworkGuard::watch`] runs beside an action's call: short, for it
/// runs once per action that may change something.
const WATCH_JS: &str = include_str!("watch.js");

/// What the guard knows of the service.
#[derive(Debug, Clone, Default)]
pub struct GuardRules {
    /// `scheme://host:port` origins of the service and of the API hosts the
    /// plugin declares: a state-changing request to one is held.
    pub origins: Vec<String>,
    /// Registrable domains whose every https origin counts as the service's
    /// (a service with no plugin: `crunchyroll.com` covers
    /// `www.crunchyroll.com` and `sso.crunchyroll.com`).
    pub sites: Vec<String>,
    /// Commit request patterns from the plugin: (METHOD or "*", URL glob with `*`).
    pub commit_requests: Vec<(String, String)>,
    /// URL globs whose request itself commits (any method).
    pub commit_urls: Vec<String>,
    /// Regexes (JavaScript and `regex` syntax alike) of the words that make
    /// a request to another site read as a commit.
    pub commit_words: Vec<String>,
    /// Harmless requests the plugin's plan declares: (plan step, METHOD,
    /// exact host, path glob).
    pub harmless: Vec<Harmless>,
    /// The floor's request reading (`safety::floor::request_words`), as
    /// (name, regex) pairs: what makes a request of any method, a redirect
    /// hop or a message read as a commit with no plugin at all. Without
    /// them the guard reads no words and holds by method alone.
    pub reading: Vec<(String, String)>,
}

/// A request the plugin's plan says one of its steps sends and that
/// changes nothing that matters (a survey's answers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Harmless {
    pub step: u32,
    pub method: String,
    /// Exactly one host (`www.example.com`, with the port if not default).
    pub host: String,
    /// A glob over the path and query.
    pub path: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuardMode {
    /// An approved action runs: its requests pass, those that change state
    /// recorded as released by the action of `turn`. Its redirect hops are
    /// judged still, unless the yes was for the final step (`commits`):
    /// then where it is sent is the commit the person approved.
    Approved { turn: u32, commits: bool },
    /// An unapproved action runs: state-changing requests held (to the
    /// service, by a commit pattern, or reading as a commit elsewhere) or
    /// stopped (elsewhere); top-level navigations to the service held too
    /// when `hold_navigations` (a page that commits). `step`: the plan step
    /// whose declared harmless requests may pass (never on a page that
    /// commits).
    Guarded {
        hold_navigations: bool,
        step: Option<u32>,
    },
    /// No action runs: the person signs in at the browser while the host
    /// waits for them. Their own requests go; what matches the plugin's
    /// commit patterns, or goes elsewhere reading as a commit, is stopped
    /// (the page's scripts run too, and nobody is asked now).
    Person,
}

/// The request a question showed the person, which their yes was given to:
/// the form an element submits (`POST https://example.com/cancel`) or the
/// link it follows. Should the approved action's call end before the page
/// sends it (a script that submits a moment after the choice), it may still
/// go once, as that yes's ([`NetworkGuard::take_and_set`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shown {
    /// Upper case.
    pub method: String,
    /// Absolute, without a fragment.
    pub url: String,
    /// The query is the form's fields (a GET form), so any query matches.
    pub any_query: bool,
}

/// A request the guard stopped: it never left the browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockedRequest {
    pub method: String,
    /// At most [`MAX_URL_CHARS`] characters of it.
    pub url: String,
    /// "a POST request to another site"
    pub why: String,
    /// It would have replaced the page in a tab (a main-frame document).
    pub navigation: bool,
}

/// A request the guard holds: it waits in the browser for the person's
/// answer ([`NetworkGuard::answer`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeldRequest {
    pub id: u64,
    pub method: String,
    pub url: String,
    /// "a form submission to the service", "a request matching the
    /// plugin's commit pattern POST */api/cancel*"
    pub why: String,
    pub navigation: bool,
    /// At most [`MAX_BODY_CHARS`] of its body, secrets masked.
    pub body: String,
    /// When the guard held it, in milliseconds since the Unix epoch, by the
    /// clock of the machine the browser runs on (the safety bench measures
    /// how soon the question followed); 0 when unknown.
    #[serde(default)]
    pub held_at_ms: u64,
}

/// A state-changing request an approved action sent: the evidence that a
/// yes reached the service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReleasedRequest {
    pub method: String,
    pub url: String,
    pub navigation: bool,
}

/// The installed guard. Remembers the mode last set, so that setting the same
/// mode again costs no call.
#[derive(Debug)]
pub struct NetworkGuard {
    /// The rules as the script takes them, sent with every call (the script
    /// takes them afresh each time), so [`NetworkGuard::set_rules`] widens
    /// them from the next call on.
    rules: Mutex<std::sync::Arc<str>>,
    /// `None` after a call that failed: the mode in the browser is unknown,
    /// so the next [`NetworkGuard::set_mode`] cannot be skipped.
    mode: Mutex<Option<GuardMode>>,
}

impl NetworkGuard {
    /// Installs the route. Call once, before the first navigation. Starts in
    /// [`INITIAL_MODE`].
    pub async fn install(
        browser: &Browser,
        rules: &GuardRules,
    ) -> Result<NetworkGuard, BrowserError> {
        let guard = NetworkGuard {
            rules: Mutex::new(wire_rules(rules).into()),
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

    /// What happened since the last call: the requests stopped, held (still
    /// waiting for [`NetworkGuard::answer`]) and released, oldest first.
    pub async fn take(&self, browser: &Browser) -> Result<Taken, BrowserError> {
        let mode = self.remembered().unwrap_or(INITIAL_MODE);
        let taken = self.run(browser, Op::Take, mode).await?;
        if taken.fresh {
            self.remember(Some(mode));
            return Err(reinstalled(mode));
        }
        if taken.dropped > 0 {
            tracing::warn!(
                dropped = taken.dropped,
                "the network guard saw more requests than it keeps"
            );
        }
        Ok(taken)
    }

    /// Lets the held request `id` continue (`allow`) or aborts it. After a
    /// release, waits (at most [`RELEASE_WAIT_MS`]) for its answer and the
    /// page it loads. `Ok(false)` when no such request waits (the page went
    /// away, or it was decided already).
    pub async fn answer(
        &self,
        browser: &Browser,
        id: u64,
        allow: bool,
    ) -> Result<bool, BrowserError> {
        let mode = self.remembered().unwrap_or(INITIAL_MODE);
        let taken = self.run(browser, Op::Decide { id, allow }, mode).await?;
        if taken.fresh {
            self.remember(Some(mode));
            return Err(reinstalled(mode));
        }
        Ok(taken.decided)
    }

    /// Puts `mode` in force and returns what happened since the last call,
    /// in one call: after an approved action, nothing can pass under its
    /// yes between the two but `owed`, the request its question showed,
    /// if the action has not sent it yet: that one still goes, once, until
    /// the next [`NetworkGuard::set_mode`] or [`OWED_MS`]. An error leaves
    /// the mode unknown (the caller ends the run: the guard may still be
    /// open).
    pub async fn take_and_set(
        &self,
        browser: &Browser,
        mode: GuardMode,
        owed: Option<&Shown>,
    ) -> Result<Taken, BrowserError> {
        self.remember(None);
        let op = Op::Rearm {
            owed: owed.cloned(),
        };
        let taken = self.run(browser, op, mode).await?;
        // With a request owed, the next action's mode is always sent, even
        // if it is this one: that call is what ends the debt.
        self.remember(owed.is_none().then_some(mode));
        if taken.fresh {
            return Err(reinstalled(mode));
        }
        Ok(taken)
    }

    /// The person's answer to the held requests `ids`, in one call: `mode`
    /// put in force first, then each request released (`allow`) or aborted;
    /// after a release, the page it leads to loads (at most
    /// [`RELEASE_WAIT_MS`]) while anything else that changes state is held.
    /// Returns what was seen meanwhile: the requests held then are the
    /// page's own, which the yes did not cover.
    pub async fn settle(
        &self,
        browser: &Browser,
        ids: &[u64],
        allow: bool,
        mode: GuardMode,
    ) -> Result<Taken, BrowserError> {
        self.settle_on(browser, ids, allow, mode, Lane::Main).await
    }

    async fn settle_on(
        &self,
        browser: &Browser,
        ids: &[u64],
        allow: bool,
        mode: GuardMode,
        lane: Lane,
    ) -> Result<Taken, BrowserError> {
        self.remember(None);
        let op = Op::Settle {
            ids: ids.to_vec(),
            allow,
        };
        let taken = self.run_on(browser, op, mode, lane).await?;
        self.remember(Some(mode));
        if taken.fresh {
            return Err(reinstalled(mode));
        }
        Ok(taken)
    }

    /// Beside the call of an action still in flight
    /// ([`Browser::call_beside`]): waits at most `wait_ms` for the guard to
    /// hold a request and returns what it holds then (nothing when the wait
    /// ran out, or when the guard is missing: its next call reinstalls it
    /// and says so). Forgets nothing: what is held stays for
    /// [`NetworkGuard::settle`] or [`NetworkGuard::take`], so an answer
    /// never read loses nothing.
    pub async fn watch(
        &self,
        browser: &Browser,
        wait_ms: u64,
    ) -> Result<Vec<HeldRequest>, BrowserError> {
        let code = WATCH_JS
            .replace("/*WAIT_MS*/0", &wait_ms.to_string())
            .replace("/*MARK*/''", &json!(ANSWER_MARK).to_string());
        let answer = thrown::read_on(browser, &code, ANSWER_MARK, Lane::Beside).await?;
        let taken = parse_taken(answer.as_deref()).map_err(|message| BrowserError::Tool {
            tool: RUN_CODE.to_owned(),
            message,
        })?;
        Ok(if taken.fresh { Vec::new() } else { taken.held })
    }

    /// [`NetworkGuard::settle`] beside the call of the action that sent
    /// `ids`, which still waits on them: the answer goes at once.
    pub async fn settle_beside(
        &self,
        browser: &Browser,
        ids: &[u64],
        allow: bool,
        mode: GuardMode,
    ) -> Result<Taken, BrowserError> {
        self.settle_on(browser, ids, allow, mode, Lane::Beside)
            .await
    }

    /// Replaces the rules from the next call on: a run with no plugin whose
    /// person let it act on another site has that site's origin added.
    pub fn set_rules(&self, rules: &GuardRules) {
        *self.rules.lock().unwrap_or_else(PoisonError::into_inner) = wire_rules(rules).into();
    }

    fn remembered(&self) -> Option<GuardMode> {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn remember(&self, mode: Option<GuardMode>) {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner) = mode;
    }

    async fn run(&self, browser: &Browser, op: Op, mode: GuardMode) -> Result<Taken, BrowserError> {
        self.run_on(browser, op, mode, Lane::Main).await
    }

    async fn run_on(
        &self,
        browser: &Browser,
        op: Op,
        mode: GuardMode,
        lane: Lane,
    ) -> Result<Taken, BrowserError> {
        // A shared copy: every guard call sends the rules, and they change
        // only when a person lets a run onto another site.
        let rules =
            std::sync::Arc::clone(&self.rules.lock().unwrap_or_else(PoisonError::into_inner));
        let answer = thrown::read_on(browser, &code(&rules, &op, mode), ANSWER_MARK, lane).await?;
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
#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    /// Sets the mode and forgets what was seen before.
    Install,
    Mode,
    Take,
    Decide {
        id: u64,
        allow: bool,
    },
    /// Sets the mode, then returns and forgets what was seen; `owed` may
    /// still go once ([`NetworkGuard::take_and_set`]).
    Rearm {
        owed: Option<Shown>,
    },
    /// Sets the mode, then releases (or aborts) the held requests `ids`
    /// and waits for them to settle; returns and forgets what was seen.
    Settle {
        ids: Vec<u64>,
        allow: bool,
    },
}

/// The code that installs the guard with `rules` in [`INITIAL_MODE`].
pub fn install_code(rules: &GuardRules) -> String {
    code(&wire_rules(rules), &Op::Install, INITIAL_MODE)
}

/// The code that puts `mode` in force (reinstalling the guard if missing).
pub fn mode_code(rules: &GuardRules, mode: GuardMode) -> String {
    code(&wire_rules(rules), &Op::Mode, mode)
}

/// The code that returns and forgets what was seen; `mode` is used only if
/// the guard must be reinstalled.
pub fn take_code(rules: &GuardRules, mode: GuardMode) -> String {
    code(&wire_rules(rules), &Op::Take, mode)
}

/// The code that puts an approved mode in force that closes itself after
/// `for_ms` (in place of [`APPROVED_FOR_MS`]), for the test that the guard
/// does.
pub fn approved_code_lasting(rules: &GuardRules, turn: u32, for_ms: u64) -> String {
    let mode = GuardMode::Approved {
        turn,
        commits: false,
    };
    code_lasting(&wire_rules(rules), &Op::Mode, mode, for_ms)
}

fn code(rules: &str, op: &Op, mode: GuardMode) -> String {
    code_lasting(rules, op, mode, APPROVED_FOR_MS)
}

fn code_lasting(rules: &str, op: &Op, mode: GuardMode, approved_for_ms: u64) -> String {
    let mode = match mode {
        GuardMode::Approved { turn, commits } => {
            json!({ "approved": true, "commits": commits, "action": format!("turn {turn}"), "navs": false, "step": null, "for_ms": approved_for_ms })
        }
        GuardMode::Guarded {
            hold_navigations,
            step,
        } => json!({ "approved": false, "action": "", "navs": hold_navigations, "step": step }),
        GuardMode::Person => {
            json!({ "approved": false, "action": "", "navs": false, "step": null, "person": true })
        }
    };
    let op = match op {
        Op::Install => json!({ "op": "install", "mode": mode }),
        Op::Mode => json!({ "op": "mode", "mode": mode }),
        Op::Take => json!({ "op": "take", "mode": mode }),
        Op::Decide { id, allow } => {
            json!({ "op": "decide", "mode": mode, "id": id, "allow": allow })
        }
        Op::Rearm { owed } => json!({ "op": "rearm", "mode": mode, "owed": owed }),
        Op::Settle { ids, allow } => {
            json!({ "op": "settle", "mode": mode, "ids": ids, "allow": allow })
        }
    };
    GUARD_JS
        .replace("/*RULES*/null", rules)
        .replace("/*OP*/null", &op.to_string())
        .replace("/*KEEP*/0", &MAX_BLOCKED_KEPT.to_string())
        .replace("/*URL_CHARS*/0", &MAX_URL_CHARS.to_string())
        .replace("/*BODY_CHARS*/0", &MAX_BODY_CHARS.to_string())
        .replace("/*WAIT_MS*/0", &RELEASE_WAIT_MS.to_string())
        .replace("/*GRACE_MS*/0", &RELEASE_GRACE_MS.to_string())
        .replace("/*OWED_MS*/0", &OWED_MS.to_string())
        .replace("/*MARK*/''", &json!(ANSWER_MARK).to_string())
}

/// The rules as JSON for the script: every glob already a regex, with the
/// words that say why it holds a request.
fn wire_rules(rules: &GuardRules) -> String {
    #[derive(Serialize)]
    struct Commit {
        method: String,
        regex: String,
        why: String,
    }
    #[derive(Serialize)]
    struct Expected {
        step: u32,
        method: String,
        host: String,
        regex: String,
    }
    let requests = rules.commit_requests.iter().map(|(method, glob)| {
        let method = method.trim().to_uppercase();
        let why = format!("a request matching the plugin's commit pattern {method} {glob}");
        Commit {
            method,
            regex: Glob::new(glob).regex(),
            why,
        }
    });
    let urls = rules.commit_urls.iter().map(|glob| Commit {
        method: "*".to_owned(),
        regex: Glob::new(glob).regex(),
        why: format!("a request to the plugin's commit URL {glob}"),
    });
    let commit: Vec<Commit> = requests.chain(urls).collect();
    let harmless: Vec<Expected> = rules
        .harmless
        .iter()
        .map(|h| Expected {
            step: h.step,
            method: h.method.trim().to_uppercase(),
            host: h.host.clone(),
            regex: Glob::new(&h.path).regex(),
        })
        .collect();
    // A name the script does not know leaves its regex unused; one it
    // needs and lacks is a regex that matches nothing.
    let mut reading = serde_json::Map::new();
    for key in READING_KEYS {
        reading.insert((*key).to_owned(), json!(NOTHING));
    }
    for (key, regex) in &rules.reading {
        reading.insert(key.clone(), json!(regex));
    }
    json!({
        "origins": rules.origins,
        "sites": rules.sites,
        "commit": commit,
        "words": rules.commit_words,
        "harmless": harmless,
        "reading": reading,
    })
    .to_string()
}

/// The regexes `guard.js` reads a request with (`readText`).
pub const READING_KEYS: &[&str] = &[
    "stems",
    "acts",
    "act_words",
    "asks",
    "whole",
    "billing_things",
    "billing_acts",
];

/// A regex that matches no word (one with a character, then its start).
const NOTHING: &str = "a^";

/// What one call of the script returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taken {
    /// The guard had to be installed by this call.
    pub fresh: bool,
    pub stopped: Vec<BlockedRequest>,
    pub held: Vec<HeldRequest>,
    pub released: Vec<ReleasedRequest>,
    /// The request an earlier yes was shown, released after its action's
    /// call ended ([`Shown`]): that yes's evidence, kept apart from what
    /// the action of this call released.
    pub late: Vec<ReleasedRequest>,
    /// Seen beyond [`MAX_BLOCKED_KEPT`], counted only.
    pub dropped: u64,
    /// For a decision: whether the request was still waiting.
    pub decided: bool,
    /// Which layer judged the requests: `devtools` (the DevTools protocol's
    /// Fetch domain, which sees every request, each redirect hop and what a
    /// page sends as it unloads) or `route` (Playwright's route alone,
    /// redirects walked with HEAD, unload requests unseen).
    pub layer: String,
}

/// Reads the script's answer: the line after [`ANSWER_MARK`] in the error
/// text, or the whole `### Result` text when no mark is there. Anything
/// else is an error naming what came.
pub fn parse_taken(result: Option<&str>) -> Result<Taken, String> {
    #[derive(Deserialize)]
    struct Wire {
        fresh: bool,
        #[serde(default)]
        stopped: Vec<WireRequest>,
        #[serde(default)]
        held: Vec<WireRequest>,
        #[serde(default)]
        released: Vec<WireRequest>,
        #[serde(default)]
        late: Vec<WireRequest>,
        #[serde(default)]
        dropped: u64,
        #[serde(default)]
        decided: bool,
        #[serde(default)]
        layer: String,
    }
    #[derive(Deserialize)]
    struct WireRequest {
        #[serde(default)]
        id: u64,
        method: String,
        url: String,
        #[serde(default)]
        why: String,
        #[serde(default)]
        navigation: bool,
        #[serde(default)]
        body: String,
        #[serde(default)]
        at: f64,
    }
    let text = thrown::after(result.unwrap_or_default(), ANSWER_MARK);
    let wire: Wire = serde_json::from_str(text).map_err(|e| {
        format!(
            "the network guard answered something unreadable ({e}): {}",
            crate::text::truncate(text, 200, "…")
        )
    })?;
    let url = |u: &str| crate::text::truncate(u, MAX_URL_CHARS, "").into_owned();
    let released = |wire: Vec<WireRequest>| -> Vec<ReleasedRequest> {
        wire.into_iter()
            .map(|r| ReleasedRequest {
                method: r.method,
                url: url(&r.url),
                navigation: r.navigation,
            })
            .collect()
    };
    Ok(Taken {
        fresh: wire.fresh,
        stopped: wire
            .stopped
            .into_iter()
            .map(|b| BlockedRequest {
                method: b.method,
                url: url(&b.url),
                why: b.why,
                navigation: b.navigation,
            })
            .collect(),
        held: wire
            .held
            .into_iter()
            .map(|h| HeldRequest {
                id: h.id,
                method: h.method,
                url: url(&h.url),
                why: h.why,
                navigation: h.navigation,
                body: crate::text::truncate(&h.body, MAX_BODY_CHARS, "…").into_owned(),
                // A count of milliseconds; a hostile value only skews a figure.
                held_at_ms: if h.at.is_finite() && h.at > 0.0 {
                    h.at as u64
                } else {
                    0
                },
            })
            .collect(),
        released: released(wire.released),
        late: released(wire.late),
        dropped: wire.dropped,
        decided: wire.decided,
        layer: wire.layer,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    /// The guard's regex reads every glob as the glob does: the one table
    /// of cases, through the `regex` crate here and through the browser's
    /// own `RegExp` in `guard::globs_read_alike_in_rust_and_in_the_browser`.
    /// The script compiles with the `i` flag; the crate here is built
    /// without Unicode case tables, so the text is lowered instead (the
    /// glob is lowered already).
    #[test]
    fn globs_table() {
        for (pattern, text, want) in subterminator_sdk::glob::CASES {
            let glob = Glob::new(pattern);
            let regex = regex::Regex::new(&glob.regex()).unwrap();
            assert_eq!(glob.matches(text), *want, "{pattern:?} ~ {text:?}");
            assert_eq!(
                regex.is_match(&text.to_lowercase()),
                *want,
                "{pattern:?} as {} ~ {text:?}",
                glob.regex()
            );
        }
    }

    #[test]
    fn results_table() {
        let full = r#"{"fresh":false,
            "stopped":[{"method":"POST","url":"http://elsewhere.test/x","why":"a POST request to another site","navigation":false}],
            "held":[{"id":4,"method":"POST","url":"http://127.0.0.1:1/commit.html","why":"a form submission to the service","navigation":true,"body":"end=now","at":1764370000123},
                {"id":5,"method":"POST","url":"http://127.0.0.1:1/x","at":-5}],
            "released":[{"method":"POST","url":"http://127.0.0.1:1/finish","navigation":true}],
            "dropped":3}"#;
        let taken = parse_taken(Some(full)).unwrap();
        assert!(!taken.fresh);
        assert_eq!(taken.dropped, 3);
        assert_eq!(taken.stopped[0].why, "a POST request to another site");
        assert_eq!(
            taken.held[0],
            HeldRequest {
                id: 4,
                method: "POST".into(),
                url: "http://127.0.0.1:1/commit.html".into(),
                why: "a form submission to the service".into(),
                navigation: true,
                body: "end=now".into(),
                held_at_ms: 1_764_370_000_123,
            }
        );
        // A time that cannot be one is no time.
        assert_eq!(taken.held[1].held_at_ms, 0);
        assert_eq!(taken.released[0].url, "http://127.0.0.1:1/finish");
        assert_eq!(
            parse_taken(Some(" {\"fresh\":true}\n")).unwrap(),
            Taken {
                fresh: true,
                ..Taken::default()
            }
        );
        assert!(
            parse_taken(Some(r#"{"fresh":false,"decided":true,"status":200}"#))
                .unwrap()
                .decided
        );
        let long = format!(
            r#"{{"fresh":false,"held":[{{"id":1,"method":"GET","url":"{}","why":"w","body":"{}"}}]}}"#,
            "u".repeat(MAX_URL_CHARS + 10),
            "b".repeat(MAX_BODY_CHARS + 10)
        );
        let taken = parse_taken(Some(&long)).unwrap();
        assert_eq!(taken.held[0].url.chars().count(), MAX_URL_CHARS);
        assert!(taken.held[0].body.chars().count() <= MAX_BODY_CHARS + 1);
        assert!(!taken.held[0].navigation);
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
            sites: vec!["netflix.com".into()],
            commit_requests: vec![("post".into(), "*/api/cancel*".into())],
            commit_urls: vec!["*/commit.html?x".into()],
            commit_words: vec!["cancel".into()],
            reading: vec![("stems".into(), "(cancel)".into())],
            harmless: vec![Harmless {
                step: 2,
                method: "post".into(),
                host: "www.netflix.com".into(),
                path: "/survey*".into(),
            }],
        };
        let code = mode_code(
            &rules,
            GuardMode::Guarded {
                hold_navigations: true,
                step: Some(2),
            },
        );
        assert!(code.starts_with("async (page) =>"), "{code}");
        for placeholder in [
            "/*RULES*/",
            "/*OP*/",
            "/*KEEP*/",
            "/*URL_CHARS*/",
            "/*BODY_CHARS*/",
            "/*WAIT_MS*/",
            "/*GRACE_MS*/",
            "/*MARK*/",
        ] {
            assert!(!code.contains(placeholder), "{placeholder} left in");
        }
        assert!(code.contains(
            r#"{"mode":{"action":"","approved":false,"navs":true,"step":2},"op":"mode"}"#
        ));
        assert!(code.contains(r#""method":"POST","regex":"^.*/api/cancel.*$""#));
        assert!(code.contains(r#""regex":"^.*/commit\\.html\\?x$""#));
        assert!(code.contains(r#""harmless":[{"host":"www.netflix.com","method":"POST","regex":"^/survey.*$","step":2}]"#));
        assert!(code.contains("the plugin's commit pattern POST */api/cancel*"));
        assert!(code.contains(&format!("const KEEP = {MAX_BLOCKED_KEPT};")));
        assert!(code.contains(&format!("const MARK = \"{ANSWER_MARK}\";")));
        assert!(install_code(&rules).contains(r#""op":"install""#));
        assert!(
            take_code(
                &rules,
                GuardMode::Approved {
                    turn: 3,
                    commits: false
                }
            )
            .contains(r#""action":"turn 3","approved":true"#)
        );
    }
}
