//! The MCP handler: each tool call becomes a session lookup, a run or a
//! turn of one, and a structured [`Reply`].

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use super::reply::Reply;
use super::sessions::Sessions;
use super::slot::{Launch, Slot, SlotKey};
use super::tools::{self, agent_arguments};
use super::{CLIENT_MAX_TURNS, DEFAULT_SESSION_ID, MAX_SESSION_ID_CHARS};
use subterminator_core::agent::{Driver, Event, client_model};
use subterminator_core::llm::ToolCall;
use subterminator_core::plugin::ServiceEntry;
use subterminator_core::session::{self, SessionSpec};

/// What the server tells a client's model about itself.
const INSTRUCTIONS: &str = "subterminator cancels the person's subscriptions in their own browser. \
    Call list_services, then either cancel_subscription (subterminator's own agent does it) or \
    browser_snapshot with `service` to drive the browser yourself, one browser tool call at a time, \
    ending with finish_cancellation and browser_close. The person approves every irreversible step \
    in an approval prompt; a no ends the run. Never claim a cancellation the result did not verify.";

/// Protocol versions with sessions and server-to-client requests, which
/// approvals need: 2026-07-28 forbids the server to ask.
const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
];

/// One connection's handler; clones share the connection.
#[derive(Clone)]
pub struct McpServer {
    sessions: Sessions,
    connection: Arc<Connection>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("connection", &self.connection.id)
            .finish_non_exhaustive()
    }
}

/// A connection's identity; when the last handler of it is dropped (its
/// client gone), its sessions are closed.
struct Connection {
    id: u64,
    sessions: Sessions,
    calls: AtomicU64,
}

impl Drop for Connection {
    fn drop(&mut self) {
        let sessions = self.sessions.clone();
        let id = self.id;
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let closed = sessions.close_connection(id).await;
                if closed > 0 {
                    tracing::info!(connection = id, closed, "client gone: its sessions closed");
                }
            });
        }
    }
}

impl McpServer {
    /// A handler for a new connection.
    pub fn new(sessions: Sessions) -> Self {
        let id = sessions.connection();
        Self {
            connection: Arc::new(Connection {
                id,
                sessions: sessions.clone(),
                calls: AtomicU64::new(0),
            }),
            sessions,
        }
    }

    fn key(&self, args: &Map<String, Value>) -> Result<SlotKey, Reply> {
        let session = match args.get("session_id") {
            None | Some(Value::Null) => DEFAULT_SESSION_ID.to_owned(),
            Some(Value::String(id)) if valid_session_id(id) => id.clone(),
            Some(other) => {
                return Err(Reply::error(
                    format!("session_id {other} is not a valid session id"),
                    format!(
                        "Pass 1 to {MAX_SESSION_ID_CHARS} letters, digits, '-' or '_', or leave it out for \"{DEFAULT_SESSION_ID}\"."
                    ),
                ));
            }
        };
        Ok(SlotKey {
            connection: self.connection.id,
            session,
        })
    }

    async fn dispatch(
        &self,
        name: &str,
        args: Map<String, Value>,
        context: RequestContext<RoleServer>,
    ) -> Reply {
        let outcome = match name {
            tools::LIST_SERVICES => self.list_services().await,
            tools::CANCEL_SUBSCRIPTION => self.cancel(&args, context).await,
            tools::SCREENSHOT => self.screenshot(&args).await,
            tools::CLOSE => self.close(&args).await,
            other => match tools::agent_tool(other) {
                Some(agent_tool) => self.turn(other, agent_tool, &args, context.peer).await,
                None => Err(Reply::error(
                    format!("there is no tool called {other}"),
                    "Call tools/list for the tools this server has.",
                )),
            },
        };
        outcome.unwrap_or_else(|reply| reply)
    }

    async fn list_services(&self) -> Result<Reply, Reply> {
        let registry = self
            .sessions
            .registry()
            .await
            .map_err(|e| Reply::from_error(&e))?;
        let services: Vec<Value> = registry
            .services()
            .iter()
            .map(|s| {
                json!({
                    "id": s.metadata.id,
                    "name": s.metadata.display_name,
                    "version": s.metadata.version,
                    "starts_at": s.metadata.initial_url,
                    "goal": s.metadata.goal,
                })
            })
            .collect();
        Ok(Reply::ok(json!({ "services": services })))
    }

