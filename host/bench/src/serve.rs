//! CancelBench for any agent: a small JSON interface on loopback that
//! lists the flows, starts a fresh site per run, takes the agent's claim
//! and answers with the verdict the site's own log supports. The README
//! documents it with curl examples.
//!
//! A page the agent visits could try to talk to this server (it is on
//! loopback too): requests that carry a foreign `Origin` are refused.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::flow::FlowSummary;
use crate::log::LoggedRequest;
use crate::score::{Answer, Claim, PassKind, RunFacts, Verdict, score};
use crate::site::{BenchSite, Origins};

/// Live runs one server keeps: each holds two listening ports, and an
/// agent that forgets `DELETE` should hit a clear error, not exhaust them.
pub const MAX_LIVE_RUNS: usize = 16;

struct Run {
    flow: String,
    site: BenchSite,
    facts: RunFacts,
    claimed: bool,
}

/// The server's state: the catalog and the live runs.
pub struct Bench {
    catalog: Catalog,
    runs: Mutex<BTreeMap<String, Run>>,
    next_run: std::sync::atomic::AtomicU64,
    max_live: usize,
    /// `http://127.0.0.1:<port>`: the one Origin a browser may send.
    own_origin: String,
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
    /// answering at `own_origin`.
    pub fn new(catalog: Catalog, max_live: usize, own_origin: String) -> Bench {
        Bench {
            catalog,
            runs: Mutex::new(BTreeMap::new()),
            next_run: std::sync::atomic::AtomicU64::new(1),
            max_live,
            own_origin,
        }
    }
}

/// Serves the bench on `listener` (loopback only) until the task is
/// dropped; `subterminator bench serve` mounts this.
pub async fn serve(listener: TcpListener) -> Result<()> {
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io("cannot serve the bench", "listener", e))?;
    if !addr.ip().is_loopback() {
        return Err(Error::NotLoopback(addr.to_string()));
    }
    let bench = Bench::new(Catalog::load()?, MAX_LIVE_RUNS, format!("http://{addr}"));
    axum::serve(listener, router(Arc::new(bench)))
        .await
        .map_err(|e| Error::io("the bench server stopped", addr.to_string(), e))
}

/// The routes, for [`serve`] and for tests.
pub fn router(bench: Arc<Bench>) -> Router {
    Router::new()
        .route("/flows", get(list_flows))
        .route("/flows/{id}", get(one_flow))
        .route("/runs", post(start_run))
        .route("/runs/{run}", get(run_verdict).delete(stop_run))
        .route("/runs/{run}/claim", post(claim))
        .route("/runs/{run}/events", post(event))
        .route("/runs/{run}/log", get(run_log))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&bench),
            same_origin_only,
        ))
        .with_state(bench)
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
    if origin.is_some_and(|o| o != bench.own_origin) {
        return problem(StatusCode::FORBIDDEN, "requests from web pages are refused");
    }
    next.run(request).await
}

