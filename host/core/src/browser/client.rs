//! [`Browser`]: one Playwright MCP server and the rmcp session with it.
//!
//! Calls go strictly one at a time (the server corrupts its state when two
//! actions overlap), each under a timeout. A dropped connection is
//! re-established once per session; the interrupted call is repeated only
//! when repeating it cannot do anything twice (navigate, snapshot,
//! read-only tools).
//!
//! One lane runs beside them ([`Browser::call_beside`]): the network
//! guard's own calls while an action's call is still in flight — the
//! question for a request it holds is asked while Playwright MCP waits for
//! that request, and the answer released, without waiting up to 5 s for the
//! action to give up. Those calls only read and set the guard's state and
//! take a picture; they never reconnect.

use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{Peer, RunningService};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::Value;

use super::launch::{self, LaunchPlan};
use super::process::ServerProcess;
use super::result::{classify_error, parse_result, parse_snapshot};
use super::served::Served;
use super::tools as mcp;
use super::{
    BrowserError, BrowserOptions, CLOSE_CALL_TIMEOUT, CONNECT_TIMEOUT, REQUIRED_TOOLS,
    SHUTDOWN_TIMEOUT, TERMINATE_GRACE, ToolOutput, ToolSchema, UserData,
};
use crate::page::Snapshot;

/// Reconnects allowed per session.
const RECONNECTS: u32 = 1;

/// The first bytes of every PNG file.
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Tools safe to send again after the connection dropped mid-call.
const REPEATABLE_TOOLS: &[&str] = &[mcp::NAVIGATE, mcp::SNAPSHOT, mcp::TAKE_SCREENSHOT];

/// The processes behind a session, for diagnostics and tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessInfo {
    /// The server's pid (the npx/launcher process; its group leader).
    pub server_pid: Option<i32>,
    /// Every pid seen under the server, Chromium's included.
    pub pids: Vec<i32>,
    /// The server's process group and the browser's.
    pub groups: Vec<i32>,
}

struct Connection {
    service: RunningService<RoleClient, ()>,
    /// Dropping it kills every process of the server (see [`ServerProcess`]);
    /// `None` for a session of a served server, which is not this run's.
    process: Option<ServerProcess>,
}

impl Connection {
    fn stderr_tail(&self) -> String {
        self.process
            .as_ref()
            .map(ServerProcess::stderr_tail)
            .unwrap_or_default()
    }
}

struct Session {
    conn: Option<Connection>,
    reconnects_left: u32,
}

/// A running Playwright MCP server with its browser.
pub struct Browser {
    session: tokio::sync::Mutex<Session>,
    /// The live connection's peer, for [`Browser::call_beside`]: taken
    /// without waiting for the call in flight, which holds `session`.
    beside: std::sync::Mutex<Option<Peer<RoleClient>>>,
    tools: Vec<ToolSchema>,
    read_only: Vec<String>,
    opts: BrowserOptions,
    plan: LaunchPlan,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("command", &self.plan.display)
            .finish_non_exhaustive()
    }
}

/// Why a call did not produce a result.
enum SendError {
    /// The transport closed or failed: the server is gone.
    Lost(String),
    Other(BrowserError),
}

