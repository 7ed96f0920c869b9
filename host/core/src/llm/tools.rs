//! Checks and schema clean-up shared by both providers' `format_tools`. MCP
//! servers are looser than the model APIs: a tool may have no schema, a
//! schema without `properties`, or a name the APIs refuse.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{LlmError, MAX_TOOL_NAME_CHARS, ToolSpec};

/// Every tool checked, in order, with its schema made acceptable to both APIs.
pub(crate) fn prepared(tools: &[ToolSpec]) -> Result<Vec<(&ToolSpec, Value)>, LlmError> {
    let mut seen = HashSet::new();
    tools
        .iter()
        .map(|tool| {
            check_name(&tool.name)?;
            if !seen.insert(tool.name.as_str()) {
                return Err(invalid(
                    &tool.name,
                    "is offered twice; tool names must be unique",
                ));
            }
            let schema =
                object_schema(&tool.input_schema).map_err(|reason| invalid(&tool.name, &reason))?;
            Ok((tool, schema))
        })
        .collect()
}

fn invalid(name: &str, reason: &str) -> LlmError {
    LlmError::InvalidTool {
        name: name.to_owned(),
        reason: reason.to_owned(),
    }
}

/// Both APIs accept `^[a-zA-Z0-9_-]{1,64}$`. Renaming would mean mapping
/// names back on every call, so a bad name is refused instead.
fn check_name(name: &str) -> Result<(), LlmError> {
    if name.is_empty() {
        return Err(invalid(name, "has an empty name"));
    }
    if name.chars().count() > MAX_TOOL_NAME_CHARS {
        return Err(invalid(
            name,
            &format!("has a name longer than {MAX_TOOL_NAME_CHARS} characters"),
        ));
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(invalid(
            name,
            &format!(
                "has the character {bad:?} in its name; only letters, digits, '_' and '-' are allowed"
            ),
        ));
    }
    Ok(())
}

/// An object schema with `type` and `properties`, which OpenAI insists on
/// and Anthropic's `input_schema` requires to be an object.
fn object_schema(schema: &Value) -> Result<Value, String> {
    let mut object = match schema {
        Value::Null | Value::Bool(true) => Map::new(),
        Value::Object(object) => object.clone(),
        other => {
            return Err(format!(
                "has an input schema that is not an object: {other}"
            ));
        }
    };
    match object.get("type") {
        None => {
            object.insert("type".to_owned(), json!("object"));
        }
        Some(Value::String(kind)) if kind == "object" => {}
        Some(other) => {
            return Err(format!("takes {other} as input; tools must take an object"));
        }
    }
    if !object.get("properties").is_some_and(Value::is_object) {
        object.insert("properties".to_owned(), json!({}));
    }
    Ok(Value::Object(object))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;

    fn tool(name: &str, schema: Value) -> ToolSpec {
        ToolSpec {
            name: name.to_owned(),
            description: String::new(),
            input_schema: schema,
        }
    }

    #[test]
    fn schema_table() {
        let empty = json!({"type": "object", "properties": {}});
        let cases = [
            (json!({}), empty.clone()),
            (Value::Null, empty.clone()),
            (json!(true), empty.clone()),
            (json!({"type": "object"}), empty.clone()),
            (
                json!({"properties": {"url": {"type": "string"}}, "required": ["url"]}),
                json!({"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}),
            ),
            (
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {}}, "additionalProperties": false}),
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"a": {}}, "additionalProperties": false}),
            ),
        ];
        for (input, expected) in cases {
            let tools = [tool("t", input.clone())];
            let prepared = prepared(&tools).unwrap();
            assert_eq!(prepared[0].1, expected, "{input}");
        }
    }

    #[test]
    fn non_object_schemas_are_refused() {
        for schema in [
            json!({"type": "string"}),
            json!("x"),
            json!([1]),
            json!(false),
        ] {
            let err = prepared(&[tool("t", schema.clone())]).unwrap_err();
            assert!(err.to_string().starts_with("Tool 't' "), "{schema}: {err}");
        }
    }

    #[test]
    fn names_table() {
        let long = "a".repeat(MAX_TOOL_NAME_CHARS);
        let too_long = "a".repeat(MAX_TOOL_NAME_CHARS + 1);
        for ok in ["browser_click", "complete-task", "A1", long.as_str()] {
            assert!(prepared(&[tool(ok, json!({}))]).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "has space",
            "dot.ted",
            "slash/ed",
            "ü",
            too_long.as_str(),
        ] {
            assert!(prepared(&[tool(bad, json!({}))]).is_err(), "{bad}");
        }
    }

    #[test]
    fn duplicate_names_are_an_error() {
        let err = prepared(&[
            tool("click", json!({})),
            tool("type", json!({})),
            tool("click", json!({})),
        ])
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("Tool 'click' is offered twice; tool names must be unique. Fix "),
            "{err}"
        );
    }
}
