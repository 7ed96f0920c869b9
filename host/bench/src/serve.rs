//! CancelBench for any agent: two small JSON interfaces on loopback.
//!
//! - **The agent's** lists the flows, starts a fresh site per run, answers
//!   the agent's questions as the person of the run's pass would
//!   ([`crate::person`]), takes its claim once, and ends the run. It never
//!   tells the truth of a flow, a verdict or the site's log: an agent that
//!   could read them could score itself.
//! - **The scorer's**, on a port of its own, has the truth, every run's
//!   verdict and log (kept after the run ends), the scorecard and the HTML
//!   report.
//!
//! With an output folder every finished run is kept on disk (its record,
//! log and claim), with the scorecard and report of them all: the same
//! files `subterminator bench` writes. The README documents both
//! interfaces; `schema/` holds the JSON Schemas of what they answer.
//!
//! A page the agent visits could try to talk to these servers (they are on
//! loopback too): requests that carry a foreign `Origin` are refused.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::flow::{FlowSummary, Split};
use crate::log::LoggedRequest;
use crate::person::{self, Question};
use crate::report::{self, AgentCounts, FlowMeta, RunRecord};
use crate::score::{Answer, Claim, PassKind, RunFacts, Verdict, score};
use crate::site::{BenchSite, Origins};

mod here;
pub mod kept;

pub use here::Here;
pub use kept::Kept;

/// Live runs one server keeps: each holds two listening ports, and an
/// agent that forgets `DELETE` should hit a clear error, not exhaust them.
pub const MAX_LIVE_RUNS: usize = 16;

/// The agent's name in the records when it gives none.
pub const UNNAMED_AGENT: &str = "agent";

/// The longest agent name kept: it is a label in a report.
const MAX_AGENT_NAME: usize = 64;

struct Live {
    flow: String,
    agent: String,
    site: BenchSite,
    pass: PassKind,
    answers: Vec<Answer>,
    claim: Option<ClaimBody>,
}

impl Live {
    fn facts(&self) -> RunFacts {
        let claim = self.claim.as_ref();
        RunFacts {
            pass: Some(self.pass),
            answers: self.answers.clone(),
            claim: claim.map_or(Claim::None, |c| c.outcome),
            tokens: claim.and_then(|c| c.tokens),
            cost_usd: claim.and_then(|c| c.cost_usd),
            wall_ms: claim.map(|c| c.at_ms),
        }
    }
}

/// A run that ended: its record, the bench's answers and the site's log,
/// kept for the scorer.
struct Ended {
    record: RunRecord,
    answers: Vec<Answer>,
    claimed: bool,
    log: Vec<LoggedRequest>,
}

/// Both servers' state: the catalog, the live runs and the finished ones.
pub struct Bench {
    catalog: Catalog,
    live: Mutex<BTreeMap<String, Live>>,
    finished: Mutex<Done>,
    next_run: AtomicU64,
    max_live: usize,
    /// The Origins a browser may send: the servers' own.
    own_origins: Vec<String>,
    kept: Option<Kept>,
}

/// The finished runs of this server, and the records an output folder
/// already held when it started (their logs stay on disk).
#[derive(Default)]
struct Done {
    runs: BTreeMap<String, Ended>,
    earlier: Vec<RunRecord>,
}

impl Done {
    fn records(&self) -> Vec<RunRecord> {
        self.earlier
            .iter()
            .cloned()
            .chain(self.runs.values().map(|f| f.record.clone()))
            .collect()
    }
}

impl std::fmt::Debug for Bench {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bench")
            .field("flows", &self.catalog.flows().len())
            .field("max_live", &self.max_live)
            .finish_non_exhaustive()
    }
}

impl Bench {
    /// A bench over every flow, with at most `max_live` runs at once,
    /// answering at `own_origins`, keeping finished runs in `kept` (whose
    /// earlier records it takes up).
    pub fn new(
        catalog: Catalog,
        max_live: usize,
        own_origins: Vec<String>,
        kept: Option<Kept>,
    ) -> Result<Bench> {
        let (earlier, next) = match &kept {
            Some(k) => k.earlier()?,
            None => (Vec::new(), 1),
        };
        Ok(Bench {
            catalog,
            live: Mutex::new(BTreeMap::new()),
            finished: Mutex::new(Done {
                runs: BTreeMap::new(),
                earlier,
            }),
            next_run: AtomicU64::new(next),
            max_live,
            own_origins,
            kept,
        })
    }
}

