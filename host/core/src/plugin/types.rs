//! The host's own view of what plugins say, independent of any one WIT
//! version: each bindings module converts into these.

use serde::Serialize;

/// The facts the host reads from the DOM for an action's target. One type
/// for the browser, the safety decision and the plugins: the page module owns
/// it because the browser fills it in.
pub use crate::page::ElementFacts;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Metadata {
    pub id: String,
    pub display_name: String,
    pub version: String,
    pub initial_url: String,
    pub goal: String,
    pub system_prompt_addition: String,
    pub allowed_origins: Vec<String>,
    pub login_url_patterns: Vec<String>,
    /// Globs of URLs whose request itself commits (a GET confirm link).
    /// Empty for API 0.1.0, which cannot say.
    pub commit_url_patterns: Vec<String>,
    /// Requests that commit (a form post to the cancel endpoint). Empty for
    /// API 0.1.0.
    pub commit_requests: Vec<RequestPattern>,
    /// Buttons that dismiss the service's own overlays (a profile picker, a
    /// "what's new"), pressed by the host like a cookie banner's: the
    /// contract's `interruptions`. Empty before API 0.3.0.
    pub overlays: Vec<TargetHint>,
    /// State-changing requests a plan step sends that change nothing that
    /// matters, which the network guard lets pass while that step's action
    /// runs: the contract's `harmless-requests`. Empty before API 0.4.0.
    pub harmless: Vec<HarmlessRequest>,
    /// How the service's charges appear on a bank statement (globs), for the
    /// statement scanner. Empty before API 0.4.0.
    pub billing_descriptors: Vec<String>,
}

/// A request one plan step sends that changes nothing that matters (a
/// survey's answers posted). Checked at load (`bounds::check_harmless`):
/// a step that exists and does not commit, a state-changing method, the
/// exact host of an allowed origin, a path glob that names no commit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HarmlessRequest {
    /// Index of the step in the plan.
    pub step: u32,
    /// Upper-case HTTP method.
    pub method: String,
    /// Exactly one host, with its port when not the default.
    pub host: String,
    /// Glob over the request's path and query, `*` for any run of
    /// characters.
    pub path: String,
}

/// A request that commits by itself, matched before it leaves the browser.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RequestPattern {
    /// Upper-case HTTP method, or `*` for any.
    pub method: String,
    /// Glob where `*` stands for any run of characters.
    pub url_pattern: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HintAction {
    Click,
    Select,
    Fill,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetHint {
    pub role: Option<String>,
    pub name_patterns: Vec<String>,
    pub action: HintAction,
    pub value: Option<String>,
    pub optional: bool,
}

/// Roles a click acts on alike: a site may make its "Cancel membership" a
/// link where the plan expected a button, or the other way round.
const CLICKABLE_ROLES: &[&str] = &["button", "link", "menuitem", "tab"];

/// Whether a pattern is a single word ("continue", "weiter", "続ける"): a
/// click's pattern of one word names the whole element, never a part of
/// it, or "続ける" (continue) would press "Premiumを続ける" (keep Premium)
/// and "continue" the "Continue Premium" beside "Continue to cancel".
/// Scripts written without spaces fold to a character a word; three or
/// fewer of them are one word.
fn one_word(words: &[String]) -> bool {
    const CJK_WORD_CHARS: usize = 3;
    let by_character = words
        .iter()
        .all(|w| w.chars().count() == 1 && !w.is_ascii());
    if by_character {
        words.len() <= CJK_WORD_CHARS
    } else {
        words.len() <= 1
    }
}

impl TargetHint {
    /// Whether `element` is what this hint describes: the role (for a click,
    /// any clickable role stands for another), and a name containing any
    /// pattern, compared as words — case, accents and spacing folded the
    /// way the host reads text (`text::fold`), so "Kündigen" is "kundigen"
    /// and Japanese is read a character at a time.
    pub fn matches(&self, element: &crate::page::Element) -> bool {
        self.fits(element, false)
    }

    /// As [`TargetHint::matches`], for a plan's step: a click's one-word
    /// pattern must name the whole element (see `one_word`).
    pub fn names_step(&self, element: &crate::page::Element) -> bool {
        self.fits(element, true)
    }

    fn fits(&self, element: &crate::page::Element, whole: bool) -> bool {
        let role_fits = match &self.role {
            None => true,
            Some(role) if role == &element.role => true,
            Some(role) => {
                self.action == HintAction::Click
                    && CLICKABLE_ROLES.contains(&role.as_str())
                    && CLICKABLE_ROLES.contains(&element.role.as_str())
            }
        };
        if !role_fits {
            return false;
        }
        let name = element.name.to_lowercase();
        let named = crate::text::fold::words(&element.name);
        let folded = format!(" {} ", named.join(" "));
        self.name_patterns.iter().any(|p| {
            let words = crate::text::fold::words(p);
            if whole && self.action == HintAction::Click && one_word(&words) {
                return !words.is_empty() && words == named;
            }
            name.contains(&p.to_lowercase())
                || (!words.is_empty() && folded.contains(&format!(" {} ", words.join(" "))))
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanStep {
    pub description: String,
    pub done_when: String,
    pub targets: Vec<TargetHint>,
    /// The step commits: the host always asks before it. Always false from
    /// API 0.1.0, whose plans cannot mark it (the host treats them as
    /// plan-less).
    pub irreversible: bool,
}

/// Whether a plan marks at least one step irreversible, with targets to
/// find it by: what API 0.2.0 requires of every plugin.
pub fn has_irreversible_step(steps: &[PlanStep]) -> bool {
    steps
        .iter()
        .any(|s| s.irreversible && !s.targets.is_empty())
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "kebab-case")]
pub enum Verdict {
    Success,
    Failure(String),
    Unknown,
    /// The page shows the subscription was cancelled before this run did
    /// anything (API 0.2.0 and later).
    AlreadyCancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuthKind {
    LoginRequired,
    TwoFactor,
    Captcha,
    SessionExpired,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuthEvent {
    pub kind: AuthKind,
    pub message: String,
}

/// A browser call as a plugin sees it: the target is the element the host
/// resolved from the page, never the model's description of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCallView {
    pub action: String,
    pub arguments: serde_json::Value,
    pub target: Option<crate::page::Element>,
    /// What the host read from the DOM for `target`; 0.1.0 plugins never
    /// see it.
    pub facts: Option<ElementFacts>,
}
