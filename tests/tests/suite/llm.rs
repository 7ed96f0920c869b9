//! The model layer against the scripted model server, in both providers'
//! formats: what goes out (headers, tools, pairing over several turns), what
//! comes back (as data, whatever the model says), and failures (timeouts,
//! retries, replies cut off, rejected keys) without the key ever showing.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subterminator_core::ErrorClass;
use subterminator_core::llm::{
    ApiKey, Completion, LlmError, LlmSettings, Message, ModelChoice, NOT_EXECUTED, Provider,
    ProviderEnv, Request, ToolSpec, UNREADABLE_REPLY_RETRIES, Usage, connect,
};
use subterminator_tests::model_server::{Api, ModelServer, RecordedRequest, Reply};

const ANTHROPIC_KEY: &str = "sk-ant-api03-SECRET-anthropic-4f9c2e";
const OPENAI_KEY: &str = "sk-proj-SECRET-openai-8d1b7a";
const CLAUDE: &str = "claude-opus-4-6";
const GPT: &str = "gpt-4o";
const BOTH: [&str; 2] = [CLAUDE, GPT];

fn fast() -> LlmSettings {
    LlmSettings {
        timeout: Duration::from_secs(10),
        max_attempts: 3,
        backoff_base: Duration::from_millis(10),
        max_backoff: Duration::from_millis(40),
    }
}

fn env_for(server: &ModelServer) -> ProviderEnv {
    ProviderEnv {
        anthropic_api_key: Some(ApiKey::new(ANTHROPIC_KEY)),
        openai_api_key: Some(ApiKey::new(OPENAI_KEY)),
        anthropic_base_url: Some(server.anthropic_base_url()),
        openai_base_url: Some(server.openai_base_url()),
    }
}

fn provider(model: &str, server: &ModelServer, settings: &LlmSettings) -> Box<dyn Provider> {
    let choice = ModelChoice::resolve(Some(model), None, None).unwrap();
    connect(&choice, &env_for(server), settings).unwrap()
}

fn api_of(model: &str) -> Api {
    if model.starts_with("claude-") {
        Api::Anthropic
    } else {
        Api::OpenAi
    }
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "browser_click".into(),
            description: "Click an element".into(),
            input_schema: json!({
                "type": "object",
                "properties": {"target": {"type": "string", "description": "ref, e.g. e4"}},
                "required": ["target"],
            }),
        },
        ToolSpec {
            name: "browser_snapshot".into(),
            description: "Capture the page".into(),
            input_schema: json!({}),
        },
        ToolSpec {
            name: "complete_task".into(),
            description: "Finish".into(),
            input_schema: json!({
                "type": "object",
                "properties": {"status": {"type": "string", "enum": ["success", "failed"]}, "reason": {"type": "string"}},
                "required": ["status", "reason"],
            }),
        },
    ]
}

fn request(messages: Vec<Message>) -> Request {
    Request {
        system: "You cancel subscriptions.".into(),
        messages,
        tools: tools(),
        max_tokens: 1024,
        cache_history: true,
    }
}

fn goal() -> Vec<Message> {
    vec![Message::User(
        "Goal: cancel Netflix\n\nPage: https://netflix.test/account".into(),
    )]
}

async fn complete(provider: &dyn Provider, messages: Vec<Message>) -> Result<Completion, LlmError> {
    provider.complete(&request(messages)).await
}

