//! Every tool argument checked against the schema the tool declares, before
//! anything starts. A wrong type is a refusal naming the argument, never a
//! default: `dry_run: "true"` (a string) once ran a real cancellation, and
//! `isolated: "true"` opened the signed-in profile. An argument the schema
//! does not name is refused too, for the same reason: `dry_rum: true` must
//! not run for real.
//!
//! The subset of JSON Schema our tools use: `type` (one or a list),
//! `properties`, `required`, `additionalProperties: false`, `enum`,
//! `pattern`, `minimum` and `maximum`.

use serde_json::{Map, Value};

/// Why a call's arguments do not fit its tool's schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    #[error("`{argument}` must be {expected}, not {found}")]
    WrongType {
        argument: String,
        expected: String,
        found: String,
    },

    #[error("`{argument}` is required")]
    Missing { argument: String },

    #[error("`{argument}` is not an argument of this tool; it takes {known}")]
    Unknown { argument: String, known: String },

    #[error("`{argument}` must be one of {allowed}, not {found}")]
    NotAllowed {
        argument: String,
        allowed: String,
        found: String,
    },

    #[error("`{argument}` must match {pattern}, not {found}")]
    Pattern {
        argument: String,
        pattern: String,
        found: String,
    },

    #[error("`{argument}` must be between {low} and {high}, not {found}")]
    OutOfRange {
        argument: String,
        low: String,
        high: String,
        found: String,
    },

    #[error("the tool's own schema cannot be read at `{argument}`: {why}")]
    BadSchema { argument: String, why: String },
}

impl Mismatch {
    /// The argument the refusal names (a dotted path for nested ones).
    pub fn argument(&self) -> &str {
        match self {
            Mismatch::WrongType { argument, .. }
            | Mismatch::Missing { argument }
            | Mismatch::Unknown { argument, .. }
            | Mismatch::NotAllowed { argument, .. }
            | Mismatch::Pattern { argument, .. }
            | Mismatch::OutOfRange { argument, .. }
            | Mismatch::BadSchema { argument, .. } => argument,
        }
    }
}

/// Checks `arguments` against an object `schema` (a tool's `inputSchema`).
pub fn check(schema: &Map<String, Value>, arguments: &Map<String, Value>) -> Result<(), Mismatch> {
    object(schema, arguments, "")
}

fn object(
    schema: &Map<String, Value>,
    value: &Map<String, Value>,
    at: &str,
) -> Result<(), Mismatch> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if !value.contains_key(required) {
            return Err(Mismatch::Missing {
                argument: path(at, required),
            });
        }
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    for (name, given) in value {
        match properties.get(name) {
            Some(Value::Object(property)) => one(property, given, &path(at, name))?,
            Some(_) => {
                return Err(Mismatch::BadSchema {
                    argument: path(at, name),
                    why: "its property schema is not an object".into(),
                });
            }
            None if closed => {
                let mut known: Vec<&str> = properties.keys().map(String::as_str).collect();
                known.sort_unstable();
                return Err(Mismatch::Unknown {
                    argument: path(at, name),
                    known: if known.is_empty() {
                        "no arguments".into()
                    } else {
                        known
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                });
            }
            None => {}
        }
    }
    Ok(())
}

fn one(schema: &Map<String, Value>, value: &Value, at: &str) -> Result<(), Mismatch> {
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| is_type(value, t)) {
            return Err(Mismatch::WrongType {
                argument: at.to_owned(),
                expected: allowed
                    .iter()
                    .map(|t| article(t))
                    .collect::<Vec<_>>()
                    .join(" or "),
                found: describe(value),
            });
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        return Err(Mismatch::NotAllowed {
            argument: at.to_owned(),
            allowed: allowed
                .iter()
                .map(Value::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            found: describe(value),
        });
    }
    if let (Some(Value::String(pattern)), Value::String(text)) = (schema.get("pattern"), value) {
        let regex = regex::Regex::new(pattern).map_err(|e| Mismatch::BadSchema {
            argument: at.to_owned(),
            why: format!("its pattern does not compile: {e}"),
        })?;
        if !regex.is_match(text) {
            return Err(Mismatch::Pattern {
                argument: at.to_owned(),
                pattern: pattern.clone(),
                found: describe(value),
            });
        }
    }
    if let Some(number) = value.as_f64() {
        let low = schema.get("minimum").and_then(Value::as_f64);
        let high = schema.get("maximum").and_then(Value::as_f64);
        if low.is_some_and(|l| number < l) || high.is_some_and(|h| number > h) {
            return Err(Mismatch::OutOfRange {
                argument: at.to_owned(),
                low: low.map_or("-∞".into(), |l| l.to_string()),
                high: high.map_or("∞".into(), |h| h.to_string()),
                found: describe(value),
            });
        }
    }
    if let (Value::Object(nested), Some(Value::Object(_))) = (value, schema.get("properties")) {
        object(schema, nested, at)?;
    }
    Ok(())
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        // 3.0 is an integer to JSON Schema; 3.5 is not.
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        "number" => value.is_number(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => false,
    }
}

fn article(name: &str) -> String {
    match name {
        "integer" | "object" | "array" => format!("an {name}"),
        "null" => "null".into(),
        _ => format!("a {name}"),
    }
}

/// What a value is, in the words of a refusal: `the string "true"`.
fn describe(value: &Value) -> String {
    const SHOWN_CHARS: usize = 40;
    let shown = |text: String| {
        if text.chars().count() > SHOWN_CHARS {
            format!("{}…", text.chars().take(SHOWN_CHARS).collect::<String>())
        } else {
            text
        }
    };
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", shown(Value::String(s.clone()).to_string())),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn path(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_owned()
    } else {
        format!("{at}.{name}")
    }
}

#[cfg(test)]
mod tests;
