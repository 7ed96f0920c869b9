//! Tool calls written as text: local models served without
//! reliable tool calling often answer with the call as JSON in their reply,
//! fenced or tagged or bare, under one of several key names. Such a call is
//! read here and checked against the tools offered; its arguments are then
//! checked against the tool's schema like any call's. What looks like a
//! call but cannot be used is named, so the model gets one repair prompt
//! saying what is wrong.

use serde_json::{Map, Value};

use super::{InvalidArguments, ToolCall, ToolSpec};

/// What a reply's text holds.
#[derive(Debug, Clone, PartialEq)]
pub enum TextCall {
    /// No call: plain words.
    None,
    Call(ToolCall),
    /// Something meant as a call that cannot be used, and why.
    Invalid(String),
}

/// Keys a call's tool name goes under, in the formats seen in the wild.
const NAME_KEYS: &[&str] = &["name", "tool", "tool_name", "function_name"];
/// Keys its arguments go under.
const ARGUMENT_KEYS: &[&str] = &["arguments", "args", "parameters", "input", "params"];

/// The tool call in `text`, if any, against the tools offered.
pub fn read(text: &str, tools: &[ToolSpec]) -> TextCall {
    let mut broken = None;
    for candidate in candidates(text) {
        match serde_json::from_str::<Value>(&candidate) {
            Ok(Value::Object(object)) => {
                let object = unwrap_function(object);
                let Some(name) = name_of(&object) else {
                    continue;
                };
                if !tools.iter().any(|t| t.name == name) {
                    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                    return TextCall::Invalid(format!(
                        "there is no tool called \"{name}\"; the tools are {}",
                        names.join(", ")
                    ));
                }
                return TextCall::Call(ToolCall {
                    id: format!("text-call-{name}"),
                    name,
                    arguments: arguments_of(&object),
                });
            }
            Ok(_) => {}
            Err(e) if looks_like_a_call(&candidate) => {
                broken = Some(format!("the JSON of your tool call does not parse ({e})"));
            }
            Err(_) => {}
        }
    }
    broken.map_or(TextCall::None, TextCall::Invalid)
}

/// The repair prompt for an invalid call.
pub fn repair_prompt(problem: &str) -> String {
    format!(
        "Your reply was meant as a tool call but could not be used: {problem}. Reply with exactly \
         one tool call; if you cannot call tools directly, write it as JSON: \
         {{\"name\": \"<tool>\", \"arguments\": {{...}}}}."
    )
}

fn looks_like_a_call(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    NAME_KEYS.iter().any(|k| {
        compact.contains(&format!("{{\"{k}\":")) || compact.contains(&format!(",\"{k}\":"))
    }) && compact.contains('{')
}

/// `{"type": "function", "function": {"name", "arguments"}}` → the inner one.
fn unwrap_function(object: Map<String, Value>) -> Map<String, Value> {
    match object.get("function") {
        Some(Value::Object(inner)) if inner.contains_key("name") => inner.clone(),
        _ => object,
    }
}

fn name_of(object: &Map<String, Value>) -> Option<String> {
    NAME_KEYS
        .iter()
        .find_map(|k| object.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// The arguments object; a string holding JSON is read as that JSON.
fn arguments_of(object: &Map<String, Value>) -> Result<Value, InvalidArguments> {
    let Some(raw) = ARGUMENT_KEYS.iter().find_map(|k| object.get(*k)) else {
        return Ok(Value::Object(Map::new()));
    };
    match raw {
        Value::Object(_) => Ok(raw.clone()),
        Value::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(other) => Err(InvalidArguments {
                raw: text.clone(),
                error: format!("expected a JSON object, got {other}"),
            }),
            Err(e) => Err(InvalidArguments {
                raw: text.clone(),
                error: e.to_string(),
            }),
        },
        other => Err(InvalidArguments {
            raw: other.to_string(),
            error: "expected a JSON object".into(),
        }),
    }
}

/// JSON objects in `text`, most likely first: inside `<tool_call>` tags,
/// inside code fences, then every balanced `{…}` from the start.
fn candidates(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [
        ("<tool_call>", "</tool_call>"),
        ("```json", "```"),
        ("```", "```"),
    ] {
        let mut rest = text;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len()..];
            let end = after.find(close).unwrap_or(after.len());
            out.push(after[..end].trim().to_owned());
            rest = &after[end.min(after.len())..];
            if rest.starts_with(close) {
                rest = &rest[close.len()..];
            }
        }
    }
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        match balanced_end(bytes, start) {
            Some(end) => {
                out.push(text[start..=end].to_owned());
                at = end + 1;
            }
            None => {
                out.push(text[start..].to_owned());
                break;
            }
        }
    }
    out
}

/// The index of the `}` that closes the `{` at `start`, strings respected.
fn balanced_end(bytes: &[u8], start: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in bytes.iter().enumerate().skip(start) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolSpec> {
        ["browser_click", "complete_task"]
            .iter()
            .map(|n| ToolSpec {
                name: (*n).into(),
                description: String::new(),
                input_schema: json!({"type": "object"}),
            })
            .collect()
    }

    #[test]
    fn calls_in_the_forms_local_models_write_them() {
        let cases = [
            r#"{"name": "browser_click", "arguments": {"ref": "@e3"}}"#,
            r#"I will click it. {"name":"browser_click","arguments":{"ref":"@e3"}} Done."#,
            "```json\n{\"tool\": \"browser_click\", \"args\": {\"ref\": \"@e3\"}}\n```",
            "<tool_call>\n{\"name\": \"browser_click\", \"arguments\": \"{\\\"ref\\\": \\\"@e3\\\"}\"}\n</tool_call>",
            r#"{"type": "function", "function": {"name": "browser_click", "parameters": {"ref": "@e3"}}}"#,
            r#"{"tool_name": "browser_click", "input": {"ref": "@e3"}}"#,
            r#"Thinking {about it}. {"name": "browser_click", "arguments": {"ref": "@e3", "note": "a } in a string"}}"#,
        ];
        for text in cases {
            let TextCall::Call(call) = read(text, &tools()) else {
                panic!("no call read from {text}")
            };
            assert_eq!(call.name, "browser_click", "{text}");
            assert_eq!(call.arguments.as_ref().unwrap()["ref"], "@e3", "{text}");
        }
    }

    #[test]
    fn what_is_no_call_and_what_is_a_broken_one() {
        let cases = [
            ("I have finished looking at the page.", None),
            (r#"{"status": "success"}"#, None),
            (
                r#"{"name": "browser_tap", "arguments": {}}"#,
                Some("no tool called \"browser_tap\""),
            ),
            (
                r#"{"name": "browser_click", "arguments": {"ref": "@e3"}"#,
                Some("does not parse (EOF"),
            ),
            (
                r#"```json
{"name": "browser_click", "arguments": {'ref': '@e3'}}
```"#,
                Some("does not parse"),
            ),
        ];
        for (text, want) in cases {
            match (read(text, &tools()), want) {
                (TextCall::None, None) => {}
                (TextCall::Invalid(why), Some(says)) => {
                    assert!(why.contains(says), "{text}: {why}")
                }
                (other, _) => panic!("{text}: {other:?}"),
            }
        }
        let TextCall::Call(call) = read(
            r#"{"name": "browser_click", "arguments": "not json"}"#,
            &tools(),
        ) else {
            panic!("a call with broken arguments is still a call")
        };
        assert!(
            call.arguments.is_err(),
            "its arguments are refused by the schema check"
        );
    }
}