impl Browser {
    /// Preflight, spawn, `initialize`, `tools/list` (within [`CONNECT_TIMEOUT`]),
    /// and the check that the tools the host relies on are there. The browser
    /// itself starts with the first call.
    pub async fn start(opts: BrowserOptions) -> Result<Browser, BrowserError> {
        let plan = match &opts.served {
            // The served server was checked and started already; its files
            // are moved into this run's own folder as they are named.
            Some(served) => {
                std::fs::create_dir_all(&opts.output_dir).map_err(|e| {
                    BrowserError::io(
                        "cannot create the browser output folder",
                        &opts.output_dir,
                        e,
                    )
                })?;
                LaunchPlan::served(served, &opts.output_dir)
            }
            None => {
                let prepared = {
                    let opts = opts.clone();
                    tokio::task::spawn_blocking(move || launch::prepare(&opts)).await
                };
                prepared.map_err(|e| BrowserError::Connect {
                    command: "preflight".to_owned(),
                    detail: e.to_string(),
                })??
            }
        };
        let started = Instant::now();
        let (conn, tools) = connect(&plan, opts.served.as_ref()).await?;
        tracing::info!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            tools = tools.len(),
            "connected to Playwright MCP"
        );
        let missing: Vec<String> = REQUIRED_TOOLS
            .iter()
            .filter(|r| !tools.iter().any(|t| t.schema.name == **r))
            .map(|r| (*r).to_owned())
            .collect();
        if !missing.is_empty() {
            close_connection(conn, false).await;
            return Err(BrowserError::MissingTools {
                command: plan.display.clone(),
                missing,
            });
        }
        let read_only = tools
            .iter()
            .filter(|t| REPEATABLE_TOOLS.contains(&t.schema.name.as_str()) || t.read_only)
            .map(|t| t.schema.name.clone())
            .collect();
        let peer = conn.service.peer().clone();
        Ok(Browser {
            beside: std::sync::Mutex::new(Some(peer)),
            session: tokio::sync::Mutex::new(Session {
                conn: Some(conn),
                reconnects_left: RECONNECTS,
            }),
            tools: tools.into_iter().map(|t| t.schema).collect(),
            read_only,
            opts,
            plan,
        })
    }

    /// The server's tools, as listed when the session started.
    pub fn tools(&self) -> &[ToolSchema] {
        &self.tools
    }

    /// The server's command line.
    pub fn command_line(&self) -> &str {
        &self.plan.display
    }

    /// The server's working and output directory.
    pub fn output_dir(&self) -> &Path {
        &self.plan.cwd
    }

    /// Calls one tool, waiting for any call in flight to finish first.
    /// `args` is a JSON object (or null for none). An `isError` result
    /// becomes [`BrowserError::Tool`] (or a configuration error when it says
    /// the browser could not start or the profile is locked).
    pub async fn call(&self, name: &str, args: Value) -> Result<ToolOutput, BrowserError> {
        let text = self.call_text(name, args).await?;
        Ok(parse_result(&text, Some(&self.plan.cwd)))
    }

    /// Calls one tool beside the call in flight, on the same connection,
    /// without waiting for it: for the guard's calls and a picture while an
    /// action waits on a request the guard holds. Never reconnects (a lost
    /// connection is the main lane's to re-establish); an `isError` result
    /// is [`BrowserError::Tool`].
    pub async fn call_beside(&self, name: &str, args: Value) -> Result<ToolOutput, BrowserError> {
        let peer = self
            .beside
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let Some(peer) = peer else {
            return Err(BrowserError::ConnectionLost {
                tool: name.to_owned(),
                detail: "no connection".to_owned(),
                reconnected: false,
            });
        };
        let mut params = CallToolRequestParams::new(name.to_owned());
        match args {
            Value::Object(map) => params = params.with_arguments(map),
            Value::Null => {}
            other => {
                return Err(BrowserError::BadArguments {
                    tool: name.to_owned(),
                    got: other.to_string(),
                });
            }
        }
        let result =
            match tokio::time::timeout(self.opts.call_timeout, peer.call_tool(params)).await {
                Err(_) => {
                    return Err(BrowserError::Timeout {
                        tool: name.to_owned(),
                        after: self.opts.call_timeout,
                    });
                }
                Ok(Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_)))) => {
                    return Err(BrowserError::ConnectionLost {
                        tool: name.to_owned(),
                        detail: e.to_string(),
                        reconnected: false,
                    });
                }
                Ok(Err(e)) => {
                    return Err(BrowserError::Tool {
                        tool: name.to_owned(),
                        message: e.to_string(),
                    });
                }
                Ok(Ok(result)) => result,
            };
        let text = result_text(&result);
        self.claim_files(&text);
        if result.is_error == Some(true) {
            return Err(BrowserError::Tool {
                tool: name.to_owned(),
                message: text,
            });
        }
        Ok(parse_result(&text, Some(&self.plan.cwd)))
    }

    fn set_beside(&self, peer: Option<Peer<RoleClient>>) {
        *self
            .beside
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = peer;
    }

    /// `browser_navigate`.
    pub async fn navigate(&self, url: &str) -> Result<ToolOutput, BrowserError> {
        self.call(mcp::NAVIGATE, serde_json::json!({ "url": url }))
            .await
    }

    /// `browser_snapshot`: the page now, validated (URL, title and tree).
    pub async fn snapshot(&self) -> Result<Snapshot, BrowserError> {
        let text = self.call_text(mcp::SNAPSHOT, serde_json::json!({})).await?;
        parse_snapshot(&text, Some(&self.plan.cwd))
    }

    /// `browser_click` on a ref from the latest snapshot.
    pub async fn click(&self, target: &str) -> Result<ToolOutput, BrowserError> {
        self.call(mcp::CLICK, serde_json::json!({ "target": target }))
            .await
    }

    /// `browser_type`: fills the field, pressing Enter after when `submit`.
    pub async fn type_text(
        &self,
        target: &str,
        text: &str,
        submit: bool,
    ) -> Result<ToolOutput, BrowserError> {
        self.call(
            mcp::TYPE,
            serde_json::json!({ "target": target, "text": text, "submit": submit }),
        )
        .await
    }

    /// `browser_select_option`: chooses options by value or label.
    pub async fn select_option(
        &self,
        target: &str,
        values: &[&str],
    ) -> Result<ToolOutput, BrowserError> {
        self.call(
            mcp::SELECT_OPTION,
            serde_json::json!({ "target": target, "values": values }),
        )
        .await
    }

    /// Saves a PNG of the viewport at `path` (relative paths are relative to
    /// the output directory) and returns where it is.
    pub async fn screenshot(&self, path: &Path) -> Result<PathBuf, BrowserError> {
        self.screenshot_on(path, false).await
    }

    /// [`Browser::screenshot`] beside the call in flight
    /// ([`Browser::call_beside`]): the picture a question shows while the
    /// action that sent the request in question still waits.
    pub async fn screenshot_beside(&self, path: &Path) -> Result<PathBuf, BrowserError> {
        self.screenshot_on(path, true).await
    }

    async fn screenshot_on(&self, path: &Path, beside: bool) -> Result<PathBuf, BrowserError> {
        let dest = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.plan.cwd.join(path)
        };
        let args = serde_json::json!({ "type": "png", "scale": "css" });
        self.save_file(
            mcp::TAKE_SCREENSHOT,
            args,
            ("png", PNG_MAGIC),
            &dest,
            beside,
        )
        .await?;
        Ok(dest)
    }

    /// Prints the current page to a PDF at `dest` (Playwright MCP's `pdf`
    /// capability; Chromium 156 prints headed too, measured on Xvfb).
    pub async fn pdf(&self, dest: &Path) -> Result<(), BrowserError> {
        self.save_file(
            mcp::PDF_SAVE,
            serde_json::json!({}),
            ("pdf", b"%PDF-"),
            dest,
            false,
        )
        .await
    }

    /// Runs `tool`, which writes a file into the output directory, and moves
    /// that file to `dest`, checking it starts as a file of its kind must:
    /// the server's word for what it wrote is not taken on trust.
    async fn save_file(
        &self,
        tool: &str,
        args: serde_json::Value,
        (extension, magic): (&str, &[u8]),
        dest: &Path,
        beside: bool,
    ) -> Result<(), BrowserError> {
        let output = if beside {
            self.call_beside(tool, args).await?
        } else {
            self.call(tool, args).await?
        };
        let fault = |message: String| BrowserError::Tool {
            tool: tool.to_owned(),
            message,
        };
        let Some(saved) = output
            .files
            .iter()
            .find(|f| f.extension().is_some_and(|e| e == extension))
        else {
            return Err(fault(format!(
                "the result names no .{extension} file: {}",
                output.text
            )));
        };
        move_file(saved, dest)?;
        let head =
            std::fs::read(dest).map_err(|e| BrowserError::io("cannot read the file", dest, e))?;
        if !head.starts_with(magic) {
            return Err(fault(format!(
                "{} is not a .{extension} file",
                dest.display()
            )));
        }
        Ok(())
    }

    /// The processes behind the session now (refreshed from /proc).
    pub async fn processes(&self) -> ProcessInfo {
        let mut session = self.session.lock().await;
        match session.conn.as_mut() {
            Some(Connection {
                process: Some(process),
                ..
            }) => {
                process.refresh();
                ProcessInfo {
                    server_pid: Some(process.pid()),
                    pids: process.pids(),
                    groups: process.groups(),
                }
            }
            _ => ProcessInfo::default(),
        }
    }

    /// `browser_close` (which saves the profile), then SIGTERM and, after
    /// [`TERMINATE_GRACE`], SIGKILL to every process of the server; all within
    /// [`SHUTDOWN_TIMEOUT`]. Dropping a `Browser` without this kills at once,
    /// which may lose the last moments of profile data. Once shut down, a
    /// call fails instead of starting a new server; a second shutdown does
    /// nothing.
    pub async fn shutdown(&self) -> Result<(), BrowserError> {
        let started = Instant::now();
        let conn = {
            let mut session = self.session.lock().await;
            session.reconnects_left = 0;
            session.conn.take()
        };
        self.set_beside(None);
        if let Some(conn) = conn {
            close_connection(conn, true).await;
        }
        let elapsed = started.elapsed();
        tracing::info!(
            elapsed_ms = elapsed.as_millis() as u64,
            "Playwright MCP stopped"
        );
        if elapsed > SHUTDOWN_TIMEOUT {
            tracing::warn!(
                elapsed_ms = elapsed.as_millis() as u64,
                "shutdown took longer than planned"
            );
        }
        Ok(())
    }

    async fn call_text(&self, name: &str, args: Value) -> Result<String, BrowserError> {
        let arguments = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Err(BrowserError::BadArguments {
                    tool: name.to_owned(),
                    got: other.to_string(),
                });
            }
        };
        let mut session = self.session.lock().await;
        // The server died while idle: nothing of this call was sent yet.
        if session
            .conn
            .as_ref()
            .is_none_or(|c| c.service.is_transport_closed())
        {
            self.reconnect(&mut session, name, "the server had exited".to_owned())
                .await?;
        }
        let started = std::time::Instant::now();
        let sent = self.send(&mut session, name, arguments.clone()).await;
        // Each call's time, for finding where a step's milliseconds go
        // (`RUST_LOG=subterminator_core::browser::client=debug`).
        tracing::debug!(
            tool = name,
            ms = started.elapsed().as_secs_f64() * 1e3,
            "browser call"
        );
        match sent {
            Ok(text) => Ok(text),
            Err(SendError::Other(e)) => Err(e),
            Err(SendError::Lost(detail)) => {
                self.reconnect(&mut session, name, detail.clone()).await?;
                if !self.read_only.iter().any(|t| t == name) {
                    return Err(BrowserError::ConnectionLost {
                        tool: name.to_owned(),
                        detail,
                        reconnected: true,
                    });
                }
                match self.send(&mut session, name, arguments).await {
                    Ok(text) => Ok(text),
                    Err(SendError::Other(e)) => Err(e),
                    Err(SendError::Lost(detail)) => Err(BrowserError::ConnectionLost {
                        tool: name.to_owned(),
                        detail,
                        reconnected: true,
                    }),
                }
            }
        }
    }

    async fn send(
        &self,
        session: &mut Session,
        name: &str,
        arguments: Option<serde_json::Map<String, Value>>,
    ) -> Result<String, SendError> {
        let Some(conn) = session.conn.as_mut() else {
            return Err(SendError::Lost("no connection".to_owned()));
        };
        let mut params = CallToolRequestParams::new(name.to_owned());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let started = Instant::now();
        let outcome =
            tokio::time::timeout(self.opts.call_timeout, conn.service.call_tool(params)).await;
        tracing::debug!(
            tool = name,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "tool call"
        );
        let result = match outcome {
            Err(_) => {
                // The server may still be working on it; another call now
                // would overlap. Stop it; the next call reconnects.
                if let Some(conn) = session.conn.take() {
                    close_connection(conn, false).await;
                }
                return Err(SendError::Other(BrowserError::Timeout {
                    tool: name.to_owned(),
                    after: self.opts.call_timeout,
                }));
            }
            Ok(Err(e @ (ServiceError::TransportClosed | ServiceError::TransportSend(_)))) => {
                let detail = format!("{e}; server stderr: {}", conn.stderr_tail());
                if let Some(conn) = session.conn.take() {
                    close_connection(conn, false).await;
                }
                return Err(SendError::Lost(detail));
            }
            Ok(Err(e)) => {
                return Err(SendError::Other(BrowserError::Tool {
                    tool: name.to_owned(),
                    message: e.to_string(),
                }));
            }
            Ok(Ok(result)) => result,
        };
        // Chromium starts on the first call, and again after browser_close.
        if let Some(process) = conn.process.as_mut()
            && (name == mcp::NAVIGATE || process.groups().len() < 2)
        {
            process.refresh();
        }
        let text = result_text(&result);
        self.claim_files(&text);
        if result.is_error == Some(true) {
            let profile = match &self.opts.user_data {
                UserData::Persistent(p) => Some(p.as_path()),
                UserData::Isolated => None,
            };
            let error = classify_error(name, &text, self.plan.executable.as_deref(), profile);
            // Attached, the browser that "could not start" is the one we
            // could not reach.
            return Err(SendError::Other(match (&self.opts.attach, error) {
                (Some(attach), BrowserError::BrowserLaunch { detail, .. }) => {
                    BrowserError::Attach {
                        endpoint: attach.shown(),
                        // Playwright quotes the endpoint whole, token and all.
                        detail: attach.redact(&detail),
                    }
                }
                (_, error) => error,
            }));
        }
        Ok(text)
    }

    /// A served session's files (the page trees the audit reads, a
    /// screenshot, a PDF) are written into the served server's folder,
    /// which later runs share: each one a result names is moved into this
    /// run's own folder, at the same relative path, before the result is
    /// read, so the run's folder holds what its own server would have
    /// written there. Only plain relative paths to files that exist are
    /// taken: a page's text can print a link too.
    fn claim_files(&self, text: &str) {
        let Some(served) = &self.opts.served else {
            return;
        };
        for (_, target) in super::result::links(text) {
            let target = target.split('#').next().unwrap_or(target);
            let relative = Path::new(target);
            if target.is_empty()
                || !relative
                    .components()
                    .all(|c| matches!(c, Component::CurDir | Component::Normal(_)))
            {
                continue;
            }
            let from = served.dir.join(relative);
            if !from.is_file() {
                continue;
            }
            if let Err(e) = move_file(&from, &self.plan.cwd.join(relative)) {
                tracing::debug!("a served file stays where it is: {e}");
            }
        }
    }

    async fn reconnect(
        &self,
        session: &mut Session,
        tool: &str,
        detail: String,
    ) -> Result<(), BrowserError> {
        if let Some(conn) = session.conn.take() {
            close_connection(conn, false).await;
        }
        if session.reconnects_left == 0 {
            return Err(BrowserError::ConnectionLost {
                tool: tool.to_owned(),
                detail: format!("{detail} (the one reconnect was already used)"),
                reconnected: false,
            });
        }
        session.reconnects_left -= 1;
        tracing::warn!(tool, %detail, "connection to Playwright MCP lost; reconnecting");
        let (conn, _) = connect(&self.plan, self.opts.served.as_ref()).await?;
        self.set_beside(Some(conn.service.peer().clone()));
        session.conn = Some(conn);
        Ok(())
    }
}

