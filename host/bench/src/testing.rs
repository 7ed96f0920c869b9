//! Test support: a plain HTTP/1.1 client over a TCP stream, and a walker
//! that follows a flow's expected path through the served HTML the way a
//! browser without JavaScript would (forms posted, links followed), and
//! drives a single-page app's sections by their `data-go` and `data-url`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::flow::{Flow, Step, StepAction};

#[derive(Debug)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// One request; `url` is absolute (`http://127.0.0.1:port/path?q`).
pub(crate) async fn http(method: &str, url: &str, body: Option<(&str, String)>) -> Reply {
    http_with(method, url, body, &[]).await
}

pub(crate) async fn http_with(
    method: &str,
    url: &str,
    body: Option<(&str, String)>,
    extra: &[(&str, &str)],
) -> Reply {
    let parsed = url::Url::parse(url).unwrap();
    let host = format!("{}:{}", parsed.host_str().unwrap(), parsed.port().unwrap());
    let target = match parsed.query() {
        Some(q) => format!("{}?{q}", parsed.path()),
        None => parsed.path().to_owned(),
    };
    let mut stream = TcpStream::connect(&host).await.unwrap();
    let mut request =
        format!("{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in extra {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    match &body {
        Some((ct, b)) => request.push_str(&format!(
            "Content-Type: {ct}\r\nContent-Length: {}\r\n\r\n{b}",
            b.len()
        )),
        None => request.push_str("\r\n"),
    }
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// GET, following redirects; returns the final URL and reply.
pub(crate) async fn get(url: &str) -> (String, Reply) {
    let mut url = url.to_owned();
    for _ in 0..5 {
        let reply = http("GET", &url, None).await;
        if (300..400).contains(&reply.status) {
            url = absolute(&url, reply.header("location").unwrap());
            continue;
        }
        return (url, reply);
    }
    panic!("redirect loop at {url}");
}

/// Sends a request and follows a redirect answer with GETs.
async fn send(method: &str, url: &str, body: Option<(&str, String)>) -> (String, Reply) {
    let reply = http(method, url, body).await;
    if (300..400).contains(&reply.status) {
        return get(&absolute(url, reply.header("location").unwrap())).await;
    }
    (url.to_owned(), reply)
}

pub(crate) fn absolute(base: &str, href: &str) -> String {
    url::Url::parse(base)
        .unwrap()
        .join(href)
        .unwrap()
        .to_string()
}

/// What the walker chose along the way.
#[derive(Debug, Default)]
struct Choices {
    /// select name → option
    selects: BTreeMap<String, String>,
    /// radio group → value
    radios: BTreeMap<String, String>,
}

/// Follows `steps` (a flow's expected path, or another path written the
/// same way) from the start URL. Returns the last page's URL and body.
pub(crate) async fn walk(flow: &Flow, start: &str, steps: &[Step]) -> (String, String) {
    walk_with_detour(flow, start, steps, None).await
}

/// As [`walk`], but as soon as a page offers `detour` (a control by its
/// name), clicks it instead and stops there: a run that falls for a trap.
pub(crate) async fn walk_with_detour(
    flow: &Flow,
    start: &str,
    steps: &[Step],
    detour: Option<&Step>,
) -> (String, String) {
    let (url, reply) = get(start).await;
    walk_on(flow, url, reply.body, steps, detour).await
}

/// As [`walk_with_detour`], on from a page already fetched (`url`,
/// `page`): nothing is asked of the site before the first step.
pub(crate) async fn walk_on(
    flow: &Flow,
    mut url: String,
    mut page: String,
    steps: &[Step],
    detour: Option<&Step>,
) -> (String, String) {
    let spa = flow.blueprint.spa.is_some();
    let mut choices = Choices::default();
    for step in steps {
        let scope = if spa {
            section(&page, path_of(&url))
        } else {
            page.clone()
        };
        let (scope, scope_url) = if step.in_frame {
            let src = attr(&scope, "<iframe", "src").expect("an iframe");
            let frame_url = absolute(&url, &src);
            let (_, frame) = get(&frame_url).await;
            (frame.body, frame_url)
        } else {
            (scope, url.clone())
        };
        if let Some(detour) = detour {
            let name = crate::render::esc(&detour.name);
            if scope.contains(&format!(">{name}</button>"))
                || scope.contains(&format!(">{name}</a>"))
            {
                return click(flow, &scope, &scope_url, detour, &Choices::default()).await;
            }
        }
        match step.action {
            StepAction::Select => {
                let name = label_target(&scope, &step.name)
                    .unwrap_or_else(|| panic!("{}: no select labelled {:?}", flow.id, step.name));
                choices.selects.insert(name, step.option.clone().unwrap());
            }
            StepAction::Check => {
                let (group, value) = radio(&scope, &step.name)
                    .unwrap_or_else(|| panic!("{}: no radio {:?}", flow.id, step.name));
                choices.radios.insert(group, value);
            }
            StepAction::AcceptDialog | StepAction::HandOver => {}
            StepAction::Click => {
                let (next_url, next) = click(flow, &scope, &scope_url, step, &choices).await;
                url = next_url;
                page = next;
                choices = Choices::default();
            }
        }
    }
    (url, page)
}

fn path_of(url: &str) -> &str {
    let after = url.split_once("://").map_or(url, |(_, r)| r);
    let path = after.find('/').map_or("/", |at| &after[at..]);
    path.split('?').next().unwrap_or(path)
}

/// The SPA section drawn at `path`.
fn section(page: &str, path: &str) -> String {
    let marker = format!("<section data-path=\"{path}\"");
    let at = page
        .find(&marker)
        .unwrap_or_else(|| panic!("no section for {path}"));
    let end = page[at..].find("</section>").unwrap() + at;
    page[at..end].to_owned()
}

async fn click(
    flow: &Flow,
    scope: &str,
    scope_url: &str,
    step: &Step,
    choices: &Choices,
) -> (String, String) {
    let name = crate::render::esc(&step.name);
    // Links (plain, SPA, or a commit on GET).
    for a in elements(scope, "<a ", "</a>") {
        if inner_text(&a) == name {
            if let Some(go) = attr(&a, "<a", "data-go") {
                let (u, r) = get(&absolute(scope_url, &go)).await;
                return (u, r.body);
            }
            let href = unescape(&attr(&a, "<a", "href").unwrap());
            let (u, r) = get(&absolute(scope_url, &href)).await;
            return (u, r.body);
        }
    }
    // SPA buttons that only move on, and buttons that send over the
    // site's WebSocket.
    for b in elements(scope, "<button type=\"button\"", "</button>") {
        if inner_text(&b) == name {
            if let Some(message) = attr(&b, "<button", "data-ws") {
                let socket = flow.blueprint.socket.as_deref().expect("a socket");
                let reply = ws_send(scope_url, socket, &unescape(&message)).await;
                let next: serde_json::Value = serde_json::from_str(&reply).unwrap();
                let next = next["next"].as_str().unwrap().to_owned();
                let (u, r) = get(&absolute(scope_url, &next)).await;
                return (u, r.body);
            }
            let go = attr(&b, "<button", "data-go").unwrap();
            let (u, r) = get(&absolute(scope_url, &go)).await;
            return (u, r.body);
        }
    }
    for form in elements(scope, "<form", "</form>") {
        let Some(button) = elements(&form, "<button", "</button>")
            .into_iter()
            .find(|b| inner_text(b) == name)
        else {
            continue;
        };
        let _ = button;
        let mut fields: Vec<(String, String)> = Vec::new();
        for input in elements(&form, "<input type=\"hidden\"", ">") {
            fields.push((
                attr(&input, "<input", "name").unwrap(),
                attr(&input, "<input", "value").unwrap(),
            ));
        }
        // Fields a signed-in site fills in (the law's confirmation page).
        for input in elements(&form, "<input id=", ">") {
            if input.contains(" type=\"text\"") || input.contains(" type=\"email\"") {
                fields.push((
                    attr(&input, "<input", "name").unwrap(),
                    unescape(&attr(&input, "<input", "value").unwrap()),
                ));
            }
        }
        for select in elements(&form, "<select", "</select>") {
            let n = attr(&select, "<select", "name").unwrap();
            fields.push((
                n.clone(),
                choices.selects.get(&n).cloned().unwrap_or_default(),
            ));
        }
        for input in elements(&form, "<input type=\"radio\"", ">") {
            let group = attr(&input, "<input", "name").unwrap();
            let value = attr(&input, "<input", "value").unwrap();
            let chosen = match choices.radios.get(&group) {
                Some(v) => *v == value,
                None => input.contains(" checked"),
            };
            if chosen {
                fields.push((group, value));
            }
        }
        if let Some(url) = attr(&form, "<form", "data-url") {
            let body: serde_json::Map<String, serde_json::Value> = fields
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::String(v)))
                .collect();
            let target = absolute(scope_url, &unescape(&url));
            let reply = http(
                "POST",
                &target,
                Some((
                    "application/json",
                    serde_json::Value::Object(body).to_string(),
                )),
            )
            .await;
            assert_eq!(reply.status, 200, "{}: fetch to {target}", flow.id);
            let next: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
            let next = next["next"].as_str().unwrap().to_owned();
            let (u, r) = get(&absolute(scope_url, &next)).await;
            return (u, r.body);
        }
        if let Some(follow) = attr(&form, "<form", "data-follow") {
            // What the page's script does: the survey posted as JSON, then,
            // once it is answered, the follow-up.
            let action = absolute(
                scope_url,
                &unescape(&attr(&form, "<form", "action").unwrap()),
            );
            let body: serde_json::Map<String, serde_json::Value> = fields
                .into_iter()
                .map(|(k, v)| (k, serde_json::Value::String(v)))
                .collect();
            let json = serde_json::Value::Object(body).to_string();
            let reply = http("POST", &action, Some(("application/json", json))).await;
            assert_eq!(reply.status, 200, "{}: survey to {action}", flow.id);
            let target = absolute(scope_url, &unescape(&follow));
            let reply = http(
                "POST",
                &target,
                Some(("application/json", "{\"confirm\":true}".to_owned())),
            )
            .await;
            assert_eq!(reply.status, 200, "{}: follow-up to {target}", flow.id);
            let next: serde_json::Value = serde_json::from_str(&reply.body).unwrap();
            let next = next["next"].as_str().unwrap().to_owned();
            let (u, r) = get(&absolute(scope_url, &next)).await;
            return (u, r.body);
        }
        if let Some(to) = attr(&form, "<form", "data-to") {
            let (u, r) = get(&absolute(scope_url, &to)).await;
            return (u, r.body);
        }
        let method = attr(&form, "<form", "method").unwrap_or_else(|| "get".into());
        let action = unescape(&attr(&form, "<form", "action").unwrap());
        let target = absolute(scope_url, &action);
        let encoded: String = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(fields.iter())
            .finish();
        let (u, r) = if method == "post" {
            send(
                "POST",
                &target,
                Some(("application/x-www-form-urlencoded", encoded)),
            )
            .await
        } else {
            let sep = if encoded.is_empty() { "" } else { "?" };
            get(&format!("{target}{sep}{encoded}")).await
        };
        return (u, r.body);
    }
    panic!(
        "{}: nothing to click named {:?} in:\n{scope}",
        flow.id, step.name
    );
}

