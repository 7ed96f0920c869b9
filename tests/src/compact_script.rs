//! A scripted model for the compact toolset's seven tools: it
//! reads the snapshot JSON in the latest input and answers as a capable
//! model would, cancelling on the practice site.

use serde_json::{Value, json};

use crate::model_server::{RecordedRequest, Reply};

/// The latest full snapshot object in `text` (a tool result or the goal).
pub fn snapshot_in(text: &str) -> Option<Value> {
    let at = text.find("{\"snapshot_id\":")?;
    serde_json::Deserializer::from_str(&text[at..])
        .into_iter::<Value>()
        .next()?
        .ok()
        .filter(|v| v["elements"].is_array())
}

/// The `@eN` of `role "name"` in a snapshot.
pub fn find(snapshot: &Value, role: &str, name: &str) -> Option<String> {
    snapshot["elements"]
        .as_array()?
        .iter()
        .find(|e| e["role"] == role && e["name"] == name)
        .and_then(|e| e["ref"].as_str().map(str::to_owned))
}

/// Cancels the membership on the practice site with the compact tools.
pub fn compact_canceller(request: &RecordedRequest) -> Reply {
    let input = request.latest_input().unwrap_or_default();
    let Some(page) = snapshot_in(&input) else {
        return Reply::tool("get_snapshot", json!({}));
    };
    let heading = |text: &str| {
        page["elements"].as_array().is_some_and(|all| {
            all.iter().any(|e| {
                e["role"] == "heading" && e["name"].as_str().is_some_and(|n| n.contains(text))
            })
        })
    };
    if heading("has been cancelled") {
        return Reply::tool(
            "complete_task",
            json!({"status": "success", "reason": "The page says it is cancelled."}),
        );
    }
    let click = |name: &str| {
        find(&page, "button", name).map(|r| Reply::tool("browser_click", json!({"ref": r})))
    };
    if let Some(reply) = click("Finish Cancellation") {
        return reply;
    }
    if let Some(reason) = find(&page, "combobox", "Reason for leaving") {
        let chosen = page["elements"]
            .as_array()
            .and_then(|all| all.iter().find(|e| e["ref"] == reason.as_str()))
            .is_some_and(|e| e["value"] == "Other");
        if !chosen {
            return Reply::tool("browser_select", json!({"ref": reason, "value": "Other"}));
        }
    }
    ["Continue to Cancel", "Continue", "Cancel Membership"]
        .iter()
        .find_map(|name| click(name))
        .unwrap_or_else(|| Reply::text("I do not know what to do on this page."))
}
