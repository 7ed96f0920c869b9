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

/// A browser action the model asked for, before it runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolCall {
    pub action: String,
    pub arguments_json: String,
    /// Resolved by the host from the page; never the model's description.
    pub target: Option<Element>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Success,
    Failure(String),
    Unknown,
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
            && crate::predicates::contains_any(&element.name, &self.name_patterns)
    }
}

/// One intent-level step of a plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanStep {
    pub description: String,
    pub done_when: String,
    pub targets: Vec<TargetHint>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Metadata {
    pub id: String,
    pub display_name: String,
    pub version: String,
    pub initial_url: String,
    pub goal: String,
    pub system_prompt_addition: String,
    pub allowed_origins: Vec<String>,
    pub login_url_patterns: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
}