/// The scorer's side: where it listens, and the bearer token every request
/// to it must carry. The port alone would not keep the truth from an agent
/// on the same machine that looks for it.
#[derive(Debug)]
pub struct Scorer {
    pub listener: TcpListener,
    pub token: String,
}

/// The shortest scorer's token taken: 128 bits of hex.
pub const MIN_TOKEN_CHARS: usize = 32;

/// Serves the agent's interface on `agent` and, where given, the scorer's
/// (both loopback only), keeping finished runs in `out`, until the task is
/// dropped; `subterminator bench serve` mounts this.
pub async fn serve(agent: TcpListener, scorer: Option<Scorer>, out: Option<PathBuf>) -> Result<()> {
    if let Some(s) = &scorer
        && s.token.len() < MIN_TOKEN_CHARS
    {
        return Err(Error::WeakToken(MIN_TOKEN_CHARS));
    }
    let mut origins = Vec::new();
    for listener in std::iter::once(&agent).chain(scorer.as_ref().map(|s| &s.listener)) {
        let addr = listener
            .local_addr()
            .map_err(|e| Error::io("cannot serve the bench", "listener", e))?;
        if !addr.ip().is_loopback() {
            return Err(Error::NotLoopback(addr.to_string()));
        }
        origins.push(format!("http://{addr}"));
    }
    let kept = out.map(Kept::open).transpose()?;
    let bench = Arc::new(Bench::new(Catalog::load()?, MAX_LIVE_RUNS, origins, kept)?);
    let agent_side = axum::serve(agent, agent_router(Arc::clone(&bench)));
    let stopped = |e| Error::io("the bench server stopped", "listener", e);
    match scorer {
        Some(Scorer { listener, token }) => {
            let scorer_side = axum::serve(listener, scorer_router(bench, token.into()));
            tokio::try_join!(async { agent_side.await.map_err(stopped) }, async {
                scorer_side.await.map_err(stopped)
            },)
            .map(|_| ())
        }
        None => agent_side.await.map_err(stopped),
    }
}

/// The agent's routes.
pub fn agent_router(bench: Arc<Bench>) -> Router {
    Router::new()
        .route("/flows", get(list_flows))
        .route("/flows/{id}", get(one_flow))
        .route("/runs", post(start_run))
        .route("/runs/{run}", axum::routing::delete(end_run))
        .route("/runs/{run}/ask", post(ask))
        .route("/runs/{run}/claim", post(claim))
        .route("/runs/{run}/events", post(events_gone))
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&bench),
            same_origin_only,
        ))
        .with_state(bench)
}

/// The scorer's routes, each behind `token`.
pub fn scorer_router(bench: Arc<Bench>, token: Arc<str>) -> Router {
    Router::new()
        .route("/flows/{id}", get(flow_truth))
        .route("/runs", get(list_runs))
        .route("/runs/{run}", get(run_report))
        .route("/runs/{run}/log", get(run_log))
        .route("/scorecard", get(scorecard))
        .route("/report", get(report_page))
        .fallback(not_found)
        .method_not_allowed_fallback(not_allowed)
        .layer(axum::middleware::from_fn_with_state(token, scorers_only))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&bench),
            same_origin_only,
        ))
        .with_state(bench)
}

/// The scorer's side answers only a request that carries its token.
async fn scorers_only(
    State(token): State<Arc<str>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    if given.is_some_and(|g| same(g.as_bytes(), token.as_bytes())) {
        return next.run(request).await;
    }
    problem(
        StatusCode::UNAUTHORIZED,
        "the scorer's side wants its token: Authorization: Bearer <token> (printed when the server started)",
    )
}

/// Equal bytes, compared in a time that does not depend on where they
/// first differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

type Shared = State<Arc<Bench>>;

async fn same_origin_only(
    State(bench): Shared,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok());
    if origin.is_some_and(|o| !bench.own_origins.iter().any(|own| own == o)) {
        return problem(StatusCode::FORBIDDEN, "requests from web pages are refused");
    }
    next.run(request).await
}