/// A tool as listed, with the annotation that makes it safe to repeat.
struct ListedTool {
    schema: ToolSchema,
    read_only: bool,
}

async fn connect(
    plan: &LaunchPlan,
    served: Option<&Served>,
) -> Result<(Connection, Vec<ListedTool>), BrowserError> {
    let (service, tools, process) = match served {
        Some(served) => {
            let (service, tools) = session_of(plan, served).await?;
            (service, tools, None)
        }
        None => {
            let (service, tools, process) = spawn_and_connect(plan).await?;
            (service, tools, Some(process))
        }
    };
    let tools = tools
        .into_iter()
        .map(|t| ListedTool {
            read_only: t
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false),
            schema: ToolSchema {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                input_schema: Value::Object((*t.input_schema).clone()),
            },
        })
        .collect();
    Ok((Connection { service, process }, tools))
}

/// A new session of the served server: a browser context of its own,
/// closed by the server when the session ends. A session the server no
/// longer knows is never silently replaced by a new one (which would be a
/// fresh context, its page and guard gone): the call fails, and the one
/// reconnect makes the new session in the open.
async fn session_of(
    plan: &LaunchPlan,
    served: &Served,
) -> Result<(RunningService<RoleClient, ()>, Vec<rmcp::model::Tool>), BrowserError> {
    let failed = |detail: String| BrowserError::Connect {
        command: plan.display.clone(),
        detail,
    };
    crate::tls::ready();
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .map_err(|e| failed(format!("cannot make an HTTP client: {e}")))?;
    let config = StreamableHttpClientTransportConfig::with_uri(served.url.as_str())
        .reinit_on_expired_session(false);
    let transport = StreamableHttpClientTransport::with_client(client, config);
    let handshake = async {
        let service = ().serve(transport).await.map_err(|e| e.to_string())?;
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list: {e}"))?;
        Ok::<_, String>((service, tools))
    };
    match tokio::time::timeout(CONNECT_TIMEOUT, handshake).await {
        Ok(Ok(ok)) => Ok(ok),
        Ok(Err(detail)) => Err(failed(detail)),
        Err(_) => Err(failed(format!(
            "no answer to initialize and tools/list within {} s",
            CONNECT_TIMEOUT.as_secs()
        ))),
    }
}

