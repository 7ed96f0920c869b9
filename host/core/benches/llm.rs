//! Measures what the model layer adds to each turn on our side of the wire:
//! building the request body from a 20-turn history with a realistic tool
//! list and a 2,000-token snapshot in every result, and parsing a response.
//! Prints medians; run with `cargo bench -p subterminator-core --bench llm`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use serde_json::json;
use subterminator_core::llm::{
    Message, ProviderKind, Request, ToolCall, ToolSpec, anthropic, openai,
};

/// Turns of history (assistant call + tool result each).
const TURNS: usize = 20;
/// Characters of page text per tool result (≈2,000 tokens).
const SNAPSHOT_CHARS: usize = 8_000;
/// Runs per batch, and batches (one median each).
const RUNS: usize = 200;
const BATCHES: usize = 9;

fn request() -> Request {
    let snapshot: String = "- button \"Cancel membership\" [ref=e42]\n"
        .chars()
        .cycle()
        .take(SNAPSHOT_CHARS)
        .collect();
    let mut messages = vec![Message::User(format!("Goal: cancel Netflix\n\n{snapshot}"))];
    for turn in 0..TURNS {
        let id = format!("call_{turn}");
        messages.push(Message::Assistant {
            text: Some("Clicking the next button.".into()),
            tool_calls: vec![ToolCall {
                id: id.clone(),
                name: "browser_click".into(),
                arguments: Ok(json!({"target": format!("e{turn}"), "element": "Cancel"})),
            }],
        });
        messages.push(Message::ToolResult {
            call_id: id,
            content: snapshot.clone(),
            is_error: false,
        });
    }
    let tools = (0..9)
        .map(|i| ToolSpec {
            name: format!("browser_tool_{i}"),
            description: "Does one browser thing, described at some length for the model.".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "target": {"type": "string", "description": "Exact target element reference"},
                    "element": {"type": "string", "description": "Human-readable element description"},
                },
                "required": ["target"],
            }),
        })
        .collect();
    Request {
        system: "You cancel subscriptions carefully.".into(),
        messages,
        tools,
        max_tokens: 4096,
        cache_history: true,
    }
}

fn median_per_run(mut f: impl FnMut()) -> Duration {
    let mut batches: Vec<Duration> = (0..BATCHES)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..RUNS {
                f();
            }
            started.elapsed() / RUNS as u32
        })
        .collect();
    batches.sort();
    batches[BATCHES / 2]
}

fn report(label: &str, per_run: Duration) {
    println!("{label:<40} {:>9.1} µs", per_run.as_secs_f64() * 1e6);
}

fn main() {
    let request = request();
    let anthropic_body = anthropic::request_body("claude-opus-4-6", &request).unwrap();
    let openai_body = openai::request_body(ProviderKind::OpenAi, "gpt-4o", &request).unwrap();
    println!(
        "history: {TURNS} turns, body {} KB (anthropic) / {} KB (openai)",
        anthropic_body.to_string().len() / 1024,
        openai_body.to_string().len() / 1024
    );

    report(
        "anthropic: build + serialize request",
        median_per_run(|| {
            let body = anthropic::request_body("claude-opus-4-6", black_box(&request)).unwrap();
            black_box(serde_json::to_vec(&body).unwrap());
        }),
    );
    report(
        "openai: build + serialize request",
        median_per_run(|| {
            let body =
                openai::request_body(ProviderKind::OpenAi, "gpt-4o", black_box(&request)).unwrap();
            black_box(serde_json::to_vec(&body).unwrap());
        }),
    );

    let anthropic_response = json!({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-opus-4-6",
        "content": [
            {"type": "text", "text": "I'll click Cancel membership."},
            {"type": "tool_use", "id": "toolu_01", "name": "browser_click", "input": {"target": "e42"}},
        ],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 42_000, "output_tokens": 40},
    })
    .to_string();
    let openai_response = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "browser_click", "arguments": "{\"target\":\"e42\"}"}}],
        }}],
        "usage": {"prompt_tokens": 42_000, "completion_tokens": 40, "total_tokens": 42_040},
    })
    .to_string();
    report(
        "anthropic: parse response",
        median_per_run(|| {
            let json = serde_json::from_str(black_box(&anthropic_response)).unwrap();
            black_box(anthropic::parse_response(&json).unwrap());
        }),
    );
    report(
        "openai: parse response",
        median_per_run(|| {
            let json = serde_json::from_str(black_box(&openai_response)).unwrap();
            black_box(openai::parse_response(&json).unwrap());
        }),
    );
}
