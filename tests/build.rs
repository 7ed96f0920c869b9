//! Builds the abuse plugins under `tests/plugins/` to wasm components and
//! tells the tests where they are.

use std::path::PathBuf;

fn main() {
    if let Err(message) = run() {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let workspace = manifest
        .parent()
        .ok_or("the tests crate has no parent")?
        .to_path_buf();
    for watched in ["tests/plugins", "sdk/src", "wit"] {
        println!(
            "cargo:rerun-if-changed={}",
            workspace.join(watched).display()
        );
    }
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"))
        .join("wasm-plugins");
    let wasm = subterminator_sdk::build::build_components(
        &workspace,
        &["subterminator-plugin-abuse"],
        &target_dir,
    )?;
    for path in wasm {
        println!(
            "cargo:rustc-env=SUBTERMINATOR_ABUSE_WASM={}",
            path.display()
        );
    }
    Ok(())
}
