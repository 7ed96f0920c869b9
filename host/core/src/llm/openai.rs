//! OpenAI Chat Completions (`POST {base}/chat/completions`, the base URL
//! including `/v1`), which every OpenAI-compatible local server also speaks:
//! tools as `function`s with `parameters`, `tool_calls` whose arguments are a
//! JSON string, `role: tool` results, `finish_reason` and `usage`.

use reqwest::header::{AUTHORIZATION, HeaderMap};
use serde_json::{Map, Value, json};

use super::conversation::{Turn, turns};
use super::excerpt;
use super::transport::Transport;
use super::{
    BoxFuture, Completion, InvalidArguments, LlmError, Provider, ProviderKind, Request, ToolCall,
    ToolSpec, Usage, tools,
};

pub struct OpenAiProvider {
    kind: ProviderKind,
    model: String,
    transport: Transport,
    headers: HeaderMap,
}

impl OpenAiProvider {
    pub(crate) fn new(
        kind: ProviderKind,
        model: &str,
        transport: Transport,
    ) -> Result<OpenAiProvider, LlmError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = transport.key() {
            let bearer = format!("Bearer {}", key.expose());
            headers.insert(AUTHORIZATION, transport.secret_header(&bearer)?);
        }
        Ok(OpenAiProvider {
            kind,
            model: model.to_owned(),
            transport,
            headers,
        })
    }
}

impl Provider for OpenAiProvider {
    fn name(&self) -> &str {
        self.kind.as_str()
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Completion, LlmError>> {
        Box::pin(async move {
            let body = request_body(self.kind, &self.model, request)?;
            self.transport
                .post(&self.headers, &body, parse_response)
                .await
        })
    }
}

/// The JSON body for one call. OpenAI itself wants `max_completion_tokens`
/// (its o-series refuse `max_tokens`); local servers know `max_tokens`.
pub fn request_body(kind: ProviderKind, model: &str, request: &Request) -> Result<Value, LlmError> {
    let mut messages = Vec::new();
    if !request.system.trim().is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    messages.extend(format_messages(request));
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        body.insert("tools".into(), Value::Array(format_tools(&request.tools)?));
        if let Some(choice) = tool_choice(kind) {
            body.insert("tool_choice".into(), json!(choice));
        }
    }
    let limit = match kind {
        ProviderKind::OpenAi => "max_completion_tokens",
        _ => "max_tokens",
    };
    body.insert(limit.into(), json!(request.max_tokens));
    Ok(Value::Object(body))
}

/// `tool_choice: "required"` where the server honours it: every turn must
/// be a tool call (finishing is one too). Ollama's OpenAI endpoint does
/// not take it, so it is not sent there; a call written as text is read
/// from the reply instead (`textcall.rs`).
pub fn tool_choice(kind: ProviderKind) -> Option<&'static str> {
    match kind {
        ProviderKind::OpenAi
        | ProviderKind::Vllm
        | ProviderKind::LlamaCpp
        | ProviderKind::LmStudio => Some("required"),
        ProviderKind::Ollama | ProviderKind::Anthropic => None,
    }
}

pub fn format_tools(specs: &[ToolSpec]) -> Result<Vec<Value>, LlmError> {
    Ok(tools::prepared(specs)?
        .into_iter()
        .map(|(tool, schema)| {
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            if !tool.description.is_empty() {
                function.insert("description".into(), json!(tool.description));
            }
            function.insert("parameters".into(), schema);
            json!({"type": "function", "function": function})
        })
        .collect())
}

/// Says what the image in a user message of its own is, since it arrives
/// apart from the tool result it goes with.
pub const SCREENSHOT_LABEL: &str = "Screenshot of the page:";

