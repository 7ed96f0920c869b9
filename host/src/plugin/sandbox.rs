//! The shared engine and what each plugin's store holds. The WASI context is
//! bare: no preopened directories, no environment or arguments, no network,
//! stdin empty, stdout and stderr into a bounded in-memory pipe.

use std::sync::Arc;

use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Config, Engine, ResourceLimiter, StoreLimits, StoreLimitsBuilder};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::cache::{CacheOutcome, ComponentCache};
use super::limits::{EPOCH_TICK, MEMORY_LIMIT_BYTES, OUTPUT_LIMIT_BYTES};
use super::{PluginError, v0_1_0};

/// One engine for every plugin, its epoch ticker, and the linkers.
#[derive(Clone)]
pub struct Runtime {
    pub(super) engine: Engine,
    pub(super) linker_v0_1_0: Arc<Linker<StoreState>>,
    cache: Option<Arc<ComponentCache>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// A runtime that compiles every component afresh.
    pub fn new() -> Result<Self, PluginError> {
        Self::build(None)
    }

    /// A runtime that keeps compiled components in `cache`.
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
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).map_err(|e| engine_error(&e))?;
        v0_1_0::add_to_linker(&mut linker).map_err(|e| engine_error(&e))?;
        Ok(Self {
            engine,
            linker_v0_1_0: Arc::new(linker),
            cache,
        })
    }

    /// Compiles `wasm`, or loads it from the cache when this host compiled the
    /// same bytes before with a compatible engine.
    pub fn compile(
        &self,
        source_name: &str,
        wasm: &[u8],
    ) -> Result<(Component, CacheOutcome), PluginError> {
        match &self.cache {
            Some(cache) => cache.load_or_compile(&self.engine, source_name, wasm),
            None => compile(&self.engine, source_name, wasm).map(|c| (c, CacheOutcome::Compiled)),
        }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

pub(super) fn compile(
    engine: &Engine,
    source_name: &str,
    wasm: &[u8],
) -> Result<Component, PluginError> {
    Component::new(engine, wasm).map_err(|e| PluginError::Invalid {
        source_name: source_name.to_owned(),
        cause: format!("{e:#}"),
    })
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

/// What one plugin's store carries.
pub struct StoreState {
    pub(super) wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(super) limits: StoreLimits,
    pub(super) output: MemoryOutputPipe,
    /// `id version`, for log lines from the guest.
    pub(super) tag: String,
}

impl StoreState {
    pub(super) fn new(tag: String) -> Self {
        let output = MemoryOutputPipe::new(OUTPUT_LIMIT_BYTES);
        let wasi = WasiCtx::builder()
            .stdout(output.clone())
            .stderr(output.clone())
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }))
            .build();
        let limits = StoreLimitsBuilder::new()
            .memory_size(MEMORY_LIMIT_BYTES)
            .trap_on_grow_failure(true)
            .build();
        Self {
            wasi,
            table: ResourceTable::new(),
            limits,
            output,
            tag,
        }
    }

    pub(super) fn limiter(&mut self) -> &mut dyn ResourceLimiter {
        &mut self.limits
    }
}

impl WasiView for StoreState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
