//! Finds the bundled services under `plugins/<id>/` (a Rust crate or a
//! `service.toml`; its practice flow beside it is the practice crate's), builds the Rust ones
//! and the declarative interpreter to wasm components, and embeds them all,
//! so a plain `cargo build` yields a binary that carries them.

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
        .and_then(Path::parent)
        .ok_or("the core crate is not two folders below the workspace")?
        .to_path_buf();
    for watched in [
        "plugins",
        "host/interpreter",
        "sdk/declarative",
        "sdk/rust/src",
        "sdk/rust/Cargo.toml",
        "wit",
        "Cargo.lock",
    ] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    let services = services(&workspace.join("plugins"))?;
    let mut names: Vec<&str> = services
        .iter()
        .filter_map(|s| match &s.kind {
            Kind::Crate { package } => Some(package.as_str()),
            Kind::Declarative { .. } => None,
        })
        .collect();
    // The interpreter of declarative services is built with the plugins, in
    // the same cargo run, but is not a service itself.
    names.push(INTERPRETER_PACKAGE);
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("wasm-plugins");
    let wasm = subterminator_sdk::build::build_components(&workspace, &names, &target_dir)?;

    let (interpreter, components) = wasm
        .split_last()
        .ok_or("the plugin build returned no components")?;
    let mut code = format!(
        "pub static INTERPRETER: &[u8] = include_bytes!({:?});\n",
        interpreter.display().to_string()
    );
    code.push_str("pub static BUNDLED: &[BundledPlugin] = &[\n");
    for (package, path) in names.iter().zip(components) {
        writeln!(
            code,
            "    BundledPlugin {{ package: {package:?}, wasm: include_bytes!({:?}) }},",
            path.display().to_string()
        )
        .map_err(|e| e.to_string())?;
    }
    code.push_str("];\n");
    code.push_str("pub static BUNDLED_DECLARATIVE: &[BundledDeclarative] = &[\n");
    for service in &services {
        if let Kind::Declarative { file } = &service.kind {
            writeln!(
                code,
                "    BundledDeclarative {{ file: {:?}, text: include_str!({:?}) }},",
                format!("plugins/{}/service.toml", service.id),
                file.display().to_string()
            )
            .map_err(|e| e.to_string())?;
        }
    }
    code.push_str("];\n");
    let out_dir = PathBuf::from(env("OUT_DIR")?);
    let out = out_dir.join("bundled.rs");
    std::fs::write(&out, code).map_err(|e| format!("cannot write {}: {e}", out.display()))
}

/// The crate that runs declarative `service.toml` files in the sandbox.
const INTERPRETER_PACKAGE: &str = "subterminator-interpreter";

/// One bundled service: `plugins/<id>/`, whatever it is written in.
struct Service {
    id: String,
    kind: Kind,
}

/// What a service folder holds: a Rust crate (`Cargo.toml`) or a
/// declarative `service.toml`.
enum Kind {
    Crate { package: String },
    Declarative { file: PathBuf },
}

/// Every `plugins/<id>/` folder, sorted by id, by the one rule: a folder with
/// a `Cargo.toml` is a Rust plugin, one with a `service.toml` a declarative
/// one; a folder with both or neither is a mistake, said as such.
fn services(dir: &Path) -> Result<Vec<Service>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut services = Vec::new();
    for folder in folders {
        let id = folder
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| format!("{} is not a UTF-8 name", folder.display()))?
            .to_owned();
        let manifest = folder.join("Cargo.toml");
        let declarative = folder.join("service.toml");
        let kind = match (manifest.is_file(), declarative.is_file()) {
            (true, false) => Kind::Crate {
                package: package_name(&manifest)?,
            },
            (false, true) => Kind::Declarative { file: declarative },
            (true, true) => {
                return Err(format!(
                    "{} has both a Cargo.toml and a service.toml; a service is one or the other",
                    folder.display()
                ));
            }
            (false, false) => {
                return Err(format!(
                    "{} has neither a Cargo.toml nor a service.toml",
                    folder.display()
                ));
            }
        };
        services.push(Service { id, kind });
    }
    Ok(services)
}

fn env(name: &str) -> Result<String, String> {
    std::env::var(name).map_err(|_| format!("{name} is not set"))
}

/// The package name a crate's manifest declares.
fn package_name(manifest: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("name = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .map(str::to_owned)
        .ok_or_else(|| format!("{} has no package name", manifest.display()))
}
