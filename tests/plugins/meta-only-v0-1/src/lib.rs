//! Speaks `subterminator:service@0.1.0`, built with wit-bindgen from the
//! frozen `wit/v0.1.0` rather than the SDK (which speaks the newest API): an
//! old plugin as users have it. It gives metadata and nothing else (no plan,
//! no checkpoint, no verdict), so every decision is the host's own floor.

// Generated export glue is unsafe FFI; plugins built with the SDK never see it.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code, clippy::all)]
mod guest {
    wit_bindgen::generate!({ path: "../../../wit/v0.1.0", world: "service" });

    struct MetaOnly;

    impl Guest for MetaOnly {
        fn metadata() -> Metadata {
            Metadata {
                id: "meta-only-v0-1".into(),
                display_name: "Metadata only (API 0.1.0)".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                initial_url: "http://127.0.0.1/".into(),
                goal: "Cancel the membership.".into(),
                system_prompt_addition: String::new(),
                allowed_origins: vec!["http://127.0.0.1".into()],
                login_url_patterns: Vec::new(),
            }
        }
        fn plan() -> Vec<PlanStep> {
            Vec::new()
        }
        fn checkpoint(_call: ToolCall, _snapshot: Snapshot) -> Option<String> {
            None
        }
        fn verify(_snapshot: Snapshot) -> Verdict {
            Verdict::Unknown
        }
        fn detect_auth(_snapshot: Snapshot) -> Option<AuthEvent> {
            None
        }
    }

    export!(MetaOnly);
}
