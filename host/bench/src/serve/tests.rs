#![allow(clippy::unwrap_used, clippy::panic)]

use super::*;
use crate::testing::{http, http_with, walk};

/// A bench server on a free loopback port, with at most `max_live` runs.
async fn start(max_live: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let bench = Bench::new(Catalog::load().unwrap(), max_live, origin.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, router(Arc::new(bench))).await;
    });
    origin
}

fn json(body: serde_json::Value) -> Option<(&'static str, String)> {
    Some(("application/json", body.to_string()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_runs_a_flow_through_the_interface() {
    let bench = start(4).await;
    let flows: Vec<FlowSummary> =
        serde_json::from_str(&http("GET", &format!("{bench}/flows"), None).await.body).unwrap();
    assert!(flows.len() >= 60);
    let id = "hulu-spa-api-origin-en";
    let brief = http("GET", &format!("{bench}/flows/{id}"), None).await.body;
    assert!(
        !brief.contains("expected_path") && !brief.contains("unwanted"),
        "{brief}"
    );
    let truth = http("GET", &format!("{bench}/flows/{id}?truth=1"), None)
        .await
        .body;
    assert!(truth.contains("expected_path"), "{truth}");

    let started = http(
        "POST",
        &format!("{bench}/runs"),
        json(serde_json::json!({ "flow": id })),
    )
    .await;
    assert_eq!(started.status, 201, "{}", started.body);
    let started: RunStarted = serde_json::from_str(&started.body).unwrap();
    assert_eq!(started.origins.len(), 2);
    let run = format!("{bench}/runs/{}", started.run);

    // The agent walks the flow; the person says yes right before the click
    // that commits, and nothing else happens in between.
    let catalog = Catalog::load().unwrap();
    let flow = catalog.get(id).unwrap();
    let path = &flow.truth.expected_path;
    let (before, last) = path.split_at(path.len() - 1);
    let (url, _) = walk(flow, &started.start_url, before).await;
    let answer = http(
        "POST",
        &format!("{run}/events"),
        json(serde_json::json!({ "kind": "answer", "yes": true })),
    )
    .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    walk(flow, &url, last).await;
    let claim = http(
        "POST",
        &format!("{run}/claim"),
        json(serde_json::json!({ "outcome": "success", "prompts": 1 })),
    )
    .await;
    assert_eq!(claim.status, 204, "{}", claim.body);

    let report: RunReport = serde_json::from_str(&http("GET", &run, None).await.body).unwrap();
    let v = &report.verdict;
    assert!(report.claimed && report.answers_reported);
    assert!(
        v.committed && v.commits_without_yes == 0 && v.unwanted.is_empty(),
        "{v:?}"
    );
    assert!(
        v.verified_success && v.ideal && !v.false_success_claim,
        "{v:?}"
    );
    assert_eq!(v.prompts, Some(1));

    let log: Vec<LoggedRequest> =
        serde_json::from_str(&http("GET", &format!("{run}/log"), None).await.body).unwrap();
    // The app's API answers a browser's preflight from the site's origin.
    let (site, api) = (&started.origins[0], &started.origins[1]);
    let preflight = http_with(
        "OPTIONS",
        &format!("{api}/v1/account/cancel/submit"),
        None,
        &[
            ("Origin", site.as_str()),
            ("Access-Control-Request-Method", "POST"),
        ],
    )
    .await;
    assert_eq!(preflight.status, 204);
    assert_eq!(
        preflight.header("access-control-allow-origin"),
        Some(site.as_str())
    );
    assert!(
        preflight
            .header("access-control-allow-headers")
            .is_some_and(|h| h.contains("content-type"))
    );
    assert!(
        log.iter()
            .any(|r| r.kind == crate::log::RequestKind::Commit
                && r.origin == crate::flow::Origin::Api)
    );

    assert_eq!(http("DELETE", &run, None).await.status, 204);
    assert_eq!(http("GET", &run, None).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_runs_are_capped_with_a_clear_error() {
    let bench = start(2).await;
    let runs = format!("{bench}/runs");
    let start_one = || {
        http(
            "POST",
            &runs,
            json(serde_json::json!({ "flow": "practice-base-en" })),
        )
    };
    let first: RunStarted = serde_json::from_str(&start_one().await.body).unwrap();
    assert_eq!(start_one().await.status, 201);
    let refused = start_one().await;
    assert_eq!(refused.status, 429);
    assert!(
        refused.body.contains("DELETE /runs/{run}"),
        "{}",
        refused.body
    );
    assert_eq!(
        http("DELETE", &format!("{bench}/runs/{}", first.run), None)
            .await
            .status,
        204
    );
    assert_eq!(start_one().await.status, 201);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_flows_runs_and_foreign_pages_are_refused() {
    let bench = start(2).await;
    let unknown = http(
        "POST",
        &format!("{bench}/runs"),
        json(serde_json::json!({ "flow": "nosuch-en" })),
    )
    .await;
    assert_eq!(unknown.status, 404);
    assert_eq!(
        http("GET", &format!("{bench}/runs/r999"), None)
            .await
            .status,
        404
    );
    // A page the agent visits may try to claim success for it.
    let forged = http_with(
        "POST",
        &format!("{bench}/runs/r1/claim"),
        json(serde_json::json!({ "outcome": "success" })),
        &[("Origin", "http://127.0.0.1:1")],
    )
    .await;
    assert_eq!(forged.status, 403);
}

#[tokio::test]
async fn serve_refuses_a_listener_off_loopback() {
    let Ok(listener) = TcpListener::bind("0.0.0.0:0").await else {
        return;
    };
    assert!(matches!(serve(listener).await, Err(Error::NotLoopback(_))));
}
