//! A run from start to clean-up, shared by the terminal (`cancel`, `demo`,
//! batches) and the MCP server: choosing the driver, starting the browser,
//! running the agent, and the receipt, shutdown and sealed record on every
//! path. Its events and questions go to whichever front-end holds the other
//! end of its [`crate::feed`].

use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::{
    Agent, CompactToolset, Driver, FullToolset, OfflinePolicy, Reporter, RunOptions, Toolset,
};
use crate::browser::{Attach, Browser, BrowserOptions, Served, UserData};
use crate::config::{BrowserConfig, Config};
use crate::error::{Error, Result};
use crate::feed::{Event, TaskResult};
use crate::llm::{self, LlmSettings, ModelChoice, ProviderEnv};
use crate::memory::Memory;
use crate::paths::Dirs;
use crate::plugin::ServiceEntry;
use crate::receipt;
use crate::record::RunRecord;
use crate::signing::{Keyring, Signer};

/// `--model offline`: the deterministic plan-following policy, no model.
pub const OFFLINE_MODEL: &str = "offline";

/// Which tools the model sees (`--tools`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tools {
    /// Seven tools over pruned snapshots.
    Compact,
    /// Playwright MCP's own tools and snapshots.
    Full,
}

/// Everything one run needs, gathered from flags, environment and config.
#[derive(Debug, Clone)]
pub struct SessionSpec {
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub max_turns: u32,
    pub dry_run: bool,
    pub checkpoints: bool,
    pub headless: bool,
    pub start_url: Option<String>,
    pub tools: Tools,
    /// `--vision`: the compact toolset sends a screenshot with each snapshot.
    pub vision: bool,
    /// `[agent] dismiss-interruptions`: the host clears cookie banners,
    /// promotions and chat widgets before the next move.
    pub dismiss_overlays: bool,
    /// `--replay`: follow the remembered path with no model while it matches.
    pub replay: bool,
    /// `--model-drives`: the model takes every turn, the plan only a hint.
    pub model_drives: bool,
    /// How the service's charges read on the statement the run came from
    /// (`scan --cancel`): globs made from the site, never a transaction's
    /// words. Recorded for `plugin new --from-run`.
    pub billing_descriptors: Vec<String>,
    pub browser: Option<PathBuf>,
    /// `--cdp-endpoint` or `[browser] cdp-endpoint`: a browser that runs
    /// already, attached to instead of launched.
    pub attach: Option<Attach>,
    /// A served Playwright MCP server attached to `attach`, whose session
    /// the run takes instead of starting a server (CancelBench's runs).
    pub served: Option<Served>,
    pub isolated: bool,
    pub json: bool,
    pub verbose: bool,
}

/// The browser to attach to: `--cdp-endpoint`, else the config's, with the
/// header the config's `cdp-headers-env` names read from the environment.
pub fn attach(flag: Option<&str>, config: &BrowserConfig) -> Result<Option<Attach>> {
    let Some(endpoint) = flag.or(config.cdp_endpoint.as_deref()) else {
        return Ok(None);
    };
    let header = match config.cdp_headers_env.as_deref() {
        None => None,
        Some(var) => Some(std::env::var(var).map_err(|_| {
            Error::Configuration(format!(
                "config: browser.cdp-headers-env names {var}, which is not set; export it as `Name: value` (e.g. \"Authorization: Bearer …\") or remove the setting"
            ))
        })?),
    };
    Attach::parse(endpoint, header.as_deref())
        .map(Some)
        .map_err(|e| {
            Error::Configuration(format!(
                "{e} (from {})",
                if flag.is_some() {
                    "--cdp-endpoint"
                } else {
                    "config: browser.cdp-endpoint"
                }
            ))
        })
}

