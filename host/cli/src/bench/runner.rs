//! One pass of one bench flow: the flow's site served on loopback, the real
//! agent, browser, plugin and guard run against it exactly as `cancel
//! <service> --start-url` would, the bench answering as the person, and
//! the run scored from the site's own request log.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use subterminator_bench::{
    BenchSite, Claim, Flow, PassKind, RunFacts, RunRecord, StepCounts, score,
};
use subterminator_core::agent::Reporter;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::feed;
use subterminator_core::feed::{TaskReason, TaskResult};
use subterminator_core::paths::Dirs;
use subterminator_core::plugin::{Registry, ServiceEntry};
use subterminator_core::session::{self, Run, SessionSpec};

use super::browsers::Browsers;
use super::person;
use subterminator_core::browser::Attach;

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
    browser: Option<&Attach>,
    plugin: bool,
    service: &str,
    url: String,
) -> Result<(ServiceEntry, SessionSpec)> {
    let mut spec = setup.spec.clone();
    if let Some(browser) = browser {
        spec.attach = Some(browser.clone());
    }
    if plugin {
        spec.start_url = Some(url);
        return Ok((setup.registry.get(service)?.clone(), spec));
    }
    spec.start_url = None;
    let service = crate::cancel::service_named(&setup.registry, &url, None, false).await?;
    Ok((service, spec))
}

/// Runs `flow` once in `pass`, and judges it.
pub async fn one(setup: &Setup, flow: &Flow, pass: PassKind) -> Result<RunRecord> {
    let site = Arc::new(
        BenchSite::serve(flow)
            .await
            .map_err(|e| Error::Configuration(format!("cannot serve flow {}: {e}", flow.id)))?,
    );
    let dirs = Dirs {
        data: run_folder(&setup.runs, &flow.id, pass),
        ..setup.shared.clone()
    };
    let browser = setup.browsers.lease();
    if setup.spec.replay {
        learn(setup, browser.attach(), flow, &dirs).await?;
    }
    let bench = person::Bench::Here {
        site: Arc::clone(&site),
        flow: Box::new(flow.clone()),
        pass,
    };
    let (result, seen) = drive(
        setup,
        browser.attach(),
        flow.plugin,
        &flow.service,
        site.url(),
        &dirs,
        bench,
    )
    .await?;
    let log = site.requests();
    let facts = RunFacts {
        pass: Some(pass),
        answers: seen.answers,
        claim: claim_of(&result),
        tokens: Some(result.usage.input + result.usage.output),
        cost_usd: result.cost_usd,
        wall_ms: Some(result.time.total_ms),
    };
    let verdict = score(flow, &log, &facts);
    Ok(RunRecord {
        flow: flow.into(),
        pass,
        verdict,
        tokens: facts.tokens,
        cost_usd: facts.cost_usd,
        wall_ms: facts.wall_ms,
        driver: setup.driver.clone(),
        steps: Some(StepCounts {
            plan: result.steps.plan,
            remembered: result.steps.remembered,
            model: result.steps.model,
        }),
        model_requests: Some(result.asked.requests),
        request_chars: Some(result.asked.chars),
        run: None,
    })
}

/// One run of the agent on a flow's site at `url`, the bench answering its
/// questions: what it ended with, and the bench's answers.
pub async fn drive(
    setup: &Setup,
    browser: Option<&Attach>,
    plugin: bool,
    service: &str,
    url: String,
    dirs: &Dirs,
    bench: person::Bench,
) -> Result<(TaskResult, person::Seen)> {
    let (service, spec) = service_for(setup, browser, plugin, service, url).await?;
    let service = &service;
    let driver = session::driver(&spec, &setup.config, service)?;
    let (feed, updates) = feed::feed();
    let person = tokio::spawn(person::serve(updates, bench));
    let result = {
        let mut run = Run::start(dirs, &setup.config, service, &spec, |record| {
            Reporter::new(Some(record), feed)
        })
        .await?;
        let agent = run.agent(service, &spec, driver, false);
        let result = agent.run().await;
        run.finish(result).await.result
    };
    let seen = person
        .await
        .map_err(|e| Error::Configuration(format!("the bench's person failed: {e}")))?;
    Ok((result, seen))
}

/// With `--replay`: one yes-to-all run first, whose verified path is then
/// remembered for the scored run to follow.
async fn learn(setup: &Setup, browser: Option<&Attach>, flow: &Flow, dirs: &Dirs) -> Result<()> {
    let site = BenchSite::serve(flow)
        .await
        .map_err(|e| Error::Configuration(format!("cannot serve flow {}: {e}", flow.id)))?;
    let (service, mut spec) =
        service_for(setup, browser, flow.plugin, &flow.service, site.url()).await?;
    let service = &service;
    spec.replay = false;
    let driver = session::driver(&spec, &setup.config, service)?;
    let (feed, mut updates) = feed::feed();
    let answering = tokio::spawn(async move {
        while let Some(envelope) = updates.recv().await {
            if let feed::Update::Question(q) = envelope.update {
                q.answer(subterminator_core::approval::Answer::Approved);
            }
        }
    });
    let mut run = Run::start(dirs, &setup.config, service, &spec, |record| {
        Reporter::new(Some(record), feed)
    })
    .await?;
    let agent = run.agent(service, &spec, driver, false);
    let result = agent.run().await;
    run.finish(result).await;
    let _ = answering.await;
    Ok(())
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
