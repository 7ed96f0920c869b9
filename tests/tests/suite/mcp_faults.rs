//! `subterminator mcp` under faults: every argument of every tool checked
//! against its schema (a wrong type is -32602 naming it, never a default,
//! and nothing starts); malformed messages answered with their JSON-RPC
//! error on stdio and HTTP; a client that dies frees its browsers within
//! 30 s and the next client gets a session; a page of another origin is
//! refused; a client's start page must be the service's or a local copy;
//! a dry run loads nothing but its start page.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subterminator_tests::e2e;
use subterminator_tests::mcp_client::http::{HttpServer, message};
use subterminator_tests::mcp_client::{self, Client, calls};
use subterminator_tests::site::Site;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const SERVER: &[&str] = &["--headless", "--model", "offline"];

fn stdio_plan(home: &std::path::Path, args: &[&str], steps: Value) -> Value {
    let mut plan = mcp_client::server(home, args);
    plan["elicitation"] = "yes".into();
    plan["steps"] = steps;
    plan
}

/// A value of another type than `schema` asks for.
fn wrong_value(schema: &Value) -> Value {
    match schema["type"].as_str() {
        Some("string") => json!(42),
        Some("boolean") => json!("true"),
        Some("integer") | Some("number") => json!("1"),
        _ => json!([1, 2]),
    }
}

/// A tool's required arguments, each given a value that fits, so that the
/// one a case gets wrong is the only fault.
fn required_given_right(tool: &Value) -> serde_json::Map<String, Value> {
    let schema = &tool["input_schema"];
    let mut args = serde_json::Map::new();
    for required in schema["required"].as_array().into_iter().flatten() {
        let required = required.as_str().unwrap();
        let property = &schema["properties"][required];
        let value = match (property["enum"].get(0), property["type"].as_str()) {
            (Some(first), _) => first.clone(),
            (None, Some("boolean")) => json!(true),
            (None, Some("integer" | "number")) => json!(1),
            _ => json!("practice"),
        };
        args.insert(required.into(), value);
    }
    args
}

fn chromium(pids: &BTreeSet<u32>) -> BTreeSet<u32> {
    pids.iter()
        .copied()
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm"))
                .is_ok_and(|c| c.trim().starts_with("chrom"))
        })
        .collect()
}

/// Every tool, every argument it declares, sent with a value of the wrong
/// type: each is -32602 naming that argument, and no run, browser or
/// record is started by any of them. The cases the issue named are in the
/// table too (`dry_run: "true"`, `isolated: "true"`, `service: 42`).
#[tokio::test(flavor = "multi_thread")]
async fn every_tool_refuses_a_wrong_typed_argument_and_starts_nothing() {
    let home = tempfile::tempdir().unwrap();
    let listed = Client::start(&stdio_plan(
        home.path(),
        SERVER,
        json!([{"list_tools": true}]),
    ))
    .await
    .unwrap()
    .finish()
    .await
    .unwrap();
    let tools = listed.iter().find_map(|l| l.get("tools")).unwrap().clone();
    let mut cases: Vec<(String, String, Value)> = Vec::new();
    for tool in tools.as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        let properties = tool["input_schema"]["properties"].as_object().unwrap();
        for (argument, schema) in properties {
            let mut args = required_given_right(tool);
            args.insert(argument.clone(), wrong_value(schema));
            cases.push((name.to_owned(), argument.clone(), Value::Object(args)));
        }
        // An argument the tool does not take.
        let mut args = required_given_right(tool);
        args.insert("dry_rum".into(), json!(true));
        cases.push((name.to_owned(), "dry_rum".into(), Value::Object(args)));
    }
    for (tool, argument, args) in [
        (
            "cancel_subscription",
            "dry_run",
            json!({"service": "practice", "dry_run": "true"}),
        ),
        (
            "cancel_subscription",
            "isolated",
            json!({"service": "practice", "isolated": "true"}),
        ),
        ("cancel_subscription", "service", json!({"service": 42})),
        (
            "browser_scroll",
            "direction",
            json!({"direction": "sideways"}),
        ),
    ] {
        cases.push((tool.into(), argument.into(), args));
    }
    assert!(cases.len() > 25, "{}", cases.len());
    let steps: Vec<Value> = cases
        .iter()
        .map(|(tool, _, args)| json!({"call": tool, "args": args}))
        .collect();
    let mut client = Client::start(&stdio_plan(home.path(), SERVER, Value::Array(steps)))
        .await
        .unwrap();
    let mut answers = Vec::new();
    while answers.len() < cases.len() {
        let line = client.next().await.unwrap();
        if line.get("call").is_some() {
            answers.push(line);
        }
    }
    let everything = e2e::descendants(client.pid().unwrap());
    assert!(
        chromium(&everything).is_empty(),
        "a browser started: {everything:?}"
    );
    client.finish().await.unwrap();
    for ((tool, argument, args), answer) in cases.iter().zip(&answers) {
        let error = &answer["rpc_error"];
        assert_eq!(error["code"], -32602, "{tool} {args}: {answer}");
        assert_eq!(
            error["data"]["argument"],
            argument.as_str(),
            "{tool} {args}: {answer}"
        );
        let said = error["message"].as_str().unwrap();
        assert!(said.contains(&format!("`{argument}`")), "{said}");
    }
    assert!(
        e2e::run_dirs(home.path()).is_empty(),
        "a run was started: {:?}",
        e2e::run_dirs(home.path())
    );
}

