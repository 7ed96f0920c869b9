//! A bench served in this process for an agent on this machine: what
//! `subterminator bench` runs its own agent against when no `--bench-url`
//! names one. The agent's interface listens on a free loopback port and
//! the agent takes it as it takes any served bench's; there is no scorer's
//! port, because the records are read here, run by run. So the person who
//! answers and the truth that scores stay in this crate, behind the same
//! interface an outside agent gets, and the agent's side holds neither.

use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::report::RunRecord;
use crate::serve::{Bench, MAX_LIVE_RUNS, agent_router};

/// The bench, served until this is dropped.
pub struct Here {
    bench: Arc<Bench>,
    url: String,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Here {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Here").field("url", &self.url).finish()
    }
}

impl Here {
    /// Every flow of the catalogue, served on a free port of 127.0.0.1.
    pub async fn start() -> Result<Here> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| Error::io("cannot serve the bench", "127.0.0.1:0", e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::io("cannot serve the bench", "listener", e))?;
        let url = format!("http://{addr}");
        let bench = Arc::new(Bench::new(
            Catalog::load()?,
            MAX_LIVE_RUNS,
            vec![url.clone()],
            None,
        )?);
        let router = agent_router(Arc::clone(&bench));
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).await {
                tracing::warn!(error = %e, "the bench served here stopped");
            }
        });
        Ok(Here { bench, url, task })
    }

    /// The agent's interface: `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The record of `run`, once it has ended. It names no run: the id
    /// is this process's, no folder keeps the run under it, and records of
    /// several such benches (shards) are told apart by flow, pass and agent.
    pub async fn record(&self, run: &str) -> Option<RunRecord> {
        let finished = self.bench.finished.lock().await;
        finished.runs.get(run).map(|ended| RunRecord {
            run: None,
            ..ended.record.clone()
        })
    }
}

impl Drop for Here {
    fn drop(&mut self) {
        // The server holds the catalogue and any site still live; ending
        // the task closes its port with it.
        self.task.abort();
    }
}
