//! `plugin new <id> --from-run <run>`: a declarative plugin drafted from a
//! verified run's record, with fixtures from the pages it saved, written
//! only once it passes the same checks as `plugin test`.
//!
//! The draft is built whole in memory, parsed by the format's own parser,
//! written to a hidden folder beside the target and tested there; only a
//! draft that passes is moved into place. A failing one leaves nothing
//! behind, and says which check it failed.

mod fixtures;
mod scrub;
mod service_file;
mod walk;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use subterminator_core::error::{Error, Result};
use subterminator_core::fixture::CheckRow;
use subterminator_core::paths::Dirs;
use subterminator_core::record::runs;

use super::source::SERVICE_FILE;
pub(crate) use walk::Walk;

/// Why a run cannot be drafted from.
#[derive(Debug, thiserror::Error)]
pub enum DraftError {
    /// The record lacks or contradicts what a draft needs.
    #[error("{0}")]
    Record(String),
}

/// What `plugin new --from-run` was given.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub id: &'a str,
    /// A run id, part of one, `last`, or a run folder.
    pub run: &'a str,
    pub dir: PathBuf,
    /// `--descriptor`: how the charges read on a statement.
    pub descriptors: &'a [String],
    /// Replace the folder if it exists.
    pub force: bool,
}

/// What was drafted, for the person.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Drafted {
    pub id: String,
    pub run: String,
    pub dir: PathBuf,
    pub files: Vec<PathBuf>,
    pub steps: usize,
    pub fixtures: usize,
    pub checks: usize,
    /// Steps whose text the author must write (fills).
    pub placeholders: usize,
    pub commit_request: bool,
}

/// Drafts, checks and writes the plugin; nothing is written unless every
/// check passes.
pub async fn run(request: Request<'_>, dirs: &Dirs) -> Result<Drafted> {
    check_target(&request.dir, request.force)?;
    let found = runs::find(&dirs.runs(), request.run)?;
    if !found.verified_success() {
        return Err(Error::Configuration(format!(
            "run {} ended {}{}: a plugin is drafted only from a verified cancellation",
            found.id,
            found.outcome,
            if found.success { " (not verified)" } else { "" }
        )));
    }
    let walk = Walk::read(&found.dir).map_err(|e| refused(&found.id, &e.to_string()))?;
    let descriptors = descriptors(request.descriptors, &walk.billing_descriptors);
    let files = draft(&walk, request.id, &found.id, &descriptors)
        .map_err(|e| refused(&found.id, &e.to_string()))?;
    let dirs = dirs.clone();
    let target = request.dir.clone();
    let force = request.force;
    let written = files.clone();
    let rows = tokio::task::spawn_blocking(move || write_checked(&dirs, &target, &written, force))
        .await
        .map_err(|e| {
            Error::Configuration(format!(
                "drafting the plugin failed: {e}; this is a bug in subterminator: please report it"
            ))
        })??;
    let steps = service_file::plan_steps(&walk);
    Ok(Drafted {
        id: request.id.to_owned(),
        run: found.id,
        dir: request.dir,
        fixtures: files.len().saturating_sub(1) / 2,
        files: files.into_iter().map(|(path, _)| path).collect(),
        placeholders: steps
            .iter()
            .filter(|s| s.action == walk::Action::Fill)
            .count(),
        steps: steps.len(),
        checks: rows.len(),
        commit_request: walk.commit.is_some(),
    })
}

/// The drafted files: `service.toml`, then the fixtures; the service file
/// already parsed by the format's own parser.
pub(crate) fn draft(
    walk: &Walk,
    id: &str,
    run_id: &str,
    descriptors: &[String],
) -> Result<Vec<(PathBuf, String)>, DraftError> {
    let text = service_file::render(walk, id, run_id, descriptors)?;
    subterminator_declarative::parse(&text).map_err(|e| {
        DraftError::Record(format!(
            "the drafted {SERVICE_FILE} does not pass its own checks: {e}"
        ))
    })?;
    let mut files = vec![(PathBuf::from(SERVICE_FILE), text)];
    files.extend(fixtures::render(walk));
    Ok(files)
}

/// `--descriptor` flags first, then the record's own, each once.
fn descriptors(given: &[String], recorded: &[String]) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for descriptor in given.iter().chain(recorded) {
        let descriptor = descriptor.trim();
        if !descriptor.is_empty() && !all.iter().any(|d| d == descriptor) {
            all.push(descriptor.to_owned());
        }
    }
    all
}

fn refused(run: &str, why: &str) -> Error {
    Error::Configuration(format!(
        "cannot draft a plugin from run {run}: {why}; nothing was written"
    ))
}

/// The folder must be new or empty, unless `--force` replaces it.
fn check_target(dir: &Path, force: bool) -> Result<()> {
    let occupied = std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some());
    if occupied && !force {
        return Err(Error::Configuration(format!(
            "{} is not empty: pass --force to replace it, or --dir for another folder",
            dir.display()
        )));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(Error::Configuration(format!(
            "{} exists and is not a folder; choose another with --dir",
            dir.display()
        )));
    }
    Ok(())
}

/// Writes `files` into a hidden folder beside `target`, runs `plugin
/// test`'s checks on it, and moves it into place only if all pass.
pub(crate) fn write_checked(
    dirs: &Dirs,
    target: &Path,
    files: &[(PathBuf, String)],
    force: bool,
) -> Result<Vec<CheckRow>> {
    let absolute = std::path::absolute(target)
        .map_err(|e| Error::io("cannot resolve the folder", target, e))?;
    let parent = absolute.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .map_err(|e| Error::io("cannot create the folder", parent, e))?;
    let staging = tempfile::Builder::new()
        .prefix(".subterminator-draft-")
        .tempdir_in(parent)
        .map_err(|e| Error::io("cannot create a folder for the draft", parent, e))?;
    for (relative, contents) in files {
        let path = staging.path().join(relative);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder)
                .map_err(|e| Error::io("cannot create the folder", folder, e))?;
        }
        std::fs::write(&path, contents).map_err(|e| Error::io("cannot write", &path, e))?;
    }
    let (rows, _) = super::test::check(dirs, staging.path(), true)?;
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| !r.pass)
        .map(|r| {
            format!(
                "{} {}: expected {}, got {}",
                r.fixture, r.check, r.expected, r.got
            )
        })
        .collect();
    if !failed.is_empty() {
        return Err(Error::Configuration(format!(
            "the draft fails `plugin test` ({}); nothing was written",
            failed.join("; ")
        )));
    }
    if force && absolute.exists() {
        std::fs::remove_dir_all(&absolute)
            .map_err(|e| Error::io("cannot replace the folder", &absolute, e))?;
    } else if absolute.is_dir() {
        // Empty (checked before drafting): rename needs it gone.
        std::fs::remove_dir(&absolute)
            .map_err(|e| Error::io("cannot replace the empty folder", &absolute, e))?;
    }
    let kept = staging.keep();
    std::fs::rename(&kept, &absolute).map_err(|e| {
        // Nothing half-written is left behind.
        let _ = std::fs::remove_dir_all(&kept);
        Error::io("cannot move the draft into place", &absolute, e)
    })?;
    Ok(rows)
}
