//! The Anthropic Messages API (`POST {base}/v1/messages`): tools with
//! `input_schema`, `tool_use` blocks from the assistant, `tool_result` blocks
//! in the user turn after it, `stop_reason` and `usage` on the way back.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value, json};

use super::conversation::{Turn, turns};
use super::excerpt;
use super::transport::Transport;
use super::{
    ANTHROPIC_VERSION, BoxFuture, Completion, InvalidArguments, LlmError, Provider, ProviderKind,
    Request, ToolCall, ToolSpec, Usage, tools,
};

pub struct AnthropicProvider {
    model: String,
    transport: Transport,
    headers: HeaderMap,
}

impl AnthropicProvider {
    pub(crate) fn new(model: &str, transport: Transport) -> Result<AnthropicProvider, LlmError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(ANTHROPIC_VERSION),
        );
        if let Some(key) = transport.key() {
            headers.insert(
                HeaderName::from_static("x-api-key"),
                transport.secret_header(key.expose())?,
            );
        }
        Ok(AnthropicProvider {
            model: model.to_owned(),
            transport,
            headers,
        })
    }
}

impl Provider for AnthropicProvider {
    fn name(&self) -> &str {
        ProviderKind::Anthropic.as_str()
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Completion, LlmError>> {
        Box::pin(async move {
            let body = request_body(&self.model, request)?;
            self.transport
                .post(&self.headers, &body, parse_response)
                .await
        })
    }
}

/// The JSON body for one call.
pub fn request_body(model: &str, request: &Request) -> Result<Value, LlmError> {
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("max_tokens".into(), json!(request.max_tokens));
    // Three of the four cache breakpoints the API allows: the tools, the
    // system prompt (together the static prefix, byte-identical across
    // turns and runs), and the conversation up to its newest tool result,
    // so that each turn reads the last one's prefix from the cache instead
    // of paying for it again. What follows that result (the page as it is
    // now, sent apart by the compact toolset) changes every turn: a
    // breakpoint after it would write a prefix no later turn reads. When
    // older turns are summarised afresh each request (compact), the
    // conversation is new every time and only the static prefix is marked.
    if !request.system.trim().is_empty() {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": request.system, "cache_control": EPHEMERAL}]),
        );
    }
    let mut messages = format_messages(request);
    if request.cache_history
        && let Some(block) = messages
            .iter_mut()
            .rev()
            .filter_map(|m| m["content"].as_array_mut())
            .flat_map(|blocks| blocks.iter_mut().rev())
            .find(|block| block["type"] == "tool_result")
    {
        block["cache_control"] = json!(EPHEMERAL);
    }
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let mut tools = format_tools(&request.tools)?;
        if let Some(last) = tools.last_mut() {
            last["cache_control"] = json!(EPHEMERAL);
        }
        body.insert("tools".into(), Value::Array(tools));
    }
    Ok(Value::Object(body))
}

/// Anthropic's five-minute prompt cache, the only kind there is.
const EPHEMERAL: CacheControl = CacheControl { kind: "ephemeral" };

#[derive(serde::Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

pub fn format_tools(specs: &[ToolSpec]) -> Result<Vec<Value>, LlmError> {
    Ok(tools::prepared(specs)?
        .into_iter()
        .map(|(tool, schema)| {
            let mut out = Map::new();
            out.insert("name".into(), json!(tool.name));
            if !tool.description.is_empty() {
                out.insert("description".into(), json!(tool.description));
            }
            out.insert("input_schema".into(), schema);
            Value::Object(out)
        })
        .collect())
}

fn format_messages(request: &Request) -> Vec<Value> {
    turns(&request.messages)
        .into_iter()
        .map(|turn| match turn {
            Turn::User {
                results,
                images,
                texts,
            } => {
                let results = results.into_iter().map(|reply| {
                    let mut block = json!({
                        "type": "tool_result",
                        "tool_use_id": reply.call_id,
                        "content": reply.content,
                    });
                    if reply.is_error {
                        block["is_error"] = json!(true);
                    }
                    block
                });
                let images = images.into_iter().map(|image| {
                    json!({
                        "type": "image",
                        "source": {
                            "type": "base64",
                            "media_type": image.media_type,
                            "data": image.data_base64,
                        },
                    })
                });
                let texts = texts.into_iter().map(|text| json!({"type": "text", "text": text}));
                let content: Vec<Value> = results.chain(images).chain(texts).collect();
                json!({"role": "user", "content": content})
            }
            Turn::Assistant { text, calls } => {
                let text = text.map(|text| json!({"type": "text", "text": text}));
                let calls = calls.into_iter().map(|call| {
                    json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        "input": replayed_input(call),
                    })
                });
                json!({"role": "assistant", "content": text.into_iter().chain(calls).collect::<Vec<_>>()})
            }
        })
        .collect()
}

