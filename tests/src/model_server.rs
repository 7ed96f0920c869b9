//! A scripted model server on 127.0.0.1 that answers `POST /v1/messages` in
//! the Anthropic Messages format and `POST /v1/chat/completions` in the OpenAI
//! Chat Completions format, records every request (headers and JSON body),
//! and decides each answer with a handler: a fixed queue of [`Reply`]s, or a
//! function of the request, so an end-to-end test can pick the next tool call
//! from the latest snapshot the agent sent.
//!
//! Replies are provider-neutral; the server writes them in whichever format
//! the request came in, with the ids, stop reasons and usage the real APIs
//! send (shapes copied from the providers' API references). A reply can also
//! be broken the ways real ones break: cut off mid-JSON, dropped mid-body,
//! not JSON, or JSON in neither format.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use subterminator_core::agent::history::PAGE_NOW;
use subterminator_core::llm::NOT_EXECUTED;
use tokio::task::JoinHandle;

/// Which wire format a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Anthropic,
    OpenAi,
}

/// What the model "says" next, in neither provider's format.
#[derive(Debug, Clone)]
pub enum Reply {
    /// One or more tool calls, each `(name, arguments)`.
    ToolCalls(Vec<(String, Value)>),
    /// One tool call whose arguments are sent exactly as given, valid JSON or
    /// not. Anthropic's API always sends an object, so in that format a raw
    /// string that is not a JSON object is sent as a JSON string `input`,
    /// which no real server does but which exercises the client's guard.
    ToolCallRawArgs(String, String),
    /// A text answer with no tool call.
    Text(String),
    /// An error status; `body` is the message, wrapped in the provider's
    /// error format.
    Status {
        code: u16,
        body: String,
        retry_after: Option<u64>,
    },
    /// Waits before answering (to test timeouts).
    Delay(Duration, Box<Reply>),
    /// A 200 in the provider's format whose JSON stops halfway, as when a
    /// proxy or a restarting server cuts a reply off. The HTTP framing is
    /// whole (the length sent is the length promised): only the JSON is
    /// broken. The inner reply is a success one (tool calls or text).
    Truncated(Box<Reply>),
    /// A 200 in the provider's format whose connection closes halfway
    /// through the body: the headers promise the whole reply and only the
    /// first half arrives, so the client fails while reading the body.
    Dropped(Box<Reply>),
    /// A 200 with `Content-Type: application/json` and exactly this body:
    /// not JSON at all, or JSON in neither provider's shape.
    Body(String),
}

impl Reply {
    pub fn tool(name: &str, arguments: Value) -> Reply {
        Reply::ToolCalls(vec![(name.to_owned(), arguments)])
    }

    pub fn text(text: &str) -> Reply {
        Reply::Text(text.to_owned())
    }

    pub fn status(code: u16, message: &str) -> Reply {
        Reply::Status {
            code,
            body: message.to_owned(),
            retry_after: None,
        }
    }

    pub fn delayed(delay: Duration, reply: Reply) -> Reply {
        Reply::Delay(delay, Box::new(reply))
    }

    pub fn truncated(reply: Reply) -> Reply {
        Reply::Truncated(Box::new(reply))
    }

    pub fn dropped(reply: Reply) -> Reply {
        Reply::Dropped(Box::new(reply))
    }

    pub fn body(body: &str) -> Reply {
        Reply::Body(body.to_owned())
    }
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// 0 for the first request this server received, and so on.
    pub index: usize,
    pub api: Api,
    pub path: String,
    /// Header names in lower case; repeated headers joined with ", ".
    pub headers: BTreeMap<String, String>,
    /// `Value::Null` if the body was not JSON.
    pub body: Value,
}

pub type Handler = dyn Fn(&RecordedRequest) -> Reply + Send + Sync;

struct Shared {
    handler: Box<Handler>,
    cache: Mutex<crate::prompt_cache::PromptCache>,
    requests: Mutex<Vec<RecordedRequest>>,
    usage: Mutex<(u64, u64)>,
    ids: AtomicU64,
}

pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl ModelServer {
    /// Starts a server whose every answer is `handler(request)`.
    pub async fn start(
        handler: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<ModelServer> {
        let shared = Arc::new(Shared {
            handler: Box::new(handler),
            cache: Mutex::new(crate::prompt_cache::PromptCache::default()),
            requests: Mutex::new(Vec::new()),
            usage: Mutex::new((0, 0)),
            ids: AtomicU64::new(0),
        });
        let app = Router::new()
            .route("/v1/messages", post(anthropic))
            .route("/v1/chat/completions", post(openai))
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            // Ends only when the test drops the server (which aborts this task).
            let _ = axum::serve(listener, app).await;
        });
        Ok(ModelServer { addr, shared, task })
    }

    /// Answers with `replies` in order; once they run out, every request gets
    /// a 400 saying so, which fails the caller at once with a clear message.
    pub async fn scripted(replies: Vec<Reply>) -> std::io::Result<ModelServer> {
        let total = replies.len();
        let queue = Mutex::new(VecDeque::from(replies));
        Self::start(move |_| {
            lock(&queue).pop_front().unwrap_or_else(|| {
                Reply::status(
                    400,
                    &format!("scripted model server: script exhausted after {total} replies"),
                )
            })
        })
        .await
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The root, as `ANTHROPIC_BASE_URL` expects.
    pub fn anthropic_base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Including `/v1`, as `OPENAI_BASE_URL` expects.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    pub fn request_count(&self) -> usize {
        lock(&self.shared.requests).len()
    }

    pub fn last_request(&self) -> Option<RecordedRequest> {
        lock(&self.shared.requests).last().cloned()
    }

    /// Sum of the `(input, output)` tokens this server reported in its answers.
    pub fn usage_reported(&self) -> (u64, u64) {
        *lock(&self.shared.usage)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A test that panicked while holding the lock must not hide its own
    // failure behind a poisoned-lock panic in the next one.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn anthropic(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    answer(&shared, Api::Anthropic, "/v1/messages", &headers, &body).await
}

async fn openai(State(shared): State<Arc<Shared>>, headers: HeaderMap, body: Bytes) -> Response {
    answer(
        &shared,
        Api::OpenAi,
        "/v1/chat/completions",
        &headers,
        &body,
    )
    .await
}

async fn answer(
    shared: &Shared,
    api: Api,
    path: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let mut recorded_headers = BTreeMap::<String, String>::new();
    for (name, value) in headers {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        recorded_headers
            .entry(name.as_str().to_owned())
            .and_modify(|existing| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    let request = {
        let mut requests = lock(&shared.requests);
        let request = RecordedRequest {
            index: requests.len(),
            api,
            path: path.to_owned(),
            headers: recorded_headers,
            body: serde_json::from_slice(body).unwrap_or(Value::Null),
        };
        requests.push(request.clone());
        request
    };
    let mut reply = if request.body.is_null() {
        Reply::status(400, "request body is not JSON")
    } else {
        (shared.handler)(&request)
    };
    while let Reply::Delay(delay, inner) = reply {
        tokio::time::sleep(delay).await;
        reply = *inner;
    }
    let id = shared.ids.fetch_add(1, Ordering::Relaxed) + 1;
    let input_tokens = (body.len() as u64).div_ceil(4);
    let model = request.body["model"]
        .as_str()
        .unwrap_or("unknown-model")
        .to_owned();
    let cached = {
        let mut cache = lock(&shared.cache);
        match api {
            Api::Anthropic => cache.anthropic(&request.body),
            Api::OpenAi => (cache.openai(&request.body), 0),
        }
    };
    let render = |reply: &Reply| {
        let output_tokens = output_tokens(reply);
        let json = match api {
            Api::Anthropic => {
                anthropic_message(reply, &model, id, (input_tokens, cached), output_tokens)
            }
            Api::OpenAi => {
                openai_completion(reply, &model, id, (input_tokens, cached.0), output_tokens)
            }
        };
        (json, output_tokens)
    };
    match reply {
        Reply::Status {
            code,
            body,
            retry_after,
        } => error_response(api, code, &body, retry_after, id),
        // The client never reads the usage of the three broken replies, so
        // they are left out of `usage_reported`.
        Reply::Truncated(inner) => {
            let whole = render(&inner).0.to_string();
            json_response(first_half(&whole).to_owned())
        }
        Reply::Dropped(inner) => {
            // Leading whitespace is valid JSON, and pushes the part that is
            // sent past hyper's write buffer: hyper then sends the headers
            // and that part before it finds the body ending short of the
            // promised length and closes the connection. A stream has no
            // known length, so hyper sends the promised one as given.
            let whole = format!("{}{}", " ".repeat(DROPPED_PADDING_BYTES), render(&inner).0);
            let sent = first_half(&whole).to_owned();
            let body = Body::from_stream(Body::from(sent).into_data_stream());
            let headers = [
                (CONTENT_TYPE, JSON.to_owned()),
                (CONTENT_LENGTH, whole.len().to_string()),
            ];
            (StatusCode::OK, headers, body).into_response()
        }
        Reply::Body(text) => json_response(text),
        success => {
            let (json, output_tokens) = render(&success);
            let mut usage = lock(&shared.usage);
            usage.0 += input_tokens;
            usage.1 += output_tokens;
            drop(usage);
            (StatusCode::OK, axum::Json(json)).into_response()
        }
    }
}

const JSON: &str = "application/json";

/// Spaces ahead of a dropped reply's JSON: more than twice hyper's write
/// buffer (8 KiB + 400 KiB), so the half that is sent fills it, and a full
/// buffer is what makes hyper flush before the body has ended.
const DROPPED_PADDING_BYTES: usize = 1024 * 1024;

/// A 200 with this body as it is, labelled JSON whatever it holds.
fn json_response(body: String) -> Response {
    (StatusCode::OK, [(CONTENT_TYPE, JSON)], body).into_response()
}

/// The first half of `text`, cut on a character boundary. A proper prefix
/// of compact JSON is never valid JSON, so the cut always breaks it.
fn first_half(text: &str) -> &str {
    let mut end = text.len() / 2;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

fn output_tokens(reply: &Reply) -> u64 {
    let chars = match reply {
        Reply::ToolCalls(calls) => calls
            .iter()
            .map(|(name, args)| name.len() + args.to_string().len())
            .sum(),
        Reply::ToolCallRawArgs(name, raw) => name.len() + raw.len(),
        Reply::Text(text) => text.len(),
        Reply::Truncated(inner) | Reply::Dropped(inner) => return output_tokens(inner),
        Reply::Status { .. } | Reply::Delay(..) | Reply::Body(_) => 0,
    };
    (chars as u64).div_ceil(4).max(1)
}

/// Ids shaped like the real ones (`msg_01…`, `toolu_01…`, `chatcmpl-…`, `call_…`).
fn id(prefix: &str, n: u64, index: usize) -> String {
    format!("{prefix}{n:010}{index:02}X7kQ9vR2mT4pL8")
}

/// `input`: every input token, and of those the cache's `(read, written)`.
fn anthropic_message(
    reply: &Reply,
    model: &str,
    n: u64,
    input: (u64, (u64, u64)),
    output: u64,
) -> Value {
    let tool_use = |index: usize, name: &str, input: Value| json!({"type": "tool_use", "id": id("toolu_01", n, index), "name": name, "input": input});
    let (content, stop_reason) = match reply {
        Reply::ToolCalls(calls) => (
            calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| tool_use(i, name, args.clone()))
                .collect(),
            "tool_use",
        ),
        Reply::ToolCallRawArgs(name, raw) => {
            let input = match serde_json::from_str::<Value>(raw) {
                Ok(object @ Value::Object(_)) => object,
                _ => Value::String(raw.clone()),
            };
            (vec![tool_use(0, name, input)], "tool_use")
        }
        Reply::Text(text) => (vec![json!({"type": "text", "text": text})], "end_turn"),
        Reply::Truncated(inner) | Reply::Dropped(inner) => {
            return anthropic_message(inner, model, n, input, output);
        }
        Reply::Status { .. } | Reply::Delay(..) | Reply::Body(_) => (Vec::new(), "end_turn"),
    };
    json!({
        "id": id("msg_01", n, 0),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {
            // Anthropic's input_tokens are the uncached ones.
            "input_tokens": input.0.saturating_sub(input.1.0 + input.1.1),
            "cache_creation_input_tokens": input.1.1,
            "cache_read_input_tokens": input.1.0,
            "output_tokens": output,
        },
    })
}

/// `input`: every prompt token, and of those the cached ones.
fn openai_completion(reply: &Reply, model: &str, n: u64, input: (u64, u64), output: u64) -> Value {
    let call = |index: usize, name: &str, arguments: String| {
        json!({
            "id": id("call_", n, index),
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        })
    };
    let (content, tool_calls, finish_reason) = match reply {
        Reply::ToolCalls(calls) => (
            Value::Null,
            calls
                .iter()
                .enumerate()
                .map(|(i, (name, args))| call(i, name, args.to_string()))
                .collect(),
            "tool_calls",
        ),
        Reply::ToolCallRawArgs(name, raw) => {
            (Value::Null, vec![call(0, name, raw.clone())], "tool_calls")
        }
        Reply::Text(text) => (json!(text), Vec::new(), "stop"),
        Reply::Truncated(inner) | Reply::Dropped(inner) => {
            return openai_completion(inner, model, n, input, output);
        }
        Reply::Status { .. } | Reply::Delay(..) | Reply::Body(_) => {
            (Value::Null, Vec::new(), "stop")
        }
    };
    let mut message =
        json!({"role": "assistant", "content": content, "refusal": null, "annotations": []});
    if !tool_calls.is_empty() {
        message["tool_calls"] = Value::Array(tool_calls);
    }
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    json!({
        "id": id("chatcmpl-", n, 0),
        "object": "chat.completion",
        "created": created,
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": input.0,
            "completion_tokens": output,
            "total_tokens": input.0 + output,
            "prompt_tokens_details": {"cached_tokens": input.1},
        },
        "service_tier": "default",
        "system_fingerprint": "fp_model_server",
    })
}

fn error_response(
    api: Api,
    code: u16,
    message: &str,
    retry_after: Option<u64>,
    n: u64,
) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = match api {
        Api::Anthropic => {
            let kind = match code {
                400 => "invalid_request_error",
                401 => "authentication_error",
                403 => "permission_error",
                404 => "not_found_error",
                413 => "request_too_large",
                429 => "rate_limit_error",
                529 => "overloaded_error",
                _ => "api_error",
            };
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
        Api::OpenAi => {
            let (kind, code_name) = match code {
                401 => ("invalid_request_error", json!("invalid_api_key")),
                403 => (
                    "invalid_request_error",
                    json!("unsupported_country_region_territory"),
                ),
                404 => ("invalid_request_error", json!("model_not_found")),
                429 => ("requests", json!("rate_limit_exceeded")),
                500..=599 => ("server_error", Value::Null),
                _ => ("invalid_request_error", Value::Null),
            };
            json!({"error": {"message": message, "type": kind, "param": null, "code": code_name}})
        }
    };
    let mut response = (status, axum::Json(body)).into_response();
    let headers = response.headers_mut();
    if let Some(seconds) = retry_after
        && let Ok(value) = seconds.to_string().parse()
    {
        headers.insert("retry-after", value);
    }
    if let Ok(value) = format!("req_{n:020}").parse() {
        headers.insert("request-id", value);
    }
    response
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }

    pub fn model(&self) -> Option<&str> {
        self.body["model"].as_str()
    }

    pub fn messages(&self) -> &[Value] {
        self.body["messages"].as_array().map_or(&[], Vec::as_slice)
    }

    /// The system prompt: Anthropic's top-level `system`, or OpenAI's
    /// `role: system` message.
    pub fn system(&self) -> Option<String> {
        match self.api {
            Api::Anthropic => text_of(&self.body["system"]),
            Api::OpenAi => self
                .messages()
                .iter()
                .find(|m| m["role"] == "system" || m["role"] == "developer")
                .and_then(|m| text_of(&m["content"])),
        }
    }

    pub fn tool_names(&self) -> Vec<String> {
        let tools = self.body["tools"].as_array().map_or(&[][..], Vec::as_slice);
        tools
            .iter()
            .filter_map(|tool| match self.api {
                Api::Anthropic => tool["name"].as_str(),
                Api::OpenAi => tool["function"]["name"].as_str(),
            })
            .map(str::to_owned)
            .collect()
    }

    /// The content of the latest tool result, in either format. Results the
    /// client filled in for calls the agent did not run are skipped, so this
    /// is what the agent last saw happen.
    pub fn latest_tool_result(&self) -> Option<String> {
        self.user_side_items()
            .into_iter()
            .rev()
            .find_map(|item| match item {
                UserSide::ToolResult(text) if text != NOT_EXECUTED => Some(text),
                UserSide::ToolResult(_) | UserSide::Text(_) => None,
            })
    }

    /// The latest plain user text (not a tool result), in either format.
    pub fn latest_user_text(&self) -> Option<String> {
        self.user_side_items()
            .into_iter()
            .rev()
            .find_map(|item| match item {
                UserSide::Text(text) => Some(text),
                UserSide::ToolResult(_) => None,
            })
    }

    /// Every user text, in order.
    pub fn user_texts(&self) -> Vec<String> {
        self.user_side_items()
            .into_iter()
            .filter_map(|item| match item {
                UserSide::Text(text) => Some(text),
                UserSide::ToolResult(_) => None,
            })
            .collect()
    }

    /// Whichever came last: a tool result or a user text (filled-in results
    /// for calls that were not run skipped, as above). When the page is
    /// sent apart, after the result or text it follows, both: what the
    /// action did (or what the host said), then the page now.
    pub fn latest_input(&self) -> Option<String> {
        let mut meaningful =
            self.user_side_items()
                .into_iter()
                .rev()
                .filter_map(|item| match item {
                    UserSide::ToolResult(text) if text == NOT_EXECUTED => None,
                    UserSide::Text(text) | UserSide::ToolResult(text) => Some(text),
                });
        let last = meaningful.next()?;
        if !last.starts_with(PAGE_NOW) {
            return Some(last);
        }
        Some(match meaningful.next() {
            Some(before) => format!("{before}\n\n{last}"),
            None => last,
        })
    }

    /// Every tool result's `(call id, content)`, in order.
    pub fn tool_results(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for message in self.messages() {
            match self.api {
                Api::Anthropic => {
                    for block in message["content"].as_array().map_or(&[][..], Vec::as_slice) {
                        if block["type"] == "tool_result" {
                            out.push((
                                block["tool_use_id"].as_str().unwrap_or_default().to_owned(),
                                text_of(&block["content"]).unwrap_or_default(),
                            ));
                        }
                    }
                }
                Api::OpenAi => {
                    if message["role"] == "tool" {
                        out.push((
                            message["tool_call_id"]
                                .as_str()
                                .unwrap_or_default()
                                .to_owned(),
                            text_of(&message["content"]).unwrap_or_default(),
                        ));
                    }
                }
            }
        }
        out
    }

    fn user_side_items(&self) -> Vec<UserSide> {
        let mut items = Vec::new();
        for message in self.messages() {
            match (self.api, message["role"].as_str()) {
                (Api::Anthropic, Some("user")) => match &message["content"] {
                    Value::Array(blocks) => {
                        for block in blocks {
                            match block["type"].as_str() {
                                Some("tool_result") => {
                                    items.push(UserSide::ToolResult(
                                        text_of(&block["content"]).unwrap_or_default(),
                                    ));
                                }
                                Some("text") => {
                                    items.push(UserSide::Text(
                                        text_of(&block["text"]).unwrap_or_default(),
                                    ));
                                }
                                _ => {}
                            }
                        }
                    }
                    content => items.extend(text_of(content).map(UserSide::Text)),
                },
                // A picture's own message only labels it; it says nothing
                // the agent wrote.
                (Api::OpenAi, Some("user")) if carries_image(&message["content"]) => {}
                (Api::OpenAi, Some("user")) => {
                    items.extend(text_of(&message["content"]).map(UserSide::Text))
                }
                (Api::OpenAi, Some("tool")) => {
                    items.push(UserSide::ToolResult(
                        text_of(&message["content"]).unwrap_or_default(),
                    ));
                }
                _ => {}
            }
        }
        items
    }
}

enum UserSide {
    Text(String),
    ToolResult(String),
}

/// Whether OpenAI content parts include an image.
fn carries_image(content: &Value) -> bool {
    content
        .as_array()
        .is_some_and(|parts| parts.iter().any(|p| p["type"] == "image_url"))
}

/// A string, or the text parts of a content array, joined by newlines.
fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|part| part["text"].as_str())
                .collect();
            (!texts.is_empty()).then(|| texts.join("\n"))
        }
        _ => None,
    }
}
