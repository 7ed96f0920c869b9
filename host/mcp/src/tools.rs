//! What the client's model sees: names, descriptions and schemas it can
//! understand at first sight. The browser tools are the compact toolset's
//! own, with their schemas, plus the session they act in.

use std::sync::{Arc, LazyLock};

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};

use subterminator_core::agent::toolset::compact::tools as compact;

pub const LIST_SERVICES: &str = "list_services";
pub const CANCEL_SUBSCRIPTION: &str = "cancel_subscription";
pub const SNAPSHOT: &str = "browser_snapshot";
pub const CLICK: &str = compact::CLICK;
pub const FILL: &str = compact::FILL;
pub const SELECT: &str = compact::SELECT;
pub const SCROLL: &str = compact::SCROLL;
pub const DIALOG: &str = compact::DIALOG;
pub const SCREENSHOT: &str = "browser_screenshot";
pub const FINISH: &str = "finish_cancellation";
pub const CLOSE: &str = "browser_close";

/// The agent's name for a browser tool the client calls, for the tools
/// that are turns of the run.
pub fn agent_tool(name: &str) -> Option<&'static str> {
    Some(match name {
        SNAPSHOT => compact::GET_SNAPSHOT,
        CLICK => compact::CLICK,
        FILL => compact::FILL,
        SELECT => compact::SELECT,
        SCROLL => compact::SCROLL,
        DIALOG => compact::DIALOG,
        FINISH => subterminator_core::agent::COMPLETE_TASK,
        _ => return None,
    })
}

/// Arguments every tool takes that the agent does not: which session, and
/// for the call that starts one, which service and profile.
pub const SESSION_ARGS: &[&str] = &["session_id", "service", "start_url", "isolated"];

fn session_id() -> Value {
    json!({
        "type": "string",
        "pattern": "^[A-Za-z0-9_-]{1,64}$",
        "description": "Which browser session; each has a browser of its own. Default: \"default\"."
    })
}

fn service() -> Value {
    json!({"type": "string", "description": "The service's id from list_services, e.g. \"netflix\", or the address of a site no plugin knows, e.g. \"crunchyroll.com\" (the host's own rules, no plugin)."})
}

fn start_url() -> Value {
    json!({
        "type": "string",
        "description": "Start here instead of the service's own start page: another page of the service's own sites, or a copy of its site on this machine (http://127.0.0.1:PORT/…, for testing plugins). Any other address is refused."
    })
}

fn isolated() -> Value {
    json!({
        "type": "boolean",
        "description": "true: a throwaway browser profile (signed out). false: the person's signed-in profile for this service, which one session at a time may hold."
    })
}

/// `schema` with the session argument added.
fn in_session(mut schema: Value) -> Value {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.insert("session_id".into(), session_id());
    }
    schema
}

/// An input schema, closed: an argument it does not name is refused (a
/// misspelt `dry_rum: true` must not run for real).
fn object(schema: Value) -> Arc<Map<String, Value>> {
    let mut map = match schema {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.insert("additionalProperties".into(), Value::Bool(false));
    Arc::new(map)
}

fn tool(name: &'static str, title: &str, description: &str, schema: Value) -> Tool {
    Tool::new(name, description.to_owned(), object(schema)).with_title(title)
}

fn compact_schema(name: &str) -> Value {
    compact::specs()
        .into_iter()
        .find(|s| s.name == name)
        .map(|s| s.input_schema)
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}))
}

/// Every tool, in the order a model should read them.
pub fn all() -> &'static [Tool] {
    static ALL: LazyLock<Vec<Tool>> = LazyLock::new(build);
    &ALL
}

/// The tool called `name`.
pub fn find(name: &str) -> Option<&'static Tool> {
    all().iter().find(|t| t.name == name)
}

