//! The host's own view of what plugins say, independent of any one WIT
//! version: each bindings module converts into these.

use serde::Serialize;

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

impl TargetHint {
    /// Whether `element` is what this hint describes (role exact, name
    /// containing any pattern, ignoring case).
    pub fn matches(&self, element: &crate::page::Element) -> bool {
        let name = element.name.to_lowercase();
        self.role.as_ref().is_none_or(|r| r == &element.role)
            && self
                .name_patterns
                .iter()
                .any(|p| name.contains(&p.to_lowercase()))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanStep {
    pub description: String,
    pub done_when: String,
    pub targets: Vec<TargetHint>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", content = "reason", rename_all = "kebab-case")]
pub enum Verdict {
    Success,
    Failure(String),
    Unknown,
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
}
