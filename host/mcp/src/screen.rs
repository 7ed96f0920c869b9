//! A client's message, looked at before rmcp reads it. rmcp takes a request
//! whose params do not fit its method for a method of its own (`tools/call`
//! with `arguments: [1,2]` answered "method not found"), drops text that is
//! not JSON on stdio and answers it with HTTP 415 over HTTP. Here the first
//! is invalid params (-32602), the second a parse error (-32700), on both
//! transports, so a client learns what it sent wrong.

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorData, RequestId, ServerJsonRpcMessage,
};
use serde_json::Value;

/// What to do with one message.
#[derive(Debug)]
pub enum Screened {
    /// Well formed: rmcp may have it (stdio passes this very value on).
    Pass(Box<ClientJsonRpcMessage>),
    /// Answer this instead; the message goes no further.
    Refuse(Box<ServerJsonRpcMessage>),
    /// Nothing to answer: a notification or response that cannot be read
    /// (JSON-RPC answers neither), dropped as rmcp drops them.
    Drop,
}

/// The requests MCP defines for a client. One of these that rmcp could
/// only read as a method of its own had params that do not fit it.
const STANDARD_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
];

/// Looks at one message's bytes.
pub fn screen(bytes: &[u8]) -> Screened {
    // RFC 8259 lets a parser skip a byte order mark, and rmcp does.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(e) => {
            return refuse(
                ErrorData::parse_error(format!("the message is not JSON: {e}"), None),
                None,
            );
        }
    };
    let Value::Object(object) = &value else {
        let what = if value.is_array() {
            "a batch (an array); send one message at a time"
        } else {
            "not an object"
        };
        return refuse(
            ErrorData::invalid_request(format!("the message is {what}"), None),
            None,
        );
    };
    let id = object
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let method = object.get("method").and_then(Value::as_str);
    let message = match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(message) => message,
        Err(e) => {
            return match (method, id) {
                // A method of MCP's, its params unreadable: they do not fit it.
                (Some(method), Some(id)) if STANDARD_REQUESTS.contains(&method) => {
                    invalid_params(method, object.get("params"), id)
                }
                (Some(_), Some(id)) => refuse(
                    ErrorData::invalid_request(format!("not a JSON-RPC 2.0 request: {e}"), None),
                    Some(id),
                ),
                _ => {
                    tracing::debug!("dropped an unreadable notification or response: {e}");
                    Screened::Drop
                }
            };
        }
    };
    if let ClientJsonRpcMessage::Request(request) = &message
        && let ClientRequest::CustomRequest(custom) = &request.request
        && STANDARD_REQUESTS.contains(&custom.method.as_str())
    {
        return invalid_params(&custom.method, object.get("params"), request.id.clone());
    }
    Screened::Pass(Box::new(message))
}

fn invalid_params(method: &str, params: Option<&Value>, id: RequestId) -> Screened {
    let why = misfit(method, params);
    refuse(
        ErrorData::invalid_params(
            why.clone(),
            Some(serde_json::json!({"method": method, "reason": why})),
        ),
        Some(id),
    )
}

/// Why the params of a standard method do not fit it, as precisely as we
/// can say: `tools/call` is the one clients get wrong.
fn misfit(method: &str, params: Option<&Value>) -> String {
    if method == "tools/call" {
        let Some(Value::Object(params)) = params else {
            return "the params of tools/call must be an object with `name` and `arguments`".into();
        };
        if !params.get("name").is_some_and(Value::is_string) {
            return "the params of tools/call must name the tool: `name` must be a string".into();
        }
        if let Some(arguments) = params.get("arguments")
            && !arguments.is_object()
        {
            return "`arguments` must be an object of the tool's named arguments, e.g. {\"service\": \"netflix\"}".into();
        }
    }
    format!("the params of {method} do not fit the method's schema")
}

fn refuse(error: ErrorData, id: Option<RequestId>) -> Screened {
    Screened::Refuse(Box::new(ServerJsonRpcMessage::error(error, id)))
}

#[cfg(test)]
mod tests;
