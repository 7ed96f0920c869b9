//! Speaks `subterminator:service@0.2.0`, built with wit-bindgen from the
//! frozen `wit/v0.2.0` rather than the SDK (which speaks the newest API):
//! a 0.2.0 plugin as its users have it. It gives metadata and nothing else:
//! its plan marks no irreversible step, which API 0.2.0 and later require,
//! so the host must refuse it at load rather than run it with nothing to ask
//! before.

// Generated export glue is unsafe FFI; plugins built with the SDK never see it.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code, clippy::all)]
mod guest {
    wit_bindgen::generate!({ path: "../../../wit/v0.2.0", world: "service" });

    struct MetaOnly;

    impl Guest for MetaOnly {
        fn metadata() -> Metadata {
            Metadata {
                id: "meta-only-v0-2".into(),
                display_name: "Metadata only (API 0.2.0)".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                initial_url: "http://127.0.0.1/".into(),
                goal: "Cancel the membership.".into(),
                system_prompt_addition: String::new(),
                allowed_origins: vec!["http://127.0.0.1".into()],
                login_url_patterns: Vec::new(),
                commit_url_patterns: Vec::new(),
                commit_requests: Vec::new(),
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
