//! The practice site: a realistic streaming-service account flow (account →
//! retention offer → survey → final confirmation → cancelled), served from
//! the binary on 127.0.0.1. It logs every request, so a test can prove that
//! the final button was, or was never, pressed.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, Method, Uri, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use subterminator_sdk::text::fill_placeholders;

use crate::error::Result;
use crate::server::{RequestLog, Served};

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
    cancelled: Mutex<bool>,
}

/// A running practice site; stops when dropped or on [`PracticeSite::stop`].
#[derive(Debug)]
pub struct PracticeSite {
    served: Served,
    log: RequestLog,
    state: Arc<SiteState>,
}

impl PracticeSite {
    pub async fn serve(options: SiteOptions) -> Result<Self> {
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
            .with_state(Arc::clone(&state));
        let log = RequestLog::default();
        let served = Served::start(log.around(router), "cannot serve the practice site").await?;
        Ok(Self { served, log, state })
    }

    /// `http://127.0.0.1:<port>/`
    pub fn url(&self) -> String {
        format!("http://{}/", self.served.addr())
    }

    /// Every request so far, as `METHOD /path?query`.
    pub fn requests(&self) -> Vec<String> {
        self.log.lines()
    }

    /// Whether the final button was pressed and the membership cancelled.
    pub fn cancelled(&self) -> bool {
        self.state.cancelled.lock().map(|c| *c).unwrap_or(false)
    }

    pub fn stop(mut self) {
        self.served.stop();
    }
}

type Shared = State<Arc<SiteState>>;

fn page(title: &str, body: &str, vars: &[(&str, &str)]) -> Html<String> {
    let body = fill(body, vars, &[]);
    Html(fill(
        include_str!("../../../plugins/practice/practice/layout.html"),
        &[("title", title)],
        &[("body", &body)],
    ))
}

/// A practice page's `{{name}}` placeholders filled in one pass: `text`
/// values escaped, `markup` values (a page body we filled) as they are.
/// One pass, so a value that holds `{{…}}` is never read as a placeholder;
/// an unknown placeholder stays. The practice pages are copies of real
/// services' HTML files, so they stay files rather than templates in code.
pub(super) fn fill(template: &str, text: &[(&str, &str)], markup: &[(&str, &str)]) -> String {
    fill_placeholders(template, "{{", "}}", |name, out| {
        if let Some((_, value)) = text.iter().find(|(n, _)| *n == name) {
            let _ = write!(maud::Escaper::new(out), "{value}");
            true
        } else if let Some((_, value)) = markup.iter().find(|(n, _)| *n == name) {
            out.push_str(value);
            true
        } else {
            false
        }
    })
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
        include_str!("../../../plugins/practice/practice/account.html"),
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
        include_str!("../../../plugins/practice/practice/offer.html"),
        &[],
    )
    .into_response()
}

async fn offer_accept() -> Response {
    let (billing, _) = dates();
    page(
        "StreamFlix - Offer accepted",
        include_str!("../../../plugins/practice/practice/offer_accepted.html"),
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
        include_str!("../../../plugins/practice/practice/survey.html"),
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
        include_str!("../../../plugins/practice/practice/confirm.html"),
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
        include_str!("../../../plugins/practice/practice/cancelled.html"),
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
        include_str!("../../../plugins/practice/practice/login.html"),
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
        include_str!("../../../plugins/practice/practice/error.html"),
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

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn placeholders_are_filled_once_and_text_is_escaped() {
        let text = [("title", "<script>alert(1)</script>"), ("who", "{{body}}")];
        let markup = [("body", "<p id=\"b\">hi</p>")];
        let cases = [
            (
                "<title>{{title}}</title>",
                "<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>",
            ),
            // A value that holds a placeholder is not read again.
            ("<p>{{who}}</p>", "<p>{{body}}</p>"),
            ("<main>{{body}}</main>", "<main><p id=\"b\">hi</p></main>"),
            (
                "<a title=\"{{title}}\">",
                "<a title=\"&lt;script&gt;alert(1)&lt;/script&gt;\">",
            ),
            ("{{unknown}} {{ and }", "{{unknown}} {{ and }"),
            ("no placeholder", "no placeholder"),
        ];
        for (template, want) in cases {
            assert_eq!(fill(template, &text, &markup), want, "{template}");
        }
        let quote = fill("<a title=\"{{t}}\">", &[("t", "\" onmouseover=\"x")], &[]);
        assert_eq!(quote, "<a title=\"&quot; onmouseover=&quot;x\">");
    }
}
