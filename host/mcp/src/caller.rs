//! Who makes a call: which sessions it may name, how its person is asked,
//! what shows it is still there, and where its progress goes. One
//! connection speaks one protocol version, so a stdio client or a pre-2026
//! HTTP session keeps its sessions to itself and is asked by elicitation;
//! a 2026-07-28 call over HTTP belongs to no connection at all.

use rmcp::RoleServer;
use rmcp::model::{ProgressToken, ProtocolVersion};
use rmcp::service::{Peer, RequestContext};
use tokio_util::sync::CancellationToken;

use super::desk::Asking;
use super::elicit;
use super::slot::{STATELESS, Tether};

/// How the server was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

/// The header a pre-2026 HTTP session is named by.
const SESSION_HEADER: &str = "mcp-session-id";

/// One call's caller.
#[derive(Clone)]
pub struct Caller {
    /// The scope its session ids live in: its connection's number, or
    /// [`STATELESS`].
    pub scope: u64,
    /// 2026-07-28 or later: asked with `input_required`, never sent a request.
    pub modern: bool,
    pub tether: Tether,
    /// Whether its person can be put a form now.
    pub can_answer: bool,
    /// Its name and version, for the run record.
    pub client: String,
    pub peer: Peer<RoleServer>,
    pub progress: Option<ProgressToken>,
    /// Cancelled when the client withdraws the call (or its stream closes).
    pub cancelled: CancellationToken,
}

impl std::fmt::Debug for Caller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Caller")
            .field("scope", &self.scope)
            .field("modern", &self.modern)
            .field("tether", &self.tether)
            .finish_non_exhaustive()
    }
}

impl Caller {
    /// The caller of the request in `context`, made on `connection` over
    /// `transport`.
    pub fn of(context: &RequestContext<RoleServer>, connection: u64, transport: Transport) -> Self {
        let modern = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let http_session = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get(SESSION_HEADER))
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let (scope, tether) = match (transport, modern, http_session) {
            (Transport::Stdio, _, _) => (connection, Tether::Process),
            (Transport::Http, true, _) => (STATELESS, Tether::Exchange),
            (Transport::Http, false, Some(id)) => (connection, Tether::HttpSession(id)),
            // A pre-2026 request without a session: nothing will show
            // whether its client is still there but its calls.
            (Transport::Http, false, None) => (connection, Tether::Exchange),
        };
        let capabilities = context.client_capabilities();
        let client = context
            .client_info()
            .map(|info| format!("{} {}", info.name, info.version))
            .unwrap_or_else(|| "unknown".into());
        Self {
            scope,
            modern,
            tether,
            can_answer: elicit::can_elicit(capabilities.as_ref()),
            client,
            peer: context.peer.clone(),
            progress: context.meta.get_progress_token(),
            cancelled: context.ct.clone(),
        }
    }

    /// How a session this caller opens asks its person.
    pub fn asking(&self) -> Asking {
        if self.modern {
            Asking::InputRequired
        } else {
            Asking::Elicitation(self.peer.clone())
        }
    }

    /// Whether it belongs to no connection (2026-07-28 over HTTP): its
    /// sessions are named by ids the server gives out.
    pub fn stateless(&self) -> bool {
        self.scope == STATELESS
    }
}
