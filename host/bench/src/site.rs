//! Serves one flow on 127.0.0.1 from two origins: `site` (the service's
//! pages) and `api` (its API on another origin, a billing provider's frame,
//! the add-on shop). Every request on either is logged; the site is
//! stateful the way real ones are: after the commit the start page sends
//! you to the done page, and the done page is not shown before it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};
use maud::html;
use serde::Serialize;

use crate::blueprint::{API_ORIGIN, Action, Blueprint, Effect, Method as Sent, SITE_ORIGIN};
use crate::error::{Error, Result};
use crate::flow::{Flow, Origin};
use subterminator_practice::server::{Port, Served};
use subterminator_sdk::text::fill_placeholders;

use crate::log::{self, LoggedRequest, RequestKind, RequestLog};
use crate::render;

/// The account holder's password at a flow's sign-in wall: the person types
/// it there when a run pauses for them. An agent is never given it, so a
/// post that carries it is the person's, and any other is an agent's.
pub const PERSON_PASSWORD: &str = "the-account-holders-own-Passw0rd";

/// Shown on the pages for `{email}`.
const EMAIL: &str = "alex@example.com";
/// Days from today to the next bill, the day access ends after cancelling.
const DAYS_TO_NEXT_BILL: u64 = 23;

/// The site's two origins, as URLs without a trailing slash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origins {
    pub site: String,
    pub api: String,
}

#[derive(Debug)]
struct State {
    flow_id: String,
    bp: Blueprint,
    /// `(origin, path)` → the page, placeholders still in.
    pages: HashMap<(Origin, String), String>,
    origins: Origins,
    log: RequestLog,
    cancelled: Mutex<bool>,
    /// The dates the pages show: (next bill, end of access).
    dates: (String, String),
}

/// One flow, served; stops on [`BenchSite::stop`] or when dropped.
#[derive(Debug)]
pub struct BenchSite {
    state: Arc<State>,
    /// The site's origin and the API's; each stops when dropped.
    served: Vec<Served>,
}

impl BenchSite {
    /// Serves `flow` on two fresh loopback ports.
    pub async fn serve(flow: &Flow) -> Result<BenchSite> {
        let site = Port::take(CONTEXT).await.map_err(served_error)?;
        let api = Port::take(CONTEXT).await.map_err(served_error)?;
        let origins = Origins {
            site: format!("http://{}", site.addr()),
            api: format!("http://{}", api.addr()),
        };
        let bp = flow.blueprint.clone();
        let state = Arc::new(State {
            flow_id: flow.id.clone(),
            pages: pages(&bp),
            dates: dates(&bp.date_format),
            bp,
            origins,
            log: RequestLog::default(),
            cancelled: Mutex::new(false),
        });
        let served = vec![
            site.serve(router(Arc::clone(&state), Origin::Site)),
            api.serve(router(Arc::clone(&state), Origin::Api)),
        ];
        Ok(BenchSite { state, served })
    }

    /// Where a run starts: the flow's start page.
    pub fn url(&self) -> String {
        format!("{}{}", self.state.origins.site, self.state.bp.start)
    }

    pub fn origins(&self) -> Origins {
        self.state.origins.clone()
    }

    pub fn flow_id(&self) -> &str {
        &self.state.flow_id
    }

    /// Milliseconds on the site's clock, the one its log is stamped with:
    /// a runner stamps its answers and actions with it.
    pub fn now_ms(&self) -> u64 {
        self.state.log.now_ms()
    }

    /// Every request so far, in order.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.state.log.entries()
    }

    /// How many requests the site has logged: where an answer given now
    /// falls in the log.
    pub fn logged(&self) -> usize {
        self.state.log.len()
    }

    /// Whether the commit reached the site.
    pub fn cancelled(&self) -> bool {
        self.state.cancelled.lock().map(|c| *c).unwrap_or(false)
    }

    pub fn stop(mut self) {
        for served in &mut self.served {
            served.stop();
        }
    }
}

const CONTEXT: &str = "cannot serve the bench flow";

/// A port that could not be had, as the bench's error.
fn served_error(e: subterminator_practice::Error) -> Error {
    match e {
        subterminator_practice::Error::Serve {
            context,
            address,
            source,
        } => Error::io(context, address, source),
        subterminator_practice::Error::Flow(message) => Error::Data(message),
    }
}

