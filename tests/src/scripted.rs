//! Scripted models for end-to-end tests and benchmarks: handlers for the
//! scripted model server that read the page in the latest input and answer
//! as a capable model would.

use serde_json::json;

use crate::model_server::{RecordedRequest, Reply};

/// The ref of `role "name"` in a Playwright YAML page (`--tools full`).
pub fn find_ref(page: &str, role: &str, name: &str) -> Option<String> {
    let needle = format!("- {role} \"{name}\"");
    page.lines()
        .find(|l| l.trim_start().starts_with(&needle))
        .and_then(|line| {
            let at = line.find("[ref=")? + 5;
            Some(line[at..].split(']').next()?.to_owned())
        })
}

fn click(page: &str, name: &str) -> Option<Reply> {
    let target = find_ref(page, "button", name)?;
    Some(Reply::tool(
        "browser_click",
        json!({"element": name, "target": target}),
    ))
}

/// Cancels the membership on the practice site with Playwright MCP's own
/// tools (`--tools full`).
pub fn canceller(request: &RecordedRequest) -> Reply {
    let page = request.latest_input().unwrap_or_default();
    if page.contains("has been cancelled") {
        return Reply::tool(
            "complete_task",
            json!({"status": "success", "reason": "The page says it is cancelled."}),
        );
    }
    if let Some(reply) = click(&page, "Finish Cancellation") {
        return reply;
    }
    if let Some(target) = find_ref(&page, "combobox", "Reason for leaving")
        && !page.contains("option \"Other\" [selected]")
    {
        return Reply::tool(
            "browser_select_option",
            json!({"element": "Reason for leaving", "target": target, "values": ["Other"]}),
        );
    }
    ["Continue to Cancel", "Continue", "Cancel Membership"]
        .iter()
        .find_map(|name| click(&page, name))
        .unwrap_or_else(|| Reply::text("I do not know what to do on this page."))
}

/// The key the scripted runs send; never a real one.
pub const SCRIPTED_ANTHROPIC_KEY: &str = "sk-ant-scripted-run";

/// The scripted canceller for a toolset, `compact` or `full`.
pub fn canceller_for(tools: &str) -> fn(&RecordedRequest) -> Reply {
    if tools == "compact" {
        crate::compact_script::compact_canceller
    } else {
        canceller
    }
}

/// `cancel netflix` against the practice site at `site` as a local copy,
/// with `--tools tools`, headless on a throwaway profile, driven by `model`
/// in Anthropic's format.
pub fn cancel_netflix(
    home: &std::path::Path,
    site: &str,
    model: &crate::model_server::ModelServer,
    tools: &str,
) -> tokio::process::Command {
    let mut command = crate::e2e::command(home);
    command
        .args(["cancel", "netflix", "--start-url", site, "--tools", tools])
        .args(["--headless", "--isolated", "--model", "claude-opus-4-6"])
        .arg("--model-drives")
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    command
}
