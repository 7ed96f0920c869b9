//! `subterminator cancel <service>`.

use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;

use subterminator_core::agent::DEFAULT_MAX_TURNS;
use subterminator_core::batch;
use subterminator_core::config::Config;
use subterminator_core::error::Result;
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::generic::{self, Address};
use subterminator_core::plugin::{PluginError, Registry, ServiceEntry};
use subterminator_core::session::{self, SessionSpec, Tools};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator cancel netflix                                 the configured model, else Claude\n  \
    subterminator cancel crunchyroll.com                         any site, no plugin needed\n  \
    subterminator cancel crunchyroll --url crunchyroll.com/account  a name, and where\n  \
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
    subterminator cancel netflix --cdp-endpoint http://127.0.0.1:9222  your Chrome, started\n  \
                                                                 with --remote-debugging-port=9222\n  \
    subterminator cancel netflix spotify hulu --jobs 3           three at once, one prompt queue\n  \
    subterminator cancel a b --start-url a=http://localhost:8080/ --start-url b=http://[::1]:81/\n  \
    subterminator cancel netflix -v                              show arguments and pages (-vv: logs)\n  \
    subterminator cancel netflix --json                          print the result as one JSON object\n  \
    subterminator cancel netflix --start-url http://localhost:8080/  a local copy of the site\n  \
    subterminator cancel netflix --start-url http://localhost:8080/ --no-checkpoint  tests only\n\n\
    Exit codes: 0 verified success, 1 failed / not verified / rejected, 2 configuration, 3 connection, 130 Ctrl+C;\n\
    several services: 0 only if every one verified, else the worst of theirs.")]
pub struct CancelArgs {
    /// The services to cancel: a plugin's id, e.g. netflix (see
    /// `subterminator services`), or any site's address, e.g. crunchyroll.com
    /// (no plugin: the host's own rules and a plan every site shares); several
    /// run side by side, each in a browser of its own.
    #[arg(value_name = "SERVICE", required = true, num_args = 1..)]
    pub services: Vec<String>,

    #[command(flatten)]
    pub run: RunArgs,

    /// Run the service's plugin against a local copy of its site (for plugin
    /// development and tests); that URL's origin joins the allowed origins.
    /// With several services, one per service as SERVICE=URL.
    #[arg(long, value_name = "URL")]
    pub start_url: Vec<String>,

    /// For a service no plugin knows, named by what you call it: its web
    /// address (e.g. --url crunchyroll.com). A service named by its address
    /// needs none.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// Use a throwaway browser profile instead of your signed-in one.
    #[arg(long)]
    pub isolated: bool,

    /// With several services, how many run at once (default 2).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
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

    /// Let the model take every step, the plugin's plan only a hint to it.
    /// By default the plan (or the path remembered) takes each step it finds
    /// on the page, at no token cost, and the model only the others.
    #[arg(long)]
    pub model_drives: bool,

    /// Attach to a browser that already runs instead of starting one (your
    /// Chrome with --remote-debugging-port, or a grid); a context of its own.
    #[arg(long, value_name = "URL")]
    pub cdp_endpoint: Option<String>,

    /// A session of a Playwright MCP server that already runs on this
    /// machine over HTTP, attached to --cdp-endpoint's browser, and the
    /// folder it writes to (`URL,FOLDER`): Node.js and Playwright start once
    /// for many runs, each a browser context of its own, as CancelBench's
    /// runs do. Hidden: the end-to-end tests' way; a person's run starts a
    /// server of its own.
    #[arg(long, hide = true, value_name = "URL,FOLDER")]
    pub served_playwright: Option<String>,
}

