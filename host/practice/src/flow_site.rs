//! Serves a [`Flow`] on 127.0.0.1: its pages at their real paths, its posts,
//! and the one request that cancels. Like the StreamFlix site it logs every
//! request, so a test can prove the commit was, or was never, sent.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{Html, IntoResponse, Redirect, Response};

use crate::error::Result;
use crate::flow::Flow;
use crate::server::{RequestLog, Served};
use crate::site::{dates_in, fill};

/// Shown on every page for `{{email}}`.
const EMAIL: &str = "alex@example.com";

#[derive(Debug)]
struct SiteState {
    flow: Flow,
    cancelled: Mutex<bool>,
}

/// A running practice flow; stops when dropped or on [`FlowSite::stop`].
#[derive(Debug)]
pub struct FlowSite {
    served: Served,
    log: RequestLog,
    state: Arc<SiteState>,
}

impl FlowSite {
    pub async fn serve(flow: Flow) -> Result<Self> {
        let state = Arc::new(SiteState {
            flow,
            cancelled: Mutex::new(false),
        });
        let shared = Arc::clone(&state);
        let router = Router::new().fallback(move |method: Method, uri: Uri| {
            let state = Arc::clone(&shared);
            async move { answer(&state, &method, &uri) }
        });
        let log = RequestLog::default();
        let served = Served::start(log.around(router), "cannot serve the practice flow").await?;
        Ok(Self { served, log, state })
    }

    /// Where a run starts: the flow's start page.
    pub fn url(&self) -> String {
        format!("{}{}", self.origin(), self.state.flow.start)
    }

    /// The flow's brand, as its pages name it.
    pub fn brand(&self) -> &str {
        &self.state.flow.brand
    }

    /// `http://127.0.0.1:<port>`
    pub fn origin(&self) -> String {
        format!("http://{}", self.served.addr())
    }

    pub fn flow(&self) -> &Flow {
        &self.state.flow
    }

    /// Every request so far, as `METHOD /path?query`.
    pub fn requests(&self) -> Vec<String> {
        self.log.lines()
    }

    /// Whether the commit was posted.
    pub fn cancelled(&self) -> bool {
        self.state.cancelled.lock().map(|c| *c).unwrap_or(false)
    }

    pub fn stop(mut self) {
        self.served.stop();
    }
}

fn answer(state: &SiteState, method: &Method, uri: &Uri) -> Response {
    let flow = &state.flow;
    let path = uri.path();
    let cancelled = state.cancelled.lock().map(|c| *c).unwrap_or(false);
    match *method {
        Method::POST if path == flow.commit => {
            if let Ok(mut c) = state.cancelled.lock() {
                *c = true;
            }
            Redirect::to(&flow.done).into_response()
        }
        Method::POST => match flow.posts.get(path) {
            Some(to) => Redirect::to(to).into_response(),
            None => not_found(method, uri),
        },
        Method::GET if path == flow.done && !cancelled => Redirect::to(&flow.start).into_response(),
        Method::GET if path == flow.start && cancelled => Redirect::to(&flow.done).into_response(),
        Method::GET => match flow.pages.get(path) {
            Some(page) => render(flow, &page.title, page.body).into_response(),
            None => not_found(method, uri),
        },
        _ => not_found(method, uri),
    }
}

fn render(flow: &Flow, title: &str, body: &str) -> Html<String> {
    let (billing, end) = dates_in(&flow.date_format);
    let body = fill(
        body,
        &[
            ("end_date", end.as_str()),
            ("billing_date", billing.as_str()),
            ("email", EMAIL),
        ],
        &[],
    );
    Html(fill(
        flow.layout,
        &[("title", title), ("brand", &flow.brand)],
        &[("body", &body)],
    ))
}

fn not_found(method: &Method, uri: &Uri) -> Response {
    (
        StatusCode::NOT_FOUND,
        format!("{method} {uri}: no such page on the practice site"),
    )
        .into_response()
}
