//! A static site on 127.0.0.1 for browser tests: serves a folder, and logs
//! every request so a test can prove what the browser did (or never did).

use std::net::SocketAddr;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::ws::{Message, WebSocketUpgrade};
use axum::extract::{Request as HttpRequest, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// One request the site received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent: `/cancelled.html?reason=price`; for a
    /// WebSocket message (method `WS`), the message.
    pub target: String,
}

impl Request {
    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or(&self.target)
    }
}

#[derive(Clone)]
struct Shared {
    root: PathBuf,
    log: Arc<Mutex<Vec<Request>>>,
}

/// A running site; stops when dropped.
pub struct Site {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Site")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// Where the test sites live (`tests/sites/<name>`).
pub fn site_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sites")
        .join(name)
}

impl Site {
    /// Serves `dir` on 127.0.0.1 at a free port. `/` is `index.html`;
    /// any method is answered with the file at the path, so form posts work.
    pub async fn serve(dir: &Path) -> std::io::Result<Site> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let shared = Shared {
            root: dir.to_path_buf(),
            log: Arc::default(),
        };
        let log = shared.log.clone();
        let app = Router::new()
            .route("/ws", axum::routing::any(socket))
            .fallback(serve_file)
            .with_state(shared);
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Site { addr, log, task })
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The URL of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Whether any request asked for `path` (query ignored).
    pub fn was_requested(&self, path: &str) -> bool {
        self.requests().iter().any(|r| r.path() == path)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `/ws`: a WebSocket whose every message from the page is logged as a
/// request `WS <message>` (the proof of what reached the site), and
/// answered `ok`.
async fn socket(State(shared): State<Shared>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |mut ws| async move {
        while let Some(Ok(message)) = ws.recv().await {
            let text = match message {
                Message::Text(text) => text.to_string(),
                Message::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Message::Close(_) => break,
                _ => continue,
            };
            if let Ok(mut log) = shared.log.lock() {
                log.push(Request {
                    method: "WS".into(),
                    target: text,
                });
            }
            if ws.send(Message::Text("ok".into())).await.is_err() {
                break;
            }
        }
    })
}

async fn serve_file(State(shared): State<Shared>, request: HttpRequest) -> Response {
    let target = request.uri().path_and_query().map_or_else(
        || request.uri().path().to_owned(),
        |pq| pq.as_str().to_owned(),
    );
    if let Ok(mut log) = shared.log.lock() {
        log.push(Request {
            method: request.method().to_string(),
            target,
        });
    }
    let Some(file) = resolve(&shared.root, request.uri().path()) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    match tokio::fs::read(&file).await {
        Ok(bytes) => {
            let mut response = Response::new(Body::from(bytes));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(content_type(&file)),
            );
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(_) => redirect(&shared.root, request.uri().path())
            .unwrap_or_else(|| StatusCode::NOT_FOUND.into_response()),
    }
}

/// A path with no file but a `<path>.redirect` beside it is answered 302,
/// to the URL that file holds: a redirect chain for the guard's tests.
fn redirect(root: &Path, path: &str) -> Option<Response> {
    let file = resolve(root, &format!("{path}.redirect"))?;
    let location = std::fs::read_to_string(file).ok()?;
    let location = HeaderValue::from_str(location.trim()).ok()?;
    let mut response = StatusCode::FOUND.into_response();
    response.headers_mut().insert(header::LOCATION, location);
    Some(response)
}

/// The file for a URL path, never outside `root`.
fn resolve(root: &Path, path: &str) -> Option<PathBuf> {
    let relative = path.trim_start_matches('/');
    let relative = if relative.is_empty() || relative.ends_with('/') {
        format!("{relative}index.html")
    } else {
        relative.to_owned()
    };
    let relative = Path::new(&relative);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    Some(root.join(relative))
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("css") => "text/css",
        Some("json") => "application/json",
        Some("png") => "image/png",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn paths_stay_inside_the_root() {
        let root = Path::new("/site");
        assert_eq!(resolve(root, "/"), Some(PathBuf::from("/site/index.html")));
        assert_eq!(
            resolve(root, "/a/b.html"),
            Some(PathBuf::from("/site/a/b.html"))
        );
        assert_eq!(
            resolve(root, "/sub/"),
            Some(PathBuf::from("/site/sub/index.html"))
        );
        assert_eq!(resolve(root, "/../etc/passwd"), None);
    }

    #[tokio::test]
    async fn serves_files_and_logs_requests() {
        let site = Site::serve(&site_dir("basic")).await.unwrap();
        let mut stream = tokio::net::TcpStream::connect(site.addr()).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        stream
            .write_all(
                b"GET /cancelled.html?reason=x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
            )
            .await
            .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(response.contains("Your membership has been cancelled"));
        assert_eq!(
            site.requests(),
            [Request {
                method: "GET".into(),
                target: "/cancelled.html?reason=x".into()
            }]
        );
        assert!(site.was_requested("/cancelled.html"));
        assert!(!site.was_requested("/index.html"));
    }
}