impl RunArgs {
    pub fn spec(&self, config: &Config, json: bool, verbose: bool) -> Result<SessionSpec> {
        let tools = match (self.tools, config.agent.tools.as_deref()) {
            (Some(tools), _) => tools.into(),
            (None, Some("full")) => Tools::Full,
            (None, Some("compact") | None) => Tools::Compact,
            (None, Some(other)) => {
                return Err(subterminator_core::Error::Configuration(format!(
                    "config: agent.tools = {other:?}; set it to \"compact\" or \"full\" in config.toml"
                )));
            }
        };
        let attach = session::attach(self.cdp_endpoint.as_deref(), &config.browser)?;
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
            dismiss_overlays: config.agent.dismiss_overlays.unwrap_or(true),
            replay: self.replay,
            model_drives: self.model_drives,
            billing_descriptors: Vec::new(),
            browser: self.browser.clone(),
            attach: attach.clone(),
            served: session::served(self.served_playwright.as_deref(), attach.as_ref())?,
            isolated: false,
            json,
            verbose,
        })
    }
}

pub async fn run(args: CancelArgs, dirs: &Dirs, json: bool, verbose: bool) -> Result<u8> {
    let config = Config::load(&dirs.config_file())?;
    let mut spec = session_spec(&args.run, args.isolated, &config, json, verbose)?;
    let start_urls = start_urls(&args.services, &args.start_url)?;
    let registry = subterminator_core::plugin::load_registry(dirs).await?;
    if args.url.is_some() && args.services.len() > 1 {
        return Err(subterminator_core::Error::Configuration(
            "--url gives one service's address; with several, name each by its address (e.g. `cancel crunchyroll.com babbel.com`)".into(),
        ));
    }
    if let [id] = args.services.as_slice() {
        if args.jobs.is_some() {
            return Err(subterminator_core::Error::Configuration(
                "--jobs is for several services at once; name more than one, or drop --jobs".into(),
            ));
        }
        spec.start_url = start_urls.into_iter().next().flatten();
        let service = service_named(&registry, id, args.url.as_deref(), true).await?;
        reachable(&service, &spec).await?;
        session::start_url(&spec, &service)?;
        session::check_replay(&spec, dirs, &service)?;
        let driver = session::driver(&spec, &config, &service)?;
        return crate::run::run(dirs, &config, &service, &spec, driver).await;
    }
    let jobs = parallel(args.jobs)?;
    let mut planned = Vec::new();
    for (name, start_url) in args.services.iter().zip(start_urls) {
        let service = service_named(&registry, name, None, true).await?;
        let mut spec = spec.clone();
        spec.start_url = start_url;
        reachable(&service, &spec).await?;
        planned.push(planned_job(dirs, &config, spec, service)?);
    }
    batch::check_profiles(&planned)?;
    super::batch::run(dirs, &config, planned, jobs, json, verbose).await
}

/// The service `name` means: a plugin's id; else an address (the plugin that
/// knows that site, else the generic service); else, for a name no plugin
/// knows, the generic service at `url`, or at the address the person types
/// when `ask` and stdin is a terminal.
pub(crate) async fn service_named(
    registry: &Registry,
    name: &str,
    url: Option<&str>,
    ask: bool,
) -> Result<ServiceEntry> {
    if let Some(url) = url {
        if let Ok(service) = registry.get(name) {
            return Err(subterminator_core::Error::Configuration(format!(
                "--url is for a service no plugin knows, and '{}' has one; drop --url (--start-url runs the plugin on a local copy of its site)",
                service.metadata.id
            )));
        }
        return generic_service(registry, url, Some(name)).await;
    }
    match generic::named(registry, name).await {
        Err(unknown @ PluginError::ServiceNotFound { .. }) => {
            let typed = if ask && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
            {
                ask_address(name)?
            } else {
                None
            };
            match typed {
                Some(address) => generic_service(registry, &address, Some(name)).await,
                None => Err(subterminator_core::Error::Configuration(format!(
                    "{unknown}; or, for a service no plugin knows, give its address: `subterminator cancel {eg}.com`, or `subterminator cancel {name} --url https://www.{eg}.com/account`",
                    eg = name
                        .to_lowercase()
                        .replace(|c: char| !c.is_ascii_alphanumeric(), "")
                ))),
            }
        }
        other => Ok(other?),
    }
}

