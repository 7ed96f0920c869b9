//! Builds the first-party plugins under `plugins/` to wasm components and
//! embeds them, so a plain `cargo build` yields a binary that carries them.

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
    let workspace = manifest
        .parent()
        .ok_or("the host crate has no parent folder")?
        .to_path_buf();
    for watched in ["plugins", "sdk/src", "sdk/Cargo.toml", "sdk/wit", "Cargo.lock"] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    let packages = plugin_packages(&workspace.join("plugins"))?;
    let names: Vec<&str> = packages.iter().map(String::as_str).collect();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("wasm-plugins");
    let wasm = subterminator_sdk::build::build_components(&workspace, &names, &target_dir)?;

    let mut code = String::from("pub static BUNDLED: &[BundledPlugin] = &[\n");
    for (package, path) in names.iter().zip(&wasm) {
        writeln!(
            code,
            "    BundledPlugin {{ package: {package:?}, wasm: include_bytes!({:?}) }},",
            path.display().to_string()
        )
        .map_err(|e| e.to_string())?;
    }
    code.push_str("];\n");
    let out = PathBuf::from(env("OUT_DIR")?).join("bundled.rs");
    std::fs::write(&out, code).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

/// The package name of every crate folder in `dir`, sorted for a stable build.
fn plugin_packages(dir: &Path) -> Result<Vec<String>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut packages = Vec::new();
    for entry in entries.flatten() {
        let manifest = entry.path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let name = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .ok_or_else(|| format!("{} has no package name", manifest.display()))?;
        packages.push(name.to_owned());
    }
    packages.sort();
    Ok(packages)
}
