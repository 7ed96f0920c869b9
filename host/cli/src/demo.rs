//! `subterminator demo`: the real agent, browser, sandbox and checkpoints on
//! the bundled practice site, with no account and, without a key, no model.

use clap::Args;

use super::cancel::RunArgs;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::exit::EXIT_SUCCESS;
use subterminator_core::paths::Dirs;
use subterminator_core::session::{self, OFFLINE_MODEL};
use subterminator_practice::{FlowSite, PracticeSite, SiteOptions};

/// The bundled plugin that knows the practice site.
pub const PRACTICE_SERVICE: &str = "practice";

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator demo                              StreamFlix; offline unless a model key is set\n  \
    subterminator demo spotify                      Spotify's flow, driven by the spotify plugin\n  \
    subterminator demo hulu --variant bundle        billed by Disney+: a clear failure, no yes\n  \
    subterminator demo --generic                    a gym no plugin knows: `cancel <address>`'s run\n  \
    subterminator demo --list                       every practice flow and its variants\n  \
    subterminator demo spotify --serve              only serve the flow (to record fixtures)\n  \
    subterminator demo --model offline              always offline\n  \
    subterminator demo --model claude-opus-4-6      Claude drives (needs ANTHROPIC_API_KEY)\n  \
    subterminator demo --model ollama:qwen2.5:7b --base-url http://gpu:11434/v1  a remote Ollama\n  \
    subterminator demo --sign-in                    the StreamFlix site asks you to sign in first\n  \
    subterminator demo --dry-run                    show the first action, do nothing\n  \
    subterminator demo --tools full --max-turns 15  Playwright MCP's own tools; 15 turns at most\n  \
    subterminator demo --vision                     also send screenshots (more tokens)\n  \
    subterminator demo --cdp-endpoint http://127.0.0.1:9222  in a Chrome that already runs\n  \
    subterminator demo --replay                     the path that worked last time, no model\n  \
    subterminator demo --browser /usr/bin/chromium  drive this browser\n  \
    subterminator demo -v                           show arguments and pages (-vv: logs)\n  \
    subterminator demo --json                       print the result as one JSON object\n  \
    yes | subterminator demo --headless             approve every checkpoint from a pipe")]
pub struct DemoArgs {
    /// The service whose practice flow to run: practice (StreamFlix, the
    /// default), netflix (its plugin on StreamFlix) or any bundled service.
    pub service: Option<String>,

    /// A variant of the flow, e.g. retention or billed-elsewhere (`demo --list`).
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,

    /// List the practice flows and their variants, and exit.
    #[arg(long, conflicts_with_all = ["service", "variant", "serve"])]
    pub list: bool,

    /// Run on a practice site no plugin knows (Kraftwerk Fitness, a German
    /// gym with the statutory "Verträge hier kündigen" button), as `cancel
    /// <address>` runs on any site.
    #[arg(long, conflicts_with_all = ["service", "list"])]
    pub generic: bool,

    /// Serve the practice flow and print its address until Ctrl+C; run nothing.
    #[arg(long)]
    pub serve: bool,

    #[command(flatten)]
    pub run: RunArgs,

    /// Make the StreamFlix site ask you to sign in first.
    #[arg(long)]
    pub sign_in: bool,
}

/// The running site a demo drives.
enum Site {
    StreamFlix(PracticeSite),
    Flow(FlowSite),
}

impl Site {
    fn url(&self) -> String {
        match self {
            Site::StreamFlix(site) => site.url(),
            Site::Flow(site) => site.url(),
        }
    }

    fn brand(&self) -> String {
        match self {
            Site::StreamFlix(_) => "StreamFlix".to_owned(),
            Site::Flow(site) => site.brand().to_owned(),
        }
    }

    fn stop(self) {
        match self {
            Site::StreamFlix(site) => site.stop(),
            Site::Flow(site) => site.stop(),
        }
    }
}

