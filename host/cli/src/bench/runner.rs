//! One run of the agent on a bench flow's site: the real agent, browser,
//! plugin and guard, exactly as `cancel <service> --start-url` (or `cancel
//! <address>` for a site no plugin knows) would run them, every question
//! sent to the bench's person. The site, the person and the scoring are
//! the bench's (`served.rs`); this side knows none of a flow's truth.

use std::path::{Path, PathBuf};

use subterminator_bench::{Claim, FlowSummary, PassKind};
use subterminator_core::agent::Reporter;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::feed;
use subterminator_core::feed::{TaskReason, TaskResult};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::{Registry, ServiceEntry};
use subterminator_core::session::{self, Run, SessionSpec};

use super::ask;
use super::browsers::{Browsers, Lent};

/// What every run of one bench invocation shares.
pub struct Setup {
    /// Config and compiled-plugin cache shared by every run; each run has
    /// a data folder of its own (record, memory), so no run learns from
    /// another.
    pub shared: Dirs,
    pub config: Config,
    pub registry: Registry,
    /// The settings of every run; the start URL is each flow's.
    pub spec: SessionSpec,
    /// Where each run's data folder goes.
    pub runs: PathBuf,
    /// How the driver is named in the records: `offline`, `model:<name>`.
    pub driver: String,
    /// The browsers the runs attach to, one per job.
    pub browsers: Browsers,
}

/// The service a flow runs with, and its settings: the bundled plugin on
/// a local copy (`cancel <service> --start-url`), or, for a site no plugin
/// knows, the generic service made from its address (`cancel <address>`).
async fn service_for(
    setup: &Setup,
    browser: Option<&Lent>,
    plugin: bool,
    service: &str,
    url: String,
) -> Result<(ServiceEntry, SessionSpec)> {
    let mut spec = setup.spec.clone();
    if let Some(lent) = browser {
        spec.attach = Some(lent.attach.clone());
        spec.served = lent.served.clone();
    }
    if plugin {
        spec.start_url = Some(url);
        return Ok((setup.registry.get(service)?.clone(), spec));
    }
    spec.start_url = None;
    let service = crate::cancel::service_named(&setup.registry, &url, None, false).await?;
    Ok((service, spec))
}

/// One run of the agent on a flow's site at `url`, the bench answering its
/// questions at `route`: what it ended with, and how many it asked.
/// `learning` is the yes-to-all run `--replay` remembers a path from.
pub async fn drive(
    setup: &Setup,
    browser: Option<&Lent>,
    flow: &FlowSummary,
    url: String,
    dirs: &Dirs,
    route: ask::Route,
    learning: bool,
) -> Result<(TaskResult, usize)> {
    let (service, mut spec) = service_for(setup, browser, flow.plugin, &flow.service, url).await?;
    if learning {
        spec.replay = false;
    }
    let service = &service;
    let driver = session::driver(&spec, &setup.config, service)?;
    let (feed, updates) = feed::feed();
    let person = tokio::spawn(ask::serve(updates, route));
    let result = {
        let mut run = Run::start(dirs, &setup.config, service, &spec, |record| {
            Reporter::new(Some(record), feed)
        })
        .await?;
        let agent = run.agent(service, &spec, driver, false);
        let result = agent.run().await;
        run.finish(result).await.result
    };
    let asked = person
        .await
        .map_err(|e| Error::Configuration(format!("the run's questions failed: {e}")))?;
    Ok((result, asked))
}

/// What the agent claimed at the end, as the scorer counts claims: a
/// success the host verified, a failure it reported (cannot be cancelled
/// here, or the driver gave up), or nothing.
pub fn claim_of(result: &TaskResult) -> Claim {
    match result.reason {
        _ if result.success => Claim::Success,
        TaskReason::Completed | TaskReason::CannotCancelHere | TaskReason::AuthRequired => {
            Claim::Failure
        }
        _ => Claim::None,
    }
}

/// `<runs>/<flow>/<pass>`: one data folder per run.
pub fn run_folder(runs: &Path, flow: &str, pass: PassKind) -> PathBuf {
    let pass = match pass {
        PassKind::YesToAll => "yes",
        PassKind::NoAtCommit => "no",
    };
    runs.join(flow).join(pass)
}