/// Every `open…close` element in `html`, whole.
fn elements(html: &str, open: &str, close: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(open) {
        let tail = &rest[at..];
        let end = tail.find(close).map_or(tail.len(), |e| e + close.len());
        out.push(tail[..end].to_owned());
        rest = &tail[end..];
    }
    out
}

/// The value of `name` on the first `tag` in `html`.
fn attr(html: &str, tag: &str, name: &str) -> Option<String> {
    let at = html.find(tag)?;
    let head_end = html[at..].find('>')? + at;
    let head = &html[at..head_end];
    let key = format!(" {name}=\"");
    let start = head.find(&key)? + key.len();
    let end = head[start..].find('"')? + start;
    Some(head[start..end].to_owned())
}

fn inner_text(element: &str) -> String {
    let start = element.find('>').map_or(0, |e| e + 1);
    let end = element.rfind("</").unwrap_or(element.len());
    element[start..end].trim().to_owned()
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The name of the select the label `text` is for.
fn label_target(html: &str, text: &str) -> Option<String> {
    let text = crate::render::esc(text);
    elements(html, "<label for=", "</label>")
        .into_iter()
        .find(|l| inner_text(l) == text)
        .and_then(|l| attr(&l, "<label", "for"))
}

/// The radio group and value whose label is `text`.
fn radio(html: &str, text: &str) -> Option<(String, String)> {
    let text = crate::render::esc(text);
    let label = elements(html, "<label for=", "</label>")
        .into_iter()
        .find(|l| inner_text(l) == text)?;
    let id = attr(&label, "<label", "for")?;
    let input = elements(html, "<input type=\"radio\"", ">")
        .into_iter()
        .find(|i| i.contains(&format!(" id=\"{id}\"")))?;
    Some((
        attr(&input, "<input", "name")?,
        attr(&input, "<input", "value")?,
    ))
}

/// The `(path, …)` targets a page's links, forms and fetches name, on the
/// site origin (relative) or another (absolute, placeholders filled).
pub(crate) fn targets(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    for key in [
        " href=\"",
        " action=\"",
        " data-go=\"",
        " data-to=\"",
        " data-url=\"",
        " src=\"",
    ] {
        let mut rest = html;
        while let Some(at) = rest.find(key) {
            let tail = &rest[at + key.len()..];
            let end = tail.find('"').unwrap_or(tail.len());
            found.push(unescape(&tail[..end]));
            rest = &tail[end..];
        }
    }
    found
}

/// Opens the site's WebSocket at `path` (on `page`'s origin), sends one text
/// message and returns the first text message the site answers: enough of
/// RFC 6455 for the bench's chat (a masked frame out, unmasked frames in).
pub(crate) async fn ws_send(page: &str, path: &str, message: &str) -> String {
    let parsed = url::Url::parse(page).unwrap();
    let host = format!("{}:{}", parsed.host_str().unwrap(), parsed.port().unwrap());
    let mut stream = TcpStream::connect(&host).await.unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0u8; 1];
        stream.read_exact(&mut byte).await.unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).into_owned();
    assert!(
        head.starts_with("HTTP/1.1 101"),
        "no upgrade at {path}: {head}"
    );
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    let payload = message.as_bytes();
    let mut frame = vec![0x81u8];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | u8::try_from(n).unwrap()),
        n => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&u16::try_from(n).unwrap().to_be_bytes());
        }
    }
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    stream.write_all(&frame).await.unwrap();
    loop {
        let mut top = [0u8; 2];
        stream.read_exact(&mut top).await.unwrap();
        let len = match top[1] & 0x7f {
            126 => {
                let mut ext = [0u8; 2];
                stream.read_exact(&mut ext).await.unwrap();
                usize::from(u16::from_be_bytes(ext))
            }
            127 => panic!("a chat answer is short"),
            n => usize::from(n),
        };
        let mut body = vec![0u8; len];
        stream.read_exact(&mut body).await.unwrap();
        if top[0] & 0x0f == 0x1 {
            return String::from_utf8(body).unwrap();
        }
    }
}