#[tokio::test]
async fn requests_carry_each_providers_headers_and_tool_format() {
    let server = ModelServer::scripted(vec![Reply::text("ok"), Reply::text("ok")])
        .await
        .unwrap();
    for model in BOTH {
        complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap();
    }
    let requests = server.requests();
    let (anthropic, openai) = (&requests[0], &requests[1]);

    assert_eq!(anthropic.path, "/v1/messages");
    assert_eq!(anthropic.header("x-api-key"), Some(ANTHROPIC_KEY));
    assert_eq!(anthropic.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(anthropic.header("content-type"), Some("application/json"));
    assert_eq!(anthropic.header("authorization"), None);
    assert_eq!(anthropic.model(), Some(CLAUDE));
    assert_eq!(anthropic.body["max_tokens"], json!(1024));
    assert_eq!(
        anthropic.system().as_deref(),
        Some("You cancel subscriptions.")
    );
    assert_eq!(
        anthropic.body["tools"][1],
        json!({"name": "browser_snapshot", "description": "Capture the page", "input_schema": {"type": "object", "properties": {}}})
    );
    assert_eq!(
        anthropic.body["tools"][0]["input_schema"]["required"],
        json!(["target"])
    );
    assert_eq!(
        anthropic.tool_names(),
        ["browser_click", "browser_snapshot", "complete_task"]
    );

    assert_eq!(openai.path, "/v1/chat/completions");
    assert_eq!(
        openai.header("authorization"),
        Some(format!("Bearer {OPENAI_KEY}").as_str())
    );
    assert_eq!(openai.header("x-api-key"), None);
    assert_eq!(openai.header("anthropic-version"), None);
    assert_eq!(openai.model(), Some(GPT));
    assert_eq!(openai.body["max_completion_tokens"], json!(1024));
    assert_eq!(
        openai.messages()[0],
        json!({"role": "system", "content": "You cancel subscriptions."})
    );
    assert_eq!(
        openai.body["tools"][1],
        json!({"type": "function", "function": {"name": "browser_snapshot", "description": "Capture the page", "parameters": {"type": "object", "properties": {}}}})
    );
    assert_eq!(
        openai.tool_names(),
        ["browser_click", "browser_snapshot", "complete_task"]
    );
}

/// Anthropic: turns alternate from a user turn; each assistant's `tool_use`
/// ids are answered by the `tool_result` blocks leading the next user turn.
fn assert_anthropic_pairing(request: &RecordedRequest) {
    let messages = request.messages();
    for (i, message) in messages.iter().enumerate() {
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        assert_eq!(message["role"], expected, "turn {i} in {messages:#?}");
        let blocks = message["content"].as_array().unwrap();
        assert!(!blocks.is_empty(), "turn {i} is empty");
        if expected == "assistant" {
            let calls: BTreeSet<&str> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .map(|b| b["id"].as_str().unwrap())
                .collect();
            let next = messages
                .get(i + 1)
                .map_or(&[][..], |m| m["content"].as_array().unwrap().as_slice());
            let leading: Vec<&Value> = next
                .iter()
                .take_while(|b| b["type"] == "tool_result")
                .collect();
            let answered: BTreeSet<&str> = leading
                .iter()
                .map(|b| b["tool_use_id"].as_str().unwrap())
                .collect();
            assert_eq!(answered, calls, "results after turn {i}");
            assert!(
                next.iter()
                    .skip(leading.len())
                    .all(|b| b["type"] != "tool_result"),
                "a tool_result follows text in turn {}",
                i + 1
            );
        }
    }
}

/// OpenAI: each assistant with `tool_calls` is followed directly by one
/// `tool` message per call id, and no `tool` message appears elsewhere.
fn assert_openai_pairing(request: &RecordedRequest) {
    let messages = request.messages();
    assert_eq!(messages[0]["role"], "system");
    let mut i = 1;
    while i < messages.len() {
        let message = &messages[i];
        assert_ne!(
            message["role"], "tool",
            "stray tool message {i} in {messages:#?}"
        );
        i += 1;
        if message["role"] == "assistant"
            && let Some(calls) = message["tool_calls"].as_array()
        {
            let ids: BTreeSet<&str> = calls.iter().map(|c| c["id"].as_str().unwrap()).collect();
            let mut answered = BTreeSet::new();
            while i < messages.len() && messages[i]["role"] == "tool" {
                answered.insert(messages[i]["tool_call_id"].as_str().unwrap());
                i += 1;
            }
            assert_eq!(answered, ids, "results after message {}", i);
            for call in calls {
                let arguments = call["function"]["arguments"].as_str().unwrap();
                serde_json::from_str::<Value>(arguments).unwrap();
            }
        }
    }
}

/// The agent's loop in miniature: run the first call only, append its
/// result, and nudge with a user line when told to.
fn append_turn(history: &mut Vec<Message>, completion: &Completion, result: &str, nudge: bool) {
    history.push(Message::Assistant {
        text: completion.text.clone(),
        tool_calls: completion.tool_calls.clone(),
    });
    if let Some(first) = completion.tool_calls.first() {
        history.push(Message::ToolResult {
            call_id: first.id.clone(),
            content: result.to_owned(),
            is_error: false,
        });
    }
    if nudge {
        history.push(Message::User("Call a tool or complete_task".into()));
    }
}

#[tokio::test]
async fn history_keeps_each_providers_pairing_across_several_turns() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![
            Reply::tool("browser_snapshot", json!({})),
            Reply::ToolCalls(vec![
                ("browser_click".into(), json!({"target": "e4"})),
                ("browser_click".into(), json!({"target": "e9"})),
            ]),
            Reply::text("Thinking about it."),
            Reply::ToolCallRawArgs("browser_click".into(), "{\"target\": ".into()),
            Reply::tool(
                "complete_task",
                json!({"status": "success", "reason": "done"}),
            ),
        ])
        .await
        .unwrap();
        let provider = provider(model, &server, &fast());
        let mut history = goal();
        let results = [
            "snapshot: [ref=e4] Cancel",
            "clicked e4",
            "",
            "invalid arguments",
            "",
        ];
        for (turn, result) in results.iter().enumerate() {
            let completion = complete(provider.as_ref(), history.clone()).await.unwrap();
            // A text-only turn and the turn after the double call get a nudge.
            append_turn(&mut history, &completion, result, turn == 1 || turn == 2);
        }
        let requests = server.requests();
        assert_eq!(requests.len(), 5);
        for request in &requests {
            assert_eq!(request.api, api_of(model));
            match request.api {
                Api::Anthropic => assert_anthropic_pairing(request),
                Api::OpenAi => assert_openai_pairing(request),
            }
        }
        let third = &requests[2];
        assert_eq!(third.latest_tool_result().as_deref(), Some("clicked e4"));
        assert_eq!(
            third.latest_user_text().as_deref(),
            Some("Call a tool or complete_task")
        );
        assert_eq!(
            third.latest_input().as_deref(),
            Some("Call a tool or complete_task")
        );
        // The second click was never run; the model is told so.
        let results = third.tool_results();
        assert_eq!(results.len(), 3, "{results:?}");
        assert_eq!(results[1].1, "clicked e4");
        assert_eq!(results[2].1, NOT_EXECUTED);
        let last = &requests[4];
        assert_eq!(
            last.latest_tool_result().as_deref(),
            Some("invalid arguments")
        );
        assert_eq!(last.latest_input().as_deref(), Some("invalid arguments"));
        assert_eq!(last.messages().len(), if model == CLAUDE { 9 } else { 12 });
    }
}