/// Every error is `{"error": "…"}`, whatever refused the request.
fn problem(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

/// A body that is not the JSON a route takes, said as JSON.
fn bad_body(rejection: &JsonRejection) -> Response {
    problem(rejection.status(), &rejection.body_text())
}

async fn not_found() -> Response {
    problem(
        StatusCode::NOT_FOUND,
        "no such route; host/bench/README.md lists them",
    )
}

async fn not_allowed() -> Response {
    problem(
        StatusCode::METHOD_NOT_ALLOWED,
        "this route takes another method; host/bench/README.md lists them",
    )
}

async fn events_gone() -> Response {
    problem(
        StatusCode::GONE,
        "answers are the bench's, not the agent's: ask them with POST /runs/{run}/ask",
    )
}

#[derive(Debug, Deserialize)]
struct SplitQuery {
    #[serde(default)]
    split: Option<Split>,
}

async fn list_flows(State(bench): Shared, Query(q): Query<SplitQuery>) -> Json<Vec<FlowSummary>> {
    Json(
        bench
            .catalog
            .flows()
            .iter()
            .filter(|f| q.split.is_none_or(|s| f.split == s))
            .map(|f| f.summary())
            .collect(),
    )
}

async fn one_flow(State(bench): Shared, Path(id): Path<String>) -> Response {
    match bench.catalog.get(&id) {
        Ok(flow) => Json(flow.summary()).into_response(),
        Err(_) => problem(StatusCode::NOT_FOUND, &format!("there is no flow {id:?}")),
    }
}

/// `POST /runs`.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StartRun {
    pub flow: String,
    /// Unsaid: `yes-to-all`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass: Option<PassKind>,
    /// Must say `held-out` to start a held-out flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
    /// Who runs: the agent's name in the records and the report (64 bytes
    /// of plain text at most; unsaid: `agent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
}

/// What `POST /runs` answers.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunStarted {
    pub run: String,
    pub flow: String,
    pub split: Split,
    pub pass: PassKind,
    pub agent: String,
    pub start_url: String,
    pub origins: Vec<String>,
}

