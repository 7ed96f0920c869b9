//! The JSON Schemas of what the bench writes and answers, generated from
//! the very types that write them, so the documents cannot drift from the
//! code: `host/bench/schema/*.schema.json` are these, and a test fails when
//! a type changes without them (`SUBTERMINATOR_WRITE_SCHEMAS=1 cargo test
//! -p subterminator-bench schema` writes them again).

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::flow::FlowSummary;
use crate::log::LoggedRequest;
use crate::person::Question;
use crate::report::{RunRecord, Scorecard};
use crate::serve::{Answered, ClaimBody, RunLine, RunReport, RunStarted, StartRun};

/// Each schema's file name under `host/bench/schema/`, and the schema.
pub fn all() -> Vec<(&'static str, Value)> {
    vec![
        ("scorecard.schema.json", scorecard()),
        ("run-record.schema.json", run_record()),
        ("serve.schema.json", interface()),
    ]
}

/// `scorecard.json`, `GET /scorecard`, `bench merge --json`.
pub fn scorecard() -> Value {
    titled(
        schemars::schema_for!(Scorecard).to_value(),
        "CancelBench scorecard",
        "The sums of a set of runs: each split, both, per trick, language and plugin, and per agent. The headline is verified_without_harm.",
    )
}

/// One line of `records.jsonl` and of `subterminator bench --json`.
pub fn run_record() -> Value {
    titled(
        schemars::schema_for!(RunRecord).to_value(),
        "CancelBench run record",
        "One pass of one flow by one agent, judged from the flow site's own request log.",
    )
}

/// Every body the two `serve` interfaces take and answer, by route.
pub fn interface() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let routes: Vec<(&str, Value)> = vec![
        (
            "agent: GET /flows, GET /flows/{id} → FlowSummary (a list, or one)",
            generator.subschema_for::<FlowSummary>().to_value(),
        ),
        (
            "agent: POST /runs ← StartRun",
            generator.subschema_for::<StartRun>().to_value(),
        ),
        (
            "agent: POST /runs → RunStarted (201)",
            generator.subschema_for::<RunStarted>().to_value(),
        ),
        (
            "agent: POST /runs/{run}/ask ← Question",
            generator.subschema_for::<Question>().to_value(),
        ),
        (
            "agent: POST /runs/{run}/ask → Answered",
            generator.subschema_for::<Answered>().to_value(),
        ),
        (
            "agent: POST /runs/{run}/claim ← ClaimBody (204; at_ms is the bench's)",
            generator.subschema_for::<ClaimBody>().to_value(),
        ),
        (
            "scorer: GET /runs → RunLine (a list)",
            generator.subschema_for::<RunLine>().to_value(),
        ),
        (
            "scorer: GET /runs/{run} → RunReport",
            generator.subschema_for::<RunReport>().to_value(),
        ),
        (
            "scorer: GET /runs/{run}/log → LoggedRequest (a list)",
            generator.subschema_for::<LoggedRequest>().to_value(),
        ),
        (
            "scorer: GET /scorecard → Scorecard",
            generator.subschema_for::<Scorecard>().to_value(),
        ),
    ];
    let mut defs: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    defs.insert(
        "Error".into(),
        json!({
            "description": "Every refusal, on either side, whatever its status.",
            "type": "object",
            "properties": { "error": { "type": "string" } },
            "required": ["error"]
        }),
    );
    let routes: Map<String, Value> = routes
        .into_iter()
        .map(|(route, schema)| (route.to_owned(), schema))
        .collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "CancelBench serve interfaces",
        "description": "The agent's side and the scorer's side of `subterminator bench serve` (host/bench/README.md). x-routes names the body each route takes (←) or answers (→); every refusal is an Error.",
        "x-routes": routes,
        "$defs": defs,
    })
}

fn titled(mut schema: Value, title: &str, description: &str) -> Value {
    if let Some(object) = schema.as_object_mut() {
        object.insert("title".into(), title.into());
        object.insert("description".into(), description.into());
    }
    schema
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    /// The schemas in the repository are the types' own; with
    /// SUBTERMINATOR_WRITE_SCHEMAS=1 they are written again.
    #[test]
    fn the_schema_files_are_the_types_own() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
        let write = std::env::var_os("SUBTERMINATOR_WRITE_SCHEMAS").is_some();
        for (name, schema) in all() {
            let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
            let path = folder.join(name);
            if write {
                std::fs::write(&path, &text).unwrap();
                continue;
            }
            let kept = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                kept == text,
                "{name} is not the types' schema: run SUBTERMINATOR_WRITE_SCHEMAS=1 cargo test -p subterminator-bench schema"
            );
        }
    }

    /// A record and a scorecard the bench writes are valid by their own
    /// schema's required fields (a cheap check that the schema describes
    /// what is written, not only what is read).
    #[test]
    fn what_is_written_has_every_required_field() {
        let card = serde_json::to_value(crate::report::scorecard(&[])).unwrap();
        let schema = scorecard();
        for field in schema["required"].as_array().unwrap() {
            assert!(card.get(field.as_str().unwrap()).is_some(), "{field}");
        }
    }
}
