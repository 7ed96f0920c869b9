//! `subterminator manpage DIR`: the man pages (`subterminator.1` and one per
//! command, `subterminator-cancel.1` …), made by clap_mangen from the very
//! command definitions this binary parses its arguments with. The packaging
//! script runs it on the binary it packages, so a package's pages describe
//! that binary's flags and no other's, and no second program is built for
//! them. Hidden from `--help`: it is for packagers.

use std::path::{Path, PathBuf};

use clap::CommandFactory;

use subterminator_core::error::{Error, Result};

/// Writes every page into `dir` (made if missing) and returns their paths.
pub fn write(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io("cannot make the folder", dir, e))?;
    clap_mangen::generate_to(super::Cli::command(), dir)
        .map_err(|e| Error::io("cannot write the man pages", dir, e))?;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io("cannot list the man pages", dir, e))?
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "1"))
        .collect();
    pages.sort();
    Ok(pages)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_page_for_the_command_and_each_visible_subcommand() {
        let dir = tempfile::tempdir().unwrap();
        let pages = write(dir.path()).unwrap();
        let names: Vec<String> = pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for page in [
            "subterminator.1",
            "subterminator-cancel.1",
            "subterminator-mcp.1",
        ] {
            assert!(names.contains(&page.to_owned()), "{names:?}");
        }
        assert!(
            !names.iter().any(|n| n.contains("manpage")),
            "hidden: {names:?}"
        );
        let top = std::fs::read_to_string(dir.path().join("subterminator.1")).unwrap();
        assert!(
            top.starts_with(".ie \\n(.g .ds Aq") || top.contains(".TH"),
            "{top}"
        );
        assert!(top.contains("Cancel subscriptions"), "{top}");
        let mcp = std::fs::read_to_string(dir.path().join("subterminator-mcp.1")).unwrap();
        assert!(mcp.contains("token\\-file"), "{mcp}");
    }
}
