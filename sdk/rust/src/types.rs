//! The contract's records as plain Rust values, so that plugin code and its
//! tests never see generated bindings.

/// One element of the page's accessibility tree, as the host parsed it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    pub role: String,
    pub name: String,
    pub states: Vec<String>,
    pub level: Option<u8>,
    pub url: Option<String>,
}

impl Element {
    pub fn new(role: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            role: role.into(),
            name: name.into(),
            ..Self::default()
        }
    }

    pub fn has_state(&self, state: &str) -> bool {
        self.states.iter().any(|s| s == state)
    }
}

/// What the page looks like right now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub url: String,
    pub title: String,
    pub content: String,
    pub screenshot_path: Option<String>,
    pub elements: Vec<Element>,
}

/// What the host read from the DOM itself about the target of a
/// state-changing action. The accessible name can differ from what a person
/// sees (`aria-label`), and a button's effect lies in its form: these are what
/// the page will actually do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ElementFacts {
    /// The text a person sees on the element (`innerText`, trimmed; an
    /// input's value when it shows no text).
    pub visible_text: String,
    /// Lower-case tag name: "button", "a", "input".
    pub tag: String,
    /// The `type` attribute of an input or button, lower-case.
    pub input_type: Option<String>,
    /// Absolute URL of the link the element is or sits in.
    pub href: Option<String>,
    /// Absolute URL of the form the element submits.
    pub form_action: Option<String>,
    /// Method of that form, lower-case as the DOM gives it: "get" or "post".
    pub form_method: Option<String>,
}

/// A browser action the model asked for, before it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCall {
    pub action: String,
    pub arguments_json: String,
    /// Resolved by the host from the page; never the model's description.
    pub target: Option<Element>,
    /// Read by the host from the DOM for `target`; `None` for read-only
    /// actions or when the element could not be read.
    pub facts: Option<ElementFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Success,
    Failure(String),
    Unknown,
    /// The page positively shows the subscription was already cancelled
    /// before this run did anything.
    AlreadyCancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthKind {
    LoginRequired,
    TwoFactor,
    Captcha,
    SessionExpired,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthEvent {
    pub kind: AuthKind,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HintAction {
    #[default]
    Click,
    Select,
    Fill,
}

/// An element a plan step acts on, findable without a model.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetHint {
    pub role: Option<String>,
    pub name_patterns: Vec<String>,
    pub action: HintAction,
    pub value: Option<String>,
    pub optional: bool,
}

impl TargetHint {
    /// A click on an element of `role` whose name contains any of `patterns`.
    pub fn click(role: &str, patterns: &[&str]) -> Self {
        Self {
            role: Some(role.to_owned()),
            name_patterns: patterns.iter().map(|p| (*p).to_owned()).collect(),
            ..Self::default()
        }
    }

    /// Choosing `value` in a drop-down whose name contains any of `patterns`.
    pub fn select(patterns: &[&str], value: &str) -> Self {
        Self {
            role: Some("combobox".to_owned()),
            name_patterns: patterns.iter().map(|p| (*p).to_owned()).collect(),
            action: HintAction::Select,
            value: Some(value.to_owned()),
            optional: false,
        }
    }

    #[must_use]
    pub fn optional(mut self) -> Self {
        self.optional = true;
        self
    }

    /// Whether `element` is what this hint describes.
    pub fn matches(&self, element: &Element) -> bool {
        self.role.as_ref().is_none_or(|r| r == &element.role)
            && crate::text::contains_any(&element.name, &self.name_patterns)
    }
}

/// One intent-level step of a plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanStep {
    pub description: String,
    /// In words, for the model: how to tell the step is done.
    pub done_when: String,
    /// Elements acted on, in order.
    pub targets: Vec<TargetHint>,
    /// This step commits the cancellation or another billing change: the host
    /// always asks the human before it. A step left unmarked tells the host
    /// its targets are safe to act on without asking (unless the host's own
    /// floor sees strong signs of a commit), so mark every step that commits.
    pub irreversible: bool,
}

impl PlanStep {
    /// A reversible step; chain [`PlanStep::irreversible`] for the one that
    /// commits.
    pub fn new(
        description: impl Into<String>,
        done_when: impl Into<String>,
        targets: Vec<TargetHint>,
    ) -> Self {
        Self {
            description: description.into(),
            done_when: done_when.into(),
            targets,
            irreversible: false,
        }
    }

    /// Marks the step as the one that commits: the host asks before it.
    #[must_use]
    pub fn irreversible(mut self) -> Self {
        self.irreversible = true;
        self
    }
}

/// A request the browser may send, matched by the host before it leaves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestPattern {
    /// Upper-case HTTP method, or `"*"` for any.
    pub method: String,
    /// Glob like the login patterns: `*` stands for any run of characters.
    pub url_pattern: String,
}

impl RequestPattern {
    /// A request with `method` (any case; `"*"` for any) to a URL matching
    /// the glob `url_pattern`.
    pub fn new(method: &str, url_pattern: &str) -> Self {
        Self {
            method: method.to_ascii_uppercase(),
            url_pattern: url_pattern.to_owned(),
        }
    }

