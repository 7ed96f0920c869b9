//! Service plugins: WebAssembly components run in a sandbox with no ambient
//! authority (no files, environment, sockets or HTTP), each call under an
//! epoch deadline and a memory limit.
//!
//! One [`PluginEngine`] (one wasmtime engine) serves every plugin; each plugin gets its own
//! store. A call that traps, times out or runs out of memory becomes a
//! [`PluginError`] naming the plugin, and the instance is replaced before the
//! next call. Callers fail closed: an erroring checkpoint means "ask the
//! human", an erroring verify means "not verified".

mod api;
pub mod bounds;
mod cache;
mod engine;
pub mod generic;
mod glue;
pub mod index;
mod installed;
mod instance;
pub mod limits;
mod load;
mod registry;
mod site;
mod store;
mod types;
mod v0_1_0;
mod v0_2_0;
mod v0_3_0;
mod v0_4_0;

use std::sync::Arc;

pub use api::ApiVersion;
pub use cache::{CacheOutcome, ComponentCache};
pub use engine::PluginEngine;
pub use installed::{
    InstalledPlugin, MANIFEST_FILE, Manifest, PluginKind, is_sha256_hex, sha256_hex, write_atomic,
};
pub use instance::Plugin;
pub use load::{engine, load_registry};
pub use registry::{
    BUNDLED, BUNDLED_DECLARATIVE, BundledDeclarative, BundledPlugin, INTERPRETER, PluginSource,
    Provenance, Registry, ServiceEntry, load_declarative,
};
pub use types::{
    AuthEvent, AuthKind, ElementFacts, HarmlessRequest, HintAction, Metadata, PlanStep,
    RequestPattern, TargetHint, ToolCallView, Verdict, has_irreversible_step,
};

use crate::exit::ErrorClass;

/// The embedded component of a bundled plugin package.
pub fn bundled_component(package: &str) -> Option<&'static [u8]> {
    BUNDLED
        .iter()
        .find(|b| b.package == package)
        .map(|b| b.wasm)
}

/// The plugin API versions this host can run, newest first.
pub const SUPPORTED_API_VERSIONS: &[&str] = api::SUPPORTED_VERSIONS;

/// A plugin shared between the agent and blocking threads. Wasmtime calls run
/// under `spawn_blocking`, never on a tokio worker.
pub type SharedPlugin = Arc<std::sync::Mutex<Plugin>>;

/// Which plugin an error is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginId {
    pub id: String,
    pub version: String,
}

impl std::fmt::Display for PluginId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "plugin '{}' {}", self.id, self.version)
    }
}

/// The fix when a plugin overran a limit or trapped: the plugin is at
/// fault, not the person's setup, so only a new release of it helps.
fn plugin_at_fault(plugin: &PluginId) -> String {
    format!(
        "update the plugin, or report it to its author (`subterminator plugin info {}` says where it came from)",
        plugin.id
    )
}

/// For failures only a bug can cause: nothing the person set up is wrong.
const REPORT_BUG: &str = "this is a bug in subterminator: please report it, with this run's \
     folder (under `runs` in subterminator's data folder)";

