//! The `service.toml` schema as serde types. Every table refuses keys it does
//! not know, so a misspelt key is an error with its line rather than a rule
//! that silently never applies.

use serde::Deserialize;

/// A whole `service.toml`, as [`crate::parse`] returns it once every bound
/// holds.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServiceFile {
    /// The plugin API the file is written for: one of
    /// [`crate::API_VERSIONS`].
    ///
    /// ```toml
    /// api = "0.4.0"
    /// ```
    pub api: String,

    /// The service's metadata.
    ///
    /// ```toml
    /// [service]
    /// id = "example"
    /// ```
    pub service: ServiceInfo,

    /// Intent-level steps, in order; the one that commits is marked
    /// irreversible and names what it acts on.
    ///
    /// ```toml
    /// [[plan]]
    /// description = "Open the cancellation flow"
    /// done-when = "The confirmation page is shown"
    /// targets = [{ action = "click", role = "button", name = ["cancel subscription"] }]
    /// ```
    #[serde(default)]
    pub plan: Vec<PlanStep>,

    /// Rules that make the plugin ask the human before a state-changing call.
    ///
    /// ```toml
    /// [[checkpoint]]
    /// reason = "This click finishes the cancellation"
    /// when = { target-name = ["finish", "confirm"] }
    /// ```
    #[serde(default)]
    pub checkpoint: Vec<CheckpointRule>,

    /// Pages that prove the cancellation went through.
    ///
    /// ```toml
    /// [[success]]
    /// when = { element = [{ role = "heading", name = ["has been cancelled"] }] }
    /// unless = { element = [{ role = "button", name = ["finish cancellation"] }] }
    /// ```
    #[serde(default)]
    pub success: Vec<VerdictRule>,

    /// Pages that show the cancellation failed; checked before any other
    /// verdict.
    ///
    /// ```toml
    /// [[failure]]
    /// reason = "the site reported an error"
    /// when = { url = ["/error"] }
    /// ```
    #[serde(default)]
    pub failure: Vec<FailureRule>,

    /// Pages that show the subscription was cancelled before this run.
    ///
    /// ```toml
    /// [[already-cancelled]]
    /// when = { content = ["already cancelled"] }
    /// ```
    #[serde(default)]
    pub already_cancelled: Vec<VerdictRule>,

    /// Sign-in walls the human must get past.
    ///
    /// ```toml
    /// [[auth]]
    /// kind = "login-required"
    /// message = "Example needs you to sign in."
    /// when = { url-glob = ["*/login*"] }
    /// ```
    #[serde(default)]
    pub auth: Vec<AuthRule>,
}

/// The `[service]` table: what the host shows and where the agent may go.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServiceInfo {
    /// Identifier used on the command line: 1-64 characters of a-z, 0-9 and
    /// '-'.
    ///
    /// ```toml
    /// id = "example"
    /// ```
    pub id: String,

    /// The name people read, at most 80 characters.
    ///
    /// ```toml
    /// display-name = "Example"
    /// ```
    pub display_name: String,

    /// The file's own version, semver.
    ///
    /// ```toml
    /// version = "0.1.0"
    /// ```
    pub version: String,

    /// Where the agent starts: https, or plain http on a loopback host.
    ///
    /// ```toml
    /// initial-url = "https://www.example.com/account"
    /// ```
    pub initial_url: String,

    /// The task, in words, for the model; at most 2000 characters.
    ///
    /// ```toml
    /// goal = "Cancel the Example subscription. Decline any offer."
    /// ```
    pub goal: String,

    /// Extra guidance appended to the model's system prompt; at most 4000
    /// characters.
    ///
    /// ```toml
    /// system-prompt-addition = "Example shows a discount to keep you. Decline it."
    /// ```
    #[serde(default)]
    pub system_prompt_addition: String,

    /// Origins (`scheme://host[:port]`) the agent may visit.
    ///
    /// ```toml
    /// allowed-origins = ["https://www.example.com"]
    /// ```
    pub allowed_origins: Vec<String>,

    /// Globs of URLs that mean "sign in first" (`*` = any run of characters).
    ///
    /// ```toml
    /// login-url-patterns = ["*/login*"]
    /// ```
    #[serde(default)]
    pub login_url_patterns: Vec<String>,

    /// Globs of URLs whose request itself commits (a GET confirm link): the
    /// host stops them unless the human approved the action behind them.
    ///
    /// ```toml
    /// commit-url-patterns = ["*/cancel/confirm?token=*"]
    /// ```
    #[serde(default)]
    pub commit_url_patterns: Vec<String>,

    /// Requests that commit (a form post to the cancel endpoint), stopped the
    /// same way.
    ///
    /// ```toml
    /// commit-requests = [{ method = "POST", url-pattern = "*/cancel/finish*" }]
    /// ```
    #[serde(default)]
    pub commit_requests: Vec<CommitRequest>,

    /// Buttons that dismiss the service's own interruptions, ones the host's
    /// generic handler would not know (a help chat's "End chat", an app
    /// banner's "Continue in browser"): clicks only, `api = "0.3.0"` or later.
    /// The host presses one only where its safety decision would not ask and
    /// the page stays where it is; never list an offer to stay here, the
    /// plan declines offers.
    ///
    /// ```toml
    /// interruptions = [{ action = "click", role = "button", name = ["continue in browser"] }]
    /// ```
    #[serde(default)]
    pub interruptions: Vec<Target>,

    /// State-changing requests one plan step sends that change nothing that
    /// matters (a survey's answers posted), `api = "0.4.0"` only. While an
    /// action of that step runs, the host's network guard lets a request
    /// matching all four keys pass without asking; never on a page that
    /// commits. Declare one only where the honest path sends it: the host
    /// refuses the file at load when an entry could cover a commit.
    ///
    /// ```toml
    /// harmless-requests = [{ step = 0, method = "POST", host = "www.example.com", path = "/account/survey*" }]
    /// ```
    #[serde(default)]
    pub harmless_requests: Vec<HarmlessRequest>,

    /// How the service's charges appear on a bank statement, for
    /// `subterminator scan`: case-insensitive globs over the whole
    /// descriptor, `*` for any run of characters; `api = "0.4.0"` only.
    ///
    /// ```toml
    /// billing-descriptors = ["EXAMPLE.COM*", "EXAMPLE *"]
    /// ```
    #[serde(default)]
    pub billing_descriptors: Vec<String>,
}

