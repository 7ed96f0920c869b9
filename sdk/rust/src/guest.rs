//! The glue between generated bindings and [`crate::Service`]; hidden from
//! plugin authors, who only see the macro.

use crate::types as sdk;

#[allow(missing_docs, clippy::all)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit/v0.4.0",
        world: "service",
        pub_export_macro: true,
        export_macro_name: "export",
        default_bindings_module: "subterminator_sdk::guest::bindings",
    });

    // The world's `use` already puts its own types at this level.
    pub use subterminator::service::types::{
        AuthKind, Element, ElementFacts, HarmlessRequest, HintAction, RequestPattern, TargetHint,
    };
}

use bindings as b;

pub fn log(level: sdk::LogLevel, message: &str) {
    let level = match level {
        sdk::LogLevel::Trace => b::LogLevel::Trace,
        sdk::LogLevel::Debug => b::LogLevel::Debug,
        sdk::LogLevel::Info => b::LogLevel::Info,
        sdk::LogLevel::Warn => b::LogLevel::Warn,
        sdk::LogLevel::Error => b::LogLevel::Error,
    };
    b::log(level, message);
}

fn element(e: b::Element) -> sdk::Element {
    sdk::Element {
        role: e.role,
        name: e.name,
        states: e.states,
        level: e.level,
        url: e.url,
    }
}

fn facts(f: b::ElementFacts) -> sdk::ElementFacts {
    sdk::ElementFacts {
        visible_text: f.visible_text,
        tag: f.tag,
        input_type: f.input_type,
        href: f.href,
        form_action: f.form_action,
        form_method: f.form_method,
    }
}

fn snapshot(s: b::Snapshot) -> sdk::Snapshot {
    sdk::Snapshot {
        url: s.url,
        title: s.title,
        content: s.content,
        screenshot_path: s.screenshot_path,
        elements: s.elements.into_iter().map(element).collect(),
    }
}

pub fn metadata<S: crate::Service>(service: &S) -> b::Metadata {
    let m = service.metadata();
    b::Metadata {
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
            .map(|r| b::RequestPattern {
                method: r.method,
                url_pattern: r.url_pattern,
            })
            .collect(),
        interruptions: m.interruptions.into_iter().map(target_hint).collect(),
        harmless_requests: m
            .harmless_requests
            .into_iter()
            .map(|h| b::HarmlessRequest {
                step: h.step,
                method: h.method,
                host: h.host,
                path: h.path,
            })
            .collect(),
        billing_descriptors: m.billing_descriptors,
    }
}

fn target_hint(t: sdk::TargetHint) -> b::TargetHint {
    b::TargetHint {
        role: t.role,
        name_patterns: t.name_patterns,
        action: match t.action {
            sdk::HintAction::Click => b::HintAction::Click,
            sdk::HintAction::Select => b::HintAction::Select,
            sdk::HintAction::Fill => b::HintAction::Fill,
        },
        value: t.value,
        optional: t.optional,
    }
}

pub fn plan<S: crate::Service>(service: &S) -> Vec<b::PlanStep> {
    service
        .plan()
        .into_iter()
        .map(|step| b::PlanStep {
            description: step.description,
            done_when: step.done_when,
            targets: step.targets.into_iter().map(target_hint).collect(),
            irreversible: step.irreversible,
        })
        .collect()
}

pub fn checkpoint<S: crate::Service>(
    service: &S,
    call: b::ToolCall,
    snap: b::Snapshot,
) -> Option<String> {
    let call = sdk::ToolCall {
        action: call.action,
        arguments_json: call.arguments_json,
        target: call.target.map(element),
        facts: call.facts.map(facts),
    };
    service.checkpoint(&call, &snapshot(snap))
}

pub fn verify<S: crate::Service>(service: &S, snap: b::Snapshot) -> b::Verdict {
    match service.verify(&snapshot(snap)) {
        sdk::Verdict::Success => b::Verdict::Success,
        sdk::Verdict::Failure(reason) => b::Verdict::Failure(reason),
        sdk::Verdict::Unknown => b::Verdict::Unknown,
        sdk::Verdict::AlreadyCancelled => b::Verdict::AlreadyCancelled,
    }
}

pub fn detect_auth<S: crate::Service>(service: &S, snap: b::Snapshot) -> Option<b::AuthEvent> {
    service.detect_auth(&snapshot(snap)).map(|e| b::AuthEvent {
        kind: match e.kind {
            sdk::AuthKind::LoginRequired => b::AuthKind::LoginRequired,
            sdk::AuthKind::TwoFactor => b::AuthKind::TwoFactor,
            sdk::AuthKind::Captcha => b::AuthKind::Captcha,
            sdk::AuthKind::SessionExpired => b::AuthKind::SessionExpired,
        },
        message: e.message,
    })
}
