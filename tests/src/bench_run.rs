//! One run of `subterminator cancel` on a CancelBench flow, driven by the
//! honest scripted model (`honest_model`), with every question answered
//! yes; what the site logged is kept for the test to judge.

use std::path::PathBuf;

use subterminator_bench::{BenchSite, Catalog, LoggedRequest, RequestKind};

use crate::e2e;
use crate::honest_model::honest;
use crate::human::{self, Session};
use crate::model_server::ModelServer;
use crate::scripted::SCRIPTED_ANTHROPIC_KEY;

/// What one honest run of a flow left.
pub struct Ran {
    pub home: tempfile::TempDir,
    pub session: Session,
    /// The site's own log, read after the run ended.
    pub log: Vec<LoggedRequest>,
}

impl Ran {
    /// Requests of `kind` the site saw.
    pub fn count(&self, kind: impl Fn(&RequestKind) -> bool) -> usize {
        self.log.iter().filter(|r| kind(&r.kind)).count()
    }

    pub fn commits(&self) -> usize {
        self.count(|k| *k == RequestKind::Commit)
    }

    /// The run's folder (one run per home).
    pub fn run_dir(&self) -> anyhow::Result<PathBuf> {
        e2e::run_dirs(self.home.path())
            .pop()
            .ok_or_else(|| anyhow::anyhow!("no run folder"))
    }

    /// What the binary printed, for a failing assertion.
    pub fn said(&self) -> String {
        e2e::text(&self.session.output)
    }
}

/// `cancel <service>` on flow `id`, served by CancelBench, driven by the
/// honest model with `tools` (`compact` or `full`), every question answered
/// yes.
pub async fn cancel(id: &str, tools: &str) -> anyhow::Result<Ran> {
    let flow = Catalog::load()?.get(id)?.clone();
    let site = BenchSite::serve(&flow).await?;
    let model = ModelServer::start(honest(&flow, tools)).await?;
    let home = tempfile::tempdir()?;
    let mut command = e2e::command(home.path());
    command
        .args(["cancel", &flow.service, "--start-url", &site.url()])
        .args(["--tools", tools, "--headless", "--isolated"])
        .args(["--model", "claude-opus-4-6"])
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    let commits = || {
        site.requests()
            .iter()
            .filter(|r| r.kind == RequestKind::Commit)
            .count()
    };
    let session = human::run(command, |_| true, commits).await;
    let log = site.requests();
    site.stop();
    Ok(Ran {
        home,
        session: session?,
        log,
    })
}