    /// Whether a request with `method` to `url` is one this pattern names.
    pub fn matches(&self, method: &str, url: &str) -> bool {
        (self.method == "*" || self.method.eq_ignore_ascii_case(method))
            && crate::text::url_matches(url, &self.url_pattern)
    }
}

/// The service, described for the host. Build it with
/// `..Metadata::default()` for the fields a plugin leaves empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    /// Lower-case identifier used on the command line, e.g. "netflix".
    pub id: String,
    pub display_name: String,
    /// The plugin's own version (semver).
    pub version: String,
    pub initial_url: String,
    pub goal: String,
    pub system_prompt_addition: String,
    /// Origins ("https://www.netflix.com") the agent may visit.
    pub allowed_origins: Vec<String>,
    /// Globs ("*/login*") of URLs that mean "sign in first".
    pub login_url_patterns: Vec<String>,
    /// Globs of URLs whose request itself commits (a GET confirm link): the
    /// host stops them unless the human approved the action behind them.
    pub commit_url_patterns: Vec<String>,
    /// Requests that commit (a form post to the cancel endpoint), stopped the
    /// same way.
    pub commit_requests: Vec<RequestPattern>,
    /// Buttons that dismiss this service's own interruptions, the ones the
    /// host's generic handler would not know (a help chat's "End chat", an
    /// app banner's "Continue in browser"): clicks only, each pattern
    /// non-blank. The host presses one only where its safety decision would
    /// not ask and the press stays on the page. Never an offer to stay: the
    /// plan declines offers.
    pub interruptions: Vec<TargetHint>,
    /// State-changing requests one step of [`crate::Service::plan`] sends
    /// that change nothing that matters (a survey's answers posted): the
    /// host's network guard lets them pass without asking while that step's
    /// action runs, never on a page that commits. Declare one only where the
    /// honest path sends it; the host refuses the plugin at load when an
    /// entry could cover a commit (see [`HarmlessRequest`]).
    pub harmless_requests: Vec<HarmlessRequest>,
    /// How the service's charges appear on a bank statement
    /// (`"NETFLIX.COM"`, `"SPOTIFY*"`, `"HLU*HULU*"`), for `subterminator
    /// scan`: case-insensitive globs over the whole descriptor, `*` for any
    /// run of characters. At most 16, each 2-64 printable characters.
    pub billing_descriptors: Vec<String>,
}

/// A state-changing request that one plan step sends and that changes
/// nothing that matters. The host refuses the plugin at load when the step
/// does not exist or is irreversible, the method is GET, HEAD, OPTIONS or
/// `*`, the host is not exactly the host of one of the allowed origins, or
/// the path is too broad (`*`, `/*`), holds a word the host reads as a
/// commit (`cancel`, `unsubscribe`, …) or overlaps a commit pattern.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HarmlessRequest {
    /// Index of the step in the plan (0 for the first).
    pub step: u32,
    /// Upper-case HTTP method, e.g. `"POST"`.
    pub method: String,
    /// Exactly one host (`"www.spotify.com"`, with the port when not the
    /// default), the host of one of the allowed origins.
    pub host: String,
    /// Glob over the path and query, from its leading `/`: `*` stands for
    /// any run of characters (`"/account/survey*"`).
    pub path: String,
}

impl HarmlessRequest {
    /// A `method` request (any case) that step `step` sends to `host`, to a
    /// path and query matching the glob `path`.
    pub fn new(step: u32, method: &str, host: &str, path: &str) -> Self {
        Self {
            step,
            method: method.to_ascii_uppercase(),
            host: host.to_owned(),
            path: path.to_owned(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_pattern_table() {
        let post = RequestPattern::new("post", "*/cancel/finish*");
        let any = RequestPattern::new("*", "https://a.com/confirm?*");
        let cases = [
            (&post, "POST", "https://a.com/cancel/finish", true),
            (&post, "post", "https://a.com/cancel/finish?x=1", true),
            (&post, "GET", "https://a.com/cancel/finish", false),
            (&post, "POST", "https://a.com/cancel", false),
            (&any, "GET", "https://a.com/confirm?token=1", true),
            (&any, "DELETE", "https://a.com/confirm?token=1", true),
            (&any, "GET", "https://b.com/confirm?token=1", false),
        ];
        for (pattern, method, url, want) in cases {
            assert_eq!(
                pattern.matches(method, url),
                want,
                "{pattern:?} ~ {method} {url}"
            );
        }
    }

    #[test]
    fn plan_step_builder_marks_only_when_asked() {
        let hint = || vec![TargetHint::click("button", &["finish"])];
        assert!(!PlanStep::new("Open", "open", hint()).irreversible);
        let last = PlanStep::new("Finish", "done", hint()).irreversible();
        assert!(last.irreversible);
        assert_eq!(last.description, "Finish");
    }
}