#[tokio::test]
async fn a_slow_model_times_out_without_retrying() {
    let settings = LlmSettings {
        timeout: Duration::from_millis(300),
        ..fast()
    };
    for model in BOTH {
        let server = ModelServer::scripted(vec![Reply::delayed(
            Duration::from_secs(5),
            Reply::text("late"),
        )])
        .await
        .unwrap();
        let started = Instant::now();
        let err = complete(provider(model, &server, &settings).as_ref(), goal())
            .await
            .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert!(matches!(err, LlmError::Timeout { .. }), "{err:?}");
        assert!(err.to_string().contains("timed out after 0.3s"), "{err}");
        assert_eq!(err.class(), ErrorClass::Connection);
        assert_eq!(server.request_count(), 1);
    }
}

#[tokio::test]
async fn rate_limit_then_success_honours_retry_after() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![
            Reply::Status {
                code: 429,
                body: "Rate limited".into(),
                retry_after: Some(1),
            },
            Reply::tool("browser_snapshot", json!({})),
        ])
        .await
        .unwrap();
        let started = Instant::now();
        let completion = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap();
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(completion.tool_calls[0].name, "browser_snapshot");
        assert_eq!(server.request_count(), 2);
    }
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_fails_now() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![Reply::Status {
            code: 429,
            body: "Rate limited".into(),
            retry_after: Some(3600),
        }])
        .await
        .unwrap();
        let err = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                LlmError::Unavailable {
                    status: 429,
                    attempts: 1,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("retry after 3600s"), "{err}");
        assert_eq!(server.request_count(), 1);
    }
}

#[tokio::test]
async fn five_hundred_three_times_gives_up_after_three_attempts() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![
            Reply::status(500, "Internal server error"),
            Reply::status(503, "Service unavailable"),
            Reply::status(500, "Internal server error"),
            Reply::text("never reached"),
        ])
        .await
        .unwrap();
        let err = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                LlmError::Unavailable {
                    status: 500,
                    attempts: 3,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("Internal server error"), "{err}");
        assert_eq!(err.class(), ErrorClass::Connection);
        assert_eq!(server.request_count(), 3);
    }
}