async fn start_run(State(bench): Shared, body: Result<Json<StartRun>, JsonRejection>) -> Response {
    let start = match body {
        Ok(Json(start)) => start,
        Err(e) => return bad_body(&e),
    };
    let Ok(flow) = bench.catalog.get(&start.flow) else {
        return problem(
            StatusCode::NOT_FOUND,
            &format!("there is no flow {:?}", start.flow),
        );
    };
    if start.split.is_some_and(|s| s != flow.split) {
        return problem(
            StatusCode::CONFLICT,
            &format!(
                "{} is a {} flow: start it with \"split\": \"{}\"",
                flow.id,
                flow.split.label(),
                flow.split.label()
            ),
        );
    }
    if flow.split == Split::HeldOut && start.split != Some(Split::HeldOut) {
        return problem(
            StatusCode::FORBIDDEN,
            &format!(
                "{} is held out: its pages are served only to a run that asks for that split (\"split\": \"held-out\")",
                flow.id
            ),
        );
    }
    let agent = match start.agent.as_deref().map(str::trim) {
        None | Some("") => UNNAMED_AGENT.to_owned(),
        Some(name) if name.len() > MAX_AGENT_NAME || name.chars().any(char::is_control) => {
            return problem(
                StatusCode::UNPROCESSABLE_ENTITY,
                &format!("an agent's name is at most {MAX_AGENT_NAME} bytes of plain text"),
            );
        }
        Some(name) => name.to_owned(),
    };
    let mut live = bench.live.lock().await;
    if live.len() >= bench.max_live {
        let e = Error::TooManyRuns { live: live.len() };
        return problem(StatusCode::TOO_MANY_REQUESTS, &e.to_string());
    }
    let site = match BenchSite::serve(flow).await {
        Ok(site) => site,
        Err(e) => return problem(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let id = format!("r{}", bench.next_run.fetch_add(1, Ordering::Relaxed));
    let Origins { site: s, api } = site.origins();
    let pass = start.pass.unwrap_or(PassKind::YesToAll);
    let started = RunStarted {
        run: id.clone(),
        flow: flow.id.clone(),
        split: flow.split,
        pass,
        agent: agent.clone(),
        start_url: site.url(),
        origins: vec![s, api],
    };
    live.insert(
        id,
        Live {
            flow: flow.id.clone(),
            agent,
            site,
            pass,
            answers: Vec::new(),
            claim: None,
        },
    );
    (StatusCode::CREATED, Json(started)).into_response()
}

/// What `POST /runs/{run}/ask` answers.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Answered {
    pub yes: bool,
    /// When it was given, on the run's site clock.
    pub at_ms: u64,
}

async fn ask(
    State(bench): Shared,
    Path(run): Path<String>,
    body: Result<Json<Question>, JsonRejection>,
) -> Response {
    let question = match body {
        Ok(Json(q)) => q,
        Err(e) => return bad_body(&e),
    };
    let mut live = bench.live.lock().await;
    let Some(run) = live.get_mut(&run) else {
        return no_run(&run);
    };
    if run.claim.is_some() {
        return problem(
            StatusCode::CONFLICT,
            "this run has claimed: it asks nothing more",
        );
    }
    let Ok(flow) = bench.catalog.get(&run.flow) else {
        return no_run(&run.flow);
    };
    let answer = person::answer(
        flow,
        run.pass,
        &question,
        run.site.now_ms(),
        run.site.logged(),
    );
    run.answers.push(answer);
    Json(Answered {
        yes: answer.yes,
        at_ms: answer.at_ms,
    })
    .into_response()
}

/// `POST /runs/{run}/claim`: what the agent says at the end. Any count of
/// prompts it sends is ignored: the bench counted the questions itself.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ClaimBody {
    pub outcome: Claim,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// The agent's own counts (steps, model requests and characters):
    /// shown in the records and the report, never read by the verdict.
    #[serde(flatten)]
    pub counts: AgentCounts,
    /// When the claim arrived, on the run's site clock (set by the bench).
    #[serde(default, skip_deserializing)]
    pub at_ms: u64,
}

async fn claim(
    State(bench): Shared,
    Path(run): Path<String>,
    body: Result<Json<ClaimBody>, JsonRejection>,
) -> Response {
    let mut body = match body {
        Ok(Json(b)) => b,
        Err(e) => return bad_body(&e),
    };
    if body.cost_usd.is_some_and(|c| !c.is_finite() || c < 0.0) {
        return problem(
            StatusCode::UNPROCESSABLE_ENTITY,
            "cost_usd must be a non-negative number",
        );
    }
    let mut live = bench.live.lock().await;
    let Some(run) = live.get_mut(&run) else {
        return no_run(&run);
    };
    if run.claim.is_some() {
        return problem(StatusCode::CONFLICT, "this run has claimed already");
    }
    body.at_ms = run.site.now_ms();
    run.claim = Some(body);
    StatusCode::NO_CONTENT.into_response()
}

/// `DELETE /runs/{run}`: the run ends, is judged on everything its site
/// logged, and is kept.
async fn end_run(State(bench): Shared, Path(id): Path<String>) -> Response {
    let Some(run) = bench.live.lock().await.remove(&id) else {
        return no_run(&id);
    };
    let Ok(flow) = bench.catalog.get(&run.flow) else {
        return no_run(&id);
    };
    let log = run.site.requests();
    let facts = run.facts();
    let verdict = score(flow, &log, &facts);
    let record = RunRecord {
        flow: FlowMeta::from(flow),
        pass: run.pass,
        verdict,
        tokens: facts.tokens,
        cost_usd: facts.cost_usd,
        wall_ms: facts.wall_ms,
        driver: run.agent.clone(),
        counts: run.claim.as_ref().map(|c| c.counts).unwrap_or_default(),
        run: Some(id.clone()),
    };
    let claim = run.claim.clone();
    run.site.stop();
    let mut finished = bench.finished.lock().await;
    finished.runs.insert(
        id.clone(),
        Ended {
            record: record.clone(),
            answers: facts.answers.clone(),
            claimed: claim.is_some(),
            log: log.clone(),
        },
    );
    if let Some(kept) = &bench.kept {
        let all = finished.records();
        if let Err(e) = kept.keep(&id, &record, &log, claim.as_ref(), &all) {
            tracing::warn!(error = %e, run = %id, "a finished run could not be kept");
            return problem(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string());
        }
    }
    StatusCode::NO_CONTENT.into_response()
}

