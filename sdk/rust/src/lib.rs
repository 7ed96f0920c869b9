//! Write a subterminator service plugin in plain Rust.
//!
//! Implement [`Service`] for a type, then export it with
//! [`register_service!`]. The same code builds to a `wasm32-wasip2`
//! component (the plugin) and runs under plain `cargo test` on the host, where
//! predicates can be tested against snapshot fixtures without wasm.
//!
//! ```ignore
//! use subterminator_sdk::prelude::*;
//!
//! struct Example;
//!
//! impl Service for Example {
//!     fn new() -> Self { Example }
//!     fn metadata(&self) -> Metadata { /* … */ # unimplemented!() }
//!     fn verify(&self, snapshot: &Snapshot) -> Verdict {
//!         if title_contains_any(snapshot, &["cancelled"]) { Verdict::Success } else { Verdict::Unknown }
//!     }
//! }
//!
//! register_service!(Example);
//! ```

#[cfg(not(target_arch = "wasm32"))]
pub mod build;
pub mod glob;
pub mod predicates;
pub mod text;
pub mod types;

pub use types::*;

/// The version of the WIT contract this SDK speaks.
pub const PLUGIN_API_VERSION: &str = "0.4.0";

/// Everything a plugin author usually needs.
pub mod prelude {
    pub use crate::predicates::*;
    pub use crate::types::*;
    pub use crate::{Service, log, register_service};
}

/// A subscription service, described for the host.
///
/// Only [`Service::new`] and [`Service::metadata`] are required to compile;
/// every predicate has a conservative default (nothing added to the host's
/// checks, nothing verified, no sign-in detected), so a new plugin can start
/// small. The host runs a plugin only once [`Service::plan`] marks the step
/// that commits with [`PlanStep::irreversible`].
pub trait Service: Send + Sync + 'static {
    fn new() -> Self
    where
        Self: Sized;

    fn metadata(&self) -> Metadata;

    /// Intent-level steps, in order. The step that commits the cancellation
    /// (or any other billing change) must be marked irreversible: the host
    /// always asks the human before it, and refuses a plan that marks none.
    /// Unmarked steps tell the host their targets are safe to act on without
    /// asking, so mark every step that could commit.
    fn plan(&self) -> Vec<PlanStep> {
        Vec::new()
    }

    /// A reason when a human must approve `call` before it runs.
    ///
    /// Returning `None` adds nothing: it never means "no objection". The
    /// host's own floor and the plan's irreversible steps still decide
    /// whether the human is asked; a checkpoint can only add a reason to ask.
    fn checkpoint(&self, _call: &ToolCall, _snapshot: &Snapshot) -> Option<String> {
        None
    }

    /// Whether the page proves the goal was reached. Answer
    /// [`Verdict::Success`] only from what the page itself shows after the
    /// cancellation was committed, never while it still offers a way to
    /// commit; [`Verdict::AlreadyCancelled`] when it shows the subscription
    /// was cancelled before this run.
    fn verify(&self, _snapshot: &Snapshot) -> Verdict {
        Verdict::Unknown
    }

    /// A sign-in wall the human must get past.
    fn detect_auth(&self, _snapshot: &Snapshot) -> Option<AuthEvent> {
        None
    }
}

/// Writes a line to the host's log, tagged with the plugin's id.
pub fn log(level: LogLevel, message: &str) {
    #[cfg(target_arch = "wasm32")]
    guest::log(level, message);
    // Off wasm (plugin unit tests) there is no host to log to; stderr is where
    // a test runner shows it.
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("[{level:?}] {message}");
}

#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod guest;

/// Exports a [`Service`] implementation as the plugin's component interface.
///
/// Expands to nothing off wasm, so the plugin crate still builds and tests
/// natively.
#[macro_export]
macro_rules! register_service {
    ($service:ty) => {
        #[cfg(target_arch = "wasm32")]
        const _: () = {
            static INSTANCE: ::std::sync::OnceLock<$service> = ::std::sync::OnceLock::new();

            fn instance() -> &'static $service {
                INSTANCE.get_or_init(<$service as $crate::Service>::new)
            }

            struct Export;

            impl $crate::guest::bindings::Guest for Export {
                fn metadata() -> $crate::guest::bindings::Metadata {
                    $crate::guest::metadata(instance())
                }
                fn plan() -> ::std::vec::Vec<$crate::guest::bindings::PlanStep> {
                    $crate::guest::plan(instance())
                }
                fn checkpoint(
                    call: $crate::guest::bindings::ToolCall,
                    snapshot: $crate::guest::bindings::Snapshot,
                ) -> ::std::option::Option<::std::string::String> {
                    $crate::guest::checkpoint(instance(), call, snapshot)
                }
                fn verify(
                    snapshot: $crate::guest::bindings::Snapshot,
                ) -> $crate::guest::bindings::Verdict {
                    $crate::guest::verify(instance(), snapshot)
                }
                fn detect_auth(
                    snapshot: $crate::guest::bindings::Snapshot,
                ) -> ::std::option::Option<$crate::guest::bindings::AuthEvent> {
                    $crate::guest::detect_auth(instance(), snapshot)
                }
            }

    $crate::guest::bindings::export!(Export with_types_in $crate::guest::bindings);
        };
    };
}