    async fn service(&self, args: &Map<String, Value>) -> Result<ServiceEntry, Reply> {
        let Some(id) = args.get("service").and_then(Value::as_str) else {
            return Err(Reply::error(
                "`service` is missing",
                "Pass the service's id from list_services, e.g. {\"service\": \"netflix\"}.",
            ));
        };
        let registry = self
            .sessions
            .registry()
            .await
            .map_err(|e| Reply::from_error(&e))?;
        registry
            .get(id)
            .cloned()
            .map_err(|e| Reply::error(e.to_string(), "Call list_services for the ids it knows."))
    }

    /// The run's spec: the server's, with what this call asks for.
    fn spec(
        &self,
        args: &Map<String, Value>,
        service: &ServiceEntry,
    ) -> Result<SessionSpec, Reply> {
        let mut spec = self.sessions.base().clone();
        spec.isolated = args
            .get("isolated")
            .and_then(Value::as_bool)
            .unwrap_or(self.sessions.options().isolated_by_default);
        spec.start_url = args
            .get("start_url")
            .and_then(Value::as_str)
            .map(str::to_owned);
        spec.dry_run = args
            .get("dry_run")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        session::start_url(&spec, service).map_err(|e| {
            Reply::error(
                e.to_string(),
                "Pass a whole http(s) address as start_url, or leave it out.",
            )
        })?;
        Ok(spec)
    }

    /// `cancel_subscription`: the host's own agent, to the end, with
    /// progress each turn.
    async fn cancel(
        &self,
        args: &Map<String, Value>,
        context: RequestContext<RoleServer>,
    ) -> Result<Reply, Reply> {
        let key = self.key(args)?;
        let service = self.service(args).await?;
        let spec = self.spec(args, &service)?;
        let driver = session::driver(&spec, self.sessions.config(), &service)
            .map_err(|e| Reply::from_error(&e))?;
        let (tap, events) = mpsc::unbounded_channel();
        let token = context.meta.get_progress_token();
        let progress = tokio::spawn(forward_progress(context.peer.clone(), token, events));
        let launch = Launch {
            key: key.clone(),
            service: service.clone(),
            spec,
            driver,
            calls: None,
            peer: context.peer.clone(),
            tap: Some(tap),
        };
        let slot = self
            .sessions
            .open(launch)
            .await
            .map_err(|e| open_failed(&e))?;
        let finished = tokio::select! {
            finished = slot.wait() => finished,
            () = context.ct.cancelled() => slot.close(true).await,
        };
        self.sessions.remove(&slot);
        let _ = progress.await;
        Ok(Reply::finished(
            &finished,
            &service.metadata.id,
            &key.session,
        ))
    }

    /// A browser tool: one turn of the session's run, driven by the
    /// client's model. `browser_snapshot` with `service` starts the run.
    async fn turn(
        &self,
        name: &str,
        agent_tool: &str,
        args: &Map<String, Value>,
        peer: Peer<RoleServer>,
    ) -> Result<Reply, Reply> {
        let key = self.key(args)?;
        let slot = match self.sessions.get(&key).filter(|s| !s.is_done()) {
            Some(slot) => {
                if let Some(asked) = args.get("service").and_then(Value::as_str)
                    && asked != slot.service_id
                {
                    return Err(Reply::error(
                        format!(
                            "session \"{}\" is cancelling {}, not {asked}",
                            key.session, slot.service_id
                        ),
                        "Close it with browser_close first, or pass another session_id.",
                    ));
                }
                slot
            }
            None if name == tools::SNAPSHOT && args.contains_key("service") => {
                self.open_for_client(key.clone(), args, peer).await?
            }
            None => {
                return Err(Reply::error(
                    format!("no browser session \"{}\" is open", key.session),
                    "Start one with browser_snapshot and `service` (list_services names them).",
                ));
            }
        };
        let n = self.connection.calls.fetch_add(1, Ordering::SeqCst) + 1;
        let call = ToolCall {
            id: format!("mcp-{n}"),
            name: agent_tool.to_owned(),
            arguments: Ok(agent_arguments(args)),
        };
        match slot.call(call).await {
            Ok(reply) => Ok(Reply::turn(&reply, &key.session)),
            Err(finished) => {
                self.sessions.remove(&slot);
                Ok(Reply::finished(&finished, &slot.service_id, &key.session))
            }
        }
    }