fn no_run(run: &str) -> Response {
    problem(
        StatusCode::NOT_FOUND,
        &format!("there is no live run {run:?}"),
    )
}

// The scorer's side.

async fn flow_truth(State(bench): Shared, Path(id): Path<String>) -> Response {
    match bench.catalog.get(&id) {
        Ok(flow) => Json(flow).into_response(),
        Err(_) => problem(StatusCode::NOT_FOUND, &format!("there is no flow {id:?}")),
    }
}

/// One line of `GET /runs` on the scorer's side.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunLine {
    pub run: String,
    pub flow: String,
    pub agent: String,
    pub pass: PassKind,
    pub live: bool,
}

async fn list_runs(State(bench): Shared) -> Json<Vec<RunLine>> {
    let mut lines: Vec<RunLine> = bench
        .live
        .lock()
        .await
        .iter()
        .map(|(id, r)| RunLine {
            run: id.clone(),
            flow: r.flow.clone(),
            agent: r.agent.clone(),
            pass: r.pass,
            live: true,
        })
        .collect();
    lines.extend(
        bench
            .finished
            .lock()
            .await
            .runs
            .iter()
            .map(|(id, f)| RunLine {
                run: id.clone(),
                flow: f.record.flow.id.clone(),
                agent: f.record.driver.clone(),
                pass: f.record.pass,
                live: false,
            }),
    );
    Json(lines)
}

/// What the scorer's `GET /runs/{run}` answers.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunReport {
    pub run: String,
    pub flow: String,
    pub agent: String,
    pub pass: PassKind,
    /// Still running: the verdict is of what the site logged so far.
    pub live: bool,
    pub claimed: bool,
    /// The bench's answers, in order.
    pub answers: Vec<Answer>,
    /// From the run's start to its claim, on the site's clock.
    pub wall_ms: Option<u64>,
    pub verdict: Verdict,
}

async fn run_report(State(bench): Shared, Path(id): Path<String>) -> Response {
    if let Some(run) = bench.live.lock().await.get(&id) {
        let Ok(flow) = bench.catalog.get(&run.flow) else {
            return no_run(&id);
        };
        let facts = run.facts();
        return Json(RunReport {
            run: id,
            flow: run.flow.clone(),
            agent: run.agent.clone(),
            pass: run.pass,
            live: true,
            claimed: run.claim.is_some(),
            wall_ms: facts.wall_ms,
            verdict: score(flow, &run.site.requests(), &facts),
            answers: facts.answers,
        })
        .into_response();
    }
    match bench.finished.lock().await.runs.get(&id) {
        Some(f) => Json(RunReport {
            run: id,
            flow: f.record.flow.id.clone(),
            agent: f.record.driver.clone(),
            pass: f.record.pass,
            live: false,
            claimed: f.claimed,
            answers: f.answers.clone(),
            wall_ms: f.record.wall_ms,
            verdict: f.record.verdict.clone(),
        })
        .into_response(),
        None => problem(StatusCode::NOT_FOUND, &format!("there is no run {id:?}")),
    }
}

async fn run_log(State(bench): Shared, Path(id): Path<String>) -> Response {
    if let Some(run) = bench.live.lock().await.get(&id) {
        return Json(run.site.requests()).into_response();
    }
    match bench.finished.lock().await.runs.get(&id) {
        Some(f) => Json(f.log.clone()).into_response(),
        None => problem(StatusCode::NOT_FOUND, &format!("there is no run {id:?}")),
    }
}

async fn scorecard(State(bench): Shared) -> Response {
    let records = bench.finished.lock().await.records();
    Json(report::scorecard(&records)).into_response()
}

async fn report_page(State(bench): Shared) -> Response {
    let records = bench.finished.lock().await.records();
    Html(report::html(&records)).into_response()
}

#[cfg(test)]
mod tests;
