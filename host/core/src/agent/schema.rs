//! Checks a tool call's arguments against the tool's JSON schema before
//! anything runs: a bad call goes back to the model
//! with a message naming what was wrong, and never touches the browser.
//!
//! Covers the subset tool schemas use: `type`, `properties`, `required`,
//! `enum`, `pattern`, `items`, `anyOf`, `additionalProperties: false`,
//! `minimum`/`maximum`.

use serde_json::Value;

/// Every problem with `value` under `schema`, as `at <path>: <problem>`.
pub fn validate(value: &Value, schema: &Value) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    check(value, schema, "arguments", &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn check(value: &Value, schema: &Value, at: &str, problems: &mut Vec<String>) {
    let Some(schema) = schema.as_object() else {
        return;
    };
    if let Some(options) = schema.get("anyOf").and_then(Value::as_array) {
        let fits = options.iter().any(|option| {
            let mut inner = Vec::new();
            check(value, option, at, &mut inner);
            inner.is_empty()
        });
        if !fits {
            problems.push(format!(
                "{at}: {} matches none of the allowed forms",
                kind(value)
            ));
        }
    }
    if let Some(expected) = schema.get("type")
        && !type_matches(value, expected)
    {
        problems.push(format!(
            "{at}: expected {}, got {}",
            describe_type(expected),
            kind(value)
        ));
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        problems.push(format!("{at}: {value} is not one of {}", list.join(", ")));
    }
    if let (Some(pattern), Some(text)) = (
        schema.get("pattern").and_then(Value::as_str),
        value.as_str(),
    ) {
        match regex::Regex::new(pattern) {
            Ok(re) if !re.is_match(text) => {
                problems.push(format!(
                    "{at}: {text:?} does not match the pattern {pattern}"
                ));
            }
            Ok(_) => {}
            // A schema we cannot read is the schema's fault, not the model's.
            Err(e) => tracing::debug!("ignoring an unreadable pattern {pattern}: {e}"),
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            problems.push(format!("{at}: {n} is below the minimum {min}"));
        }
        if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            problems.push(format!("{at}: {n} is above the maximum {max}"));
        }
    }
    if let Some(object) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = name.as_str()
                && !object.contains_key(name)
            {
                problems.push(format!("{at}: missing required property \"{name}\""));
            }
        }
        for (name, item) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => check(item, sub, &format!("{at}.{name}"), problems),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    problems.push(format!("{at}: unknown property \"{name}\""));
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            check(item, items, &format!("{at}[{i}]"), problems);
        }
    }
}

fn type_matches(value: &Value, expected: &Value) -> bool {
    match expected {
        Value::String(t) => one_type(value, t),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .any(|t| one_type(value, t)),
        _ => true,
    }
}

fn one_type(value: &Value, t: &str) -> bool {
    match t {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

fn describe_type(expected: &Value) -> String {
    match expected {
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        other => other.as_str().unwrap_or("?").to_owned(),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn click_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "ref": {"type": "string", "pattern": "^@e\\d+$"},
                "count": {"type": "integer", "minimum": 1, "maximum": 3},
                "status": {"type": "string", "enum": ["success", "failed"]},
                "values": {"type": "array", "items": {"type": "string"}},
                "mode": {"anyOf": [{"type": "string", "enum": ["a"]}, {"type": "null"}]}
            },
            "required": ["ref"],
            "additionalProperties": false
        })
    }

    #[test]
    fn validation_table() {
        let cases: Vec<(Value, Option<&str>)> = vec![
            (json!({"ref": "@e3"}), None),
            (
                json!({"ref": "@e3", "count": 2, "status": "failed", "values": ["x"], "mode": null}),
                None,
            ),
            (json!({}), Some("missing required property \"ref\"")),
            (
                json!({"ref": 3}),
                Some("arguments.ref: expected string, got a number"),
            ),
            (json!({"ref": "e3"}), Some("does not match the pattern")),
            (json!({"ref": "@e3", "count": 9}), Some("above the maximum")),
            (
                json!({"ref": "@e3", "count": 1.5}),
                Some("expected integer"),
            ),
            (
                json!({"ref": "@e3", "status": "done"}),
                Some("is not one of"),
            ),
            (
                json!({"ref": "@e3", "values": ["x", 1]}),
                Some("arguments.values[1]"),
            ),
            (json!({"ref": "@e3", "mode": "b"}), Some("matches none")),
            (
                json!({"ref": "@e3", "extra": true}),
                Some("unknown property \"extra\""),
            ),
            (json!("@e3"), Some("expected object")),
        ];
        for (value, want) in cases {
            let got = validate(&value, &click_schema());
            match want {
                None => assert!(got.is_ok(), "{value}: {got:?}"),
                Some(needle) => {
                    let problems = got.err().unwrap_or_default().join("; ");
                    assert!(problems.contains(needle), "{value}: {problems}");
                }
            }
        }
    }

    #[test]
    fn an_empty_schema_accepts_anything() {
        assert!(validate(&json!({"x": 1}), &json!({})).is_ok());
    }
}