/// The ways a 200 can fail to be read, each built for one provider's key
/// (so a server echoing it can be caught).
type Broken = fn(&str) -> Reply;

const BROKEN_REPLIES: [(&str, Broken); 5] = [
    ("JSON cut off mid-body", |_| {
        Reply::truncated(Reply::text("fine"))
    }),
    ("connection dropped mid-body", |_| {
        Reply::dropped(Reply::text("fine"))
    }),
    ("not JSON", |_| {
        Reply::body("<html><body>502 Bad Gateway</body></html>")
    }),
    ("JSON in neither format", |_| {
        Reply::body(r#"{"result": "ok"}"#)
    }),
    ("neither format, echoing the key", |key| {
        Reply::body(&format!(r#"{{"echo": "{key}"}}"#))
    }),
];

fn key_of(model: &str) -> &'static str {
    if model == CLAUDE {
        ANTHROPIC_KEY
    } else {
        OPENAI_KEY
    }
}

/// The URL a model's requests go to, as errors show it.
fn endpoint(model: &str, server: &ModelServer) -> String {
    if model == CLAUDE {
        format!("{}/v1/messages", server.anthropic_base_url())
    } else {
        format!("{}/chat/completions", server.openai_base_url())
    }
}

#[tokio::test]
async fn an_unreadable_reply_is_retried_once_table() {
    // A second broken reply ends the call: the third reply is never asked for.
    let tries = 1 + UNREADABLE_REPLY_RETRIES as usize;
    assert_eq!(tries, 2);
    for model in BOTH {
        for (name, broken) in BROKEN_REPLIES {
            let broken = || broken(key_of(model));
            let case = format!("{model}, {name}");

            let server = ModelServer::scripted(vec![broken(), Reply::text("fine")])
                .await
                .unwrap();
            let completion = complete(provider(model, &server, &fast()).as_ref(), goal())
                .await
                .unwrap_or_else(|err| panic!("{case}: {err}"));
            assert_eq!(completion.text.as_deref(), Some("fine"), "{case}");
            assert_eq!(server.request_count(), tries, "{case}");

            let server = ModelServer::scripted(vec![broken(), broken(), Reply::text("fine")])
                .await
                .unwrap();
            let err = complete(provider(model, &server, &fast()).as_ref(), goal())
                .await
                .unwrap_err();
            assert!(
                matches!(err, LlmError::UnreadableReply { attempts: 2, .. }),
                "{case}: {err:?}"
            );
            assert_eq!(server.request_count(), tries, "{case}");
            assert_eq!(err.class(), ErrorClass::Connection, "{case}");
            let shown = err.to_string();
            assert!(
                shown.contains("sent a reply that was cut off or not in its format (2 attempts)"),
                "{case}: {shown}"
            );
            assert!(
                shown.ends_with(&format!(
                    "Check the server at {} (base URL: --base-url, base-url in the config file, \
                     or {}) or try again.",
                    endpoint(model, &server),
                    if model == CLAUDE {
                        "ANTHROPIC_BASE_URL"
                    } else {
                        "OPENAI_BASE_URL"
                    }
                )),
                "{case}: {shown}"
            );
            assert_no_key(&err);
        }
    }
}

/// How a call ends.
#[derive(Debug, Clone, Copy)]
enum Outcome {
    Answer,
    Unavailable { attempts: u32 },
    Unreadable { attempts: u32 },
    Rejected,
}

#[tokio::test]
async fn unreadable_replies_share_the_attempts_with_other_failures_table() {
    let cut = || Reply::truncated(Reply::text("fine"));
    // (case, script, outcome, requests made)
    let cases: Vec<(&str, Vec<Reply>, Outcome, usize)> = vec![
        (
            "cut off, then a 500, then an answer",
            vec![cut(), Reply::status(500, "oops"), Reply::text("fine")],
            Outcome::Answer,
            3,
        ),
        (
            "a 503, then cut off, then an answer",
            vec![Reply::status(503, "busy"), cut(), Reply::text("fine")],
            Outcome::Answer,
            3,
        ),
        (
            "cut off, then 5xx until the attempts run out",
            vec![
                cut(),
                Reply::status(503, "busy"),
                Reply::status(500, "oops"),
                Reply::text("never"),
            ],
            Outcome::Unavailable { attempts: 3 },
            3,
        ),
        (
            "a 500, then cut off twice",
            vec![
                Reply::status(500, "oops"),
                cut(),
                cut(),
                Reply::text("never"),
            ],
            Outcome::Unreadable { attempts: 3 },
            3,
        ),
        (
            "cut off, then a 401",
            vec![
                cut(),
                Reply::status(401, "invalid x-api-key"),
                Reply::text("never"),
            ],
            Outcome::Rejected,
            2,
        ),
    ];
    for model in BOTH {
        for (name, script, outcome, requests) in cases.clone() {
            let case = format!("{model}, {name}");
            let server = ModelServer::scripted(script).await.unwrap();
            let got = complete(provider(model, &server, &fast()).as_ref(), goal()).await;
            let as_wanted = match (&got, outcome) {
                (Ok(completion), Outcome::Answer) => completion.text.as_deref() == Some("fine"),
                (
                    Err(LlmError::Unavailable {
                        status, attempts, ..
                    }),
                    Outcome::Unavailable { attempts: want },
                ) => *status == 500 && *attempts == want,
                (
                    Err(LlmError::UnreadableReply { attempts, .. }),
                    Outcome::Unreadable { attempts: want },
                ) => *attempts == want,
                (Err(LlmError::Rejected { status, .. }), Outcome::Rejected) => *status == 401,
                _ => false,
            };
            assert!(as_wanted, "{case}: got {got:?}, want {outcome:?}");
            assert_eq!(server.request_count(), requests, "{case}");
        }
    }
}

#[tokio::test]
async fn unauthorized_fails_at_once_with_the_providers_message() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![
            Reply::status(401, "invalid x-api-key"),
            Reply::text("never"),
        ])
        .await
        .unwrap();
        let err = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap_err();
        assert!(
            matches!(err, LlmError::Rejected { status: 401, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("invalid x-api-key"), "{err}");
        assert_eq!(err.class(), ErrorClass::Configuration);
        assert_eq!(server.request_count(), 1);
    }
}

#[tokio::test]
async fn bad_request_and_forbidden_fail_at_once() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![
            Reply::status(400, "messages: roles must alternate"),
            Reply::status(403, "not allowed"),
        ])
        .await
        .unwrap();
        let provider = provider(model, &server, &fast());
        let err = complete(provider.as_ref(), goal()).await.unwrap_err();
        assert_eq!(err.class(), ErrorClass::Failure, "{err:?}");
        assert!(err.to_string().contains("roles must alternate"), "{err}");
        let err = complete(provider.as_ref(), goal()).await.unwrap_err();
        assert_eq!(err.class(), ErrorClass::Configuration, "{err:?}");
        assert_eq!(server.request_count(), 2);
    }
}

