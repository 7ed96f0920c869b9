//! Embeds every practice flow: the files of each `plugins/<id>/practice/`
//! folder that describes itself in a `flow.toml`, by the service's id, then
//! those of each `sites/<name>/` here (sites no plugin knows), so the
//! binary serves them with no files beside it. (StreamFlix, the practice
//! plugin's own site, has routes of its own in `site.rs`.)

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    if let Err(message) = run() {
        // One clear line; cargo shows a build script's stderr on failure.
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
    let plugins = manifest
        .parent()
        .and_then(Path::parent)
        .ok_or("the practice crate is not two folders below the workspace")?
        .join("plugins");
    let sites = manifest.join("sites");
    for watched in [&plugins, &sites] {
        println!("cargo:rerun-if-changed={}", watched.display());
    }
    let mut practice: Vec<(String, PathBuf)> = folders(&plugins)?
        .into_iter()
        .map(|(id, folder)| (id, folder.join("practice")))
        .collect();
    practice.extend(folders(&sites)?);
    let code = practice_flows(&practice)?;
    let out = PathBuf::from(env("OUT_DIR")?).join("practice.rs");
    std::fs::write(&out, code).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The folders under `dir`, by name, sorted.
fn folders(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut folders = Vec::new();
    for path in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("{} is not a UTF-8 name", path.display()))?
            .to_owned();
        folders.push((name, path));
    }
    folders.sort();
    Ok(folders)
}

/// `PRACTICE_FLOWS`: each folder with a `flow.toml`, and its files by name.
fn practice_flows(folders: &[(String, PathBuf)]) -> Result<String, String> {
    let mut code = String::from("pub static PRACTICE_FLOWS: &[EmbeddedFlow] = &[\n");
    for (id, practice) in folders {
        if !practice.join("flow.toml").is_file() {
            continue;
        }
        let entries = std::fs::read_dir(practice)
            .map_err(|e| format!("cannot list {}: {e}", practice.display()))?;
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        writeln!(code, "    EmbeddedFlow {{ service: {id:?}, files: &[")
            .map_err(|e| e.to_string())?;
        for file in files {
            let name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            writeln!(
                code,
                "        ({name:?}, include_str!({:?})),",
                file.display().to_string()
            )
            .map_err(|e| e.to_string())?;
        }
        code.push_str("    ] },\n");
    }
    code.push_str("];\n");
    Ok(code)
}

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}
