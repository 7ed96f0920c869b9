//! `subterminator mcp`: the canceller served over MCP, for people
//! who work inside an MCP client. Two ways in, one host underneath:
//!
//! - `cancel_subscription` runs the host's own agent (the configured model
//!   or the offline policy), with progress sent each turn;
//! - the browser tools let the client's own model drive, one call a turn.
//!   To the host that model is just another model ([`Driver::Client`]): each
//!   call goes through the same decision, guard and verification as a
//!   model on the terminal.
//!
//! Either way approvals reach the client's person: as elicitations the
//! server sends (protocol versions up to 2025-11-25) or as `input_required`
//! results the client answers by calling again (2026-07-28). A client that
//! cannot elicit gets every action that needs a yes refused.
//!
//! - [`server`]: the MCP handler: who calls ([`caller`]), arguments checked
//!   against each tool's schema ([`schema`]), then the tool ([`calls`]);
//! - [`tools`]: what the client's model sees;
//! - [`reply`]: structured results, with a remediation on every error;
//! - [`start`]: where a client may start a run;
//! - [`sessions`]: one browser per session, lazily started, capped, reaped
//!   when idle or when its client is gone ([`presence`]), all shut down on
//!   exit;
//! - [`slot`]: one session's run, its task and the call in flight;
//! - [`desk`]: a session's front-end: progress, and questions as
//!   elicitations ([`elicit`]) or parked for `input_required` ([`rounds`]);
//! - [`screen`]: malformed messages answered before rmcp reads them, on
//!   [`stdio`] and [`http`] alike;
//! - [`http`]: streamable HTTP on loopback, behind a bearer token and an
//!   origin check.
//!
//! [`Driver::Client`]: subterminator_core::agent::Driver::Client

pub mod caller;
pub mod calls;
pub mod desk;
pub mod elicit;
pub mod http;
pub mod presence;
pub mod reply;
pub mod rounds;
pub mod schema;
pub mod screen;
pub mod server;
pub mod sessions;
pub mod slot;
pub mod start;
pub mod stdio;
pub mod tools;

use std::time::Duration;

pub use server::McpServer;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_short_plain_words() {
        let cases = [
            ("default", true),
            ("a", true),
            ("chat-A_2", true),
            ("", false),
            ("../x", false),
            ("a.b", false),
            ("a b", false),
            ("é", false),
            (&"x".repeat(MAX_SESSION_ID_CHARS), true),
            (&"x".repeat(MAX_SESSION_ID_CHARS + 1), false),
        ];
        for (id, ok) in cases {
            assert_eq!(valid_session_id(id), ok, "{id:?}");
        }
    }
}
pub use sessions::Sessions;

/// Sessions idle this long are closed and their browser shut down, so
/// forgotten sessions cannot exhaust memory.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60 * 60);

/// Browsers open at once; each is a Chromium of its own (BENCHMARKS.md
/// measures what one costs).
pub const DEFAULT_MAX_SESSIONS: usize = 4;

/// Turns a client's model may take in one session: it looks more often
/// than the host's own agent, and every look is a turn.
pub const CLIENT_MAX_TURNS: u32 = 60;

/// How long the client's person has to answer one approval before it is a no.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// How long a stopped run gets to record its end and shut its browser down.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(15);

/// The longest `session_id` a client may name.
pub const MAX_SESSION_ID_CHARS: usize = 64;

/// The session a call without `session_id` uses (on one connection).
pub const DEFAULT_SESSION_ID: &str = "default";

/// Whether `id` may name a session: 1 to [`MAX_SESSION_ID_CHARS`] letters,
/// digits, `-` or `_` (it becomes part of a `requestState`).
pub fn valid_session_id(id: &str) -> bool {
    (1..=MAX_SESSION_ID_CHARS).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// How long an HTTP client that keeps nothing open between calls (a
/// 2026-07-28 client; a pre-2026 one without an event stream) may go
/// without calling before its sessions are closed: a model's think between
/// two calls fits; a crashed client's browser is free, and the next client
/// can have one, within 30 s. A client that keeps an event stream is gone
/// sooner, [`presence::RECONNECT_GRACE`] after the stream closes.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(20);

/// How often sessions are looked at: a quarter of the idle timeout or the
/// lease, whichever is shorter, within these bounds (a second at most, so a
/// gone client's browser goes within a second of its lease).
pub fn reap_interval(idle_timeout: Duration, lease: Duration) -> Duration {
    (idle_timeout.min(lease) / 4).clamp(Duration::from_millis(100), Duration::from_secs(1))
}

/// The server's settings, from flags and config.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub idle_timeout: Duration,
    pub max_sessions: usize,
    /// Sessions get a throwaway profile unless a call asks for the signed-in one.
    pub isolated_by_default: bool,
    /// See [`DEFAULT_LEASE`].
    pub lease: Duration,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            isolated_by_default: false,
            lease: DEFAULT_LEASE,
        }
    }
}