#[tokio::test]
async fn invalid_json_arguments_arrive_as_data() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![Reply::ToolCallRawArgs(
            "browser_type".into(),
            "{\"text\": \"hello".into(),
        )])
        .await
        .unwrap();
        let completion = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap();
        let call = &completion.tool_calls[0];
        assert_eq!(call.name, "browser_type");
        let invalid = call.arguments.as_ref().unwrap_err();
        assert_eq!(invalid.raw, "{\"text\": \"hello");
        assert!(!invalid.error.is_empty());
    }
}

#[tokio::test]
async fn unknown_tool_names_arrive_as_data() {
    for model in BOTH {
        let server =
            ModelServer::scripted(vec![Reply::tool("browser_teleport", json!({"to": "moon"}))])
                .await
                .unwrap();
        let completion = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap();
        assert_eq!(completion.tool_calls.len(), 1);
        assert_eq!(completion.tool_calls[0].name, "browser_teleport");
        assert_eq!(
            completion.tool_calls[0].arguments,
            Ok(json!({"to": "moon"}))
        );
    }
}

#[tokio::test]
async fn multiple_tool_calls_arrive_in_order() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![Reply::ToolCalls(vec![
            ("browser_snapshot".into(), json!({})),
            ("browser_click".into(), json!({"target": "e4"})),
            (
                "complete_task".into(),
                json!({"status": "success", "reason": "r"}),
            ),
        ])])
        .await
        .unwrap();
        let completion = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap();
        let names: Vec<&str> = completion
            .tool_calls
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(
            names,
            ["browser_snapshot", "browser_click", "complete_task"]
        );
        let ids: BTreeSet<&str> = completion
            .tool_calls
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(ids.len(), 3);
        assert_eq!(
            completion.tool_calls[1].arguments,
            Ok(json!({"target": "e4"}))
        );
        let expected_stop = if model == CLAUDE {
            "tool_use"
        } else {
            "tool_calls"
        };
        assert_eq!(completion.stop_reason.as_deref(), Some(expected_stop));
    }
}

