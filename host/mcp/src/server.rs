//! The MCP handler: a tool call's arguments are checked against the tool's
//! schema, its caller is known, and [`calls`](super::calls) does the rest.
//! Protocol versions up to 2025-11-25 (with `initialize`, sessions and
//! elicitation) and 2026-07-28 (stateless, `server/discover`, approvals as
//! `input_required` results) are served side by side; sampling and roots
//! are never used.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestMethod, CompleteRequestParams,
    CompleteResult, Implementation, ListPromptsRequestMethod, ListPromptsResult,
    ListResourceTemplatesRequestMethod, ListResourceTemplatesResult, ListResourcesRequestMethod,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;

use super::caller::{Caller, Transport};
use super::calls::{self, Call, Response, invalid};
use super::schema;
use super::sessions::Sessions;
use super::tools;

/// What the server tells a client's model about itself.
const INSTRUCTIONS: &str = "subterminator cancels the person's subscriptions in their own browser. \
    Call list_services, then either cancel_subscription (subterminator's own agent does it) or \
    browser_snapshot with `service` to drive the browser yourself, one browser tool call at a time, \
    ending with finish_cancellation and browser_close. The person approves every irreversible step \
    in an approval prompt; a no ends the run. Never claim a cancellation the result did not verify.";

/// Every protocol version served: those with `initialize` and sessions,
/// where the server asks by elicitation, and 2026-07-28, where it returns
/// `input_required` and the client calls again.
const PROTOCOL_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// One connection's handler (over HTTP, one MCP session's, or one
/// 2026-07-28 request's); clones share the connection.
#[derive(Clone)]
pub struct McpServer {
    sessions: Sessions,
    connection: Arc<Connection>,
    transport: Transport,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("connection", &self.connection.id)
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

/// A connection's identity; when the last handler of it is dropped (its
/// client gone), its sessions are closed.
struct Connection {
    id: u64,
    sessions: Sessions,
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
    /// A handler for a new stdio connection.
    pub fn new(sessions: Sessions) -> Self {
        Self::on(sessions, Transport::Stdio)
    }

    /// A handler for a new HTTP session or stateless request.
    pub fn over_http(sessions: Sessions) -> Self {
        Self::on(sessions, Transport::Http)
    }

    fn on(sessions: Sessions, transport: Transport) -> Self {
        let id = sessions.connection();
        Self {
            connection: Arc::new(Connection {
                id,
                sessions: sessions.clone(),
            }),
            sessions,
            transport,
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        // What `initialize` offers; 2026-07-28 callers learn every version
        // from `server/discover`.
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
        Ok(ListToolsResult::with_all_items(tools::all().to_vec()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::find(name).cloned()
    }

    // Tools are all this server offers: what it does not declare, it does
    // not answer as if it did (rmcp's defaults give empty lists), so a
    // client's view of its capabilities matches what it honours.
    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Err(ErrorData::method_not_found::<ListPromptsRequestMethod>())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Err(ErrorData::method_not_found::<ListResourcesRequestMethod>())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Err(ErrorData::method_not_found::<
            ListResourceTemplatesRequestMethod,
        >())
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        Err(ErrorData::method_not_found::<CompleteRequestMethod>())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = tools::find(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "there is no tool called {:?}; tools/list names the tools",
                    request.name
                ),
                Some(json!({ "argument": "name" })),
            ));
        };
        let args = request.arguments.unwrap_or_default();
        schema::check(&tool.input_schema, &args).map_err(|mismatch| {
            invalid(
                mismatch.argument(),
                format!("{}: {mismatch}; nothing was started", tool.name),
            )
        })?;
        let caller = Caller::of(&context, self.connection.id, self.transport);
        let call = Call {
            sessions: &self.sessions,
            caller: &caller,
            tool: &tool.name,
            args: &args,
        };
        let response = match (request.request_state, request.input_responses) {
            (None, None) => calls::dispatch(call).await?,
            (Some(state), responses) => calls::resume(call, &state, responses.as_ref()).await?,
            (None, Some(_)) => {
                return Err(invalid(
                    "requestState",
                    "inputResponses come with the requestState of the input_required result they answer",
                ));
            }
        };
        Ok(match response {
            Response::Done(reply) => CallToolResponse::Complete(reply.into_result()),
            Response::Asks(input) => CallToolResponse::InputRequired(input),
        })
    }
}