/// `input` must be an object; a call whose arguments could not be read is
/// replayed with none, and its tool result says what went wrong.
fn replayed_input(call: &ToolCall) -> Value {
    match &call.arguments {
        Ok(value @ Value::Object(_)) => value.clone(),
        _ => json!({}),
    }
}

/// Reads a Messages API response. Unknown block types (thinking, server
/// tools) are skipped rather than refused.
pub fn parse_response(body: &Value) -> Result<Completion, String> {
    let blocks = body["content"]
        .as_array()
        .ok_or_else(|| format!("no `content` array in {}", excerpt(body)))?;
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        match block["type"].as_str() {
            Some("text") => {
                if let Some(text) = block["text"].as_str().filter(|t| !t.is_empty()) {
                    texts.push(text);
                }
            }
            Some("tool_use") => tool_calls.push(ToolCall {
                id: block["id"]
                    .as_str()
                    .filter(|id| !id.is_empty())
                    .map_or_else(|| format!("toolu_missing_{index}"), str::to_owned),
                name: block["name"].as_str().unwrap_or_default().to_owned(),
                arguments: input_arguments(&block["input"]),
            }),
            _ => {}
        }
    }
    let usage = &body["usage"];
    let tokens = |field: &str| usage[field].as_u64().unwrap_or(0);
    Ok(Completion {
        text: (!texts.is_empty()).then(|| texts.join("\n")),
        tool_calls,
        usage: Usage {
            input_tokens: tokens("input_tokens")
                .saturating_add(tokens("cache_creation_input_tokens"))
                .saturating_add(tokens("cache_read_input_tokens")),
            output_tokens: tokens("output_tokens"),
            cache_read_tokens: tokens("cache_read_input_tokens"),
            cache_write_tokens: tokens("cache_creation_input_tokens"),
        },
        stop_reason: body["stop_reason"].as_str().map(str::to_owned),
    })
}

