//! Builds plugin crates to `wasm32-wasip2` components from a build script, so
//! that a plain `cargo build` of the host (or of a test crate) produces and
//! embeds them with no manual step.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The target every plugin is built for.
pub const WASM_TARGET: &str = "wasm32-wasip2";

/// Environment a nested cargo must not inherit from the outer build: flags
/// meant for the host target, clippy's wrapper (unless
/// [`LINT_PLUGINS_ENV`] asks for it), and the outer target dir.
const ENV_NOT_INHERITED: &[&str] = &[
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "CARGO_MAKEFLAGS",
    "CARGO_PRIMARY_PACKAGE",
    "__CARGO_FIX_PLZ",
    "CARGO_LLVM_COV",
    "LLVM_PROFILE_FILE",
];

/// Set (to anything) to build the plugins with clippy as their compiler,
/// the way the outer build runs (`RUSTC_WORKSPACE_WRAPPER` and `CLIPPY_ARGS`
/// kept): CI lints the wasm plugins in the build it needs anyway instead of
/// checking them a second time.
pub const LINT_PLUGINS_ENV: &str = "SUBTERMINATOR_LINT_PLUGINS";

/// Builds `packages` (cargo package names in the workspace at `workspace`) in
/// release for [`WASM_TARGET`] into `target_dir`, and returns each package's
/// `.wasm` component, in order.
///
/// Fails with one line telling how to fix a missing target.
pub fn build_components(
    workspace: &Path,
    packages: &[&str],
    target_dir: &Path,
) -> Result<Vec<PathBuf>, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    if target_installed().is_err() {
        add_target_with_rustup();
        target_installed()?;
    }
    let mut command = Command::new(&cargo);
    command
        .current_dir(workspace)
        .args([
            "build",
            "--release",
            "--target",
            WASM_TARGET,
            "--target-dir",
        ])
        .arg(target_dir);
    for package in packages {
        command.args(["-p", package]);
    }
    let lint = std::env::var_os(LINT_PLUGINS_ENV).is_some();
    println!("cargo:rerun-if-env-changed={LINT_PLUGINS_ENV}");
    for var in ENV_NOT_INHERITED {
        if lint && *var == "RUSTC_WORKSPACE_WRAPPER" {
            continue;
        }
        command.env_remove(var);
    }
    let output = command
        .output()
        .map_err(|e| format!("cannot run {cargo} to build the plugins: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("may not be installed") || stderr.contains("can't find crate for `std`")
        {
            return Err(missing_target_message());
        }
        return Err(format!(
            "building the plugins for {WASM_TARGET} failed:\n{stderr}"
        ));
    }
    Ok(packages
        .iter()
        .map(|p| {
            target_dir
                .join(WASM_TARGET)
                .join("release")
                .join(format!("{}.wasm", p.replace('-', "_")))
        })
        .collect())
}

fn missing_target_message() -> String {
    format!("the {WASM_TARGET} target is not installed; run: rustup target add {WASM_TARGET}")
}

/// Under rustup, adds the target the way `rust-toolchain.toml` asks for it;
/// without rustup (or offline) the caller's check reports what to run.
fn add_target_with_rustup() {
    let Some(toolchain) = std::env::var_os("RUSTUP_TOOLCHAIN") else {
        return;
    };
    println!("cargo:warning=installing the {WASM_TARGET} target (rustup target add {WASM_TARGET})");
    let status = Command::new("rustup")
        .args(["target", "add", WASM_TARGET, "--toolchain"])
        .arg(toolchain)
        .status();
    if let Err(e) = status {
        println!("cargo:warning=rustup could not be run: {e}");
    }
}

/// Checks the sysroot for the target's standard library, which gives a
/// clearer message than the compiler's own when it is missing.
fn target_installed() -> Result<(), String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let Ok(output) = Command::new(&rustc).args(["--print", "sysroot"]).output() else {
        // Let cargo report it; it knows better what went wrong.
        return Ok(());
    };
    let sysroot = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    let lib = Path::new(&sysroot).join("lib/rustlib").join(WASM_TARGET);
    if sysroot.is_empty() || lib.exists() {
        Ok(())
    } else {
        Err(missing_target_message())
    }
}