#[tokio::test]
async fn text_only_answers_arrive_as_text() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![Reply::text("I cannot find a cancel button.")])
            .await
            .unwrap();
        let completion = complete(provider(model, &server, &fast()).as_ref(), goal())
            .await
            .unwrap();
        assert_eq!(
            completion.text.as_deref(),
            Some("I cannot find a cancel button.")
        );
        assert!(completion.tool_calls.is_empty());
        let expected_stop = if model == CLAUDE { "end_turn" } else { "stop" };
        assert_eq!(completion.stop_reason.as_deref(), Some(expected_stop));
    }
}

#[tokio::test]
async fn usage_accumulates_over_a_run() {
    for model in BOTH {
        let server = ModelServer::scripted(vec![
            Reply::tool("browser_snapshot", json!({})),
            Reply::text("hmm"),
            Reply::tool(
                "complete_task",
                json!({"status": "success", "reason": "ok"}),
            ),
        ])
        .await
        .unwrap();
        let provider = provider(model, &server, &fast());
        let mut history = goal();
        let mut total = Usage::default();
        for _ in 0..3 {
            let completion = complete(provider.as_ref(), history.clone()).await.unwrap();
            assert!(completion.usage.input_tokens > 0 && completion.usage.output_tokens > 0);
            total += completion.usage;
            append_turn(
                &mut history,
                &completion,
                "page",
                completion.tool_calls.is_empty(),
            );
        }
        assert_eq!(
            (total.input_tokens, total.output_tokens),
            server.usage_reported()
        );
    }
}

#[tokio::test]
async fn an_ollama_style_base_url_needs_no_key() {
    let server = ModelServer::scripted(vec![Reply::text("hi"), Reply::text("hi")])
        .await
        .unwrap();
    // Through OPENAI_BASE_URL, as an Ollama user sets it.
    let env = ProviderEnv {
        openai_base_url: Some(server.openai_base_url()),
        ..ProviderEnv::default()
    };
    let choice = ModelChoice::resolve(None, Some("ollama:qwen2.5:7b"), Some("gpt-4o")).unwrap();
    let provider = connect(&choice, &env, &fast()).unwrap();
    assert_eq!(
        (provider.name(), provider.model()),
        ("ollama", "qwen2.5:7b")
    );
    complete(provider.as_ref(), goal()).await.unwrap();
    // Through the CLI/config setting, with nothing in the environment.
    let mut choice = ModelChoice::resolve(Some("openai:llama3.2"), None, None).unwrap();
    choice.base_url = Some(server.openai_base_url());
    let provider = connect(&choice, &ProviderEnv::default(), &fast()).unwrap();
    complete(provider.as_ref(), goal()).await.unwrap();

    for request in server.requests() {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.header("authorization"), None);
    }
    let requests = server.requests();
    assert_eq!(requests[0].model(), Some("qwen2.5:7b"));
    assert_eq!(requests[0].body["max_tokens"], json!(1024));
    assert_eq!(requests[1].model(), Some("llama3.2"));
}

#[tokio::test]
async fn a_dynamic_handler_answers_from_the_latest_tool_result() {
    for model in BOTH {
        let server = ModelServer::start(|request| match request.latest_tool_result() {
            None => Reply::tool("browser_snapshot", json!({})),
            Some(page) if page.contains("[ref=e7] Cancel membership") => {
                Reply::tool("browser_click", json!({"target": "e7"}))
            }
            Some(_) => Reply::tool(
                "complete_task",
                json!({"status": "success", "reason": "done"}),
            ),
        })
        .await
        .unwrap();
        let provider = provider(model, &server, &fast());
        let mut history = goal();
        let pages = [
            "- button \"Cancel membership\" [ref=e7] Cancel membership",
            "Cancelled.",
        ];
        let mut names = Vec::new();
        for page in pages.iter().chain([&""]) {
            let completion = complete(provider.as_ref(), history.clone()).await.unwrap();
            names.push(completion.tool_calls[0].name.clone());
            append_turn(&mut history, &completion, page, false);
        }
        assert_eq!(
            names,
            ["browser_snapshot", "browser_click", "complete_task"]
        );
        assert_eq!(server.requests()[2].index, 2);
    }
}