/// Raw lines on stdio: not JSON is -32700, `arguments: [1,2]` is -32602 (not
/// "method not found"), an unknown tool -32602; the server goes on serving.
#[tokio::test(flavor = "multi_thread")]
async fn malformed_lines_on_stdio_get_their_json_rpc_error() {
    let home = tempfile::tempdir().unwrap();
    let mut server = e2e::command(home.path());
    server.args(["mcp", "--headless"]);
    let mut server = server.spawn().unwrap();
    let mut stdin = server.stdin.take().unwrap();
    let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
    let sent = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "{not json",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cancel_subscription","arguments":[1,2]}}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cancel_subscription","arguments":{"service":42}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
    ];
    for line in sent {
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .unwrap();
    }
    stdin.flush().await.unwrap();
    let mut got: Vec<Value> = Vec::new();
    // Calls are answered as they finish, not in order.
    while ![2, 3, 4, 5]
        .iter()
        .all(|id| got.iter().any(|m| m["id"] == *id))
    {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap_or_else(|| panic!("the server ended: {got:#?}"));
        got.push(serde_json::from_str(&line).unwrap());
    }
    let by_id = |id: i64| {
        got.iter()
            .find(|m| m["id"] == id)
            .unwrap_or_else(|| panic!("{id}: {got:#?}"))
    };
    let parse = got
        .iter()
        .find(|m| m["error"]["code"] == -32700)
        .unwrap_or_else(|| panic!("{got:#?}"));
    assert!(parse.get("result").is_none());
    assert_eq!(by_id(2)["error"]["code"], -32602, "{got:#?}");
    assert!(
        by_id(2)["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`arguments` must be an object")
    );
    assert_eq!(by_id(3)["error"]["code"], -32602);
    assert_eq!(by_id(3)["error"]["data"]["argument"], "service");
    assert_eq!(by_id(4)["error"]["code"], -32602);
    assert!(by_id(5)["result"]["tools"].is_array(), "still serving");
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(20), server.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(0));
}