/// The generic service for the address `input`, named `name` when the
/// person named it.
async fn generic_service(
    registry: &Registry,
    input: &str,
    name: Option<&str>,
) -> Result<ServiceEntry> {
    let address = Address::parse(input).map_err(PluginError::from)?;
    Ok(generic::at(registry, address, name.map(str::to_owned)).await?)
}

/// Asks on the terminal for the address of `name`; `None` when the person
/// gives none.
fn ask_address(name: &str) -> Result<Option<String>> {
    anstream::eprint!(
        "No plugin knows '{name}'. Its web address (e.g. {}.com), or Enter to stop: ",
        name.to_lowercase()
    );
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).map_err(|e| {
        subterminator_core::Error::Configuration(format!("cannot read the address: {e}"))
    })?;
    let line = line.trim();
    Ok((!line.is_empty()).then(|| line.to_owned()))
}

/// For the generic service started at its own address: says in one line,
/// with the fix, when the address does not answer, before any browser
/// starts. A local copy (`--start-url`) is the caller's to run.
async fn reachable(service: &ServiceEntry, spec: &SessionSpec) -> Result<()> {
    if service.generic.is_none() || spec.start_url.is_some() || spec.attach.is_some() {
        return Ok(());
    }
    let address = Address::parse(&service.metadata.initial_url).map_err(PluginError::from)?;
    generic::check_reachable(&address)
        .await
        .map_err(|e| subterminator_core::Error::Configuration(e.to_string()))
}

/// One run of a batch, checked (start URL, replay, model) before any browser
/// starts.
fn planned_job(
    dirs: &Dirs,
    config: &Config,
    spec: SessionSpec,
    service: ServiceEntry,
) -> Result<batch::Job> {
    session::start_url(&spec, &service)?;
    session::check_replay(&spec, dirs, &service)?;
    // A model that cannot be reached is found out before any browser starts.
    session::driver(&spec, config, &service)?;
    Ok(batch::Job { service, spec })
}

/// The settings every run of a `cancel` gets, from its flags and the
/// config, checked. `scan --cancel` builds its runs' settings here too.
pub(crate) fn session_spec(
    run: &RunArgs,
    isolated: bool,
    config: &Config,
    json: bool,
    verbose: bool,
) -> Result<SessionSpec> {
    let mut spec = run.spec(config, json, verbose)?;
    if spec.max_turns == 0 {
        return Err(subterminator_core::Error::Configuration(
            "--max-turns must be at least 1; pass a number such as --max-turns 20".into(),
        ));
    }
    spec.isolated = isolated;
    Ok(spec)
}

/// `--jobs`, checked: how many runs of a batch go at once.
pub(crate) fn parallel(jobs: Option<usize>) -> Result<usize> {
    match jobs {
        None => Ok(batch::DEFAULT_JOBS),
        Some(0) => Err(subterminator_core::Error::Configuration(
            "--jobs must be at least 1; pass e.g. --jobs 2".into(),
        )),
        Some(n) if n > batch::MAX_JOBS => Err(subterminator_core::Error::Configuration(format!(
            "--jobs {n} is more than {}; each run is a browser of its own",
            batch::MAX_JOBS
        ))),
        Some(n) => Ok(n),
    }
}

/// The runs of `cancel a b c`, one per service with its start URL, each
/// checked (start URL, replay, model) before any browser starts. `scan
/// --cancel` hands its services to the batch through this too, so that its
/// runs are exactly the ones `cancel` would start.
pub(crate) fn batch_jobs(
    registry: &Registry,
    dirs: &Dirs,
    config: &Config,
    spec: &SessionSpec,
    services: &[String],
    start_urls: Vec<Option<String>>,
) -> Result<Vec<batch::Job>> {
    let mut planned = Vec::new();
    for (id, start_url) in services.iter().zip(start_urls) {
        let mut spec = spec.clone();
        spec.start_url = start_url;
        planned.push(planned_job(dirs, config, spec, registry.get(id)?.clone())?);
    }
    batch::check_profiles(&planned)?;
    Ok(planned)
}

