//! What one plugin's store holds: a bare WASI context, the memory limiter
//! and the guest's bounded output. The WASI context has no preopened
//! directories, no environment or arguments, no network; stdin is empty (or,
//! for the interpreter, the service file it runs) and
//! stdout/stderr go into a bounded in-memory pipe.

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::limits::{MEMORY_LIMIT_BYTES, OUTPUT_LIMIT_BYTES, TABLE_LIMIT_ELEMENTS};

/// What one plugin's store carries.
pub struct StoreState {
    pub(super) wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(super) limiter: MemoryLimiter,
    pub(super) output: MemoryOutputPipe,
    /// `id version`, for log lines from the guest.
    pub(super) tag: String,
}

impl StoreState {
    /// `input` becomes the guest's stdin: the one way data other than the
    /// calls' arguments reaches a plugin (the interpreter reads its
    /// `service.toml` there).
    pub(super) fn new(tag: String, input: Option<&[u8]>) -> Self {
        let output = MemoryOutputPipe::new(OUTPUT_LIMIT_BYTES);
        let mut builder = WasiCtx::builder();
        if let Some(input) = input {
            builder.stdin(MemoryInputPipe::new(input.to_vec()));
        }
        let wasi = builder
            .stdout(output.clone())
            .stderr(output.clone())
            .allow_tcp(false)
            .allow_udp(false)
            .allow_ip_name_lookup(false)
            .socket_addr_check(|_, _| Box::pin(async { false }))
            .build();
        Self {
            wasi,
            table: ResourceTable::new(),
            limiter: MemoryLimiter::default(),
            output,
            tag,
        }
    }

    pub(super) fn limiter(&mut self) -> &mut dyn ResourceLimiter {
        &mut self.limiter
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

/// Holds a store's memory to [`MEMORY_LIMIT_BYTES`] and remembers that it
/// said no, so a failed call is known to be out of memory from the limiter
/// itself rather than from the wording of a trap.
#[derive(Debug, Default)]
pub struct MemoryLimiter {
    refused: bool,
}

/// The trap a refused growth raises; its text only helps a reader of logs.
#[derive(Debug, thiserror::Error)]
#[error("the plugin asked for {desired} bytes of memory, over its {limit} byte limit")]
struct MemoryRefused {
    desired: usize,
    limit: usize,
}

impl MemoryLimiter {
    /// Whether growth was refused since the last [`MemoryLimiter::reset`].
    pub fn refused(&self) -> bool {
        self.refused
    }

    pub fn reset(&mut self) {
        self.refused = false;
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired <= MEMORY_LIMIT_BYTES {
            return Ok(true);
        }
        self.refused = true;
        // Trapping at once, rather than letting `memory.grow` return -1,
        // stops a guest that would otherwise spin on failing allocations.
        Err(MemoryRefused {
            desired,
            limit: MEMORY_LIMIT_BYTES,
        }
        .into())
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= TABLE_LIMIT_ELEMENTS)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn the_limiter_remembers_a_refusal_until_reset() {
        let mut limiter = MemoryLimiter::default();
        assert!(limiter.memory_growing(0, MEMORY_LIMIT_BYTES, None).unwrap());
        assert!(!limiter.refused());
        assert!(
            limiter
                .memory_growing(0, MEMORY_LIMIT_BYTES + 1, None)
                .is_err()
        );
        assert!(limiter.refused());
        limiter.reset();
        assert!(!limiter.refused());
    }
}
