//! A sloppy local model, as Ollama or llama.cpp serve small models without
//! reliable tool calling: it decides like the compact canceller, but writes
//! its call as text, each turn in another of the forms seen in the wild
//! (bare JSON in prose, a fenced block under other key names, Hermes'
//! `<tool_call>` tags with the arguments as a string), once as broken JSON
//! and once with an argument under the wrong name. A prompt that asks it to
//! repair its call gets a well-formed one.

use serde_json::{Value, json};

use crate::compact_script::compact_canceller;
use crate::model_server::{RecordedRequest, Reply};

/// What the host's repair prompt begins with (`llm::textcall`).
pub const REPAIR_PROMPT: &str = "Your reply was meant as a tool call but could not be used";

/// The call written as text, in the form turn `index` uses.
fn written(index: usize, name: &str, arguments: &Value) -> String {
    match index % 4 {
        0 => format!(
            "Let me do that. {} I hope this works.",
            json!({"name": name, "arguments": arguments})
        ),
        1 => format!("```json\n{}\n```", json!({"tool": name, "args": arguments})),
        2 => format!(
            "<tool_call>\n{}\n</tool_call>",
            json!({"name": name, "arguments": arguments.to_string()})
        ),
        _ => json!({"type": "function", "function": {"name": name, "parameters": arguments}})
            .to_string(),
    }
}

/// The sloppy model: the second request gets broken JSON, the fourth an
/// argument under the wrong name; every other one a call in text.
pub fn sloppy(request: &RecordedRequest) -> Reply {
    let Reply::ToolCalls(calls) = compact_canceller(request) else {
        return Reply::text("I am not sure what to do here.");
    };
    let Some((name, arguments)) = calls.into_iter().next() else {
        return Reply::text("I am not sure what to do here.");
    };
    let repairing = request
        .latest_input()
        .is_some_and(|t| t.contains(REPAIR_PROMPT));
    if repairing {
        return Reply::text(&json!({"name": name, "arguments": arguments}).to_string());
    }
    match request.index {
        1 => Reply::text(&format!(
            "{{\"name\": \"{name}\", \"arguments\": {{'ref': oops}}}}"
        )),
        3 if arguments.get("ref").is_some() => {
            let mut wrong = arguments.clone();
            if let (Some(map), Some(r)) = (wrong.as_object_mut(), arguments.get("ref")) {
                map.remove("ref");
                map.insert("element".into(), r.clone());
            }
            Reply::text(&written(0, &name, &wrong))
        }
        i => Reply::text(&written(i, &name, &arguments)),
    }
}