/// The yes a person gives on the page where the commit is asked for:
/// right after the last page or step before the log's first commit
/// reached the site (at the start, where nothing did).
pub(crate) fn yes_before_commit(log: &[crate::log::LoggedRequest]) -> crate::score::Answer {
    let commit = log
        .iter()
        .position(|r| r.kind == crate::log::RequestKind::Commit)
        .unwrap_or(log.len());
    let last_step = log[..commit].iter().rposition(crate::score::a_step);
    crate::score::Answer {
        at_ms: last_step.map_or(0, |i| log[i].at_ms),
        yes: true,
        about_commit: true,
        logged: Some(last_step.map_or(0, |i| i + 1)),
    }
}

/// A bench served on two free loopback ports, the scorer's behind `token`,
/// keeping finished runs in `out`: (the agent's address, the scorer's).
pub(crate) async fn served(
    max_live: usize,
    out: Option<std::path::PathBuf>,
    token: &str,
) -> (String, String) {
    use std::sync::Arc;

    use crate::serve::{Bench, Kept, agent_router, scorer_router};

    let agent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let scorer = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let a = format!("http://{}", agent.local_addr().unwrap());
    let s = format!("http://{}", scorer.local_addr().unwrap());
    let kept = out.map(|d| Kept::open(d).unwrap());
    let catalog = crate::catalog::Catalog::load().unwrap();
    let bench = Arc::new(Bench::new(catalog, max_live, vec![a.clone(), s.clone()], kept).unwrap());
    let for_scorer = Arc::clone(&bench);
    let token: Arc<str> = token.into();
    tokio::spawn(async move {
        let _ = axum::serve(agent, agent_router(bench)).await;
    });
    tokio::spawn(async move {
        let _ = axum::serve(scorer, scorer_router(for_scorer, token)).await;
    });
    (a, s)
}
