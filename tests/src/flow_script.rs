//! The scripted model for the bundled services' practice flows: each
//! service's `plugins/<id>/script.toml` says what a capable model would
//! click there, so one handler drives all ten with the compact tools.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::json;

use crate::compact_script::{find, snapshot_in};
use crate::model_server::{RecordedRequest, Reply};

/// `plugins/<id>/script.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Text in a heading that means the flow is done.
    pub done: String,
    /// `[role, name]` to click, the final step first.
    pub click: Vec<[String; 2]>,
    /// `[role, name, value]` to choose before clicking.
    #[serde(default)]
    pub select: Vec<[String; 3]>,
    #[serde(default)]
    pub variant: Vec<Variant>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Variant {
    pub name: String,
    /// Words of the clear failure a run of this variant must end with,
    /// before any yes; none when the variant cancels like the usual flow.
    pub fails_with: Option<String>,
}

/// Every bundled service but Netflix (which runs on the StreamFlix site),
/// each with a practice flow of its own.
pub const FLOW_SERVICES: &[&str] = &[
    "spotify",
    "hulu",
    "disney-plus",
    "max",
    "youtube-premium",
    "amazon-prime",
    "paramount-plus",
    "peacock",
    "nytimes",
];

/// The workspace's `plugins/` folder: one service per folder.
pub fn plugins_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new(".."))
        .join("plugins")
}

impl Script {
    pub fn load(service: &str) -> anyhow::Result<Script> {
        let path = plugins_dir().join(service).join("script.toml");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// A model handler that follows this script on the compact toolset.
    pub fn handler(self) -> impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static {
        move |request| self.answer(request)
    }

    fn answer(&self, request: &RecordedRequest) -> Reply {
        let input = request.latest_input().unwrap_or_default();
        let Some(page) = snapshot_in(&input) else {
            return Reply::tool("get_snapshot", json!({}));
        };
        let elements = page["elements"].as_array().cloned().unwrap_or_default();
        let done = self.done.to_lowercase();
        let finished = elements.iter().any(|e| {
            e["role"] == "heading"
                && e["name"]
                    .as_str()
                    .is_some_and(|n| n.to_lowercase().contains(&done))
        });
        if finished {
            return Reply::tool(
                "complete_task",
                json!({"status": "success", "reason": "The page says it is cancelled."}),
            );
        }
        for [role, name, value] in &self.select {
            let Some(reference) = find(&page, role, name) else {
                continue;
            };
            let chosen = elements
                .iter()
                .find(|e| e["ref"] == reference.as_str())
                .is_some_and(|e| e["value"] == value.as_str());
            if !chosen {
                return Reply::tool("browser_select", json!({"ref": reference, "value": value}));
            }
        }
        self.click
            .iter()
            .find_map(|[role, name]| find(&page, role, name))
            .map(|reference| Reply::tool("browser_click", json!({"ref": reference})))
            .unwrap_or_else(|| {
                // What it wants may be below the fold, as a person would scroll.
                if page["offscreen"].as_u64().unwrap_or(0) > 0 {
                    Reply::tool(
                        "browser_scroll",
                        json!({"direction": "down", "amount": 800}),
                    )
                } else {
                    Reply::text("I do not know what to do on this page.")
                }
            })
    }
}