/// The API sends an object. Proxies and imitations have been seen sending a
/// JSON string instead; that is read if it holds an object.
fn input_arguments(input: &Value) -> Result<Value, InvalidArguments> {
    match input {
        Value::Object(_) => Ok(input.clone()),
        Value::Null => Ok(json!({})),
        Value::String(raw) => match serde_json::from_str::<Value>(raw) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(_) => Err(InvalidArguments {
                raw: raw.clone(),
                error: "tool input is not a JSON object".to_owned(),
            }),
            Err(e) => Err(InvalidArguments {
                raw: raw.clone(),
                error: e.to_string(),
            }),
        },
        other => Err(InvalidArguments {
            raw: other.to_string(),
            error: "tool input is not a JSON object".to_owned(),
        }),
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
            max_tokens: 1024,
            cache_history: true,
        }
    }

    #[test]
    fn body_shape() {
        let tools = vec![ToolSpec {
            name: "browser_click".into(),
            description: "Click".into(),
            input_schema: json!({"type": "object", "properties": {"target": {"type": "string"}}}),
        }];
        let body = request_body(
            "claude-opus-4-6",
            &request(vec![Message::User("goal".into())], tools),
        )
        .unwrap();
        assert_eq!(
            body,
            json!({
                "model": "claude-opus-4-6",
                "max_tokens": 1024,
                "system": [{"type": "text", "text": "be careful", "cache_control": {"type": "ephemeral"}}],
                // No tool result yet: nothing of the conversation is cached.
                "messages": [{"role": "user", "content": [
                    {"type": "text", "text": "goal"},
                ]}],
                "tools": [{
                    "name": "browser_click",
                    "description": "Click",
                    "input_schema": {"type": "object", "properties": {"target": {"type": "string"}}},
                    "cache_control": {"type": "ephemeral"},
                }],
            })
        );
    }

    #[test]
    fn no_tools_no_system_means_neither_key() {
        let mut req = request(vec![Message::User("hi".into())], vec![]);
        req.system.clear();
        let body = request_body("m", &req).unwrap();
        assert!(body.get("tools").is_none() && body.get("system").is_none());
    }

    #[test]
    fn tool_results_sit_in_the_user_turn_before_any_text() {
        let mut bad_args = call("c2", "type");
        bad_args.arguments = Err(InvalidArguments {
            raw: "{oops".into(),
            error: "e".into(),
        });
        let messages = vec![
            Message::User("goal".into()),
            assistant(
                Some("I'll look"),
                vec![call("c1", "snapshot"), call("c9", "extra")],
            ),
            result("c1", "page"),
            Message::User("Call a tool or complete_task".into()),
            assistant(None, vec![bad_args]),
            Message::ToolResult {
                call_id: "c2".into(),
                content: "invalid arguments".into(),
                is_error: true,
            },
        ];
        let body = request_body("m", &request(messages, vec![])).unwrap();
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "goal"}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "I'll look"},
                    {"type": "tool_use", "id": "c1", "name": "snapshot", "input": {}},
                    {"type": "tool_use", "id": "c9", "name": "extra", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "page"},
                    {"type": "tool_result", "tool_use_id": "c9", "content": NOT_EXECUTED, "is_error": true},
                    {"type": "text", "text": "Call a tool or complete_task"},
                ]},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "type", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c2", "content": "invalid arguments", "is_error": true,
                     "cache_control": {"type": "ephemeral"}},
                ]},
            ])
        );
    }

    #[test]
    fn the_conversation_is_cached_up_to_the_newest_result_not_the_page_after_it() {
        let messages = vec![
            Message::User("goal".into()),
            assistant(None, vec![call("c1", "click")]),
            result("c1", "stub"),
            Message::User("Page now: …".into()),
        ];
        let mut request = request(messages, vec![]);
        let body = request_body("m", &request).unwrap();
        assert_eq!(
            body["messages"][2]["content"],
            json!([
                {"type": "tool_result", "tool_use_id": "c1", "content": "stub",
                 "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "Page now: …"},
            ])
        );
        // A conversation summed up afresh each request (compact) is new
        // every time: only the static prefix is marked.
        request.cache_history = false;
        let body = request_body("m", &request).unwrap();
        assert!(
            !body["messages"].to_string().contains("cache_control"),
            "{body}"
        );
        assert_eq!(
            body["system"][0]["cache_control"],
            json!({"type": "ephemeral"})
        );
    }

    #[test]
    fn parses_the_documented_response() {
        let body = json!({
            "id": "msg_01Aq9w938a90dw8q",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [
                {"type": "thinking", "thinking": "hmm", "signature": "x"},
                {"type": "text", "text": "I'll click it."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "browser_click", "input": {"target": "e4"}},
                {"type": "tool_use", "id": "toolu_02", "name": "nope", "input": "{not json"},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": null,
            "usage": {"input_tokens": 100, "cache_creation_input_tokens": 20, "cache_read_input_tokens": 3, "output_tokens": 40},
        });
        let completion = parse_response(&body).unwrap();
        assert_eq!(completion.text.as_deref(), Some("I'll click it."));
        assert_eq!(completion.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(
            completion.usage,
            Usage {
                input_tokens: 123,
                output_tokens: 40,
                cache_read_tokens: 3,
                cache_write_tokens: 20,
            }
        );
        assert_eq!(
            completion.tool_calls[0].arguments,
            Ok(json!({"target": "e4"}))
        );
        assert_eq!(completion.tool_calls[1].name, "nope");
        let err = completion.tool_calls[1].arguments.clone().unwrap_err();
        assert_eq!(err.raw, "{not json");
    }

    #[test]
    fn text_only_and_missing_content() {
        let completion = parse_response(&json!({
            "content": [{"type": "text", "text": "done"}],
            "stop_reason": "end_turn",
        }))
        .unwrap();
        assert_eq!(completion.text.as_deref(), Some("done"));
        assert!(completion.tool_calls.is_empty());
        assert_eq!(completion.usage, Usage::default());
        assert!(parse_response(&json!({"type": "error"})).is_err());
    }

    #[test]
    fn images_follow_the_tool_results_in_the_user_turn_table() {
        let png = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}});
        let cases: Vec<(&str, Vec<Message>, Value)> = vec![
            (
                "first page",
                vec![Message::User("goal".into()), image("iVBORw0KGgo=")],
                json!([{"role": "user", "content": [png.clone(), {"type": "text", "text": "goal"}]}]),
            ),
            (
                "after a tool result",
                vec![
                    Message::User("goal".into()),
                    assistant(None, vec![call("c1", "browser_click")]),
                    result("c1", "clicked"),
                    image("iVBORw0KGgo="),
                ],
                json!([
                    {"role": "user", "content": [{"type": "text", "text": "goal"}]},
                    {"role": "assistant", "content": [
                        {"type": "tool_use", "id": "c1", "name": "browser_click", "input": {}},
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "c1", "content": "clicked"},
                        png.clone(),
                    ]},
                ]),
            ),
            (
                "ahead of its result, the result still leads",
                vec![
                    Message::User("goal".into()),
                    assistant(None, vec![call("c1", "browser_click")]),
                    image("iVBORw0KGgo="),
                    result("c1", "clicked"),
                ],
                json!([
                    {"role": "user", "content": [{"type": "text", "text": "goal"}]},
                    {"role": "assistant", "content": [
                        {"type": "tool_use", "id": "c1", "name": "browser_click", "input": {}},
                    ]},
                    {"role": "user", "content": [
                        {"type": "tool_result", "tool_use_id": "c1", "content": "clicked"},
                        png.clone(),
                    ]},
                ]),
            ),
        ];
        for (name, messages, want) in cases {
            let messages = format_messages(&request(messages, vec![]));
            assert_eq!(Value::Array(messages), want, "{name}");
        }
    }
}