pub async fn run(args: DemoArgs, dirs: &Dirs, json: bool, verbose: bool) -> Result<u8> {
    if args.list {
        list(json);
        return Ok(EXIT_SUCCESS);
    }
    let service_id = match (&args.service, args.generic) {
        (_, true) => GENERIC_FLOW.to_owned(),
        (Some(service), false) => service.trim().to_ascii_lowercase(),
        (None, false) => PRACTICE_SERVICE.to_owned(),
    };
    let streamflix = service_id == PRACTICE_SERVICE || service_id == NETFLIX_ON_STREAMFLIX;
    if args.sign_in && !streamflix {
        return Err(Error::Configuration(format!(
            "--sign-in is for the StreamFlix site only; drop it, or run `subterminator demo --sign-in` (not {service_id})"
        )));
    }
    let site = if streamflix {
        if let Some(variant) = &args.variant {
            return Err(Error::Configuration(format!(
                "the StreamFlix site has no variant {variant:?}; variants are for the services' own flows (`subterminator demo --list`)"
            )));
        }
        Site::StreamFlix(
            PracticeSite::serve(SiteOptions {
                require_sign_in: args.sign_in,
                ..SiteOptions::default()
            })
            .await
            .map_err(practice_error)?,
        )
    } else {
        let flow = subterminator_practice::flow::load(&service_id, args.variant.as_deref())
            .map_err(practice_error)?;
        Site::Flow(FlowSite::serve(flow).await.map_err(practice_error)?)
    };
    if args.serve {
        return serve_only(site, &service_id, json).await;
    }
    let config = Config::load(&dirs.config_file())?;
    let mut spec = args.run.spec(&config, json, verbose)?;
    if spec.model.is_none() && !model_configured(&config) {
        spec.model = Some(OFFLINE_MODEL.into());
    }
    // The demo never touches the user's signed-in profile.
    spec.isolated = true;
    let registry = subterminator_core::plugin::load_registry(dirs).await?;
    let service = match registry.get(&service_id) {
        Ok(service) => {
            spec.start_url = Some(site.url());
            service.clone()
        }
        // A practice site no plugin knows: the generic service, made from
        // its address as `cancel <address>` makes it.
        Err(_) => {
            let address = site.url();
            let brand = site.brand();
            super::cancel::service_named(&registry, &address, None, false)
                .await
                .map(|mut service| {
                    // The practice site's own name reads better than its port.
                    service.metadata.display_name = brand;
                    service
                })?
        }
    };
    session::check_replay(&spec, dirs, &service)?;
    let driver = session::driver(&spec, &config, &service)?;
    let code = crate::run::run(dirs, &config, &service, &spec, driver).await;
    site.stop();
    code
}

/// The practice site `demo --generic` runs: a gym no plugin knows.
const GENERIC_FLOW: &str = "kraftwerk";

/// The Netflix plugin runs on the StreamFlix site, which is shaped like it.
const NETFLIX_ON_STREAMFLIX: &str = "netflix";

/// `demo --serve`: the site alone, for a person or `plugin record`.
/// The practice crate's failure as the host's, for its exit code: a flow
/// that does not read is the configuration's; a socket, the machine's.
fn practice_error(e: subterminator_practice::Error) -> Error {
    match e {
        subterminator_practice::Error::Flow(message) => Error::Configuration(message),
        subterminator_practice::Error::Serve {
            context,
            address,
            source,
        } => Error::io(context, address, source),
    }
}

async fn serve_only(site: Site, service: &str, json: bool) -> Result<u8> {
    let url = site.url();
    if json {
        anstream::println!("{}", serde_json::json!({ "service": service, "url": url }));
    } else {
        anstream::println!("Serving the {service} practice flow at {url}");
        anstream::println!("Press Ctrl+C to stop.");
    }
    session::interrupted().await;
    site.stop();
    Ok(EXIT_SUCCESS)
}

fn list(json: bool) {
    let mut rows = vec![
        [
            PRACTICE_SERVICE.to_owned(),
            "-".to_owned(),
            "StreamFlix, the default (--sign-in: it asks you to sign in first)".to_owned(),
        ],
        [
            NETFLIX_ON_STREAMFLIX.to_owned(),
            "-".to_owned(),
            "the netflix plugin on the StreamFlix site".to_owned(),
        ],
    ];
    for (service, variants) in subterminator_practice::catalogue() {
        rows.push([service.clone(), "-".to_owned(), "the usual flow".to_owned()]);
        for (name, about) in variants {
            rows.push([service.clone(), name, about]);
        }
    }
    if json {
        let flows: Vec<serde_json::Value> = rows
            .iter()
            .map(|[service, variant, about]| {
                serde_json::json!({
                    "service": service,
                    "variant": (variant != "-").then_some(variant),
                    "about": about,
                })
            })
            .collect();
        anstream::println!("{}", serde_json::Value::Array(flows));
    } else {
        super::table::print_table(&["SERVICE", "VARIANT", "WHAT IT SHOWS"], &rows);
    }
}

/// Whether the user has a model to drive with: a choice or any key.
fn model_configured(config: &Config) -> bool {
    let set = |v: &str| std::env::var(v).is_ok_and(|x| !x.trim().is_empty());
    let env_model = std::env::var(subterminator_core::llm::MODEL_ENV).ok();
    subterminator_core::llm::choice::wanted(None, env_model.as_deref(), config.model.as_deref())
        .is_some()
        || set("ANTHROPIC_API_KEY")
        || set("OPENAI_API_KEY")
}