/// A state-changing request one plan step is expected to send, which
/// changes nothing that matters.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HarmlessRequest {
    /// The index of the `[[plan]]` step that sends it, 0 for the first; not
    /// an irreversible step.
    ///
    /// ```toml
    /// step = 0
    /// ```
    pub step: u32,

    /// The HTTP method, any case: not GET, HEAD or OPTIONS (they pass
    /// anyway), not `"*"`.
    ///
    /// ```toml
    /// method = "POST"
    /// ```
    pub method: String,

    /// Exactly one host, with the port when it is not the default: the host
    /// of one of `allowed-origins`, no wildcard.
    ///
    /// ```toml
    /// host = "www.example.com"
    /// ```
    pub host: String,

    /// Glob over the request's path and query, from its leading `/` (`*` =
    /// any run of characters), with a literal path segment of at least two
    /// characters.
    ///
    /// ```toml
    /// path = "/account/survey*"
    /// ```
    pub path: String,
}

/// A request that commits by itself.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CommitRequest {
    /// HTTP method, any case, or `"*"` for any.
    ///
    /// ```toml
    /// method = "POST"
    /// ```
    pub method: String,

    /// Glob of the request's URL.
    ///
    /// ```toml
    /// url-pattern = "*/cancel/finish*"
    /// ```
    pub url_pattern: String,
}

/// One `[[plan]]` step.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PlanStep {
    /// What the step does, at most 300 characters.
    ///
    /// ```toml
    /// description = "Open the cancellation flow"
    /// ```
    pub description: String,

    /// How the model tells the step is done, at most 300 characters.
    ///
    /// ```toml
    /// done-when = "The confirmation page is shown"
    /// ```
    pub done_when: String,

    /// This step commits: the host always asks the human before it. A plan
    /// needs at least one such step with targets.
    ///
    /// ```toml
    /// irreversible = true
    /// ```
    #[serde(default)]
    pub irreversible: bool,

    /// Elements acted on, in order.
    ///
    /// ```toml
    /// targets = [{ action = "click", role = "button", name = ["finish cancellation"] }]
    /// ```
    #[serde(default)]
    pub targets: Vec<Target>,
}

/// An element a plan step acts on.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Target {
    /// What is done to the element.
    ///
    /// ```toml
    /// action = "click"   # click | select | fill
    /// ```
    pub action: TargetAction,

    /// Exact ARIA role; any role when left out.
    ///
    /// ```toml
    /// role = "button"
    /// ```
    pub role: Option<String>,

    /// Any one of these, contained in the accessible name (ignoring case),
    /// is a match.
    ///
    /// ```toml
    /// name = ["finish cancellation", "confirm cancellation"]
    /// ```
    pub name: Vec<String>,

    /// The option to select or the text to fill.
    ///
    /// ```toml
    /// value = "Other"
    /// ```
    pub value: Option<String>,

    /// The step may go on without this element when the page lacks it.
    ///
    /// ```toml
    /// optional = true
    /// ```
    #[serde(default)]
    pub optional: bool,
}

/// What a plan target does to its element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetAction {
    /// ```toml
    /// action = "click"
    /// ```
    Click,
    /// ```toml
    /// action = "select"
    /// ```
    Select,
    /// ```toml
    /// action = "fill"
    /// ```
    Fill,
}

