//! Predicate latency of a declarative service against the Rust Netflix
//! plugin, on the same pages: `verify`, `detect-auth` and `checkpoint`, each
//! a real call into the sandbox. The declarative one is
//! `sdk/declarative/examples/netflix.toml`, run by the bundled interpreter.
//! Prints medians per call and the load time of each.
//!
//! Run: `cargo bench -p subterminator-core --bench declarative`

use std::path::Path;
use std::time::{Duration, Instant};

use subterminator_core::page::{Element, Snapshot};
use subterminator_core::plugin::{
    ComponentCache, Plugin, PluginEngine, ToolCallView, bundled_component,
};

const LOAD_RUNS: usize = 7;
const CALL_RUNS: usize = 5_000;
const BIG_RUNS: usize = 300;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn snapshot(file: &str, url: &str, title: &str) -> Snapshot {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/playwright-mcp-0.0.83/snapshots");
    let yaml = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
    Snapshot {
        url: url.into(),
        title: title.into(),
        elements: subterminator_core::browser::parse_tree(&yaml),
        content: yaml,
        screenshot_path: None,
    }
}

fn inline(url: &str, title: &str, yaml: &str) -> Snapshot {
    Snapshot {
        url: url.into(),
        title: title.into(),
        elements: subterminator_core::browser::parse_tree(yaml),
        content: yaml.into(),
        screenshot_path: None,
    }
}

fn pages() -> Vec<(&'static str, Snapshot)> {
    vec![
        (
            "account (fixture)",
            snapshot(
                "page-2026-11-22T06-15-50-289Z.yml",
                "https://www.netflix.com/account",
                "Account",
            ),
        ),
        (
            "final confirm",
            inline(
                "https://www.netflix.com/cancelplan/confirm",
                "Finish cancellation",
                "- heading \"Finish your cancellation\" [level=1] [ref=e2]\n- paragraph [ref=e3]: Your membership ends on December 31.\n- button \"Finish Cancellation\" [ref=e4]\n- button \"Go back\" [ref=e5]\n",
            ),
        ),
        (
            "cancelled",
            inline(
                "https://www.netflix.com/cancelplan/complete",
                "Cancelled",
                "- heading \"Your membership has been cancelled\" [level=1] [ref=e2]\n- paragraph [ref=e3]: You can keep watching until December 31.\n- button \"Restart Membership\" [ref=e4]\n",
            ),
        ),
        (
            "42 KB page",
            snapshot(
                "big-snapshot.yml",
                "https://www.netflix.com/browse",
                "Big page",
            ),
        ),
    ]
}

fn time<R>(runs: usize, mut f: impl FnMut() -> R) -> Duration {
    let mut samples = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        std::hint::black_box(f());
        samples.push(started.elapsed());
    }
    median(samples)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let wasm = bundled_component("subterminator-plugin-netflix")
        .ok_or("the netflix plugin is not bundled")?;
    let toml = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../sdk/declarative/examples/netflix.toml"),
    )?;
    // Cold: compiled afresh each time, as on the very first run.
    let cold = PluginEngine::new()?;
    let rust_cold = time(LOAD_RUNS, || Plugin::load(&cold, "netflix", wasm).is_ok());
    let decl_cold = time(LOAD_RUNS, || {
        Plugin::load_declarative(&cold, "netflix.toml", &toml).is_ok()
    });
    // Warm: from the compiled-component cache, as on every later run.
    let cache_dir = tempfile::tempdir()?;
    let engine = PluginEngine::with_cache(ComponentCache::open(cache_dir.path())?)?;
    Plugin::load(&engine, "netflix", wasm)?;
    Plugin::load_declarative(&engine, "netflix.toml", &toml)?;
    let rust_load = time(LOAD_RUNS, || Plugin::load(&engine, "netflix", wasm).is_ok());
    let decl_load = time(LOAD_RUNS, || {
        Plugin::load_declarative(&engine, "netflix.toml", &toml).is_ok()
    });
    let mut rust = Plugin::load(&engine, "netflix", wasm)?;
    let mut decl = Plugin::load_declarative(&engine, "netflix.toml", &toml)?;

    println!(
        "declarative vs Rust predicates (netflix plugin {} bytes; interpreter {} bytes + {} byte service.toml)",
        wasm.len(),
        subterminator_core::plugin::INTERPRETER.len(),
        toml.len()
    );
    println!(
        "load, compiled afresh: rust {:.1} ms, declarative {:.1} ms",
        rust_cold.as_secs_f64() * 1e3,
        decl_cold.as_secs_f64() * 1e3
    );
    println!(
        "load from the component cache (instantiate + metadata + plan): rust {:.2} ms, declarative {:.2} ms",
        rust_load.as_secs_f64() * 1e3,
        decl_load.as_secs_f64() * 1e3
    );
    println!(
        "{:<20} {:<12} {:>10} {:>14}",
        "page", "call", "rust µs", "declarative µs"
    );
    for (name, page) in pages() {
        let runs = if page.content.len() > 20_000 {
            BIG_RUNS
        } else {
            CALL_RUNS
        };
        let target = page
            .elements
            .iter()
            .find(|e| e.role == "button")
            .cloned()
            .unwrap_or_else(|| Element {
                role: "button".into(),
                name: "Finish Cancellation".into(),
                ..Element::default()
            });
        let call = ToolCallView {
            action: "browser_click".into(),
            arguments: serde_json::json!({ "element": target.name, "ref": target.reference }),
            target: Some(target),
            facts: None,
        };
        let rows: [(&str, Duration, Duration); 3] = [
            (
                "verify",
                time(runs, || rust.verify(&page).is_ok()),
                time(runs, || decl.verify(&page).is_ok()),
            ),
            (
                "detect-auth",
                time(runs, || rust.detect_auth(&page).is_ok()),
                time(runs, || decl.detect_auth(&page).is_ok()),
            ),
            (
                "checkpoint",
                time(runs, || rust.checkpoint(&call, &page).is_ok()),
                time(runs, || decl.checkpoint(&call, &page).is_ok()),
            ),
        ];
        for (call_name, r, d) in rows {
            println!(
                "{:<20} {:<12} {:>10.1} {:>14.1}",
                name,
                call_name,
                r.as_secs_f64() * 1e6,
                d.as_secs_f64() * 1e6
            );
        }
    }
    Ok(())
}