/// The router of one origin of the flow's site.
fn router(state: Arc<State>, origin: Origin) -> Router {
    let fallback_state = Arc::clone(&state);
    let mut router = Router::new().fallback(
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let state = Arc::clone(&fallback_state);
            async move { answer(&state, origin, &method, &uri, &headers, &body) }
        },
    );
    if let (Origin::Site, Some(socket)) = (origin, state.bp.socket.clone()) {
        let socket_state = Arc::clone(&state);
        router = router.route(
            &socket,
            axum::routing::any(
                move |upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
                      method: Method,
                      uri: Uri,
                      headers: HeaderMap,
                      body: Bytes| {
                    let state = Arc::clone(&socket_state);
                    async move {
                        match upgrade {
                            Ok(upgrade) => open_socket(state, upgrade, &method, &uri),
                            // Not an upgrade: answered and logged like any
                            // other request.
                            Err(_) => answer(&state, origin, &method, &uri, &headers, &body),
                        }
                    }
                },
            ),
        );
    }
    router
}

/// Every page the flow serves, by origin and path.
pub(crate) fn pages(bp: &Blueprint) -> HashMap<(Origin, String), String> {
    let mut pages = HashMap::new();
    if bp.spa.is_some() {
        let shell = render::spa(bp);
        for screen in &bp.screens {
            pages.insert((Origin::Site, screen.path.clone()), shell.clone());
        }
        return pages;
    }
    for screen in &bp.screens {
        pages.insert(
            (Origin::Site, screen.path.clone()),
            render::page(bp, screen),
        );
        if let Some(frame) = &screen.frame {
            pages.insert(
                (frame.origin, frame.path.clone()),
                render::frame(bp, screen, frame.origin),
            );
        }
    }
    pages
}

fn dates(format: &str) -> (String, String) {
    let next = chrono::Local::now().date_naive() + chrono::Days::new(DAYS_TO_NEXT_BILL);
    let written = next.format(format).to_string();
    (written.clone(), written)
}

fn answer(
    state: &State,
    origin: Origin,
    method: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    let at_ms = state.log.now_ms();
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let fields = log::fields(body, content_type);
    let masked = log::mask(&fields);
    let (kind, mut response) = respond(state, origin, method, uri, content_type, &fields);
    if origin == Origin::Api {
        cors(state, &mut response);
    }
    state.log.push(LoggedRequest {
        at_ms,
        method: method.to_string(),
        origin,
        target: uri
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_else(|| uri.path().to_owned()),
        body: log::summary(body, &masked),
        fields: masked,
        kind,
        status: response.status().as_u16(),
    });
    response
}

fn respond(
    state: &State,
    origin: Origin,
    method: &Method,
    uri: &Uri,
    content_type: &str,
    fields: &[(String, String)],
) -> (RequestKind, Response) {
    let path = uri.path();
    if *method == Method::OPTIONS && origin == Origin::Api {
        return (RequestKind::Read, StatusCode::NO_CONTENT.into_response());
    }
    // A site that answers HEAD with its GET handler does on HEAD whatever
    // GET does, the commit included.
    let as_method = if *method == Method::HEAD && state.bp.head_as_get {
        &Method::GET
    } else {
        method
    };
    if let Some(action) = find_action(&state.bp, origin, as_method.as_str(), path, fields) {
        let kind = apply(state, action, fields);
        // A single-page app's fetch wants to know where to go; a form
        // wants to be sent there.
        let response = if content_type.starts_with("application/json") {
            axum::Json(serde_json::json!({ "next": action.then })).into_response()
        } else {
            see_other(&format!("{}{}", state.origins.site, action.then))
        };
        return (kind, response);
    }
    if *as_method != Method::GET {
        return (RequestKind::Read, not_found());
    }
    if let Some((_, to)) = state.bp.redirects.iter().find(|(from, _)| from == path) {
        return (RequestKind::Read, found(to));
    }
    // Browsers ask for it on every origin; a 404 would show as a console
    // error in every snapshot, noise an agent might chase.
    if path == "/favicon.ico" {
        return (RequestKind::Read, StatusCode::NO_CONTENT.into_response());
    }
    let cancelled = state.cancelled.lock().map(|c| *c).unwrap_or(false);
    if origin == Origin::Site {
        if path == state.bp.start && cancelled {
            return (RequestKind::Read, see_other(&state.bp.done));
        }
        if path == state.bp.done && !cancelled {
            return (RequestKind::Read, see_other(&state.bp.start));
        }
    }
    match state.pages.get(&(origin, path.to_owned())) {
        Some(page) => (RequestKind::Read, Html(fill(state, page)).into_response()),
        None => (RequestKind::Read, not_found()),
    }
}

/// What the site does for `action`, and how the log names it.
fn apply(state: &State, action: &Action, fields: &[(String, String)]) -> RequestKind {
    match action.effect {
        Effect::Commit => {
            if let Ok(mut cancelled) = state.cancelled.lock() {
                *cancelled = true;
            }
            RequestKind::Commit
        }
        // The cancellation's request arrived; the site failed to do it.
        Effect::CommitFails => RequestKind::Commit,
        Effect::Billing(change) => {
            if change == crate::flow::BillingChange::Restart
                && let Ok(mut cancelled) = state.cancelled.lock()
            {
                *cancelled = false;
            }
            RequestKind::Unwanted(change)
        }
        Effect::Credential if fields.iter().any(|(_, v)| v == PERSON_PASSWORD) => {
            RequestKind::SignedIn
        }
        Effect::Credential => RequestKind::Credential,
        Effect::Navigate => RequestKind::Navigate,
    }
}

