//! A parsed `service.toml`, ready to answer the plugin contract's calls. It
//! takes the file as a value, so native tests need neither stdin nor wasm.

use subterminator_declarative as decl;
use subterminator_sdk::prelude::*;

use crate::condition::{Condition, Page, Side};

/// Tools that only look at the page: the README's list, which never asks.
pub const EFFECT_FREE_ACTIONS: &[&str] = &[
    "browser_snapshot",
    "browser_take_screenshot",
    "browser_scroll",
    "browser_wait_for",
    "get_snapshot",
];

/// A rule's `when`, and the `unless` that switches it off.
#[derive(Debug, Clone)]
struct Rule {
    when: Condition,
    unless: Option<Condition>,
}

impl Rule {
    fn new(when: &decl::Condition, unless: Option<&decl::Condition>) -> Self {
        Self {
            when: Condition::new(when, Side::When),
            unless: unless.map(|u| Condition::new(u, Side::Unless)),
        }
    }

    fn applies(&self, call: Option<&ToolCall>, page: &Page<'_>) -> bool {
        self.when.holds(call, page) && !self.unless.as_ref().is_some_and(|u| u.holds(call, page))
    }
}

/// The service a file describes, with its rules prepared for matching.
#[derive(Debug, Clone)]
pub struct Interpreted {
    metadata: Metadata,
    plan: Vec<PlanStep>,
    checkpoints: Vec<(String, Rule)>,
    failures: Vec<(String, Rule)>,
    already_cancelled: Vec<Rule>,
    successes: Vec<Rule>,
    auth: Vec<(AuthEvent, Rule)>,
}

impl Interpreted {
    /// Parses and checks `text` with the format's own [`decl::parse`].
    pub fn from_text(text: &str) -> Result<Self, decl::FileError> {
        decl::parse(text).map(|file| Self::new(&file))
    }

    pub fn new(file: &decl::ServiceFile) -> Self {
        Self {
            metadata: metadata(&file.service),
            plan: file.plan.iter().map(plan_step).collect(),
            checkpoints: file
                .checkpoint
                .iter()
                .map(|r| (r.reason.clone(), Rule::new(&r.when, r.unless.as_ref())))
                .collect(),
            failures: file
                .failure
                .iter()
                .map(|r| (r.reason.clone(), Rule::new(&r.when, r.unless.as_ref())))
                .collect(),
            already_cancelled: file
                .already_cancelled
                .iter()
                .map(|r| Rule::new(&r.when, r.unless.as_ref()))
                .collect(),
            successes: file
                .success
                .iter()
                .map(|r| Rule::new(&r.when, r.unless.as_ref()))
                .collect(),
            auth: file
                .auth
                .iter()
                .map(|r| {
                    let event = AuthEvent {
                        kind: auth_kind(r.kind),
                        message: r.message.clone(),
                    };
                    (event, Rule::new(&r.when, r.unless.as_ref()))
                })
                .collect(),
        }
    }

    pub fn metadata(&self) -> Metadata {
        self.metadata.clone()
    }

    pub fn plan(&self) -> Vec<PlanStep> {
        self.plan.clone()
    }

    /// The reason of the first `[[checkpoint]]` rule that applies to `call`;
    /// never one for a tool that only looks.
    pub fn checkpoint(&self, call: &ToolCall, snapshot: &Snapshot) -> Option<String> {
        if EFFECT_FREE_ACTIONS.contains(&call.action.as_str()) {
            return None;
        }
        let page = Page::new(snapshot);
        self.checkpoints
            .iter()
            .find(|(_, rule)| rule.applies(Some(call), &page))
            .map(|(reason, _)| reason.clone())
    }

    /// Failure first, then already cancelled, then success: a page that
    /// shows an error is never read as a success, whatever else it says.
    pub fn verify(&self, snapshot: &Snapshot) -> Verdict {
        let page = Page::new(snapshot);
        if let Some((reason, _)) = self.failures.iter().find(|(_, r)| r.applies(None, &page)) {
            return Verdict::Failure(reason.clone());
        }
        if self
            .already_cancelled
            .iter()
            .any(|r| r.applies(None, &page))
        {
            return Verdict::AlreadyCancelled;
        }
        if self.successes.iter().any(|r| r.applies(None, &page)) {
            return Verdict::Success;
        }
        Verdict::Unknown
    }

    /// The first `[[auth]]` rule that applies.
    pub fn detect_auth(&self, snapshot: &Snapshot) -> Option<AuthEvent> {
        let page = Page::new(snapshot);
        self.auth
            .iter()
            .find(|(_, rule)| rule.applies(None, &page))
            .map(|(event, _)| event.clone())
    }
}

fn metadata(s: &decl::ServiceInfo) -> Metadata {
    Metadata {
        id: s.id.clone(),
        display_name: s.display_name.clone(),
        version: s.version.clone(),
        initial_url: s.initial_url.clone(),
        goal: s.goal.clone(),
        system_prompt_addition: s.system_prompt_addition.clone(),
        allowed_origins: s.allowed_origins.clone(),
        login_url_patterns: s.login_url_patterns.clone(),
        commit_url_patterns: s.commit_url_patterns.clone(),
        commit_requests: s
            .commit_requests
            .iter()
            .map(|r| RequestPattern::new(&r.method, &r.url_pattern))
            .collect(),
        interruptions: s.interruptions.iter().map(target_hint).collect(),
        harmless_requests: s
            .harmless_requests
            .iter()
            .map(|h| HarmlessRequest::new(h.step, &h.method, &h.host, &h.path))
            .collect(),
        billing_descriptors: s.billing_descriptors.clone(),
    }
}

fn target_hint(t: &decl::Target) -> TargetHint {
    TargetHint {
        role: t.role.clone(),
        name_patterns: t.name.clone(),
        action: match t.action {
            decl::TargetAction::Click => HintAction::Click,
            decl::TargetAction::Select => HintAction::Select,
            decl::TargetAction::Fill => HintAction::Fill,
        },
        value: t.value.clone(),
        optional: t.optional,
    }
}

fn plan_step(step: &decl::PlanStep) -> PlanStep {
    let targets = step.targets.iter().map(target_hint).collect();
    let sdk_step = PlanStep::new(&step.description, &step.done_when, targets);
    if step.irreversible {
        sdk_step.irreversible()
    } else {
        sdk_step
    }
}

fn auth_kind(kind: decl::AuthKind) -> AuthKind {
    match kind {
        decl::AuthKind::LoginRequired => AuthKind::LoginRequired,
        decl::AuthKind::TwoFactor => AuthKind::TwoFactor,
        decl::AuthKind::Captcha => AuthKind::Captcha,
        decl::AuthKind::SessionExpired => AuthKind::SessionExpired,
    }
}
