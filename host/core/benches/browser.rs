//! Measures the browser layer against the real Playwright MCP server and
//! Debian's Chromium, and the snapshot parser on the recorded 42 KB page.
//! Prints medians; run with `cargo bench -p subterminator-core --bench browser`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use subterminator_core::browser::{Browser, BrowserOptions, parse_snapshot, parse_tree};

/// Sessions started (each: spawn, first navigate, warm calls, shutdown).
const SESSIONS: usize = 5;
/// Warm navigate/snapshot/click rounds per session.
const ROUNDS: usize = 4;
/// Parser runs per batch, and batches (one median each).
const PARSE_RUNS: usize = 200;
const PARSE_BATCHES: usize = 7;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.3} ms")
    } else {
        format!("{ms:.1} ms")
    }
}

fn report(label: &str, samples: Vec<Duration>) {
    let n = samples.len();
    let min = *samples.iter().min().unwrap();
    let max = *samples.iter().max().unwrap();
    println!(
        "{label:<44} median {:>10}   (n={n}, min {}, max {})",
        ms(median(samples)),
        ms(min),
        ms(max)
    );
}

async fn serve(dir: PathBuf) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new().fallback(move |request: Request| {
        let dir = dir.clone();
        async move {
            let path = request.uri().path().trim_start_matches('/');
            let path = if path.is_empty() { "index.html" } else { path };
            match tokio::fs::read(dir.join(path)).await {
                Ok(body) => {
                    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
                }
                Err(_) => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

fn bench_parser() {
    let fixture =
        manifest().join("../../tests/fixtures/playwright-mcp-0.0.83/step7_big_snapshot.json");
    let raw = std::fs::read_to_string(&fixture).unwrap();
    let value: serde_json::Value = serde_json::from_str(&raw).unwrap();
    let text = value["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let snap = parse_snapshot(&text, None).unwrap();
    println!(
        "parser input: {} bytes of result text, {} elements",
        text.len(),
        snap.elements.len()
    );
    let mut whole = Vec::new();
    let mut tree_only = Vec::new();
    for _ in 0..PARSE_BATCHES {
        let mut batch = Vec::with_capacity(PARSE_RUNS);
        for _ in 0..PARSE_RUNS {
            let t = Instant::now();
            std::hint::black_box(parse_snapshot(std::hint::black_box(&text), None).unwrap());
            batch.push(t.elapsed());
        }
        whole.push(median(batch));
        let mut batch = Vec::with_capacity(PARSE_RUNS);
        for _ in 0..PARSE_RUNS {
            let t = Instant::now();
            std::hint::black_box(parse_tree(std::hint::black_box(&snap.content)));
            batch.push(t.elapsed());
        }
        tree_only.push(median(batch));
    }
    report("parse 42 KB snapshot result (target < 2 ms)", whole);
    report("  of which the tree alone", tree_only);
}

async fn bench_sessions() {
    let base = serve(manifest().join("../../tests/sites/basic")).await;
    let mut start = Vec::new();
    let mut first_nav = Vec::new();
    let mut nav = Vec::new();
    let mut snapshot = Vec::new();
    let mut click = Vec::new();
    let mut shutdown = Vec::new();
    for _ in 0..SESSIONS {
        let run = tempfile::tempdir().unwrap();
        let opts = BrowserOptions {
            executable_path: Some(PathBuf::from("/usr/bin/chromium")),
            ..BrowserOptions::headless_isolated(run.path().join("browser"))
        };
        let t = Instant::now();
        let browser = Browser::start(opts).await.unwrap();
        start.push(t.elapsed());

        let t = Instant::now();
        browser
            .navigate(&format!("{base}/cancelled.html"))
            .await
            .unwrap();
        first_nav.push(t.elapsed());

        for _ in 0..ROUNDS {
            let t = Instant::now();
            browser.navigate(&format!("{base}/")).await.unwrap();
            nav.push(t.elapsed());

            let t = Instant::now();
            let snap = browser.snapshot().await.unwrap();
            snapshot.push(t.elapsed());

            let cancel = snap
                .elements
                .iter()
                .find(|e| e.role == "button" && e.name == "Cancel Membership")
                .and_then(|e| e.reference.clone())
                .unwrap();
            let t = Instant::now();
            browser.click(&cancel).await.unwrap();
            click.push(t.elapsed());
        }

        let t = Instant::now();
        browser.shutdown().await.unwrap();
        shutdown.push(t.elapsed());
    }
    report("spawn -> initialize + tools/list (with preflight)", start);
    report("first navigate (launches Chromium)", first_nav);
    report("navigate (warm, local page)", nav);
    report("snapshot (warm)", snapshot);
    report("click by ref (navigates; incl. the server's settle)", click);
    report("shutdown (browser_close + SIGTERM)", shutdown);
}

fn main() {
    bench_parser();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let sites = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/sites/basic");
    if !sites.exists() {
        println!(
            "skipping the live measurements: {} is missing",
            sites.display()
        );
        return;
    }
    runtime.block_on(bench_sessions());
}
