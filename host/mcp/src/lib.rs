//! `subterminator mcp`: the canceller served over MCP (seed 004), for people
//! who work inside an MCP client. Two ways in, one host underneath:
//!
//! - `cancel_subscription` runs the host's own agent (the configured model
//!   or the offline policy), with progress sent each turn;
//! - the browser tools let the client's own model drive, one call a turn.
//!   To the host that model is just another model ([`Driver::Client`]): each
//!   call goes through the same decision, guard and verification as a
//!   model on the terminal.
//!
//! Either way approvals reach the client's person through elicitation, and
//! a client that cannot elicit gets every action that needs a yes refused.
//!
//! - [`tools`]: what the client's model sees;
//! - [`reply`]: structured results, with a remediation on every error;
//! - [`sessions`]: one browser per session, lazily started, capped, reaped
//!   when idle, all shut down on exit;
//! - [`slot`]: one session's run and its task;
//! - [`elicit`]: approvals as `elicitation/create`;
//! - [`server`]: the MCP handler;
//! - [`http`]: streamable HTTP on loopback, behind a bearer token.
//!
//! [`Driver::Client`]: subterminator_core::agent::Driver::Client

pub mod elicit;
pub mod http;
pub mod reply;
pub mod server;
pub mod sessions;
pub mod slot;
pub mod tools;

use std::time::Duration;

pub use server::McpServer;
pub use sessions::Sessions;

/// Sessions idle this long are closed and their browser shut down (seed 004 §5.3).
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

/// The session a call without `session_id` uses.
pub const DEFAULT_SESSION_ID: &str = "default";

/// How often idle sessions are looked for: a quarter of the timeout, within
/// these bounds.
pub fn reap_interval(idle_timeout: Duration) -> Duration {
    (idle_timeout / 4).clamp(Duration::from_millis(100), Duration::from_secs(30))
}

/// The server's settings, from flags and config.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub idle_timeout: Duration,
    pub max_sessions: usize,
    /// Sessions get a throwaway profile unless a call asks for the signed-in one.
    pub isolated_by_default: bool,
}

impl Default for ServeOptions {
    fn default() -> Self {
        Self {
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_sessions: DEFAULT_MAX_SESSIONS,
            isolated_by_default: false,
        }
    }
}
