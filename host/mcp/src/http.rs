//! `subterminator mcp --http ADDR`: streamable HTTP, on loopback unless
//! `--allow-remote` says otherwise, and only with a bearer token. Whoever
//! holds the token can drive the person's browser: it is read from a file
//! or generated and printed once, and never logged.
//!
//! In front of rmcp's service, in this order: the token; each body
//! [screened](super::screen) (not JSON is HTTP 400 with -32700, params that
//! do not fit -32602); each exchange of a pre-2026 MCP session counted, so
//! that a client gone is noticed ([`Presence`]). rmcp itself checks `Host`
//! and `Origin` (a page of another origin gets 403: the server's own
//! addresses are the only origins allowed), and serves pre-2026 sessions
//! and 2026-07-28's stateless requests side by side.

use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::presence::{Held, Presence};
use super::screen::{Screened, screen};
use super::{APPROVAL_TIMEOUT, McpServer, Sessions};
use subterminator_core::error::{Error, Result};

/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

/// The shortest token a file may hold: 128 bits of hex.
pub const MIN_TOKEN_CHARS: usize = 32;

/// Refuses an address off loopback unless allowed.
pub fn check_address(addr: &SocketAddr, allow_remote: bool) -> Result<()> {
    if addr.ip().is_loopback() || allow_remote {
        return Ok(());
    }
    Err(Error::Configuration(format!(
        "--http {addr} is not a loopback address: anyone who can reach it and holds the token could drive your browser. \
         Use 127.0.0.1:PORT, or add --allow-remote if you mean it"
    )))
}

/// The token from `file`, or a new one (256 bits from the OS's random
/// source). The second value is whether it was generated.
pub fn token(file: Option<&Path>) -> Result<(String, bool)> {
    let Some(file) = file else {
        let token = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            uuid::Uuid::new_v4().simple()
        );
        return Ok((token, true));
    };
    let text = std::fs::read_to_string(file)
        .map_err(|e| Error::io("cannot read the token file", file, e))?;
    let token = text.trim().to_owned();
    if token.len() < MIN_TOKEN_CHARS || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::Configuration(format!(
            "{}: the token must be one line of at least {MIN_TOKEN_CHARS} characters without spaces; \
             make one with `openssl rand -hex 32 > {}`",
            file.display(),
            file.display()
        )));
    }
    Ok((token, false))
}

/// Whether `header` is `Bearer <token>`. Both sides are hashed first, so
/// the comparison's time says nothing about the token.
pub fn authorized(header: Option<&str>, token: &str) -> bool {
    let Some(given) = header.and_then(|h| h.strip_prefix("Bearer ")) else {
        return false;
    };
    Sha256::digest(given.trim().as_bytes()) == Sha256::digest(token.as_bytes())
}

async fn require_token(State(token): State<Arc<String>>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    if authorized(given, &token) {
        return next.run(request).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer")],
        "a bearer token is required: send `Authorization: Bearer <token>` (printed when the server started, or in its --token-file)\n",
    )
        .into_response()
}

/// The header a pre-2026 MCP session is named by.
const SESSION_HEADER: &str = "mcp-session-id";