fn build() -> Vec<Tool> {
    let read_only = ToolAnnotations::new().read_only(true).destructive(false);
    let acting = ToolAnnotations::new().read_only(false).destructive(true);
    let mut snapshot_schema = in_session(compact_schema(compact::GET_SNAPSHOT));
    if let Some(properties) = snapshot_schema
        .get_mut("properties")
        .and_then(Value::as_object_mut)
    {
        properties.insert("service".into(), service());
        properties.insert("start_url".into(), start_url());
        properties.insert("isolated".into(), isolated());
    }
    vec![
        tool(
            LIST_SERVICES,
            "List cancellable services",
            "The subscriptions this server can cancel: each service's id, name and the page it starts on. \
             Call this first to find the id to pass as `service`.",
            json!({"type": "object", "properties": {}}),
        )
        .annotate(read_only.clone()),
        tool(
            CANCEL_SUBSCRIPTION,
            "Cancel a subscription",
            "Cancel the person's subscription to `service` in their own browser, driven by subterminator's own agent. \
             The person is asked (an approval prompt with a screenshot) before every irreversible step; a no stops it. \
             Progress is reported each turn. Returns the outcome (verified or not), turns, tokens and the run record's path. \
             Use dry_run to see the first step without doing it. To drive the browser yourself instead, use browser_snapshot.",
            json!({
                "type": "object",
                "properties": {
                    "service": service(),
                    "dry_run": {"type": "boolean", "default": false, "description": "Show the first action and do nothing."},
                    "start_url": start_url(),
                    "isolated": isolated(),
                    "session_id": session_id()
                },
                "required": ["service"]
            }),
        )
        .annotate(acting.clone()),
        tool(
            SNAPSHOT,
            "Look at the page",
            "Start a browser session for `service` (first call) or look at its page again. Returns \
             {success, error, message?, snapshot{page{url,title}, elements[{ref,role,name,...}]}}. Refs (@e0…) are \
             valid for that snapshot only; every browser tool returns a fresh one. The session may only visit the \
             service's own sites. Pass `service` on the first call; later calls in the session may omit it.",
            snapshot_schema,
        )
        .annotate(read_only.clone()),
        tool(
            CLICK,
            "Click an element",
            "Click an element by its ref from the latest snapshot. Irreversible clicks (the final cancel button, \
             an offer) wait for the person's yes; a no ends the session. Returns the fresh snapshot, or an error \
             with what to do. Example: {\"ref\":\"@e7\"}",
            in_session(compact_schema(compact::CLICK)),
        )
        .annotate(acting.clone()),
        tool(
            FILL,
            "Type into a field",
            "Type a value into a text field by ref, replacing its text. Never a password. Returns the fresh snapshot. \
             Example: {\"ref\":\"@e3\",\"value\":\"too expensive\"}",
            in_session(compact_schema(compact::FILL)),
        )
        .annotate(acting.clone()),
        tool(
            SELECT,
            "Choose an option",
            "Choose an option of a dropdown by ref; the snapshot lists its options. Returns the fresh snapshot. \
             Example: {\"ref\":\"@e5\",\"value\":\"Too expensive\"}",
            in_session(compact_schema(compact::SELECT)),
        )
        .annotate(acting.clone()),
        tool(
            SCROLL,
            "Scroll",
            "Scroll an element into view (ref) or the page (direction, amount in px) to reach off-screen elements. \
             Example: {\"direction\":\"down\",\"amount\":600}",
            in_session(compact_schema(compact::SCROLL)),
        )
        .annotate(read_only.clone()),
        tool(
            DIALOG,
            "Answer a dialog",
            "Accept or dismiss the confirm or prompt dialog the page has open; nothing else works until then. \
             Accepting one after an irreversible step waits for the person's yes. Example: {\"accept\":false}",
            in_session(compact_schema(compact::DIALOG)),
        )
        .annotate(acting.clone()),
        tool(
            SCREENSHOT,
            "Screenshot",
            "A PNG of the session's page as it is now. Changes nothing.",
            in_session(json!({"type": "object", "properties": {}})),
        )
        .annotate(read_only.clone()),
        tool(
            FINISH,
            "Finish the cancellation",
            "Say the goal is reached (status \"success\") or cannot be (\"failed\"). A success is checked against the \
             page: only a confirmation shown after the person approved the final step counts; otherwise you are told \
             what is missing and may go on. Ends the session's run once verified.",
            in_session(json!({
                "type": "object",
                "properties": {
                    "status": {"type": "string", "enum": ["success", "failed"], "description": "Whether the goal was achieved"},
                    "reason": {"type": "string", "description": "What you saw"}
                },
                "required": ["status", "reason"]
            })),
        )
        .annotate(read_only.clone()),
        tool(
            CLOSE,
            "Close the session",
            "Close the session's browser and end its run; returns how the run ended and the path of its record. \
             Call it when you are done, whatever the outcome.",
            in_session(json!({"type": "object", "properties": {}})),
        )
        .annotate(read_only),
    ]
}

/// The tool's arguments without the session's own: what the agent validates.
pub fn agent_arguments(arguments: &Map<String, Value>) -> Value {
    Value::Object(
        arguments
            .iter()
            .filter(|(k, _)| !SESSION_ARGS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_a_title_and_a_description() {
        let tools = all();
        assert_eq!(tools.len(), 11);
        for t in tools {
            assert_eq!(
                t.input_schema.get("type").and_then(Value::as_str),
                Some("object"),
                "{}",
                t.name
            );
            assert!(t.title.is_some(), "{}", t.name);
            assert!(
                t.description.as_deref().is_some_and(|d| d.len() > 40),
                "{}",
                t.name
            );
        }
    }

    #[test]
    fn browser_tools_map_to_the_agents_and_take_a_session() {
        for t in all() {
            let browser = t.name.starts_with("browser_") || t.name == FINISH;
            if browser {
                let properties = t.input_schema.get("properties").and_then(Value::as_object);
                assert!(
                    properties.is_some_and(|p| p.contains_key("session_id")),
                    "{}",
                    t.name
                );
            }
            let turn = agent_tool(&t.name).is_some();
            assert_eq!(
                turn,
                browser && t.name != SCREENSHOT && t.name != CLOSE,
                "{}",
                t.name
            );
        }
    }

    #[test]
    fn session_arguments_never_reach_the_agent() {
        let args = json!({"ref": "@e1", "session_id": "a", "service": "netflix", "isolated": true});
        let Value::Object(map) = args else {
            unreachable!()
        };
        assert_eq!(agent_arguments(&map), json!({"ref": "@e1"}));
    }
}
