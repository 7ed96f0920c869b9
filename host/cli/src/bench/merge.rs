//! `subterminator bench merge`: the run records of several shards (their
//! `--json` output) or `bench serve` folders (their `records.jsonl`)
//! joined into one scorecard and report.

use std::path::PathBuf;

use clap::Args;

use subterminator_bench::RunRecord;
use subterminator_bench::serve::kept;
use subterminator_core::error::{Error, Result};

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Files of run records, one JSON object per line (a shard's `--json`
    /// output, a serve folder's records.jsonl); a folder means its
    /// records.jsonl.
    #[arg(required = true, value_name = "FILE")]
    pub inputs: Vec<PathBuf>,

    /// Where the merged records.jsonl, scorecard.json and report.html go.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub fn run(args: &MergeArgs, json: bool) -> Result<u8> {
    let mut records: Vec<RunRecord> = Vec::new();
    for input in &args.inputs {
        let path = if input.is_dir() {
            input.join(kept::RECORDS)
        } else {
            input.clone()
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::io("cannot read run records", &path, e))?;
        let read = kept::read_records(&text).map_err(|e| {
            Error::Configuration(format!(
                "{}: not run records ({e}); give a shard's --json output or a serve folder",
                path.display()
            ))
        })?;
        records.extend(read);
    }
    let twice = repeated(&records);
    if twice > 0 {
        anstream::eprintln!(
            "{twice} runs appear more than once (same flow, pass and agent, no served run id): check that no shard was given twice"
        );
    }
    let card = subterminator_bench::scorecard(&records);
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out).map_err(|e| Error::io("cannot make the folder", out, e))?;
        let lines: String = records
            .iter()
            .filter_map(|r| serde_json::to_string(r).ok())
            .map(|l| l + "\n")
            .collect();
        let scorecard = serde_json::to_string_pretty(&card)
            .map_err(|e| Error::Configuration(format!("the scorecard: {e}")))?;
        for (name, body) in [
            (kept::RECORDS, lines),
            (kept::SCORECARD, scorecard),
            (kept::REPORT, subterminator_bench::report::html(&records)),
        ] {
            let path = out.join(name);
            std::fs::write(&path, body).map_err(|e| Error::io("cannot write", &path, e))?;
        }
    }
    if json {
        anstream::println!("{}", serde_json::to_string(&card).unwrap_or_default());
    } else {
        for row in card.rows() {
            anstream::println!("{}", row.join("\t"));
        }
        if let Some(out) = &args.out {
            anstream::println!("\nMerged {} runs into {}", records.len(), out.display());
        }
    }
    Ok(0)
}

/// Records of the same (flow, pass, agent) beyond the first, among those
/// no served run id tells apart.
fn repeated(records: &[RunRecord]) -> usize {
    let mut seen = std::collections::HashSet::new();
    records
        .iter()
        .filter(|r| r.run.is_none())
        .filter(|r| !seen.insert((r.flow.id.clone(), r.pass, r.driver.clone())))
        .count()
}