/// `--served-playwright URL,FOLDER`: a session of a Playwright MCP server
/// that already runs on this machine, attached to the run's
/// `--cdp-endpoint` browser, and the folder it writes its results' files
/// to. Only a loopback address is taken: the server drives the browser, so
/// it must be one this machine started (CancelBench's, a test's), never one
/// across a network.
pub fn served(flag: Option<&str>, attach: Option<&Attach>) -> Result<Option<Served>> {
    let Some(flag) = flag else {
        return Ok(None);
    };
    let bad = |why: &str| {
        Error::Configuration(format!(
            "--served-playwright {flag:?}: {why}; give the server's address and its folder as `http://localhost:PORT/mcp,/path/to/folder`"
        ))
    };
    if attach.is_none() {
        return Err(bad(
            "it needs --cdp-endpoint, the browser the server is attached to",
        ));
    }
    let (address, folder) = flag
        .split_once(',')
        .ok_or_else(|| bad("no folder after the address"))?;
    let parsed = url::Url::parse(address).map_err(|e| bad(&format!("not an address ({e})")))?;
    let loopback = match parsed.host() {
        Some(url::Host::Domain(name)) => name == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if parsed.scheme() != "http" || !loopback {
        return Err(bad(
            "only a server on this machine (http on a loopback address) is taken",
        ));
    }
    let dir = PathBuf::from(folder);
    if !dir.is_dir() {
        return Err(bad("its folder is not a folder on this machine"));
    }
    Ok(Some(Served {
        url: address.to_owned(),
        dir,
    }))
}

/// Chooses who drives: `offline`, or a model by `--model` > `SUBTERMINATOR_MODEL` > config.
pub fn driver(spec: &SessionSpec, config: &Config, service: &ServiceEntry) -> Result<Driver> {
    let env_model = std::env::var(llm::MODEL_ENV).ok();
    let wanted = llm::choice::wanted(
        spec.model.as_deref(),
        env_model.as_deref(),
        config.model.as_deref(),
    );
    if wanted == Some(OFFLINE_MODEL) {
        let (start, _) = start_url(spec, service)?;
        return Ok(Driver::Offline(OfflinePolicy::for_service(service, &start)));
    }
    let mut choice = ModelChoice::resolve(
        spec.model.as_deref(),
        env_model.as_deref(),
        config.model.as_deref(),
    )?;
    if let Some(url) = spec.base_url.clone().or_else(|| config.base_url.clone()) {
        choice.base_url = Some(url);
    }
    let provider = llm::connect(&choice, &ProviderEnv::from_env(), &LlmSettings::default())?;
    Ok(Driver::Model(provider))
}

/// Whether a browser window can be shown here.
pub fn has_display() -> bool {
    if cfg!(target_os = "linux") {
        ["DISPLAY", "WAYLAND_DISPLAY"]
            .iter()
            .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
    } else {
        true
    }
}

/// The URL a run starts at: `--start-url` (checked) or the plugin's own.
pub fn start_url(spec: &SessionSpec, service: &ServiceEntry) -> Result<(String, bool)> {
    match &spec.start_url {
        Some(url) => {
            let parsed = url::Url::parse(url).map_err(|e| {
                Error::Configuration(format!("--start-url {url:?} is not a URL: {e}; give a whole address, e.g. --start-url http://127.0.0.1:8000/account"))
            })?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(Error::Configuration(format!(
                    "--start-url {url:?} must be an http(s) URL; give one such as http://127.0.0.1:8000/account"
                )));
            }
            Ok((parsed.to_string(), true))
        }
        None => Ok((service.metadata.initial_url.clone(), false)),
    }
}

/// One run from its record's creation to its clean-up: the record and its
/// reporter, the browser, and what the agent needs to start. The terminal
/// and the MCP server both drive runs through it, so both record, write
/// receipts and shut down the same way.
pub struct Run {
    pub reporter: Reporter,
    /// Shared so that a front-end can look at the page (an MCP client's
    /// screenshot) or stop the browser while the agent holds it.
    pub browser: Arc<Browser>,
    options: BrowserOptions,
    run_dir: PathBuf,
    start_url: String,
    local_copy: bool,
    memory: Memory,
    prices: std::collections::BTreeMap<String, crate::llm::pricing::Price>,
    /// This machine's signing key: it signs the receipt and the sealed
    /// record. None when no key can be made or read (said to the person).
    signer: Option<Arc<Signer>>,
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("run_dir", &self.run_dir)
            .finish_non_exhaustive()
    }
}

