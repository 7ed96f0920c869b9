//! The official MCP conformance suite (npm `@modelcontextprotocol/conformance`,
//! pinned, under the Node.js 22 it needs) against `subterminator mcp --http`,
//! through a proxy that adds the bearer token: the server scenarios that
//! apply to a server of our tools (the others need the suite's own test
//! tools, prompts and resources).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use subterminator_tests::mcp_client::conformance::{self, Proxy};
use subterminator_tests::mcp_client::http::HttpServer;

/// The stable suite's scenarios that apply (at 2025-11-25, its latest).
const SCENARIOS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "dns-rebinding-protection",
    "server-sse-polling",
    "server-sse-multiple-streams",
];

/// The pre-release suite's scenarios that apply at 2026-07-28 (stateless
/// requests, SEP-2243 headers).
const SCENARIOS_2026: &[&str] = &[
    "tools-list",
    "dns-rebinding-protection",
    "http-header-validation",
    "server-sse-multiple-streams",
];

#[tokio::test(flavor = "multi_thread")]
async fn the_official_conformance_scenarios_pass_over_http() {
    let tools = conformance::tools().unwrap();
    let home = tempfile::tempdir().unwrap();
    let server = HttpServer::start(home.path(), &["--headless", "--model", "offline"])
        .await
        .unwrap();
    let proxy = Proxy::start(&tools, &server.authority, &server.token)
        .await
        .unwrap();
    let runs = SCENARIOS
        .iter()
        .map(|s| (&tools.conformance, *s, None))
        .chain(
            SCENARIOS_2026
                .iter()
                .map(|s| (&tools.conformance_2026, *s, Some("2026-07-28"))),
        );
    let mut failed = Vec::new();
    for (suite, scenario, version) in runs {
        let (passed, output) = conformance::scenario(&tools, suite, &proxy.url, scenario, version)
            .await
            .unwrap();
        // A scenario that does not apply at the version runs no check.
        if !passed || output.contains("FAILURE") || !output.contains("SUCCESS") {
            failed.push(format!("{scenario} ({version:?}):\n{output}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
    assert_eq!(server.stop().await.unwrap(), Some(0));
}
