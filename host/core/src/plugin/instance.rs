//! One loaded plugin: its compiled component, the metadata and plan it gave
//! at load, and a live instance that is thrown away after any failed call.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::Store;

use super::api::{ApiVersion, Linked, LiveInstance};
use super::bounds;
use super::cache::CacheOutcome;
use super::engine::PluginEngine;
use super::limits::{
    CALL_DEADLINE, MEMORY_LIMIT_BYTES, OUTPUT_LIMIT_BYTES, cut_log_line, deadline_ticks,
};
use super::store::StoreState;
use super::types::{AuthEvent, Metadata, PlanStep, ToolCallView, Verdict};
use super::{PluginError, PluginId};
use crate::page;

struct Live {
    inner: LiveInstance,
    /// How much of the output pipe was already forwarded to the log.
    output_seen: usize,
}

pub struct Plugin {
    source_name: String,
    engine: PluginEngine,
    /// Linked once at load: replacing a failed instance does not link again.
    linked: Linked,
    api: ApiVersion,
    metadata: Metadata,
    plan: Vec<PlanStep>,
    live: Option<Live>,
    cache_outcome: CacheOutcome,
    replacements: u32,
    /// `id version`, for log lines; the source name until metadata is known.
    tag: String,
    /// What each instance reads on stdin: a declarative service's file.
    input: Option<Arc<[u8]>>,
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("id", &self.metadata.id)
            .field("version", &self.metadata.version)
            .field("api", &self.api)
            .finish_non_exhaustive()
    }
}

impl Plugin {
    /// Compiles (or loads from cache), checks the API version, instantiates,
    /// and asks for metadata and plan. `source_name` names the plugin in
    /// errors until its metadata gives it an id.
    pub fn load(
        engine: &PluginEngine,
        source_name: &str,
        wasm: &[u8],
    ) -> Result<Self, PluginError> {
        Self::load_with_input(engine, source_name, wasm, None)
    }

    /// A declarative service: the interpreter component that ships with the
    /// binary, given `service_toml` as data on its stdin. The file is
    /// evaluated only inside the sandbox.
    pub fn load_declarative(
        engine: &PluginEngine,
        source_name: &str,
        service_toml: &str,
    ) -> Result<Self, PluginError> {
        Self::load_with_input(
            engine,
            source_name,
            super::registry::INTERPRETER,
            Some(service_toml.as_bytes()),
        )
    }

    fn load_with_input(
        engine: &PluginEngine,
        source_name: &str,
        wasm: &[u8],
        input: Option<&[u8]>,
    ) -> Result<Self, PluginError> {
        let (component, cache_outcome) = engine.compile(source_name, wasm)?;
        let api = ApiVersion::of(&component, engine, source_name)?;
        let linked =
            Linked::new(api, engine, &component).map_err(|e| PluginError::Instantiate {
                source_name: source_name.to_owned(),
                cause: format!("{e:#}"),
            })?;
        let mut plugin = Self {
            source_name: source_name.to_owned(),
            engine: engine.clone(),
            linked,
            api,
            metadata: Metadata::default(),
            plan: Vec::new(),
            live: None,
            cache_outcome,
            replacements: 0,
            tag: source_name.to_owned(),
            input: input.map(Arc::from),
        };
        let metadata = plugin.call("metadata", |live| live.metadata())?;
        bounds::check_metadata(&metadata).map_err(|cause| PluginError::BadMetadata {
            source_name: source_name.to_owned(),
            cause,
        })?;
        plugin.metadata = metadata;
        plugin.tag = format!("{} {}", plugin.metadata.id, plugin.metadata.version);
        if let Some(live) = &mut plugin.live {
            live.inner
                .store_mut()
                .data_mut()
                .tag
                .clone_from(&plugin.tag);
        }
        plugin.plan = plugin.call("plan", |live| live.plan())?;
        bounds::check_plan(&plugin.plan)
            .and_then(|()| bounds::check_with_plan(&plugin.metadata, &plugin.plan))
            .map_err(|cause| PluginError::BadMetadata {
                source_name: format!("{} ({source_name})", plugin.id()),
                cause,
            })?;
        if api != ApiVersion::V0_1_0 && !super::types::has_irreversible_step(&plugin.plan) {
            return Err(PluginError::BadMetadata {
                source_name: format!("{} ({source_name})", plugin.id()),
                cause: format!(
                    "its plan marks no irreversible step; plugin API {} requires the step that \
                     commits the cancellation to be marked, with target hints to find it",
                    api.as_str()
                ),
            });
        }
        // The registry loads every plugin to learn its metadata, but a run
        // calls one: an idle instance would hold its linear memory for the
        // whole run. The next call instantiates again (about a millisecond).
        plugin.live = None;
        Ok(plugin)
    }

    pub fn id(&self) -> PluginId {
        PluginId {
            id: self.display_id(),
            version: self.metadata.version.clone(),
        }
    }

    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    pub fn plan(&self) -> &[PlanStep] {
        &self.plan
    }

