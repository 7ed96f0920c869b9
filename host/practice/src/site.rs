//! The practice site: a realistic streaming-service account flow (account →
//! retention offer → survey → final confirmation → cancelled), served from
//! the binary on 127.0.0.1. It logs every request, so a test can prove that
//! the final button was, or was never, pressed.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, Method, Uri, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use tokio::sync::oneshot;

use crate::error::{Error, Result};

/// The request that commits the cancellation.
pub const FINISH_REQUEST: &str = "POST /cancel/finish";

const SESSION_COOKIE: &str = "streamflix_session=signed-in";

#[derive(Debug, Clone, Copy, Default)]
pub struct SiteOptions {
    /// Account pages redirect to `/login` until the visitor signs in.
    pub require_sign_in: bool,
    /// The final step answers with an error page instead of cancelling.
    pub fail_finish: bool,
}

#[derive(Debug, Default)]
struct SiteState {
    options: SiteOptions,
    log: Mutex<Vec<String>>,
    cancelled: Mutex<bool>,
}

/// A running practice site; stops when dropped or on [`PracticeSite::stop`].
#[derive(Debug)]
pub struct PracticeSite {
    addr: SocketAddr,
    state: Arc<SiteState>,
    stop: Option<oneshot::Sender<()>>,
}

impl PracticeSite {
    pub async fn serve(options: SiteOptions) -> Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| Error::io("cannot serve the practice site", "127.0.0.1:0", e))?;
        let addr = listener
            .local_addr()
            .map_err(|e| Error::io("cannot serve the practice site", "127.0.0.1:0", e))?;
        let state = Arc::new(SiteState {
            options,
            ..SiteState::default()
        });
        let router = Router::new()
            .route("/", get(account))
            .route("/cancel", get(offer))
            .route("/offer/accept", post(offer_accept))
            .route("/survey", get(survey))
            .route("/confirm", get(confirm))
            .route("/cancel/finish", post(finish))
            .route("/cancelled", get(cancelled))
            .route("/restart", post(restart))
            .route("/login", get(login).post(sign_in))
            .route("/error", get(error_page))
            .fallback(not_found)
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&state),
                log_request,
            ))
            .with_state(Arc::clone(&state));
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
            if let Err(e) = served {
                tracing::warn!("practice site stopped: {e}");
            }
        });
        Ok(Self {
            addr,
            state,
            stop: Some(stop),
        })
    }

    /// `http://127.0.0.1:<port>/`
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Every request so far, as `METHOD /path?query`.
    pub fn requests(&self) -> Vec<String> {
        self.state.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Whether the final button was pressed and the membership cancelled.
    pub fn cancelled(&self) -> bool {
        self.state.cancelled.lock().map(|c| *c).unwrap_or(false)
    }

    pub fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl Drop for PracticeSite {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

type Shared = State<Arc<SiteState>>;

async fn log_request(
    State(state): Shared,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let line = format!("{} {}", request.method(), request.uri());
    if let Ok(mut log) = state.log.lock() {
        log.push(line);
    }
    next.run(request).await
}

fn page(title: &str, body: &str, vars: &[(&str, &str)]) -> Html<String> {
    let mut body = body.to_owned();
    for (name, value) in vars {
        body = body.replace(&format!("{{{{{name}}}}}"), &escape(value));
    }
    Html(
        include_str!("../../../../plugins/practice/practice/layout.html")
            .replace("{{title}}", &escape(title))
            .replace("{{body}}", &body),
    )
}

pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn dates() -> (String, String) {
    dates_in(DATE_FORMAT)
}

/// How the StreamFlix pages write a date: "16 December 2026".
pub(super) const DATE_FORMAT: &str = "%-d %B %Y";

/// The next bill and the end of the period, written with `format` (a
/// strftime pattern the caller has checked).
pub(super) fn dates_in(format: &str) -> (String, String) {
    let today = chrono::Local::now().date_naive();
    let next = today + chrono::Days::new(23);
    let fmt = |d: chrono::NaiveDate| d.format(format).to_string();
    (fmt(next), fmt(next))
}

/// Sends a signed-out visitor to the sign-in page, as real sites do.
fn gate(state: &SiteState, headers: &HeaderMap, uri: &Uri) -> Option<Response> {
    if !state.options.require_sign_in {
        return None;
    }
    let signed_in = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(';').any(|c| c.trim() == SESSION_COOKIE));
    if signed_in {
        return None;
    }
    let next = url::form_urlencoded::byte_serialize(uri.path().as_bytes()).collect::<String>();
    Some(Redirect::to(&format!("/login?next={next}")).into_response())
}

async fn account(State(state): Shared, headers: HeaderMap, uri: Uri) -> Response {
    if let Some(redirect) = gate(&state, &headers, &uri) {
        return redirect;
    }
    if state.cancelled.lock().map(|c| *c).unwrap_or(false) {
        return Redirect::to("/cancelled").into_response();
    }
    let (billing, _) = dates();
    page(
        "StreamFlix - Account",
        include_str!("../../../../plugins/practice/practice/account.html"),
        &[("billing_date", &billing), ("email", "alex@example.com")],
    )
    .into_response()
}

async fn offer(State(state): Shared, headers: HeaderMap, uri: Uri) -> Response {
    if let Some(redirect) = gate(&state, &headers, &uri) {
        return redirect;
    }
    page(
        "StreamFlix - Before you go",
        include_str!("../../../../plugins/practice/practice/offer.html"),
        &[],
    )
    .into_response()
}

async fn offer_accept() -> Response {
    let (billing, _) = dates();
    page(
        "StreamFlix - Offer accepted",
        include_str!("../../../../plugins/practice/practice/offer_accepted.html"),
        &[("billing_date", &billing)],
    )
    .into_response()
}

async fn survey(State(state): Shared, headers: HeaderMap, uri: Uri) -> Response {
    if let Some(redirect) = gate(&state, &headers, &uri) {
        return redirect;
    }
    page(
        "StreamFlix - Why are you leaving?",
        include_str!("../../../../plugins/practice/practice/survey.html"),
        &[],
    )
    .into_response()
}

async fn confirm(
    State(state): Shared,
    headers: HeaderMap,
    uri: Uri,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(redirect) = gate(&state, &headers, &uri) {
        return redirect;
    }
    let (_, end) = dates();
    let reason = query.get("reason").map(String::as_str).unwrap_or("");
    page(
        "StreamFlix - Finish Cancellation",
        include_str!("../../../../plugins/practice/practice/confirm.html"),
        &[("end_date", &end), ("reason", reason)],
    )
    .into_response()
}

async fn finish(
    State(state): Shared,
    headers: HeaderMap,
    uri: Uri,
    Form(_form): Form<HashMap<String, String>>,
) -> Response {
    if let Some(redirect) = gate(&state, &headers, &uri) {
        return redirect;
    }
    if state.options.fail_finish {
        return Redirect::to("/error").into_response();
    }
    if let Ok(mut cancelled) = state.cancelled.lock() {
        *cancelled = true;
    }
    Redirect::to("/cancelled").into_response()
}

async fn cancelled() -> Response {
    let (_, end) = dates();
    page(
        "StreamFlix - Membership Cancelled",
        include_str!("../../../../plugins/practice/practice/cancelled.html"),
        &[("end_date", &end)],
    )
    .into_response()
}

async fn restart(State(state): Shared) -> Response {
    if let Ok(mut cancelled) = state.cancelled.lock() {
        *cancelled = false;
    }
    Redirect::to("/").into_response()
}

async fn login() -> Response {
    page(
        "StreamFlix - Sign In",
        include_str!("../../../../plugins/practice/practice/login.html"),
        &[],
    )
    .into_response()
}

async fn sign_in() -> Response {
    let mut response = Redirect::to("/").into_response();
    if let Ok(value) = format!("{SESSION_COOKIE}; Path=/").parse() {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

async fn error_page() -> Response {
    page(
        "StreamFlix - Error",
        include_str!("../../../../plugins/practice/practice/error.html"),
        &[],
    )
    .into_response()
}

async fn not_found(method: Method, uri: Uri) -> Response {
    (
        axum::http::StatusCode::NOT_FOUND,
        format!("{method} {uri}: no such page on the practice site"),
    )
        .into_response()
}
