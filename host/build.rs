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
    for watched in [
        "plugins",
        "interpreter",
        "declarative",
        "services",
        "sdk/src",
        "sdk/Cargo.toml",
        "sdk/wit",
        "Cargo.lock",
    ] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    let packages = plugin_packages(&workspace.join("plugins"))?;
    let mut names: Vec<&str> = packages.iter().map(String::as_str).collect();
    // The interpreter of declarative services is built with the plugins, in
    // the same cargo run, but is not a service itself.
    names.push(INTERPRETER_PACKAGE);
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("wasm-plugins");
    let wasm = subterminator_sdk::build::build_components(&workspace, &names, &target_dir)?;

    let (interpreter, services) = wasm
        .split_last()
        .ok_or("the plugin build returned no components")?;
    let mut code = format!(
        "pub static INTERPRETER: &[u8] = include_bytes!({:?});\n",
        interpreter.display().to_string()
    );
    code.push_str("pub static BUNDLED: &[BundledPlugin] = &[\n");
    for (package, path) in names.iter().zip(services) {
        writeln!(
            code,
            "    BundledPlugin {{ package: {package:?}, wasm: include_bytes!({:?}) }},",
            path.display().to_string()
        )
        .map_err(|e| e.to_string())?;
    }
    code.push_str("];\n");
    code.push_str("pub static BUNDLED_DECLARATIVE: &[BundledDeclarative] = &[\n");
    let services = workspace.join("services");
    for (id, file) in service_files(&services)? {
        writeln!(
            code,
            "    BundledDeclarative {{ file: {:?}, text: include_str!({:?}) }},",
            format!("services/{id}/service.toml"),
            file.display().to_string()
        )
        .map_err(|e| e.to_string())?;
    }
    code.push_str("];\n");
    let out_dir = PathBuf::from(env("OUT_DIR")?);
    let practice = practice_flows(&services)?;
    let practice_out = out_dir.join("practice.rs");
    std::fs::write(&practice_out, practice)
        .map_err(|e| format!("cannot write {}: {e}", practice_out.display()))?;
    let out = out_dir.join("bundled.rs");
    std::fs::write(&out, code).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The crate that runs declarative `service.toml` files in the sandbox.
const INTERPRETER_PACKAGE: &str = "subterminator-interpreter";

/// The bundled declarative services: `services/<id>/service.toml`, sorted
/// by id. A folder without one is a Rust plugin's practice flow only.
fn service_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    Ok(service_dirs(dir)?
        .into_iter()
        .filter_map(|(id, folder)| {
            let file = folder.join("service.toml");
            file.is_file().then_some((id, file))
        })
        .collect())
}

/// Every `services/<id>/` folder, sorted by id.
fn service_dirs(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut dirs: Vec<(String, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter_map(|p| {
            let id = p.file_name()?.to_str()?.to_owned();
            Some((id, p))
        })
        .collect();
    dirs.sort();
    Ok(dirs)
}

/// `PRACTICE_FLOWS`: every `services/<id>/practice/` folder's files, by
/// name, for the practice site to serve.
fn practice_flows(dir: &Path) -> Result<String, String> {
    let mut code = String::from("pub static PRACTICE_FLOWS: &[EmbeddedFlow] = &[\n");
    for (id, folder) in service_dirs(dir)? {
        let practice = folder.join("practice");
        let Ok(entries) = std::fs::read_dir(&practice) else {
            continue;
        };
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