/// The run of the generic service at `address` (a site no plugin knows),
/// checked like any other job; `scan --cancel` hands its no-plugin picks to
/// the batch through this.
pub(crate) async fn generic_job(
    registry: &Registry,
    dirs: &Dirs,
    config: &Config,
    spec: &SessionSpec,
    address: &str,
) -> Result<batch::Job> {
    let service = generic_service(registry, address, None).await?;
    reachable(&service, spec).await?;
    planned_job(dirs, config, spec.clone(), service)
}

/// Each service's `--start-url`: one plain URL for one service, or
/// `SERVICE=URL` per service when several are named. A whole URL is never
/// read as `SERVICE=URL`, though its query has an `=` (`?via=post`): a
/// service's name cannot be a URL's scheme.
fn start_urls(services: &[String], given: &[String]) -> Result<Vec<Option<String>>> {
    let whole = |entry: &str| url::Url::parse(entry).is_ok();
    let mut urls: Vec<Option<String>> = vec![None; services.len()];
    if let ([_], [url]) = (services, given)
        && (whole(url) || !url.contains('='))
    {
        urls[0] = Some(url.clone());
        return Ok(urls);
    }
    for entry in given {
        let named = Some(entry.as_str())
            .filter(|e| !whole(e))
            .and_then(|e| e.split_once('='));
        let Some((id, url)) = named else {
            return Err(subterminator_core::Error::Configuration(format!(
                "--start-url {entry:?}: with several services, say whose it is, e.g. --start-url {}=http://127.0.0.1:8000/",
                services.first().map_or("netflix", String::as_str)
            )));
        };
        let Some(at) = services.iter().position(|s| s == id) else {
            return Err(subterminator_core::Error::Configuration(format!(
                "--start-url {entry:?}: {id} is not among the services named ({})",
                services.join(", ")
            )));
        };
        if urls[at].replace(url.to_owned()).is_some() {
            return Err(subterminator_core::Error::Configuration(format!(
                "--start-url: {id} has two; give each service one"
            )));
        }
    }
    Ok(urls)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn start_urls_by_service() {
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        let one = start_urls(&s(&["netflix"]), &s(&["http://h/"])).unwrap();
        assert_eq!(one, [Some("http://h/".to_owned())]);
        let named = start_urls(&s(&["netflix"]), &s(&["netflix=http://h/?a=b"])).unwrap();
        assert_eq!(named, [Some("http://h/?a=b".to_owned())]);
        let query = start_urls(&s(&["netflix"]), &s(&["http://h/?a=b"])).unwrap();
        assert_eq!(query, [Some("http://h/?a=b".to_owned())]);
        let two = start_urls(&s(&["a", "b"]), &s(&["b=http://b/"])).unwrap();
        assert_eq!(two, [None, Some("http://b/".to_owned())]);
        let cases: &[(&[&str], &[&str], &str)] = &[
            (&["a", "b"], &["http://b/"], "say whose it is"),
            (&["a", "b"], &["http://b/?a=1"], "say whose it is"),
            (&["a", "b"], &["c=http://c/"], "not among the services"),
            (&["a", "b"], &["a=http://1/", "a=http://2/"], "has two"),
        ];
        for (services, given, want) in cases {
            let e = start_urls(&s(services), &s(given)).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }
}

/// `--tools`: which tools the model sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ToolsArg {
    /// Seven tools over pruned snapshots.
    Compact,
    /// Playwright MCP's own tools and snapshots.
    Full,
}

impl From<ToolsArg> for Tools {
    fn from(arg: ToolsArg) -> Self {
        match arg {
            ToolsArg::Compact => Tools::Compact,
            ToolsArg::Full => Tools::Full,
        }
    }
}
