//! Test support: an HTTP client (reqwest) with the few calls the tests
//! make, and a walker that follows a flow's expected path through the
//! served HTML the way a browser without JavaScript would (forms posted,
//! links followed), and drives a single-page app's sections by their
//! `data-go` and `data-url`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

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

/// The one client every test shares.
fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        // reqwest's builder panics without a rustls crypto provider, even
        // for plain http; an error only says one is installed already.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            // The tests read `location` themselves (`get` follows it).
            .redirect(reqwest::redirect::Policy::none())
            // Each `#[tokio::test]` has its own runtime, and a pooled
            // connection dies with the runtime that opened it: none is kept.
            .pool_max_idle_per_host(0)
            .build()
            .unwrap()
    })
}

/// One request; `url` is absolute (`http://127.0.0.1:port/path?q`).
pub(crate) async fn http(method: &str, url: &str, body: Option<(&str, String)>) -> Reply {
    http_with(method, url, body, &[]).await
}

/// As [`http`], with `extra` headers; a `Content-Type` among them wins
/// over the body's.
pub(crate) async fn http_with(
    method: &str,
    url: &str,
    body: Option<(&str, String)>,
    extra: &[(&str, &str)],
) -> Reply {
    let mut headers = HeaderMap::new();
    for (k, v) in extra {
        headers.append(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = client().request(method, url);
    if let Some((content_type, body)) = body {
        headers
            .entry(CONTENT_TYPE)
            .or_insert(HeaderValue::from_str(content_type).unwrap());
        request = request.body(body);
    }
    let response = request
        .headers(headers)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let body = response.bytes().await.unwrap();
    Reply {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// `s` as the pages spell it, for the tests that look for a text in a
/// page: maud's own escaping, so no second escaper can drift from it.
pub(crate) fn escaped(s: &str) -> String {
    maud::html! { (s) }.into_string()
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
            let name = escaped(&detour.name);
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
    let name = escaped(&step.name);
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

/// What an attribute or a text of a served page stands for: the inverse of
/// maud's escaping (`&amp; &lt; &gt; &quot;`) and of numeric references
/// (`&#39;`, `&#x27;`). Nothing the crate builds on unescapes HTML (short of
/// a whole parser), hence this; anything else is left as written.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let decoded = tail
            .find(';')
            .and_then(|end| Some((entity(&tail[1..end])?, end + 1)));
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &tail[len..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character `&name;` stands for, if it is one [`unescape`] knows.
fn entity(name: &str) -> Option<char> {
    match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        _ => {
            let number = name.strip_prefix('#')?;
            let (digits, radix) = match number.strip_prefix(['x', 'X']) {
                Some(hex) => (hex, 16),
                None => (number, 10),
            };
            // `from_str_radix` would take a sign too: `&#+39;` is no entity.
            if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
                return None;
            }
            char::from_u32(u32::from_str_radix(digits, radix).ok()?)
        }
    }
}

/// The name of the select the label `text` is for.
fn label_target(html: &str, text: &str) -> Option<String> {
    let text = escaped(text);
    elements(html, "<label for=", "</label>")
        .into_iter()
        .find(|l| inner_text(l) == text)
        .and_then(|l| attr(&l, "<label", "for"))
}

/// The radio group and value whose label is `text`.
fn radio(html: &str, text: &str) -> Option<(String, String)> {
    let text = escaped(text);
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
/// message and returns the first text message the site answers. reqwest
/// does the handshake and hands the connection over; the frames are enough
/// of RFC 6455 for the bench's chat (a masked frame out, unmasked frames in).
pub(crate) async fn ws_send(page: &str, path: &str, message: &str) -> String {
    let url = absolute(page, path);
    let handshake = client()
        .get(&url)
        .header("Upgrade", "websocket")
        .header("Connection", "Upgrade")
        .header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
        .header("Sec-WebSocket-Version", "13")
        .send()
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    assert_eq!(
        handshake.status(),
        reqwest::StatusCode::SWITCHING_PROTOCOLS,
        "no upgrade at {path}"
    );
    let mut stream = handshake.upgrade().await.unwrap();
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

#[cfg(test)]
mod tests {
    use super::{escaped, unescape};

    /// Texts maud escapes, each read back whole.
    const ROUND_TRIPS: &[&str] = &[
        "",
        "plain",
        "Tom & Jerry",
        "<script>alert(\"x\")</script>",
        "&amp; already escaped",
        "a \"quoted\" <b>word</b> & more; it's",
        "Kündigung – jetzt",
    ];

    #[test]
    fn unescape_inverts_maud() {
        for text in ROUND_TRIPS {
            assert_eq!(unescape(&escaped(text)), *text, "{text:?}");
        }
    }

    /// (as a page writes it, what it stands for)
    const CASES: &[(&str, &str)] = &[
        ("&amp;&lt;&gt;&quot;", "&<>\""),
        ("it&#39;s", "it's"),
        ("it&#x27;s", "it's"),
        ("it&#X27;s", "it's"),
        ("&#252;ber", "über"),
        // Decoded once: an escaped entity stays an entity.
        ("&amp;lt;", "&lt;"),
        // Not entities: left as written.
        ("a & b; c", "a & b; c"),
        ("&nbsp;", "&nbsp;"),
        ("&#;", "&#;"),
        ("&#x;", "&#x;"),
        ("&#+39;", "&#+39;"),
        ("&#xZZ;", "&#xZZ;"),
        ("&#1114112;", "&#1114112;"),
        ("trailing &", "trailing &"),
        ("&amp", "&amp"),
    ];

    #[test]
    fn unescape_reads_entities_and_leaves_the_rest() {
        for (written, meant) in CASES {
            assert_eq!(unescape(written), *meant, "{written:?}");
        }
    }
}
