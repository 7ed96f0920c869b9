//! A real `subterminator bench serve` for a test: both sides on free
//! loopback ports (read from its first line of output), its finished runs
//! kept in a folder, and the scorer's answers read back.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, anyhow};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::e2e;

/// How long the server may take to say where it listens.
const STARTED_WITHIN: Duration = Duration::from_secs(60);

/// A running server; dropped, it is killed.
pub struct ServedBench {
    /// The agent's side: `http://127.0.0.1:PORT`.
    pub agent: String,
    /// The scorer's side.
    pub scorer: String,
    /// What the scorer's side wants with each request.
    pub scorer_token: String,
    /// Where finished runs are kept.
    pub out: PathBuf,
    child: tokio::process::Child,
}

impl ServedBench {
    /// Starts one with its home under `home`, keeping runs in `out`.
    pub async fn start(home: &Path, out: &Path) -> anyhow::Result<ServedBench> {
        let mut command = e2e::command(home);
        command
            .args([
                "bench",
                "serve",
                "--addr",
                "127.0.0.1:0",
                "--scorer",
                "127.0.0.1:0",
                "--json",
            ])
            .arg("--out")
            .arg(out);
        let mut child = command.spawn().context("bench serve")?;
        let stdout = child.stdout.take().ok_or_else(|| anyhow!("no stdout"))?;
        let mut lines = BufReader::new(stdout).lines();
        let first = tokio::time::timeout(STARTED_WITHIN, lines.next_line())
            .await
            .context("bench serve said nothing")??
            .ok_or_else(|| anyhow!("bench serve ended before it listened"))?;
        let said: serde_json::Value = serde_json::from_str(&first).context("its first line")?;
        let url = |key: &str| {
            said[key]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| anyhow!("no {key} in {first}"))
        };
        Ok(ServedBench {
            agent: url("agent")?,
            scorer: url("scorer")?,
            scorer_token: url("scorer_token")?,
            out: out.to_owned(),
            child,
        })
    }

    /// A GET on the scorer's side, as JSON.
    pub async fn scorer_json(&self, path: &str) -> anyhow::Result<serde_json::Value> {
        subterminator_core::tls::ready();
        let reply = reqwest::Client::builder()
            .no_proxy()
            .build()?
            .get(format!("{}{path}", self.scorer))
            .bearer_auth(&self.scorer_token)
            .send()
            .await?;
        Ok(reply.error_for_status()?.json().await?)
    }

    /// Stops the server; what it kept stays in `out`.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.child.kill().await?;
        Ok(())
    }
}
