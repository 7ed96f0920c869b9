//! Host bindings for plugin API 0.1.0 (`wit/v0.1.0`, frozen). A later API
//! version gets a module of its own beside this one; this one never changes.

use wasmtime::Store;
use wasmtime::component::{Component, HasSelf, Linker};

use super::store::StoreState;
use super::types as host;
use crate::page;

pub const API_VERSION: &str = "0.1.0";

/// The interface name a 0.1.0 component imports its record types from.
pub const TYPES_INTERFACE: &str = "subterminator:service/types@0.1.0";

mod bindings {
    wasmtime::component::bindgen!({
        path: "../../wit/v0.1.0",
        world: "service",
    });
}

use bindings::subterminator::service::types as wit;

impl wit::Host for StoreState {}

impl bindings::ServiceImports for StoreState {
    fn log(&mut self, level: wit::LogLevel, message: String) {
        let message = super::limits::cut_log_line(&message);
        let tag = self.tag.as_str();
        match level {
            wit::LogLevel::Trace => tracing::trace!(plugin = tag, "{message}"),
            wit::LogLevel::Debug => tracing::debug!(plugin = tag, "{message}"),
            wit::LogLevel::Info => tracing::info!(plugin = tag, "{message}"),
            wit::LogLevel::Warn => tracing::warn!(plugin = tag, "{message}"),
            wit::LogLevel::Error => tracing::error!(plugin = tag, "{message}"),
        }
    }
}

pub fn add_to_linker(linker: &mut Linker<StoreState>) -> wasmtime::Result<()> {
    bindings::Service::add_to_linker::<StoreState, HasSelf<StoreState>>(linker, |state| state)
}

/// A 0.1.0 component linked once, instantiated many times.
pub type Pre = bindings::ServicePre<StoreState>;

/// Links `component` against this version's imports.
pub fn pre(linker: &Linker<StoreState>, component: &Component) -> wasmtime::Result<Pre> {
    bindings::ServicePre::new(linker.instantiate_pre(component)?)
}

/// A live 0.1.0 instance and its store.
pub struct Live {
    pub(super) store: Store<StoreState>,
    bindings: bindings::Service,
}

impl Live {
    pub fn instantiate(mut store: Store<StoreState>, pre: &Pre) -> wasmtime::Result<Self> {
        let bindings = pre.instantiate(&mut store)?;
        Ok(Self { store, bindings })
    }

    pub fn metadata(&mut self) -> wasmtime::Result<host::Metadata> {
        let m = self.bindings.call_metadata(&mut self.store)?;
        Ok(host::Metadata {
            id: m.id,
            display_name: m.display_name,
            version: m.version,
            initial_url: m.initial_url,
            goal: m.goal,
            system_prompt_addition: m.system_prompt_addition,
            allowed_origins: m.allowed_origins,
            login_url_patterns: m.login_url_patterns,
            // 0.1.0 cannot name commit requests; the host's floor guards alone.
            commit_url_patterns: Vec::new(),
            commit_requests: Vec::new(),
            overlays: Vec::new(),
            harmless: Vec::new(),
            billing_descriptors: Vec::new(),
        })
    }

    pub fn plan(&mut self) -> wasmtime::Result<Vec<host::PlanStep>> {
        let steps = self.bindings.call_plan(&mut self.store)?;
        Ok(steps.into_iter().map(plan_step).collect())
    }

    pub fn checkpoint(
        &mut self,
        call: &host::ToolCallView,
        snapshot: &page::Snapshot,
    ) -> wasmtime::Result<Option<String>> {
        let call = wit::ToolCall {
            action: call.action.clone(),
            arguments_json: call.arguments.to_string(),
            target: call.target.as_ref().map(element),
        };
        self.bindings
            .call_checkpoint(&mut self.store, &call, &to_wit(snapshot))
    }

    pub fn verify(&mut self, snapshot: &page::Snapshot) -> wasmtime::Result<host::Verdict> {
        Ok(
            match self
                .bindings
                .call_verify(&mut self.store, &to_wit(snapshot))?
            {
                wit::Verdict::Success => host::Verdict::Success,
                wit::Verdict::Failure(reason) => host::Verdict::Failure(reason),
                wit::Verdict::Unknown => host::Verdict::Unknown,
            },
        )
    }

    pub fn detect_auth(
        &mut self,
        snapshot: &page::Snapshot,
    ) -> wasmtime::Result<Option<host::AuthEvent>> {
        let event = self
            .bindings
            .call_detect_auth(&mut self.store, &to_wit(snapshot))?;
        Ok(event.map(|e| host::AuthEvent {
            kind: match e.kind {
                wit::AuthKind::LoginRequired => host::AuthKind::LoginRequired,
                wit::AuthKind::TwoFactor => host::AuthKind::TwoFactor,
                wit::AuthKind::Captcha => host::AuthKind::Captcha,
                wit::AuthKind::SessionExpired => host::AuthKind::SessionExpired,
            },
            message: e.message,
        }))
    }
}

fn element(e: &page::Element) -> wit::Element {
    wit::Element {
        role: e.role.clone(),
        name: e.name.clone(),
        states: e.states.clone(),
        level: e.level,
        url: e.url.clone(),
    }
}

/// Roles sent even without a name: predicates ask "is there a dialog?".
const STRUCTURAL_ROLES: &[&str] = &[
    "alert",
    "alertdialog",
    "banner",
    "dialog",
    "form",
    "heading",
    "main",
    "navigation",
    "region",
];

/// Every string crosses into the guest with an allocation of its own, which
/// is most of a call's cost; nameless containers (generic, paragraph,
/// unnamed links) tell a predicate nothing that `content` does not.
fn worth_sending(e: &page::Element) -> bool {
    !e.name.is_empty()
        || !e.states.is_empty()
        || e.level.is_some()
        || STRUCTURAL_ROLES.contains(&e.role.as_str())
}

fn to_wit(s: &page::Snapshot) -> wit::Snapshot {
    wit::Snapshot {
        url: s.url.clone(),
        title: s.title.clone(),
        content: s.content.clone(),
        screenshot_path: s.screenshot_path.as_ref().map(|p| p.display().to_string()),
        elements: s
            .elements
            .iter()
            .filter(|e| worth_sending(e))
            .map(element)
            .collect(),
    }
}

fn plan_step(step: wit::PlanStep) -> host::PlanStep {
    host::PlanStep {
        description: step.description,
        done_when: step.done_when,
        targets: step
            .targets
            .into_iter()
            .map(|t| host::TargetHint {
                role: t.role,
                name_patterns: t.name_patterns,
                action: match t.action {
                    wit::HintAction::Click => host::HintAction::Click,
                    wit::HintAction::Select => host::HintAction::Select,
                    wit::HintAction::Fill => host::HintAction::Fill,
                },
                value: t.value,
                optional: t.optional,
            })
            .collect(),
        // 0.1.0 plans cannot mark the commit, so none is trusted as safe.
        irreversible: false,
    }
}
