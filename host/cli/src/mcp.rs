//! `subterminator mcp`: serve the canceller over MCP, on stdio (what Claude
//! Desktop, Claude Code and Cursor start) or streamable HTTP.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use subterminator_core::agent::DEFAULT_MAX_TURNS;
use subterminator_core::config::Config;
use subterminator_core::error::{Error, Result};
use subterminator_core::paths::Dirs;
use subterminator_core::session::{self, SessionSpec, Tools, interrupted};
use subterminator_mcp::{self as mcp, McpServer, ServeOptions, Sessions};

#[derive(Debug, Args)]
#[command(after_help = "Examples:\n  \
    subterminator mcp                                   stdio: Claude Desktop, Claude Code, Cursor\n  \
    subterminator mcp --model offline                   cancel_subscription follows the plugin's plan\n  \
    subterminator mcp --http 127.0.0.1:8765             streamable HTTP; prints a token once\n  \
    subterminator mcp --http 127.0.0.1:8765 --token-file ~/.mcp-token\n  \
    subterminator mcp --isolated --idle-timeout 600     throwaway profiles; idle ones close in 10 min\n  \
    subterminator mcp --headless --max-sessions 2       no windows; at most two browsers at once\n  \
    subterminator mcp --cdp-endpoint ws://grid:3000/chromium  every session a context on a grid\n\n\
    Claude Code: claude mcp add subterminator -- subterminator mcp")]
pub struct McpArgs {
    /// Serve streamable HTTP at this address instead of stdio (loopback only
    /// unless --allow-remote); the endpoint is /mcp.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,

    /// Let --http listen on an address other than loopback.
    #[arg(long, requires = "http")]
    pub allow_remote: bool,

    /// Read the HTTP bearer token from this file instead of generating one.
    #[arg(long, value_name = "PATH", requires = "http")]
    pub token_file: Option<PathBuf>,

    /// The model cancel_subscription uses: as `cancel --model`, or `offline`.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<String>,

    /// The model server's base URL (OpenAI-compatible ones include /v1).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Run browsers without a window.
    #[arg(long)]
    pub headless: bool,

    /// The Chrome or Chromium executable to drive.
    #[arg(long, value_name = "PATH")]
    pub browser: Option<PathBuf>,

    /// Give sessions a throwaway profile unless a call asks for the signed-in one.
    #[arg(long)]
    pub isolated: bool,

    /// Attach every session to this running browser (a context each)
    /// instead of starting one: http://127.0.0.1:9222 or a grid's ws:// address.
    #[arg(long, value_name = "URL")]
    pub cdp_endpoint: Option<String>,

    /// Close sessions idle this many seconds (default 3600).
    #[arg(long, value_name = "SECONDS")]
    pub idle_timeout: Option<u64>,

    /// The most browser sessions open at once (default 4).
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<usize>,

    /// Over HTTP, close the sessions of a client that shows no sign of
    /// itself between calls for this many seconds (default 20; a client that
    /// kept an event stream open is gone 10 s after it closes).
    #[arg(long, value_name = "SECONDS", requires = "http")]
    pub lease: Option<u64>,

    /// The most turns cancel_subscription's agent may take.
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,
}

impl McpArgs {
    fn options(&self, config: &Config) -> Result<ServeOptions> {
        let idle = self
            .idle_timeout
            .or(config.mcp.idle_timeout)
            .map_or(mcp::DEFAULT_IDLE_TIMEOUT, Duration::from_secs);
        let max_sessions = self
            .max_sessions
            .or(config.mcp.max_sessions)
            .unwrap_or(mcp::DEFAULT_MAX_SESSIONS);
        if idle.is_zero() {
            return Err(Error::Configuration(
                "--idle-timeout must be at least 1 second; pass e.g. --idle-timeout 3600".into(),
            ));
        }
        if max_sessions == 0 {
            return Err(Error::Configuration(
                "--max-sessions must be at least 1; pass e.g. --max-sessions 4".into(),
            ));
        }
        let lease = self.lease.map_or(mcp::DEFAULT_LEASE, Duration::from_secs);
        if lease.is_zero() {
            return Err(Error::Configuration(
                "--lease must be at least 1 second; pass e.g. --lease 20".into(),
            ));
        }
        Ok(ServeOptions {
            idle_timeout: idle,
            max_sessions,
            isolated_by_default: self.isolated,
            lease,
        })
    }

    fn spec(&self, config: &Config) -> Result<SessionSpec> {
        let attach = session::attach(self.cdp_endpoint.as_deref(), &config.browser)?;
        Ok(SessionSpec {
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            max_turns: self
                .max_turns
                .or(config.agent.max_turns)
                .unwrap_or(DEFAULT_MAX_TURNS),
            dry_run: false,
            // Never off here: there is no --no-checkpoint for a server.
            checkpoints: true,
            headless: self.headless,
            start_url: None,
            tools: match config.agent.tools.as_deref() {
                Some("full") => Tools::Full,
                _ => Tools::Compact,
            },
            vision: false,
            dismiss_overlays: config.agent.dismiss_overlays.unwrap_or(true),
            replay: false,
            model_drives: false,
            billing_descriptors: Vec::new(),
            browser: self.browser.clone(),
            attach,
            served: None,
            isolated: self.isolated,
            json: true,
            verbose: false,
        })
    }
}

pub async fn run(args: McpArgs, dirs: &Dirs) -> Result<u8> {
    let config = Config::load(&dirs.config_file())?;
    let options = args.options(&config)?;
    let spec = args.spec(&config)?;
    let sessions = Sessions::new(dirs.clone(), config, spec, options);
    let reaper = sessions.spawn_reaper();
    let served = match args.http {
        None => serve_stdio(&sessions).await,
        Some(addr) => serve_http(&sessions, addr, &args).await,
    };
    reaper.abort();
    let closed = sessions.shutdown().await;
    if closed > 0 {
        tracing::info!(closed, "sessions closed on exit");
    }
    served.map(|()| 0)
}

/// Until the client closes stdin, or SIGTERM / Ctrl+C. Every line is
/// screened first: malformed input gets its JSON-RPC error.
async fn serve_stdio(sessions: &Sessions) -> Result<()> {
    use rmcp::ServiceExt;
    let server = McpServer::new(sessions.clone());
    let running = server
        .serve(mcp::stdio::stdio())
        .await
        .map_err(|e| Error::Configuration(format!("the MCP client's handshake failed: {e}")))?;
    tokio::select! {
        ended = running.waiting() => {
            if let Err(e) = ended {
                tracing::warn!("the MCP connection ended with an error: {e}");
            }
        }
        () = interrupted() => {}
    }
    Ok(())
}

async fn serve_http(sessions: &Sessions, addr: SocketAddr, args: &McpArgs) -> Result<()> {
    mcp::http::check_address(&addr, args.allow_remote)?;
    let (token, generated) = mcp::http::token(args.token_file.as_deref())?;
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        Error::Configuration(format!("cannot listen on {addr}: {e}; pick another port"))
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| Error::Configuration(format!("the listener on {addr} has no address: {e}")))?;
    // Said on stderr, once: stdout stays free, and the token is in no log.
    anstream::eprintln!("Serving MCP at http://{bound}{}", mcp::http::ENDPOINT);
    if generated {
        anstream::eprintln!(
            "Bearer token (shown once; pass --token-file to choose your own): {token}"
        );
    }
    mcp::http::serve(sessions.clone(), listener, token, interrupted()).await
}
