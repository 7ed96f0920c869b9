//! Past runs in the data directory: listing, finding one by name, and
//! choosing which to prune. The folder name (`<UTC time>-<service>-<id>`)
//! carries when and what; `result.json` and the transcript's first line
//! carry the rest.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use super::{RESULT_FILE, TRANSCRIPT_FILE};
use crate::error::{Error, Result};

/// The UTC time at the front of a run folder's name.
pub const STAMP_FORMAT: &str = "%Y%m%dT%H%M%SZ";
/// Characters of that time.
const STAMP_CHARS: usize = 16;
/// The receipt a verified success has.
pub const RECEIPT_HTML: &str = "receipt.html";

/// One past run, as `runs` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunSummary {
    /// The folder's name: what `runs show` and `runs verify` take.
    pub id: String,
    pub dir: PathBuf,
    pub started: DateTime<Utc>,
    pub service: String,
    /// e.g. `completed`, `human_rejected`; `unfinished` when the run left
    /// no result (killed, or still going).
    pub outcome: String,
    pub success: bool,
    pub verified: bool,
    pub turns: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    pub model: Option<String>,
    /// The receipt's path, for a verified success.
    pub receipt: Option<PathBuf>,
    /// When the run ended: the time of the transcript's last `finished`
    /// event. `None` for a run that has none (killed, or still going).
    pub ended: Option<DateTime<Utc>>,
}

impl RunSummary {
    pub fn verified_success(&self) -> bool {
        self.success && self.verified
    }

