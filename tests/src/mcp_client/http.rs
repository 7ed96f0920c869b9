//! `subterminator mcp --http` on a free loopback port, with a token of its
//! own, for the clients to reach: the Python SDK through a plan, and raw
//! requests for what no SDK would send.

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

/// A running HTTP server.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub authority: String,
    pub token: String,
}

/// How long the server may take to say where it listens.
const START_TIMEOUT: Duration = Duration::from_secs(30);

impl HttpServer {
    /// Starts the binary under test as `mcp --http 127.0.0.1:0` with `args`,
    /// a home at `home` and a token file there.
    pub async fn start(home: &Path, args: &[&str]) -> anyhow::Result<HttpServer> {
        let token = format!("{}{}", "5e".repeat(16), "c2".repeat(16));
        let token_file = home.join("token");
        std::fs::write(&token_file, format!("{token}\n"))?;
        let mut command = crate::e2e::command(home);
        command.args(["mcp", "--http", "127.0.0.1:0", "--token-file"]);
        command.arg(&token_file);
        command.args(args);
        let mut child = command
            .spawn()
            .context("starting subterminator mcp --http")?;
        let stderr = child.stderr.take().context("server stderr")?;
        let mut lines = BufReader::new(stderr).lines();
        let first = tokio::time::timeout(START_TIMEOUT, lines.next_line())
            .await
            .map_err(|_| anyhow!("the server did not say where it listens"))??
            .ok_or_else(|| anyhow!("the server ended before it listened"))?;
        let url = first
            .strip_prefix("Serving MCP at ")
            .ok_or_else(|| anyhow!("unexpected first line: {first}"))?
            .to_owned();
        // Keep reading, so a chatty server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let authority = url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        Ok(HttpServer {
            child,
            url,
            authority,
            token,
        })
    }

    /// A plan for the Python client against this server.
    pub fn plan(&self, mode: &str, elicitation: &str, steps: Value) -> Value {
        json!({
            "http": self.url,
            "token": self.token,
            "mode": mode,
            "elicitation": elicitation,
            "steps": steps,
        })
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Posts `body` to the endpoint with the token and `headers`; the
    /// status and the body as text.
    pub async fn post(
        &self,
        body: impl Into<reqwest::Body>,
        headers: &[(&str, &str)],
    ) -> anyhow::Result<(u16, String)> {
        subterminator_core::tls::ready();
        let mut request = reqwest::Client::new()
            .post(&self.url)
            .header("Authorization", format!("Bearer {}", self.token))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .timeout(Duration::from_secs(60));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.body(body).send().await?;
        let status = response.status().as_u16();
        Ok((status, response.text().await?))
    }

    /// SIGTERM, and the exit code.
    pub async fn stop(mut self) -> anyhow::Result<Option<i32>> {
        let pid = self.pid().context("the server already ended")?;
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(i32::try_from(pid)?),
            nix::sys::signal::Signal::SIGTERM,
        )?;
        let status = tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await??;
        Ok(status.code())
    }
}

/// The JSON-RPC message in an HTTP answer: the body itself, or the first
/// `data:` line of an event stream that holds one.
pub fn message(body: &str) -> anyhow::Result<Value> {
    if let Ok(value) = serde_json::from_str(body) {
        return Ok(value);
    }
    for line in body.lines() {
        if let Some(data) = line.strip_prefix("data:")
            && let Ok(value) = serde_json::from_str::<Value>(data.trim())
            && (value.get("result").is_some() || value.get("error").is_some())
        {
            return Ok(value);
        }
    }
    bail!("no JSON-RPC answer in: {body}")
}
