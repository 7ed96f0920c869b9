//! `subterminator cancel <service>`.

use std::path::PathBuf;

use clap::Args;

use crate::agent::DEFAULT_MAX_TURNS;
use crate::config::Config;
use crate::error::Result;
use crate::paths::Dirs;
use crate::session::{self, SessionSpec, ToolsArg};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator cancel netflix                                 the configured model, else Claude\n  \
    subterminator cancel netflix --model gpt-4o                  OpenAI (needs OPENAI_API_KEY)\n  \
    subterminator cancel netflix --model ollama:qwen2.5:7b       a model on this computer, no key\n  \
    subterminator cancel netflix --base-url http://gpu:11434/v1  a model served by another computer\n  \
    subterminator cancel netflix --dry-run                       show the first action, do nothing\n  \
    subterminator cancel netflix --isolated                      a throwaway browser profile\n  \
    subterminator cancel netflix --headless --max-turns 30       no window; give up after 30 turns\n  \
    subterminator cancel netflix --tools full                    Playwright MCP's own tools and pages\n  \
    subterminator cancel netflix --vision                        also send screenshots (more tokens)\n  \
    subterminator cancel netflix --replay                        last time's path, no model\n  \
    subterminator cancel netflix --browser /usr/bin/chromium     drive this browser\n  \
    subterminator cancel netflix -v                              show arguments and pages (-vv: logs)\n  \
    subterminator cancel netflix --json                          print the result as one JSON object\n  \
    subterminator cancel netflix --start-url http://localhost:8080/  a local copy of the site\n  \
    subterminator cancel netflix --start-url http://localhost:8080/ --no-checkpoint  tests only\n\n\
    Exit codes: 0 verified success, 1 failed / not verified / rejected, 2 configuration, 3 connection, 130 Ctrl+C.")]
pub struct CancelArgs {
    /// The service to cancel, e.g. netflix (see `subterminator services`).
    pub service: String,

    #[command(flatten)]
    pub run: RunArgs,

    /// Run the service's plugin against a local copy of its site (for plugin
    /// development and tests); that URL's origin joins the allowed origins.
    #[arg(long, value_name = "URL")]
    pub start_url: Option<String>,

    /// Use a throwaway browser profile instead of your signed-in one.
    #[arg(long)]
    pub isolated: bool,
}

/// Flags every run takes.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The model: claude-*, gpt-*, o-series, provider:model (ollama:qwen2.5:7b), or `offline`.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// The model server's base URL (OpenAI-compatible ones include /v1).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// The most turns the run may take.
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,

    /// Show the model's first proposed action and execute nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Run the browser without a window.
    #[arg(long)]
    pub headless: bool,

    /// Skip human checkpoints. FOR TESTING ONLY: nothing will ask before irreversible steps.
    #[arg(long)]
    pub no_checkpoint: bool,

    /// What the model sees: compact (seven tools, pruned pages) or full (Playwright MCP's own).
    #[arg(long, value_enum, value_name = "PROFILE")]
    pub tools: Option<ToolsArg>,

    /// Send the model a screenshot with every snapshot (compact tools only);
    /// image tokens cost more than the text, so it is off by default.
    #[arg(long)]
    pub vision: bool,

    /// The Chrome or Chromium executable to drive.
    #[arg(long, value_name = "PATH")]
    pub browser: Option<PathBuf>,

    /// Follow the path that worked last time with no model; where the page
    /// differs, the model (or the plugin's plan, offline) takes over.
    #[arg(long)]
    pub replay: bool,
}

impl RunArgs {
    pub fn spec(&self, config: &Config, json: bool, verbose: bool) -> Result<SessionSpec> {
        let tools = match (self.tools, config.agent.tools.as_deref()) {
            (Some(tools), _) => tools,
            (None, Some("full")) => ToolsArg::Full,
            (None, Some("compact") | None) => ToolsArg::Compact,
            (None, Some(other)) => {
                return Err(crate::Error::Configuration(format!(
                    "config: agent.tools = {other:?}; set it to \"compact\" or \"full\" in config.toml"
                )));
            }
        };
        Ok(SessionSpec {
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            max_turns: self
                .max_turns
                .or(config.agent.max_turns)
                .unwrap_or(DEFAULT_MAX_TURNS),
            dry_run: self.dry_run,
            checkpoints: !self.no_checkpoint,
            headless: self.headless,
            start_url: None,
            tools,
            vision: self.vision,
            dismiss_interruptions: config.agent.dismiss_interruptions.unwrap_or(true),
            replay: self.replay,
            browser: self.browser.clone(),
            isolated: false,
            json,
            verbose,
        })
    }
}

pub async fn run(args: CancelArgs, dirs: &Dirs, json: bool, verbose: bool) -> Result<u8> {
    let config = Config::load(&dirs.config_file())?;
    let mut spec = args.run.spec(&config, json, verbose)?;
    if spec.max_turns == 0 {
        return Err(crate::Error::Configuration(
            "--max-turns must be at least 1; pass a number such as --max-turns 20".into(),
        ));
    }
    spec.start_url = args.start_url;
    spec.isolated = args.isolated;
    let registry = crate::plugin::load_registry(dirs).await?;
    let service = registry.get(&args.service)?;
    session::start_url(&spec, service)?;
    session::check_replay(&spec, dirs, service)?;
    let driver = session::driver(&spec, &config, service)?;
    session::run(dirs, &config, service, &spec, driver).await
}