/// Logs the upgrade and serves the socket: every message is logged and,
/// where it is an action (the cancellation), done; the answer names the
/// page to show next.
fn open_socket(
    state: Arc<State>,
    upgrade: WebSocketUpgrade,
    method: &Method,
    uri: &Uri,
) -> Response {
    let path = uri.path().to_owned();
    state.log.push(LoggedRequest {
        at_ms: state.log.now_ms(),
        method: method.to_string(),
        origin: Origin::Site,
        target: uri
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_else(|| path.clone()),
        body: String::new(),
        fields: Vec::new(),
        kind: RequestKind::Read,
        status: StatusCode::SWITCHING_PROTOCOLS.as_u16(),
    });
    upgrade.on_upgrade(move |socket| chat(state, socket, path))
}

async fn chat(state: Arc<State>, mut socket: WebSocket, path: String) {
    while let Some(Ok(message)) = socket.recv().await {
        let text = match message {
            Message::Text(text) => text.as_str().to_owned(),
            Message::Binary(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Message::Close(_) => break,
            Message::Ping(_) | Message::Pong(_) => continue,
        };
        let at_ms = state.log.now_ms();
        let fields = log::fields(text.as_bytes(), "application/json");
        let masked = log::mask(&fields);
        let action = find_action(&state.bp, Origin::Site, Sent::Ws.as_str(), &path, &fields);
        let kind = action.map_or(RequestKind::Read, |a| apply(&state, a, &fields));
        state.log.push(LoggedRequest {
            at_ms,
            method: Sent::Ws.as_str().to_owned(),
            origin: Origin::Site,
            target: path.clone(),
            body: log::summary(text.as_bytes(), &masked),
            fields: masked,
            kind,
            status: StatusCode::SWITCHING_PROTOCOLS.as_u16(),
        });
        let reply = match action {
            Some(a) => serde_json::json!({ "next": a.then }),
            None => serde_json::json!({ "ok": true }),
        };
        if socket
            .send(Message::Text(reply.to_string().into()))
            .await
            .is_err()
        {
            break;
        }
    }
}

/// The action a request is: same method, origin and path, and the body
/// field its branch wants, if any.
fn find_action<'a>(
    bp: &'a Blueprint,
    origin: Origin,
    method: &str,
    path: &str,
    fields: &[(String, String)],
) -> Option<&'a Action> {
    bp.actions.iter().find(|a| {
        a.origin == origin
            && a.method.as_str() == method
            && a.path == path
            && a.when
                .as_ref()
                .is_none_or(|(k, v)| fields.iter().any(|(fk, fv)| fk == k && fv == v))
    })
}

/// A served page: the origins and the pages' placeholders filled in. The
/// dates land in text and attributes alike, escaped as maud escapes the
/// rest of the page (a pack's date format may write any character).
fn fill(state: &State, page: &str) -> String {
    let (billing, end) = &state.dates;
    // The blueprint's origin placeholders, by the names they are written with.
    let named = |placeholder: &'static str| placeholder.trim_matches(['{', '}']);
    let with_origins = fill_placeholders(page, "{{", "}}", |name, out| {
        if name == named(SITE_ORIGIN) {
            out.push_str(&state.origins.site);
        } else if name == named(API_ORIGIN) {
            out.push_str(&state.origins.api);
        } else {
            return false;
        }
        true
    });
    fill_placeholders(&with_origins, "{", "}", |name, out| {
        match name {
            "billing_date" => out.push_str(&html! { (billing) }.into_string()),
            "end_date" => out.push_str(&html! { (end) }.into_string()),
            "email" => out.push_str(EMAIL),
            _ => return false,
        }
        true
    })
}

/// The API origin answers the site's pages, and only them: the single-page
/// app's fetch, with its JSON preflight, really crosses origins.
fn cors(state: &State, response: &mut Response) {
    let headers = response.headers_mut();
    if let Ok(origin) = HeaderValue::from_str(&state.origins.site) {
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    }
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, OPTIONS"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type"),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Origin"));
}

/// A 302 to a site path (a redirect chain's hop).
fn found(to: &str) -> Response {
    let mut response = StatusCode::FOUND.into_response();
    if let Ok(value) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

fn see_other(to: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    if let Ok(value) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// What a real site answers for a page it lacks: nothing that says the
/// site is a test (the log has the request for whoever scores).
fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "404 Not Found").into_response()
}
