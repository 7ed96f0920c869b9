//! `config.toml` in the config directory. Every field is optional; the
//! command line wins over the environment, which wins over this file.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// The model that drives the browser.
    ///
    /// ```toml
    /// model = "claude-opus-4-6"
    /// # or a local one:
    /// model = "ollama:qwen2.5:7b"
    /// ```
    pub model: Option<String>,

    /// Where the model's API lives, for OpenAI-compatible local servers.
    /// Follows the provider SDKs: OpenAI URLs include `/v1`.
    ///
    /// ```toml
    /// base-url = "http://localhost:11434/v1"
    /// ```
    pub base_url: Option<String>,

    #[serde(default)]
    pub browser: BrowserConfig,

    #[serde(default)]
    pub agent: AgentConfig,

    #[serde(default)]
    pub plugins: PluginsConfig,

    #[serde(default)]
    pub mcp: McpConfig,

    /// List prices per model name prefix, US dollars per million tokens,
    /// for the cost shown after each run; they add to or override the
    /// defaults (`llm::pricing`). The longest matching prefix wins.
    ///
    /// ```toml
    /// [prices.claude-opus-4-6]
    /// input = 5.0
    /// output = 25.0
    /// cache-read = 0.5
    /// cache-write = 6.25
    /// ```
    #[serde(default)]
    pub prices: std::collections::BTreeMap<String, crate::llm::pricing::Price>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct McpConfig {
    /// Seconds a `subterminator mcp` session may stay idle before its
    /// browser is closed (`--idle-timeout` wins).
    ///
    /// ```toml
    /// [mcp]
    /// idle-timeout = 3600
    /// ```
    pub idle_timeout: Option<u64>,

    /// The most browser sessions `subterminator mcp` keeps open at once
    /// (`--max-sessions` wins).
    ///
    /// ```toml
    /// [mcp]
    /// max-sessions = 4
    /// ```
    pub max_sessions: Option<usize>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct PluginsConfig {
    /// Where `plugin install <id>` looks ids up: a local index file, or an
    /// https URL of one. Each entry gives a plugin's id, version, API range,
    /// URL and SHA-256.
    ///
    /// ```toml
    /// [plugins]
    /// index = "https://plugins.example.org/index.toml"
    /// # or
    /// index = "/home/me/plugins/index.toml"
    /// ```
    pub index: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BrowserConfig {
    /// The Chrome or Chromium to drive, when it is not found on its own.
    ///
    /// ```toml
    /// [browser]
    /// executable = "/usr/bin/chromium"
    /// ```
    pub executable: Option<PathBuf>,

    /// Run the browser without a window.
    ///
    /// ```toml
    /// [browser]
    /// headless = true
    /// ```
    pub headless: Option<bool>,

    /// Start the Playwright MCP server with this command instead of the
    /// pinned `npx -y @playwright/mcp@<version>`.
    ///
    /// ```toml
    /// [browser]
    /// command = ["node", "/opt/playwright-mcp/cli.js"]
    /// ```
    pub command: Option<Vec<String>>,

    /// Attach to a browser that already runs instead of starting one: your
    /// own Chrome started with `--remote-debugging-port`, or a browser grid
    /// (Browserless, Selenium Grid 4, Playwright's browser server). Each run
    /// opens a context of its own there and closes only that.
    ///
    /// ```toml
    /// [browser]
    /// cdp-endpoint = "ws://grid.internal:3000/chromium"
    /// ```
    pub cdp_endpoint: Option<String>,

    /// The environment variable holding one header sent when attaching, as
    /// `Name: value` (a grid's token). Only its name is written here, so the
    /// token stays out of the file, the command line and the run record.
    ///
    /// ```toml
    /// [browser]
    /// cdp-headers-env = "GRID_AUTH_HEADER"   # GRID_AUTH_HEADER="Authorization: Bearer …"
    /// ```
    pub cdp_headers_env: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AgentConfig {
    /// The most model turns one run may take.
    ///
    /// ```toml
    /// [agent]
    /// max-turns = 20
    /// ```
    pub max_turns: Option<u32>,

    /// What the model sees: `compact` (seven tools, pruned snapshots) or
    /// `full` (Playwright MCP's own tools and snapshots).
    ///
    /// ```toml
    /// [agent]
    /// tools = "compact"
    /// ```
    pub tools: Option<String>,

    /// Whether the host dismisses cookie banners, promotions and chat
    /// widgets in the way before the next move (on unless set to false).
    ///
    /// ```toml
    /// [agent]
    /// dismiss-interruptions = false
    /// ```
    #[serde(rename = "dismiss-interruptions")]
    pub dismiss_overlays: Option<bool>,
}

impl Config {
    /// Reads `path`; a missing file is an empty config, a bad one an error
    /// that names the file and the field.
    pub fn load(path: &Path) -> Result<Self> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => return Err(Error::io("cannot read the config file", path, e)),
        };
        toml::from_str(&text).map_err(|e| {
            Error::Configuration(format!(
                "{}: {e}\nfix the file, or move it aside to start from the defaults",
                path.display()
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parses_every_field() {
        let config: Config = toml::from_str(
            "model = \"gpt-4o\"\nbase-url = \"http://localhost:11434/v1\"\n[browser]\nexecutable = \"/usr/bin/chromium\"\nheadless = true\ncommand = [\"node\", \"cli.js\"]\n[agent]\nmax-turns = 7\ntools = \"full\"\n[mcp]\nidle-timeout = 60\nmax-sessions = 2\n",
        )
        .unwrap();
        assert_eq!(config.model.as_deref(), Some("gpt-4o"));
        assert_eq!(config.browser.headless, Some(true));
        assert_eq!(config.agent.max_turns, Some(7));
        assert_eq!(config.mcp.idle_timeout, Some(60));
        assert_eq!(config.mcp.max_sessions, Some(2));
    }

    #[test]
    fn unknown_fields_are_errors_naming_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "modle = \"gpt-4o\"\n").unwrap();
        let err = Config::load(&path).unwrap_err().to_string();
        assert!(
            err.contains("modle") && err.contains("config.toml"),
            "{err}"
        );
    }

    #[test]
    fn a_missing_file_is_empty() {
        let config = Config::load(Path::new("/nonexistent/config.toml")).unwrap();
        assert!(config.model.is_none());
    }
}
