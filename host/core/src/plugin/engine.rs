//! The one wasmtime engine every plugin runs on, its epoch ticker, and one
//! linker per plugin API version. A plugin's component is linked once, at
//! load, into an `InstancePre`; replacing a failed instance reuses it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine};

use super::PluginError;
use super::cache::{self, CacheOutcome, ComponentCache};
use super::limits::{EPOCH_TICK, MEMORY_LIMIT_BYTES};
use super::store::StoreState;
use super::{v0_1_0, v0_2_0, v0_3_0, v0_4_0};

/// One engine for every plugin, its epoch ticker, and the linkers.
#[derive(Clone)]
pub struct PluginEngine {
    engine: Engine,
    linkers: Arc<Linkers>,
    cache: Option<Arc<ComponentCache>>,
    /// Components already compiled or deserialized, by the SHA-256 of their
    /// bytes: every declarative service runs the same interpreter, and a
    /// copy of its code per service would cost megabytes each.
    compiled: Arc<Mutex<HashMap<[u8; 32], Component>>>,
}

/// One linker per frozen API version: each carries WASI and that version's
/// `log` import.
pub(super) struct Linkers {
    pub(super) v0_1_0: Linker<StoreState>,
    pub(super) v0_2_0: Linker<StoreState>,
    pub(super) v0_3_0: Linker<StoreState>,
    pub(super) v0_4_0: Linker<StoreState>,
}

impl std::fmt::Debug for PluginEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginEngine")
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl PluginEngine {
    /// An engine that compiles every component afresh.
    pub fn new() -> Result<Self, PluginError> {
        Self::build(None)
    }

    /// An engine that keeps compiled components in `cache`.
    pub fn with_cache(cache: ComponentCache) -> Result<Self, PluginError> {
        Self::build(Some(Arc::new(cache)))
    }

    fn build(cache: Option<Arc<ComponentCache>>) -> Result<Self, PluginError> {
        let mut config = Config::new();
        config.epoch_interruption(true);
        // Small plugins need little; keep the virtual reservation modest so
        // many instances do not reserve gigabytes of address space each.
        config.memory_reservation(u64::try_from(MEMORY_LIMIT_BYTES).unwrap_or(u64::MAX) * 2);
        let engine = Engine::new(&config).map_err(|e| engine_error(&e))?;
        spawn_epoch_ticker(&engine);
        let linkers = Linkers {
            v0_1_0: linker(&engine, v0_1_0::add_to_linker)?,
            v0_2_0: linker(&engine, v0_2_0::add_to_linker)?,
            v0_3_0: linker(&engine, v0_3_0::add_to_linker)?,
            v0_4_0: linker(&engine, v0_4_0::add_to_linker)?,
        };
        Ok(Self {
            engine,
            linkers: Arc::new(linkers),
            cache,
            compiled: Arc::default(),
        })
    }

    /// Compiles `wasm`, or loads it from the cache when this host compiled the
    /// same bytes before with a compatible engine.
    pub fn compile(
        &self,
        source_name: &str,
        wasm: &[u8],
    ) -> Result<(Component, CacheOutcome), PluginError> {
        let digest: [u8; 32] = Sha256::digest(wasm).into();
        let known = self
            .compiled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&digest)
            .cloned();
        if let Some(component) = known {
            return Ok((component, CacheOutcome::Cached));
        }
        let (component, outcome) = match &self.cache {
            Some(cache) => cache.load_or_compile(&self.engine, source_name, wasm)?,
            None => (
                cache::compile(&self.engine, source_name, wasm)?,
                CacheOutcome::Compiled,
            ),
        };
        self.compiled
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(digest, component.clone());
        Ok((component, outcome))
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub(super) fn linkers(&self) -> &Linkers {
        &self.linkers
    }
}

fn linker(
    engine: &Engine,
    add_version: fn(&mut Linker<StoreState>) -> wasmtime::Result<()>,
) -> Result<Linker<StoreState>, PluginError> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(|e| engine_error(&e))?;
    add_version(&mut linker).map_err(|e| engine_error(&e))?;
    Ok(linker)
}

fn engine_error(e: &wasmtime::Error) -> PluginError {
    PluginError::Instantiate {
        source_name: "the plugin engine".into(),
        cause: format!("{e:#}"),
    }
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until the engine is gone.
fn spawn_epoch_ticker(engine: &Engine) {
    let weak = engine.weak();
    let spawned = std::thread::Builder::new()
        .name("plugin-epoch".into())
        .spawn(move || {
            while let Some(engine) = weak.upgrade() {
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            }
        });
    if let Err(e) = spawned {
        // Without a ticker no deadline would ever fire; every call would
        // then time out at once, which fails closed.
        tracing::error!("cannot start the plugin epoch thread: {e}");
    }
}
