//! `subterminator mcp --http ADDR`: streamable HTTP, on loopback unless
//! `--allow-remote` says otherwise, and only with a bearer token. Whoever
//! holds the token can drive the person's browser: it is read from a file
//! or generated and printed once, and never logged.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::{McpServer, Sessions};
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

/// Serves MCP at `http://ADDR/mcp` until `shutdown`; each HTTP session is
/// a connection of its own, with its own sessions.
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
        .with_cancellation_token(cancel.child_token());
    let factory_sessions = sessions.clone();
    let service = StreamableHttpService::new(
        move || Ok(McpServer::new(factory_sessions.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service(ENDPOINT, service).layer(
        axum::middleware::from_fn_with_state(Arc::new(token), require_token),
    );
    let stopping = cancel.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            stopping.cancel();
        })
        .await
        .map_err(|e| Error::Configuration(format!("the MCP HTTP server on {addr} failed: {e}")))
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
