//! What the audit reads: the run's events in the order they were written,
//! with the page trees the browser server saved (`browser/page-<time>.yml`)
//! put among them by time. The trees hold what the model's compact view
//! leaves out (paragraphs, a radio's state) and are the same for both
//! toolsets.

use std::path::Path;

use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::record::chain::Link;
use crate::record::{TRANSCRIPT_FILE, integrity};

/// Where the run points the browser server's `--output-dir`
/// (`session::browser_options`): its saved trees are there.
pub const BROWSER_DIR: &str = "browser";
/// How the server names a saved tree: `page-2026-11-25T17-44-01-629Z.yml`.
const TREE_PREFIX: &str = "page-";
const TREE_SUFFIX: &str = ".yml";
const TREE_TIME_FORMAT: &str = "%Y-%m-%dT%H-%M-%S-%3fZ";
/// Trees read at most: a run is capped at far fewer turns, and a page that
/// made the server save thousands must not make `runs show` read them all.
const MAX_TREES: usize = 1_000;
/// Bytes of one tree read at most; a longer one is cut (the audit reads
/// controls and headings, which sit in the first screens of any page).
const MAX_TREE_BYTES: usize = 1_000_000;

/// One thing the record holds, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Moment {
    /// A transcript event (its `event` object).
    Event(Value),
    /// A page's accessibility tree, in Playwright's YAML form.
    Tree(String),
}

/// A run's record as the audit reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordView {
    pub moments: Vec<Moment>,
}

impl RecordView {
    /// Reads the run in `dir`: its transcript, checked link by link, and
    /// the trees the browser server saved.
    pub fn read(dir: &Path) -> Result<RecordView> {
        let path = dir.join(TRANSCRIPT_FILE);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::io("cannot read the transcript", &path, e))?;
        let links = integrity::read_chain(&text)
            .map_err(|m| Error::Configuration(format!("cannot audit a broken record: {m}")))?;
        Ok(Self::from_links(&links, dir))
    }

    /// The view of `links` (a transcript already read) and the trees saved
    /// in `dir`.
    pub fn from_links(links: &[Link], dir: &Path) -> RecordView {
        let events = links.iter().map(|l| (time_of(&l.time), l.event.clone()));
        merge(events.collect(), saved_trees(&dir.join(BROWSER_DIR)))
    }
}

fn time_of(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// The time in a saved tree's file name.
pub(super) fn tree_time(name: &str) -> Option<DateTime<Utc>> {
    let stamp = name.strip_prefix(TREE_PREFIX)?.strip_suffix(TREE_SUFFIX)?;
    NaiveDateTime::parse_from_str(stamp, TREE_TIME_FORMAT)
        .ok()
        .map(|t| t.and_utc())
}

/// The saved trees in `folder`, oldest first; none when there is no folder
/// (an attached browser saves its own way).
fn saved_trees(folder: &Path) -> Vec<(DateTime<Utc>, String)> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut named: Vec<(DateTime<Utc>, std::path::PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let time = tree_time(&e.file_name().to_string_lossy())?;
            Some((time, e.path()))
        })
        .collect();
    named.sort();
    named.truncate(MAX_TREES);
    named
        .into_iter()
        .filter_map(|(time, path)| {
            let bytes = std::fs::read(&path)
                .map_err(|e| tracing::debug!("audit: cannot read {}: {e}", path.display()))
                .ok()?;
            let cut = &bytes[..bytes.len().min(MAX_TREE_BYTES)];
            Some((time, String::from_utf8_lossy(cut).into_owned()))
        })
        .collect()
}

/// Events in their own order, each tree before the first event written at
/// or after its time: the server saves a tree while the call runs, and the
/// host writes the call's result after it returns. An event with no time
/// keeps its place.
pub(super) fn merge(
    events: Vec<(Option<DateTime<Utc>>, Value)>,
    trees: Vec<(DateTime<Utc>, String)>,
) -> RecordView {
    let mut moments = Vec::with_capacity(events.len() + trees.len());
    let mut trees = trees.into_iter().peekable();
    for (time, event) in events {
        if let Some(time) = time {
            while let Some((_, tree)) = trees.next_if(|(t, _)| *t <= time) {
                moments.push(Moment::Tree(tree));
            }
        }
        moments.push(Moment::Event(event));
    }
    moments.extend(trees.map(|(_, tree)| Moment::Tree(tree)));
    RecordView { moments }
}
