#![allow(clippy::unwrap_used)]
use serde_json::{Value, json};

use super::*;

fn map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("an object"),
    }
}

fn schema() -> Map<String, Value> {
    map(json!({
        "type": "object",
        "properties": {
            "service": {"type": "string"},
            "dry_run": {"type": "boolean"},
            "amount": {"type": "integer", "minimum": 0, "maximum": 10000},
            "direction": {"type": "string", "enum": ["up", "down"]},
            "session_id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
            "either": {"type": ["string", "null"]},
        },
        "required": ["service"],
        "additionalProperties": false
    }))
}

#[test]
fn a_wrong_type_is_refused_with_the_argument_named_never_defaulted() {
    let cases = [
        (json!({"service": "x"}), None),
        (
            json!({"service": "x", "dry_run": true, "amount": 3, "direction": "up", "session_id": "a-1", "either": null}),
            None,
        ),
        (json!({"service": "x", "amount": 3.0}), None),
        (
            json!({"service": 42}),
            Some(("service", "must be a string, not the number 42")),
        ),
        (
            json!({"service": "x", "dry_run": "true"}),
            Some(("dry_run", "must be a boolean, not the string \"true\"")),
        ),
        (
            json!({"service": "x", "dry_run": null}),
            Some(("dry_run", "not null")),
        ),
        (
            json!({"service": "x", "dry_run": 1}),
            Some(("dry_run", "not the number 1")),
        ),
        (
            json!({"service": "x", "amount": 2.5}),
            Some(("amount", "must be an integer")),
        ),
        (
            json!({"service": "x", "amount": -1}),
            Some(("amount", "between 0 and 10000")),
        ),
        (
            json!({"service": "x", "direction": "left"}),
            Some(("direction", "one of \"up\", \"down\"")),
        ),
        (
            json!({"service": "x", "direction": 1}),
            Some(("direction", "must be a string")),
        ),
        (
            json!({"service": "x", "session_id": "../x"}),
            Some(("session_id", "must match")),
        ),
        (
            json!({"service": "x", "either": 1}),
            Some(("either", "a string or null")),
        ),
        (json!({}), Some(("service", "is required"))),
        (
            json!({"service": "x", "dry_rum": true}),
            Some(("dry_rum", "is not an argument")),
        ),
        (json!({"service": ["x"]}), Some(("service", "not an array"))),
        (
            json!({"service": {"id": "x"}}),
            Some(("service", "not an object")),
        ),
    ];
    for (arguments, want) in cases {
        let got = check(&schema(), &map(arguments.clone()));
        match want {
            None => assert_eq!(got, Ok(()), "{arguments}"),
            Some((argument, says)) => {
                let error = got.unwrap_err();
                assert_eq!(error.argument(), argument, "{arguments}");
                let text = error.to_string();
                assert!(text.contains(&format!("`{argument}`")), "{text}");
                assert!(text.contains(says), "{arguments}: {text}");
            }
        }
    }
}

#[test]
fn an_open_schema_lets_other_arguments_through_and_nested_ones_are_checked() {
    let open = map(json!({"type": "object", "properties": {"a": {"type": "boolean"}}}));
    assert_eq!(check(&open, &map(json!({"b": 1}))), Ok(()));
    let nested = map(json!({"type": "object", "properties": {
        "page": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    }}));
    assert_eq!(check(&nested, &map(json!({"page": {"n": 1}}))), Ok(()));
    let error = check(&nested, &map(json!({"page": {"n": "1"}}))).unwrap_err();
    assert_eq!(error.argument(), "page.n");
    let error = check(&nested, &map(json!({"page": {}}))).unwrap_err();
    assert_eq!(
        error,
        Mismatch::Missing {
            argument: "page.n".into()
        }
    );
}

#[test]
fn a_long_string_is_shown_cut() {
    let long = "y".repeat(500);
    let error = check(&schema(), &map(json!({"service": "x", "dry_run": long}))).unwrap_err();
    assert!(error.to_string().len() < 200, "{error}");
}