impl Run {
    /// Creates the run's record and starts its browser server (the browser
    /// itself starts on the first call). `reporter` is given the record. A
    /// browser that cannot start still leaves a record saying why.
    pub async fn start(
        dirs: &Dirs,
        config: &Config,
        service: &ServiceEntry,
        spec: &SessionSpec,
        reporter: impl FnOnce(RunRecord) -> Reporter,
    ) -> Result<Run> {
        let (start_url, local_copy) = start_url(spec, service)?;
        let mut record = RunRecord::create(&dirs.runs(), &service.metadata.id)?;
        let run_dir = record.dir().to_path_buf();
        let signer = Keyring::open_or_create(&dirs.config)
            .map(|keys| Arc::new(keys.current))
            .map_err(|e| e.to_string());
        if let Ok(signer) = &signer {
            record.sign_with(signer.clone());
        }
        let mut reporter = reporter(record);
        let signer = match signer {
            Ok(signer) => Some(signer),
            Err(why) => {
                reporter.notice(&format!(
                    "This run's record and receipt will not be signed: {why}"
                ));
                None
            }
        };
        let options = browser_options(dirs, config, service, spec, &run_dir);
        if !spec.isolated && spec.attach.is_none() {
            let id = &service.metadata.id;
            if crate::profiles::adopt_shared(dirs, id)? {
                reporter.notice(&crate::profiles::adopted_notice(
                    dirs,
                    &service.metadata.display_name,
                    id,
                ));
            }
        }
        reporter.busy("Starting the browser…");
        let browser = Browser::start(options.clone()).await;
        reporter.idle();
        let browser = match browser {
            Ok(browser) => browser,
            Err(e) => {
                let error = Error::from(e);
                let result = TaskResult::from_error(&error, 0);
                if let Some(record) = reporter.record()
                    && let Err(write) = record
                        .append(&Event::Finished {
                            result: result.clone(),
                        })
                        .and_then(|()| record.finish(&result).map(|_| ()))
                {
                    tracing::warn!("{write}");
                }
                return Err(error);
            }
        };
        Ok(Run {
            reporter,
            browser: Arc::new(browser),
            options,
            run_dir,
            start_url,
            local_copy,
            memory: Memory::new(dirs.memory()),
            prices: config.prices.clone(),
            signer,
        })
    }

    pub fn dir(&self) -> &std::path::Path {
        &self.run_dir
    }

    /// The agent for this run, with `driver` deciding; its questions go to
    /// the reporter's feed. `interactive`: a sign-in wall may pause for the
    /// person, where they can see the browser.
    pub fn agent<'a>(
        &'a mut self,
        service: &'a ServiceEntry,
        spec: &SessionSpec,
        driver: Driver,
        interactive: bool,
    ) -> Agent<'a> {
        let offline = matches!(driver, Driver::Offline(_));
        let toolset = make_toolset(spec.tools, spec.vision, offline, &self.browser);
        Agent {
            service,
            browser: &self.browser,
            driver,
            toolset,
            reporter: &mut self.reporter,
            options: RunOptions {
                max_turns: spec.max_turns,
                dry_run: spec.dry_run,
                checkpoints: spec.checkpoints,
                start_url: self.start_url.clone(),
                local_copy: self.local_copy,
                // Someone can sign in only in a browser they can see: a
                // headed one, or one they attached (their own Chrome).
                interactive: interactive
                    && (!self.options.headless || self.options.attach.is_some()),
                dismiss_overlays: spec.dismiss_overlays,
                memory: Some(self.memory.clone()),
                replay: spec.replay,
                model_drives: spec.model_drives,
                billing_descriptors: spec.billing_descriptors.clone(),
                prices: self.prices.clone(),
            },
        }
    }

    /// Ends the record with `result` when the agent could not (it was cut
    /// short), then cleans up as [`Run::finish`] does.
    pub async fn interrupted(self, error: &Error) -> Finished {
        let mut run = self;
        let result = TaskResult::from_error(error, 0);
        run.reporter.emit(Event::Finished {
            result: result.clone(),
        });
        run.finish(result).await
    }

    /// After the agent: the receipt of a verified success, the browser shut
    /// down, the record sealed.
    pub async fn finish(mut self, result: TaskResult) -> Finished {
        let receipt = if result.success && result.verified {
            self.reporter.busy("Writing the receipt…");
            let written = write_receipt(
                &self.browser,
                &self.options,
                &self.run_dir,
                self.signer.as_deref(),
            )
            .await;
            self.reporter.idle();
            match written {
                Ok(files) => {
                    self.reporter.emit(Event::ReceiptWritten {
                        files: files.clone(),
                    });
                    files.first().map(|f| self.run_dir.join(f))
                }
                Err(e) => {
                    self.reporter
                        .notice(&format!("Could not write the receipt: {e}"));
                    None
                }
            }
        } else {
            if ends_without_a_way(&result) {
                // What the run saw where it stopped: the letter for a way
                // out that is not there shows it (`dispute`).
                let shot = self.run_dir.join(receipt::FINAL_PNG);
                if let Err(e) = self.browser.screenshot(&shot).await {
                    tracing::debug!("no screenshot of the page the run stopped on: {e}");
                }
            }
            None
        };
        if let Err(e) = self.browser.shutdown().await {
            tracing::warn!("browser shutdown: {e}");
        }
        if let Some(record) = self.reporter.record()
            && let Err(e) = record.finish(&result)
        {
            tracing::warn!("{e}");
        }
        Finished {
            result,
            run_dir: self.run_dir,
            receipt,
        }
    }
}

