//! An MCP client we did not write: the official Python SDK (PyPI `mcp`,
//! pinned in `tests/mcp_client/requirements.txt`) running
//! `tests/mcp_client/client.py`, which takes a JSON plan and reports every
//! call, progress notification and elicitation as a JSON line.
//!
//! The SDK lives in a virtualenv under `target/`, made on first use
//! (`.ci/run` makes it first); `SUBTERMINATOR_TEST_PYTHON` names another
//! interpreter that has it.
//!
//! [`http`] runs the server over HTTP for it (and for raw requests no SDK
//! would send); [`conformance`] runs the official conformance suite.

pub mod conformance;
pub mod http;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

/// The pinned SDK, as `requirements.txt` says.
pub const REQUIREMENTS: &str = include_str!("../mcp_client/requirements.txt");

/// How long one line from the client may take (a whole cancellation fits).
pub const LINE_TIMEOUT: Duration = Duration::from_secs(120);

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The client script.
pub fn script() -> PathBuf {
    workspace().join("tests/mcp_client/client.py")
}

/// A Python with the pinned SDK, made once per checkout.
pub fn python() -> anyhow::Result<PathBuf> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PYTHON
        .get_or_init(|| make_venv().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(|e| anyhow!(e))
}

fn make_venv() -> anyhow::Result<PathBuf> {
    if let Some(python) = std::env::var_os("SUBTERMINATOR_TEST_PYTHON") {
        return Ok(PathBuf::from(python));
    }
    let pin = REQUIREMENTS.trim().replace("==", "-");
    let venv = workspace().join("target/mcp-client").join(&pin);
    let python = venv.join("bin/python");
    if python.exists() {
        return Ok(python);
    }
    // Built aside and renamed into place: test processes racing to make it
    // (nextest runs one per test) never see half of one.
    let building = workspace()
        .join("target/mcp-client")
        .join(format!("{pin}.building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    if let Some(parent) = venv.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let status = std::process::Command::new("python3")
        .args(["-m", "venv"])
        .arg(&building)
        .status()
        .context("python3 -m venv (install Python 3.10 or newer)")?;
    if !status.success() {
        bail!("python3 -m venv {} failed", building.display());
    }
    let output = std::process::Command::new(building.join("bin/python"))
        .args(["-m", "pip", "install", "--quiet", "-r"])
        .arg(workspace().join("tests/mcp_client/requirements.txt"))
        .output()
        .context("pip install the MCP Python SDK")?;
    if !output.status.success() {
        bail!(
            "pip install -r tests/mcp_client/requirements.txt failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    if std::fs::rename(&building, &venv).is_err() {
        // Another process made it first.
        let _ = std::fs::remove_dir_all(&building);
    }
    Ok(python)
}

/// The server's command line for a stdio plan: the binary under test with
/// a home of its own, headless Chromium, no keys.
pub fn server(home: &Path, args: &[&str]) -> Value {
    crate::e2e::share_plugin_cache(home);
    let mut argv = vec![crate::e2e::bin().display().to_string(), "mcp".to_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    json!({
        "server": argv,
        "env": {
            "SUBTERMINATOR_HOME": home,
            "SUBTERMINATOR_BROWSER": crate::e2e::browser(),
            "NO_COLOR": "1",
        }
    })
}

/// A running client.
pub struct Client {
    child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    /// Every line so far.
    pub seen: Vec<Value>,
    /// What the client wrote on stderr, for failure messages.
    stderr: Arc<Mutex<String>>,
}

impl Client {
    /// Starts the client on `plan` (see `client.py`).
    pub async fn start(plan: &Value) -> anyhow::Result<Client> {
        let mut child = tokio::process::Command::new(python()?)
            .arg(script())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .context("starting the MCP client")?;
        let mut stdin = child.stdin.take().context("client stdin")?;
        let stdout = child.stdout.take().context("client stdout")?;
        let stderr = child.stderr.take().context("client stderr")?;
        let said: Arc<Mutex<String>> = Arc::default();
        let keep = said.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(mut said) = keep.lock() {
                    said.push_str(&line);
                    said.push('\n');
                }
            }
        });
        stdin.write_all(format!("{plan}\n").as_bytes()).await?;
        Ok(Client {
            child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            seen: Vec::new(),
            stderr: said,
        })
    }

    /// What the client has written on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// The next line the client printed.
    pub async fn next(&mut self) -> anyhow::Result<Value> {
        let line = tokio::time::timeout(LINE_TIMEOUT, self.lines.next_line())
            .await
            .map_err(|_| {
                anyhow!(
                    "no line from the client within {LINE_TIMEOUT:?}; so far: {:#?}\n--- stderr\n{}",
                    self.seen,
                    self.stderr()
                )
            })??
            .ok_or_else(|| {
                anyhow!(
                    "the client ended; so far: {:#?}\n--- stderr\n{}",
                    self.seen,
                    self.stderr()
                )
            })?;
        let value: Value =
            serde_json::from_str(&line).with_context(|| format!("not JSON: {line}"))?;
        self.seen.push(value.clone());
        Ok(value)
    }

    /// Lines until one has `key`, which is returned.
    pub async fn until(&mut self, key: &str) -> anyhow::Result<Value> {
        loop {
            let line = self.next().await?;
            if line.get(key).is_some() {
                return Ok(line);
            }
        }
    }

    /// Sends a line: the answer to an elicitation under "ask", or the go
    /// after a pause.
    pub async fn say(&mut self, line: &str) -> anyhow::Result<()> {
        self.stdin.write_all(format!("{line}\n").as_bytes()).await?;
        self.stdin.flush().await?;
        Ok(())
    }

    /// Every line to the end, and the client's exit.
    pub async fn finish(mut self) -> anyhow::Result<Vec<Value>> {
        while self.seen.last().and_then(|l| l.get("done")).is_none() {
            self.next().await?;
        }
        let status = tokio::time::timeout(LINE_TIMEOUT, self.child.wait()).await??;
        if !status.success() {
            bail!(
                "the client exited with {status}: {:#?}\n--- stderr\n{}",
                self.seen,
                self.stderr()
            );
        }
        Ok(self.seen)
    }
}

/// The `call` lines of `tool`, in order.
pub fn calls<'a>(lines: &'a [Value], tool: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l.get("call").and_then(Value::as_str) == Some(tool))
        .collect()
}

/// Every element name in a call's snapshot.
pub fn names(call: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect_names(&call["structured"]["data"]["snapshot"], &mut found);
    found
}

fn collect_names(node: &Value, found: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            if let Some(name) = map.get("name").and_then(Value::as_str)
                && map.contains_key("ref")
            {
                found.push(name.to_owned());
            }
            map.values().for_each(|v| collect_names(v, found));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_names(v, found)),
        _ => {}
    }
}