/// The run's own server, started and connected over its stdio.
async fn spawn_and_connect(
    plan: &LaunchPlan,
) -> Result<
    (
        RunningService<RoleClient, ()>,
        Vec<rmcp::model::Tool>,
        ServerProcess,
    ),
    BrowserError,
> {
    let (mut process, stdout, stdin) = ServerProcess::spawn(plan)?;
    let handshake = async {
        let service = ().serve((stdout, stdin)).await.map_err(|e| e.to_string())?;
        let tools = service
            .list_all_tools()
            .await
            .map_err(|e| format!("tools/list: {e}"))?;
        Ok::<_, String>((service, tools))
    };
    let outcome = tokio::time::timeout(CONNECT_TIMEOUT, handshake).await;
    let (service, tools) = match outcome {
        Ok(Ok(ok)) => ok,
        Ok(Err(detail)) => {
            process.terminate(TERMINATE_GRACE).await;
            return Err(connect_error(plan, &process, detail));
        }
        Err(_) => {
            process.terminate(TERMINATE_GRACE).await;
            let detail = format!(
                "no answer to initialize and tools/list within {} s",
                CONNECT_TIMEOUT.as_secs()
            );
            return Err(connect_error(plan, &process, detail));
        }
    };
    Ok((service, tools, process))
}