/// A run that stopped because the site offers no way out here (phone or
/// chat only, another company bills it) or a sign-in the person could not
/// pass: the page it stopped on is evidence.
fn ends_without_a_way(result: &TaskResult) -> bool {
    matches!(
        result.reason,
        crate::feed::TaskReason::CannotCancelHere | crate::feed::TaskReason::AuthRequired
    )
}

/// What a run left: its result, its record's folder, its receipt.
#[derive(Debug, Clone)]
pub struct Finished {
    pub result: TaskResult,
    pub run_dir: PathBuf,
    pub receipt: Option<PathBuf>,
}

/// How the browser of a run is started: the service's signed-in profile
/// unless `--isolated` (or attached to a browser that runs), headless when asked or when no window can be shown.
fn browser_options(
    dirs: &Dirs,
    config: &Config,
    service: &ServiceEntry,
    spec: &SessionSpec,
    run_dir: &std::path::Path,
) -> BrowserOptions {
    let mut options = BrowserOptions::new(
        if spec.isolated {
            UserData::Isolated
        } else {
            UserData::Persistent(dirs.signed_in_profile(&service.metadata.id))
        },
        run_dir.join("browser"),
    );
    options.headless = spec.headless || config.browser.headless.unwrap_or(false) || !has_display();
    options.executable_path = spec
        .browser
        .clone()
        .or_else(|| config.browser.executable.clone());
    options.command = config.browser.command.clone();
    options.attach = spec.attach.clone();
    options.served = spec.served.clone();
    options
}

/// `--replay` needs a path remembered for this service and plugin version.
pub fn check_replay(spec: &SessionSpec, dirs: &Dirs, service: &ServiceEntry) -> Result<()> {
    let m = &service.metadata;
    let (start, _) = start_url(spec, service)?;
    let site = crate::memory::site_of(&start);
    if spec.replay
        && Memory::new(dirs.memory())
            .load(&m.id, &m.version, &site)
            .is_none()
    {
        return Err(Error::Configuration(format!(
            "--replay: no path is remembered for {} (plugin {}) on {site}; run it once without --replay: a verified cancellation remembers its path",
            m.id, m.version
        )));
    }
    Ok(())
}

