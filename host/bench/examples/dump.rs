//! Writes every flow (its metadata and truth) to `<folder>/flows.json`
//! and the words each service's plan steps use, per language, to
//! `plan-words.json`: `cargo run -p subterminator-bench --example
//! dump -- <folder>`.

use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "bench-dump".into()),
    );
    std::fs::create_dir_all(&out)?;
    let catalog = subterminator_bench::Catalog::load()?;
    std::fs::write(
        out.join("flows.json"),
        serde_json::to_string_pretty(catalog.flows())?,
    )?;
    std::fs::write(
        out.join("plan-words.json"),
        serde_json::to_string_pretty(&subterminator_bench::catalog::plan_words()?)?,
    )?;
    Ok(())
}