fn format_messages(request: &Request) -> Vec<Value> {
    let mut out = Vec::new();
    for turn in turns(&request.messages) {
        match turn {
            Turn::User {
                results,
                images,
                texts,
            } => {
                // `tool` messages carry no error flag; the agent's result
                // text already says when a call failed.
                out.extend(results.into_iter().map(|reply| {
                    json!({"role": "tool", "tool_call_id": reply.call_id, "content": reply.content})
                }));
                // `tool` messages carry text only, so a picture goes in a
                // user message of its own right after them.
                if !images.is_empty() {
                    let mut parts = vec![json!({"type": "text", "text": SCREENSHOT_LABEL})];
                    parts.extend(images.into_iter().map(|image| {
                        json!({
                            "type": "image_url",
                            "image_url": {
                                "url": format!("data:{};base64,{}", image.media_type, image.data_base64),
                            },
                        })
                    }));
                    out.push(json!({"role": "user", "content": parts}));
                }
                out.extend(
                    texts
                        .into_iter()
                        .map(|text| json!({"role": "user", "content": text})),
                );
            }
            Turn::Assistant { text, calls } => {
                let mut message = json!({"role": "assistant", "content": text});
                if !calls.is_empty() {
                    message["tool_calls"] = calls.into_iter().map(replayed_call).collect();
                }
                out.push(message);
            }
        }
    }
    out
}

/// Unreadable arguments are replayed as `{}`: local servers parse them to
/// render their chat template and would refuse the whole request, and the
/// tool result already tells the model what it sent.
fn replayed_call(call: &ToolCall) -> Value {
    let arguments = match &call.arguments {
        Ok(value) => value.to_string(),
        Err(_) => "{}".to_owned(),
    };
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    })
}

/// Reads a Chat Completions response, forgiving the ways compatible servers
/// differ from OpenAI (arguments as an object, missing ids, no usage).
pub fn parse_response(body: &Value) -> Result<Completion, String> {
    let choice = body["choices"]
        .get(0)
        .ok_or_else(|| format!("no `choices` in {}", excerpt(body)))?;
    let message = &choice["message"];
    let text = message_text(&message["content"])
        .or_else(|| message["refusal"].as_str().map(str::to_owned))
        .filter(|text| !text.is_empty());
    let tool_calls = message["tool_calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .map(|(i, call)| tool_call(i, call))
                .collect()
        })
        .unwrap_or_default();
    let usage = &body["usage"];
    Ok(Completion {
        text,
        tool_calls,
        usage: Usage {
            input_tokens: usage["prompt_tokens"].as_u64().unwrap_or(0),
            output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
            // OpenAI caches prefixes of 1,024 tokens and more by itself.
            cache_read_tokens: usage["prompt_tokens_details"]["cached_tokens"]
                .as_u64()
                .unwrap_or(0),
            cache_write_tokens: 0,
        },
        stop_reason: choice["finish_reason"].as_str().map(str::to_owned),
    })
}