/// The receipt of a verified success: the confirmation page saved, then
/// `receipt.html`, `receipt.md` and `receipt.pdf` from the record. Should a
/// headed browser fail to print (older Chromium builds print headless only),
/// a headless one of its own prints. Returns the files written, HTML first.
async fn write_receipt(
    browser: &Browser,
    options: &BrowserOptions,
    run_dir: &std::path::Path,
    signer: Option<&Signer>,
) -> Result<Vec<String>> {
    let confirmation = receipt::capture(browser, run_dir).await;
    let mut made = receipt::Receipt::from_record(run_dir, confirmation)?;
    if let Some(signer) = signer {
        made.sign(signer);
    }
    let html = receipt::write(run_dir, &made, signer)?;
    let mut files = vec![
        receipt::RECEIPT_HTML.to_owned(),
        receipt::RECEIPT_MD.to_owned(),
    ];
    let pdf = run_dir.join(receipt::RECEIPT_PDF);
    let mut printed = receipt::print_pdf(browser, &html, &pdf).await;
    // An attached browser is not ours to start a second one beside.
    if let Err(e) = &printed
        && !options.headless
        && options.attach.is_none()
    {
        tracing::debug!("printing in the run's window failed ({e}); printing headless");
        printed = receipt::print_pdf_headless(options, &html, &pdf, run_dir.join("printer")).await;
    }
    match printed
        .map_err(Error::from)
        .and_then(|()| made.seal_pdf(&pdf, signer))
    {
        Ok(()) => files.push(receipt::RECEIPT_PDF.to_owned()),
        Err(e) => tracing::warn!("no receipt.pdf: {e}"),
    }
    Ok(files)
}

/// The tools the run drives with. The offline policy sees the whole page in
/// the compact view: it pays no tokens, and its target may be below the fold.
fn make_toolset(tools: Tools, vision: bool, offline: bool, browser: &Browser) -> Box<dyn Toolset> {
    match tools {
        Tools::Compact if offline => Box::new(CompactToolset::new(vision).whole_page()),
        Tools::Compact => Box::new(CompactToolset::new(vision)),
        Tools::Full => Box::new(FullToolset::new(browser.tools())),
    }
}

/// Ctrl+C or SIGTERM.
pub async fn interrupted() {
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(e) => {
                    tracing::warn!("cannot watch SIGTERM: {e}");
                    let _ = tokio::signal::ctrl_c().await;
                    return;
                }
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// `--served-playwright`: taken only on this machine, with its browser
    /// and a folder that exists; the escape cases are a server across the
    /// network (by name, by address, over https) and one with no browser.
    #[test]
    fn which_served_servers_are_taken_table() {
        let folder = tempfile::tempdir().unwrap();
        let dir = folder.path().display().to_string();
        let attach = Attach::parse("http://127.0.0.1:9222", None).unwrap();
        let cases: &[(String, bool, Option<&str>)] = &[
            (format!("http://localhost:4100/mcp,{dir}"), true, None),
            (format!("http://127.0.0.1:4100/mcp,{dir}"), true, None),
            (format!("http://[::1]:4100/mcp,{dir}"), true, None),
            (
                format!("http://localhost:4100/mcp,{dir}"),
                false,
                Some("needs --cdp-endpoint"),
            ),
            (
                "http://localhost:4100/mcp".to_owned(),
                true,
                Some("no folder"),
            ),
            (
                format!("https://localhost:4100/mcp,{dir}"),
                true,
                Some("only a server on this machine"),
            ),
            (
                format!("http://example.com:4100/mcp,{dir}"),
                true,
                Some("only a server on this machine"),
            ),
            (
                format!("http://10.0.0.7:4100/mcp,{dir}"),
                true,
                Some("only a server on this machine"),
            ),
            (
                format!("http://localhost.example.com/mcp,{dir}"),
                true,
                Some("only a server on this machine"),
            ),
            (
                format!("localhost:4100,{dir}"),
                true,
                Some("only a server on this machine"),
            ),
            (
                "not an address,/tmp".to_owned(),
                true,
                Some("not an address"),
            ),
            (
                format!("http://localhost:4100/mcp,{dir}/missing"),
                true,
                Some("not a folder"),
            ),
        ];
        for (flag, with_browser, refused) in cases {
            let got = served(Some(flag), with_browser.then_some(&attach));
            match refused {
                None => assert_eq!(got.unwrap().unwrap().dir, PathBuf::from(&dir), "{flag}"),
                Some(why) => {
                    let message = got.unwrap_err().to_string();
                    assert!(message.contains(why), "{flag}: {message}");
                }
            }
        }
        assert_eq!(served(None, Some(&attach)).unwrap(), None);
    }
}