#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error(
        "{plugin}: {call} ran past its {limit_ms} ms deadline and was stopped; {}",
        plugin_at_fault(plugin)
    )]
    Timeout {
        plugin: PluginId,
        call: &'static str,
        limit_ms: u128,
    },

    #[error(
        "{plugin}: {call} needed more than its {limit_mib} MiB memory limit and was stopped; {}",
        plugin_at_fault(plugin)
    )]
    OutOfMemory {
        plugin: PluginId,
        call: &'static str,
        limit_mib: usize,
    },

    #[error("{plugin}: {call} trapped: {cause}; {}", plugin_at_fault(plugin))]
    Trap {
        plugin: PluginId,
        call: &'static str,
        cause: String,
    },

    #[error(
        "{source_name}: not a valid plugin component: {cause}; check that you picked the plugin's \
         .wasm, built with subterminator-sdk"
    )]
    Invalid { source_name: String, cause: String },

    #[error(
        "{source_name}: speaks plugin API {found}, which this subterminator cannot run (it supports {}); \
         update subterminator, or rebuild the plugin with a subterminator-sdk for one of those",
        SUPPORTED_API_VERSIONS.join(", ")
    )]
    UnsupportedApi { source_name: String, found: String },

    #[error(
        "{source_name}: cannot be instantiated in the sandbox: {cause}; rebuild the plugin with \
         subterminator-sdk (the sandbox offers nothing else to import), or report a bug if every plugin fails"
    )]
    Instantiate { source_name: String, cause: String },

    #[error(
        "{source_name}: bad metadata: {cause}; fix it in the plugin and check it with \
         `subterminator plugin test`, or ask its author for a fixed release"
    )]
    BadMetadata { source_name: String, cause: String },

    #[error("{context}: {path}: {source}; check the path, its permissions and the free disk space")]
    Io {
        context: &'static str,
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },

    // The Python prototype's exact words: the list of services is the fix.
    #[error("Unknown service '{name}'. Available services: {}", available.join(", "))]
    ServiceNotFound {
        name: String,
        available: Vec<String>,
    },

    // `cause` is the refusal's own message, which names the fix.
    #[error("'{id}' is installed but was not loaded: {cause}")]
    NotLoaded { id: String, cause: String },

    #[error("the plugin worker thread failed: {0}; {REPORT_BUG}")]
    Worker(String),

    #[error("{path}: {cause}; fix the file, or remove it and reinstall the plugins")]
    Manifest {
        path: std::path::PathBuf,
        cause: String,
    },

    #[error(
        "plugin '{id}': the bytes of {path} no longer match its manifest entry (sha256 {found}, installed as {expected}); it was changed after install. Reinstall it with `subterminator plugin install <source> --replace`, or remove it with `subterminator plugin remove {id}`"
    )]
    Tampered {
        id: String,
        path: std::path::PathBuf,
        expected: String,
        found: String,
    },

    #[error(
        "{path}: not installed through `subterminator plugin install`, so nothing says where it came from; install it with `subterminator plugin install {path}` or delete it"
    )]
    Unlisted { path: std::path::PathBuf },

    #[error(
        "{source_name}: {cause}; fix the file and check it with `subterminator plugin test` on its folder"
    )]
    ServiceFile { source_name: String, cause: String },

    #[error(
        "{what}: sha256 is {found}, but {expected} was expected; the file is not the one you meant to install, so it was not installed. Check where it came from, and the hash you were given"
    )]
    HashMismatch {
        what: String,
        expected: String,
        found: String,
    },

    /// The text comes whole from the call site, which must name the fix.
    #[error("{0}")]
    Install(String),

    /// An address for a service no plugin knows that is no web page.
    #[error(transparent)]
    Address(#[from] generic::AddressError),
}

impl PluginError {
    pub fn class(&self) -> ErrorClass {
        match self {
            PluginError::Invalid { .. }
            | PluginError::UnsupportedApi { .. }
            | PluginError::Instantiate { .. }
            | PluginError::BadMetadata { .. }
            | PluginError::ServiceNotFound { .. }
            | PluginError::Manifest { .. }
            | PluginError::Tampered { .. }
            | PluginError::Unlisted { .. }
            | PluginError::ServiceFile { .. }
            | PluginError::HashMismatch { .. }
            | PluginError::Install(_)
            | PluginError::Address(_)
            | PluginError::NotLoaded { .. } => ErrorClass::Configuration,
            _ => ErrorClass::Failure,
        }
    }
}

/// Runs a blocking plugin call on tokio's blocking pool: a guest touching
/// WASI from a worker thread would panic the runtime.
pub async fn call_blocking<R, F>(plugin: &SharedPlugin, f: F) -> Result<R, PluginError>
where
    R: Send + 'static,
    F: FnOnce(&mut Plugin) -> Result<R, PluginError> + Send + 'static,
{
    let plugin = Arc::clone(plugin);
    tokio::task::spawn_blocking(move || {
        let mut guard = plugin
            .lock()
            .map_err(|_| PluginError::Worker("a previous call poisoned the plugin lock".into()))?;
        f(&mut guard)
    })
    .await
    .map_err(|e| PluginError::Worker(e.to_string()))?
}
