//! Plugin load (cold compile, from the cache) and per-call latency of
//! `checkpoint` and `verify` on a real Playwright snapshot. Prints medians.
//!
//! Run: `cargo bench -p subterminator-core --bench plugin`

use std::path::Path;
use std::time::{Duration, Instant};

use subterminator_core::page::{Element, Snapshot};
use subterminator_core::plugin::{
    ComponentCache, Plugin, PluginEngine, ToolCallView, bundled_component,
};

const LOAD_RUNS: usize = 7;
const CALL_RUNS: usize = 20_000;
const BIG_RUNS: usize = 500;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn fixture_snapshot() -> Snapshot {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/playwright-mcp-0.0.83/snapshots");
    let yaml =
        std::fs::read_to_string(dir.join("page-2026-11-22T06-15-50-289Z.yml")).unwrap_or_default();
    Snapshot {
        url: "https://www.netflix.com/account".into(),
        title: "StreamFlix - Account".into(),
        elements: subterminator_core::browser::parse_tree(&yaml),
        content: yaml,
        screenshot_path: None,
    }
}

/// The 42 KB page from the fixtures (a long catalogue), as the agent sees it.
fn big_snapshot() -> Snapshot {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/playwright-mcp-0.0.83/snapshots");
    let yaml = std::fs::read_to_string(dir.join("big-snapshot.yml")).unwrap_or_default();
    Snapshot {
        url: "https://www.netflix.com/browse".into(),
        title: "Big page".into(),
        elements: subterminator_core::browser::parse_tree(&yaml),
        content: yaml,
        screenshot_path: None,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let wasm = bundled_component("subterminator-plugin-netflix")
        .ok_or("the netflix plugin is not bundled")?;

    let mut cold = Vec::new();
    for _ in 0..LOAD_RUNS {
        let engine = PluginEngine::new()?;
        let started = Instant::now();
        Plugin::load(&engine, "netflix", wasm)?;
        cold.push(started.elapsed());
    }
    let cache_dir = tempfile::tempdir()?;
    let engine = PluginEngine::with_cache(ComponentCache::open(cache_dir.path())?)?;
    Plugin::load(&engine, "netflix", wasm)?;
    let mut cached = Vec::new();
    for _ in 0..LOAD_RUNS {
        let started = Instant::now();
        Plugin::load(&engine, "netflix", wasm)?;
        cached.push(started.elapsed());
    }

    let snapshot = fixture_snapshot();
    let mut plugin = Plugin::load(&engine, "netflix", wasm)?;
    let call = ToolCallView {
        action: "browser_click".into(),
        arguments: serde_json::json!({"target": "e11", "element": "Cancel Membership"}),
        target: snapshot
            .element("e11")
            .cloned()
            .or_else(|| Some(Element::default())),
        facts: None,
    };
    let empty = Snapshot::default();
    let mut floor = Vec::with_capacity(CALL_RUNS);
    for _ in 0..CALL_RUNS {
        let started = Instant::now();
        std::hint::black_box(plugin.verify(&empty)?);
        floor.push(started.elapsed());
    }
    let mut checkpoint = Vec::with_capacity(CALL_RUNS);
    let mut verify = Vec::with_capacity(CALL_RUNS);
    for _ in 0..CALL_RUNS {
        let started = Instant::now();
        std::hint::black_box(plugin.checkpoint(&call, &snapshot)?);
        checkpoint.push(started.elapsed());
        let started = Instant::now();
        std::hint::black_box(plugin.verify(&snapshot)?);
        verify.push(started.elapsed());
    }

    println!(
        "plugin bench (netflix plugin, {} byte component)",
        wasm.len()
    );
    println!(
        "snapshot: {} bytes of tree, {} elements",
        snapshot.content.len(),
        snapshot.elements.len()
    );
    println!(
        "load, cold compile   median of {LOAD_RUNS}: {:?}",
        median(cold)
    );
    println!(
        "load, from cache     median of {LOAD_RUNS}: {:?}",
        median(cached)
    );
    println!(
        "checkpoint call      median of {CALL_RUNS}: {:?}",
        median(checkpoint)
    );
    println!(
        "verify call          median of {CALL_RUNS}: {:?}",
        median(verify)
    );
    println!(
        "verify, empty page   median of {CALL_RUNS}: {:?} (the boundary's floor)",
        median(floor)
    );
    let parts = [
        (
            "content, no elements",
            Snapshot {
                elements: Vec::new(),
                ..snapshot.clone()
            },
        ),
        (
            "elements, no content",
            Snapshot {
                content: String::new(),
                ..snapshot.clone()
            },
        ),
    ];
    for (what, part) in &parts {
        let mut times = Vec::with_capacity(CALL_RUNS);
        for _ in 0..CALL_RUNS {
            let started = Instant::now();
            std::hint::black_box(plugin.verify(part)?);
            times.push(started.elapsed());
        }
        println!(
            "verify, {what:<20} median of {CALL_RUNS}: {:?}",
            median(times)
        );
    }
    let look = ToolCallView {
        action: "browser_snapshot".into(),
        ..ToolCallView::default()
    };
    let mut marshal = Vec::with_capacity(CALL_RUNS);
    for _ in 0..CALL_RUNS {
        let started = Instant::now();
        std::hint::black_box(plugin.checkpoint(&look, &snapshot)?);
        marshal.push(started.elapsed());
    }
    println!(
        "checkpoint, read-only action (marshalling only) median of {CALL_RUNS}: {:?}",
        median(marshal)
    );
    let big = big_snapshot();
    let mut on_big = Vec::with_capacity(BIG_RUNS);
    for _ in 0..BIG_RUNS {
        let started = Instant::now();
        std::hint::black_box(plugin.verify(&big)?);
        on_big.push(started.elapsed());
    }
    println!(
        "verify, 42 KB page   median of {BIG_RUNS}: {:?} ({} bytes, {} elements)",
        median(on_big),
        big.content.len(),
        big.elements.len()
    );
    Ok(())
}
