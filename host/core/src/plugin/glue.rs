//! What every plugin API version from 0.2.0 on shares. Each version's
//! `bindgen!` makes types of its own, so the shared part is a macro expanded
//! inside each version's module, over that module's `bindings`; only what a
//! version changes (its metadata) is written in its own module.

use crate::page;

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
pub(super) fn worth_sending(e: &page::Element) -> bool {
    !e.name.is_empty()
        || !e.states.is_empty()
        || e.level.is_some()
        || STRUCTURAL_ROLES.contains(&e.role.as_str())
}

/// The imports, the linking and every export but `metadata` of an API
/// version whose world is 0.2.0's, over the calling module's `bindings`.
/// The caller writes `impl Live { pub fn metadata(..) }` itself.
macro_rules! since_v0_2 {
    () => {
        use wasmtime::Store;
        use wasmtime::component::{Component, HasSelf, Linker};

        use super::store::StoreState;
        use super::types as host;
        use crate::page;

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
            bindings::Service::add_to_linker::<StoreState, HasSelf<StoreState>>(linker, |state| {
                state
            })
        }

        /// A component of this version linked once, instantiated many times.
        pub type Pre = bindings::ServicePre<StoreState>;

        /// Links `component` against this version's imports.
        pub fn pre(linker: &Linker<StoreState>, component: &Component) -> wasmtime::Result<Pre> {
            bindings::ServicePre::new(linker.instantiate_pre(component)?)
        }

        /// A live instance of this version and its store.
        pub struct Live {
            pub(super) store: Store<StoreState>,
            bindings: bindings::Service,
        }

        impl Live {
            pub fn instantiate(mut store: Store<StoreState>, pre: &Pre) -> wasmtime::Result<Self> {
                let bindings = pre.instantiate(&mut store)?;
                Ok(Self { store, bindings })
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
                    facts: call.facts.as_ref().map(facts),
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
                        wit::Verdict::AlreadyCancelled => host::Verdict::AlreadyCancelled,
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

        /// The metadata fields 0.2.0 defined; a later version fills in the
        /// fields it added over these.
        fn metadata_since_v0_2(m: wit::Metadata) -> host::Metadata {
            host::Metadata {
                id: m.id,
                display_name: m.display_name,
                version: m.version,
                initial_url: m.initial_url,
                goal: m.goal,
                system_prompt_addition: m.system_prompt_addition,
                allowed_origins: m.allowed_origins,
                login_url_patterns: m.login_url_patterns,
                commit_url_patterns: m.commit_url_patterns,
                commit_requests: m
                    .commit_requests
                    .into_iter()
                    .map(|r| host::RequestPattern {
                        // The contract says upper case; a plugin that wrote
                        // "post" must not slip a commit past the network guard.
                        method: r.method.trim().to_ascii_uppercase(),
                        url_pattern: r.url_pattern,
                    })
                    .collect(),
                overlays: Vec::new(),
                harmless: Vec::new(),
                billing_descriptors: Vec::new(),
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

        fn facts(f: &host::ElementFacts) -> wit::ElementFacts {
            wit::ElementFacts {
                visible_text: f.visible_text.clone(),
                tag: f.tag.clone(),
                input_type: f.input_type.clone(),
                href: f.href.clone(),
                form_action: f.form_action.clone(),
                form_method: f.form_method.clone(),
            }
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
                    .filter(|e| super::glue::worth_sending(e))
                    .map(element)
                    .collect(),
            }
        }

        fn target_hint(t: wit::TargetHint) -> host::TargetHint {
            host::TargetHint {
                role: t.role,
                name_patterns: t.name_patterns,
                action: match t.action {
                    wit::HintAction::Click => host::HintAction::Click,
                    wit::HintAction::Select => host::HintAction::Select,
                    wit::HintAction::Fill => host::HintAction::Fill,
                },
                value: t.value,
                optional: t.optional,
            }
        }

        fn plan_step(step: wit::PlanStep) -> host::PlanStep {
            host::PlanStep {
                description: step.description,
                done_when: step.done_when,
                targets: step.targets.into_iter().map(target_hint).collect(),
                irreversible: step.irreversible,
            }
        }
    };
}

pub(super) use since_v0_2;
