//! One run of `subterminator cancel` on a CancelBench flow, driven by the
//! honest scripted model (`honest_model`), with every question answered
//! yes; what the site logged is kept for the test to judge.

use std::path::PathBuf;

use subterminator_bench::site::PERSON_PASSWORD;
use subterminator_bench::{BenchSite, Catalog, Ending, LoggedRequest, RequestKind};

use crate::e2e;
use crate::honest_model::honest_watched;
use crate::human::{self, Session};
use crate::model_server::ModelServer;
use crate::remote_chromium::RemoteChromium;
use crate::scripted::SCRIPTED_ANTHROPIC_KEY;

/// What one honest run of a flow left.
pub struct Ran {
    pub home: tempfile::TempDir,
    pub session: Session,
    /// The site's own log, read after the run ended.
    pub log: Vec<LoggedRequest>,
    /// The expected steps whose target was not in the page the model was
    /// sent (`honest_model::Missed`).
    pub missed: Vec<String>,
    /// Every byte of every model request's body, as sent (issue 32).
    pub sent_bytes: usize,
}

impl Ran {
    /// Requests of `kind` the site saw.
    pub fn count(&self, kind: impl Fn(&RequestKind) -> bool) -> usize {
        self.log.iter().filter(|r| kind(&r.kind)).count()
    }

    pub fn commits(&self) -> usize {
        self.count(|k| *k == RequestKind::Commit)
    }

    /// The run's own result (`result.json`), or null.
    pub fn result(&self) -> serde_json::Value {
        e2e::last_result(self.home.path()).unwrap_or_default()
    }

    /// A success the run verified, on the one commit the site logged:
    /// `verified` alone is also true when a driver's own "failed" is taken
    /// at its word.
    pub fn verified(&self) -> bool {
        let result = self.result();
        result["success"] == true && result["verified"] == true && self.commits() == 1
    }

    /// How many requests the run sent to a model.
    pub fn model_requests(&self) -> u64 {
        self.result()["asked"]["requests"]
            .as_u64()
            .unwrap_or_default()
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

/// `cancel <service>` (or `cancel <address>`, for a flow no plugin knows) on
/// flow `id`, served by CancelBench, driven by the
/// honest model with `tools` (`compact` or `full`), every question answered
/// yes.
pub async fn cancel(id: &str, tools: &str) -> anyhow::Result<Ran> {
    cancel_as(id, tools, false).await
}

/// [`cancel`], with `--model-drives` when `model_drives`: the honest model
/// then takes every step, and [`Ran::missed`] says which it could not see.
pub async fn cancel_as(id: &str, tools: &str, model_drives: bool) -> anyhow::Result<Ran> {
    cancel_in(tempfile::tempdir()?, id, tools, model_drives, None).await
}

/// [`cancel_as`] in `home` (whose installed plugins the run sees), with
/// `plugin` run on the flow's site as a local copy instead of the flow's own
/// service: a plugin drafted from an earlier run of it.
pub async fn cancel_in(
    home: tempfile::TempDir,
    id: &str,
    tools: &str,
    model_drives: bool,
    plugin: Option<&str>,
) -> anyhow::Result<Ran> {
    let flow = Catalog::load()?.get(id)?.clone();
    let site = BenchSite::serve(&flow).await?;
    let (walker, missed) = honest_watched(&flow, tools);
    let model = ModelServer::start(walker).await?;
    let mut command = e2e::command(home.path());
    // A flow of a site no plugin knows is cancelled by its address, as a
    // person would: `cancel <address>`, the built-in generic service.
    match (plugin, flow.plugin) {
        (Some(id), _) => command.args(["cancel", id, "--start-url", &site.url()]),
        (None, true) => command.args(["cancel", &flow.service, "--start-url", &site.url()]),
        (None, false) => command.args(["cancel", &site.url()]),
    };
    command
        .args(["--tools", tools, "--headless"])
        .args(["--model", "claude-opus-4-6"])
        .env("ANTHROPIC_API_KEY", SCRIPTED_ANTHROPIC_KEY)
        .env("ANTHROPIC_BASE_URL", model.anthropic_base_url());
    if model_drives {
        command.arg("--model-drives");
    }
    // Behind a sign-in wall the person signs in themselves, at a browser
    // they can reach: one the test starts and the run attaches to.
    let wall = flow.truth.ending == Ending::HandOver;
    let chromium = if wall {
        let chromium = RemoteChromium::start("about:blank")?;
        command.args(["--cdp-endpoint", &chromium.endpoint()]);
        Some(chromium)
    } else {
        command.arg("--isolated");
        None
    };
    let sign_in = person_signs_in(chromium.as_ref().map(|c| c.port))?;
    let commits = || {
        site.requests()
            .iter()
            .filter(|r| r.kind == RequestKind::Commit)
            .count()
    };
    let session = human::run_signing_in(command, |_| true, commits, sign_in).await;
    drop(chromium);
    let sent_bytes = model
        .requests()
        .iter()
        .map(|r| r.body.to_string().len())
        .sum();
    let log = site.requests();
    site.stop();
    let missed = missed
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    Ok(Ran {
        home,
        session: session?,
        log,
        missed,
        sent_bytes,
    })
}

/// What the person does when the run asks them to sign in: at the browser
/// on DevTools port `port`, the account holder's own password typed into
/// the wall (`tests/person/sign_in.mjs`); with no browser to reach, only
/// Enter.
fn person_signs_in(port: Option<u16>) -> anyhow::Result<human::SignIn> {
    let Some(port) = port else {
        return Ok(Box::new(|| Box::pin(async {})));
    };
    let node = crate::mcp_client::conformance::tools()?.node;
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("person/sign_in.mjs");
    Ok(Box::new(move || {
        let mut command = tokio::process::Command::new(&node);
        command
            .arg(&script)
            .arg(port.to_string())
            .arg(PERSON_PASSWORD)
            .kill_on_drop(true);
        Box::pin(async move {
            if let Err(e) = command.status().await {
                eprintln!("the person could not sign in: {e}");
            }
        })
    }))
}
