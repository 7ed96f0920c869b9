//! The run record: one folder per run in the data directory, holding a
//! hash-chained JSONL transcript of every event (`chain.rs`), the
//! screenshots and saved pages, and `result.json` with the chain's head.
//! `verify.rs` checks a record; `runs.rs` lists and prunes them.
//!
//! Nothing here ever sees an API key: events carry page text, tool calls and
//! answers, and the provider's key lives only inside the provider. Password
//! fields' values are masked when a snapshot is read (`page::mask`), and
//! the model may not type into one, so no event carries a password.

pub mod chain;
pub mod integrity;
pub mod runs;

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub const TRANSCRIPT_FILE: &str = "transcript.jsonl";
pub const RESULT_FILE: &str = "result.json";
/// The key in `result.json` that ties it to the transcript.
pub const RESULT_RECORD_KEY: &str = "record";
/// The `type` of the transcript's last line: every file of the run, hashed.
pub const SEALED_EVENT: &str = "record_sealed";
/// The signer's statement of the sealed record's head, written after it.
pub const SIGNATURE_FILE: &str = "record.sig";

/// A file of the run with its hash, as the sealing line lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative to the run folder, with `/` between parts.
    pub path: String,
    pub sha256: String,
    pub bytes: u64,
}

/// What `result.json` says of the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    /// The last line's hash.
    pub head: String,
    pub lines: u64,
}

#[derive(Debug)]
pub struct RunRecord {
    dir: PathBuf,
    transcript: BufWriter<File>,
    screenshots: u32,
    head: String,
    lines: u64,
    /// Password values the page held; kept in memory only, to mask the
    /// browser server's own snapshot files before the record is sealed.
    secrets: Vec<String>,
    /// Signs the sealed head (`record.sig`); none when this machine has no
    /// key to sign with.
    signer: Option<std::sync::Arc<crate::signing::Signer>>,
    service: String,
}

impl RunRecord {
    /// Makes `runs/<time>-<service>-<id>/` and opens its transcript.
    pub fn create(runs: &Path, service: &str) -> Result<Self> {
        let stamp = chrono::Utc::now().format(runs::STAMP_FORMAT);
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
            head: chain::GENESIS.to_owned(),
            lines: 0,
            secrets: Vec::new(),
            signer: None,
            service: service.to_owned(),
        })
    }

    /// `signer` signs the record's head when it is sealed.
    pub fn sign_with(&mut self, signer: std::sync::Arc<crate::signing::Signer>) {
        self.signer = Some(signer);
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The hash of the last line written: what a receipt quotes.
    pub fn head(&self) -> &str {
        &self.head
    }

    /// A fresh path for the next screenshot.
    pub fn next_screenshot(&mut self) -> PathBuf {
        self.screenshots += 1;
        self.dir
            .join(format!("screenshot-{:03}.png", self.screenshots))
    }

    /// A password the page held: masked in the saved snapshot files at
    /// [`RunRecord::finish`]. Never written anywhere itself.
    pub fn add_secret(&mut self, secret: &str) {
        if !secret.is_empty() && !self.secrets.iter().any(|s| s == secret) {
            self.secrets.push(secret.to_owned());
        }
    }

    /// Appends one event as a chained JSON line with its time.
    pub fn append<E: Serialize>(&mut self, event: &E) -> Result<()> {
        let path = self.dir.join(TRANSCRIPT_FILE);
        let value = serde_json::to_value(event)
            .map_err(|e| Error::Configuration(format!("cannot encode an event: {e}")))?;
        let time = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let (line, hash) = chain::seal(&self.head, self.lines + 1, &time, &value);
        writeln!(self.transcript, "{line}")
            .and_then(|()| self.transcript.flush())
            .map_err(|e| Error::io("cannot write the transcript", path, e))?;
        self.head = hash;
        self.lines += 1;
        Ok(())
    }

    /// Lists every file of the run with its hash as the transcript's last
    /// line, then writes `result.json` with the chain's head.
    pub fn finish<R: Serialize>(&mut self, result: &R) -> Result<PathBuf> {
        if !self.secrets.is_empty() {
            mask_saved_snapshots(&self.dir, &self.secrets)?;
        }
        let files = list_files(&self.dir)?;
        self.append(&serde_json::json!({ "type": SEALED_EVENT, "files": files }))?;
        let path = self.dir.join(RESULT_FILE);
        let mut value = serde_json::to_value(result)
            .map_err(|e| Error::Configuration(format!("cannot encode the result: {e}")))?;
        if let Some(map) = value.as_object_mut() {
            let head = ChainHead {
                head: self.head.clone(),
                lines: self.lines,
            };
            map.insert(
                RESULT_RECORD_KEY.to_owned(),
                serde_json::to_value(head).unwrap_or_default(),
            );
        }
        std::fs::write(&path, result_text(&value))
            .map_err(|e| Error::io("cannot write the result", &path, e))?;
        if let Some(signer) = &self.signer {
            let run = self
                .dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let signed = signer.sign(signer.statement(&run, &self.service, &self.head, self.lines));
            let sig = self.dir.join(SIGNATURE_FILE);
            std::fs::write(&sig, signed.text())
                .map_err(|e| Error::io("cannot write the record's signature", &sig, e))?;
        }
        Ok(path)
    }
}

/// `result.json` exactly as written, so a check can tell any changed byte.
pub fn result_text(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// The browser server's snapshot files (`*.yml`) with `secrets` masked.
fn mask_saved_snapshots(dir: &Path, secrets: &[String]) -> Result<()> {
    for entry in list_files(dir)? {
        if !entry.path.ends_with(".yml") {
            continue;
        }
        let path = dir.join(&entry.path);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::io("cannot read a saved snapshot", &path, e))?;
        let masked = crate::page::mask::tree(&text, secrets);
        if masked != text {
            std::fs::write(&path, masked)
                .map_err(|e| Error::io("cannot mask a saved snapshot", &path, e))?;
        }
    }
    Ok(())
}

/// Every file under `dir` but the transcript, the result and the
/// signature (each checked its own way), sorted, hashed.
pub fn list_files(dir: &Path) -> Result<Vec<FileEntry>> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries = std::fs::read_dir(&folder)
            .map_err(|e| Error::io("cannot list the run folder", &folder, e))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| Error::io("cannot read a run file", &path, e))?;
            if kind.is_dir() {
                pending.push(path);
            } else if kind.is_file() {
                let relative = path.strip_prefix(dir).unwrap_or(&path);
                let name = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                if name != TRANSCRIPT_FILE && name != RESULT_FILE && name != SIGNATURE_FILE {
                    found.push((name, path));
                }
            }
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|(name, path)| {
            let bytes =
                std::fs::read(&path).map_err(|e| Error::io("cannot read a run file", &path, e))?;
            Ok(FileEntry {
                path: name,
                sha256: chain::sha256_hex(&bytes),
                bytes: bytes.len() as u64,
            })
        })
        .collect()
}
