//! Every bound the sandbox enforces, in one place, with units.

use std::time::Duration;

/// Wall-clock budget of one plugin call (and of instantiation).
pub const CALL_DEADLINE: Duration = Duration::from_millis(250);

/// How often the engine's epoch advances; deadlines are whole ticks, so a
/// call may run up to one tick past [`CALL_DEADLINE`].
pub const EPOCH_TICK: Duration = Duration::from_millis(10);

/// Linear memory a plugin instance may grow to.
pub const MEMORY_LIMIT_BYTES: usize = 32 * 1024 * 1024;

/// Bytes of stdout+stderr an instance may write before its writes trap;
/// plugins log through the `log` import, so this only catches runaways.
pub const OUTPUT_LIMIT_BYTES: usize = 256 * 1024;

/// Longest log line forwarded to `tracing`; the rest is cut.
pub const LOG_LINE_LIMIT_CHARS: usize = 2_000;

/// Largest plugin component the host will read.
pub const COMPONENT_SIZE_LIMIT_BYTES: u64 = 16 * 1024 * 1024;

/// Epoch ticks to set as a call's deadline. The tick under way when the
/// call starts is already partly spent, so one more is added: a call always
/// gets its whole [`CALL_DEADLINE`] and is stopped less than one tick after.
pub fn deadline_ticks() -> u64 {
    let ticks = CALL_DEADLINE
        .as_millis()
        .div_ceil(EPOCH_TICK.as_millis().max(1));
    u64::try_from(ticks).unwrap_or(u64::MAX).saturating_add(1)
}

/// Table elements (function references) an instance may grow to; far more
/// than a compiled Rust plugin uses, small enough to bound the host's memory.
pub const TABLE_LIMIT_ELEMENTS: usize = 100_000;

/// A guest's log line, cut to [`LOG_LINE_LIMIT_CHARS`].
pub fn cut_log_line(line: &str) -> std::borrow::Cow<'_, str> {
    crate::text::truncate(line, LOG_LINE_LIMIT_CHARS, crate::text::ELLIPSIS)
}
