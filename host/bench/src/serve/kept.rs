//! `bench serve --out DIR`: every finished run kept on disk, with the
//! scorecard and the HTML report of all of them, the same files
//! `subterminator bench` writes:
//!
//! ```text
//! DIR/records.jsonl          one run record per line, as runs end
//! DIR/scorecard.json         the scorecard of every record (schema/scorecard.schema.json)
//! DIR/report.html            the HTML report of every record
//! DIR/runs/<run>/record.json the run's record
//! DIR/runs/<run>/log.json    the site's request log
//! DIR/runs/<run>/claim.json  the agent's claim, as it was taken
//! ```
//!
//! A server started on a folder that holds records goes on from them: its
//! scorecard counts them and its run ids follow theirs, so nothing kept is
//! overwritten.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::log::LoggedRequest;
use crate::report::{self, RunRecord};
use crate::serve::ClaimBody;

pub const RECORDS: &str = "records.jsonl";
pub const SCORECARD: &str = "scorecard.json";
pub const REPORT: &str = "report.html";

/// The output folder.
#[derive(Debug, Clone)]
pub struct Kept {
    dir: PathBuf,
}

impl Kept {
    /// The folder at `dir`, made if missing.
    pub fn open(dir: PathBuf) -> Result<Kept> {
        std::fs::create_dir_all(dir.join("runs")).map_err(|e| {
            Error::io(
                "cannot make the output folder",
                dir.display().to_string(),
                e,
            )
        })?;
        Ok(Kept { dir })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The records the folder already holds, and the first run number
    /// after every run folder in it.
    pub fn earlier(&self) -> Result<(Vec<RunRecord>, u64)> {
        let path = self.dir.join(RECORDS);
        let records = match std::fs::read_to_string(&path) {
            Ok(text) => {
                read_records(&text).map_err(|e| Error::Data(format!("{}: {e}", path.display())))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => {
                return Err(Error::io(
                    "cannot read the kept records",
                    path.display().to_string(),
                    e,
                ));
            }
        };
        let runs = self.dir.join("runs");
        let entries = std::fs::read_dir(&runs)
            .map_err(|e| Error::io("cannot list the kept runs", runs.display().to_string(), e))?;
        let last = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                e.file_name()
                    .to_str()
                    .and_then(|n| n.strip_prefix('r'))
                    .and_then(|n| n.parse::<u64>().ok())
            })
            .max()
            .unwrap_or(0);
        Ok((records, last + 1))
    }

    /// Keeps one finished run, then writes the scorecard and report of
    /// `all` (this run among them).
    pub fn keep(
        &self,
        run: &str,
        record: &RunRecord,
        log: &[LoggedRequest],
        claim: Option<&ClaimBody>,
        all: &[RunRecord],
    ) -> Result<()> {
        let folder = self.dir.join("runs").join(run);
        std::fs::create_dir_all(&folder).map_err(|e| {
            Error::io(
                "cannot make a run's folder",
                folder.display().to_string(),
                e,
            )
        })?;
        write_json(&folder.join("record.json"), record)?;
        write_json(&folder.join("log.json"), &log)?;
        write_json(&folder.join("claim.json"), &claim)?;
        let line =
            serde_json::to_string(record).map_err(|e| Error::Data(format!("a run record: {e}")))?;
        let path = self.dir.join(RECORDS);
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .and_then(|mut f| writeln!(f, "{line}"))
            .map_err(|e| {
                Error::io(
                    "cannot add to the kept records",
                    path.display().to_string(),
                    e,
                )
            })?;
        write_json(&self.dir.join(SCORECARD), &report::scorecard(all))?;
        write_file(&self.dir.join(REPORT), report::html(all).as_bytes())
    }
}

/// Run records, one JSON object per line (blank lines skipped): what
/// `records.jsonl`, `subterminator bench --json` and a shard write.
pub fn read_records(text: &str) -> std::result::Result<Vec<RunRecord>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).map_err(|e| format!("line {}: {e}", i + 1)))
        .collect()
}

fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::Data(format!("{}: {e}", path.display())))?;
    write_file(path, text.as_bytes())
}

/// Written aside and renamed, so a reader never sees half a file.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let aside = path.with_extension("partial");
    std::fs::write(&aside, bytes)
        .and_then(|()| std::fs::rename(&aside, path))
        .map_err(|e| Error::io("cannot write", path.display().to_string(), e))
}