fn connect_error(plan: &LaunchPlan, process: &ServerProcess, detail: String) -> BrowserError {
    let stderr = process.stderr_tail();
    let detail = if stderr.is_empty() {
        detail
    } else {
        format!("{detail}; server stderr: {stderr}")
    };
    BrowserError::Connect {
        command: plan.display.clone(),
        detail,
    }
}

/// Ends a connection: `browser_close` first when `orderly` (it saves the
/// profile), then every process, then the rmcp session. A served session
/// is only ended: the server then closes its context, pages and all.
async fn close_connection(conn: Connection, orderly: bool) {
    let Connection { service, process } = conn;
    let Some(mut process) = process else {
        let _ = tokio::time::timeout(SHUTDOWN_TIMEOUT, service.cancel()).await;
        return;
    };
    if orderly && !service.is_transport_closed() {
        let close = service.call_tool(CallToolRequestParams::new(mcp::CLOSE));
        match tokio::time::timeout(CLOSE_CALL_TIMEOUT, close).await {
            Ok(Ok(_)) => tracing::debug!("browser closed"),
            Ok(Err(e)) => tracing::warn!(error = %e, "browser_close failed"),
            Err(_) => tracing::warn!("browser_close did not answer in time"),
        }
    }
    process.terminate(TERMINATE_GRACE).await;
    let _ = tokio::time::timeout(TERMINATE_GRACE, service.cancel()).await;
}

/// The text items of a result, joined.
fn result_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn move_file(from: &Path, to: &Path) -> Result<(), BrowserError> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| BrowserError::io("cannot create the folder", parent, e))?;
    }
    if std::fs::rename(from, to).is_ok() {
        return Ok(());
    }
    // Another file system: copy, then remove the original.
    std::fs::copy(from, to).map_err(|e| BrowserError::io("cannot save the file", to, e))?;
    let _ = std::fs::remove_file(from);
    Ok(())
}