fn problem(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

async fn list_flows(State(bench): Shared) -> Json<Vec<FlowSummary>> {
    Json(bench.catalog.flows().iter().map(|f| f.summary()).collect())
}

#[derive(Debug, Deserialize)]
struct TruthQuery {
    #[serde(default)]
    truth: Option<String>,
}

async fn one_flow(
    State(bench): Shared,
    Path(id): Path<String>,
    Query(q): Query<TruthQuery>,
) -> Response {
    let Ok(flow) = bench.catalog.get(&id) else {
        return problem(StatusCode::NOT_FOUND, &format!("there is no flow {id:?}"));
    };
    if q.truth.as_deref().is_some_and(|t| t == "1" || t == "true") {
        Json(flow).into_response()
    } else {
        Json(flow.summary()).into_response()
    }
}

#[derive(Debug, Deserialize)]
struct StartRun {
    flow: String,
    #[serde(default)]
    pass: Option<PassKind>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RunStarted {
    pub run: String,
    pub flow: String,
    pub start_url: String,
    pub origins: Vec<String>,
}

async fn start_run(State(bench): Shared, Json(start): Json<StartRun>) -> Response {
    let Ok(flow) = bench.catalog.get(&start.flow) else {
        return problem(
            StatusCode::NOT_FOUND,
            &format!("there is no flow {:?}", start.flow),
        );
    };
    let mut runs = bench.runs.lock().await;
    if runs.len() >= bench.max_live {
        let e = Error::TooManyRuns { live: runs.len() };
        return problem(StatusCode::TOO_MANY_REQUESTS, &e.to_string());
    }
    let site = match BenchSite::serve(flow).await {
        Ok(site) => site,
        Err(e) => return problem(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let n = bench
        .next_run
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id = format!("r{n}");
    let Origins { site: s, api } = site.origins();
    let started = RunStarted {
        run: id.clone(),
        flow: flow.id.clone(),
        start_url: site.url(),
        origins: vec![s, api],
    };
    runs.insert(
        id,
        Run {
            flow: flow.id.clone(),
            site,
            facts: RunFacts {
                pass: start.pass,
                ..RunFacts::default()
            },
            claimed: false,
        },
    );
    (StatusCode::CREATED, Json(started)).into_response()
}

#[derive(Debug, Deserialize)]
struct ClaimBody {
    outcome: Claim,
    #[serde(default)]
    prompts: Option<u32>,
    #[serde(default)]
    tokens: Option<u64>,
    #[serde(default)]
    cost_usd: Option<f64>,
}

async fn claim(
    State(bench): Shared,
    Path(run): Path<String>,
    Json(body): Json<ClaimBody>,
) -> Response {
    let mut runs = bench.runs.lock().await;
    let Some(live) = runs.get_mut(&run) else {
        return no_run(&run);
    };
    live.facts.claim = body.outcome;
    live.facts.prompts = body.prompts.or(live.facts.prompts);
    live.facts.tokens = body.tokens;
    live.facts.cost_usd = body.cost_usd;
    live.facts.wall_ms = Some(live.site.now_ms());
    live.claimed = true;
    StatusCode::NO_CONTENT.into_response()
}

/// An answer or an action, stamped when it arrives on the run's site clock.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
enum Event {
    Answer { yes: bool },
    Action,
}

async fn event(
    State(bench): Shared,
    Path(run): Path<String>,
    Json(event): Json<Event>,
) -> Response {
    let mut runs = bench.runs.lock().await;
    let Some(live) = runs.get_mut(&run) else {
        return no_run(&run);
    };
    let at_ms = live.site.now_ms();
    match event {
        Event::Answer { yes } => {
            live.facts.answers.push(Answer { at_ms, yes });
            *live.facts.prompts.get_or_insert(0) += 1;
        }
        Event::Action => live.facts.actions_ms.push(at_ms),
    }
    (StatusCode::OK, Json(serde_json::json!({ "at_ms": at_ms }))).into_response()
}

/// What `GET /runs/{run}` answers.
#[derive(Debug, Serialize, Deserialize)]
pub struct RunReport {
    pub run: String,
    pub flow: String,
    pub claimed: bool,
    /// Whether answers were reported; without them every commit counts as
    /// one without a yes.
    pub answers_reported: bool,
    /// From the run's start to its claim, on the site's clock.
    pub wall_ms: Option<u64>,
    pub verdict: Verdict,
}

async fn run_verdict(State(bench): Shared, Path(run): Path<String>) -> Response {
    let runs = bench.runs.lock().await;
    let Some(live) = runs.get(&run) else {
        return no_run(&run);
    };
    let Ok(flow) = bench.catalog.get(&live.flow) else {
        return no_run(&run);
    };
    let verdict = score(flow, &live.site.requests(), &live.facts);
    Json(RunReport {
        run,
        flow: live.flow.clone(),
        claimed: live.claimed,
        answers_reported: !live.facts.answers.is_empty(),
        wall_ms: live.facts.wall_ms,
        verdict,
    })
    .into_response()
}

async fn run_log(State(bench): Shared, Path(run): Path<String>) -> Response {
    let runs = bench.runs.lock().await;
    match runs.get(&run) {
        Some(live) => Json::<Vec<LoggedRequest>>(live.site.requests()).into_response(),
        None => no_run(&run),
    }
}

async fn stop_run(State(bench): Shared, Path(run): Path<String>) -> Response {
    let mut runs = bench.runs.lock().await;
    match runs.remove(&run) {
        Some(live) => {
            live.site.stop();
            StatusCode::NO_CONTENT.into_response()
        }
        None => no_run(&run),
    }
}

fn no_run(run: &str) -> Response {
    problem(
        StatusCode::NOT_FOUND,
        &format!("there is no live run {run:?}"),
    )
}

#[cfg(test)]
mod tests;