/// `content` is a string, or (on some servers) a list of text parts.
fn message_text(content: &Value) -> Option<String> {
    match content {
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

fn tool_call(index: usize, call: &Value) -> ToolCall {
    let function = &call["function"];
    ToolCall {
        id: call["id"]
            .as_str()
            .filter(|id| !id.is_empty())
            .map_or_else(|| generated_id(index), str::to_owned),
        name: function["name"].as_str().unwrap_or_default().to_owned(),
        arguments: arguments(&function["arguments"]),
    }
}

/// Ids must be unique across the history for the results to pair up, and
/// some local servers send none.
fn generated_id(index: usize) -> String {
    format!("call_{index}_{:016x}", fastrand::u64(..))
}

fn arguments(raw: &Value) -> Result<Value, InvalidArguments> {
    let not_object = |raw: String| InvalidArguments {
        raw,
        error: "arguments are not a JSON object".to_owned(),
    };
    match raw {
        // A tool without parameters is often called with "" or nothing.
        Value::Null => Ok(json!({})),
        Value::String(text) if text.trim().is_empty() => Ok(json!({})),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(_) => Err(not_object(text.clone())),
            Err(e) => Err(InvalidArguments {
                raw: text.clone(),
                error: e.to_string(),
            }),
        },
        Value::Object(_) => Ok(raw.clone()),
        other => Err(not_object(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use crate::llm::Message;
    use crate::llm::conversation::NOT_EXECUTED;
    use crate::llm::conversation::tests::{assistant, call, image, result};

    fn request(messages: Vec<Message>, tools: Vec<ToolSpec>) -> Request {
        Request {
            system: "be careful".into(),
            messages,
            tools,
            max_tokens: 512,
            cache_history: true,
        }
    }

    #[test]
    fn body_shape() {
        let tools = vec![
            ToolSpec {
                name: "browser_click".into(),
                description: "Click".into(),
                input_schema: json!({"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]}),
            },
            ToolSpec {
                name: "browser_snapshot".into(),
                description: String::new(),
                input_schema: json!({}),
            },
        ];
        let body = request_body(
            ProviderKind::OpenAi,
            "gpt-4o",
            &request(vec![Message::User("goal".into())], tools),
        )
        .unwrap();
        assert_eq!(
            body,
            json!({
                "model": "gpt-4o",
                "messages": [
                    {"role": "system", "content": "be careful"},
                    {"role": "user", "content": "goal"},
                ],
                "tools": [
                    {"type": "function", "function": {
                        "name": "browser_click",
                        "description": "Click",
                        "parameters": {"type": "object", "properties": {"target": {"type": "string"}}, "required": ["target"]},
                    }},
                    {"type": "function", "function": {
                        "name": "browser_snapshot",
                        "parameters": {"type": "object", "properties": {}},
                    }},
                ],
                "tool_choice": "required",
                "max_completion_tokens": 512,
            })
        );
        let local = request_body(ProviderKind::Ollama, "qwen", &request(vec![], vec![])).unwrap();
        assert_eq!(local["max_tokens"], json!(512));
        assert!(local.get("max_completion_tokens").is_none() && local.get("tools").is_none());
    }

    #[test]
    fn tool_choice_goes_only_where_the_server_takes_it() {
        let tools = vec![ToolSpec {
            name: "browser_click".into(),
            description: "Click".into(),
            input_schema: json!({"type": "object"}),
        }];
        let cases = [
            (ProviderKind::OpenAi, Some("required")),
            (ProviderKind::Vllm, Some("required")),
            (ProviderKind::LlamaCpp, Some("required")),
            (ProviderKind::LmStudio, Some("required")),
            (ProviderKind::Ollama, None),
        ];
        for (kind, want) in cases {
            let body = request_body(kind, "m", &request(vec![], tools.clone())).unwrap();
            assert_eq!(
                body.get("tool_choice").and_then(Value::as_str),
                want,
                "{kind:?}"
            );
        }
        let none = request_body(ProviderKind::OpenAi, "m", &request(vec![], vec![])).unwrap();
        assert!(none.get("tool_choice").is_none(), "no tools, no choice");
    }

    #[test]
    fn tool_messages_follow_the_assistant_then_user_text() {
        let mut args = call("c1", "click");
        args.arguments = Ok(json!({"target": "e4"}));
        let mut bad = call("c2", "type");
        bad.arguments = Err(InvalidArguments {
            raw: "{oops".into(),
            error: "e".into(),
        });
        let messages = vec![
            Message::User("goal".into()),
            assistant(None, vec![args, call("c9", "extra")]),
            result("c1", "clicked"),
            Message::User("Call a tool or complete_task".into()),
            assistant(Some("retrying"), vec![bad]),
            result("c2", "invalid arguments"),
        ];
        let body =
            request_body(ProviderKind::OpenAi, "gpt-4o", &request(messages, vec![])).unwrap();
        assert_eq!(
            body["messages"],
            json!([
                {"role": "system", "content": "be careful"},
                {"role": "user", "content": "goal"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "click", "arguments": "{\"target\":\"e4\"}"}},
                    {"id": "c9", "type": "function", "function": {"name": "extra", "arguments": "{}"}},
                ]},
                {"role": "tool", "tool_call_id": "c1", "content": "clicked"},
                {"role": "tool", "tool_call_id": "c9", "content": NOT_EXECUTED},
                {"role": "user", "content": "Call a tool or complete_task"},
                {"role": "assistant", "content": "retrying", "tool_calls": [
                    {"id": "c2", "type": "function", "function": {"name": "type", "arguments": "{}"}},
                ]},
                {"role": "tool", "tool_call_id": "c2", "content": "invalid arguments"},
            ])
        );
    }

    #[test]
    fn parses_the_documented_response() {
        let body = json!({
            "id": "chatcmpl-abc123",
            "object": "chat.completion",
            "created": 1_741_569_952,
            "model": "gpt-4o-2024-08-06",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [
                        {"id": "call_abc", "type": "function", "function": {"name": "browser_click", "arguments": "{\"target\":\"e4\"}"}},
                        {"id": "call_def", "type": "function", "function": {"name": "browser_type", "arguments": "{\"text\": "}},
                        {"type": "function", "function": {"name": "browser_snapshot", "arguments": ""}},
                        {"id": "call_obj", "type": "function", "function": {"name": "x", "arguments": {"a": 1}}},
                        {"id": "call_arr", "type": "function", "function": {"name": "y", "arguments": "[1]"}},
                    ],
                    "refusal": null,
                },
                "logprobs": null,
                "finish_reason": "tool_calls",
            }],
            "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99,
                      "prompt_tokens_details": {"cached_tokens": 64}},
        });
        let completion = parse_response(&body).unwrap();
        assert_eq!(completion.text, None);
        assert_eq!(completion.stop_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            completion.usage,
            Usage {
                input_tokens: 82,
                output_tokens: 17,
                cache_read_tokens: 64,
                cache_write_tokens: 0,
            }
        );
        let calls = &completion.tool_calls;
        assert_eq!(calls[0].arguments, Ok(json!({"target": "e4"})));
        assert_eq!(calls[1].arguments.as_ref().unwrap_err().raw, "{\"text\": ");
        assert!(calls[2].id.starts_with("call_2_"));
        assert_eq!(calls[2].arguments, Ok(json!({})));
        assert_eq!(calls[3].arguments, Ok(json!({"a": 1})));
        assert_eq!(calls[4].arguments.as_ref().unwrap_err().raw, "[1]");
    }

    #[test]
    fn text_only_and_malformed() {
        let completion = parse_response(&json!({
            "choices": [{"message": {"role": "assistant", "content": "All done."}, "finish_reason": "stop"}],
        }))
        .unwrap();
        assert_eq!(completion.text.as_deref(), Some("All done."));
        assert!(completion.tool_calls.is_empty());
        assert_eq!(completion.usage, Usage::default());
        assert!(parse_response(&json!({"choices": []})).is_err());
        assert!(parse_response(&json!({"error": "x"})).is_err());
    }

    #[test]
    fn images_go_in_a_user_message_after_the_tool_messages_table() {
        let picture = json!({"role": "user", "content": [
            {"type": "text", "text": "Screenshot of the page:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        ]});
        let cases: Vec<(&str, Vec<Message>, Value)> = vec![
            (
                "first page",
                vec![Message::User("goal".into()), image("iVBORw0KGgo=")],
                json!([picture.clone(), {"role": "user", "content": "goal"}]),
            ),
            (
                "after a tool result, unanswered calls included",
                vec![
                    Message::User("goal".into()),
                    assistant(None, vec![call("c1", "browser_click"), call("c9", "extra")]),
                    result("c1", "clicked"),
                    image("iVBORw0KGgo="),
                ],
                json!([
                    {"role": "user", "content": "goal"},
                    {"role": "assistant", "content": null, "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "browser_click", "arguments": "{}"}},
                        {"id": "c9", "type": "function", "function": {"name": "extra", "arguments": "{}"}},
                    ]},
                    {"role": "tool", "tool_call_id": "c1", "content": "clicked"},
                    {"role": "tool", "tool_call_id": "c9", "content": NOT_EXECUTED},
                    picture.clone(),
                ]),
            ),
        ];
        for (name, messages, want) in cases {
            let mut req = request(messages, vec![]);
            req.system.clear();
            let body = request_body(ProviderKind::OpenAi, "gpt-4o", &req).unwrap();
            assert_eq!(body["messages"], want, "{name}");
        }
    }
}