/// The largest request body read: rmcp's own cap.
const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Answers a body that is not JSON, or a request whose params do not fit
/// its method, before rmcp reads it.
async fn screen_body(request: Request, next: Next) -> Response {
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than {MAX_BODY_BYTES} bytes, or broke off\n"),
            )
                .into_response();
        }
    };
    if let Screened::Refuse(reply) = screen(&bytes) {
        let body = serde_json::to_vec(&reply).unwrap_or_default();
        let code = serde_json::to_value(&*reply)
            .ok()
            .and_then(|v| v["error"]["code"].as_i64());
        // A message that could not be read is a bad request; a request that
        // was read but does not fit gets its JSON-RPC error as any answer.
        let status = match code {
            Some(-32602) => StatusCode::OK,
            _ => StatusCode::BAD_REQUEST,
        };
        return (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// Counts each exchange of a pre-2026 MCP session while its response is
/// open (a call's stream, or the event stream a client keeps with GET).
async fn track(State(presence): State<Arc<Presence>>, request: Request, next: Next) -> Response {
    let stream = request.method() == axum::http::Method::GET;
    let held = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(|id| presence.hold(id, stream));
    let response = next.run(request).await;
    // An `initialize` answered: a session begins, and its lease with it.
    if let Some(id) = response
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
    {
        presence.began(id);
    }
    match held {
        Some(held) => response.map(|body| Body::new(Tethered { body, _held: held })),
        None => response,
    }
}

/// A response body that holds its session's exchange open while it lives:
/// hyper drops it when the response is done or the client's connection
/// ends.
struct Tethered {
    body: Body,
    _held: Held,
}

impl http_body::Body for Tethered {
    type Data = bytes::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<std::result::Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// The origins a browser page may call from: this machine's (any port: a
/// local tool or a proxy in front of the server serves from its own), and
/// the address the server listens on. A page of any other origin, the one
/// a DNS-rebinding attack comes from, gets 403 even with the token.
fn own_origins(addr: &SocketAddr) -> Vec<String> {
    let mut origins = vec![
        "http://127.0.0.1:*".to_owned(),
        "http://localhost:*".to_owned(),
        "http://[::1]:*".to_owned(),
    ];
    if !addr.ip().is_loopback() {
        origins.push(format!("http://{addr}"));
    }
    origins
}

/// Serves MCP at `http://ADDR/mcp` until `shutdown`. Each pre-2026 HTTP
/// session is a connection of its own, with its own sessions; each
/// 2026-07-28 request stands alone, and names its sessions by the ids the
/// server gave out.
pub async fn serve(
    sessions: Sessions,
    listener: tokio::net::TcpListener,
    token: String,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let addr = listener
        .local_addr()
        .map_err(|e| Error::Configuration(format!("the HTTP listener has no address: {e}")))?;
    let cancel = CancellationToken::new();
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    if !addr.ip().is_loopback() {
        hosts.push(addr.ip().to_string());
    }
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(own_origins(&addr))
        .enforce_origin_validation()
        .with_cancellation_token(cancel.child_token());
    let mut manager = LocalSessionManager::default();
    // A client gone is noticed by its presence (the lease); rmcp's own idle
    // limit (five minutes) would cut a person who takes longer over an
    // approval, so it only backs up the server's idle timeout.
    manager.session_config.keep_alive = Some(
        sessions
            .options()
            .idle_timeout
            .max(APPROVAL_TIMEOUT + sessions.options().lease),
    );
    let manager = Arc::new(manager);
    let factory_sessions = sessions.clone();
    let service = StreamableHttpService::new(
        move || Ok(McpServer::over_http(factory_sessions.clone())),
        manager.clone(),
        config,
    );
    let presence = sessions.presence().clone();
    let router = axum::Router::new()
        .nest_service(ENDPOINT, service)
        .layer(axum::middleware::from_fn_with_state(
            presence.clone(),
            track,
        ))
        .layer(axum::middleware::from_fn(screen_body))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(token),
            require_token,
        ));
    let ending = end_absent_sessions(presence, manager, sessions.reap_every());
    let stopping = cancel.clone();
    let served = axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            stopping.cancel();
        })
        .await;
    ending.abort();
    served.map_err(|e| Error::Configuration(format!("the MCP HTTP server on {addr} failed: {e}")))
}

/// Ends rmcp's MCP session of each client gone (the reaper closes its
/// browsers), so that nothing of it is left.
fn end_absent_sessions(
    presence: Arc<Presence>,
    manager: Arc<LocalSessionManager>,
    every: std::time::Duration,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            for id in presence.take_absent(Instant::now()) {
                tracing::info!(session = %id, "HTTP client gone: its MCP session ended");
                if let Err(e) = manager.close_session(&id.into()).await {
                    tracing::debug!("closing MCP session: {e}");
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_passes() {
        let token = "a".repeat(40);
        let cases = [
            (Some(format!("Bearer {token}")), true),
            (Some(format!("Bearer {token} ")), true),
            (Some(format!("bearer {token}")), false),
            (Some(token.clone()), false),
            (Some(format!("Bearer {}", "a".repeat(39))), false),
            (Some(format!("Bearer {token}a")), false),
            (Some("Bearer ".into()), false),
            (None, false),
        ];
        for (header, ok) in cases {
            assert_eq!(authorized(header.as_deref(), &token), ok, "{header:?}");
        }
    }

    #[test]
    fn only_this_machine_and_the_servers_own_address_are_origins() {
        let local: SocketAddr = "127.0.0.1:8765".parse().unwrap();
        let origins = own_origins(&local);
        assert_eq!(origins.len(), 3);
        assert!(
            origins
                .iter()
                .all(|o| o.starts_with("http://") && o.ends_with(":*"))
        );
        let remote: SocketAddr = "10.0.0.5:80".parse().unwrap();
        assert!(own_origins(&remote).contains(&"http://10.0.0.5:80".to_owned()));
    }

    #[test]
    fn loopback_only_unless_allowed() {
        let cases = [
            ("127.0.0.1:8123", false, true),
            ("[::1]:8123", false, true),
            ("0.0.0.0:8123", false, false),
            ("192.168.1.5:8123", false, false),
            ("0.0.0.0:8123", true, true),
        ];
        for (addr, allow, ok) in cases {
            let addr: SocketAddr = addr.parse().unwrap();
            assert_eq!(check_address(&addr, allow).is_ok(), ok, "{addr} {allow}");
        }
    }

    #[test]
    fn a_token_file_must_hold_a_long_token() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("token");
        for (text, ok) in [
            ("short\n", false),
            ("has a space in it but is long enough 0123456789", false),
            (&format!("{}\n", "f".repeat(64)), true),
        ] {
            std::fs::write(&path, text).unwrap();
            assert_eq!(token(Some(&path)).is_ok(), ok, "{text:?}");
        }
        let (generated, new) = token(None).unwrap();
        assert!(new);
        assert_eq!(generated.len(), 64);
        assert_ne!(generated, token(None).unwrap().0);
    }
}
