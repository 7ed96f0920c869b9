//! The run record: one folder per run in the data directory, holding a JSONL
//! transcript of every event, the screenshots, and `result.json`.
//!
//! Nothing here ever sees an API key: events carry page text, tool calls and
//! answers, and the provider's key lives only inside the provider.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

pub const TRANSCRIPT_FILE: &str = "transcript.jsonl";
pub const RESULT_FILE: &str = "result.json";

#[derive(Debug)]
pub struct RunRecord {
    dir: PathBuf,
    transcript: BufWriter<File>,
    screenshots: u32,
}

impl RunRecord {
    /// Makes `runs/<time>-<service>-<id>/` and opens its transcript.
    pub fn create(runs: &Path, service: &str) -> Result<Self> {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        let short = uuid::Uuid::new_v4().simple().to_string();
        let dir = runs.join(format!("{stamp}-{service}-{}", &short[..8]));
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::io("cannot create the run folder", &dir, e))?;
        let path = dir.join(TRANSCRIPT_FILE);
        let file =
            File::create(&path).map_err(|e| Error::io("cannot create the transcript", &path, e))?;
        Ok(Self {
            dir,
            transcript: BufWriter::new(file),
            screenshots: 0,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A fresh path for the next screenshot.
    pub fn next_screenshot(&mut self) -> PathBuf {
        self.screenshots += 1;
        self.dir
            .join(format!("screenshot-{:03}.png", self.screenshots))
    }

    /// Appends one event as a JSON line with its time.
    pub fn append<E: Serialize>(&mut self, event: &E) -> Result<()> {
        let line = serde_json::json!({
            "time": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            "event": event,
        });
        let path = self.dir.join(TRANSCRIPT_FILE);
        writeln!(self.transcript, "{line}")
            .and_then(|()| self.transcript.flush())
            .map_err(|e| Error::io("cannot write the transcript", path, e))
    }

    /// Writes `result.json`.
    pub fn finish<R: Serialize>(&mut self, result: &R) -> Result<PathBuf> {
        let path = self.dir.join(RESULT_FILE);
        let text = serde_json::to_string_pretty(result)
            .map_err(|e| Error::Configuration(format!("cannot encode the result: {e}")))?;
        std::fs::write(&path, text).map_err(|e| Error::io("cannot write the result", &path, e))?;
        Ok(path)
    }
}