/// A `[[checkpoint]]` rule: a state-changing call it applies to makes the
/// plugin ask.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CheckpointRule {
    /// Shown to the human who is asked, at most 300 characters.
    ///
    /// ```toml
    /// reason = "This click finishes the cancellation"
    /// ```
    pub reason: String,

    /// The rule applies when this holds for the call and its page.
    ///
    /// ```toml
    /// when = { target-name = ["finish", "confirm"] }
    /// ```
    pub when: Condition,

    /// ... and this does not.
    ///
    /// ```toml
    /// unless = { target-name = ["finish later"] }
    /// ```
    pub unless: Option<Condition>,
}

/// A `[[success]]` or `[[already-cancelled]]` rule.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct VerdictRule {
    /// The rule applies when this holds for the page.
    ///
    /// ```toml
    /// when = { element = [{ role = "heading", name = ["has been cancelled"] }] }
    /// ```
    pub when: Condition,

    /// ... and this does not.
    ///
    /// ```toml
    /// unless = { element = [{ role = "button", name = ["finish cancellation"] }] }
    /// ```
    pub unless: Option<Condition>,
}

/// A `[[failure]]` rule.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FailureRule {
    /// Why the run failed, at most 300 characters.
    ///
    /// ```toml
    /// reason = "the site reported an error"
    /// ```
    pub reason: String,

    /// The rule applies when this holds for the page.
    ///
    /// ```toml
    /// when = { url = ["/error"] }
    /// ```
    pub when: Condition,

    /// ... and this does not.
    ///
    /// ```toml
    /// unless = { content = ["try again later"] }
    /// ```
    pub unless: Option<Condition>,
}

/// An `[[auth]]` rule.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AuthRule {
    /// Which wall the page is.
    ///
    /// ```toml
    /// kind = "login-required"   # login-required | two-factor | captcha | session-expired
    /// ```
    pub kind: AuthKind,

    /// What the human is asked to do, at most 300 characters.
    ///
    /// ```toml
    /// message = "Example needs you to sign in."
    /// ```
    pub message: String,

    /// The rule applies when this holds for the page.
    ///
    /// ```toml
    /// when = { url-glob = ["*/login*"] }
    /// ```
    pub when: Condition,

    /// ... and this does not.
    ///
    /// ```toml
    /// unless = { content = ["signed in as"] }
    /// ```
    pub unless: Option<Condition>,
}

/// The kind of sign-in wall an `[[auth]]` rule reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuthKind {
    /// ```toml
    /// kind = "login-required"
    /// ```
    LoginRequired,
    /// ```toml
    /// kind = "two-factor"
    /// ```
    TwoFactor,
    /// ```toml
    /// kind = "captcha"
    /// ```
    Captcha,
    /// ```toml
    /// kind = "session-expired"
    /// ```
    SessionExpired,
}

/// A `when` or `unless`: every key given must hold; within one list any one
/// entry is enough. Text matches are case-insensitive substrings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Condition {
    /// The page URL contains any entry.
    ///
    /// ```toml
    /// when = { url = ["/cancel/done"] }
    /// ```
    pub url: Option<Vec<String>>,

    /// The page URL matches any glob (`*` = any run of characters).
    ///
    /// ```toml
    /// when = { url-glob = ["*/login*"] }
    /// ```
    pub url_glob: Option<Vec<String>>,

    /// The page title contains any entry.
    ///
    /// ```toml
    /// when = { title = ["cancelled"] }
    /// ```
    pub title: Option<Vec<String>>,

    /// The accessibility-tree text contains any entry.
    ///
    /// ```toml
    /// when = { content = ["already cancelled"] }
    /// ```
    pub content: Option<Vec<String>>,

    /// For every entry, the page has an element of that role (any role when
    /// left out) whose name contains any of its names.
    ///
    /// ```toml
    /// when = { element = [{ role = "heading", name = ["has been cancelled"] }] }
    /// ```
    pub element: Option<Vec<ElementMatch>>,

    /// Checkpoint only: the call's target element has this role.
    ///
    /// ```toml
    /// when = { target-role = "button", target-name = ["finish"] }
    /// ```
    pub target_role: Option<String>,

    /// Checkpoint only: the target's name contains any entry.
    ///
    /// ```toml
    /// when = { target-name = ["finish", "confirm"] }
    /// ```
    pub target_name: Option<Vec<String>>,

    /// Checkpoint only: the call is one of these browser tools.
    ///
    /// ```toml
    /// when = { action = ["browser_click"] }
    /// ```
    pub action: Option<Vec<String>>,
}

impl Condition {
    /// Whether no key is given: such a condition holds everywhere.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Whether a key about the call (not the page) is given.
    pub fn is_about_call(&self) -> bool {
        self.target_role.is_some() || self.target_name.is_some() || self.action.is_some()
    }
}

/// One entry of a condition's `element` list.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ElementMatch {
    /// Exact ARIA role; any role when left out.
    ///
    /// ```toml
    /// element = [{ role = "heading", name = ["cancelled"] }]
    /// ```
    pub role: Option<String>,

    /// Any one of these, contained in the element's name, is a match.
    ///
    /// ```toml
    /// element = [{ name = ["restart membership", "rejoin"] }]
    /// ```
    pub name: Vec<String>,
}