    pub fn api_version(&self) -> &'static str {
        self.api.as_str()
    }

    pub fn api(&self) -> ApiVersion {
        self.api
    }

    pub fn cache_outcome(&self) -> CacheOutcome {
        self.cache_outcome
    }

    /// How many times a failed call made the host replace the instance.
    pub fn replacements(&self) -> u32 {
        self.replacements
    }

    pub fn checkpoint(
        &mut self,
        call: &ToolCallView,
        snapshot: &page::Snapshot,
    ) -> Result<Option<String>, PluginError> {
        let reason = self.call("checkpoint", |live| live.checkpoint(call, snapshot))?;
        Ok(reason.map(|r| bounds::clean_said(&r)))
    }

    pub fn verify(&mut self, snapshot: &page::Snapshot) -> Result<Verdict, PluginError> {
        Ok(match self.call("verify", |live| live.verify(snapshot))? {
            Verdict::Failure(reason) => Verdict::Failure(bounds::clean_said(&reason)),
            verdict => verdict,
        })
    }

    pub fn detect_auth(
        &mut self,
        snapshot: &page::Snapshot,
    ) -> Result<Option<AuthEvent>, PluginError> {
        let event = self.call("detect-auth", |live| live.detect_auth(snapshot))?;
        Ok(event.map(|e| AuthEvent {
            message: bounds::clean_said(&e.message),
            ..e
        }))
    }

    fn display_id(&self) -> String {
        if self.metadata.id.is_empty() {
            self.source_name.clone()
        } else {
            self.metadata.id.clone()
        }
    }

    fn tag(&self) -> &str {
        &self.tag
    }

    /// Runs `f` on the live instance (making one if needed) under the call
    /// deadline. On failure the instance is dropped, so the next call starts
    /// from a fresh one.
    fn call<R>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut LiveInstance) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        let mut live = match self.live.take() {
            Some(live) => live,
            None => self.instantiate()?,
        };
        let store = live.inner.store_mut();
        store.set_epoch_deadline(deadline_ticks());
        store.data_mut().limiter.reset();
        let started = Instant::now();
        let result = f(&mut live.inner);
        let said = forward_output(&mut live, self.tag());
        match result {
            Ok(value) => {
                self.live = Some(live);
                Ok(value)
            }
            Err(error) => {
                self.replacements += 1;
                let output_full = live.output_seen >= OUTPUT_LIMIT_BYTES;
                let out_of_memory = live.inner.store().data().limiter.refused();
                Err(self.classify(
                    name,
                    &error,
                    started.elapsed(),
                    said.as_deref(),
                    Exhausted {
                        output_full,
                        out_of_memory,
                    },
                ))
            }
        }
    }

    fn instantiate(&self) -> Result<Live, PluginError> {
        let mut store = Store::new(
            self.engine.engine(),
            StoreState::new(self.tag().to_owned(), self.input.as_deref()),
        );
        store.limiter(StoreState::limiter);
        store.set_epoch_deadline(deadline_ticks());
        let inner = self
            .linked
            .instantiate(store)
            .map_err(|e| PluginError::Instantiate {
                source_name: self.source_name.clone(),
                cause: format!("{e:#}"),
            })?;
        Ok(Live {
            inner,
            output_seen: 0,
        })
    }

    fn classify(
        &self,
        call: &'static str,
        error: &wasmtime::Error,
        elapsed: Duration,
        last_words: Option<&str>,
        exhausted: Exhausted,
    ) -> PluginError {
        let plugin = self.id();
        let text = format!("{error:#}");
        if matches!(
            error.downcast_ref::<wasmtime::Trap>(),
            Some(wasmtime::Trap::Interrupt)
        ) {
            tracing::debug!(%plugin, ?elapsed, "deadline reached");
            return PluginError::Timeout {
                plugin,
                call,
                limit_ms: CALL_DEADLINE.as_millis(),
            };
        }
        if exhausted.out_of_memory {
            return PluginError::OutOfMemory {
                plugin,
                call,
                limit_mib: MEMORY_LIMIT_BYTES / (1024 * 1024),
            };
        }
        let mut cause = error
            .downcast_ref::<wasmtime::Trap>()
            .map_or_else(|| text.clone(), ToString::to_string);
        if exhausted.output_full {
            cause.push_str(&format!(
                "; its stdout/stderr passed the {} KiB limit",
                OUTPUT_LIMIT_BYTES / 1024
            ));
        }
        if let Some(words) = last_words.filter(|w| !w.is_empty()) {
            cause.push_str(&format!("; it said: {words}"));
        }
        PluginError::Trap {
            plugin,
            call,
            cause,
        }
    }
}

/// Which of the store's bounds a failed call ran into.
#[derive(Debug, Clone, Copy)]
struct Exhausted {
    output_full: bool,
    out_of_memory: bool,
}

/// Sends what the guest printed since the last call to the log, and returns
/// its last line (a panic message, usually).
fn forward_output(live: &mut Live, tag: &str) -> Option<String> {
    let bytes = live.inner.store().data().output.contents();
    let new = bytes.get(live.output_seen..)?;
    live.output_seen = bytes.len();
    if new.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(new);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    for line in &lines {
        tracing::debug!(plugin = tag, "output: {}", cut_log_line(line));
    }
    // A Rust panic prints "… panicked at <place>:" then its message, then a
    // note about backtraces: the message is what explains a trap.
    let words = match lines.iter().position(|l| l.contains("panicked at")) {
        Some(at) => lines[at..]
            .iter()
            .take(2)
            .copied()
            .collect::<Vec<_>>()
            .join(" "),
        None => lines
            .iter()
            .rev()
            .find(|l| !l.starts_with("note:"))
            .copied()?
            .to_owned(),
    };
    Some(cut_log_line(&words).into_owned())
}