/// Raw requests over HTTP: not JSON is HTTP 400 with -32700, `arguments:
/// [1,2]` -32602; a page of another origin gets 403 even with the token,
/// this machine's pages do not; `server/discover` at 2026-07-28 lists it
/// beside 2025-11-25.
#[tokio::test(flavor = "multi_thread")]
async fn http_answers_malformed_requests_and_refuses_foreign_origins() {
    let home = tempfile::tempdir().unwrap();
    let server = HttpServer::start(home.path(), SERVER).await.unwrap();
    let (status, body) = server.post("{not json", &[]).await.unwrap();
    assert_eq!(status, 400, "{body}");
    assert_eq!(message(&body).unwrap()["error"]["code"], -32700, "{body}");

    let modern = |method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
        });
        json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string()
    };
    // What a 2026-07-28 client sends beside its body (SEP-2243).
    let call_headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "cancel_subscription"),
    ];
    let (status, body) = server
        .post(
            modern(
                "tools/call",
                json!({"name": "cancel_subscription", "arguments": [1, 2]}),
            ),
            &call_headers,
        )
        .await
        .unwrap();
    let answer = message(&body).unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{status} {body}");
    assert_eq!(answer["id"], 7);

    let (status, body) = server
        .post(
            modern("tools/call", json!({"name": "cancel_subscription", "arguments": {"service": "practice", "dry_run": "true"}})),
            &call_headers,
        )
        .await
        .unwrap();
    let answer = message(&body).unwrap();
    assert_eq!(answer["error"]["code"], -32602, "{status} {body}");
    assert_eq!(answer["error"]["data"]["argument"], "dry_run");

    let (status, body) = server
        .post(
            modern("server/discover", json!({})),
            &[
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "server/discover"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let versions = &message(&body).unwrap()["result"]["supportedVersions"];
    for wanted in ["2026-07-28", "2025-11-25"] {
        assert!(
            versions.as_array().unwrap().contains(&json!(wanted)),
            "{body}"
        );
    }

    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let origins = [
        ("https://evil.example", 403),
        ("http://evil.example:8080", 403),
        ("null", 403),
        ("http://127.0.0.1:9", 200),
        ("http://localhost:3000", 200),
    ];
    for (origin, want) in origins {
        let (status, body) = server
            .post(initialize, &[("Origin", origin)])
            .await
            .unwrap();
        assert_eq!(status, want, "{origin}: {body}");
    }
    let (status, _) = server.post(initialize, &[]).await.unwrap();
    assert_eq!(status, 200, "no Origin: not a browser");
    assert_eq!(server.stop().await.unwrap(), Some(0));
}

/// A `start_url` off the service's sites is refused before anything
/// starts (-32602 naming it); a dry run presses nothing, not even a cookie
/// banner's button, so its start page is all the site sees.
#[tokio::test(flavor = "multi_thread")]
async fn a_client_starts_only_on_the_services_sites_and_a_dry_run_loads_only_its_start() {
    let pages = tempfile::tempdir().unwrap();
    std::fs::write(
        pages.path().join("index.html"),
        r#"<!doctype html><html><head><meta charset="utf-8"><title>Account</title></head><body>
<h1>Account</h1><p>Membership: Premium</p>
<p><a href="cancel.html">Cancel Membership</a></p>
<div role="dialog" aria-label="Cookie consent" style="position: fixed; left: 0; right: 0; bottom: 0; background: #fff; padding: 16px">
  <p>This site uses cookies.</p>
  <button type="button" onclick="fetch('consent-saved.html').then(() => this.parentNode.remove())">Reject all</button>
</div></body></html>"#,
    )
    .unwrap();
    std::fs::write(pages.path().join("consent-saved.html"), "saved").unwrap();
    let site = Site::serve(pages.path()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let outside = [
        "https://example.com/account",
        "http://10.1.2.3/",
        "file:///etc/passwd",
    ];
    let mut steps: Vec<Value> = outside
        .iter()
        .flat_map(|url| {
            [
                json!({"call": "cancel_subscription", "args": {"service": "practice", "start_url": url, "isolated": true}}),
                json!({"call": "browser_snapshot", "args": {"service": "practice", "start_url": url, "isolated": true}}),
            ]
        })
        .collect();
    steps.push(json!({"call": "cancel_subscription", "args": {
        "service": "practice", "start_url": site.url("/index.html"), "isolated": true, "dry_run": true}}));
    let lines = Client::start(&stdio_plan(home.path(), SERVER, Value::Array(steps)))
        .await
        .unwrap()
        .finish()
        .await
        .unwrap();
    let answers: Vec<&Value> = lines.iter().filter(|l| l.get("call").is_some()).collect();
    for refused in &answers[..outside.len() * 2] {
        assert_eq!(refused["rpc_error"]["code"], -32602, "{refused}");
        assert_eq!(
            refused["rpc_error"]["data"]["argument"], "start_url",
            "{refused}"
        );
    }
    let dry = &answers[outside.len() * 2]["structured"];
    assert_eq!(dry["data"]["reason"], "dry_run", "{dry}");
    assert_eq!(
        e2e::run_dirs(home.path()).len(),
        1,
        "only the dry run was started"
    );
    let requests = site.requests();
    assert!(
        requests
            .iter()
            .any(|r| r.method == "GET" && r.path() == "/index.html"),
        "{requests:?}"
    );
    assert!(
        requests
            .iter()
            .all(|r| ["GET", "HEAD"].contains(&r.method.as_str())
                && ["/index.html", "/favicon.ico"].contains(&r.path())),
        "a dry run loaded more than its start page: {requests:?}"
    );
}

/// Which way a client dies, for the table below.
#[derive(Debug, Clone, Copy)]
enum Way {
    /// A pre-2026 client over HTTP (an MCP session and its event stream).
    Http2025,
    /// A 2026-07-28 client over HTTP (nothing open between calls).
    Http2026,
    /// A stdio client (the server is its child).
    Stdio,
}

/// A client killed (SIGKILL) with a browser session open: its browser is
/// gone within 30 s, and the next client gets a session where the cap
/// (`--max-sessions 1`) and the signed-in profile left no room for it.
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_client_frees_its_browser_and_the_next_client_gets_one_within_30_s() {
    let ways = [Way::Http2025, Way::Http2026, Way::Stdio];
    let handles: Vec<_> = ways
        .into_iter()
        .map(|way| tokio::spawn(killed(way)))
        .collect();
    for handle in handles {
        handle.await.unwrap();
    }
}

const FREED_WITHIN: Duration = Duration::from_secs(30);
/// How long after a dead client's browsers are gone its slot may still
/// refuse the next client.
const SLOT_LETS_GO: Duration = Duration::from_secs(5);

async fn killed(way: Way) {
    let site = Site::serve(&subterminator_tests::site::site_dir("visitors"))
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let server_args = ["--headless", "--model", "offline", "--max-sessions", "1"];
    // The signed-in profile: a second holder would be refused while the
    // first is alive, so the next client's session shows it was freed.
    let open = json!({"call": "browser_snapshot", "args": {
        "service": "practice", "start_url": site.url("/index.html"), "isolated": false}});
    let steps = json!([open, {"pause": "open"}]);
    let server = match way {
        Way::Stdio => None,
        Way::Http2025 | Way::Http2026 => {
            Some(HttpServer::start(home.path(), &server_args).await.unwrap())
        }
    };
    let plan = |steps: Value| match (&server, way) {
        (Some(server), Way::Http2026) => server.plan("2026-07-28", "yes", steps),
        (Some(server), _) => server.plan("legacy", "yes", steps),
        (None, _) => stdio_plan(home.path(), &server_args, steps),
    };
    let mut client = Client::start(&plan(steps)).await.unwrap();
    client.until("paused").await.unwrap();
    let opened = &calls(&client.seen, "browser_snapshot")[0]["structured"];
    assert_eq!(opened["status"], "ok", "{way:?}: {opened}");
    let root = server
        .as_ref()
        .and_then(HttpServer::pid)
        .or_else(|| client.pid())
        .unwrap();
    let browsers = chromium(&e2e::descendants(root));
    assert!(
        !browsers.is_empty(),
        "{way:?}: a browser while the session is open"
    );
    let pid = client.pid().unwrap();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let killed_at = Instant::now();
    drop(client);
    // The dead client's browsers, watched directly (a look every 20 ms), so
    // that the time measured is the server's and not the time the test's
    // own clients take to start on a loaded machine.
    let left = e2e::still_alive(browsers.iter().copied(), FREED_WITHIN).await;
    let freed_after = killed_at.elapsed();
    assert!(
        left.is_empty(),
        "{way:?}: the dead client's browsers live on {freed_after:?} after the kill: {left:?}"
    );
    // The next client asking now gets a session that the cap and the
    // signed-in profile refused while the dead client's session lived. The
    // server lets go of the slot as it closes the browser; a few seconds
    // are allowed for that.
    let mut refusals = 0;
    let (granted, asked_after) = loop {
        let asked_after = killed_at.elapsed();
        let next = Client::start(&plan(json!([open])))
            .await
            .unwrap()
            .finish()
            .await
            .unwrap();
        let answer = calls(&next, "browser_snapshot")[0]["structured"].clone();
        if answer["status"] == "ok" || killed_at.elapsed() > freed_after + SLOT_LETS_GO {
            break (answer, asked_after);
        }
        refusals += 1;
    };
    assert_eq!(
        granted["status"], "ok",
        "{way:?}: refused {refusals} times after the browsers went: {granted}"
    );
    assert!(
        asked_after < FREED_WITHIN,
        "{way:?}: the session granted was asked for {asked_after:?} after the kill"
    );
    if let Some(server) = server {
        assert_eq!(server.stop().await.unwrap(), Some(0), "{way:?}");
    }
}