    async fn open_for_client(
        &self,
        key: SlotKey,
        args: &Map<String, Value>,
        peer: Peer<RoleServer>,
    ) -> Result<Arc<Slot>, Reply> {
        let service = self.service(args).await?;
        let mut spec = self.spec(args, &service)?;
        spec.dry_run = false;
        spec.max_turns = CLIENT_MAX_TURNS;
        spec.tools = session::Tools::Compact;
        spec.vision = false;
        let client = peer
            .peer_info()
            .map(|info| format!("{} {}", info.client_info.name, info.client_info.version))
            .unwrap_or_else(|| "unknown".into());
        let (calls, model) = client_model(format!("the MCP client's model ({client})"));
        let launch = Launch {
            key,
            service,
            spec,
            driver: Driver::Client(model),
            calls: Some(calls),
            peer,
            tap: None,
        };
        self.sessions
            .open(launch)
            .await
            .map_err(|e| open_failed(&e))
    }

    async fn screenshot(&self, args: &Map<String, Value>) -> Result<Reply, Reply> {
        let key = self.key(args)?;
        let Some(slot) = self.sessions.get(&key).filter(|s| !s.is_done()) else {
            return Err(Reply::error(
                format!("no browser session \"{}\" is open", key.session),
                "Start one with browser_snapshot and `service`.",
            ));
        };
        let path = slot.next_screenshot();
        let taken = slot
            .browser
            .screenshot(&path)
            .await
            .map_err(|e| Reply::from_error(&e.into()))?;
        let png = tokio::fs::read(&taken).await.map_err(|e| {
            Reply::from_error(&subterminator_core::Error::io(
                "cannot read the screenshot",
                &taken,
                e,
            ))
        })?;
        Ok(Reply::ok(json!({ "session_id": key.session, "path": taken })).with_image(png))
    }

    async fn close(&self, args: &Map<String, Value>) -> Result<Reply, Reply> {
        let key = self.key(args)?;
        let Some(slot) = self.sessions.get(&key) else {
            return Ok(Reply::ok(json!({
                "session_id": key.session,
                "closed": false,
                "message": "no session of that id was open",
            })));
        };
        let finished = slot.close(false).await;
        self.sessions.remove(&slot);
        Ok(Reply::finished(&finished, &slot.service_id, &key.session))
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.protocol_version = ProtocolVersion::V_2025_11_25;
        info.server_info = Implementation::new("subterminator", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(INSTRUCTIONS.into());
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(PROTOCOL_VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let reply = self.dispatch(&request.name, args, context).await;
        Ok(CallToolResponse::Complete(reply.into_result()))
    }
}

fn valid_session_id(id: &str) -> bool {
    (1..=MAX_SESSION_ID_CHARS).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn open_failed(error: &super::sessions::OpenError) -> Reply {
    Reply::error(error.to_string(), error.remediation())
}

/// Sends the client a progress notification for each turn of a host run
/// (and each approval, verification and the end), when it asked for them.
async fn forward_progress(
    peer: Peer<RoleServer>,
    token: Option<ProgressToken>,
    mut events: mpsc::UnboundedReceiver<Event>,
) {
    let mut sent = 0u32;
    while let Some(event) = events.recv().await {
        let Some(token) = &token else { continue };
        let Some(message) = progress_message(&event) else {
            continue;
        };
        sent += 1;
        let mut notification = ProgressNotificationParam::new(token.clone(), f64::from(sent));
        notification.message = Some(message);
        if let Err(e) = peer.notify_progress(notification).await {
            tracing::debug!("progress not sent: {e}");
        }
    }
}

/// What a progress notification says of an event, if anything.
pub fn progress_message(event: &Event) -> Option<String> {
    use subterminator_core::text::sanitize;
    Some(match event {
        Event::ToolCall {
            turn, tool, target, ..
        } => match target {
            Some(target) => format!("[Turn {turn}] {tool} {}", sanitize(target)),
            None => format!("[Turn {turn}] {tool}"),
        },
        Event::Refused { turn, why, .. } => format!("[Turn {turn}] refused: {}", sanitize(why)),
        Event::ApprovalAsked { turn, request } => format!(
            "[Turn {turn}] waiting for your approval: {} {}",
            request.action,
            sanitize(request.target.as_deref().unwrap_or_default())
        ),
        Event::Verification {
            turn,
            verified,
            detail,
        } => {
            if *verified {
                format!("[Turn {turn}] verified on the page")
            } else {
                format!("[Turn {turn}] not verified: {}", sanitize(detail))
            }
        }
        Event::AuthRequired { message, .. } => sanitize(message),
        Event::Finished { result } => format!("finished: {}", result.reason),
        _ => return None,
    })
}

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
