//! What proof costs: appending one chained transcript line, checking a
//! whole record (`runs verify`), masking secrets as a snapshot is read,
//! and signing: opening the key, sealing a receipt file and checking one
//! alone (issue 45). Prints medians.
//!
//! Run: `cargo bench -p subterminator-core --bench record`

use std::path::Path;
use std::time::{Duration, Instant};

use subterminator_core::receipt::seal;
use subterminator_core::record::{RunRecord, integrity};
use subterminator_core::signing::Keyring;

const APPEND_RUNS: usize = 2_000;
const VERIFY_RUNS: usize = 20;
const MASK_RUNS: usize = 500;
const SIGN_RUNS: usize = 50;
/// A receipt.html as a run writes it: two screenshots inline.
const RECEIPT_BYTES: usize = 130_000;
/// Lines and files of the record `runs verify` checks: a long run.
const RECORD_LINES: usize = 200;
const RECORD_FILES: usize = 8;
const FILE_BYTES: usize = 100_000;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = tempfile::tempdir()?;
    let page = "- button \"Cancel Membership\" [ref=e12]\n".repeat(80);
    let event = serde_json::json!({"type": "tool_result", "turn": 3, "tool": "browser_click",
        "ok": true, "url": "https://www.netflix.com/account", "elapsed_ms": 120, "page": page});
    let event_chars = event.to_string().len();

    let mut record = RunRecord::create(root.path(), "bench")?;
    let mut appends = Vec::with_capacity(APPEND_RUNS);
    for _ in 0..APPEND_RUNS {
        let started = Instant::now();
        record.append(&event)?;
        appends.push(started.elapsed());
    }
    println!(
        "append one chained line ({event_chars} chars, hashed and flushed): median {:?}",
        median(appends)
    );

    let mut long = RunRecord::create(root.path(), "long")?;
    for _ in 0..RECORD_LINES {
        long.append(&event)?;
    }
    for n in 0..RECORD_FILES {
        std::fs::write(
            long.dir().join(format!("shot-{n}.png")),
            vec![7u8; FILE_BYTES],
        )?;
    }
    let result = serde_json::json!({"success": true, "turns": 9});
    long.append(&serde_json::json!({"type": "finished", "result": result}))?;
    let started = Instant::now();
    long.finish(&result)?;
    println!(
        "seal ({RECORD_FILES} files of {} KB hashed) and write result.json: {:?}",
        FILE_BYTES / 1000,
        started.elapsed()
    );
    let dir = long.dir().to_path_buf();
    let mut checks = Vec::with_capacity(VERIFY_RUNS);
    for _ in 0..VERIFY_RUNS {
        let started = Instant::now();
        integrity::verify(&dir)?;
        checks.push(started.elapsed());
    }
    println!(
        "runs verify ({} lines, {RECORD_FILES} files): median {:?}",
        RECORD_LINES + 2,
        median(checks)
    );

    signing(root.path(), &dir)?;

    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/playwright-mcp-0.0.83/snapshots");
    for name in ["big-snapshot.yml", "page-2026-11-22T06-15-50-289Z.yml"] {
        let Ok(tree) = std::fs::read_to_string(fixtures.join(name)) else {
            println!("{name}: not found, skipped");
            continue;
        };
        let masks: Vec<Duration> = (0..MASK_RUNS)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(subterminator_core::page::mask::tree(&tree, &[]));
                started.elapsed()
            })
            .collect();
        println!(
            "mask a snapshot as it is read ({name}, {} KB): median {:?}",
            tree.len() / 1000,
            median(masks)
        );
    }
    Ok(())
}

/// What signing adds to a run: the key opened once, each receipt sealed,
/// and what `runs verify receipt.html` costs.
fn signing(root: &Path, record_dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let config = root.join("config");
    Keyring::open_or_create(&config)?;
    let opens: Vec<Duration> = (0..SIGN_RUNS)
        .map(|_| {
            let started = Instant::now();
            let keys = Keyring::open_or_create(&config);
            std::hint::black_box(keys.is_ok());
            started.elapsed()
        })
        .collect();
    println!("open the signing key: median {:?}", median(opens));
    let keys = Keyring::open_or_create(&config)?;
    let record = std::fs::read_to_string(record_dir.join("transcript.jsonl"))?;
    let statement = keys
        .current
        .statement("bench", "bench", &"ab".repeat(32), 202);
    let body = format!("<html>{}</html>\n", "x".repeat(RECEIPT_BYTES));
    let mut sealed = Vec::new();
    let seals: Vec<Duration> = (0..SIGN_RUNS)
        .map(|_| {
            let started = Instant::now();
            sealed = seal::seal(
                body.clone().into_bytes(),
                &record,
                &statement,
                &keys.current,
            );
            started.elapsed()
        })
        .collect();
    println!(
        "seal a {} KB receipt carrying a {} KB record: median {:?}",
        RECEIPT_BYTES / 1000,
        record.len() / 1000,
        median(seals)
    );
    let opened: Vec<Duration> = (0..SIGN_RUNS)
        .map(|_| {
            let started = Instant::now();
            std::hint::black_box(seal::open(&sealed).is_err());
            started.elapsed()
        })
        .collect();
    println!(
        "check that receipt alone (seal, bytes, carried chain): median {:?}",
        median(opened)
    );
    Ok(())
}