#[tokio::test]
async fn an_unreachable_server_is_a_connection_error_after_every_attempt() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let env = ProviderEnv {
        anthropic_api_key: Some(ApiKey::new(ANTHROPIC_KEY)),
        openai_api_key: Some(ApiKey::new(OPENAI_KEY)),
        anthropic_base_url: Some(format!("http://127.0.0.1:{port}")),
        openai_base_url: Some(format!("http://127.0.0.1:{port}/v1")),
    };
    for model in BOTH {
        let choice = ModelChoice::resolve(Some(model), None, None).unwrap();
        let err = complete(connect(&choice, &env, &fast()).unwrap().as_ref(), goal())
            .await
            .unwrap_err();
        assert!(
            matches!(err, LlmError::Unreachable { attempts: 3, .. }),
            "{err:?}"
        );
        assert_eq!(err.class(), ErrorClass::Connection);
        assert!(
            err.to_string().contains(&format!("127.0.0.1:{port}")),
            "{err}"
        );
        assert_no_key(&err);
    }
}

#[tokio::test]
async fn a_missing_key_is_the_prototypes_configuration_error() {
    let server = ModelServer::scripted(vec![]).await.unwrap();
    let remote = ProviderEnv {
        anthropic_base_url: Some("https://api.anthropic.com".into()),
        ..ProviderEnv::default()
    };
    let choice = ModelChoice::resolve(None, None, None).unwrap();
    assert_eq!(choice.model, "claude-opus-4-6");
    let err = connect(&choice, &remote, &fast()).err().unwrap();
    assert_eq!(
        err.to_string(),
        "Missing ANTHROPIC_API_KEY. Set it via environment variable or use --model gpt-4o with OPENAI_API_KEY."
    );
    assert_eq!(err.class(), ErrorClass::Configuration);
    let choice = ModelChoice::resolve(Some(GPT), None, None).unwrap();
    let err = connect(&choice, &ProviderEnv::default(), &fast())
        .err()
        .unwrap();
    assert!(
        err.to_string().starts_with("Missing OPENAI_API_KEY."),
        "{err}"
    );
    let err = ModelChoice::resolve(Some("llama3"), None, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("Unsupported model: llama3. {}", err.fix())
    );
    assert_eq!(server.request_count(), 0);
}

fn assert_no_key(err: &LlmError) {
    for shown in [err.to_string(), format!("{err:?}")] {
        for key in [ANTHROPIC_KEY, OPENAI_KEY, "SECRET"] {
            assert!(!shown.contains(key), "{key} in {shown}");
        }
    }
}

#[tokio::test]
async fn the_key_never_appears_in_an_error() {
    for model in BOTH {
        let key = if model == CLAUDE {
            ANTHROPIC_KEY
        } else {
            OPENAI_KEY
        };
        // Servers that echo the key back must not get it into our errors.
        let server = ModelServer::scripted(vec![
            Reply::status(401, &format!("invalid x-api-key: {key}")),
            Reply::status(500, &format!("upstream said {key}")),
            Reply::status(500, &format!("upstream said {key}")),
            Reply::status(500, &format!("upstream said {key}")),
            // Placed where a cut at 600 characters would split the key.
            Reply::status(400, &format!("{}{key}", "x".repeat(555))),
        ])
        .await
        .unwrap();
        let provider = provider(model, &server, &fast());
        for _ in 0..3 {
            let err = complete(provider.as_ref(), goal()).await.unwrap_err();
            assert!(err.to_string().contains("***"), "{err}");
            assert_no_key(&err);
        }
        // The key really was sent.
        assert!(
            server
                .requests()
                .iter()
                .all(|r| r.headers.values().any(|v| v.contains(key)))
        );
    }
    let env = ProviderEnv {
        anthropic_api_key: Some(ApiKey::new(ANTHROPIC_KEY)),
        openai_api_key: Some(ApiKey::new(OPENAI_KEY)),
        ..ProviderEnv::default()
    };
    let shown = format!("{env:?}");
    assert!(!shown.contains("SECRET"), "{shown}");
}
