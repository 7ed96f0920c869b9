//! This agent run against a served bench as any outside agent is: a `bench
//! serve` (`subterminator bench --bench-url URL`), or the bench served in
//! this process (`subterminator bench`). The flows come from its list, each
//! run is started there (its site is the server's), every question goes to
//! its ask route, and the claim is posted before the run is ended. The
//! verdicts are the scorer's: this side never sees them.

use serde::Serialize;

use subterminator_bench::serve::{ClaimBody, RunStarted};
use subterminator_bench::{AgentCounts, Claim, FlowSummary, PassKind, StepCounts};
use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;

use super::ask;
use super::runner::{self, Setup};

/// The agent's side of a `bench serve`.
#[derive(Debug, Clone)]
pub struct Served {
    http: reqwest::Client,
    base: String,
}

/// What one served run left on this side: its id there and the claim.
#[derive(Debug, Serialize)]
pub struct Ran {
    pub run: String,
    pub flow: String,
    pub pass: PassKind,
    pub agent: String,
    pub claim: Claim,
    pub questions: usize,
}

impl Served {
    /// The server at `base` (`http://127.0.0.1:8722`), loopback only: its
    /// pages are loopback practice sites, and a run must not post a claim
    /// anywhere else.
    pub fn at(base: &str) -> Result<Served> {
        let url = url::Url::parse(base).map_err(|e| {
            Error::Configuration(format!("--bench-url {base:?} is not an address: {e}"))
        })?;
        let loopback = match url.host() {
            Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
            Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
            Some(url::Host::Domain(d)) => d == "localhost",
            None => false,
        };
        if url.scheme() != "http" || !loopback {
            return Err(Error::Configuration(format!(
                "--bench-url {base:?}: a bench serve listens on http://127.0.0.1 only"
            )));
        }
        // Plain http on loopback, but reqwest wants a provider to build.
        subterminator_core::tls::ready();
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .map_err(|e| Error::Configuration(format!("no HTTP client: {e}")))?;
        Ok(Served {
            http,
            base: base.trim_end_matches('/').to_owned(),
        })
    }

    /// Every flow the server lists.
    pub async fn flows(&self) -> Result<Vec<FlowSummary>> {
        let reply = self
            .http
            .get(format!("{}/flows", self.base))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        json_of(reply, "GET /flows").await
    }

    /// One run of `flow` in `pass` there, as `agent`; with `--replay`, a
    /// learning run (yes to all, as `<agent> learning`) first, whose path
    /// the scored run follows.
    pub async fn one(
        &self,
        setup: &Setup,
        flow: &FlowSummary,
        pass: PassKind,
        agent: &str,
    ) -> Result<Ran> {
        let dirs = Dirs {
            data: runner::run_folder(&setup.runs, &flow.id, pass),
            ..setup.shared.clone()
        };
        if setup.spec.replay {
            let learner = format!("{agent} learning");
            self.run(setup, flow, PassKind::YesToAll, &learner, &dirs, true)
                .await?;
        }
        self.run(setup, flow, pass, agent, &dirs, false).await
    }

    /// Starts a run there, drives it, claims and ends it.
    async fn run(
        &self,
        setup: &Setup,
        flow: &FlowSummary,
        pass: PassKind,
        agent: &str,
        dirs: &Dirs,
        learning: bool,
    ) -> Result<Ran> {
        let reply = self
            .http
            .post(format!("{}/runs", self.base))
            .json(&serde_json::json!({
                "flow": flow.id,
                "pass": pass,
                "split": flow.split,
                "agent": agent,
            }))
            .send()
            .await
            .map_err(|e| self.unreachable(&e))?;
        let started: RunStarted = json_of(reply, "POST /runs").await?;
        let run_url = format!("{}/runs/{}", self.base, started.run);
        let route = ask::Route {
            http: self.http.clone(),
            url: format!("{run_url}/ask"),
        };
        let browser = setup.browsers.lease();
        let driven = runner::drive(
            setup,
            browser.lent(),
            flow,
            started.start_url.clone(),
            dirs,
            route,
            learning,
        )
        .await;
        // The run is ended there whatever happened here: a live run holds
        // two of the server's ports.
        let (claim, questions) = match &driven {
            Ok((result, asked)) => (runner::claim_of(result), *asked),
            Err(_) => (Claim::None, 0),
        };
        // This agent's own counts go with the claim, for the records and
        // the report; the verdict is the bench's, from its site's log, and
        // the bench stamps `at_ms` itself.
        let body = match &driven {
            Ok((result, _)) => ClaimBody {
                outcome: claim,
                tokens: Some(result.usage.input + result.usage.output),
                cost_usd: result.cost_usd,
                counts: AgentCounts {
                    steps: Some(StepCounts {
                        plan: result.steps.plan,
                        remembered: result.steps.remembered,
                        model: result.steps.model,
                    }),
                    model_requests: Some(result.asked.requests),
                    request_chars: Some(result.asked.chars),
                },
                at_ms: 0,
            },
            Err(_) => ClaimBody {
                outcome: claim,
                tokens: None,
                cost_usd: None,
                counts: AgentCounts::default(),
                at_ms: 0,
            },
        };
        let claimed = self
            .http
            .post(format!("{run_url}/claim"))
            .json(&body)
            .send()
            .await;
        let ended = self.http.delete(&run_url).send().await;
        driven?;
        for (what, reply) in [("claim", claimed), ("end", ended)] {
            let reply = reply.map_err(|e| self.unreachable(&e))?;
            if !reply.status().is_success() {
                return Err(refused(reply, what).await);
            }
        }
        Ok(Ran {
            run: started.run,
            flow: flow.id.clone(),
            pass,
            agent: agent.to_owned(),
            claim,
            questions,
        })
    }

    fn unreachable(&self, e: &reqwest::Error) -> Error {
        Error::Configuration(format!(
            "the bench at {} did not answer ({e}); is `subterminator bench serve` running?",
            self.base
        ))
    }
}

async fn json_of<T: serde::de::DeserializeOwned>(
    reply: reqwest::Response,
    what: &str,
) -> Result<T> {
    if !reply.status().is_success() {
        return Err(refused(reply, what).await);
    }
    reply.json().await.map_err(|e| {
        Error::Configuration(format!(
            "the bench's answer to {what} is not what it documents: {e}"
        ))
    })
}

async fn refused(reply: reqwest::Response, what: &str) -> Error {
    let status = reply.status();
    let said: serde_json::Value = reply.json().await.unwrap_or_default();
    let error = said["error"].as_str().unwrap_or("no reason given");
    Error::Configuration(format!("the bench refused {what} ({status}): {error}"))
}
