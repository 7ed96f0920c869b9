//! Speaks `subterminator:service@0.9.0`, a made-up version no host has:
//! loading it must fail with a clear "unsupported API" error, not a link
//! error.

// Generated export glue is unsafe FFI; plugins built with the SDK never see it.
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code, clippy::all)]
mod guest {
    wit_bindgen::generate!({ path: "wit", world: "service" });

    struct Future;

    impl Guest for Future {
        fn metadata() -> Metadata {
            Metadata {
                id: "future".into(),
                display_name: "Future".into(),
                version: "9.9.9".into(),
                initial_url: "https://example.com/".into(),
                goal: String::new(),
                system_prompt_addition: String::new(),
                allowed_origins: vec!["https://example.com".into()],
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

    export!(Future);
}