    /// Reads one run folder; `None` for a folder that is not a run.
    pub fn read(dir: &Path) -> Option<Self> {
        let id = dir.file_name()?.to_str()?.to_owned();
        let (started, service) = parse_name(&id)?;
        if !dir.join(TRANSCRIPT_FILE).is_file() {
            return None;
        }
        let result: Option<Value> = std::fs::read_to_string(dir.join(RESULT_FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let number = |v: Option<&Value>, key: &str| {
            v.and_then(|v| v.get(key))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let flag = |key: &str| {
            result
                .as_ref()
                .and_then(|r| r.get(key))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let usage = result.as_ref().and_then(|r| r.get("usage"));
        let transcript = std::fs::read_to_string(dir.join(TRANSCRIPT_FILE)).ok();
        let receipt = dir.join(RECEIPT_HTML);
        Some(Self {
            outcome: result
                .as_ref()
                .and_then(|r| r.get("reason"))
                .and_then(Value::as_str)
                .unwrap_or("unfinished")
                .to_owned(),
            success: flag("success"),
            verified: flag("verified"),
            turns: number(result.as_ref(), "turns"),
            input_tokens: number(usage, "input"),
            output_tokens: number(usage, "output"),
            cost_usd: result
                .as_ref()
                .and_then(|r| r.get("cost_usd"))
                .and_then(Value::as_f64),
            model: transcript
                .as_deref()
                .and_then(first_event)
                .and_then(|e| e.get("model").and_then(Value::as_str).map(str::to_owned)),
            ended: transcript.as_deref().and_then(finished_at),
            receipt: receipt.is_file().then_some(receipt),
            id,
            dir: dir.to_path_buf(),
            started,
            service,
        })
    }
}

/// `20261123T101500Z-disney-plus-1a2b3c4d` → its time and `disney-plus`.
pub fn parse_name(name: &str) -> Option<(DateTime<Utc>, String)> {
    let stamp = name.get(..STAMP_CHARS)?;
    let started = NaiveDateTime::parse_from_str(stamp, STAMP_FORMAT)
        .ok()?
        .and_utc();
    let rest = name.get(STAMP_CHARS..)?.strip_prefix('-')?;
    let (service, short) = rest.rsplit_once('-')?;
    (!service.is_empty() && !short.is_empty()).then(|| (started, service.to_owned()))
}

/// The transcript's first event (`run_started`), read without checking.
fn first_event(transcript: &str) -> Option<Value> {
    let line: Value = serde_json::from_str(transcript.lines().next()?).ok()?;
    line.get("event").cloned()
}

/// The time of the transcript's last `finished` event, read without
/// checking. Searched from the end, where it is (only the seal follows
/// it), and only lines that name it are parsed: a transcript holds pages.
fn finished_at(transcript: &str) -> Option<DateTime<Utc>> {
    transcript
        .lines()
        .rev()
        .filter(|line| line.contains("\"finished\""))
        .find_map(|line| {
            let line: Value = serde_json::from_str(line).ok()?;
            let kind = line.get("event")?.get("type")?.as_str()?;
            let time = line.get("time")?.as_str()?;
            (kind == "finished")
                .then(|| DateTime::parse_from_rfc3339(time).ok())
                .flatten()
                .map(|t| t.with_timezone(&Utc))
        })
}

/// Every run under `runs`, newest first. No folder yet is no runs.
pub fn list(runs: &Path) -> Result<Vec<RunSummary>> {
    let entries = match std::fs::read_dir(runs) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io("cannot list the runs", runs, e)),
    };
    let mut found: Vec<RunSummary> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| RunSummary::read(&e.path()))
        .collect();
    found.sort_by(|a, b| b.started.cmp(&a.started).then_with(|| b.id.cmp(&a.id)));
    Ok(found)
}

/// The run `wanted` names: `last`, a folder path, its whole name, or a
/// part of its name that only one run has.
pub fn find(runs: &Path, wanted: &str) -> Result<RunSummary> {
    let as_path = Path::new(wanted);
    if as_path.components().count() > 1 && as_path.is_dir() {
        return RunSummary::read(as_path).ok_or_else(|| {
            Error::Configuration(format!(
                "{wanted} is not a run folder (it has no {TRANSCRIPT_FILE} or its name is not <time>-<service>-<id>)"
            ))
        });
    }
    let all = list(runs)?;
    if matches!(wanted, "last" | "latest") {
        return all.into_iter().next().ok_or_else(|| no_runs(runs));
    }
    if let Some(run) = all.iter().find(|r| r.id == wanted) {
        return Ok(run.clone());
    }
    let matching: Vec<&RunSummary> = all.iter().filter(|r| r.id.contains(wanted)).collect();
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        [] if all.is_empty() => Err(no_runs(runs)),
        [] => Err(Error::Configuration(format!(
            "no run is named like {wanted:?}; `subterminator runs` lists them (e.g. {})",
            all[0].id
        ))),
        many => Err(Error::Configuration(format!(
            "{} runs are named like {wanted:?} ({}); give more of the name",
            many.len(),
            many.iter()
                .take(3)
                .map(|r| r.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

fn no_runs(runs: &Path) -> Error {
    Error::Configuration(format!(
        "there are no runs in {} yet; `subterminator demo` makes one",
        runs.display()
    ))
}

/// What `runs prune` would do.
#[derive(Debug, Default)]
pub struct Prune {
    pub delete: Vec<RunSummary>,
    /// Old enough, but each its service's last verified cancellation.
    pub kept: Vec<RunSummary>,
}

/// Runs started before `cutoff`; without `force`, each service's newest
/// verified success stays, as the proof that service was cancelled.
pub fn plan_prune(runs: &[RunSummary], cutoff: DateTime<Utc>, force: bool) -> Prune {
    let mut proof: Vec<&str> = Vec::new();
    let mut plan = Prune::default();
    // Newest first, so the first verified success of a service is its last.
    for run in runs {
        let last_proof = run.verified_success() && !proof.contains(&run.service.as_str());
        if last_proof {
            proof.push(&run.service);
        }
        if run.started >= cutoff {
            continue;
        }
        if last_proof && !force {
            plan.kept.push(run.clone());
        } else {
            plan.delete.push(run.clone());
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn run(id: &str, success: bool) -> RunSummary {
        let (started, service) = parse_name(id).unwrap();
        RunSummary {
            id: id.into(),
            dir: PathBuf::from(id),
            started,
            service,
            outcome: if success {
                "completed"
            } else {
                "human_rejected"
            }
            .into(),
            success,
            verified: success,
            turns: 3,
            input_tokens: 0,
            output_tokens: 0,
            cost_usd: None,
            model: None,
            receipt: None,
            ended: None,
        }
    }

    #[test]
    fn names_give_their_time_and_service() {
        let cases = [
            ("20261123T101500Z-netflix-1a2b3c4d", Some("netflix")),
            ("20261123T101500Z-disney-plus-1a2b3c4d", Some("disney-plus")),
            ("20261123T101500Z-netflix", None),
            ("notes", None),
            ("2026112XT101500Z-netflix-1a2b3c4d", None),
        ];
        for (name, service) in cases {
            assert_eq!(
                parse_name(name).map(|(_, s)| s).as_deref(),
                service,
                "{name}"
            );
        }
    }

    /// The end is the last `finished` event's time, as the record writer
    /// stamps it; a run with none (killed) has no end.
    #[test]
    fn a_run_ends_at_its_last_finished_event() {
        let root = tempfile::tempdir().unwrap();
        let write = |events: &[Value]| {
            let mut record = super::super::RunRecord::create(root.path(), "netflix").unwrap();
            for event in events {
                record.append(event).unwrap();
            }
            record.dir().to_path_buf()
        };
        let started = serde_json::json!({"type": "run_started", "model": "m"});
        let finished = serde_json::json!({"type": "finished", "result": {"success": true}});
        // Names the word as a key, but is no `finished` event.
        let page = serde_json::json!({"type": "page", "finished": "the text"});
        let before = Utc::now();
        let killed = write(&[started.clone(), page.clone()]);
        let done = write(&[started.clone(), finished.clone(), page]);
        let twice = write(&[started, finished.clone(), finished]);
        let after = Utc::now();
        let ends = |dir: &Path| {
            let text = std::fs::read_to_string(dir.join(TRANSCRIPT_FILE)).unwrap();
            let times: Vec<DateTime<Utc>> = text
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()["time"].clone())
                .map(|t| {
                    DateTime::parse_from_rfc3339(t.as_str().unwrap())
                        .unwrap()
                        .into()
                })
                .collect();
            (RunSummary::read(dir).unwrap().ended, times)
        };
        assert_eq!(ends(&killed).0, None);
        let (ended, times) = ends(&done);
        assert_eq!(ended, Some(times[1]));
        // The transcript's times are in milliseconds.
        let millis = |t: DateTime<Utc>| t.timestamp_millis();
        assert!(ended.is_some_and(|t| millis(before) <= millis(t) && millis(t) <= millis(after)));
        let (ended, times) = ends(&twice);
        assert_eq!(ended, Some(times[2]));
        // The model still comes from the first line.
        assert_eq!(RunSummary::read(&done).unwrap().model.as_deref(), Some("m"));
    }

    #[test]
    fn prune_keeps_each_services_last_proof_unless_forced() {
        let runs = [
            run("20261120T000000Z-netflix-00000004", false),
            run("20261001T000000Z-netflix-00000003", true),
            run("20260901T000000Z-netflix-00000002", true),
            run("20260801T000000Z-spotify-00000001", false),
        ];
        let cutoff = parse_name("20261101T000000Z-x-0").unwrap().0;
        let ids = |v: &[RunSummary]| v.iter().map(|r| r.id[17..].to_owned()).collect::<Vec<_>>();
        let plan = plan_prune(&runs, cutoff, false);
        assert_eq!(ids(&plan.kept), ["netflix-00000003"]);
        assert_eq!(ids(&plan.delete), ["netflix-00000002", "spotify-00000001"]);
        let forced = plan_prune(&runs, cutoff, true);
        assert!(forced.kept.is_empty());
        assert_eq!(forced.delete.len(), 3);
    }
}
