//! `subterminator demo`: the real agent, browser, sandbox and checkpoints on
//! the bundled practice site, with no account and, without a key, no model.

use clap::Args;

use super::cancel::RunArgs;
use super::session::{self, OFFLINE_MODEL};
use crate::config::Config;
use crate::demo::{PracticeSite, SiteOptions};
use crate::error::Result;
use crate::paths::Dirs;

/// The bundled plugin that knows the practice site.
pub const PRACTICE_SERVICE: &str = "practice";

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator demo                              offline policy, unless a model key is set\n  \
    subterminator demo --model offline              always offline\n  \
    subterminator demo --model claude-opus-4-6      Claude drives (needs ANTHROPIC_API_KEY)\n  \
    subterminator demo --model ollama:qwen2.5:7b --base-url http://gpu:11434/v1  a remote Ollama\n  \
    subterminator demo --sign-in                    the practice site asks you to sign in first\n  \
    subterminator demo --dry-run                    show the first action, do nothing\n  \
    subterminator demo --tools full --max-turns 15  Playwright MCP's own tools; 15 turns at most\n  \
    subterminator demo --vision                     also send screenshots (more tokens)\n  \
    subterminator demo --browser /usr/bin/chromium  drive this browser\n  \
    subterminator demo -v                           show arguments and pages (-vv: logs)\n  \
    subterminator demo --json                       print the result as one JSON object\n  \
    yes | subterminator demo --headless             approve every checkpoint from a pipe")]
pub struct DemoArgs {
    #[command(flatten)]
    pub run: RunArgs,

    /// Make the practice site ask you to sign in first.
    #[arg(long)]
    pub sign_in: bool,
}

pub async fn run(args: DemoArgs, dirs: &Dirs, json: bool, verbose: bool) -> Result<u8> {
    let config = Config::load(&dirs.config_file())?;
    let mut spec = args.run.spec(&config, json, verbose)?;
    if spec.model.is_none() && !model_configured(&config) {
        spec.model = Some(OFFLINE_MODEL.into());
    }
    let site = PracticeSite::serve(SiteOptions {
        require_sign_in: args.sign_in,
        ..SiteOptions::default()
    })
    .await?;
    spec.start_url = Some(site.url());
    // The demo never touches the user's signed-in profile.
    spec.isolated = true;
    let registry = super::load_registry(dirs).await?;
    let service = registry.get(PRACTICE_SERVICE)?;
    let driver = session::driver(&spec, &config, service)?;
    let code = session::run(dirs, &config, service, &spec, driver).await;
    site.stop();
    code
}

/// Whether the user has a model to drive with: a choice or any key.
fn model_configured(config: &Config) -> bool {
    let set = |v: &str| std::env::var(v).is_ok_and(|x| !x.trim().is_empty());
    let env_model = std::env::var(crate::llm::MODEL_ENV).ok();
    crate::llm::choice::wanted(None, env_model.as_deref(), config.model.as_deref()).is_some()
        || set("ANTHROPIC_API_KEY")
        || set("OPENAI_API_KEY")
}
